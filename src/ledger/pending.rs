//! The pending review and the offline review outbox, per PR.
//!
//! ```text
//! <pr>/pending.json          the pending review: line comments, suggestions, findings' drafts
//!                            (saved on every change, fsynced: it is the maintainer's work)
//! <pr>/outbox/reviews.json   offline "submitted" reviews: each the exact request that would
//!                            have been sent (method, path, JSON body)
//! <pr>/review-intent-<sha256-hex>.json  a live review about to be sent (fsynced before
//!                            sending), named by its content at any head
//! ```
//!
//! A review intent says "this review, by this account, may have reached GitHub, under this
//! hidden key": written before the review is sent, removed once the outcome is known. Its name
//! hashes what the review says without the commit it was sent at, so a retry after a push (a new
//! head, a new hidden key) still finds it and looks for the earlier key first
//! (`publish::review`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::threads::read_json;
use super::{Ledger, LedgerError, write_atomic_synced};
use crate::code::pending::PendingReview;
use crate::pr::PrCoords;

/// One review request held offline, as it would have gone to GitHub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxReview {
    /// The hidden key in the body that makes a retry find it (never held twice).
    pub key: String,
    pub method: String,
    pub path: String,
    pub body: serde_json::Value,
    pub created_at: i64,
}

/// A live review submission that was about to be sent (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewIntent {
    /// The hidden key of the review as it was sent.
    pub key: String,
    /// The head it was sent at.
    pub commit_id: String,
    /// The login it was sent as.
    pub login: String,
    /// Unix seconds of the try.
    pub at: i64,
}

/// The name of a review intent's file in the PR folder starts with this.
const REVIEW_INTENT_PREFIX: &str = "review-intent-";

impl Ledger {
    fn review_intent_path(&self, pr: &PrCoords, content: &str) -> Result<PathBuf, LedgerError> {
        // The content key is the caller's hash; hashed again, any text names one safe file.
        let name = crate::pr::sha256_hex(content.as_bytes());
        Ok(self
            .pr_dir(pr)?
            .join(format!("{REVIEW_INTENT_PREFIX}{name}.json")))
    }

    /// Records, durably, that the review whose content (at any head) is `content` is about to
    /// be sent as `intent`.
    pub fn record_review_intent(
        &self,
        pr: &PrCoords,
        content: &str,
        intent: &ReviewIntent,
    ) -> Result<(), LedgerError> {
        write_atomic_synced(
            &self.review_intent_path(pr, content)?,
            &serde_json::to_vec_pretty(intent).unwrap_or_default(),
        )
    }

    /// The intent an earlier try of the review `content` left, if any. An unreadable one names
    /// no key to look for, and counts as none.
    pub fn review_intent(
        &self,
        pr: &PrCoords,
        content: &str,
    ) -> Result<Option<ReviewIntent>, LedgerError> {
        match read_json::<ReviewIntent>(
            self.review_intent_path(pr, content)?,
            "read the review intent",
        ) {
            Ok(found) => Ok(found),
            Err(LedgerError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::InvalidData =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Forgets the intent once the review's outcome is known (made, found, or refused).
    pub fn clear_review_intent(&self, pr: &PrCoords, content: &str) -> Result<(), LedgerError> {
        let path = self.review_intent_path(pr, content)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(LedgerError::io("remove", &path)(e)),
        }
    }

    /// The review intents of the PR whose outcome is still unknown (for `state show`), oldest
    /// first; unreadable ones are left out.
    pub fn review_intents(&self, pr: &PrCoords) -> Result<Vec<ReviewIntent>, LedgerError> {
        let dir = self.pr_dir_to_read(pr)?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LedgerError::io("read", &dir)(e)),
        };
        let mut out: Vec<ReviewIntent> = entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with(REVIEW_INTENT_PREFIX) && n.ends_with(".json"))
            })
            .filter_map(|e| read_json::<ReviewIntent>(e.path(), "read the review intent").ok())
            .flatten()
            .collect();
        out.sort_by(|a, b| (a.at, &a.key).cmp(&(b.at, &b.key)));
        Ok(out)
    }

    fn pending_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("pending.json"))
    }

    fn review_outbox_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("outbox").join("reviews.json"))
    }

    /// The pending review (empty when there is none). A corrupt file is an error, never
    /// silently dropped work.
    pub fn load_pending(&self, pr: &PrCoords) -> Result<PendingReview, LedgerError> {
        let path = self.pending_path(pr)?;
        Ok(read_json(path, "read the pending review")?.unwrap_or_default())
    }

    /// Saves the pending review durably.
    pub fn save_pending(&self, pr: &PrCoords, review: &PendingReview) -> Result<(), LedgerError> {
        let bytes = serde_json::to_vec_pretty(review).unwrap_or_default();
        write_atomic_synced(&self.pending_path(pr)?, &bytes)
    }

    /// Removes the pending review (after it was submitted); `Ok(false)` when there was none.
    pub fn discard_pending(&self, pr: &PrCoords) -> Result<bool, LedgerError> {
        let path = self.pending_path(pr)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(LedgerError::io("remove", &path)(e)),
        }
    }

    /// The reviews held offline, oldest first.
    pub fn review_outbox(&self, pr: &PrCoords) -> Result<Vec<OutboxReview>, LedgerError> {
        let path = self.pr_dir_to_read(pr)?.join("outbox").join("reviews.json");
        Ok(read_json(path, "read the review outbox")?.unwrap_or_default())
    }

    /// Adds `review` to the outbox unless one with its key is there (a retry). Returns whether
    /// it was added and the file. The caller holds the PR's post lock.
    pub fn push_review_outbox(
        &self,
        pr: &PrCoords,
        review: OutboxReview,
    ) -> Result<(bool, PathBuf), LedgerError> {
        let path = self.review_outbox_path(pr)?;
        let mut all = self.review_outbox(pr)?;
        if all.iter().any(|r| r.key == review.key) {
            return Ok((false, path));
        }
        all.push(review);
        write_atomic_synced(&path, &serde_json::to_vec_pretty(&all).unwrap_or_default())?;
        Ok((true, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::Side;
    use crate::code::pending::CommentKind;

    fn coords() -> PrCoords {
        crate::ledger::test_coords(3)
    }

    #[test]
    fn the_pending_review_survives_a_restart_and_a_corrupt_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        assert_eq!(l.load_pending(&coords()).unwrap(), PendingReview::default());
        let mut r = PendingReview::default();
        r.add(
            "a.rs",
            Side::Right,
            None,
            2,
            "hm",
            CommentKind::Comment,
            None,
        )
        .unwrap();
        l.save_pending(&coords(), &r).unwrap();
        assert_eq!(l.load_pending(&coords()).unwrap(), r);
        std::fs::write(l.pr_dir(&coords()).unwrap().join("pending.json"), "{").unwrap();
        assert!(l.load_pending(&coords()).is_err());
        assert!(l.discard_pending(&coords()).unwrap());
        assert!(!l.discard_pending(&coords()).unwrap());
    }

    #[test]
    fn a_review_intent_is_found_by_its_content_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        assert_eq!(l.review_intent(&coords(), "c1").unwrap(), None);
        let i = ReviewIntent {
            key: "00ff".into(),
            commit_id: "aaa".into(),
            login: "me".into(),
            at: 1,
        };
        l.record_review_intent(&coords(), "c1", &i).unwrap();
        assert_eq!(l.review_intents(&coords()).unwrap(), vec![i.clone()]);
        assert_eq!(l.review_intent(&coords(), "c1").unwrap(), Some(i));
        assert_eq!(l.review_intent(&coords(), "c2").unwrap(), None);
        l.clear_review_intent(&coords(), "c1").unwrap();
        assert_eq!(l.review_intent(&coords(), "c1").unwrap(), None);
        assert!(l.review_intents(&coords()).unwrap().is_empty());
        l.clear_review_intent(&coords(), "c1").unwrap();
    }

    #[test]
    fn the_review_outbox_holds_each_request_once() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = OutboxReview {
            key: "k1".into(),
            method: "POST".into(),
            path: "/repos/o/r/pulls/3/reviews".into(),
            body: serde_json::json!({"event": "COMMENT"}),
            created_at: 1,
        };
        assert!(l.push_review_outbox(&coords(), r.clone()).unwrap().0);
        assert!(!l.push_review_outbox(&coords(), r.clone()).unwrap().0);
        assert_eq!(l.review_outbox(&coords()).unwrap(), vec![r]);
    }
}
