//! The files a PR changes: what GitHub says of each (change type, counts, the viewer's viewed
//! state) and its unified patch, or why there is none.

use serde::{Deserialize, Serialize};

/// GitHub serves at most this many files of a PR (REST and GraphQL alike).
pub const GITHUB_FILE_LIMIT: usize = 3000;

/// GitHub's `FileViewedState` for the viewer: `Dismissed` is "changed since you marked it
/// viewed".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ViewedState {
    Viewed,
    #[default]
    Unviewed,
    Dismissed,
}

impl ViewedState {
    /// The lowercase word used in output (`viewed`, `unviewed`, `dismissed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ViewedState::Viewed => "viewed",
            ViewedState::Unviewed => "unviewed",
            ViewedState::Dismissed => "dismissed",
        }
    }

    fn is_unviewed(&self) -> bool {
        *self == ViewedState::Unviewed
    }
}

/// How a file was changed (GitHub's REST `status` / GraphQL `changeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeType {
    Added,
    Modified,
    Removed,
    Renamed,
    Copied,
    Changed,
    Unchanged,
}

impl ChangeType {
    /// From a REST `status` (`removed`) or a GraphQL `changeType` (`DELETED`); unknown words are
    /// `Changed` (GitHub's catch-all).
    pub fn parse(word: &str) -> ChangeType {
        match word.to_ascii_lowercase().as_str() {
            "added" => ChangeType::Added,
            "modified" => ChangeType::Modified,
            "removed" | "deleted" => ChangeType::Removed,
            "renamed" => ChangeType::Renamed,
            "copied" => ChangeType::Copied,
            "unchanged" => ChangeType::Unchanged,
            _ => ChangeType::Changed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ChangeType::Added => "added",
            ChangeType::Modified => "modified",
            ChangeType::Removed => "removed",
            ChangeType::Renamed => "renamed",
            ChangeType::Copied => "copied",
            ChangeType::Changed => "changed",
            ChangeType::Unchanged => "unchanged",
        }
    }

    /// One letter for narrow columns (`A`, `M`, `D`, `R`, `C`, `T`, `=`).
    pub fn letter(self) -> char {
        match self {
            ChangeType::Added => 'A',
            ChangeType::Modified => 'M',
            ChangeType::Removed => 'D',
            ChangeType::Renamed => 'R',
            ChangeType::Copied => 'C',
            ChangeType::Changed => 'T',
            ChangeType::Unchanged => '=',
        }
    }
}

/// Why a file has no patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoPatch {
    /// A binary file: GitHub sends no text diff.
    Binary,
    /// Too large for GitHub to send a patch.
    TooLarge,
    /// Renamed, copied or mode-changed without a change of content.
    NoTextChange,
    /// The patches could not be fetched (said in the snapshot's incomplete notes), or the file is
    /// known only from the GraphQL list.
    NotFetched,
}

impl NoPatch {
    pub fn as_str(self) -> &'static str {
        match self {
            NoPatch::Binary => "binary",
            NoPatch::TooLarge => "too-large",
            NoPatch::NoTextChange => "no-text-change",
            NoPatch::NotFetched => "not-fetched",
        }
    }

    /// A sentence for the screen and Markdown output.
    pub fn sentence(self) -> &'static str {
        match self {
            NoPatch::Binary => "binary file: no text diff",
            NoPatch::TooLarge => "GitHub sends no patch for a file this large",
            NoPatch::NoTextChange => "no change of content",
            NoPatch::NotFetched => "the patch could not be fetched",
        }
    }
}

/// One file changed by the PR, with its unified patch (absent for binary or very large files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    pub path: String,
    /// added, modified, removed, renamed, copied, changed, unchanged (GitHub's REST `status`)
    #[serde(default = "default_file_status")]
    pub status: String,
    #[serde(default)]
    pub additions: u32,
    #[serde(default)]
    pub deletions: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// The viewer's viewed state (GitHub's `viewerViewedState`).
    #[serde(
        default,
        rename = "viewerViewedState",
        skip_serializing_if = "ViewedState::is_unviewed"
    )]
    pub viewed: ViewedState,
    /// Why there is no patch, when GitHub's answer says it (else derived: [`Self::no_patch`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_patch: Option<NoPatch>,
}

fn default_file_status() -> String {
    "modified".to_owned()
}

impl ChangedFile {
    /// A modified file with this patch and no counts (tests and synthetic PRs fill the rest).
    pub fn new(path: &str, patch: Option<String>) -> ChangedFile {
        ChangedFile {
            path: path.to_owned(),
            status: default_file_status(),
            additions: 0,
            deletions: 0,
            previous_path: None,
            patch,
            viewed: ViewedState::Unviewed,
            no_patch: None,
        }
    }

    pub fn change_type(&self) -> ChangeType {
        ChangeType::parse(&self.status)
    }

    /// Why there is no patch (`None` when there is one). Without a stated reason: no lines
    /// changed is a rename or mode change when the type says so, else a binary file (GitHub
    /// counts no lines in a binary file); changed lines without a patch are a file too large.
    pub fn no_patch(&self) -> Option<NoPatch> {
        if self.patch.is_some() {
            return None;
        }
        if let Some(why) = self.no_patch {
            return Some(why);
        }
        Some(
            match (self.additions + self.deletions, self.change_type()) {
                (0, ChangeType::Renamed | ChangeType::Copied | ChangeType::Changed) => {
                    NoPatch::NoTextChange
                }
                (0, _) => NoPatch::Binary,
                _ => NoPatch::TooLarge,
            },
        )
    }

    /// Generated or vendored by its path (lock files, minified bundles, `vendor/`, snapshots):
    /// collapsed until asked in the diff view.
    pub fn looks_generated(&self) -> bool {
        let p = self.path.as_str();
        let name = p.rsplit('/').next().unwrap_or(p);
        const NAMES: [&str; 8] = [
            "Cargo.lock",
            "package-lock.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "poetry.lock",
            "Gemfile.lock",
            "go.sum",
            "composer.lock",
        ];
        NAMES.contains(&name)
            || name.ends_with(".min.js")
            || name.ends_with(".min.css")
            || name.ends_with(".snap")
            || name.ends_with(".pb.go")
            || p.starts_with("vendor/")
            || p.contains("/vendor/")
            || p.contains("/generated/")
    }
}

/// The sentence that says GitHub cut the file list, when it did: `listed` files of
/// `changed_files` (GitHub's count), or the limit reached with no count known.
pub fn files_cut_note(listed: usize, changed_files: Option<u32>) -> Option<String> {
    match changed_files {
        Some(total) if total as usize > listed => Some(format!(
            "GitHub lists {listed} of the {total} changed files (it serves at most {GITHUB_FILE_LIMIT}); the rest are not shown"
        )),
        None if listed >= GITHUB_FILE_LIMIT => Some(format!(
            "GitHub lists at most {GITHUB_FILE_LIMIT} files; this PR may change more, which are not shown"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_types_from_rest_and_graphql() {
        assert_eq!(ChangeType::parse("removed"), ChangeType::Removed);
        assert_eq!(ChangeType::parse("DELETED"), ChangeType::Removed);
        assert_eq!(ChangeType::parse("RENAMED"), ChangeType::Renamed);
        assert_eq!(ChangeType::parse("what"), ChangeType::Changed);
    }

    #[test]
    fn why_there_is_no_patch() {
        let mut f = ChangedFile::new("logo.png", None);
        f.status = "added".into();
        assert_eq!(f.no_patch(), Some(NoPatch::Binary));
        f.additions = 90_000;
        assert_eq!(f.no_patch(), Some(NoPatch::TooLarge));
        f.additions = 0;
        f.status = "renamed".into();
        assert_eq!(f.no_patch(), Some(NoPatch::NoTextChange));
        f.no_patch = Some(NoPatch::NotFetched);
        assert_eq!(f.no_patch(), Some(NoPatch::NotFetched));
        f.patch = Some("@@ -1 +1 @@\n-a\n+b".into());
        assert_eq!(f.no_patch(), None);
    }

    #[test]
    fn viewed_state_round_trips_and_defaults_to_unviewed() {
        let f: ChangedFile = serde_json::from_str(r#"{"path":"a"}"#).unwrap_or_else(|e| {
            panic!("{e}");
        });
        assert_eq!(f.viewed, ViewedState::Unviewed);
        let v: ChangedFile =
            serde_json::from_str(r#"{"path":"a","viewerViewedState":"DISMISSED"}"#)
                .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v.viewed, ViewedState::Dismissed);
        let text = serde_json::to_string(&v).unwrap_or_default();
        assert!(
            text.contains("\"viewerViewedState\":\"DISMISSED\""),
            "{text}"
        );
        assert!(
            !serde_json::to_string(&f)
                .unwrap_or_default()
                .contains("viewer")
        );
    }

    #[test]
    fn the_file_limit_is_said() {
        assert!(files_cut_note(10, Some(10)).is_none());
        assert!(files_cut_note(3000, Some(4200)).is_some_and(|n| n.contains("3000 of the 4200")));
        assert!(files_cut_note(3000, None).is_some());
        assert!(files_cut_note(12, None).is_none());
    }

    #[test]
    fn generated_files_by_path() {
        assert!(ChangedFile::new("Cargo.lock", None).looks_generated());
        assert!(ChangedFile::new("web/app.min.js", None).looks_generated());
        assert!(!ChangedFile::new("src/main.rs", None).looks_generated());
    }
}
