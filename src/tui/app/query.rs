//! What the console shows, asked of [`App`]: which screen is on top, which dialog has the keys,
//! the notice, and what the PR screen and the inbox hold (selection, focus, pane, scroll, draft,
//! review, counts). Tests ask these instead of reading the state's fields, so the state can be
//! rearranged without rewriting them. PR-screen answers are `None` (or empty) when no PR screen
//! is open.

use std::any::Any;

use ratatui::text::Line;

use super::{
    App, ChecksScreen, Counts, DecideAsk, DecideScreen, DiffScreen, FileState, FilesScreen, Focus,
    InboxScreen, InputMode, Pane, PendingAsk, PendingScreen, PrAsk, PrScreen, ReplyView, RerunAsk,
    Row, Screen,
};
use crate::code::LineSelection;
use crate::inbox::Row as InboxRow;
use crate::policy::GateDecision;
use crate::pr::{Item, PrMeta};
use crate::triage::Freshness;
use crate::tui::review::{Composed, DraftView, RunView};

impl App {
    /// The screen on top (the one that has the keys when no dialog is open) is an `S`.
    pub fn top_is<S: Screen>(&self) -> bool {
        self.stack
            .last()
            .is_some_and(|s| (s.screen.as_ref() as &dyn Any).is::<S>())
    }

    /// The id of the screen on top: a result made by hand for it (tests) goes there as
    /// `Action::For { screen: app.top_id(), .. }`.
    pub fn top_id(&self) -> super::ScreenId {
        self.stack.last().map_or(super::ScreenId::ROUTER, |s| s.id)
    }

    /// The id of the nearest screen of type `S`: on the stack (top first), else kept.
    pub fn id_of<S: Screen>(&self) -> Option<super::ScreenId> {
        self.stack
            .iter()
            .rev()
            .chain(&self.kept)
            .find(|s| (s.screen.as_ref() as &dyn Any).is::<S>())
            .map(|s| s.id)
    }

    /// The screens on the stack by name, bottom first (the last one is on top).
    pub fn stack(&self) -> Vec<&'static str> {
        self.stack.iter().map(|s| s.name()).collect()
    }

    /// How many screens were left and are kept (a PR left for the inbox).
    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    /// Which layer has the keys: the screen (`Normal`) or a dialog above it.
    pub fn mode(&self) -> &InputMode {
        &self.mode
    }

    /// The screen on top while a question it asked is open, if it is an `S`.
    pub fn asking<S: Screen>(&self) -> Option<&S> {
        if self.mode != InputMode::Asked {
            return None;
        }
        let top = self.stack.last()?;
        (top.screen.as_ref() as &dyn Any).downcast_ref::<S>()
    }

    /// The answer pane: on the stack (top first), else kept.
    pub fn ask_pane(&self) -> Option<&super::ask::AskScreen> {
        self.stack
            .iter()
            .rev()
            .chain(&self.kept)
            .find_map(|s| (s.screen.as_ref() as &dyn Any).downcast_ref::<super::ask::AskScreen>())
    }

    /// The question the PR screen on top asked, while it is open.
    pub fn pr_asked(&self) -> Option<&PrAsk> {
        self.asking::<PrScreen>()?.asked()
    }

    /// The question the pending review screen on top asked, while it is open.
    pub fn pending_asked(&self) -> Option<&PendingAsk> {
        self.asking::<PendingScreen>()?.asked()
    }

    /// The re-run question of the checks screen on top, while it is open.
    pub fn checks_asked(&self) -> Option<&RerunAsk> {
        self.asking::<ChecksScreen>()?.asked()
    }

    /// The help of the screen on top (`?`), with the default keys: (keys, what they do).
    pub fn help_entries(&self) -> Vec<(String, String)> {
        self.stack
            .last()
            .map(|s| s.help(&crate::tui::keymap::Keymap::default()))
            .unwrap_or_default()
    }

    /// The question of the batch decision screen on top (marked inbox rows), while it is open.
    pub fn batch_asked(&self) -> Option<&super::decide::batch::BatchAsk> {
        self.asking::<super::decide::batch::BatchScreen>()?.asked()
    }

    /// The question of the decision screen on top (merge, close, …), while it is open.
    pub fn decide_asked(&self) -> Option<&DecideAsk> {
        self.asking::<DecideScreen>()?.asked()
    }

    /// The footer's notice.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// True once the console is to close (the loop returns after this update).
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// The help overlay's scroll position.
    pub fn help_scroll(&self) -> usize {
        self.help_scroll
    }

    /// The selected row of the screen on top: a row of the PR screen's list, or the index of
    /// the selected PR among the inbox's listed rows.
    pub fn selected_row(&self) -> Option<usize> {
        self.stack.last()?.selected_row()
    }

    /// The nearest screen of type `S`: on the stack (top first), else among the kept ones.
    fn find<S: Screen>(&self) -> Option<&S> {
        self.stack
            .iter()
            .rev()
            .chain(&self.kept)
            .find_map(|s| (s.screen.as_ref() as &dyn Any).downcast_ref::<S>())
    }

    /// The PR screen: the one shown, or the one left for the inbox (kept until another PR
    /// opens). `None` before any PR was opened.
    pub fn pr(&self) -> Option<&PrScreen> {
        self.find()
    }

    /// The PR screen of `pr`, shown or left and kept (a session keeps one per PR whose work
    /// goes on).
    pub fn pr_of(&self, pr: &crate::pr::PrCoords) -> Option<&PrScreen> {
        self.stack
            .iter()
            .rev()
            .chain(&self.kept)
            .filter(|s| s.subject().as_ref() == Some(pr))
            .find_map(|s| (s.screen.as_ref() as &dyn Any).downcast_ref::<PrScreen>())
    }

    /// The PR screen, to arrange a state no key sequence reaches quickly (tests: a draft of
    /// 70,000 characters). Everything else goes through [`App::update`].
    pub fn pr_mut(&mut self) -> Option<&mut PrScreen> {
        self.stack
            .iter_mut()
            .rev()
            .chain(&mut self.kept)
            .find_map(|s| (s.screen.as_mut() as &mut dyn Any).downcast_mut::<PrScreen>())
    }

    /// The PR on the PR screen.
    pub fn pr_meta(&self) -> Option<&PrMeta> {
        self.pr().map(|p| &p.list.snapshot.pr)
    }

    /// The item of the selected list row (`None` on a group row).
    pub fn selected_item(&self) -> Option<&Item> {
        self.pr()?.list.selected_item()
    }

    /// The id of the selected item.
    pub fn selected_id(&self) -> Option<&str> {
        self.selected_item().map(Item::id)
    }

    /// Row `i` of the PR screen's list (a group header or an item).
    pub fn row(&self, i: usize) -> Option<Row> {
        self.pr()?.list.rows.get(i).copied()
    }

    /// How many rows the PR screen's list has (group headers included; 0 without a PR screen).
    pub fn row_count(&self) -> usize {
        self.pr().map_or(0, |p| p.list.rows.len())
    }

    /// The first row shown in the list pane.
    pub fn list_offset(&self) -> Option<usize> {
        self.pr().map(|p| p.list.list_offset)
    }

    /// Which pane of the PR screen has the keys.
    pub fn focus(&self) -> Option<Focus> {
        self.pr().map(|p| p.list.focus)
    }

    /// The detail shown full width.
    pub fn zoomed(&self) -> bool {
        self.pr().is_some_and(|p| p.list.zoom)
    }

    /// What the detail area shows: the item, the aspects or the review.
    pub fn pane(&self) -> Option<Pane> {
        self.pr().map(|p| p.desk.pane)
    }

    /// The detail pane's scroll.
    pub fn detail_scroll(&self) -> Option<usize> {
        self.pr().map(|p| p.list.detail_scroll)
    }

    /// The review pane's scroll.
    pub fn review_scroll(&self) -> Option<usize> {
        self.pr().map(|p| p.desk.review_scroll)
    }

    /// The finding `Enter` opened whole in the review pane, if one is open.
    pub fn opened_finding(&self) -> Option<&crate::review::findings::Finding> {
        let desk = &self.pr()?.desk;
        desk.opened.and(desk.selected_finding())
    }

    /// `(step, steps)` of a fixture's history; `None` live.
    pub fn step(&self) -> Option<(usize, usize)> {
        self.pr()?.list.step()
    }

    /// The header's counts (new, edited, …, per group).
    pub fn counts(&self) -> Option<&Counts> {
        self.pr().map(|p| &p.list.counts)
    }

    /// The freshness of the item with this id.
    pub fn freshness_of(&self, id: &str) -> Option<Freshness> {
        let list = &self.pr()?.list;
        let idx = list.snapshot.items.iter().position(|i| i.id() == id)?;
        Some(list.freshness(idx))
    }

    /// The accepted search (`n`/`N` move between its matches).
    pub fn search(&self) -> Option<&str> {
        self.pr()?.list.search.as_deref()
    }

    /// The highlighted lines of a thread's hunk, once highlighting answered (see
    /// [`App::highlight_key`]).
    pub fn highlight(&self, key: &str) -> Option<&[Line<'static>]> {
        self.pr()?.list.highlights.get(key).map(|l| l.as_slice())
    }

    /// Why seen markers are not written, when they are not.
    pub fn marks_blocked(&self) -> Option<&str> {
        self.pr()?.marks.blocked.as_deref()
    }

    /// The thread reply being written (kept while the composer is closed).
    pub fn reply(&self) -> Option<&ReplyView> {
        self.pr()?.threads.reply.as_ref()
    }

    /// The review draft (what `p` posts).
    pub fn draft(&self) -> Option<&DraftView> {
        self.pr()?.desk.draft.as_ref()
    }

    /// The latest finished review, classified and composed.
    pub fn composed(&self) -> Option<&Composed> {
        self.pr()?.desk.composed.as_ref()
    }

    /// The latest review run's progress.
    pub fn run(&self) -> Option<&RunView> {
        self.pr()?.desk.run.as_ref()
    }

    /// The header's progress line (the run's progress and the gate).
    pub fn progress(&self) -> Option<&str> {
        self.pr()?.desk.progress.as_deref()
    }

    /// A confirmed post is on its way.
    pub fn posting(&self) -> bool {
        self.pr().is_some_and(|p| p.desk.posting)
    }

    /// What was posted this session.
    pub fn posted(&self) -> Option<&str> {
        self.pr()?.desk.posted.as_deref()
    }

    /// What the gates allow for the PR on the PR screen.
    pub fn gate(&self) -> Option<&GateDecision> {
        self.pr().map(|p| &p.desk.gate)
    }

    /// The inbox screen, when the console opened on one.
    pub fn inbox(&self) -> Option<&InboxScreen> {
        self.find()
    }

    /// The rows of inbox tab `tab` (every row, whatever the filter; empty without an inbox).
    pub fn inbox_rows(&self, tab: usize) -> &[InboxRow] {
        self.inbox()
            .and_then(|i| i.tabs.get(tab))
            .map_or(&[], |t| t.rows.as_slice())
    }

    /// The selected PR of the inbox.
    pub fn inbox_selected(&self) -> Option<&InboxRow> {
        self.inbox()?.selected_row()
    }

    /// `(counted, total)` while tab `tab` counts its rows.
    pub fn inbox_loading(&self, tab: usize) -> Option<(usize, usize)> {
        self.inbox()?.tabs.get(tab)?.loading
    }

    /// The files screen (shown, or left and kept).
    pub fn files_screen(&self) -> Option<&FilesScreen> {
        self.find()
    }

    /// Each changed file of the files screen with what the screen says of it: viewed, since
    /// your last look, threads, findings, seen in this visit. Empty without a files screen.
    pub fn files(&self) -> Vec<(String, FileState)> {
        self.files_screen().map_or_else(Vec::new, |f| {
            f.files()
                .iter()
                .zip(f.file_states())
                .map(|(file, st)| (file.path.clone(), *st))
                .collect()
        })
    }

    /// The checks screen: the one shown, or the one left and kept.
    pub fn checks_screen(&self) -> Option<&super::ChecksScreen> {
        self.find()
    }

    /// The diff screen, when it is on top.
    pub fn diff_screen(&self) -> Option<&DiffScreen> {
        let top = self.stack.last()?;
        (top.screen.as_ref() as &dyn Any).downcast_ref::<DiffScreen>()
    }

    /// The path of the file the diff screen shows.
    pub fn diff_path(&self) -> Option<&str> {
        Some(self.diff_screen()?.file()?.path.as_str())
    }

    /// The line, or the selected lines, a comment would be on in the diff screen on top.
    pub fn diff_selection(&self) -> Option<LineSelection> {
        self.diff_screen()?.selection()
    }

    /// The text of the composer open under the diff's lines, if one is.
    pub fn diff_composer(&self) -> Option<String> {
        self.diff_screen()?.composer_text()
    }

    /// Whether the diff on top is drawn side by side.
    pub fn diff_split(&self) -> bool {
        self.diff_screen().is_some_and(|d| d.showing_split())
    }
}

impl App {
    /// The pending review screen, when one is open (or kept).
    pub fn pending(&self) -> Option<&PendingScreen> {
        self.find()
    }

    /// The pending review it holds (`None` until read from the ledger).
    /// The pending review it holds (`None` until read from the ledger); with no pending review
    /// screen, the one the diff on top read.
    pub fn pending_review(&self) -> Option<&crate::code::pending::PendingReview> {
        self.pending()
            .and_then(|p| p.review())
            .or_else(|| self.diff_screen()?.pending_review())
    }
}
