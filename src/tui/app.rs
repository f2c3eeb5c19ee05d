//! Console state and its one entry point, [`App::update`]: pure (no I/O, no clock, no terminal).
//!
//! `update` takes an [`Action`] and returns the [`Effect`]s the event loop must perform (write
//! seen markers, open a URL, load a fixture step, highlight a hunk). Their results come back as
//! actions (`Marked`, `StepLoaded`, `Highlighted`, `Notice`). Tests drive the same functions with
//! a synchronous effect runner.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::Line;

use super::keymap::{Command, Keymap};
use super::review::{Composed, Confirm, DraftView, PostPlan, RunView};
use crate::ledger::{Draft, Marker, SeenSet};
use crate::policy::{self, GateConfig, GateDecision, Invocation, Membership, Mode as ReviewMode};
use crate::pr::{Item, Origin, PrCoords, Snapshot};
use crate::publish::{PostAction, Posted};
use crate::review::ReviewEvent;
use crate::review::aggregate::AggregateRequest;
use crate::review::prior::PriorReviews;
use crate::triage::{Freshness, Triaged, triage};

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a search; `before` is the row selected when it started (restored on Esc).
    Search {
        query: String,
        before: usize,
    },
    Filter,
    Help,
    /// Editing the review draft (keys go to the text area; Esc leaves).
    Edit,
    /// A confirmation dialog (post, discard) or a refusal.
    Confirm(Confirm),
}

/// What the detail area shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The selected item.
    Item,
    /// Each aspect's state in the current review run.
    Aspects,
    /// The review as it will be posted, with its findings.
    Review,
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

/// What the last frame showed, reported by the event loop after `terminal.draw` returned Ok.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drawn {
    /// The item whose detail was on screen (None: none, or the terminal was too small).
    pub shown: Option<usize>,
    pub list_height: u16,
    pub detail_height: u16,
    /// Wrapped line count of the detail pane's content.
    pub detail_lines: usize,
}

/// A loaded fixture step: the snapshot and the ledger's markers read afresh.
#[derive(Debug, Clone)]
pub struct StepData {
    pub snapshot: Snapshot,
    pub seen: SeenSet,
}

/// Everything that changes the state.
#[derive(Debug, Clone)]
pub enum Action {
    Command(Command),
    /// Ctrl-C: quit from anywhere.
    ForceQuit,
    SearchInput(char),
    SearchBackspace,
    SearchAccept,
    SearchCancel,
    FilterKey(char),
    Drawn(Drawn),
    Marked {
        items: Vec<(String, String)>,
        at: i64,
        result: Result<(), String>,
    },
    StepLoaded(Result<Box<StepData>, String>),
    Highlighted {
        key: String,
        lines: Arc<Vec<Line<'static>>>,
    },
    Notice(String),
    /// One line for the header (aspect progress, gate state); `None` clears it.
    ReviewProgress(Option<String>),
    /// Run `seq` was prepared: its mode, the earlier reviews it is classified against.
    ReviewStarted {
        seq: u64,
        mode: ReviewMode,
        reason: String,
        prior: Box<PriorReviews>,
        reply_marker: String,
    },
    /// Run `seq` could not start (bad settings, no backend, unreadable ledger).
    ReviewNotStarted {
        seq: u64,
        why: String,
    },
    /// Progress of run `seq`.
    Review {
        seq: u64,
        event: ReviewEvent,
    },
    /// A draft found in the ledger when the console opened.
    DraftRestored(Draft),
    DraftSaved(Result<(), String>),
    DraftDiscarded(Result<bool, String>),
    /// What a post would do (for the confirmation dialog), or why it cannot.
    PostPlanned(Result<PostPlan, String>),
    Posted(Result<Posted, String>),
    /// A key for the draft editor.
    EditKey(KeyEvent),
    EditDone,
    /// The answer to a confirmation dialog.
    Confirmed(bool),
}

/// Work for the event loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    MarkSeen {
        pr: PrCoords,
        items: Vec<(String, String)>,
    },
    Open(String),
    Copy(String),
    LoadStep(usize),
    Highlight {
        key: String,
        path: String,
        hunk: String,
    },
    /// Cancel any run in flight, then prepare and start run `seq` in the background.
    StartReview {
        seq: u64,
        full: bool,
        snapshot: Box<Snapshot>,
    },
    /// Cancel the run in flight, if any.
    CancelReview,
    SaveDraft {
        pr: PrCoords,
        draft: Draft,
    },
    DiscardDraft {
        pr: PrCoords,
    },
    /// Find out what posting would do (create or update which comment).
    PlanPost {
        pr: PrCoords,
        bytes: usize,
    },
    /// Post `body` (only ever after the maintainer confirmed the dialog).
    Post {
        pr: PrCoords,
        body: String,
    },
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
    /// Per group: (total, new, edited).
    pub groups: [(usize, usize, usize); 3],
}

/// Settings fixed for a console session.
#[derive(Debug, Clone)]
pub struct Options {
    /// Unix seconds, for relative times ("3h ago"); fixed so drawing stays deterministic.
    pub now: i64,
    /// `Err(reason)` when seen markers cannot be written (unwritable state dir).
    pub marks: Result<(), String>,
}

#[derive(Debug, Clone)]
pub struct App {
    pub snapshot: Snapshot,
    pub triaged: Vec<Triaged>,
    pub markers: HashMap<String, Marker>,
    pub counts: Counts,
    pub rows: Vec<Row>,
    pub selected: usize,
    pub list_offset: usize,
    pub focus: Focus,
    pub mode: Mode,
    pub zoom: bool,
    pub detail_scroll: usize,
    pub filter: Filter,
    pub collapsed: [bool; 3],
    /// Items per group that pass the filter (collapsed groups included).
    pub listed: [usize; 3],
    pub search: Option<String>,
    /// Ids marked seen during this session (shown with ✓).
    pub seen_now: HashSet<String>,
    pending_marks: HashSet<String>,
    /// Why markers are not written, when they are not.
    pub marks_blocked: Option<String>,
    pub notice: Option<String>,
    pub review_progress: Option<String>,
    pub highlights: HashMap<String, Arc<Vec<Line<'static>>>>,
    pending_highlights: HashSet<String>,
    pub now: i64,
    pub quit: bool,
    last: Drawn,
    /// What the gates allow for this PR (explicit invocation: the maintainer at the console).
    pub gate: GateDecision,
    pub pane: Pane,
    /// The latest review run's progress.
    pub run: Option<RunView>,
    run_seq: u64,
    /// The latest finished run, classified and composed.
    pub composed: Option<Composed>,
    /// The text that will be posted.
    pub draft: Option<DraftView>,
    pub review_scroll: usize,
    /// The finding under the cursor in the review pane.
    pub finding_sel: usize,
    /// What was posted this session (shown in the review pane).
    pub posted: Option<String>,
    /// The prepared run's earlier reviews and request, until it finishes.
    pending: Option<(PriorReviews, AggregateRequest)>,
}

/// The gate decision for a PR opened at the console (an explicit invocation).
pub fn console_gate(pr: &crate::pr::PrMeta) -> GateDecision {
    let cfg = GateConfig::default();
    let team = match policy::membership(pr.author.association, &cfg) {
        Membership::Team => Some(true),
        Membership::Community => Some(false),
        Membership::Ambiguous => None,
    };
    policy::gate(pr, team, &cfg, Invocation::Explicit)
}

const DEFAULT_HEIGHT: u16 = 20;

impl App {
    pub fn new(snapshot: Snapshot, seen: SeenSet, opts: Options) -> App {
        let mut app = App {
            triaged: Vec::new(),
            markers: seen.markers,
            counts: Counts::default(),
            rows: Vec::new(),
            selected: 0,
            list_offset: 0,
            focus: Focus::List,
            mode: Mode::Normal,
            zoom: false,
            detail_scroll: 0,
            filter: Filter::default(),
            collapsed: [false; 3],
            listed: [0; 3],
            search: None,
            seen_now: HashSet::new(),
            pending_marks: HashSet::new(),
            marks_blocked: opts.marks.err(),
            notice: None,
            review_progress: None,
            highlights: HashMap::new(),
            pending_highlights: HashSet::new(),
            now: opts.now,
            quit: false,
            last: Drawn {
                list_height: DEFAULT_HEIGHT,
                detail_height: DEFAULT_HEIGHT,
                ..Drawn::default()
            },
            gate: console_gate(&snapshot.pr),
            pane: Pane::Item,
            run: None,
            run_seq: 0,
            composed: None,
            draft: None,
            review_scroll: 0,
            finding_sel: 0,
            posted: None,
            pending: None,
            snapshot,
        };
        app.refresh_progress();
        if !seen.problems.is_empty() {
            app.notice = Some(format!(
                "{} marker file(s) could not be read; their items count as new",
                seen.problems.len()
            ));
        }
        app.retriage();
        app.select_first_item();
        app
    }

    fn retriage(&mut self) {
        self.triaged = triage(&self.snapshot, &self.markers);
        let mut c = Counts::default();
        for t in &self.triaged {
            let Some(item) = self.snapshot.items.get(t.index) else {
                continue;
            };
            let g = &mut c.groups[Group::of(item).index()];
            g.0 += 1;
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

    fn select(&mut self, row: usize) {
        let row = row.min(self.rows.len().saturating_sub(1));
        if row != self.selected {
            self.detail_scroll = 0;
        }
        self.selected = row;
        self.ensure_visible();
    }

    fn ensure_visible(&mut self) {
        let h = usize::from(self.last.list_height.max(1));
        if self.selected < self.list_offset {
            self.list_offset = self.selected;
        } else if self.selected >= self.list_offset + h {
            self.list_offset = self.selected + 1 - h;
        }
        let max_offset = self.rows.len().saturating_sub(h);
        self.list_offset = self.list_offset.min(max_offset);
    }

    fn max_detail_scroll(&self) -> usize {
        self.last
            .detail_lines
            .saturating_sub(usize::from(self.last.detail_height.max(1)))
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

    fn request_highlight(&mut self, effects: &mut Vec<Effect>) {
        let Some(Item::Thread(t)) = self.selected_item() else {
            return;
        };
        let Some(key) = App::highlight_key(&Item::Thread(t.clone())) else {
            return;
        };
        if self.highlights.contains_key(&key) || self.pending_highlights.contains(&key) {
            return;
        }
        let (path, hunk) = (t.path.clone(), t.diff_hunk.clone());
        self.pending_highlights.insert(key.clone());
        effects.push(Effect::Highlight { key, path, hunk });
    }

    /// The marker to write for an item, if it is not recorded with its current hash yet.
    fn mark_candidate(&self, idx: usize) -> Option<(String, String)> {
        let t = self.triaged.get(idx)?;
        let item = self.snapshot.items.get(idx)?;
        let id = item.id();
        if self.pending_marks.contains(id) {
            return None;
        }
        if self
            .markers
            .get(id)
            .is_some_and(|m| m.body_hash == t.body_hash)
        {
            return None;
        }
        Some((id.to_owned(), t.body_hash.clone()))
    }

    fn mark(&mut self, idxs: &[usize], effects: &mut Vec<Effect>, explicit: bool) {
        if let Some(why) = &self.marks_blocked {
            if explicit {
                self.notice = Some(format!("seen markers are not saved: {why}"));
            }
            return;
        }
        if !self.snapshot.is_complete() {
            if explicit {
                self.notice =
                    Some("the snapshot is incomplete: no seen markers are written".to_owned());
            }
            return;
        }
        let items: Vec<(String, String)> = idxs
            .iter()
            .filter_map(|&i| self.mark_candidate(i))
            .collect();
        if items.is_empty() {
            if explicit {
                self.notice = Some("already marked seen".to_owned());
            }
            return;
        }
        for (id, _) in &items {
            self.pending_marks.insert(id.clone());
        }
        effects.push(Effect::MarkSeen {
            pr: self.snapshot.pr.coords(),
            items,
        });
    }

    /// Maps a key event to an action for the current mode.
    pub fn key_action(&self, keymap: &Keymap, ev: &KeyEvent) -> Option<Action> {
        if ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('c') {
            return Some(Action::ForceQuit);
        }
        match &self.mode {
            Mode::Search { .. } => match ev.code {
                KeyCode::Enter => Some(Action::SearchAccept),
                KeyCode::Esc => Some(Action::SearchCancel),
                KeyCode::Backspace => Some(Action::SearchBackspace),
                KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) => {
                    Some(Action::SearchInput(c))
                }
                _ => None,
            },
            Mode::Filter => match ev.code {
                KeyCode::Char(c) => Some(Action::FilterKey(c)),
                KeyCode::Esc | KeyCode::Enter => Some(Action::FilterKey('\u{1b}')),
                _ => None,
            },
            Mode::Edit => match ev.code {
                KeyCode::Esc => Some(Action::EditDone),
                _ => Some(Action::EditKey(*ev)),
            },
            Mode::Confirm(Confirm::Refused(_)) => Some(Action::Confirmed(false)),
            // Only `y` confirms; every other key cancels.
            Mode::Confirm(_) => Some(Action::Confirmed(matches!(
                ev.code,
                KeyCode::Char('y') | KeyCode::Char('Y')
            ))),
            Mode::Help | Mode::Normal => keymap.command(ev).map(Action::Command),
        }
    }

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let mut fx = Vec::new();
        match action {
            Action::ForceQuit => self.quit = true,
            Action::Command(cmd) => {
                if cmd != Command::Help || self.mode != Mode::Help {
                    self.notice = None;
                }
                self.command(cmd, &mut fx);
            }
            Action::SearchInput(c) => {
                if let Mode::Search { query, before } = &mut self.mode {
                    query.push(c);
                    let (q, b) = (query.clone(), *before);
                    self.incremental(&q, b);
                }
            }
            Action::SearchBackspace => {
                if let Mode::Search { query, before } = &mut self.mode {
                    query.pop();
                    let (q, b) = (query.clone(), *before);
                    self.incremental(&q, b);
                }
            }
            Action::SearchAccept => {
                if let Mode::Search { query, .. } = &self.mode {
                    let q = query.clone();
                    self.search = (!q.is_empty()).then_some(q);
                    let n = self
                        .search
                        .as_deref()
                        .map_or(0, |q| self.match_rows(q).len());
                    if self.search.is_some() {
                        self.notice = Some(format!("{n} match(es); n/N for next/previous"));
                    }
                }
                self.mode = Mode::Normal;
            }
            Action::SearchCancel => {
                if let Mode::Search { before, .. } = self.mode {
                    self.select(before);
                }
                self.mode = Mode::Normal;
            }
            Action::FilterKey(c) => self.filter_key(c),
            Action::Drawn(d) => {
                self.last = d;
                self.ensure_visible();
                self.detail_scroll = self.detail_scroll.min(self.max_detail_scroll());
                if let Some(idx) = d.shown {
                    self.mark(&[idx], &mut fx, false);
                }
                self.request_highlight(&mut fx);
            }
            Action::Marked { items, at, result } => {
                for (id, _) in &items {
                    self.pending_marks.remove(id);
                }
                match result {
                    Ok(()) => {
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
                    Err(e) => {
                        self.notice = Some(format!("seen markers were not saved: {e}"));
                        self.marks_blocked = Some(e);
                    }
                }
            }
            Action::StepLoaded(Ok(data)) => {
                let StepData { snapshot, seen } = *data;
                self.snapshot = snapshot;
                self.markers = seen.markers;
                self.seen_now.clear();
                self.pending_marks.clear();
                self.retriage();
                if self.selected_index().is_none() {
                    self.select_first_item();
                }
                self.gate = console_gate(&self.snapshot.pr);
                self.refresh_progress();
                if let Some((k, n)) = self.step() {
                    self.notice = Some(format!(
                        "step {k} of {n}: {} new, {} edited",
                        self.counts.new, self.counts.edited
                    ));
                }
            }
            Action::StepLoaded(Err(e)) => self.notice = Some(format!("cannot load the step: {e}")),
            Action::Highlighted { key, lines } => {
                self.pending_highlights.remove(&key);
                self.highlights.insert(key, lines);
            }
            Action::Notice(n) => self.notice = Some(n),
            Action::ReviewProgress(p) => self.review_progress = p,
            other => self.review_action(other, &mut fx),
        }
        fx
    }

    fn half_page(&self, list: bool) -> usize {
        let h = if list {
            self.last.list_height
        } else {
            self.last.detail_height
        };
        usize::from((h / 2).max(1))
    }

    fn command(&mut self, cmd: Command, fx: &mut Vec<Effect>) {
        // Overlays first: help closes on its keys; filter and search have their own handlers.
        if self.mode == Mode::Help {
            if matches!(cmd, Command::Help | Command::Back | Command::Quit) {
                self.mode = Mode::Normal;
            }
            return;
        }
        let detail = self.focus == Focus::Detail;
        let review_pane = detail && self.pane == Pane::Review;
        match cmd {
            Command::Down if review_pane => {
                let n = self
                    .composed
                    .as_ref()
                    .map_or(0, |c| c.run.findings().count());
                self.finding_sel = (self.finding_sel + 1).min(n.saturating_sub(1));
                self.follow_finding();
            }
            Command::Up if review_pane => {
                self.finding_sel = self.finding_sel.saturating_sub(1);
                self.follow_finding();
            }
            Command::Top if review_pane => self.review_scroll = 0,
            Command::Bottom if review_pane => self.review_scroll = self.max_detail_scroll(),
            Command::PageDown if review_pane => {
                self.review_scroll =
                    (self.review_scroll + self.half_page(false)).min(self.max_detail_scroll())
            }
            Command::PageUp if review_pane => {
                self.review_scroll = self.review_scroll.saturating_sub(self.half_page(false))
            }
            Command::Review | Command::FullReview => {
                self.start_review(cmd == Command::FullReview, fx)
            }
            Command::Aspects => {
                if self.pane == Pane::Aspects {
                    self.pane = Pane::Item;
                } else if self.run.is_some() {
                    self.pane = Pane::Aspects;
                } else {
                    self.notice = Some("no review run yet: r runs one".to_owned());
                }
            }
            Command::ReviewPane => {
                if self.pane == Pane::Review {
                    self.pane = Pane::Item;
                } else if self.draft.is_some() {
                    self.pane = Pane::Review;
                } else {
                    self.notice = Some("no review yet: r runs one".to_owned());
                }
            }
            Command::Edit => {
                if self.run.as_ref().is_some_and(RunView::running) {
                    // Its result would replace the draft: edit once it is in.
                    self.notice =
                        Some("a review is running: edit its result when it finished".to_owned());
                } else if self.draft.is_some() {
                    self.pane = Pane::Review;
                    self.mode = Mode::Edit;
                } else {
                    self.notice = Some("nothing to edit: r runs a review".to_owned());
                }
            }
            Command::Post => self.request_post(fx),
            Command::Discard => {
                if self.draft.is_some() {
                    self.mode = Mode::Confirm(Confirm::Discard);
                } else {
                    self.notice = Some("no draft to discard".to_owned());
                }
            }
            Command::MarkAddressed => self.mark_addressed(fx),
            Command::Down if detail => {
                self.detail_scroll = (self.detail_scroll + 1).min(self.max_detail_scroll())
            }
            Command::Up if detail => self.detail_scroll = self.detail_scroll.saturating_sub(1),
            Command::Top if detail => self.detail_scroll = 0,
            Command::Bottom if detail => self.detail_scroll = self.max_detail_scroll(),
            Command::PageDown if detail => {
                self.detail_scroll =
                    (self.detail_scroll + self.half_page(false)).min(self.max_detail_scroll())
            }
            Command::PageUp if detail => {
                self.detail_scroll = self.detail_scroll.saturating_sub(self.half_page(false))
            }
            Command::Down => self.select(self.selected + 1),
            Command::Up => self.select(self.selected.saturating_sub(1)),
            Command::Top => self.select(0),
            Command::Bottom => self.select(self.rows.len().saturating_sub(1)),
            Command::PageDown => self.select(self.selected + self.half_page(true)),
            Command::PageUp => self.select(self.selected.saturating_sub(self.half_page(true))),
            Command::Focus => {
                self.focus = match self.focus {
                    Focus::List => Focus::Detail,
                    Focus::Detail => Focus::List,
                }
            }
            Command::Toggle => match self.rows.get(self.selected) {
                Some(Row::Group(g)) => {
                    let i = g.index();
                    self.collapsed[i] = !self.collapsed[i];
                    self.rebuild_rows();
                }
                Some(Row::Item(_)) => self.zoom = !self.zoom,
                None => {}
            },
            Command::Search => {
                self.mode = Mode::Search {
                    query: String::new(),
                    before: self.selected,
                }
            }
            Command::NextMatch | Command::PrevMatch => {
                let Some(q) = self.search.clone() else {
                    self.notice = Some("no search yet: press / to search".to_owned());
                    return;
                };
                let rows = self.match_rows(&q);
                let next = if cmd == Command::NextMatch {
                    rows.iter().find(|&&r| r > self.selected).or(rows.first())
                } else {
                    rows.iter()
                        .rev()
                        .find(|&&r| r < self.selected)
                        .or(rows.last())
                };
                match next {
                    Some(&r) => self.select(r),
                    None => self.notice = Some(format!("no match for “{q}”")),
                }
            }
            Command::Filter => self.mode = Mode::Filter,
            Command::NextNew | Command::PrevNew => {
                let wanted = |app: &App, r: &Row| match r {
                    Row::Item(i) => app.freshness(*i).needs_attention(),
                    Row::Group(_) => false,
                };
                let found = if cmd == Command::NextNew {
                    (self.selected + 1..self.rows.len()).find(|&r| wanted(self, &self.rows[r]))
                } else {
                    (0..self.selected)
                        .rev()
                        .find(|&r| wanted(self, &self.rows[r]))
                };
                match found {
                    Some(r) => self.select(r),
                    None => self.notice = Some("no more new or edited items".to_owned()),
                }
            }
            Command::Open | Command::Copy => match self.selected_item().map(|i| i.url().to_owned())
            {
                Some(url) if !url.is_empty() => fx.push(if cmd == Command::Open {
                    Effect::Open(url)
                } else {
                    Effect::Copy(url)
                }),
                _ => self.notice = Some("no item selected".to_owned()),
            },
            Command::MarkSeen => match self.selected_index() {
                Some(i) => self.mark(&[i], fx, true),
                None => self.notice = Some("no item selected".to_owned()),
            },
            Command::MarkAll => {
                let idxs: Vec<usize> = self
                    .rows
                    .iter()
                    .filter_map(|r| match r {
                        Row::Item(i) => Some(*i),
                        Row::Group(_) => None,
                    })
                    .collect();
                self.mark(&idxs, fx, true);
            }
            Command::StepForward | Command::StepBack => match self.step() {
                None => self.notice = Some("stepping works on fixtures with history".to_owned()),
                Some((k, n)) => {
                    let target = if cmd == Command::StepForward {
                        (k < n).then_some(k + 1)
                    } else {
                        k.checked_sub(1)
                    };
                    match target {
                        Some(t) => fx.push(Effect::LoadStep(t)),
                        None => self.notice = Some(format!("at step {k} of {n}")),
                    }
                }
            },
            Command::Help => self.mode = Mode::Help,
            Command::Quit => self.quit = true,
            Command::Back => {
                if self.zoom {
                    self.zoom = false;
                } else if self.focus == Focus::Detail {
                    self.focus = Focus::List;
                } else if self.pane != Pane::Item {
                    self.pane = Pane::Item;
                } else if self.search.is_some() {
                    self.search = None;
                } else {
                    self.quit = true;
                }
            }
        }
    }

    fn filter_key(&mut self, c: char) {
        let f = &mut self.filter;
        match c {
            'n' => f.new = !f.new,
            'e' => f.edited = !f.edited,
            'u' => f.unchanged = !f.unchanged,
            'r' => f.hide_resolved = !f.hide_resolved,
            'o' => f.hide_outdated = !f.hide_outdated,
            'm' => f.hide_minimized = !f.hide_minimized,
            'a' => *f = Filter::default(),
            '\u{1b}' | 'f' | 'q' => {
                self.mode = Mode::Normal;
                return;
            }
            _ => return,
        }
        self.rebuild_rows();
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
                    .filter(|it| App::matches(it, &q))
                    .map(|_| r),
                Row::Group(_) => None,
            })
            .collect()
    }

    fn incremental(&mut self, query: &str, before: usize) {
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

/// The review half of `update`: runs, the draft, posting.
impl App {
    /// The header's fourth line: the run's progress (if any) and the gate state.
    fn refresh_progress(&mut self) {
        let mut parts = Vec::new();
        if let Some(r) = &self.run {
            parts.push(r.progress());
        }
        parts.push(format!("gate: {}", self.gate.reason));
        self.review_progress = Some(parts.join(" │ "));
    }

    /// Keeps the finding cursor on screen (findings are listed one per line near the top).
    fn follow_finding(&mut self) {
        let h = usize::from(self.last.detail_height.max(1));
        self.review_scroll = self.finding_sel.saturating_sub(h / 2);
    }

    fn start_review(&mut self, full: bool, fx: &mut Vec<Effect>) {
        if self.draft.as_ref().is_some_and(|d| d.edited) {
            self.notice = Some(
                "the draft may hold your edits: post (p) or discard (d) it before a new review"
                    .to_owned(),
            );
            return;
        }
        let replacing = self.run.as_ref().is_some_and(RunView::running);
        self.run_seq += 1;
        self.run = Some(RunView::new(self.run_seq, full));
        self.pending = None;
        fx.push(Effect::StartReview {
            seq: self.run_seq,
            full,
            snapshot: Box::new(self.snapshot.clone()),
        });
        self.notice = Some(format!(
            "{}{} review started; A shows the aspects",
            if replacing {
                "cancelled the running review; "
            } else {
                ""
            },
            if full { "full" } else { "the" }
        ));
        self.refresh_progress();
    }

    fn draft_effect(&self) -> Option<Effect> {
        let d = self.draft.as_ref()?;
        Some(Effect::SaveDraft {
            pr: self.snapshot.pr.coords(),
            draft: Draft {
                body: d.body(),
                head_sha: d.head_sha.clone(),
                saved_at: self.now,
            },
        })
    }

    fn finish_run(&mut self, run: crate::review::ReviewRun, fx: &mut Vec<Effect>) {
        if run.cancelled {
            self.notice = Some("review cancelled: nothing composed".to_owned());
            return;
        }
        let Some((prior, request)) = self.pending.take() else {
            self.notice = Some("the review finished before it was prepared".to_owned());
            return;
        };
        let incomplete = run.is_incomplete();
        let composed = Composed::new(run, &self.snapshot, prior, request);
        let n = composed.run.findings().count();
        self.draft = Some(DraftView::new(
            &composed.body,
            &self.snapshot.pr.head_sha,
            None,
        ));
        self.composed = Some(composed);
        self.posted = None;
        self.finding_sel = 0;
        self.review_scroll = 0;
        self.pane = Pane::Review;
        fx.extend(self.draft_effect());
        self.notice = Some(format!(
            "review finished{}: {n} finding(s) · e edit · p post · d discard",
            if incomplete { " (incomplete)" } else { "" }
        ));
    }

    fn request_post(&mut self, fx: &mut Vec<Effect>) {
        let Some(d) = &self.draft else {
            self.notice = Some("nothing to post: r runs a review".to_owned());
            return;
        };
        if !self.gate.post {
            self.mode = Mode::Confirm(Confirm::Refused(format!(
                "not posting: {}",
                self.gate.reason
            )));
            return;
        }
        fx.push(Effect::PlanPost {
            pr: self.snapshot.pr.coords(),
            bytes: d.body().len(),
        });
    }

    fn mark_addressed(&mut self, fx: &mut Vec<Effect>) {
        let edited = self.draft.as_ref().is_some_and(|d| d.edited);
        let Some(c) = self.composed.as_mut() else {
            self.notice = Some("no findings to mark: r runs a review".to_owned());
            return;
        };
        if edited {
            self.notice = Some(
                "the draft has edits: marking recomposes the body, so post (p) or discard (d) first"
                    .to_owned(),
            );
            return;
        }
        let Some((id, _)) = c.finding_rows().into_iter().nth(self.finding_sel) else {
            self.notice = Some("no finding selected".to_owned());
            return;
        };
        if c.agg.mode == ReviewMode::Full {
            self.notice = Some(
                "a full review assesses everything: only findings of an earlier review can be \
                 treated as addressed"
                    .to_owned(),
            );
            return;
        }
        let changed = c.toggle_addressed(&id, &self.snapshot);
        let marked = c.request.console_addressed.contains(&id);
        let body = c.body.clone();
        self.draft = Some(DraftView::new(&body, &self.snapshot.pr.head_sha, None));
        fx.extend(self.draft_effect());
        self.notice = Some(match (marked, changed) {
            (true, true) => format!("{id} marked addressed; the review was recomposed"),
            (false, true) => format!("{id} no longer marked addressed; recomposed"),
            (_, false) => format!("{id}: no change (it was not raised by an earlier review)"),
        });
    }

    fn review_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        match action {
            Action::ReviewStarted {
                seq,
                mode,
                reason,
                prior,
                reply_marker,
            } => {
                let Some(r) = self.run.as_mut().filter(|r| r.seq == seq) else {
                    return;
                };
                r.mode = Some((mode, reason));
                let request = AggregateRequest {
                    full: r.full,
                    reply_marker,
                    // The maintainer's explicit run may override the community and pause gates;
                    // the posted review says so.
                    override_note: console_gate(&self.snapshot.pr).overridden,
                    ..AggregateRequest::default()
                };
                self.pending = Some((*prior, request));
            }
            Action::ReviewNotStarted { seq, why } => {
                if let Some(r) = self.run.as_mut().filter(|r| r.seq == seq) {
                    self.notice = Some(format!("review not started: {why}"));
                    r.error = Some(why);
                }
            }
            Action::Review { seq, event } => {
                let Some(r) = self.run.as_mut().filter(|r| r.seq == seq) else {
                    return; // a cancelled run's late events
                };
                r.apply(&event);
                if let ReviewEvent::Finished(run) = event {
                    self.finish_run(*run, fx);
                }
            }
            Action::DraftRestored(d) => {
                self.draft = Some(DraftView::new(&d.body, &d.head_sha, Some(d.saved_at)));
                self.pane = Pane::Review;
                self.notice = Some(
                    "restored the unposted review draft: p post · e edit · d discard".to_owned(),
                );
            }
            Action::DraftSaved(Err(e)) => {
                self.notice = Some(format!("the draft was NOT saved: {e}"));
            }
            Action::DraftSaved(Ok(())) => {}
            Action::DraftDiscarded(r) => {
                // Posting removes the saved draft quietly; only the discard flow reports.
                if self.draft.is_none() || r.is_err() {
                    self.notice = Some(match r {
                        Ok(_) => "draft discarded; nothing was posted".to_owned(),
                        Err(e) => format!("the draft could not be removed: {e}"),
                    });
                }
            }
            Action::PostPlanned(Ok(plan)) => {
                if self.mode == Mode::Normal && self.draft.is_some() {
                    self.mode = Mode::Confirm(Confirm::Post(plan));
                }
            }
            Action::PostPlanned(Err(why)) => self.mode = Mode::Confirm(Confirm::Refused(why)),
            Action::Posted(Ok(p)) => {
                let what = match p.action {
                    PostAction::Created => "created",
                    PostAction::Updated => "updated",
                };
                let text = format!(
                    "posted to {} ({what} comment {})",
                    crate::sanitize::one_line(&p.location),
                    p.comment_id
                );
                self.notice = Some(text.clone());
                self.posted = Some(text);
                if let Some(d) = self.draft.as_mut() {
                    d.edited = false;
                    d.restored = None;
                }
                fx.push(Effect::DiscardDraft {
                    pr: self.snapshot.pr.coords(),
                });
            }
            Action::Posted(Err(e)) => {
                self.notice = Some(format!("not posted: {e} (the draft is kept)"));
            }
            Action::EditKey(ev) => {
                if let Some(d) = self.draft.as_mut()
                    && d.editor.input(ev)
                {
                    d.edited = true;
                    fx.extend(self.draft_effect());
                }
            }
            Action::EditDone => {
                self.mode = Mode::Normal;
                if self.draft.as_ref().is_some_and(|d| d.edited) {
                    self.notice = Some("draft saved; p posts it".to_owned());
                }
            }
            Action::Confirmed(yes) => {
                let Mode::Confirm(c) = std::mem::replace(&mut self.mode, Mode::Normal) else {
                    return;
                };
                match (c, yes) {
                    (Confirm::Post(_), true) => match &self.draft {
                        Some(d) => fx.push(Effect::Post {
                            pr: self.snapshot.pr.coords(),
                            body: d.body(),
                        }),
                        None => self.notice = Some("nothing to post".to_owned()),
                    },
                    (Confirm::Discard, true) => {
                        self.draft = None;
                        self.composed = None;
                        self.posted = None;
                        if self.pane == Pane::Review {
                            self.pane = Pane::Item;
                        }
                        if self.run.as_ref().is_some_and(RunView::running) {
                            self.run = None;
                            fx.push(Effect::CancelReview);
                        }
                        fx.push(Effect::DiscardDraft {
                            pr: self.snapshot.pr.coords(),
                        });
                    }
                    (Confirm::Post(_), false) => self.notice = Some("not posted".to_owned()),
                    (Confirm::Discard, false) => self.notice = Some("draft kept".to_owned()),
                    (Confirm::Refused(_), _) => {}
                }
            }
            // Handled in `update`.
            Action::Command(_)
            | Action::ForceQuit
            | Action::SearchInput(_)
            | Action::SearchBackspace
            | Action::SearchAccept
            | Action::SearchCancel
            | Action::FilterKey(_)
            | Action::Drawn(_)
            | Action::Marked { .. }
            | Action::StepLoaded(_)
            | Action::Highlighted { .. }
            | Action::Notice(_)
            | Action::ReviewProgress(_) => {}
        }
        self.refresh_progress();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{DEMO_FIXTURE, Fixture};
    use std::path::Path;

    fn demo() -> App {
        let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap();
        App::new(
            f.snapshot_at(0).unwrap(),
            SeenSet::default(),
            Options {
                now: 1_764_000_000,
                marks: Ok(()),
            },
        )
    }

    fn cmd(app: &mut App, c: Command) -> Vec<Effect> {
        app.update(Action::Command(c))
    }

    #[test]
    fn rows_are_grouped_and_first_item_selected() {
        let app = demo();
        assert_eq!(app.rows.len(), 18 + 3);
        assert_eq!(app.rows[0], Row::Group(Group::Threads));
        assert_eq!(app.selected, 1);
        assert_eq!(app.counts.new, 18);
        assert_eq!(app.counts.groups[0].0, 7);
    }

    #[test]
    fn navigation_clamps() {
        let mut app = demo();
        cmd(&mut app, Command::Up);
        cmd(&mut app, Command::Up);
        assert_eq!(app.selected, 0);
        cmd(&mut app, Command::Bottom);
        assert_eq!(app.selected, app.rows.len() - 1);
        cmd(&mut app, Command::Down);
        assert_eq!(app.selected, app.rows.len() - 1);
        cmd(&mut app, Command::Top);
        assert_eq!(app.selected, 0);
    }

    #[test]
    fn drawn_marks_once_and_only_when_shown() {
        let mut app = demo();
        assert!(
            app.update(Action::Drawn(Drawn::default()))
                .iter()
                .all(|e| !matches!(e, Effect::MarkSeen { .. }))
        );
        let d = Drawn {
            shown: Some(0),
            list_height: 10,
            detail_height: 10,
            detail_lines: 5,
        };
        let fx = app.update(Action::Drawn(d));
        let marks: Vec<_> = fx
            .iter()
            .filter(|e| matches!(e, Effect::MarkSeen { .. }))
            .collect();
        assert_eq!(marks.len(), 1);
        // A second frame while the write is pending asks for nothing more.
        let fx = app.update(Action::Drawn(d));
        assert!(fx.iter().all(|e| !matches!(e, Effect::MarkSeen { .. })));
    }

    #[test]
    fn status_filter_spares_unsurfaced_items() {
        let mut app = demo();
        let before = app.rows.len();
        app.update(Action::Command(Command::Filter));
        app.update(Action::FilterKey('r'));
        // Everything is new and unseen: nothing may be hidden yet.
        assert_eq!(app.rows.len(), before);
        app.update(Action::FilterKey('n'));
        assert_eq!(app.rows.len(), 3);
        app.update(Action::FilterKey('a'));
        assert_eq!(app.rows.len(), before);
        app.update(Action::FilterKey('\u{1b}'));
        assert_eq!(app.mode, Mode::Normal);
    }

    #[test]
    fn search_incremental_and_cancel() {
        let mut app = demo();
        let start = app.selected;
        app.update(Action::Command(Command::Search));
        for c in "tsx".chars() {
            app.update(Action::SearchInput(c));
        }
        let item = app.selected_item().unwrap();
        assert!(item.location().unwrap_or_default().contains(".tsx"));
        app.update(Action::SearchCancel);
        assert_eq!(app.selected, start);
    }

    #[test]
    fn back_unwinds_then_quits() {
        let mut app = demo();
        cmd(&mut app, Command::Focus);
        cmd(&mut app, Command::Toggle);
        cmd(&mut app, Command::Back);
        assert!(!app.zoom && app.focus == Focus::Detail);
        cmd(&mut app, Command::Back);
        assert_eq!(app.focus, Focus::List);
        assert!(!app.quit);
        cmd(&mut app, Command::Back);
        assert!(app.quit);
    }

    #[test]
    fn edit_waits_for_a_running_review_and_stale_events_are_ignored() {
        let mut app = demo();
        let fx = cmd(&mut app, Command::Review);
        assert!(matches!(
            fx.as_slice(),
            [Effect::StartReview { seq: 1, .. }]
        ));
        cmd(&mut app, Command::Edit);
        assert_eq!(app.mode, Mode::Normal);
        assert!(app.notice.as_deref().unwrap().contains("review is running"));
        // A second r starts run 2; run 1's events no longer count.
        cmd(&mut app, Command::FullReview);
        app.update(Action::Review {
            seq: 1,
            event: ReviewEvent::Cancelled {
                aspect: crate::review::Aspect::Perf,
            },
        });
        let run = app.run.as_ref().unwrap();
        assert_eq!(run.seq, 2);
        assert!(run.full);
        assert!(
            run.aspects
                .iter()
                .all(|(_, v)| *v == super::super::review::AspectView::Queued)
        );
    }

    #[test]
    fn collapse_group() {
        let mut app = demo();
        cmd(&mut app, Command::Top);
        cmd(&mut app, Command::Toggle);
        assert_eq!(app.rows.len(), 18 + 3 - 7);
        assert_eq!(app.selected, 0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use crate::source::synth::{SynthSpec, synth};
    use proptest::prelude::*;

    const CMDS: &[Command] = &[
        Command::Down,
        Command::Up,
        Command::Top,
        Command::Bottom,
        Command::PageDown,
        Command::PageUp,
        Command::Toggle,
        Command::Focus,
        Command::NextNew,
        Command::PrevNew,
        Command::Back,
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Whatever the keys and filters, the selection stays on a row and inside the window.
        #[test]
        fn selection_stays_visible(
            keys in proptest::collection::vec((0usize..CMDS.len(), proptest::option::of("[neurom]")), 1..60),
            height in 1u16..30,
        ) {
            let f = synth(SynthSpec { threads: 20, comments: 15, reviews: 5, replies: 2, seed: 3 });
            let mut app = App::new(
                f.snapshot_at(0).unwrap(),
                SeenSet::default(),
                Options { now: 0, marks: Ok(()) },
            );
            app.update(Action::Drawn(Drawn { shown: None, list_height: height, detail_height: 10, detail_lines: 50 }));
            for (k, filter) in keys {
                app.update(Action::Command(CMDS[k]));
                if let Some(c) = filter.and_then(|s| s.chars().next()) {
                    app.update(Action::Command(Command::Filter));
                    app.update(Action::FilterKey(c));
                    app.update(Action::FilterKey('\u{1b}'));
                }
                app.quit = false;
                prop_assert!(app.selected < app.rows.len());
                prop_assert!(app.list_offset <= app.selected);
                prop_assert!(app.selected < app.list_offset + usize::from(height));
                prop_assert!(app.detail_scroll <= 50);
            }
        }
    }
}
