//! The PR's changed files: change type, `+`/`-`, your viewed state (toggled on GitHub live, in
//! the outbox offline), threads and findings per file, and what each is since your last look;
//! Enter opens a file's diff.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::work::{CodeLoad, Done, Work};
use super::{DiffScreen, footer, framed, help_entries};
use crate::code::SinceLastLook;
use crate::ledger::{CodeLook, GoneFile};
use crate::output::files::{NO_LONGER, gone, notes, rows, viewed_words};
use crate::pr::{ChangedFile, Snapshot, ViewedState};
use crate::sanitize::one_line;
use crate::tui::app::action::{Action, Drawn};
use crate::tui::app::effect::Effect;
use crate::tui::app::screen::{Ctx, Handled, Screen, View};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::fit;

/// The commands the files screen answers, with what they do there.
const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::Down, "next file"),
    (KeyCommand::Up, "previous file"),
    (KeyCommand::PageDown, "half a page down"),
    (KeyCommand::PageUp, "half a page up"),
    (KeyCommand::Top, "first file"),
    (KeyCommand::Bottom, "last file"),
    (KeyCommand::Toggle, "the file's diff"),
    (KeyCommand::ToggleViewed, "mark viewed / not viewed"),
    (KeyCommand::NextUnviewed, "next file not viewed"),
    (
        KeyCommand::NextChanged,
        "next file changed since your last look",
    ),
];

/// What the files screen knows of one file beside the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileState {
    pub viewed: ViewedState,
    pub since: SinceLastLook,
    pub threads: usize,
    pub findings: usize,
    /// Its patch was shown (and recorded) in this visit.
    pub seen_now: bool,
    /// The patch last shown, moved by a rebase (same change, other line numbers): GitHub's
    /// dismissal of a viewed mark was for that alone.
    pub moved: bool,
}

#[derive(Debug, Clone)]
pub struct FilesScreen {
    snapshot: Arc<Snapshot>,
    /// What was read beside the snapshot; `None` while it is read.
    load: Option<Arc<CodeLoad>>,
    /// Per file, in the PR's order.
    state: Vec<FileState>,
    selected: usize,
    /// Viewed marks asked for and not answered yet.
    pending: HashSet<String>,
    /// The files the PR had at your last look and has not now.
    gone: Vec<GoneFile>,
    height: usize,
    /// The diff to open once the files are read: a path and the line for the cursor.
    aim: Option<(String, Option<u32>)>,
    /// How its diffs open a thread whole.
    open_thread: Option<super::OpenThread>,
    /// What its diffs pass on (their seen and viewed marks).
    echo: super::Echo,
    /// What was sent from a screen above its diffs (a review submitted from the pending
    /// review opened in a diff): passed on down to the PR screen.
    sent_above: Vec<crate::ledger::Sent>,
}

/// A seen record's answer ([`Done::Shown`]): the paths and how it went.
pub(super) fn shown(action: &Action) -> Option<(Vec<String>, Result<usize, String>)> {
    let Action::Done(done) = action else {
        return None;
    };
    match done.take::<Done>()? {
        Done::Shown { paths, result } => Some((paths, result)),
        _ => None,
    }
}

/// What a seen record or a viewed mark says (the files screen's, or its diff's), if anything.
pub(super) fn marks_said(action: &Action) -> Option<String> {
    if let Some((_, Err(e))) = shown(action) {
        return Some(format!("the diff was shown, but not recorded: {e}"));
    }
    match action {
        Action::ViewedSet {
            paths,
            viewed,
            result,
        } => {
            let word = if *viewed { "viewed" } else { "not viewed" };
            let names = paths
                .iter()
                .map(|p| one_line(p))
                .collect::<Vec<_>>()
                .join(", ");
            Some(match result {
                Ok(place) => format!("marked {word}: {names} ({})", one_line(place)),
                Err(e) => format!("could not mark {names} {word}: {}", one_line(e)),
            })
        }
        _ => None,
    }
}

impl FilesScreen {
    pub fn new(snapshot: Arc<Snapshot>) -> FilesScreen {
        let mut s = FilesScreen {
            snapshot,
            load: None,
            state: Vec::new(),
            selected: 0,
            pending: HashSet::new(),
            gone: Vec::new(),
            height: 0,
            aim: None,
            open_thread: None,
            echo: super::Echo::default(),
            sent_above: Vec::new(),
        };
        s.count(&CodeLook::default(), &[], &HashMap::new());
        s
    }

    /// What its diffs passed on (see [`super::Echo`]) shows in the list (the diff said it).
    fn hear_diffs(&mut self) {
        for a in self.echo.drain() {
            self.marked(&a);
        }
    }

    /// Files recorded as seen, or marked viewed or not: the list follows.
    fn marked(&mut self, action: &Action) {
        let seen = shown(action);
        let (paths, state) = match action {
            _ if seen.is_some() => match &seen {
                Some((paths, Ok(_))) => (paths, None),
                _ => return,
            },
            Action::ViewedSet {
                paths,
                viewed,
                result,
            } => {
                for p in paths {
                    self.pending.remove(p);
                }
                let state = match viewed {
                    true => ViewedState::Viewed,
                    false => ViewedState::Unviewed,
                };
                match result {
                    Ok(_) => (paths, Some(state)),
                    Err(_) => return,
                }
            }
            _ => return,
        };
        for (st, f) in self.state.iter_mut().zip(&self.snapshot.pr.files) {
            if paths.contains(&f.path) {
                match state {
                    Some(v) => st.viewed = v,
                    None => st.seen_now = true,
                }
            }
        }
    }

    /// The diffs it opens open a thread with `f` (see [`super::OpenThread`]).
    pub fn opening_threads(mut self, f: Option<super::OpenThread>) -> FilesScreen {
        self.open_thread = f;
        self
    }

    /// Opens the diff of `path` at `line` once the files are read (a finding's jump).
    pub fn aimed_at(mut self, path: &str, line: Option<u32>) -> FilesScreen {
        self.aim = Some((path.to_owned(), line));
        self
    }

    /// The per-file numbers, with the rows `files` prints (one counting for both).
    fn count(
        &mut self,
        look: &CodeLook,
        findings: &[crate::output::files::FindingMark],
        viewed: &HashMap<String, ViewedState>,
    ) {
        let seen_now: HashSet<&str> = self
            .state
            .iter()
            .zip(&self.snapshot.pr.files)
            .filter(|(s, _)| s.seen_now)
            .map(|(_, f)| f.path.as_str())
            .collect();
        let state = rows(&self.snapshot, look, findings)
            .iter()
            .map(|r| FileState {
                viewed: viewed.get(&r.file.path).copied().unwrap_or(r.file.viewed),
                since: r.since,
                threads: r.threads,
                findings: r.findings,
                seen_now: seen_now.contains(r.file.path.as_str()),
                moved: r.moved,
            })
            .collect();
        self.state = state;
        self.gone = gone(&self.snapshot, look);
    }

    /// The files the PR had at your last look and has not now.
    pub fn gone(&self) -> &[GoneFile] {
        &self.gone
    }

    pub fn files(&self) -> &[ChangedFile] {
        &self.snapshot.pr.files
    }

    pub fn file_states(&self) -> &[FileState] {
        &self.state
    }

    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn loaded(&self) -> bool {
        self.load.is_some()
    }

    fn select(&mut self, i: usize) {
        self.selected = i.min(self.state.len().saturating_sub(1));
    }

    /// The next file after the selected one (around the end) for which `want` holds.
    fn next_where(&self, want: impl Fn(&FileState) -> bool) -> Option<usize> {
        let n = self.state.len();
        (1..=n)
            .map(|k| (self.selected + k) % n)
            .find(|&i| self.state.get(i).is_some_and(&want))
    }

    fn toggle_viewed(&mut self, ctx: &mut Ctx<'_>) {
        let Some((file, st)) = self
            .snapshot
            .pr
            .files
            .get(self.selected)
            .zip(self.state.get(self.selected))
        else {
            ctx.say("no file selected");
            return;
        };
        if self.pending.contains(&file.path) {
            ctx.say(format!(
                "{}: a viewed mark is on its way",
                one_line(&file.path)
            ));
            return;
        }
        self.pending.insert(file.path.clone());
        ctx.fx.push(Effect::SetViewed {
            pr: self.snapshot.pr.coords(),
            paths: vec![file.path.clone()],
            keys: HashMap::from([(file.path.clone(), crate::code::look::patch_key(file))]),
            viewed: st.viewed != ViewedState::Viewed,
        });
    }

    fn open_diff(&mut self, ctx: &mut Ctx<'_>) {
        self.open_diff_at(None, ctx);
    }

    /// The selected file's diff, its cursor on the new side's `line` when given.
    fn open_diff_at(&mut self, line: Option<u32>, ctx: &mut Ctx<'_>) {
        let Some(st) = self.state.get(self.selected) else {
            ctx.say("no file selected");
            return;
        };
        let Some(load) = &self.load else {
            // Typed ahead of the read: the diff opens once the files are read.
            if let Some(f) = self.snapshot.pr.files.get(self.selected) {
                self.aim = Some((f.path.clone(), line));
            }
            ctx.say("reading your last look at the files: the diff opens once it is read");
            return;
        };
        let diff = DiffScreen::new(
            Arc::clone(&self.snapshot),
            Arc::clone(load),
            self.selected,
            st.since,
        )
        .as_listed(st.viewed, st.seen_now)
        .opening_threads(self.open_thread)
        .echoing(self.echo.clone());
        let diff = match line {
            Some(l) => {
                let (diff, found) = diff.at_line(l);
                if !found {
                    ctx.say(format!("line {l} is not in this diff"));
                }
                diff
            }
            None => diff,
        };
        ctx.open(Box::new(diff));
    }

    fn row(&self, i: usize, file: &ChangedFile, st: &FileState, theme: &Theme) -> Line<'static> {
        let mark = if i == self.selected { "▶ " } else { "  " };
        let (viewed, vstyle) = match st.viewed {
            ViewedState::Viewed => ("✓ viewed   ", theme.seen),
            // Dismissed by GitHub only because a rebase moved its lines.
            ViewedState::Dismissed if st.moved => ("~ moved    ", theme.badge_unchanged),
            ViewedState::Dismissed => ("! dismissed", theme.badge_edited),
            ViewedState::Unviewed => ("  unviewed ", theme.dim),
        };
        let (since, sstyle) = if !self.loaded() {
            ("…", theme.dim)
        } else if st.seen_now {
            ("seen now", theme.seen)
        } else {
            match st.since {
                SinceLastLook::New => ("new", theme.badge_new),
                SinceLastLook::Changed => ("changed", theme.badge_edited),
                SinceLastLook::Unchanged => ("unchanged", theme.badge_unchanged),
                SinceLastLook::NeverSeen => ("never seen", theme.dim),
            }
        };
        let mut spans = vec![
            Span::styled(mark, theme.key),
            Span::styled(format!("{} ", file.change_type().letter()), theme.location),
            Span::styled(viewed, vstyle),
            Span::raw(" "),
            Span::styled(format!("{since:<10} "), sstyle),
            Span::styled(one_line(&file.path), theme.text),
        ];
        if let Some(prev) = &file.previous_path {
            spans.push(Span::styled(format!(" ← {}", one_line(prev)), theme.dim));
        }
        spans.push(Span::styled(
            format!("  +{} −{}", file.additions, file.deletions),
            theme.dim,
        ));
        if st.threads > 0 {
            spans.push(Span::styled(
                format!("  {} thread{}", st.threads, plural(st.threads)),
                theme.author,
            ));
        }
        if st.findings > 0 {
            spans.push(Span::styled(
                format!("  {} finding{}", st.findings, plural(st.findings)),
                theme.badge_edited,
            ));
        }
        if let Some(why) = file.no_patch() {
            spans.push(Span::styled(format!("  ({})", why.as_str()), theme.dim));
        }
        let line = Line::from(spans);
        if i == self.selected {
            line.style(theme.selection)
        } else {
            line
        }
    }

    /// The line above the list: how many files, what changed since your last look.
    fn summary(&self) -> String {
        let n = self.state.len();
        let mut out = format!("{n} file{}", plural(n));
        if !self.loaded() {
            out.push_str(" · reading your last look…");
            return out;
        }
        let count = |s: SinceLastLook| {
            self.state
                .iter()
                .filter(|f| f.since == s && !f.seen_now)
                .count()
        };
        let viewed = self
            .state
            .iter()
            .filter(|f| f.viewed == ViewedState::Viewed)
            .count();
        out.push_str(&format!(" · {viewed} viewed"));
        let parts: Vec<String> = [
            (SinceLastLook::Changed, "changed"),
            (SinceLastLook::New, "new"),
            (SinceLastLook::Unchanged, "unchanged"),
            (SinceLastLook::NeverSeen, "never seen"),
        ]
        .iter()
        .filter_map(|(s, w)| {
            let c = count(*s);
            (c > 0).then(|| format!("{c} {w}"))
        })
        .collect();
        if !parts.is_empty() {
            out.push_str(&format!(" · since your last look: {}", parts.join(", ")));
        }
        if !self.gone.is_empty() {
            out.push_str(&format!(" · {} {NO_LONGER}", self.gone.len()));
        }
        out
    }

    /// A file the PR had at your last look and has not now (not selectable).
    fn gone_row(g: &GoneFile, theme: &Theme) -> Line<'static> {
        Line::from(vec![
            Span::styled("  ✗ ", theme.badge_edited),
            Span::styled(format!("{NO_LONGER} "), theme.badge_edited),
            Span::styled(one_line(&g.path), theme.text),
            Span::styled(format!("  {}", g.sentence()), theme.dim),
        ])
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl Screen for FilesScreen {
    fn name(&self) -> &'static str {
        "files"
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.selected)
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        let last = self.state.len().saturating_sub(1);
        let half = (self.height / 2).max(1);
        match cmd {
            KeyCommand::Down => self.select(self.selected + 1),
            KeyCommand::Up => self.select(self.selected.saturating_sub(1)),
            KeyCommand::PageDown => self.select(self.selected + half),
            KeyCommand::PageUp => self.select(self.selected.saturating_sub(half)),
            KeyCommand::Top => self.select(0),
            KeyCommand::Bottom => self.select(last),
            KeyCommand::Toggle => self.open_diff(ctx),
            KeyCommand::ToggleViewed => self.toggle_viewed(ctx),
            KeyCommand::NextUnviewed => {
                match self.next_where(|f| f.viewed != ViewedState::Viewed) {
                    Some(i) => self.select(i),
                    None => ctx.say("every file is viewed"),
                }
            }
            KeyCommand::NextChanged => {
                if !self.loaded() {
                    ctx.say("still reading your last look");
                } else {
                    match self.next_where(|f| f.since.needs_look() && !f.seen_now) {
                        Some(i) => self.select(i),
                        None => ctx.say("no file changed since your last look"),
                    }
                }
            }
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    /// On the stack: what the files need beside the snapshot is read (the last look, the
    /// findings, offline viewed marks).
    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        ctx.work(Work::Load {
            snapshot: Box::new((*self.snapshot).clone()),
        });
    }

    fn snapshot(&self) -> Option<&Snapshot> {
        Some(&self.snapshot)
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let done = match &action {
            Action::Done(done) => done.take::<Done>(),
            _ => None,
        };
        match (done, action) {
            (Some(Done::Loaded(Ok(load))), _) if load.pr == self.snapshot.pr.coords() => {
                let load = Arc::new(*load);
                self.count(&load.look, &load.findings, &load.viewed);
                self.load = Some(load);
                if let Some((path, line)) = self.aim.take() {
                    match self.snapshot.pr.files.iter().position(|f| f.path == path) {
                        Some(i) => {
                            self.select(i);
                            self.open_diff_at(line, ctx);
                        }
                        None => ctx.say(format!(
                            "{} is not among the PR's changed files",
                            one_line(&path)
                        )),
                    }
                }
                None
            }
            (Some(Done::Loaded(Err(e))), _) if self.load.is_none() => {
                ctx.say(format!("cannot read your last look at the code: {e}"));
                self.load = Some(Arc::new(CodeLoad::empty(self.snapshot.pr.coords())));
                None
            }
            (Some(Done::Shown { .. }), a) | (None, a @ Action::ViewedSet { .. }) => {
                self.marked(&a);
                if let Some(said) = marks_said(&a) {
                    ctx.say(said);
                }
                None
            }
            (_, other) => Some(other),
        }
    }

    fn drawn(&mut self, d: Drawn, _ctx: &mut Ctx<'_>) {
        self.height = usize::from(d.list_height);
        self.hear_diffs();
    }

    fn sent(&self) -> Vec<crate::ledger::Sent> {
        self.sent_above.clone()
    }

    fn dismissed_here(&self) -> Vec<(String, String, bool)> {
        self.echo.take_dismissed()
    }

    /// Back from a diff: what it passed on shows in the list, and the file it was on (after
    /// `n`/`N` there) is the one selected.
    fn uncovered(&mut self, left: &dyn Screen, _ctx: &mut Ctx<'_>) {
        self.sent_above.extend(left.sent());
        self.hear_diffs();
        if let Some(i) = self.echo.take_at() {
            self.select(i);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let theme = view.theme;
        let [body, status, foot_area] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let inner = framed(frame, body, &self.snapshot, "files", theme);
        let width = usize::from(inner.width);
        let mut lines = vec![fit(Line::styled(self.summary(), theme.header), width)];
        for n in notes(&self.snapshot) {
            lines.push(fit(Line::styled(one_line(&n), theme.badge_edited), width));
        }
        let list_height = usize::from(inner.height).saturating_sub(lines.len());
        let offset = (self.selected + 1).saturating_sub(list_height.max(1));
        for (i, (file, st)) in self
            .snapshot
            .pr
            .files
            .iter()
            .zip(&self.state)
            .enumerate()
            .skip(offset)
            .take(list_height)
        {
            lines.push(fit(self.row(i, file, st, theme), width));
        }
        if self.state.is_empty() {
            lines.push(Line::styled("this PR changes no files", theme.dim));
        }
        let room = usize::from(inner.height).saturating_sub(lines.len());
        for g in self.gone.iter().take(room) {
            lines.push(fit(Self::gone_row(g, theme), width));
        }
        frame.render_widget(Paragraph::new(lines), inner);
        // The selected file, said whole.
        let about = self.snapshot.pr.files.get(self.selected).map(|f| {
            let mut s = format!("{} · {}", one_line(&f.path), f.change_type().as_str());
            if let Some(prev) = &f.previous_path {
                s.push_str(&format!(" from {}", one_line(prev)));
            }
            if let Some(why) = f.no_patch() {
                s.push_str(&format!(" · {}", why.sentence()));
            }
            if let Some(st) = self.state.get(self.selected)
                && st.viewed == ViewedState::Dismissed
            {
                s.push_str(&format!(" · {}", viewed_words(st.viewed, st.moved)));
            }
            if f.looks_generated() {
                s.push_str(" · generated: collapsed in the diff");
            }
            s
        });
        frame.render_widget(
            Paragraph::new(fit(
                Line::styled(about.unwrap_or_default(), theme.dim),
                usize::from(status.width),
            )),
            status,
        );
        let foot = footer(
            view,
            &[
                (KeyCommand::Toggle, "diff"),
                (KeyCommand::ToggleViewed, "viewed"),
                (KeyCommand::NextUnviewed, "next unviewed"),
                (KeyCommand::NextChanged, "next changed"),
            ],
            foot_area.width,
        );
        frame.render_widget(Paragraph::new(foot), foot_area);
        Drawn {
            list_height: list_height as u16,
            list_area: inner,
            ..Drawn::default()
        }
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        help_entries(keymap, KEYS)
    }
}
