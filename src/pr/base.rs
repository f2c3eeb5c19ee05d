//! A file of the PR's base branch (pure data): the repository's own review guidance
//! (`AGENTS.md`, `CLAUDE.md`, `.github/copilot-instructions.md`, `.github/instructions/…`) is
//! read from the base, never from the PR's head. Live it is fetched at the base commit; a fixture
//! carries the files it recorded (`baseFiles`, docs/fixture-format.md).

use serde::{Deserialize, Serialize};

/// One file as it is at a base commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BaseFile {
    /// The path in the repository.
    pub path: String,
    /// The base commit it was read at; absent in a fixture: the fixture's `pr.baseSha`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The file's text.
    pub text: String,
}

impl BaseFile {
    /// Whether the file was read at `base` (a file without a commit is of the fixture's base).
    pub fn is_at(&self, base: &str, fixture_base: &str) -> bool {
        self.commit.as_deref().unwrap_or(fixture_base) == base
    }
}
