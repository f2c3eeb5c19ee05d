//! The offline outbox of viewed marks: `file viewed|unviewed` on a fixture (and the console
//! offline) appends here what would have been sent to GitHub (`markFileAsViewed` /
//! `unmarkFileAsViewed`), in order.
//!
//! ```text
//! <pr>/outbox/viewed.json   {"actions": [{"id", "path", "viewed", "at", "patchKey"}]}
//! ```
//!
//! Appends take the PR's outbox lock (the thread outbox's), so concurrent runs each add theirs.
//! Reading a fixture, the latest action per path is the file's viewed state; a file marked
//! viewed whose patch is no longer the one it was marked at reads as dismissed, as GitHub
//! unchecks a viewed file that changed.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::threads::{THREAD_OUTBOX_WAIT, read_json};
use super::{Ledger, LedgerError, Lock, write_atomic_synced};
use crate::pr::{ChangedFile, PrCoords, ViewedState};

/// One offline viewed mark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewedAction {
    /// `outbox-viewed-N`, in order.
    pub id: String,
    pub path: String,
    /// True for `markFileAsViewed`, false for `unmarkFileAsViewed`.
    pub viewed: bool,
    /// Unix seconds.
    pub at: i64,
    /// The patch's key when it was marked ([`crate::code::look::patch_key`]); marks made before
    /// this was kept have none and stay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_key: Option<String>,
}

/// The outbox file of viewed marks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewedOutbox {
    pub actions: Vec<ViewedAction>,
}

impl ViewedOutbox {
    /// The files with the outbox's latest mark per path applied (a file marked viewed offline
    /// reads as viewed — or dismissed, when its patch changed since; unmarked, as unviewed).
    pub fn apply(&self, files: &mut [ChangedFile]) {
        let latest: HashMap<&str, &ViewedAction> =
            self.actions.iter().map(|a| (a.path.as_str(), a)).collect();
        for f in files {
            if let Some(a) = latest.get(f.path.as_str()) {
                f.viewed = match (&a.viewed, &a.patch_key) {
                    (false, _) => ViewedState::Unviewed,
                    (true, Some(k)) if *k != crate::code::look::patch_key(f) => {
                        ViewedState::Dismissed
                    }
                    (true, _) => ViewedState::Viewed,
                };
            }
        }
    }
}

impl Ledger {
    /// `<pr>/outbox/viewed.json`.
    pub fn viewed_outbox_path(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("outbox").join("viewed.json"))
    }

    /// The offline viewed marks so far (none when there is no file).
    pub fn viewed_outbox(&self, pr: &PrCoords) -> Result<ViewedOutbox, LedgerError> {
        Ok(read_json(self.viewed_outbox_path(pr)?, "read the viewed outbox")?.unwrap_or_default())
    }

    /// Appends one mark per path (durably), each with its patch's key when known (`keys`,
    /// path → [`crate::code::look::patch_key`]); returns them and the file.
    pub fn push_viewed(
        &self,
        pr: &PrCoords,
        paths: &[String],
        keys: &HashMap<String, String>,
        viewed: bool,
        at: i64,
    ) -> Result<(Vec<ViewedAction>, PathBuf), LedgerError> {
        let path = self.viewed_outbox_path(pr)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(LedgerError::io("create", dir))?;
        }
        let _turn = self.lock(pr, Lock::ThreadOutbox, THREAD_OUTBOX_WAIT)?;
        let mut outbox = self.viewed_outbox(pr)?;
        let mut added = Vec::with_capacity(paths.len());
        for p in paths {
            let a = ViewedAction {
                id: format!("outbox-viewed-{}", outbox.actions.len() + 1),
                path: p.clone(),
                viewed,
                at,
                patch_key: keys.get(p).cloned(),
            };
            outbox.actions.push(a.clone());
            added.push(a);
        }
        write_atomic_synced(
            &path,
            &serde_json::to_vec_pretty(&outbox).unwrap_or_default(),
        )?;
        Ok((added, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_append_in_order_and_the_latest_wins() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let pr = crate::ledger::test_coords(3);
        ledger
            .push_viewed(
                &pr,
                &["a.rs".into(), "b.rs".into()],
                &HashMap::new(),
                true,
                1,
            )
            .unwrap();
        let (added, _) = ledger
            .push_viewed(&pr, &["a.rs".into()], &HashMap::new(), false, 2)
            .unwrap();
        assert_eq!(added[0].id, "outbox-viewed-3");
        let outbox = ledger.viewed_outbox(&pr).unwrap();
        let mut files = vec![
            ChangedFile::new("a.rs", None),
            ChangedFile::new("b.rs", None),
        ];
        files[0].viewed = ViewedState::Viewed;
        outbox.apply(&mut files);
        assert_eq!(files[0].viewed, ViewedState::Unviewed);
        assert_eq!(files[1].viewed, ViewedState::Viewed);
    }
}
