//! Console state and its one entry point, [`App::update`]: pure (no I/O, no clock, no terminal).
//!
//! `update` takes an [`Action`] and returns the [`Effect`]s the effect runner must perform (write
//! seen markers, open a URL, load a fixture step, highlight a hunk, post). Their results come back
//! as actions (`Marked`, `StepLoaded`, `Highlighted`, `Posted`, `Notice`). Tests drive the same
//! functions with a synchronous effect runner.
//!
//! The state is split by concern, each part owning its state and answering its own actions:
//!
//! ```text
//! App (router: screen stack + dialog layer, notice, quit)
//! ├── mode: InputMode          dialogs.rs   search prompt, filter, help, editor, confirm
//! └── pr: PrScreen             pr_screen.rs one PR; routes to its parts
//!     ├── list: ItemList       list.rs      triage, rows, selection, filter, search, scroll
//!     ├── marks: Marks         marks.rs     seen-marker writes in flight, blocked writes
//!     └── desk: ReviewDesk     desk.rs      review run (seq), composed review, draft, posting
//! ```
//!
//! A second screen (the PR inbox) is another variant of [`Screen`] with its own state beside
//! `pr`; the router sends commands to the screen on top and results to the screen they belong to.
//! Dialogs stay a layer above whichever screen is shown.

/// The [`Ctx`] over the App's shell (notice, mode, quit, clock) for effects pushed to `$fx`; a
/// macro so the borrows stay per field and a screen field can be borrowed beside it.
macro_rules! shell_ctx {
    ($app:ident, $fx:expr) => {
        Ctx::new(
            &mut $app.notice,
            &mut $app.mode,
            &mut $app.quit,
            $fx,
            $app.now,
        )
    };
}

mod desk;
mod dialogs;
mod inbox;
mod list;
mod marks;
mod pr_screen;
mod query;
mod threads;

use std::sync::Arc;

use ratatui::crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::keymap::{KeyCommand, Keymap};
use super::review::PostPreview;
use crate::inbox::{Opener, Row as InboxRow};
use crate::ledger::{Draft, KeptText, ReplyDraft, SeenSet, ThreadActionKind};
use crate::policy::Mode as ReviewMode;
use crate::pr::{Item, PrCoords, Snapshot, Thread};
use crate::publish::{Posted, ThreadDo};
use crate::review::ReviewEvent;
use crate::review::prior::PriorReviews;

pub use desk::{Pane, ReviewDesk, console_gate};
pub use dialogs::InputMode;
pub use inbox::{InboxFilter, InboxScreen, InboxTab};
pub use list::{Counts, Filter, Focus, Group, ItemList, Row};
pub use marks::Marks;
pub use pr_screen::PrScreen;
pub use threads::{ReplyView, ThreadDesk};

/// What the last frame showed, reported by the event loop after `terminal.draw` returned Ok.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drawn {
    /// The item whose detail was on screen (None: none, or the terminal was too small).
    pub shown: Option<usize>,
    pub list_height: u16,
    pub detail_height: u16,
    /// Wrapped line count of the detail pane's content.
    pub detail_lines: usize,
    /// The detail scroll the frame used (a thread with new replies opens at the first one).
    pub detail_scroll: usize,
    /// How far the help overlay can scroll (0 when it is closed or fits).
    pub help_max_scroll: usize,
    /// The help overlay's visible height.
    pub help_height: u16,
    /// Where the list and detail panes were drawn (inside their borders), for the mouse.
    pub list_area: Rect,
    pub detail_area: Rect,
}

/// A mouse event the console answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    /// Left button pressed: select the row under the pointer / focus the pane.
    Click,
    ScrollUp,
    ScrollDown,
}

/// A loaded fixture step: the snapshot and the ledger's markers read afresh.
#[derive(Debug, Clone)]
pub struct StepData {
    pub snapshot: Snapshot,
    pub seen: SeenSet,
    /// Per item id, the versions (body hashes) it has at later steps of the fixture.
    pub ahead: Ahead,
}

/// Per item id, the versions (body hashes) it has at later steps of a fixture: a marker of one
/// of them is newer than what an earlier step shows, and is never moved back.
pub type Ahead = std::collections::HashMap<String, std::collections::HashSet<String>>;

/// The versions items have after `step` in `fixture` (empty at the last step).
pub fn later_versions(fixture: &crate::source::Fixture, step: usize) -> Ahead {
    let mut ahead = Ahead::new();
    for j in step + 1..=fixture.steps.len() {
        if let Ok(s) = fixture.snapshot_at(j) {
            for item in &s.items {
                ahead
                    .entry(item.id().to_owned())
                    .or_default()
                    .insert(item.body_hash());
            }
        }
    }
    ahead
}

/// Everything that changes the state.
#[derive(Debug, Clone)]
pub enum Action {
    Command(KeyCommand),
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
    PostPlanned(Result<PostPreview, String>),
    Posted(Result<Posted, String>),
    /// A key for the draft editor.
    EditKey(KeyEvent),
    EditDone,
    /// The answer to a confirmation dialog.
    Confirmed(bool),
    /// A click or a wheel step at a cell of the screen.
    Mouse {
        kind: MouseKind,
        column: u16,
        row: u16,
    },
    /// A key for the thread reply composer (ctrl-s asks to send).
    ReplyKey(KeyEvent),
    /// Esc in the reply composer: it closes, the reply is kept.
    ReplyClose,
    /// A saved reply found in the ledger when the console opened.
    ReplyRestored(ReplyDraft),
    /// A thread action answered: where it can be seen, or why it failed.
    ThreadActed {
        thread_id: String,
        kind: ThreadActionKind,
        result: Result<String, String>,
    },
    /// The inbox's list for tab `tab` arrived (counts may still be loading), with what could not
    /// be listed; or why it could not be loaded.
    InboxListed {
        tab: usize,
        result: Result<(Vec<InboxRow>, Vec<String>), String>,
    },
    /// Counted rows for tab `tab`; `finished` after the last batch.
    InboxCounted {
        tab: usize,
        rows: Vec<InboxRow>,
        finished: bool,
    },
    /// A row recounted from the ledger after its PR screen was left.
    InboxRecounted {
        coords: PrCoords,
        items: crate::inbox::Counts,
        shepherd: crate::inbox::ShepherdView,
    },
    /// The PR chosen in the inbox, loaded (or why not).
    PrOpened(Result<Box<OpenedPr>, String>),
    /// An inbox-only key: `s` sorts, `r` reloads the list.
    InboxKey(char),
}

/// A PR loaded for the PR screen from the inbox.
#[derive(Debug, Clone)]
pub struct OpenedPr {
    pub snapshot: Snapshot,
    pub seen: SeenSet,
    /// Its review draft and unsent thread reply from an earlier session.
    pub saved: SavedDrafts,
    /// `Err(reason)` when its seen markers cannot be written.
    pub marks: Result<(), String>,
    /// A fixture's later versions of its items (see [`later_versions`]); empty live.
    pub ahead: Ahead,
}

/// What a PR kept from an earlier session (quit, crash, kill): its unposted review draft and its
/// unsent thread reply; `Err` when the file is unreadable (said as a notice, never fatal).
#[derive(Debug, Clone)]
pub struct SavedDrafts {
    pub draft: Result<Option<Draft>, String>,
    pub reply: Result<Option<ReplyDraft>, String>,
}

/// Work for the effect runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    MarkSeen {
        pr: PrCoords,
        items: Vec<(String, String)>,
        /// The texts to keep beside those markers (written first).
        kept: Vec<KeptText>,
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
        /// The body's length in characters (GitHub's limit counts characters).
        chars: usize,
    },
    /// Post `body` (only ever after the maintainer confirmed the dialog).
    Post {
        pr: PrCoords,
        body: String,
    },
    /// Load a PR chosen in the inbox for the PR screen.
    OpenPr(Box<Opener>),
    /// (Re)load the inbox's lists, then their counts in the background.
    LoadInbox,
    /// Recount the inbox row of this snapshot's PR from the ledger (after the PR screen).
    Recount {
        snapshot: Box<Snapshot>,
    },
    /// Save the reply being written (on every change).
    SaveReplyDraft {
        pr: PrCoords,
        draft: ReplyDraft,
    },
    /// The reply was sent: forget the saved one.
    DiscardReplyDraft {
        pr: PrCoords,
    },
    /// Reply to, resolve or unresolve a thread (only ever after the maintainer confirmed).
    ThreadAct {
        pr: PrCoords,
        thread: Box<Thread>,
        what: ThreadDo,
    },
}

/// Settings fixed for a console session.
#[derive(Debug, Clone)]
pub struct Options {
    /// Unix seconds, for relative times ("3h ago"); fixed so drawing stays deterministic.
    pub now: i64,
    /// `Err(reason)` when seen markers cannot be written (unwritable state dir).
    pub marks: Result<(), String>,
    /// The config file's `[gates]`: the console applies them like `review` does.
    pub gates: crate::policy::GateConfig,
}

/// Which screen is on top. Today the console has one; the PR inbox (issue 12) becomes
/// `ScreenKind::Inbox`, with the PR screen opened from it and `Back` returning to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenKind {
    Pr,
    /// The inbox (`App::inbox` is set); the PR screen is opened from it.
    Inbox,
}

/// What a part of the state may touch beside its own: the footer notice, the dialog layer,
/// quitting, and the effects `update` returns.
pub struct Ctx<'a> {
    pub notice: &'a mut Option<String>,
    pub mode: &'a mut InputMode,
    pub quit: &'a mut bool,
    pub fx: &'a mut Vec<Effect>,
    pub now: i64,
    /// Set by a screen at its top level on `q`/`Esc`: "leave this screen". The router decides
    /// what that means (today: quit; with the inbox above: back to the inbox).
    pub leave: bool,
}

impl<'a> Ctx<'a> {
    fn new(
        notice: &'a mut Option<String>,
        mode: &'a mut InputMode,
        quit: &'a mut bool,
        fx: &'a mut Vec<Effect>,
        now: i64,
    ) -> Ctx<'a> {
        Ctx {
            notice,
            mode,
            quit,
            fx,
            now,
            leave: false,
        }
    }

    /// Shows `text` in the footer.
    pub fn say(&mut self, text: impl Into<String>) {
        *self.notice = Some(text.into());
    }
}

/// The router: the screen on top, the dialog layer above it, and what every screen shares.
#[derive(Debug, Clone)]
pub struct App {
    pub screen: ScreenKind,
    pub pr: PrScreen,
    /// The inbox, when the console was opened on one.
    pub inbox: Option<InboxScreen>,
    /// Why markers cannot be written, for PR screens opened later.
    marks_blocked: Option<String>,
    pub mode: InputMode,
    pub notice: Option<String>,
    pub now: i64,
    pub quit: bool,
    /// The help overlay's scroll position (reset when it opens).
    pub help_scroll: usize,
    /// What the last frame showed (for the help overlay's scroll limits).
    last_drawn: Drawn,
}

impl App {
    pub fn new(snapshot: Snapshot, seen: SeenSet, opts: Options) -> App {
        let problems = seen.problems.len();
        let notice = (problems > 0).then(|| {
            format!("{problems} marker file(s) could not be read; their items count as new")
        });
        App {
            screen: ScreenKind::Pr,
            pr: PrScreen::new(snapshot, seen, opts.marks.clone().err(), opts.gates),
            inbox: None,
            marks_blocked: opts.marks.err(),
            mode: InputMode::Normal,
            notice,
            now: opts.now,
            quit: false,
            help_scroll: 0,
            last_drawn: Drawn::default(),
        }
    }

    /// Brings back what the PR on the PR screen kept from an earlier session: its unsent thread
    /// reply and its review draft; an unreadable one is said, and the console goes on. Used on a
    /// direct open and on every PR opened from the inbox.
    pub fn restore_saved(&mut self, saved: SavedDrafts) -> Vec<Effect> {
        let mut fx = Vec::new();
        let mut ctx = shell_ctx!(self, &mut fx);
        match saved.reply {
            Ok(Some(d)) => self.pr.event(Action::ReplyRestored(d), &mut ctx),
            Ok(None) => {}
            Err(e) => ctx.say(format!("the saved reply is unreadable: {e}")),
        }
        match saved.draft {
            Ok(Some(d)) => self.pr.event(Action::DraftRestored(d), &mut ctx),
            Ok(None) => {}
            Err(e) => ctx.say(format!("the saved draft is unreadable: {e}")),
        }
        fx
    }

    /// A fixture's later steps: what an earlier step shows is the past, and its markers never
    /// replace newer ones (call once the console opens on `step`).
    pub fn set_history(&mut self, fixture: &crate::source::Fixture) {
        if let Some((step, _)) = self.pr.list.step() {
            self.pr.list.ahead = later_versions(fixture, step);
        }
    }

    /// A console that opens on the inbox. The PR screen holds a placeholder until a PR is opened.
    pub fn with_inbox(inbox: InboxScreen, opts: Options) -> App {
        let mut app = App::new(
            crate::inbox::placeholder_snapshot(),
            SeenSet::default(),
            opts,
        );
        app.inbox = Some(inbox);
        app.screen = ScreenKind::Inbox;
        app
    }

    /// The highlight cache key for a thread: its id plus the hunk's hash.
    pub fn highlight_key(item: &Item) -> Option<String> {
        ItemList::highlight_key(item)
    }

    /// Maps a mouse event to an action (clicks and the wheel; the rest is ignored).
    pub fn mouse_action(ev: &MouseEvent) -> Option<Action> {
        let kind = match ev.kind {
            MouseEventKind::Down(MouseButton::Left) => MouseKind::Click,
            MouseEventKind::ScrollUp => MouseKind::ScrollUp,
            MouseEventKind::ScrollDown => MouseKind::ScrollDown,
            _ => return None,
        };
        Some(Action::Mouse {
            kind,
            column: ev.column,
            row: ev.row,
        })
    }

    /// A click or wheel step: the help overlay scrolls under the wheel; otherwise the pane under
    /// the pointer answers (other dialogs ignore the mouse).
    fn mouse(&mut self, kind: MouseKind, column: u16, row: u16) {
        let step = |s: usize, down: bool, max: usize| {
            if down {
                (s + 3).min(max)
            } else {
                s.saturating_sub(3)
            }
        };
        match (&self.mode, kind) {
            (InputMode::Help, MouseKind::ScrollUp | MouseKind::ScrollDown) => {
                let max = self.last_drawn.help_max_scroll;
                self.help_scroll = step(self.help_scroll, kind == MouseKind::ScrollDown, max);
                return;
            }
            (InputMode::Normal, _) => {}
            _ => return,
        }
        let at = ratatui::layout::Position { x: column, y: row };
        let d = self.last_drawn;
        match self.screen {
            ScreenKind::Inbox => {
                if let Some(inbox) = self.inbox.as_mut()
                    && d.list_area.contains(at)
                {
                    inbox.mouse(kind, usize::from(row - d.list_area.y));
                }
            }
            ScreenKind::Pr => {
                if d.list_area.contains(at) {
                    self.pr.mouse_list(kind, usize::from(row - d.list_area.y));
                } else if d.detail_area.contains(at) {
                    self.pr.mouse_detail(kind);
                }
            }
        }
    }

    /// Maps a key event to an action for the layer that has the keys.
    pub fn key_action(&self, keymap: &Keymap, ev: &KeyEvent) -> Option<Action> {
        use ratatui::crossterm::event::{KeyCode, KeyModifiers};
        if self.screen == ScreenKind::Inbox
            && self.mode == InputMode::Normal
            && (ev.modifiers - KeyModifiers::SHIFT).is_empty()
            && let KeyCode::Char(c @ ('s' | 'r')) = ev.code
        {
            return Some(Action::InboxKey(c));
        }
        self.mode.key_action(keymap, ev)
    }

    /// The screen on top asked to be left (`q`/`Esc` at its top level): the PR screen goes back
    /// to the inbox it was opened from; the inbox, or a PR screen opened on its own, quits.
    fn leave_screen(&mut self, fx: &mut Vec<Effect>) {
        match self.screen {
            ScreenKind::Pr if self.inbox.is_some() => self.back_to_inbox(fx),
            ScreenKind::Pr | ScreenKind::Inbox => self.quit = true,
        }
    }

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let mut fx = Vec::new();
        match action {
            Action::ForceQuit | Action::Command(KeyCommand::QuitAll) => self.quit = true,
            Action::Notice(n) => self.notice = Some(n),
            Action::Command(cmd) => {
                if cmd != KeyCommand::Help || self.mode != InputMode::Help {
                    self.notice = None;
                }
                if cmd == KeyCommand::Help && self.mode != InputMode::Help {
                    self.help_scroll = 0;
                }
                if !self.dialog_command(cmd) {
                    let mut ctx = shell_ctx!(self, &mut fx);
                    let running = self.pr.desk.progress.is_some();
                    match (self.screen, self.inbox.as_mut()) {
                        (ScreenKind::Inbox, Some(inbox)) if cmd == KeyCommand::Toggle => {
                            let chosen = inbox.selected_row().map(|r| r.listed.coords.clone());
                            match (chosen, inbox.open.clone()) {
                                // The PR still open behind the inbox: back to it as it was.
                                (Some(c), Some(o)) if c == o => self.screen = ScreenKind::Pr,
                                (Some(_), Some(o)) if running => ctx.say(format!(
                                    "a review is running on {o}: open it again, or wait for it to finish"
                                )),
                                _ => inbox.command(cmd, &mut ctx),
                            }
                        }
                        (ScreenKind::Inbox, Some(inbox)) => inbox.command(cmd, &mut ctx),
                        _ => self.pr.command(cmd, &mut ctx),
                    }
                    if ctx.leave {
                        self.leave_screen(&mut fx);
                    }
                }
            }
            a @ (Action::SearchInput(_)
            | Action::SearchBackspace
            | Action::SearchAccept
            | Action::SearchCancel)
                if self.screen == ScreenKind::Inbox =>
            {
                self.inbox_search(a)
            }
            a @ (Action::InboxListed { .. }
            | Action::InboxCounted { .. }
            | Action::InboxRecounted { .. }
            | Action::PrOpened(_)
            | Action::InboxKey(_)) => self.inbox_event(a, &mut fx),
            Action::Drawn(d) if self.screen == ScreenKind::Inbox => {
                self.last_drawn = d;
                self.help_scroll = self.help_scroll.min(d.help_max_scroll);
                if let Some(inbox) = self.inbox.as_mut() {
                    inbox.height = usize::from(d.list_height).max(1);
                }
            }
            a @ (Action::SearchInput(_)
            | Action::SearchBackspace
            | Action::SearchAccept
            | Action::SearchCancel
            | Action::FilterKey(_)
            | Action::EditKey(_)
            | Action::EditDone
            | Action::ReplyKey(_)
            | Action::ReplyClose
            | Action::Confirmed(_)) => self.dialog_action(a, &mut fx),
            Action::Mouse { kind, column, row } => self.mouse(kind, column, row),
            // Results and progress belong to the PR screen; its review progress also shows on
            // its inbox row.
            other => {
                if let Action::Drawn(d) = &other {
                    self.last_drawn = *d;
                    self.help_scroll = self.help_scroll.min(d.help_max_scroll);
                }
                if let (Action::ReviewProgress(p), Some(inbox)) = (&other, self.inbox.as_mut()) {
                    inbox.review_progress = p
                        .as_ref()
                        .map(|line| (self.pr.list.snapshot.pr.coords(), line.clone()));
                }
                let mut ctx = shell_ctx!(self, &mut fx);
                self.pr.event(other, &mut ctx);
            }
        }
        fx
    }
}

impl App {
    /// From the PR screen back to the inbox; its row is recounted from the ledger (after the
    /// markers in flight, which share the ordered lane).
    fn back_to_inbox(&mut self, fx: &mut Vec<Effect>) {
        self.quit = false;
        self.screen = ScreenKind::Inbox;
        self.mode = InputMode::Normal;
        fx.push(Effect::Recount {
            snapshot: Box::new(self.pr.list.snapshot.clone()),
        });
    }

    /// The search prompt while the inbox is on top: incremental over its rows.
    fn inbox_search(&mut self, action: Action) {
        let Some(inbox) = self.inbox.as_mut() else {
            return;
        };
        let InputMode::Search { query, before } = &mut self.mode else {
            return;
        };
        match action {
            Action::SearchInput(c) => query.push(c),
            Action::SearchBackspace => {
                query.pop();
            }
            Action::SearchAccept => {
                self.mode = InputMode::Normal;
                return;
            }
            Action::SearchCancel => {
                let before = *before;
                inbox.set_search("");
                inbox.selected = before;
                self.mode = InputMode::Normal;
                return;
            }
            _ => return,
        }
        let q = query.clone();
        inbox.set_search(&q);
    }

    /// The inbox's own results and keys.
    fn inbox_event(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let Some(inbox) = self.inbox.as_mut() else {
            return;
        };
        match action {
            Action::InboxListed { tab, result } => inbox.listed(tab, result),
            Action::InboxCounted {
                tab,
                rows,
                finished,
            } => inbox.counted(tab, rows, finished),
            Action::InboxRecounted {
                coords,
                items,
                shepherd,
            } => inbox.recounted(&coords, items, shepherd),
            Action::InboxKey('s') => {
                let mut ctx = shell_ctx!(self, fx);
                inbox.cycle_sort(&mut ctx);
            }
            Action::InboxKey('r') => {
                fx.push(Effect::LoadInbox);
                self.notice = Some("reloading the list…".to_owned());
            }
            Action::PrOpened(Ok(opened)) => {
                let coords = opened.snapshot.pr.coords();
                let same = inbox.open.as_ref() == Some(&coords);
                inbox.open = Some(coords);
                self.notice = None;
                if !same {
                    let OpenedPr {
                        snapshot,
                        seen,
                        saved,
                        marks,
                        ahead,
                    } = *opened;
                    let gates = self.pr.desk.gates().clone();
                    self.pr = PrScreen::new(
                        snapshot,
                        seen,
                        marks.err().or(self.marks_blocked.clone()),
                        gates,
                    );
                    self.pr.list.ahead = ahead;
                    fx.extend(self.restore_saved(saved));
                }
                self.screen = ScreenKind::Pr;
            }
            Action::PrOpened(Err(why)) => {
                self.notice = Some(format!("cannot open the PR: {why}"));
            }
            _ => {}
        }
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
                gates: Default::default(),
            },
        )
    }

    fn cmd(app: &mut App, c: KeyCommand) -> Vec<Effect> {
        app.update(Action::Command(c))
    }

    #[test]
    fn the_console_applies_the_configured_gates() {
        let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap();
        let mut snap = f.snapshot_at(0).unwrap();
        snap.pr.labels = vec!["keep-out".into()];
        let app = |gates: crate::policy::GateConfig| {
            App::new(
                snap.clone(),
                SeenSet::default(),
                Options {
                    now: 0,
                    marks: Ok(()),
                    gates,
                },
            )
        };
        assert!(app(Default::default()).gate().unwrap().post);
        let never = crate::policy::GateConfig {
            never_label: "keep-out".into(),
            ..Default::default()
        };
        let a = app(never);
        let gate = a.gate().unwrap();
        assert!(!gate.post);
        assert!(gate.reason.contains("keep-out"), "{}", gate.reason);
    }

    #[test]
    fn rows_are_grouped_and_first_item_selected() {
        let app = demo();
        assert_eq!(app.row_count(), 18 + 3);
        assert_eq!(app.row(0), Some(Row::Group(Group::Threads)));
        assert_eq!(app.selected_row(), Some(1));
        assert_eq!(app.counts().unwrap().new, 18);
        assert_eq!(app.counts().unwrap().groups[0].0, 7);
    }

    #[test]
    fn navigation_clamps() {
        let mut app = demo();
        cmd(&mut app, KeyCommand::Up);
        cmd(&mut app, KeyCommand::Up);
        assert_eq!(app.selected_row(), Some(0));
        cmd(&mut app, KeyCommand::Bottom);
        assert_eq!(app.selected_row(), Some(app.row_count() - 1));
        cmd(&mut app, KeyCommand::Down);
        assert_eq!(app.selected_row(), Some(app.row_count() - 1));
        cmd(&mut app, KeyCommand::Top);
        assert_eq!(app.selected_row(), Some(0));
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
            detail_scroll: 0,
            ..Drawn::default()
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
        let before = app.row_count();
        app.update(Action::Command(KeyCommand::Filter));
        app.update(Action::FilterKey('r'));
        // Everything is new and unseen: nothing may be hidden yet.
        assert_eq!(app.row_count(), before);
        app.update(Action::FilterKey('n'));
        assert_eq!(app.row_count(), 3);
        app.update(Action::FilterKey('a'));
        assert_eq!(app.row_count(), before);
        app.update(Action::FilterKey('\u{1b}'));
        assert_eq!(*app.mode(), InputMode::Normal);
    }

    #[test]
    fn search_incremental_and_cancel() {
        let mut app = demo();
        let start = app.selected_row().unwrap();
        app.update(Action::Command(KeyCommand::Search));
        for c in "tsx".chars() {
            app.update(Action::SearchInput(c));
        }
        let item = app.selected_item().unwrap();
        assert!(item.location().unwrap_or_default().contains(".tsx"));
        app.update(Action::SearchCancel);
        assert_eq!(app.selected_row(), Some(start));
    }

    #[test]
    fn back_unwinds_then_quits() {
        let mut app = demo();
        cmd(&mut app, KeyCommand::Focus);
        cmd(&mut app, KeyCommand::Toggle);
        cmd(&mut app, KeyCommand::Back);
        assert!(!app.zoomed() && app.focus().unwrap() == Focus::Detail);
        cmd(&mut app, KeyCommand::Back);
        assert_eq!(app.focus(), Some(Focus::List));
        assert!(!app.quitting());
        cmd(&mut app, KeyCommand::Back);
        assert!(app.quitting());
    }

    #[test]
    fn edit_waits_for_a_running_review_and_stale_events_are_ignored() {
        let mut app = demo();
        let fx = cmd(&mut app, KeyCommand::Review);
        assert!(matches!(
            fx.as_slice(),
            [Effect::StartReview { seq: 1, .. }]
        ));
        cmd(&mut app, KeyCommand::Edit);
        assert_eq!(*app.mode(), InputMode::Normal);
        assert!(app.notice().unwrap().contains("review is running"));
        // A second r starts run 2; run 1's events no longer count.
        cmd(&mut app, KeyCommand::FullReview);
        app.update(Action::Review {
            seq: 1,
            event: ReviewEvent::Cancelled {
                aspect: crate::review::Aspect::Perf,
            },
        });
        let run = app.run().unwrap();
        assert_eq!(run.seq, 2);
        assert!(run.full);
        assert!(
            run.aspects
                .iter()
                .all(|(_, v)| *v == super::super::review::AspectView::Queued)
        );
    }

    #[test]
    fn a_post_in_flight_holds_a_second_post_and_edits_until_it_answers() {
        let mut app = demo();
        let head_sha = app.pr_meta().unwrap().head_sha.clone();
        app.update(Action::DraftRestored(Draft {
            body: "## PR Shepherd Review\n\nok".to_owned(),
            head_sha,
            saved_at: 0,
        }));
        app.mode = InputMode::Confirm(crate::tui::review::Confirm::Post(PostPreview {
            target: "acme/rivet#482".to_owned(),
            update: None,
            chars: 1,
            destination: "the outbox".to_owned(),
        }));
        let fx = app.update(Action::Confirmed(true));
        assert!(matches!(fx.as_slice(), [Effect::Post { .. }]));
        assert!(cmd(&mut app, KeyCommand::Post).is_empty());
        assert!(app.notice().unwrap().contains("on its way"));
        cmd(&mut app, KeyCommand::Edit);
        assert_eq!(*app.mode(), InputMode::Normal);
        let fx = app.update(Action::Posted(Err("offline".to_owned())));
        assert!(fx.is_empty());
        assert!(!app.posting());
        assert!(app.notice().unwrap().contains("the draft is kept"));
    }

    #[test]
    fn collapse_group() {
        let mut app = demo();
        cmd(&mut app, KeyCommand::Top);
        cmd(&mut app, KeyCommand::Toggle);
        assert_eq!(app.row_count(), 18 + 3 - 7);
        assert_eq!(app.selected_row(), Some(0));
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use crate::source::synth::{SynthSpec, synth};
    use proptest::prelude::*;

    const CMDS: &[KeyCommand] = &[
        KeyCommand::Down,
        KeyCommand::Up,
        KeyCommand::Top,
        KeyCommand::Bottom,
        KeyCommand::PageDown,
        KeyCommand::PageUp,
        KeyCommand::Toggle,
        KeyCommand::Focus,
        KeyCommand::NextNew,
        KeyCommand::PrevNew,
        KeyCommand::Back,
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
                Options { now: 0, marks: Ok(()), gates: Default::default() },
            );
            app.update(Action::Drawn(Drawn { shown: None, list_height: height, detail_height: 10, detail_lines: 50, detail_scroll: 0, ..Drawn::default() }));
            for (k, filter) in keys {
                app.update(Action::Command(CMDS[k]));
                if let Some(c) = filter.and_then(|s| s.chars().next()) {
                    app.update(Action::Command(KeyCommand::Filter));
                    app.update(Action::FilterKey(c));
                    app.update(Action::FilterKey('\u{1b}'));
                }
                app.quit = false;
                prop_assert!(app.selected_row().unwrap() < app.row_count());
                prop_assert!(app.list_offset().unwrap() <= app.selected_row().unwrap());
                prop_assert!(app.selected_row().unwrap() < app.list_offset().unwrap() + usize::from(height));
                prop_assert!(app.detail_scroll().unwrap() <= 50);
            }
        }
    }
}
