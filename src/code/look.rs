//! What a file is since your last look: its patch's content key against the key of the patch
//! you were last shown of it.

use serde::{Deserialize, Serialize};

use super::interdiff::normalized;
use crate::pr::{ChangedFile, sha256_hex};

/// `changedSinceLastLook` of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SinceLastLook {
    /// Not in the PR when you last looked at its code.
    New,
    /// Its patch changed since you were last shown it.
    Changed,
    /// The patch you were last shown, by content (wherever a rebase moved it).
    Unchanged,
    /// In the PR when you last looked, or you never looked at the PR's code, but never shown.
    NeverSeen,
}

impl SinceLastLook {
    pub fn as_str(self) -> &'static str {
        match self {
            SinceLastLook::New => "new",
            SinceLastLook::Changed => "changed",
            SinceLastLook::Unchanged => "unchanged",
            SinceLastLook::NeverSeen => "never-seen",
        }
    }

    /// Worth a look again: new or changed.
    pub fn needs_look(self) -> bool {
        matches!(self, SinceLastLook::New | SinceLastLook::Changed)
    }
}

/// The key of a file's patch exactly as it is (hunk headers and line numbers included): what an
/// offline viewed mark remembers, so a later patch that differs in any way dismisses it, as
/// GitHub does.
pub fn patch_key(file: &ChangedFile) -> String {
    match &file.patch {
        Some(p) => sha256_hex(p.as_bytes()),
        None => content_key(file),
    }
}

/// The content key of a file's patch: SHA-256 of its normalized lines (hunk headers without
/// line numbers), so the same change after a rebase has the same key. A file without a patch is
/// keyed by why there is none and its counts, so a binary file that changed size changes key.
pub fn content_key(file: &ChangedFile) -> String {
    match &file.patch {
        Some(p) => {
            let mut text = String::with_capacity(p.len());
            for l in normalized(p) {
                text.push_str(&l);
                text.push('\n');
            }
            sha256_hex(text.as_bytes())
        }
        None => sha256_hex(
            format!(
                "\u{0}no-patch:{}:{}:{}",
                file.no_patch().map_or("", |w| w.as_str()),
                file.additions,
                file.deletions
            )
            .as_bytes(),
        ),
    }
}

/// The key of a file's patch text exactly as sent, hunk line numbers included (`None` without a
/// patch): with the same [`content_key`], a different exact key is the same change moved by a
/// rebase.
pub fn exact_key(file: &ChangedFile) -> Option<String> {
    file.patch.as_deref().map(|p| sha256_hex(p.as_bytes()))
}

/// What the file is since the last look: `seen_key` is the key of the patch last shown of it
/// (`None`: never shown); `looked_before` says the PR's code was looked at before, and
/// `was_there` that this path was among the PR's files then.
pub fn since_last_look(
    key_now: &str,
    seen_key: Option<&str>,
    looked_before: bool,
    was_there: bool,
) -> SinceLastLook {
    match seen_key {
        Some(k) if k == key_now => SinceLastLook::Unchanged,
        Some(_) => SinceLastLook::Changed,
        None if looked_before && !was_there => SinceLastLook::New,
        None => SinceLastLook::NeverSeen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_survives_a_rebase_and_follows_the_change() {
        let a = ChangedFile::new("a.rs", Some("@@ -1,2 +1,2 @@\n x\n-y\n+z".into()));
        let moved = ChangedFile::new("a.rs", Some("@@ -30,2 +41,2 @@\n x\n-y\n+z\n".into()));
        let changed = ChangedFile::new("a.rs", Some("@@ -1,2 +1,2 @@\n x\n-y\n+w".into()));
        assert_eq!(content_key(&a), content_key(&moved));
        assert_ne!(exact_key(&a), exact_key(&moved), "the lines moved");
        assert_ne!(content_key(&a), content_key(&changed));
        let mut bin = ChangedFile::new("logo.png", None);
        let k = content_key(&bin);
        bin.additions = 0;
        bin.status = "added".into();
        assert_eq!(k, content_key(&bin));
        bin.no_patch = Some(crate::pr::NoPatch::TooLarge);
        assert_ne!(k, content_key(&bin));
    }

    #[test]
    fn the_four_answers() {
        assert_eq!(
            since_last_look("k", Some("k"), true, true),
            SinceLastLook::Unchanged
        );
        assert_eq!(
            since_last_look("k", Some("j"), true, true),
            SinceLastLook::Changed
        );
        assert_eq!(since_last_look("k", None, true, false), SinceLastLook::New);
        assert_eq!(
            since_last_look("k", None, true, true),
            SinceLastLook::NeverSeen
        );
        assert_eq!(
            since_last_look("k", None, false, false),
            SinceLastLook::NeverSeen
        );
    }
}
