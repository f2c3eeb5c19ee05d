//! The last look at a PR's code: for each file, the content key of the patch you were last
//! shown of it (`code::content_key`: hunk headers without line numbers, so a rebase does not
//! change it), with the patch itself kept by that key, bounded, so the next look can show the
//! interdiff; and the PR's file list at that look, to tell a new file from one never opened.
//!
//! ```text
//! <pr>/code/looks.json        {"files": {path: {"key", "at", "kept"}}, "paths": [...]}
//! <pr>/code/<key>.patch       a patch that was shown, named by its content key
//! ```
//!
//! Only what was shown is recorded (`diff` prints it, the console drew it): listing files marks
//! no patch seen. A record never moves back: a look stamped earlier than the one kept for a file
//! leaves that file's record as it is. Bounded: a patch over [`MAX_KEPT_PATCH_BYTES`] is keyed
//! but not kept, and patches stop being kept once the PR's kept patches reach
//! [`MAX_CODE_BYTES`] — such a file still says `changed`, without an interdiff. Two runs
//! recording at the same moment can lose one's records (the file then says `changed` or
//! `never-seen` again: the safe direction; nothing is hidden).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::threads::read_json;
use super::{Ledger, LedgerError, write_atomic};
use crate::code::{SinceLastLook, content_key, exact_key, since_last_look};
use crate::pr::{ChangedFile, PrCoords, ViewedState};

/// The folder of code looks inside a PR's state folder.
pub const CODE_DIR: &str = "code";
const LOOKS_FILE: &str = "looks.json";
/// A shown patch larger than this is keyed, not kept (1 MiB).
pub const MAX_KEPT_PATCH_BYTES: usize = 1 << 20;
/// Kept patches of one PR at most (32 MiB).
pub const MAX_CODE_BYTES: u64 = 32 << 20;

/// The patch last shown of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownPatch {
    /// Its content key.
    pub key: String,
    /// Unix seconds of the look.
    pub at: i64,
    /// Whether the patch itself is kept (`<key>.patch`).
    pub kept: bool,
    /// The key of its exact text, hunk line numbers included (`code::exact_key`); absent in
    /// records made before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
}

/// A file that was among the PR's files at the last look and is not any more (a force-push
/// dropped the commits that changed it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoneFile {
    pub path: String,
    /// Its patch was shown at a look.
    pub seen: bool,
    /// It was marked viewed (on GitHub or in the outbox) as far as the looks know.
    pub viewed: bool,
}

impl GoneFile {
    /// `you had marked it viewed`, `you had seen its patch, not marked it viewed`, or `you had
    /// not looked at it`.
    pub fn sentence(&self) -> &'static str {
        match (self.viewed, self.seen) {
            (true, _) => "you had marked it viewed",
            (false, true) => "you had seen its patch, not marked it viewed",
            (false, false) => "you had not looked at it",
        }
    }
}

/// The last look at a PR's code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeLook {
    pub files: BTreeMap<String, ShownPatch>,
    /// The PR's files at the latest look.
    #[serde(default)]
    pub paths: Vec<String>,
    /// The files known to be marked viewed: shown while viewed (or dismissed), or marked through
    /// pr-shepherd (`file viewed`, the console) since.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub viewed: BTreeSet<String>,
}

impl CodeLook {
    /// What `file` is since the last look.
    pub fn since(&self, file: &ChangedFile) -> SinceLastLook {
        let looked = !self.files.is_empty();
        let was_there = self
            .paths
            .iter()
            .any(|p| *p == file.path || file.previous_path.as_ref() == Some(p));
        let seen = self
            .files
            .get(&file.path)
            .or_else(|| file.previous_path.as_ref().and_then(|p| self.files.get(p)));
        since_last_look(
            &content_key(file),
            seen.map(|s| s.key.as_str()),
            looked,
            was_there,
        )
    }

    /// Whether `file` is the patch last shown of it moved by a rebase: the same change
    /// (unchanged since the last look) with other hunk line numbers. GitHub dismisses a viewed
    /// mark for that alone.
    pub fn lines_moved(&self, file: &ChangedFile) -> bool {
        if self.since(file) != SinceLastLook::Unchanged {
            return false;
        }
        let seen = self
            .files
            .get(&file.path)
            .or_else(|| file.previous_path.as_ref().and_then(|p| self.files.get(p)));
        match (seen.and_then(|s| s.exact.as_deref()), exact_key(file)) {
            (Some(then), Some(now)) => then != now,
            _ => false,
        }
    }

    /// The files of the PR at the last look that `files` (the PR's files now, renames
    /// followed) no longer has, in the order they were listed.
    pub fn gone(&self, files: &[ChangedFile]) -> Vec<GoneFile> {
        let now: std::collections::HashSet<&str> = files
            .iter()
            .flat_map(|f| std::iter::once(f.path.as_str()).chain(f.previous_path.as_deref()))
            .collect();
        // Records made before the list was kept: the files shown then.
        let then: Vec<&String> = if self.paths.is_empty() {
            self.files.keys().collect()
        } else {
            self.paths.iter().collect()
        };
        then.into_iter()
            .filter(|p| !now.contains(p.as_str()))
            .map(|p| GoneFile {
                path: p.clone(),
                seen: self.files.contains_key(p),
                viewed: self.viewed.contains(p),
            })
            .collect()
    }

    /// How many of `files` are new or changed since the last look (none when there was none).
    pub fn changed_count(&self, files: &[ChangedFile]) -> usize {
        if self.files.is_empty() {
            return 0;
        }
        files.iter().filter(|f| self.since(f).needs_look()).count()
    }
}

fn valid_key(key: &str) -> bool {
    key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Ledger {
    fn code_dir(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join(CODE_DIR))
    }

    /// The last look at the PR's code (empty when there was none). An unreadable record is an
    /// error, said with its path: the answer would be wrong without it.
    pub fn code_look(&self, pr: &PrCoords) -> Result<CodeLook, LedgerError> {
        let path = self.code_dir(pr)?.join(LOOKS_FILE);
        Ok(read_json(path, "read the last look at the code")?.unwrap_or_default())
    }

    /// The patch kept under `key`, if it is.
    pub fn shown_patch(&self, pr: &PrCoords, key: &str) -> Option<String> {
        if !valid_key(key) {
            return None;
        }
        let path = self.code_dir(pr).ok()?.join(format!("{key}.patch"));
        std::fs::read_to_string(path).ok()
    }

    /// The patch last shown of `file` (by its path, else its previous path), if it was kept.
    pub fn last_shown_patch(
        &self,
        pr: &PrCoords,
        look: &CodeLook,
        file: &ChangedFile,
    ) -> Option<String> {
        let seen = look
            .files
            .get(&file.path)
            .or_else(|| file.previous_path.as_ref().and_then(|p| look.files.get(p)))?;
        seen.kept.then(|| self.shown_patch(pr, &seen.key)).flatten()
    }

    /// Records that `shown` were shown at `now` (Unix seconds), with `all_paths` the PR's files
    /// at this look. Returns how many records were written (a file whose record is later than
    /// `now` keeps it).
    pub fn record_shown(
        &self,
        pr: &PrCoords,
        shown: &[&ChangedFile],
        all_paths: &[String],
        now: i64,
    ) -> Result<usize, LedgerError> {
        if shown.is_empty() {
            return Ok(0);
        }
        let dir = self.code_dir(pr)?;
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        let mut look = self.code_look(pr)?;
        let mut used = kept_bytes(&dir);
        let mut written = 0;
        for file in shown {
            if look.files.get(&file.path).is_some_and(|s| s.at > now) {
                continue;
            }
            let key = content_key(file);
            let blob = dir.join(format!("{key}.patch"));
            let kept = match &file.patch {
                Some(p) if blob.exists() => !p.is_empty(),
                Some(p)
                    if p.len() <= MAX_KEPT_PATCH_BYTES
                        && used + p.len() as u64 <= MAX_CODE_BYTES =>
                {
                    write_atomic(&blob, p.as_bytes())?;
                    used += p.len() as u64;
                    true
                }
                _ => false,
            };
            if matches!(file.viewed, ViewedState::Viewed | ViewedState::Dismissed) {
                look.viewed.insert(file.path.clone());
            }
            let old = look.files.insert(
                file.path.clone(),
                ShownPatch {
                    key: key.clone(),
                    at: now,
                    kept,
                    exact: exact_key(file),
                },
            );
            written += 1;
            if let Some(old) = old
                && old.key != key
                && !look.files.values().any(|s| s.key == old.key)
                && valid_key(&old.key)
            {
                // No other file's record names the old patch: it is not needed any more.
                let stale = dir.join(format!("{}.patch", old.key));
                if let Ok(meta) = std::fs::metadata(&stale) {
                    used = used.saturating_sub(meta.len());
                }
                let _ = std::fs::remove_file(stale);
            }
        }
        look.paths = all_paths.to_vec();
        let bytes = serde_json::to_vec(&look).unwrap_or_default();
        write_atomic(&dir.join(LOOKS_FILE), &bytes)?;
        Ok(written)
    }

    /// Notes that `paths` were marked viewed (or not), for the files a force-push later drops
    /// ([`CodeLook::gone`]). Marks no patch seen. Nothing to note when the PR's code was never
    /// looked at.
    pub fn note_viewed(
        &self,
        pr: &PrCoords,
        paths: &[String],
        viewed: bool,
    ) -> Result<(), LedgerError> {
        let dir = self.code_dir(pr)?;
        let mut look = self.code_look(pr)?;
        if look.files.is_empty() && look.paths.is_empty() {
            return Ok(());
        }
        for p in paths {
            if viewed {
                look.viewed.insert(p.clone());
            } else {
                look.viewed.remove(p);
            }
        }
        let bytes = serde_json::to_vec(&look).unwrap_or_default();
        write_atomic(&dir.join(LOOKS_FILE), &bytes)
    }

    /// Forgets the last look at the PR's code (with the seen markers, `state clear`).
    pub fn forget_code(&self, pr: &PrCoords) -> Result<usize, LedgerError> {
        let dir = self.code_dir(pr)?;
        if !dir.exists() {
            return Ok(0);
        }
        let count = super::count_files(&dir);
        std::fs::remove_dir_all(&dir).map_err(LedgerError::io("remove", &dir))?;
        Ok(count)
    }
}

/// Bytes of kept patches in `dir`.
fn kept_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".patch"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords() -> PrCoords {
        crate::ledger::test_coords(1)
    }

    fn file(path: &str, patch: &str) -> ChangedFile {
        ChangedFile::new(path, Some(patch.to_owned()))
    }

    #[test]
    fn a_shown_patch_is_kept_and_a_rebase_leaves_it_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let a = file("a.rs", "@@ -1,2 +1,2 @@\n x\n-y\n+z");
        let b = file("b.rs", "@@ -1 +1 @@\n-p\n+q");
        let paths = vec!["a.rs".to_owned(), "b.rs".to_owned()];
        assert_eq!(
            ledger.record_shown(&coords(), &[&a], &paths, 100).unwrap(),
            1
        );
        let look = ledger.code_look(&coords()).unwrap();
        // Rebased: every hunk moved.
        let a2 = file("a.rs", "@@ -7,2 +9,2 @@\n x\n-y\n+z");
        assert_eq!(look.since(&a2), SinceLastLook::Unchanged);
        assert_eq!(look.since(&b), SinceLastLook::NeverSeen);
        assert_eq!(look.since(&file("c.rs", "+n")), SinceLastLook::New);
        let a3 = file("a.rs", "@@ -1,2 +1,2 @@\n x\n-y\n+w");
        assert_eq!(look.since(&a3), SinceLastLook::Changed);
        assert_eq!(
            ledger.last_shown_patch(&coords(), &look, &a3).as_deref(),
            a.patch.as_deref()
        );
        assert_eq!(look.changed_count(&[a2, b, a3.clone()]), 1);
        // Shown again: the old patch is replaced and its file removed.
        ledger.record_shown(&coords(), &[&a3], &paths, 200).unwrap();
        let look = ledger.code_look(&coords()).unwrap();
        assert_eq!(look.since(&a3), SinceLastLook::Unchanged);
        let blobs = std::fs::read_dir(ledger.code_dir(&coords()).unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".patch"))
            .count();
        assert_eq!(blobs, 1);
    }

    #[test]
    fn a_dropped_file_is_gone_with_its_viewed_mark_and_moved_lines_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let mut a = file("a.rs", "@@ -1,2 +1,2 @@\n x\n-y\n+z");
        a.viewed = ViewedState::Viewed;
        let b = file("b.rs", "@@ -1 +1 @@\n-p\n+q");
        let paths = vec!["a.rs".to_owned(), "b.rs".to_owned(), "c.rs".to_owned()];
        // Nothing looked at yet: a viewed mark has nothing to be noted with.
        ledger
            .note_viewed(&coords(), &["b.rs".into()], true)
            .unwrap();
        assert!(ledger.code_look(&coords()).unwrap().viewed.is_empty());
        ledger
            .record_shown(&coords(), &[&a, &b], &paths, 1)
            .unwrap();
        ledger
            .note_viewed(&coords(), &["b.rs".into()], true)
            .unwrap();
        let look = ledger.code_look(&coords()).unwrap();
        let moved = file("a.rs", "@@ -11,2 +11,2 @@\n x\n-y\n+z");
        assert!(look.lines_moved(&moved));
        assert!(!look.lines_moved(&a), "the same text");
        assert!(!look.lines_moved(&file("a.rs", "@@ -11,2 +11,2 @@\n x\n-y\n+w")));
        // At the next head only a.rs is left.
        let gone = look.gone(&[moved]);
        assert_eq!(
            gone,
            vec![
                GoneFile {
                    path: "b.rs".into(),
                    seen: true,
                    viewed: true
                },
                GoneFile {
                    path: "c.rs".into(),
                    seen: false,
                    viewed: false
                },
            ]
        );
        assert_eq!(gone[1].sentence(), "you had not looked at it");
        // A rename keeps the file in the PR.
        let mut renamed = file("d.rs", "@@ -1 +1 @@\n-p\n+q");
        renamed.previous_path = Some("b.rs".into());
        assert_eq!(look.gone(&[a.clone(), renamed]).len(), 1);
    }

    #[test]
    fn a_record_never_moves_back_and_listing_marks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let new = file("a.rs", "@@ -1 +1 @@\n-a\n+new");
        let old = file("a.rs", "@@ -1 +1 @@\n-a\n+old");
        ledger.record_shown(&coords(), &[&new], &[], 500).unwrap();
        assert_eq!(
            ledger.record_shown(&coords(), &[&old], &[], 400).unwrap(),
            0
        );
        let look = ledger.code_look(&coords()).unwrap();
        assert_eq!(look.since(&new), SinceLastLook::Unchanged);
        assert_eq!(ledger.record_shown(&coords(), &[], &[], 900).unwrap(), 0);
    }

    #[test]
    fn patches_over_the_bound_are_keyed_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let big = file(
            "big.rs",
            &format!("@@ -1 +1 @@\n+{}", "x".repeat(MAX_KEPT_PATCH_BYTES)),
        );
        ledger.record_shown(&coords(), &[&big], &[], 1).unwrap();
        let look = ledger.code_look(&coords()).unwrap();
        assert_eq!(look.since(&big), SinceLastLook::Unchanged);
        assert!(!look.files["big.rs"].kept);
        assert!(ledger.last_shown_patch(&coords(), &look, &big).is_none());
    }

    #[test]
    fn a_corrupt_record_is_an_error_not_a_blank() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let a = file("a.rs", "+x");
        ledger.record_shown(&coords(), &[&a], &[], 1).unwrap();
        let path = ledger.code_dir(&coords()).unwrap().join(LOOKS_FILE);
        std::fs::write(&path, b"{not json").unwrap();
        assert!(ledger.code_look(&coords()).is_err());
        assert!(ledger.shown_patch(&coords(), "../../etc/passwd").is_none());
    }
}
