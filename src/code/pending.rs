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
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::linemap::{Carried, LineMap, Version, agree_on_base, on_one_base};
use super::patch::{LineAddr, LineKind, LineSelection, ParsedPatch, Side, parse};

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
        // `:12`, or the whole place when its file was renamed since.
        let now = if f.from.starts_with(&format!("{}:", self.path)) {
            format!(":{}", self.lines_label())
        } else {
            self.place()
        };
        let head = short_head(&f.from_head);
        Some(match (f.state, f.reason) {
            (FollowState::Moved, _) => format!("moved {} → {now}", f.from),
            (FollowState::Outdated, Reason::Changed) if f.kept => {
                format!(
                    "outdated (its lines changed since {}), kept at {now}",
                    f.from
                )
            }
            (FollowState::Outdated, Reason::Repeated) if f.kept => format!(
                "outdated (its lines repeat: which copy they are since {} is not certain), kept at {now}",
                f.from
            ),
            (FollowState::Outdated, Reason::Changed) => format!(
                "outdated: its lines changed since {}{head}; now at {now}",
                f.from
            ),
            (FollowState::Outdated, Reason::Repeated) => format!(
                "outdated: its lines repeat, and the diff since {}{head} does not tell which copy they are; now at {now}",
                f.from
            ),
            (FollowState::Gone, _) => format!(
                "gone: its lines ({}{head}) are no longer in the diff",
                f.from
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
    /// The patch of each file at each head a comment's lines were read at: what the comment
    /// follows the diff through when the file's texts cannot be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches: Vec<KeptPatch>,
}

/// A file's patch at a head, as the comments read at that head saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptPatch {
    pub head_sha: String,
    pub path: String,
    /// Its hunks as GitHub's `patch` has them.
    pub patch: String,
}

/// The largest patch kept for following (bytes); a larger one is not kept, and its comments
/// follow through their own remembered lines only.
pub const MAX_KEPT_PATCH_BYTES: usize = 1 << 20;

/// The PR's diff at one head, as the pending review follows it there.
#[derive(Debug, Clone)]
pub struct DiffAt<'a> {
    pub head: &'a str,
    /// The base the head's patches are against (its merge base with the base branch).
    pub base: &'a str,
    /// Each file's parsed patch, by its path at the head.
    pub patches: &'a HashMap<String, ParsedPatch>,
    /// The path at the base of each file the PR renames, by its path at the head.
    pub renamed: HashMap<String, String>,
}

impl<'a> DiffAt<'a> {
    /// The diff at `head` on `base` made of `patches`, no file renamed.
    pub fn new(head: &'a str, base: &'a str, patches: &'a HashMap<String, ParsedPatch>) -> Self {
        DiffAt {
            head,
            base,
            patches,
            renamed: HashMap::new(),
        }
    }

    /// Where file `path` (at the head) is at the base.
    pub fn base_path<'p>(&'p self, path: &'p str) -> &'p str {
        self.renamed.get(path).map_or(path, String::as_str)
    }

    /// The path now of the file a comment was on at `path` (`base_path` at its base): the same
    /// path, else the file the PR now renames from it.
    fn file_now(&self, path: &str, base_path: &str) -> Option<&'a str> {
        if let Some((p, _)) = self.patches.get_key_value(path) {
            return Some(p.as_str());
        }
        let renamed_from = |from: &str| {
            self.renamed
                .iter()
                .find(|(_, b)| b.as_str() == from)
                .and_then(|(now, _)| self.patches.get_key_value(now))
                .map(|(p, _)| p.as_str())
        };
        renamed_from(base_path).or_else(|| renamed_from(path))
    }
}

/// Files' texts at commits (the head's, the base's), as far as they could be read: what the
/// comments follow the diff between when a head moves.
#[derive(Debug, Clone, Default)]
pub struct FileTexts(HashMap<(String, String), Arc<str>>);

impl FileTexts {
    pub fn insert(&mut self, commit: &str, path: &str, text: Arc<str>) {
        self.0.insert((commit.to_owned(), path.to_owned()), text);
    }

    pub fn get(&self, commit: &str, path: &str) -> Option<&str> {
        self.0
            .get(&(commit.to_owned(), path.to_owned()))
            .map(|t| &**t)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
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

    /// Remembers the head and the lines comment `id` sits on in the diff `at` (what it follows
    /// when the head moves). Nothing when its place is not in the diff.
    pub fn anchor(&mut self, id: &str, at: &DiffAt<'_>) {
        if let Ok(c) = self.get_mut(id) {
            c.written = at
                .patches
                .get(&c.path)
                .and_then(|p| anchor_at(p, at, &c.path, c.side, c.start_line, c.line));
        }
        self.keep_patches(at);
    }

    /// The files' texts that following the comments to the diff `to` reads, as (commit, path):
    /// for each comment written at another head, its file where it was written and where it is
    /// now (the heads for the new side, the bases for the old).
    pub fn texts_wanted(&self, to: &DiffAt<'_>) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut want = |commit: &str, path: &str| {
            let w = (commit.to_owned(), path.to_owned());
            if !commit.is_empty() && !out.contains(&w) {
                out.push(w);
            }
        };
        for c in &self.comments {
            let Some(a) = &c.written else { continue };
            if c.state == DraftState::Dropped || a.head_sha == to.head || a.text.is_empty() {
                continue;
            }
            let was_base = a.base_path.as_deref().unwrap_or(&c.path);
            let Some(now) = to.file_now(&c.path, was_base) else {
                continue;
            };
            match a.side {
                Side::Right => {
                    want(&a.head_sha, &c.path);
                    want(to.head, now);
                }
                Side::Left if !a.base_sha.is_empty() => {
                    want(&a.base_sha, was_base);
                    want(to.base, to.base_path(now));
                }
                Side::Left => {}
            }
        }
        out
    }

    /// Follows every comment to the diff `to`: a comment written at another head goes where the
    /// diff between its file then and now (`texts`, else the patches kept, else the lines it
    /// remembers) puts its lines, and only there; one whose lines the diff changed is outdated
    /// and sits where they are now (posted there only once kept), as is one whose lines repeat
    /// so that the diff does not tell which copy they are; one whose lines went away, or are no
    /// longer in the diff, is gone. Comments written before their lines were kept have their
    /// lines read now when the head is the review's own, and are outdated (text unknown) when it
    /// moved. Dropped drafts stay.
    pub fn follow(&mut self, to: &DiffAt<'_>, texts: &FileTexts) {
        let head = to.head;
        if head.is_empty() {
            return;
        }
        let review_head = self.head_sha.clone();
        let kept: HashMap<(String, String), ParsedPatch> = self
            .patches
            .iter()
            .map(|k| ((k.head_sha.clone(), k.path.clone()), parse(&k.patch)))
            .collect();
        let mut maps = Maps::default();
        for c in &mut self.comments {
            if c.state == DraftState::Dropped {
                continue;
            }
            let anchor = match &c.written {
                Some(a) => a.clone(),
                None if review_head.is_empty() || review_head == head => {
                    c.written = to
                        .patches
                        .get(&c.path)
                        .and_then(|p| anchor_at(p, to, &c.path, c.side, c.start_line, c.line));
                    continue;
                }
                None => Anchor {
                    head_sha: review_head.clone(),
                    base_sha: String::new(),
                    base_path: None,
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
            let was = kept.get(&(anchor.head_sha.clone(), c.path.clone()));
            follow_one(c, &anchor, to, texts, was, &mut maps);
        }
        self.head_sha = head.to_owned();
        self.keep_patches(to);
    }

    /// Gives every comment that has neither its lines nor a verdict on them the lines it sits on
    /// in the diff `at` (comments just added or proposed there).
    pub fn anchor_new(&mut self, at: &DiffAt<'_>) {
        for c in &mut self.comments {
            if c.written.is_none() && c.followed.is_none() {
                c.written = at
                    .patches
                    .get(&c.path)
                    .and_then(|p| anchor_at(p, at, &c.path, c.side, c.start_line, c.line));
            }
        }
        self.keep_patches(at);
    }

    /// Keeps the patch of each file a comment's lines were read at at `at`'s head, and only the
    /// patches some comment's lines were read at.
    fn keep_patches(&mut self, at: &DiffAt<'_>) {
        for c in &self.comments {
            let Some(a) = &c.written else { continue };
            let known = |k: &KeptPatch| k.head_sha == a.head_sha && k.path == c.path;
            if a.head_sha != at.head || self.patches.iter().any(known) {
                continue;
            }
            let Some(p) = at.patches.get(&c.path) else {
                continue;
            };
            let patch = p.to_text();
            if patch.len() <= MAX_KEPT_PATCH_BYTES {
                self.patches.push(KeptPatch {
                    head_sha: a.head_sha.clone(),
                    path: c.path.clone(),
                    patch,
                });
            }
        }
        let comments = &self.comments;
        self.patches.retain(|k| {
            comments.iter().any(|c| {
                c.state != DraftState::Dropped
                    && c.path == k.path
                    && c.written.as_ref().is_some_and(|a| a.head_sha == k.head_sha)
            })
        });
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

/// Lines of the hunk remembered before and after a comment's lines: the least of its file it
/// can follow the diff through when nothing else of the file is at hand.
const CONTEXT_LINES: usize = 3;

/// Where a comment was written and on what: the head, its place, and the text of its lines, so
/// that it can follow them when the head moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Anchor {
    /// The head the lines were read at.
    pub head_sha: String,
    /// The base of the diff they were read in (empty in files written before it was kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub base_sha: String,
    /// The file's path at that base, when the PR renames it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_path: Option<String>,
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
    /// Why it is outdated.
    #[serde(default, skip_serializing_if = "Reason::is_changed")]
    pub reason: Reason,
}

/// Why a comment is outdated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The diff changed its lines (or their text was not recorded).
    #[default]
    Changed,
    /// Its lines repeat (the same text around them), and minimal diffs disagree about which
    /// copy they are now: it is not moved to one by a guess.
    Repeated,
}

impl Reason {
    fn is_changed(&self) -> bool {
        *self == Reason::Changed
    }
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

/// The anchor of a comment at `start..=line` on `side` of `patch`, the patch of `path` in the
/// diff `at`, when its lines are in one hunk of it.
pub fn anchor_at(
    patch: &ParsedPatch,
    at: &DiffAt<'_>,
    path: &str,
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
        head_sha: at.head.to_owned(),
        base_sha: at.base.to_owned(),
        base_path: at.renamed.get(path).cloned(),
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

/// A line as a patch shows it (`+x`, `-x`, ` x`) without its prefix, and without a `\r` at its
/// end (a patch keeps none).
fn bare(line: &str) -> &str {
    let l = line.get(1..).unwrap_or("");
    l.strip_suffix('\r').unwrap_or(l)
}

/// Whether lines `first..` of `v` are `want` (as a patch shows them).
fn reads(v: &Version, first: u32, want: &[String]) -> bool {
    want.iter().zip(first..).all(|(w, n)| {
        v.text(n)
            .is_some_and(|t| t.strip_suffix('\r').unwrap_or(t) == bare(w))
    })
}

/// What a file's diff was made from: the old version's commit and path, the new one's, and the
/// side.
type MapKey = (String, String, String, String, Side);

/// The diffs of files already made while following, by what they were made from.
#[derive(Default)]
struct Maps(HashMap<MapKey, Option<(Version, LineMap)>>);

impl Maps {
    /// The diff of two versions named by `key`, made by `make` the first time (`None`: they
    /// cannot be made).
    fn get(
        &mut self,
        key: MapKey,
        make: impl FnOnce() -> Option<(Version, Version)>,
    ) -> Option<&(Version, LineMap)> {
        self.0
            .entry(key)
            .or_insert_with(|| {
                make().map(|(old, new)| {
                    let map = LineMap::new(&old, &new);
                    (old, map)
                })
            })
            .as_ref()
    }
}

/// Where the diff `to` and what is known of the file put an anchor's lines: from its file's
/// texts at both ends when they are there and agree with its lines and with the new patch,
/// else from the patch kept for its head (`was`), else from the lines it remembers.
#[allow(clippy::too_many_arguments)]
fn carry(
    anchor: &Anchor,
    was_path: &str,
    now_path: &str,
    patch: &ParsedPatch,
    to: &DiffAt<'_>,
    texts: &FileTexts,
    was: Option<&ParsedPatch>,
    maps: &mut Maps,
) -> Option<Carried> {
    let first = anchor.start_line.unwrap_or(anchor.line);
    let last = anchor.line;
    let side = anchor.side;
    let was_base = anchor.base_path.as_deref().unwrap_or(was_path);
    let now_base = to.base_path(now_path);
    let (old_at, new_at) = match side {
        Side::Right => ((anchor.head_sha.as_str(), was_path), (to.head, now_path)),
        Side::Left => ((anchor.base_sha.as_str(), was_base), (to.base, now_base)),
    };
    // The new patch's lines on the side, to check a place against.
    let shown = Version::of_patch(patch, side);
    let agrees = |c: &Carried, new: &Version| match *c {
        Carried::Same { first, last }
        | Carried::Changed { first, last }
        | Carried::Ambiguous { first, last } => (first..=last).all(|n| {
            match (shown.text(n), new.text(n)) {
                (Some(p), Some(t)) => p == t.strip_suffix('\r').unwrap_or(t),
                // Not in the patch: no place to post on, whatever the text.
                _ => true,
            }
        }),
        Carried::Removed => true,
    };
    if !old_at.0.is_empty()
        && let (Some(old_text), Some(new_text)) =
            (texts.get(old_at.0, old_at.1), texts.get(new_at.0, new_at.1))
    {
        let new_version = Version::of_text(new_text);
        let key = (
            old_at.0.to_owned(),
            old_at.1.to_owned(),
            new_at.0.to_owned(),
            new_at.1.to_owned(),
            side,
        );
        let found = maps
            .get(key, || {
                Some((Version::of_text(old_text), new_version.clone()))
            })
            .filter(|(old, _)| reads(old, first, &anchor.text))
            .and_then(|(_, map)| map.carry(first, last))
            .filter(|c| agrees(c, &new_version));
        if found.is_some() {
            return found;
        }
    }
    if let Some(was) = was {
        let one_base = !anchor.base_sha.is_empty()
            && anchor.base_sha == to.base
            && was_base == now_base
            && agree_on_base(was, patch);
        let key = (
            anchor.head_sha.clone(),
            was_path.to_owned(),
            to.head.to_owned(),
            now_path.to_owned(),
            side,
        );
        let found = maps
            .get(key, || {
                Some(if one_base {
                    on_one_base(was, patch, side)
                } else {
                    (Version::of_patch(was, side), Version::of_patch(patch, side))
                })
            })
            .filter(|(old, _)| reads(old, first, &anchor.text))
            .and_then(|(old, map)| {
                Some(confirmed(map.carry(first, last)?, anchor, map, old, &shown))
            });
        if found.is_some() {
            return found;
        }
    }
    // What it remembers: its lines and the few around them.
    let from = first.checked_sub(anchor.before.len() as u32)?;
    let remembered: Vec<String> = anchor
        .before
        .iter()
        .chain(&anchor.text)
        .chain(&anchor.after)
        .map(|l| bare(l).to_owned())
        .collect();
    let old = Version::window(from.max(1), &remembered);
    // Remembered lines do not say whether a newline ends them: neither do the patch's here.
    let shown = shown.each_line_ended();
    let map = LineMap::new(&old, &shown);
    Some(confirmed(
        map.carry(first, last)?,
        anchor,
        &map,
        &old,
        &shown,
    ))
}

/// A place found through patches alone (a part of each file, `old` and `new`, diffed by `map`),
/// confirmed by the anchor's text and the lines around it: lines that say nothing (blank, a lone
/// `}`) kept among none of the lines they had around them are no certain match; lines changed
/// (or not certain) where none of the lines around them is kept are no longer in the diff.
fn confirmed(c: Carried, anchor: &Anchor, map: &LineMap, old: &Version, new: &Version) -> Carried {
    let first = anchor.start_line.unwrap_or(anchor.line);
    let last = anchor.line;
    let near = CONTEXT_LINES as u32;
    let c = match c {
        Carried::Same { first: a, last: b }
            if !distinctive(&anchor.text)
                && (!anchor.before.is_empty() || !anchor.after.is_empty()) =>
        {
            let around = |v: &Version, lo: u32, hi: u32| -> Vec<Option<String>> {
                let before = (1..=anchor.before.len() as u32)
                    .map(|k| lo.checked_sub(k).and_then(|n| v.text(n)).map(str::to_owned));
                let after =
                    (1..=anchor.after.len() as u32).map(|k| v.text(hi + k).map(str::to_owned));
                before.chain(after).collect()
            };
            let (was, now) = (around(old, first, last), around(new, a, b));
            if was.iter().zip(&now).any(|(x, y)| x.is_some() && x == y) {
                return c;
            }
            Carried::Ambiguous { first: a, last: b }
        }
        Carried::Same { .. } | Carried::Removed => return c,
        other => other,
    };
    let kept_near = (first.saturating_sub(near).max(1)..first)
        .chain(last + 1..=last + near)
        .any(|n| map.keeps(n));
    if kept_near { c } else { Carried::Removed }
}

/// Follows one comment from `anchor` to the diff `to` (see [`PendingReview::follow`]); `was`:
/// the patch kept for the anchor's head.
fn follow_one(
    c: &mut PendingComment,
    anchor: &Anchor,
    to: &DiffAt<'_>,
    texts: &FileTexts,
    was: Option<&ParsedPatch>,
    maps: &mut Maps,
) {
    let prev = c.followed.take();
    let (from, from_head, was_lines) = match &prev {
        Some(f) => (f.from.clone(), f.from_head.clone(), f.was.clone()),
        None => (c.place(), anchor.head_sha.clone(), anchor.text.clone()),
    };
    let followed = |state, now: Vec<String>, kept, reason| Followed {
        state,
        from: from.clone(),
        from_head: from_head.clone(),
        was: was_lines.clone(),
        now,
        kept,
        reason,
    };
    let was_base = anchor.base_path.as_deref().unwrap_or(&c.path);
    let now = to
        .file_now(&c.path, was_base)
        .and_then(|p| Some((p, to.patches.get(p)?)));
    let Some((now_path, patch)) = now else {
        // Its file has no patch now: it keeps what it was written on, to be found again.
        c.followed = Some(followed(
            FollowState::Gone,
            Vec::new(),
            false,
            Reason::Changed,
        ));
        return;
    };
    let seq = side_lines(patch, anchor.side);
    let carried = if anchor.text.is_empty() {
        // Its text was not recorded: where it was, if that is still a place in the diff.
        let first = anchor.start_line.unwrap_or(anchor.line);
        Some(Carried::Changed {
            first,
            last: anchor.line,
        })
    } else {
        carry(anchor, &c.path, now_path, patch, to, texts, was, maps)
    };
    // A place GitHub takes in the new patch: the lines found, else the last or the first of
    // them alone for lines that changed.
    let valid = |first: u32, last: u32| {
        let addr = LineAddr {
            side: anchor.side,
            line: last,
        };
        place_error(patch, (first < last).then_some(first), addr).is_none()
    };
    let place = match carried {
        Some(Carried::Same { first, last }) if valid(first, last) => Some((first, last, None)),
        Some(Carried::Changed { first, last } | Carried::Ambiguous { first, last }) => {
            let reason = match carried {
                Some(Carried::Ambiguous { .. }) => Reason::Repeated,
                _ => Reason::Changed,
            };
            [(first, last), (last, last), (first, first)]
                .into_iter()
                .find(|&(a, b)| valid(a, b))
                .map(|(a, b)| (a, b, Some(reason)))
        }
        _ => None,
    };
    let Some((first, last, outdated)) = place else {
        // Its lines are not in the diff: it keeps what it was written on, to be found again.
        c.followed = Some(followed(
            FollowState::Gone,
            Vec::new(),
            false,
            Reason::Changed,
        ));
        return;
    };
    c.path = now_path.to_owned();
    c.side = anchor.side;
    c.start_line = (first < last).then_some(first);
    c.line = last;
    let now_lines: Vec<String> = seq
        .iter()
        .filter(|s| (first..=last).contains(&s.line))
        .map(|s| s.text.clone())
        .collect();
    c.written = anchor_at(patch, to, now_path, c.side, c.start_line, c.line);
    c.followed = match (outdated, prev) {
        (Some(reason), _) => Some(followed(FollowState::Outdated, now_lines, false, reason)),
        // Outdated earlier: still, with the maintainer's decision as it was.
        (None, Some(p)) if p.state == FollowState::Outdated => {
            Some(followed(FollowState::Outdated, now_lines, p.kept, p.reason))
        }
        _ if c.place() == from => None,
        _ => Some(followed(
            FollowState::Moved,
            now_lines,
            false,
            Reason::Changed,
        )),
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
            base_sha: String::new(),
            base_path: None,
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

    /// Follows `r` to `head`, where `f.rs`'s patch is `p` (no texts of files: the patches only).
    fn follow(r: &mut PendingReview, head: &str, p: &str) {
        let ps = patches(p);
        r.follow(&DiffAt::new(head, "", &ps), &FileTexts::default());
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
        let ps: HashMap<String, ParsedPatch> = [("f.rs".to_owned(), patch)].into();
        r.anchor(&id, &DiffAt::new("h1", "", &ps));
        r.head_sha = "h1".to_owned();
        r
    }

    const H1: &str = "@@ -10,6 +10,7 @@ fn f() {\n a\n b\n-c\n+C\n+D\n e\n f\n g";

    #[test]
    fn a_comment_moves_with_its_lines_when_a_rebase_shifts_them() {
        let mut r = written_on(H1, Some(12), 13);
        let shifted = H1.replace("@@ -10,6 +10,7 @@", "@@ -40,6 +52,7 @@");
        follow(&mut r, "h2", &shifted);
        let c = r.get("c1").unwrap();
        assert_eq!((c.start_line, c.line), (Some(54), 55));
        let f = c.followed.as_ref().unwrap();
        assert_eq!(f.state, FollowState::Moved);
        assert_eq!(f.from, "f.rs:12-13");
        assert_eq!(c.follow_said().unwrap(), "moved f.rs:12-13 → :54-55");
        assert!(!c.needs_decision());
        // Followed again at the same head: nothing changes.
        let again = r.clone();
        follow(&mut r, "h2", &shifted);
        assert_eq!(r, again);
        // The same patch at a new head where it was: no longer moved.
        follow(&mut r, "h3", H1);
        assert_eq!(r.get("c1").unwrap().followed, None);
        assert_eq!(r.get("c1").unwrap().line, 13);
    }

    #[test]
    fn a_comment_whose_lines_changed_is_outdated_where_they_are_now_until_kept() {
        let mut r = written_on(H1, None, 12);
        let changed = "@@ -20,6 +30,7 @@ fn f() {\n a\n b\n-c\n+K\n+D\n e\n f\n g";
        follow(&mut r, "h2", changed);
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
        follow(&mut r, "h2", without);
        let c = r.get("c1").unwrap();
        assert_eq!(c.followed.as_ref().unwrap().state, FollowState::Gone);
        assert!(
            c.follow_said()
                .unwrap()
                .starts_with("gone: its lines (f.rs:13 at h1)")
        );
        assert!(matches!(r.keep("c1"), Err(PendingError::Gone { .. })));
        follow(&mut r, "h3", &H1.replace("+10,7", "+11,7"));
        let c = r.get("c1").unwrap();
        assert_eq!(c.line, 14);
        assert_eq!(c.followed.as_ref().unwrap().state, FollowState::Moved);
    }

    #[test]
    fn repeated_text_goes_where_the_diff_puts_it_never_to_a_copy_by_a_guess() {
        let p = "@@ -1,3 +1,9 @@\n a\n+x = 1\n b\n+y\n+x = 1\n+z\n+w\n+x = 1\n c";
        let mut r = written_on(p, None, 5);
        follow(&mut r, "h2", &p.replace("+1,9", "+3,9"));
        assert_eq!(r.get("c1").unwrap().line, 7, "the one between y and z");
        // A blank line the diff keeps among none of the lines it had around it: no place for it.
        let blank = "@@ -1,3 +1,4 @@\n a\n+\n b\n c";
        let mut r = written_on(blank, None, 2);
        follow(&mut r, "h2", "@@ -1,2 +1,3 @@\n q\n+\n r");
        assert_eq!(
            r.get("c1").unwrap().followed.as_ref().unwrap().state,
            FollowState::Gone
        );
    }

    /// An added file of a table of identical rows: `static T = [`, 50 rows, `];`, with `header`
    /// lines above it.
    fn table(header: usize) -> String {
        let mut lines: Vec<String> = (1..=header).map(|i| format!("// header {i}")).collect();
        lines.push("static T: [u8; 200] = [".to_owned());
        lines.extend(std::iter::repeat_n(
            "    0x00, 0x00, 0x00, 0x00,".to_owned(),
            50,
        ));
        lines.push("];".to_owned());
        let body: Vec<String> = lines.iter().map(|l| format!("+{l}")).collect();
        format!("@@ -0,0 +1,{} @@\n{}", lines.len(), body.join("\n"))
    }

    #[test]
    fn every_row_of_a_table_of_identical_rows_moves_by_the_lines_added_above_it() {
        let mut r = PendingReview::default();
        let before: HashMap<String, ParsedPatch> = [("f.rs".to_owned(), parse(&table(0)))].into();
        for line in 2..=51 {
            let id = r
                .add(
                    "f.rs",
                    Side::Right,
                    None,
                    line,
                    "why?",
                    CommentKind::Comment,
                    None,
                )
                .unwrap();
            r.anchor(&id, &DiffAt::new("h1", "b", &before));
        }
        // A finding's draft on a row follows the same diff.
        let draft = r
            .propose_finding(
                "PS-0123456789",
                "f.rs",
                LineAddr {
                    side: Side::Right,
                    line: 30,
                },
                "All zero?",
            )
            .unwrap();
        r.anchor_new(&DiffAt::new("h1", "b", &before));
        r.head_sha = "h1".to_owned();
        assert_eq!(r.patches.len(), 1, "the patch is kept once");
        let after: HashMap<String, ParsedPatch> = [("f.rs".to_owned(), parse(&table(5)))].into();
        r.follow(&DiffAt::new("h2", "b", &after), &FileTexts::default());
        let d = r.get(&draft).unwrap();
        assert_eq!(
            (d.line, d.followed.as_ref().unwrap().state),
            (35, FollowState::Moved)
        );
        for (c, was) in r.comments.iter().filter(|c| c.id != draft).zip(2..) {
            assert_eq!(c.line, was + 5, "{}: {:?}", c.id, c.follow_said());
            assert_eq!(c.followed.as_ref().unwrap().state, FollowState::Moved);
        }
        assert_eq!(
            r.get("c5").unwrap().follow_said().unwrap(),
            "moved f.rs:6 → :11"
        );
        assert_eq!(r.patches.len(), 1, "the new head's patch replaces the old");
        assert_eq!(r.patches[0].head_sha, "h2");
        // A row added among them: which rows they are now, the diff cannot say.
        let more = table(5)
            .replace("+1,57 @@", "+1,58 @@")
            .replace("\n+];", "\n+    0x00, 0x00, 0x00, 0x00,\n+];");
        let more: HashMap<String, ParsedPatch> = [("f.rs".to_owned(), parse(&more))].into();
        r.follow(&DiffAt::new("h3", "b", &more), &FileTexts::default());
        let c = r.get("c5").unwrap();
        let f = c.followed.as_ref().unwrap();
        assert_eq!(
            (f.state, f.reason),
            (FollowState::Outdated, Reason::Repeated)
        );
        assert!(c.needs_decision());
        assert!(
            c.follow_said().unwrap().starts_with(
                "outdated: its lines repeat, and the diff since f.rs:6 at h1 does not tell which copy they are; now at :"
            ),
            "{:?}",
            c.follow_said()
        );
        assert_eq!(
            r.get("c1").unwrap().followed.as_ref().unwrap().state,
            FollowState::Outdated,
            "the first row too: the new one may be above it"
        );
    }

    #[test]
    fn a_removed_line_is_gone_though_a_copy_of_it_is_in_the_diff() {
        let h1 = "@@ -1,4 +1,9 @@\n fn f(a: u32) -> u32 {\n+    let mut t = a;\n+    t += 1;\n+    t *= 2;\n+    t += 1;\n+    t\n }\n \n fn g() {}";
        let h2 = "@@ -1,4 +1,8 @@\n fn f(a: u32) -> u32 {\n+    let mut t = a;\n+    t *= 2;\n+    t += 1;\n+    t\n }\n \n fn g() {}";
        let mut r = written_on(h1, None, 3);
        let id = r
            .add(
                "f.rs",
                Side::Right,
                None,
                5,
                "again?",
                CommentKind::Comment,
                None,
            )
            .unwrap();
        let ps = patches(h1);
        r.anchor(&id, &DiffAt::new("h1", "", &ps));
        follow(&mut r, "h2", h2);
        let c = r.get("c1").unwrap();
        assert_eq!(
            c.followed.as_ref().unwrap().state,
            FollowState::Gone,
            "{c:?}"
        );
        assert_eq!(c.line, 3, "where it was written");
        let c = r.get("c2").unwrap();
        assert_eq!(
            (c.line, c.follow_said().unwrap()),
            (4, "moved f.rs:5 → :4".to_owned())
        );
    }

    #[test]
    fn the_files_texts_say_where_lines_went_that_the_patches_do_not_show() {
        // The file: 30 lines `line N`; the PR changes line 20. Upstream then adds 3 lines at
        // the top, far from the hunk, and the PR is rebased: no patch shows them.
        let text = |top: usize, twenty: &str| -> String {
            let mut v: Vec<String> = (0..top).map(|i| format!("// top {i}")).collect();
            v.extend((1..=30).map(|n| {
                if n == 20 {
                    twenty.to_owned()
                } else {
                    format!("line {n}")
                }
            }));
            v.join("\n") + "\n"
        };
        let h1 = "@@ -17,7 +17,7 @@\n line 17\n line 18\n line 19\n-line 20\n+line twenty\n line 21\n line 22\n line 23";
        let h2 = "@@ -20,7 +20,7 @@\n line 17\n line 18\n line 19\n-line 20\n+line twenty\n line 21\n line 22\n line 23";
        let ps1 = patches(h1);
        let mut r = PendingReview::default();
        r.add(
            "f.rs",
            Side::Right,
            None,
            21,
            "x",
            CommentKind::Comment,
            None,
        )
        .unwrap();
        r.anchor("c1", &DiffAt::new("h1", "b1", &ps1));
        r.head_sha = "h1".to_owned();
        let ps2 = patches(h2);
        let to = DiffAt::new("h2", "b2", &ps2);
        assert_eq!(
            r.texts_wanted(&to),
            vec![
                ("h1".to_owned(), "f.rs".to_owned()),
                ("h2".to_owned(), "f.rs".to_owned())
            ]
        );
        let mut texts = FileTexts::default();
        texts.insert("h1", "f.rs", Arc::from(text(0, "line twenty")));
        texts.insert("h2", "f.rs", Arc::from(text(3, "line twenty")));
        let mut with = r.clone();
        with.follow(&to, &texts);
        assert_eq!(with.get("c1").unwrap().line, 24);
        // Texts that are not the files the anchor read (another commit's): the patches decide.
        let mut wrong = FileTexts::default();
        wrong.insert("h1", "f.rs", Arc::from(text(2, "line twenty")));
        wrong.insert("h2", "f.rs", Arc::from(text(9, "line twenty")));
        let mut without = r.clone();
        without.follow(&to, &wrong);
        assert_eq!(without.get("c1").unwrap().line, 24);
        assert_eq!(without, with);
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
        follow(&mut r, "h1", H1);
        assert_eq!(
            r.get("c1").unwrap().written.as_ref().unwrap().text,
            vec!["+C"]
        );
        let mut old = r.clone();
        old.comments[0].written = None;
        follow(&mut old, "h2", H1);
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
