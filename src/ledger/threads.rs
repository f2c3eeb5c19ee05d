//! Acting on review threads, per PR: the offline outbox of thread actions and the console's
//! unposted reply.
//!
//! ```text
//! <pr>/outbox/threads.json   offline (fixture) replies, resolutions and unresolutions, in order
//! <pr>/reply-draft.json      the reply being written in the console (fsynced on every save)
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError, write_atomic_synced};
use crate::pr::PrCoords;

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

/// A reply being written in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyDraft {
    pub thread_id: String,
    pub body: String,
    /// Unix seconds of the last save.
    pub saved_at: i64,
}

fn read_json<T: serde::de::DeserializeOwned>(
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
        let path = self.reply_draft_path(pr)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(LedgerError::io("remove", &path)(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords() -> PrCoords {
        PrCoords {
            host: None,
            owner: "o".into(),
            repo: "r".into(),
            number: 3,
        }
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
    }
}
