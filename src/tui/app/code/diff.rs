//! One file's diff: unified, syntax-highlighted off the draw path, the review threads under the
//! lines they are on (on their side: an old-side thread under the old row with its number, a
//! new-side one under the new row; an outdated one above the diff with the code it was written
//! on, its own hunk, never beside whatever line now has its old number) and the latest Shepherd
//! findings on theirs, the pending review's comments on theirs (marked pending, a finding's
//! draft not decided yet marked so); jumps between hunks and between threads and findings; large and
//! generated files collapsed until asked, binary files named; the interdiff since your last look
//! on a key. A cursor line and a selection of lines give the [`LineSelection`] a line comment is
//! written on ([`DiffScreen::selection`]).
//!
//! Lazy: only the file shown is parsed and highlighted. Showing its patch records it as seen,
//! once the frame that showed it is on screen.

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::commit_patch::{self, ReadOnly};
use super::context::{self, CtxRow, GapRow, Texts, Want};
use super::note::{About, Note, clean};
use super::split_view::{self, SplitLayout};
use super::work::{CodeLoad, Done, Work};
use super::{composer, finding_pane, search};
use super::{footer, help_entries, scrolled};
use crate::code::patch::{LineAddr, LineKind, LineSelection, ParsedPatch, Side};
use crate::code::pending::PendingReview;
use crate::code::{InterLine, Interdiff, SinceLastLook, interdiff};
use crate::config::DiffLayout;
use crate::pr::{ChangeType, ChangedFile, NoPatch, Snapshot, ViewedState};
use crate::sanitize::one_line;
use crate::tui::app::action::{Action, Drawn};
use crate::tui::app::ask;
use crate::tui::app::effect::Effect;
use crate::tui::app::screen::{Ctx, Handled, Screen, View};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::fit;

/// A patch longer than this many lines is collapsed until asked.
pub const LARGE_PATCH_LINES: usize = 2_000;

/// The moves every diff answers (a commit's patch too), with what they do there.
pub(super) const MOVES: &[(KeyCommand, &str)] = &[
    (KeyCommand::Down, "next line"),
    (KeyCommand::Up, "previous line"),
    (KeyCommand::PageDown, "half a page down"),
    (KeyCommand::PageUp, "half a page up"),
    (KeyCommand::Top, "first line"),
    (KeyCommand::Bottom, "last line"),
    (KeyCommand::NextHunk, "next hunk"),
    (KeyCommand::PrevHunk, "previous hunk"),
];

/// The layout keys every diff answers.
pub(super) const LAYOUT: &[(KeyCommand, &str)] = &[
    (
        KeyCommand::ToggleSplit,
        "side by side (old left, new right) / unified",
    ),
    (
        KeyCommand::SideLeft,
        "side by side: the cursor to the old side",
    ),
    (
        KeyCommand::SideRight,
        "side by side: the cursor to the new side",
    ),
];

/// The commands the PR's diff answers besides those, with what they do there.
const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::NextNew, "next thread or finding"),
    (KeyCommand::PrevNew, "previous thread or finding"),
    (
        KeyCommand::Search,
        "search the PR's patches (smartcase); n/N then go match to match",
    ),
    (
        KeyCommand::PendingReview,
        "the pending review: what was written here, to submit",
    ),
    (
        KeyCommand::NextMatch,
        "while a search is on: the next match, file to file (Esc ends it)",
    ),
    (
        KeyCommand::PrevMatch,
        "while a search is on: the previous match",
    ),
    (KeyCommand::NextFile, "the PR's next file (no search on)"),
    (
        KeyCommand::PrevFile,
        "the PR's previous file (no search on)",
    ),
    (
        KeyCommand::Toggle,
        "open the thread, finding or comment on the line whole; show a collapsed file",
    ),
    (
        KeyCommand::Toggle,
        "in a finding's pane: keep its draft (or a dropped comment) for the review",
    ),
    (
        KeyCommand::Edit,
        "in a finding's pane: edit it in the composer",
    ),
    (
        KeyCommand::Discard,
        "in a finding's pane: drop it from the pending review",
    ),
    (
        KeyCommand::Dismiss,
        "in a finding's pane: dismiss the finding, with a reason",
    ),
    (
        KeyCommand::Lesson,
        "in a finding's pane: dismiss it as a lesson for the repo",
    ),
    (
        KeyCommand::Interdiff,
        "the interdiff since your last look, or the diff",
    ),
    (
        KeyCommand::SelectLines,
        "select lines from here (again: the cursor line only)",
    ),
    (
        KeyCommand::Reply,
        "comment on the line or the selected lines",
    ),
    (
        KeyCommand::Suggest,
        "suggest a change on the line or the selected lines",
    ),
    (
        KeyCommand::ToggleViewed,
        "mark the file viewed / not viewed",
    ),
    (
        KeyCommand::ExpandContext,
        "20 more lines of the file above and below the hunk",
    ),
    (
        KeyCommand::ExpandFile,
        "the whole file (again: the hunks only)",
    ),
    (
        KeyCommand::OpenInEditor,
        "the file in your editor at the cursor's line",
    ),
    (
        KeyCommand::AskModel,
        "ask the model about the selected lines (c in its answer: a comment)",
    ),
];

/// One row of the diff as drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RowKind {
    Hunk(usize),
    Line(usize),
    Note(Note),
    /// A line of the code an outdated thread was written on (its own `diffHunk`), with its
    /// `+`/`-`/` ` prefix.
    Old(String),
    /// A line of the file outside the hunks, shown on demand (`e`/`E`): not a diff line.
    Context(CtxRow),
    /// How many lines of a gap are still hidden.
    Hidden(u32),
}

/// Where the cursor is: on a patch line, or on an expanded line `(gap, old, new)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pos {
    Line(usize),
    Ctx(usize, u32, u32),
}

/// The parsed patch of the file shown and its rows (built once, when it is first shown).
#[derive(Debug, Clone)]
pub(super) struct PatchView {
    pub(super) parsed: ParsedPatch,
    pub(super) rows: Vec<RowKind>,
    /// The rows of the patch alone (`rows` is them with the file's expanded lines).
    pub(super) base_rows: Vec<RowKind>,
    /// Per patch line, its row.
    pub(super) row_of: Vec<usize>,
    /// The patch lines with a thread or finding under them, in order.
    pub(super) noted: Vec<usize>,
    /// The highlighter's input: one line per patch line, with its `+`/`-`/` ` prefix.
    pub(super) source: String,
    /// The changed words of the lines of alike removed/added pairs, by patch line: byte ranges
    /// of the drawn text (laid out once, here, never per frame).
    pub(super) marks: std::collections::HashMap<usize, Vec<std::ops::Range<usize>>>,
    /// The same patch side by side.
    pub(super) split: SplitLayout,
}

#[derive(Debug, Clone)]
pub struct DiffScreen {
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) load: Arc<CodeLoad>,
    pub(super) index: usize,
    pub(super) since: SinceLastLook,
    /// The file's viewed state as the files screen knows it, kept up to date here.
    pub(super) viewed: ViewedState,
    /// A viewed mark is on its way.
    pub(super) viewed_pending: bool,
    /// Its patch was shown and recorded in this visit (the files screen's "seen now").
    pub(super) seen_now: bool,
    /// Why the file is collapsed until asked (None: shown).
    pub(super) collapsed: Option<&'static str>,
    pub(super) view: Option<PatchView>,
    pub(super) highlighted: Option<Arc<Vec<Line<'static>>>>,
    pub(super) highlight_asked: bool,
    pub(super) cursor: usize,
    pub(super) anchor: Option<usize>,
    pub(super) scroll: usize,
    /// The interdiff, once asked for; shown while `interdiff_on`.
    pub(super) inter: Option<Interdiff>,
    pub(super) interdiff_on: bool,
    pub(super) inter_scroll: usize,
    pub(super) inter_max: usize,
    pub(super) height: usize,
    /// The body's width at the last frame (whether the split view fits, `auto` or not).
    pub(super) width: usize,
    /// `[console] diff_layout`, as the session has it.
    pub(super) layout: DiffLayout,
    /// `|` chose a layout (true: split) over `diff_layout`.
    pub(super) split_chosen: Option<bool>,
    /// The side the cursor prefers in the split view.
    pub(super) side: Side,
    /// The split view's scroll (display rows).
    pub(super) split_scroll: usize,
    pub(super) recorded: bool,
    /// Seen records asked for and not yet answered: while any is out, the diff is busy (kept
    /// when left), so the answer still reaches it and, through it, the files list.
    pub(super) records_out: usize,
    /// The pending review, once read (its comments are shown under their lines).
    pub(super) pending: Option<Arc<PendingReview>>,
    /// The pending review was asked for (asked again when the diff is back from the composer).
    pub(super) pending_asked: bool,
    /// Opened without the files screen (`code::diff_at`): its `load` stands in until its own
    /// read of it comes back.
    pub(super) loading: bool,
    /// The line-comment composer open under the selected lines (its keys while open).
    pub(super) composer: Option<composer::Composer>,
    /// A finding or pending comment read whole (its keys while open), and how far its text
    /// can scroll (from the last frame).
    pub(super) pane: Option<finding_pane::FindingPane>,
    pub(super) pane_max: usize,
    /// What a screen opened above this one sent (a review submitted from the pending review
    /// `P` opened here): passed on down to the PR screen, which lays it over its lists.
    sent_above: Vec<crate::ledger::Sent>,
    /// `D`/`L` in the pane asked for a reason: the finding and whether it is a lesson.
    pub(super) dismissing: Option<(String, bool)>,
    /// The search over the PR's patches (`/`), while it is on; where the cursor was when the
    /// prompt opened (`Esc` there goes back).
    pub(super) search: Option<search::DiffSearch>,
    pub(super) search_from: usize,
    /// Said once it is on the stack (where it could not put the cursor).
    pub(super) said_on_open: Option<String>,
    /// What this diff learnt of the PR's files while going from one to the next (`n`/`N`):
    /// their viewed marks set and the patches shown, by path.
    visited: Visited,
    /// How `Enter` on a thread's line opens it (none: said to open it from the PR screen).
    pub(super) open_thread: Option<super::OpenThread>,
    /// Where its seen and viewed marks are passed on (the files screen that opened it).
    pub(super) echo: super::Echo,
    /// The question to the model being typed (`a`), while its prompt is open.
    pub(super) question: Option<ask::Question>,
    /// Context on demand: the file's texts, once asked for, and the lines shown of them.
    pub(super) texts: Texts,
    /// The expanded line `(gap, old, new)` the cursor is on (none: it is on patch line
    /// `cursor`; while it is on an expanded line, `cursor` is the nearest patch line below).
    pub(super) ctx_at: Option<(usize, u32, u32)>,
    /// A commit's patch, not the PR's (`commit_patch.rs`): read-only, nothing recorded.
    read_only: Option<ReadOnly>,
}

/// The viewed marks set and the files shown in this diff, kept across `n`/`N`.
#[derive(Debug, Clone, Default)]
struct Visited {
    viewed: std::collections::HashMap<String, ViewedState>,
    seen: std::collections::HashSet<String>,
}

impl DiffScreen {
    /// The diff of file `index` of `snapshot`, which is `since` since your last look, `viewed`
    /// and (`seen_now`) already shown in this visit, as the files screen says.
    pub fn new(
        snapshot: Arc<Snapshot>,
        load: Arc<CodeLoad>,
        index: usize,
        since: SinceLastLook,
    ) -> DiffScreen {
        let viewed = snapshot
            .pr
            .files
            .get(index)
            .map_or(ViewedState::Unviewed, |f| f.viewed);
        let mut s = DiffScreen {
            echo: super::Echo::default(),
            open_thread: None,
            viewed,
            viewed_pending: false,
            records_out: 0,
            seen_now: false,
            snapshot,
            load,
            index,
            since,
            collapsed: None,
            view: None,
            highlighted: None,
            highlight_asked: false,
            cursor: 0,
            anchor: None,
            scroll: 0,
            inter: None,
            interdiff_on: false,
            inter_scroll: 0,
            inter_max: 0,
            height: 0,
            width: 0,
            layout: DiffLayout::default(),
            split_chosen: None,
            side: Side::Right,
            split_scroll: 0,
            recorded: false,
            visited: Visited::default(),
            pending: None,
            pending_asked: false,
            loading: false,
            said_on_open: None,
            composer: None,
            pane: None,
            pane_max: 0,
            dismissing: None,
            sent_above: Vec::new(),
            search: None,
            search_from: 0,
            question: None,
            texts: Texts::Unread,
            ctx_at: None,
            read_only: None,
        };
        if let Some(f) = s.file() {
            let lines = f.patch.as_deref().map_or(0, |p| p.lines().count());
            s.collapsed = if f.looks_generated() {
                Some("a generated file")
            } else if lines > LARGE_PATCH_LINES {
                Some("a large diff")
            } else {
                None
            };
        }
        if s.collapsed.is_none() {
            s.build();
        }
        s
    }

    pub fn file(&self) -> Option<&ChangedFile> {
        self.snapshot.pr.files.get(self.index)
    }

    /// The cursor's patch line (an index into the parsed patch's lines).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The expanded line the cursor is on, as its numbers in the old and the new file (`None`:
    /// it is on a line of the diff).
    pub fn on_expanded_line(&self) -> Option<(u32, u32)> {
        self.ctx_at.map(|(_, old, new)| (old, new))
    }

    pub fn collapsed(&self) -> bool {
        self.collapsed.is_some()
    }

    pub fn showing_interdiff(&self) -> bool {
        self.interdiff_on
    }

    /// Whether the patch is drawn side by side (as of the last frame's width).
    pub fn showing_split(&self) -> bool {
        self.is_split()
    }

    /// The rows of both layouts with the lines of the file shown (none before `e`/`E`).
    pub(super) fn lay_out_gaps(&mut self) {
        let Some(v) = self.view.as_mut() else { return };
        let gaps = self.texts.gaps();
        v.rows = context::interleave(
            &v.base_rows,
            gaps,
            |r| match r {
                RowKind::Hunk(h) => Some(*h),
                _ => None,
            },
            |g| match g {
                GapRow::Line(c) => RowKind::Context(c),
                GapRow::Hidden { count } => RowKind::Hidden(count),
            },
        );
        for (at, r) in v.rows.iter().enumerate() {
            if let RowKind::Line(i) = r
                && let Some(slot) = v.row_of.get_mut(*i)
            {
                *slot = at;
            }
        }
        v.split.set_gaps(gaps);
    }

    /// Where the cursor is.
    fn pos(&self) -> Pos {
        match self.ctx_at {
            Some((g, o, n)) => Pos::Ctx(g, o, n),
            None => Pos::Line(self.cursor),
        }
    }

    /// The unified row of the expanded line the cursor is on.
    pub(super) fn ctx_row(&self) -> Option<usize> {
        let at = self.ctx_at?;
        self.view
            .as_ref()?
            .rows
            .iter()
            .position(|r| matches!(r, RowKind::Context(c) if (c.gap, c.old, c.new) == at))
    }

    /// The cursor's row in the unified layout and in the split one.
    fn cursor_rows(&self) -> (usize, usize) {
        let Some(v) = &self.view else { return (0, 0) };
        match self.ctx_at {
            Some(at) => (
                self.ctx_row().unwrap_or(0),
                v.split.display_of_context(at).unwrap_or(0),
            ),
            None => (
                v.row_of.get(self.cursor).copied().unwrap_or(0),
                v.split
                    .display_of
                    .get(v.split.row(self.cursor))
                    .copied()
                    .unwrap_or(0),
            ),
        }
    }

    /// The places the cursor can be, in the order the layout shown draws them, with their row.
    fn positions(&self) -> Vec<(usize, Pos)> {
        let Some(v) = &self.view else {
            return Vec::new();
        };
        if self.is_split() {
            let s = &v.split;
            s.display
                .iter()
                .enumerate()
                .filter_map(|(d, r)| match r {
                    split_view::SRow::Row(r) => s.line_at(*r, self.side).map(|i| (d, Pos::Line(i))),
                    split_view::SRow::Context(c) => Some((d, Pos::Ctx(c.gap, c.old, c.new))),
                    _ => None,
                })
                .collect()
        } else {
            v.rows
                .iter()
                .enumerate()
                .filter_map(|(at, r)| match r {
                    RowKind::Line(i) => Some((at, Pos::Line(*i))),
                    RowKind::Context(c) => Some((at, Pos::Ctx(c.gap, c.old, c.new))),
                    _ => None,
                })
                .collect()
        }
    }

    /// A line move over the patch's lines and the file's lines shown (`None` for the other
    /// commands).
    fn row_move(&self, cmd: KeyCommand) -> Option<Pos> {
        let ps = self.positions();
        let n = ps.len();
        if n == 0 {
            return None;
        }
        let (u, d) = self.cursor_rows();
        let here = if self.is_split() { d } else { u };
        let cur = ps.iter().position(|(r, _)| *r >= here).unwrap_or(n - 1);
        let half = (self.height / 2).max(1);
        let to = match cmd {
            KeyCommand::Down => (cur + 1).min(n - 1),
            KeyCommand::Up => cur.saturating_sub(1),
            KeyCommand::PageDown => (cur + half).min(n - 1),
            KeyCommand::PageUp => cur.saturating_sub(half),
            KeyCommand::Top => 0,
            KeyCommand::Bottom => n - 1,
            _ => return None,
        };
        Some(ps[to].1)
    }

    /// The cursor to `pos`, in sight in both layouts.
    fn go(&mut self, pos: Pos) {
        match pos {
            Pos::Line(i) => {
                self.ctx_at = None;
                self.move_to(i);
            }
            Pos::Ctx(g, o, n) => {
                self.ctx_at = Some((g, o, n));
                if let Some(v) = &self.view {
                    self.cursor = v
                        .parsed
                        .hunks
                        .get(g)
                        .map_or(v.parsed.lines.len().saturating_sub(1), |h| h.lines.start);
                }
                let (u, d) = self.cursor_rows();
                let h = self.height.max(1);
                follow(&mut self.scroll, u, 0, h, false);
                follow(&mut self.split_scroll, d, 0, h, false);
            }
        }
    }

    /// `e` / `E`: more of the file around the cursor's hunk, or all of it (again: the hunks
    /// only); the first asks for the file's texts.
    fn expand(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) {
        let Some(file) = self.file().cloned() else {
            return;
        };
        let path = one_line(&file.path);
        if let Some(why) = self.collapsed {
            ctx.say(format!(
                "{path} is collapsed ({why}): Enter shows its diff first"
            ));
            return;
        }
        let Some(v) = &self.view else {
            ctx.say(match file.no_patch() {
                Some(NoPatch::Binary) => format!("{path} is a binary file: no lines to show"),
                Some(w) => format!("{}: no lines to show", w.sentence()),
                None => "no patch: no lines to show".to_owned(),
            });
            return;
        };
        let kind = file.change_type();
        if matches!(kind, ChangeType::Added | ChangeType::Removed) {
            ctx.say(format!(
                "{path} is {} file: the diff shows all of it",
                if kind == ChangeType::Added {
                    "an added"
                } else {
                    "a removed"
                }
            ));
            return;
        }
        let want = match (cmd, self.ctx_at) {
            (KeyCommand::ExpandFile, _) => Want::All,
            (_, Some((g, ..))) => Want::InGap(g),
            (_, None) => Want::AroundHunk(
                v.parsed
                    .hunks
                    .iter()
                    .rposition(|h| h.lines.start <= self.cursor)
                    .unwrap_or(0),
            ),
        };
        match &mut self.texts {
            Texts::Unread => {
                let pr = &self.snapshot.pr;
                let base_path = file
                    .previous_path
                    .clone()
                    .unwrap_or_else(|| file.path.clone());
                ctx.work(Work::Contents {
                    pr: pr.coords(),
                    path: file.path.clone(),
                    head: Some((pr.head_sha.clone(), file.path.clone())),
                    base: Some((pr.base_sha.clone(), base_path)),
                });
                self.texts = Texts::Reading(want);
                ctx.say(format!("reading {path} at the PR's head and base…"));
            }
            Texts::Reading(w) => {
                *w = want;
                ctx.say(format!("still reading {path}…"));
            }
            Texts::Refused(why) => ctx.say(why.clone()),
            Texts::Read { .. } => {
                let parsed = v.parsed.clone();
                let said = self.texts.apply(&parsed, want);
                self.relayout();
                ctx.say(shown_said(said, want));
            }
        }
    }

    /// The texts asked for by `e`/`E` arrived (or why not): what was asked is shown.
    fn contents_read(
        &mut self,
        head: Option<Result<Arc<str>, String>>,
        base: Option<Result<Arc<str>, String>>,
        ctx: &mut Ctx<'_>,
    ) {
        let Texts::Reading(want) = self.texts else {
            return;
        };
        let Some(v) = &self.view else { return };
        let (head, base) = match (head.transpose(), base.transpose()) {
            (Ok(h), Ok(b)) => (h, b),
            (Err(e), _) | (_, Err(e)) => {
                let why = format!("no lines of the file shown: {e}");
                ctx.say(why.clone());
                self.texts = Texts::Refused(why);
                return;
            }
        };
        let parsed = v.parsed.clone();
        self.texts = Texts::read(&parsed, base, head);
        let said = self.texts.apply(&parsed, want);
        self.relayout();
        ctx.say(shown_said(said, want));
    }

    /// The rows laid out again for the lines shown, the cursor on its line and where it was on
    /// the screen — or, when everything from the top to the cursor fits, from the top: what is
    /// drawn above the diff (an outdated thread with its code) stays in sight.
    fn relayout(&mut self) {
        let (u0, d0) = self.cursor_rows();
        self.lay_out_gaps();
        if self.ctx_at.is_some() && self.ctx_row().is_none() {
            // Its line is hidden again: the cursor goes to the patch line below it.
            self.ctx_at = None;
        }
        let (u1, d1) = self.cursor_rows();
        let h = self.height.max(1);
        let kept = |scroll: usize, now: usize, was: usize| {
            if now < h {
                0
            } else {
                (scroll + now).saturating_sub(was)
            }
        };
        self.scroll = kept(self.scroll, u1, u0);
        self.split_scroll = kept(self.split_scroll, d1, d0);
        let pos = self.pos();
        self.go(pos);
    }

    /// The line, or the selected lines, a comment would be on; `None` when there is no patch
    /// line under the cursor or the selection spans both sides of the diff.
    pub fn selection(&self) -> Option<LineSelection> {
        if self.interdiff_on || self.ctx_at.is_some() {
            return None;
        }
        let v = self.view.as_ref()?;
        if self.is_split() {
            let side = v.split.side_of(self.cursor, self.side);
            let anchor = self.anchor.unwrap_or(self.cursor);
            return v
                .split
                .selection(&self.file()?.path, &v.parsed, anchor, self.cursor, side);
        }
        let (a, b) = match self.anchor {
            Some(a) => (a.min(self.cursor), a.max(self.cursor)),
            None => (self.cursor, self.cursor),
        };
        LineSelection::of(&self.file()?.path, &v.parsed, a..=b)
    }

    /// The text of the composer open under the lines, if one is.
    pub fn composer_text(&self) -> Option<String> {
        self.composer.as_ref().map(composer::Composer::text)
    }

    /// The pending review as the diff read it (its comments under their lines).
    pub fn pending_review(&self) -> Option<&PendingReview> {
        self.pending.as_deref()
    }

    /// Whether a selection of lines is being made.
    pub fn selecting(&self) -> bool {
        self.anchor.is_some()
    }

    fn key_for_highlight(&self) -> String {
        let pr = self.snapshot.pr.coords();
        let path = self.file().map_or("", |f| f.path.as_str());
        let mut key = format!("code-diff\u{0}{pr}\u{0}{path}");
        // A commit's patch of a path is highlighted apart from the PR's patch of it.
        if let Some(r) = &self.read_only {
            key.push('\u{0}');
            key.push_str(r.sha());
        }
        key
    }

    /// The cursor on the new side's `line` (a finding's place), a few lines of context above
    /// it; false (the cursor left at the top) when the diff does not show that line.
    pub fn at_line(mut self, line: u32) -> (DiffScreen, bool) {
        let at = self.view.as_ref().and_then(|v| {
            v.parsed
                .lines
                .iter()
                .position(|l| l.kind != LineKind::Removed && l.new == Some(line))
        });
        if let Some(i) = at {
            self.side = Side::Right;
            self.ctx_at = None;
            self.move_to(i);
            self.scroll = self.scroll.saturating_sub(3);
            self.split_scroll = self.split_scroll.saturating_sub(3);
        }
        (self, at.is_some())
    }

    /// The cursor on `line` of `side` (a pending comment's place), a few lines of context above
    /// it; false (the cursor left at the top) when the diff does not show that line.
    pub fn at_addr(mut self, side: Side, line: u32) -> (DiffScreen, bool) {
        let at = self
            .view
            .as_ref()
            .and_then(|v| v.parsed.find(LineAddr { side, line }));
        if let Some(i) = at {
            self.side = side;
            self.move_to(i);
            self.scroll = self.scroll.saturating_sub(3);
            self.split_scroll = self.split_scroll.saturating_sub(3);
        }
        (self, at.is_some())
    }

    /// The diff of file `index` of `snapshot` opened on its own (not from the files screen): it
    /// reads what the files screen would have given it (the last look, the findings, offline
    /// viewed marks) once it is on the stack, and says `said` then.
    pub(super) fn on_its_own(
        snapshot: Arc<Snapshot>,
        index: usize,
        side: Side,
        line: u32,
    ) -> DiffScreen {
        let load = Arc::new(CodeLoad::empty(snapshot.pr.coords()));
        let diff = DiffScreen::new(snapshot, load, index, SinceLastLook::NeverSeen);
        let collapsed = diff.collapsed;
        let (mut diff, found) = diff.at_addr(side, line);
        diff.loading = true;
        let word = if side == Side::Left {
            " (old side)"
        } else {
            ""
        };
        diff.said_on_open = match collapsed {
            Some(why) => Some(format!(
                "{why}, collapsed: Enter shows it (the comment is on line {line}{word})"
            )),
            None if !found => Some(format!(
                "line {line}{word} is no longer in this diff: the file is shown from its top"
            )),
            None => None,
        };
        diff
    }

    /// Its own read came back (see [`DiffScreen::on_its_own`]): the file's state since your last
    /// look, its viewed mark and the findings under their lines, the cursor kept.
    fn loaded_on_its_own(&mut self, load: CodeLoad) {
        self.loading = false;
        let snapshot = Arc::clone(&self.snapshot);
        if let Some(f) = snapshot.pr.files.get(self.index) {
            self.since = load.look.since(f);
            if let Some(v) = load.viewed.get(&f.path) {
                self.viewed = *v;
            }
        }
        self.load = Arc::new(load);
        if self.view.is_some() {
            let cursor = self.cursor;
            self.build();
            self.move_to(cursor);
        }
    }

    pub(super) fn move_to(&mut self, line: usize) {
        let Some(v) = &self.view else { return };
        self.cursor = line.min(v.parsed.lines.len().saturating_sub(1));
        let row = v.row_of.get(self.cursor).copied().unwrap_or(0);
        // The line's threads and findings come into sight with it.
        let notes = v.rows[row + 1..]
            .iter()
            .take_while(|r| matches!(r, RowKind::Note(_)))
            .count();
        let h = self.height.max(1);
        follow(&mut self.scroll, row, notes, h, self.cursor == 0);
        // The split view's scroll follows too, whichever layout is drawn next.
        let r = v.split.row(self.cursor);
        let drow = v.split.display_of.get(r).copied().unwrap_or(0);
        let notes = v.split.notes_under(r);
        follow(&mut self.split_scroll, drow, notes, h, r == 0);
    }

    fn patch_command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> bool {
        let Some(v) = &self.view else { return false };
        let n = v.parsed.lines.len();
        let half = (self.height / 2).max(1);
        let c = self.cursor;
        if let Some((_, old, new)) = self.ctx_at
            && matches!(
                cmd,
                KeyCommand::Reply | KeyCommand::Suggest | KeyCommand::SelectLines
            )
        {
            let line = if self.is_split() && self.side == Side::Left {
                old
            } else {
                new
            };
            ctx.say(context::not_a_diff_line(line));
            return true;
        }
        if self.texts.gaps().is_some() {
            // The file's lines shown are places too: moves go by the rows drawn.
            if let Some(pos) = self.row_move(cmd) {
                self.go(pos);
                return true;
            }
        } else if self.is_split()
            && let Some(to) = self.split_move(cmd)
        {
            self.move_to(to);
            return true;
        }
        // Jumps look below `lo` and above `hi`: around the cursor's line, or (on an expanded
        // line) around the gap it is in.
        let (lo, hi) = match self.ctx_at {
            Some((g, ..)) => {
                let at = v.parsed.hunks.get(g).map_or(n, |h| h.lines.start);
                (at, at)
            }
            None => (c + 1, c),
        };
        let to = match cmd {
            KeyCommand::Down => c + 1,
            KeyCommand::Up => c.saturating_sub(1),
            KeyCommand::PageDown => c + half,
            KeyCommand::PageUp => c.saturating_sub(half),
            KeyCommand::Top => 0,
            KeyCommand::Bottom => n.saturating_sub(1),
            KeyCommand::NextHunk => match v.parsed.hunks.iter().find(|h| h.lines.start >= lo) {
                Some(h) => h.lines.start,
                None => {
                    ctx.say("the last hunk");
                    return true;
                }
            },
            KeyCommand::PrevHunk => {
                match v.parsed.hunks.iter().rev().find(|h| h.lines.start < hi) {
                    Some(h) => h.lines.start,
                    None => {
                        ctx.say("the first hunk");
                        return true;
                    }
                }
            }
            KeyCommand::NextNew => match v.noted.iter().find(|&&i| i >= lo) {
                Some(&i) => i,
                None => {
                    ctx.say(if v.noted.is_empty() {
                        "no thread or finding on a line of this diff"
                    } else {
                        "no thread or finding below"
                    });
                    return true;
                }
            },
            KeyCommand::PrevNew => match v.noted.iter().rev().find(|&&i| i < hi) {
                Some(&i) => i,
                None => {
                    ctx.say("no thread or finding above");
                    return true;
                }
            },
            KeyCommand::SelectLines => {
                self.anchor = match self.anchor {
                    Some(_) => None,
                    None => Some(c),
                };
                return true;
            }
            KeyCommand::Suggest
                if (self.is_split() && v.split.side_of(c, self.side) == Side::Left)
                    || self.selection().is_some_and(|s| s.end.side == Side::Left) =>
            {
                // The pending review's rule, said before anything is typed.
                let why = crate::code::pending::kind_refusal(
                    Side::Left,
                    crate::code::pending::CommentKind::Suggestion,
                )
                .map(|e| e.to_string())
                .unwrap_or_default();
                ctx.say(format!(
                    "{why} (l: the new side in split view · c comments here)"
                ));
                return true;
            }
            KeyCommand::Reply | KeyCommand::Suggest => {
                // The pending review's composer, on the cursor line or the selected lines.
                match self.selection() {
                    Some(sel) => {
                        let suggestion = cmd == KeyCommand::Suggest;
                        let c = composer::Composer::new(sel, suggestion, None);
                        self.open_composer(c, ctx);
                    }
                    None => ctx.say(
                        "line comments: put the cursor on a line of the diff (a selection stays on one side)",
                    ),
                }
                return true;
            }
            KeyCommand::AskModel => {
                // A question to the model about the cursor line or the selected lines.
                match self.selection() {
                    Some(sel) => {
                        // The selection stays in sight while the question is typed.
                        let snapshot = Arc::clone(&self.snapshot);
                        ask::Question::open(&mut self.question, snapshot, sel, ctx);
                    }
                    None => ctx.say(
                        "ask: put the cursor on a line of the diff (a selection stays on one side)",
                    ),
                }
                return true;
            }
            _ => return false,
        };
        if self.is_split() {
            // A jump lands on the side its line is on (a context line: the side kept).
            let v = self.view.as_ref().map(|v| &v.split);
            if let Some(s) = v {
                let r = s.row(to);
                let rows = &s.rows;
                if let Some(row) = rows.get(r) {
                    let on_kept = row.cell(self.side).is_some_and(|cell| cell.idx == to);
                    if !on_kept
                        && row
                            .cell(split_view::other(self.side))
                            .is_some_and(|cell| cell.idx == to)
                    {
                        self.side = split_view::other(self.side);
                    }
                }
            }
        }
        self.ctx_at = None;
        self.move_to(to);
        true
    }

    /// The side and line `o` opens the editor at: the cursor's line on the side it is on (split:
    /// the cursor's side; unified: a removed line's old number, else its new one); a file with
    /// no lines shown, line 1 (of the old file when the PR removes it).
    fn editor_place(&self) -> (Side, u32) {
        let removed = self.file().is_some_and(|f| f.status == "removed");
        let none = (if removed { Side::Left } else { Side::Right }, 1);
        let Some(v) = &self.view else { return none };
        let Some(line) = v.parsed.lines.get(self.cursor) else {
            return none;
        };
        let side = if self.is_split() {
            v.split.side_of(self.cursor, self.side)
        } else if line.kind == LineKind::Removed {
            Side::Left
        } else {
            Side::Right
        };
        let number = match side {
            Side::Left => line.old,
            Side::Right => line.new,
        };
        match number {
            Some(n) => (side, n),
            None => none,
        }
    }

    /// `o`: the file in the user's editor at the cursor's line; the diff's work prepares the
    /// file (`editor_file.rs`), then the editor runs on it (`Effect::EditorAt`).
    fn open_in_editor(&mut self, ctx: &mut Ctx<'_>) {
        if self.interdiff_on {
            return ctx.say("the interdiff is not a file: back to the diff first, then o");
        }
        if ctx
            .session
            .editor
            .as_deref()
            .is_none_or(|e| e.trim().is_empty())
        {
            return ctx.say("no external editor: set $VISUAL or $EDITOR to open the file in it");
        }
        let Some(file) = self.file() else { return };
        let (side, line) = self.editor_place();
        let pr = &self.snapshot.pr;
        let (path, commit) = match side {
            Side::Right => (file.path.clone(), pr.head_sha.clone()),
            Side::Left => (
                file.previous_path
                    .clone()
                    .unwrap_or_else(|| file.path.clone()),
                pr.base_sha.clone(),
            ),
        };
        ctx.say(format!("opening {}:{line} in the editor…", one_line(&path)));
        ctx.work(Work::EditorFile(Box::new(super::editor_file::EditorFile {
            pr: pr.coords(),
            path,
            side,
            commit,
            head: pr.head_sha.clone(),
            line,
        })));
    }

    /// The file for the editor is ready: the editor runs on it, at its line, around the
    /// suspended console; or why not.
    fn editor_file_ready(
        &mut self,
        result: Result<super::editor_file::Prepared, String>,
        ctx: &mut Ctx<'_>,
    ) {
        let ready = match result {
            Ok(ready) => ready,
            Err(why) => return ctx.say(one_line(&why)),
        };
        let editor = ctx.session.editor.clone().unwrap_or_default();
        let line_arg = ctx.session.editor_line_arg.clone();
        match crate::tui::editor_at::argv_at(&editor, ready.line, &ready.file, line_arg.as_deref())
        {
            Ok(argv) => {
                let mut said = ready.said;
                if !argv.at_line {
                    said.push_str(
                        " (the editor was not told the line: set [console] editor_line_arg)",
                    );
                }
                ctx.fx.push(Effect::EditorAt { argv, said });
            }
            Err(e) => ctx.say(one_line(&e.to_string())),
        }
    }

    /// Whether the patch is drawn side by side: `|`'s choice, else `diff_layout` at the
    /// screen's width; never the interdiff, never narrower than the halves need.
    pub(super) fn is_split(&self) -> bool {
        self.split_at(self.layout, self.width)
    }

    fn split_at(&self, layout: DiffLayout, width: usize) -> bool {
        !self.interdiff_on
            && self.view.is_some()
            && split_view::fits(width)
            && self
                .split_chosen
                .unwrap_or_else(|| layout.is_split(u16::try_from(width).unwrap_or(u16::MAX)))
    }

    /// The split view's line moves (by rows, the side kept where the row has a line there);
    /// `None` for the other commands.
    fn split_move(&self, cmd: KeyCommand) -> Option<usize> {
        let v = self.view.as_ref()?;
        let s = &v.split;
        let n = s.rows.len();
        if n == 0 {
            return None;
        }
        let r = s.row(self.cursor);
        let half = (self.height / 2).max(1);
        let to = match cmd {
            KeyCommand::Down => (r + 1).min(n - 1),
            KeyCommand::Up => r.saturating_sub(1),
            KeyCommand::PageDown => (r + half).min(n - 1),
            KeyCommand::PageUp => r.saturating_sub(half),
            KeyCommand::Top => 0,
            KeyCommand::Bottom => n - 1,
            _ => return None,
        };
        s.line_at(to, self.side)
    }

    /// `|`: side by side or unified, the cursor kept on its line (and on its side of the row).
    fn toggle_split(&mut self, ctx: &mut Ctx<'_>) {
        if self.interdiff_on {
            ctx.say("the interdiff is shown unified (I shows the diff)");
            return;
        }
        let Some(v) = &self.view else {
            ctx.say("no lines to show side by side");
            return;
        };
        let want = !self.is_split();
        if want && !split_view::fits(self.width) {
            ctx.say(format!(
                "the screen is too narrow for side by side ({} columns; it needs {}): unified",
                self.width,
                split_view::min_split_width()
            ));
            return;
        }
        if want && let Some((_, side)) = crate::code::split::row_of(&v.split.rows, self.cursor) {
            // A context line keeps the side it was on.
            if v.parsed
                .lines
                .get(self.cursor)
                .is_some_and(|l| l.kind != LineKind::Context)
            {
                self.side = side;
            }
        }
        self.split_chosen = Some(want);
        // The maintainer's choice holds for the rest of the run, in every diff opened after.
        ctx.session.layout_chosen.set(want);
        let pos = self.pos();
        self.go(pos);
        ctx.say(if want {
            "side by side: old left, new right (h/l: the side)"
        } else {
            "unified"
        });
    }

    /// `h`/`l`: the cursor to `side` of its row, when the row has a line there.
    fn put_on_side(&mut self, side: Side, ctx: &mut Ctx<'_>) {
        if !self.is_split() {
            ctx.say("one column: | shows the diff side by side");
            return;
        }
        let Some(v) = &self.view else { return };
        if self.ctx_at.is_some() {
            // An expanded line is on both sides.
            self.side = side;
            return;
        }
        let r = v.split.row(self.cursor);
        match v.split.rows.get(r).and_then(|row| row.cell(side)) {
            Some(c) => {
                self.cursor = c.idx;
                self.side = side;
            }
            None => ctx.say(match side {
                Side::Left => "no line of the old file on this row",
                Side::Right => "no line of the new file on this row",
            }),
        }
    }

    fn toggle_interdiff(&mut self, ctx: &mut Ctx<'_>) {
        if self.interdiff_on {
            self.interdiff_on = false;
            return;
        }
        let Some(file) = self.file() else { return };
        let why_not = match self.since {
            SinceLastLook::Unchanged => Some("unchanged since your last look: no interdiff"),
            SinceLastLook::New => Some("new since your last look: all of it is new"),
            SinceLastLook::NeverSeen => Some("never shown before: no interdiff"),
            SinceLastLook::Changed => None,
        };
        if let Some(why) = why_not {
            ctx.say(why);
            return;
        }
        match (self.load.before.get(&file.path), &file.patch) {
            (Some(before), Some(now)) => {
                if self.inter.is_none() {
                    self.inter = Some(interdiff(before, now));
                }
                self.interdiff_on = true;
                self.inter_scroll = 0;
            }
            _ => ctx.say("changed since your last look, but the patch shown then was not kept"),
        }
    }

    /// `n` / `N`: the PR's next (`forward`) or previous file, in the files screen's order, as
    /// that screen would open it (what is known of it since your last look, viewed or not).
    fn go_file(&mut self, forward: bool, ctx: &mut Ctx<'_>) {
        let n = self.snapshot.pr.files.len();
        let to = if forward {
            (self.index + 1 < n).then_some(self.index + 1)
        } else {
            self.index.checked_sub(1)
        };
        let Some(to) = to else {
            ctx.say(if forward {
                "the last file of the PR"
            } else {
                "the first file of the PR"
            });
            return;
        };
        let n = self.snapshot.pr.files.len();
        if let Some(file) = self.snapshot.pr.files.get(to) {
            let said = format!("file {} of {n}: {}", to + 1, one_line(&file.path));
            self.switch_to(to);
            ctx.say(said);
        }
    }

    /// This diff shows the PR's file `to` instead, keeping what the maintainer chose (layout,
    /// side, search) and what it learnt of the files it went through.
    pub(super) fn switch_to(&mut self, to: usize) {
        let Some(file) = self.snapshot.pr.files.get(to) else {
            return;
        };
        let mut visited = std::mem::take(&mut self.visited);
        if let Some(f) = self.file() {
            visited.viewed.insert(f.path.clone(), self.viewed);
            if self.seen_now {
                visited.seen.insert(f.path.clone());
            }
        }
        let since = self.load.look.since(file);
        let viewed = visited
            .viewed
            .get(&file.path)
            .or_else(|| self.load.viewed.get(&file.path))
            .copied()
            .unwrap_or(file.viewed);
        let seen_now = visited.seen.contains(&file.path);
        let mut next = DiffScreen::new(
            Arc::clone(&self.snapshot),
            Arc::clone(&self.load),
            to,
            since,
        )
        .as_listed(viewed, seen_now)
        .opening_threads(self.open_thread)
        .echoing(self.echo.clone());
        next.visited = visited;
        next.height = self.height;
        // The layout `|` chose, and the side, are the maintainer's: they hold from file to file.
        next.width = self.width;
        next.layout = self.layout;
        next.split_chosen = self.split_chosen;
        next.side = self.side;
        next.pending_asked = self.pending_asked;
        next.read_only = self.read_only.clone();
        next.records_out = self.records_out;
        next.search = self.search.take();
        // The files list follows: back there, this file is the one selected.
        self.echo.at(to);
        if let Some(p) = self.pending.take() {
            next.set_pending(p);
        }
        *self = next;
    }

    /// The first thread under the cursor's line, if one is.
    /// The first note under the cursor's line (in the split view, on the cursor's side first):
    /// what `Enter` opens.
    fn note_at_cursor(&self) -> Option<About> {
        if self.ctx_at.is_some() {
            return None;
        }
        let v = self.view.as_ref()?;
        let row = *v.row_of.get(self.cursor)?;
        let notes: Vec<&Note> = v.rows[row + 1..]
            .iter()
            .map_while(|r| match r {
                RowKind::Note(n) => Some(n),
                _ => None,
            })
            .collect();
        let side = self
            .is_split()
            .then(|| v.split.side_of(self.cursor, self.side));
        notes
            .iter()
            .filter(|n| side.is_none_or(|s| n.side == s))
            .chain(notes.iter())
            .find_map(|n| n.about.clone())
    }

    /// The pending review read: its comments go under their lines (the cursor stays on its line).
    fn set_pending(&mut self, review: Arc<PendingReview>) {
        self.pending = Some(review);
        if self.view.is_some() {
            // The cursor stays on its line (an expanded one too).
            let pos = self.pos();
            self.build();
            if self.ctx_at.is_some() && self.ctx_row().is_none() {
                self.ctx_at = None;
            }
            let pos = if self.ctx_at.is_some() {
                pos
            } else {
                Pos::Line(self.cursor)
            };
            self.go(pos);
        }
    }

    /// `t`: the file viewed or not, as on the files screen (which hears the result too).
    fn toggle_viewed(&mut self, ctx: &mut Ctx<'_>) {
        let Some(file) = self.file() else {
            ctx.say("no such file");
            return;
        };
        if self.viewed_pending {
            ctx.say(format!(
                "{}: a viewed mark is on its way",
                one_line(&file.path)
            ));
            return;
        }
        let eff = Effect::SetViewed {
            pr: self.snapshot.pr.coords(),
            paths: vec![file.path.clone()],
            keys: std::collections::HashMap::from([(
                file.path.clone(),
                crate::code::look::patch_key(file),
            )]),
            viewed: self.viewed != ViewedState::Viewed,
        };
        self.viewed_pending = true;
        ctx.fx.push(eff);
    }

    /// `Enter` on a thread's line opens it with `f`, when there is one (see
    /// [`super::OpenThread`]).
    /// Its seen and viewed marks are passed on to `echo` (the files screen that opened it).
    pub fn echoing(mut self, echo: super::Echo) -> DiffScreen {
        self.echo = echo;
        self
    }

    pub fn opening_threads(mut self, f: Option<super::OpenThread>) -> DiffScreen {
        self.open_thread = f;
        self
    }

    /// The file's viewed state and whether it was shown in this visit, as the files screen
    /// lists them (the snapshot's may be older).
    pub fn as_listed(mut self, viewed: ViewedState, seen_now: bool) -> DiffScreen {
        self.viewed = viewed;
        self.seen_now = seen_now;
        self
    }

    /// A commit's patch (see `commit_patch.rs`): read-only, recording nothing.
    pub(super) fn read_only(mut self, mark: ReadOnly) -> DiffScreen {
        self.read_only = Some(mark);
        self
    }

    fn header(&self, theme: &Theme) -> Vec<Line<'static>> {
        if let Some(r) = &self.read_only {
            return r.header(self.file(), theme);
        }
        let Some(f) = self.file() else {
            return vec![Line::styled("no such file", theme.dim)];
        };
        let mut first = super::note::file_title(f, theme);
        let viewed_style = match self.viewed {
            ViewedState::Viewed => theme.seen,
            ViewedState::Dismissed => theme.badge_edited,
            ViewedState::Unviewed => theme.dim,
        };
        first.push(Span::styled(
            format!(
                " · {}",
                crate::output::files::viewed_words(self.viewed, self.load.look.lines_moved(f))
            ),
            viewed_style,
        ));
        let since = match self.since {
            SinceLastLook::NeverSeen if self.seen_now => ("seen now", theme.seen),
            SinceLastLook::Changed => ("changed since your last look", theme.badge_edited),
            SinceLastLook::New => ("new since your last look", theme.badge_new),
            SinceLastLook::Unchanged => ("unchanged since your last look", theme.badge_unchanged),
            SinceLastLook::NeverSeen => ("never seen", theme.dim),
        };
        let mut second = vec![Span::styled(since.0, since.1)];
        if self.seen_now && self.since != SinceLastLook::NeverSeen {
            second.push(Span::styled(" · seen now", theme.seen));
        }
        if self.interdiff_on {
            second.push(Span::styled(
                " · the interdiff: what changed between the patch you saw and the patch now",
                theme.header,
            ));
        } else if self.since == SinceLastLook::Changed {
            second.push(Span::styled(" · I shows the interdiff", theme.dim));
        }
        if let Some(sel) = self.selection().filter(|_| self.anchor.is_some()) {
            second.push(Span::styled(
                format!(" · selected {}", ask::place(&sel)),
                theme.key,
            ));
        }
        vec![Line::from(first), Line::from(second)]
    }

    pub(super) fn inter_lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        let Some(inter) = &self.inter else {
            return Vec::new();
        };
        if inter.is_empty() {
            return vec![Line::styled(
                "the same change as you last saw (a rebase moved it at most)",
                theme.dim,
            )];
        }
        let (old, new) = inter.counts();
        let mut out = vec![Line::styled(
            format!(
                "{} only now, {old} only in the patch you saw",
                crate::output::plural::count(new, "line")
            ),
            theme.dim,
        )];
        for l in inter.condensed() {
            out.push(match l {
                None => Line::styled("  ⋯", theme.dim),
                Some(InterLine::Same(t)) => {
                    Line::styled(format!("  {}", clean(t)), theme.diff_context)
                }
                Some(InterLine::Old(t)) => {
                    Line::styled(format!("< {}", clean(t)), theme.diff_removed)
                }
                Some(InterLine::New(t)) => {
                    Line::styled(format!("> {}", clean(t)), theme.diff_added)
                }
            });
        }
        out
    }
}

/// What `e`/`E` showed, in words.
fn shown_said(shown: Result<u32, ()>, want: Want) -> String {
    match (shown, want) {
        (Err(()), _) => "the hunks only".to_owned(),
        (Ok(0), Want::All) => "the whole file is shown (E again: the hunks only)".to_owned(),
        (Ok(0), _) => "no more lines of the file there".to_owned(),
        (Ok(n), _) => format!(
            "{} of the file shown: context, not lines of the diff",
            crate::output::plural::count(n as usize, "more line")
        ),
    }
}

/// Keeps display row `row` and the `notes` under it in a view `h` rows high scrolled to
/// `scroll` (`top`: the first line, so the rows above it stay in sight).
fn follow(scroll: &mut usize, row: usize, notes: usize, h: usize, top: bool) {
    let last = (row + notes).min(row + h - 1);
    if row < *scroll {
        // The unplaced notes above the first line stay in sight at the top.
        *scroll = if top { 0 } else { row };
    } else if last >= *scroll + h {
        *scroll = last + 1 - h;
    }
}

impl Screen for DiffScreen {
    fn sent(&self) -> Vec<crate::ledger::Sent> {
        self.sent_above.clone()
    }

    /// A comment being written in the composer is not in the pending review yet: quitting
    /// names it.
    fn at_stake(&self) -> Vec<String> {
        match &self.composer {
            Some(c) if !c.text().trim().is_empty() => vec![format!(
                "the comment being written on {} is not in the pending review yet (Esc adds it)",
                c.place()
            )],
            _ => Vec::new(),
        }
    }

    /// A seen record or a viewed mark is on its way: left now, the diff is kept until it is
    /// answered, so the files list hears what was recorded.
    fn busy(&self) -> bool {
        self.records_out > 0 || self.viewed_pending
    }

    fn name(&self) -> &'static str {
        "diff"
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.cursor)
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        // A commit's patch: what would comment, mark or read the PR's files says why not.
        if let Some(why) = self.read_only.as_ref().and_then(|r| {
            r.refusal(
                cmd,
                self.collapsed.is_some(),
                self.index,
                self.snapshot.pr.files.len(),
            )
        }) {
            ctx.say(why);
            return Handled::Consumed;
        }
        if self.pane.is_some() {
            self.pane_command(cmd, ctx);
            return Handled::Consumed;
        }
        if matches!(cmd, KeyCommand::NextFile | KeyCommand::PrevFile) {
            self.go_file(cmd == KeyCommand::NextFile, ctx);
            return Handled::Consumed;
        }
        if cmd == KeyCommand::Interdiff {
            self.toggle_interdiff(ctx);
            return Handled::Consumed;
        }
        if cmd == KeyCommand::OpenInEditor {
            self.open_in_editor(ctx);
            return Handled::Consumed;
        }
        if self.interdiff_on {
            if matches!(cmd, KeyCommand::ExpandContext | KeyCommand::ExpandFile) {
                ctx.say("the interdiff shows no file lines: I shows the diff");
                return Handled::Consumed;
            }
            if let Some(to) = scrolled(cmd, self.inter_scroll, self.inter_max, self.height / 2) {
                self.inter_scroll = to;
                return Handled::Consumed;
            }
            if cmd == KeyCommand::Back {
                self.interdiff_on = false;
                return Handled::Consumed;
            }
            return Handled::NotConsumed;
        }
        if cmd == KeyCommand::Toggle {
            if self.collapsed.take().is_some() {
                self.build();
            } else {
                match self.note_at_cursor() {
                    Some(About::Thread(id)) => match self.open_thread {
                        Some(open) => ctx.open(open(&self.snapshot, &id, ctx.session.identity())),
                        None => ctx.say("this thread opens whole from the PR screen"),
                    },
                    Some(about) => self.pane = Some(finding_pane::FindingPane::new(about)),
                    None => ctx.say(
                        "the whole file is shown (Enter on a line with a thread, finding or comment opens it)",
                    ),
                }
            }
            return Handled::Consumed;
        }
        if cmd == KeyCommand::PendingReview {
            // The pending review, with what was written here in it.
            ctx.open(Box::new(
                crate::tui::app::PendingScreen::new((*self.snapshot).clone())
                    .opening_diffs(super::diff_at),
            ));
            self.pending_asked = false;
            return Handled::Consumed;
        }
        if cmd == KeyCommand::Search {
            self.search_from = self.cursor;
            *ctx.mode = crate::tui::app::InputMode::Search {
                query: String::new(),
                before: self.cursor,
            };
            return Handled::Consumed;
        }
        if matches!(cmd, KeyCommand::NextMatch | KeyCommand::PrevMatch) {
            // Without a search, the key is the next or previous file's (they share it).
            if self.search.is_none() {
                return Handled::NotConsumed;
            }
            self.go_to_match(cmd == KeyCommand::NextMatch, ctx);
            return Handled::Consumed;
        }
        if cmd == KeyCommand::Back && self.search.is_some() && self.anchor.is_none() {
            self.search = None;
            ctx.say("search ended: n/N go from file to file again");
            return Handled::Consumed;
        }
        if cmd == KeyCommand::Back && self.anchor.is_some() {
            self.anchor = None;
            return Handled::Consumed;
        }
        if cmd == KeyCommand::ToggleViewed {
            self.toggle_viewed(ctx);
            return Handled::Consumed;
        }
        self.layout = ctx.session.diff_layout;
        match cmd {
            KeyCommand::ToggleSplit => {
                self.toggle_split(ctx);
                return Handled::Consumed;
            }
            KeyCommand::ExpandContext | KeyCommand::ExpandFile => {
                self.expand(cmd, ctx);
                return Handled::Consumed;
            }
            KeyCommand::SideLeft | KeyCommand::SideRight => {
                let side = if cmd == KeyCommand::SideLeft {
                    Side::Left
                } else {
                    Side::Right
                };
                self.put_on_side(side, ctx);
                return Handled::Consumed;
            }
            _ => {}
        }
        if self.patch_command(cmd, ctx) {
            return Handled::Consumed;
        }
        if matches!(
            cmd,
            KeyCommand::Reply
                | KeyCommand::Suggest
                | KeyCommand::SelectLines
                | KeyCommand::AskModel
        ) {
            ctx.say("line comments: this file shows no lines to comment on");
            return Handled::Consumed;
        }
        Handled::NotConsumed
    }

    /// The question prompt's input (`a`): sent, the answer pane opens above the diff.
    fn dialog(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        if self.composer.is_some() {
            let snapshot = Arc::clone(&self.snapshot);
            composer::Composer::dialog(&mut self.composer, action, &snapshot, ctx);
            if self.composer.is_none() {
                // Written (or left empty): the lines are no longer selected.
                self.anchor = None;
            }
            return;
        }
        if ask::Question::dialog(&mut self.question, action, ctx) {
            // Asked. The answer may become a comment: the pending review is read again on
            // return.
            self.anchor = None;
            self.pending_asked = false;
        }
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let done = match &action {
            Action::Done(done) => done.take::<Done>(),
            _ => None,
        };
        if let Some(Done::Loaded(result)) = done {
            if self.loading {
                match result {
                    Ok(load) if load.pr == self.snapshot.pr.coords() => {
                        self.loaded_on_its_own(*load)
                    }
                    Ok(_) => {}
                    Err(e) => {
                        self.loading = false;
                        ctx.say(format!(
                            "cannot read your last look at the code: {}",
                            one_line(&e)
                        ));
                    }
                }
            }
            return None;
        }
        if let Some(Done::EditorFile(result)) = done {
            self.editor_file_ready(result, ctx);
            return None;
        }
        if let Some(Done::Contents { path, head, base }) = done {
            if self.file().is_some_and(|f| f.path == path) {
                self.contents_read(head, base, ctx);
            }
            return None;
        }
        if let Some(Done::Dismissed { finding, result }) = done {
            match result {
                Ok(said) => {
                    // Decided: off its line here, and its draft read again as decided.
                    let mut load = (*self.load).clone();
                    load.findings.retain(|f| f.id != finding);
                    load.drafted.retain(|f| f.id != finding);
                    self.load = Arc::new(load);
                    self.pending_asked = false;
                    if self.view.is_some() {
                        let pos = self.pos();
                        self.build();
                        self.go(pos);
                    }
                    ctx.say(said);
                }
                Err(e) => ctx.say(format!("not dismissed: {}", one_line(&e))),
            }
            return None;
        }
        if let Some(Done::PendingChanged(result)) = done {
            match result {
                Ok((review, said)) => {
                    self.set_pending(Arc::new(*review));
                    ctx.say(said);
                }
                Err(e) => ctx.say(format!(
                    "the pending review was not changed: {}",
                    one_line(&e)
                )),
            }
            return None;
        }
        if let Some(Done::Pending(result)) = done {
            match result {
                Ok(review) => self.set_pending(Arc::new(*review)),
                Err(e) => ctx.say(format!(
                    "the pending review cannot be read: {}",
                    one_line(&e)
                )),
            }
            return None;
        }
        if let Some((paths, result)) = super::files::shown(&action) {
            self.records_out = self.records_out.saturating_sub(1);
            // Seen here too; the files screen that opened it hears it as well.
            if result.is_ok() && self.file().is_some_and(|f| paths.contains(&f.path)) {
                self.seen_now = true;
            }
            if let Some(said) = super::files::marks_said(&action) {
                ctx.say(said);
            }
            self.echo.push(action);
            return None;
        }
        match action {
            Action::ExternallyEdited {
                target: crate::tui::app::action::EditTarget::Pending,
                result,
            } => {
                composer::Composer::externally_edited(&mut self.composer, result, ctx);
                None
            }
            Action::Highlighted { key, lines } if key == self.key_for_highlight() => {
                self.highlighted = Some(lines);
                None
            }
            // Viewed here too; the files screen that opened it hears it as well.
            Action::ViewedSet {
                ref paths,
                viewed,
                ref result,
            } => {
                if self.file().is_some_and(|f| paths.contains(&f.path)) {
                    self.viewed_pending = false;
                    if result.is_ok() {
                        self.viewed = if viewed {
                            ViewedState::Viewed
                        } else {
                            ViewedState::Unviewed
                        };
                    }
                }
                if let Some(said) = super::files::marks_said(&action) {
                    ctx.say(said);
                }
                self.echo.push(action);
                None
            }
            other => Some(other),
        }
    }

    /// Back on top: a comment the screen above left to write (the model's answer after `c`)
    /// opens in the composer under its lines.
    fn uncovered(&mut self, left: &dyn Screen, ctx: &mut Ctx<'_>) {
        self.sent_above.extend(left.sent());
        if let Some((sel, text)) = left.comment_to_write() {
            let c = composer::Composer::new(sel, false, Some(&text));
            self.open_composer(c, ctx);
        }
    }

    /// On the stack: a diff opened on its own reads what the files screen would have given it.
    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        // The layout chosen earlier in this run, over `[console] diff_layout`.
        if self.split_chosen.is_none() {
            self.split_chosen = ctx.session.layout_chosen.get();
        }
        self.echo.at(self.index);
        if self.loading {
            ctx.work(Work::Load {
                snapshot: Box::new((*self.snapshot).clone()),
            });
        }
        if let Some(said) = self.said_on_open.take() {
            ctx.say(said);
        }
    }

    /// The frame is on screen: what it showed of the file is recorded as seen (once), and the
    /// highlighter is asked for the patch shown.
    fn drawn(&mut self, d: Drawn, ctx: &mut Ctx<'_>) {
        self.height = usize::from(d.detail_height);
        self.width = usize::from(d.detail_area.width);
        if let Some(p) = &self.pane {
            let shown = p.shown(self.pending.as_deref(), &self.known_findings());
            self.pane_max = finding_pane::FindingPane::max_scroll(&shown, d.detail_area);
        }
        self.layout = ctx.session.diff_layout;
        // A commit's patch shows no pending comment: theirs are the PR head's lines.
        if !self.pending_asked && self.read_only.is_none() {
            self.pending_asked = true;
            ctx.work(Work::LoadPending {
                snapshot: Box::new((*self.snapshot).clone()),
            });
        }
        if self.interdiff_on {
            self.inter_max = d.detail_lines.saturating_sub(self.height);
        }
        if d.shown.is_none() {
            return;
        }
        // A commit's patch is never the PR's file seen.
        if !self.recorded
            && self.read_only.is_none()
            && let Some(file) = self.file()
        {
            ctx.work(Work::RecordShown {
                pr: self.snapshot.pr.coords(),
                files: vec![file.clone()],
                all: self
                    .snapshot
                    .pr
                    .files
                    .iter()
                    .map(|f| f.path.clone())
                    .collect(),
            });
            self.recorded = true;
            self.records_out += 1;
        }
        if !self.highlight_asked
            && let (Some(v), Some(file)) = (&self.view, self.file())
        {
            ctx.fx.push(Effect::Highlight {
                key: self.key_for_highlight(),
                path: file.path.clone(),
                hunk: v.source.clone(),
            });
            self.highlight_asked = true;
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let theme = view.theme;
        let [head, body, foot_area] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Min(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let width = usize::from(area.width);
        let header: Vec<Line> = self
            .header(theme)
            .into_iter()
            .map(|l| fit(l, width))
            .collect();
        frame.render_widget(Paragraph::new(header), head);
        let height = usize::from(body.height);
        let split = self.split_at(view.session.diff_layout, width);
        let expand_key = view.keymap.keys_label(KeyCommand::ExpandContext);
        let under = self.composer.as_ref().map(|_| self.selection_bottom());
        let (lines, total, shown, under_end) =
            self.body(theme, height, width, split, &expand_key, under);
        match &self.composer {
            Some(c) => composer::draw_under(frame, body, lines, under_end, c, theme),
            None => frame.render_widget(Paragraph::new(lines), body),
        }
        if let Some(q) = &self.question {
            q.draw(frame, body, theme);
        }
        if let Some(p) = &self.pane {
            let shown = p.shown(self.pending.as_deref(), &self.known_findings());
            p.draw(frame, body, &shown, view.keymap, theme);
        }
        let foot = match (&self.composer, view.mode, &self.read_only) {
            (Some(_), _, _) => composer::footer(theme),
            (None, crate::tui::app::InputMode::Search { query, .. }, _) => {
                self.prompt_line(query, theme)
            }
            // A commit's patch hints at what it answers (`commit_patch.rs`).
            (None, _, Some(r)) => footer(view, r.hints(), foot_area.width),
            // The finding pane's keys while it is open.
            (None, _, None) if self.pane.is_some() => {
                footer(view, finding_pane::HINTS, foot_area.width)
            }
            (None, _, None) => footer(
                view,
                &[
                    (KeyCommand::NextHunk, "hunk"),
                    (KeyCommand::NextNew, "thread/finding"),
                    (KeyCommand::Interdiff, "interdiff"),
                    (KeyCommand::SelectLines, "select"),
                    (KeyCommand::Reply, "comment"),
                ],
                foot_area.width,
            ),
        };
        frame.render_widget(Paragraph::new(fit(foot, width)), foot_area);
        Drawn {
            shown: shown.then_some(self.index),
            detail_height: body.height,
            detail_lines: total,
            detail_area: body,
            ..Drawn::default()
        }
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        if self.read_only.is_some() {
            return help_entries(keymap, &[MOVES, commit_patch::KEYS, LAYOUT].concat());
        }
        if self.pane.is_some() {
            return help_entries(keymap, finding_pane::KEYS);
        }
        help_entries(keymap, &[MOVES, KEYS, LAYOUT].concat())
    }

    /// The dismissal's reason prompt (the search prompt's line): `Enter` with a reason records
    /// the dismissal; with none the prompt stays open saying so; `Esc` dismisses nothing.
    fn search(&mut self, step: crate::tui::app::SearchStep<'_>, ctx: &mut Ctx<'_>) {
        use crate::tui::app::SearchStep;
        if self.dismissing.is_none() {
            return self.search_step(step, ctx);
        }
        let reason = match step {
            SearchStep::Changed { .. } => return,
            SearchStep::Cancelled { .. } => {
                self.dismissing = None;
                return ctx.say("not dismissed");
            }
            SearchStep::Accepted(q) => q.trim().to_owned(),
        };
        if reason.is_empty() {
            *ctx.mode = crate::tui::app::InputMode::Search {
                query: String::new(),
                before: 0,
            };
            return ctx.say("a dismissal needs its reason: type it, Enter dismisses, Esc cancels");
        }
        let Some((id, lesson)) = self.dismissing.take() else {
            return;
        };
        let known = self.known_findings();
        let Some(f) = known.iter().find(|f| f.id == id) else {
            return ctx.say(format!("{} is no longer among the findings", one_line(&id)));
        };
        let (decision, lesson_made) = crate::review::results::outcome::dismissal(
            &f.meta,
            &reason,
            lesson,
            self.snapshot.pr.number,
            ctx.session.now,
        );
        let repo = format!("{}/{}", self.snapshot.pr.owner, self.snapshot.pr.repo);
        let said = match &lesson_made {
            Some(l) => format!(
                "{} dismissed; lesson {} for {repo}: given to every later review of it",
                one_line(&id),
                l.id
            ),
            None => format!(
                "{} dismissed: never proposed again on this PR",
                one_line(&id)
            ),
        };
        ctx.work(Work::Dismiss {
            pr: self.snapshot.pr.coords(),
            decision: Box::new(decision),
            lesson: lesson_made.map(Box::new),
            said,
        });
        self.echo.dismissed(&id, &reason, lesson);
        self.pane = None;
    }
}
