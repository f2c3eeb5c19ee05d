//! The maintainer's lessons for a repository: `<state>/repos/<owner>/<repo>/lessons.json`, a
//! JSON array rewritten whole (by rename) under the repository's lock. A lesson is a finding the
//! maintainer dismissed for the whole repository, with the reason; the aspects of every later
//! review of that repository — and of no other — are given them, fenced as data
//! (`review::inputs::prompt`). `pr-shepherd lessons list|drop` manages them.

use serde::{Deserialize, Serialize};

use super::repo::RepoId;
use super::{Ledger, LedgerError, write_atomic_synced};

/// The file's name in the repository's folder.
pub const LESSONS_FILE: &str = "lessons.json";

/// The most lessons a repository keeps (the oldest go first); their prompt block is bounded too.
pub const MAX_LESSONS: usize = 200;

/// One lesson.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lesson {
    /// `L-` and 8 hex characters, from the finding it was made from.
    pub id: String,
    pub aspect: String,
    pub file: String,
    /// The finding's message as it was dismissed (model text, kept stripped).
    pub message: String,
    /// The maintainer's reason.
    pub reason: String,
    /// Where it was learnt: the PR's number and the finding's id.
    pub pr: u64,
    pub finding: String,
    /// Unix seconds.
    pub at: i64,
}

/// The id of the lesson made from finding `finding` (`PS-…`).
pub fn lesson_id(finding: &str) -> String {
    let hex = crate::pr::sha256_hex(finding.as_bytes());
    format!("L-{}", hex.get(..8).unwrap_or(&hex))
}

impl Ledger {
    /// The repository's lessons, oldest first.
    pub fn lessons(&self, repo: &RepoId) -> Result<Vec<Lesson>, LedgerError> {
        let path = self.repo_dir(repo)?.join(LESSONS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LedgerError::io("read", &path)(e)),
        };
        serde_json::from_str(&text).map_err(|e| LedgerError::Io {
            action: "read",
            path,
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                crate::infile::content_message(&e.to_string()),
            ),
        })
    }

    /// Adds a lesson (one made from the same finding is replaced), keeping the newest
    /// [`MAX_LESSONS`]. Synced before it returns.
    pub fn add_lesson(&self, repo: &RepoId, lesson: Lesson) -> Result<(), LedgerError> {
        self.with_repo_lock(repo, |dir| {
            let mut all = self.lessons(repo)?;
            all.retain(|l| l.id != lesson.id);
            all.push(lesson);
            let over = all.len().saturating_sub(MAX_LESSONS);
            all.drain(..over);
            write_lessons(&dir.join(LESSONS_FILE), &all)
        })
    }

    /// Drops the lesson with id `id` (or made from finding `id`); false when there is none.
    pub fn drop_lesson(&self, repo: &RepoId, id: &str) -> Result<bool, LedgerError> {
        self.with_repo_lock(repo, |dir| {
            let mut all = self.lessons(repo)?;
            let before = all.len();
            all.retain(|l| !l.id.eq_ignore_ascii_case(id) && !l.finding.eq_ignore_ascii_case(id));
            if all.len() == before {
                return Ok(false);
            }
            write_lessons(&dir.join(LESSONS_FILE), &all)?;
            Ok(true)
        })
    }
}

fn write_lessons(path: &std::path::Path, all: &[Lesson]) -> Result<(), LedgerError> {
    let mut bytes = serde_json::to_vec_pretty(all).map_err(|e| LedgerError::Io {
        action: "encode",
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    bytes.push(b'\n');
    write_atomic_synced(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(finding: &str) -> Lesson {
        Lesson {
            id: lesson_id(finding),
            aspect: "conventions".into(),
            file: "src/a.rs".into(),
            message: "Prefer anyhow".into(),
            reason: "we use thiserror in libraries".into(),
            pr: 3,
            finding: finding.into(),
            at: 1,
        }
    }

    #[test]
    fn lessons_are_added_replaced_and_dropped_per_repository() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = RepoId {
            host: None,
            owner: "acme".into(),
            repo: "rivet".into(),
        };
        let other = RepoId {
            repo: "other".into(),
            ..r.clone()
        };
        l.add_lesson(&r, lesson("PS-0000000001")).unwrap();
        l.add_lesson(&r, lesson("PS-0000000002")).unwrap();
        let mut again = lesson("PS-0000000001");
        again.reason = "changed my mind".into();
        l.add_lesson(&r, again).unwrap();
        let all = l.lessons(&r).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].reason, "changed my mind");
        assert!(l.lessons(&other).unwrap().is_empty());
        assert!(l.drop_lesson(&r, &all[0].id).unwrap());
        assert!(!l.drop_lesson(&r, &all[0].id).unwrap());
        assert!(l.drop_lesson(&r, "ps-0000000001").unwrap(), "by finding id");
        assert!(l.lessons(&r).unwrap().is_empty());
        assert!(lesson_id("PS-0000000001").starts_with("L-"));
        assert_eq!(lesson_id("PS-0000000001").len(), 10);
    }
}
