//! GitHub Actions event mode (pure): a webhook event name and payload in, a decision out.

use serde::Serialize;
use serde_json::Value;

use super::{Mode, TriggerDecision, trigger};
use crate::pr::{Association, Author};

/// What to do for one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum EventDecision {
    /// Review the PR (automatic: the gates decide with the fetched PR).
    #[serde(rename_all = "camelCase")]
    Review {
        owner: String,
        repo: String,
        number: u64,
        mode: Mode,
        /// The trigger comment (database id), for comment triggers: the cutoff and the
        /// idempotency key. Explicit invocations may override business gates.
        trigger_comment: Option<u64>,
        reason: String,
    },
    /// Labels changed: evaluate the gates again and review if they now allow it.
    #[serde(rename_all = "camelCase")]
    Regate {
        owner: String,
        repo: String,
        number: u64,
        reason: String,
    },
    /// Nothing to do, and why.
    #[serde(rename_all = "camelCase")]
    NoAction { reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("the {event} payload has no usable `{field}`")]
    Malformed { event: String, field: &'static str },
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

fn repo_of(event: &str, payload: &Value) -> Result<(String, String), EventError> {
    str_at(payload, &["repository", "full_name"])
        .and_then(|full| full.split_once('/'))
        .map(|(o, r)| (o.to_owned(), r.to_owned()))
        .ok_or_else(|| malformed(event, "repository.full_name"))
}

fn association(s: Option<&str>) -> Association {
    serde_json::from_value(Value::String(s.unwrap_or("NONE").to_owned()))
        .unwrap_or(Association::None)
}

fn no_action(reason: impl Into<String>) -> Result<EventDecision, EventError> {
    Ok(EventDecision::NoAction {
        reason: reason.into(),
    })
}

fn malformed(event: &str, field: &'static str) -> EventError {
    EventError::Malformed {
        event: event.to_owned(),
        field,
    }
}

/// Decides what an event asks for. Comment bodies are tested here and never passed on.
pub fn decide(event: &str, payload: &Value) -> Result<EventDecision, EventError> {
    let action = payload.get("action").and_then(Value::as_str).unwrap_or("");
    match event {
        "pull_request" => pull_request_event(action, payload),
        "issue_comment" => issue_comment_event(action, payload),
        "" => Err(malformed("(unnamed)", "event name")),
        other => no_action(format!("`{other}` events are not acted on")),
    }
}

/// `pull_request`: opened/pushed/reopened/ready asks for an automatic review (not on a draft);
/// a label change asks for the gates again; anything else is no action.
fn pull_request_event(action: &str, payload: &Value) -> Result<EventDecision, EventError> {
    const EVENT: &str = "pull_request";
    let pr = payload
        .get("pull_request")
        .ok_or_else(|| malformed(EVENT, "pull_request"))?;
    let number = pr
        .get("number")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(EVENT, "pull_request.number"))?;
    let (owner, repo) = repo_of(EVENT, payload)?;
    let draft = pr.get("draft").and_then(Value::as_bool).unwrap_or(false);
    match action {
        "opened" | "synchronize" | "reopened" | "ready_for_review" => {
            if draft {
                return no_action(format!(
                    "pull_request.{action} on a draft PR: reviewed once it is ready for review"
                ));
            }
            Ok(EventDecision::Review {
                owner,
                repo,
                number,
                mode: Mode::Incremental,
                trigger_comment: None,
                reason: format!("pull_request.{action}: automatic review if the gates allow"),
            })
        }
        "labeled" | "unlabeled" => {
            let label = str_at(payload, &["label", "name"]).unwrap_or("?");
            Ok(EventDecision::Regate {
                owner,
                repo,
                number,
                reason: format!("pull_request.{action} `{label}`: gates evaluated again"),
            })
        }
        "closed" => no_action("pull_request.closed: nothing to do for a closed PR"),
        other => no_action(format!(
            "pull_request.{other}: not an event pr-shepherd acts on"
        )),
    }
}

/// `issue_comment`: a newly created comment on a PR whose author and body make a trigger
/// ([`trigger`]) asks for a review; anything else is no action.
fn issue_comment_event(action: &str, payload: &Value) -> Result<EventDecision, EventError> {
    const EVENT: &str = "issue_comment";
    if payload
        .get("issue")
        .and_then(|i| i.get("pull_request"))
        .is_none()
    {
        return no_action("issue_comment on an issue, not a pull request");
    }
    if action != "created" {
        return no_action(format!(
            "issue_comment.{action}: only newly created comments can trigger a review"
        ));
    }
    let comment = payload
        .get("comment")
        .ok_or_else(|| malformed(EVENT, "comment"))?;
    let number = payload
        .get("issue")
        .and_then(|i| i.get("number"))
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(EVENT, "issue.number"))?;
    let id = comment
        .get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(EVENT, "comment.id"))?;
    let (owner, repo) = repo_of(EVENT, payload)?;
    let author = comment_author(comment);
    let body = comment.get("body").and_then(Value::as_str).unwrap_or("");
    match trigger(&author, body) {
        TriggerDecision::Review(mode) => Ok(EventDecision::Review {
            owner,
            repo,
            number,
            mode,
            trigger_comment: Some(id),
            reason: format!(
                "`@pr-shepherd /review{}` from @{} ({})",
                if mode == Mode::Full { " all" } else { "" },
                author.login,
                author.association.as_str()
            ),
        }),
        TriggerDecision::Ignore(why) => no_action(why),
    }
}

/// The author of a webhook comment: login (`ghost` when deleted), association, bot or not.
fn comment_author(comment: &Value) -> Author {
    Author {
        login: str_at(comment, &["user", "login"])
            .unwrap_or("ghost")
            .to_owned(),
        association: association(comment.get("author_association").and_then(Value::as_str)),
        bot: str_at(comment, &["user", "type"]) == Some("Bot"),
    }
}
