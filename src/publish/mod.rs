//! Posting: an upsert of the one Shepherd comment on a PR.
//!
//! Update the existing Shepherd comment (own identity + header), else create it. A retry after
//! a failure looks again before creating, so there is never a second Shepherd comment. Nothing
//! here approves, requests changes, merges, pushes, or edits anyone else's comment.
//!
//! Concurrent runs on one machine take turns: [`upsert`] holds the PR's post lock in the state
//! dir ([`crate::ledger::Lock::Post`]) from the look to the create, so a second run looks only
//! after the first one's comment exists, and updates it. A run the lock cannot see (another
//! machine, another state dir) is caught after the fact: every create is followed by a second
//! look, and when the PR then holds two own Shepherd comments the older one wins on every run
//! alike — a run whose comment is the newer deletes it and updates the older one instead, so of
//! comments created at the same time exactly one stays. `review`, `event`, `watch` and the
//! console all post through [`upsert`].
//!
//! - this file: [`CommentStore`] (where the comment lives), [`upsert`] and [`target`];
//! - `github.rs`: [`GitHubComments`], the store over a PR's conversation comments on GitHub;
//! - `outbox.rs`: [`Outbox`], the offline store (a file in the ledger);
//! - `threads.rs`: replying to, resolving and unresolving review threads;
//! - `conversation.rs`: a plain conversation comment (never upserted, never the Shepherd one);
//! - `review.rs`: submitting a pending review (line comments, findings) as one GitHub review;
//! - `check_run.rs`: Shepherd's own `pr-shepherd` check run on the head (or a commit status).
//!
//! `publish` sits above `source` and `ledger` and uses both; neither knows about posting.

pub mod check_run;
pub mod codeowners;
pub mod conversation;
pub mod decide;
mod github;
mod outbox;
pub mod review;
pub mod stakes;
pub mod threads;

pub use github::{GitHubComments, RestComment, RestUser, newest_own};
pub use outbox::Outbox;
pub use threads::{ThreadDo, ThreadDone, ThreadError, check_reply, record_own_reply};

use std::future::Future;
use std::time::Duration;

use serde::Serialize;

use crate::ledger::{Ledger, LedgerError, Lock, PrLock, next_pause};
use crate::pr::{PrCoords, Snapshot, is_partial, is_review_body};

/// How long a post waits for another run's post to the same PR (a look, a create and a second
/// look, each a request with its retries) before it gives up with a message naming that run.
pub const POST_LOCK_WAIT: Duration = Duration::from_secs(180);

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
    /// The budget stopped the review before it was whole: a partial review is never posted.
    #[error(
        "the review is partial (the budget stopped it before every aspect ran); refusing to post it as if it were whole — run it again with a larger budget"
    )]
    Partial,
    /// This run's comment turned out to be a second one and could not be removed.
    #[error(
        "posted comment {made}, but another run had created comment {kept} at the same time, \
         and removing {made} failed: {reason}; delete {made} by hand"
    )]
    Duplicate {
        made: String,
        kept: String,
        reason: String,
    },
}

/// A snapshot GitHub answered only in part (errors beside its data — a comment or review
/// resolved to `null` —, or a page that failed for good): what is missing may be the very thing
/// a check looks for. No check that decides whether something was already posted concludes
/// "absent" from it: it stops with this error, and nothing is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "GitHub's answer for {pr} was partial ({reasons}): whether {what} cannot be told from it, so nothing was sent; run it again when GitHub answers whole"
)]
pub struct PartialAnswer {
    pub pr: String,
    /// What could not be told, as "the reply was posted already".
    pub what: String,
    /// Why the answer was partial, sanitized, on one line.
    pub reasons: String,
}

/// `Ok` when `snapshot` is whole; else [`PartialAnswer`] saying that `what` cannot be told.
pub fn whole_answer(snapshot: &Snapshot, what: &str) -> Result<(), PartialAnswer> {
    if snapshot.is_complete() {
        return Ok(());
    }
    let mut reasons: String = snapshot
        .incomplete
        .iter()
        .take(3)
        .map(|r| crate::sanitize::one_line(r))
        .collect::<Vec<_>>()
        .join("; ");
    if reasons.chars().count() > 600 {
        reasons = reasons.chars().take(600).collect::<String>() + "…";
    }
    Err(PartialAnswer {
        pr: snapshot.pr.coords().to_string(),
        what: what.to_owned(),
        reasons,
    })
}

/// Where the Shepherd comment lives: GitHub, or the offline outbox.
pub trait CommentStore {
    /// Every Shepherd comment by the current identity, oldest first, as (id, location).
    fn list_own(&self) -> impl Future<Output = Result<Vec<(String, String)>, PostError>>;
    fn create(&self, body: &str) -> impl Future<Output = Result<(String, String), PostError>>;
    fn update(&self, id: &str, body: &str) -> impl Future<Output = Result<String, PostError>>;
    /// Deletes an own comment: a second Shepherd comment this run made.
    fn delete(&self, id: &str) -> impl Future<Output = Result<(), PostError>>;
    /// Where posts to this PR take turns: the state dir's ledger and the PR (`None`: no lock).
    fn turns(&self) -> Option<(Ledger, PrCoords)>;

    /// The Shepherd comment a post updates (the newest own one), as (id, location).
    fn find_own(&self) -> impl Future<Output = Result<Option<(String, String)>, PostError>> {
        async { Ok(self.list_own().await?.pop()) }
    }
}

/// Where the comment would go, for the confirmation dialog: `Some(id)` = update that comment.
pub async fn target<S: CommentStore>(store: &S) -> Result<Option<String>, PostError> {
    Ok(store.find_own().await?.map(|(id, _)| id))
}

/// Takes the PR's post lock, waiting at most `wait` (a cancelled post stops waiting at once).
pub(crate) async fn take_turn(
    ledger: &Ledger,
    pr: &PrCoords,
    wait: Duration,
) -> Result<PrLock, LedgerError> {
    let start = std::time::Instant::now();
    let mut pause = Duration::ZERO;
    loop {
        let busy = match ledger.try_lock(pr, Lock::Post)? {
            Ok(held) => return Ok(held),
            Err(busy) => busy,
        };
        pause = next_pause(pause, start.elapsed(), wait)
            .ok_or_else(|| busy.gave_up(start.elapsed()))?;
        tokio::time::sleep(pause).await;
    }
}

/// Upserts `body` as the one Shepherd comment, with up to `attempts` tries, holding the PR's
/// post lock (waiting for it at most [`POST_LOCK_WAIT`]). Every try looks for the existing
/// comment first, so a create whose answer was lost is found and updated.
pub async fn upsert<S: CommentStore>(
    store: &S,
    body: &str,
    attempts: u32,
) -> Result<Posted, PostError> {
    upsert_within(store, body, attempts, POST_LOCK_WAIT).await
}

/// [`upsert`], waiting at most `wait` for another run's post to the PR.
pub async fn upsert_within<S: CommentStore>(
    store: &S,
    body: &str,
    attempts: u32,
    wait: Duration,
) -> Result<Posted, PostError> {
    if !is_review_body(body) {
        return Err(PostError::NotAReview);
    }
    if is_partial(body) {
        return Err(PostError::Partial);
    }
    let _turn = match store.turns() {
        Some((ledger, pr)) => Some(take_turn(&ledger, &pr, wait).await?),
        None => None,
    };
    let mut last = None;
    for _ in 0..attempts.max(1) {
        let found = match store.find_own().await {
            Ok(found) => found,
            Err(e) => {
                last = Some(e);
                continue;
            }
        };
        match found {
            Some((id, _)) => match store.update(&id, body).await {
                Ok(location) => {
                    return Ok(Posted {
                        comment_id: id,
                        action: PostAction::Updated,
                        location,
                    });
                }
                Err(e) => last = Some(e),
            },
            // A create that came back is settled, never sent again; one whose answer was lost is
            // found by the next try's look.
            None => match store.create(body).await {
                Ok((id, location)) => return settle(store, id, location, body).await,
                Err(e) => last = Some(e),
            },
        }
    }
    Err(last.unwrap_or_else(|| PostError::Api("no attempt was made".to_owned())))
}

/// After a create: looks again, and when another run created an own Shepherd comment at the
/// same time, keeps the older of them (deleting this run's, updating the older one).
async fn settle<S: CommentStore>(
    store: &S,
    id: String,
    location: String,
    body: &str,
) -> Result<Posted, PostError> {
    let created = Posted {
        comment_id: id.clone(),
        action: PostAction::Created,
        location,
    };
    let own = match store.list_own().await {
        Ok(own) => own,
        Err(e) => {
            // The comment is posted; only the check for a simultaneous one could not be made.
            tracing::debug!(error = %e, "the look after creating failed");
            return Ok(created);
        }
    };
    let Some((oldest, _)) = own.first() else {
        return Ok(created);
    };
    if *oldest == id || !own.iter().any(|(i, _)| *i == id) {
        return Ok(created);
    }
    let kept = oldest.clone();
    if let Err(e) = store.delete(&id).await {
        return Err(PostError::Duplicate {
            made: id,
            kept,
            reason: e.to_string(),
        });
    }
    tracing::debug!(removed = %id, kept = %kept, "a second Shepherd comment made at the same time was removed");
    let location = store.update(&kept, body).await?;
    Ok(Posted {
        comment_id: kept,
        action: PostAction::Updated,
        location,
    })
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[test]
    fn a_partial_answer_is_named_with_its_reasons_sanitized_and_bounded() {
        let f = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo.json"),
        )
        .unwrap();
        let mut snapshot = f.snapshot_at(0).unwrap();
        assert_eq!(whole_answer(&snapshot, "x"), Ok(()));
        snapshot
            .incomplete
            .push("GitHub answered with errors: evil\u{1b}[2J\nline".to_owned());
        snapshot.incomplete.push("y".repeat(2000));
        let e = whole_answer(&snapshot, "the reply was posted already")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("GitHub's answer for acme/rivet#482 was partial ("),
            "{e}"
        );
        assert!(e.contains("evil"), "{e}");
        assert!(!e.contains('\u{1b}') && !e.contains('\n'), "{e}");
        assert!(
            e.contains("whether the reply was posted already cannot be told"),
            "{e}"
        );
        assert!(e.contains("nothing was sent"), "{e}");
        assert!(e.chars().count() < 900, "{}", e.chars().count());
    }

    /// A store whose first `fail_creates` creates succeed on the server but lose their answer,
    /// and whose next `racing_creates` creates find that another run created one just before.
    #[derive(Default)]
    struct Flaky {
        comments: RefCell<Vec<(String, String)>>,
        made: RefCell<u32>,
        fail_creates: RefCell<u32>,
        fail_finds: RefCell<u32>,
        racing_creates: RefCell<u32>,
        fail_deletes: bool,
        turns: Option<(Ledger, PrCoords)>,
    }

    impl CommentStore for Flaky {
        async fn list_own(&self) -> Result<Vec<(String, String)>, PostError> {
            if *self.fail_finds.borrow() > 0 {
                *self.fail_finds.borrow_mut() -= 1;
                return Err(PostError::Api("502".into()));
            }
            Ok(self
                .comments
                .borrow()
                .iter()
                .map(|(id, _)| (id.clone(), format!("url/{id}")))
                .collect())
        }
        async fn create(&self, body: &str) -> Result<(String, String), PostError> {
            let store = |body: &str| {
                *self.made.borrow_mut() += 1;
                let id = format!("c{}", self.made.borrow());
                self.comments
                    .borrow_mut()
                    .push((id.clone(), body.to_owned()));
                id
            };
            if *self.racing_creates.borrow() > 0 {
                *self.racing_creates.borrow_mut() -= 1;
                store("## PR Shepherd Review\n\nthe other run's");
            }
            let id = store(body);
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
        async fn delete(&self, id: &str) -> Result<(), PostError> {
            if self.fail_deletes {
                return Err(PostError::Api("403".into()));
            }
            self.comments.borrow_mut().retain(|(i, _)| i != id);
            Ok(())
        }
        fn turns(&self) -> Option<(Ledger, PrCoords)> {
            self.turns.clone()
        }
    }

    fn block<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
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

    #[test]
    fn a_comment_created_at_the_same_time_as_an_older_one_gives_way_to_it() {
        let s = Flaky::default();
        *s.racing_creates.borrow_mut() = 1;
        let p = block(upsert(&s, BODY, 3)).unwrap();
        // The other run's comment (c1) is older: this run's (c2) is removed, c1 carries the body.
        assert_eq!(p.action, PostAction::Updated);
        assert_eq!(p.comment_id, "c1");
        assert_eq!(
            *s.comments.borrow(),
            vec![("c1".to_owned(), BODY.to_owned())]
        );
    }

    #[test]
    fn a_duplicate_that_cannot_be_removed_is_an_error_naming_both() {
        let s = Flaky {
            fail_deletes: true,
            ..Flaky::default()
        };
        *s.racing_creates.borrow_mut() = 1;
        let e = block(upsert(&s, BODY, 3)).unwrap_err();
        assert!(matches!(e, PostError::Duplicate { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("c2") && msg.contains("c1") && msg.contains("403"),
            "{msg}"
        );
        assert_eq!(s.comments.borrow().len(), 2, "nothing else was touched");
    }

    #[test]
    fn a_post_waits_its_turn_and_says_who_held_it_when_the_wait_ends() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let pr = crate::ledger::test_coords(1);
        let s = Flaky {
            turns: Some((ledger.clone(), pr.clone())),
            ..Flaky::default()
        };
        let held = ledger.lock(&pr, Lock::Post, Duration::ZERO).unwrap();
        let e = block(upsert_within(&s, BODY, 3, Duration::from_millis(20))).unwrap_err();
        assert!(
            matches!(e, PostError::Ledger(LedgerError::Busy { .. })),
            "{e}"
        );
        assert!(e.to_string().contains("posting to the PR"), "{e}");
        assert!(
            s.comments.borrow().is_empty(),
            "nothing was looked at or posted"
        );
        drop(held);
        let p = block(upsert_within(&s, BODY, 3, Duration::ZERO)).unwrap();
        assert_eq!(p.action, PostAction::Created);
    }
}
