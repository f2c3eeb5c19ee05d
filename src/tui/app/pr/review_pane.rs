//! The review desk's panes: aspects of the run, the composed review, the draft editor.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::PrScreen;
use super::list::Focus;
use crate::sanitize::{one_line, sanitize};
use crate::tui::app::screen::View;
use crate::tui::review::{AspectView, size_line};
use crate::tui::theme::Theme;
use crate::tui::ui::{ago, bordered, draw_scrolled};

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
/// posted.
pub(super) fn draw_review(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    view: &View<'_>,
) -> (Option<usize>, u16, usize) {
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
        return (None, inner.height, 0);
    };
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
                "Findings ({}) — Tab then j/k to pick, a marks addressed, D dismisses, L makes a lesson:",
                rows.len()
            ),
            theme.group,
        ));
        for (i, (_, severity, label)) in rows.iter().enumerate() {
            let colour = severity_style(theme, *severity);
            let (mark, style) = if i == screen.desk.finding_sel {
                ("▸ ", colour.patch(theme.selection))
            } else {
                ("  ", colour)
            };
            // One line per finding (the body below has the full text).
            let room = usize::from(inner.width).saturating_sub(3);
            let mut shown: String = label.chars().take(room).collect();
            if label.chars().count() > room {
                shown.push('…');
            }
            lines.push(Line::styled(format!("{mark}{shown}"), style));
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
    let (h, total) = draw_scrolled(frame, inner, lines, screen.desk.review_scroll);
    (None, h, total)
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
