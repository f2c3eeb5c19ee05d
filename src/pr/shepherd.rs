//! The Shepherd's own comment as pure data: how a review body is recognised, and the offline
//! outbox stand-in for the posted comment. Shared by `source` (finding the comment on GitHub),
//! `ledger` (storing the outbox), `review` (reading prior reviews) and `publish` (posting).

use serde::{Deserialize, Serialize};

/// The first line of every Shepherd review.
pub const REVIEW_HEADER: &str = "## PR Shepherd Review";

/// The hidden line a partial review carries (one the budget stopped before it was whole): it is
/// never posted (`publish::upsert` refuses it). Only the composer writes it — untrusted text
/// in a review is stripped of HTML comments — so nothing else can make a review partial.
pub const PARTIAL_MARK: &str = "<!-- pr-shepherd:partial -->";

/// Whether a review body is marked partial.
pub fn is_partial(body: &str) -> bool {
    body.contains(PARTIAL_MARK)
}

/// The line that opens an incomplete review's note (an aspect failed or timed out, or the run
/// was stopped): the composer writes it, at the start of a line, only for such a review.
pub const INCOMPLETE_NOTE: &str = "> **Incomplete review:**";

/// Whether a review body says it is not whole: its incomplete note, or the partial mark. A
/// complete posted review is never replaced by such a body unless asked
/// (`--post-incomplete`).
pub fn is_incomplete(body: &str) -> bool {
    is_partial(body) || body.lines().any(|l| l.starts_with(INCOMPLETE_NOTE))
}

/// Offline (fixtures, the bundled inbox), the account whose `## PR Shepherd Review` comments are
/// Shepherd's own; live it is the credentials' account. `review --identity` and the console
/// default to it.
pub const DEFAULT_IDENTITY: &str = "pr-shepherd";

/// Whether a comment body is a Shepherd review (by its first line).
pub fn is_review_body(body: &str) -> bool {
    body.trim_start().starts_with(REVIEW_HEADER)
}

/// The offline stand-in for the Shepherd comment on GitHub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxComment {
    pub comment_id: String,
    pub body: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// How many times it was posted (1 = created, more = updated).
    pub revisions: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_body_starts_with_the_header() {
        assert!(is_review_body("  ## PR Shepherd Review\nbody"));
        assert!(!is_review_body("## Claude Code Review"));
        assert!(!is_review_body("thanks\n## PR Shepherd Review"));
    }

    #[test]
    fn an_incomplete_body_is_told_by_its_note_at_a_line_start_or_the_partial_mark() {
        let head = "## PR Shepherd Review\n\n**Findings:** 0\n\n";
        assert!(is_incomplete(&format!(
            "{head}> **Incomplete review:** perf failed.\n"
        )));
        assert!(is_incomplete(&format!("{head}{PARTIAL_MARK}\n")));
        assert!(!is_incomplete(head));
        // Quoted inside a finding's line, it is not the composer's note.
        assert!(!is_incomplete(&format!(
            "{head}- **Suggestion** `a.rs` — says > **Incomplete review:** here\n"
        )));
    }
}
