//! The dialog widget: a question (or a refusal) drawn centred above the screen. It holds a
//! title, its lines and the keys that answer it, and knows no screen and no question: each
//! screen turns its own question into a [`Dialog`], the router draws it and hands the answer back
//! to the screen that asked.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::*;

/// The keys that answer a dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// `y` says yes; every other key says no.
    YesNo,
    /// Nothing to decide (a refusal): any key closes it, as a no.
    AnyKey,
}

/// How a line of a dialog is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Text,
    /// A warning (the theme's notice style).
    Warning,
}

/// What a dialog shows: a title, its lines (wrapped to the dialog's width, never cut) and the
/// keys that answer it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialog {
    title: String,
    lines: Vec<(Tone, String)>,
    answers: Answers,
}

impl Dialog {
    /// A question answered with `y` (every other key says no).
    pub fn yes_no(title: impl Into<String>) -> Dialog {
        Dialog {
            title: title.into(),
            lines: Vec::new(),
            answers: Answers::YesNo,
        }
    }

    /// A refusal titled `title` saying `why` (on one line, sanitized); any key closes it.
    pub fn refusal(title: impl Into<String>, why: &str) -> Dialog {
        Dialog {
            title: title.into(),
            lines: Vec::new(),
            answers: Answers::AnyKey,
        }
        .line(one_line(why))
        .blank()
        .line("any key closes")
    }

    /// Adds a line of text.
    pub fn line(mut self, text: impl Into<String>) -> Dialog {
        self.push(Tone::Text, text);
        self
    }

    /// Adds a line shown as a warning.
    pub fn warning(mut self, text: impl Into<String>) -> Dialog {
        self.push(Tone::Warning, text);
        self
    }

    /// Adds an empty line.
    pub fn blank(self) -> Dialog {
        self.line(String::new())
    }

    /// Adds a line of text.
    pub fn push(&mut self, tone: Tone, text: impl Into<String>) {
        self.lines.push((tone, text.into()));
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    /// Its lines' text, in order.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(|(_, l)| l.as_str())
    }

    /// The title and every line, one per line (for tests and messages).
    pub fn text(&self) -> String {
        std::iter::once(self.title.trim())
            .chain(self.lines())
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn answers(&self) -> Answers {
        self.answers
    }

    /// True when `ev` answers yes (a refusal is never answered yes).
    pub fn says_yes(&self, ev: &KeyEvent) -> bool {
        self.answers == Answers::YesNo && matches!(ev.code, KeyCode::Char('y') | KeyCode::Char('Y'))
    }
}

/// Draws `dialog` centred in `area`: as wide as its longest line (or title), as tall as its
/// lines wrapped, so the last line (the keys that answer it) is never cut off.
pub fn draw_dialog(frame: &mut Frame, area: Rect, dialog: &Dialog, theme: &Theme) {
    let w = dialog
        .lines
        .iter()
        .map(|(_, l)| l.chars().count())
        .max()
        .unwrap_or(20)
        .max(dialog.title.chars().count())
        + 4;
    let inner_w = usize::from(area.width).min(w).saturating_sub(2).max(1);
    let rows: usize = dialog
        .lines
        .iter()
        .map(|(_, l)| l.chars().count().div_ceil(inner_w).max(1))
        .sum();
    let rect = overlays::centered(
        area,
        u16::try_from(w).unwrap_or(u16::MAX),
        u16::try_from(rows + 2).unwrap_or(u16::MAX),
    );
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(dialog.title.as_str())
        .border_style(theme.border_focus);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let text: Vec<Line> = dialog
        .lines
        .iter()
        .map(|(tone, l)| {
            let style = match tone {
                Tone::Text => theme.text,
                Tone::Warning => theme.notice,
            };
            Line::styled(l.as_str(), style)
        })
        .collect();
    frame.render_widget(
        Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::KeyModifiers;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn only_y_says_yes_and_a_refusal_never_does() {
        let ask = Dialog::yes_no(" Go? ").line("y goes · any other key stays");
        assert!(ask.says_yes(&key('y')) && ask.says_yes(&key('Y')));
        assert!(!ask.says_yes(&key('n')));
        let no = Dialog::refusal(" Not posting ", "a gate\nsays no");
        assert_eq!(no.answers(), Answers::AnyKey);
        assert!(!no.says_yes(&key('y')));
        assert_eq!(no.text(), "Not posting\na gate says no\n\nany key closes");
    }

    #[test]
    fn drawn_centred_with_every_line_wrapped_inside() {
        let d = Dialog::yes_no(" Short? ")
            .warning("a line long enough to wrap in a narrow terminal, twice over at least")
            .blank()
            .line("y yes · any other key no");
        let mut term = Terminal::new(TestBackend::new(40, 12)).unwrap();
        term.draw(|f| draw_dialog(f, f.area(), &d, &Theme::plain()))
            .unwrap();
        let buf = term.backend().buffer();
        let rows: Vec<String> = (0..12)
            .map(|y| (0..40).map(|x| buf[(x, y)].symbol()).collect())
            .collect();
        let top = rows.iter().position(|r| r.contains("Short?")).unwrap();
        let last = rows.iter().position(|r| r.contains("y yes")).unwrap();
        assert!(rows[top].starts_with('┌') && rows[last + 1].starts_with('└'));
        assert!(last - top >= 4, "the long line wrapped: {rows:#?}");
    }
}
