//! Acting on a review thread: reply, resolve, unresolve — live through GitHub's GraphQL
//! mutations as the credentials' own account, offline (fixtures) into the ledger's thread
//! outbox.
//!
//! A reply is not idempotent, so it is sent once per try; when a try fails in a way that may
//! have reached GitHub (a 5xx, a timeout, a lost answer), the thread is read again and a reply
//! by the own account with the same text that was not there before counts as posted. Only
//! then is it sent again: a reply never goes out twice. Resolving is idempotent and retried
//! as any request.
//!
//! The same holds across processes. Before the first try the reply's intent is recorded in the
//! state dir (the thread, the text, the account and the thread's comments at that moment), and
//! removed once the outcome is known. A run killed after its request left — before the answer
//! came — leaves the intent behind; the next run of the same reply finds it, reads the thread
//! and, when the earlier run's reply is there, reports it instead of sending it again. A reply
//! holds the PR's post lock meanwhile, so two runs never look and send at the same time. The
//! state dir is the one the client was made for ([`GitHub::state_dir`]); the console and
//! `thread reply` both make theirs so.
//!
//! The own reply is recorded as seen when it is posted ([`record_own_reply`]), so it never
//! makes the thread re-surface as edited because of the maintainer's own words.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::ledger::{
    KeptText, Ledger, LedgerError, PrLock, ReplyIntent, ThreadActionKind, normalized_reply,
    reply_body_hash,
};
use crate::pr::{Association, Author, Comment, Item, PrCoords, Thread};
use crate::source::github::{
    GitHub, GitHubError, GraphqlReply, THREAD_REPLY_MUTATION, THREAD_RESOLVE_MUTATION,
    THREAD_UNRESOLVE_MUTATION,
};

/// GitHub's limit on a comment body, in characters (the review's own limit).
pub const REPLY_LIMIT: usize = crate::review::results::condense::COMMENT_LIMIT;

/// What to do to a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadDo {
    Reply(String),
    Resolve,
    Unresolve,
}

impl ThreadDo {
    pub fn kind(&self) -> ThreadActionKind {
        match self {
            ThreadDo::Reply(_) => ThreadActionKind::Reply,
            ThreadDo::Resolve => ThreadActionKind::Resolve,
            ThreadDo::Unresolve => ThreadActionKind::Unresolve,
        }
    }

    /// "reply to", "resolve", "unresolve" — for questions and messages.
    pub fn verb(&self) -> &'static str {
        match self {
            ThreadDo::Reply(_) => "reply to",
            ThreadDo::Resolve => "resolve",
            ThreadDo::Unresolve => "unresolve",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ThreadError {
    /// GitHub refused (a locked or closed PR, no permission, an unknown node): its reason.
    #[error("GitHub refused to {what}: {reason}")]
    Refused { what: String, reason: String },
    #[error(transparent)]
    GitHub(#[from] GitHubError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The thread was read from a partial answer: whether the reply is there cannot be told.
    #[error(transparent)]
    Partial(#[from] crate::publish::PartialAnswer),
}

/// Why a reply body cannot be sent, checked before anything is asked or sent: empty, or over
/// GitHub's comment limit (with how many characters too many).
pub fn check_reply(body: &str) -> Result<(), String> {
    if body.trim().is_empty() {
        return Err("the reply is empty".to_owned());
    }
    // The same check the review draft uses before its confirm box.
    let size = crate::review::results::condense::BodySize::of(body);
    if !size.fits() {
        return Err(format!(
            "the reply is {size}: {} too many for GitHub",
            crate::review::results::condense::thousands(size.over_by())
        ));
    }
    Ok(())
}

/// What was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadDone {
    pub kind: ThreadActionKind,
    pub thread_id: String,
    /// The posted reply (live replies only).
    pub reply: Option<Comment>,
    /// Where it can be seen: the reply's URL, the thread's id, or the outbox file offline.
    pub location: String,
    /// How many tries it took (live replies), 1 otherwise; 0 when an earlier run had posted it.
    pub attempts: u32,
    /// The reply was posted by an earlier run that did not finish (killed, or its answer lost):
    /// found on GitHub, not sent again.
    pub earlier: bool,
}

/// Does `what` to `thread` offline: one more entry in the PR's thread outbox.
pub fn act_offline(
    ledger: &Ledger,
    pr: &PrCoords,
    thread: &Thread,
    what: &ThreadDo,
    now: i64,
) -> Result<ThreadDone, ThreadError> {
    let body = match what {
        ThreadDo::Reply(b) => Some(b.as_str()),
        _ => None,
    };
    let (_, path) = ledger.push_thread_action(pr, what.kind(), &thread.id, body, now)?;
    Ok(ThreadDone {
        kind: what.kind(),
        thread_id: thread.id.clone(),
        reply: None,
        location: path.display().to_string(),
        attempts: 1,
        earlier: false,
    })
}

/// Does `what` to `thread` on GitHub as `viewer` (the credentials' login), with up to `attempts`
/// tries for a reply.
pub async fn act_live(
    gh: &GitHub,
    pr: &PrCoords,
    thread: &Thread,
    what: &ThreadDo,
    viewer: &str,
    attempts: u32,
) -> Result<ThreadDone, ThreadError> {
    match what {
        ThreadDo::Reply(body) => {
            let (reply, tries) = reply_live(gh, pr, thread, body, viewer, attempts).await?;
            Ok(ThreadDone {
                kind: ThreadActionKind::Reply,
                thread_id: thread.id.clone(),
                location: reply.url.clone(),
                reply: Some(reply),
                attempts: tries,
                earlier: tries == 0,
            })
        }
        ThreadDo::Resolve | ThreadDo::Unresolve => {
            let (doc, field, what_text) = if *what == ThreadDo::Resolve {
                (
                    THREAD_RESOLVE_MUTATION,
                    "resolveReviewThread",
                    "resolve the thread",
                )
            } else {
                (
                    THREAD_UNRESOLVE_MUTATION,
                    "unresolveReviewThread",
                    "unresolve the thread",
                )
            };
            let reply = gh
                .graphql(doc, json!({ "threadId": thread.id }), what_text)
                .await?;
            let done = reply
                .data
                .as_ref()
                .and_then(|d| d.get(field))
                .and_then(|p| p.get("thread"))
                .is_some_and(|t| !t.is_null());
            if !done || !reply.errors.is_empty() {
                return Err(refused(what_text, &reply));
            }
            Ok(ThreadDone {
                kind: what.kind(),
                thread_id: thread.id.clone(),
                reply: None,
                location: thread.id.clone(),
                attempts: 1,
                earlier: false,
            })
        }
    }
}

fn refused(what: &str, reply: &GraphqlReply) -> ThreadError {
    let reason = if reply.errors.is_empty() {
        "GitHub's answer held no result".to_owned()
    } else {
        reply
            .errors
            .iter()
            .map(|e| crate::sanitize::one_line(&e.message_line()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    ThreadError::Refused {
        what: what.to_owned(),
        reason,
    }
}

/// Whether a failed try may have reached GitHub (and so must be looked for before another).
fn maybe_done(e: &GitHubError) -> bool {
    matches!(e, GitHubError::Unavailable { .. })
}

/// Where a live reply records its intent, holding the PR's post lock: the client's state dir.
struct Intents {
    ledger: Ledger,
    _turn: PrLock,
}

impl Intents {
    /// Takes the PR's post lock in the client's state dir (none without one).
    async fn open(gh: &GitHub, pr: &PrCoords) -> Result<Option<Intents>, ThreadError> {
        let Some(dir) = gh.state_dir() else {
            return Ok(None);
        };
        let ledger = Ledger::new(dir);
        let turn = crate::publish::take_turn(&ledger, pr, crate::publish::POST_LOCK_WAIT).await?;
        Ok(Some(Intents {
            ledger,
            _turn: turn,
        }))
    }
}

/// Sends `body` to `thread` once per try, never twice (see the module docs). Returns the reply
/// and the tries it took (0: an earlier run had posted it).
async fn reply_live(
    gh: &GitHub,
    pr: &PrCoords,
    thread: &Thread,
    body: &str,
    viewer: &str,
    attempts: u32,
) -> Result<(Comment, u32), ThreadError> {
    let intents = Intents::open(gh, pr).await?;
    let mut before: Vec<String> = thread.comments.iter().map(|c| c.id.clone()).collect();
    if let Some(i) = &intents {
        let earlier = i
            .ledger
            .reply_intent(pr, &thread.id, body)?
            .filter(|e| e.login.is_empty() || e.login.eq_ignore_ascii_case(viewer));
        if let Some(earlier) = earlier {
            // An earlier run may have posted it: look before sending. Only comments that were
            // not in the thread when it first tried can be its reply (an intent that could not
            // be read names none, so any own reply with this text is taken for it).
            before = earlier.before;
            if let Some(c) = find_own_reply(gh, pr, &thread.id, &before, body, viewer).await? {
                i.ledger.clear_reply_intent(pr, &thread.id, body)?;
                return Ok((c, 0));
            }
        }
        i.ledger.record_reply_intent(
            pr,
            &ReplyIntent {
                thread_id: thread.id.clone(),
                login: viewer.to_owned(),
                body_hash: reply_body_hash(body),
                before: before.clone(),
                at: chrono::Utc::now().timestamp(),
            },
            body,
        )?;
    }
    let outcome = send_reply(gh, pr, thread, &before, body, viewer, attempts).await;
    if let Some(i) = &intents {
        // Known: posted, or refused by GitHub. Unknown (it may have reached GitHub, or GitHub's
        // answer was partial when it was looked for): the intent stays, so the next run looks
        // first.
        let known = match &outcome {
            Ok(_) => true,
            Err(ThreadError::GitHub(e)) => !maybe_done(e),
            Err(ThreadError::Partial(_)) => false,
            Err(_) => true,
        };
        if known {
            i.ledger.clear_reply_intent(pr, &thread.id, body)?;
        }
    }
    outcome
}

/// The tries of a reply: each after the first looks on GitHub before sending again.
async fn send_reply(
    gh: &GitHub,
    pr: &PrCoords,
    thread: &Thread,
    before: &[String],
    body: &str,
    viewer: &str,
    attempts: u32,
) -> Result<(Comment, u32), ThreadError> {
    let what = "reply to the thread";
    let mut last = None;
    for attempt in 1..=attempts.max(1) {
        if attempt > 1 {
            // Look before re-posting: the earlier try may have been stored.
            match find_own_reply(gh, pr, &thread.id, before, body, viewer).await {
                Ok(Some(c)) => return Ok((c, attempt - 1)),
                Ok(None) => {}
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            }
        }
        match gh
            .graphql_once(
                THREAD_REPLY_MUTATION,
                json!({ "threadId": thread.id, "body": body }),
                what,
            )
            .await
        {
            Ok(reply) => {
                return match parse_reply(&reply) {
                    Some(c) if reply.errors.is_empty() => Ok((c, attempt)),
                    _ => Err(refused(what, &reply)),
                };
            }
            Err(e) if maybe_done(&e) => last = Some(e.into()),
            Err(e) => return Err(e.into()),
        }
    }
    Err(last.unwrap_or_else(|| ThreadError::Refused {
        what: what.to_owned(),
        reason: "no attempt was made".to_owned(),
    }))
}

/// A reply by `viewer` with `body` in thread `thread_id` that is not one of `before`. A partial
/// answer from GitHub is an error, never "not there": the reply may be what is missing.
async fn find_own_reply(
    gh: &GitHub,
    pr: &PrCoords,
    thread_id: &str,
    before: &[String],
    body: &str,
    viewer: &str,
) -> Result<Option<Comment>, ThreadError> {
    let now = gh.fetch_snapshot(pr).await?;
    crate::publish::whole_answer(&now, "the reply was posted already")?;
    let Some(Item::Thread(t)) = now.find(thread_id) else {
        return Ok(None);
    };
    let body = normalized_reply(body);
    Ok(t.comments
        .iter()
        .filter(|c| !before.contains(&c.id))
        .find(|c| c.author.login.eq_ignore_ascii_case(viewer) && normalized_reply(&c.body) == body)
        .cloned())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyComment {
    id: String,
    #[serde(default)]
    url: String,
    body: String,
    created_at: String,
    #[serde(default)]
    author_association: Option<Association>,
    author: Option<ReplyAuthor>,
}

#[derive(Deserialize)]
struct ReplyAuthor {
    #[serde(rename = "__typename", default)]
    typename: String,
    login: String,
}

fn parse_reply(reply: &GraphqlReply) -> Option<Comment> {
    let v: &Value = reply
        .data
        .as_ref()?
        .get("addPullRequestReviewThreadReply")?
        .get("comment")?;
    let c: ReplyComment = serde_json::from_value(v.clone()).ok()?;
    let created_at = chrono::DateTime::parse_from_rfc3339(&c.created_at)
        .ok()?
        .with_timezone(&chrono::Utc);
    let author = c.author?;
    Some(Comment {
        id: c.id,
        author: Author {
            bot: author.typename == "Bot",
            login: author.login,
            association: c.author_association.unwrap_or(Association::None),
        },
        created_at,
        last_edited_at: None,
        url: c.url,
        body: c.body,
        minimized: false,
        minimized_reason: None,
    })
}

/// Records the own reply as seen: when the thread was seen as it stood before the reply, its
/// marker (and kept text) move to the thread with the reply, so the maintainer's own words
/// never re-surface it. A thread with changes not yet seen is left to surface. Returns whether
/// the marker moved (or already named the thread with the reply). `before` may already hold the
/// reply — a reply an earlier, interrupted run posted — and is then taken without it.
pub fn record_own_reply(
    ledger: &Ledger,
    pr: &PrCoords,
    before: &Thread,
    reply: &Comment,
    now: i64,
) -> Result<bool, LedgerError> {
    let mut before = before.clone();
    before.comments.retain(|c| c.id != reply.id);
    let mut after = before.clone();
    after.comments.push(reply.clone());
    let before_hash = Item::Thread(before.clone()).body_hash();
    let after = Item::Thread(after);
    let hash = after.body_hash();
    let seen = ledger.load_marker(pr, &before.id)?;
    match seen {
        Some(m) if m.body_hash == hash => return Ok(true),
        Some(m) if m.body_hash == before_hash => {}
        _ => return Ok(false),
    }
    ledger.keep_texts(pr, &[KeptText::of(&after, &hash)])?;
    ledger.mark_seen(pr, &[(before.id.as_str(), hash.as_str())], now)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_oversized_replies_are_refused_with_the_count() {
        assert!(check_reply("  \n ").unwrap_err().contains("empty"));
        assert!(check_reply("thanks").is_ok());
        assert!(check_reply(&"é".repeat(REPLY_LIMIT)).is_ok());
        let e = check_reply(&"x".repeat(REPLY_LIMIT + 3)).unwrap_err();
        assert!(
            e.contains("65,539 / 65,536 characters") && e.contains("3 too many"),
            "{e}"
        );
    }

    #[test]
    fn parses_githubs_reply_payload() {
        let reply: GraphqlReply = serde_json::from_value(
            json!({"data": {"addPullRequestReviewThreadReply": {"comment": {
            "id": "PRRC_x", "url": "https://github.com/o/r/pull/1#discussion_r9", "body": "done",
            "createdAt": "2026-11-30T05:00:00Z", "authorAssociation": "MEMBER",
            "author": {"__typename": "User", "login": "monalisa"}}}}}),
        )
        .unwrap();
        let c = parse_reply(&reply).unwrap();
        assert_eq!(
            (c.id.as_str(), c.author.login.as_str()),
            ("PRRC_x", "monalisa")
        );
        assert_eq!(c.author.association, Association::Member);
        let none: GraphqlReply = serde_json::from_value(json!({"data": {"addPullRequestReviewThreadReply": null}, "errors": [{"message": "locked"}]})).unwrap();
        assert!(parse_reply(&none).is_none());
        assert!(
            matches!(refused("reply", &none), ThreadError::Refused { reason, .. } if reason == "locked")
        );
    }
}
