//! Kept texts: the text of each item as it was when it was last marked seen, beside the seen
//! markers, so a later look can show *what* changed (a line diff, a thread's new replies).
//!
//! ```text
//! <pr>/seen-text.log                     this release: an append-only log (kept_log.rs)
//! <pr>/seen-text/<sha256-hex-of-id>.json releases before: one file per item (still read, and
//!                                        folded into the log when it is compacted)
//! ```
//!
//! The markers themselves stay exactly as seed 000 prescribes; a kept text is a record apart that
//! names the marker hash it belongs to (`bodyHash`). One that does not match its marker (written
//! by a run whose marker write then failed, or by an older marker) is ignored, so a kept text
//! never claims a version that was not the one seen. Writing a PR's texts is one append to one
//! file (not a file per item, none replaced), so a first look writes half the files it did.
//!
//! Bounded: at most [`MAX_KEPT_CHARS`] characters of text per item (comment bodies, in order;
//! GitHub's own limit per comment is 65,536). Bodies past the bound are kept as absent (`null`),
//! and a changed comment whose old body is absent shows no diff — only that it changed. The log
//! is compacted as it grows (kept_log.rs). `state clear` forgets kept texts with the markers
//! ([`Ledger::forget_kept`]); `state prune` drops those of items the PR no longer has.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::kept_log::{self, LOG_FILE, LogWriter};
use super::seen::marker_file_name;
use super::{Ledger, LedgerError};
use crate::pr::{Item, PrCoords};

/// The folder of per-item kept texts that releases before the log wrote (still read).
pub const KEPT_DIR: &str = "seen-text";

/// The kept-text log's file name inside a PR's state folder.
pub const KEPT_LOG: &str = LOG_FILE;

/// Characters of text kept per item at most (256 Ki).
pub const MAX_KEPT_CHARS: usize = 262_144;

/// One comment of a kept thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptComment {
    pub id: String,
    /// The body, or `None` when it was over the size bound.
    pub body: Option<String>,
}

/// The text of one item as it was last marked seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptText {
    pub id: String,
    /// The marker hash this text belongs to.
    pub body_hash: String,
    /// A comment's or review summary's body (`None` for threads, or over the bound).
    #[serde(default)]
    pub body: Option<String>,
    /// A thread's comments in order (empty for other kinds).
    #[serde(default)]
    pub comments: Vec<KeptComment>,
}

/// A [`KeptText`] borrowed from the item: what is written, without copying the bodies. Its
/// JSON is a `KeptText`'s, field for field.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct KeptRef<'a> {
    id: &'a str,
    body_hash: &'a str,
    body: Option<&'a str>,
    comments: Vec<KeptCommentRef<'a>>,
}

#[derive(Debug, Serialize)]
struct KeptCommentRef<'a> {
    id: &'a str,
    body: Option<&'a str>,
}

impl<'a> KeptRef<'a> {
    /// The kept part of `item`: bodies in order while they fit in `max_chars` in all.
    fn bounded(item: &'a Item, body_hash: &'a str, max_chars: usize) -> KeptRef<'a> {
        let mut left = max_chars;
        let mut take = |text: &'a str| {
            let n = text.chars().count();
            if n <= left {
                left -= n;
                Some(text)
            } else {
                left = 0; // later bodies are dropped too: the kept part stays a prefix
                None
            }
        };
        match item {
            Item::Thread(t) => KeptRef {
                id: &t.id,
                body_hash,
                body: None,
                comments: t
                    .comments
                    .iter()
                    .map(|c| KeptCommentRef {
                        id: &c.id,
                        body: take(&c.body),
                    })
                    .collect(),
            },
            other => KeptRef {
                id: other.id(),
                body_hash,
                body: take(other.body()),
                comments: Vec::new(),
            },
        }
    }

    fn to_owned(&self) -> KeptText {
        KeptText {
            id: self.id.to_owned(),
            body_hash: self.body_hash.to_owned(),
            body: self.body.map(str::to_owned),
            comments: self
                .comments
                .iter()
                .map(|c| KeptComment {
                    id: c.id.to_owned(),
                    body: c.body.map(str::to_owned),
                })
                .collect(),
        }
    }
}

impl KeptText {
    /// The item's text now, to keep beside a marker with `body_hash`.
    pub fn of(item: &Item, body_hash: &str) -> KeptText {
        KeptText::bounded(item, body_hash, MAX_KEPT_CHARS)
    }

    /// [`KeptText::of`] with another bound (tests).
    pub fn bounded(item: &Item, body_hash: &str, max_chars: usize) -> KeptText {
        KeptRef::bounded(item, body_hash, max_chars).to_owned()
    }
}

impl Ledger {
    /// Appends the kept texts to the PR's log (one write of whole records, under its lock).
    /// Call it *before* the markers they belong to are written: a kept text whose marker write
    /// fails is ignored on reading. Returns how many were kept.
    pub fn keep_texts(&self, pr: &PrCoords, texts: &[KeptText]) -> Result<usize, LedgerError> {
        self.append_kept(pr, texts.iter(), |buf, t| serde_json::to_writer(buf, t))
    }

    /// [`Ledger::keep_texts`] for these items (each with the marker hash its text belongs to),
    /// written straight from the items: no copy of their bodies is held.
    pub fn keep_items<'a>(
        &self,
        pr: &PrCoords,
        items: impl IntoIterator<Item = (&'a Item, &'a str)>,
    ) -> Result<usize, LedgerError> {
        self.append_kept(pr, items.into_iter(), |buf, (item, hash)| {
            serde_json::to_writer(buf, &KeptRef::bounded(item, hash, MAX_KEPT_CHARS))
        })
    }

    fn append_kept<T>(
        &self,
        pr: &PrCoords,
        mut records: impl Iterator<Item = T>,
        render: impl Fn(&mut Vec<u8>, T) -> serde_json::Result<()>,
    ) -> Result<usize, LedgerError> {
        let Some(first) = records.next() else {
            return Ok(0);
        };
        let dir = self.pr_dir(pr)?;
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        let path = dir.join(LOG_FILE);
        let mut log = LogWriter::open(&path).map_err(LedgerError::io("open", &path))?;
        for r in std::iter::once(first).chain(records) {
            log.record(|buf| render(buf, r))
                .map_err(LedgerError::io("append to", &path))?;
        }
        let n = log
            .finish(&path)
            .map_err(LedgerError::io("append to", &path))?;
        tracing::debug!(path = %path.display(), records = n, "kept texts appended");
        Ok(n)
    }

    /// The kept texts of these (id, marker hash) pairs that exist and match their marker: the
    /// log's latest record of that hash, else a per-item file of an earlier release. Missing,
    /// unreadable or stale texts are left out (the item then shows no diff).
    pub fn load_kept<'a>(
        &self,
        pr: &PrCoords,
        wanted: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<HashMap<String, KeptText>, LedgerError> {
        let wanted: HashMap<&str, &str> = wanted.into_iter().collect();
        if wanted.is_empty() {
            return Ok(HashMap::new());
        }
        let dir = self.pr_dir(pr)?;
        let log = dir.join(LOG_FILE);
        let mut out: HashMap<String, KeptText> =
            kept_log::read_wanted(&log, &wanted).map_err(LedgerError::io("read", &log))?;
        let legacy = dir.join(KEPT_DIR);
        if out.len() < wanted.len() && legacy.is_dir() {
            for (id, hash) in &wanted {
                if out.contains_key(*id) {
                    continue;
                }
                let Ok(bytes) = std::fs::read(legacy.join(marker_file_name(id))) else {
                    continue;
                };
                if let Ok(k) = serde_json::from_slice::<KeptText>(&bytes)
                    && k.id == *id
                    && k.body_hash == *hash
                {
                    out.insert(k.id.clone(), k);
                }
            }
        }
        Ok(out)
    }

    /// Drops the kept texts of every item `keep` refuses (the log is rewritten with the rest,
    /// and the per-item files of earlier releases are folded into it). Returns how many items'
    /// texts were dropped.
    pub(super) fn prune_kept(
        &self,
        pr: &PrCoords,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<usize, LedgerError> {
        let dir = self.pr_dir(pr)?;
        let (log, legacy) = (dir.join(LOG_FILE), dir.join(KEPT_DIR));
        if !log.exists() && !legacy.is_dir() {
            return Ok(0);
        }
        let legacy = legacy.is_dir().then_some(legacy.as_path());
        kept_log::compact(&log, legacy, keep)
            .map(|c| c.dropped)
            .map_err(LedgerError::io("compact", &log))
    }

    /// Removes every kept text of the PR (what `state clear` forgets along with the markers):
    /// the log and the per-item files of earlier releases. Returns how many files were removed.
    pub fn forget_kept(&self, pr: &PrCoords) -> Result<usize, LedgerError> {
        let dir = self.pr_dir(pr)?;
        let mut count = 0;
        let log = dir.join(LOG_FILE);
        match std::fs::remove_file(&log) {
            Ok(()) => count += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LedgerError::io("remove", &log)(e)),
        }
        let legacy = dir.join(KEPT_DIR);
        if legacy.exists() {
            count += super::count_files(&legacy);
            std::fs::remove_dir_all(&legacy).map_err(LedgerError::io("remove", &legacy))?;
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pr::{Association, Author, Comment, Thread};

    fn coords() -> PrCoords {
        PrCoords {
            host: None,
            owner: "octo".into(),
            repo: "demo".into(),
            number: 7,
        }
    }

    fn comment(id: &str, body: &str) -> Comment {
        Comment {
            id: id.into(),
            author: Author {
                login: "ann".into(),
                association: Association::Member,
                bot: false,
            },
            created_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
            last_edited_at: None,
            url: String::new(),
            body: body.into(),
            minimized: false,
            minimized_reason: None,
        }
    }

    fn thread(bodies: &[&str]) -> Item {
        Item::Thread(Thread {
            id: "PRRT_1".into(),
            path: "a.rs".into(),
            line: Some(1),
            original_line: Some(1),
            side: None,
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments: bodies
                .iter()
                .enumerate()
                .map(|(i, b)| comment(&format!("PRRC_{i}"), b))
                .collect(),
        })
    }

    #[test]
    fn kept_beside_the_markers_and_only_for_their_hash() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let item = Item::Comment(comment("IC_1", "hello"));
        let kept = KeptText::of(&item, "h1");
        assert_eq!(
            ledger
                .keep_texts(&coords(), std::slice::from_ref(&kept))
                .expect("keep"),
            1
        );
        let file = dir.path().join("prs/octo/demo/7").join(KEPT_LOG);
        assert!(file.exists());
        let got = ledger.load_kept(&coords(), [("IC_1", "h1")]).expect("load");
        assert_eq!(got.get("IC_1"), Some(&kept));
        // Another marker hash: the text is not the one that was seen.
        assert!(
            ledger
                .load_kept(&coords(), [("IC_1", "h2")])
                .expect("load")
                .is_empty()
        );
        assert!(
            ledger
                .load_kept(&coords(), [("IC_9", "h1")])
                .expect("load")
                .is_empty()
        );
        assert_eq!(ledger.forget_kept(&coords()).expect("forget"), 1);
        assert!(!file.exists());
        assert_eq!(ledger.forget_kept(&coords()).expect("forget"), 0);
    }

    #[test]
    fn texts_written_from_the_items_are_the_kept_texts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let items = [
            thread(&["first", "second \"quoted\"\nline"]),
            Item::Comment(comment("IC_2", "a comment")),
        ];
        let hashes = ["h1", "h2"];
        let n = ledger
            .keep_items(&coords(), items.iter().zip(hashes))
            .expect("keep");
        assert_eq!(n, 2);
        let got = ledger
            .load_kept(&coords(), [("PRRT_1", "h1"), ("IC_2", "h2")])
            .expect("load");
        assert_eq!(got["PRRT_1"], KeptText::of(&items[0], "h1"));
        assert_eq!(got["IC_2"], KeptText::of(&items[1], "h2"));
        // Byte for byte what a KeptText serializes to (the files of earlier releases).
        let log = std::fs::read_to_string(dir.path().join("prs/octo/demo/7").join(KEPT_LOG))
            .expect("log");
        let expected = serde_json::to_string(&KeptText::of(&items[1], "h2")).expect("json");
        assert!(log.lines().any(|l| l == expected), "{log}");
    }

    /// Failed before: an edited item's kept text was a file replaced by rename, one per edit.
    /// Now an edit appends to the PR's one log; the text it replaces stays readable for a
    /// marker that still names it.
    #[test]
    fn an_edit_appends_to_the_log_and_replaces_no_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let before = Item::Comment(comment("IC_1", "before"));
        let after = Item::Comment(comment("IC_1", "after"));
        ledger
            .keep_items(&coords(), [(&before, "h1")])
            .expect("keep");
        let log = dir.path().join("prs/octo/demo/7").join(KEPT_LOG);
        let first = std::fs::read(&log).expect("log");
        #[cfg(unix)]
        let inode = || {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(&log).expect("meta").ino()
        };
        #[cfg(unix)]
        let ino = inode();
        ledger
            .keep_items(&coords(), [(&after, "h2")])
            .expect("keep");
        let second = std::fs::read(&log).expect("log");
        assert!(second.starts_with(&first), "appended, not rewritten");
        #[cfg(unix)]
        assert_eq!(inode(), ino, "the same file");
        let got = |hash| ledger.load_kept(&coords(), [("IC_1", hash)]).expect("load");
        assert_eq!(got("h2")["IC_1"].body.as_deref(), Some("after"));
        assert_eq!(got("h1")["IC_1"].body.as_deref(), Some("before"));
        assert_eq!(std::fs::read_dir(log.parent().unwrap()).unwrap().count(), 1);
    }

    /// A PR folder written by the release before the log: its per-item files are read (for the
    /// marker hash they name), and a prune folds them into the log.
    #[test]
    fn the_per_item_files_of_the_release_before_are_read_then_folded_in() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let legacy = dir.path().join("prs/octo/demo/7").join(KEPT_DIR);
        std::fs::create_dir_all(&legacy).expect("mkdir");
        let old = KeptText::of(&Item::Comment(comment("IC_1", "as kept before")), "h1");
        let gone = KeptText::of(&Item::Comment(comment("IC_9", "of an item gone")), "h9");
        for k in [&old, &gone] {
            let bytes = serde_json::to_vec(k).expect("json");
            std::fs::write(legacy.join(marker_file_name(&k.id)), bytes).expect("write");
        }
        let got = ledger.load_kept(&coords(), [("IC_1", "h1")]).expect("load");
        assert_eq!(got.get("IC_1"), Some(&old));
        assert!(
            ledger
                .load_kept(&coords(), [("IC_1", "h2")])
                .expect("load")
                .is_empty()
        );
        assert_eq!(
            ledger
                .prune_kept(&coords(), &|id| id == "IC_1")
                .expect("prune"),
            1
        );
        assert!(!legacy.exists());
        let got = ledger
            .load_kept(&coords(), [("IC_1", "h1"), ("IC_9", "h9")])
            .expect("load");
        assert_eq!(got.len(), 1);
        assert_eq!(got.get("IC_1"), Some(&old));
    }

    #[test]
    fn the_bound_keeps_a_prefix_of_the_bodies() {
        let k = KeptText::bounded(&thread(&["12345", "123", "1"]), "h", 8);
        let bodies: Vec<Option<&str>> = k.comments.iter().map(|c| c.body.as_deref()).collect();
        assert_eq!(bodies, vec![Some("12345"), Some("123"), None]);
        let k = KeptText::bounded(&thread(&["123456789", "1"]), "h", 8);
        assert!(k.comments.iter().all(|c| c.body.is_none()));
        assert_eq!(k.comments.len(), 2, "ids are always kept");
        let k = KeptText::bounded(&Item::Comment(comment("IC", "too long")), "h", 3);
        assert_eq!(k.body, None);
    }
}
