//! The one Shepherd comment on GitHub: a [`CommentStore`] over the PR's conversation (issue)
//! comments.
//!
//! Only a comment whose body starts with `## PR Shepherd Review` **and** whose author is the
//! identity of the current credentials is ever found, so a lookalike posted by anyone else is
//! never returned and never edited. Creating is sent once (never retried blindly): when its answer
//! is lost, [`crate::publish::upsert`] looks again before trying, and finds it. The only comment
//! ever deleted is one this run has just created, when it turned out to be a second one.

use serde::Deserialize;
use serde_json::json;

use super::{CommentStore, PostError};
use crate::ledger::Ledger;
use crate::pr::{PrCoords, is_review_body};
use crate::source::github::{GitHub, GitHubError};

/// Pages of 100 comments read at most when looking for the Shepherd comment.
const MAX_PAGES: usize = 50;

/// A REST issue comment, as far as posting needs it.
#[derive(Debug, Clone, Deserialize)]
pub struct RestComment {
    pub id: u64,
    #[serde(default)]
    pub html_url: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<RestUser>,
    #[serde(default)]
    pub created_at: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RestUser {
    pub login: String,
}

/// The Shepherd comment of one PR on GitHub, owned by `own_login`.
pub struct GitHubComments<'a> {
    pub gh: &'a GitHub,
    pub pr: PrCoords,
    /// The identity of the credentials (`viewer_login()`).
    pub own_login: String,
}

impl From<GitHubError> for PostError {
    fn from(e: GitHubError) -> Self {
        PostError::Api(e.to_string())
    }
}

/// Every comment by `own_login` (case-insensitive) that is a Shepherd review, oldest first.
pub fn own_reviews<'c>(comments: &'c [RestComment], own_login: &str) -> Vec<&'c RestComment> {
    let mut own: Vec<&RestComment> = comments
        .iter()
        .filter(|c| is_review_body(c.body.as_deref().unwrap_or("")))
        .filter(|c| {
            c.user
                .as_ref()
                .is_some_and(|u| u.login.eq_ignore_ascii_case(own_login))
        })
        .collect();
    // RFC 3339 UTC timestamps order as strings; the id breaks ties.
    own.sort_by(|a, b| (&a.created_at, a.id).cmp(&(&b.created_at, b.id)));
    own
}

/// The newest comment by `own_login` (case-insensitive) that is a Shepherd review.
pub fn newest_own<'c>(comments: &'c [RestComment], own_login: &str) -> Option<&'c RestComment> {
    own_reviews(comments, own_login).pop()
}

impl GitHubComments<'_> {
    fn base(&self) -> String {
        format!("/repos/{}/{}/issues", self.pr.owner, self.pr.repo)
    }

    /// `id` as a comment id in a path: digits only.
    fn checked_id(id: &str) -> Result<&str, PostError> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PostError::Api(format!(
                "`{}` is not a comment id",
                crate::sanitize::one_line(id)
            )));
        }
        Ok(id)
    }
}

impl CommentStore for GitHubComments<'_> {
    async fn list_own(&self) -> Result<Vec<(String, String)>, PostError> {
        let path = format!("{}/{}/comments?per_page=100", self.base(), self.pr.number);
        let all: Vec<RestComment> = self
            .gh
            .get_all(&path, MAX_PAGES, "listing the PR's comments")
            .await?;
        Ok(own_reviews(&all, &self.own_login)
            .into_iter()
            .map(|c| (c.id.to_string(), c.html_url.clone()))
            .collect())
    }

    async fn create(&self, body: &str) -> Result<(String, String), PostError> {
        let path = format!("{}/{}/comments", self.base(), self.pr.number);
        let c: RestComment = self
            .gh
            .post_json_once(
                &path,
                &json!({ "body": body }),
                "creating the review comment",
            )
            .await?;
        Ok((c.id.to_string(), c.html_url))
    }

    async fn update(&self, id: &str, body: &str) -> Result<String, PostError> {
        let path = format!("{}/comments/{}", self.base(), Self::checked_id(id)?);
        let c: RestComment = self
            .gh
            .patch_json(
                &path,
                &json!({ "body": body }),
                "updating the review comment",
            )
            .await?;
        Ok(c.html_url)
    }

    async fn delete(&self, id: &str) -> Result<(), PostError> {
        let path = format!("{}/comments/{}", self.base(), Self::checked_id(id)?);
        let what = "removing a second review comment";
        let resp = self
            .gh
            .rest_raw(reqwest::Method::DELETE, &path, None, what)
            .await?;
        // Gone already (a retried delete whose first answer was lost) is what was asked for.
        if resp.status.is_success() || resp.status == reqwest::StatusCode::NOT_FOUND {
            return Ok(());
        }
        Err(PostError::Api(format!(
            "{what}: GitHub answered {}: {}",
            resp.status.as_u16(),
            resp.message()
        )))
    }

    fn turns(&self) -> Option<(Ledger, PrCoords)> {
        let dir = self.gh.state_dir()?;
        Some((Ledger::new(dir), self.pr.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: u64, login: &str, body: &str, at: &str) -> RestComment {
        RestComment {
            id,
            html_url: format!("u/{id}"),
            body: Some(body.to_owned()),
            user: Some(RestUser {
                login: login.to_owned(),
            }),
            created_at: at.to_owned(),
        }
    }

    #[test]
    fn only_own_reviews_newest_first() {
        let all = vec![
            c(
                1,
                "shepherd-bot",
                "## PR Shepherd Review\nold",
                "2026-01-01T00:00:00Z",
            ),
            c(
                2,
                "mallory",
                "## PR Shepherd Review\nfake",
                "2026-01-03T00:00:00Z",
            ),
            c(
                3,
                "Shepherd-Bot",
                "## PR Shepherd Review\nnew",
                "2026-01-02T00:00:00Z",
            ),
            c(
                4,
                "shepherd-bot",
                "## Claude Code Review",
                "2026-01-04T00:00:00Z",
            ),
            c(5, "shepherd-bot", "thanks", "2026-01-05T00:00:00Z"),
        ];
        assert_eq!(newest_own(&all, "shepherd-bot").map(|c| c.id), Some(3));
        assert!(newest_own(&all[1..2], "shepherd-bot").is_none());
        assert!(newest_own(&[], "x").is_none());
    }

    #[test]
    fn decodes_a_rest_comment_with_nulls() {
        let v: RestComment = serde_json::from_str(
            r#"{"id": 9, "node_id": "IC_x", "body": null, "user": null, "html_url": "h", "created_at": "t"}"#,
        )
        .unwrap();
        assert_eq!(v.id, 9);
        assert!(newest_own(&[v], "x").is_none());
    }
}
