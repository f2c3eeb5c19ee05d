//! The review desk's panes: aspects of the run, the composed review, the draft editor, and a
//! finding opened whole (`Enter` in the picker) with its keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Clear;

use super::PrScreen;
use super::list::Focus;
use crate::sanitize::{one_line, sanitize};
use crate::tui::app::screen::View;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::review::{AspectView, size_line};
use crate::tui::theme::Theme;
use crate::tui::ui::{ago, bordered, draw_scrolled, wrap};

fn aspect_style(theme: &Theme, v: &AspectView) -> Style {
    match v {
        AspectView::Queued | AspectView::Skipped(_) | AspectView::Cancelled => theme.dim,
        AspectView::Running(_) => theme.badge_edited,
        AspectView::Done { .. } => theme.seen,
        AspectView::Failed(_) | AspectView::TimedOut(_) => theme.notice,
    }
}

/// A finding's colour: the theme's `[severity]`.
fn severity_style(theme: &Theme, s: crate::review::findings::Severity) -> Style {
    use crate::review::findings::Severity;
    match s {
        Severity::Critical => theme.severity_critical,
        Severity::Important => theme.severity_important,
        Severity::Suggestion => theme.severity_suggestion,
    }
}

/// The aspects panel: each aspect's state in the latest run.
pub(super) fn draw_aspects(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    theme: &Theme,
) -> (Option<usize>, u16, usize) {
    let block = bordered(
        " Aspects ".to_owned(),
        screen.list.focus == Focus::Detail,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = Vec::new();
    if let Some(run) = &screen.desk.run {
        let head = match (&run.error, &run.mode) {
            (Some(e), _) => format!("not started: {}", one_line(e)),
            (None, Some((m, why))) => format!(
                "{} review — {}",
                match m {
                    crate::policy::Mode::Full => "full",
                    crate::policy::Mode::Incremental => "incremental",
                },
                one_line(why)
            ),
            (None, None) => "preparing…".to_owned(),
        };
        lines.push(Line::styled(head, theme.header));
        lines.push(Line::raw(""));
        for (a, v) in &run.aspects {
            lines.push(Line::from(vec![
                Span::styled(format!("{:<13}", a.as_str()), theme.author),
                Span::styled(run.describe(*a, v), aspect_style(theme, v)),
            ]));
        }
        if run.finished {
            lines.push(Line::raw(""));
            lines.push(Line::styled("finished · v shows the review", theme.dim));
        }
    }
    let (h, total) = draw_scrolled(frame, inner, lines, 0);
    (None, h, total)
}

/// The review pane: status, the findings (cursor for `a`), and the body exactly as it will be
/// posted. Returns (shown item, height, total lines, the scroll it used).
pub(super) fn draw_review(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    view: &View<'_>,
) -> (Option<usize>, u16, usize, usize) {
    let theme = view.theme;
    let focused = screen.list.focus == Focus::Detail;
    let block = bordered(
        " Review — exactly as it will be posted ".to_owned(),
        focused,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(d) = &screen.desk.draft else {
        return (None, inner.height, 0, screen.desk.review_scroll);
    };
    // Where the selected finding's first line is (the pane follows it after j/k).
    let mut sel_at = None;
    let mut lines = Vec::new();
    if let Some(at) = d.restored {
        lines.push(Line::styled(
            format!(
                "Restored draft (saved {}) from an earlier session — not posted yet.",
                ago(at, view.session.now)
            ),
            theme.notice,
        ));
    }
    let head = &screen.list.snapshot.pr.head_sha;
    if !d.head_sha.is_empty() && d.head_sha != *head {
        lines.push(Line::styled(
            format!(
                "Made for head {}; the PR is now at {}.",
                one_line(d.head_sha.get(..7).unwrap_or(&d.head_sha)),
                one_line(head.get(..7).unwrap_or(head))
            ),
            theme.notice,
        ));
    }
    if let Some(p) = &screen.desk.posted {
        lines.push(Line::styled(format!("✓ {}", one_line(p)), theme.seen));
    } else if d.edited && d.restored.is_none() {
        lines.push(Line::styled("edited · autosaved", theme.dim));
    }
    let (size, over) = size_line(d, screen.desk.composed.as_ref());
    lines.push(Line::styled(
        size,
        if over { theme.notice } else { theme.dim },
    ));
    // What ran and what did not, and why: beside the body's own mode line, never contradicting
    // it.
    if let Some((said, incomplete)) = screen
        .desk
        .composed
        .as_ref()
        .and_then(|c| crate::tui::review::run_status(&c.run))
    {
        let head = if incomplete {
            "Incomplete review: "
        } else {
            "Narrowed review: "
        };
        lines.push(Line::styled(
            format!("{head}{said}"),
            if incomplete { theme.notice } else { theme.dim },
        ));
    }
    if !screen.desk.gate.post {
        lines.push(Line::styled(
            format!("posting blocked: {}", one_line(&screen.desk.gate.reason)),
            theme.notice,
        ));
    }
    if let Some(c) = &screen.desk.composed {
        let rows = c.finding_views();
        lines.push(Line::styled(
            format!(
                "Findings ({}) — Tab then j/k to pick, Enter opens one, a marks addressed, D dismisses, L makes a lesson:",
                rows.len()
            ),
            theme.group,
        ));
        for (i, (_, severity, label)) in rows.iter().enumerate() {
            let colour = severity_style(theme, *severity);
            let (mark, style) = if i == screen.desk.finding_sel {
                sel_at = Some(lines.len());
                ("▸ ", colour.patch(theme.selection))
            } else {
                ("  ", colour)
            };
            // Each finding whole, wrapped under its mark (Enter opens it with its fix).
            let room = usize::from(inner.width).saturating_sub(2);
            let mut rows = Vec::new();
            wrap(Line::styled(label.clone(), style), room, &mut rows);
            for (k, row) in rows.into_iter().enumerate() {
                let lead = if k == 0 { mark } else { "  " };
                let mut spans = vec![Span::styled(lead, style)];
                spans.extend(row.spans);
                lines.push(Line::from(spans).style(style));
            }
        }
        let held = c.held_back_rows();
        if !held.is_empty() {
            lines.push(Line::styled(
                format!("Held back ({}), not posted:", held.len()),
                theme.group,
            ));
            for h in held {
                lines.push(Line::styled(format!("  {h}"), theme.dim));
            }
        }
    }
    if let Some(stats) = &screen.desk.stats {
        lines.push(Line::styled(one_line(stats), theme.dim));
    }
    lines.push(Line::styled(
        "─".repeat(usize::from(inner.width)),
        theme.dim,
    ));
    for l in d.editor.lines() {
        let style = if l.starts_with('#') {
            theme.header
        } else {
            theme.text
        };
        lines.push(Line::styled(sanitize(l).into_owned(), style));
    }
    let scroll = match sel_at.filter(|_| screen.desk.follow) {
        Some(at) => {
            let width = usize::from(inner.width);
            let above: usize = lines[..at]
                .iter()
                .map(|l| {
                    let mut rows = Vec::new();
                    wrap(l.clone(), width, &mut rows);
                    rows.len()
                })
                .sum();
            above.saturating_sub(usize::from(inner.height) / 3)
        }
        None => screen.desk.review_scroll,
    };
    let (h, total) = draw_scrolled(frame, inner, lines, scroll);
    (
        None,
        h,
        total,
        scroll.min(total.saturating_sub(usize::from(h))),
    )
}

pub(super) fn draw_editor(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    theme: &Theme,
) -> (Option<usize>, u16, usize) {
    let block = bordered(
        format!(
            " Editing the review · autosaved · {} $EDITOR · ctrl-z undo · ctrl-r redo · Esc done ",
            crate::tui::editor::EXTERNAL_KEY
        ),
        true,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(d) = &screen.desk.draft {
        frame.render_widget(&d.editor, inner);
    }
    (None, inner.height, 0)
}

/// The opened finding's keys (its `?`), as the keymap binds them.
pub(super) fn finding_help(keymap: &Keymap) -> Vec<(String, String)> {
    let k = |c| keymap.keys_label(c);
    vec![
        (
            format!("{}/{}", k(KeyCommand::Down), k(KeyCommand::Up)),
            "scroll the finding".to_owned(),
        ),
        (
            k(KeyCommand::Dismiss),
            "dismiss it with a reason: never proposed again on this PR".to_owned(),
        ),
        (
            k(KeyCommand::Lesson),
            "dismiss it for the whole repository (a lesson)".to_owned(),
        ),
        (
            k(KeyCommand::Toggle),
            "keep it: it stays in the review, back to the findings".to_owned(),
        ),
        (
            k(KeyCommand::Files),
            "jump to its line: the file's diff, the cursor on it".to_owned(),
        ),
        (
            k(KeyCommand::MarkAddressed),
            "mark it addressed (a finding of an earlier review)".to_owned(),
        ),
        (k(KeyCommand::Help), "this help".to_owned()),
        (
            format!("{}/{}", k(KeyCommand::Quit), k(KeyCommand::Back)),
            "back to the findings".to_owned(),
        ),
    ]
}

/// The finding under the cursor, whole: severity, aspect, class, `file:line`, the message,
/// the suggested fix, the rule and the verifier's confidence and evidence — all sanitized,
/// wrapped, scrolled by `scroll`. Returns (height, total lines).
pub(super) fn draw_finding(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    scroll: usize,
    theme: &Theme,
) -> (u16, usize) {
    frame.render_widget(Clear, area);
    let Some(f) = screen.desk.selected_finding() else {
        return (0, 0);
    };
    let block = bordered(format!(" Finding {} ", one_line(&f.id)), true, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let class = screen
        .desk
        .composed
        .as_ref()
        .and_then(|c| c.agg.class_of_id(&f.id))
        .unwrap_or("addressed");
    let at = f.line.map_or(String::new(), |l| format!(":{l}"));
    let mut lines = vec![
        Line::from(vec![
            Span::styled(f.severity.as_str(), severity_style(theme, f.severity)),
            Span::styled(format!(" · {} · {class}", f.aspect), theme.dim),
        ]),
        Line::styled(format!("{}{at}", one_line(&f.file)), theme.location),
    ];
    if f.outside_diff {
        lines.push(Line::styled(
            "(the file is not among the PR's changed files)",
            theme.dim,
        ));
    }
    // A titled section: its text whole, line by line.
    let section = |lines: &mut Vec<Line<'static>>, title: &str, text: &str| {
        lines.push(Line::raw(""));
        lines.push(Line::styled(title.to_owned(), theme.group));
        for l in sanitize(text).lines() {
            lines.push(Line::styled(l.replace('\t', "    "), theme.text));
        }
    };
    section(&mut lines, "Message", &f.message);
    if let Some(fix) = &f.suggested_fix {
        section(&mut lines, "Suggested fix", fix);
    }
    if let Some(rule) = &f.rule {
        section(&mut lines, "Rule", rule);
    }
    if let Some(v) = &f.verified {
        section(
            &mut lines,
            &format!("Verified · confidence {}", v.confidence),
            &v.evidence,
        );
    }
    draw_scrolled(frame, inner, lines, scroll)
}
