//! The status line (the latest notice or note, one line, cut with `…`, and the key that shows
//! them all) and the message log overlay (every message whole, wrapped, scrollable).

use super::*;

/// The status line on the frame's last row: `text` in the notice colour, then the key that opens
/// the message log. Cut to the width; the log keeps the whole text.
pub fn draw_status(frame: &mut Frame, area: Rect, text: &str, keymap: &Keymap, theme: &Theme) {
    let width = usize::from(area.width);
    let mut hint = Vec::new();
    key_hint(keymap, KeyCommand::Messages, "messages", theme, &mut hint);
    if let Some(last) = hint.last_mut() {
        last.content = last.content.trim_end().to_owned().into();
    }
    let hint = Line::from(hint);
    let room = width.saturating_sub(hint.width() + 2).max(width / 2);
    let mut spans = fit(Line::styled(one_line(text), theme.notice), room).spans;
    let used: usize = spans.iter().map(Span::width).sum();
    spans.push(Span::raw(
        " ".repeat(width.saturating_sub(used + hint.width()).max(2)),
    ));
    spans.extend(hint.spans);
    frame.render_widget(Paragraph::new(fit(Line::from(spans), width)), area);
}

/// The message log overlay, oldest first, scrolled by `scroll` (clamped: `usize::MAX` shows the
/// newest); returns (max scroll, visible height).
pub fn draw_messages<'a>(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    keymap: &Keymap,
    entries: impl Iterator<Item = (usize, &'a str)>,
    scroll: usize,
) -> (usize, u16) {
    let rect = centered(
        area,
        area.width.saturating_sub(4).min(120),
        area.height.saturating_sub(2),
    );
    let inner_w = usize::from(rect.width.saturating_sub(2));
    let mut lines = Vec::new();
    for (n, text) in entries {
        let mut parts = Vec::new();
        let num = format!("{n:>3} ");
        wrap(
            Line::from(vec![
                Span::styled(num.clone(), theme.dim),
                Span::styled(text.to_owned(), theme.text),
            ]),
            inner_w,
            &mut parts,
        );
        lines.extend(parts);
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            "no messages yet: notes (retries, rate-limit waits, refusals) collect here",
            theme.dim,
        ));
    }
    let title = format!(
        " Messages, newest last · {} or Esc closes · j/k scroll ",
        keymap.keys_label(KeyCommand::Messages)
    );
    super::overlays::draw_overlay_lines(frame, rect, theme, title, lines, scroll)
}
