//! The rows of a file's diff: its patch's hunks and lines, with the threads, the pending
//! review's comments (a finding's draft once, as the draft) and the latest findings under
//! their lines, and what is on no line of the diff above it.

use super::diff::{DiffScreen, PatchView, RowKind};
use super::note::{About, Note, NoteKind, prefix};
use super::split_view::{self, SplitLayout};
use crate::code::patch::{LineAddr, LineKind, ParsedPatch, Side, parse};
use crate::code::pending::{CommentKind, DraftState, PendingComment};
use crate::output::files::FindingMark;
use crate::pr::{DiffSide, Item, Thread, without_markers};
use crate::sanitize::one_line;

/// Lines of an outdated thread's own hunk shown under it: the commented line and those above.
const WRITTEN_ON_LINES: usize = 4;

/// A thread's note and the patch line it sits under: a thread on the old side (GitHub's
/// `LEFT`) under the old-side row with its number (a removed or a context row), one on the new
/// side under the new-side row; an outdated one under none (it is shown with its own hunk).
fn thread_note(t: &Thread, parsed: &ParsedPatch) -> (String, Option<usize>) {
    let mut text = match t.comments.first() {
        Some(c) => format!(
            "thread @{}: {}",
            one_line(&c.author.login),
            one_line(without_markers(&c.body).lines().next().unwrap_or(""))
        ),
        None => "thread".to_owned(),
    };
    if t.comments.len() > 1 {
        text.push_str(&format!(" (+{} repl{})", t.comments.len() - 1, {
            if t.comments.len() == 2 { "y" } else { "ies" }
        }));
    }
    let side = match t.side {
        Some(DiffSide::Left) => Side::Left,
        Some(DiffSide::Right) | None => Side::Right,
    };
    let word = match side {
        Side::Left => " (old side)",
        Side::Right => "",
    };
    let at = if t.outdated {
        None
    } else {
        t.line.and_then(|line| parsed.find(LineAddr { side, line }))
    };
    if t.resolved {
        text.push_str(" · resolved");
    }
    // Sent by the maintainer, not on GitHub as read yet.
    if crate::pr::is_queued(&t.id) {
        text.push_str(if crate::ledger::is_sent_live(&t.id) {
            " · sent, not read back yet"
        } else {
            " · queued (offline)"
        });
    }
    if at.is_none() {
        let place = if t.outdated {
            match t.original_line {
                Some(l) => {
                    format!(
                        "outdated: written on line {l}{word} of an earlier version, shown below"
                    )
                }
                None => "outdated: written on an earlier version, shown below".to_owned(),
            }
        } else {
            match t.line.or(t.original_line) {
                Some(l) => format!("line {l}{word}, not in this diff"),
                None => "on no line".to_owned(),
            }
        };
        text.push_str(&format!(" · {place}"));
    }
    (text, at)
}

/// A pending comment's gutter label and note: `pending c2` · `comment: Why …`, a suggestion's
/// suggestion by the line it changes (`suggest: …`, as the pending list has it); a finding's draft as its finding is shown (`mark`), labelled
/// `to decide c3` until it is kept or edited.
fn pending_note(c: &PendingComment, mark: Option<&FindingMark>) -> (String, String) {
    // The pending list's own one-line preview: a suggestion by the line it changes, never its
    // fence.
    let preview = one_line(&without_markers(&c.preview()));
    let what = match c.kind {
        CommentKind::Comment => format!("comment: {preview}"),
        CommentKind::Suggestion => preview,
        CommentKind::Finding => match mark {
            Some(f) => format!(
                "finding ({}): {}",
                one_line(&f.severity),
                one_line(&f.message)
            ),
            // The draft's text, its Markdown emphasis left out.
            None => format!("finding: {}", preview.replace("**", "")),
        },
    };
    let lines = match c.start_line {
        Some(s) => format!("lines {s}–{}: ", c.line),
        None => String::new(),
    };
    let label = match c.state {
        DraftState::Proposed => format!("to decide {}", one_line(&c.id)),
        // Already on the PR (in the Shepherd comment or a submitted review): never sent again.
        DraftState::Posted => format!("posted {}", one_line(&c.id)),
        _ => format!("pending {}", one_line(&c.id)),
    };
    (label, format!("{lines}{what}"))
}

/// The tail of an outdated thread's own hunk (GitHub's `diffHunk` ends at the commented line).
fn written_on(hunk: &str) -> Vec<String> {
    let lines: Vec<&str> = hunk.lines().filter(|l| !l.starts_with("@@")).collect();
    let skip = lines.len().saturating_sub(WRITTEN_ON_LINES);
    lines[skip..].iter().map(|l| (*l).to_owned()).collect()
}

impl DiffScreen {
    /// Parses the file's patch and lays out its rows with the threads and findings on them.
    pub(super) fn build(&mut self) {
        let Some(file) = self.file() else { return };
        let Some(patch) = file.patch.as_deref() else {
            return;
        };
        let parsed = parse(patch);
        let mut under: Vec<Vec<Note>> = vec![Vec::new(); parsed.lines.len()];
        let mut unplaced: Vec<RowKind> = Vec::new();
        let right = |line: u32| {
            parsed
                .lines
                .iter()
                .position(|l| l.kind != LineKind::Removed && l.new == Some(line))
        };
        for item in &self.snapshot.items {
            let Item::Thread(t) = item else { continue };
            if t.path != file.path {
                continue;
            }
            let (text, at) = thread_note(t, &parsed);
            let note = Note {
                kind: NoteKind::Thread,
                label: String::new(),
                text,
                about: Some(About::Thread(t.id.clone())),
                side: match t.side {
                    Some(DiffSide::Left) => Side::Left,
                    _ => Side::Right,
                },
            };
            match at {
                Some(i) => under[i].push(note),
                None => {
                    unplaced.push(RowKind::Note(note));
                    if t.outdated {
                        // Shown with the code it was written on, never beside today's line.
                        unplaced.extend(written_on(&t.diff_hunk).into_iter().map(RowKind::Old));
                    }
                }
            }
        }
        // The pending review's comments on this file, not dropped; a finding with its draft
        // there is shown once, as the draft.
        let pending: Vec<&PendingComment> = self
            .pending
            .as_ref()
            .map(|r| {
                r.comments
                    .iter()
                    .filter(|c| c.path == file.path && c.state != DraftState::Dropped)
                    .collect()
            })
            .unwrap_or_default();
        for c in &pending {
            let mark = c
                .finding_id
                .as_deref()
                .and_then(|id| self.load.findings.iter().find(|f| f.id == id));
            let (label, mut text) = pending_note(c, mark);
            let at = if c.needs_decision() {
                None
            } else {
                parsed.find(LineAddr {
                    side: c.side,
                    line: c.line,
                })
            };
            match at {
                Some(i) => under[i].push(Note {
                    kind: NoteKind::Pending,
                    label,
                    text,
                    about: Some(About::Pending(c.id.clone())),
                    side: c.side,
                }),
                None => {
                    let place = c
                        .follow_said()
                        .unwrap_or_else(|| format!("line {}, not in this diff", c.lines_label()));
                    text.push_str(&format!(" · {}", one_line(&place)));
                    unplaced.push(RowKind::Note(Note {
                        kind: NoteKind::Pending,
                        label,
                        text,
                        about: Some(About::Pending(c.id.clone())),
                        side: c.side,
                    }));
                }
            }
        }
        for f in &self.load.findings {
            if f.file != file.path
                || pending
                    .iter()
                    .any(|c| c.finding_id.as_deref() == Some(f.id.as_str()))
            {
                continue;
            }
            let note = Note {
                label: String::new(),
                about: Some(About::Finding(f.id.clone())),
                side: Side::Right,
                kind: NoteKind::Finding,
                text: format!(
                    "finding ({}): {}",
                    one_line(&f.severity),
                    one_line(&f.message)
                ),
            };
            match f.line.and_then(right) {
                Some(i) => under[i].push(note),
                None => unplaced.push(RowKind::Note(Note {
                    text: format!(
                        "{} · {}",
                        note.text,
                        match f.line {
                            Some(l) => format!("line {l}, not in this diff"),
                            None => "on the file".to_owned(),
                        }
                    ),
                    ..note
                })),
            }
        }
        let head = unplaced.len();
        let sided: Vec<Vec<(Side, Note)>> = under
            .iter()
            .map(|ns| ns.iter().map(|n| (n.side, n.clone())).collect())
            .collect();
        let split = SplitLayout::new(&parsed, head, &sided);
        let marks = split_view::word_marks(&parsed, &split.rows);
        let mut rows: Vec<RowKind> = unplaced;
        let mut row_of = vec![0; parsed.lines.len()];
        let mut noted = Vec::new();
        let mut source = String::with_capacity(patch.len() + parsed.lines.len());
        let mut next_hunk = 0;
        for (i, (line, notes)) in parsed.lines.iter().zip(under).enumerate() {
            while let Some(h) = parsed.hunks.get(next_hunk) {
                if h.lines.start > i {
                    break;
                }
                rows.push(RowKind::Hunk(next_hunk));
                next_hunk += 1;
            }
            row_of[i] = rows.len();
            rows.push(RowKind::Line(i));
            source.push(prefix(line.kind));
            source.push_str(&line.text);
            source.push('\n');
            if !notes.is_empty() {
                noted.push(i);
                rows.extend(notes.into_iter().map(RowKind::Note));
            }
        }
        self.view = Some(PatchView {
            parsed,
            base_rows: rows.clone(),
            rows,
            row_of,
            noted,
            source,
            marks,
            split,
        });
        self.lay_out_gaps();
    }
}
