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
    let full = str_at(payload, &["repository", "full_name"]).ok_or(EventError::Malformed {
        event: event.to_owned(),
        field: "repository.full_name",
    })?;
    full.split_once('/')
        .map(|(o, r)| (o.to_owned(), r.to_owned()))
        .ok_or(EventError::Malformed {
            event: event.to_owned(),
            field: "repository.full_name",
        })
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

/// Decides what an event asks for. Comment bodies are tested here and never passed on.
pub fn decide(event: &str, payload: &Value) -> Result<EventDecision, EventError> {
    let action = payload.get("action").and_then(Value::as_str).unwrap_or("");
    match event {
        "pull_request" => {
            let pr = payload.get("pull_request").ok_or(EventError::Malformed {
                event: event.to_owned(),
                field: "pull_request",
            })?;
            let number = pr
                .get("number")
                .and_then(Value::as_u64)
                .ok_or(EventError::Malformed {
                    event: event.to_owned(),
                    field: "pull_request.number",
                })?;
            let (owner, repo) = repo_of(event, payload)?;
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
                        reason: format!(
                            "pull_request.{action}: automatic review if the gates allow"
                        ),
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
        "issue_comment" => {
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
            let comment = payload.get("comment").ok_or(EventError::Malformed {
                event: event.to_owned(),
                field: "comment",
            })?;
            let number = payload
                .get("issue")
                .and_then(|i| i.get("number"))
                .and_then(Value::as_u64)
                .ok_or(EventError::Malformed {
                    event: event.to_owned(),
                    field: "issue.number",
                })?;
            let id = comment
                .get("id")
                .and_then(Value::as_u64)
                .ok_or(EventError::Malformed {
                    event: event.to_owned(),
                    field: "comment.id",
                })?;
            let (owner, repo) = repo_of(event, payload)?;
            let author = Author {
                login: str_at(comment, &["user", "login"])
                    .unwrap_or("ghost")
                    .to_owned(),
                association: association(comment.get("author_association").and_then(Value::as_str)),
                bot: str_at(comment, &["user", "type"]) == Some("Bot"),
            };
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
        "" => Err(EventError::Malformed {
            event: "(unnamed)".to_owned(),
            field: "event name",
        }),
        other => no_action(format!("`{other}` events are not acted on")),
    }
}
