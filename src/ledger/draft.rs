//! The review draft and the offline outbox, per PR.
//!
//! ```text
//! <pr>/draft.json            the composer's text, autosaved on every change (fsynced)
//! <pr>/outbox/comment.json   offline "posts": the one Shepherd comment as it would be on GitHub
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError, write_atomic_synced};
use crate::pr::{OutboxComment, PrCoords};

/// An unposted review text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Draft {
    pub body: String,
    /// The head the review was made for.
    pub head_sha: String,
    /// Unix seconds of the last save.
    pub saved_at: i64,
}

/// What a PR holds unsent in the state dir: its review draft, its thread reply, its pending
/// review (read without changing the state dir, for the console's quit question).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnsentFiles {
    /// `draft.json` is there.
    pub draft: bool,
    /// `reply-draft.json` is there.
    pub reply: bool,
    /// `comment-draft.json` (a conversation comment being written) is there.
    pub comment: bool,
    /// `pending.json`, read.
    pub pending: Option<crate::code::pending::PendingReview>,
}

impl Ledger {
    /// What the PR at `pr` holds unsent on disk; a pending review that cannot be read is an
    /// error (never silently nothing).
    pub fn unsent_files(&self, pr: &PrCoords) -> Result<UnsentFiles, LedgerError> {
        let dir = self.pr_dir_to_read(pr)?;
        let there = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
        Ok(UnsentFiles {
            draft: there("draft.json"),
            reply: there("reply-draft.json"),
            comment: there("comment-draft.json"),
            pending: super::threads::read_json(
                dir.join("pending.json"),
                "read the pending review",
            )?,
        })
    }

    fn draft_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("draft.json"))
    }

    fn outbox_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("outbox").join("comment.json"))
    }

    /// Saves the draft durably (it is the maintainer's work).
    pub fn save_draft(&self, pr: &PrCoords, draft: &Draft) -> Result<(), LedgerError> {
        let bytes = serde_json::to_vec_pretty(draft).unwrap_or_default();
        write_atomic_synced(&self.draft_path(pr)?, &bytes)
    }

    /// The saved draft, if any. A corrupt draft file is an error, not silently dropped work.
    pub fn load_draft(&self, pr: &PrCoords) -> Result<Option<Draft>, LedgerError> {
        let path = self.draft_path(pr)?;
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| LedgerError::Io {
                    action: "read the draft",
                    path,
                    source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(LedgerError::io("read", &path)(e)),
        }
    }

    /// Removes the draft; `Ok(false)` when there was none.
    pub fn discard_draft(&self, pr: &PrCoords) -> Result<bool, LedgerError> {
        let path = self.draft_path(pr)?;
        match std::fs::remove_file(&path) {
            Ok(()) => {
                tracing::debug!(path = %path.display(), "state removed");
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(LedgerError::io("remove", &path)(e)),
        }
    }

    pub fn outbox(&self, pr: &PrCoords) -> Result<Option<OutboxComment>, LedgerError> {
        // A reader (the inbox reads it too): an old-layout folder is read where it is.
        let path = self.pr_dir_to_read(pr)?.join("outbox").join("comment.json");
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| LedgerError::Io {
                    action: "read the outbox",
                    path,
                    source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(LedgerError::io("read", &path)(e)),
        }
    }

    pub fn write_outbox(&self, pr: &PrCoords, c: &OutboxComment) -> Result<PathBuf, LedgerError> {
        let path = self.outbox_path(pr)?;
        write_atomic_synced(&path, &serde_json::to_vec_pretty(c).unwrap_or_default())?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords() -> PrCoords {
        crate::ledger::test_coords(3)
    }

    #[test]
    fn draft_round_trip_and_discard() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        assert_eq!(l.load_draft(&coords()).unwrap(), None);
        let d = Draft {
            body: "## PR Shepherd Review\n…".into(),
            head_sha: "h".into(),
            saved_at: 5,
        };
        l.save_draft(&coords(), &d).unwrap();
        assert_eq!(l.load_draft(&coords()).unwrap(), Some(d));
        assert!(l.discard_draft(&coords()).unwrap());
        assert!(!l.discard_draft(&coords()).unwrap());
        std::fs::write(l.pr_dir(&coords()).unwrap().join("draft.json"), "{").unwrap();
        assert!(l.load_draft(&coords()).is_err());
    }
}
