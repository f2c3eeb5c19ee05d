//! What `App::update` asks the effect runner for ([`Effect`], as data: tests assert it), and
//! where each one runs ([`Lane`], declared once by [`Effect::lane`]).

use crate::inbox::Opener;
use crate::ledger::{Decision, Draft, KeptText, Lesson, ReplyDraft};
use crate::pr::{ChangedFile, PrCoords, Snapshot, Thread};
use crate::publish::ThreadDo;

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
    /// Append what became of findings to the repository's decision log (a dismissal, what a
    /// post kept, edited and dropped), and add a lesson; `said` is the notice once written.
    RecordDecisions {
        pr: PrCoords,
        decisions: Vec<Decision>,
        lesson: Option<Box<Lesson>>,
        said: String,
    },
    /// Read the precision of the PR's repository from its decisions (`pr-shepherd stats`).
    LoadStats {
        pr: PrCoords,
    },
    /// Reply to, resolve or unresolve a thread (only ever after the maintainer confirmed).
    ThreadAct {
        pr: PrCoords,
        thread: Box<Thread>,
        what: ThreadDo,
    },
    /// Read what the files and diff screens need beside the snapshot: the last look at the
    /// code, the patches shown then of the files changed since, the latest Shepherd findings
    /// and (offline) the viewed marks in the outbox.
    LoadCode {
        snapshot: Box<Snapshot>,
    },
    /// The frame that showed these files' patches is on screen: record them as seen (the last
    /// look at the code; never moved back, nothing recorded for a file not shown).
    RecordShown {
        pr: PrCoords,
        files: Vec<ChangedFile>,
        /// Every path of the PR at this look.
        all: Vec<String>,
    },
    /// Mark files viewed or not viewed: on GitHub live, in the outbox offline.
    SetViewed {
        pr: PrCoords,
        paths: Vec<String>,
        viewed: bool,
    },
}

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

impl Effect {
    /// The lane this effect runs on.
    pub fn lane(&self) -> Lane {
        match self {
            Effect::MarkSeen { .. }
            | Effect::LoadStep(_)
            | Effect::SaveDraft { .. }
            | Effect::DiscardDraft { .. }
            | Effect::SaveReplyDraft { .. }
            | Effect::DiscardReplyDraft { .. }
            | Effect::Recount { .. }
            | Effect::RecordDecisions { .. }
            | Effect::LoadStats { .. }
            | Effect::RecordShown { .. } => Lane::Ledger,
            Effect::Highlight { .. } | Effect::Open(_) | Effect::Copy(_) => Lane::Blocking,
            Effect::PlanPost { .. }
            | Effect::OpenPr(_)
            | Effect::LoadInbox
            | Effect::LoadCode { .. } => Lane::Fetch,
            Effect::Post { .. } | Effect::ThreadAct { .. } | Effect::SetViewed { .. } => Lane::Send,
            Effect::StartReview { .. } | Effect::CancelReview => Lane::Review,
        }
    }
}
