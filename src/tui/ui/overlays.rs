//! The dialog layer drawn above whichever screen is shown: help (the screen names its entries)
//! and confirmations.

use super::*;
use crate::publish::ThreadDo;
use crate::tui::review::SubmitAs;

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

pub fn draw_confirm(frame: &mut Frame, area: Rect, c: &Confirm, theme: &Theme) {
    let (title, lines) = match c {
        Confirm::Post(p) => (
            if p.incomplete.is_some() {
                " Post an INCOMPLETE review? "
            } else {
                " Post the review? "
            },
            [
                p.incomplete
                    .as_ref()
                    .map(|why| {
                        vec![
                            format!("Incomplete: {}.", one_line(why)),
                            "Findings of those aspects are missing; the review says so.".to_owned(),
                            String::new(),
                        ]
                    })
                    .unwrap_or_default(),
                vec![format!("Target: {}", one_line(&p.target))],
            ]
            .concat()
            .into_iter()
            .chain([
                match &p.update {
                    Some(id) => format!("Action: update comment {}", one_line(id)),
                    None => "Action: create a new comment".to_owned(),
                },
                format!(
                    "Body: {}",
                    BodySize {
                        chars: p.chars,
                        limit: COMMENT_LIMIT,
                    }
                ),
                format!("To: {}", one_line(&p.destination)),
                String::new(),
                "y posts · any other key cancels".to_owned(),
            ])
            .collect(),
        ),
        Confirm::Discard => (
            " Discard the draft? ",
            vec![
                "The draft is removed from the ledger; nothing is posted.".to_owned(),
                String::new(),
                "y discards · any other key keeps it".to_owned(),
            ],
        ),
        Confirm::MarkAll { count } => (
            " Mark items seen? ",
            vec![
                format!(
                    "Mark {} seen?",
                    super::count(*count, "listed item", "listed items")
                ),
                "They stop counting as new or edited until they change.".to_owned(),
                String::new(),
                "y marks them · any other key cancels".to_owned(),
            ],
        ),
        Confirm::Condense { draft, condensed } => (
            " Too long for GitHub ",
            vec![
                format!("The draft is {draft}:"),
                format!(
                    "{} over GitHub's comment limit; GitHub would refuse it.",
                    thousands(draft.over_by())
                ),
                format!(
                    "y replaces it with the review condensed to fit ({} characters);",
                    thousands(*condensed)
                ),
                "your edits to the draft are lost.".to_owned(),
                String::new(),
                "y condenses · any other key keeps the draft".to_owned(),
            ],
        ),
        Confirm::Submit(ask) => {
            let mut lines = vec![
                format!("Submit as: {}", ask.how.said()),
                format!("Target: {}", one_line(&ask.target)),
                format!("Line comments: {}", ask.comments),
                match ask.body.trim().chars().count() {
                    0 => "Body: none".to_owned(),
                    n => format!("Body: {}", crate::output::plural::count(n, "character")),
                },
                format!("To: {}", one_line(&ask.destination)),
            ];
            // Comments that go where their lines moved since they were written, said.
            lines.extend(ask.moved.iter().map(|m| format!("· {}", one_line(m))));
            // Undecided drafts are named: kept out of this review, or decided first.
            if ask.undecided > 0 {
                lines.push(format!(
                    "Undecided: {} from findings, left out of this review",
                    super::count(ask.undecided, "draft", "drafts")
                ));
            }
            lines.push(String::new());
            let verb = match ask.how {
                SubmitAs::Approve => "approves the PR".to_owned(),
                _ => format!("submits ({})", ask.how.said()),
            };
            lines.push(if ask.undecided > 0 {
                format!("y {verb} without them · any other key goes back to decide them")
            } else {
                format!("y {verb} · any other key cancels")
            });
            (
                match ask.how {
                    SubmitAs::Approve => " APPROVE this pull request? ",
                    SubmitAs::RequestChanges => " Request changes? ",
                    SubmitAs::Comment => " Submit the review? ",
                },
                lines,
            )
        }
        Confirm::Refused(why) => (
            " Not posting ",
            vec![one_line(why), String::new(), "any key closes".to_owned()],
        ),
        Confirm::Rerun(ask) => {
            let mut lines = vec![format!("Target: {}", one_line(&ask.target))];
            for t in &ask.runs {
                lines.push(format!(
                    "· workflow run {}: {}",
                    t.run,
                    t.checks
                        .iter()
                        .map(|c| one_line(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            lines.push(format!(
                "GitHub gets one request per run: {} in all.",
                ask.runs.len()
            ));
            lines.push(String::new());
            lines.push("y re-runs · any other key cancels".to_owned());
            (" Re-run the failed jobs? ", lines)
        }
        Confirm::Quit { lost } => {
            let mut lines = vec!["Quitting now:".to_owned()];
            lines.extend(lost.iter().map(|l| format!("· {}", one_line(l))));
            lines.push(String::new());
            lines.push("y quits · any other key stays".to_owned());
            (" Quit? ", lines)
        }
        Confirm::Thread(ask) => {
            let mut lines = vec![
                format!("Thread: {}", one_line(&ask.target)),
                format!("To: {}", one_line(&ask.destination)),
            ];
            let title = match &ask.what {
                ThreadDo::Reply(body) => {
                    lines.push(format!(
                        "Reply: {}, {}",
                        super::count(body.chars().count(), "character", "characters"),
                        super::count(body.lines().count().max(1), "line", "lines")
                    ));
                    " Post this reply? "
                }
                ThreadDo::Resolve => " Resolve this thread? ",
                ThreadDo::Unresolve => " Unresolve this thread? ",
            };
            lines.push(String::new());
            lines.push("y confirms · any other key cancels".to_owned());
            (title, lines)
        }
        Confirm::Comment(ask) => (
            " Post this comment on the conversation? ",
            vec![
                format!("Target: {}", one_line(&ask.target)),
                format!("To: {}", one_line(&ask.destination)),
                format!(
                    "Comment: {}, {} (a new comment, never an edit)",
                    super::count(ask.body.chars().count(), "character", "characters"),
                    super::count(ask.body.lines().count().max(1), "line", "lines")
                ),
                String::new(),
                "y posts · any other key cancels (the comment is kept)".to_owned(),
            ],
        ),
    };
    let w = lines
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(20)
        .max(title.chars().count())
        + 4;
    // Height after wrapping, so the last line ("y confirms …") is never cut off.
    let inner_w = usize::from(area.width).min(w).saturating_sub(2).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.chars().count().div_ceil(inner_w).max(1))
        .sum();
    let rect = centered(
        area,
        u16::try_from(w).unwrap_or(u16::MAX),
        u16::try_from(rows + 2).unwrap_or(u16::MAX),
    );
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(theme.border_focus);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let text: Vec<Line> = lines
        .into_iter()
        .map(|l| {
            let style = if l.starts_with("Incomplete: ") {
                theme.notice
            } else {
                theme.text
            };
            Line::styled(l, style)
        })
        .collect();
    frame.render_widget(
        Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}
