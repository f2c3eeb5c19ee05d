//! Drawing the PR screen: a pure function of its state. It reports what it showed ([`Drawn`])
//! so the router can mark the displayed item seen once the frame is on screen.
//!
//! Only visible rows are built: the list takes `rows[offset..offset + height]`, the detail pane
//! wraps the selected item's lines and renders the visible slice.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::PrScreen;
use super::desk::Pane;
use super::detail::{association_label, badge_spans, draw_detail};
use super::list::{Focus, Group, ItemList, Row};
use crate::sanitize::one_line;
use crate::tui::app::action::Drawn;
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::screen::View;
use crate::tui::keymap::KeyCommand;
use crate::tui::theme::Theme;
use crate::tui::ui::{bordered, centered, fit, fit_hints, key_hint};

/// Draws the PR screen (header, list, detail, footer, and the filter dialog when open) and
/// reports what it showed.
pub(super) fn draw(frame: &mut Frame, area: Rect, pr: &PrScreen, view: &View<'_>) -> Drawn {
    let theme = view.theme;
    let header_h = 3 + u16::from(pr.desk.progress.is_some());
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(header_h),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(frame, header, pr, &view.session.gates, theme);

    let (list_area, detail_area) = if pr.list.zoom {
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
    if let Some(scroll) = pr.desk.opened {
        // The opened finding takes the list's and the detail's room, whole at 80×24 too.
        let (h, total) = super::review_pane::draw_finding(frame, body, pr, scroll, theme);
        drawn.list_height = app_list_height_fallback(body);
        drawn.detail_area = body;
        drawn.detail_height = h;
        drawn.detail_lines = total;
        drawn.detail_scroll = scroll;
        draw_footer(frame, footer, pr, view);
        return drawn;
    }
    if let Some(la) = list_area {
        let inner = draw_list(frame, la, pr, view);
        drawn.list_height = inner.height;
        drawn.list_area = inner;
    } else {
        drawn.list_height = app_list_height_fallback(body);
    }
    let (shown, h, total, scroll) = draw_detail(frame, detail_area, pr, view);
    drawn.shown = shown;
    drawn.detail_area = detail_area;
    drawn.detail_height = h;
    drawn.detail_lines = total;
    drawn.detail_scroll = scroll;
    draw_footer(frame, footer, pr, view);
    if *view.mode == InputMode::Filter {
        draw_filter(frame, area, pr, theme);
    }
    drawn
}

fn app_list_height_fallback(body: Rect) -> u16 {
    body.height.saturating_sub(2)
}

fn draw_header(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    gates: &crate::policy::GateConfig,
    theme: &Theme,
) {
    let pr = &screen.list.snapshot.pr;
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
    let source = match screen.list.step() {
        Some((_, 0)) => "fixture".to_owned(),
        Some((k, n)) => format!("fixture step {k} of {n}"),
        None => "live".to_owned(),
    };
    let mut l2 = vec![
        Span::styled(format!("@{}", one_line(&pr.author.login)), theme.author),
        Span::styled(
            format!(" ({})", association_label(pr.author.association, gates)),
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
    let c = &screen.list.counts;
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
    if c.shepherd > 0 {
        // Shepherd's own reviews, counted apart from NEW and EDITED.
        let label = crate::output::items::SHEPHERD_BADGE;
        l3.push(Span::styled(format!(" {label} "), theme.badge_unchanged));
        l3.push(Span::styled(format!(" {}  ", c.shepherd), theme.text));
    }
    if !screen.list.seen_now.is_empty() {
        l3.push(Span::styled(
            format!("✓ {} seen now", screen.list.seen_now.len()),
            theme.seen,
        ));
    }
    if let Some(why) = &screen.marks.blocked {
        l3.push(Span::styled(
            format!("  markers not saved: {}", one_line(why)),
            theme.notice,
        ));
    }
    let mut lines = vec![Line::from(l1), Line::from(l2), Line::from(l3)];
    if let Some(p) = &screen.desk.progress {
        lines.push(Line::styled(one_line(p), theme.text));
    }
    let w = usize::from(area.width);
    let lines: Vec<Line> = lines.into_iter().map(|l| fit(l, w)).collect();
    frame.render_widget(Paragraph::new(lines), area);
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

/// Draws the list; returns the area inside its border (the rows).
fn draw_list(frame: &mut Frame, area: Rect, screen: &PrScreen, view: &View<'_>) -> Rect {
    let theme = view.theme;
    let focused = screen.list.focus == Focus::List && *view.mode != InputMode::Help;
    let title = match &screen.list.search {
        Some(q) => format!(" Items · /{} ", one_line(q)),
        None if !screen.list.filter.is_default() => {
            format!(" Items · filter: {} ", screen.list.filter.describe())
        }
        None => " Items ".to_owned(),
    };
    let block = bordered(title, focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let width = usize::from(inner.width);
    let query = screen.list.search.as_deref().map(str::to_lowercase);
    let lines: Vec<Line> = screen
        .list
        .rows
        .iter()
        .enumerate()
        .skip(screen.list.offset_for(height))
        .take(height)
        .map(|(r, row)| {
            let selected = r == screen.list.selected;
            let mut line = match row {
                Row::Group(g) => group_line(screen, *g, theme),
                Row::Item(i) => item_line(screen, *i, theme, width, query.as_deref()),
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
    if screen.list.snapshot.items.is_empty() && height > 3 {
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
    inner
}

fn group_line(screen: &PrScreen, g: Group, theme: &Theme) -> Line<'static> {
    let i = match g {
        Group::Threads => 0,
        Group::Conversation => 1,
        Group::Summaries => 2,
    };
    let (total, new, edited) = screen.list.counts.groups[i];
    let listed = screen.list.listed[i];
    let arrow = if screen.list.collapsed[i] {
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
    screen: &PrScreen,
    idx: usize,
    theme: &Theme,
    width: usize,
    query: Option<&str>,
) -> Line<'static> {
    let Some(item) = screen.list.snapshot.items.get(idx) else {
        return Line::default();
    };
    let mut spans = vec![Span::raw(" ")];
    spans.extend(badge_spans(screen, idx, item, theme));
    spans.push(Span::styled(
        format!("@{}", one_line(item.login())),
        theme.author,
    ));
    if screen.list.folded(idx) {
        // The badge names the reason; the text stays folded.
        spans.push(Span::styled("  folded · Enter opens", theme.dim));
        return Line::from(spans);
    }
    if let Some(loc) = item.location() {
        spans.push(Span::styled(format!(" {}", one_line(&loc)), theme.location));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    let room = width.saturating_sub(used + 2);
    if room > 3 {
        // Without pr-shepherd's hidden markers (Shepherd's own review: its metadata too).
        let body = crate::pr::without_markers(if screen.list.is_own(idx) {
            crate::review::results::outcome::visible(item.body())
        } else {
            item.body()
        });
        let text = if body.trim().is_empty() {
            "(no body)".to_owned()
        } else {
            excerpt(&body, room)
        };
        let hit = query.is_some_and(|q| ItemList::matches(item, q));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            text,
            if hit { theme.search_match } else { theme.dim },
        ));
    }
    Line::from(spans)
}

fn draw_footer(frame: &mut Frame, area: Rect, screen: &PrScreen, view: &View<'_>) {
    let (theme, keymap) = (view.theme, view.keymap);
    let mut spans = Vec::new();
    let mut notice: Option<Span<'static>> = None;
    match view.mode {
        InputMode::Search { query, .. } if screen.desk.dismissing.is_some() => {
            let (id, lesson) = screen.desk.dismissing.clone().unwrap_or_default();
            spans.push(Span::styled(
                format!(
                    "{} {id}, reason: {}",
                    if lesson {
                        "lesson for the repository from"
                    } else {
                        "dismiss"
                    },
                    one_line(query)
                ),
                theme.header,
            ));
            spans.push(Span::styled("█", theme.key));
            if screen.desk.reason_missing {
                spans.push(Span::styled(
                    "  a reason is needed",
                    theme.severity_important,
                ));
            }
            spans.push(Span::styled("  Enter dismiss · Esc cancel", theme.dim));
        }
        InputMode::Search { query, .. } => {
            let n = if query.is_empty() {
                0
            } else {
                screen.list.match_rows(query).len()
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
        InputMode::Messages => {
            key_hint(keymap, KeyCommand::Messages, "close", theme, &mut spans);
            key_hint(keymap, KeyCommand::Down, "scroll", theme, &mut spans);
        }
        InputMode::Help => {
            key_hint(keymap, KeyCommand::Help, "close help", theme, &mut spans);
            key_hint(keymap, KeyCommand::Down, "scroll", theme, &mut spans);
            key_hint(keymap, KeyCommand::PageDown, "page", theme, &mut spans);
        }
        InputMode::Edit => {
            spans.push(Span::styled(
                "editing the review · autosaved on every change · ctrl-o $VISUAL/$EDITOR · ctrl-z undo · ctrl-r redo · Esc done",
                theme.dim,
            ));
        }
        InputMode::Reply if screen.threads.on_comment => {
            spans.push(Span::styled(
                "commenting on the conversation · ctrl-s post (asks first) · ctrl-o $VISUAL/$EDITOR · ctrl-z undo · Esc close, kept",
                theme.dim,
            ));
        }
        InputMode::Reply => {
            spans.push(Span::styled(
                "replying · autosaved on every change · ctrl-s send (asks first) · ctrl-o $VISUAL/$EDITOR · ctrl-z undo · Esc close, kept",
                theme.dim,
            ));
        }
        InputMode::Asked if screen.asked().is_some_and(super::Ask::is_refusal) => {
            spans.push(Span::styled("any key closes", theme.dim));
        }
        InputMode::Asked | InputMode::ConfirmQuit { .. } => {
            spans.push(Span::styled("y confirm · any other key cancels", theme.dim));
        }
        InputMode::Normal if screen.desk.opened.is_some() => {
            if let Some(n) = view.notice {
                notice = Some(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            for (c, what) in [
                (KeyCommand::Dismiss, "dismiss"),
                (KeyCommand::Lesson, "lesson"),
                (KeyCommand::Toggle, "keep"),
                (KeyCommand::Files, "jump to line"),
                (KeyCommand::Down, "scroll"),
                (KeyCommand::Help, "help"),
                (KeyCommand::Back, "back"),
            ] {
                key_hint(keymap, c, what, theme, &mut spans);
            }
        }
        InputMode::Normal if screen.desk.pane != Pane::Item => {
            if let Some(n) = view.notice {
                notice = Some(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            let hints: &[(KeyCommand, &str)] = if screen.desk.pane == Pane::Aspects {
                &[
                    (KeyCommand::Aspects, "close"),
                    (KeyCommand::Review, "review"),
                    (KeyCommand::FullReview, "full"),
                    (KeyCommand::ReviewPane, "review pane"),
                    (KeyCommand::Help, "help"),
                    (KeyCommand::Quit, if view.below { "back" } else { "quit" }),
                ]
            } else if screen.list.focus == Focus::Detail {
                // The findings have the keys.
                &[
                    (KeyCommand::Down, "finding"),
                    (KeyCommand::MarkAddressed, "addressed"),
                    (KeyCommand::Dismiss, "dismiss"),
                    (KeyCommand::PageDown, "scroll"),
                    (KeyCommand::Focus, "list"),
                    (KeyCommand::Edit, "edit"),
                    (KeyCommand::Post, "post"),
                    (KeyCommand::Discard, "discard"),
                    (KeyCommand::Quit, "close"),
                    (KeyCommand::Help, "help"),
                ]
            } else {
                &[
                    (KeyCommand::Down, "move"),
                    (KeyCommand::Focus, "findings"),
                    (KeyCommand::Edit, "edit"),
                    (KeyCommand::Post, "post"),
                    (KeyCommand::Discard, "discard"),
                    (KeyCommand::ReviewPane, "close"),
                    (KeyCommand::Help, "help"),
                    (KeyCommand::QuitAll, "quit"),
                ]
            };
            for (c, what) in hints {
                key_hint(keymap, *c, what, theme, &mut spans);
            }
        }
        InputMode::Normal => {
            if let Some(n) = view.notice {
                notice = Some(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            let detail = screen.list.focus == Focus::Detail;
            let hints: &[(KeyCommand, &str)] = if detail {
                &[
                    (KeyCommand::Down, "scroll"),
                    (KeyCommand::PageDown, "page"),
                    (KeyCommand::Focus, "list"),
                    (KeyCommand::Toggle, "zoom"),
                    (KeyCommand::Open, "open"),
                    (KeyCommand::Copy, "copy"),
                    (KeyCommand::Help, "help"),
                    (KeyCommand::Back, "back"),
                ]
            } else {
                &[
                    (KeyCommand::Down, "move"),
                    (KeyCommand::Focus, "detail"),
                    (KeyCommand::Toggle, "expand"),
                    (KeyCommand::Search, "search"),
                    (KeyCommand::Filter, "filter"),
                    (KeyCommand::NextNew, "next new"),
                    (KeyCommand::MarkSeen, "mark"),
                    (KeyCommand::Review, "review"),
                    (KeyCommand::StepForward, "step"),
                    (KeyCommand::Help, "help"),
                    // Opened from the inbox, `q` goes back to it.
                    (KeyCommand::Quit, if view.below { "back" } else { "quit" }),
                ]
            };
            for (c, what) in hints {
                if *c == KeyCommand::StepForward && screen.list.step().is_none_or(|(_, n)| n == 0) {
                    continue;
                }
                key_hint(keymap, *c, what, theme, &mut spans);
            }
        }
    }
    // A status message gets the room the hints leave (at least two fifths of the line), cut
    // with … when longer, so it never pushes the hints off.
    let width = usize::from(area.width);
    let notice_room = notice.as_ref().map_or(0, |n| n.width().min(width * 2 / 5));
    let hints = fit_hints(Line::from(spans), keymap, width.saturating_sub(notice_room));
    let mut line = Vec::new();
    if let Some(n) = notice {
        let room = width.saturating_sub(hints.width()).max(width * 2 / 5);
        line.extend(fit(Line::from(n), room).spans);
        if line.last().is_some_and(|s| s.content == "…") {
            line.push(Span::raw(" "));
        }
    }
    line.extend(hints.spans);
    frame.render_widget(Paragraph::new(fit(Line::from(line), width)), area);
}

/// The filter dialog, above the screen.
fn draw_filter(frame: &mut Frame, area: Rect, screen: &PrScreen, theme: &Theme) {
    let f = &screen.list.filter;
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
