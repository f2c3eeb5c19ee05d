//! The diff's body as drawn: the unified rows (each line wrapped under its gutter, the cursor
//! and the selection marked, the threads, findings and pending comments under their lines,
//! the file's lines shown on demand) or the split view's; drawing reads the screen's state and
//! changes none of it.

use ratatui::text::{Line, Span};

use super::context;
use super::diff::{DiffScreen, RowKind};
use super::note::{clean, note_line, prefix};
use super::split_view;
use crate::pr::NoPatch;
use crate::sanitize::one_line;
use crate::tui::highlight::plain_hunk;
use crate::tui::theme::Theme;
use crate::tui::ui::{fit, wrap_diff};

/// The columns before a line's text: cursor, selection mark, old and new numbers.
const GUTTER: usize = 14;

/// A line of an outdated thread's own hunk, under the thread.
fn old_line(text: &str, theme: &Theme) -> Line<'static> {
    let style = match text.chars().next() {
        Some('+') => theme.diff_added,
        Some('-') => theme.diff_removed,
        _ => theme.diff_context,
    };
    Line::from(vec![
        Span::styled("              ┆ ", theme.author),
        Span::styled(clean(text), style),
    ])
}

impl DiffScreen {
    /// The rows of the body and whether they show the file (its patch, the interdiff, or why
    /// it has none).
    /// The body's screen lines, the rows in all, whether the patch is shown, and (for the
    /// composer) the count of screen lines up to the end of the row of patch line `under`.
    pub(super) fn body(
        &self,
        theme: &Theme,
        height: usize,
        width: usize,
        split: bool,
        expand_key: &str,
        under: Option<usize>,
    ) -> (Vec<Line<'static>>, usize, bool, Option<usize>) {
        let Some(file) = self.file() else {
            return (Vec::new(), 0, false, None);
        };
        if let Some(why) = self.collapsed {
            let n = file.patch.as_deref().map_or(0, |p| p.lines().count());
            let keys = "Enter";
            return (
                vec![Line::styled(
                    format!(
                        "collapsed: {why} ({n} lines, +{} −{}); {keys} shows it",
                        file.additions, file.deletions
                    ),
                    theme.dim,
                )],
                1,
                false,
                None,
            );
        }
        if self.interdiff_on {
            let lines = self.inter_lines(theme);
            let total = lines.len();
            let scroll = self.inter_scroll.min(total.saturating_sub(height));
            let out = lines
                .into_iter()
                .skip(scroll)
                .take(height)
                .map(|l| fit(l, width))
                .collect();
            return (out, total, true, None);
        }
        let Some(v) = &self.view else {
            let why = match file.no_patch() {
                Some(NoPatch::Binary) => {
                    format!("{}: a binary file, not shown", one_line(&file.path))
                }
                Some(w) => w.sentence().to_owned(),
                None => "no patch".to_owned(),
            };
            return (vec![Line::styled(why, theme.dim)], 1, true, None);
        };
        if split {
            let head = |i: usize| match v.rows.get(i) {
                Some(RowKind::Note(n)) => note_line(n, theme, 13),
                Some(RowKind::Old(t)) => old_line(t, theme),
                _ => Line::default(),
            };
            let f = split_view::Frame {
                parsed: &v.parsed,
                layout: &v.split,
                head: &head,
                highlighted: self
                    .highlighted
                    .as_deref()
                    .map(Vec::as_slice)
                    .filter(|h| h.len() == v.parsed.lines.len()),
                marks: &v.marks,
                cursor: self.cursor,
                side: self.side,
                anchor: self.anchor,
                scroll: self.split_scroll,
                theme,
                on_context: self.ctx_at.and_then(|at| v.split.display_of_context(at)),
                expand_key,
                under,
                found: self.search.as_ref().map(|s| s.query.as_str()),
            };
            let (out, total, under_end) = f.body(height, width);
            return (out, total, true, under_end);
        }
        let total = v.rows.len();
        let mut scroll = self.scroll.min(total.saturating_sub(height.max(1)));
        // A long line wraps under its gutter: the rows above the cursor may take more than one
        // screen line each, so the view starts lower when the cursor would fall below it.
        let room = width.saturating_sub(GUTTER);
        let rows_of = |r: usize| match v.rows.get(r) {
            Some(RowKind::Line(i)) => {
                let pl = &v.parsed.lines[*i];
                let mut tmp = Vec::new();
                let text = format!("{}{}", prefix(pl.kind), clean(&pl.text));
                wrap_diff(Line::raw(text), room, &mut tmp);
                tmp.len().max(1)
            }
            Some(RowKind::Context(c)) => {
                let mut tmp = Vec::new();
                wrap_diff(Line::raw(format!(" {}", clean(&c.text))), room, &mut tmp);
                tmp.len().max(1)
            }
            _ => 1,
        };
        let cursor_row = match self.ctx_at {
            Some(_) => self.ctx_row(),
            None => v.row_of.get(self.cursor).copied(),
        };
        if let Some(at) = cursor_row
            && at >= scroll
        {
            let mut used: usize = (scroll..=at).map(rows_of).sum();
            while used > height.max(1) && scroll < at {
                used -= rows_of(scroll);
                scroll += 1;
            }
        }
        let sel = match self.anchor {
            Some(a) => a.min(self.cursor)..=a.max(self.cursor),
            None => self.cursor..=self.cursor,
        };
        let plain;
        let lines: &[Line<'static>] = match &self.highlighted {
            Some(h) if h.len() == v.parsed.lines.len() => h.as_slice(),
            _ => {
                // Only the rows on screen, in diff colours, until the highlighter answers.
                let first = v.rows[scroll..].iter().find_map(|r| match r {
                    RowKind::Line(i) => Some(*i),
                    _ => None,
                });
                let start = first.unwrap_or(0);
                let text: String = v
                    .source
                    .lines()
                    .skip(start)
                    .take(height + 1)
                    .collect::<Vec<_>>()
                    .join("\n");
                let mut pad = vec![Line::default(); start];
                pad.extend(plain_hunk(&text, theme));
                plain = pad;
                &plain
            }
        };
        let mut out = Vec::with_capacity(height);
        let mut under_end = None;
        for row in v.rows.iter().skip(scroll) {
            if out.len() >= height {
                break;
            }
            let line = match row {
                RowKind::Hunk(h) => {
                    let hk = &v.parsed.hunks[*h];
                    Line::styled(
                        format!(
                            "   @@ -{},{} +{},{} @@ {}",
                            hk.old_start,
                            hk.old_len,
                            hk.new_start,
                            hk.new_len,
                            one_line(&hk.section)
                        ),
                        theme.diff_hunk_header,
                    )
                }
                RowKind::Line(i) => {
                    let pl = &v.parsed.lines[*i];
                    let cur = if *i == self.cursor && self.ctx_at.is_none() {
                        "▶"
                    } else {
                        " "
                    };
                    let mark = if self.anchor.is_some() && sel.contains(i) {
                        "┃"
                    } else {
                        " "
                    };
                    let num = |n: Option<u32>| n.map_or(String::new(), |n| n.to_string());
                    let content: Vec<Span<'static>> = match lines.get(*i) {
                        Some(l) => split_view::line_spans(
                            &v.parsed,
                            *i,
                            Some(l),
                            v.marks.get(i),
                            self.search.as_ref().map(|s| s.query.as_str()),
                            theme,
                        ),
                        None => vec![Span::raw(format!("{}{}", prefix(pl.kind), clean(&pl.text)))],
                    };
                    // Wrapped, each continued row keeps the sign and the indentation, with a
                    // mark where the line numbers are.
                    let mut wrapped = Vec::new();
                    wrap_diff(Line::from(content), room, &mut wrapped);
                    for (k, row) in wrapped.into_iter().enumerate() {
                        let mut spans = if k == 0 {
                            vec![
                                Span::styled(cur, theme.key),
                                Span::styled(mark, theme.key),
                                Span::styled(
                                    format!("{:>5} {:>5} ", num(pl.old), num(pl.new)),
                                    theme.dim,
                                ),
                            ]
                        } else {
                            vec![
                                Span::styled(" ", theme.key),
                                Span::styled(mark, theme.key),
                                Span::styled(format!("{:>11} ", "↪"), theme.dim),
                            ]
                        };
                        spans.extend(row.spans);
                        if out.len() < height {
                            out.push(fit(Line::from(spans), width));
                        }
                    }
                    if under == Some(*i) {
                        under_end = Some(out.len());
                    }
                    continue;
                }
                RowKind::Old(text) => old_line(text, theme),
                RowKind::Note(n) => note_line(n, theme, 13),
                RowKind::Context(c) => {
                    // Wrapped under its gutter as a diff line is.
                    let here = self.ctx_at == Some((c.gap, c.old, c.new));
                    let mut wrapped = Vec::new();
                    wrap_diff(
                        Line::from(context::text_spans(&c.text, theme)),
                        room,
                        &mut wrapped,
                    );
                    for (k, row) in wrapped.into_iter().enumerate() {
                        let mut spans = if k == 0 {
                            vec![
                                Span::styled(if here { "▶" } else { " " }, theme.key),
                                Span::styled(" ", theme.key),
                                Span::styled(format!("{:>5} {:>5} ", c.old, c.new), theme.dim),
                            ]
                        } else {
                            vec![
                                Span::styled("  ", theme.key),
                                Span::styled(format!("{:>11} ", "↪"), theme.dim),
                            ]
                        };
                        spans.extend(row.spans);
                        if out.len() < height {
                            out.push(fit(Line::from(spans), width));
                        }
                    }
                    continue;
                }
                RowKind::Hidden(n) => context::hidden_line(*n, expand_key, 3, theme),
            };
            out.push(fit(line, width));
        }
        (out, total, true, under_end)
    }
}
