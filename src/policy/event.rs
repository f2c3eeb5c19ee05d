//! GitHub Actions event mode (pure): a webhook event name and payload in, a decision out.

use serde::Serialize;
use serde_json::Value;

use super::{AutomationConfig, Mode, TriggerDecision, TriggerKind, trigger_with};
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
        /// The trigger (database id), for triggers: the cutoff and the idempotency key.
        /// Explicit invocations may override business gates.
        trigger_comment: Option<u64>,
        /// Where the trigger was written (a conversation comment, a review summary or an
        /// inline review comment); absent without a trigger.
        #[serde(skip_serializing_if = "Option::is_none")]
        trigger_kind: Option<TriggerKind>,
        reason: String,
    },
    /// A write-action label (`fix-ci`, `address-review`) was added: recognized, but write
    /// actions are not available in this version, so nothing is done because of it.
    #[serde(rename_all = "camelCase")]
    WriteActionLabel {
        owner: String,
        repo: String,
        number: u64,
        label: String,
        /// `fix-ci` or `address-review`.
        write_action: String,
        /// Always false in this version.
        available: bool,
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

/// Decides what an event asks for, with the default `[automation]` settings ([`decide_with`]).
pub fn decide(event: &str, payload: &Value) -> Result<EventDecision, EventError> {
    decide_with(event, payload, &AutomationConfig::default())
}

/// Decides what an event asks for. Comment, review and review-comment bodies are tested here
/// and never passed on.
pub fn decide_with(
    event: &str,
    payload: &Value,
    cfg: &AutomationConfig,
) -> Result<EventDecision, EventError> {
    let action = payload.get("action").and_then(Value::as_str).unwrap_or("");
    match event {
        "pull_request" => pull_request_event(action, payload, cfg),
        "issue_comment" => issue_comment_event(action, payload, cfg),
        "pull_request_review" => review_event(action, payload, cfg),
        "pull_request_review_comment" => review_comment_event(action, payload, cfg),
        "" => Err(malformed("(unnamed)", "event name")),
        other => no_action(format!("`{other}` events are not acted on")),
    }
}

/// `pull_request`: opened/pushed/reopened/ready asks for an automatic review (not on a draft);
/// a label change asks for the gates again; anything else is no action.
fn pull_request_event(
    action: &str,
    payload: &Value,
    cfg: &AutomationConfig,
) -> Result<EventDecision, EventError> {
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
                trigger_kind: None,
                reason: format!("pull_request.{action}: automatic review if the gates allow"),
            })
        }
        "labeled" | "unlabeled" => {
            let label = str_at(payload, &["label", "name"]).unwrap_or("?");
            if action == "labeled"
                && let Some(write_action) = cfg.write_action(label)
            {
                return Ok(EventDecision::WriteActionLabel {
                    owner,
                    repo,
                    number,
                    label: label.to_owned(),
                    write_action: write_action.to_owned(),
                    available: false,
                    reason: format!(
                        "pull_request.labeled `{label}`: recognized as the `{write_action}` \
                         write action; write actions are not available in this version, so \
                         nothing is done"
                    ),
                });
            }
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
/// ([`trigger_with`]) asks for a review; anything else is no action.
fn issue_comment_event(
    action: &str,
    payload: &Value,
    cfg: &AutomationConfig,
) -> Result<EventDecision, EventError> {
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
    let number = payload
        .get("issue")
        .and_then(|i| i.get("number"))
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(EVENT, "issue.number"))?;
    triggered(EVENT, payload, "comment", number, TriggerKind::Comment, cfg)
}

/// `pull_request_review`: a newly submitted review whose summary makes a trigger asks for a
/// review; anything else (an edit, a dismissal, an empty summary) is no action.
fn review_event(
    action: &str,
    payload: &Value,
    cfg: &AutomationConfig,
) -> Result<EventDecision, EventError> {
    const EVENT: &str = "pull_request_review";
    if action != "submitted" {
        return no_action(format!(
            "pull_request_review.{action}: only newly submitted reviews can trigger a review"
        ));
    }
    let number = pr_number(EVENT, payload)?;
    triggered(EVENT, payload, "review", number, TriggerKind::Review, cfg)
}

/// `pull_request_review_comment`: a newly created inline review comment that makes a trigger
/// asks for a review; anything else is no action.
fn review_comment_event(
    action: &str,
    payload: &Value,
    cfg: &AutomationConfig,
) -> Result<EventDecision, EventError> {
    const EVENT: &str = "pull_request_review_comment";
    if action != "created" {
        return no_action(format!(
            "pull_request_review_comment.{action}: only newly created review comments can \
             trigger a review"
        ));
    }
    let number = pr_number(EVENT, payload)?;
    triggered(
        EVENT,
        payload,
        "comment",
        number,
        TriggerKind::ReviewComment,
        cfg,
    )
}

fn pr_number(event: &'static str, payload: &Value) -> Result<u64, EventError> {
    payload
        .get("pull_request")
        .and_then(|p| p.get("number"))
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(event, "pull_request.number"))
}

/// The trigger in `payload[field]` (its author, association and body): a review of PR
/// `number` when it is one, else no action with the reason.
fn triggered(
    event: &'static str,
    payload: &Value,
    field: &'static str,
    number: u64,
    kind: TriggerKind,
    cfg: &AutomationConfig,
) -> Result<EventDecision, EventError> {
    let comment = payload.get(field).ok_or_else(|| malformed(event, field))?;
    let id = comment.get("id").and_then(Value::as_u64).ok_or_else(|| {
        malformed(
            event,
            if field == "review" {
                "review.id"
            } else {
                "comment.id"
            },
        )
    })?;
    let (owner, repo) = repo_of(event, payload)?;
    let author = comment_author(comment);
    let body = comment.get("body").and_then(Value::as_str).unwrap_or("");
    match trigger_with(cfg, &author, body) {
        TriggerDecision::Review(mode) => Ok(EventDecision::Review {
            owner,
            repo,
            number,
            mode,
            trigger_comment: Some(id),
            trigger_kind: Some(kind),
            reason: format!(
                "`/review{}` trigger in a {} from @{} ({})",
                if mode == Mode::Full { " all" } else { "" },
                kind.said(),
                author.login,
                author.association.as_str()
            ),
        }),
        TriggerDecision::Ignore(why) => no_action(format!("{event}: {why}")),
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
