//! What is remembered per repository (not per PR), under the state dir:
//!
//! ```text
//! <state>/repos/<owner>/<repo>/decisions.jsonl  what became of each finding (decisions.rs)
//! <state>/repos/<owner>/<repo>/lessons.json     the maintainer's lessons (lessons.rs)
//! <state>/repos/<owner>/<repo>/spend.jsonl      what each LLM call reserved and spent (spend.rs)
//! <state>/repos/<owner>/<repo>/repo.lock        held while one of them is written
//! ```
//!
//! (`repos/@<host>/<owner>/<repo>` for a GitHub Enterprise host.) One folder per repository,
//! named by owner and repository separately, so two repositories never share one. The logs are
//! append-only JSON lines: a line is appended whole under the repository's lock and fsynced
//! before the write is acknowledged; a reader skips a torn last line (a writer killed mid-line)
//! and refuses a broken line anywhere else, naming the file and line. An append first ends the
//! log with a whole line (`end_torn_tail`): a torn last line of any length is dropped, one that
//! parses whole gets its newline, so nothing is ever appended after an unterminated line.

use std::fs::{OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Ledger, LedgerError};
use crate::pr::{PrCoords, RefError, validate_owner, validate_repo};

/// A repository: the unit lessons, decisions and spend are kept per.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoId {
    /// The Enterprise host; `None` for github.com.
    pub host: Option<String>,
    pub owner: String,
    pub repo: String,
}

impl RepoId {
    pub fn of(pr: &PrCoords) -> RepoId {
        RepoId {
            host: pr.host.clone(),
            owner: pr.owner.clone(),
            repo: pr.repo.clone(),
        }
    }

    /// `owner/repo` (with the host in front for Enterprise).
    pub fn said(&self) -> String {
        match &self.host {
            Some(h) => format!("{h}/{}/{}", self.owner, self.repo),
            None => format!("{}/{}", self.owner, self.repo),
        }
    }

    /// Parses `OWNER/REPO` (checked like a PR reference's).
    pub fn parse(text: &str) -> Result<RepoId, RefError> {
        let (owner, repo) = text.trim().split_once('/').ok_or_else(|| {
            RefError::Invalid(format!(
                "`{}` is not OWNER/REPO",
                crate::sanitize::one_line(text)
            ))
        })?;
        validate_owner(owner)?;
        validate_repo(repo)?;
        Ok(RepoId {
            host: None,
            owner: owner.to_owned(),
            repo: repo.to_owned(),
        })
    }

    fn validate(&self) -> Result<(), RefError> {
        validate_owner(&self.owner)?;
        validate_repo(&self.repo)?;
        if let Some(h) = &self.host
            && (h.is_empty()
                || h.starts_with('.')
                || !h
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':')))
        {
            return Err(RefError::Invalid("not a valid host name".to_owned()));
        }
        Ok(())
    }
}

/// How long a write waits for another run's write to the same repository (each is one append
/// or one small rewrite).
pub const REPO_LOCK_WAIT: Duration = Duration::from_secs(30);

impl Ledger {
    /// `<root>/repos/<owner>/<repo>` (`repos/@<host>/…` for Enterprise), after checking the names
    /// cannot leave the root.
    pub fn repo_dir(&self, repo: &RepoId) -> Result<PathBuf, LedgerError> {
        repo.validate()?;
        let mut dir = self.root().join("repos");
        if let Some(h) = &repo.host {
            dir.push(format!("@{h}"));
        }
        Ok(dir.join(&repo.owner).join(&repo.repo))
    }

    /// Every repository with a folder under `repos/` (github.com ones; Enterprise hosts are
    /// listed with their host), sorted.
    pub fn repos(&self) -> Vec<RepoId> {
        let mut out = Vec::new();
        let base = self.root().join("repos");
        let list = |dir: &Path| -> Vec<String> {
            std::fs::read_dir(dir)
                .map(|rd| {
                    rd.flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .filter_map(|e| e.file_name().into_string().ok())
                        .collect()
                })
                .unwrap_or_default()
        };
        for first in list(&base) {
            let (host, owners_dir) = match first.strip_prefix('@') {
                Some(h) => (Some(h.to_owned()), base.join(&first)),
                None => (None, base.clone()),
            };
            let owners = if host.is_some() {
                list(&owners_dir)
            } else {
                vec![first.clone()]
            };
            for owner in owners {
                for repo in list(&owners_dir.join(&owner)) {
                    let id = RepoId {
                        host: host.clone(),
                        owner: owner.clone(),
                        repo,
                    };
                    if id.validate().is_ok() {
                        out.push(id);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Runs `f` holding the repository's lock (`repo.lock`), waiting at most
    /// [`REPO_LOCK_WAIT`] for another run's.
    pub(crate) fn with_repo_lock<T>(
        &self,
        repo: &RepoId,
        f: impl FnOnce(&Path) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        let dir = self.repo_dir(repo)?;
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        let path = dir.join("repo.lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(LedgerError::io("open", &path))?;
        let start = Instant::now();
        let mut pause = Duration::ZERO;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    pause = super::next_pause(pause, start.elapsed(), REPO_LOCK_WAIT).ok_or(
                        LedgerError::Busy {
                            path: path.clone(),
                            holder: None,
                            waited: start.elapsed(),
                        },
                    )?;
                    std::thread::sleep(pause);
                }
                Err(TryLockError::Error(e)) => return Err(LedgerError::io("lock", &path)(e)),
            }
        }
        let out = f(&dir);
        let _ = file.unlock();
        out
    }

    /// Appends `lines` to the repository's JSON-lines log `name`, whole, under its lock, and
    /// syncs them before returning.
    pub(crate) fn append_lines<T: Serialize>(
        &self,
        repo: &RepoId,
        name: &str,
        lines: &[T],
    ) -> Result<(), LedgerError> {
        if lines.is_empty() {
            return Ok(());
        }
        self.with_repo_lock(repo, |dir| append_held(dir, name, lines))
    }

    /// Every line of the repository's log `name` (none when there is no log). A torn last line
    /// is skipped; a broken line elsewhere is an error naming the file and line.
    pub(crate) fn read_lines<T: DeserializeOwned>(
        &self,
        repo: &RepoId,
        name: &str,
    ) -> Result<Vec<T>, LedgerError> {
        let path = self.repo_dir(repo)?.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LedgerError::io("read", &path)(e)),
        };
        parse_lines(&text, &path)
    }
}

/// Appends `lines` to the log `name` in the repository folder `dir`, whose lock the caller holds
/// ([`Ledger::with_repo_lock`]), and syncs them before returning.
pub(crate) fn append_held<T: Serialize>(
    dir: &Path,
    name: &str,
    lines: &[T],
) -> Result<(), LedgerError> {
    if lines.is_empty() {
        return Ok(());
    }
    let path = dir.join(name);
    let mut text = String::new();
    for l in lines {
        let one = serde_json::to_string(l).map_err(|e| LedgerError::Io {
            action: "encode",
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        text.push_str(&one);
        text.push('\n');
    }
    // A line left without its newline by a killed writer is ended or dropped first (nobody
    // else writes while the lock is held), so an append never glues onto it.
    end_torn_tail(&path)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(LedgerError::io("open", &path))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(LedgerError::io("write", &path))?;
    tracing::debug!(path = %path.display(), lines = lines.len(), "state append");
    Ok(())
}

/// A last line longer than this is never a record (records are bounded far below it, and were
/// never near it): it is cut off without being read.
const MAX_LINE_BYTES: u64 = 64 << 20;

/// Ends the log with a whole line before an append (nobody else writes while the repository's
/// lock is held), so nothing is ever appended after an unterminated line: a last line without
/// its newline (a writer killed before it) that parses whole is a record and gets its newline;
/// one that does not (killed mid-line) is cut off, however long it is.
fn end_torn_tail(path: &Path) -> Result<(), LedgerError> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(LedgerError::io("open", path)(e)),
    };
    let len = f.metadata().map_err(LedgerError::io("read", path))?.len();
    let read_at = |f: &mut std::fs::File, at: u64, buf: &mut [u8]| {
        f.seek(SeekFrom::Start(at)).and_then(|_| f.read_exact(buf))
    };
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    read_at(&mut f, len - 1, &mut last).map_err(LedgerError::io("read", path))?;
    if last[0] == b'\n' {
        return Ok(());
    }
    // The start of the last line: after the last newline, looked for a chunk at a time from
    // the end (a torn line can be longer than any window).
    const CHUNK: u64 = 64 << 10;
    let mut end = len;
    let start = loop {
        let from = end.saturating_sub(CHUNK);
        let mut chunk = vec![0u8; usize::try_from(end - from).unwrap_or(0)];
        read_at(&mut f, from, &mut chunk).map_err(LedgerError::io("read", path))?;
        if let Some(i) = chunk.iter().rposition(|b| *b == b'\n') {
            break from + i as u64 + 1;
        }
        if from == 0 {
            break 0;
        }
        end = from;
    };
    let whole = len - start <= MAX_LINE_BYTES && {
        let mut line = vec![0u8; usize::try_from(len - start).unwrap_or(0)];
        read_at(&mut f, start, &mut line).map_err(LedgerError::io("read", path))?;
        serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_ok()
    };
    if whole {
        f.seek(SeekFrom::End(0))
            .and_then(|_| f.write_all(b"\n"))
            .map_err(LedgerError::io("write", path))?;
        tracing::debug!(path = %path.display(), "a whole last line got its newline");
    } else {
        f.set_len(start).map_err(LedgerError::io("write", path))?;
        tracing::debug!(path = %path.display(), from = len, to = start, "torn line dropped");
    }
    Ok(())
}

/// The lines of a JSON-lines text: a torn last line (no final newline, does not parse) is
/// skipped; any other line that does not parse is an error naming the line.
pub(crate) fn parse_lines<T: DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<Vec<T>, LedgerError> {
    let mut out = Vec::new();
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(line) {
            Ok(v) => out.push(v),
            Err(_) if i == last && !complete => {}
            Err(e) => {
                return Err(LedgerError::Io {
                    action: "read",
                    path: path.to_path_buf(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "line {} is not a record: {}",
                            i + 1,
                            crate::infile::content_message(&e.to_string())
                        ),
                    ),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Line {
        n: u32,
    }

    fn repo(owner: &str, name: &str) -> RepoId {
        RepoId {
            host: None,
            owner: owner.into(),
            repo: name.into(),
        }
    }

    #[test]
    fn repositories_never_share_a_folder() {
        let l = Ledger::new("/s");
        let a = l.repo_dir(&repo("acme-rivet", "core")).unwrap();
        let b = l.repo_dir(&repo("acme", "rivet-core")).unwrap();
        assert_ne!(a, b);
        assert!(l.repo_dir(&repo("..", "x")).is_err());
        assert!(l.repo_dir(&repo("a", "..")).is_err());
        let ghe = RepoId {
            host: Some("ghe.example.com".into()),
            ..repo("acme", "rivet")
        };
        assert_eq!(
            l.repo_dir(&ghe).unwrap(),
            Path::new("/s/repos/@ghe.example.com/acme/rivet")
        );
    }

    #[test]
    fn appended_lines_are_read_back_and_a_torn_tail_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = repo("acme", "rivet");
        l.append_lines(&r, "log.jsonl", &[Line { n: 1 }, Line { n: 2 }])
            .unwrap();
        let path = l.repo_dir(&r).unwrap().join("log.jsonl");
        // A writer killed mid-line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"n\":").unwrap();
        drop(f);
        let read: Vec<Line> = l.read_lines(&r, "log.jsonl").unwrap();
        assert_eq!(read, [Line { n: 1 }, Line { n: 2 }]);
        // The next append drops the torn line first: it never ends up between whole lines.
        l.append_lines(&r, "log.jsonl", &[Line { n: 3 }]).unwrap();
        let read: Vec<Line> = l.read_lines(&r, "log.jsonl").unwrap();
        assert_eq!(read, [Line { n: 1 }, Line { n: 2 }, Line { n: 3 }]);
        // A broken line between whole ones is refused, naming it.
        std::fs::write(&path, "{\"n\":1}\nnot json\n{\"n\":2}\n").unwrap();
        let err = l.read_lines::<Line>(&r, "log.jsonl").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(l.repos().contains(&r));
        assert!(
            l.read_lines::<Line>(&repo("acme", "none"), "log.jsonl")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_torn_line_of_any_length_is_dropped_and_a_whole_one_gets_its_newline() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = repo("acme", "rivet");
        l.append_lines(&r, "log.jsonl", &[Line { n: 1 }]).unwrap();
        let path = l.repo_dir(&r).unwrap().join("log.jsonl");
        // A writer killed 3 MB into a record: no newline within the last MiB.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"n\":2,\"pad\":\"").unwrap();
        f.write_all(&vec![b'x'; 3 << 20]).unwrap();
        drop(f);
        l.append_lines(&r, "log.jsonl", &[Line { n: 3 }]).unwrap();
        let read: Vec<Line> = l.read_lines(&r, "log.jsonl").unwrap();
        assert_eq!(read, [Line { n: 1 }, Line { n: 3 }]);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"n\":1}\n{\"n\":3}\n"
        );
        // A writer killed after a whole record, before its newline: the record stays.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"n\":4}").unwrap();
        drop(f);
        l.append_lines(&r, "log.jsonl", &[Line { n: 5 }]).unwrap();
        let read: Vec<Line> = l.read_lines(&r, "log.jsonl").unwrap();
        assert_eq!(read, [1, 3, 4, 5].map(|n| Line { n }));
        // A log that is one torn line, nothing before it.
        std::fs::write(&path, "{\"n\":").unwrap();
        l.append_lines(&r, "log.jsonl", &[Line { n: 6 }]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"n\":6}\n");
    }

    #[test]
    fn concurrent_appends_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = repo("acme", "rivet");
        std::thread::scope(|s| {
            for t in 0..8 {
                let l = l.clone();
                let r = r.clone();
                s.spawn(move || {
                    for i in 0..20 {
                        l.append_lines(&r, "log.jsonl", &[Line { n: t * 100 + i }])
                            .unwrap();
                    }
                });
            }
        });
        let read: Vec<Line> = l.read_lines(&r, "log.jsonl").unwrap();
        assert_eq!(read.len(), 160);
    }
}
