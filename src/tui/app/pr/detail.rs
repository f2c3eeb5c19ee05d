//! The PR screen's detail pane: one item (a thread with its hunk, a comment, a review summary),
//! wrapped; or the review desk's panes (`review_pane.rs`) and the editors. Also the badges an
//! item is listed with.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::PrScreen;
use super::desk::Pane;
use super::list::{Focus, ItemList};
use super::review_pane::{draw_aspects, draw_editor, draw_review};
use crate::ledger::is_queued;
use crate::policy::GateConfig;
use crate::pr::{Association, Comment, Item, ReviewState};
use crate::sanitize::{one_line, sanitize};
use crate::triage::{DiffLine, line_diff};
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::screen::View;
use crate::tui::highlight::plain_hunk;
use crate::tui::theme::Theme;
use crate::tui::ui::{ago, bordered, draw_scrolled, wrap, wrap_diff};

/// Lines of a thread's diff hunk shown above the comments (all of it when zoomed).
pub const HUNK_TAIL: usize = 8;

/// The line that stands for the hunk's lines above its shown tail: "⋯ 1 earlier line …".
fn earlier_lines(skip: usize) -> String {
    format!(
        "⋯ {} of the hunk (Enter shows all)",
        crate::plural::count(skip, "earlier line")
    )
}

/// "team" or "community", as the gates count the author (one decision: `policy::team_of`).
pub(super) fn association_label(a: Association, gates: &GateConfig) -> &'static str {
    crate::policy::side_label(a, gates)
}

fn badge_style(theme: &Theme, label: &str) -> Style {
    match label {
        "NEW" => theme.badge_new,
        "EDITED" => theme.badge_edited,
        "UNCHANGED" => theme.badge_unchanged,
        "OUTDATED" => theme.badge_outdated,
        "RESOLVED" | "RESOLVING" | "UNRESOLVING" => theme.badge_resolved,
        "REPLY" | "QUEUED" | "SENT" => theme.notice,
        crate::output::items::SHEPHERD_BADGE => theme.badge_unchanged,
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
/// Shepherd's own review has `SHEPHERD` in place of its freshness (as `items` lists it).
pub(super) fn badge_spans(
    screen: &PrScreen,
    idx: usize,
    item: &Item,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut badges = crate::output::items::badges(item, screen.list.freshness(idx));
    if screen.list.is_own(idx)
        && let Some(first) = badges.first_mut()
    {
        crate::output::items::SHEPHERD_BADGE.clone_into(first);
    }
    // What is queued offline for GitHub says so: it is not there yet.
    if let Item::Thread(t) = item {
        match screen.list.queued_resolution(&t.id) {
            Some(true) => {
                badges.retain(|b| b != "RESOLVED");
                badges.push("RESOLVING(queued)".to_owned());
            }
            Some(false) => badges.push("UNRESOLVING(queued)".to_owned()),
            None => {}
        }
        if !is_queued(&t.id) && t.comments.iter().any(|c| is_queued(&c.id)) {
            badges.push("REPLY(queued)".to_owned());
        }
    }
    // Sent by the maintainer, not on GitHub as read: queued offline, or sent and not read back.
    if is_queued(item.id()) {
        badges.retain(|b| b != "NEW" && b != "UNCHANGED");
        badges.push(queued_said(item.id()).0.to_owned());
    }
    for b in badges {
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
    if screen.list.seen_now.contains(item.id()) {
        spans.push(Span::styled("✓ ", theme.seen));
    }
    spans
}

/// How a stand-in for something the maintainer sent is said: its badge and its header's note.
fn queued_said(id: &str) -> (&'static str, &'static str) {
    if crate::ledger::is_sent_live(id) {
        ("SENT", " · sent, not read back from GitHub yet")
    } else {
        ("QUEUED(offline)", " · queued (offline), not on GitHub yet")
    }
}

/// "minimized as spam" for a folded item.
pub(super) fn folded_note(item: &Item) -> String {
    match item.status().minimized_reason {
        Some(r) => format!("minimized as {}", one_line(&r.to_lowercase())),
        None => "minimized".to_owned(),
    }
}

fn comment_header(c: &Comment, now: i64, gates: &GateConfig, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(format!("@{}", one_line(&c.author.login)), theme.author),
        Span::styled(
            format!(
                " ({}{})",
                association_label(c.author.association, gates),
                if c.author.bot { ", bot" } else { "" }
            ),
            theme.dim,
        ),
        if is_queued(&c.id) {
            Span::styled(queued_said(&c.id).1, theme.notice)
        } else {
            Span::styled(
                format!(" · {}", ago(c.created_at.timestamp(), now)),
                theme.dim,
            )
        },
    ];
    if let Some(e) = c.last_edited_at {
        spans.push(Span::styled(
            format!(" · edited {}", ago(e.timestamp(), now)),
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

/// A comment's body: sanitized, then its Markdown rendered to `width` (`tui::markdown`).
pub(in crate::tui) fn body_lines(
    body: &str,
    width: usize,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    if body.trim().is_empty() {
        out.push(Line::styled("(no body)", theme.dim));
        return;
    }
    out.extend(crate::tui::markdown::render(&sanitize(body), width, theme));
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

/// A comment's body, or its diff against the text last seen when it changed. The body's
/// Markdown comes from the list's cache when it holds this text at this width (filled outside
/// drawing, [`fill_markdown`]); else it is rendered here, and not stored.
fn body_or_diff(
    list: &ItemList,
    id: &str,
    body: &str,
    before: Option<&str>,
    width: usize,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    // pr-shepherd's own hidden markers are never shown (GitHub hides them too).
    let body = crate::pr::without_markers(body);
    match before {
        Some(before) => diff_lines(&crate::pr::without_markers(before), &body, theme, out),
        None => match list.cached_markdown(id, &body, width) {
            Some(lines) => out.extend(lines.iter().cloned()),
            None => body_lines(&body, width, theme, out),
        },
    }
}

/// The text width of the detail pane drawn in `area` (inside its border).
pub(super) fn detail_text_width(area: Rect) -> usize {
    usize::from(Block::default().borders(Borders::ALL).inner(area).width)
}

/// Fills the list's Markdown cache for item `idx` at the detail pane's width in `area`, as
/// [`body_lines`] renders it with `theme` (what [`draw_detail`] then reads).
pub(super) fn fill_markdown(list: &mut ItemList, idx: usize, area: Rect, theme: &Theme) {
    let width = detail_text_width(area);
    if width == 0 {
        return;
    }
    list.fill_markdown(idx, width, |body| {
        let mut out = Vec::new();
        body_lines(body, width, theme, &mut out);
        out
    });
}

/// [`detail_lines_anchored`] for the session of `view`, at `width` columns.
fn detail_lines_at(
    screen: &PrScreen,
    idx: usize,
    view: &View<'_>,
    width: u16,
    theme: &Theme,
) -> (Vec<Line<'static>>, Option<usize>, std::ops::Range<usize>) {
    detail_lines_anchored(
        screen,
        idx,
        view.session.now,
        usize::from(width),
        &view.session.gates,
        theme,
    )
}

/// Every line of the detail pane for item `idx` (before wrapping), and the line the item opens
/// at: a thread's first new reply.
fn detail_lines_anchored(
    screen: &PrScreen,
    idx: usize,
    now: i64,
    width: usize,
    gates: &GateConfig,
    theme: &Theme,
) -> (Vec<Line<'static>>, Option<usize>, std::ops::Range<usize>) {
    let Some(item) = screen.list.snapshot.items.get(idx) else {
        return (Vec::new(), None, 0..0);
    };
    let mut hunk_lines = 0..0;
    let changes = screen.list.changes(idx);
    let mut anchor = None;
    let mut out = Vec::new();
    let mut head = badge_spans(screen, idx, item, theme);
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
                let hunk = ItemList::highlight_key(item)
                    .and_then(|k| screen.list.highlights.get(&k).cloned())
                    .map_or_else(|| plain_hunk(&t.diff_hunk, theme), |l| (*l).clone());
                // GitHub's hunk ends at the commented line; show its tail unless zoomed.
                let skip = if screen.list.zoom {
                    0
                } else {
                    hunk.len().saturating_sub(HUNK_TAIL)
                };
                if skip > 0 {
                    out.push(Line::styled(earlier_lines(skip), theme.dim));
                }
                let start = out.len();
                out.extend(hunk.into_iter().skip(skip));
                hunk_lines = start..out.len();
                out.push(Line::default());
            }
            for (i, c) in t.comments.iter().enumerate() {
                if i > 0 {
                    out.push(Line::styled("───", theme.border));
                }
                let mut header = comment_header(c, now, gates, theme);
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
                body_or_diff(&screen.list, &c.id, &c.body, before, width, theme, &mut out);
            }
        }
        Item::Comment(c) => {
            head.push(Span::styled("Conversation comment", theme.location));
            out.push(Line::from(head));
            out.push(Line::styled(one_line(&c.url), theme.dim));
            out.push(Line::default());
            out.push(comment_header(c, now, gates, theme));
            if screen.list.is_own(idx) {
                // Shepherd's own review: its text, without the hidden metadata after it.
                let text = crate::review::results::outcome::visible(&c.body).trim_end();
                body_or_diff(&screen.list, &c.id, text, None, width, theme, &mut out);
            } else {
                let before = changes.as_ref().and_then(|ch| ch.previous_body.as_deref());
                body_or_diff(&screen.list, &c.id, &c.body, before, width, theme, &mut out);
            }
        }
        Item::Review(r) => {
            head.push(Span::styled("Review summary", theme.location));
            out.push(Line::from(head));
            out.push(Line::styled(one_line(&r.url), theme.dim));
            out.push(Line::default());
            let mut h = vec![
                Span::styled(format!("@{}", one_line(&r.author.login)), theme.author),
                Span::styled(
                    format!(" ({})", association_label(r.author.association, gates)),
                    theme.dim,
                ),
                Span::raw(" "),
                Span::styled(r.state.as_str(), review_state_style(theme, r.state)),
                if is_queued(&r.id) {
                    Span::styled(queued_said(&r.id).1, theme.notice)
                } else {
                    Span::styled(
                        format!(" · {}", ago(r.created_at.timestamp(), now)),
                        theme.dim,
                    )
                },
            ];
            if let Some(e) = r.last_edited_at {
                h.push(Span::styled(
                    format!(" · edited {}", ago(e.timestamp(), now)),
                    theme.notice,
                ));
            }
            out.push(Line::from(h));
            let before = changes.as_ref().and_then(|ch| ch.previous_body.as_deref());
            body_or_diff(&screen.list, &r.id, &r.body, before, width, theme, &mut out);
        }
    }
    (out, anchor, hunk_lines)
}

/// Draws the detail area; returns (the item shown, the pane's height, its wrapped line count,
/// the scroll used).
pub(super) fn draw_detail(
    frame: &mut Frame,
    area: Rect,
    screen: &PrScreen,
    view: &View<'_>,
) -> (Option<usize>, u16, usize, usize) {
    let theme = view.theme;
    let kept = screen.list.detail_scroll;
    let with = |(a, b, c): (Option<usize>, u16, usize)| (a, b, c, kept);
    if *view.mode == InputMode::Edit && screen.desk.draft.is_some() {
        return with(draw_editor(frame, area, screen, theme));
    }
    if *view.mode == InputMode::Reply
        && let Some((editor, title)) = screen.threads.composing()
    {
        // The thread being answered stays in view above the composer (its latest comments).
        let mut composer = area;
        if area.height >= 14
            && !screen.threads.on_comment
            && let Some(idx) = screen.list.selected_index()
        {
            let top_h = area.height * 11 / 20;
            let top = Rect {
                height: top_h,
                ..area
            };
            composer = Rect {
                y: area.y + top_h,
                height: area.height - top_h,
                ..area
            };
            let block = bordered(" The thread you are answering ".to_owned(), false, theme);
            let inner = block.inner(top);
            frame.render_widget(block, top);
            let (lines, _, _) = detail_lines_at(screen, idx, view, inner.width, theme);
            draw_scrolled(frame, inner, lines, usize::MAX);
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .title(title)
            .border_style(theme.border_focus);
        let inner = block.inner(composer);
        frame.render_widget(block, composer);
        frame.render_widget(editor, inner);
        return (None, inner.height, 0, kept);
    }
    match screen.desk.pane {
        Pane::Aspects if screen.desk.run.is_some() => {
            return with(draw_aspects(frame, area, screen, theme));
        }
        Pane::Review if screen.desk.draft.is_some() => {
            return draw_review(frame, area, screen, view);
        }
        _ => {}
    }
    let focused = screen.list.focus == Focus::Detail && *view.mode != InputMode::Help;
    let block = bordered(" Detail ".to_owned(), focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(idx) = screen.list.selected_index() else {
        let msg = if screen.list.rows.is_empty() || screen.list.snapshot.items.is_empty() {
            "Nothing to show."
        } else {
            "Select an item (j/k); Enter on a group collapses it."
        };
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.dim)), inner);
        return (None, inner.height, 0, kept);
    };
    if screen.list.folded(idx) {
        // Folded: not shown yet, so not marked seen either.
        let mut lines = Vec::new();
        if let Some(item) = screen.list.snapshot.items.get(idx) {
            let mut head = badge_spans(screen, idx, item, theme);
            head.push(Span::styled(
                format!("@{}", one_line(item.login())),
                theme.author,
            ));
            lines.push(Line::from(head));
            lines.push(Line::default());
            lines.push(Line::styled(
                format!(
                    "{} on GitHub; listed once because it is new (\"hide minimized\" hides it \
                     after that). Enter opens it.",
                    folded_note(item)
                ),
                theme.dim,
            ));
        }
        let (h, _) = draw_scrolled(frame, inner, lines, 0);
        return (None, h, 0, kept);
    }
    let mut wrapped = Vec::new();
    let (lines, anchor, hunk_lines) = detail_lines_at(screen, idx, view, inner.width, theme);
    let mut anchor_at = None;
    let mut commented_at = None;
    for (i, l) in lines.into_iter().enumerate() {
        if anchor == Some(i) {
            anchor_at = Some(wrapped.len());
        }
        if !hunk_lines.is_empty() && i + 1 == hunk_lines.end {
            commented_at = Some(wrapped.len());
        }
        if hunk_lines.contains(&i) {
            wrap_diff(l, usize::from(inner.width), &mut wrapped);
        } else {
            wrap(l, usize::from(inner.width), &mut wrapped);
        }
    }
    let total = wrapped.len();
    let h = usize::from(inner.height);
    let max_scroll = total.saturating_sub(h);
    // Freshly opened: a thread with new replies opens at the first one.
    // Zoomed in or out: the commented line (the hunk's last) near the middle.
    let wanted = match (anchor_at, commented_at) {
        (_, Some(c)) if screen.list.centre_commented_line => c.saturating_sub(h / 2),
        (Some(a), _) if screen.list.open_at_anchor => a,
        _ => screen.list.detail_scroll,
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

#[cfg(test)]
mod tests {
    use super::earlier_lines;

    #[test]
    fn the_earlier_lines_are_counted_in_words() {
        assert_eq!(
            earlier_lines(1),
            "⋯ 1 earlier line of the hunk (Enter shows all)"
        );
        assert_eq!(
            earlier_lines(48),
            "⋯ 48 earlier lines of the hunk (Enter shows all)"
        );
    }
}
