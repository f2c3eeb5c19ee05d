//! The PR screen's own effects ([`Work`]) and their results ([`Done`]): its seen markers (with
//! the texts kept beside them), its review draft and unsent thread reply, a fixture's history
//! steps, the decisions its findings came to and its repository's precision — on the ledger
//! lane, in order, one at a time, so a draft saved after a discard is never overtaken by it —
//! and its writes to the remote (a post's plan and the post, a conversation comment, a thread's
//! reply or resolution: through `tui::remote`, the one place that tells the outbox from GitHub)
//! and its refresh, on the fetch and send lanes. The
//! thread view (`thread_view.rs`) asks for the same reply work. The review run stays a shared
//! effect (`Effect::StartReview`: the runner's one cancellable task per PR). The screen's I/O
//! edge: only the effect runner performs it (see `app/work.rs`).

use crate::inbox::Opener;
use crate::ledger::{
    Decision, Draft, KeptText, Ledger, Lesson, ReplyDraft, RepoId, ThreadActionKind,
};
use crate::pr::{PrCoords, Thread};
use crate::publish::{Posted, ThreadDo};
use crate::source::Fixture;
use crate::tui::app::action::OpenedPr;
use crate::tui::app::action::{StepData, later_versions};
use crate::tui::app::opened::open_pr;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply, Said};
use crate::tui::remote;
use crate::tui::review::PostPreview;

/// What the PR screen (and its thread view) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    MarkSeen {
        pr: PrCoords,
        items: Vec<(String, String)>,
        /// The texts to keep beside those markers (written first).
        kept: Vec<KeptText>,
    },
    /// The PR's head as shown now: the head a headless `merge` carries by default.
    LookedHead {
        pr: PrCoords,
        head: String,
    },
    /// Load step `step` of the fixture of `pr`.
    LoadStep {
        pr: PrCoords,
        step: usize,
    },
    SaveDraft {
        pr: PrCoords,
        draft: Draft,
    },
    DiscardDraft {
        pr: PrCoords,
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
    /// Save the conversation comment being written (every change: it survives a crash); an
    /// empty one (posted, or cleared) is forgotten.
    SaveCommentDraft {
        pr: PrCoords,
        body: String,
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
    /// Post `body` as a plain conversation comment, a new one every time (only ever after the
    /// maintainer confirmed the dialog); offline into the comment outbox.
    PostComment {
        pr: PrCoords,
        body: String,
    },
    /// Reply to, resolve or unresolve a thread (only ever after the maintainer confirmed).
    ThreadAct {
        pr: PrCoords,
        thread: Box<Thread>,
        what: ThreadDo,
    },
    /// Fetch `pr` afresh (live: GitHub; offline: the fixture read again), to refresh the
    /// screen in place.
    Refresh {
        pr: PrCoords,
        opener: Box<Opener>,
    },
}

/// What comes back to the PR screen. A reply's save or discard answers only when it failed, as
/// a notice ([`Said`]) for the status line, whoever is on top.
#[derive(Debug, Clone)]
pub enum Done {
    /// The markers of `items` were written at `at`, or why not.
    Marked {
        items: Vec<(String, String)>,
        at: i64,
        result: Result<(), String>,
    },
    StepLoaded(Result<Box<StepData>, String>),
    DraftSaved(Result<(), String>),
    /// The draft was discarded (whether there was one), or why not.
    DraftDiscarded(Result<bool, String>),
    /// Decisions about findings (a dismissal, a post's) were written: the notice, or why not.
    DecisionsRecorded(Result<String, String>),
    /// The precision of the PR's repository, as one line, or why it could not be read.
    StatsLoaded(Result<String, String>),
    /// What a post would do (for the confirmation dialog), or why it cannot.
    PostPlanned(Result<PostPreview, String>),
    Posted(Result<Posted, String>),
    /// A plain conversation comment was posted (where it can be seen), or why not.
    Commented(Result<String, String>),
    /// A thread action answered: where it can be seen, or why it failed.
    ThreadActed {
        thread_id: String,
        kind: ThreadActionKind,
        result: Result<String, String>,
    },
    /// The PR fetched afresh (or why not): the screen is refreshed in place.
    Refreshed(Result<Box<OpenedPr>, String>),
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        match self {
            Work::PlanPost { .. } | Work::Refresh { .. } => Lane::Fetch,
            Work::Post { .. } | Work::PostComment { .. } | Work::ThreadAct { .. } => Lane::Send,
            _ => Lane::Ledger,
        }
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let (l, now) = (io.ledger, io.now);
            let done = match self {
                Work::MarkSeen { pr, items, kept } => mark_seen(l, &pr, items, &kept, now),
                Work::LoadStep { pr, step } => {
                    Done::StepLoaded(load_step(l, (io.fixture_of)(&pr), step))
                }
                Work::SaveDraft { pr, draft } => save_draft(l, &pr, draft, now),
                Work::DiscardDraft { pr } => discard_draft(l, &pr),
                Work::SaveReplyDraft { pr, draft } => {
                    if let Some(said) = save_reply_draft(l, &pr, draft, now) {
                        send(work::Done::new(said));
                    }
                    return;
                }
                Work::DiscardReplyDraft { pr } => {
                    if let Some(said) = discard_reply_draft(l, &pr) {
                        send(work::Done::new(said));
                    }
                    return;
                }
                Work::LookedHead { pr, head } => {
                    // Best effort: the console's own merge carries the head it shows.
                    if let Err(e) = l.record_looked_head(&pr, &head, now) {
                        tracing::debug!("the looked-at head of {pr} was not recorded: {e}");
                    }
                    return;
                }
                Work::SaveCommentDraft { pr, body } => {
                    if let Some(said) = save_comment_draft(l, &pr, body, now) {
                        send(work::Done::new(said));
                    }
                    return;
                }
                Work::RecordDecisions {
                    pr,
                    decisions,
                    lesson,
                    said,
                } => record_decisions(l, &pr, &decisions, lesson.map(|l| *l), said),
                Work::LoadStats { pr } => load_stats(l, &pr),
                Work::PlanPost { pr, chars } => {
                    Done::PostPlanned(remote::plan(&io.session.remote, l, &pr, chars, now).await)
                }
                Work::Post { pr, body } => {
                    Done::Posted(remote::post(&io.session.remote, l, &pr, &body, now).await)
                }
                Work::PostComment { pr, body } => {
                    Done::Commented(remote::comment(&io.session.remote, l, &pr, &body, now).await)
                }
                Work::ThreadAct { pr, thread, what } => Done::ThreadActed {
                    thread_id: thread.id.clone(),
                    kind: what.kind(),
                    result: remote::act(&io.session.remote, l, &pr, &thread, &what, now).await,
                },
                Work::Refresh { opener, .. } => {
                    Done::Refreshed(open_pr(io.inbox, l, io.session, &opener).await)
                }
            };
            send(work::Done::new(done));
        })
    }
}

/// Writes the markers of `items` (with their kept texts first: a text whose marker is then not
/// written is ignored on reading).
fn mark_seen(
    ledger: &Ledger,
    pr: &PrCoords,
    items: Vec<(String, String)>,
    kept: &[KeptText],
    at: i64,
) -> Done {
    let pairs: Vec<(&str, &str)> = items
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let result = ledger
        .keep_texts(pr, kept)
        .and_then(|_| ledger.mark_seen(pr, &pairs, at))
        .map(|_| ())
        .map_err(|e| e.to_string());
    Done::Marked { items, at, result }
}

/// Step `step` of `fixture`, with the ledger's markers and kept texts read afresh.
fn load_step(
    ledger: &Ledger,
    fixture: Option<Fixture>,
    step: usize,
) -> Result<Box<StepData>, String> {
    let f = fixture.ok_or_else(|| "no fixture to step through".to_owned())?;
    let snapshot = f.snapshot_at(step).map_err(|e| e.to_string())?;
    let coords = snapshot.pr.coords();
    let mut seen = ledger.load_seen(&coords).map_err(|e| e.to_string())?;
    ledger.attach_kept(&coords, &snapshot, &mut seen);
    let ahead = later_versions(&f, step);
    Ok(Box::new(StepData {
        snapshot,
        seen,
        ahead,
    }))
}

fn save_draft(ledger: &Ledger, pr: &PrCoords, mut draft: Draft, now: i64) -> Done {
    draft.saved_at = now;
    Done::DraftSaved(ledger.save_draft(pr, &draft).map_err(|e| e.to_string()))
}

fn discard_draft(ledger: &Ledger, pr: &PrCoords) -> Done {
    Done::DraftDiscarded(ledger.discard_draft(pr).map_err(|e| e.to_string()))
}

/// Saves the reply being written; only a failure is said.
fn save_reply_draft(
    ledger: &Ledger,
    pr: &PrCoords,
    mut draft: ReplyDraft,
    now: i64,
) -> Option<Said> {
    draft.saved_at = now;
    ledger
        .save_reply_draft(pr, &draft)
        .err()
        .map(|e| Said(format!("the reply was NOT saved: {e}")))
}

/// Saves the conversation comment being written (an empty one is forgotten); only a failure
/// is said.
fn save_comment_draft(ledger: &Ledger, pr: &PrCoords, body: String, now: i64) -> Option<Said> {
    let done = if body.trim().is_empty() {
        ledger.discard_comment_draft(pr).map(|_| ())
    } else {
        ledger.save_comment_draft(
            pr,
            &crate::ledger::CommentDraft {
                body,
                saved_at: now,
            },
        )
    };
    done.err()
        .map(|e| Said(format!("the conversation comment was NOT saved: {e}")))
}

/// Forgets the sent reply's draft; only a failure is said.
fn discard_reply_draft(ledger: &Ledger, pr: &PrCoords) -> Option<Said> {
    ledger
        .discard_reply_draft(pr)
        .err()
        .map(|e| Said(format!("the sent reply's draft could not be removed: {e}")))
}

/// Appends `decisions` to the PR's repository log and adds `lesson` (a dismissal from the
/// findings picker, what a post kept, edited and dropped); `said` once both are written.
fn record_decisions(
    ledger: &Ledger,
    pr: &PrCoords,
    decisions: &[Decision],
    lesson: Option<Lesson>,
    said: String,
) -> Done {
    let repo = RepoId::of(pr);
    let written = ledger
        .record_decisions(&repo, decisions)
        .and_then(|()| match lesson {
            Some(l) => ledger.add_lesson(&repo, l),
            None => Ok(()),
        });
    Done::DecisionsRecorded(written.map(|()| said).map_err(|e| e.to_string()))
}

/// The precision of the PR's repository, as one line (`pr-shepherd stats` in short).
fn load_stats(ledger: &Ledger, pr: &PrCoords) -> Done {
    let repo = RepoId::of(pr);
    let line = ledger.decisions(&repo).and_then(|d| {
        let spend = ledger.spend(&repo)?;
        Ok(crate::review::stats::compute(&repo.said(), &d, &spend, i64::MIN).line())
    });
    Done::StatsLoaded(line.map_err(|e| e.to_string()))
}
