//! The dialog layer drawn above whichever screen is shown: help (the screen names its entries);
//! questions are drawn by the dialog widget (`dialog.rs`).

use super::*;

pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// The help overlay, scrolled by `scroll`; returns (max scroll, visible height).
pub fn draw_help(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    entries: &[(String, String)],
    scroll: usize,
) -> (usize, u16) {
    // One column: the key right-aligned, its description wrapped beside it (never cut); the
    // overlay scrolls (j/k, PgDn/PgUp, g/G) when the list is taller than the screen.
    let rect_w = area.width.saturating_sub(4).min(100);
    let key_w = entries
        .iter()
        .map(|e| e.0.chars().count())
        .max()
        .unwrap_or(4)
        .min(16);
    let inner_w = usize::from(rect_w.saturating_sub(2));
    let desc_w = inner_w.saturating_sub(key_w + 3).max(8);
    let mut lines = Vec::new();
    for (k, d) in entries {
        let mut parts = Vec::new();
        wrap(Line::styled(d.clone(), theme.text), desc_w, &mut parts);
        for (i, part) in parts.into_iter().enumerate() {
            let key = if i == 0 { k.as_str() } else { "" };
            let mut spans = vec![Span::styled(format!(" {key:>key_w$}  "), theme.key)];
            spans.extend(part.spans);
            lines.push(Line::from(spans));
        }
    }
    let rect = centered(
        area,
        rect_w,
        u16::try_from(lines.len() + 2).unwrap_or(u16::MAX),
    );
    frame.render_widget(Clear, rect);
    let inner_h = usize::from(rect.height.saturating_sub(2));
    let max_scroll = lines.len().saturating_sub(inner_h);
    let scroll = scroll.min(max_scroll);
    let more = if max_scroll == 0 {
        String::new()
    } else {
        format!(" · j/k scroll ({}/{}) ", scroll + 1, max_scroll + 1)
    };
    let title = format!(" Keys (config.toml [keys] rebinds them) · ? or Esc closes{more} ");
    draw_overlay_lines(frame, rect, theme, title, lines, scroll)
}

/// A bordered overlay at `rect` titled `title` (cut to fit), showing `lines` from `scroll`
/// (clamped); returns (max scroll, visible height).
pub(super) fn draw_overlay_lines(
    frame: &mut Frame,
    rect: Rect,
    theme: &Theme,
    title: String,
    lines: Vec<Line<'static>>,
    scroll: usize,
) -> (usize, u16) {
    frame.render_widget(Clear, rect);
    let inner_w = usize::from(rect.width.saturating_sub(2));
    let inner_h = usize::from(rect.height.saturating_sub(2));
    let max_scroll = lines.len().saturating_sub(inner_h);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(fit(Line::from(title), inner_w))
        .border_style(theme.border_focus);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let visible: Vec<Line> = lines
        .into_iter()
        .skip(scroll.min(max_scroll))
        .take(inner_h)
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
    (max_scroll, inner.height)
}
