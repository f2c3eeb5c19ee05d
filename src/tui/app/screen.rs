//! What a screen is to the router: the [`Screen`] trait (in the spirit of helix's compositor
//! layers and gitui's components). A screen owns its state, answers its keys (consumed or not),
//! takes the results that are its own, draws itself and names its own keys for `?`. The router
//! (`App`) holds a stack of them — the one on top has the keys — with the dialog layer above.
//!
//! A screen reaches beyond itself only through [`Ctx`]: the footer notice, the dialog layer, the
//! effects `update` returns, the session (lent, read-only), and two requests to the stack: open
//! a screen above this one, or bring back one that was left.

use std::any::Any;

use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::{Position, Rect};

use super::action::{Action, Drawn, MouseKind};
use super::dialogs::InputMode;
use super::effect::Effect;
use crate::pr::PrCoords;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::session::Session;
use crate::tui::theme::Theme;
use crate::tui::ui::Dialog;

/// Whether a screen answered a command. Not consumed, the router answers: `?` opens the screen's
/// help, `q` and `Esc` leave the screen (back to the one below, or quit at the bottom).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Handled {
    Consumed,
    #[default]
    NotConsumed,
}

/// The search prompt (`/`), as the screen on top sees it: the router keeps the typed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchStep<'a> {
    /// The query changed; `before` is the row selected when the search started.
    Changed { query: &'a str, before: usize },
    /// Enter: the search stays.
    Accepted(&'a str),
    /// Esc: back to the row selected before.
    Cancelled { before: usize },
}

/// Who a screen is to the router: given when it enters the stack (a counter, never reused in a
/// session), kept while it is on the stack or kept. Every effect carries the id of the screen that
/// asked (the router stamps it, see [`Asked`](super::Asked)), and its results come back to that
/// id: to that screen, wherever it is, or to no one once it is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScreenId(pub(super) u64);

impl ScreenId {
    /// The router's own effects (the quit question's scan of the state dir).
    pub const ROUTER: ScreenId = ScreenId(0);
}

/// A screen the router holds, with the id it was given when it entered the stack.
#[derive(Debug)]
pub(super) struct Placed {
    pub(super) id: ScreenId,
    pub(super) screen: Box<dyn Screen>,
}

impl std::ops::Deref for Placed {
    type Target = dyn Screen;
    fn deref(&self) -> &(dyn Screen + 'static) {
        self.screen.as_ref()
    }
}

impl std::ops::DerefMut for Placed {
    fn deref_mut(&mut self) -> &mut (dyn Screen + 'static) {
        self.screen.as_mut()
    }
}

/// What a screen asks of the stack (applied once its call returned).
pub(super) enum StackOp {
    /// Show this screen above the one asking; what was above it, and the screens left earlier,
    /// are closed.
    Open(Box<dyn Screen>),
    /// Bring back the screen left for this PR (it kept its state and its work).
    Resume(PrCoords),
    /// Leave the screen asking, as `q` does (only when it is on top).
    Leave,
}

/// What a screen may touch beside its own state.
pub struct Ctx<'a> {
    /// The footer's notice.
    pub notice: &'a mut Option<String>,
    /// The dialog layer: a screen opens a dialog by setting it (a question: [`Asking::ask`]).
    pub mode: &'a mut InputMode,
    /// The effects `update` returns.
    pub fx: &'a mut Vec<Effect>,
    /// What the screens of this console run share.
    pub session: &'a Session,
    /// The screens left but kept (their work goes on; their results still reach them).
    kept: &'a [Placed],
    /// The screen this context was made for (its effects' results come back to it).
    id: ScreenId,
    op: Option<StackOp>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(
        notice: &'a mut Option<String>,
        mode: &'a mut InputMode,
        fx: &'a mut Vec<Effect>,
        session: &'a Session,
        kept: &'a [Placed],
        id: ScreenId,
    ) -> Ctx<'a> {
        Ctx {
            notice,
            mode,
            fx,
            session,
            kept,
            id,
            op: None,
        }
    }

    /// The screen this context was made for: the effects it pushes are stamped with it by the
    /// router, and their results come back to it.
    pub fn id(&self) -> ScreenId {
        self.id
    }

    /// Asks for this screen's own work (see `work.rs`); its results come back to this screen
    /// as [`Action::Done`].
    pub fn work<W: super::work::Work>(&mut self, work: W) {
        self.fx.push(Effect::Work(super::work::Job::new(work)));
    }

    /// Shows `text` in the footer.
    pub fn say(&mut self, text: impl Into<String>) {
        *self.notice = Some(text.into());
    }

    /// Opens `screen` above the one asking.
    pub fn open(&mut self, screen: Box<dyn Screen>) {
        self.op = Some(StackOp::Open(screen));
    }

    /// Leaves this screen for the one below, as `q` does (the one below hears it uncovered).
    pub fn leave(&mut self) {
        self.op = Some(StackOp::Leave);
    }

    /// Brings back the screen left for `pr`.
    pub fn resume(&mut self, pr: PrCoords) {
        self.op = Some(StackOp::Resume(pr));
    }

    /// A screen for `pr` was left and is kept.
    pub fn kept(&self, pr: &PrCoords) -> bool {
        self.kept.iter().any(|s| s.subject().as_ref() == Some(pr))
    }

    /// The kept screen for `pr` is busy (see [`Screen::busy`]).
    pub fn busy(&self, pr: &PrCoords) -> bool {
        self.kept
            .iter()
            .any(|s| s.subject().as_ref() == Some(pr) && s.busy())
    }

    pub(super) fn take_op(&mut self) -> Option<StackOp> {
        self.op.take()
    }
}

/// A screen's open question, of its own type `Q`: kept in the screen's state while the dialog
/// is open, taken when it is answered.
#[derive(Debug, Clone)]
pub struct Asking<Q>(Option<Q>);

impl<Q> Default for Asking<Q> {
    fn default() -> Self {
        Asking(None)
    }
}

impl<Q> Asking<Q> {
    /// Asks `q`: the dialog layer opens on it, above the screen that asked.
    pub fn ask(&mut self, q: Q, ctx: &mut Ctx<'_>) {
        self.0 = Some(q);
        *ctx.mode = InputMode::Asked;
    }

    /// The question asked (and not yet answered).
    pub fn get(&self) -> Option<&Q> {
        self.0.as_ref()
    }

    /// The question, answered: it is no longer asked.
    pub fn take(&mut self) -> Option<Q> {
        self.0.take()
    }
}

/// What a screen draws with beside its own state.
pub struct View<'a> {
    /// The dialog layer (a screen's footer names the open dialog's keys).
    pub mode: &'a InputMode,
    /// The footer's notice.
    pub notice: Option<&'a str>,
    pub session: &'a Session,
    pub theme: &'a Theme,
    pub keymap: &'a Keymap,
    /// The screens left but still busy, by PR: what each is doing (a review running, a post).
    pub background: &'a [(PrCoords, String)],
    /// A screen lies below this one: `q` goes back to it (at the bottom `q` quits).
    pub below: bool,
}

/// A screen of the console. Adding one is a file with a type implementing this trait, plus the
/// one line that opens it ([`Ctx::open`] from the screen it is opened from).
pub trait Screen: Any + std::fmt::Debug {
    /// The screen's name, in words ("inbox", "PR"): for messages and tests; the router never
    /// branches on it.
    fn name(&self) -> &'static str;

    /// The PR this screen shows, if it shows one.
    fn subject(&self) -> Option<PrCoords> {
        None
    }

    /// Work of its own is going on: the screen that opened it waits before opening another.
    fn busy(&self) -> bool {
        false
    }

    /// What a busy screen is doing, in a few words (shown on its PR's inbox row while it is
    /// left); `None` when it is not busy.
    fn activity(&self) -> Option<String> {
        None
    }

    /// What quitting now would cost this screen, in words (a review running is cancelled, a
    /// post is cut off, a draft or reply stays unsent): the quit confirmation names each.
    fn at_stake(&self) -> Vec<String> {
        Vec::new()
    }

    /// The kinds of unsent work of its PR this screen holds in memory: for them its `at_stake`
    /// is the truth, not what the state dir held when the quit question looked.
    fn holds_unsent(&self) -> Vec<super::unsent::Unsent> {
        Vec::new()
    }

    /// The PRs this screen shows or lists (the inbox: its rows), whose unsent work in the state
    /// dir the quit question names.
    fn session_prs(&self) -> Vec<PrCoords> {
        self.subject().into_iter().collect()
    }

    /// The selected row, for screens with a list.
    fn selected_row(&self) -> Option<usize> {
        None
    }

    /// A key of this screen's own, outside the keymap, when no dialog is open.
    fn key(&self, _ev: &KeyEvent) -> Option<Action> {
        None
    }

    /// A command from the keymap, when no dialog is open.
    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled;

    /// The search prompt's input while this screen is on top.
    fn search(&mut self, _step: SearchStep<'_>, _ctx: &mut Ctx<'_>) {}

    /// Input for a dialog this screen opened (filter, editor, reply composer).
    fn dialog(&mut self, _action: Action, _ctx: &mut Ctx<'_>) {}

    /// The question this screen asked and keeps in its state (see [`Asking`]), as the
    /// dialog widget shows it; `None` when it asked none.
    fn question(&self) -> Option<Dialog> {
        None
    }

    /// The answer to the question this screen asked (the dialog is already closed): `yes` for
    /// `y`, else no (a refusal closes on any key, as a no).
    fn answered(&mut self, _yes: bool, _ctx: &mut Ctx<'_>) {}

    /// A result of one of this screen's own effects, or its review's progress: the router
    /// delivers it to the screen whose id the effect carried, wherever that screen is (on top,
    /// below, or left and kept), and to no other. What the screen does not take it returns
    /// (dropped).
    fn event(&mut self, action: Action, _ctx: &mut Ctx<'_>) -> Option<Action> {
        Some(action)
    }

    /// This screen entered the stack (it has its id now): it asks for what it reads.
    fn opened(&mut self, _ctx: &mut Ctx<'_>) {}

    /// The screen above this one was left, and this one is on top again; `left` is that
    /// screen (what it shows: [`Screen::snapshot`]).
    fn uncovered(&mut self, _left: &dyn Screen, _ctx: &mut Ctx<'_>) {}

    /// What this screen sent that the PR as read may not show yet (a submitted review): the
    /// screen it uncovers lays it over its items until the PR read back shows it.
    fn sent(&self) -> Vec<crate::ledger::Sent> {
        Vec::new()
    }

    /// This screen changed the PR on GitHub (or in the outbox): the screen it uncovers reads
    /// the PR again.
    fn acted(&self) -> bool {
        false
    }

    /// Findings dismissed on this screen (or the diffs it opened) since it was last asked: id,
    /// reason, whether a lesson. The PR screen it uncovers holds them back from its review.
    fn dismissed_here(&self) -> Vec<(String, String, bool)> {
        Vec::new()
    }

    /// A comment this screen left for the one below to write on these lines, starting from
    /// this text (the model's answer after `c`): the diff opens its composer with it.
    fn comment_to_write(&self) -> Option<(crate::code::LineSelection, String)> {
        None
    }

    /// The PR snapshot this screen shows, if it shows one.
    fn snapshot(&self) -> Option<&crate::pr::Snapshot> {
        None
    }

    /// The frame that showed this screen is on screen.
    fn drawn(&mut self, _d: Drawn, _ctx: &mut Ctx<'_>) {}

    /// A click or wheel step at `at`, with what the last frame showed where.
    fn mouse(&mut self, _kind: MouseKind, _at: Position, _drawn: &Drawn) {}

    /// The console's clock ticked (milliseconds): for work on an interval (the inbox's refresh).
    fn tick(&mut self, _now_ms: i64, _ctx: &mut Ctx<'_>) {}

    /// This screen, left and kept, is shown again.
    fn resumed(&mut self, _ctx: &mut Ctx<'_>) {}

    /// This screen was left for the one below (it is kept: its work goes on).
    fn left(&mut self, _ctx: &mut Ctx<'_>) {}

    /// Draws the screen (its footer included) and reports what it showed.
    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn;

    /// This screen's keys for `?`, as the keymap binds them: (keys, what they do).
    fn help(&self, keymap: &Keymap) -> Vec<(String, String)>;
}

/// A screen's help: the entries of `cmds`, labelled by the keymap, then how to leave it (`back`:
/// what `q`/`Esc` do there) and quitting from anywhere.
pub(crate) fn key_help(
    keymap: &Keymap,
    cmds: &[(KeyCommand, &str)],
    back: &str,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = cmds
        .iter()
        .map(|(c, what)| (keymap.keys_label(*c), (*what).to_owned()))
        .collect();
    out.push((
        format!(
            "{} / {}",
            keymap.keys_label(KeyCommand::Quit),
            keymap.keys_label(KeyCommand::Back)
        ),
        back.to_owned(),
    ));
    out.push((
        keymap.keys_label(KeyCommand::QuitAll),
        "quit from anywhere".to_owned(),
    ));
    out
}

/// Draws a screen's frame, titled with the PR of `snapshot` and `what`; the area inside it.
pub(crate) fn framed(
    frame: &mut Frame,
    area: Rect,
    snapshot: &crate::pr::Snapshot,
    what: &str,
    theme: &crate::tui::theme::Theme,
) -> Rect {
    let pr = &snapshot.pr;
    let block = crate::tui::ui::bordered(
        format!(
            " {}/{}#{} · {what} ",
            crate::sanitize::one_line(&pr.owner),
            crate::sanitize::one_line(&pr.repo),
            pr.number
        ),
        true,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}
