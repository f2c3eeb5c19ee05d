//! The inbox screen: the open PRs of a triage session as rows, in tabs (one per configured
//! section), with counts filled in the background. `Enter` opens the PR screen above it; leaving
//! that comes back here with its row recounted from the ledger. Drawn by `draw.rs`.

mod draw;
pub(crate) mod table;
pub mod work;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};

use super::action::{Action, Drawn, MouseKind};
use super::dialogs::InputMode;
use super::effect::Effect;
use super::pr::PrScreen;
use super::screen::{Ctx, Handled, Screen, SearchStep, View};
use crate::inbox::columns::{self, Column};
use crate::inbox::{
    Counts, GateReview, Opener, Row, ShepherdState, ShepherdView, SortBy, needs_attention,
    sort_rows,
};
use crate::pr::PrCoords;
use crate::tui::keymap::{KeyCommand, Keymap};
pub use work::{Done, Work};

/// Sorts rows by the order, or by the column when one is chosen; reversed (`↑`) on request.
fn order(rows: &mut [Row], (by, col, reversed): (SortBy, Option<Column>, bool)) {
    match col {
        Some(c) => columns::sort_by_column(rows, c),
        None => sort_rows(rows, by),
    }
    if reversed {
        rows.reverse();
    }
}

/// The sort after `(by, col)` in `s`'s cycle: the three orders, then the columns from the
/// first (the title and the columns the orders already sort by skipped), then the first order
/// again.
fn next_sort(by: SortBy, col: Option<Column>) -> (SortBy, Option<Column>) {
    let first = columns::ALL[0];
    match col {
        None if by.next() == SortBy::default() => (by, Some(first)),
        None => (by.next(), None),
        Some(c) if c.next_sort() == first => (SortBy::default(), None),
        Some(c) => (by, Some(c.next_sort())),
    }
}

/// Which rows are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InboxFilter {
    #[default]
    All,
    Attention,
    Gate(GateReview),
    Shepherd(ShepherdState),
}

impl InboxFilter {
    /// The filter menu's entries, in order: (key, filter, what it lists).
    pub const MENU: [(char, InboxFilter, &'static str); 9] = [
        ('a', InboxFilter::All, "every PR"),
        ('n', InboxFilter::Attention, "PRs that need attention"),
        ('g', InboxFilter::Gate(GateReview::Allowed), "gate: allowed"),
        ('p', InboxFilter::Gate(GateReview::Paused), "gate: paused"),
        (
            'l',
            InboxFilter::Gate(GateReview::NeedsLabel),
            "gate: needs the label",
        ),
        ('x', InboxFilter::Gate(GateReview::Refused), "gate: refused"),
        (
            'c',
            InboxFilter::Shepherd(ShepherdState::Current),
            "Shepherd review current",
        ),
        (
            's',
            InboxFilter::Shepherd(ShepherdState::Stale),
            "Shepherd review stale",
        ),
        (
            'o',
            InboxFilter::Shepherd(ShepherdState::None),
            "no Shepherd review",
        ),
    ];

    /// The filter of a menu key.
    pub fn of_key(c: char) -> Option<InboxFilter> {
        Self::MENU
            .iter()
            .find(|(k, _, _)| *k == c)
            .map(|(_, f, _)| *f)
    }

    pub fn label(self) -> String {
        match self {
            InboxFilter::All => "all".to_owned(),
            InboxFilter::Attention => "needs attention".to_owned(),
            InboxFilter::Gate(g) => format!("gate {}", g.as_str()),
            InboxFilter::Shepherd(s) => format!("Shepherd {}", s.as_str()),
        }
    }

    fn keeps(self, r: &Row) -> bool {
        match self {
            InboxFilter::All => true,
            InboxFilter::Attention => needs_attention(r),
            InboxFilter::Gate(g) => r.gate.review == g,
            InboxFilter::Shepherd(s) => r.shepherd.state == s,
        }
    }
}

/// One tab: a section (or the whole inbox when there are no sections).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxTab {
    pub title: String,
    pub rows: Vec<Row>,
    /// `(counted, total)` while counts load.
    pub loading: Option<(usize, usize)>,
    /// Why the list could not be loaded.
    pub error: Option<String>,
    /// What could not be listed (a fixture that does not parse).
    pub problems: Vec<String>,
}

/// The inbox screen's state.
#[derive(Debug, Clone)]
pub struct InboxScreen {
    pub tabs: Vec<InboxTab>,
    pub tab: usize,
    /// Index into [`InboxScreen::visible`].
    pub selected: usize,
    pub offset: usize,
    pub sort: SortBy,
    /// Sorted by a table column instead (`s` goes on from the three orders to the columns).
    pub sort_column: Option<Column>,
    /// The order reversed (`sort_reverse`): the header's `↓` reads `↑`.
    pub sort_reversed: bool,
    pub filter: InboxFilter,
    /// The search text (`/`): rows whose repo#N, title, author or labels contain it.
    pub search: String,
    /// The PR open in the PR screen, its coordinates (its row gets the recount).
    pub open: Option<PrCoords>,
    /// Rows shown at once (set by the last frame).
    pub height: usize,
    /// When the lists were last asked for, on the console's clock (ms): `[inbox] refresh`
    /// counts from there.
    loaded_at: Option<i64>,
    /// A decision key on a row: the PR opens, then its decision screen.
    decide_next: Option<crate::tui::app::decide::Decision>,
    /// The PRs marked (`Space`, `V`): a decision key acts on all of them.
    pub marked: Vec<PrCoords>,
    /// The row marked last (`V` marks from there).
    last_mark: Option<usize>,
}

impl InboxScreen {
    pub fn new(tabs: Vec<InboxTab>) -> InboxScreen {
        InboxScreen {
            tabs,
            tab: 0,
            selected: 0,
            offset: 0,
            sort: SortBy::Attention,
            sort_column: None,
            sort_reversed: false,
            filter: InboxFilter::All,
            search: String::new(),
            open: None,
            height: 10,
            loaded_at: None,
            decide_next: None,
            marked: Vec::new(),
            last_mark: None,
        }
    }

    /// An inbox whose tabs (by title) are listed, their rows still to come.
    pub fn loading(titles: impl IntoIterator<Item = String>) -> InboxScreen {
        InboxScreen::new(
            titles
                .into_iter()
                .map(|title| InboxTab {
                    title,
                    rows: Vec::new(),
                    loading: Some((0, 0)),
                    error: None,
                    problems: Vec::new(),
                })
                .collect(),
        )
    }

    pub fn current(&self) -> Option<&InboxTab> {
        self.tabs.get(self.tab)
    }

    fn matches(&self, r: &Row) -> bool {
        if !self.filter.keeps(r) {
            return false;
        }
        if self.search.is_empty() {
            return true;
        }
        let q = self.search.to_lowercase();
        let l = &r.listed;
        format!(
            "{}/{}#{} {} {} {}",
            l.coords.owner,
            l.coords.repo,
            l.coords.number,
            l.title,
            l.author.login,
            l.labels.join(" ")
        )
        .to_lowercase()
        .contains(&q)
    }

    /// Indices (into the current tab's rows) of the rows listed, in order.
    pub fn visible(&self) -> Vec<usize> {
        self.current()
            .map(|t| {
                t.rows
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| self.matches(r))
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn selected_row(&self) -> Option<&Row> {
        let i = *self.visible().get(self.selected)?;
        self.current()?.rows.get(i)
    }

    fn clamp(&mut self) {
        let n = self.visible().len();
        self.selected = self.selected.min(n.saturating_sub(1));
        let h = self.height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + h {
            self.offset = self.selected + 1 - h;
        }
    }

    fn resort(&mut self) {
        let keep = self.selected_row().map(|r| r.listed.coords.clone());
        let by = (self.sort, self.sort_column, self.sort_reversed);
        for t in &mut self.tabs {
            order(&mut t.rows, by);
        }
        self.reselect(keep.as_ref());
    }

    fn reselect(&mut self, coords: Option<&PrCoords>) {
        if let (Some(c), Some(tab)) = (coords, self.current()) {
            let vis = self.visible();
            if let Some(pos) = vis
                .iter()
                .position(|&i| tab.rows.get(i).is_some_and(|r| &r.listed.coords == c))
            {
                self.selected = pos;
            }
        }
        self.clamp();
    }

    /// The next row (after the selection, wrapping) with unseen items.
    fn next_unseen(&mut self) -> bool {
        let vis = self.visible();
        let Some(tab) = self.current() else {
            return false;
        };
        let n = vis.len();
        for step in 1..=n {
            let pos = (self.selected + step) % n;
            if vis
                .get(pos)
                .and_then(|&i| tab.rows.get(i))
                .and_then(|r| r.items.unseen())
                .is_some_and(|u| u > 0)
            {
                self.selected = pos;
                self.clamp();
                return true;
            }
        }
        false
    }

    /// A command while the inbox is on top. Not consumed: `?` (the router opens this screen's
    /// help) and `q`/`Esc` (the router leaves it, which quits).
    fn key_command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        let n = self.visible().len();
        let half = (self.height / 2).max(1);
        match cmd {
            KeyCommand::Down => self.selected = (self.selected + 1).min(n.saturating_sub(1)),
            KeyCommand::Up => self.selected = self.selected.saturating_sub(1),
            KeyCommand::Top => self.selected = 0,
            KeyCommand::Bottom => self.selected = n.saturating_sub(1),
            KeyCommand::PageDown => self.selected = (self.selected + half).min(n.saturating_sub(1)),
            KeyCommand::PageUp => self.selected = self.selected.saturating_sub(half),
            KeyCommand::Focus => self.switch_tab(self.tab + 1),
            KeyCommand::FocusBack => self.switch_tab(self.tab + self.tabs.len().saturating_sub(1)),
            KeyCommand::Sort => self.cycle_sort(ctx),
            KeyCommand::SortReverse => {
                self.sort_reversed = !self.sort_reversed;
                self.resort();
                ctx.say(format!("sorted by {}", self.sort_label()));
            }
            // The review key reloads here (there is no review to run in the inbox), as does
            // the refresh key.
            KeyCommand::Review | KeyCommand::Refresh => self.reload(ctx),
            KeyCommand::Toggle => {
                match self.selected_row().map(|r| r.listed.coords.clone()) {
                    // A PR left but kept (its review running, or the one just left): back to
                    // it as it was, its data fetched afresh.
                    Some(c) if ctx.kept(&c) => {
                        self.open = Some(c.clone());
                        ctx.resume(c);
                    }
                    _ => self.open_selected(ctx),
                }
            }
            KeyCommand::Merge
            | KeyCommand::CloseReopen
            | KeyCommand::ReadyDraft
            | KeyCommand::Labels
            | KeyCommand::Reviewers
            | KeyCommand::Assign
            | KeyCommand::UpdateBranch
            | KeyCommand::Approve => {
                if !self.marked.is_empty() {
                    self.decide_marked(cmd, ctx);
                    return Handled::Consumed;
                }
                if cmd == KeyCommand::Approve {
                    ctx.say("mark PRs (Space) to approve them together; one PR is approved from its pending review (Enter, P, Ctrl-a)");
                    return Handled::Consumed;
                }
                if !self.marked.is_empty() {
                    self.decide_marked(cmd, ctx);
                    return Handled::Consumed;
                }
                // The PR opens (its items shown, its head the one decided on), then the decision.
                self.decide_next = crate::tui::app::decide::Decision::of(cmd);
                match self.selected_row().map(|r| r.listed.coords.clone()) {
                    Some(c) if ctx.kept(&c) => {
                        self.decide_next = None;
                        self.open = Some(c.clone());
                        ctx.resume(c);
                        ctx.say("back on the PR as you left it: the key again decides there");
                    }
                    _ => self.open_selected(ctx),
                }
            }
            KeyCommand::MarkRow => {
                if let Some(c) = self.selected_row().map(|r| r.listed.coords.clone()) {
                    if let Some(at) = self.marked.iter().position(|m| *m == c) {
                        self.marked.remove(at);
                    } else {
                        self.marked.push(c);
                        self.last_mark = Some(self.selected);
                    }
                    ctx.say(self.marks_said());
                }
            }
            KeyCommand::MarkRange => {
                let from = self.last_mark.unwrap_or(self.selected);
                let (a, b) = (from.min(self.selected), from.max(self.selected));
                let rows: Vec<PrCoords> = match self.current() {
                    Some(t) => self
                        .visible()
                        .iter()
                        .skip(a)
                        .take(b - a + 1)
                        .filter_map(|&i| t.rows.get(i))
                        .map(|r| r.listed.coords.clone())
                        .collect(),
                    None => Vec::new(),
                };
                for c in rows {
                    if !self.marked.contains(&c) {
                        self.marked.push(c);
                    }
                }
                self.last_mark = Some(self.selected);
                ctx.say(self.marks_said());
            }
            KeyCommand::NextNew => {
                if !self.next_unseen() {
                    ctx.say("no PR with unseen items");
                }
            }
            // A menu, like the PR screen's: one key picks what is listed.
            KeyCommand::Filter => *ctx.mode = InputMode::Filter,
            KeyCommand::Search => {
                *ctx.mode = InputMode::Search {
                    query: self.search.clone(),
                    before: self.selected,
                }
            }
            KeyCommand::Open | KeyCommand::Copy => {
                if let Some(url) = self.selected_row().map(|r| r.listed.url.clone()) {
                    ctx.fx.push(if cmd == KeyCommand::Open {
                        Effect::Open(url)
                    } else {
                        Effect::Copy(url)
                    });
                }
            }
            // Esc closes the innermost thing: a search applied with Enter, then a filter.
            KeyCommand::Back if !self.search.is_empty() => {
                self.set_search("");
                ctx.say("search cleared");
            }
            KeyCommand::Back if self.filter != InboxFilter::All => {
                let keep = self.selected_row().map(|r| r.listed.coords.clone());
                self.filter = InboxFilter::All;
                ctx.say(format!("showing: {}", self.filter.label()));
                self.reselect(keep.as_ref());
            }
            // Another screen's command on a shared key: the inbox takes the key's other one (mark
            // a range, mark a row).
            KeyCommand::SelectLines | KeyCommand::MarkSeen => return Handled::NotConsumed,
            KeyCommand::Help | KeyCommand::Quit | KeyCommand::Back => {
                self.clamp();
                return Handled::NotConsumed;
            }
            _ => ctx.say("not in the inbox: Enter opens the PR (? lists the keys)"),
        }
        self.clamp();
        Handled::Consumed
    }

    /// Shows tab `i` (modulo the tab count), from its top.
    fn switch_tab(&mut self, i: usize) {
        if self.tabs.len() > 1 {
            self.tab = i % self.tabs.len();
            self.selected = 0;
            self.offset = 0;
        }
    }

    /// Loads the lists and their counts afresh; the selection stays on its PR.
    fn reload(&mut self, ctx: &mut Ctx<'_>) {
        self.loaded_at = None;
        ctx.work(Work::Load);
        ctx.say("reloading the list…");
    }

    fn marks_said(&self) -> String {
        match self.marked.len() {
            0 => "no PR marked".to_owned(),
            n => format!(
                "{n} marked · a decision key (J Z T b B Y ctrl-e) acts on each · Space unmarks"
            ),
        }
    }

    /// A decision key with PRs marked: one batch screen for all of them, each read afresh.
    fn decide_marked(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) {
        let Some(what) = crate::tui::app::decide::Decision::of(cmd) else {
            return;
        };
        let marked: Vec<crate::tui::app::decide::batch::Marked> = self
            .tabs
            .iter()
            .flat_map(|t| t.rows.iter())
            .filter(|r| self.marked.contains(&r.listed.coords))
            .map(|r| crate::tui::app::decide::batch::Marked {
                coords: r.listed.coords.clone(),
                open: r.listed.open.clone(),
                head: r.listed.head_sha.clone(),
            })
            .fold(Vec::new(), |mut v, m| {
                if !v
                    .iter()
                    .any(|x: &crate::tui::app::decide::batch::Marked| x.coords == m.coords)
                {
                    v.push(m);
                }
                v
            });
        let preferred = ctx.session.merge_method;
        ctx.open(Box::new(crate::tui::app::decide::batch::BatchScreen::new(
            what, marked, preferred,
        )));
    }

    /// Asks for the selected row's PR (it opens above the inbox when it is loaded).
    fn open_selected(&mut self, ctx: &mut Ctx<'_>) {
        match self.selected_row() {
            Some(r) => {
                ctx.work(Work::Open(Box::new(r.listed.open.clone())));
                ctx.say(format!("opening {}…", r.listed.coords));
            }
            None => ctx.say("no PR to open"),
        }
    }

    /// A click on the `row`th line of the list selects that PR; the wheel moves the selection.
    fn mouse_at(&mut self, kind: MouseKind, row: usize) {
        let n = self.visible().len();
        match kind {
            MouseKind::Click if self.offset + row < n => self.selected = self.offset + row,
            MouseKind::Click => {}
            MouseKind::ScrollUp => self.selected = self.selected.saturating_sub(3),
            MouseKind::ScrollDown => self.selected = (self.selected + 3).min(n.saturating_sub(1)),
        }
        self.clamp();
    }

    /// `s`: the next sort order: attention, updated, unseen, then each table column (the title,
    /// unseen and age excluded: sorted as the orders already sort) and round to attention. The selected PR stays selected.
    fn cycle_sort(&mut self, ctx: &mut Ctx<'_>) {
        (self.sort, self.sort_column) = next_sort(self.sort, self.sort_column);
        self.resort();
        ctx.say(format!("sorted by {}", self.sort_label()));
    }

    /// What the header says the rows are sorted by: `attention ↓`, or a column's header word,
    /// with `↑` when reversed.
    pub fn sort_label(&self) -> String {
        let arrow = if self.sort_reversed { "↑" } else { "↓" };
        match self.sort_column {
            Some(c) => format!("{} column {arrow}", table::header(c)),
            None => format!("{} {arrow}", self.sort.label()),
        }
    }

    /// The search prompt's text changed (incremental).
    pub fn set_search(&mut self, q: &str) {
        let keep = self.selected_row().map(|r| r.listed.coords.clone());
        self.search = q.to_owned();
        self.selected = 0;
        self.reselect(keep.as_ref());
    }

    /// A fresh list for tab `tab` (counts may still be loading).
    pub fn listed(&mut self, tab: usize, result: Result<(Vec<Row>, Vec<String>), String>) {
        let keep = self.selected_row().map(|r| r.listed.coords.clone());
        let by = (self.sort, self.sort_column, self.sort_reversed);
        if let Some(t) = self.tabs.get_mut(tab) {
            match result {
                Ok((mut rows, problems)) => {
                    order(&mut rows, by);
                    let pending = rows.iter().filter(|r| r.items == Counts::Loading).count();
                    t.loading = (pending > 0).then_some((0, rows.len()));
                    t.rows = rows;
                    t.problems = problems;
                    t.error = None;
                }
                Err(e) => {
                    t.error = Some(e);
                    t.loading = None;
                }
            }
        }
        self.reselect(keep.as_ref());
    }

    /// Counted rows arriving for tab `tab` (background loading, or a recount).
    /// The rows are sorted again as their counts arrive (the attention and unseen orders depend
    /// on them), the selection staying on its PR.
    pub fn counted(&mut self, tab: usize, rows: Vec<Row>, finished: bool) {
        let keep = self.selected_row().map(|r| r.listed.coords.clone());
        let by = (self.sort, self.sort_column, self.sort_reversed);
        if let Some(t) = self.tabs.get_mut(tab) {
            for row in rows {
                if let Some(slot) = t
                    .rows
                    .iter_mut()
                    .find(|r| r.listed.coords == row.listed.coords)
                {
                    *slot = row;
                }
            }
            order(&mut t.rows, by);
            let total = t.rows.len();
            let done = t.rows.iter().filter(|r| r.items != Counts::Loading).count();
            t.loading = (!finished && done < total).then_some((done, total));
        }
        self.reselect(keep.as_ref());
    }

    /// A row's counts recomputed (after its PR screen was left), in every tab that lists it.
    pub fn recounted(&mut self, coords: &PrCoords, items: Counts, shepherd: ShepherdView) {
        for t in &mut self.tabs {
            for r in t.rows.iter_mut().filter(|r| &r.listed.coords == coords) {
                r.items = items.clone();
                r.shepherd = shepherd.clone();
            }
        }
        self.resort();
    }

    /// The files changed since the last look at the code of `coords`' rows, where known.
    pub fn files_recounted(&mut self, coords: &PrCoords, files_changed: Option<usize>) {
        if files_changed.is_none() {
            return;
        }
        for t in &mut self.tabs {
            for r in t.rows.iter_mut().filter(|r| &r.listed.coords == coords) {
                r.files_changed = files_changed;
            }
        }
    }

    /// The opener of the row for `coords`, if listed.
    pub fn opener(&self, coords: &PrCoords) -> Option<Opener> {
        self.tabs
            .iter()
            .flat_map(|t| &t.rows)
            .find(|r| &r.listed.coords == coords)
            .map(|r| r.listed.open.clone())
    }
}

impl InboxScreen {
    /// The inbox's own results (see [`Done`]: they come only to the screen that asked); the
    /// rest is handed back.
    fn result(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let Action::Done(done) = &action else {
            return Some(action);
        };
        let Some(done) = done.take::<Done>() else {
            return Some(action);
        };
        match done {
            Done::Listed { tab, result } => self.listed(tab, result),
            Done::Counted {
                tab,
                rows,
                finished,
            } => self.counted(tab, rows, finished),
            Done::Recounted {
                coords,
                items,
                shepherd,
                files_changed,
            } => {
                self.recounted(&coords, items, shepherd);
                self.files_recounted(&coords, files_changed);
            }
            Done::Opened(Ok(opened)) => {
                let coords = opened.snapshot.pr.coords();
                self.open = Some(coords.clone());
                *ctx.notice = None;
                if ctx.kept(&coords) {
                    // Its screen is alive (a review running on it): back to it.
                    ctx.resume(coords);
                } else {
                    let mut pr = PrScreen::opened(*opened, ctx);
                    pr.decide_when_shown(self.decide_next.take());
                    ctx.open(Box::new(pr));
                }
            }
            Done::Opened(Err(why)) => ctx.say(format!("cannot open the PR: {why}")),
        }
        None
    }
}

impl Screen for InboxScreen {
    fn name(&self) -> &'static str {
        "inbox"
    }

    fn session_prs(&self) -> Vec<PrCoords> {
        let mut prs: Vec<PrCoords> = Vec::new();
        for r in self.tabs.iter().flat_map(|t| &t.rows) {
            if !prs.contains(&r.listed.coords) {
                prs.push(r.listed.coords.clone());
            }
        }
        prs
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.selected)
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        self.key_command(cmd, ctx)
    }

    /// The filter menu: a key picks the filter (the selection stays on its PR when still
    /// listed); Esc, Enter or the filter key again close it.
    fn dialog(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        let Action::FilterKey(c) = action else { return };
        *ctx.mode = InputMode::Normal;
        match InboxFilter::of_key(c) {
            Some(f) => {
                let keep = self.selected_row().map(|r| r.listed.coords.clone());
                self.filter = f;
                ctx.say(format!("showing: {}", f.label()));
                self.reselect(keep.as_ref());
            }
            None if c == '\u{1b}' => {}
            None => ctx.say(format!(
                "showing: {} (no filter on that key)",
                self.filter.label()
            )),
        }
    }

    /// The search prompt while the inbox is on top: incremental over its rows.
    fn search(&mut self, step: SearchStep<'_>, _ctx: &mut Ctx<'_>) {
        match step {
            SearchStep::Changed { query, .. } => self.set_search(query),
            SearchStep::Accepted(_) => {}
            SearchStep::Cancelled { before } => {
                self.set_search("");
                self.selected = before;
            }
        }
    }

    /// The PR opened above was left: its row is recounted from the ledger (after the markers
    /// in flight, which share the ordered lane).
    fn uncovered(&mut self, left: &dyn Screen, ctx: &mut Ctx<'_>) {
        // Decisions on marked PRs were made there: the list as GitHub (or the outbox) says now.
        if left.acted() {
            self.reload(ctx);
            return;
        }
        if let Some(snapshot) = left.snapshot() {
            ctx.work(Work::Recount {
                snapshot: Box::new(snapshot.clone()),
            });
        }
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        self.result(action, ctx)
    }

    /// Every `[inbox] refresh` seconds (0: never) the lists and counts load again, quietly:
    /// the selection stays on its PR, the search and filter stay, and the PR screens are left
    /// alone.
    fn tick(&mut self, now_ms: i64, ctx: &mut Ctx<'_>) {
        let every = i64::try_from(ctx.session.inbox_refresh)
            .unwrap_or(i64::MAX)
            .saturating_mul(1000);
        let since = *self.loaded_at.get_or_insert(now_ms);
        if every > 0 && now_ms.saturating_sub(since) >= every {
            self.loaded_at = Some(now_ms);
            ctx.work(Work::Load);
        }
    }

    fn drawn(&mut self, d: Drawn, _ctx: &mut Ctx<'_>) {
        self.height = usize::from(d.list_height).max(1);
    }

    /// A click on a tab shows it; on a row selects it; the wheel moves the selection.
    fn mouse(&mut self, kind: MouseKind, at: Position, d: &Drawn) {
        if d.list_area.contains(at) {
            self.mouse_at(kind, usize::from(at.y - d.list_area.y));
        } else if kind == MouseKind::Click
            // The tabs' row (the inbox has no detail pane: its place carries the tabs).
            && d.detail_area.contains(at)
            && let Some(i) = draw::tab_at(self, at.x)
            && i != self.tab
        {
            self.switch_tab(i);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let (list_height, list_area, tabs_row) = draw::draw(frame, area, self, view);
        // Nothing of a PR is shown: nothing is marked seen.
        Drawn {
            list_height,
            list_area,
            detail_area: tabs_row,
            ..Drawn::default()
        }
    }

    /// The inbox's keys, as the keymap binds them.
    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        let k = |c| keymap.keys_label(c);
        let entries = [
            (k(KeyCommand::Down), "next PR"),
            (k(KeyCommand::Up), "previous PR"),
            (k(KeyCommand::Top), "first PR"),
            (k(KeyCommand::Bottom), "last PR"),
            (k(KeyCommand::PageDown), "half a page down"),
            (k(KeyCommand::PageUp), "half a page up"),
            (
                k(KeyCommand::Toggle),
                "open the PR (↩ marks one left open: back to it as it was, refreshed)",
            ),
            (k(KeyCommand::NextNew), "next PR with unseen items"),
            (
                k(KeyCommand::Search),
                "search repo#number, titles, authors and labels",
            ),
            (
                k(KeyCommand::Filter),
                "filter menu: a all, n needs attention, g/p/l/x by gate, c/s/o by Shepherd state",
            ),
            (
                k(KeyCommand::Sort),
                "next sort order: attention, updated, unseen, then by the other columns (re-sorted as counts arrive)",
            ),
            (
                k(KeyCommand::SortReverse),
                "reverse the sort order (the header's ↓ becomes ↑)",
            ),
            (
                format!("{}/{}", k(KeyCommand::Review), k(KeyCommand::Refresh)),
                "reload the list and its counts (also every [inbox] refresh seconds)",
            ),
            (
                format!("{}/{}", k(KeyCommand::Focus), k(KeyCommand::FocusBack)),
                "next section / previous section (a click on a tab shows it)",
            ),
            (
                k(KeyCommand::Open),
                "open the PR in the browser (or show the URL)",
            ),
            (k(KeyCommand::Copy), "copy the PR's URL (OSC 52)"),
            (
                format!(
                    "{} {} {} {} {} {} {}",
                    k(KeyCommand::Merge),
                    k(KeyCommand::CloseReopen),
                    k(KeyCommand::ReadyDraft),
                    k(KeyCommand::Labels),
                    k(KeyCommand::Reviewers),
                    k(KeyCommand::Assign),
                    k(KeyCommand::UpdateBranch)
                ),
                "on the selected PR: merge, close/reopen, ready/draft, labels, reviewers, assign, update branch (the PR opens first: its items shown, its head the one decided on)",
            ),
            (
                format!("{} / {}", k(KeyCommand::MarkRow), k(KeyCommand::MarkRange)),
                "mark the PR / mark a range from the last marked: a decision key (or Ctrl-a, approve) then acts on every marked PR, with one confirmation naming each",
            ),
            (k(KeyCommand::Help), "this help"),
            (
                k(KeyCommand::Quit),
                "quit (asks first while a review runs or anything is unsent: a review draft, a reply, a conversation comment, a pending review — each named)",
            ),
            (k(KeyCommand::QuitAll), "quit from anywhere"),
            (
                k(KeyCommand::Back),
                "clear the search, then the filter; close the help (never quits)",
            ),
            ("Ctrl-c".to_owned(), "quit from anywhere"),
            ("search".to_owned(), "type · Backspace · Enter · Esc"),
            (
                "mouse".to_owned(),
                "click selects a PR or a tab · the wheel moves the selection",
            ),
            (
                "PR".to_owned(),
                "column: owner/repo#N (#N in a tab of one repository) · ▶ selected, ↩ left open",
            ),
            (
                "unseen".to_owned(),
                "column: items new or edited since you last looked ('N seen': none; … counting)",
            ),
            (
                "title".to_owned(),
                "column: the PR's title ([draft] first); cut before PR/unseen/checks/review go",
            ),
            (
                table::TAGS_HEADER.to_owned(),
                "column: [review …] a review running behind (it goes on while others are read) · N files changed since your last look",
            ),
            (
                "checks".to_owned(),
                "column: at the head: ✗ failing, … pending, ✓ passing, ○ neutral; ✗ is never cut",
            ),
            (
                "review".to_owned(),
                "column: GitHub's decision: approved, changes (requested), required",
            ),
            (
                "asks".to_owned(),
                "column: a review is asked of you (you) or of a team of yours (team)",
            ),
            (
                "size".to_owned(),
                "column: +added −deleted lines, files changed (f)",
            ),
            (
                "age".to_owned(),
                "column: time since the PR was last updated",
            ),
            (
                "shepherd".to_owned(),
                "column: Shepherd's review: current (at the head), stale (the head moved), none",
            ),
            (
                "gate".to_owned(),
                "column: may Shepherd review it: allowed, needs-label, paused, refused ([gates])",
            ),
            (
                "author".to_owned(),
                "column: @login, team (a member) or community",
            ),
            ("labels".to_owned(), "column: the PR's labels"),
            (
                "sort".to_owned(),
                "the header names the order the rows are in, ↓ or reversed ↑ (the sort keys above change it)",
            ),
        ];
        entries
            .into_iter()
            .map(|(key, what)| (key, what.to_owned()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` comes round through every order once: no two orders sort alike (the `unseen` and
    /// `age` columns are the named orders `unseen` and `updated`).
    #[test]
    fn the_sort_cycle_has_no_duplicates() {
        let start = (SortBy::default(), None);
        let mut at = start;
        let mut seen = vec![at];
        loop {
            at = next_sort(at.0, at.1);
            if at == start {
                break;
            }
            assert!(!seen.contains(&at), "{at:?} twice");
            seen.push(at);
        }
        let cols: Vec<Column> = seen.iter().filter_map(|s| s.1).collect();
        for dup in [Column::Title, Column::Unseen, Column::Updated] {
            assert!(!cols.contains(&dup), "{dup:?} in {cols:?}");
        }
        assert_eq!(seen.len(), 3 + columns::ALL.len() - 3, "{seen:?}");
    }

    /// The reverse key turns the order round and the header's arrow with it.
    #[test]
    fn the_sort_reverses() {
        let mut inbox = InboxScreen::new(Vec::new());
        assert_eq!(inbox.sort_label(), "attention ↓");
        inbox.sort_reversed = true;
        inbox.sort = SortBy::Updated;
        assert_eq!(inbox.sort_label(), "updated ↑");
        inbox.sort_column = Some(Column::Checks);
        assert_eq!(inbox.sort_label(), "checks column ↑");
    }
}
