//! The pending review, pure: line comments and suggestions the maintainer wrote on the diff,
//! and Shepherd's findings as draft comments on their lines, until they are submitted as one
//! GitHub review. Kept in the ledger (`<pr>/pending.json`) by `ledger::pending`; posted by
//! `publish::review`.
//!
//! Every comment has a place GitHub accepts: a path, a side and a line, and for a range a start
//! line before it on the same side (GitHub's rule for multi-line comments). A finding's draft
//! carries the finding's id, which goes with the posted comment as hidden metadata
//! ([`finding_marker`]) so a re-review knows it is already on its line.

use serde::{Deserialize, Serialize};

use super::patch::{LineAddr, LineSelection, ParsedPatch, Side};

/// The hidden metadata an inline comment carries for the finding it posts.
pub const FINDING_MARKER_PREFIX: &str = "<!-- pr-shepherd:finding ";

/// `<!-- pr-shepherd:finding PS-… -->`: the finding id an inline comment carries.
pub fn finding_marker(id: &str) -> String {
    format!("{FINDING_MARKER_PREFIX}{id} -->")
}

/// The finding id an inline comment's hidden metadata names, if it has one.
pub fn marked_finding(body: &str) -> Option<&str> {
    let start = body.find(FINDING_MARKER_PREFIX)? + FINDING_MARKER_PREFIX.len();
    let rest = &body[start..];
    let end = rest.find(" -->")?;
    let id = rest[..end].trim();
    (id.starts_with("PS-") && id.len() == 13 && id[3..].bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(id)
}

/// What a pending comment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommentKind {
    /// Written by the maintainer.
    Comment,
    /// A ```` ```suggestion ```` block, written by the maintainer.
    Suggestion,
    /// Shepherd's finding as a draft: posted only when kept (or edited).
    Finding,
}

impl CommentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CommentKind::Comment => "comment",
            CommentKind::Suggestion => "suggestion",
            CommentKind::Finding => "finding",
        }
    }
}

/// What the maintainer decided for a finding's draft (own comments are always `Kept`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DraftState {
    /// Not decided yet: not posted.
    Proposed,
    Kept,
    Edited,
    Dropped,
    /// The finding is already on the PR (posted in an earlier review): shown, never sent again.
    Posted,
}

impl DraftState {
    pub fn as_str(self) -> &'static str {
        match self {
            DraftState::Proposed => "proposed",
            DraftState::Kept => "kept",
            DraftState::Edited => "edited",
            DraftState::Dropped => "dropped",
            DraftState::Posted => "posted",
        }
    }

    /// Whether a comment in this state goes with the review.
    pub fn is_posted(self) -> bool {
        matches!(self, DraftState::Kept | DraftState::Edited)
    }
}

/// One comment of the pending review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingComment {
    /// `c1`, `c2`, … in the order they were added; never reused within a pending review.
    pub id: String,
    pub path: String,
    pub side: Side,
    pub line: u32,
    /// The first line of a range (on `side`, before `line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u32>,
    pub body: String,
    pub kind: CommentKind,
    pub state: DraftState,
    /// The finding it posts (findings' drafts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding_id: Option<String>,
}

impl PendingComment {
    /// `path:12` or `path:10-12`, with `(old)` for the left side.
    pub fn place(&self) -> String {
        let lines = match self.start_line {
            Some(s) => format!("{s}-{}", self.line),
            None => self.line.to_string(),
        };
        let side = if self.side == Side::Left {
            " (old)"
        } else {
            ""
        };
        format!("{}:{lines}{side}", self.path)
    }

    /// The body as posted: a finding's draft carries its id in hidden metadata.
    pub fn posted_body(&self) -> String {
        match &self.finding_id {
            Some(id) if !self.body.contains(FINDING_MARKER_PREFIX) => {
                format!("{}\n\n{}", self.body.trim_end(), finding_marker(id))
            }
            _ => self.body.clone(),
        }
    }
}

/// Why a comment cannot be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PendingError {
    #[error("the comment is empty")]
    Empty,
    #[error("a multi-line comment needs its start line ({start}) before its line ({line})")]
    BadRange { start: u32, line: u32 },
    #[error("`{path}` is not among the PR's changed files with a patch")]
    NoSuchFile { path: String },
    #[error("{place} is not a line of the diff")]
    NotInDiff { place: String },
    #[error("no pending comment `{id}`")]
    NoSuchComment { id: String },
    #[error("`{id}` is already on the PR: it is not posted again")]
    AlreadyPosted { id: String },
}

/// The maintainer's unsubmitted review of one PR.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingReview {
    /// The head the comments were written on (the review is posted at the head current then).
    #[serde(default)]
    pub head_sha: String,
    /// The review's own body (the maintainer's words, or the condensed summary).
    #[serde(default)]
    pub body: String,
    pub comments: Vec<PendingComment>,
    /// The number of the last id given (ids are never reused).
    #[serde(default)]
    pub last_id: u32,
    /// Unix seconds of the last save.
    #[serde(default)]
    pub saved_at: i64,
}

/// The body of a suggestion on `lines`: a ```` ```suggestion ```` block holding them, to edit.
pub fn suggestion_body(lines: &[String]) -> String {
    let fence = fence_for(lines);
    let mut s = format!("{fence}suggestion\n");
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str(&fence);
    s
}

/// A fence longer than any backtick run at the start of the lines.
fn fence_for(lines: &[String]) -> String {
    let longest = lines
        .iter()
        .map(|l| l.trim_start().bytes().take_while(|b| *b == b'`').count())
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// Whether `addr` (and `start`, on its side) are lines of `patch`.
pub fn in_diff(patch: &ParsedPatch, start: Option<u32>, addr: LineAddr) -> bool {
    patch.find(addr).is_some()
        && start.is_none_or(|s| {
            patch
                .find(LineAddr {
                    side: addr.side,
                    line: s,
                })
                .is_some()
        })
}

impl PendingReview {
    fn next_id(&mut self) -> String {
        self.last_id += 1;
        format!("c{}", self.last_id)
    }

    /// Adds a comment of the maintainer's at a place checked against GitHub's rules (a range
    /// starts before its line; both in the diff when `patch` is given). Returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        path: &str,
        side: Side,
        start_line: Option<u32>,
        line: u32,
        body: &str,
        kind: CommentKind,
        patch: Option<&ParsedPatch>,
    ) -> Result<String, PendingError> {
        if body.trim().is_empty() {
            return Err(PendingError::Empty);
        }
        if let Some(start) = start_line
            && start >= line
        {
            return Err(PendingError::BadRange { start, line });
        }
        let id = self.next_id();
        let c = PendingComment {
            id: id.clone(),
            path: path.to_owned(),
            side,
            line,
            start_line,
            body: body.to_owned(),
            kind,
            state: DraftState::Kept,
            finding_id: None,
        };
        if let Some(p) = patch
            && !in_diff(p, start_line, LineAddr { side, line })
        {
            self.last_id -= 1;
            return Err(PendingError::NotInDiff { place: c.place() });
        }
        self.comments.push(c);
        Ok(id)
    }

    /// Adds a comment on a selection from the diff view: its text, or for a suggestion the
    /// text given (the selection's lines prefilled when `body` is `None`).
    pub fn add_selection(
        &mut self,
        sel: &LineSelection,
        body: &str,
        suggestion: bool,
    ) -> Result<String, PendingError> {
        let kind = if suggestion {
            CommentKind::Suggestion
        } else {
            CommentKind::Comment
        };
        self.add(
            &sel.path,
            sel.end.side,
            sel.start.map(|s| s.line),
            sel.end.line,
            body,
            kind,
            None,
        )
    }

    /// Adds a finding's draft (proposed until kept), unless one for the same finding is here.
    pub fn propose_finding(
        &mut self,
        finding_id: &str,
        path: &str,
        addr: LineAddr,
        body: &str,
    ) -> Option<String> {
        if self
            .comments
            .iter()
            .any(|c| c.finding_id.as_deref() == Some(finding_id))
        {
            return None;
        }
        let id = self.next_id();
        self.comments.push(PendingComment {
            id: id.clone(),
            path: path.to_owned(),
            side: addr.side,
            line: addr.line,
            start_line: None,
            body: body.to_owned(),
            kind: CommentKind::Finding,
            state: DraftState::Proposed,
            finding_id: Some(finding_id.to_owned()),
        });
        Some(id)
    }

    pub fn get(&self, id: &str) -> Option<&PendingComment> {
        self.comments.iter().find(|c| c.id == id)
    }

    fn get_mut(&mut self, id: &str) -> Result<&mut PendingComment, PendingError> {
        self.comments
            .iter_mut()
            .find(|c| c.id == id)
            .ok_or_else(|| PendingError::NoSuchComment { id: id.to_owned() })
    }

    /// Settles the undecided draft of a finding decided elsewhere (a dismissal, a lesson, an
    /// earlier post or drop): a posted one shows as posted, the others leave the list. What the
    /// maintainer decided here (kept, edited, dropped) stays as it is.
    pub fn settle_finding(&mut self, finding_id: &str, posted: bool) {
        let undecided = |c: &PendingComment| {
            c.state == DraftState::Proposed && c.finding_id.as_deref() == Some(finding_id)
        };
        if posted {
            for c in self.comments.iter_mut().filter(|c| undecided(c)) {
                c.state = DraftState::Posted;
            }
        } else {
            self.comments.retain(|c| !undecided(c));
        }
    }

    /// Keeps a finding's draft as it is.
    pub fn keep(&mut self, id: &str) -> Result<(), PendingError> {
        let c = self.get_mut(id)?;
        if c.state == DraftState::Posted {
            return Err(PendingError::AlreadyPosted { id: id.to_owned() });
        }
        if c.state != DraftState::Edited {
            c.state = DraftState::Kept;
        }
        Ok(())
    }

    /// Replaces a comment's text (a finding's draft becomes `Edited`).
    pub fn edit(&mut self, id: &str, body: &str) -> Result<(), PendingError> {
        if body.trim().is_empty() {
            return Err(PendingError::Empty);
        }
        let c = self.get_mut(id)?;
        if c.state == DraftState::Posted {
            return Err(PendingError::AlreadyPosted { id: id.to_owned() });
        }
        if c.body != body && c.kind == CommentKind::Finding {
            c.state = DraftState::Edited;
        } else if c.kind == CommentKind::Finding && c.state == DraftState::Proposed {
            c.state = DraftState::Kept;
        }
        c.body = body.to_owned();
        Ok(())
    }

    /// Drops a finding's draft (kept in the file, marked dropped, so it is not proposed again);
    /// removes an own comment.
    pub fn drop_comment(&mut self, id: &str) -> Result<(), PendingError> {
        let c = self.get_mut(id)?;
        if c.kind == CommentKind::Finding {
            c.state = DraftState::Dropped;
        } else {
            self.comments.retain(|c| c.id != id);
        }
        Ok(())
    }

    /// The comments that go with the review: own ones and kept or edited drafts.
    pub fn to_post(&self) -> impl Iterator<Item = &PendingComment> {
        self.comments.iter().filter(|c| c.state.is_posted())
    }

    /// Whether there is anything to submit.
    pub fn is_empty(&self) -> bool {
        self.to_post().next().is_none() && self.body.trim().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::parse;

    const P: &str = "@@ -1,3 +1,5 @@\n a\n-b\n+B\n+C\n+D\n c";

    #[test]
    fn comments_are_checked_against_githubs_rules() {
        let patch = parse(P);
        let mut r = PendingReview::default();
        let id = r
            .add(
                "f.rs",
                Side::Right,
                Some(2),
                4,
                "x",
                CommentKind::Comment,
                Some(&patch),
            )
            .unwrap();
        assert_eq!(id, "c1");
        assert_eq!(
            r.add(
                "f.rs",
                Side::Right,
                Some(4),
                4,
                "x",
                CommentKind::Comment,
                None
            ),
            Err(PendingError::BadRange { start: 4, line: 4 })
        );
        assert!(matches!(
            r.add(
                "f.rs",
                Side::Right,
                None,
                40,
                "x",
                CommentKind::Comment,
                Some(&patch)
            ),
            Err(PendingError::NotInDiff { .. })
        ));
        assert!(matches!(
            r.add(
                "f.rs",
                Side::Left,
                None,
                2,
                " ",
                CommentKind::Comment,
                Some(&patch)
            ),
            Err(PendingError::Empty)
        ));
        let id = r
            .add(
                "f.rs",
                Side::Left,
                None,
                2,
                "old b",
                CommentKind::Comment,
                Some(&patch),
            )
            .unwrap();
        assert_eq!(id, "c2", "a refused comment takes no id");
        assert_eq!(r.get("c2").unwrap().place(), "f.rs:2 (old)");
        assert_eq!(r.get("c1").unwrap().place(), "f.rs:2-4");
    }

    #[test]
    fn a_suggestion_prefills_the_lines_in_a_fence_longer_than_theirs() {
        let lines = vec!["let x = 1;".to_owned(), "```".to_owned()];
        assert_eq!(
            suggestion_body(&lines),
            "````suggestion\nlet x = 1;\n```\n````"
        );
        assert_eq!(suggestion_body(&["a".to_owned()]), "```suggestion\na\n```");
    }

    #[test]
    fn findings_drafts_are_kept_edited_or_dropped_and_carry_their_id() {
        let mut r = PendingReview::default();
        let at = LineAddr {
            side: Side::Right,
            line: 3,
        };
        let a = r
            .propose_finding("PS-0123456789", "f.rs", at, "msg")
            .unwrap();
        assert!(
            r.propose_finding("PS-0123456789", "f.rs", at, "again")
                .is_none()
        );
        let b = r
            .propose_finding("PS-aaaaaaaaaa", "f.rs", at, "two")
            .unwrap();
        let c = r
            .propose_finding("PS-bbbbbbbbbb", "f.rs", at, "three")
            .unwrap();
        assert!(r.is_empty(), "proposed drafts are not posted");
        r.keep(&a).unwrap();
        r.edit(&b, "two, better").unwrap();
        r.drop_comment(&c).unwrap();
        let posted: Vec<_> = r.to_post().map(|c| c.id.clone()).collect();
        assert_eq!(posted, vec![a.clone(), b.clone()]);
        assert_eq!(r.get(&b).unwrap().state, DraftState::Edited);
        assert_eq!(r.get(&c).unwrap().state, DraftState::Dropped);
        let body = r.get(&a).unwrap().posted_body();
        assert_eq!(marked_finding(&body), Some("PS-0123456789"));
        assert!(
            r.propose_finding("PS-bbbbbbbbbb", "f.rs", at, "x")
                .is_none(),
            "a dropped draft is not proposed again"
        );
        assert!(matches!(
            r.keep("c9"),
            Err(PendingError::NoSuchComment { .. })
        ));
    }

    #[test]
    fn a_finding_decided_elsewhere_is_no_undecided_draft() {
        let mut r = PendingReview::default();
        let at = LineAddr {
            side: Side::Right,
            line: 3,
        };
        let a = r.propose_finding("PS-000000000a", "f.rs", at, "a").unwrap();
        let b = r.propose_finding("PS-000000000b", "f.rs", at, "b").unwrap();
        let c = r.propose_finding("PS-000000000c", "f.rs", at, "c").unwrap();
        r.keep(&c).unwrap();
        r.settle_finding("PS-000000000a", false);
        r.settle_finding("PS-000000000b", true);
        r.settle_finding("PS-000000000c", false);
        assert!(r.get(&a).is_none(), "a dismissed finding leaves the list");
        assert_eq!(r.get(&b).unwrap().state, DraftState::Posted);
        assert_eq!(
            r.get(&c).unwrap().state,
            DraftState::Kept,
            "kept here stays"
        );
        assert_eq!(r.to_post().count(), 1, "a posted draft is not sent again");
        assert_eq!(
            r.keep(&b),
            Err(PendingError::AlreadyPosted { id: b.clone() })
        );
        assert!(r.edit(&b, "again").is_err());
    }

    #[test]
    fn a_marker_names_only_a_well_formed_id() {
        assert_eq!(marked_finding("x <!-- pr-shepherd:finding PS-zz -->"), None);
        assert_eq!(marked_finding("no marker"), None);
        assert_eq!(
            marked_finding(&finding_marker("PS-00000000ff")),
            Some("PS-00000000ff")
        );
    }
}
