//! The pending review, pure: line comments and suggestions the maintainer wrote on the diff,
//! and Shepherd's findings as draft comments on their lines, until they are submitted as one
//! GitHub review. Kept in the ledger (`<pr>/pending.json`) by `ledger::pending`; posted by
//! `publish::review`.
//!
//! Every comment has a place GitHub accepts: a path, a side and a line, and for a range a start
//! line before it on the same side (GitHub's rule for multi-line comments). A finding's draft
//! carries the finding's id, which goes with the posted comment as hidden metadata
//! ([`finding_marker`]) so a re-review knows it is already on its line.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::patch::{LineAddr, LineKind, LineSelection, ParsedPatch, Side};

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
    /// The head and the lines it sits on (absent in files written before this was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Anchor>,
    /// What became of its lines since it was written, when the head moved and they did not stay
    /// where they were: moved, outdated or gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub followed: Option<Followed>,
}

impl PendingComment {
    /// `path:12` or `path:10-12`, with `(old)` for the left side.
    pub fn place(&self) -> String {
        format!("{}:{}", self.path, self.lines_label())
    }

    /// `12` or `10-12`, with `(old)` for the left side: the place without its path.
    pub fn lines_label(&self) -> String {
        let lines = match self.start_line {
            Some(s) => format!("{s}-{}", self.line),
            None => self.line.to_string(),
        };
        let side = if self.side == Side::Left {
            " (old)"
        } else {
            ""
        };
        format!("{lines}{side}")
    }

    /// What became of its lines since it was written, in words (`None` when they stayed):
    /// `moved src/x.rs:10 → :14`, `outdated: …`, `gone: …`.
    pub fn follow_said(&self) -> Option<String> {
        let f = self.followed.as_ref()?;
        Some(match f.state {
            FollowState::Moved => format!("moved {} → :{}", f.from, self.lines_label()),
            FollowState::Outdated if f.kept => format!(
                "outdated (its lines changed since {}), kept at :{}",
                f.from,
                self.lines_label()
            ),
            FollowState::Outdated => format!(
                "outdated: its lines changed since {}{}; now at :{}",
                f.from,
                short_head(&f.from_head),
                self.lines_label()
            ),
            FollowState::Gone => format!(
                "gone: its lines ({}{}) are no longer in the diff",
                f.from,
                short_head(&f.from_head)
            ),
        })
    }

    /// Whether it waits on the maintainer before it can be posted on a line: outdated and not
    /// kept, or gone.
    pub fn needs_decision(&self) -> bool {
        self.followed.as_ref().is_some_and(|f| match f.state {
            FollowState::Outdated => !f.kept,
            FollowState::Gone => true,
            FollowState::Moved => false,
        })
    }

    /// One line to list it by: a suggestion by its first changed line (`suggest: let x = 2;`,
    /// the fence never), else the first line of its text that is not a fence.
    pub fn preview(&self) -> String {
        if let Some(block) = suggestion_lines(&self.body) {
            // Its lines as they were written on: the first one the suggestion changes.
            let was: Vec<&str> = self
                .written
                .as_ref()
                .map(|a| a.text.iter().map(|l| l.get(1..).unwrap_or("")).collect())
                .unwrap_or_default();
            let changed = block
                .iter()
                .enumerate()
                .find(|(i, l)| was.get(*i) != Some(l))
                .map(|(_, l)| *l);
            return match changed.or(block.first().copied()) {
                Some(l) if !l.trim().is_empty() => format!("suggest: {}", l.trim()),
                Some(_) => "suggest: (a blank line)".to_owned(),
                None => "suggest: delete the lines".to_owned(),
            };
        }
        self.body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("```"))
            .unwrap_or("")
            .to_owned()
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

/// Why a comment of `kind` cannot be on `side`, the one rule of the console and `pending add`:
/// a suggestion replaces lines of the new file, so it is on the new side only.
pub fn kind_refusal(side: Side, kind: CommentKind) -> Option<PendingError> {
    (kind == CommentKind::Suggestion && side == Side::Left)
        .then_some(PendingError::SuggestionOnOldSide)
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
    #[error(
        "a suggestion replaces lines of the new file: put it on the new side (RIGHT), or make it a comment on the old side"
    )]
    SuggestionOnOldSide,
    #[error(
        "{place}: the start line ({start}) and the line ({line}) are in different hunks, and GitHub refuses that (\"start line must be part of the same hunk as the line\"); comment on each hunk separately"
    )]
    DifferentHunks {
        place: String,
        start: u32,
        line: u32,
    },
    #[error(
        "{id}'s lines are no longer in the diff: it cannot be kept on a line; fold it into the review's body or drop it"
    )]
    Gone { id: String },
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

/// The lines of the first ```` ```suggestion ```` block in `body` (fenced by three or more
/// backticks), if it has one; an unclosed block runs to the end.
fn suggestion_lines(body: &str) -> Option<Vec<&str>> {
    let mut lines = body.lines();
    let fence = lines.by_ref().find_map(|l| {
        let t = l.trim_start();
        let ticks = t.bytes().take_while(|b| *b == b'`').count();
        (ticks >= 3 && t[ticks..].trim() == "suggestion").then(|| &t[..ticks])
    })?;
    Some(
        lines
            .take_while(|l| {
                let t = l.trim();
                !(t.starts_with(fence) && t.bytes().all(|b| b == b'`'))
            })
            .collect(),
    )
}

/// `lines` in a fenced code block (a fence longer than any backtick run at their start).
pub fn code_block(lines: &[String]) -> String {
    // Lines as a patch shows them start with `+`, `-` or ` `: their text counts too.
    let probe: Vec<String> = lines
        .iter()
        .flat_map(|l| [l.clone(), l.chars().skip(1).collect()])
        .collect();
    let fence = fence_for(&probe);
    format!("{fence}\n{}\n{fence}", lines.join("\n"))
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

/// Whether `addr` (and `start`, on its side and in the same hunk: GitHub's rule) are lines of
/// `patch`.
pub fn in_diff(patch: &ParsedPatch, start: Option<u32>, addr: LineAddr) -> bool {
    place_error(patch, start, addr).is_none()
}

/// Why GitHub would refuse a comment at `addr` (from `start`) of `patch`: the line, or the start
/// line, not in the diff on that side, or the two in different hunks.
fn place_error(patch: &ParsedPatch, start: Option<u32>, addr: LineAddr) -> Option<PlaceError> {
    let Some(end) = patch.find(addr) else {
        return Some(PlaceError::NotInDiff);
    };
    let s = start?;
    let Some(first) = patch.find(LineAddr {
        side: addr.side,
        line: s,
    }) else {
        return Some(PlaceError::NotInDiff);
    };
    (patch.hunk_of(first) != patch.hunk_of(end)).then_some(PlaceError::DifferentHunks)
}

/// Why a place is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlaceError {
    NotInDiff,
    DifferentHunks,
}

/// Why GitHub would refuse a comment at its place in `patch`, in words (`None`: accepted).
pub fn refusal(patch: &ParsedPatch, c: &PendingComment) -> Option<String> {
    let addr = LineAddr {
        side: c.side,
        line: c.line,
    };
    place_error(patch, c.start_line, addr).map(|e| match e {
        PlaceError::NotInDiff => "not a line of the diff".to_owned(),
        PlaceError::DifferentHunks => "its start line is in another hunk".to_owned(),
    })
}

impl PendingReview {
    fn next_id(&mut self) -> String {
        self.last_id += 1;
        format!("c{}", self.last_id)
    }

    /// Gives the next id to nothing: a finding decided before its draft was ever saved keeps
    /// its number, so the drafts after it keep theirs (`c4` stays the same draft whatever was
    /// dismissed since).
    pub fn reserve_id(&mut self) {
        self.last_id += 1;
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
        if let Some(e) = kind_refusal(side, kind) {
            return Err(e);
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
            written: None,
            followed: None,
        };
        if let Some(p) = patch
            && let Some(e) = place_error(p, start_line, LineAddr { side, line })
        {
            self.last_id -= 1;
            return Err(match e {
                PlaceError::NotInDiff => PendingError::NotInDiff { place: c.place() },
                PlaceError::DifferentHunks => PendingError::DifferentHunks {
                    place: c.place(),
                    start: start_line.unwrap_or_default(),
                    line,
                },
            });
        }
        self.comments.push(c);
        Ok(id)
    }

    /// Remembers the head and the lines comment `id` sits on in `patch` (what it follows when
    /// the head moves). Nothing when its place is not in the patch.
    pub fn anchor(&mut self, id: &str, patch: &ParsedPatch, head: &str) {
        if let Ok(c) = self.get_mut(id) {
            c.written = anchor_at(patch, head, c.side, c.start_line, c.line);
        }
    }

    /// Follows every comment to `head`, whose patches are `patches`: a comment written at
    /// another head whose lines are still in the diff with the same text moves to them (the
    /// nearest such place when the text repeats); one whose lines changed is outdated and sits
    /// where they are now (posted there only once kept); one whose lines are gone says so.
    /// Comments written before their lines were kept have their lines read now when the head
    /// is the review's own, and are outdated (text unknown) when it moved. Dropped drafts stay.
    pub fn follow(&mut self, head: &str, patches: &HashMap<String, ParsedPatch>) {
        if head.is_empty() {
            return;
        }
        let review_head = self.head_sha.clone();
        for c in &mut self.comments {
            if c.state == DraftState::Dropped {
                continue;
            }
            let patch = patches.get(&c.path);
            let anchor = match &c.written {
                Some(a) => a.clone(),
                None if review_head.is_empty() || review_head == head => {
                    c.written =
                        patch.and_then(|p| anchor_at(p, head, c.side, c.start_line, c.line));
                    continue;
                }
                None => Anchor {
                    head_sha: review_head.clone(),
                    side: c.side,
                    start_line: c.start_line,
                    line: c.line,
                    text: Vec::new(),
                    before: Vec::new(),
                    after: Vec::new(),
                },
            };
            if anchor.head_sha == head {
                continue;
            }
            follow_one(c, &anchor, head, patch);
        }
        self.head_sha = head.to_owned();
    }

    /// Gives every comment that has neither its lines nor a verdict on them the lines it sits on
    /// at `head` (comments just added or proposed there).
    pub fn anchor_new(&mut self, head: &str, patches: &HashMap<String, ParsedPatch>) {
        for c in &mut self.comments {
            if c.written.is_none() && c.followed.is_none() {
                c.written = patches
                    .get(&c.path)
                    .and_then(|p| anchor_at(p, head, c.side, c.start_line, c.line));
            }
        }
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
            written: None,
            followed: None,
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

    /// Keeps a finding's draft as it is; keeps an outdated comment as it is at its new place. A
    /// comment whose lines are gone cannot be kept on a line.
    pub fn keep(&mut self, id: &str) -> Result<(), PendingError> {
        let c = self.get_mut(id)?;
        if c.state == DraftState::Posted {
            return Err(PendingError::AlreadyPosted { id: id.to_owned() });
        }
        if let Some(f) = c.followed.as_mut() {
            match f.state {
                FollowState::Gone => return Err(PendingError::Gone { id: id.to_owned() }),
                FollowState::Outdated => f.kept = true,
                FollowState::Moved => {}
            }
        }
        if c.state != DraftState::Edited {
            c.state = DraftState::Kept;
        }
        Ok(())
    }

    /// Removes the comments `posted` (they went with a submitted review), the drafts the
    /// maintainer dropped, and the body (it went too); everything else stays: drafts still to
    /// decide, comments held back.
    pub fn remove_posted(&mut self, posted: &[String]) {
        self.comments
            .retain(|c| !posted.contains(&c.id) && c.state != DraftState::Dropped);
        self.body.clear();
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

/// Lines of the hunk remembered before and after a comment's lines, to find changed lines again.
const CONTEXT_LINES: usize = 3;

/// The most lines between remembered context that still count as a comment's changed lines.
const MAX_CHANGED_SPAN: usize = 50;

/// Where a comment was written and on what: the head, its place, and the text of its lines, so
/// that it can follow them when the head moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Anchor {
    /// The head the lines were read at.
    pub head_sha: String,
    pub side: Side,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u32>,
    pub line: u32,
    /// Its lines as the patch shows them (`+x`, `-x`, ` x`), first to last; empty: not known.
    #[serde(default)]
    pub text: Vec<String>,
    /// Up to three lines of the same hunk, on the same side, before its lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<String>,
    /// Up to three lines of the same hunk, on the same side, after its lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// What became of a comment's lines at a later head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowState {
    /// The same text at another place: the comment moved there.
    Moved,
    /// The text changed: the comment sits where its lines are now, posted only once kept.
    Outdated,
    /// The lines are no longer in the diff.
    Gone,
}

impl FollowState {
    pub fn as_str(self) -> &'static str {
        match self {
            FollowState::Moved => "moved",
            FollowState::Outdated => "outdated",
            FollowState::Gone => "gone",
        }
    }
}

/// A comment's lines since it was written, when they did not stay where they were.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Followed {
    pub state: FollowState,
    /// Where it was written (`path:10`, `path:8-10 (old)`).
    pub from: String,
    /// The head it was written at.
    pub from_head: String,
    /// Its lines as written (empty: not recorded, a pending review from before they were).
    #[serde(default)]
    pub was: Vec<String>,
    /// The lines at its place now (outdated); empty when gone.
    #[serde(default)]
    pub now: Vec<String>,
    /// The maintainer kept the outdated comment as it is at its new place.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kept: bool,
}

/// ` (at abc1234)` for a head, nothing for none.
fn short_head(head: &str) -> String {
    if head.is_empty() {
        String::new()
    } else {
        format!(" at {}", head.chars().take(7).collect::<String>())
    }
}

/// One line of a patch on one side: its hunk, its number on that side and its text as the patch
/// shows it.
struct SideLine {
    hunk: usize,
    line: u32,
    text: String,
}

/// The lines of `patch` on `side` (context and added lines on the right, context and removed
/// lines on the left), hunk by hunk.
fn side_lines(patch: &ParsedPatch, side: Side) -> Vec<SideLine> {
    let mut out = Vec::new();
    for (h, hunk) in patch.hunks.iter().enumerate() {
        for l in patch.lines.get(hunk.lines.clone()).unwrap_or_default() {
            let (number, prefix) = match (l.kind, side) {
                (LineKind::Context, Side::Left) => (l.old, ' '),
                (LineKind::Context, Side::Right) => (l.new, ' '),
                (LineKind::Removed, Side::Left) => (l.old, '-'),
                (LineKind::Added, Side::Right) => (l.new, '+'),
                _ => (None, ' '),
            };
            if let Some(line) = number {
                out.push(SideLine {
                    hunk: h,
                    line,
                    text: format!("{prefix}{}", l.text),
                });
            }
        }
    }
    out
}

/// The anchor of a comment at `start..=line` on `side` of `patch` at `head`, when its lines are in
/// one hunk of it.
pub fn anchor_at(
    patch: &ParsedPatch,
    head: &str,
    side: Side,
    start: Option<u32>,
    line: u32,
) -> Option<Anchor> {
    let seq = side_lines(patch, side);
    let j = seq.iter().position(|s| s.line == line)?;
    let i = match start {
        Some(st) => seq.iter().position(|s| s.line == st)?,
        None => j,
    };
    if i > j || seq[i].hunk != seq[j].hunk {
        return None;
    }
    let hunk = seq[j].hunk;
    let texts = |r: std::ops::Range<usize>| -> Vec<String> {
        seq.get(r)
            .unwrap_or_default()
            .iter()
            .filter(|s| s.hunk == hunk)
            .map(|s| s.text.clone())
            .collect()
    };
    Some(Anchor {
        head_sha: head.to_owned(),
        side,
        start_line: start,
        line,
        text: texts(i..j + 1),
        before: texts(i.saturating_sub(CONTEXT_LINES)..i),
        after: texts(j + 1..(j + 1 + CONTEXT_LINES).min(seq.len())),
    })
}

/// Whether some line says something (a letter or digit), so that finding its text elsewhere
/// means something; a blank line or a lone `}` does not.
fn distinctive(lines: &[String]) -> bool {
    lines
        .iter()
        .any(|l| l.chars().skip(1).any(char::is_alphanumeric))
}

/// Where an anchor's lines are in a later patch's lines on its side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// The same text from this index, this many lines.
    Same(usize, usize),
    /// Changed text between the remembered context: from this index, this many lines.
    Changed(usize, usize),
    Gone,
}

/// Whether `want` are the lines of `seq` from `at` (all in hunk `hunk`).
fn matches_at(seq: &[SideLine], at: usize, want: &[String], hunk: usize) -> bool {
    want.iter().enumerate().all(|(k, w)| {
        seq.get(at + k)
            .is_some_and(|s| s.hunk == hunk && &s.text == w)
    })
}

/// How many of the remembered context lines are around the lines `at..at + n` of `seq`.
fn context_score(seq: &[SideLine], at: usize, n: usize, a: &Anchor) -> usize {
    let hunk = seq.get(at).map_or(usize::MAX, |s| s.hunk);
    let before = a.before.iter().rev().enumerate().filter(|(k, b)| {
        at.checked_sub(k + 1)
            .and_then(|i| seq.get(i))
            .is_some_and(|s| s.hunk == hunk && &&s.text == b)
    });
    let after = a.after.iter().enumerate().filter(|(k, b)| {
        seq.get(at + n + k)
            .is_some_and(|s| s.hunk == hunk && &&s.text == b)
    });
    before.count() + after.count()
}

/// Where the anchor's lines are in `seq` (a later patch's lines on the anchor's side): the same
/// text (the place with the most remembered context around it, then the nearest to where it
/// was), else the changed lines between its remembered context, else gone.
fn locate(a: &Anchor, seq: &[SideLine]) -> Found {
    let n = a.text.len();
    let distance = |i: usize| seq.get(i).map_or(u32::MAX, |s| s.line.abs_diff(a.line));
    let has_context = !a.before.is_empty() || !a.after.is_empty();
    let same = (0..seq.len().saturating_sub(n.saturating_sub(1)))
        .filter(|&i| n > 0 && matches_at(seq, i, &a.text, seq[i].hunk))
        .map(|i| (i, context_score(seq, i, n, a)))
        .filter(|&(_, score)| score > 0 || !has_context || distinctive(&a.text))
        .max_by(|x, y| {
            x.1.cmp(&y.1)
                .then(distance(x.0 + n - 1).cmp(&distance(y.0 + n - 1)).reverse())
        });
    if let Some((i, _)) = same {
        return Found::Same(i, n);
    }
    // The lines changed: find them between the remembered lines before and after them.
    let ends_before = |p: usize| -> Option<usize> {
        let first = p.checked_sub(a.before.len())?;
        let hunk = seq.get(p.checked_sub(1)?)?.hunk;
        matches_at(seq, first, &a.before, hunk).then_some(hunk)
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    if !a.before.is_empty() && !a.after.is_empty() {
        for p in a.before.len()..=seq.len() {
            let Some(hunk) = ends_before(p) else { continue };
            let q = (p..=seq.len().min(p + MAX_CHANGED_SPAN))
                .find(|&q| matches_at(seq, q, &a.after, hunk));
            if let Some(q) = q {
                spans.push((p, q));
            }
        }
    }
    if spans.is_empty() && distinctive(&a.before) {
        for p in a.before.len()..=seq.len() {
            let Some(hunk) = ends_before(p) else { continue };
            let q = (p..(p + n.max(1)).min(seq.len()))
                .take_while(|&q| seq[q].hunk == hunk)
                .last()
                .map_or(p, |q| q + 1);
            spans.push((p, q));
        }
    }
    if spans.is_empty() && distinctive(&a.after) {
        for q in 0..seq.len() {
            if !matches_at(seq, q, &a.after, seq[q].hunk) {
                continue;
            }
            let hunk = seq[q].hunk;
            let p = (q.saturating_sub(n.max(1))..q)
                .find(|&p| seq[p..q].iter().all(|s| s.hunk == hunk))
                .unwrap_or(q);
            spans.push((p, q));
        }
    }
    // The nearest to where the lines were.
    let was_at = a.start_line.unwrap_or(a.line);
    let best = spans.into_iter().min_by_key(|&(p, _)| {
        seq.get(p)
            .or_else(|| p.checked_sub(1).and_then(|i| seq.get(i)))
            .map_or(u32::MAX, |s| s.line.abs_diff(was_at))
    });
    match best {
        Some((p, q)) if q > p => Found::Changed(p, q - p),
        _ => Found::Gone,
    }
}

/// Follows one comment from `anchor` to `head` (see [`PendingReview::follow`]).
fn follow_one(c: &mut PendingComment, anchor: &Anchor, head: &str, patch: Option<&ParsedPatch>) {
    let prev = c.followed.take();
    let (from, from_head, was) = match &prev {
        Some(f) => (f.from.clone(), f.from_head.clone(), f.was.clone()),
        None => (c.place(), anchor.head_sha.clone(), anchor.text.clone()),
    };
    let seq = patch
        .map(|p| side_lines(p, anchor.side))
        .unwrap_or_default();
    let found = if anchor.text.is_empty() {
        // Its text was not recorded: where it was, if that is still a place in the diff.
        let j = seq.iter().position(|s| s.line == anchor.line);
        let i = match anchor.start_line {
            Some(st) => seq.iter().position(|s| s.line == st),
            None => j,
        };
        match (i, j) {
            (Some(i), Some(j)) if i <= j && seq[i].hunk == seq[j].hunk => {
                Found::Changed(i, j - i + 1)
            }
            _ => Found::Gone,
        }
    } else {
        locate(anchor, &seq)
    };
    let followed = |state, now: Vec<String>, kept| Followed {
        state,
        from: from.clone(),
        from_head: from_head.clone(),
        was: was.clone(),
        now,
        kept,
    };
    let (i, n) = match found {
        Found::Same(i, n) | Found::Changed(i, n) => (i, n),
        Found::Gone => {
            // Its lines are not in the diff: it keeps what it was written on, to be found again.
            c.followed = Some(followed(FollowState::Gone, Vec::new(), false));
            return;
        }
    };
    let (Some(first), Some(last)) = (seq.get(i), seq.get(i + n - 1)) else {
        c.followed = Some(followed(FollowState::Gone, Vec::new(), false));
        return;
    };
    c.side = anchor.side;
    c.start_line = (n > 1).then_some(first.line);
    c.line = last.line;
    let now: Vec<String> = seq[i..i + n].iter().map(|s| s.text.clone()).collect();
    c.written = patch.and_then(|p| anchor_at(p, head, c.side, c.start_line, c.line));
    c.followed = match (found, prev) {
        (Found::Changed(..), _) => Some(followed(FollowState::Outdated, now, false)),
        // Outdated earlier: still, with the maintainer's decision as it was.
        (_, Some(p)) if p.state == FollowState::Outdated => {
            Some(followed(FollowState::Outdated, now, p.kept))
        }
        _ if c.place() == from => None,
        _ => Some(followed(FollowState::Moved, now, false)),
    };
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
    fn a_suggestion_is_listed_by_its_first_changed_line_never_its_fence() {
        let mut c = PendingComment {
            id: "c2".to_owned(),
            path: "src/a.rs".to_owned(),
            side: Side::Right,
            line: 11,
            start_line: Some(10),
            body: suggestion_body(&["let a = 1;".to_owned(), "let x = 2;".to_owned()]),
            kind: CommentKind::Suggestion,
            state: DraftState::Kept,
            finding_id: None,
            written: None,
            followed: None,
        };
        // Not knowing the lines it was written on: its first line.
        assert_eq!(c.preview(), "suggest: let a = 1;");
        c.written = Some(Anchor {
            head_sha: "h".to_owned(),
            side: Side::Right,
            start_line: Some(10),
            line: 11,
            text: vec!["+let a = 1;".to_owned(), "+let x = 1;".to_owned()],
            before: Vec::new(),
            after: Vec::new(),
        });
        assert_eq!(c.preview(), "suggest: let x = 2;");
        c.body = "Better:\n````suggestion\n````".to_owned();
        assert_eq!(c.preview(), "suggest: delete the lines");
        c.body = "```rust\nlet y = 3;\n```".to_owned();
        c.kind = CommentKind::Comment;
        assert_eq!(c.preview(), "let y = 3;");
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

    fn patches(p: &str) -> HashMap<String, ParsedPatch> {
        [("f.rs".to_owned(), parse(p))].into()
    }

    /// A review with one comment on `line` (RIGHT) of `before`, written at head `h1`.
    fn written_on(before: &str, start: Option<u32>, line: u32) -> PendingReview {
        let mut r = PendingReview::default();
        let patch = parse(before);
        let id = r
            .add(
                "f.rs",
                Side::Right,
                start,
                line,
                "why?",
                CommentKind::Comment,
                Some(&patch),
            )
            .unwrap();
        r.anchor(&id, &patch, "h1");
        r.head_sha = "h1".to_owned();
        r
    }

    const H1: &str = "@@ -10,6 +10,7 @@ fn f() {\n a\n b\n-c\n+C\n+D\n e\n f\n g";

    #[test]
    fn a_comment_moves_with_its_lines_when_a_rebase_shifts_them() {
        let mut r = written_on(H1, Some(12), 13);
        let shifted = H1.replace("@@ -10,6 +10,7 @@", "@@ -40,6 +52,7 @@");
        r.follow("h2", &patches(&shifted));
        let c = r.get("c1").unwrap();
        assert_eq!((c.start_line, c.line), (Some(54), 55));
        let f = c.followed.as_ref().unwrap();
        assert_eq!(f.state, FollowState::Moved);
        assert_eq!(f.from, "f.rs:12-13");
        assert_eq!(c.follow_said().unwrap(), "moved f.rs:12-13 → :54-55");
        assert!(!c.needs_decision());
        // Followed again at the same head: nothing changes.
        let again = r.clone();
        r.follow("h2", &patches(&shifted));
        assert_eq!(r, again);
        // The same patch at a new head where it was: no longer moved.
        r.follow("h3", &patches(H1));
        assert_eq!(r.get("c1").unwrap().followed, None);
        assert_eq!(r.get("c1").unwrap().line, 13);
    }

    #[test]
    fn a_comment_whose_lines_changed_is_outdated_where_they_are_now_until_kept() {
        let mut r = written_on(H1, None, 12);
        let changed = "@@ -20,6 +30,7 @@ fn f() {\n a\n b\n-c\n+K\n+D\n e\n f\n g";
        r.follow("h2", &patches(changed));
        let c = r.get("c1").unwrap();
        assert_eq!(c.line, 32);
        let f = c.followed.as_ref().unwrap();
        assert_eq!(f.state, FollowState::Outdated);
        assert_eq!(
            (f.was.clone(), f.now.clone()),
            (vec!["+C".to_owned()], vec!["+K".to_owned()])
        );
        assert!(c.needs_decision());
        r.keep("c1").unwrap();
        let c = r.get("c1").unwrap();
        assert!(!c.needs_decision());
        assert!(
            c.follow_said().unwrap().contains("kept at :32"),
            "{:?}",
            c.follow_said()
        );
    }

    #[test]
    fn a_comment_whose_lines_left_the_diff_is_gone_and_found_again_if_they_come_back() {
        let mut r = written_on(H1, None, 13);
        let without = "@@ -10,3 +10,3 @@ fn x() {\n x\n-y\n+Y";
        r.follow("h2", &patches(without));
        let c = r.get("c1").unwrap();
        assert_eq!(c.followed.as_ref().unwrap().state, FollowState::Gone);
        assert!(
            c.follow_said()
                .unwrap()
                .starts_with("gone: its lines (f.rs:13 at h1)")
        );
        assert!(matches!(r.keep("c1"), Err(PendingError::Gone { .. })));
        r.follow("h3", &patches(&H1.replace("+10,7", "+11,7")));
        let c = r.get("c1").unwrap();
        assert_eq!(c.line, 14);
        assert_eq!(c.followed.as_ref().unwrap().state, FollowState::Moved);
    }

    #[test]
    fn repeated_text_goes_to_the_place_with_its_context_then_the_nearest() {
        let p = "@@ -1,3 +1,9 @@\n a\n+x = 1\n b\n+y\n+x = 1\n+z\n+w\n+x = 1\n c";
        let mut r = written_on(p, None, 5);
        r.follow("h2", &patches(&p.replace("+1,9", "+3,9")));
        assert_eq!(r.get("c1").unwrap().line, 7, "the one between y and z");
        // A blank line found elsewhere without its context is no place for it.
        let blank = "@@ -1,3 +1,4 @@\n a\n+\n b\n c";
        let mut r = written_on(blank, None, 2);
        r.follow("h2", &patches("@@ -1,2 +1,3 @@\n q\n+\n r"));
        assert_eq!(
            r.get("c1").unwrap().followed.as_ref().unwrap().state,
            FollowState::Gone
        );
    }

    #[test]
    fn a_comment_from_before_lines_were_kept_is_outdated_when_the_head_moved() {
        let mut r = PendingReview::default();
        r.add(
            "f.rs",
            Side::Right,
            None,
            12,
            "old",
            CommentKind::Comment,
            None,
        )
        .unwrap();
        r.head_sha = "h1".to_owned();
        // The same head: its lines are read now.
        r.follow("h1", &patches(H1));
        assert_eq!(
            r.get("c1").unwrap().written.as_ref().unwrap().text,
            vec!["+C"]
        );
        let mut old = r.clone();
        old.comments[0].written = None;
        old.follow("h2", &patches(H1));
        let f = old.get("c1").unwrap().followed.clone().unwrap();
        assert_eq!(f.state, FollowState::Outdated);
        assert!(f.was.is_empty());
        // An old pending.json (no `written`, no `followed`) still loads.
        let json = r#"{"headSha":"h1","comments":[{"id":"c1","path":"f.rs","side":"RIGHT","line":3,"body":"x","kind":"comment","state":"kept"}],"lastId":1}"#;
        let loaded: PendingReview = serde_json::from_str(json).unwrap();
        assert_eq!(loaded.comments[0].written, None);
    }

    #[test]
    fn a_range_across_two_hunks_is_refused_with_githubs_reason() {
        let two = "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -10,2 +10,2 @@\n x\n-y\n+Y";
        let e = PendingReview::default()
            .add(
                "f.rs",
                Side::Right,
                Some(2),
                11,
                "x",
                CommentKind::Comment,
                Some(&parse(two)),
            )
            .unwrap_err();
        assert!(matches!(
            e,
            PendingError::DifferentHunks {
                start: 2,
                line: 11,
                ..
            }
        ));
        assert!(e.to_string().contains("same hunk as the line"), "{e}");
    }
}
