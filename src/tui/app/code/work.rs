//! The files and diff screens' own effects ([`Work`]) and their results ([`Done`]): what they
//! read once when the files are opened (the last look at the code, the patches shown then, the
//! latest findings, the offline viewed marks), the pending review under the diff's lines, and
//! recording the patches a drawn frame showed, as headless `files` and `diff` do. Their viewed
//! marks are a write through the session's remote, a shared effect (`Effect::SetViewed`). The
//! screens' I/O edge: only the effect runner performs it (see `app/work.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use crate::code::SinceLastLook;
use crate::code::pending::PendingReview;
use crate::ledger::Ledger;
use crate::output::files::latest_findings;
use crate::pr::{ChangedFile, PrCoords, Snapshot};
use crate::source::github::contents::file_for_console;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};
use crate::tui::session::Session;

/// What the files and diff screens ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// Read what the files and diff screens need beside the snapshot: the last look at the
    /// code, the patches shown then of the files changed since, the latest Shepherd findings
    /// and (offline) the viewed marks in the outbox.
    Load { snapshot: Box<Snapshot> },
    /// Read the pending review for the diff (its comments and findings' drafts under their
    /// lines), as the pending review screen reads it.
    LoadPending { snapshot: Box<Snapshot> },
    /// Change the pending review from the diff (a comment written beside the code, a draft
    /// kept, edited or dropped there): read as `LoadPending` reads it, changed and saved in one
    /// step on the ledger lane, so no change made elsewhere is written over.
    ChangePending {
        snapshot: Box<Snapshot>,
        change: PendingChange,
    },
    /// A finding dismissed in the diff, with its reason (and a lesson for the repository):
    /// recorded in the decision log, the one record every list reads.
    Dismiss {
        pr: PrCoords,
        decision: Box<crate::ledger::Decision>,
        lesson: Option<Box<crate::ledger::Lesson>>,
        said: String,
    },
    /// The frame that showed these files' patches is on screen: record them as seen (the last
    /// look at the code; never moved back, nothing recorded for a file not shown).
    RecordShown {
        pr: PrCoords,
        files: Vec<ChangedFile>,
        /// Every path of the PR at this look.
        all: Vec<String>,
    },
    /// The file `o` opens in the editor, at the cursor's line (`editor_file.rs`): the real file
    /// of a checkout at the PR's head, else a read-only copy of its version at that side.
    EditorFile(Box<super::editor_file::EditorFile>),
    /// Read a file's texts for the diff's context on demand (`e`/`E`): `head` (the new path at
    /// the PR's head) and `base` (the old path at its base), each only when the file has that
    /// side; live once per blob (the session's cache), offline from the fixture.
    Contents {
        pr: PrCoords,
        /// The file as the diff names it (its new path).
        path: String,
        /// `(commit, path)` of each side to read.
        head: Option<(String, String)>,
        base: Option<(String, String)>,
    },
}

/// A change of the pending review asked from the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingChange {
    /// A new comment (a suggestion or not) on the selected lines.
    Add {
        sel: crate::code::patch::LineSelection,
        text: String,
        suggestion: bool,
    },
    /// A comment's or draft's text, rewritten.
    Edit { id: String, text: String },
    /// A finding's draft (or a dropped comment) kept for the review.
    Keep { id: String },
    /// A comment or draft dropped.
    Drop { id: String },
}

/// What comes back to the files and diff screens.
#[derive(Debug, Clone)]
pub enum Done {
    /// What the files and diff screens need beside the snapshot (or why it could not be read).
    Loaded(Result<Box<CodeLoad>, String>),
    /// The pending review, read for the diff (or why not).
    Pending(Result<Box<PendingReview>, String>),
    /// The pending review as changed and saved, with what was done in words (or why not).
    PendingChanged(Result<(Box<PendingReview>, String), String>),
    /// A dismissal recorded (what to say), or why not.
    Dismissed {
        finding: String,
        result: Result<String, String>,
    },
    /// The shown patches of `paths` were recorded as seen (how many records), or why not.
    Shown {
        paths: Vec<String>,
        result: Result<usize, String>,
    },
    /// The file for the editor is ready (or why not); the diff runs the editor on it.
    EditorFile(Result<super::editor_file::Prepared, String>),
    /// The texts of file `path` for its context on demand: each side asked, or why it is not
    /// shown (over 1 MiB, binary, missing, a failed request), sanitized words.
    Contents {
        path: String,
        head: Option<Result<Arc<str>, String>>,
        base: Option<Result<Arc<str>, String>>,
    },
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        match self {
            Work::Load { .. } | Work::EditorFile(_) | Work::Contents { .. } => Lane::Fetch,
            Work::LoadPending { .. }
            | Work::ChangePending { .. }
            | Work::Dismiss { .. }
            | Work::RecordShown { .. } => Lane::Ledger,
        }
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let done = match self {
                Work::Load { snapshot } => Done::Loaded(
                    read(io.ledger, io.session, &snapshot)
                        .map(Box::new)
                        .map_err(|e| format!("{}: {e}", snapshot.pr.coords())),
                ),
                Work::LoadPending { snapshot } => Done::Pending(
                    read_pending(io, &snapshot)
                        .await
                        .map(Box::new)
                        .map_err(|e| e.to_string()),
                ),
                Work::ChangePending { snapshot, change } => {
                    Done::PendingChanged(change_pending(io, &snapshot, change).await)
                }
                Work::Dismiss {
                    pr,
                    decision,
                    lesson,
                    said,
                } => {
                    let repo = crate::ledger::RepoId::of(&pr);
                    let written = io
                        .ledger
                        .record_decisions(&repo, std::slice::from_ref(&*decision))
                        .and_then(|()| match lesson {
                            Some(l) => io.ledger.add_lesson(&repo, *l),
                            None => Ok(()),
                        });
                    Done::Dismissed {
                        finding: decision.finding.clone(),
                        result: written.map(|()| said).map_err(|e| e.to_string()),
                    }
                }
                Work::RecordShown { pr, files, all } => {
                    record_shown(io.ledger, &pr, &files, &all, io.now)
                }
                Work::EditorFile(ask) => {
                    Done::EditorFile(super::editor_file::prepare(io, &ask).await)
                }
                Work::Contents {
                    pr,
                    path,
                    head,
                    base,
                } => {
                    let gh = io.session.remote.github().map(|g| g.as_ref());
                    // Offline, the fixture's recorded texts (read once: a file's two sides).
                    let fixture = if gh.is_none() {
                        (io.fixture_of)(&pr)
                    } else {
                        None
                    };
                    let read = async |side: Option<(String, String)>| match side {
                        None => None,
                        Some((commit, file)) => Some(
                            file_for_console(gh, fixture.as_ref(), io.blobs, &pr, &commit, &file)
                                .await
                                .map(|f| f.text)
                                .map_err(|e| crate::sanitize::one_line(&e.to_string())),
                        ),
                    };
                    let head = read(head).await;
                    let base = read(base).await;
                    Done::Contents { path, head, base }
                }
            };
            send(work::Done::new(done));
        })
    }
}

/// What the files and diff screens read beside the snapshot, once, when the files are opened.
#[derive(Debug, Clone)]
pub struct CodeLoad {
    /// The PR it was read for.
    pub pr: PrCoords,
    /// The last look at the PR's code before this visit.
    pub look: crate::ledger::CodeLook,
    /// The patch shown at the last look, of each file whose patch changed since (the interdiff's
    /// "before"); read before anything of this visit is recorded.
    pub before: std::collections::HashMap<String, String>,
    /// The latest Shepherd review's findings.
    pub findings: Vec<crate::output::files::FindingMark>,
    /// The findings of the PR's latest review run at this head (posted or not): what its
    /// drafts in the pending review were made from, for a dismissal in the diff.
    pub drafted: Vec<crate::output::files::FindingMark>,
    /// Offline, the viewed state the outbox gives each file (by path).
    pub viewed: std::collections::HashMap<String, crate::pr::ViewedState>,
}

impl CodeLoad {
    /// What is known of `pr`'s code before anything is read: no last look, no findings, no
    /// offline viewed marks.
    pub fn empty(pr: PrCoords) -> CodeLoad {
        CodeLoad {
            pr,
            look: Default::default(),
            before: HashMap::new(),
            findings: Vec::new(),
            drafted: Vec::new(),
            viewed: HashMap::new(),
        }
    }
}

/// The pending review as the pending review screen reads it: the latest findings proposed as
/// drafts, the comments followed to the PR's head (offline, between the fixture's texts).
async fn read_pending(
    io: &Io<'_>,
    snapshot: &Snapshot,
) -> Result<PendingReview, crate::ledger::LedgerError> {
    let gh = io.session.remote.github().map(|g| g.as_ref());
    let fixture = if gh.is_none() {
        (io.fixture_of)(&snapshot.pr.coords())
    } else {
        None
    };
    let texts = crate::publish::review::TextSource {
        gh,
        fixture: fixture.as_ref(),
        cache: Some(io.blobs),
    };
    crate::publish::review::load_with_drafts(io.ledger, snapshot, texts).await
}

/// Reads the pending review, makes `change` and saves it (fsynced): the review as saved and
/// what was done, in words.
async fn change_pending(
    io: &Io<'_>,
    snapshot: &Snapshot,
    change: PendingChange,
) -> Result<(Box<PendingReview>, String), String> {
    let mut review = read_pending(io, snapshot)
        .await
        .map_err(|e| e.to_string())?;
    let said = match change {
        PendingChange::Add {
            sel,
            text,
            suggestion,
        } => {
            let id = review
                .add_selection(&sel, &text, suggestion)
                .map_err(|e| e.to_string())?;
            // It remembers the lines it was written on, to follow them across a push.
            let patches = crate::review::results::inline::parsed_patches(snapshot);
            review.anchor(&id, &crate::publish::review::diff_at(snapshot, &patches));
            let place = review.get(&id).map(|c| c.place()).unwrap_or_default();
            format!(
                "added {} {id} at {} to the pending review (P lists it)",
                if suggestion { "suggestion" } else { "comment" },
                crate::sanitize::one_line(&place)
            )
        }
        PendingChange::Edit { id, text } => {
            review.edit(&id, &text).map_err(|e| e.to_string())?;
            format!("{id} edited")
        }
        PendingChange::Keep { id } => {
            review.keep(&id).map_err(|e| e.to_string())?;
            format!("{id} kept: it goes with the pending review")
        }
        PendingChange::Drop { id } => {
            review.drop_comment(&id).map_err(|e| e.to_string())?;
            format!("{id} dropped (Enter on it keeps it again)")
        }
    };
    review.saved_at = io.now;
    io.ledger
        .save_pending(&snapshot.pr.coords(), &review)
        .map_err(|e| e.to_string())?;
    Ok((Box::new(review), said))
}

fn read(ledger: &Ledger, session: &Session, snapshot: &Snapshot) -> Result<CodeLoad, String> {
    let coords = snapshot.pr.coords();
    let look = ledger.code_look(&coords).map_err(|e| e.to_string())?;
    let before = snapshot
        .pr
        .files
        .iter()
        .filter(|f| look.since(f) == SinceLastLook::Changed)
        .filter_map(|f| Some((f.path.clone(), ledger.last_shown_patch(&coords, &look, f)?)))
        .collect();
    let mut viewed = HashMap::new();
    let outbox = if session.remote.reads_outbox() {
        // Offline, what `file viewed` (or this screen) put in the outbox is the viewed state.
        let marks = ledger.viewed_outbox(&coords).map_err(|e| e.to_string())?;
        let mut files: Vec<ChangedFile> = snapshot.pr.files.clone();
        marks.apply(&mut files);
        for f in files {
            viewed.insert(f.path, f.viewed);
        }
        ledger.outbox(&coords).map_err(|e| e.to_string())?
    } else {
        None
    };
    // What the maintainer dismissed since is decided: not shown on its line as still to read
    // (an unreadable log hides nothing).
    let dismissed: std::collections::HashSet<String> = ledger
        .dismissals(&coords)
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.finding)
        .collect();
    let findings = latest_findings(snapshot, session.identity(), outbox)
        .into_iter()
        .filter(|f| !dismissed.contains(&f.id))
        .collect();
    let head = &snapshot.pr.head_sha;
    let drafted = ledger
        .load_runs::<crate::review::ReviewRun>(&coords)
        .ok()
        .and_then(|(runs, _)| runs.into_iter().last())
        .filter(|r| r.head_sha.is_empty() || r.head_sha == *head)
        .map(|r| {
            r.findings()
                .map(crate::review::results::aggregate::to_meta)
                .map(crate::output::files::FindingMark::from)
                .filter(|f| !dismissed.contains(&f.id))
                .collect()
        })
        .unwrap_or_default();
    Ok(CodeLoad {
        pr: coords,
        look,
        before,
        findings,
        drafted,
        viewed,
    })
}

/// Records `files` as shown at `now`, `all` the PR's paths at this look.
fn record_shown(
    ledger: &Ledger,
    pr: &PrCoords,
    files: &[ChangedFile],
    all: &[String],
    now: i64,
) -> Done {
    let shown: Vec<&ChangedFile> = files.iter().collect();
    Done::Shown {
        paths: files.iter().map(|f| f.path.clone()).collect(),
        result: ledger
            .record_shown(pr, &shown, all, now)
            .map_err(|e| e.to_string()),
    }
}
