//! What the maintainer sent that the PR as read does not show yet: plain conversation comments
//! and submitted reviews (with their line comments), queued in the outbox offline or sent live
//! and not read back. Laid over a PR's items (pure), each stands where it belongs — a comment
//! under the conversation, a review under the review summaries, its line comments as threads on
//! their lines — under an id that says it is not on GitHub yet ([`crate::pr::QUEUED_PREFIX`]),
//! until the PR read back shows it.

use chrono::DateTime;

use super::conversation::OutboxPlainComment;
use super::pending::OutboxReview;
use crate::pr::{
    Association, Author, Comment, DiffSide, Item, QUEUED_PREFIX, Review, ReviewState, Thread,
};

/// Sent live, not read back yet: the stand-ins' ids start with this (within
/// [`QUEUED_PREFIX`]); the others are queued offline.
pub const SENT_PREFIX: &str = "outbox-thread-sent-";

/// Whether a stand-in `id` was sent live (else it is queued offline).
pub fn is_sent_live(id: &str) -> bool {
    id.starts_with(SENT_PREFIX)
}

/// One line comment of a sent review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentLine {
    pub path: String,
    pub line: u32,
    pub side: DiffSide,
    pub body: String,
}

/// A sent review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentReview {
    /// The hidden key its body carries (how the PR read back shows it).
    pub key: String,
    /// GitHub's event: `COMMENT`, `REQUEST_CHANGES`, `APPROVE`.
    pub event: String,
    /// Its body, less the hidden key.
    pub body: String,
    pub at: i64,
    pub lines: Vec<SentLine>,
}

/// What was sent and is not read back yet (`live`: sent to GitHub; else queued offline).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sent {
    pub live: bool,
    /// Plain conversation comments: (body, Unix seconds).
    pub comments: Vec<(String, i64)>,
    pub reviews: Vec<SentReview>,
}

/// A review body without its trailing hidden `<!-- … -->` key line.
fn shown_body(body: &str) -> String {
    let t = body.trim_end();
    match t.rfind("<!--") {
        Some(at) if t.ends_with("-->") && !t[at..].contains('\n') => t[..at].trim_end().to_owned(),
        _ => t.to_owned(),
    }
}

impl SentReview {
    /// A review from the exact request it was (or would be) sent as: `POST …/reviews`'s body.
    pub fn of_request(key: &str, request: &serde_json::Value, at: i64) -> SentReview {
        let text = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_owned();
        let lines = request["comments"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| SentLine {
                        path: text(c, "path"),
                        line: c["line"]
                            .as_u64()
                            .and_then(|l| u32::try_from(l).ok())
                            .unwrap_or(0),
                        side: if c["side"].as_str() == Some("LEFT") {
                            DiffSide::Left
                        } else {
                            DiffSide::Right
                        },
                        body: text(c, "body"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        SentReview {
            key: key.to_owned(),
            event: text(request, "event"),
            body: shown_body(&text(request, "body")),
            at,
            lines,
        }
    }
}

impl Sent {
    /// What the outbox holds of a PR: its plain comments and its reviews, queued offline.
    pub fn from_outbox(comments: &[OutboxPlainComment], reviews: &[OutboxReview]) -> Sent {
        Sent {
            live: false,
            comments: comments
                .iter()
                .map(|c| {
                    (
                        c.body["body"].as_str().unwrap_or_default().to_owned(),
                        c.created_at,
                    )
                })
                .collect(),
            reviews: reviews
                .iter()
                .map(|r| SentReview::of_request(&r.key, &r.body, r.created_at))
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.comments.is_empty() && self.reviews.is_empty()
    }

    /// Lays what was sent over `items`, by `own` (the maintainer's login), each in its place and
    /// once; what `items` already shows (a comment of `own` with the same text, a review whose
    /// body carries the key) is left to the PR as read.
    pub fn apply(&self, items: &mut Vec<Item>, own: &str) {
        let prefix = if self.live {
            SENT_PREFIX
        } else {
            QUEUED_PREFIX
        };
        let author = Author {
            login: if own.is_empty() { "you" } else { own }.to_owned(),
            association: Association::Member,
            bot: false,
        };
        let comment = |id: String, body: &str, at: i64| Comment {
            id,
            author: author.clone(),
            created_at: DateTime::from_timestamp(at, 0).unwrap_or_default(),
            last_edited_at: None,
            url: String::new(),
            body: body.to_owned(),
            minimized: false,
            minimized_reason: None,
        };
        // A comment read back is matched once: two sent with the same text need two read back.
        let mut read_back: Vec<usize> = Vec::new();
        for (n, (body, at)) in self.comments.iter().enumerate() {
            let id = format!("{prefix}comment-{n}");
            let there = items.iter().enumerate().position(|(i, it)| {
                !read_back.contains(&i)
                    && matches!(it, Item::Comment(c)
                        if c.author.login == author.login && c.body.trim() == body.trim())
            });
            if let Some(i) = there {
                read_back.push(i);
                continue;
            }
            if items.iter().any(|i| i.id() == id) {
                continue;
            }
            items.push(Item::Comment(comment(id, body, *at)));
        }
        for r in &self.reviews {
            let shown = items.iter().any(
                |i| matches!(i, Item::Review(v) if !r.key.is_empty() && v.body.contains(&r.key)),
            );
            let id = format!("{prefix}review-{}", r.key);
            if shown || items.iter().any(|i| i.id() == id) {
                continue;
            }
            items.push(Item::Review(Review {
                id: id.clone(),
                author: author.clone(),
                state: match r.event.as_str() {
                    "APPROVE" => ReviewState::Approved,
                    "REQUEST_CHANGES" => ReviewState::ChangesRequested,
                    _ => ReviewState::Commented,
                },
                created_at: DateTime::from_timestamp(r.at, 0).unwrap_or_default(),
                last_edited_at: None,
                url: String::new(),
                body: r.body.clone(),
                minimized: false,
                minimized_reason: None,
            }));
            for (k, l) in r.lines.iter().enumerate() {
                let tid = format!("{id}-{k}");
                items.push(Item::Thread(Thread {
                    id: tid.clone(),
                    path: l.path.clone(),
                    line: Some(l.line),
                    original_line: Some(l.line),
                    side: Some(l.side),
                    diff_hunk: String::new(),
                    outdated: false,
                    resolved: false,
                    comments: vec![comment(format!("{tid}-c"), &l.body, r.at)],
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn review(key: &str) -> OutboxReview {
        OutboxReview {
            key: key.to_owned(),
            method: "POST".into(),
            path: "repos/o/r/pulls/1/reviews".into(),
            body: json!({
                "commit_id": "abc",
                "event": "REQUEST_CHANGES",
                "body": format!("Split it.\n\n<!-- pr-shepherd:review {key} -->"),
                "comments": [{"path": "src/a.rs", "line": 4, "side": "RIGHT", "body": "Why?"}],
            }),
            created_at: 1_764_000_000,
        }
    }

    fn plain(body: &str) -> OutboxPlainComment {
        OutboxPlainComment {
            method: "POST".into(),
            path: "repos/o/r/issues/1/comments".into(),
            body: json!({ "body": body }),
            created_at: 1_764_000_000,
        }
    }

    #[test]
    fn what_the_outbox_holds_stands_in_its_place_until_the_pr_shows_it() {
        let sent = Sent::from_outbox(&[plain("Thanks!")], &[review("k1")]);
        let mut items = Vec::new();
        sent.apply(&mut items, "monalisa");
        assert_eq!(items.len(), 3, "{items:?}");
        assert!(items.iter().all(|i| crate::pr::is_queued(i.id())));
        let Item::Review(r) = items[1].clone() else {
            panic!("{items:?}")
        };
        assert_eq!(r.state, ReviewState::ChangesRequested);
        assert_eq!(r.body, "Split it.", "the hidden key is not shown");
        let Item::Thread(t) = &items[2] else {
            panic!("{items:?}")
        };
        assert_eq!((t.path.as_str(), t.line), ("src/a.rs", Some(4)));
        assert_eq!(t.comments[0].author.login, "monalisa");
        // Applied again: once.
        sent.apply(&mut items, "monalisa");
        assert_eq!(items.len(), 3);

        // Read back: the PR's own comment and the review with the key replace the stand-ins.
        let mut read = Vec::new();
        let mut c = match &items[0] {
            Item::Comment(c) => c.clone(),
            other => panic!("{other:?}"),
        };
        c.id = "IC_1".into();
        read.push(Item::Comment(c));
        let mut v = r.clone();
        v.id = "PRR_1".into();
        v.body = "Split it.\n\n<!-- pr-shepherd:review k1 -->".into();
        read.push(Item::Review(v));
        sent.apply(&mut read, "monalisa");
        assert_eq!(read.len(), 2, "{read:?}");
    }

    #[test]
    fn sent_live_is_said_apart_from_queued_offline() {
        let mut sent = Sent::from_outbox(&[plain("Thanks!")], &[]);
        sent.live = true;
        let mut items = Vec::new();
        sent.apply(&mut items, "");
        assert!(is_sent_live(items[0].id()));
        assert!(crate::pr::is_queued(items[0].id()));
        let Item::Comment(c) = &items[0] else {
            panic!()
        };
        assert_eq!(c.author.login, "you");
    }
}
