//! Offline posting: the outbox file in the ledger stands in for the Shepherd comment.

use super::{CommentStore, PostError};
use crate::ledger::Ledger;
use crate::pr::{OutboxComment, PrCoords};

/// Offline posting: the outbox file in the ledger stands in for the comment.
pub struct Outbox<'a> {
    pub ledger: &'a Ledger,
    pub pr: PrCoords,
    pub now: i64,
}

impl CommentStore for Outbox<'_> {
    async fn list_own(&self) -> Result<Vec<(String, String)>, PostError> {
        Ok(self
            .ledger
            .outbox(&self.pr)?
            .map(|c| {
                let location = self
                    .ledger
                    .pr_dir(&self.pr)
                    .map(|d| d.join("outbox").join("comment.json").display().to_string())
                    .unwrap_or_default();
                (c.comment_id, location)
            })
            .into_iter()
            .collect())
    }

    async fn create(&self, body: &str) -> Result<(String, String), PostError> {
        let c = OutboxComment {
            comment_id: "outbox-1".to_owned(),
            body: body.to_owned(),
            created_at: self.now,
            updated_at: self.now,
            revisions: 1,
        };
        let path = self.ledger.write_outbox(&self.pr, &c)?;
        Ok((c.comment_id, path.display().to_string()))
    }

    async fn update(&self, id: &str, body: &str) -> Result<String, PostError> {
        let mut c = self
            .ledger
            .outbox(&self.pr)?
            .filter(|c| c.comment_id == id)
            .ok_or_else(|| PostError::Api(format!("outbox comment `{id}` is gone")))?;
        c.body = body.to_owned();
        c.updated_at = self.now;
        c.revisions += 1;
        Ok(self
            .ledger
            .write_outbox(&self.pr, &c)?
            .display()
            .to_string())
    }

    /// The outbox holds one comment, so it never has a second one to remove.
    async fn delete(&self, id: &str) -> Result<(), PostError> {
        Err(PostError::Api(format!(
            "the outbox holds one comment; `{}` is not a second one",
            crate::sanitize::one_line(id)
        )))
    }

    fn turns(&self) -> Option<(Ledger, PrCoords)> {
        Some((self.ledger.clone(), self.pr.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::publish::{PostAction, target, upsert};

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    const BODY: &str = "## PR Shepherd Review\n\nok";

    #[test]
    fn outbox_upserts_one_comment() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let pr = crate::ledger::test_coords(1);
        let ob = Outbox {
            ledger: &ledger,
            pr: pr.clone(),
            now: 10,
        };
        assert_eq!(block(target(&ob)).unwrap(), None);
        assert_eq!(
            block(upsert(&ob, BODY, 1)).unwrap().action,
            PostAction::Created
        );
        let p = block(upsert(&ob, "## PR Shepherd Review\n\nagain", 1)).unwrap();
        assert_eq!(p.action, PostAction::Updated);
        assert!(p.location.ends_with("outbox/comment.json"));
        let c = ledger.outbox(&pr).unwrap().unwrap();
        assert_eq!(c.revisions, 2);
        assert!(c.body.ends_with("again"));
    }
}
