//! The code of a PR, pure: unified patches parsed into addressable lines ([`patch`]), the
//! interdiff between the patch you saw and the patch now, by content ([`interdiff`]), and what
//! each file is since your last look ([`look`]); the pending review of line comments and
//! findings' drafts ([`pending`]), which follow their lines to a new head through the diff
//! between the two versions of a file ([`linemap`]); the changed words of a modified line ([`words`]) and the rows of the side-by-side view
//! ([`split`]); the file's lines around the hunks, shown on demand ([`expand`]).
//!
//! Nothing here reads a SHA: a rebase or force-push that rewrote every commit but left a file's
//! changes as they were leaves its patch content, and so its key, the same.

pub mod expand;
pub mod interdiff;
pub mod linemap;
pub mod look;
pub mod patch;
pub mod pending;
pub mod split;
pub mod words;

pub use interdiff::{InterLine, Interdiff, interdiff};
pub use look::{SinceLastLook, content_key, exact_key, since_last_look};
pub use patch::{Hunk, LineAddr, LineKind, LineSelection, ParsedPatch, PatchLine, Side, parse};

/// Where `pr-shepherd checkout` puts the worktree of PR `number` of the clone at `repo`: beside
/// it, `<repo>-pr-N`. The diff's `o` looks there when the clone itself is at another head.
pub fn worktree_dir(repo: &std::path::Path, number: u64) -> std::path::PathBuf {
    let name = repo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    repo.with_file_name(format!("{name}-pr-{number}"))
}
