//! Console state and its one entry point, [`App::update`]: pure (no I/O, no clock, no terminal).
//!
//! `update` takes an [`Action`] and returns the [`Effect`]s the effect runner must perform (write
//! seen markers, open a URL, load a fixture step, highlight a hunk, post). Their results come back
//! as actions (`Marked`, `StepLoaded`, `Highlighted`, `Posted`, `Notice`). Tests drive the same
//! functions with a synchronous effect runner, and ask [`App`] what it shows (`query.rs`).
//!
//! `App` is the router: a stack of [`Screen`]s (the one on top has the keys and is drawn), the
//! dialog layer above it, the notice, and the [`Session`] it lends to every screen.
//!
//! ```text
//! App (router)                          mod.rs
//! ├── session: Session                  ../session.rs  now, gates, identity, remote, marks blocked
//! ├── mode: InputMode                   dialogs.rs     search, filter, help, editor, question
//! ├── stack: [Box<dyn Screen>]          screen.rs      the trait, Ctx (what a screen may touch)
//! │   ├── InboxScreen                   inbox/         rows in tabs; opens a PrScreen above it
//! │   ├── PrScreen                      pr/            one PR: list, marks, review desk, threads
//! │   ├── PendingScreen                 pending/       the pending review: comments, drafts, submit
//! │   └── ChecksScreen                  checks/        the checks at the head, annotations, re-run
//! └── kept: [Box<dyn Screen>]           screens left (a PR left for the inbox): work goes on
//! action.rs   Action, Drawn, …          effect.rs      Effect and its Lane
//! ```
//!
//! Commands go to the screen on top; what it does not consume the router answers (`?` opens the
//! screen's help, `q`/`Esc` leave it). Results go to every screen, top first, until one takes
//! them. Dialogs stay a layer above whichever screen is shown.

/// The [`Ctx`] over the router's shell (notice, dialog layer, session, kept screens) for effects
/// pushed to `$fx`; a macro so the borrows stay per field and a screen of the stack can be
/// borrowed beside it.
macro_rules! ctx {
    ($app:ident, $fx:expr) => {
        Ctx::new(
            &mut $app.notice,
            &mut $app.mode,
            $fx,
            &$app.session,
            &$app.kept,
        )
    };
}

mod action;
mod checks;
mod code;
mod dialogs;
mod effect;
mod inbox;
mod messages;
mod pending;
mod pr;
mod query;
mod screen;
pub mod unsent;

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
    Action, Ahead, ChecksLoad, CodeLoad, Drawn, EditTarget, MouseKind, OpenedPr, SavedDrafts,
    StepData, later_versions,
};
pub use checks::{ChecksScreen, RerunAsk};
pub use code::{DescriptionScreen, DiffScreen, FileState, FilesScreen};
pub use dialogs::InputMode;
pub use effect::{Effect, Lane};
pub use inbox::{InboxFilter, InboxScreen, InboxTab};
pub use messages::MessageLog;
pub use pending::{
    Ask as PendingAsk, Editing, PendingEdit, PendingScreen, SubmitAs, SubmitAsk,
    compose_line_comment,
};
pub use pr::{
    Ask as PrAsk, CommentAsk, Counts, Filter, Focus, Group, ItemList, Marks, Pane, PrScreen,
    ReplyView, ReviewDesk, Row, ThreadAsk, ThreadDesk, console_gate,
};
pub use screen::{Asking, Ctx, Handled, Screen, SearchStep, View};

use screen::StackOp;

/// What `Esc` says at the bottom screen, where it has nothing left to close (it never quits).
pub const NOTHING_TO_CLOSE: &str = "nothing to close here: q or Ctrl-c quits";

/// The router: the stack of screens, the dialog layer above it, and what every screen shares.
#[derive(Debug)]
pub struct App {
    session: Session,
    /// Bottom first; the last one is shown and has the keys.
    stack: Vec<Box<dyn Screen>>,
    /// Screens left for the one below them, kept until another screen is opened: their work
    /// goes on, their results still reach them, and they can be brought back as they were.
    kept: Vec<Box<dyn Screen>>,
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
            stack: vec![screen],
            kept: Vec::new(),
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
    /// direct open (a PR opened from the inbox gets its own when it opens).
    pub fn restore_saved(&mut self, saved: SavedDrafts) -> Vec<Effect> {
        let mut fx = Vec::new();
        let App {
            session,
            stack,
            kept,
            mode,
            notice,
            ..
        } = self;
        if let Some(pr) = stack
            .iter_mut()
            .rev()
            .find_map(|s| (s.as_mut() as &mut dyn std::any::Any).downcast_mut::<PrScreen>())
        {
            let mut ctx = Ctx::new(notice, mode, &mut fx, session, kept);
            pr.restore_saved(saved, &mut ctx);
        }
        fx
    }

    /// A fixture's later steps: what an earlier step shows is the past, and its markers never
    /// replace newer ones (call once the console opens on `step`).
    pub fn set_history(&mut self, fixture: &crate::source::Fixture) {
        if let Some(pr) = self.pr_mut() {
            pr.set_history(fixture);
        }
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

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
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

    fn update_inner(&mut self, action: Action) -> Vec<Effect> {
        let mut fx = Vec::new();
        match action {
            Action::ForceQuit | Action::Command(KeyCommand::QuitAll) => self.ask_to_quit(&mut fx),
            Action::UnsentScanned(disk) => self.unsent_scanned(disk),
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
                    let mut ctx = ctx!(self, &mut fx);
                    self.stack[at].tick(now_ms, &mut ctx);
                }
            }
            Action::Drawn(mut d) => {
                d.at_ms = self.clock_ms;
                self.last_drawn = d;
                self.help_scroll = self.help_scroll.min(d.help_max_scroll);
                self.on_top(&mut fx, |s, ctx| s.drawn(d, ctx));
            }
            Action::Mouse { kind, column, row } => self.mouse(kind, column, row),
            Action::ForPr { pr, action } => self.route(&pr, *action, &mut fx),
            other => self.broadcast(other, &mut fx),
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
        fx: &mut Vec<Effect>,
        f: impl FnOnce(&mut dyn Screen, &mut Ctx<'_>) -> R,
    ) -> R {
        let at = self.stack.len().saturating_sub(1);
        let Some(top) = self.stack.last_mut() else {
            return R::default();
        };
        let mut ctx = ctx!(self, fx);
        let r = f(top.as_mut(), &mut ctx);
        if let Some(op) = ctx.take_op() {
            self.apply(at, op, fx);
        }
        r
    }

    /// A stack request of the screen at `at`.
    fn apply(&mut self, at: usize, op: StackOp, fx: &mut Vec<Effect>) {
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
                self.stack.push(screen);
            }
            StackOp::Resume(pr) => {
                if let Some(i) = self
                    .kept
                    .iter()
                    .position(|s| s.subject().as_ref() == Some(&pr))
                {
                    let mut screen = self.kept.remove(i);
                    let mut ctx = ctx!(self, fx);
                    screen.resumed(&mut ctx);
                    self.stack.push(screen);
                }
            }
        }
    }

    /// A command from the keymap: help answers it while open; else the screen on top, and what
    /// it does not consume the router answers.
    /// `cmd`, or where the screen on top does not answer it, `second` (a shared key's).
    fn command(&mut self, cmd: KeyCommand, second: Option<KeyCommand>, fx: &mut Vec<Effect>) {
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
    fn ask_to_quit(&mut self, fx: &mut Vec<Effect>) {
        if self.quit_scan || matches!(self.mode, InputMode::ConfirmQuit { .. }) {
            self.quit = true;
            return;
        }
        self.quit_scan = true;
        fx.push(Effect::ScanUnsent {
            prs: self.session_prs(),
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
    fn leave(&mut self, fx: &mut Vec<Effect>) {
        if self.stack.len() < 2 {
            self.ask_to_quit(fx);
            return;
        }
        self.quit = false;
        self.mode = InputMode::Normal;
        if let Some(mut left) = self.stack.pop() {
            let mut ctx = ctx!(self, fx);
            left.left(&mut ctx);
            self.kept.push(left);
        }
    }

    /// The search prompt's input: the router keeps the text, the screen on top follows it.
    fn search_input(&mut self, action: Action, fx: &mut Vec<Effect>) {
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

    /// A result or progress event: offered to every screen, top first (then the kept ones),
    /// until one takes it.
    fn broadcast(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let mut action = Some(action);
        let mut ops = Vec::new();
        for at in (0..self.stack.len()).rev() {
            let Some(a) = action.take() else { break };
            let mut ctx = ctx!(self, fx);
            action = self.stack[at].event(a, &mut ctx);
            if let Some(op) = ctx.take_op() {
                ops.push((at, op));
            }
        }
        for screen in &mut self.kept {
            let Some(a) = action.take() else { break };
            // A kept screen is not shown: it cannot ask the stack for anything.
            let mut ctx = Ctx::new(&mut self.notice, &mut self.mode, fx, &self.session, &[]);
            action = screen.event(a, &mut ctx);
        }
        for (at, op) in ops {
            self.apply(at, op, fx);
        }
    }

    /// A result of one PR's screen: to the screen showing `pr`, on the stack (top first) or
    /// kept, and to no other; with none left for it, it is dropped (a notice is still said).
    fn route(&mut self, pr: &PrCoords, action: Action, fx: &mut Vec<Effect>) {
        if let Some(at) = (0..self.stack.len())
            .rev()
            .find(|&i| self.stack[i].subject().as_ref() == Some(pr))
        {
            let mut ctx = ctx!(self, fx);
            let _ = self.stack[at].event(action, &mut ctx);
            if let Some(op) = ctx.take_op() {
                self.apply(at, op, fx);
            }
            return;
        }
        if let Some(screen) = self
            .kept
            .iter_mut()
            .find(|s| s.subject().as_ref() == Some(pr))
        {
            // A kept screen is not shown: it cannot ask the stack for anything.
            let mut ctx = Ctx::new(&mut self.notice, &mut self.mode, fx, &self.session, &[]);
            let _ = screen.event(action, &mut ctx);
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
        app.update(Action::UnsentScanned(Vec::new()));
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
        app.update(Action::PostPlanned(Ok(PostPreview {
            target: "acme/rivet#482".to_owned(),
            update: None,
            chars: 1,
            destination: "the outbox".to_owned(),
            incomplete: None,
        })));
        assert_eq!(*app.mode(), InputMode::Asked);
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
