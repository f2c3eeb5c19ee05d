//! The PR's description: title, author, branch (head → base), state, labels, reviewers, size,
//! and the body rendered.

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{footer, framed, help_entries, open_files, scrolled};
use crate::pr::{Item, ReviewState, Snapshot};
use crate::sanitize::one_line;
use crate::tui::app::action::Drawn;
use crate::tui::app::screen::{Ctx, Handled, Screen, View};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::draw_scrolled;

/// The commands the description answers, with what they do there.
const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::Down, "scroll down"),
    (KeyCommand::Up, "scroll up"),
    (KeyCommand::PageDown, "half a page down"),
    (KeyCommand::PageUp, "half a page up"),
    (KeyCommand::Top, "top"),
    (KeyCommand::Bottom, "bottom"),
    (KeyCommand::Files, "the changed files"),
];

/// How a body is rendered at a width: the console's one Markdown path, the one comments use
/// (handed in by the screen that opens the description, so this folder needs none of it).
pub type RenderBody = fn(&str, usize, &Theme, &mut Vec<Line<'static>>);

#[derive(Debug, Clone)]
pub struct DescriptionScreen {
    snapshot: Arc<Snapshot>,
    render_body: RenderBody,
    scroll: usize,
    /// What the last frame could scroll to, and its height.
    max_scroll: usize,
    height: usize,
    /// How the diffs its files open a thread whole.
    open_thread: Option<super::OpenThread>,
}

impl DescriptionScreen {
    /// The files it opens open threads with `f` (see [`super::OpenThread`]).
    pub fn opening_threads(mut self, f: super::OpenThread) -> DescriptionScreen {
        self.open_thread = Some(f);
        self
    }

    pub fn new(snapshot: Arc<Snapshot>, render_body: RenderBody) -> DescriptionScreen {
        DescriptionScreen {
            snapshot,
            render_body,
            scroll: 0,
            max_scroll: usize::MAX,
            height: 0,
            open_thread: None,
        }
    }

    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Everything the screen shows, top to bottom.
    pub fn lines(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let pr = &self.snapshot.pr;
        let mut out = vec![
            Line::styled(one_line(&pr.title), theme.header),
            Line::from(vec![
                Span::styled(format!("#{} by ", pr.number), theme.dim),
                Span::styled(format!("@{}", one_line(&pr.author.login)), theme.author),
            ]),
            Line::from(vec![
                Span::styled("branch     ", theme.dim),
                Span::styled(
                    format!("{} → {}", one_line(&pr.head_ref), one_line(&pr.base_ref)),
                    theme.location,
                ),
            ]),
            Line::from(vec![
                Span::styled("state      ", theme.dim),
                Span::styled(state_word(&pr.state, pr.draft), theme.text),
            ]),
            Line::from(vec![
                Span::styled("labels     ", theme.dim),
                Span::styled(
                    if pr.labels.is_empty() {
                        "none".to_owned()
                    } else {
                        pr.labels
                            .iter()
                            .map(|l| one_line(l))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                    theme.text,
                ),
            ]),
            Line::from(vec![
                Span::styled("reviewers  ", theme.dim),
                Span::styled(reviewers(&self.snapshot), theme.text),
            ]),
            Line::from(vec![
                Span::styled("size       ", theme.dim),
                Span::styled(size(&self.snapshot), theme.text),
            ]),
            Line::default(),
        ];
        // The one place the description's body is rendered (without pr-shepherd's markers).
        (self.render_body)(
            &crate::pr::without_markers(&pr.body),
            width,
            theme,
            &mut out,
        );
        out
    }
}

/// open, draft, merged or closed.
fn state_word(state: &str, draft: bool) -> String {
    match state {
        "MERGED" => "merged".to_owned(),
        "CLOSED" => "closed".to_owned(),
        _ if draft => "draft".to_owned(),
        "OPEN" => "open".to_owned(),
        other => one_line(&other.to_ascii_lowercase()),
    }
}

/// Each reviewer with their latest review's verdict, in the order they first reviewed.
fn reviewers(snapshot: &Snapshot) -> String {
    let mut seen: Vec<(String, ReviewState)> = Vec::new();
    for item in &snapshot.items {
        if let Item::Review(r) = item {
            if r.author.login == snapshot.pr.author.login {
                continue;
            }
            match seen.iter_mut().find(|(l, _)| *l == r.author.login) {
                Some(e) => e.1 = r.state,
                None => seen.push((r.author.login.clone(), r.state)),
            }
        }
    }
    if seen.is_empty() {
        return "none yet".to_owned();
    }
    seen.iter()
        .map(|(login, state)| {
            let verdict = match state {
                ReviewState::Approved => "approved",
                ReviewState::ChangesRequested => "changes requested",
                ReviewState::Commented => "commented",
                ReviewState::Dismissed => "dismissed",
                ReviewState::Pending => "pending",
            };
            format!("@{} ({verdict})", one_line(login))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `+a −d, N files` (GitHub's count of files when it cut the list).
fn size(snapshot: &Snapshot) -> String {
    let files = &snapshot.pr.files;
    let add: u64 = files.iter().map(|f| u64::from(f.additions)).sum();
    let del: u64 = files.iter().map(|f| u64::from(f.deletions)).sum();
    let n = snapshot
        .pr
        .changed_files
        .map_or(files.len(), |c| (c as usize).max(files.len()));
    format!("+{add} −{del}, {n} file{}", if n == 1 { "" } else { "s" })
}

impl Screen for DescriptionScreen {
    fn name(&self) -> &'static str {
        "description"
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        if let Some(to) = scrolled(cmd, self.scroll, self.max_scroll, self.height / 2) {
            self.scroll = to;
            return Handled::Consumed;
        }
        match cmd {
            KeyCommand::Files => {
                open_files(&self.snapshot, self.open_thread, ctx);
                Handled::Consumed
            }
            _ => Handled::NotConsumed,
        }
    }

    fn drawn(&mut self, d: Drawn, _ctx: &mut Ctx<'_>) {
        self.height = usize::from(d.detail_height);
        self.max_scroll = d.detail_lines.saturating_sub(self.height);
        self.scroll = self.scroll.min(self.max_scroll);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let theme = view.theme;
        let [body, foot_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
        let inner = framed(frame, body, &self.snapshot, "description", theme);
        let (height, total) = draw_scrolled(
            frame,
            inner,
            self.lines(usize::from(inner.width), theme),
            self.scroll,
        );
        let foot = footer(view, KEYS, foot_area.width);
        frame.render_widget(Paragraph::new(foot), foot_area);
        Drawn {
            detail_height: height,
            detail_lines: total,
            detail_scroll: self.scroll,
            detail_area: inner,
            ..Drawn::default()
        }
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        help_entries(keymap, KEYS)
    }
}
