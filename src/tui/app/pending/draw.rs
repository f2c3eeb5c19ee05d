//! Drawing the pending review: the comments with their place, the selected one's text (or the
//! editor on it), and the footer with the screen's keys.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{PendingEdit, PendingScreen};
use crate::code::pending::{DraftState, FollowState};
use crate::sanitize::{one_line, sanitize};
use crate::tui::app::action::Drawn;
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::screen::View;
use crate::tui::keymap::KeyCommand;
use crate::tui::ui::{bordered, fit, fit_hints, key_hint, wrap};

pub(super) fn draw(s: &PendingScreen, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
    let theme = view.theme;
    let [list_area, detail_area, footer] = Layout::vertical([
        Constraint::Percentage(45),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let p = &s.snapshot.pr;
    let title = format!(
        " Pending review · {}/{}#{} ",
        one_line(&p.owner),
        one_line(&p.repo),
        p.number
    );
    let block = bordered(title, s.editing.is_none(), theme);
    let inner = block.inner(list_area);
    frame.render_widget(block, list_area);
    let width = usize::from(inner.width);
    let mut lines: Vec<Line<'static>> = Vec::new();
    match &s.review {
        None => lines.push(Line::styled("reading the pending review…", theme.dim)),
        Some(r) if r.comments.is_empty() => {
            // The keys as the keymap binds them, so a rebound key is the one named here.
            let k = |c| view.keymap.keys_label(c);
            // Three short lines, so the hint fits at 80 columns.
            for line in [
                "no pending comments.".to_owned(),
                format!(
                    "In a file's diff ({}, {}): {} comments on the line,",
                    k(KeyCommand::Files),
                    k(KeyCommand::Toggle),
                    k(KeyCommand::Reply)
                ),
                format!(
                    "{} selects lines, {} suggests.",
                    k(KeyCommand::SelectLines),
                    k(KeyCommand::Suggest)
                ),
            ] {
                lines.push(Line::styled(line, theme.dim));
            }
        }
        Some(r) => {
            let posted = r.to_post().count();
            lines.push(Line::styled(
                format!(
                    "{}, {posted} to post · {} from findings still to decide",
                    crate::output::plural::count(r.comments.len(), "comment"),
                    crate::output::plural::count(
                        r.comments
                            .iter()
                            .filter(|c| c.state == DraftState::Proposed)
                            .count(),
                        "draft"
                    )
                ),
                theme.dim,
            ));
            // Each column as wide as its longest value, and a space between columns.
            let id_w = r.comments.iter().map(|c| c.id.len()).max().unwrap_or(0);
            let kind_w = r.comments.iter().map(|c| c.kind.as_str().len()).max();
            let state_w = r.comments.iter().map(|c| c.state.as_str().len()).max();
            let (kind_w, state_w) = (kind_w.unwrap_or(0), state_w.unwrap_or(0));
            // The places too, up to a third of the row (a longer one pushes its text right).
            let place_w = r
                .comments
                .iter()
                .map(|c| one_line(&c.place()).chars().count())
                .max()
                .unwrap_or(0)
                .min(width / 3);
            for (i, c) in r.comments.iter().enumerate() {
                let state_style = match c.state {
                    DraftState::Proposed => theme.badge_new,
                    DraftState::Kept => theme.state_approved,
                    DraftState::Edited => theme.badge_edited,
                    DraftState::Dropped | DraftState::Posted => theme.seen,
                };
                let mut spans = vec![
                    Span::styled(format!("{:<id_w$}  ", one_line(&c.id)), theme.key),
                    Span::styled(format!("{:<kind_w$} ", c.kind.as_str()), theme.dim),
                    Span::styled(format!("{:<state_w$} ", c.state.as_str()), state_style),
                ];
                // Written at an earlier head: whether its lines moved, changed or left.
                if let Some(f) = &c.followed {
                    let kept = if f.kept { " kept" } else { "" };
                    spans.push(Span::styled(
                        format!("{}{kept} ", f.state.as_str()),
                        theme.badge_outdated,
                    ));
                }
                spans.push(Span::styled(
                    format!("{:<place_w$}  ", one_line(&c.place())),
                    theme.location,
                ));
                spans.push(Span::styled(one_line(&c.preview()), theme.text));
                let line = Line::from(spans);
                let line = if i == s.selected {
                    line.style(theme.selection)
                } else {
                    line
                };
                lines.push(fit(line, width));
            }
        }
    }
    if let Some(done) = &s.submitted {
        lines.push(Line::styled(one_line(done), theme.notice));
    }
    // What was sent stays in sight, said as queued or sent, until the PR read back shows it.
    for (c, live) in s.sent_comments() {
        let state = if *live {
            "sent to GitHub"
        } else {
            "queued (offline), not on GitHub yet"
        };
        lines.push(fit(
            Line::from(vec![
                Span::styled(format!("{}  ", one_line(&c.id)), theme.dim),
                Span::styled(format!("{} ", c.kind.as_str()), theme.dim),
                Span::styled(format!("{state}  "), theme.notice),
                Span::styled(format!("{}  ", one_line(&c.place())), theme.location),
                Span::styled(one_line(&c.preview()), theme.dim),
            ]),
            width,
        ));
    }
    let height = usize::from(inner.height);
    let skip = (s.selected + 2).saturating_sub(height);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(skip).collect();
    frame.render_widget(Paragraph::new(shown), inner);

    // The editor on a comment, else the selected comment's text (its height and lines).
    let mut comment = (0, 0);
    match (&s.editing, view.mode) {
        (Some(e), InputMode::Edit) => {
            let ext = crate::tui::editor::EXTERNAL_KEY;
            let what = match &e.target {
                PendingEdit::New { sel, suggestion } => {
                    let lines = match sel.start {
                        Some(a) => format!("{}-{}", a.line, sel.end.line),
                        None => sel.end.line.to_string(),
                    };
                    format!(
                        " {} on {}:{lines} · {ext} $EDITOR · Esc done (saved) ",
                        if *suggestion { "Suggestion" } else { "Comment" },
                        one_line(&sel.path)
                    )
                }
                PendingEdit::Existing(id) => {
                    format!(" Edit {} · {ext} $EDITOR · Esc done (saved) ", one_line(id))
                }
                PendingEdit::Body(how) => format!(
                    " Review body ({}) · {ext} $EDITOR · {} · Esc asks ",
                    how.said(),
                    if s.summary.is_some() {
                        format!("{} empty ⇄ Shepherd summary", super::SWAP_SUMMARY_KEY)
                    } else {
                        "no Shepherd summary (no review draft)".to_owned()
                    }
                ),
            };
            let block = bordered(what, true, theme);
            let inner = block.inner(detail_area);
            frame.render_widget(block, detail_area);
            frame.render_widget(&e.editor, inner);
        }
        _ => {
            let block = bordered(" Comment ".to_owned(), false, theme);
            let inner = block.inner(detail_area);
            frame.render_widget(block, detail_area);
            let detail_width = usize::from(inner.width);
            let body: Vec<Line<'static>> = s
                .review
                .as_ref()
                .and_then(|r| r.comments.get(s.selected))
                .map(|c| {
                    let mut v = vec![Line::styled(
                        format!(
                            "{} · {}{}",
                            one_line(&c.place()),
                            c.kind.as_str(),
                            c.finding_id
                                .as_deref()
                                .map(|f| format!(" · {}", one_line(f)))
                                .unwrap_or_default()
                        ),
                        theme.location,
                    )];
                    if let (Some(said), Some(f)) = (c.follow_said(), &c.followed) {
                        wrap(
                            Line::styled(one_line(&said), theme.badge_outdated),
                            detail_width,
                            &mut v,
                        );
                        if f.state != FollowState::Moved {
                            let shown = |label: &str, lines: &[String]| {
                                let text = if lines.is_empty() {
                                    "(not recorded)".to_owned()
                                } else {
                                    lines
                                        .iter()
                                        .map(|l| sanitize(l).replace('\t', "    "))
                                        .collect::<Vec<_>>()
                                        .join(" ⏎ ")
                                };
                                Line::styled(format!("{label}: {text}"), theme.dim)
                            };
                            wrap(shown("was", &f.was), detail_width, &mut v);
                            if f.state == FollowState::Outdated {
                                wrap(shown("now", &f.now), detail_width, &mut v);
                            }
                        }
                    }
                    // Wrapped, never cut: the whole comment is read here.
                    for l in sanitize(&c.body).lines() {
                        wrap(
                            Line::styled(l.replace('\t', "    "), theme.text),
                            detail_width,
                            &mut v,
                        );
                    }
                    v
                })
                .unwrap_or_default();
            comment = (inner.height, body.len());
            let skip = s
                .comment_scroll
                .min(body.len().saturating_sub(usize::from(inner.height)));
            frame.render_widget(
                Paragraph::new(body.into_iter().skip(skip).collect::<Vec<_>>()),
                inner,
            );
        }
    }

    let foot = match view.notice {
        Some(n) => vec![Span::styled(one_line(n), theme.notice)],
        None => {
            let mut spans = Vec::new();
            // The three ways to submit first: a narrow footer drops hints from its right end,
            // and these are the screen's purpose.
            key_hint(view.keymap, KeyCommand::Post, "submit", theme, &mut spans);
            spans.push(Span::styled("X", theme.key));
            spans.push(Span::styled(" request changes  ", theme.dim));
            key_hint(
                view.keymap,
                KeyCommand::Approve,
                "approve",
                theme,
                &mut spans,
            );
            for (c, what) in [
                (KeyCommand::Toggle, "keep"),
                (KeyCommand::Discard, "drop"),
                (KeyCommand::Edit, "edit"),
            ] {
                key_hint(view.keymap, c, what, theme, &mut spans);
            }
            spans.push(Span::styled("F", theme.key));
            spans.push(Span::styled(" fold  ", theme.dim));
            for (c, what) in [(KeyCommand::Help, "help"), (KeyCommand::Quit, "back")] {
                key_hint(view.keymap, c, what, theme, &mut spans);
            }
            spans
        }
    };
    let foot = match view.notice {
        Some(_) => Line::from(foot),
        None => fit_hints(Line::from(foot), view.keymap, usize::from(footer.width)),
    };
    frame.render_widget(Paragraph::new(foot), footer);
    Drawn {
        list_height: inner.height,
        detail_height: comment.0,
        detail_lines: comment.1,
        list_area,
        detail_area,
        ..Drawn::default()
    }
}
