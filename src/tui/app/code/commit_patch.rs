//! A commit's patch in the diff's own view: the [`DiffScreen`](super::DiffScreen) of the files
//! one commit changed (line numbers, colours, changed words, the split view, hunk jumps, `n`/`N`
//! through the commit's files), read-only. Its lines are the commit's, not the PR head's, so
//! nothing of the PR is drawn on them (threads, findings, pending comments), nothing typed there
//! becomes a comment, and showing it records nothing: the PR's last look at its code and its
//! files' viewed marks stay what they were. A key that does not apply says why in the footer.
//!
//! The diff is built on a [`Snapshot`] whose files are the commit's and whose items are none
//! (see [`parts`]); [`ReadOnly`] is what the diff keeps to know it is a commit's patch.

use ratatui::text::{Line, Span};

use super::work::CodeLoad;
use crate::pr::{ChangedFile, Snapshot};
use crate::sanitize::one_line;
use crate::tui::keymap::KeyCommand;
use crate::tui::theme::Theme;

/// What the comment keys say on a commit's patch.
const NO_COMMENT: &str = "a commit's patch takes no comment here: comment on the PR's diff (F)";

/// One commit's files, to be shown in the diff's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitPatch {
    /// The commit's SHA (offline: the push's head).
    pub sha: String,
    /// The message's first line (offline: the step's description). Untrusted.
    pub title: String,
    /// Offline: a head the fixture records (the opening one or a push's), its files' patches
    /// the PR's at it.
    pub offline: bool,
    /// The files with a patch, in the commit's order.
    pub files: Vec<ChangedFile>,
}

/// The mark of a diff showing a commit's patch: which commit, for its header and for its
/// highlighting (never mistaken for the PR's patch of the same path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnly {
    sha: String,
    title: String,
    offline: bool,
}

/// The commands a commit's patch answers besides the diff's moves and layout keys, with what
/// they do there (its `?`).
pub(super) const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::NextFile, "the commit's next file"),
    (KeyCommand::PrevFile, "the commit's previous file"),
    (KeyCommand::Toggle, "show a collapsed file"),
    (
        KeyCommand::Reply,
        "read-only: a commit's patch takes no comment (the PR's diff does: F)",
    ),
];

/// The footer's hints on a commit's patch.
const HINTS: &[(KeyCommand, &str)] = &[
    (KeyCommand::NextHunk, "hunk"),
    (KeyCommand::NextFile, "next file"),
    (KeyCommand::ToggleSplit, "split"),
];

/// What the diff of `patch` is built on: the PR's snapshot with the commit's files and none of
/// the PR's items (its threads are on the PR head's lines), an empty load (no last look, no
/// findings, no viewed marks), and the mark that makes the diff read-only.
pub(super) fn parts(pr: &Snapshot, patch: CommitPatch) -> (Snapshot, CodeLoad, ReadOnly) {
    let mut snapshot = pr.clone();
    snapshot.pr.files = patch.files;
    snapshot.items = Vec::new();
    let load = CodeLoad::empty(snapshot.pr.coords());
    let mark = ReadOnly {
        sha: patch.sha,
        title: patch.title,
        offline: patch.offline,
    };
    (snapshot, load, mark)
}

impl ReadOnly {
    /// The commit's SHA as given (part of its highlight's key).
    pub(super) fn sha(&self) -> &str {
        &self.sha
    }

    /// Why `cmd` does nothing on a commit's patch, said instead (`None`: the diff answers it as
    /// it does the PR's). `collapsed`: the file is collapsed until asked; `index` of `files`:
    /// the file shown among the commit's.
    pub(super) fn refusal(
        &self,
        cmd: KeyCommand,
        collapsed: bool,
        index: usize,
        files: usize,
    ) -> Option<&'static str> {
        Some(match cmd {
            // The composer writes on the PR head's lines: a commit's line numbers are another
            // version's.
            KeyCommand::Reply | KeyCommand::Suggest | KeyCommand::SelectLines => NO_COMMENT,
            // Refused too: the model is shown the PR's file, and its answer becomes a comment
            // on the PR's lines (`c` in its pane), neither of them this commit's.
            KeyCommand::AskModel => {
                "a commit's patch takes no question here: ask about the PR's diff (F)"
            }
            KeyCommand::ToggleViewed => {
                "a commit's patch is not the PR's file: mark it viewed on the PR's diff (F)"
            }
            KeyCommand::Interdiff => {
                "a commit's patch has no interdiff: the PR's diff has one since your last look (F)"
            }
            KeyCommand::ExpandContext | KeyCommand::ExpandFile => {
                "a commit's patch shows its hunks only: the whole file is on the PR's diff (F)"
            }
            KeyCommand::OpenInEditor => {
                "a commit's patch opens no file: o on the PR's diff opens it at the PR's head (F)"
            }
            KeyCommand::NextNew | KeyCommand::PrevNew => {
                "a commit's patch shows no thread or finding: they are on the PR's diff (F)"
            }
            KeyCommand::Toggle if !collapsed => {
                "a commit's patch shows no thread to open: they are on the PR's diff (F)"
            }
            // The pending review is the PR's: opened from a commit's copy of the PR, it would be
            // read against the commit's files.
            KeyCommand::PendingReview => {
                "a commit's patch has no pending review: P on the PR's diff or the PR screen"
            }
            KeyCommand::NextFile if index + 1 >= files => "the commit's last file",
            KeyCommand::PrevFile if index == 0 => "the commit's first file",
            _ => return None,
        })
    }

    /// The header: the file (path, change, counts), then the commit and that it is read-only.
    pub(super) fn header(&self, file: Option<&ChangedFile>, theme: &Theme) -> Vec<Line<'static>> {
        let Some(f) = file else {
            return vec![Line::styled("no such file", theme.dim)];
        };
        let first = super::note::file_title(f, theme);
        let short: String = one_line(&self.sha).chars().take(7).collect();
        let what = if self.offline {
            format!("{short} · offline: the PR's patch at this head")
        } else {
            format!("commit {short}")
        };
        let second = vec![
            Span::styled(what, theme.location),
            Span::styled(" · read-only: comments go on the PR's diff", theme.dim),
            Span::styled(format!(" · {}", one_line(&self.title)), theme.text),
        ];
        vec![Line::from(first), Line::from(second)]
    }

    /// The footer's hints: what a commit's patch answers.
    pub(super) fn hints(&self) -> &'static [(KeyCommand, &'static str)] {
        HINTS
    }
}
