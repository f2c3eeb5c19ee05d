//! Drawing: a pure function of the state. [`draw`] never mutates the app; it reports what it
//! showed ([`Drawn`]) so the loop can mark the displayed item seen once the frame is on screen.
//!
//! Only visible rows are built: the list takes `rows[offset..offset + height]`, the detail pane
//! wraps the selected item's lines and renders the visible slice.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthChar;

use super::app::{App, Drawn, Focus, Group, InputMode, Pane, Row};
use super::highlight::plain_hunk;
use super::keymap::{COMMANDS, Command, Keymap};
use super::review::{AspectView, Confirm};
use super::theme::Theme;
use crate::pr::{Association, Comment, Item, ReviewState};
use crate::sanitize::{one_line, sanitize};

/// Below this the console shows a "too small" message instead of the layout.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 12;

/// Lines of a thread's diff hunk shown above the comments (all of it when zoomed).
pub const HUNK_TAIL: usize = 8;

/// Draws one frame and reports what was shown.
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, keymap: &Keymap) -> Drawn {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
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
        return Drawn::default();
    }

    let header_h = 3 + u16::from(app.pr.desk.progress.is_some());
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(header_h),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(frame, header, app, theme);

    let (list_area, detail_area) = if app.pr.list.zoom {
        (None, body)
    } else {
        let dir = if body.width >= 110 {
            Direction::Horizontal
        } else {
            Direction::Vertical
        };
        let pct = if dir == Direction::Horizontal { 45 } else { 40 };
        let parts = Layout::default()
            .direction(dir)
            .constraints([Constraint::Percentage(pct), Constraint::Min(3)])
            .split(body);
        (Some(parts[0]), parts[1])
    };

    let mut drawn = Drawn::default();
    if let Some(la) = list_area {
        drawn.list_height = draw_list(frame, la, app, theme);
    } else {
        drawn.list_height = app_list_height_fallback(body);
    }
    let (shown, h, total) = draw_detail(frame, detail_area, app, theme);
    drawn.shown = shown;
    drawn.detail_height = h;
    drawn.detail_lines = total;
    draw_footer(frame, footer, app, theme, keymap);

    match &app.mode {
        InputMode::Help => draw_help(frame, area, theme, keymap),
        InputMode::Filter => draw_filter(frame, area, app, theme),
        InputMode::Confirm(c) => draw_confirm(frame, area, c, theme),
        _ => {}
    }
    // An overlay covers the detail pane: nothing there counts as shown.
    if matches!(
        app.mode,
        InputMode::Help | InputMode::Filter | InputMode::Confirm(_)
    ) {
        drawn.shown = None;
    }
    drawn
}

fn app_list_height_fallback(body: Rect) -> u16 {
    body.height.saturating_sub(2)
}

fn association_label(a: Association) -> &'static str {
    match a {
        Association::Owner | Association::Member | Association::Collaborator => "team",
        _ => "community",
    }
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let pr = &app.pr.list.snapshot.pr;
    let mut l1 = vec![
        Span::styled(
            format!(
                "{}/{}#{} ",
                one_line(&pr.owner),
                one_line(&pr.repo),
                pr.number
            ),
            theme.header,
        ),
        Span::styled(one_line(&pr.title), theme.header),
    ];
    if pr.draft {
        l1.push(Span::styled("  DRAFT", theme.dim));
    }
    if pr.state != "OPEN" {
        l1.push(Span::styled(
            format!("  {}", one_line(&pr.state)),
            theme.dim,
        ));
    }
    let source = match app.pr.list.step() {
        Some((k, n)) => format!("fixture step {k} of {n}"),
        None => "live".to_owned(),
    };
    let mut l2 = vec![
        Span::styled(format!("@{}", one_line(&pr.author.login)), theme.author),
        Span::styled(
            format!(" ({})", association_label(pr.author.association)),
            theme.dim,
        ),
        Span::styled(
            format!(
                " · {} ← {} · head {}",
                one_line(&pr.base_ref),
                one_line(&pr.head_ref),
                one_line(pr.head_sha.get(..7).unwrap_or(&pr.head_sha))
            ),
            theme.text,
        ),
        Span::styled(format!(" · {source}"), theme.location),
    ];
    if !pr.labels.is_empty() {
        l2.push(Span::styled(" · ", theme.text));
        for (i, l) in pr.labels.iter().enumerate() {
            if i > 0 {
                l2.push(Span::raw(" "));
            }
            l2.push(Span::styled(format!("[{}]", one_line(l)), theme.group));
        }
    }
    let c = &app.pr.list.counts;
    let mut l3 = Vec::new();
    for (label, n, style) in [
        ("NEW", c.new, theme.badge_new),
        ("EDITED", c.edited, theme.badge_edited),
        ("UNCHANGED", c.unchanged, theme.badge_unchanged),
        ("OUTDATED", c.outdated, theme.badge_outdated),
        ("RESOLVED", c.resolved, theme.badge_resolved),
        ("MINIMIZED", c.minimized, theme.badge_minimized),
    ] {
        l3.push(Span::styled(format!(" {label} "), style));
        l3.push(Span::styled(format!(" {n}  "), theme.text));
    }
    if !app.pr.list.seen_now.is_empty() {
        l3.push(Span::styled(
            format!("✓ {} seen now", app.pr.list.seen_now.len()),
            theme.seen,
        ));
    }
    if let Some(why) = &app.pr.marks.blocked {
        l3.push(Span::styled(
            format!("  markers not saved: {}", one_line(why)),
            theme.notice,
        ));
    }
    let mut lines = vec![Line::from(l1), Line::from(l2), Line::from(l3)];
    if let Some(p) = &app.pr.desk.progress {
        lines.push(Line::styled(one_line(p), theme.text));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn badge_style(theme: &Theme, label: &str) -> Style {
    match label {
        "NEW" => theme.badge_new,
        "EDITED" => theme.badge_edited,
        "UNCHANGED" => theme.badge_unchanged,
        "OUTDATED" => theme.badge_outdated,
        "RESOLVED" => theme.badge_resolved,
        _ => theme.badge_minimized,
    }
}

fn review_state_style(theme: &Theme, s: ReviewState) -> Style {
    match s {
        ReviewState::Approved => theme.state_approved,
        ReviewState::ChangesRequested => theme.state_changes_requested,
        ReviewState::Dismissed => theme.state_dismissed,
        ReviewState::Commented | ReviewState::Pending => theme.state_commented,
    }
}

/// The badges of an item as styled spans (freshness first, then status, then review state).
fn badge_spans(app: &App, idx: usize, item: &Item, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for b in crate::output::items::badges(item, app.pr.list.freshness(idx)) {
        let key = b.split('(').next().unwrap_or("").to_owned();
        spans.push(Span::styled(
            format!(" {} ", sanitize(&b)),
            badge_style(theme, &key),
        ));
        spans.push(Span::raw(" "));
    }
    if let Some(s) = item.review_state() {
        spans.push(Span::styled(
            s.as_str().to_owned(),
            review_state_style(theme, s),
        ));
        spans.push(Span::raw(" "));
    }
    if app.pr.list.seen_now.contains(item.id()) {
        spans.push(Span::styled("✓ ", theme.seen));
    }
    spans
}

fn excerpt(text: &str, max_chars: usize) -> String {
    let head: String = text.chars().take(max_chars * 2 + 16).collect();
    let mut s = one_line(&head);
    if s.chars().count() > max_chars {
        s = s.chars().take(max_chars.saturating_sub(1)).collect();
        s.push('…');
    }
    s
}

fn draw_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> u16 {
    let focused = app.pr.list.focus == Focus::List && app.mode != InputMode::Help;
    let title = match &app.pr.list.search {
        Some(q) => format!(" Items · /{} ", one_line(q)),
        None if !app.pr.list.filter.is_default() => {
            format!(" Items · filter: {} ", app.pr.list.filter.describe())
        }
        None => " Items ".to_owned(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(if focused {
            theme.border_focus
        } else {
            theme.border
        });
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let width = usize::from(inner.width);
    let query = app.pr.list.search.as_deref().map(str::to_lowercase);
    let lines: Vec<Line> = app
        .pr
        .list
        .rows
        .iter()
        .enumerate()
        .skip(app.pr.list.list_offset)
        .take(height)
        .map(|(r, row)| {
            let selected = r == app.pr.list.selected;
            let mut line = match row {
                Row::Group(g) => group_line(app, *g, theme),
                Row::Item(i) => item_line(app, *i, theme, width, query.as_deref()),
            };
            if selected {
                line = line.patch_style(theme.selection);
                line.spans.insert(0, Span::styled("▶", theme.selection));
            } else {
                line.spans.insert(0, Span::raw(" "));
            }
            line
        })
        .collect();
    if app.pr.list.snapshot.items.is_empty() && height > 3 {
        let mut lines = lines;
        lines.push(Line::default());
        lines.push(Line::styled(
            "  This PR has no review threads, comments or review summaries yet.",
            theme.dim,
        ));
        frame.render_widget(Paragraph::new(lines), inner);
    } else {
        frame.render_widget(Paragraph::new(lines), inner);
    }
    inner.height
}

fn group_line(app: &App, g: Group, theme: &Theme) -> Line<'static> {
    let i = match g {
        Group::Threads => 0,
        Group::Conversation => 1,
        Group::Summaries => 2,
    };
    let (total, new, edited) = app.pr.list.counts.groups[i];
    let listed = app.pr.list.listed[i];
    let arrow = if app.pr.list.collapsed[i] {
        "▸"
    } else {
        "▾"
    };
    let count = if listed == total {
        format!("{total}")
    } else {
        format!("{listed} of {total} listed")
    };
    let mut spans = vec![Span::styled(
        format!("{arrow} {} ({count})", g.title()),
        theme.group,
    )];
    if new > 0 {
        spans.push(Span::styled(format!(" · {new} new"), theme.group));
    }
    if edited > 0 {
        spans.push(Span::styled(format!(" · {edited} edited"), theme.group));
    }
    Line::from(spans)
}

fn item_line(
    app: &App,
    idx: usize,
    theme: &Theme,
    width: usize,
    query: Option<&str>,
) -> Line<'static> {
    let Some(item) = app.pr.list.snapshot.items.get(idx) else {
        return Line::default();
    };
    let mut spans = vec![Span::raw(" ")];
    spans.extend(badge_spans(app, idx, item, theme));
    spans.push(Span::styled(
        format!("@{}", one_line(item.login())),
        theme.author,
    ));
    if let Some(loc) = item.location() {
        spans.push(Span::styled(format!(" {}", one_line(&loc)), theme.location));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    let room = width.saturating_sub(used + 2);
    if room > 3 {
        let body = item.body();
        let text = if body.trim().is_empty() {
            "(no body)".to_owned()
        } else {
            excerpt(body, room)
        };
        let hit = query.is_some_and(|q| super::app::ItemList::matches(item, q));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            text,
            if hit { theme.search_match } else { theme.dim },
        ));
    }
    Line::from(spans)
}

fn ago(ts: i64, now: i64) -> String {
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

fn comment_header(c: &Comment, app: &App, theme: &Theme) -> Line<'static> {
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
fn body_lines(body: &str, theme: &Theme, out: &mut Vec<Line<'static>>) {
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

/// Every line of the detail pane for an item (before wrapping).
pub fn detail_lines(app: &App, idx: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(item) = app.pr.list.snapshot.items.get(idx) else {
        return Vec::new();
    };
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
                out.push(comment_header(c, app, theme));
                body_lines(&c.body, theme, &mut out);
            }
        }
        Item::Comment(c) => {
            head.push(Span::styled("Conversation comment", theme.location));
            out.push(Line::from(head));
            out.push(Line::styled(one_line(&c.url), theme.dim));
            out.push(Line::default());
            out.push(comment_header(c, app, theme));
            body_lines(&c.body, theme, &mut out);
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
            body_lines(&r.body, theme, &mut out);
        }
    }
    out
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

fn draw_detail(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
) -> (Option<usize>, u16, usize) {
    if app.mode == InputMode::Edit && app.pr.desk.draft.is_some() {
        return draw_editor(frame, area, app, theme);
    }
    match app.pr.desk.pane {
        Pane::Aspects if app.pr.desk.run.is_some() => return draw_aspects(frame, area, app, theme),
        Pane::Review if app.pr.desk.draft.is_some() => return draw_review(frame, area, app, theme),
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
        return (None, inner.height, 0);
    };
    let mut wrapped = Vec::new();
    for l in detail_lines(app, idx, theme) {
        wrap(l, usize::from(inner.width), &mut wrapped);
    }
    let total = wrapped.len();
    let h = usize::from(inner.height);
    let max_scroll = total.saturating_sub(h);
    let scroll = app.pr.list.detail_scroll.min(max_scroll);
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
    (Some(idx), inner.height, total)
}

fn key_hint(
    keymap: &Keymap,
    cmd: Command,
    what: &str,
    theme: &Theme,
    out: &mut Vec<Span<'static>>,
) {
    out.push(Span::styled(keymap.keys_label(cmd), theme.key));
    out.push(Span::styled(format!(" {what}  "), theme.dim));
}

fn draw_footer(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, keymap: &Keymap) {
    let mut spans = Vec::new();
    match &app.mode {
        InputMode::Search { query, .. } => {
            let n = if query.is_empty() {
                0
            } else {
                app.pr.list.match_rows(query).len()
            };
            spans.push(Span::styled(format!("/{}", one_line(query)), theme.header));
            spans.push(Span::styled("█", theme.key));
            spans.push(Span::styled(
                format!("  {n} match(es) · Enter accept · Esc cancel"),
                theme.dim,
            ));
        }
        InputMode::Filter => {
            spans.push(Span::styled(
                "filter: n/e/u freshness · r/o/m hide resolved/outdated/minimized · a all · Esc close",
                theme.dim,
            ));
        }
        InputMode::Help => {
            key_hint(keymap, Command::Help, "close help", theme, &mut spans);
        }
        InputMode::Edit => {
            spans.push(Span::styled(
                "editing the review · autosaved on every change · Esc done",
                theme.dim,
            ));
        }
        InputMode::Confirm(Confirm::Refused(_)) => {
            spans.push(Span::styled("any key closes", theme.dim));
        }
        InputMode::Confirm(_) => {
            spans.push(Span::styled("y confirm · any other key cancels", theme.dim));
        }
        InputMode::Normal if app.pr.desk.pane != Pane::Item => {
            if let Some(n) = &app.notice {
                spans.push(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            let hints: &[(Command, &str)] = if app.pr.desk.pane == Pane::Aspects {
                &[
                    (Command::Aspects, "close"),
                    (Command::Review, "review"),
                    (Command::FullReview, "full"),
                    (Command::ReviewPane, "review pane"),
                    (Command::Help, "help"),
                    (Command::Quit, "quit"),
                ]
            } else {
                &[
                    (Command::Edit, "edit"),
                    (Command::Post, "post"),
                    (Command::Discard, "discard"),
                    (Command::Help, "help"),
                    (Command::Focus, "findings"),
                    (Command::MarkAddressed, "addressed"),
                    (Command::PageDown, "scroll"),
                    (Command::ReviewPane, "close"),
                ]
            };
            for (c, what) in hints {
                key_hint(keymap, *c, what, theme, &mut spans);
            }
        }
        InputMode::Normal => {
            if let Some(n) = &app.notice {
                spans.push(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            let detail = app.pr.list.focus == Focus::Detail;
            let hints: &[(Command, &str)] = if detail {
                &[
                    (Command::Down, "scroll"),
                    (Command::PageDown, "page"),
                    (Command::Focus, "list"),
                    (Command::Toggle, "zoom"),
                    (Command::Open, "open"),
                    (Command::Copy, "copy"),
                    (Command::Help, "help"),
                    (Command::Back, "back"),
                ]
            } else {
                &[
                    (Command::Down, "move"),
                    (Command::Focus, "detail"),
                    (Command::Toggle, "expand"),
                    (Command::Search, "search"),
                    (Command::Filter, "filter"),
                    (Command::NextNew, "next new"),
                    (Command::MarkSeen, "mark"),
                    (Command::Review, "review"),
                    (Command::StepForward, "step"),
                    (Command::Help, "help"),
                    (Command::Quit, "quit"),
                ]
            };
            for (c, what) in hints {
                if *c == Command::StepForward && app.pr.list.step().is_none_or(|(_, n)| n == 0) {
                    continue;
                }
                key_hint(keymap, *c, what, theme, &mut spans);
            }
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_help(frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
    let mut entries: Vec<(String, String)> = COMMANDS
        .iter()
        .map(|(c, _, _, help)| (keymap.keys_label(*c), (*help).to_owned()))
        .collect();
    entries.push(("Ctrl-c".to_owned(), "quit from anywhere".to_owned()));
    entries.push((
        "search".to_owned(),
        "type · Backspace · Enter · Esc".to_owned(),
    ));
    entries.push(("filter".to_owned(), "n/e/u · r/o/m hide · a all".to_owned()));
    entries.push((
        "review pane".to_owned(),
        "Tab, then j/k pick a finding".to_owned(),
    ));
    entries.push((
        "editor".to_owned(),
        "type · arrows · Esc done (autosaved)".to_owned(),
    ));
    entries.push((
        "dialogs".to_owned(),
        "y confirms, any key cancels".to_owned(),
    ));
    let inner_h = usize::from(area.height.saturating_sub(4)).max(1);
    let cols = entries.len().div_ceil(inner_h).max(1);
    let per_col = entries.len().div_ceil(cols);
    let w = area.width.saturating_sub(4);
    let rect = centered(area, w, (per_col as u16 + 2).min(area.height));
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Keys (config.toml [keys] rebinds them) · ? or Esc closes ")
        .border_style(theme.border_focus);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let col_w = usize::from(inner.width) / cols;
    let key_w = entries
        .iter()
        .map(|e| e.0.chars().count())
        .max()
        .unwrap_or(4)
        .min(16);
    let mut lines = Vec::new();
    for row in 0..per_col {
        let mut spans = Vec::new();
        for col in 0..cols {
            let Some((k, d)) = entries.get(col * per_col + row) else {
                continue;
            };
            let desc_w = col_w.saturating_sub(key_w + 3);
            let desc: String = d.chars().take(desc_w).collect();
            spans.push(Span::styled(format!(" {k:>key_w$} "), theme.key));
            spans.push(Span::styled(format!("{desc:<desc_w$} "), theme.text));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_filter(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let f = &app.pr.list.filter;
    let check = |on: bool| if on { "[x]" } else { "[ ]" };
    let rows = [
        ("n", check(f.new), "show new"),
        ("e", check(f.edited), "show edited"),
        ("u", check(f.unchanged), "show unchanged"),
        ("r", check(f.hide_resolved), "hide resolved"),
        ("o", check(f.hide_outdated), "hide outdated"),
        ("m", check(f.hide_minimized), "hide minimized"),
        ("a", "   ", "show everything"),
    ];
    let mut lines: Vec<Line> = rows
        .iter()
        .map(|(k, c, d)| {
            Line::from(vec![
                Span::styled(format!(" {k} "), theme.key),
                Span::styled(format!("{c} {d}"), theme.text),
            ])
        })
        .collect();
    lines.push(Line::styled(" New and edited items stay listed", theme.dim));
    lines.push(Line::styled(" until they were seen once.", theme.dim));
    let rect = centered(area, 40, lines.len() as u16 + 2);
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Filter · Esc closes ")
        .border_style(theme.border_focus);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    frame.render_widget(Paragraph::new(lines), inner);
}

fn bordered(title: String, focused: bool, theme: &Theme) -> Block<'static> {
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
fn draw_scrolled(
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

fn aspect_style(theme: &Theme, v: &AspectView) -> Style {
    match v {
        AspectView::Queued | AspectView::Skipped(_) | AspectView::Cancelled => theme.dim,
        AspectView::Running(_) => theme.badge_edited,
        AspectView::Done { .. } => theme.seen,
        AspectView::Failed(_) | AspectView::TimedOut(_) => theme.notice,
    }
}

/// The aspects panel: each aspect's state in the latest run.
fn draw_aspects(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
) -> (Option<usize>, u16, usize) {
    let block = bordered(
        " Aspects ".to_owned(),
        app.pr.list.focus == Focus::Detail,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = Vec::new();
    if let Some(run) = &app.pr.desk.run {
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
                Span::styled(v.describe(), aspect_style(theme, v)),
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
fn draw_review(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
) -> (Option<usize>, u16, usize) {
    let focused = app.pr.list.focus == Focus::Detail;
    let block = bordered(
        " Review — exactly as it will be posted ".to_owned(),
        focused,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(d) = &app.pr.desk.draft else {
        return (None, inner.height, 0);
    };
    let mut lines = Vec::new();
    if let Some(at) = d.restored {
        lines.push(Line::styled(
            format!(
                "Restored draft (saved {}) from an earlier session — not posted yet.",
                ago(at, app.now)
            ),
            theme.notice,
        ));
    }
    let head = &app.pr.list.snapshot.pr.head_sha;
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
    if let Some(p) = &app.pr.desk.posted {
        lines.push(Line::styled(format!("✓ {}", one_line(p)), theme.seen));
    } else if d.edited && d.restored.is_none() {
        lines.push(Line::styled("edited · autosaved", theme.dim));
    }
    if !app.pr.desk.gate.post {
        lines.push(Line::styled(
            format!("posting blocked: {}", one_line(&app.pr.desk.gate.reason)),
            theme.notice,
        ));
    }
    if let Some(c) = &app.pr.desk.composed {
        let rows = c.finding_rows();
        lines.push(Line::styled(
            format!(
                "Findings ({}) — Tab then j/k to pick, a marks addressed:",
                rows.len()
            ),
            theme.group,
        ));
        for (i, (_, label)) in rows.iter().enumerate() {
            let (mark, style) = if i == app.pr.desk.finding_sel {
                ("▸ ", theme.selection)
            } else {
                ("  ", theme.text)
            };
            // One line per finding (the body below has the full text).
            let room = usize::from(inner.width).saturating_sub(3);
            let mut shown: String = label.chars().take(room).collect();
            if label.chars().count() > room {
                shown.push('…');
            }
            lines.push(Line::styled(format!("{mark}{shown}"), style));
        }
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
    let (h, total) = draw_scrolled(frame, inner, lines, app.pr.desk.review_scroll);
    (None, h, total)
}

fn draw_editor(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
) -> (Option<usize>, u16, usize) {
    let block = bordered(
        " Editing the review · autosaved · Esc done ".to_owned(),
        true,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(d) = &app.pr.desk.draft {
        frame.render_widget(&d.editor, inner);
    }
    (None, inner.height, 0)
}

fn draw_confirm(frame: &mut Frame, area: Rect, c: &Confirm, theme: &Theme) {
    let (title, lines) = match c {
        Confirm::Post(p) => (
            " Post the review? ",
            vec![
                format!("Target: {}", one_line(&p.target)),
                match &p.update {
                    Some(id) => format!("Action: update comment {}", one_line(id)),
                    None => "Action: create a new comment".to_owned(),
                },
                format!("Body: {} bytes", p.bytes),
                format!("To: {}", one_line(&p.destination)),
                String::new(),
                "y posts · any other key cancels".to_owned(),
            ],
        ),
        Confirm::Discard => (
            " Discard the draft? ",
            vec![
                "The draft is removed from the ledger; nothing is posted.".to_owned(),
                String::new(),
                "y discards · any other key keeps it".to_owned(),
            ],
        ),
        Confirm::Refused(why) => (
            " Not posting ",
            vec![one_line(why), String::new(), "any key closes".to_owned()],
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
        .map(|l| Line::styled(l, theme.text))
        .collect();
    frame.render_widget(
        Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
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
                // A single wide character may exceed a width of 1; nothing else may.
                prop_assert!(w <= width.max(2), "{w} > {width}");
            }
        }
    }

    fn theme_style() -> Style {
        Style::default().fg(ratatui::style::Color::Red)
    }
}
