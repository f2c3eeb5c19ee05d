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
use super::keymap::{COMMANDS, KeyCommand, Keymap};
use super::review::{AspectView, Confirm, size_line};
use super::theme::Theme;
use crate::pr::{Association, Comment, Item, ReviewState};
use crate::review::condense::{BodySize, COMMENT_LIMIT, thousands};
use crate::sanitize::{one_line, sanitize};

mod detail;
mod inbox;
mod overlays;
mod review_pane;

use detail::*;
pub use detail::{detail_lines, wrap};
use overlays::*;
use review_pane::*;

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

    if app.screen == super::app::ScreenKind::Inbox
        && let Some(inbox) = app.inbox.as_ref()
    {
        let (list_height, list_area) = inbox::draw_inbox(frame, area, app, inbox, theme, keymap);
        // Nothing of a PR is shown: nothing is marked seen.
        let mut drawn = Drawn {
            list_height,
            list_area,
            ..Drawn::default()
        };
        if app.mode == InputMode::Help {
            let (max, h) = draw_help(frame, area, theme, keymap, app.help_scroll);
            drawn.help_max_scroll = max;
            drawn.help_height = h;
        }
        return drawn;
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
        let inner = draw_list(frame, la, app, theme);
        drawn.list_height = inner.height;
        drawn.list_area = inner;
    } else {
        drawn.list_height = app_list_height_fallback(body);
    }
    let (shown, h, total, scroll) = draw_detail(frame, detail_area, app, theme);
    drawn.shown = shown;
    drawn.detail_area = detail_area;
    drawn.detail_height = h;
    drawn.detail_lines = total;
    drawn.detail_scroll = scroll;
    draw_footer(frame, footer, app, theme, keymap);

    match &app.mode {
        InputMode::Help => {
            let (max, h) = draw_help(frame, area, theme, keymap, app.help_scroll);
            drawn.help_max_scroll = max;
            drawn.help_height = h;
        }
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
    let w = usize::from(area.width);
    let lines: Vec<Line> = lines.into_iter().map(|l| fit(l, w)).collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// Cuts a line to `width` columns; a cut line ends with `…` so nothing is lost silently.
pub(super) fn fit(mut line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    // Trailing blanks are not text: drop them before deciding that something is cut.
    while let Some(last) = line.spans.last_mut() {
        let trimmed = last.content.trim_end_matches(' ').to_owned();
        if trimmed.is_empty() {
            line.spans.pop();
            continue;
        }
        last.content = trimmed.into();
        break;
    }
    if line.width() <= width {
        return line;
    }
    let style = line.style;
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut last_style = Style::default();
    'outer: for span in line.spans {
        let mut buf = String::new();
        last_style = span.style;
        for ch in span.content.chars() {
            let w = ch.width().unwrap_or(0);
            if used + w > room {
                if !buf.is_empty() {
                    spans.push(Span::styled(buf, span.style));
                }
                break 'outer;
            }
            buf.push(ch);
            used += w;
        }
        if !buf.is_empty() {
            spans.push(Span::styled(buf, span.style));
        }
    }
    if width > 0 {
        spans.push(Span::styled("…", last_style));
    }
    Line::from(spans).style(style)
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

/// Draws the list; returns the area inside its border (the rows).
fn draw_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> Rect {
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
        .skip(app.pr.list.offset_for(height))
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
    inner
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
    if app.pr.list.folded(idx) {
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

/// "minimized as spam" for a folded item.
pub(super) fn folded_note(item: &Item) -> String {
    match item.status().minimized_reason {
        Some(r) => format!("minimized as {}", one_line(&r.to_lowercase())),
        None => "minimized".to_owned(),
    }
}

fn key_hint(
    keymap: &Keymap,
    cmd: KeyCommand,
    what: &str,
    theme: &Theme,
    out: &mut Vec<Span<'static>>,
) {
    out.push(Span::styled(keymap.keys_label(cmd), theme.key));
    out.push(Span::styled(format!(" {what}  "), theme.dim));
}

fn draw_footer(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, keymap: &Keymap) {
    let mut spans = Vec::new();
    let mut notice: Option<Span<'static>> = None;
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
            key_hint(keymap, KeyCommand::Help, "close help", theme, &mut spans);
            key_hint(keymap, KeyCommand::Down, "scroll", theme, &mut spans);
            key_hint(keymap, KeyCommand::PageDown, "page", theme, &mut spans);
        }
        InputMode::Edit => {
            spans.push(Span::styled(
                "editing the review · autosaved on every change · Esc done",
                theme.dim,
            ));
        }
        InputMode::Reply => {
            spans.push(Span::styled(
                "replying · autosaved on every change · ctrl-s send (asks first) · Esc close, kept",
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
                notice = Some(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            let hints: &[(KeyCommand, &str)] = if app.pr.desk.pane == Pane::Aspects {
                &[
                    (KeyCommand::Aspects, "close"),
                    (KeyCommand::Review, "review"),
                    (KeyCommand::FullReview, "full"),
                    (KeyCommand::ReviewPane, "review pane"),
                    (KeyCommand::Help, "help"),
                    (KeyCommand::Quit, "quit"),
                ]
            } else if app.pr.list.focus == Focus::Detail {
                // The findings have the keys.
                &[
                    (KeyCommand::Down, "finding"),
                    (KeyCommand::MarkAddressed, "addressed"),
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
            if let Some(n) = &app.notice {
                notice = Some(Span::styled(format!("{}  ", one_line(n)), theme.notice));
            }
            let detail = app.pr.list.focus == Focus::Detail;
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
                    (KeyCommand::Quit, "quit"),
                ]
            };
            for (c, what) in hints {
                if *c == KeyCommand::StepForward && app.pr.list.step().is_none_or(|(_, n)| n == 0) {
                    continue;
                }
                key_hint(keymap, *c, what, theme, &mut spans);
            }
        }
    }
    // A status message gets the room the hints leave (at least two fifths of the line), cut
    // with … when longer, so it never pushes the hints off.
    let width = usize::from(area.width);
    let hints = Line::from(spans);
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
                // A single wide character may exceed a width of 1; a line may end in the
                // one space it was broken at; nothing else may.
                let trailing = l.spans.last().is_some_and(|s| s.content.ends_with(' '));
                prop_assert!(w <= width.max(2) + usize::from(trailing), "{w} > {width}");
            }
        }
    }

    fn texts(out: &[Line<'static>]) -> Vec<String> {
        out.iter()
            .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
            .collect()
    }

    /// Defect 4 of issue 13: words are not broken mid-word ("gat│eway").
    #[test]
    fn wrap_breaks_at_word_boundaries() {
        let mut out = Vec::new();
        let line = Line::from(vec![
            Span::raw("the gateway "),
            Span::styled("retries twice", theme_style()),
        ]);
        wrap(line, 10, &mut out);
        assert_eq!(texts(&out), vec!["the ", "gateway ", "retries ", "twice"]);
        // The style of each part is kept.
        assert_eq!(out[2].spans[0].style, theme_style());
        // A word longer than the width is broken where it must be.
        let mut out = Vec::new();
        wrap(Line::raw("a supercalifragilistic word"), 8, &mut out);
        assert_eq!(texts(&out), vec!["a superc", "alifragi", "listic ", "word"]);
    }

    fn theme_style() -> Style {
        Style::default().fg(ratatui::style::Color::Red)
    }
}
