//! Kept texts: the text of each item as it was when it was last marked seen, beside the seen
//! markers, so a later look can show *what* changed (a line diff, a thread's new replies).
//!
//! ```text
//! <state>/<owner>-<repo>/<pr>/seen-text/<sha256-hex-of-id>.json
//! ```
//!
//! The markers themselves stay exactly as seed 000 prescribes; a kept text is a separate file
//! that names the marker hash it belongs to (`bodyHash`). One that does not match its marker
//! (written by a run whose marker write then failed, or by an older marker) is ignored, so a
//! kept text never claims a version that was not the one seen.
//!
//! Bounded: at most [`MAX_KEPT_CHARS`] characters of text per item (comment bodies, in order;
//! GitHub's own limit per comment is 65,536). Bodies past the bound are kept as absent (`null`),
//! and a changed comment whose old body is absent shows no diff — only that it changed.
//! `state clear` forgets kept texts with the markers ([`Ledger::forget_kept`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::seen::marker_file_name;
use super::{Ledger, LedgerError, write_atomic};
use crate::pr::{Item, PrCoords};

/// The folder of kept texts inside a PR's state folder.
pub const KEPT_DIR: &str = "seen-text";

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

impl KeptText {
    /// The item's text now, to keep beside a marker with `body_hash`.
    pub fn of(item: &Item, body_hash: &str) -> KeptText {
        KeptText::bounded(item, body_hash, MAX_KEPT_CHARS)
    }

    /// [`KeptText::of`] with another bound (tests).
    pub fn bounded(item: &Item, body_hash: &str, max_chars: usize) -> KeptText {
        let mut left = max_chars;
        let mut take = |text: &str| {
            let n = text.chars().count();
            if n <= left {
                left -= n;
                Some(text.to_owned())
            } else {
                left = 0; // later bodies are dropped too: the kept part stays a prefix
                None
            }
        };
        match item {
            Item::Thread(t) => KeptText {
                id: t.id.clone(),
                body_hash: body_hash.to_owned(),
                body: None,
                comments: t
                    .comments
                    .iter()
                    .map(|c| KeptComment {
                        id: c.id.clone(),
                        body: take(&c.body),
                    })
                    .collect(),
            },
            other => KeptText {
                id: other.id().to_owned(),
                body_hash: body_hash.to_owned(),
                body: take(other.body()),
                comments: Vec::new(),
            },
        }
    }
}

impl Ledger {
    /// Writes the kept texts (one file each, atomically). Call it *before* the markers they
    /// belong to are written: a kept text whose marker write fails is ignored on reading.
    pub fn keep_texts(&self, pr: &PrCoords, texts: &[KeptText]) -> Result<usize, LedgerError> {
        if texts.is_empty() {
            return Ok(0);
        }
        let dir = self.pr_dir(pr)?.join(KEPT_DIR);
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        for t in texts {
            let bytes = serde_json::to_vec(t).unwrap_or_default();
            write_atomic(&dir.join(marker_file_name(&t.id)), &bytes)?;
        }
        Ok(texts.len())
    }

    /// The kept texts of these (id, marker hash) pairs that exist and match their marker.
    /// Missing, unreadable or stale files are left out (the item then shows no diff).
    pub fn load_kept<'a>(
        &self,
        pr: &PrCoords,
        wanted: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<HashMap<String, KeptText>, LedgerError> {
        let dir = self.pr_dir(pr)?.join(KEPT_DIR);
        let mut out = HashMap::new();
        for (id, hash) in wanted {
            let Ok(bytes) = std::fs::read(dir.join(marker_file_name(id))) else {
                continue;
            };
            if let Ok(k) = serde_json::from_slice::<KeptText>(&bytes)
                && k.id == id
                && k.body_hash == hash
            {
                out.insert(k.id.clone(), k);
            }
        }
        Ok(out)
    }

    /// Removes every kept text of the PR (what `state clear` forgets along with the markers).
    /// Returns how many files were removed.
    pub fn forget_kept(&self, pr: &PrCoords) -> Result<usize, LedgerError> {
        let dir = self.pr_dir(pr)?.join(KEPT_DIR);
        if !dir.exists() {
            return Ok(0);
        }
        let count = super::count_files(&dir);
        std::fs::remove_dir_all(&dir).map_err(LedgerError::io("remove", &dir))?;
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
        let file = dir
            .path()
            .join("octo-demo/7/seen-text")
            .join(marker_file_name("IC_1"));
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
