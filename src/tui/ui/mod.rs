//! Drawing pieces every screen uses: cutting and wrapping lines to a width, bordered and
//! scrolled panes, key hints named from the keymap, relative times, the "too small" message, and
//! the dialog layer's overlays (help, and the dialog widget a screen's question is drawn with).
//! Nothing here knows a screen: each screen draws itself (`app/pr/draw.rs`, `app/inbox/draw.rs`)
//! with these.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthChar;

use super::keymap::{KeyCommand, Keymap};
use super::theme::Theme;
use crate::sanitize::one_line;

mod dialog;
mod overlays;
mod status;

pub use dialog::{Answers, Dialog, Tone, draw_dialog};
pub use overlays::{centered, draw_help};
pub use status::{draw_messages, draw_status};

/// `n` and the noun, in the singular for one: "1 open PR", "3 open PRs", "0 items" — the one
/// plural helper the headless output uses too.
pub use crate::output::plural::count_irregular as count;

/// Below this the console shows a "too small" message instead of the layout.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 12;

/// True when `area` is below [`MIN_WIDTH`]×[`MIN_HEIGHT`].
pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// The "too small" message, centred, instead of any screen.
pub fn draw_too_small(frame: &mut Frame, area: Rect, theme: &Theme) {
    let msg = vec![
        Line::styled("Terminal too small", theme.header),
        Line::styled(
            format!(
                "{}×{}; need {MIN_WIDTH}×{MIN_HEIGHT}",
                area.width, area.height
            ),
            theme.text,
        ),
        Line::styled("resize, or q to quit", theme.dim),
    ];
    let h = (msg.len() as u16).min(area.height);
    let y = area.y + area.height.saturating_sub(h) / 2;
    frame.render_widget(
        Paragraph::new(msg).alignment(ratatui::layout::Alignment::Center),
        Rect::new(area.x, y, area.width, h),
    );
}

/// Cuts a line to `width` columns; a cut line ends with `…` so nothing is lost silently.
pub fn fit(mut line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    // Trailing blanks are not text: drop them before deciding that something is cut.
    while let Some(last) = line.spans.last_mut() {
        let trimmed = last.content.trim_end_matches(' ').to_owned();
        if trimmed.is_empty() {
            line.spans.pop();
            continue;
        }
        last.content = trimmed.into();
        break;
    }
    if line.width() <= width {
        return line;
    }
    let style = line.style;
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut last_style = Style::default();
    'outer: for span in line.spans {
        let mut buf = String::new();
        last_style = span.style;
        for ch in span.content.chars() {
            let w = ch.width().unwrap_or(0);
            if used + w > room {
                if !buf.is_empty() {
                    spans.push(Span::styled(buf, span.style));
                }
                break 'outer;
            }
            buf.push(ch);
            used += w;
        }
        if !buf.is_empty() {
            spans.push(Span::styled(buf, span.style));
        }
    }
    if width > 0 {
        spans.push(Span::styled("…", last_style));
    }
    Line::from(spans).style(style)
}

/// A footer's key hints (span pairs as [`key_hint`] writes them) within `width`: when they do
/// not fit, the hints other than help, quit and back go first, from the right, so a narrow
/// terminal still shows `? help` and the way out.
pub fn fit_hints(line: Line<'static>, keymap: &Keymap, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let keep = [KeyCommand::Help, KeyCommand::Quit, KeyCommand::Back].map(|c| keymap.keys_label(c));
    let style = line.style;
    let mut pairs: Vec<Vec<Span<'static>>> = line
        .spans
        .chunks(2)
        .map(<[Span<'static>]>::to_vec)
        .collect();
    let width_of =
        |pairs: &[Vec<Span<'static>>]| -> usize { pairs.iter().flatten().map(Span::width).sum() };
    while width_of(&pairs) > width {
        let Some(i) = pairs
            .iter()
            .rposition(|p| p.len() == 2 && !keep.iter().any(|k| *k == p[0].content))
        else {
            break;
        };
        pairs.remove(i);
    }
    fit(Line::from(pairs.concat()).style(style), width)
}

/// `j/↓ what` for a footer, with the keys the keymap binds.
pub fn key_hint(
    keymap: &Keymap,
    cmd: KeyCommand,
    what: &str,
    theme: &Theme,
    out: &mut Vec<Span<'static>>,
) {
    out.push(Span::styled(keymap.keys_label(cmd), theme.key));
    out.push(Span::styled(format!(" {what}  "), theme.dim));
}

/// A bordered block, its border lit when focused.
pub fn bordered(title: String, focused: bool, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(if focused {
            theme.border_focus
        } else {
            theme.border
        })
}

/// Wraps and draws `lines` scrolled by `scroll`; returns (height, total lines).
pub fn draw_scrolled(
    frame: &mut Frame,
    inner: Rect,
    lines: Vec<Line<'static>>,
    scroll: usize,
) -> (u16, usize) {
    let mut wrapped = Vec::new();
    for l in lines {
        wrap(l, usize::from(inner.width), &mut wrapped);
    }
    let total = wrapped.len();
    let h = usize::from(inner.height);
    let scroll = scroll.min(total.saturating_sub(h));
    let visible: Vec<Line> = wrapped.into_iter().skip(scroll).take(h).collect();
    frame.render_widget(Paragraph::new(visible), inner);
    (inner.height, total)
}

/// "3h ago" for `ts`, seen at `now` (a date beyond a month).
pub fn ago(ts: i64, now: i64) -> String {
    let d = now - ts;
    match d {
        i64::MIN..=59 => "just now".to_owned(),
        60..=3599 => format!("{}m ago", d / 60),
        3600..=86_399 => format!("{}h ago", d / 3600),
        86_400..=2_591_999 => format!("{}d ago", d / 86_400),
        _ => chrono::DateTime::from_timestamp(ts, 0)
            .map_or_else(|| ts.to_string(), |t| t.format("%Y-%m-%d").to_string()),
    }
}

/// Wraps a diff line (`+`, `-` or ` ` first) to `width` columns under its gutter: every row,
/// the continued ones too, starts with the line's sign in its style, so a wrapped added line
/// still reads as added, and the continued rows keep the line's indentation (unless it would
/// take half the row). Other lines wrap as [`wrap`] does.
pub fn wrap_diff(line: Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    let width = width.max(2);
    let first = line.spans.first().and_then(|s| s.content.chars().next());
    let Some(sign @ ('+' | '-' | ' ')) = first else {
        wrap(line, width, out);
        return;
    };
    if line.width() <= width {
        out.push(line);
        return;
    }
    let gutter_style = line.spans.first().map(|s| s.style).unwrap_or_default();
    let mut rest = line.spans.clone();
    if let Some(head) = rest.first_mut() {
        head.content = head.content.chars().skip(1).collect::<String>().into();
    }
    // The indentation after the sign, taken off the text and put before every row.
    let indent = rest
        .iter()
        .flat_map(|s| s.content.chars())
        .take_while(|c| *c == ' ')
        .count();
    let indent = if indent * 2 > width - 1 { 0 } else { indent };
    let indent_style = rest
        .iter()
        .find(|s| !s.content.is_empty())
        .map(|s| s.style)
        .unwrap_or(gutter_style);
    let mut left = indent;
    for span in &mut rest {
        if left == 0 {
            break;
        }
        let n = span.content.chars().take(left).count();
        span.content = span.content.chars().skip(n).collect::<String>().into();
        left -= n;
    }
    rest.retain(|s| !s.content.is_empty());
    let mut rows = Vec::new();
    wrap(
        Line::from(rest).style(line.style),
        (width - 1 - indent).max(1),
        &mut rows,
    );
    for row in rows {
        let mut spans = vec![Span::styled(sign.to_string(), gutter_style)];
        if indent > 0 {
            spans.push(Span::styled(" ".repeat(indent), indent_style));
        }
        spans.extend(row.spans);
        out.push(Line::from(spans).style(line.style));
    }
}

/// Wraps a styled line to `width` columns at word boundaries (by display width; never splits a
/// character). A word longer than the width is broken where it must be; the space a line is
/// broken at stays at the end of that line (it takes no visible room).
pub fn wrap(line: Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    let width = width.max(1);
    if line.width() <= width {
        out.push(line);
        return;
    }
    let style = line.style;
    let chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let mut rows: Vec<Vec<(char, Style)>> = Vec::new();
    let mut cur: Vec<(char, Style)> = Vec::new();
    let mut used = 0;
    let mut i = 0;
    while i < chars.len() {
        if chars[i].0 == ' ' {
            // A space that does not fit ends the line and stays with it.
            cur.push(chars[i]);
            used += 1;
            if used >= width {
                rows.push(std::mem::take(&mut cur));
                used = 0;
            }
            i += 1;
            continue;
        }
        let end = chars[i..]
            .iter()
            .position(|(c, _)| *c == ' ')
            .map_or(chars.len(), |p| i + p);
        let word = &chars[i..end];
        let w: usize = word.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
        if used + w <= width {
            cur.extend_from_slice(word);
            used += w;
        } else if w <= width {
            rows.push(std::mem::take(&mut cur));
            cur.extend_from_slice(word);
            used = w;
        } else {
            // Longer than a whole line: break it by characters.
            for &(c, st) in word {
                let cw = c.width().unwrap_or(0);
                if used + cw > width && used > 0 {
                    rows.push(std::mem::take(&mut cur));
                    used = 0;
                }
                cur.push((c, st));
                used += cw;
            }
        }
        i = end;
    }
    if !cur.is_empty() {
        rows.push(cur);
    }
    for row in rows.into_iter().filter(|r| !r.is_empty()) {
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut buf = String::new();
        let mut st = row[0].1;
        for (c, s) in row {
            if s != st && !buf.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut buf), st));
            }
            st = s;
            buf.push(c);
        }
        if !buf.is_empty() {
            spans.push(Span::styled(buf, st));
        }
        out.push(Line::from(spans).style(style));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_width::UnicodeWidthStr;

    proptest! {
        #[test]
        fn wrap_keeps_text_and_fits(text in "[a-z 漢字é\u{301}]{0,80}", split in 0usize..40, width in 1usize..30) {
            let cut = text.char_indices().nth(split).map_or(text.len(), |(i, _)| i);
            let line = Line::from(vec![
                Span::styled(text[..cut].to_owned(), theme_style()),
                Span::raw(text[cut..].to_owned()),
            ]);
            let mut out = Vec::new();
            wrap(line, width, &mut out);
            let joined: String = out
                .iter()
                .flat_map(|l| l.spans.iter().map(|s| s.content.to_string()))
                .collect();
            prop_assert_eq!(joined, text.clone());
            for l in &out {
                let w: usize = l.spans.iter().map(|s| s.content.width()).sum();
                // A single wide character may exceed a width of 1; a line may end in the
                // one space it was broken at; nothing else may.
                let trailing = l.spans.last().is_some_and(|s| s.content.ends_with(' '));
                prop_assert!(w <= width.max(2) + usize::from(trailing), "{w} > {width}");
            }
        }
    }

    fn texts(out: &[Line<'static>]) -> Vec<String> {
        out.iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect()
    }

    /// A defect a new user met: words are not broken mid-word ("gat│eway").
    #[test]
    fn wrap_breaks_at_word_boundaries() {
        let mut out = Vec::new();
        let line = Line::from(vec![
            Span::raw("the gateway "),
            Span::styled("retries twice", theme_style()),
        ]);
        wrap(line, 10, &mut out);
        assert_eq!(texts(&out), vec!["the ", "gateway ", "retries ", "twice"]);
        // The style of each part is kept.
        assert_eq!(out[2].spans[0].style, theme_style());
        // A word longer than the width is broken where it must be.
        let mut out = Vec::new();
        wrap(Line::raw("a supercalifragilistic word"), 8, &mut out);
        assert_eq!(texts(&out), vec!["a superc", "alifragi", "listic ", "word"]);
    }

    /// A wrapped diff line keeps its sign and its indentation on every row.
    #[test]
    fn wrap_diff_keeps_the_sign_and_the_indentation_on_continued_rows() {
        let mut out = Vec::new();
        let line = Line::from(vec![
            Span::styled("+    let total = ", theme_style()),
            Span::raw("retries * delay + jitter;"),
        ]);
        wrap_diff(line, 24, &mut out);
        assert_eq!(
            texts(&out),
            vec!["+    let total = retries ", "+    * delay + jitter;"]
        );
        assert_eq!(
            out[1].spans[0].style,
            theme_style(),
            "the sign keeps its style"
        );
        // Indentation that would take half the row is not repeated.
        let mut out = Vec::new();
        wrap_diff(Line::raw(format!("-{}x y", " ".repeat(12))), 10, &mut out);
        assert!(out.iter().all(|l| l.spans[0].content == "-"), "{out:?}");
    }

    fn theme_style() -> Style {
        Style::default().fg(ratatui::style::Color::Red)
    }
}
