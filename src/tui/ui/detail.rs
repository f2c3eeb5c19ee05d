//! The detail pane: one item (a thread with its hunk, a comment, a review summary), wrapped.

use super::*;
use crate::triage::{DiffLine, line_diff};

pub(super) fn ago(ts: i64, now: i64) -> String {
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

pub(super) fn comment_header(c: &Comment, app: &App, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(format!("@{}", one_line(&c.author.login)), theme.author),
        Span::styled(
            format!(
                " ({}{})",
                association_label(c.author.association),
                if c.author.bot { ", bot" } else { "" }
            ),
            theme.dim,
        ),
        Span::styled(
            format!(" · {}", ago(c.created_at.timestamp(), app.now)),
            theme.dim,
        ),
    ];
    if let Some(e) = c.last_edited_at {
        spans.push(Span::styled(
            format!(" · edited {}", ago(e.timestamp(), app.now)),
            theme.notice,
        ));
    }
    if c.minimized {
        let r = c.minimized_reason.as_deref().map(one_line);
        spans.push(Span::styled(
            match r {
                Some(r) => format!("  MINIMIZED({r})"),
                None => "  MINIMIZED".to_owned(),
            },
            theme.badge_minimized,
        ));
    }
    Line::from(spans)
}

/// A Markdown-ish body: sanitized lines, with ```suggestion blocks shown as suggested changes and
/// other fences dimmed.
pub(super) fn body_lines(body: &str, theme: &Theme, out: &mut Vec<Line<'static>>) {
    if body.trim().is_empty() {
        out.push(Line::styled("(no body)", theme.dim));
        return;
    }
    let clean = sanitize(body);
    enum Fence {
        None,
        Suggestion,
        Code,
    }
    let mut fence = Fence::None;
    for raw in clean.lines() {
        let line = raw.replace('\t', "    ");
        let t = line.trim_start();
        match fence {
            Fence::None if t.starts_with("```suggestion") => {
                fence = Fence::Suggestion;
                out.push(Line::styled("┌─ suggested change", theme.suggestion));
            }
            Fence::None if t.starts_with("```") => {
                fence = Fence::Code;
                out.push(Line::styled(line, theme.dim));
            }
            Fence::Suggestion if t.starts_with("```") => {
                fence = Fence::None;
                out.push(Line::styled("└─", theme.suggestion));
            }
            Fence::Code if t.starts_with("```") => {
                fence = Fence::None;
                out.push(Line::styled(line, theme.dim));
            }
            Fence::Suggestion => out.push(Line::styled(format!("│ {line}"), theme.suggestion)),
            Fence::Code => out.push(Line::styled(line, theme.diff_context)),
            Fence::None => out.push(Line::styled(line, theme.text)),
        }
    }
    if matches!(fence, Fence::Suggestion) {
        out.push(Line::styled("└─", theme.suggestion));
    }
}

/// A body as last seen against now, as a line diff in the theme's diff colours.
pub(super) fn diff_lines(before: &str, after: &str, theme: &Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled("changed since your last look:", theme.notice));
    let (before, after) = (sanitize(before), sanitize(after));
    for l in line_diff(&before, &after) {
        let (sign, text, style) = match l {
            DiffLine::Same(t) => (' ', t, theme.diff_context),
            DiffLine::Removed(t) => ('-', t, theme.diff_removed),
            DiffLine::Added(t) => ('+', t, theme.diff_added),
        };
        out.push(Line::styled(
            format!("{sign} {}", text.replace('\t', "    ")),
            style,
        ));
    }
}

/// A comment's body, or its diff against the text last seen when it changed.
fn body_or_diff(body: &str, before: Option<&str>, theme: &Theme, out: &mut Vec<Line<'static>>) {
    match before {
        Some(before) => diff_lines(before, body, theme, out),
        None => body_lines(body, theme, out),
    }
}

/// Every line of the detail pane for an item (before wrapping).
pub fn detail_lines(app: &App, idx: usize, theme: &Theme) -> Vec<Line<'static>> {
    detail_lines_anchored(app, idx, theme).0
}

/// [`detail_lines`] and the line the item opens at: a thread's first new reply.
pub fn detail_lines_anchored(
    app: &App,
    idx: usize,
    theme: &Theme,
) -> (Vec<Line<'static>>, Option<usize>) {
    let Some(item) = app.pr.list.snapshot.items.get(idx) else {
        return (Vec::new(), None);
    };
    let changes = app.pr.list.changes(idx);
    let mut anchor = None;
    let mut out = Vec::new();
    let mut head = badge_spans(app, idx, item, theme);
    match item {
        Item::Thread(t) => {
            head.push(Span::styled(
                format!(
                    "Review thread · {}",
                    one_line(&item.location().unwrap_or_default())
                ),
                theme.location,
            ));
            out.push(Line::from(head));
            out.push(Line::styled(one_line(item.url()), theme.dim));
            out.push(Line::default());
            if !t.diff_hunk.is_empty() {
                let hunk = App::highlight_key(item)
                    .and_then(|k| app.pr.list.highlights.get(&k).cloned())
                    .map_or_else(|| plain_hunk(&t.diff_hunk, theme), |l| (*l).clone());
                // GitHub's hunk ends at the commented line; show its tail unless zoomed.
                let skip = if app.pr.list.zoom {
                    0
                } else {
                    hunk.len().saturating_sub(HUNK_TAIL)
                };
                if skip > 0 {
                    out.push(Line::styled(
                        format!("⋯ {skip} earlier lines of the hunk (Enter shows all)"),
                        theme.dim,
                    ));
                }
                out.extend(hunk.into_iter().skip(skip));
                out.push(Line::default());
            }
            for (i, c) in t.comments.iter().enumerate() {
                if i > 0 {
                    out.push(Line::styled("───", theme.border));
                }
                let mut header = comment_header(c, app, theme);
                if changes.as_ref().is_some_and(|ch| ch.is_new_comment(&c.id)) {
                    anchor = anchor.or(Some(out.len()));
                    header
                        .spans
                        .insert(0, Span::styled("NEW ", theme.badge_new));
                }
                out.push(header);
                let before = changes
                    .as_ref()
                    .and_then(|ch| ch.previous_comment_body(&c.id));
                body_or_diff(&c.body, before, theme, &mut out);
            }
        }
        Item::Comment(c) => {
            head.push(Span::styled("Conversation comment", theme.location));
            out.push(Line::from(head));
            out.push(Line::styled(one_line(&c.url), theme.dim));
            out.push(Line::default());
            out.push(comment_header(c, app, theme));
            let before = changes.as_ref().and_then(|ch| ch.previous_body.as_deref());
            body_or_diff(&c.body, before, theme, &mut out);
        }
        Item::Review(r) => {
            head.push(Span::styled("Review summary", theme.location));
            out.push(Line::from(head));
            out.push(Line::styled(one_line(&r.url), theme.dim));
            out.push(Line::default());
            let mut h = vec![
                Span::styled(format!("@{}", one_line(&r.author.login)), theme.author),
                Span::styled(
                    format!(" ({})", association_label(r.author.association)),
                    theme.dim,
                ),
                Span::raw(" "),
                Span::styled(r.state.as_str(), review_state_style(theme, r.state)),
                Span::styled(
                    format!(" · {}", ago(r.created_at.timestamp(), app.now)),
                    theme.dim,
                ),
            ];
            if let Some(e) = r.last_edited_at {
                h.push(Span::styled(
                    format!(" · edited {}", ago(e.timestamp(), app.now)),
                    theme.notice,
                ));
            }
            out.push(Line::from(h));
            let before = changes.as_ref().and_then(|ch| ch.previous_body.as_deref());
            body_or_diff(&r.body, before, theme, &mut out);
        }
    }
    (out, anchor)
}

/// Hard-wraps a styled line to `width` columns (by display width; never splits a character).
pub fn wrap(line: Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    let width = width.max(1);
    if line.width() <= width {
        out.push(line);
        return;
    }
    let style = line.style;
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut buf = String::new();
        for ch in span.content.chars() {
            let w = ch.width().unwrap_or(0);
            if used + w > width && used > 0 {
                if !buf.is_empty() {
                    cur.push(Span::styled(std::mem::take(&mut buf), span.style));
                }
                out.push(Line::from(std::mem::take(&mut cur)).style(style));
                used = 0;
            }
            buf.push(ch);
            used += w;
        }
        if !buf.is_empty() {
            cur.push(Span::styled(buf, span.style));
        }
    }
    if !cur.is_empty() {
        out.push(Line::from(cur).style(style));
    }
}

pub(super) fn draw_detail(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
) -> (Option<usize>, u16, usize, usize) {
    let kept = app.pr.list.detail_scroll;
    let with = |(a, b, c): (Option<usize>, u16, usize)| (a, b, c, kept);
    if app.mode == InputMode::Edit && app.pr.desk.draft.is_some() {
        return with(draw_editor(frame, area, app, theme));
    }
    if app.mode == InputMode::Reply
        && let Some(r) = &app.pr.threads.reply
    {
        let block = Block::default()
            .borders(Borders::ALL)
            .title(format!(
                " Reply to {} · autosaved · ctrl-s send · Esc close ",
                one_line(&r.target)
            ))
            .border_style(theme.border_focus);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(&r.editor, inner);
        return (None, inner.height, 0, kept);
    }
    match app.pr.desk.pane {
        Pane::Aspects if app.pr.desk.run.is_some() => {
            return with(draw_aspects(frame, area, app, theme));
        }
        Pane::Review if app.pr.desk.draft.is_some() => {
            return with(draw_review(frame, area, app, theme));
        }
        _ => {}
    }
    let focused = app.pr.list.focus == Focus::Detail && app.mode != InputMode::Help;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Detail ")
        .border_style(if focused {
            theme.border_focus
        } else {
            theme.border
        });
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(idx) = app.pr.list.selected_index() else {
        let msg = if app.pr.list.rows.is_empty() || app.pr.list.snapshot.items.is_empty() {
            "Nothing to show."
        } else {
            "Select an item (j/k); Enter on a group collapses it."
        };
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.dim)), inner);
        return (None, inner.height, 0, kept);
    };
    let mut wrapped = Vec::new();
    let (lines, anchor) = detail_lines_anchored(app, idx, theme);
    let mut anchor_at = None;
    for (i, l) in lines.into_iter().enumerate() {
        if anchor == Some(i) {
            anchor_at = Some(wrapped.len());
        }
        wrap(l, usize::from(inner.width), &mut wrapped);
    }
    let total = wrapped.len();
    let h = usize::from(inner.height);
    let max_scroll = total.saturating_sub(h);
    // Freshly opened: a thread with new replies opens at the first one.
    let wanted = match anchor_at {
        Some(a) if app.pr.list.open_at_anchor => a,
        _ => app.pr.list.detail_scroll,
    };
    let scroll = wanted.min(max_scroll);
    let visible: Vec<Line> = wrapped.into_iter().skip(scroll).take(h).collect();
    frame.render_widget(Paragraph::new(visible), inner);
    if total > h && inner.width > 0 {
        let pct = (scroll * 100).checked_div(max_scroll).unwrap_or(100);
        let label = format!(" {pct}% ");
        let w = label.chars().count() as u16;
        let r = Rect::new(
            area.x + area.width.saturating_sub(w + 1),
            area.y + area.height.saturating_sub(1),
            w.min(area.width),
            1,
        );
        frame.render_widget(Paragraph::new(Span::styled(label, theme.dim)), r);
    }
    (Some(idx), inner.height, total, scroll)
}
