//! What `App::update` asks the effect runner for ([`Effect`], as data: tests assert it), and
//! where each one runs ([`Lane`], declared once by [`Effect::lane`]; a screen's own work
//! declares its lane itself, see `work.rs`).

use crate::pr::{PrCoords, Snapshot};

pub use super::work::Lane;
use super::work::Work;

/// An effect with the screen that asked for it: the router stamps the id on what a screen pushed
/// through its [`Ctx`](super::Ctx), and every result of the effect comes back addressed to it
/// ([`Action::For`](super::Action::For)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub by: super::ScreenId,
    pub effect: Effect,
}

impl Asked {
    /// `action`, a result of this effect, addressed to the screen that asked.
    pub fn answer(&self, action: super::Action) -> super::Action {
        super::Action::to(self.by, action)
    }
}

/// Work for the effect runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Open(String),
    Copy(String),
    Highlight {
        key: String,
        path: String,
        hunk: String,
    },
    /// Cancel the run in flight on the snapshot's PR (a run on another PR goes on), then prepare
    /// and start run `seq` in the background.
    StartReview {
        seq: u64,
        full: bool,
        snapshot: Box<Snapshot>,
    },
    /// Cancel the run in flight on `pr`, if any.
    CancelReview {
        pr: PrCoords,
    },
    /// Read what `prs` hold unsent in the state dir (review drafts, replies, pending reviews),
    /// for the quit question.
    ScanUnsent {
        prs: Vec<PrCoords>,
    },
    /// Edit `text` in the external editor (`$VISUAL`/`$EDITOR`): the console suspends its
    /// screen for it (`terminal.rs`); the answer comes back as `ExternallyEdited`.
    ExternalEdit {
        target: super::action::EditTarget,
        text: String,
    },
    /// Open a file in the external editor at a line (the diff's `o`; the diff's own work
    /// prepared the file): the console suspends its screen for it as for `ExternalEdit`
    /// (`terminal.rs`), since the editor needs the terminal; the answer is a notice, `said` (which
    /// file was opened, and why that one) or why the editor failed. Headless: what would run.
    EditorAt {
        argv: crate::tui::editor_at::EditorArgv,
        said: String,
    },
    /// Mark files viewed or not viewed: on GitHub live, in the outbox offline.
    SetViewed {
        pr: PrCoords,
        paths: Vec<String>,
        /// Each path's patch key (`code::look::patch_key`): an offline mark remembers it.
        keys: std::collections::HashMap<String, String>,
        viewed: bool,
    },
    /// A screen's own work (see `work.rs`): its lane and how it is done are its own; its
    /// results come back as [`Action::Done`](super::Action::Done).
    Work(super::work::Job),
}

impl Effect {
    /// This effect as the screen's own work `W`, if it is one (tests assert a screen's effects
    /// this way: `e.work::<checks::Work>()`).
    pub fn work<W: Work>(&self) -> Option<&W> {
        match self {
            Effect::Work(job) => job.as_work(),
            _ => None,
        }
    }

    /// The lane this effect runs on.
    pub fn lane(&self) -> Lane {
        match self {
            Effect::ScanUnsent { .. } => Lane::Ledger,
            Effect::Highlight { .. }
            | Effect::Open(_)
            | Effect::Copy(_)
            | Effect::ExternalEdit { .. }
            | Effect::EditorAt { .. } => Lane::Blocking,
            Effect::SetViewed { .. } => Lane::Send,
            Effect::StartReview { .. } | Effect::CancelReview { .. } => Lane::Review,
            // The review lane is the review run's own: a screen's work asking for it is a read.
            Effect::Work(job) => match job.lane() {
                Lane::Review => Lane::Fetch,
                lane => lane,
            },
        }
    }
}
