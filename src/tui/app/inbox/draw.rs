//! Drawing the inbox screen: tabs, one line per PR (repo#N, title, author team/community,
//! labels, draft, new/edited counts, Shepherd state, gate), loading progress, and its own footer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::InboxScreen;
use crate::inbox::{Counts, GateReview, Row as InboxRow, ShepherdState, needs_attention};
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
) -> (u16, Rect) {
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
            inbox.sort.label(),
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

    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focus);
    let inner = block.inner(body);
    frame.render_widget(block, body);
    let height = usize::from(inner.height);
    let mut lines = Vec::new();
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
            for (pos, &i) in visible.iter().enumerate().skip(inbox.offset).take(height) {
                let Some(r) = t.rows.get(i) else { continue };
                let progress = view
                    .background
                    .iter()
                    .find(|(c, _)| c == &r.listed.coords)
                    .map(|(_, p)| p.as_str());
                let open = inbox.open.as_ref() == Some(&r.listed.coords);
                lines.push(row_line(r, pos == inbox.selected, open, progress, theme));
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
    (inner.height, inner)
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

fn row_line<'a>(
    r: &'a InboxRow,
    selected: bool,
    open: bool,
    progress: Option<&str>,
    theme: &Theme,
) -> Line<'a> {
    let l = &r.listed;
    let mut spans = vec![
        Span::styled(
            if selected {
                "▶ "
            } else if open {
                "↩ "
            } else {
                "  "
            },
            theme.key,
        ),
        Span::styled(
            one_line(&format!(
                "{}/{}#{}",
                l.coords.owner, l.coords.repo, l.coords.number
            )),
            theme.location,
        ),
        Span::raw(" "),
    ];
    match &r.items {
        Counts::Counted { total, new, edited } => {
            if *new > 0 {
                spans.push(Span::styled(format!("{new} new"), theme.badge_new));
                spans.push(Span::raw(" "));
            }
            if *edited > 0 {
                spans.push(Span::styled(format!("{edited} edited"), theme.badge_edited));
                spans.push(Span::raw(" "));
            }
            if new + edited == 0 {
                let all = if *total == 0 {
                    "no items".to_owned()
                } else {
                    format!("{total} seen")
                };
                spans.push(Span::styled(all, theme.seen));
                spans.push(Span::raw(" "));
            }
        }
        Counts::Loading => spans.push(Span::styled("counting… ", theme.dim)),
        // Why is said once, in the header.
        Counts::Failed(_) => spans.push(Span::styled("counts unknown ", theme.badge_edited)),
    }
    // Known only where the PR's patches were read (offline; live once the PR was opened).
    if let Some(n) = r.files_changed.filter(|n| *n > 0) {
        spans.push(Span::styled(
            format!("{n} file{} changed ", if n == 1 { "" } else { "s" }),
            theme.badge_edited,
        ));
    }
    let (shep, shep_style) = match r.shepherd.state {
        ShepherdState::Current => ("Shepherd current", theme.state_approved),
        ShepherdState::Stale => ("Shepherd stale", theme.state_changes_requested),
        ShepherdState::None => ("Shepherd none", theme.dim),
        ShepherdState::Unknown => ("Shepherd ?", theme.dim),
    };
    spans.push(Span::styled(shep, shep_style));
    spans.push(Span::raw(" "));
    let gate_style = match r.gate.review {
        GateReview::Allowed => theme.state_commented,
        GateReview::NeedsLabel => theme.badge_edited,
        GateReview::Paused => theme.badge_outdated,
        GateReview::Refused => theme.badge_minimized,
    };
    spans.push(Span::styled(r.gate.review.as_str(), gate_style));
    spans.push(Span::raw(" "));
    if let Some(p) = progress {
        spans.push(Span::styled(format!("[{}] ", one_line(p)), theme.notice));
    }
    if l.draft {
        spans.push(Span::styled("draft ", theme.dim));
    }
    let style = if selected {
        theme.selection
    } else {
        theme.text
    };
    spans.push(Span::styled(one_line(&l.title), style));
    spans.push(Span::styled(
        format!(
            " @{} ({})",
            one_line(&l.author.login),
            if r.team { "team" } else { "community" }
        ),
        theme.author,
    ));
    for label in &l.labels {
        spans.push(Span::styled(format!(" [{}]", one_line(label)), theme.dim));
    }
    Line::from(spans)
}
