//! A screen's own effects and results: the interface between a screen and the effect runner.
//!
//! A screen that reads or writes something no other screen does defines, in its own folder, a
//! value describing that work (an enum implementing [`Work`]: which [`Lane`] it runs on, and how
//! it is performed with what the runner lends, [`Io`]) and the values its results come back as
//! (any `Debug + Clone + Send + Sync` type). It asks for the work with
//! [`Ctx::work`](super::Ctx::work); the router stamps the effect with the screen's id, the
//! runner performs it off the UI loop and sends each result back as `Action::Done` addressed
//! to that id, and the screen takes its own type back with [`Done::take`]. Nothing shared — no
//! variant of `Effect` or `Action`, no arm of the runner — names the screen.
//!
//! The screen's state and `update` stay pure: a `Work` value is data (tests assert it through
//! `Effect::work`); only the runner calls [`Work::perform`].

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::ledger::Ledger;
use crate::pr::PrCoords;
use crate::source::Fixture;
use crate::tui::inbox_link::InboxLink;
use crate::tui::session::Session;

/// Where an effect runs. Every lane is off the UI loop; they differ in order, in the thread they
/// take, and in what closing the console does with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// One at a time, in order (a draft saved after a discard is never overtaken by it): seen
    /// markers, drafts, fixture steps, the inbox's recounts. Closing lets it finish its writes.
    Ledger,
    /// A blocking thread each: highlighting, the opener, the clipboard.
    Blocking,
    /// A task each, reading the network or the disk: what a post would do, opening a PR from the
    /// inbox, loading the inbox. Closing drops them.
    Fetch,
    /// A task each, writing where the session's remote says: posts, thread actions (only ever
    /// after the maintainer confirmed). Closing waits for their answers, bounded.
    Send,
    /// The review run: one cancellable task; a new run, or a cancel, ends the one in flight.
    Review,
}

/// What the runner lends a screen's work: the state dir, the session (its [`Remote`] decides
/// where a write goes), the inbox behind it, the fixtures, the clock.
///
/// [`Remote`]: crate::tui::session::Remote
pub struct Io<'a> {
    pub ledger: &'a Ledger,
    pub session: &'a Session,
    /// The inbox the console opened on (its tabs' sources, the fixtures of the PRs opened from
    /// it); empty when it opened on one PR.
    pub inbox: &'a InboxLink,
    /// Unix seconds for what is written now.
    pub now: i64,
    /// The fixture of a PR (the one it was opened from, else the session's), offline.
    pub fixture_of: &'a (dyn Fn(&PrCoords) -> Option<Fixture> + Sync),
    /// False in tests and benches: nothing reaches the desktop or the real terminal.
    pub interactive: bool,
    /// `[review]` of the config: the backend a question to the model (`a` in the diff) goes
    /// to, its caps and prices.
    pub review: &'a crate::review::ReviewSettings,
    /// The LLM keys and base URLs the environment offers (read once at the edge).
    pub llm_env: &'a crate::review::llm::LlmEnv,
    /// Files' texts read for the diff (context on demand, the file in the editor), by blob id:
    /// the same blob is read once a session.
    pub blobs: &'a std::sync::Mutex<crate::source::github::contents::BlobCache>,
    /// The console run's private scratch folder: read-only copies of files for the editor.
    pub scratch: &'a crate::tui::scratch::Scratch,
}

/// Hands one result of a work back to the screen that asked (a work may send several).
pub type Reply<'a> = &'a mut (dyn FnMut(Done) + std::marker::Send);

/// A future performing a work, borrowing what the runner lent it.
pub type Performing<'a> = Pin<Box<dyn Future<Output = ()> + std::marker::Send + 'a>>;

/// A screen's own effect: where it runs, and how (see the module's documentation).
pub trait Work: fmt::Debug + Clone + PartialEq + std::marker::Send + Sync + 'static {
    /// The lane it runs on (declared once, here, by the screen that owns it).
    fn lane(&self) -> Lane;

    /// Does the work with `io`, handing each result to `send` (as [`Done::new`] of the
    /// screen's own result type) as soon as it is known.
    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a>;
}

/// A [`Work`] of any screen, as the runner and the tests see it.
pub struct Job(Box<dyn AnyWork>);

impl Job {
    pub fn new<W: Work>(work: W) -> Job {
        Job(Box::new(work))
    }

    pub fn lane(&self) -> Lane {
        self.0.lane()
    }

    /// The work as its own type, when it is a `W`.
    pub fn as_work<W: Work>(&self) -> Option<&W> {
        self.0.as_any().downcast_ref()
    }

    /// Performs it (the runner's call).
    pub fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        self.0.perform_boxed(io, send)
    }
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}

impl Clone for Job {
    fn clone(&self) -> Job {
        Job(self.0.clone_boxed())
    }
}

impl PartialEq for Job {
    fn eq(&self, other: &Job) -> bool {
        self.0.same(other.0.as_any())
    }
}

impl Eq for Job {}

/// What [`Job`] needs of a work, object-safe; every [`Work`] has it.
trait AnyWork: std::marker::Send + Sync {
    fn lane(&self) -> Lane;
    fn as_any(&self) -> &dyn Any;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn clone_boxed(&self) -> Box<dyn AnyWork>;
    fn same(&self, other: &dyn Any) -> bool;
    fn perform_boxed<'a>(self: Box<Self>, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a>;
}

impl<W: Work> AnyWork for W {
    fn lane(&self) -> Lane {
        Work::lane(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
    fn clone_boxed(&self) -> Box<dyn AnyWork> {
        Box::new(self.clone())
    }
    fn same(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<W>() == Some(self)
    }
    fn perform_boxed<'a>(self: Box<Self>, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Work::perform(*self, io, send)
    }
}

/// A result that is only a notice for the status line, whoever is on top (a write that answers
/// only when it failed): the runner turns it into `Action::Notice`, which reaches the console
/// even when the screen that asked is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said(pub String);

/// A result of a screen's own work, on its way back to that screen (`Action::Done`).
#[derive(Clone)]
pub struct Done(Arc<dyn Outcome>);

/// What a result value is: any `Debug + Clone + Send + Sync` type.
trait Outcome: Any + fmt::Debug + std::marker::Send + Sync {}

impl<T: Any + fmt::Debug + std::marker::Send + Sync> Outcome for T {}

impl Done {
    pub fn new<T: Any + fmt::Debug + Clone + std::marker::Send + Sync>(value: T) -> Done {
        Done(Arc::new(value))
    }

    /// The result as the screen's own type `T` (the screen that asked knows it); `None` when
    /// it is another type.
    pub fn take<T: Any + Clone>(&self) -> Option<T> {
        let any: &dyn Any = self.0.as_ref();
        any.downcast_ref::<T>().cloned()
    }
}

impl fmt::Debug for Done {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}
