//! Drawing the checks screen: the summary, the list (state, name, duration, annotations), and
//! the open check below it — its annotations (`NEW` badges) and, for a failing job, its log tail.

use chrono::{DateTime, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{ANNOTATIONS_AT, ChecksScreen, Loaded, Log};
use crate::pr::{CheckKind, CheckRun, CheckState, ChecksSummary, duration_text};
use crate::sanitize::one_line;
use crate::tui::app::action::Drawn;
use crate::tui::app::code::{footer, framed};
use crate::tui::app::screen::View;
use crate::tui::keymap::KeyCommand;
use crate::tui::theme::Theme;
use crate::tui::ui::{bordered, fit, wrap};

pub(super) fn draw(frame: &mut Frame, area: Rect, s: &ChecksScreen, view: &View<'_>) -> Drawn {
    let theme = view.theme;
    let [body, foot_area] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let inner = framed(frame, body, &s.snapshot, "checks", theme);
    let width = usize::from(inner.width);
    let runs = s.runs();
    let now = s.now(view);
    let open = s.open.and_then(|i| runs.get(i).map(|r| (i, r)));
    let (list_area, detail_area) = match open {
        None => (inner, None),
        Some(_) => {
            // The list keeps at most a third of the height (the summary and the open row).
            let rows = u16::try_from(runs.len())
                .unwrap_or(u16::MAX)
                .saturating_add(1);
            let list_h = rows.min(inner.height / 3).max(2).min(inner.height);
            let [l, d] =
                Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(inner);
            (l, Some(d))
        }
    };
    let mut lines = vec![fit(summary(s, theme), width)];
    let list_height = usize::from(list_area.height).saturating_sub(1);
    let offset = (s.selected + 1).saturating_sub(list_height.max(1));
    let name_w = runs
        .iter()
        .map(|r| one_line(&r.name).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, (width / 2).max(4));
    for (i, r) in runs.iter().enumerate().skip(offset).take(list_height) {
        lines.push(fit(row(s, i, r, name_w, now, theme), width));
    }
    frame.render_widget(Paragraph::new(lines), list_area);
    let mut drawn = Drawn {
        list_height: u16::try_from(list_height).unwrap_or(u16::MAX),
        list_area,
        ..Drawn::default()
    };
    if let (Some((i, r)), Some(area)) = (open, detail_area) {
        let block = bordered(
            format!(" {} · {} ", one_line(&r.name), r.state.as_str()),
            true,
            theme,
        );
        let d = block.inner(area);
        frame.render_widget(block, area);
        let (content, _) = detail(s, r, now, theme, usize::from(d.width));
        let h = usize::from(d.height);
        let scroll = s.scroll.min(content.len().saturating_sub(h));
        let total = content.len();
        let shown: Vec<Line> = content.into_iter().skip(scroll).take(h).collect();
        frame.render_widget(Paragraph::new(shown), d);
        drawn.shown = (h > 0).then_some(i);
        drawn.detail_height = d.height;
        drawn.detail_lines = total;
        drawn.detail_scroll = scroll;
        drawn.detail_area = d;
    }
    let open_word = if open.is_some() { "close" } else { "open" };
    let foot = footer(
        view,
        &[
            (KeyCommand::Toggle, open_word),
            (KeyCommand::RerunFailed, "re-run failed"),
            (KeyCommand::Open, "browser"),
            (KeyCommand::Refresh, "refresh"),
        ],
        foot_area.width,
    );
    frame.render_widget(Paragraph::new(foot), foot_area);
    drawn
}

impl ChecksScreen {
    /// The clock durations run to: the console's ticks, else the session's `now`.
    fn now(&self, view: &View<'_>) -> DateTime<Utc> {
        let secs = if self.now_ms > 0 {
            self.now_ms / 1000
        } else {
            view.session.now
        };
        DateTime::from_timestamp(secs, 0).unwrap_or_default()
    }

    /// Where each annotation of `r` starts among the open check's lines at `width`.
    pub(super) fn annotation_starts(&self, r: &CheckRun, width: u16) -> Vec<usize> {
        let now = DateTime::<Utc>::default();
        detail(self, r, now, &Theme::plain(), usize::from(width)).1
    }
}

/// The line above the list: how many checks in which state, where they come from.
fn summary(s: &ChecksScreen, theme: &Theme) -> Line<'static> {
    let sha: String = s.snapshot.pr.head_sha.chars().take(7).collect();
    let sha = one_line(&sha);
    match &s.loaded {
        Loaded::Reading => Line::styled(format!("reading the checks at {sha}…"), theme.dim),
        Loaded::Failed(e) => Line::styled(
            format!("cannot read the checks at {sha}: {}", one_line(e)),
            theme.notice,
        ),
        Loaded::Read { runs, offline } => {
            let sum = ChecksSummary::of_runs(runs);
            let mut text = if runs.is_empty() {
                format!("no checks at the head commit {sha}")
            } else {
                let parts: Vec<String> = [
                    (sum.failing, "failing"),
                    (sum.pending, "pending"),
                    (sum.passing, "passing"),
                    (sum.neutral, "neutral"),
                ]
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, w)| format!("{n} {w}"))
                .collect();
                format!(
                    "{} check{} at {sha}: {}",
                    runs.len(),
                    if runs.len() == 1 { "" } else { "s" },
                    parts.join(" · ")
                )
            };
            if *offline {
                text.push_str(" · the fixture's checks (offline)");
            }
            Line::styled(text, theme.header)
        }
    }
}

fn state_look(state: CheckState, theme: &Theme) -> (&'static str, Style) {
    match state {
        CheckState::Failing => ("✗", theme.severity_critical),
        CheckState::Pending => ("…", theme.badge_edited),
        CheckState::Passing => ("✓", theme.state_approved),
        CheckState::Neutral => ("○", theme.dim),
    }
}

fn duration(r: &CheckRun, now: DateTime<Utc>) -> String {
    r.duration_secs(now).map(duration_text).unwrap_or_default()
}

fn row(
    s: &ChecksScreen,
    i: usize,
    r: &CheckRun,
    name_w: usize,
    now: DateTime<Utc>,
    theme: &Theme,
) -> Line<'static> {
    let mark = if i == s.selected { "▶ " } else { "  " };
    let (sym, style) = state_look(r.state, theme);
    let name = one_line(&r.name);
    let pad = name_w.saturating_sub(name.chars().count());
    let mut spans = vec![
        Span::styled(mark, theme.key),
        Span::styled(format!("{sym} {:<8} ", r.state.as_str()), style),
        Span::styled(format!("{name}{} ", " ".repeat(pad)), theme.text),
        Span::styled(format!("{:>8}", duration(r, now)), theme.dim),
    ];
    if !r.annotations.is_empty() {
        let n = r.annotations.len();
        spans.push(Span::styled(
            format!("  {n} annotation{}", if n == 1 { "" } else { "s" }),
            theme.location,
        ));
        let new = r
            .annotations
            .iter()
            .filter(|a| s.is_new(&a.id(&r.name)))
            .count();
        if new > 0 {
            spans.push(Span::styled(format!(" · {new} NEW"), theme.badge_new));
        }
    }
    if r.kind == CheckKind::Status {
        spans.push(Span::styled("  status", theme.dim));
    }
    let line = Line::from(spans);
    if i == s.selected {
        line.style(theme.selection)
    } else {
        line
    }
}

/// The open check's lines at `width`, wrapped, and the line each annotation starts at.
fn detail(
    s: &ChecksScreen,
    r: &CheckRun,
    now: DateTime<Utc>,
    theme: &Theme,
    width: usize,
) -> (Vec<Line<'static>>, Vec<usize>) {
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut head = vec![r.state.as_str().to_owned()];
    let d = duration(r, now);
    if !d.is_empty() {
        head.push(d);
    }
    head.push(
        match r.kind {
            CheckKind::Run => "check run",
            CheckKind::Status => "commit status",
        }
        .to_owned(),
    );
    if let Some(c) = &r.conclusion {
        head.push(format!("GitHub says {}", one_line(c)));
    }
    out.push(fit(Line::styled(head.join(" · "), theme.header), width));
    let n = r.annotations.len();
    let new = r
        .annotations
        .iter()
        .filter(|a| s.is_new(&a.id(&r.name)))
        .count();
    out.push(fit(
        Line::styled(
            match (n, new) {
                (0, _) => "no annotations".to_owned(),
                (n, 0) => format!("{n} annotation{}", if n == 1 { "" } else { "s" }),
                (n, k) => format!("{n} annotation{} ({k} new)", if n == 1 { "" } else { "s" }),
            },
            theme.group,
        ),
        width,
    ));
    debug_assert_eq!(out.len(), ANNOTATIONS_AT);
    let mut starts = Vec::with_capacity(n);
    for a in &r.annotations {
        starts.push(out.len());
        let mut spans = Vec::new();
        if s.is_new(&a.id(&r.name)) {
            spans.push(Span::styled("NEW ", theme.badge_new));
        }
        let level_style = match a.level.as_str() {
            "failure" => theme.severity_critical,
            "warning" => theme.severity_important,
            _ => theme.dim,
        };
        spans.push(Span::styled(one_line(&a.level), level_style));
        spans.push(Span::styled(
            format!(" {}:{}", one_line(&a.path), a.start_line),
            theme.location,
        ));
        if !a.title.is_empty() {
            spans.push(Span::styled(format!(" {}", one_line(&a.title)), theme.text));
        }
        wrap(Line::from(spans), width, &mut out);
        for l in a.message.lines() {
            wrap(
                Line::styled(format!("    {}", one_line(l)), theme.text),
                width,
                &mut out,
            );
        }
    }
    if let Some(url) = &r.url {
        out.push(Line::raw(""));
        out.push(fit(Line::styled(one_line(url), theme.dim), width));
    }
    if r.state == CheckState::Failing {
        out.push(Line::raw(""));
        let tail = r
            .log_tail
            .as_ref()
            .map(|t| Log::Read(t.clone()))
            .or_else(|| r.id.and_then(|job| s.logs.get(&job).cloned()));
        match tail {
            Some(Log::Read(t)) => {
                out.push(Line::styled("log tail:", theme.group));
                for l in t.lines() {
                    wrap(Line::styled(one_line(l), theme.text), width, &mut out);
                }
            }
            Some(Log::Reading) => out.push(Line::styled("log tail: reading…", theme.dim)),
            Some(Log::Unreadable(why)) => wrap(
                Line::styled(
                    format!("the job's log could not be read: {}", one_line(&why)),
                    theme.dim,
                ),
                width,
                &mut out,
            ),
            None if matches!(s.loaded, Loaded::Read { offline: true, .. }) => {
                out.push(Line::styled("the fixture has no log tail", theme.dim))
            }
            None if r.workflow_run_id.is_some() => {
                out.push(Line::styled("log tail: not read", theme.dim))
            }
            None => out.push(Line::styled("no job log (not an Actions job)", theme.dim)),
        }
    }
    (out, starts)
}
