//! The diff side by side (`|`, `[console] diff_layout`), and the changed words both layouts mark.
//!
//! The rows come from [`crate::code::split`]: the old file's line (number and text) on the left,
//! the new file's on the right, a modified pair on one row with its changed words marked. The
//! threads, findings and pending comments of a line sit under its row on their side (a `LEFT`
//! thread in the left half, a `RIGHT` one in the right). Each half wraps its line under its own
//! gutter as the unified view does; text is sanitized and tabs expanded the same way.
//!
//! The cursor is a patch line, as in the unified view, plus the side it prefers: moving goes by
//! rows and keeps the side where the row has a line there (else the row's only line); `h`/`l`
//! choose the side. A selection and a comment are on the cursor's side (a context line on the
//! left is addressed by its old number on `LEFT`).
//!
//! Everything here is laid out once per file ([`SplitLayout::new`], from the diff screen's
//! `build`); a frame only draws the rows on screen.

use std::collections::HashMap;
use std::ops::{Range, RangeInclusive};

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::context::{self, CtxRow, GapRow};
use super::note::{Note, clean, note_line, prefix};
use crate::code::expand::FileGaps;
use crate::code::patch::{LineKind, LineSelection, ParsedPatch, Side};
use crate::code::split::{SplitRow, split_rows};
use crate::tui::theme::Theme;
use crate::tui::ui::{fit, wrap_diff};

/// Columns of a half's gutter: cursor, selection mark, the line's number and a space.
pub(super) const HALF_GUTTER: usize = 8;

/// The fewest columns of text a half must have for the split view to be readable; narrower, the
/// diff stays unified and says so.
pub const MIN_SIDE_TEXT: usize = 20;

/// The columns between the halves.
const SEPARATOR: &str = "│";

/// The narrowest screen the split view is drawn on.
pub fn min_split_width() -> usize {
    2 * (HALF_GUTTER + MIN_SIDE_TEXT) + SEPARATOR.len().min(1)
}

/// Whether a body `width` columns wide gives each half at least [`MIN_SIDE_TEXT`] columns.
pub fn fits(width: usize) -> bool {
    width >= min_split_width()
}

/// The widths of the left and right halves of a body `width` wide.
fn halves(width: usize) -> (usize, usize) {
    let rest = width.saturating_sub(1);
    let left = rest / 2;
    (left, rest - left)
}

/// One row of the split view as drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum SRow {
    /// A row of the unified layout's head (notes on no line, an outdated thread's code), drawn
    /// across the whole width: index into the unified rows.
    Head(usize),
    Hunk(usize),
    /// Index into [`SplitLayout::rows`].
    Row(usize),
    /// A left note and a right note under the row above (either may be missing).
    Notes(Option<Note>, Option<Note>),
    /// A line of the file outside the hunks, shown on demand (`e`/`E`): on both sides, not a
    /// line of the diff.
    Context(CtxRow),
    /// How many lines of a gap are still hidden.
    Hidden(u32),
}

/// The split view of one file's patch: its rows and where each patch line is.
#[derive(Debug, Clone)]
pub(super) struct SplitLayout {
    pub rows: Vec<SplitRow>,
    pub display: Vec<SRow>,
    /// The display rows of the patch alone (`display` is them with the file's expanded lines).
    base: Vec<SRow>,
    /// Per split row, its display row.
    pub display_of: Vec<usize>,
    /// Per patch line, its split row (`\ No newline` markers and lines before the first hunk:
    /// the row before them, or 0).
    pub row_of_line: Vec<usize>,
}

impl SplitLayout {
    /// The layout of `parsed`, with `head` rows of the unified layout drawn first and each
    /// line's notes (`notes[idx]`: the notes under patch line `idx`, with their side).
    pub fn new(parsed: &ParsedPatch, head: usize, notes: &[Vec<(Side, Note)>]) -> SplitLayout {
        let rows = split_rows(parsed);
        let mut display: Vec<SRow> = (0..head).map(SRow::Head).collect();
        let mut display_of = Vec::with_capacity(rows.len());
        let mut row_of_line = vec![usize::MAX; parsed.lines.len()];
        let mut last_hunk = None;
        for (r, row) in rows.iter().enumerate() {
            if last_hunk != Some(row.hunk) {
                display.push(SRow::Hunk(row.hunk));
                last_hunk = Some(row.hunk);
            }
            display_of.push(display.len());
            display.push(SRow::Row(r));
            let on = |side: Side| -> Vec<Note> {
                row.cell(side)
                    .and_then(|c| notes.get(c.idx))
                    .map(|ns| {
                        ns.iter()
                            .filter(|(s, _)| *s == side)
                            .map(|(_, n)| n.clone())
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (left, right) = (on(Side::Left), on(Side::Right));
            let mut left = left.into_iter();
            let mut right = right.into_iter();
            loop {
                match (left.next(), right.next()) {
                    (None, None) => break,
                    (l, r) => display.push(SRow::Notes(l, r)),
                }
            }
            for c in [&row.left, &row.right].into_iter().flatten() {
                if let Some(slot) = row_of_line.get_mut(c.idx) {
                    *slot = r;
                }
            }
        }
        // Lines with no row of their own (markers, junk before a hunk) go with the row before.
        let mut prev = 0;
        for slot in &mut row_of_line {
            if *slot == usize::MAX {
                *slot = prev;
            } else {
                prev = *slot;
            }
        }
        SplitLayout {
            rows,
            base: display.clone(),
            display,
            display_of,
            row_of_line,
        }
    }

    /// The display rows with the shown lines of `gaps` (none: the patch alone) before the hunks
    /// they precede.
    pub fn set_gaps(&mut self, gaps: Option<&FileGaps>) {
        self.display = context::interleave(
            &self.base,
            gaps,
            |r| match r {
                SRow::Hunk(h) => Some(*h),
                _ => None,
            },
            |g| match g {
                GapRow::Line(c) => SRow::Context(c),
                GapRow::Hidden { count } => SRow::Hidden(count),
            },
        );
        self.display_of = self
            .display
            .iter()
            .enumerate()
            .filter_map(|(d, r)| matches!(r, SRow::Row(_)).then_some(d))
            .collect();
    }

    /// The display row of the expanded line `(gap, old, new)`.
    pub fn display_of_context(&self, at: (usize, u32, u32)) -> Option<usize> {
        self.display
            .iter()
            .position(|r| matches!(r, SRow::Context(c) if (c.gap, c.old, c.new) == at))
    }

    /// The split row of patch line `idx`.
    pub fn row(&self, idx: usize) -> usize {
        self.row_of_line.get(idx).copied().unwrap_or(0)
    }

    /// The side the cursor (patch line `cursor`, preferring `side`) is on in its row.
    pub fn side_of(&self, cursor: usize, side: Side) -> Side {
        let row = self.rows.get(self.row(cursor));
        match row.and_then(|r| r.cell(side)) {
            Some(c) if c.idx == cursor => side,
            _ => other(side),
        }
    }

    /// The patch line on `side` of row `r`, else the row's other line.
    pub fn line_at(&self, r: usize, side: Side) -> Option<usize> {
        let row = self.rows.get(r)?;
        row.cell(side)
            .or_else(|| row.cell(other(side)))
            .map(|c| c.idx)
    }

    /// The display rows under row `r` that are its notes.
    pub fn notes_under(&self, r: usize) -> usize {
        let at = self.display_of.get(r).copied().unwrap_or(0);
        self.display.get(at + 1..).map_or(0, |d| {
            d.iter()
                .take_while(|x| matches!(x, SRow::Notes(..)))
                .count()
        })
    }

    /// The lines from `anchor` to `cursor` on `side` (both lines must be on it) as the selection
    /// a comment is written on, in file `path`.
    pub fn selection(
        &self,
        path: &str,
        parsed: &ParsedPatch,
        anchor: usize,
        cursor: usize,
        side: Side,
    ) -> Option<LineSelection> {
        let on_side = |idx: usize| {
            let r = self.row(idx);
            self.rows
                .get(r)
                .and_then(|row| row.cell(side))
                .is_some_and(|c| c.idx == idx)
        };
        if !on_side(anchor) || !on_side(cursor) {
            return None;
        }
        let (a, b) = (self.row(anchor), self.row(cursor));
        let cells: Vec<_> = self.rows[a.min(b)..=a.max(b)]
            .iter()
            .filter_map(|r| r.cell(side))
            .collect();
        let (first, last) = (cells.first()?, cells.last()?);
        Some(LineSelection {
            path: path.to_owned(),
            start: (first.line < last.line).then_some(first.addr()),
            end: last.addr(),
            text: cells.iter().map(|c| c.text(parsed).to_owned()).collect(),
        })
    }

    /// The split rows a selection from `anchor` to `cursor` covers.
    fn selected_rows(&self, anchor: Option<usize>, cursor: usize) -> Option<RangeInclusive<usize>> {
        let a = self.row(anchor?);
        let c = self.row(cursor);
        Some(a.min(c)..=a.max(c))
    }
}

pub(super) fn other(side: Side) -> Side {
    match side {
        Side::Left => Side::Right,
        Side::Right => Side::Left,
    }
}

/// Byte ranges of `raw` (a patch line's text) in the text as drawn ([`clean`]: sanitized, tabs
/// expanded). Cleaning is character by character, so each part cleans on its own.
pub(super) fn display_ranges(raw: &str, ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(ranges.len());
    let (mut raw_at, mut shown_at) = (0, 0);
    for r in ranges {
        let (Some(gap), Some(part)) = (raw.get(raw_at..r.start), raw.get(r.start..r.end)) else {
            break;
        };
        shown_at += clean(gap).len();
        let len = clean(part).len();
        if len > 0 {
            out.push(shown_at..shown_at + len);
        }
        shown_at += len;
        raw_at = r.end;
    }
    out
}

/// The changed words of every marked line of `rows`, by patch line, as byte ranges of the
/// drawn text (without the `+`/`-` prefix).
pub(super) fn word_marks(
    parsed: &ParsedPatch,
    rows: &[SplitRow],
) -> HashMap<usize, Vec<Range<usize>>> {
    let mut out = HashMap::new();
    for row in rows {
        let (Some(m), Some(l), Some(r)) = (&row.marks, &row.left, &row.right) else {
            continue;
        };
        for (cell, ranges) in [(l, &m.old), (r, &m.new)] {
            if ranges.is_empty() {
                continue;
            }
            out.insert(cell.idx, display_ranges(cell.text(parsed), ranges));
        }
    }
    out
}

/// `spans` (a drawn line: its one-character prefix, then its text) with the byte ranges `marks`
/// of the text (after the prefix) given `style` over their own: the syntax colours are split at
/// the marks' edges and kept.
pub(super) fn mark_words(
    spans: Vec<Span<'static>>,
    marks: &[Range<usize>],
    style: Style,
) -> Vec<Span<'static>> {
    if marks.is_empty() {
        return spans;
    }
    let mut out = Vec::with_capacity(spans.len() + 2 * marks.len());
    // Byte offset of the span's start in the line, prefix included.
    let mut at = 0usize;
    for span in spans {
        let text = span.content.as_ref();
        let (start, end) = (at, at + text.len());
        at = end;
        // Cut points inside this span (line offsets: a mark's range plus the prefix's byte).
        let mut cuts: Vec<usize> = marks
            .iter()
            .flat_map(|m| [m.start + 1, m.end + 1])
            .filter(|&c| c > start && c < end && text.is_char_boundary(c - start))
            .collect();
        cuts.dedup();
        let mut from = start;
        for to in cuts.into_iter().chain(std::iter::once(end)) {
            if to <= from {
                continue;
            }
            let piece = &text[from - start..to - start];
            let marked = marks.iter().any(|m| from > m.start && to <= m.end + 1);
            let st = if marked {
                span.style.patch(style)
            } else {
                span.style
            };
            out.push(Span::styled(piece.to_owned(), st));
            from = to;
        }
    }
    out
}

/// The spans of patch line `idx` as drawn: the highlighter's line when there is one, else the
/// line in diff colours; with its changed words marked.
pub(super) fn line_spans(
    parsed: &ParsedPatch,
    idx: usize,
    highlighted: Option<&Line<'static>>,
    marks: Option<&Vec<Range<usize>>>,
    found: Option<&str>,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let Some(pl) = parsed.lines.get(idx) else {
        return Vec::new();
    };
    let spans: Vec<Span<'static>> = match highlighted {
        Some(l) => l
            .spans
            .iter()
            .cloned()
            .map(|s| {
                if l.style == Style::default() {
                    s
                } else {
                    s.patch_style(l.style)
                }
            })
            .collect(),
        None => {
            let style = match pl.kind {
                LineKind::Added => theme.diff_added,
                LineKind::Removed => theme.diff_removed,
                _ => theme.diff_context,
            };
            vec![Span::styled(
                format!("{}{}", prefix(pl.kind), clean(&pl.text)),
                style,
            )]
        }
    };
    let spans = match (marks, pl.kind) {
        (Some(m), LineKind::Added) => mark_words(spans, m, theme.diff_word_added),
        (Some(m), LineKind::Removed) => mark_words(spans, m, theme.diff_word_removed),
        _ => spans,
    };
    // The search's matches, as less and editors mark them.
    match found {
        Some(q) => {
            let found = super::search::ranges_in(&pl.text, q);
            mark_words(spans, &display_ranges(&pl.text, &found), theme.search_match)
        }
        None => spans,
    }
}

/// What a frame of the split view needs of the diff screen.
pub(super) struct Frame<'a> {
    pub parsed: &'a ParsedPatch,
    pub layout: &'a SplitLayout,
    /// The unified rows' head, drawn whole (by [`SRow::Head`]).
    pub head: &'a dyn Fn(usize) -> Line<'static>,
    pub highlighted: Option<&'a [Line<'static>]>,
    pub marks: &'a HashMap<usize, Vec<Range<usize>>>,
    pub cursor: usize,
    pub side: Side,
    pub anchor: Option<usize>,
    pub scroll: usize,
    pub theme: &'a Theme,
    /// The display row of the expanded line the cursor is on (none: it is on a patch line).
    pub on_context: Option<usize>,
    /// The keys of `e`, for the rows that say lines are hidden.
    pub expand_key: &'a str,
    /// A patch line the composer opens under: [`Frame::body`] says where its row ends.
    pub under: Option<usize>,
    /// The search's query, while a search is on: its matches are marked.
    pub found: Option<&'a str>,
}

/// Pads `line` with blanks to `width` columns (cut to it first).
fn pad(line: Line<'static>, width: usize) -> Vec<Span<'static>> {
    let line = fit(line, width);
    let w = line.width();
    let mut spans = line.spans;
    if w < width {
        spans.push(Span::raw(" ".repeat(width - w)));
    }
    spans
}

impl Frame<'_> {
    /// The wrapped screen lines of one half's cell on row `r`, `width` columns wide.
    fn cell_lines(&self, r: usize, side: Side, width: usize) -> Vec<Line<'static>> {
        let t = self.theme;
        let Some(row) = self.layout.rows.get(r) else {
            return Vec::new();
        };
        let Some(cell) = row.cell(side) else {
            return vec![Line::default()];
        };
        let here = self.on_context.is_none()
            && self.cursor == cell.idx
            && self.layout.side_of(self.cursor, self.side) == side;
        let cur = if here { "▶" } else { " " };
        let selected = self
            .layout
            .selected_rows(self.anchor, self.cursor)
            .is_some_and(|rows| {
                rows.contains(&r) && self.layout.side_of(self.cursor, self.side) == side
            });
        let mark = if selected { "┃" } else { " " };
        let content = line_spans(
            self.parsed,
            cell.idx,
            self.highlighted.and_then(|h| h.get(cell.idx)),
            self.marks.get(&cell.idx),
            self.found,
            t,
        );
        let mut wrapped = Vec::new();
        wrap_diff(
            Line::from(content),
            width.saturating_sub(HALF_GUTTER).max(2),
            &mut wrapped,
        );
        let mut out = Vec::with_capacity(wrapped.len() + 1);
        for (k, w) in wrapped.into_iter().enumerate() {
            let mut spans = if k == 0 {
                vec![
                    Span::styled(cur, t.key),
                    Span::styled(mark, t.key),
                    Span::styled(format!("{:>5} ", cell.line), t.dim),
                ]
            } else {
                vec![
                    Span::styled(" ", t.key),
                    Span::styled(mark, t.key),
                    Span::styled(format!("{:>5} ", "↪"), t.dim),
                ]
            };
            spans.extend(w.spans);
            out.push(Line::from(spans));
        }
        if cell.no_newline {
            out.push(Line::from(vec![
                Span::raw(" ".repeat(HALF_GUTTER)),
                Span::styled("\\ no newline at end of file", t.dim),
            ]));
        }
        out
    }

    /// The screen lines of display row `d`, `width` columns wide.
    fn lines_of(&self, d: usize, width: usize) -> Vec<Line<'static>> {
        let t = self.theme;
        let (lw, rw) = halves(width);
        let sep = || Span::styled(SEPARATOR, t.border);
        match self.layout.display.get(d) {
            None => Vec::new(),
            Some(SRow::Head(i)) => vec![fit((self.head)(*i), width)],
            Some(SRow::Hunk(h)) => {
                let Some(hk) = self.parsed.hunks.get(*h) else {
                    return Vec::new();
                };
                vec![fit(
                    Line::styled(
                        format!(
                            "   @@ -{},{} +{},{} @@ {}",
                            hk.old_start,
                            hk.old_len,
                            hk.new_start,
                            hk.new_len,
                            crate::sanitize::one_line(&hk.section)
                        ),
                        t.diff_hunk_header,
                    ),
                    width,
                )]
            }
            Some(SRow::Row(r)) => {
                let left = self.cell_lines(*r, Side::Left, lw);
                let right = self.cell_lines(*r, Side::Right, rw);
                beside(&left, &right, lw, rw, sep())
            }
            Some(SRow::Context(c)) => {
                // Each half wrapped under its own gutter, as a diff line's cell is.
                let half = |side: Side, n: u32, w: usize| -> Vec<Line<'static>> {
                    let cur = if self.on_context == Some(d) && self.side == side {
                        "▶"
                    } else {
                        " "
                    };
                    let mut wrapped = Vec::new();
                    wrap_diff(
                        Line::from(context::text_spans(&c.text, t)),
                        w.saturating_sub(HALF_GUTTER).max(2),
                        &mut wrapped,
                    );
                    wrapped
                        .into_iter()
                        .enumerate()
                        .map(|(k, row)| {
                            let mut spans = if k == 0 {
                                vec![
                                    Span::styled(cur, t.key),
                                    Span::styled(" ", t.key),
                                    Span::styled(format!("{n:>5} "), t.dim),
                                ]
                            } else {
                                vec![
                                    Span::styled("  ", t.key),
                                    Span::styled(format!("{:>5} ", "↪"), t.dim),
                                ]
                            };
                            spans.extend(row.spans);
                            Line::from(spans)
                        })
                        .collect()
                };
                let (left, right) = (half(Side::Left, c.old, lw), half(Side::Right, c.new, rw));
                beside(&left, &right, lw, rw, sep())
            }
            Some(SRow::Hidden(n)) => {
                vec![fit(context::hidden_line(*n, self.expand_key, 3, t), width)]
            }
            Some(SRow::Notes(l, r)) => {
                let half = |n: &Option<Note>| match n {
                    Some(n) => note_line(n, t, 7),
                    None => Line::default(),
                };
                let mut spans = pad(half(l), lw);
                spans.push(sep());
                spans.extend(fit(half(r), rw).spans);
                vec![Line::from(spans)]
            }
        }
    }

    /// The body's lines, `height` rows of `width` columns, from the scroll (moved down when the
    /// wrapped rows above the cursor would push it off the screen), and the display rows' count.
    /// The screen lines from the scroll on (at most `height`), the display rows in all, and
    /// the count of screen lines up to the end of the row of `under` when it is drawn.
    pub fn body(&self, height: usize, width: usize) -> (Vec<Line<'static>>, usize, Option<usize>) {
        let total = self.layout.display.len();
        let mut scroll = self.scroll.min(total.saturating_sub(height.max(1)));
        let at = self.on_context.unwrap_or_else(|| {
            self.layout
                .display_of
                .get(self.layout.row(self.cursor))
                .copied()
                .unwrap_or(0)
        });
        if at >= scroll {
            let heights: Vec<usize> = (scroll..=at)
                .map(|d| self.lines_of(d, width).len().max(1))
                .collect();
            let mut used: usize = heights.iter().sum();
            let mut k = 0;
            while used > height.max(1) && scroll < at {
                used -= heights[k];
                k += 1;
                scroll += 1;
            }
        }
        let under = self
            .under
            .and_then(|u| self.layout.display_of.get(self.layout.row(u)).copied());
        let mut under_end = None;
        let mut out = Vec::with_capacity(height);
        for d in scroll..total {
            if out.len() >= height {
                break;
            }
            for l in self.lines_of(d, width) {
                if out.len() < height {
                    out.push(fit(l, width));
                }
            }
            if Some(d) == under {
                under_end = Some(out.len());
            }
        }
        (out, total, under_end)
    }
}

/// Two halves' screen lines side by side, row by row (the shorter half padded), the left `lw`
/// wide and the right fitted to `rw`, `sep` between them.
fn beside(
    left: &[Line<'static>],
    right: &[Line<'static>],
    lw: usize,
    rw: usize,
    sep: Span<'static>,
) -> Vec<Line<'static>> {
    (0..left.len().max(right.len()))
        .map(|k| {
            let mut spans = pad(left.get(k).cloned().unwrap_or_default(), lw);
            spans.push(sep.clone());
            spans.extend(fit(right.get(k).cloned().unwrap_or_default(), rw).spans);
            Line::from(spans)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::{LineAddr, parse};
    use ratatui::style::Modifier;

    // Guards the mapping of a mark from the patch's text to the drawn text: tabs take four
    // columns and a control character its visible stand-in, and the mark stays on its word.
    #[test]
    fn marks_follow_tabs_and_sanitized_characters() {
        let raw = "\tlet x\u{1b} = 10;";
        let at = raw.find("10").unwrap();
        let shown = clean(raw);
        let r = display_ranges(raw, std::slice::from_ref(&(at..at + 2)));
        assert_eq!(&shown[r[0].clone()], "10");
    }

    // The search's matches are marked in the line as drawn, a tab before them included.
    #[test]
    fn a_search_marks_its_matches_in_the_line() {
        let theme = Theme::default_theme();
        let parsed = crate::code::patch::parse("@@ -0,0 +1 @@\n+\tretry(Retry)\n");
        let out = line_spans(&parsed, 0, None, None, Some("retry"), &theme);
        let marked: Vec<&str> = out
            .iter()
            .filter(|s| s.style == theme.diff_added.patch(theme.search_match))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked, ["retry", "Retry"]);
        let none = line_spans(&parsed, 0, None, None, None, &theme);
        assert_eq!(none.len(), 1);
    }

    // Guards the combination of syntax colours and word marks: the highlighted spans are cut at
    // the marks' edges, the marked part gets the word style over its own colour, the prefix and
    // the rest keep theirs.
    #[test]
    fn word_marks_split_highlighted_spans_and_keep_their_colours() {
        let theme = Theme::default_theme();
        let fg = ratatui::style::Color::Rgb(1, 2, 3);
        let spans = vec![
            Span::styled("+", theme.diff_added),
            Span::styled("let x = ", theme.diff_added.fg(fg)),
            Span::styled("10;", theme.diff_added),
        ];
        // "10" is bytes 8..10 of the text.
        let out = mark_words(spans, std::slice::from_ref(&(8..10)), theme.diff_word_added);
        let text: Vec<&str> = out.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, ["+", "let x = ", "10", ";"]);
        assert_eq!(out[2].style, theme.diff_added.patch(theme.diff_word_added));
        assert_ne!(out[2].style.bg, theme.diff_added.bg);
        assert_eq!(out[1].style.fg, Some(fg));
        assert_eq!(out[3].style, theme.diff_added);
        // A mark across two spans keeps each span's foreground.
        let spans = vec![
            Span::styled("-", theme.diff_removed),
            Span::styled("ab", theme.diff_removed.fg(fg)),
            Span::styled("cd", theme.diff_removed),
        ];
        let out = mark_words(
            spans,
            std::slice::from_ref(&(1..3)),
            Theme::plain().diff_word_removed,
        );
        let text: Vec<&str> = out.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, ["-", "a", "b", "c", "d"]);
        assert!(out[2].style.add_modifier.contains(Modifier::REVERSED));
        assert_eq!(out[2].style.fg, Some(fg));
        assert!(out[3].style.add_modifier.contains(Modifier::REVERSED));
        assert!(!out[4].style.add_modifier.contains(Modifier::REVERSED));
    }

    // Guards the word marks of the unified view: computed from the split rows, one entry per
    // half of an alike pair, the marked word in the drawn text.
    #[test]
    fn word_marks_are_per_line_of_an_alike_pair() {
        let p = parse("@@ -1,2 +1,2 @@\n-let a = 1;\n x\n+let a = 2;\n-}\n+    return value;");
        let rows = split_rows(&p);
        let m = word_marks(&p, &rows);
        assert!(m.is_empty(), "{m:?}: no pair beside each other");
        let p = parse("@@ -1,1 +1,1 @@\n-\tlet a = 1;\n+\tlet a = 2;");
        let rows = split_rows(&p);
        let m = word_marks(&p, &rows);
        assert_eq!(m.len(), 2);
        let shown = clean("\tlet a = 2;");
        assert_eq!(&shown[m[&1][0].clone()], "2");
    }

    // Guards a selection in the split view: on the cursor's side only, a context line on the
    // left addressed by its old number.
    #[test]
    fn a_selection_is_on_the_cursors_side() {
        let p = parse("@@ -10,3 +20,3 @@\n a\n-b\n+B\n c");
        let l = SplitLayout::new(&p, 0, &vec![Vec::new(); p.lines.len()]);
        let sel = l.selection("f.rs", &p, 0, 1, Side::Left).unwrap();
        assert_eq!(
            sel.end,
            LineAddr {
                side: Side::Left,
                line: 11
            }
        );
        assert_eq!(
            sel.start,
            Some(LineAddr {
                side: Side::Left,
                line: 10
            })
        );
        assert_eq!(sel.text, ["a", "b"]);
        // The added line is not on the left.
        assert!(l.selection("f.rs", &p, 0, 2, Side::Left).is_none());
        let sel = l.selection("f.rs", &p, 2, 3, Side::Right).unwrap();
        assert_eq!((sel.start.map(|s| s.line), sel.end.line), (Some(21), 22));
        assert_eq!(l.side_of(1, Side::Right), Side::Left);
        assert_eq!(l.line_at(1, Side::Left), Some(1));
        assert!(fits(80) && !fits(50));
    }
}
