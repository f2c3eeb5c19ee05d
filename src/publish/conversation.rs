//! A plain conversation comment on a PR, written by the maintainer in the console: always a new
//! comment (`POST /repos/{o}/{r}/issues/{n}/comments`), never upserted, never the Shepherd
//! comment — a body that would read as one (`## PR Shepherd Review`) is refused, since the
//! Shepherd upsert would later find and overwrite it. Offline it goes to the PR's comment
//! outbox (`<pr>/outbox/comments.json`). Sent once: a lost answer is said as such, never
//! retried blindly into a second comment.

use serde_json::json;

use super::{POST_LOCK_WAIT, RestComment};
use crate::ledger::{Ledger, Lock, OutboxPlainComment};
use crate::pr::{PrCoords, is_review_body};
use crate::source::github::GitHub;

/// The REST path comments are created at.
pub fn comments_path(pr: &PrCoords) -> String {
    format!(
        "/repos/{}/{}/issues/{}/comments",
        pr.owner, pr.repo, pr.number
    )
}

/// Why `body` cannot be posted as a plain comment, checked before anything is asked or sent:
/// empty, over GitHub's limit, or a lookalike of the Shepherd comment.
pub fn check_comment(body: &str) -> Result<(), String> {
    super::check_reply(body).map_err(|e| e.replacen("the reply", "the comment", 1))?;
    if is_review_body(body) {
        return Err(
            "the comment starts like the Shepherd review (`## PR Shepherd Review`): the Shepherd \
             post would take it for its own; post the review with p instead"
                .to_owned(),
        );
    }
    Ok(())
}

/// Posts `body` as a new comment on the PR as the credentials' account: where it can be seen.
pub async fn comment_live(gh: &GitHub, pr: &PrCoords, body: &str) -> Result<String, String> {
    check_comment(body)?;
    let c: RestComment = gh
        .post_json_once(
            &comments_path(pr),
            &json!({ "body": body }),
            "posting the comment",
        )
        .await
        .map_err(|e| {
            format!("{e} (if the answer was lost the comment may be there: the refetch shows it)")
        })?;
    Ok(c.html_url)
}

/// Offline: the exact request is appended to the PR's comment outbox; the file.
pub fn comment_offline(
    ledger: &Ledger,
    pr: &PrCoords,
    body: &str,
    now: i64,
) -> Result<String, String> {
    check_comment(body)?;
    let _turn = ledger
        .lock(pr, Lock::Post, POST_LOCK_WAIT)
        .map_err(|e| e.to_string())?;
    let path = ledger
        .push_comment_outbox(
            pr,
            OutboxPlainComment {
                method: "POST".to_owned(),
                path: comments_path(pr),
                body: json!({ "body": body }),
                created_at: now,
            },
        )
        .map_err(|e| e.to_string())?;
    Ok(path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_or_shepherd_looking_comment_is_refused() {
        assert!(
            check_comment("  ")
                .unwrap_err()
                .contains("the comment is empty")
        );
        assert!(check_comment("## PR Shepherd Review\nhi").is_err());
        check_comment("Thanks, merging after CI.").unwrap();
    }
}
