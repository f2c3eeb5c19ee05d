//! Deciding a PR, per PR: the offline outbox of PR actions (merge, close, labels, …) and the head
//! the maintainer last looked at, which a merge carries when none is named.
//!
//! ```text
//! <pr>/outbox/actions.json   offline (fixture) PR actions, in order: recorded, never sent
//! <pr>/looked-head.json      the PR's head when the maintainer last read it
//! ```
//!
//! The outbox is read, appended to and written back under the PR's [`Lock::ThreadOutbox`] (the
//! one outbox lock), so concurrent runs each add their action and none is lost. A merge already
//! in the outbox is not recorded twice: the offline PR counts as merged from then on.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError, Lock, THREAD_OUTBOX_WAIT, write_atomic_synced};
use crate::pr::PrCoords;

/// One offline PR action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrAction {
    /// `outbox-action-N`, in order.
    pub id: String,
    /// `merge`, `close`, `reopen`, `ready`, `draft`, `label-add`, `label-remove`, `assign`,
    /// `unassign`, `request-review`, `update-branch`, `auto-merge`, `auto-merge-off`, `enqueue`,
    /// `dequeue`.
    pub kind: String,
    /// What it carries (the method and head of a merge, the names of labels, …).
    #[serde(default)]
    pub detail: serde_json::Value,
    /// Unix seconds.
    pub at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionOutbox {
    #[serde(default)]
    pub actions: Vec<PrAction>,
}

impl ActionOutbox {
    /// The last action of one of `kinds`, if any.
    pub fn last_of(&self, kinds: &[&str]) -> Option<&PrAction> {
        self.actions
            .iter()
            .rev()
            .find(|a| kinds.contains(&a.kind.as_str()))
    }

    /// The offline PR's state once the outbox is applied to `state` (OPEN, CLOSED, MERGED).
    pub fn state_after(&self, state: &str) -> String {
        if self.actions.iter().any(|a| a.kind == "merge") {
            return "MERGED".to_owned();
        }
        match self.last_of(&["close", "reopen"]).map(|a| a.kind.as_str()) {
            Some("close") => "CLOSED".to_owned(),
            Some("reopen") => "OPEN".to_owned(),
            _ => state.to_owned(),
        }
    }

    /// Whether the offline PR is a draft once the outbox is applied to `draft`.
    pub fn draft_after(&self, draft: bool) -> bool {
        match self.last_of(&["ready", "draft"]).map(|a| a.kind.as_str()) {
            Some("ready") => false,
            Some("draft") => true,
            _ => draft,
        }
    }

    /// `names` once the outbox's additions and removals of `add`/`remove` kinds are applied, in
    /// order, each name once (compared without case, as GitHub compares labels and logins).
    pub fn names_after(&self, names: &[String], add: &str, remove: &str) -> Vec<String> {
        let mut out: Vec<String> = names.to_vec();
        for a in &self.actions {
            let listed: Vec<String> = a
                .detail
                .get("names")
                .and_then(|v| v.as_array())
                .map(|v| {
                    v.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if a.kind == add {
                for n in listed {
                    if !out.iter().any(|o| o.eq_ignore_ascii_case(&n)) {
                        out.push(n);
                    }
                }
            } else if a.kind == remove {
                out.retain(|o| !listed.iter().any(|n| n.eq_ignore_ascii_case(o)));
            }
        }
        out
    }
}

/// The head the maintainer last read, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LookedHead {
    pub head: String,
    /// Unix seconds.
    pub at: i64,
}

impl Ledger {
    pub fn action_outbox_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("outbox").join("actions.json"))
    }

    /// The offline PR actions so far (none when there is no file).
    pub fn action_outbox(&self, pr: &PrCoords) -> Result<ActionOutbox, LedgerError> {
        Ok(
            super::threads::read_json(self.action_outbox_path(pr)?, "read the action outbox")?
                .unwrap_or_default(),
        )
    }

    /// Appends one action to the outbox (durably); returns it and the file. A merge when the
    /// outbox holds one already is not appended: the earlier one is returned.
    pub fn push_pr_action(
        &self,
        pr: &PrCoords,
        kind: &str,
        detail: serde_json::Value,
        at: i64,
    ) -> Result<(PrAction, PathBuf, bool), LedgerError> {
        let path = self.action_outbox_path(pr)?;
        let _turn = self.lock(pr, Lock::ThreadOutbox, THREAD_OUTBOX_WAIT)?;
        let mut outbox = self.action_outbox(pr)?;
        if kind == "merge"
            && let Some(earlier) = outbox.last_of(&["merge"])
        {
            return Ok((earlier.clone(), path, false));
        }
        let action = PrAction {
            id: format!("outbox-action-{}", outbox.actions.len() + 1),
            kind: kind.to_owned(),
            detail,
            at,
        };
        outbox.actions.push(action.clone());
        write_atomic_synced(
            &path,
            &serde_json::to_vec_pretty(&outbox).unwrap_or_default(),
        )?;
        Ok((action, path, true))
    }

    fn looked_head_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("looked-head.json"))
    }

    /// Records `head` as the one the maintainer read now (unchanged heads are not rewritten).
    pub fn record_looked_head(
        &self,
        pr: &PrCoords,
        head: &str,
        at: i64,
    ) -> Result<(), LedgerError> {
        if head.is_empty() || self.looked_head(pr)?.is_some_and(|l| l.head == head) {
            return Ok(());
        }
        let path = self.looked_head_path(pr)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(LedgerError::io("create", dir))?;
        }
        let look = LookedHead {
            head: head.to_owned(),
            at,
        };
        super::write_atomic(&path, &serde_json::to_vec_pretty(&look).unwrap_or_default())
    }

    /// The head the maintainer last read, if any was recorded.
    pub fn looked_head(&self, pr: &PrCoords) -> Result<Option<LookedHead>, LedgerError> {
        super::threads::read_json(self.looked_head_path(pr)?, "read the looked-at head")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_outbox_keeps_one_merge_and_applies_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let pr = crate::ledger::test_coords(4);
        let (a, path, new) = ledger
            .push_pr_action(&pr, "merge", json!({"method": "squash"}), 1)
            .expect("push");
        assert!(new && path.ends_with("outbox/actions.json"));
        let (b, _, new) = ledger
            .push_pr_action(&pr, "merge", json!({"method": "merge"}), 2)
            .expect("push");
        assert!(!new);
        assert_eq!(a, b);
        ledger
            .push_pr_action(&pr, "label-add", json!({"names": ["bug", "ui"]}), 3)
            .expect("push");
        ledger
            .push_pr_action(&pr, "label-add", json!({"names": ["BUG"]}), 4)
            .expect("push");
        ledger
            .push_pr_action(&pr, "label-remove", json!({"names": ["ui"]}), 5)
            .expect("push");
        let o = ledger.action_outbox(&pr).expect("read");
        assert_eq!(o.state_after("OPEN"), "MERGED");
        assert_eq!(
            o.names_after(&["docs".into()], "label-add", "label-remove"),
            vec!["docs".to_owned(), "bug".to_owned()]
        );
    }

    #[test]
    fn close_reopen_and_ready_draft_follow_the_last_action() {
        let mut o = ActionOutbox::default();
        let push = |o: &mut ActionOutbox, kind: &str| {
            o.actions.push(PrAction {
                id: String::new(),
                kind: kind.into(),
                detail: json!({}),
                at: 0,
            })
        };
        push(&mut o, "close");
        assert_eq!(o.state_after("OPEN"), "CLOSED");
        push(&mut o, "reopen");
        assert_eq!(o.state_after("OPEN"), "OPEN");
        push(&mut o, "ready");
        assert!(!o.draft_after(true));
        push(&mut o, "draft");
        assert!(o.draft_after(false));
    }

    #[test]
    fn the_looked_head_is_kept_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let pr = crate::ledger::test_coords(5);
        assert_eq!(ledger.looked_head(&pr).expect("read"), None);
        ledger.record_looked_head(&pr, "abc1234", 7).expect("write");
        ledger.record_looked_head(&pr, "abc1234", 9).expect("write");
        assert_eq!(
            ledger.looked_head(&pr).expect("read"),
            Some(LookedHead {
                head: "abc1234".into(),
                at: 7
            })
        );
    }
}
