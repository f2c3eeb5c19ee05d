//! Comment Markdown on screen: headings, emphasis, inline code, links (their address shown after
//! the text), lists (nested, numbered, task boxes), block quotes, code blocks (```suggestion as a
//! suggested change), rules and tables, wrapped to a width — as gh-dash shows comments with
//! glamour, with GitHub's comment rule that a single newline breaks the line. Parsed with
//! pulldown-cmark (CommonMark plus GitHub's tables, strikethrough and task
//! lists); raw HTML is shown as the text it is, dimmed, never interpreted.
//!
//! One entry point, [`render`]: text that has been through [`crate::sanitize::sanitize`] already
//! (it never sees a control character) and a width, giving ratatui [`Line`]s no wider than the
//! width. It is pure and allocates only its output: a caller that draws often keeps the result per
//! (text, width), as highlighting is kept.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use super::ui::wrap;

/// `text` (sanitized) as lines of at most `width` columns.
pub fn render(text: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let width = width.max(8);
    let mut r = Renderer {
        theme,
        width,
        out: Vec::new(),
        run: Vec::new(),
        styles: Vec::new(),
        containers: Vec::new(),
        lists: Vec::new(),
        links: Vec::new(),
        code: None,
        table: None,
        heading: None,
    };
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for ev in Parser::new_ext(text, opts) {
        r.event(ev);
    }
    r.flush();
    while r.out.last().is_some_and(|l| l.width() == 0) {
        r.out.pop();
    }
    r.out
}

/// What a line inside a block starts with.
enum Container {
    Quote,
    /// A list item: its marker (`• `, `3. `) until the item's first line is out, then blanks.
    Item {
        marker: Option<String>,
        indent: usize,
    },
}

struct Code {
    suggestion: bool,
    text: String,
}

#[derive(Default)]
struct Table {
    rows: Vec<(bool, Vec<Vec<Span<'static>>>)>,
    row: Vec<Vec<Span<'static>>>,
    in_head: bool,
}

struct Renderer<'t> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    /// The paragraph (or heading, item text, table cell) being collected.
    run: Vec<Span<'static>>,
    /// Inline styles open (strong, emphasis, link, …), innermost last.
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// Open lists: the next number of an ordered one.
    lists: Vec<Option<u64>>,
    /// Open links: their address, shown after the text when it says something else.
    links: Vec<String>,
    code: Option<Code>,
    table: Option<Table>,
    heading: Option<HeadingLevel>,
}

impl Renderer<'_> {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(self.theme.text, |acc, s| acc.patch(*s))
    }

    fn push_text(&mut self, text: &str, style: Style) {
        if let Some(code) = &mut self.code {
            code.text.push_str(text);
            return;
        }
        self.run.push(Span::styled(text.to_owned(), style));
    }

    fn event(&mut self, ev: Event<'_>) {
        let theme = self.theme;
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                let s = self.style();
                self.push_text(&t, s);
            }
            Event::Code(t) => {
                let s = self.style().patch(theme.location);
                self.push_text(&format!("`{t}`"), s);
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => {
                let s = self.style();
                self.push_text(&t, s);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                // Shown as the text it is; an HTML comment (hidden on GitHub) too, dimmed.
                let t = t.trim_end_matches('\n').to_owned();
                if self.code.is_none() && self.table.is_none() && self.run.is_empty() {
                    for l in t.lines() {
                        self.run.push(Span::styled(l.to_owned(), theme.dim));
                        self.line_break();
                    }
                } else {
                    self.push_text(&t, theme.dim);
                }
            }
            // GitHub shows a comment's single newlines as line breaks; so does the console.
            Event::SoftBreak => {
                if self.code.is_some() || self.table.is_some() {
                    let s = self.style();
                    self.push_text(" ", s);
                } else {
                    self.line_break();
                }
            }
            Event::HardBreak => self.line_break(),
            Event::Rule => {
                self.flush();
                let w = self.width.saturating_sub(self.prefix_width()).min(40);
                self.emit(vec![Span::styled("─".repeat(w), theme.border)]);
                self.blank();
            }
            Event::TaskListMarker(done) => {
                let s = self.style();
                self.push_text(if done { "[x] " } else { "[ ] " }, s);
            }
            Event::FootnoteReference(t) => {
                let s = theme.dim;
                self.push_text(&format!("[^{t}]"), s);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let theme = self.theme;
        match tag {
            Tag::Paragraph => self.flush(),
            Tag::Heading { level, .. } => {
                self.flush();
                self.heading = Some(level);
                let marks = "#".repeat(heading_depth(level));
                self.run.push(Span::styled(format!("{marks} "), theme.dim));
                self.styles.push(theme.header.add_modifier(Modifier::BOLD));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let suggestion = matches!(&kind, CodeBlockKind::Fenced(lang) if lang.trim().starts_with("suggestion"));
                self.code = Some(Code {
                    suggestion,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.flush();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_owned(),
                };
                let indent = marker.width();
                self.containers.push(Container::Item {
                    marker: Some(marker),
                    indent,
                });
            }
            Tag::Table(_) => {
                self.flush();
                self.table = Some(Table::default());
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                }
            }
            Tag::TableRow | Tag::TableCell => {}
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.styles
                    .push(theme.key.add_modifier(Modifier::UNDERLINED));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        let theme = self.theme;
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.blank();
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush();
                self.heading = None;
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.blank();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.code_block(&code);
                }
                self.blank();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push((true, row));
                    t.in_head = false;
                }
            }
            TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push((false, row));
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.run);
                if let Some(t) = &mut self.table {
                    t.row.push(cell);
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.table_block(t);
                }
                self.blank();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some(url) = self.links.pop() {
                    let said: String = self.run.iter().map(|s| s.content.as_ref()).collect();
                    if !url.is_empty() && !said.ends_with(url.as_str()) {
                        self.run.push(Span::styled(format!(" ({url})"), theme.dim));
                    }
                }
            }
            _ => {}
        }
    }

    /// The prefix of the next line: quote bars and list indents, the item's marker once.
    fn take_prefix(&mut self) -> Vec<Span<'static>> {
        let theme = self.theme;
        let mut spans = Vec::new();
        for c in &mut self.containers {
            match c {
                Container::Quote => spans.push(Span::styled("│ ", theme.dim)),
                Container::Item { marker, indent } => match marker.take() {
                    Some(m) => spans.push(Span::styled(m, theme.dim)),
                    None => spans.push(Span::raw(" ".repeat(*indent))),
                },
            }
        }
        spans
    }

    fn prefix_width(&self) -> usize {
        self.containers
            .iter()
            .map(|c| match c {
                Container::Quote => 2,
                Container::Item { indent, .. } => *indent,
            })
            .sum()
    }

    /// One finished line under the current containers (no wrapping: it fits).
    fn emit(&mut self, body: Vec<Span<'static>>) {
        let mut spans = self.take_prefix();
        spans.extend(body);
        self.out.push(Line::from(spans));
    }

    /// The collected run, wrapped under the current containers.
    fn flush(&mut self) {
        if self.run.is_empty() || self.table.is_some() {
            return;
        }
        let run = std::mem::take(&mut self.run);
        let room = self.width.saturating_sub(self.prefix_width()).max(4);
        let mut rows = Vec::new();
        wrap(Line::from(run), room, &mut rows);
        for row in rows {
            self.emit(row.spans);
        }
    }

    fn line_break(&mut self) {
        if self.run.is_empty() {
            self.emit(Vec::new());
        } else {
            self.flush();
        }
    }

    /// One blank line between blocks (never two, never first, none inside a list).
    fn blank(&mut self) {
        if !self.lists.is_empty() || self.out.last().is_none_or(|l| l.width() == 0) {
            return;
        }
        // Inside a quote its paragraphs run on (a bar-only line would read as quoted text).
        if !self
            .containers
            .iter()
            .any(|c| matches!(c, Container::Quote))
        {
            self.out.push(Line::default());
        }
    }

    fn code_block(&mut self, code: &Code) {
        let theme = self.theme;
        let (gutter, style) = if code.suggestion {
            self.emit(vec![Span::styled("┌─ suggested change", theme.suggestion)]);
            ("│ ", theme.suggestion)
        } else {
            ("  ", theme.diff_context)
        };
        let room = self
            .width
            .saturating_sub(self.prefix_width() + gutter.width())
            .max(4);
        for raw in code.text.trim_end_matches('\n').split('\n') {
            let mut rows = Vec::new();
            // Code keeps its spaces: wrapped where it must be, each piece under the gutter.
            wrap(
                Line::styled(raw.replace('\t', "    "), style),
                room,
                &mut rows,
            );
            for row in rows {
                let mut spans = vec![Span::styled(gutter, style)];
                spans.extend(row.spans);
                self.emit(spans);
            }
        }
        if code.suggestion {
            self.emit(vec![Span::styled("└─", theme.suggestion)]);
        }
    }

    /// A table in columns when it fits the width; else each row as `header: value` lines.
    fn table_block(&mut self, t: Table) {
        let theme = self.theme;
        let cols = t.rows.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let cell_w = |c: &Vec<Span<'static>>| c.iter().map(Span::width).sum::<usize>();
        let mut widths = vec![0usize; cols];
        for (_, row) in &t.rows {
            for (i, c) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell_w(c));
            }
        }
        let room = self.width.saturating_sub(self.prefix_width());
        let total: usize = widths.iter().sum::<usize>() + 3 * cols.saturating_sub(1);
        if total <= room {
            for (head, row) in &t.rows {
                let mut spans = Vec::new();
                for (i, w) in widths.iter().enumerate() {
                    if i > 0 {
                        spans.push(Span::styled(" │ ", theme.border));
                    }
                    let cell = row.get(i).cloned().unwrap_or_default();
                    let pad = w.saturating_sub(cell_w(&cell));
                    for s in cell {
                        spans.push(if *head {
                            s.patch_style(Style::new().add_modifier(Modifier::BOLD))
                        } else {
                            s
                        });
                    }
                    if i + 1 < cols {
                        spans.push(Span::raw(" ".repeat(pad)));
                    }
                }
                self.emit(spans);
                if *head {
                    let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                    self.emit(vec![Span::styled(rule.join("─┼─"), theme.border)]);
                }
            }
            return;
        }
        // Too wide for columns: a record per row, each cell named by its header.
        let header: Vec<String> = t
            .rows
            .iter()
            .find(|(h, _)| *h)
            .map(|(_, r)| {
                r.iter()
                    .map(|c| c.iter().map(|s| s.content.as_ref()).collect())
                    .collect()
            })
            .unwrap_or_default();
        let mut first = true;
        for (head, row) in t.rows {
            if head {
                continue;
            }
            if !first {
                self.emit(vec![Span::styled("─".repeat(room.min(20)), theme.border)]);
            }
            first = false;
            for (i, cell) in row.into_iter().enumerate() {
                let name = header.get(i).cloned().unwrap_or_default();
                let mut spans = vec![Span::styled(
                    format!("{name}: "),
                    theme.dim.add_modifier(Modifier::BOLD),
                )];
                spans.extend(cell);
                self.run = spans;
                self.flush();
            }
        }
    }
}

fn heading_depth(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    fn has_modifier(lines: &[Line<'_>], word: &str, m: Modifier) -> bool {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .any(|s| s.content.contains(word) && s.style.add_modifier.contains(m))
    }

    #[test]
    fn renders_the_common_shapes() {
        let theme = Theme::plain();
        let md = "## Plan\n\nThis is **bold**, *soft* and `code`; see [the docs](https://x.test/d).\n\n\
                  - one\n- two\n  1. nested\n\n> quoted\n\n```rust\nfn main() {}\n```\n\n\
                  | a | bb |\n|---|---|\n| 1 | 2 |\n";
        let lines = render(md, 80, &theme);
        let t = text(&lines);
        assert_eq!(t[0], "## Plan", "{t:#?}");
        assert!(
            t.iter()
                .any(|l| l
                    .contains("This is bold, soft and `code`; see the docs (https://x.test/d).")),
            "{t:#?}"
        );
        assert!(t.contains(&"• one".to_owned()), "{t:#?}");
        assert!(t.contains(&"  1. nested".to_owned()), "{t:#?}");
        assert!(t.contains(&"│ quoted".to_owned()), "{t:#?}");
        assert!(t.contains(&"  fn main() {}".to_owned()), "{t:#?}");
        assert!(t.contains(&"a │ bb".to_owned()), "{t:#?}");
        assert!(t.contains(&"1 │ 2".to_owned()), "{t:#?}");
        assert!(
            !t.iter().any(|l| l.contains("**") || l.contains("```")),
            "{t:#?}"
        );
        assert!(has_modifier(&lines, "bold", Modifier::BOLD));
        assert!(has_modifier(&lines, "soft", Modifier::ITALIC));
        assert!(has_modifier(&lines, "Plan", Modifier::BOLD));
    }

    #[test]
    fn every_line_fits_the_width_and_lists_wrap_under_their_text() {
        let theme = Theme::plain();
        let long = "word ".repeat(40);
        let md = format!(
            "- {long}\n\n> {long}\n\n```\n{}\n```\n\n| h | i |\n|--|--|\n| {long} | x |\n",
            "x".repeat(100)
        );
        for width in [20usize, 33, 80] {
            let lines = render(&md, width, &theme);
            for l in &lines {
                assert!(
                    l.width() <= width,
                    "{width}: {:?}",
                    text(std::slice::from_ref(l))
                );
            }
            let t = text(&lines);
            assert!(t[0].starts_with("• word"), "{t:#?}");
            assert!(
                t[1].starts_with("  word"),
                "continuation under the text: {t:#?}"
            );
            assert!(
                t.iter().any(|l| l.starts_with("h: word")),
                "a wide table as records: {t:#?}"
            );
        }
    }

    #[test]
    fn suggestions_show_as_suggested_changes_and_html_stays_text() {
        let theme = Theme::plain();
        let md = "Try:\n\n```suggestion\nlet x = 1;\n```\n\n<details>secret</details>\n";
        let t = text(&render(md, 50, &theme));
        assert!(t.contains(&"┌─ suggested change".to_owned()), "{t:#?}");
        assert!(t.contains(&"│ let x = 1;".to_owned()), "{t:#?}");
        assert!(t.contains(&"└─".to_owned()), "{t:#?}");
        assert!(t.iter().any(|l| l.contains("<details>")), "{t:#?}");
    }
}
