//! Console state and its one entry point, [`App::update`]: pure (no I/O, no clock, no terminal).
//!
//! `update` takes an [`Action`] and returns the [`Effect`]s the effect runner must perform (write
//! seen markers, open a URL, load a fixture step, highlight a hunk, post, a screen's own
//! [`Work`]), each stamped with the screen that asked ([`Asked`]). Their results come back as
//! actions addressed to that screen ([`Action::For`]). Tests drive the same functions with a
//! synchronous effect runner, and ask [`App`] what it shows (`query.rs`). A screen's `work.rs`
//! (its I/O edge) is performed only by the runner.
//!
//! `App` is the router: a stack of [`Screen`]s (the one on top has the keys and is drawn), the
//! dialog layer above it, the notice, and the [`Session`] it lends to every screen.
//!
//! ```text
//! App (router)                          mod.rs
//! ├── session: Session                  ../session.rs  now, gates, identity, remote, marks blocked
//! ├── mode: InputMode                   dialogs.rs     search, filter, help, editor, question
//! ├── stack: [(ScreenId, Screen)]       screen.rs      the trait, Ctx (what a screen may touch)
//! │   ├── InboxScreen                   inbox/         rows in tabs; opens a PrScreen above it
//! │   ├── PrScreen                      pr/            one PR: list, marks, review desk, threads
//! │   ├── PendingScreen                 pending/       the pending review: comments, drafts, submit
//! │   ├── ChecksScreen                  checks/        the checks at the head, annotations, re-run
//! │   └── CommitsScreen                 commits/       the PR's commits, one commit's diff
//! └── kept: [(ScreenId, Screen)]        screens left (a PR left for the inbox): work goes on
//! action.rs   Action, Drawn, …          effect.rs      Effect, Asked, Effect::lane
//! work.rs     Work, Job, Done, Io, Lane (a screen's own effects and results)
//! ```
//!
//! Commands go to the screen on top; what it does not consume the router answers (`?` opens the
//! screen's help, `q`/`Esc` leave it). One routing rule for results: each goes to the screen
//! whose id its effect carried, on the stack or kept, whatever is on top, and to no other (the
//! router never branches on a screen's type). Dialogs stay a layer above
//! whichever screen is shown.

/// The [`Ctx`] over the router's shell (notice, dialog layer, session, kept screens) for effects
/// pushed to `$fx`; a macro so the borrows stay per field and a screen of the stack can be
/// borrowed beside it.
macro_rules! ctx {
    ($app:ident, $fx:expr, $id:expr) => {
        Ctx::new(
            &mut $app.notice,
            &mut $app.mode,
            $fx,
            &$app.session,
            &$app.kept,
            $id,
        )
    };
}

mod action;
pub mod ask;
pub mod checks;
pub mod code;
pub mod commits;
pub mod decide;
mod dialogs;
mod effect;
pub mod inbox;
mod messages;
mod opened;
pub mod pending;
pub mod pr;
mod query;
mod screen;
pub mod unsent;
pub mod work;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::keymap::{KeyCommand, Keymap};
use super::session::Session;
use super::theme::Theme;
use super::ui;
use crate::ledger::SeenSet;
use crate::pr::{Item, PrCoords, Snapshot};

pub use action::{
    Action, Ahead, Drawn, EditTarget, MouseKind, OpenedPr, SavedDrafts, StepData, later_versions,
};
pub use checks::{ChecksLoad, ChecksScreen, RerunAsk};
pub use code::{CodeLoad, DescriptionScreen, DiffScreen, FileState, FilesScreen};
pub use decide::{DecideAsk, DecideScreen, Decision};
pub use dialogs::InputMode;
pub use effect::{Asked, Effect, Lane};
pub use inbox::{InboxFilter, InboxScreen, InboxTab};
pub use messages::MessageLog;
pub use opened::{open_pr, saved_drafts};
pub use pending::{
    Ask as PendingAsk, Editing, PendingEdit, PendingScreen, SubmitAs, SubmitAsk,
    compose_line_comment,
};
pub use pr::{
    Ask as PrAsk, CommentAsk, Counts, Filter, Focus, Group, ItemList, Marks, Pane, PrScreen,
    ReplyView, ReviewDesk, Row, ThreadAsk, ThreadDesk, console_gate,
};
pub use screen::{Asking, Ctx, Handled, Screen, ScreenId, SearchStep, View};
pub use work::{Done, Io, Job, Said, Work};

use screen::{Placed, StackOp};

/// What `Esc` says at the bottom screen, where it has nothing left to close (it never quits).
pub const NOTHING_TO_CLOSE: &str = "nothing to close here: q or Ctrl-c quits";

/// The router: the stack of screens, the dialog layer above it, and what every screen shares.
#[derive(Debug)]
pub struct App {
    session: Session,
    /// Bottom first; the last one is shown and has the keys.
    stack: Vec<Placed>,
    /// Screens left for the one below them, kept until another screen is opened: their work
    /// goes on, their results still reach them, and they can be brought back as they were.
    kept: Vec<Placed>,
    /// The last [`ScreenId`] given (0 is the router's own).
    last_id: u64,
    pub(crate) mode: InputMode,
    /// The status line's text: the latest notice or note, until the next command.
    notice: Option<String>,
    /// Every notice and note of the session, whole (the `messages` overlay).
    log: MessageLog,
    pub(crate) quit: bool,
    /// The help (or message log) overlay's scroll position (reset when it opens).
    help_scroll: usize,
    /// What the last frame showed (for the help overlay's scroll limits and the mouse).
    last_drawn: Drawn,
    /// The console's clock, from the last [`Action::Tick`] (milliseconds).
    clock_ms: i64,
    /// The PRs whose screens were opened this session (the quit question looks at their unsent
    /// work in the state dir, whether their screens are still alive or not).
    visited: Vec<PrCoords>,
    /// Quitting was asked and the state dir is being read for unsent work
    /// ([`Effect::ScanUnsent`]); its answer asks or quits.
    quit_scan: bool,
}

impl App {
    /// A console on `screen`, the bottom of the stack.
    pub fn with_screen(screen: Box<dyn Screen>, session: Session) -> App {
        App {
            session,
            stack: vec![Placed {
                id: ScreenId(1),
                screen,
            }],
            kept: Vec::new(),
            last_id: 1,
            mode: InputMode::Normal,
            notice: None,
            log: MessageLog::default(),
            quit: false,
            help_scroll: 0,
            last_drawn: Drawn::default(),
            clock_ms: 0,
            visited: Vec::new(),
            quit_scan: false,
        }
    }

    /// A console on one PR (the session's marks-blocked reason applies to it).
    pub fn new(snapshot: Snapshot, seen: SeenSet, session: Session) -> App {
        let problems = seen.problems.len();
        let pr = PrScreen::new(
            snapshot,
            seen,
            session.marks_blocked.clone(),
            &session.gates,
            session.identity(),
        );
        let mut app = App::with_screen(Box::new(pr), session);
        app.notice = (problems > 0).then(|| {
            format!(
                "{} could not be read; their items count as new",
                crate::output::plural::count(problems, "marker file")
            )
        });
        app
    }

    /// A console that opens on the inbox; a PR opens above it.
    pub fn with_inbox(inbox: InboxScreen, session: Session) -> App {
        App::with_screen(Box::new(inbox), session)
    }

    /// What the screens share.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, to change where writes go (tests: a live remote on a harness).
    pub(crate) fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Brings back what the PR on the PR screen kept from an earlier session: its unsent thread
    /// reply and its review draft; an unreadable one is said, and the console goes on. Used on a
    /// direct open (a PR opened from the inbox gets its own when it opens): delivered to the
    /// screen on top, the one the console opened on.
    pub fn restore_saved(&mut self, saved: SavedDrafts) -> Vec<Asked> {
        let mut fx = Vec::new();
        if let Some(top) = self.stack.last().map(|s| s.id) {
            self.deliver(top, Action::SavedFound(Box::new(saved)), &mut fx);
        }
        fx
    }

    /// A fixture's later steps: what an earlier step shows is the past, and its markers never
    /// replace newer ones (call once the console opens on `step`).
    pub fn set_history(&mut self, fixture: &crate::source::Fixture) {
        let Some(top) = self.stack.last() else { return };
        let Some(crate::pr::Origin::Fixture { step, .. }) = top.snapshot().map(|s| &s.origin)
        else {
            return;
        };
        let (id, ahead) = (top.id, later_versions(fixture, *step));
        let mut fx = Vec::new();
        self.deliver(id, Action::LaterVersions(Box::new(ahead)), &mut fx);
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

    /// Maps a key event to an action for the layer that has the keys: the screen on top's own
    /// keys first when no dialog is open, then the dialog layer and the keymap.
    pub fn key_action(&self, keymap: &Keymap, ev: &KeyEvent) -> Option<Action> {
        if self.mode == InputMode::Normal
            && let Some(a) = self.stack.last().and_then(|s| s.key(ev))
        {
            return Some(a);
        }
        // A question answers as its dialog says (a refusal closes on any key, as a no).
        if !dialogs::force_quit(ev)
            && let Some(q) = self.question()
        {
            return Some(Action::Confirmed(q.says_yes(ev)));
        }
        self.mode.key_action(keymap, ev)
    }

    pub fn update(&mut self, action: Action) -> Vec<Asked> {
        // Whoever set the notice (the router, a screen through its Ctx, a note from outside),
        // the message log keeps it whole.
        let before = self.notice.clone();
        let fx = self.update_inner(action);
        if self.notice != before
            && let Some(n) = &self.notice
        {
            self.log.push(n);
        }
        fx
    }

    fn update_inner(&mut self, action: Action) -> Vec<Asked> {
        let mut fx = Vec::new();
        match action {
            Action::ForceQuit | Action::Command(KeyCommand::QuitAll) => self.ask_to_quit(&mut fx),
            Action::Notice(n) => self.notice = Some(n),
            Action::Command(cmd) => self.command(cmd, None, &mut fx),
            Action::SharedKey(cmd, second) => self.command(cmd, Some(second), &mut fx),
            a @ (Action::SearchInput(_)
            | Action::SearchBackspace
            | Action::SearchAccept
            | Action::SearchCancel) => self.search_input(a, &mut fx),
            a @ (Action::FilterKey(_)
            | Action::EditKey(_)
            | Action::EditDone
            | Action::ReplyKey(_)
            | Action::ReplyClose) => {
                self.on_top(&mut fx, |s, ctx| s.dialog(a, ctx));
            }
            Action::Confirmed(yes) => match std::mem::replace(&mut self.mode, InputMode::Normal) {
                InputMode::ConfirmQuit { .. } if yes => self.quit = true,
                InputMode::ConfirmQuit { .. } => self.notice = Some("not quitting".into()),
                // The question is the screen's that asked it: the one on top (it is modal).
                InputMode::Asked => self.on_top(&mut fx, |s, ctx| s.answered(yes, ctx)),
                other => self.mode = other,
            },
            Action::Tick { now_ms } => {
                self.clock_ms = now_ms;
                // Relative times and saved-at stamps follow the clock (never backwards: a
                // test's injected clock may start below the session's fixed now).
                self.session.now = self.session.now.max(now_ms.div_euclid(1000));
                for at in 0..self.stack.len() {
                    let (id, mut own) = (self.stack[at].id, Vec::new());
                    let mut ctx = ctx!(self, &mut own, id);
                    self.stack[at].tick(now_ms, &mut ctx);
                    stamp(id, own, &mut fx);
                }
            }
            Action::Drawn(mut d) => {
                d.at_ms = self.clock_ms;
                self.last_drawn = d;
                self.help_scroll = self.help_scroll.min(d.help_max_scroll);
                self.on_top(&mut fx, |s, ctx| s.drawn(d, ctx));
            }
            Action::Mouse { kind, column, row } => self.mouse(kind, column, row),
            Action::For { screen, action } => self.deliver(screen, *action, &mut fx),
            // A key of the top screen's own (`Screen::key`): input, for the screen on top.
            a @ (Action::PendingKey(_) | Action::ScreenKey(_)) => {
                self.on_top(&mut fx, |s, ctx| {
                    let _ = s.event(a, ctx);
                });
            }
            // A result is always addressed (see `Asked`); one that is not is no screen's.
            _ => {}
        }
        fx
    }

    /// Draws the screen on top, the status line below it while there is something to say, and
    /// the dialog layer above both; reports what was shown.
    pub fn draw(&self, frame: &mut Frame, theme: &Theme, keymap: &Keymap) -> Drawn {
        let mut area = frame.area();
        if ui::too_small(area) {
            ui::draw_too_small(frame, area, theme);
            return Drawn::default();
        }
        // The status line takes the last row; the screen draws above it and shows no notice
        // of its own (a notice is one line here, whole in the message log).
        if let Some(n) = &self.notice {
            let row = ratatui::layout::Rect {
                y: area.y + area.height - 1,
                height: 1,
                ..area
            };
            ui::draw_status(frame, row, n, keymap, theme);
            area.height -= 1;
        }
        let Some(top) = self.stack.last() else {
            return Drawn::default();
        };
        let background: Vec<(PrCoords, String)> = self
            .kept
            .iter()
            .filter_map(|s| Some((s.subject()?, s.activity()?)))
            .collect();
        let view = View {
            mode: &self.mode,
            notice: None,
            session: &self.session,
            theme,
            keymap,
            background: &background,
            below: self.stack.len() > 1,
        };
        let mut drawn = top.draw(frame, area, &view);
        match &self.mode {
            InputMode::Help => {
                let entries = top.help(keymap);
                let (max, h) = ui::draw_help(frame, area, theme, &entries, self.help_scroll);
                drawn.help_max_scroll = max;
                drawn.help_height = h;
            }
            InputMode::Messages => {
                let (max, h) = ui::draw_messages(
                    frame,
                    frame.area(),
                    theme,
                    keymap,
                    self.log.entries(),
                    self.help_scroll,
                );
                drawn.help_max_scroll = max;
                drawn.help_height = h;
            }
            InputMode::Asked | InputMode::ConfirmQuit { .. } => {
                if let Some(q) = self.question() {
                    ui::draw_dialog(frame, area, &q, theme);
                }
            }
            _ => {}
        }
        // An overlay covers the detail pane: nothing there counts as shown.
        if matches!(
            self.mode,
            InputMode::Help
                | InputMode::Messages
                | InputMode::Filter
                | InputMode::Asked
                | InputMode::ConfirmQuit { .. }
        ) {
            drawn.shown = None;
        }
        drawn
    }
}

impl App {
    /// Calls the screen on top with a [`Ctx`], then applies what it asked of the stack.
    fn on_top<R: Default>(
        &mut self,
        fx: &mut Vec<Asked>,
        f: impl FnOnce(&mut dyn Screen, &mut Ctx<'_>) -> R,
    ) -> R {
        let at = self.stack.len().saturating_sub(1);
        let Some(top) = self.stack.last_mut() else {
            return R::default();
        };
        let (id, mut own) = (top.id, Vec::new());
        let mut ctx = ctx!(self, &mut own, id);
        let r = f(top.screen.as_mut(), &mut ctx);
        let op = ctx.take_op();
        stamp(id, own, fx);
        if let Some(op) = op {
            self.apply(at, op, fx);
        }
        r
    }

    /// Puts `screen` on top of the stack with a new id; it asks for what it reads (its
    /// effects, stamped with that id).
    fn place(&mut self, screen: Box<dyn Screen>) -> Vec<Asked> {
        self.last_id += 1;
        let id = ScreenId(self.last_id);
        self.stack.push(Placed { id, screen });
        let (mut own, mut fx) = (Vec::new(), Vec::new());
        if let Some(new) = self.stack.last_mut() {
            let mut ctx = ctx!(self, &mut own, id);
            new.opened(&mut ctx);
        }
        stamp(id, own, &mut fx);
        fx
    }

    /// A stack request of the screen at `at`.
    fn apply(&mut self, at: usize, op: StackOp, fx: &mut Vec<Asked>) {
        match op {
            StackOp::Open(screen) => {
                // Screens above the one asking leave; a busy one (a review running, a post on
                // its way) or one holding an unsent draft or reply is kept with its work, the
                // others close. A screen of the PR being
                // opened is replaced by the new one.
                let subject = screen.subject();
                if let Some(pr) = &subject
                    && !self.visited.contains(pr)
                {
                    self.visited.push(pr.clone());
                }
                let above: Vec<_> = self.stack.drain(at + 1..).collect();
                self.kept.extend(above);
                self.kept.retain(|s| {
                    (s.busy() || !s.at_stake().is_empty())
                        && (subject.is_none() || s.subject() != subject)
                });
                let asked = self.place(screen);
                fx.extend(asked);
            }
            StackOp::Leave => {
                if at + 1 == self.stack.len() {
                    self.leave(fx);
                }
            }
            StackOp::Resume(pr) => {
                if let Some(i) = self
                    .kept
                    .iter()
                    .position(|s| s.subject().as_ref() == Some(&pr))
                {
                    let mut screen = self.kept.remove(i);
                    let mut own = Vec::new();
                    let mut ctx = ctx!(self, &mut own, screen.id);
                    screen.resumed(&mut ctx);
                    stamp(screen.id, own, fx);
                    self.stack.push(screen);
                }
            }
        }
    }

    /// A command from the keymap: help answers it while open; else the screen on top, and what
    /// it does not consume the router answers.
    /// `cmd`, or where the screen on top does not answer it, `second` (a shared key's).
    fn command(&mut self, cmd: KeyCommand, second: Option<KeyCommand>, fx: &mut Vec<Asked>) {
        if cmd != KeyCommand::Help || self.mode != InputMode::Help {
            self.notice = None;
        }
        if cmd == KeyCommand::Help && self.mode != InputMode::Help {
            self.help_scroll = 0;
        }
        if cmd == KeyCommand::Messages && self.mode == InputMode::Normal {
            // The log opens on its newest message (the draw clamps the scroll).
            self.help_scroll = usize::MAX;
            self.mode = InputMode::Messages;
            return;
        }
        if self.dialog_command(cmd) {
            return;
        }
        if self.on_top(fx, |s, ctx| s.command(cmd, ctx)) == Handled::Consumed {
            return;
        }
        if let Some(second) = second
            && self.on_top(fx, |s, ctx| s.command(second, ctx)) == Handled::Consumed
        {
            return;
        }
        match cmd {
            KeyCommand::Help => self.mode = InputMode::Help,
            KeyCommand::Quit => self.leave(fx),
            // Esc closes the innermost thing; at the bottom screen there is nothing left to
            // close, and it never quits (leaving a search must not end the session).
            KeyCommand::Back if self.stack.len() < 2 => {
                self.notice = Some(NOTHING_TO_CLOSE.to_owned());
            }
            KeyCommand::Back => self.leave(fx),
            _ => {}
        }
    }

    /// What quitting now would cost, over every screen alive (shown or kept).
    pub fn at_stake(&self) -> Vec<String> {
        self.stack
            .iter()
            .chain(&self.kept)
            .flat_map(|s| s.at_stake())
            .collect()
    }

    /// The PRs of the session: those the screens alive show or list (the inbox's rows) and
    /// those opened since the console started.
    fn session_prs(&self) -> Vec<PrCoords> {
        let mut prs: Vec<PrCoords> = Vec::new();
        let alive = self
            .stack
            .iter()
            .chain(&self.kept)
            .flat_map(|s| s.session_prs());
        for pr in alive.chain(self.visited.iter().cloned()) {
            if !prs.contains(&pr) {
                prs.push(pr);
            }
        }
        prs
    }

    /// Quits, or first asks when a review is running or something is unsent (naming it): the
    /// state dir is read first for what the session's PRs hold unsent (restored from an earlier
    /// session or saved by screens since closed), and its answer asks or quits. Asked again
    /// while the question is open or being prepared (a second Ctrl-c), it quits.
    fn ask_to_quit(&mut self, fx: &mut Vec<Asked>) {
        if self.quit_scan || matches!(self.mode, InputMode::ConfirmQuit { .. }) {
            self.quit = true;
            return;
        }
        self.quit_scan = true;
        fx.push(Asked {
            by: ScreenId::ROUTER,
            effect: Effect::ScanUnsent {
                prs: self.session_prs(),
            },
        });
    }

    /// What the state dir holds unsent, read for the quit question: with what the screens
    /// alive say, asks (naming each thing), or quits when there is nothing.
    fn unsent_scanned(&mut self, disk: Vec<unsent::UnsentWork>) {
        if !std::mem::take(&mut self.quit_scan) {
            return;
        }
        let alive = self
            .stack
            .iter()
            .chain(&self.kept)
            .map(|s| (s.subject(), s.holds_unsent(), s.at_stake()))
            .collect();
        let lost = unsent::merge(alive, &disk);
        if lost.is_empty() {
            self.quit = true;
        } else {
            self.mode = InputMode::ConfirmQuit { lost };
        }
    }

    /// Leaves the screen on top: back to the one below (the left one is kept), or quits at the
    /// bottom (asking first when that would lose something).
    fn leave(&mut self, fx: &mut Vec<Asked>) {
        if self.stack.len() < 2 {
            self.ask_to_quit(fx);
            return;
        }
        self.quit = false;
        self.mode = InputMode::Normal;
        if let Some(mut left) = self.stack.pop() {
            let mut own = Vec::new();
            let mut ctx = ctx!(self, &mut own, left.id);
            left.left(&mut ctx);
            stamp(left.id, own, fx);
            // The screen below is on top again: it hears what was left (the inbox recounts
            // that PR's row).
            if let Some(below) = self.stack.last_mut() {
                let (id, mut own) = (below.id, Vec::new());
                let mut ctx = ctx!(self, &mut own, id);
                below.uncovered(left.screen.as_ref(), &mut ctx);
                stamp(id, own, fx);
            }
            self.kept.push(left);
        }
    }

    /// The search prompt's input: the router keeps the text, the screen on top follows it.
    fn search_input(&mut self, action: Action, fx: &mut Vec<Asked>) {
        let InputMode::Search { query, before } = &mut self.mode else {
            if matches!(action, Action::SearchAccept | Action::SearchCancel) {
                self.mode = InputMode::Normal;
            }
            return;
        };
        let before = *before;
        match action {
            Action::SearchInput(c) => query.push(c),
            Action::SearchBackspace => {
                query.pop();
            }
            _ => {}
        }
        let query = query.clone();
        match action {
            Action::SearchAccept => {
                self.mode = InputMode::Normal;
                self.on_top(fx, |s, ctx| s.search(SearchStep::Accepted(&query), ctx));
            }
            Action::SearchCancel => {
                self.mode = InputMode::Normal;
                self.on_top(fx, |s, ctx| s.search(SearchStep::Cancelled { before }, ctx));
            }
            _ => {
                let step = SearchStep::Changed {
                    query: &query,
                    before,
                };
                self.on_top(fx, |s, ctx| s.search(step, ctx));
            }
        }
    }

    /// A result or progress event for the screen `to` (the one that asked for it): to that
    /// screen, on the stack or kept, whatever is on top now, and to no other. The router's own
    /// results it answers itself. With that screen gone, the result is dropped (a notice is
    /// still said).
    fn deliver(&mut self, to: ScreenId, action: Action, fx: &mut Vec<Asked>) {
        if to == ScreenId::ROUTER {
            match action {
                Action::UnsentScanned(disk) => self.unsent_scanned(disk),
                Action::Notice(n) => self.notice = Some(n),
                _ => {}
            }
            return;
        }
        let mut own = Vec::new();
        if let Some(at) = self.stack.iter().position(|s| s.id == to) {
            let mut ctx = ctx!(self, &mut own, to);
            let _ = self.stack[at].event(action, &mut ctx);
            let op = ctx.take_op();
            stamp(to, own, fx);
            if let Some(op) = op {
                self.apply(at, op, fx);
            }
            return;
        }
        if let Some(screen) = self.kept.iter_mut().find(|s| s.id == to) {
            // A kept screen is not shown: it cannot ask the stack for anything.
            let mut ctx = Ctx::new(
                &mut self.notice,
                &mut self.mode,
                &mut own,
                &self.session,
                &[],
                to,
            );
            let _ = screen.event(action, &mut ctx);
            stamp(to, own, fx);
            return;
        }
        if let Action::Notice(n) = action {
            self.notice = Some(n);
        }
    }

    /// A click or wheel step: the help overlay scrolls under the wheel; otherwise the screen on
    /// top answers (other dialogs ignore the mouse).
    fn mouse(&mut self, kind: MouseKind, column: u16, row: u16) {
        match (&self.mode, kind) {
            (InputMode::Help, MouseKind::ScrollUp | MouseKind::ScrollDown) => {
                let max = self.last_drawn.help_max_scroll;
                self.help_scroll = if kind == MouseKind::ScrollDown {
                    (self.help_scroll + 3).min(max)
                } else {
                    self.help_scroll.saturating_sub(3)
                };
                return;
            }
            (InputMode::Normal, _) => {}
            _ => return,
        }
        let d = self.last_drawn;
        if let Some(top) = self.stack.last_mut() {
            top.mouse(kind, Position { x: column, y: row }, &d);
        }
    }
}

/// The effects a screen pushed through its [`Ctx`], stamped with its id, into `out`.
fn stamp(by: ScreenId, own: Vec<Effect>, out: &mut Vec<Asked>) {
    out.extend(own.into_iter().map(|effect| Asked { by, effect }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Draft;
    use crate::review::ReviewEvent;
    use crate::source::{DEMO_FIXTURE, Fixture};
    use crate::tui::review::PostPreview;
    use std::path::Path;

    fn demo() -> App {
        let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap();
        App::new(
            f.snapshot_at(0).unwrap(),
            SeenSet::default(),
            Session {
                now: 1_764_000_000,
                ..Session::default()
            },
        )
    }

    fn cmd(app: &mut App, c: KeyCommand) -> Vec<Effect> {
        bare(app.update(Action::Command(c)))
    }

    /// What was asked, without who asked.
    fn bare(fx: Vec<Asked>) -> Vec<Effect> {
        fx.into_iter().map(|a| a.effect).collect()
    }

    /// `action` as a result for the screen on top (the one that asked, in these tests).
    fn to_top(app: &App, action: Action) -> Action {
        Action::to(app.top_id(), action)
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
                Session {
                    now: 0,
                    gates,
                    ..Session::default()
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
            bare(app.update(Action::Drawn(Drawn::default())))
                .iter()
                .all(|e| !matches!(e.work(), Some(pr::Work::MarkSeen { .. })))
        );
        let d = Drawn {
            shown: Some(0),
            list_height: 10,
            detail_height: 10,
            detail_lines: 5,
            detail_scroll: 0,
            ..Drawn::default()
        };
        let fx = bare(app.update(Action::Drawn(d)));
        let marks: Vec<_> = fx
            .iter()
            .filter(|e| matches!(e.work(), Some(pr::Work::MarkSeen { .. })))
            .collect();
        assert_eq!(marks.len(), 1);
        // A second frame while the write is pending asks for nothing more.
        let fx = bare(app.update(Action::Drawn(d)));
        assert!(
            fx.iter()
                .all(|e| !matches!(e.work(), Some(pr::Work::MarkSeen { .. })))
        );
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

    /// Esc unwinds what is open and never quits: at the bottom screen it says how to quit.
    #[test]
    fn back_unwinds_and_never_quits() {
        let mut app = demo();
        cmd(&mut app, KeyCommand::Focus);
        cmd(&mut app, KeyCommand::Toggle);
        cmd(&mut app, KeyCommand::Back);
        assert!(!app.zoomed() && app.focus().unwrap() == Focus::Detail);
        cmd(&mut app, KeyCommand::Back);
        assert_eq!(app.focus(), Some(Focus::List));
        assert!(!app.quitting());
        cmd(&mut app, KeyCommand::Back);
        assert!(!app.quitting());
        assert_eq!(app.notice(), Some(NOTHING_TO_CLOSE));
        let fx = cmd(&mut app, KeyCommand::Quit);
        assert!(
            matches!(fx.as_slice(), [Effect::ScanUnsent { prs }] if prs.len() == 1),
            "{fx:?}"
        );
        assert!(!app.quitting(), "not before the state dir was read");
        app.update(Action::to(
            ScreenId::ROUTER,
            Action::UnsentScanned(Vec::new()),
        ));
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
        app.update(Action::For {
            screen: app.top_id(),
            action: Box::new(Action::Review {
                seq: 1,
                event: ReviewEvent::Cancelled {
                    aspect: crate::review::Aspect::Perf,
                },
            }),
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
        app.update(to_top(
            &app,
            Action::DraftRestored(Draft {
                body: "## PR Shepherd Review\n\nok".to_owned(),
                head_sha,
                saved_at: 0,
            }),
        ));
        app.update(to_top(
            &app,
            Action::Done(crate::tui::app::Done::new(
                crate::tui::app::pr::Done::PostPlanned(Ok(PostPreview {
                    target: "acme/rivet#482".to_owned(),
                    update: None,
                    chars: 1,
                    destination: "the outbox".to_owned(),
                    incomplete: None,
                })),
            )),
        ));
        assert_eq!(*app.mode(), InputMode::Asked);
        let fx = bare(app.update(Action::Confirmed(true)));
        assert!(
            matches!(fx.as_slice(), [e] if matches!(e.work(), Some(crate::tui::app::pr::Work::Post { .. })))
        );
        assert!(cmd(&mut app, KeyCommand::Post).is_empty());
        assert!(app.notice().unwrap().contains("on its way"));
        cmd(&mut app, KeyCommand::Edit);
        assert_eq!(*app.mode(), InputMode::Normal);
        let fx = app.update(to_top(
            &app,
            Action::Done(crate::tui::app::Done::new(
                crate::tui::app::pr::Done::Posted(Err("offline".to_owned())),
            )),
        ));
        assert!(fx.is_empty());
        assert!(!app.posting());
        assert!(app.notice().unwrap().contains("the draft is kept"));
    }

    /// What the probes were given: by probe (its number, in the order they were made), each
    /// result's text.
    type Log = std::rc::Rc<std::cell::RefCell<Vec<Vec<String>>>>;

    /// A screen that keeps every result it is given (for the router's tests).
    #[derive(Debug)]
    struct Probe {
        /// Its number in the log.
        me: usize,
        log: Log,
        /// The effects it asked for on `r`.
        asks: u32,
    }

    impl Probe {
        fn new(log: &Log) -> Probe {
            let me = log.borrow().len();
            log.borrow_mut().push(Vec::new());
            Probe {
                me,
                log: log.clone(),
                asks: 0,
            }
        }
    }

    impl Screen for Probe {
        fn name(&self) -> &'static str {
            "probe"
        }
        fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
            match cmd {
                // Opens another probe above itself.
                KeyCommand::Toggle => ctx.open(Box::new(Probe::new(&self.log))),
                // Asks for an effect (its result, in these tests, comes back as a `Done` of a `String`).
                KeyCommand::Review => {
                    self.asks += 1;
                    ctx.fx.push(Effect::Open(format!("ask {}", self.asks)));
                }
                _ => return Handled::NotConsumed,
            }
            Handled::Consumed
        }
        fn event(&mut self, action: Action, _ctx: &mut Ctx<'_>) -> Option<Action> {
            // Takes anything: under a top-first broadcast it would take every result.
            self.log.borrow_mut()[self.me].push(format!("{action:?}"));
            None
        }
        fn draw(&self, _: &mut Frame, _: ratatui::layout::Rect, _: &View<'_>) -> Drawn {
            Drawn::default()
        }
        fn help(&self, _: &Keymap) -> Vec<(String, String)> {
            Vec::new()
        }
    }

    /// A console on one probe, and the log of what every probe was given (by probe: the
    /// first, then each opened in turn).
    fn probes() -> (App, Log) {
        let log = Log::default();
        let app = App::with_screen(Box::new(Probe::new(&log)), Session::default());
        (app, log)
    }

    fn got(log: &Log) -> Vec<Vec<String>> {
        log.borrow().clone()
    }

    fn answer(asked: &Asked) -> Action {
        asked.answer(Action::Done(Done::new(format!("{:?}", asked.effect))))
    }

    /// Failed before (a result went to every screen top first, and the top took it): a result
    /// reaches the screen that asked, though another screen is on top now.
    #[test]
    fn a_result_reaches_the_screen_that_asked_not_the_one_on_top() {
        let (mut app, log) = probes();
        let fx = cmd(&mut app, KeyCommand::Review);
        assert_eq!(fx.len(), 1);
        let asked = app.update(Action::Command(KeyCommand::Review));
        assert_eq!(asked[0].by, app.top_id(), "stamped with the asker's id");
        cmd(&mut app, KeyCommand::Toggle);
        assert_eq!(app.stack().len(), 2);
        app.update(answer(&asked[0]));
        let got = got(&log);
        assert_eq!(got[0].len(), 1, "{got:?}");
        assert!(got[0][0].contains("ask 2"), "{got:?}");
        assert!(
            got[1].is_empty(),
            "the screen on top took another's result: {got:?}"
        );
    }

    /// A screen left and kept still gets its results while the one below is shown again.
    #[test]
    fn a_result_reaches_a_kept_screen() {
        let (mut app, log) = probes();
        cmd(&mut app, KeyCommand::Toggle);
        let asked = app.update(Action::Command(KeyCommand::Review));
        cmd(&mut app, KeyCommand::Quit);
        assert_eq!((app.stack().len(), app.kept()), (1, 1));
        app.update(answer(&asked[0]));
        let got = got(&log);
        assert!(got[0].is_empty(), "{got:?}");
        assert_eq!(got[1].len(), 1, "{got:?}");
    }

    /// A result for a screen that is gone is dropped (no panic, no other screen takes it); a
    /// notice is still said.
    #[test]
    fn a_result_for_a_closed_screen_is_dropped_and_a_notice_still_said() {
        let (mut app, log) = probes();
        cmd(&mut app, KeyCommand::Toggle);
        let asked = app.update(Action::Command(KeyCommand::Review));
        let gone = asked[0].by;
        cmd(&mut app, KeyCommand::Quit);
        // Opening another screen closes the idle kept one.
        cmd(&mut app, KeyCommand::Toggle);
        assert_eq!(app.kept(), 0);
        assert_ne!(app.top_id(), gone, "ids are never reused");
        app.update(answer(&asked[0]));
        assert!(got(&log).iter().all(Vec::is_empty), "{:?}", got(&log));
        app.update(Action::to(gone, Action::Notice("said anyway".into())));
        assert_eq!(app.notice(), Some("said anyway"));
    }

    /// A result nobody addressed is no screen's.
    #[test]
    fn an_unaddressed_result_goes_nowhere() {
        let (mut app, log) = probes();
        app.update(Action::Done(Done::new("stray".to_owned())));
        assert!(got(&log).iter().all(Vec::is_empty));
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
                Session { now: 0, ..Session::default() },
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
