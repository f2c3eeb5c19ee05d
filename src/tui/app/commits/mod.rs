//! The PR's commits in the console ([`CommitsScreen`]): each commit's short SHA, first line,
//! author and date; `Enter` shows one commit — its header, its whole message, then the files it
//! changed, one selected (`j`/`k`, `n`/`N`) — and `Enter` on a file opens its patch in the diff's
//! own view (line numbers, colours, changed words, the split view, `n`/`N` through the commit's
//! files), read-only: a commit's lines take no comment and are never the PR's files seen (see
//! `code/commit_patch.rs`). `Esc` goes back a step. Offline a fixture records no commits: the
//! list is the pushes it records, titled so. A screen above the PR screen, opened by one key
//! there ([`open_commits`]).
//!
//! The worked example of a screen with its own effects: everything it reads is its own
//! [`Work`], and its results come back as its own [`Done`] to this screen (by its id, also
//! after the maintainer went back: a left screen is kept until another opens). Nothing shared
//! names it beyond the `mod` line, the key and the PR screen's one arm that opens it.
//!
//! ```text
//! PrScreen ──H──▶ CommitsScreen ──Enter──▶ (one commit: message, files) ──Enter──▶ DiffScreen
//!                                                                        (its patch, read-only)
//! ```

#[cfg(test)]
mod tests;
pub mod work;

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::action::{Action, Drawn};
use super::code::{CommitPatch, commit_diff, footer, framed, help_entries, scrolled};
use super::screen::{Ctx, Handled, Screen, View};
use crate::pr::Snapshot;
use crate::sanitize::{one_line, sanitize};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::{fit, wrap};
pub use work::{Commit, CommitFile, Done, Listing, Work};

/// The commands the commits screen answers, with what they do there.
const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::Down, "next commit (shown: its next file)"),
    (KeyCommand::Up, "previous commit (shown: its previous file)"),
    (KeyCommand::PageDown, "half a page down (shown: scroll)"),
    (KeyCommand::PageUp, "half a page up (shown: scroll)"),
    (KeyCommand::Top, "first commit (shown: its first file)"),
    (KeyCommand::Bottom, "last commit (shown: its last file)"),
    (
        KeyCommand::Toggle,
        "show the commit: its message and files; on a file: its patch in the diff's view (line numbers, | split, read-only)",
    ),
    (KeyCommand::NextFile, "shown: the commit's next file"),
    (KeyCommand::PrevFile, "shown: the commit's previous file"),
    (KeyCommand::Refresh, "read the commits again"),
];

/// What was read of the list.
#[derive(Debug, Clone)]
enum Loaded {
    Reading,
    Failed(String),
    Read(Listing),
}

/// One commit's files, read when it is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Files {
    Reading,
    Read(Vec<CommitFile>),
    /// Why they could not be read.
    Unreadable(String),
}

#[derive(Debug, Clone)]
pub struct CommitsScreen {
    snapshot: Arc<Snapshot>,
    loaded: Loaded,
    /// Live commits' files by SHA (offline they come with the list).
    files: HashMap<String, Files>,
    selected: usize,
    /// The commit shown with `Enter` (an index into the list).
    open: Option<usize>,
    /// The shown commit's selected file (an index into its files): `Enter` opens its patch.
    file: usize,
    /// The shown commit's scroll, how far it can go and the page's height (from the last frame).
    scroll: usize,
    max_scroll: usize,
    height: usize,
    /// The detail's width in the last frame (where each file starts depends on it).
    width: u16,
}

/// Opens the commits of `snapshot`'s PR above the screen asking, and reads them.
pub fn open_commits(snapshot: &Snapshot, ctx: &mut Ctx<'_>) {
    ctx.open(Box::new(CommitsScreen::new(Arc::new(snapshot.clone()))));
}

impl CommitsScreen {
    pub fn new(snapshot: Arc<Snapshot>) -> CommitsScreen {
        CommitsScreen {
            snapshot,
            loaded: Loaded::Reading,
            files: HashMap::new(),
            selected: 0,
            open: None,
            file: 0,
            scroll: 0,
            max_scroll: 0,
            height: 0,
            width: 80,
        }
    }

    /// The commits as listed (empty until read).
    pub fn commits(&self) -> &[Commit] {
        match &self.loaded {
            Loaded::Read(l) => &l.commits,
            _ => &[],
        }
    }

    /// The list is the fixture's pushes (offline).
    pub fn offline(&self) -> bool {
        matches!(&self.loaded, Loaded::Read(l) if l.offline)
    }

    /// The commit shown, if one is.
    pub fn shown(&self) -> Option<&Commit> {
        self.commits().get(self.open?)
    }

    fn list(&self) -> Work {
        Work::List {
            pr: self.snapshot.pr.coords(),
        }
    }

    fn select(&mut self, i: usize) {
        self.selected = i.min(self.commits().len().saturating_sub(1));
    }

    /// The files of `c`: offline known with the list, live as read.
    fn files_of(&self, c: &Commit) -> Files {
        match &c.files {
            Some(f) => Files::Read(f.clone()),
            None => self.files.get(&c.sha).cloned().unwrap_or(Files::Reading),
        }
    }

    /// `Enter`: shows the selected commit; a live one's files are asked for (once).
    fn show(&mut self, ctx: &mut Ctx<'_>) {
        let Some(c) = self.commits().get(self.selected) else {
            ctx.say(match &self.loaded {
                Loaded::Reading => "the commits are still being read",
                _ => "no commits to show",
            });
            return;
        };
        if c.files.is_none() && !matches!(self.files.get(&c.sha), Some(Files::Read(_))) {
            let sha = c.sha.clone();
            self.files.insert(sha.clone(), Files::Reading);
            ctx.work(Work::Show {
                pr: self.snapshot.pr.coords(),
                sha,
            });
        }
        self.open = Some(self.selected);
        self.file = 0;
        self.scroll = 0;
    }

    /// The shown commit's file `i` selected (the last one past the end), its row in sight: the
    /// first file brings the commit's message back into sight when both fit the page.
    fn select_file(&mut self, i: usize) {
        let Some(c) = self.shown() else { return };
        let (_, starts) = detail(
            c,
            &self.files_of(c),
            None,
            &Theme::plain(),
            usize::from(self.width),
        );
        let Some(last) = starts.len().checked_sub(1) else {
            return;
        };
        self.file = i.min(last);
        let row = starts[self.file];
        let h = self.height.max(1);
        if row < self.scroll || (self.file == 0 && row < h) {
            self.scroll = if row < h { 0 } else { row };
        } else if row >= self.scroll + h {
            self.scroll = row + 1 - h;
        }
    }

    /// A command on a shown commit: its files' selection, its scroll, its selected file's patch,
    /// closing it; false for the rest (the list's: `ctrl-r` reads the commits again).
    fn shown_command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> bool {
        match cmd {
            KeyCommand::Down | KeyCommand::NextFile => self.select_file(self.file + 1),
            KeyCommand::Up | KeyCommand::PrevFile => self.select_file(self.file.saturating_sub(1)),
            KeyCommand::Top => self.select_file(0),
            KeyCommand::Bottom => self.select_file(usize::MAX),
            KeyCommand::PageDown | KeyCommand::PageUp => {
                if let Some(to) = scrolled(cmd, self.scroll, self.max_scroll, self.height / 2) {
                    self.scroll = to;
                }
            }
            KeyCommand::Toggle => self.open_patch(ctx),
            // The shown commit closes first; then the router leaves the screen.
            KeyCommand::Quit | KeyCommand::Back => self.open = None,
            _ => return false,
        }
        true
    }

    /// `Enter` on a shown commit: its selected file's patch in the diff's view (read-only, `n`/`N`
    /// through the commit's files with a patch); a file without one says why.
    fn open_patch(&mut self, ctx: &mut Ctx<'_>) {
        let Some(c) = self.shown() else { return };
        let files = match self.files_of(c) {
            Files::Read(files) => files,
            Files::Reading => return ctx.say("the commit's files are still being read"),
            Files::Unreadable(e) => {
                return ctx.say(format!(
                    "the commit's files could not be read: {}",
                    one_line(&e)
                ));
            }
        };
        // The selection as drawn: the last file when the files read again are fewer.
        let at = self.file.min(files.len().saturating_sub(1));
        let Some(f) = files.get(at) else {
            return ctx.say("no files changed");
        };
        if f.patch.is_none() {
            return ctx.say(format!(
                "{}: {}",
                one_line(&f.path),
                one_line(f.why_none.as_deref().unwrap_or("no patch"))
            ));
        }
        // The diff goes through the files with a patch: this one's place among them.
        let index = files[..at].iter().filter(|f| f.patch.is_some()).count();
        let patch = CommitPatch {
            sha: c.sha.clone(),
            title: c.title().to_owned(),
            offline: c.files.is_some(),
            files: files
                .iter()
                .filter(|f| f.patch.is_some())
                .map(CommitFile::to_changed)
                .collect(),
        };
        ctx.open(commit_diff(&self.snapshot, patch, index));
    }
}

impl Screen for CommitsScreen {
    fn name(&self) -> &'static str {
        "commits"
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.selected)
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        if self.open.is_some() && self.shown_command(cmd, ctx) {
            return Handled::Consumed;
        }
        let half = (self.height / 2).max(1);
        match cmd {
            KeyCommand::Down => self.select(self.selected + 1),
            KeyCommand::Up => self.select(self.selected.saturating_sub(1)),
            KeyCommand::PageDown => self.select(self.selected + half),
            KeyCommand::PageUp => self.select(self.selected.saturating_sub(half)),
            KeyCommand::Top => self.select(0),
            KeyCommand::Bottom => self.select(usize::MAX),
            KeyCommand::Toggle => self.show(ctx),
            KeyCommand::Refresh => {
                self.files.clear();
                ctx.work(self.list());
                ctx.say("reading the commits again…");
            }
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    /// On the stack: the commits are read.
    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        ctx.work(self.list());
    }

    fn snapshot(&self) -> Option<&Snapshot> {
        Some(&self.snapshot)
    }

    /// Its own results (see [`Done`]): they come only to the screen that asked, shown or kept.
    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let Action::Done(done) = &action else {
            return Some(action);
        };
        let Some(done) = done.take::<Done>() else {
            return Some(action);
        };
        match done {
            Done::Listed(Ok(listing)) => {
                // The selection stays on the same commit across a reload.
                let was = self.commits().get(self.selected).map(|c| c.sha.clone());
                let open = self.shown().map(|c| c.sha.clone());
                let at = |sha: &Option<String>| {
                    sha.as_ref()
                        .and_then(|s| listing.commits.iter().position(|c| &c.sha == s))
                };
                self.selected = at(&was).unwrap_or(0);
                self.open = at(&open);
                self.loaded = Loaded::Read(listing);
            }
            Done::Listed(Err(e)) => {
                let e = one_line(&e);
                ctx.say(format!("cannot read the commits: {e}"));
                if !matches!(self.loaded, Loaded::Read(_)) {
                    self.loaded = Loaded::Failed(e);
                }
            }
            Done::Shown { sha, files } => {
                if let Err(e) = &files {
                    ctx.say(format!(
                        "cannot read commit {}: {}",
                        short(&sha),
                        one_line(e)
                    ));
                }
                self.files
                    .insert(sha, files.map_or_else(Files::Unreadable, Files::Read));
            }
        }
        None
    }

    fn drawn(&mut self, d: Drawn, _ctx: &mut Ctx<'_>) {
        if self.open.is_some() {
            self.height = usize::from(d.detail_height);
            self.width = d.detail_area.width;
            self.max_scroll = d.detail_lines.saturating_sub(self.height);
            self.scroll = self.scroll.min(self.max_scroll);
        } else {
            self.height = usize::from(d.list_height);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        draw(frame, area, self, view)
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        help_entries(keymap, KEYS)
    }
}

/// Seven characters of a SHA, sanitized.
fn short(sha: &str) -> String {
    one_line(&sha.chars().take(7).collect::<String>())
}

fn draw(frame: &mut Frame, area: Rect, s: &CommitsScreen, view: &View<'_>) -> Drawn {
    let theme = view.theme;
    let [body, foot_area] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let what = if s.offline() {
        "offline: the pushes this fixture records"
    } else {
        "commits"
    };
    let inner = framed(frame, body, &s.snapshot, what, theme);
    let width = usize::from(inner.width);
    let mut drawn = Drawn::default();
    let hints: &[(KeyCommand, &str)] = match s.shown() {
        Some(c) => {
            let (lines, _) = detail(c, &s.files_of(c), Some(s.file), theme, width);
            let h = usize::from(inner.height);
            let scroll = s.scroll.min(lines.len().saturating_sub(h));
            drawn.detail_lines = lines.len();
            let shown: Vec<Line> = lines
                .into_iter()
                .skip(scroll)
                .take(h)
                .map(|l| fit(l, width))
                .collect();
            frame.render_widget(Paragraph::new(shown), inner);
            drawn.shown = s.open;
            drawn.detail_height = inner.height;
            drawn.detail_scroll = scroll;
            drawn.detail_area = inner;
            &[
                (KeyCommand::Toggle, "file's patch"),
                (KeyCommand::NextFile, "next file"),
                (KeyCommand::PrevFile, "previous file"),
            ]
        }
        None => {
            let mut lines = vec![fit(summary(s, theme), width)];
            let list_height = usize::from(inner.height).saturating_sub(1);
            let offset = (s.selected + 1).saturating_sub(list_height.max(1));
            let author_w = s
                .commits()
                .iter()
                .map(|c| one_line(&c.author).chars().count())
                .max()
                .unwrap_or(0)
                .min(20);
            for (i, c) in s
                .commits()
                .iter()
                .enumerate()
                .skip(offset)
                .take(list_height)
            {
                lines.push(fit(row(i == s.selected, c, author_w, theme), width));
            }
            frame.render_widget(Paragraph::new(lines), inner);
            drawn.list_height = u16::try_from(list_height).unwrap_or(u16::MAX);
            drawn.list_area = inner;
            &[
                (KeyCommand::Toggle, "show"),
                (KeyCommand::Refresh, "refresh"),
            ]
        }
    };
    let foot = footer(view, hints, foot_area.width);
    frame.render_widget(Paragraph::new(foot), foot_area);
    drawn
}

/// The line above the list: how many commits, or what is happening.
fn summary(s: &CommitsScreen, theme: &Theme) -> Line<'static> {
    match &s.loaded {
        Loaded::Reading => Line::styled("reading the commits…", theme.dim),
        Loaded::Failed(e) => Line::styled(
            format!("the commits could not be read: {}", one_line(e)),
            theme.notice,
        ),
        Loaded::Read(l) if l.offline => Line::styled(
            format!(
                "{}: the head the PR opened with, then each push the fixture records",
                count(l.commits.len(), "entry", "entries")
            ),
            theme.dim,
        ),
        Loaded::Read(l) if l.commits.is_empty() => Line::styled("no commits", theme.dim),
        Loaded::Read(l) => {
            let mut text = count(l.commits.len(), "commit", "commits");
            if l.commits.len() >= 250 {
                text.push_str(" (GitHub lists at most 250)");
            }
            Line::styled(text, theme.dim)
        }
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One row: the mark, the short SHA, the date, the author, the first line of the message.
fn row(selected: bool, c: &Commit, author_w: usize, theme: &Theme) -> Line<'static> {
    let mark = if selected { "▶ " } else { "  " };
    let date = c
        .date
        .map_or_else(|| "—".to_owned(), |d| d.format("%Y-%m-%d").to_string());
    let author: String = one_line(&c.author).chars().take(author_w).collect();
    let pad = author_w.saturating_sub(author.chars().count());
    let mut spans = vec![
        Span::styled(mark, theme.key),
        Span::styled(format!("{} ", short(&c.sha)), theme.location),
        Span::styled(format!("{date:<10} "), theme.dim),
    ];
    if author_w > 0 {
        spans.push(Span::styled(
            format!("{author}{} ", " ".repeat(pad)),
            theme.author,
        ));
    }
    spans.push(Span::styled(one_line(c.title()), theme.text));
    let style = if selected {
        theme.selection
    } else {
        ratatui::style::Style::default()
    };
    Line::from(spans).style(style)
}

/// A shown commit's lines at `width`: its header and whole message, then each file it changed
/// (its status, path and counts, and why it has no patch when it has none), `selected` marked;
/// and the line of each file (for the selection).
fn detail(
    c: &Commit,
    files: &Files,
    selected: Option<usize>,
    theme: &Theme,
    width: usize,
) -> (Vec<Line<'static>>, Vec<usize>) {
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut head = vec![Span::styled(
        format!("commit {}", one_line(&c.sha)),
        theme.header,
    )];
    if !c.author.is_empty() {
        head.push(Span::styled(
            format!("  {}", one_line(&c.author)),
            theme.author,
        ));
    }
    if let Some(d) = c.date {
        head.push(Span::styled(
            format!("  {}", d.format("%Y-%m-%d %H:%M UTC")),
            theme.dim,
        ));
    }
    out.push(Line::from(head));
    out.push(Line::default());
    let mut message = Vec::new();
    for l in sanitize(&c.message).lines() {
        let line = Line::styled(l.replace('\t', "    "), theme.text);
        wrap(line, width.saturating_sub(4), &mut message);
    }
    out.extend(message.into_iter().map(|mut l| {
        l.spans.insert(0, Span::raw("    "));
        l
    }));
    out.push(Line::default());
    if c.files.is_some() {
        out.push(Line::styled(
            "offline: each file this push changed, with the PR's patch of it after the push",
            theme.dim,
        ));
    }
    let mut starts = Vec::new();
    match files {
        Files::Reading => out.push(Line::styled("reading the commit's files…", theme.dim)),
        Files::Unreadable(e) => out.push(Line::styled(
            format!("the commit's files could not be read: {}", one_line(e)),
            theme.notice,
        )),
        Files::Read(files) if files.is_empty() => {
            out.push(Line::styled("no files changed", theme.dim));
        }
        Files::Read(files) => {
            out.push(Line::styled(
                format!(
                    "{}: Enter shows a file's patch in the diff's view (read-only)",
                    count(files.len(), "file", "files")
                ),
                theme.dim,
            ));
            // The last file when the files read again are fewer than the selection.
            let selected = selected.map(|i| i.min(files.len().saturating_sub(1)));
            for (i, f) in files.iter().enumerate() {
                starts.push(out.len());
                let here = selected == Some(i);
                let path = match &f.previous {
                    Some(p) if *p != f.path => format!("{} → {}", one_line(p), one_line(&f.path)),
                    _ => one_line(&f.path),
                };
                let mut spans = vec![
                    Span::styled(if here { "▶ " } else { "  " }, theme.key),
                    Span::styled(format!("{} ", one_line(&f.status)), theme.dim),
                    Span::styled(path, theme.location),
                    Span::styled(format!("  +{}", f.additions), theme.diff_added),
                    Span::styled(format!(" -{}", f.deletions), theme.diff_removed),
                ];
                if f.patch.is_none() {
                    spans.push(Span::styled(
                        format!(
                            "  ({})",
                            one_line(f.why_none.as_deref().unwrap_or("no patch"))
                        ),
                        theme.dim,
                    ));
                }
                let line = Line::from(spans);
                out.push(if here {
                    line.style(theme.selection)
                } else {
                    line
                });
            }
        }
    }
    (out, starts)
}
