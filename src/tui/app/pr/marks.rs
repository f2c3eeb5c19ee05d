//! Marking items seen: which writes are in flight, whether markers can be written at all, and
//! the `MarkSeen` effects. An item shown on screen is marked only after the frame that showed it
//! was drawn (`Action::Drawn`); explicit marks (`m`, `M`) say why when nothing is written.

use std::collections::HashSet;

use super::list::ItemList;
use crate::ledger::KeptText;
use crate::tui::app::screen::Ctx;

#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// Ids whose marker write is in flight (not asked for twice).
    pending: HashSet<String>,
    /// Why markers are not written, when they are not.
    pub blocked: Option<String>,
}

impl Marks {
    pub fn new(blocked: Option<String>) -> Marks {
        Marks {
            pending: HashSet::new(),
            blocked,
        }
    }

    /// The marker to write for an item, if it is not recorded with its current hash yet.
    fn candidate(&self, list: &ItemList, idx: usize) -> Option<(String, String)> {
        let t = list.triaged.get(idx)?;
        let item = list.snapshot.items.get(idx)?;
        let id = item.id();
        if self.pending.contains(id) {
            return None;
        }
        if let Some(m) = list.markers.get(id) {
            // Already marked with this version, or with a later one (an earlier fixture step is
            // a look at the past: a marker never moves back).
            if m.body_hash == t.body_hash
                || list
                    .ahead
                    .get(id)
                    .is_some_and(|later| later.contains(&m.body_hash))
            {
                return None;
            }
        }
        Some((id.to_owned(), t.body_hash.clone()))
    }

    /// How many of `idxs` would get a marker written (not marked with their current version).
    pub(super) fn unmarked(&self, list: &ItemList, idxs: &[usize]) -> usize {
        idxs.iter()
            .filter(|&&i| self.candidate(list, i).is_some())
            .count()
    }

    /// Asks for the markers of `idxs`; `explicit` (the maintainer pressed a key) explains a no-op.
    pub(super) fn mark(
        &mut self,
        list: &ItemList,
        idxs: &[usize],
        ctx: &mut Ctx<'_>,
        explicit: bool,
    ) {
        if let Some(why) = &self.blocked {
            if explicit {
                ctx.say(format!("seen markers are not saved: {why}"));
            }
            return;
        }
        if !list.snapshot.is_complete() {
            if explicit {
                ctx.say("the snapshot is incomplete: no seen markers are written");
            }
            return;
        }
        let items: Vec<(String, String)> = idxs
            .iter()
            .filter_map(|&i| self.candidate(list, i))
            .collect();
        if items.is_empty() {
            if explicit {
                ctx.say("already marked seen");
            }
            return;
        }
        for (id, _) in &items {
            self.pending.insert(id.clone());
        }
        let kept = items
            .iter()
            .filter_map(|(id, hash)| {
                let item = list.snapshot.find(id)?;
                Some(KeptText::of(item, hash))
            })
            .collect();
        ctx.work(super::Work::MarkSeen {
            pr: list.snapshot.pr.coords(),
            items,
            kept,
        });
    }

    /// The ledger answered a `MarkSeen`: record the markers, or stop writing and say why.
    pub(super) fn marked(
        &mut self,
        list: &mut ItemList,
        items: Vec<(String, String)>,
        at: i64,
        result: Result<(), String>,
        ctx: &mut Ctx<'_>,
    ) {
        for (id, _) in &items {
            self.pending.remove(id);
        }
        match result {
            Ok(()) => list.record_seen(items, at),
            Err(e) => {
                ctx.say(format!("seen markers were not saved: {e}"));
                self.blocked = Some(e);
            }
        }
    }

    /// A new snapshot: nothing is in flight for it.
    pub(super) fn reset(&mut self) {
        self.pending.clear();
    }
}
