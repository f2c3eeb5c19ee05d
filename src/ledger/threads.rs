//! Acting on review threads, per PR: the offline outbox of thread actions, the console's
//! unposted reply, and the intents of live replies.
//!
//! ```text
//! <pr>/outbox/threads.json   offline (fixture) replies, resolutions and unresolutions, in order
//! <pr>/reply-draft.json      the reply being written in the console (fsynced on every save)
//! <pr>/reply-intent-<sha256-hex>.json  a live reply about to be sent (fsynced before sending)
//! ```
//!
//! The thread outbox is one file, read, appended to and written back under the PR's
//! [`Lock::ThreadOutbox`], so concurrent runs each add their action and none is lost; its format
//! is the one earlier releases wrote, so their outboxes are read and appended to as they are.
//!
//! A reply intent says "this reply, to this thread, by this account, may have reached GitHub":
//! it is written before the reply is sent and removed once the outcome is known. A run that
//! finds one (the one before it was killed, or lost its answer) looks on GitHub before sending
//! again (`publish::threads`).

use std::path::PathBuf;
use std::time::Duration;

use chrono::DateTime;
use sha2::{Digest, Sha256};

use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError, Lock, write_atomic_synced};
use crate::pr::{Association, Author, Comment, Item, PrCoords};

/// What was done to a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThreadActionKind {
    Reply,
    Resolve,
    Unresolve,
}

impl ThreadActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ThreadActionKind::Reply => "reply",
            ThreadActionKind::Resolve => "resolve",
            ThreadActionKind::Unresolve => "unresolve",
        }
    }
}

/// One offline thread action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadAction {
    /// `outbox-thread-N`, in order.
    pub id: String,
    pub kind: ThreadActionKind,
    pub thread_id: String,
    /// The reply's text (replies only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Unix seconds.
    pub at: i64,
}

/// The outbox file of thread actions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadOutbox {
    pub actions: Vec<ThreadAction>,
}

/// A queued (offline) reply stands in its thread under its action's id, which starts with
/// [`QUEUED_PREFIX`]: what draws it says it is queued, not posted.
pub use crate::pr::{QUEUED_PREFIX, is_queued};

/// What the queued thread actions make of `items`, in their order: a reply stands at the end of
/// its thread as a comment by `own` (its id the action's, see [`is_queued`]; never twice), a
/// resolve or unresolve sets the thread's state. Actions on threads not in `items` are left.
pub fn apply_queued(actions: &[ThreadAction], items: &mut [Item], own: &str) {
    for a in actions {
        let Some(t) = items.iter_mut().find_map(|i| match i {
            Item::Thread(t) if t.id == a.thread_id => Some(t),
            _ => None,
        }) else {
            continue;
        };
        match a.kind {
            ThreadActionKind::Reply => {
                if t.comments.iter().any(|c| c.id == a.id) {
                    continue;
                }
                t.comments.push(Comment {
                    id: a.id.clone(),
                    author: Author {
                        login: if own.is_empty() { "you" } else { own }.to_owned(),
                        association: Association::Member,
                        bot: false,
                    },
                    created_at: DateTime::from_timestamp(a.at, 0).unwrap_or_default(),
                    last_edited_at: None,
                    url: String::new(),
                    body: a.body.clone().unwrap_or_default(),
                    minimized: false,
                    minimized_reason: None,
                });
            }
            ThreadActionKind::Resolve => t.resolved = true,
            ThreadActionKind::Unresolve => t.resolved = false,
        }
    }
}

/// The queued resolve or unresolve that decides `thread_id`'s state, if any (the last one).
pub fn queued_resolution(actions: &[ThreadAction], thread_id: &str) -> Option<bool> {
    actions.iter().rev().find_map(|a| match a.kind {
        _ if a.thread_id != thread_id => None,
        ThreadActionKind::Resolve => Some(true),
        ThreadActionKind::Unresolve => Some(false),
        ThreadActionKind::Reply => None,
    })
}

/// The name of a reply intent's file in the PR folder starts with this.
const REPLY_INTENT_PREFIX: &str = "reply-intent-";

/// How long an append to the thread outbox waits for another run's append (each takes
/// milliseconds; a holder past this has hung).
pub const THREAD_OUTBOX_WAIT: Duration = Duration::from_secs(30);

/// A live reply that was about to be sent (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyIntent {
    pub thread_id: String,
    /// The login the reply is sent as.
    pub login: String,
    /// The first 16 hex characters of the SHA-256 of the reply's text (trimmed, `\n` lines).
    pub body_hash: String,
    /// The ids of the thread's comments before the first try: a reply by `login` with this
    /// text that is not among them is this reply.
    pub before: Vec<String>,
    /// Unix seconds of the first try.
    pub at: i64,
}

/// A reply's text as it is compared: `\r\n` as `\n`, trimmed.
pub fn normalized_reply(body: &str) -> String {
    body.replace("\r\n", "\n").trim().to_owned()
}

fn sha256_hex(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    format!("{:x}", h.finalize())
}

/// [`ReplyIntent::body_hash`] of `body`.
pub fn reply_body_hash(body: &str) -> String {
    sha256_hex(&[&normalized_reply(body)])[..16].to_owned()
}

/// A conversation comment being written in the console (`w`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentDraft {
    pub body: String,
    /// Unix seconds of the last save.
    pub saved_at: i64,
}

/// A reply being written in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyDraft {
    pub thread_id: String,
    pub body: String,
    /// Unix seconds of the last save.
    pub saved_at: i64,
}

pub(super) fn read_json<T: serde::de::DeserializeOwned>(
    path: PathBuf,
    action: &'static str,
) -> Result<Option<T>, LedgerError> {
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| LedgerError::Io {
                action,
                path,
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LedgerError::io("read", &path)(e)),
    }
}

impl Ledger {
    /// `<pr>/outbox/threads.json`.
    pub fn thread_outbox_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("outbox").join("threads.json"))
    }

    /// The offline thread actions so far (none when there is no file).
    pub fn thread_outbox(&self, pr: &PrCoords) -> Result<ThreadOutbox, LedgerError> {
        Ok(read_json(self.thread_outbox_path(pr)?, "read the thread outbox")?.unwrap_or_default())
    }

    /// Appends one action to the thread outbox (durably); returns it with its id and the file.
    pub fn push_thread_action(
        &self,
        pr: &PrCoords,
        kind: ThreadActionKind,
        thread_id: &str,
        body: Option<&str>,
        at: i64,
    ) -> Result<(ThreadAction, PathBuf), LedgerError> {
        let path = self.thread_outbox_path(pr)?;
        // Read, append and write back in turn with other runs: none overwrites another's entry.
        let _turn = self.lock(pr, Lock::ThreadOutbox, THREAD_OUTBOX_WAIT)?;
        let mut outbox = self.thread_outbox(pr)?;
        let action = ThreadAction {
            id: format!("outbox-thread-{}", outbox.actions.len() + 1),
            kind,
            thread_id: thread_id.to_owned(),
            body: body.map(str::to_owned),
            at,
        };
        outbox.actions.push(action.clone());
        write_atomic_synced(
            &path,
            &serde_json::to_vec_pretty(&outbox).unwrap_or_default(),
        )?;
        Ok((action, path))
    }

    fn reply_intent_path(
        &self,
        pr: &PrCoords,
        thread_id: &str,
        body: &str,
    ) -> Result<PathBuf, LedgerError> {
        let key = sha256_hex(&[thread_id, &normalized_reply(body)]);
        Ok(self
            .pr_dir(pr)?
            .join(format!("{REPLY_INTENT_PREFIX}{key}.json")))
    }

    /// Records, durably, that `intent` is about to be sent with `body`.
    pub fn record_reply_intent(
        &self,
        pr: &PrCoords,
        intent: &ReplyIntent,
        body: &str,
    ) -> Result<(), LedgerError> {
        let path = self.reply_intent_path(pr, &intent.thread_id, body)?;
        write_atomic_synced(
            &path,
            &serde_json::to_vec_pretty(intent).unwrap_or_default(),
        )
    }

    /// The recorded intent of replying `body` to `thread_id`, if an earlier run left one. An
    /// unreadable one counts as there (its outcome is unknown: look before sending).
    pub fn reply_intent(
        &self,
        pr: &PrCoords,
        thread_id: &str,
        body: &str,
    ) -> Result<Option<ReplyIntent>, LedgerError> {
        let path = self.reply_intent_path(pr, thread_id, body)?;
        match read_json::<ReplyIntent>(path, "read the reply intent") {
            Ok(found) => Ok(found),
            Err(LedgerError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::InvalidData =>
            {
                Ok(Some(ReplyIntent {
                    thread_id: thread_id.to_owned(),
                    login: String::new(),
                    body_hash: reply_body_hash(body),
                    before: Vec::new(),
                    at: 0,
                }))
            }
            Err(e) => Err(e),
        }
    }

    /// Forgets the intent once the reply's outcome is known (posted, or refused).
    pub fn clear_reply_intent(
        &self,
        pr: &PrCoords,
        thread_id: &str,
        body: &str,
    ) -> Result<(), LedgerError> {
        let path = self.reply_intent_path(pr, thread_id, body)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(LedgerError::io("remove", &path)(e)),
        }
    }

    /// The reply intents of the PR whose outcome is still unknown (for `state show`), oldest
    /// first; unreadable ones are left out.
    pub fn reply_intents(&self, pr: &PrCoords) -> Result<Vec<ReplyIntent>, LedgerError> {
        let dir = self.pr_dir(pr)?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LedgerError::io("read", &dir)(e)),
        };
        let mut out: Vec<ReplyIntent> = entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with(REPLY_INTENT_PREFIX) && n.ends_with(".json"))
            })
            .filter_map(|e| read_json::<ReplyIntent>(e.path(), "read the reply intent").ok())
            .flatten()
            .collect();
        out.sort_by(|a, b| (a.at, &a.thread_id).cmp(&(b.at, &b.thread_id)));
        Ok(out)
    }

    fn reply_draft_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("reply-draft.json"))
    }

    /// Saves the console's reply durably (it is the maintainer's work).
    pub fn save_reply_draft(&self, pr: &PrCoords, draft: &ReplyDraft) -> Result<(), LedgerError> {
        let bytes = serde_json::to_vec_pretty(draft).unwrap_or_default();
        write_atomic_synced(&self.reply_draft_path(pr)?, &bytes)
    }

    /// The saved reply, if any. A corrupt file is an error, not silently dropped work.
    pub fn load_reply_draft(&self, pr: &PrCoords) -> Result<Option<ReplyDraft>, LedgerError> {
        read_json(self.reply_draft_path(pr)?, "read the reply draft")
    }

    /// Removes the saved reply; `Ok(false)` when there was none.
    pub fn discard_reply_draft(&self, pr: &PrCoords) -> Result<bool, LedgerError> {
        remove_if_there(&self.reply_draft_path(pr)?)
    }

    fn comment_draft_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("comment-draft.json"))
    }

    /// Saves the conversation comment being written durably (it is the maintainer's work).
    pub fn save_comment_draft(
        &self,
        pr: &PrCoords,
        draft: &CommentDraft,
    ) -> Result<(), LedgerError> {
        let bytes = serde_json::to_vec_pretty(draft).unwrap_or_default();
        write_atomic_synced(&self.comment_draft_path(pr)?, &bytes)
    }

    /// The saved conversation comment, if any. A corrupt file is an error, not dropped work.
    pub fn load_comment_draft(&self, pr: &PrCoords) -> Result<Option<CommentDraft>, LedgerError> {
        read_json(self.comment_draft_path(pr)?, "read the comment draft")
    }

    /// Removes the saved conversation comment; `Ok(false)` when there was none.
    pub fn discard_comment_draft(&self, pr: &PrCoords) -> Result<bool, LedgerError> {
        remove_if_there(&self.comment_draft_path(pr)?)
    }
}

/// Removes `path`; `Ok(false)` when it was not there.
fn remove_if_there(path: &std::path::Path) -> Result<bool, LedgerError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(LedgerError::io("remove", path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords() -> PrCoords {
        crate::ledger::test_coords(3)
    }

    #[test]
    fn queued_actions_are_laid_over_their_threads_once_in_order() {
        let thread: Item = serde_json::from_value(serde_json::json!({
            "kind": "thread", "id": "T1", "path": "a.rs", "comments": []
        }))
        .expect("a thread");
        let mut items = vec![thread];
        let act = |id: &str, kind, body: Option<&str>| ThreadAction {
            id: id.to_owned(),
            kind,
            thread_id: "T1".to_owned(),
            body: body.map(str::to_owned),
            at: 1_700_000_000,
        };
        let actions = vec![
            act("outbox-thread-1", ThreadActionKind::Reply, Some("on it")),
            act("outbox-thread-2", ThreadActionKind::Resolve, None),
            act("outbox-thread-3", ThreadActionKind::Reply, Some("x")),
            act("outbox-thread-4", ThreadActionKind::Unresolve, None),
            act("outbox-thread-5", ThreadActionKind::Resolve, None),
        ];
        apply_queued(&actions, &mut items, "me");
        apply_queued(&actions, &mut items, "me");
        let Item::Thread(t) = &items[0] else {
            panic!("a thread")
        };
        assert!(t.resolved);
        assert_eq!(t.comments.len(), 2, "each reply once");
        assert!(t.comments.iter().all(|c| is_queued(&c.id)));
        assert_eq!(
            (
                t.comments[0].author.login.as_str(),
                t.comments[0].body.as_str()
            ),
            ("me", "on it")
        );
        assert_eq!(queued_resolution(&actions, "T1"), Some(true));
        assert_eq!(queued_resolution(&actions, "T2"), None);
    }

    #[test]
    fn outbox_appends_in_order_and_drafts_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        assert!(
            ledger
                .thread_outbox(&coords())
                .expect("read")
                .actions
                .is_empty()
        );
        let (a, path) = ledger
            .push_thread_action(&coords(), ThreadActionKind::Reply, "PRRT_1", Some("ok"), 5)
            .expect("push");
        assert_eq!(a.id, "outbox-thread-1");
        assert!(path.ends_with("prs/o/r/3/outbox/threads.json"));
        let (b, _) = ledger
            .push_thread_action(&coords(), ThreadActionKind::Resolve, "PRRT_1", None, 6)
            .expect("push");
        assert_eq!(b.id, "outbox-thread-2");
        let all = ledger.thread_outbox(&coords()).expect("read").actions;
        assert_eq!(all, vec![a, b]);

        assert_eq!(ledger.load_reply_draft(&coords()).expect("load"), None);
        let d = ReplyDraft {
            thread_id: "PRRT_1".into(),
            body: "half a thought".into(),
            saved_at: 9,
        };
        ledger.save_reply_draft(&coords(), &d).expect("save");
        assert_eq!(ledger.load_reply_draft(&coords()).expect("load"), Some(d));
        assert!(ledger.discard_reply_draft(&coords()).expect("discard"));
        assert!(!ledger.discard_reply_draft(&coords()).expect("discard"));
        assert_eq!(ledger.load_comment_draft(&coords()).expect("load"), None);
        let c = CommentDraft {
            body: "Thanks, merging after CI.".into(),
            saved_at: 5,
        };
        ledger.save_comment_draft(&coords(), &c).expect("save");
        assert_eq!(ledger.load_comment_draft(&coords()).expect("load"), Some(c));
        assert!(ledger.discard_comment_draft(&coords()).expect("discard"));
        assert!(!ledger.discard_comment_draft(&coords()).expect("discard"));
    }

    #[test]
    fn an_outbox_written_by_an_earlier_release_is_read_and_appended_to() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let path = ledger.thread_outbox_path(&coords()).expect("path");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        // Byte for byte what the release before the lock wrote.
        std::fs::write(
            &path,
            r#"{
  "actions": [
    {
      "id": "outbox-thread-1",
      "kind": "reply",
      "threadId": "PRRT_old",
      "body": "from the old release",
      "at": 1764000000
    },
    {
      "id": "outbox-thread-2",
      "kind": "resolve",
      "threadId": "PRRT_old",
      "at": 1764000001
    }
  ]
}"#,
        )
        .expect("write");
        let (a, _) = ledger
            .push_thread_action(
                &coords(),
                ThreadActionKind::Reply,
                "PRRT_new",
                Some("new"),
                9,
            )
            .expect("push");
        assert_eq!(a.id, "outbox-thread-3");
        let all = ledger.thread_outbox(&coords()).expect("read").actions;
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].body.as_deref(), Some("from the old release"));
        assert_eq!(all[1].kind, ThreadActionKind::Resolve);
        assert_eq!(all[2], a);
    }

    #[test]
    fn reply_intents_are_keyed_by_thread_and_text_and_cleared() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let intent = ReplyIntent {
            thread_id: "PRRT_1".into(),
            login: "monalisa".into(),
            body_hash: reply_body_hash("Fixed."),
            before: vec!["PRRC_1".into()],
            at: 7,
        };
        assert_eq!(
            ledger
                .reply_intent(&coords(), "PRRT_1", "Fixed.")
                .expect("read"),
            None
        );
        ledger
            .record_reply_intent(&coords(), &intent, "Fixed.")
            .expect("record");
        // The same text, however its ends are spelled; not another text or thread.
        let found = ledger
            .reply_intent(
                &coords(),
                "PRRT_1",
                "Fixed.
",
            )
            .expect("read");
        assert_eq!(found.as_ref(), Some(&intent));
        assert_eq!(
            ledger
                .reply_intent(&coords(), "PRRT_1", "Done.")
                .expect("read"),
            None
        );
        assert_eq!(
            ledger
                .reply_intent(&coords(), "PRRT_2", "Fixed.")
                .expect("read"),
            None
        );
        assert_eq!(ledger.reply_intents(&coords()).expect("list"), vec![intent]);
        ledger
            .clear_reply_intent(&coords(), "PRRT_1", " Fixed.")
            .expect("clear");
        assert!(ledger.reply_intents(&coords()).expect("list").is_empty());
        // Clearing what is not there is fine.
        ledger
            .clear_reply_intent(&coords(), "PRRT_1", "Fixed.")
            .expect("clear");
    }
}
