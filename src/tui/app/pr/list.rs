//! The PR screen's item list: the snapshot triaged against the seen markers, grouped rows, the
//! selection and scrolling, the view filter and search. Pure state; answers the navigation,
//! filter and search commands.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ratatui::text::Line;

use crate::ledger::{KeptText, Marker, ThreadAction, apply_queued, queued_resolution};
use crate::pr::{Comment, Item, Origin, Review, Snapshot};
use crate::triage::{Changes, Freshness, Triaged, changes, triage};
use crate::tui::app::action::{Ahead, Drawn};
use crate::tui::app::effect::Effect;
use crate::tui::app::screen::Ctx;
use crate::tui::keymap::KeyCommand;

/// The three groups of the list, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    Threads,
    Conversation,
    Summaries,
}

impl Group {
    pub const ALL: [Group; 3] = [Group::Threads, Group::Conversation, Group::Summaries];

    pub fn title(self) -> &'static str {
        match self {
            Group::Threads => "Review threads",
            Group::Conversation => "Conversation",
            Group::Summaries => "Review summaries",
        }
    }

    fn of(item: &Item) -> Group {
        match item {
            Item::Thread(_) => Group::Threads,
            Item::Comment(_) => Group::Conversation,
            Item::Review(_) => Group::Summaries,
        }
    }

    fn index(self) -> usize {
        match self {
            Group::Threads => 0,
            Group::Conversation => 1,
            Group::Summaries => 2,
        }
    }
}

/// One row of the list: a group header or an item (index into `Snapshot::items`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Group(Group),
    Item(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Detail,
}

/// View filter, chosen by the maintainer. Defaults show everything. Status filters (hide
/// resolved/outdated/minimized) never hide a new or edited item that has not been marked seen
/// yet: hiding happens only after an item was surfaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filter {
    pub new: bool,
    pub edited: bool,
    pub unchanged: bool,
    pub hide_resolved: bool,
    pub hide_outdated: bool,
    pub hide_minimized: bool,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            new: true,
            edited: true,
            unchanged: true,
            hide_resolved: false,
            hide_outdated: false,
            hide_minimized: false,
        }
    }
}

impl Filter {
    pub fn is_default(&self) -> bool {
        *self == Filter::default()
    }

    /// A short description for the footer, e.g. "new+edited, hide resolved".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !(self.new && self.edited && self.unchanged) {
            let f: Vec<&str> = [
                (self.new, "new"),
                (self.edited, "edited"),
                (self.unchanged, "unchanged"),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
            parts.push(if f.is_empty() {
                "nothing".to_owned()
            } else {
                f.join("+")
            });
        }
        for (on, n) in [
            (self.hide_resolved, "hide resolved"),
            (self.hide_outdated, "hide outdated"),
            (self.hide_minimized, "hide minimized"),
        ] {
            if on {
                parts.push(n.to_owned());
            }
        }
        parts.join(", ")
    }
}

/// Counts shown in the header and group rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub new: usize,
    pub edited: usize,
    pub unchanged: usize,
    pub outdated: usize,
    pub resolved: usize,
    pub minimized: usize,
    /// Shepherd's own review comments (the session's identity): listed with a `SHEPHERD` badge
    /// and counted here, never as new, edited or unchanged.
    pub shepherd: usize,
    /// Per group: (total, new, edited).
    pub groups: [(usize, usize, usize); 3],
}

const DEFAULT_HEIGHT: u16 = 20;

/// A comment body as rendered for the detail pane: the text it was rendered from, and its lines.
type RenderedBody = (String, Arc<Vec<Line<'static>>>);

/// The most comment bodies [`ItemList`] keeps rendered (each at one width).
const MARKDOWN_CACHED: usize = 256;

/// The list, its selection, filter and search, and the detail scroll of the selected item.
#[derive(Debug, Clone)]
pub struct ItemList {
    pub snapshot: Snapshot,
    pub triaged: Vec<Triaged>,
    /// The ledger's markers (updated as writes succeed).
    pub markers: HashMap<String, Marker>,
    /// The texts of edited items as last seen (from the ledger when the step was loaded).
    pub kept: HashMap<String, KeptText>,
    pub counts: Counts,
    pub rows: Vec<Row>,
    pub selected: usize,
    pub list_offset: usize,
    pub focus: Focus,
    pub zoom: bool,
    pub detail_scroll: usize,
    /// The selection changed and no frame has shown it yet: the detail opens at the item's
    /// anchor (a thread's first new reply) rather than at the top.
    pub open_at_anchor: bool,
    /// The zoom changed and no frame has shown it yet: the detail scrolls so that a thread's
    /// commented line (its hunk's last) sits near the middle of the pane.
    pub centre_commented_line: bool,
    pub filter: Filter,
    pub collapsed: [bool; 3],
    /// Items per group that pass the filter (collapsed groups included).
    pub listed: [usize; 3],
    pub search: Option<String>,
    /// Ids marked seen during this session (shown with ✓).
    pub seen_now: HashSet<String>,
    pub highlights: HashMap<String, Arc<Vec<Line<'static>>>>,
    /// Folded minimized items the maintainer opened (Enter) this session.
    pub opened: HashSet<String>,
    /// Fixture history: the versions items have at later steps (see [`Ahead`]).
    pub ahead: Ahead,
    /// The account whose `## PR Shepherd Review` comments are the session's own.
    identity: String,
    /// Thread actions queued offline (the thread outbox and this session's own), laid over
    /// every snapshot shown: their replies marked queued, their resolutions as they will be.
    pub queued: Vec<ThreadAction>,
    /// What was sent and the PR as read may not show yet (the outbox's comments and reviews
    /// offline; this session's live ones until read back), laid over every snapshot shown.
    pub sent: Vec<crate::ledger::Sent>,
    /// The ids of those comments in the snapshot (as `review::prior` recognises them): a
    /// look-alike by another account is not among them.
    pub own: HashSet<String>,
    /// Comment bodies rendered from Markdown for the detail pane, by (comment id, width), each
    /// with the text it was rendered from: filled outside drawing ([`ItemList::fill_markdown`],
    /// after a frame and after a key), read by the frame; a body that changed misses.
    markdown: HashMap<(String, usize), RenderedBody>,
    pending_highlights: HashSet<String>,
    /// What the last frame showed (pane heights).
    pub(super) last: Drawn,
}

impl ItemList {
    /// The list of `snapshot` against `markers`; `identity` is the account whose Shepherd
    /// reviews are the session's own.
    pub fn new(snapshot: Snapshot, markers: HashMap<String, Marker>, identity: &str) -> ItemList {
        let mut list = ItemList {
            snapshot,
            triaged: Vec::new(),
            markers,
            kept: HashMap::new(),
            counts: Counts::default(),
            rows: Vec::new(),
            selected: 0,
            list_offset: 0,
            focus: Focus::List,
            zoom: false,
            detail_scroll: 0,
            open_at_anchor: true,
            centre_commented_line: false,
            filter: Filter::default(),
            collapsed: [false; 3],
            listed: [0; 3],
            search: None,
            seen_now: HashSet::new(),
            highlights: HashMap::new(),
            ahead: HashMap::new(),
            opened: HashSet::new(),
            identity: identity.to_owned(),
            queued: Vec::new(),
            sent: Vec::new(),
            own: HashSet::new(),
            markdown: HashMap::new(),
            pending_highlights: HashSet::new(),
            last: Drawn {
                list_height: DEFAULT_HEIGHT,
                detail_height: DEFAULT_HEIGHT,
                ..Drawn::default()
            },
        };
        list.retriage();
        list.select_first_item();
        list
    }

    /// What changed in item `idx` since it was last seen (`None` unless it is edited).
    pub fn changes(&self, idx: usize) -> Option<Changes> {
        let item = self.snapshot.items.get(idx)?;
        let t = self.triaged.get(idx)?;
        changes(item, t.freshness, self.kept.get(item.id()))
    }

    /// GitHub resolved or unresolved a thread: the badge and counts follow at once (the
    /// thread's hash does not cover it, so nothing re-surfaces).
    pub(super) fn set_resolved(&mut self, id: &str, resolved: bool) {
        let mut changed = false;
        for item in &mut self.snapshot.items {
            if let Item::Thread(t) = item
                && t.id == id
            {
                changed = t.resolved != resolved;
                t.resolved = resolved;
            }
        }
        if changed {
            self.retriage();
        }
    }

    /// Thread actions queued offline: shown on their threads from now on, and on every
    /// snapshot after this one (the fixture never holds them).
    pub(super) fn queue(&mut self, actions: Vec<ThreadAction>) {
        if actions.is_empty() {
            return;
        }
        self.queued.extend(actions);
        apply_queued(&self.queued, &mut self.snapshot.items, &self.identity);
        self.retriage();
    }

    /// Lays `sent` over the snapshot shown (and every later one), each thing in its place until
    /// the PR read shows it.
    pub(super) fn lay_sent(&mut self, sent: crate::ledger::Sent) {
        if sent.is_empty() {
            return;
        }
        sent.apply(&mut self.snapshot.items, &self.identity);
        self.sent.push(sent);
        self.retriage();
    }

    /// Whether `thread_id`'s resolve or unresolve is queued, and which.
    pub fn queued_resolution(&self, thread_id: &str) -> Option<bool> {
        queued_resolution(&self.queued, thread_id)
    }

    /// A new fixture step: its snapshot and the markers read afresh.
    pub(super) fn replace(&mut self, snapshot: Snapshot, markers: HashMap<String, Marker>) {
        self.snapshot = snapshot;
        apply_queued(&self.queued, &mut self.snapshot.items, &self.identity);
        for s in &self.sent {
            s.apply(&mut self.snapshot.items, &self.identity);
        }
        self.markers = markers;
        self.seen_now.clear();
        self.retriage();
        if self.selected_index().is_none() {
            self.select_first_item();
        }
    }

    /// The same PR fetched afresh: new data and the ledger's markers, the selection kept on the
    /// same item (and its detail scroll), the items seen this session still counted as shown.
    pub(super) fn refresh(
        &mut self,
        snapshot: Snapshot,
        markers: HashMap<String, Marker>,
        kept: HashMap<String, KeptText>,
    ) {
        let was = self.selected_item().map(|i| i.id().to_owned());
        let (scroll, seen_now) = (self.detail_scroll, std::mem::take(&mut self.seen_now));
        self.replace(snapshot, markers);
        self.kept = kept;
        self.seen_now = seen_now;
        let at = was.and_then(|id| {
            self.rows.iter().position(|r| {
                matches!(r, Row::Item(i) if self.snapshot.items.get(*i).is_some_and(|it| it.id() == id))
            })
        });
        if let Some(row) = at {
            self.select(row);
            self.detail_scroll = scroll;
        }
    }

    /// Markers written by the ledger: recorded, and shown with ✓.
    pub(super) fn record_seen(&mut self, items: Vec<(String, String)>, at: i64) {
        for (id, hash) in items {
            let seen_at = self.markers.get(&id).map_or(at, |m| m.seen_at);
            self.markers.insert(
                id.clone(),
                Marker {
                    id: id.clone(),
                    seen_at,
                    body_hash: hash,
                    extra: serde_json::Map::new(),
                },
            );
            self.seen_now.insert(id);
        }
    }

    /// A frame was drawn: keep the selection and scroll inside the panes it had.
    pub(super) fn drawn(&mut self, d: Drawn) {
        self.last = d;
        let centred = std::mem::take(&mut self.centre_commented_line);
        if std::mem::take(&mut self.open_at_anchor) || centred {
            self.detail_scroll = d.detail_scroll;
        }
        self.ensure_visible();
        self.detail_scroll = self.detail_scroll.min(self.max_detail_scroll());
    }

    /// The bodies item `idx` shows rendered from Markdown, by comment id: a thread's comments, a
    /// comment (Shepherd's own without its hidden metadata), a review summary; a body shown as a
    /// diff against the text last seen is not among them.
    pub fn markdown_bodies(&self, idx: usize) -> Vec<(&str, std::borrow::Cow<'_, str>)> {
        let Some(item) = self.snapshot.items.get(idx) else {
            return Vec::new();
        };
        let changes = self.changes(idx);
        match item {
            Item::Thread(t) => t
                .comments
                .iter()
                .filter(|c| {
                    changes
                        .as_ref()
                        .and_then(|ch| ch.previous_comment_body(&c.id))
                        .is_none()
                })
                .map(|c| (c.id.as_str(), crate::pr::without_markers(&c.body)))
                .collect(),
            Item::Comment(c) if self.own.contains(&c.id) => {
                vec![(
                    c.id.as_str(),
                    crate::pr::without_markers(
                        crate::review::results::outcome::visible(&c.body).trim_end(),
                    ),
                )]
            }
            Item::Comment(Comment { id, body, .. }) | Item::Review(Review { id, body, .. }) => {
                if changes.is_some_and(|ch| ch.previous_body.is_some()) {
                    Vec::new()
                } else {
                    vec![(id.as_str(), crate::pr::without_markers(body))]
                }
            }
        }
    }

    /// How many comment bodies are cached rendered (each at one width).
    pub fn cached_bodies(&self) -> usize {
        self.markdown.len()
    }

    /// The rendered lines of comment `id`'s `body` at `width`, when cached for that very text.
    pub fn cached_markdown(
        &self,
        id: &str,
        body: &str,
        width: usize,
    ) -> Option<&Arc<Vec<Line<'static>>>> {
        self.markdown
            .get(&(id.to_owned(), width))
            .filter(|(text, _)| text == body)
            .map(|(_, lines)| lines)
    }

    /// Renders the bodies of item `idx` at `width` with `render` into the cache, those not cached
    /// for their current text yet. The cache holds a bounded number of bodies: past it, it
    /// starts again (what the frames show next is rendered again once).
    pub fn fill_markdown(
        &mut self,
        idx: usize,
        width: usize,
        render: impl Fn(&str) -> Vec<Line<'static>>,
    ) {
        let missing: Vec<(String, String)> = self
            .markdown_bodies(idx)
            .into_iter()
            .filter(|(id, body)| self.cached_markdown(id, body, width).is_none())
            .map(|(id, body)| (id.to_owned(), body.into_owned()))
            .collect();
        if self.markdown.len() + missing.len() > MARKDOWN_CACHED {
            self.markdown.clear();
        }
        for (id, body) in missing {
            let lines = Arc::new(render(&body));
            self.markdown.insert((id, width), (body, lines));
        }
    }

    /// Whether item `idx` is Shepherd's own review (of the session's identity).
    pub fn is_own(&self, idx: usize) -> bool {
        self.snapshot
            .items
            .get(idx)
            .is_some_and(|i| self.own.contains(i.id()))
    }

    fn retriage(&mut self) {
        self.triaged = triage(&self.snapshot, &self.markers);
        self.own = crate::review::inputs::prior::prior_reviews(&self.snapshot, &self.identity)
            .own
            .into_iter()
            .map(|r| r.comment_id)
            .collect();
        let mut c = Counts::default();
        for t in &self.triaged {
            let Some(item) = self.snapshot.items.get(t.index) else {
                continue;
            };
            let g = &mut c.groups[Group::of(item).index()];
            g.0 += 1;
            if self.own.contains(item.id()) {
                // The maintainer's own work: never new or edited (as `items` and the inbox).
                c.shepherd += 1;
                continue;
            }
            match t.freshness {
                Freshness::New => {
                    c.new += 1;
                    g.1 += 1;
                }
                Freshness::Edited => {
                    c.edited += 1;
                    g.2 += 1;
                }
                Freshness::Unchanged => c.unchanged += 1,
            }
            let s = item.status();
            c.outdated += usize::from(s.outdated);
            c.resolved += usize::from(s.resolved);
            c.minimized += usize::from(s.minimized);
        }
        self.counts = c;
        self.rebuild_rows();
    }

    /// True when the item may be hidden by a status filter (it was surfaced already).
    fn surfaced(&self, idx: usize) -> bool {
        let Some(t) = self.triaged.get(idx) else {
            return true;
        };
        !t.freshness.needs_attention()
            || self
                .snapshot
                .items
                .get(idx)
                .is_some_and(|i| self.seen_now.contains(i.id()))
    }

    /// A minimized item that "hide minimized" would hide but may not yet (it was not surfaced):
    /// listed as one collapsed line, its text folded until Enter opens it.
    pub fn folded(&self, idx: usize) -> bool {
        self.filter.hide_minimized
            && !self.surfaced(idx)
            && self
                .snapshot
                .items
                .get(idx)
                .is_some_and(|i| i.status().minimized && !self.opened.contains(i.id()))
    }

    pub fn passes_filter(&self, idx: usize) -> bool {
        let (Some(t), Some(item)) = (self.triaged.get(idx), self.snapshot.items.get(idx)) else {
            return false;
        };
        let f = &self.filter;
        let fresh_ok = match t.freshness {
            Freshness::New => f.new,
            Freshness::Edited => f.edited,
            Freshness::Unchanged => f.unchanged,
        };
        if !fresh_ok {
            return false;
        }
        if self.surfaced(idx) {
            let s = item.status();
            if (f.hide_resolved && s.resolved)
                || (f.hide_outdated && s.outdated)
                || (f.hide_minimized && s.minimized)
            {
                return false;
            }
        }
        true
    }

    fn rebuild_rows(&mut self) {
        let keep = self.selected_item().map(|i| i.id().to_owned());
        let keep_group = match self.rows.get(self.selected) {
            Some(Row::Group(g)) => Some(*g),
            _ => None,
        };
        let mut by_group: [Vec<usize>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for (idx, item) in self.snapshot.items.iter().enumerate() {
            if self.passes_filter(idx) {
                by_group[Group::of(item).index()].push(idx);
            }
        }
        self.listed = [by_group[0].len(), by_group[1].len(), by_group[2].len()];
        let mut rows = Vec::with_capacity(self.snapshot.items.len() + 3);
        for g in Group::ALL {
            rows.push(Row::Group(g));
            if !self.collapsed[g.index()] {
                rows.extend(by_group[g.index()].iter().map(|&i| Row::Item(i)));
            }
        }
        self.rows = rows;
        let found = keep.and_then(|id| {
            self.rows.iter().position(|r| match r {
                Row::Item(i) => self.snapshot.items.get(*i).is_some_and(|it| it.id() == id),
                Row::Group(_) => false,
            })
        });
        let found = found.or_else(|| {
            keep_group.and_then(|g| self.rows.iter().position(|r| *r == Row::Group(g)))
        });
        self.selected = found.unwrap_or(self.selected.min(self.rows.len().saturating_sub(1)));
        self.ensure_visible();
    }

    fn select_first_item(&mut self) {
        if let Some(p) = self.rows.iter().position(|r| matches!(r, Row::Item(_))) {
            self.select(p);
        }
    }

    /// The index (into `Snapshot::items`) of the selected item, if an item row is selected.
    pub fn selected_index(&self) -> Option<usize> {
        match self.rows.get(self.selected) {
            Some(Row::Item(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn selected_item(&self) -> Option<&Item> {
        self.selected_index()
            .and_then(|i| self.snapshot.items.get(i))
    }

    /// The item indexes of every listed row.
    pub(super) fn listed_items(&self) -> Vec<usize> {
        self.rows
            .iter()
            .filter_map(|r| match r {
                Row::Item(i) => Some(*i),
                Row::Group(_) => None,
            })
            .collect()
    }

    pub fn freshness(&self, idx: usize) -> Freshness {
        self.triaged
            .get(idx)
            .map_or(Freshness::New, |t| t.freshness)
    }

    /// `(step, steps)` when the snapshot is a fixture.
    pub fn step(&self) -> Option<(usize, usize)> {
        match &self.snapshot.origin {
            Origin::Fixture { step, steps, .. } => Some((*step, *steps)),
            Origin::Live => None,
        }
    }

    pub(super) fn select(&mut self, row: usize) {
        let row = row.min(self.rows.len().saturating_sub(1));
        if row != self.selected {
            self.detail_scroll = 0;
            self.open_at_anchor = true;
        }
        self.selected = row;
        self.ensure_visible();
    }

    fn ensure_visible(&mut self) {
        self.list_offset = self.offset_for(usize::from(self.last.list_height));
    }

    /// The first row to show in a list `height` rows tall: the kept scroll, moved just enough to
    /// show the selection, and never past the point where the list would leave rows empty. Drawing
    /// uses it too, so the frame right after a resize is already right.
    pub fn offset_for(&self, height: usize) -> usize {
        let h = height.max(1);
        let mut offset = self.list_offset;
        if self.selected < offset {
            offset = self.selected;
        } else if self.selected >= offset + h {
            offset = self.selected + 1 - h;
        }
        offset.min(self.rows.len().saturating_sub(h))
    }

    pub(super) fn max_detail_scroll(&self) -> usize {
        self.last
            .detail_lines
            .saturating_sub(usize::from(self.last.detail_height.max(1)))
    }

    pub(super) fn half_page(&self, list: bool) -> usize {
        let h = if list {
            self.last.list_height
        } else {
            self.last.detail_height
        };
        usize::from((h / 2).max(1))
    }

    /// The highlight cache key for a thread: its id plus the hunk's hash.
    pub fn highlight_key(item: &Item) -> Option<String> {
        match item {
            Item::Thread(t) if !t.diff_hunk.is_empty() => {
                Some(format!("{}:{}", t.id, crate::pr::body_hash(&t.diff_hunk)))
            }
            _ => None,
        }
    }

    pub(super) fn request_highlight(&mut self, effects: &mut Vec<Effect>) {
        let Some(Item::Thread(t)) = self.selected_item() else {
            return;
        };
        let Some(key) = ItemList::highlight_key(&Item::Thread(t.clone())) else {
            return;
        };
        if self.highlights.contains_key(&key) || self.pending_highlights.contains(&key) {
            return;
        }
        let (path, hunk) = (t.path.clone(), t.diff_hunk.clone());
        self.pending_highlights.insert(key.clone());
        effects.push(Effect::Highlight { key, path, hunk });
    }

    pub(super) fn highlighted(&mut self, key: String, lines: Arc<Vec<Line<'static>>>) {
        self.pending_highlights.remove(&key);
        self.highlights.insert(key, lines);
    }

    /// Navigation, focus, collapse, search and filter commands. False: not a list command.
    pub(super) fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> bool {
        let detail = self.focus == Focus::Detail;
        let max = self.max_detail_scroll();
        match cmd {
            KeyCommand::Down if detail => self.detail_scroll = (self.detail_scroll + 1).min(max),
            KeyCommand::Up if detail => self.detail_scroll = self.detail_scroll.saturating_sub(1),
            KeyCommand::Top if detail => self.detail_scroll = 0,
            KeyCommand::Bottom if detail => self.detail_scroll = max,
            KeyCommand::PageDown if detail => {
                self.detail_scroll = (self.detail_scroll + self.half_page(false)).min(max)
            }
            KeyCommand::PageUp if detail => {
                self.detail_scroll = self.detail_scroll.saturating_sub(self.half_page(false))
            }
            KeyCommand::Down => self.select(self.selected + 1),
            KeyCommand::Up => self.select(self.selected.saturating_sub(1)),
            KeyCommand::Top => self.select(0),
            KeyCommand::Bottom => self.select(self.rows.len().saturating_sub(1)),
            KeyCommand::PageDown => self.select(self.selected + self.half_page(true)),
            KeyCommand::PageUp => self.select(self.selected.saturating_sub(self.half_page(true))),
            KeyCommand::Focus => {
                self.focus = match self.focus {
                    Focus::List => Focus::Detail,
                    Focus::Detail => Focus::List,
                }
            }
            KeyCommand::Toggle => match self.rows.get(self.selected) {
                Some(Row::Group(g)) => {
                    let i = g.index();
                    self.collapsed[i] = !self.collapsed[i];
                    self.rebuild_rows();
                }
                Some(Row::Item(i)) if self.folded(*i) => {
                    if let Some(item) = self.snapshot.items.get(*i) {
                        self.opened.insert(item.id().to_owned());
                    }
                }
                Some(Row::Item(_)) => {
                    self.zoom = !self.zoom;
                    self.centre_commented_line = true;
                }
                None => {}
            },
            KeyCommand::NextMatch | KeyCommand::PrevMatch => {
                self.next_match(cmd == KeyCommand::NextMatch, ctx)
            }
            KeyCommand::NextNew | KeyCommand::PrevNew => {
                self.next_new(cmd == KeyCommand::NextNew, ctx)
            }
            _ => return false,
        }
        true
    }

    fn next_match(&mut self, forward: bool, ctx: &mut Ctx<'_>) {
        let Some(q) = self.search.clone() else {
            ctx.say("no search yet: press / to search");
            return;
        };
        let rows = self.match_rows(&q);
        let next = if forward {
            rows.iter().find(|&&r| r > self.selected).or(rows.first())
        } else {
            rows.iter()
                .rev()
                .find(|&&r| r < self.selected)
                .or(rows.last())
        };
        match next {
            Some(&r) => self.select(r),
            None => ctx.say(format!("no match for “{q}”")),
        }
    }

    fn next_new(&mut self, forward: bool, ctx: &mut Ctx<'_>) {
        let wanted = |list: &ItemList, r: &Row| match r {
            Row::Item(i) => list.freshness(*i).needs_attention() && !list.is_own(*i),
            Row::Group(_) => false,
        };
        let n = self.rows.len();
        let ahead = if forward {
            (self.selected + 1..n).find(|&r| wanted(self, &self.rows[r]))
        } else {
            (0..self.selected)
                .rev()
                .find(|&r| wanted(self, &self.rows[r]))
        };
        if let Some(r) = ahead {
            self.select(r);
            return;
        }
        // Past the last (or the first) one, go round from the other end, saying so: an earlier
        // unseen item is never left behind.
        let around = if forward {
            (0..self.selected.min(n)).find(|&r| wanted(self, &self.rows[r]))
        } else {
            (self.selected + 1..n)
                .rev()
                .find(|&r| wanted(self, &self.rows[r]))
        };
        match around {
            Some(r) => {
                self.select(r);
                ctx.say(if forward {
                    "wrapped to the top: the first new or edited item"
                } else {
                    "wrapped to the bottom: the last new or edited item"
                });
            }
            None if self
                .rows
                .get(self.selected)
                .is_some_and(|r| wanted(self, r)) =>
            {
                ctx.say("no other new or edited item")
            }
            None => ctx.say("no new or edited items"),
        }
    }

    /// A key in the filter dialog. True: the dialog closes.
    pub(super) fn filter_key(&mut self, c: char) -> bool {
        let f = &mut self.filter;
        match c {
            'n' => f.new = !f.new,
            'e' => f.edited = !f.edited,
            'u' => f.unchanged = !f.unchanged,
            'r' => f.hide_resolved = !f.hide_resolved,
            'o' => f.hide_outdated = !f.hide_outdated,
            'm' => f.hide_minimized = !f.hide_minimized,
            'a' => *f = Filter::default(),
            '\u{1b}' | 'f' | 'q' => return true,
            _ => return false,
        }
        self.rebuild_rows();
        false
    }

    /// Does the item match a (case-insensitive) query over author, path and bodies?
    pub fn matches(item: &Item, query_lower: &str) -> bool {
        let hit = |s: &str| s.to_lowercase().contains(query_lower);
        match item {
            Item::Thread(t) => {
                hit(&t.path)
                    || t.comments
                        .iter()
                        .any(|c| hit(&c.author.login) || hit(&c.body))
            }
            Item::Comment(c) => hit(&c.author.login) || hit(&c.body),
            Item::Review(r) => hit(&r.author.login) || hit(&r.body),
        }
    }

    /// The rows whose item matches the query.
    pub fn match_rows(&self, query: &str) -> Vec<usize> {
        let q = query.to_lowercase();
        self.rows
            .iter()
            .enumerate()
            .filter_map(|(r, row)| match row {
                Row::Item(i) => self
                    .snapshot
                    .items
                    .get(*i)
                    .filter(|it| ItemList::matches(it, &q))
                    .map(|_| r),
                Row::Group(_) => None,
            })
            .collect()
    }

    /// Search as you type: the first match at or after the row the search started from.
    pub(super) fn incremental(&mut self, query: &str, before: usize) {
        if query.is_empty() {
            self.select(before);
            return;
        }
        let rows = self.match_rows(query);
        let found = rows.iter().find(|&&r| r >= before).or(rows.first());
        if let Some(&r) = found {
            self.select(r);
        }
    }
}
