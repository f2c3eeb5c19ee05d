//! Drawing the inbox screen: tabs, the PRs as a table (`table.rs`: columns chosen per width,
//! a header, one line per PR), loading progress, and its own footer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::{InboxScreen, table};
use crate::inbox::columns::ALL;
use crate::inbox::{Counts, Row as InboxRow, needs_attention};
use crate::sanitize::one_line;
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::screen::View;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::{count, key_hint};

/// Draws the inbox; returns the rows' height (for paging) and where they were drawn (for the
/// mouse).
pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    inbox: &InboxScreen,
    view: &View<'_>,
) -> (u16, Rect, Rect) {
    let (theme, keymap) = (view.theme, view.keymap);
    let [tabs_area, body, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);

    // Tabs and the state of the current one.
    let mut spans = vec![Span::styled("Inbox ", theme.header)];
    for (i, t) in inbox.tabs.iter().enumerate() {
        let style = if i == inbox.tab {
            theme.selection
        } else {
            theme.dim
        };
        spans.push(Span::styled(format!(" {} ", one_line(&t.title)), style));
        spans.push(Span::raw(" "));
    }
    let mut status = Vec::new();
    if let Some(t) = inbox.current() {
        let attention = t.rows.iter().filter(|r| needs_attention(r)).count();
        status.push(Span::styled(
            format!(
                "{} · {attention} {} attention",
                count(t.rows.len(), "open PR", "open PRs"),
                if attention == 1 { "needs" } else { "need" }
            ),
            theme.text,
        ));
        // A count that failed: said once here (with the first reason), not in every row.
        let failed: Vec<&str> = t
            .rows
            .iter()
            .filter_map(|r| match &r.items {
                Counts::Failed(why) => Some(why.as_str()),
                _ => None,
            })
            .collect();
        if let Some(first) = failed.first() {
            status.push(Span::styled(
                format!(
                    " · counts incomplete: {} not counted ({})",
                    count(failed.len(), "PR", "PRs"),
                    one_line(first)
                ),
                theme.badge_edited,
            ));
        }
        if let Some((done, total)) = t.loading {
            status.push(Span::styled(
                format!(" · counting {done}/{total}…"),
                theme.notice,
            ));
        }
        if !t.problems.is_empty() {
            status.push(Span::styled(
                format!(" · {} not listed (see below)", t.problems.len()),
                theme.badge_edited,
            ));
        }
    }
    status.push(Span::styled(
        format!(
            " · sort: {} · showing: {}{}",
            inbox.sort_label(),
            inbox.filter.label(),
            if inbox.search.is_empty() {
                String::new()
            } else {
                format!(" · search `{}`", one_line(&inbox.search))
            }
        ),
        theme.dim,
    ));
    frame.render_widget(
        Paragraph::new(vec![Line::from(spans), Line::from(status)]),
        tabs_area,
    );

    // The tab's PRs all of one repository: the rows say `#N`, and the table's frame names the
    // repository once (unless the tab is named after it: `pr-shepherd OWNER/REPO`).
    let repo = inbox.current().and_then(|t| table::one_repo(&t.rows));
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focus);
    if let (Some(repo), Some(t)) = (&repo, inbox.current())
        && !one_line(&t.title).eq_ignore_ascii_case(repo)
    {
        block = block.title(Span::styled(format!(" {repo} "), theme.header));
    }
    let inner = block.inner(body);
    frame.render_widget(block, body);
    let height = usize::from(inner.height);
    let mut lines = Vec::new();
    // The table's header line, when rows are drawn: it is not a row (paging, the mouse).
    let mut header = 0u16;
    match inbox.current() {
        None => {}
        Some(t) if t.error.is_some() => {
            lines.push(Line::styled(
                format!(
                    "The list could not be loaded: {}",
                    one_line(t.error.as_deref().unwrap_or_default())
                ),
                theme.badge_edited,
            ));
            lines.push(Line::styled("r reloads it", theme.dim));
        }
        Some(t) if t.rows.is_empty() && t.loading.is_some() => {
            lines.push(Line::styled("Loading the open pull requests…", theme.dim));
        }
        Some(t) if t.rows.is_empty() => {
            lines.push(Line::styled("No open pull requests.", theme.text));
        }
        Some(t) => {
            let visible = inbox.visible();
            if visible.is_empty() {
                lines.push(Line::styled(
                    "No PR matches the filter or search (f cycles the filter).",
                    theme.dim,
                ));
            }
            let cols = if view.session.inbox_columns.is_empty() {
                ALL.to_vec()
            } else {
                view.session.inbox_columns.clone()
            };
            let on_screen: Vec<&InboxRow> = visible
                .iter()
                .skip(inbox.offset)
                .take(height.saturating_sub(1))
                .filter_map(|&i| t.rows.get(i))
                .collect();
            let now = view.session.now;
            let progress_of = |r: &InboxRow| {
                view.background
                    .iter()
                    .find(|(c, _)| c == &r.listed.coords)
                    .map(|(_, p)| p.as_str())
            };
            let row_tags: Vec<Vec<String>> = on_screen
                .iter()
                .map(|r| table::tags(r, progress_of(r)))
                .collect();
            let tags_w = table::tags_width(row_tags.iter().map(Vec::as_slice));
            let layout = table::choose(&cols, &on_screen, inner.width, now, tags_w, repo.is_some());
            if !visible.is_empty() {
                lines.push(table::header_line(&layout, theme));
                header = 1;
            }
            // The rows on screen with their tags, worked out once above for the column's width.
            let shown = visible
                .iter()
                .enumerate()
                .skip(inbox.offset)
                .take(height.saturating_sub(1))
                .filter(|(_, i)| t.rows.get(**i).is_some())
                .map(|(pos, _)| pos);
            for ((pos, r), tags) in shown.zip(&on_screen).zip(&row_tags) {
                let open = inbox.open.as_ref() == Some(&r.listed.coords);
                lines.push(table::row_line(
                    r,
                    &layout,
                    table::RowMark {
                        selected: pos == inbox.selected,
                        open,
                        marked: inbox.marked.contains(&r.listed.coords),
                    },
                    tags,
                    now,
                    theme,
                ));
            }
        }
    }
    if let Some(t) = inbox.current() {
        for p in &t.problems {
            if lines.len() >= height {
                break;
            }
            lines.push(Line::styled(
                format!("not listed: {}", one_line(p)),
                theme.badge_edited,
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);

    // Footer: the notice, else the inbox's keys.
    let foot = match (view.mode, view.notice) {
        (InputMode::Search { query, .. }, _) => vec![
            Span::styled(format!("/{}", one_line(query)), theme.header),
            Span::styled("█", theme.key),
            Span::styled("  Enter accept · Esc cancel", theme.dim),
        ],
        (_, Some(n)) => vec![Span::styled(one_line(n), theme.notice)],
        _ => inbox_hints(keymap, theme),
    };
    frame.render_widget(Paragraph::new(Line::from(foot)), footer);
    if matches!(view.mode, InputMode::Filter) {
        draw_filter_menu(frame, area, inbox, theme);
    }
    let rows_area = Rect {
        y: inner.y.saturating_add(header),
        height: inner.height.saturating_sub(header),
        ..inner
    };
    let tabs_row = Rect {
        height: tabs_area.height.min(1),
        ..tabs_area
    };
    (rows_area.height, rows_area, tabs_row)
}

/// The tab under column `x` of the tab line (as drawn above: "Inbox ", then " title " and a
/// space per tab), for a click.
pub(super) fn tab_at(inbox: &InboxScreen, x: u16) -> Option<usize> {
    let mut at = "Inbox ".chars().count();
    for (i, t) in inbox.tabs.iter().enumerate() {
        let w = one_line(&t.title).chars().count() + 2;
        if (at..at + w).contains(&usize::from(x)) {
            return Some(i);
        }
        at += w + 1;
    }
    None
}

/// The filter menu, above the inbox: one key per filter, the current one checked.
fn draw_filter_menu(frame: &mut Frame, area: Rect, inbox: &InboxScreen, theme: &Theme) {
    use ratatui::widgets::Clear;
    let mut lines: Vec<Line> = super::InboxFilter::MENU
        .iter()
        .map(|(k, f, what)| {
            let on = if *f == inbox.filter { "(•)" } else { "( )" };
            Line::from(vec![
                Span::styled(format!(" {k} "), theme.key),
                Span::styled(format!("{on} {what}"), theme.text),
            ])
        })
        .collect();
    lines.push(Line::styled(" Esc closes; the search stays", theme.dim));
    let h = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let rect = crate::tui::ui::centered(area, 36, h);
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Show ")
        .border_style(theme.border_focus);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The inbox's keys as the keymap binds them (`s` and `r` are the inbox's own).
fn inbox_hints(keymap: &Keymap, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (c, what) in [
        (KeyCommand::Toggle, "open"),
        (KeyCommand::NextNew, "next unseen"),
        (KeyCommand::Search, "search"),
        (KeyCommand::Filter, "filter"),
    ] {
        key_hint(keymap, c, what, theme, &mut spans);
    }
    for (c, what) in [(KeyCommand::Sort, "sort"), (KeyCommand::Review, "reload")] {
        key_hint(keymap, c, what, theme, &mut spans);
    }
    // Help and quit before the rest, so a narrow terminal still shows them.
    for (c, what) in [
        (KeyCommand::Help, "help"),
        (KeyCommand::Quit, "quit"),
        (KeyCommand::Focus, "section"),
        (KeyCommand::Open, "browser"),
    ] {
        key_hint(keymap, c, what, theme, &mut spans);
    }
    spans
}
