//! Per-PR locks in the state dir, so that concurrent runs on one PR take turns wherever a
//! look-then-act must not interleave:
//!
//! ```text
//! <pr>/post.lock             posting: the Shepherd comment's look-then-create, a thread reply
//! <pr>/outbox/threads.lock   the offline thread outbox's read-append-write
//! ```
//!
//! A lock is the operating system's exclusive lock on that file (`flock` on Unix, `LockFileEx`
//! on Windows), held for as long as the returned [`PrLock`] lives. The operating system ends it
//! with its process, so a holder that died — `kill -9` included — leaves nothing held: the lock
//! is stale the moment its holder is gone, with no pid to probe and no file to clean up (and so
//! no race between two runs that both think they are cleaning up). The file's content only says
//! who holds it — pid, since when, doing what — for the message of a run that waited in vain.
//! A wait is always bounded ([`Ledger::lock`]): never a deadlock, and the message names the
//! holder.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Seek, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError};
use crate::pr::PrCoords;

/// Which of a PR's locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// Posting to the PR: the Shepherd comment and thread replies.
    Post,
    /// Appending to the offline thread outbox.
    ThreadOutbox,
}

impl Lock {
    /// What the holder is doing, for the waiter's message.
    pub fn doing(self) -> &'static str {
        match self {
            Lock::Post => "posting to the PR",
            Lock::ThreadOutbox => "writing the thread outbox",
        }
    }
}

/// Who holds a lock, as its file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    pub pid: u32,
    /// Unix seconds.
    pub since: i64,
    pub doing: String,
}

/// A held lock; dropping it lets the next run in.
#[derive(Debug)]
pub struct PrLock {
    file: File,
    path: PathBuf,
}

impl PrLock {
    /// The lock file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for PrLock {
    fn drop(&mut self) {
        // Still held here: no other run reads a half-cleared file as its holder.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// The message of a lock that stayed busy for the whole wait.
pub(super) fn busy_message(
    path: &std::path::Path,
    holder: &Option<Holder>,
    waited: &Duration,
) -> String {
    let who = match holder {
        Some(h) => {
            let since = chrono::DateTime::<chrono::Utc>::from_timestamp(h.since, 0)
                .map_or_else(|| h.since.to_string(), |t| t.to_rfc3339());
            format!(
                "another pr-shepherd run (pid {}, {} since {since})",
                h.pid,
                crate::sanitize::one_line(&h.doing)
            )
        }
        None => "another pr-shepherd run".to_owned(),
    };
    format!(
        "{who} holds the lock `{}`; waited {} s for it. Try again once it has finished \
         (a run that died holds nothing)",
        path.display(),
        waited.as_secs()
    )
}

impl Ledger {
    fn lock_path(&self, pr: &PrCoords, lock: Lock) -> Result<PathBuf, LedgerError> {
        let dir = self.pr_dir(pr)?;
        Ok(match lock {
            Lock::Post => dir.join("post.lock"),
            Lock::ThreadOutbox => dir.join("outbox").join("threads.lock"),
        })
    }

    /// Takes `lock` of the PR if it is free; [`Busy`] (with its holder as the file says, if
    /// readable) when another run holds it.
    pub fn try_lock(&self, pr: &PrCoords, lock: Lock) -> Result<Result<PrLock, Busy>, LedgerError> {
        let path = self.lock_path(pr, lock)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(LedgerError::io("create", dir))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(LedgerError::io("open", &path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = std::fs::read(&path)
                    .ok()
                    .and_then(|b| serde_json::from_slice(&b).ok());
                return Ok(Err(Busy { path, holder }));
            }
            Err(TryLockError::Error(e)) => return Err(LedgerError::io("lock", &path)(e)),
        }
        let holder = Holder {
            pid: std::process::id(),
            since: chrono::Utc::now().timestamp(),
            doing: lock.doing().to_owned(),
        };
        // Who holds it is for messages only; a failure to say so does not fail the lock.
        let said = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(&serde_json::to_vec(&holder).unwrap_or_default()));
        if let Err(e) = said {
            tracing::debug!(path = %path.display(), error = %e, "lock holder not written");
        }
        tracing::debug!(path = %path.display(), "lock taken");
        Ok(Ok(PrLock { file, path }))
    }

    /// Takes `lock` of the PR, waiting for it at most `wait`; after that, an error naming the
    /// holder ([`LedgerError::Busy`]). Blocks the calling thread while it waits (an async caller
    /// loops over [`Ledger::try_lock`] with [`next_pause`] instead).
    pub fn lock(&self, pr: &PrCoords, lock: Lock, wait: Duration) -> Result<PrLock, LedgerError> {
        let start = Instant::now();
        let mut pause = Duration::ZERO;
        loop {
            let busy = match self.try_lock(pr, lock)? {
                Ok(held) => return Ok(held),
                Err(busy) => busy,
            };
            pause = next_pause(pause, start.elapsed(), wait)
                .ok_or_else(|| busy.gave_up(start.elapsed()))?;
            std::thread::sleep(pause);
        }
    }
}

/// A lock another run holds.
#[derive(Debug)]
pub struct Busy {
    path: PathBuf,
    holder: Option<Holder>,
}

impl Busy {
    /// The error of a wait that ended after `waited` with the lock still held.
    pub fn gave_up(self, waited: Duration) -> LedgerError {
        LedgerError::Busy {
            path: self.path,
            holder: self.holder,
            waited,
        }
    }
}

/// How long to pause before trying a busy lock again, after `last` and `waited` of a `wait`:
/// from 5 ms, doubling up to 100 ms, never past the end of the wait; `None` once it is over.
pub fn next_pause(last: Duration, waited: Duration, wait: Duration) -> Option<Duration> {
    let left = wait.checked_sub(waited).filter(|l| !l.is_zero())?;
    Some(
        (last * 2)
            .clamp(Duration::from_millis(5), Duration::from_millis(100))
            .min(left),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords() -> PrCoords {
        crate::ledger::test_coords(5)
    }

    #[test]
    fn one_holder_at_a_time_and_the_next_gets_it_after_release() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let held = ledger
            .lock(&coords(), Lock::Post, Duration::ZERO)
            .expect("free");
        let busy = ledger.try_lock(&coords(), Lock::Post).expect("io");
        let holder = busy.expect_err("held").holder.expect("the holder is named");
        assert_eq!(holder.pid, std::process::id());
        assert_eq!(holder.doing, "posting to the PR");
        // The other lock of the PR is independent.
        let outbox = ledger.try_lock(&coords(), Lock::ThreadOutbox).expect("io");
        assert!(outbox.is_ok());
        drop(held);
        assert!(ledger.try_lock(&coords(), Lock::Post).expect("io").is_ok());
    }

    #[test]
    fn a_busy_lock_is_a_clear_error_after_the_bounded_wait() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let _held = ledger
            .lock(&coords(), Lock::Post, Duration::ZERO)
            .expect("free");
        let err = ledger
            .lock(&coords(), Lock::Post, Duration::from_millis(30))
            .expect_err("busy");
        assert!(matches!(err, LedgerError::Busy { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id()))
                && msg.contains("posting to the PR")
                && msg.contains("post.lock")
                && msg.contains("Try again"),
            "{msg}"
        );
    }

    #[test]
    fn pauses_grow_and_never_outlast_the_wait() {
        let ms = Duration::from_millis;
        assert_eq!(next_pause(Duration::ZERO, ms(0), ms(1000)), Some(ms(5)));
        assert_eq!(next_pause(ms(5), ms(5), ms(1000)), Some(ms(10)));
        assert_eq!(next_pause(ms(80), ms(300), ms(1000)), Some(ms(100)));
        assert_eq!(next_pause(ms(100), ms(990), ms(1000)), Some(ms(10)));
        assert_eq!(next_pause(ms(100), ms(1000), ms(1000)), None);
        assert_eq!(next_pause(ms(5), ms(0), Duration::ZERO), None);
    }

    #[test]
    fn a_lock_file_left_by_a_dead_holder_is_taken_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let path = ledger.lock_path(&coords(), Lock::Post).expect("path");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        // What a killed run leaves: its pid in the file, no lock held by anyone.
        std::fs::write(
            &path,
            br#"{"pid":4000000,"since":1,"doing":"posting to the PR"}"#,
        )
        .expect("write");
        let held = ledger
            .lock(&coords(), Lock::Post, Duration::ZERO)
            .expect("stale");
        let now: Holder =
            serde_json::from_slice(&std::fs::read(held.path()).expect("read")).expect("holder");
        assert_eq!(now.pid, std::process::id());
        drop(held);
        assert_eq!(
            std::fs::read(&path).expect("read"),
            b"",
            "released: nobody named"
        );
    }
}
