//! Offline plain conversation comments, per PR.
//!
//! ```text
//! <pr>/outbox/comments.json   the maintainer's plain PR comments held offline, oldest first:
//!                             each the exact request that would have gone to GitHub
//! ```
//!
//! Not the Shepherd comment (`outbox/comment.json`, upserted): every one of these is its own
//! comment, appended, never replaced.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::threads::read_json;
use super::{Ledger, LedgerError, write_atomic_synced};
use crate::pr::PrCoords;

/// One plain comment held offline, as it would have gone to GitHub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxPlainComment {
    pub method: String,
    pub path: String,
    /// The request's JSON body (`{"body": …}`).
    pub body: serde_json::Value,
    pub created_at: i64,
}

impl Ledger {
    /// The plain comments held offline, oldest first.
    pub fn comment_outbox(&self, pr: &PrCoords) -> Result<Vec<OutboxPlainComment>, LedgerError> {
        let path = self
            .pr_dir_to_read(pr)?
            .join("outbox")
            .join("comments.json");
        Ok(read_json(path, "read the comment outbox")?.unwrap_or_default())
    }

    /// Appends `comment` to the outbox; the file. The caller holds the PR's post lock.
    pub fn push_comment_outbox(
        &self,
        pr: &PrCoords,
        comment: OutboxPlainComment,
    ) -> Result<PathBuf, LedgerError> {
        let path = self.pr_dir(pr)?.join("outbox").join("comments.json");
        let mut all = self.comment_outbox(pr)?;
        all.push(comment);
        write_atomic_synced(&path, &serde_json::to_vec_pretty(&all).unwrap_or_default())?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_comments_are_appended_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let pr = crate::ledger::test_coords(3);
        assert!(l.comment_outbox(&pr).unwrap().is_empty());
        for (i, text) in ["one", "two"].iter().enumerate() {
            l.push_comment_outbox(
                &pr,
                OutboxPlainComment {
                    method: "POST".into(),
                    path: "/repos/o/r/issues/3/comments".into(),
                    body: serde_json::json!({ "body": text }),
                    created_at: i64::try_from(i).unwrap(),
                },
            )
            .unwrap();
        }
        let all = l.comment_outbox(&pr).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].body["body"], "two");
    }
}
