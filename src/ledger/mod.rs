//! What is remembered per PR on disk, under the state dir (`--state-dir`, else
//! `$PR_SHEPHERD_STATE_DIR`, else the platform's state dir; see [`resolve_state_dir`]). Each PR
//! has one folder, `<state>/prs/<owner>/<repo>/<pr>` ([`Ledger::pr_dir`], the only place that
//! names it; folders of the old `<owner>-<repo>/<pr>` layout move there whole: `layout.rs`):
//!
//! ```text
//! <pr>/seen/<sha256-hex-of-id>.json  seen markers, one file per item (seen.rs, marker.rs)
//! <pr>/seen-index                    a derived cache of the markers (seen_index.rs)
//! <pr>/seen-text.log                 the texts last marked seen, an append-only log, bounded
//!                                    per item and compacted (kept.rs, kept_log.rs); releases
//!                                    before it kept one file each in <pr>/seen-text/ (still read)
//! <pr>/outbox/threads.json           offline thread replies/resolutions (threads.rs)
//! <pr>/reply-draft.json              the console's unposted thread reply (threads.rs)
//! <pr>/reply-intent-<sha256-hex>.json  a live reply about to be sent, until its outcome is
//!                                    known (threads.rs)
//! <pr>/review-intent-<sha256-hex>.json a live review about to be submitted, until its outcome
//!                                    is known (pending.rs)
//! <pr>/post.lock                     held while a run posts to the PR (lock.rs)
//! <pr>/outbox/threads.lock           held while a run appends to the thread outbox (lock.rs)
//! <pr>/runs/<run-id>.json            stored runs: review runs (runs.rs)
//! <pr>/draft.json                    the composer's unposted review (draft.rs)
//! <pr>/outbox/comment.json           the offline "posted" comment (draft.rs)
//! <pr>/pending.json                  the pending review: line comments, findings' drafts
//!                                    (pending.rs)
//! <pr>/outbox/reviews.json           offline submitted reviews, the exact requests (pending.rs)
//! <pr>/outbox/comments.json          offline plain conversation comments, the exact requests
//!                                    (conversation.rs)
//! <pr>/watch.json                    what `watch` last reviewed and answered (written by
//!                                    `commands::watch` through `write_atomic`)
//! <state>/repos/<owner>/<repo>/decisions.jsonl  per repository: what became of each finding,
//!                                              dismissals included (decisions.rs)
//! <state>/repos/<owner>/<repo>/lessons.json    the maintainer's lessons (lessons.rs)
//! <state>/repos/<owner>/<repo>/spend.jsonl     what each LLM call reserved and spent (spend.rs)
//! <state>/repos/<owner>/<repo>/repo.lock       held while one of those is written (repo.rs)
//! ```
//!
//! Every file but the kept-text log is written atomically (a temporary file in the same folder,
//! or for markers in the PR's folder, then rename), so concurrent runs on one PR leave only whole
//! files; the draft, the outbox and reply intents are also fsynced. The log is only ever appended
//! to (under a lock) and replaced whole when compacted. Where a run reads, changes and writes
//! back, or looks and then creates, it holds the PR's lock for it (lock.rs), so concurrent runs
//! take turns. The ledger knows only `pr` (and `par`, and `outfile` for the stale-temp sweep):
//! what a run holds is the caller's type ([`StoredRun`]).

mod actions;
mod code;
mod conversation;
mod decisions;
mod draft;
mod kept;
mod kept_log;
mod layout;
mod lessons;
mod lock;
mod marker;
mod pending;
mod repo;
mod runs;
mod seen;
mod seen_index;
mod sent;
mod spend;
mod threads;
mod viewed;

use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::pr::{PrCoords, RefError};

pub use actions::{ActionOutbox, LookedHead, PrAction};
pub use code::{CODE_DIR, CodeLook, GoneFile, MAX_CODE_BYTES, MAX_KEPT_PATCH_BYTES, ShownPatch};
pub use conversation::OutboxPlainComment;
pub use decisions::{DECISIONS_FILE, Decision, DecisionKind, VIA_COMMENT, VIA_REVIEW};
pub use draft::{Draft, UnsentFiles};
pub use kept::{KEPT_DIR, KEPT_LOG, KeptComment, KeptText, MAX_KEPT_CHARS};
pub use layout::{OldFolder, PRS_DIR, readings as old_name_readings};
pub use lessons::{LESSONS_FILE, Lesson, MAX_LESSONS, lesson_id};
pub use lock::{Busy, Holder, Lock, PrLock, next_pause};
pub use marker::Marker;
pub use pending::{OutboxReview, ReviewIntent};
pub use repo::{REPO_LOCK_WAIT, RepoId};
pub use runs::{RUN_FORMAT, RunProblem, RunRecord, StoredRun};
pub use seen::{MarkFailure, MarkReport, MarkerProblem, SeenSet};
pub use sent::{SENT_PREFIX, Sent, SentLine, SentReview, is_sent_live};
pub use spend::{DaySpend, SPEND_FILE, Spend, SpendKind, counted, runs as spend_runs};
pub use threads::{
    CommentDraft, QUEUED_PREFIX, ReplyDraft, ReplyIntent, THREAD_OUTBOX_WAIT, ThreadAction,
    ThreadActionKind, ThreadOutbox, apply_queued, is_queued, normalized_reply, queued_resolution,
    reply_body_hash,
};
pub use viewed::{ViewedAction, ViewedOutbox};

/// The environment variable that chooses the state dir.
pub const STATE_DIR_ENV: &str = "PR_SHEPHERD_STATE_DIR";

#[derive(Debug, Error)]
pub enum LedgerError {
    #[error(transparent)]
    BadName(#[from] RefError),
    #[error("cannot {action} `{}`: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cannot move the state folder `{}` to `{}` (the new layout): {source}",
        from.display(),
        to.display()
    )]
    Move {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no state directory: set {STATE_DIR_ENV} or pass --state-dir (no home directory was found)"
    )]
    NoStateDir,
    /// A per-PR lock stayed held by another run for the whole bounded wait (`lock.rs`).
    #[error("{}", lock::busy_message(.path, .holder, .waited))]
    Busy {
        path: PathBuf,
        holder: Option<Holder>,
        waited: std::time::Duration,
    },
}

impl LedgerError {
    pub(crate) fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| LedgerError::Io {
            action,
            path,
            source,
        }
    }
}

/// The on-disk ledger rooted at the state dir.
#[derive(Debug, Clone)]
pub struct Ledger {
    root: PathBuf,
    /// Unix seconds the ledger's reads take as now (which marker files have settled enough to
    /// be cached); `None` = the wall clock. Set by tests, so none waits for a file to age.
    clock: Option<i64>,
}

/// `o/r#number`: the one PR the ledger's unit tests write for.
#[cfg(test)]
pub(crate) fn test_coords(number: u64) -> PrCoords {
    PrCoords {
        host: None,
        owner: "o".into(),
        repo: "r".into(),
        number,
    }
}

/// Picks the state dir: `explicit` (`--state-dir`, else `$PR_SHEPHERD_STATE_DIR`, both read by
/// `commands::Context`), else the platform's state (or local data) dir for pr-shepherd.
pub fn resolve_state_dir(explicit: Option<&Path>) -> Result<PathBuf, LedgerError> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    let dirs = directories::ProjectDirs::from("dev", "pr-shepherd", "pr-shepherd")
        .ok_or(LedgerError::NoStateDir)?;
    Ok(dirs
        .state_dir()
        .unwrap_or_else(|| dirs.data_local_dir())
        .to_path_buf())
}

impl Ledger {
    /// The same ledger reading as if it were `now` (unix seconds): a test's way to let files
    /// settle without waiting.
    pub fn at(mut self, now: i64) -> Ledger {
        self.clock = Some(now);
        self
    }

    /// Now, for the ledger's reads: the injected clock, else the wall clock.
    pub(crate) fn now(&self) -> i64 {
        self.clock.unwrap_or_else(|| chrono::Utc::now().timestamp())
    }

    pub fn new(root: impl Into<PathBuf>) -> Ledger {
        Ledger {
            root: root.into(),
            clock: None,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn seen_dir(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("seen"))
    }

    /// Creates the PR's seen dir and proves it is writable, so a listing can say up front that
    /// markers will not be saved.
    pub fn check_writable(&self, pr: &PrCoords) -> Result<(), LedgerError> {
        let dir = self.seen_dir(pr)?;
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(&dir)
            .map_err(LedgerError::io("write to", &dir))?;
        Ok(())
    }

    /// Forgets what was seen on the PR: the seen markers and their derived index (every item
    /// surfaces as new again). The draft, the outbox, the run history and `watch.json` stay.
    /// Whatever else records "what was seen" (kept texts, the last look at the code) is removed here too, so `state clear`
    /// stays one call. Returns the number of marker files removed (the index is not counted).
    pub fn forget_seen(&self, pr: &PrCoords) -> Result<usize, LedgerError> {
        let mut removed = 0;
        let seen = self.seen_dir(pr)?;
        if seen.exists() {
            removed += count_files(&seen);
            std::fs::remove_dir_all(&seen).map_err(LedgerError::io("remove", &seen))?;
        }
        let index = self.pr_dir(pr)?.join(seen_index::INDEX_FILE);
        match std::fs::remove_file(&index) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LedgerError::io("remove", &index)(e)),
        }
        self.forget_kept(pr)?;
        self.forget_code(pr)?;
        Ok(removed)
    }

    /// Whether the PR has an unposted draft on disk (the review draft or a thread reply;
    /// readable or not).
    pub fn has_draft(&self, pr: &PrCoords) -> Result<bool, LedgerError> {
        let dir = self.pr_dir(pr)?;
        Ok(dir.join("draft.json").exists() || dir.join("reply-draft.json").exists())
    }

    /// Removes the stale temporary files a killed run left in the PR's folders (its own name
    /// pattern only, only older than [`STALE_TEMP_AFTER`]; see [`sweep_stale_temps`]). Markers'
    /// temporary files are made in the PR's folder itself; the seen folder, which only releases
    /// before made them in, is swept when an old folder is moved and whenever it is listed
    /// whole (`load_seen`, `state prune`). Returns how many were removed.
    pub fn sweep_temps(&self, pr: &PrCoords) -> usize {
        let Ok(dir) = self.pr_dir(pr) else {
            return 0;
        };
        let now = std::time::SystemTime::now();
        [
            dir.clone(),
            dir.join("runs"),
            dir.join("outbox"),
            dir.join(kept::KEPT_DIR),
        ]
        .iter()
        .map(|d| sweep_stale_temps(d, now))
        .sum()
    }

    /// Removes everything remembered about the PR. Returns the number of files removed.
    pub fn clear(&self, pr: &PrCoords) -> Result<usize, LedgerError> {
        let dir = self.pr_dir(pr)?;
        if !dir.exists() {
            return Ok(0);
        }
        let count = count_files(&dir);
        std::fs::remove_dir_all(&dir).map_err(LedgerError::io("remove", &dir))?;
        tracing::debug!(path = %dir.display(), files = count, "state removed");
        Ok(count)
    }
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => count_files(&e.path()),
                    Ok(_) => 1,
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// The name prefix of every temporary file the ledger writes before renaming it into place.
pub const TEMP_PREFIX: &str = ".tmp-";

pub use crate::outfile::STALE_TEMP_AFTER;

/// True for the ledger's own temporary file names: [`TEMP_PREFIX`] plus the six letters or digits
/// `tempfile` adds, and nothing else (so no other file is ever taken for one).
pub fn is_own_temp(name: &str) -> bool {
    crate::outfile::is_temp_name(name, TEMP_PREFIX)
}

/// Removes the stale temporary files of the ledger's own pattern ([`is_own_temp`]) in `dir`
/// (not below it; see [`crate::outfile::sweep_stale_temps`]).
pub fn sweep_stale_temps(dir: &Path, now: std::time::SystemTime) -> usize {
    crate::outfile::sweep_stale_temps(dir, TEMP_PREFIX, now)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then renamed over
/// the target. Readers see the old file or the new one, never a part.
///
/// No fsync: after a power loss a marker may be lost or empty, which only re-surfaces its item
/// (the safe direction), and syncing each of 10,000 markers took 45 s on this machine. Use
/// [`write_atomic_synced`] for files whose loss would lose work (drafts).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LedgerError> {
    logged_write(path, bytes, write_atomic_inner(path, bytes, false, None))
}

/// [`write_atomic`] plus an fsync of the data before the rename.
pub fn write_atomic_synced(path: &Path, bytes: &[u8]) -> Result<(), LedgerError> {
    logged_write(path, bytes, write_atomic_inner(path, bytes, true, None))
}

/// [`write_atomic`] with the temporary file made in `tmp_dir` (on the same file system) and
/// renamed from there: the seen markers are written so, from the PR's folder into `seen/`, so
/// `seen/` never holds a temporary file and is never listed to sweep one. Where the rename
/// cannot cross (another file system), the temporary file is made beside the target instead.
pub(crate) fn write_atomic_via(
    tmp_dir: &Path,
    path: &Path,
    bytes: &[u8],
) -> Result<(), LedgerError> {
    let result = match write_atomic_inner(path, bytes, false, Some(tmp_dir)) {
        Err(LedgerError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::CrossesDevices =>
        {
            write_atomic_inner(path, bytes, false, None)
        }
        other => other,
    };
    logged_write(path, bytes, result)
}

/// Says a state-dir write in the debug log (`crate::debuglog`), then passes its result on.
fn logged_write(
    path: &Path,
    bytes: &[u8],
    result: Result<(), LedgerError>,
) -> Result<(), LedgerError> {
    match &result {
        Ok(()) => tracing::debug!(path = %path.display(), bytes = bytes.len(), "state write"),
        Err(e) => tracing::debug!(path = %path.display(), error = %e, "state write failed"),
    }
    result
}

fn write_atomic_inner(
    path: &Path,
    bytes: &[u8],
    sync: bool,
    tmp_dir: Option<&Path>,
) -> Result<(), LedgerError> {
    let target_dir = path.parent().unwrap_or(Path::new("."));
    let dir = tmp_dir.unwrap_or(target_dir);
    let temp = || {
        tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)
    };
    // The folder is created only when it is missing (not asked for again for every file).
    let mut tmp = match temp() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(LedgerError::io("create", dir))?;
            temp()
        }
        other => other,
    }
    .map_err(LedgerError::io("write to", dir))?;
    tmp.write_all(bytes)
        .and_then(|()| {
            if sync {
                tmp.as_file().sync_data()
            } else {
                Ok(())
            }
        })
        .map_err(LedgerError::io("write", tmp.path()))?;
    tmp.persist(path)
        .map_err(|e| LedgerError::io("replace", path)(e.error))?;
    Ok(())
}
