//! The Shepherd's own comment as pure data: how a review body is recognised, and the offline
//! outbox stand-in for the posted comment. Shared by `source` (finding the comment on GitHub),
//! `ledger` (storing the outbox), `review` (reading prior reviews) and `publish` (posting).

use std::borrow::Cow;

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

/// How every hidden marker pr-shepherd writes into a body begins (`meta`, `review`, `finding`,
/// `partial`).
pub const MARKER_OPEN: &str = "<!-- pr-shepherd:";

/// The kinds of hidden marker pr-shepherd writes, as they follow [`MARKER_OPEN`].
const MARKER_KINDS: &[&str] = &["meta ", "review ", "finding ", "partial "];

/// `body` as GitHub shows it, as far as pr-shepherd's own hidden markers go: every closed
/// `<!-- pr-shepherd:meta|review|finding|partial … -->` taken out (and the blank lines it leaves
/// at the ends). Anything else, an unclosed marker included, stays as it is: a body never loses
/// more than the markers.
pub fn without_markers(body: &str) -> Cow<'_, str> {
    if !body.contains(MARKER_OPEN) {
        return Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    let mut cut = false;
    while let Some(i) = rest.find(MARKER_OPEN) {
        let after = &rest[i + MARKER_OPEN.len()..];
        let known = MARKER_KINDS.iter().any(|k| after.starts_with(k));
        match after.find("-->").filter(|_| known) {
            Some(end) => {
                out.push_str(&rest[..i]);
                rest = &after[end + 3..];
                cut = true;
            }
            None => {
                out.push_str(&rest[..i + MARKER_OPEN.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if !cut {
        return Cow::Borrowed(body);
    }
    Cow::Owned(out.trim_end().trim_start_matches(['\n', '\r']).to_owned())
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
    fn hidden_markers_are_taken_out_and_nothing_else() {
        let review = "Looks good.\n\n<!-- pr-shepherd:review 0123abcd -->";
        assert_eq!(without_markers(review), "Looks good.");
        assert_eq!(without_markers("<!-- pr-shepherd:review 0123abcd -->"), "");
        let inline = "Check the bound.\n\n<!-- pr-shepherd:finding PS-00000000ff -->\n";
        assert_eq!(without_markers(inline), "Check the bound.");
        let own = "## PR Shepherd Review\nok\n<!-- pr-shepherd:partial -->\n<!-- pr-shepherd:meta {\"a\":1} -->";
        assert_eq!(without_markers(own), "## PR Shepherd Review\nok");
        // Other comments, unknown kinds and an unclosed marker stay.
        for kept in [
            "a <!-- note --> b",
            "<!-- pr-shepherd:other x -->",
            "x <!-- pr-shepherd:meta {",
        ] {
            assert_eq!(without_markers(kept), kept);
        }
        assert!(matches!(without_markers("plain"), Cow::Borrowed(_)));
    }

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
