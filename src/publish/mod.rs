//! Posting: an upsert of the one Shepherd comment on a PR.
//!
//! Update the existing Shepherd comment (own identity + header), else create it. A retry after
//! a failure looks again before creating, so there is never a second Shepherd comment. Nothing
//! here approves, requests changes, merges, pushes, or edits anyone else's comment.
//!
//! - this file: [`CommentStore`] (where the comment lives), [`upsert`] and [`target`];
//! - `github.rs`: [`GitHubComments`], the store over a PR's conversation comments on GitHub;
//! - `outbox.rs`: [`Outbox`], the offline store (a file in the ledger);
//! - `threads.rs`: replying to, resolving and unresolving review threads.
//!
//! `publish` sits above `source` and `ledger` and uses both; neither knows about posting.

mod github;
mod outbox;
pub mod threads;

pub use github::{GitHubComments, RestComment, RestUser, newest_own};
pub use outbox::Outbox;
pub use threads::{ThreadDo, ThreadDone, ThreadError, check_reply, record_own_reply};

use std::future::Future;

use serde::Serialize;

use crate::ledger::LedgerError;
use crate::pr::is_review_body;

/// What a post did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PostAction {
    Created,
    Updated,
}

/// The result of a post.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Posted {
    pub comment_id: String,
    pub action: PostAction,
    /// Where it can be seen: the comment URL, or the outbox file offline.
    pub location: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error("{0}")]
    Api(String),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("the review body does not start with `## PR Shepherd Review`; refusing to post it")]
    NotAReview,
}

/// Where the Shepherd comment lives: GitHub, or the offline outbox.
pub trait CommentStore {
    /// The existing Shepherd comment by the current identity, as (id, location).
    fn find_own(&self) -> impl Future<Output = Result<Option<(String, String)>, PostError>>;
    fn create(&self, body: &str) -> impl Future<Output = Result<(String, String), PostError>>;
    fn update(&self, id: &str, body: &str) -> impl Future<Output = Result<String, PostError>>;
}

/// Where the comment would go, for the confirmation dialog: `Some(id)` = update that comment.
pub async fn target<S: CommentStore>(store: &S) -> Result<Option<String>, PostError> {
    Ok(store.find_own().await?.map(|(id, _)| id))
}

/// Upserts `body` as the one Shepherd comment, with up to `attempts` tries. Every try looks for
/// the existing comment first, so a create whose answer was lost is found and updated.
pub async fn upsert<S: CommentStore>(
    store: &S,
    body: &str,
    attempts: u32,
) -> Result<Posted, PostError> {
    if !is_review_body(body) {
        return Err(PostError::NotAReview);
    }
    let mut last = None;
    for _ in 0..attempts.max(1) {
        let result = async {
            match store.find_own().await? {
                Some((id, _)) => {
                    let location = store.update(&id, body).await?;
                    Ok(Posted {
                        comment_id: id,
                        action: PostAction::Updated,
                        location,
                    })
                }
                None => {
                    let (id, location) = store.create(body).await?;
                    Ok(Posted {
                        comment_id: id,
                        action: PostAction::Created,
                        location,
                    })
                }
            }
        }
        .await;
        match result {
            Ok(p) => return Ok(p),
            Err(e @ PostError::NotAReview) => return Err(e),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| PostError::Api("no attempt was made".to_owned())))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// A store whose first `fail_creates` creates succeed on the server but lose their answer.
    #[derive(Default)]
    struct Flaky {
        comments: RefCell<Vec<(String, String)>>,
        fail_creates: RefCell<u32>,
        fail_finds: RefCell<u32>,
    }

    impl CommentStore for Flaky {
        async fn find_own(&self) -> Result<Option<(String, String)>, PostError> {
            if *self.fail_finds.borrow() > 0 {
                *self.fail_finds.borrow_mut() -= 1;
                return Err(PostError::Api("502".into()));
            }
            Ok(self
                .comments
                .borrow()
                .first()
                .map(|(id, _)| (id.clone(), format!("url/{id}"))))
        }
        async fn create(&self, body: &str) -> Result<(String, String), PostError> {
            let id = format!("c{}", self.comments.borrow().len() + 1);
            self.comments
                .borrow_mut()
                .push((id.clone(), body.to_owned()));
            if *self.fail_creates.borrow() > 0 {
                *self.fail_creates.borrow_mut() -= 1;
                return Err(PostError::Api("connection reset".into()));
            }
            Ok((id.clone(), format!("url/{id}")))
        }
        async fn update(&self, id: &str, body: &str) -> Result<String, PostError> {
            for c in self.comments.borrow_mut().iter_mut() {
                if c.0 == id {
                    c.1 = body.to_owned();
                }
            }
            Ok(format!("url/{id}"))
        }
    }

    fn block<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    const BODY: &str = "## PR Shepherd Review\n\nok";

    #[test]
    fn create_then_update() {
        let s = Flaky::default();
        let p = block(upsert(&s, BODY, 3)).unwrap();
        assert_eq!(p.action, PostAction::Created);
        let p = block(upsert(&s, "## PR Shepherd Review\n\nv2", 3)).unwrap();
        assert_eq!(p.action, PostAction::Updated);
        assert_eq!(s.comments.borrow().len(), 1);
        assert!(s.comments.borrow()[0].1.ends_with("v2"));
    }

    #[test]
    fn lost_create_answer_then_retry_gives_one_comment() {
        let s = Flaky::default();
        *s.fail_creates.borrow_mut() = 1;
        *s.fail_finds.borrow_mut() = 0;
        let p = block(upsert(&s, BODY, 3)).unwrap();
        assert_eq!(
            p.action,
            PostAction::Updated,
            "the retry found the created comment"
        );
        assert_eq!(s.comments.borrow().len(), 1);
    }

    #[test]
    fn gives_up_after_attempts_and_refuses_non_reviews() {
        let s = Flaky::default();
        *s.fail_finds.borrow_mut() = 5;
        assert!(matches!(block(upsert(&s, BODY, 3)), Err(PostError::Api(_))));
        assert!(s.comments.borrow().is_empty());
        assert!(matches!(
            block(upsert(&s, "LGTM", 3)),
            Err(PostError::NotAReview)
        ));
    }
}
