//! The visibility gate (pure): a snapshot plus the PR's seen markers give every item a freshness.
//!
//! At least once: this module never drops an item. Whatever a view later hides (resolved,
//! outdated, minimized) it hides from a list that has already surfaced every item once.

use std::collections::HashMap;

use serde::Serialize;

use crate::ledger::{KeptText, Marker};
use crate::pr::{Item, Snapshot};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Freshness {
    /// No marker: never surfaced before.
    New,
    /// A marker with another body hash: changed since it was first surfaced.
    Edited,
    /// A marker with the same hash.
    Unchanged,
}

impl Freshness {
    pub fn as_str(self) -> &'static str {
        match self {
            Freshness::New => "new",
            Freshness::Edited => "edited",
            Freshness::Unchanged => "unchanged",
        }
    }

    /// New and edited items still need a look.
    pub fn needs_attention(self) -> bool {
        !matches!(self, Freshness::Unchanged)
    }
}

/// One item's verdict; `index` points into `Snapshot::items`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triaged {
    pub index: usize,
    pub freshness: Freshness,
    /// When the item was first surfaced (kept across edits).
    pub seen_at: Option<i64>,
    /// The current body hash (what a marker written now would hold).
    pub body_hash: String,
}

/// Classifies every item of the snapshot, in snapshot order. The result has exactly one entry per
/// item.
pub fn triage(snapshot: &Snapshot, markers: &HashMap<String, Marker>) -> Vec<Triaged> {
    // Hashing every body is the costly part on a large PR: spread it over the cores.
    crate::par::map_chunks(&snapshot.items, 512, |start, items| {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let body_hash = item.body_hash();
                let marker = markers.get(item.id());
                let freshness = match marker {
                    // The maintainer's own words, not on GitHub yet: never news to them.
                    _ if crate::pr::is_queued(item.id()) => Freshness::Unchanged,
                    None => Freshness::New,
                    Some(m) if m.body_hash == body_hash => Freshness::Unchanged,
                    Some(_) => Freshness::Edited,
                };
                Triaged {
                    index: start + i,
                    freshness,
                    seen_at: marker.map(|m| m.seen_at),
                    body_hash,
                }
            })
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Counts per freshness: (new, edited, unchanged).
pub fn counts(triaged: &[Triaged]) -> (usize, usize, usize) {
    triaged
        .iter()
        .fold((0, 0, 0), |(n, e, u), t| match t.freshness {
            Freshness::New => (n + 1, e, u),
            Freshness::Edited => (n, e + 1, u),
            Freshness::Unchanged => (n, e, u + 1),
        })
}

/// The ids and marker hashes of the edited items, whose kept texts say what changed.
pub fn edited_pairs<'a>(
    snapshot: &'a Snapshot,
    triaged: &'a [Triaged],
    markers: &'a HashMap<String, Marker>,
) -> Vec<(&'a str, &'a str)> {
    triaged
        .iter()
        .filter(|t| t.freshness == Freshness::Edited)
        .filter_map(|t| {
            let id = snapshot.items.get(t.index)?.id();
            Some((id, markers.get(id)?.body_hash.as_str()))
        })
        .collect()
}

/// The texts to keep beside the markers [`marks`] gives (write them first).
pub fn kept_texts(snapshot: &Snapshot, triaged: &[Triaged]) -> Vec<KeptText> {
    triaged
        .iter()
        .filter(|t| t.freshness.needs_attention())
        .filter_map(|t| {
            snapshot
                .items
                .get(t.index)
                .map(|i| KeptText::of(i, &t.body_hash))
        })
        .collect()
}

/// The (id, hash) pairs to mark once these items have been delivered.
pub fn marks<'a>(snapshot: &'a Snapshot, triaged: &'a [Triaged]) -> Vec<(&'a str, &'a str)> {
    triaged
        .iter()
        .filter(|t| t.freshness.needs_attention())
        .filter_map(|t| {
            snapshot
                .items
                .get(t.index)
                .map(|i| (i.id(), t.body_hash.as_str()))
        })
        .collect()
}

/// What changed in an edited item since it was last marked seen, from the kept text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    /// The body as last seen, when it changed and was kept: a comment's or review summary's
    /// body, or a thread's first comment.
    pub previous_body: Option<String>,
    /// A thread's comments added since (ids, in order).
    pub new_comments: Vec<String>,
    /// A thread's comments (other than none) whose body changed since, with the body as last
    /// seen (`None` when it was not kept).
    pub edited_comments: Vec<EditedComment>,
}

/// A thread comment whose body changed since the last look.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditedComment {
    pub id: String,
    pub previous_body: Option<String>,
}

impl Changes {
    /// Whether the comment `id` of a thread was added since the last look.
    pub fn is_new_comment(&self, id: &str) -> bool {
        self.new_comments.iter().any(|c| c == id)
    }

    /// The body as last seen of a thread comment that changed since.
    pub fn previous_comment_body(&self, id: &str) -> Option<&str> {
        self.edited_comments
            .iter()
            .find(|e| e.id == id)
            .and_then(|e| e.previous_body.as_deref())
    }
}

/// What changed in `item` since `kept` (the text last seen). `None` unless the item is edited;
/// without a kept text (markers older than kept texts) an edited item has empty changes.
pub fn changes(item: &Item, freshness: Freshness, kept: Option<&KeptText>) -> Option<Changes> {
    if freshness != Freshness::Edited {
        return None;
    }
    let Some(kept) = kept.filter(|k| k.id == item.id()) else {
        return Some(Changes::default());
    };
    let mut out = Changes::default();
    match item {
        Item::Thread(t) => {
            for (i, c) in t.comments.iter().enumerate() {
                match kept.comments.iter().find(|k| k.id == c.id) {
                    None => out.new_comments.push(c.id.clone()),
                    Some(k) if k.body.as_deref() == Some(c.body.as_str()) => {}
                    Some(k) => {
                        if i == 0 {
                            out.previous_body = k.body.clone();
                        }
                        out.edited_comments.push(EditedComment {
                            id: c.id.clone(),
                            previous_body: k.body.clone(),
                        });
                    }
                }
            }
        }
        _ => {
            out.previous_body = kept.body.clone().filter(|b| b != item.body());
        }
    }
    Some(out)
}

/// One line of a line diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLine<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The line diff from `before` to `after` (Myers, via `similar`), bounded in time.
pub fn line_diff<'a>(before: &'a str, after: &'a str) -> Vec<DiffLine<'a>> {
    use similar::{ChangeTag, TextDiff};
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(200))
        .diff_lines(before, after);
    diff.iter_all_changes()
        .map(|c| {
            let text = c.value().trim_end_matches(['\n', '\r']);
            match c.tag() {
                ChangeTag::Equal => DiffLine::Same(text),
                ChangeTag::Delete => DiffLine::Removed(text),
                ChangeTag::Insert => DiffLine::Added(text),
            }
        })
        .collect()
}
