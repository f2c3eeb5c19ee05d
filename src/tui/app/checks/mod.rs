//! The checks at the PR's head in the console ([`ChecksScreen`]), as `pr-shepherd checks` lists
//! them: each check run and commit status with its state and duration, failing ones first;
//! `Enter` opens one — a failing run's annotations (`NEW` until a frame showed them once; the
//! same seen markers as headless `checks`) and its job's log tail, read when it is opened —
//! and one key re-runs the failed jobs of the failing workflow runs, after a confirmation
//! naming them. A screen above the PR screen, opened by one key there ([`open_checks`]).
//!
//! ```text
//! PrScreen ──K──▶ ChecksScreen ──Enter──▶ (the run's annotations and log tail, below the list)
//! ```

mod ask;
mod draw;

pub use ask::RerunAsk;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::action::{Action, ChecksLoad, Drawn};
use super::code::{help_entries, scrolled};
use super::effect::Effect;
use super::screen::{Asking, Ctx, Handled, Screen, View};
use crate::pr::{CheckRun, CheckState, PrCoords, Snapshot, checks};
use crate::sanitize::one_line;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::ui::Dialog;

/// The commands only the checks screen answers (listed in its `?`, not the PR's).
pub const OWN_COMMANDS: &[KeyCommand] = &[KeyCommand::RerunFailed];

/// The commands the checks screen answers, with what they do there.
const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::Down, "next check (open: scroll down)"),
    (KeyCommand::Up, "previous check (open: scroll up)"),
    (KeyCommand::PageDown, "half a page down"),
    (KeyCommand::PageUp, "half a page up"),
    (KeyCommand::Top, "first check (open: top)"),
    (KeyCommand::Bottom, "last check (open: bottom)"),
    (
        KeyCommand::Toggle,
        "open / close the check: a failing one's annotations and log tail",
    ),
    (
        KeyCommand::RerunFailed,
        "re-run the failed jobs of the failing workflow runs (asks first, naming them)",
    ),
    (KeyCommand::Open, "open the check in the browser"),
    (KeyCommand::Copy, "copy the check's URL"),
    (KeyCommand::Refresh, "read the checks again"),
];

/// Lines of an open check before its first annotation (its title, the annotations' count).
const ANNOTATIONS_AT: usize = 2;

/// A failing job's log tail, read when the job is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Log {
    Reading,
    Read(String),
    /// Why it could not be read.
    Unreadable(String),
}

/// What was read of the checks.
#[derive(Debug, Clone)]
enum Loaded {
    Reading,
    Failed(String),
    Read {
        /// Failing first ([`checks::ordered`]).
        runs: Vec<CheckRun>,
        offline: bool,
    },
}

#[derive(Debug, Clone)]
pub struct ChecksScreen {
    snapshot: Arc<Snapshot>,
    loaded: Loaded,
    /// Ids of the annotations never shown before this visit (they stay `NEW` during it).
    new: BTreeSet<String>,
    /// Ids marked seen in this visit, or on their way.
    marked: BTreeSet<String>,
    /// Job logs by job id (the check run's id).
    logs: HashMap<u64, Log>,
    selected: usize,
    /// The check opened with `Enter` (an index into the runs).
    open: Option<usize>,
    /// The open check's scroll, and how far it can go (from the last frame).
    scroll: usize,
    max_scroll: usize,
    height: usize,
    /// A re-run was asked of GitHub and has not answered.
    rerunning: bool,
    /// The re-run question, while its dialog is open.
    ask: Asking<RerunAsk>,
    /// The console's clock (ms) from its ticks; 0 until one came (the session's `now` then).
    now_ms: i64,
}

/// Opens the checks of `snapshot`'s PR at its head above the screen asking, and reads them.
pub fn open_checks(snapshot: &Snapshot, ctx: &mut Ctx<'_>) {
    ctx.fx.push(load(snapshot));
    ctx.open(Box::new(ChecksScreen::new(Arc::new(snapshot.clone()))));
}

fn load(snapshot: &Snapshot) -> Effect {
    Effect::LoadChecks {
        pr: snapshot.pr.coords(),
        head_sha: snapshot.pr.head_sha.clone(),
    }
}

impl ChecksScreen {
    /// The re-run question, while its dialog is open.
    pub fn asked(&self) -> Option<&RerunAsk> {
        self.ask.get()
    }

    pub fn new(snapshot: Arc<Snapshot>) -> ChecksScreen {
        ChecksScreen {
            snapshot,
            loaded: Loaded::Reading,
            new: BTreeSet::new(),
            marked: BTreeSet::new(),
            logs: HashMap::new(),
            selected: 0,
            open: None,
            scroll: 0,
            max_scroll: 0,
            height: 0,
            rerunning: false,
            ask: Asking::default(),
            now_ms: 0,
        }
    }

    fn coords(&self) -> PrCoords {
        self.snapshot.pr.coords()
    }

    /// The checks as listed (empty until read).
    pub fn runs(&self) -> &[CheckRun] {
        match &self.loaded {
            Loaded::Read { runs, .. } => runs,
            _ => &[],
        }
    }

    /// The annotation `id` is new in this visit (never shown before it).
    pub fn is_new(&self, id: &str) -> bool {
        self.new.contains(id)
    }

    fn select(&mut self, i: usize) {
        self.selected = i.min(self.runs().len().saturating_sub(1));
    }

    fn took(&mut self, load: ChecksLoad, fx: &mut Vec<Effect>) {
        // The selection and the open check stay on the same names across a reload.
        let name_of = |i: Option<usize>| i.and_then(|i| self.runs().get(i)).map(|r| r.name.clone());
        let (was_selected, was_open) = (name_of(Some(self.selected)), name_of(self.open));
        let runs: Vec<CheckRun> = checks::ordered(&load.runs).into_iter().cloned().collect();
        let at = |name: Option<String>| name.and_then(|n| runs.iter().position(|r| r.name == n));
        self.selected = at(was_selected).unwrap_or(0);
        self.open = at(was_open);
        // New once is new for this visit; what was marked in it stays marked.
        self.new.extend(load.new);
        self.logs.clear();
        self.loaded = Loaded::Read {
            runs,
            offline: load.offline,
        };
        if let Some(i) = self.open {
            self.open = None;
            self.open_check(i, fx);
        }
    }

    /// Opens check `i`; a failing Actions job's log is asked for (live: not read before).
    fn open_check(&mut self, i: usize, fx: &mut Vec<Effect>) {
        let offline = matches!(self.loaded, Loaded::Read { offline: true, .. });
        let Some(r) = self.runs().get(i) else { return };
        let job = (r.state == CheckState::Failing
            && r.log_tail.is_none()
            && r.workflow_run_id.is_some()
            && !offline)
            .then_some(r.id)
            .flatten();
        if let Some(job) = job
            && !self.logs.contains_key(&job)
        {
            self.logs.insert(job, Log::Reading);
            fx.push(Effect::LoadJobLog {
                pr: self.coords(),
                job,
            });
        }
        self.open = Some(i);
        self.scroll = 0;
    }

    fn toggle(&mut self, ctx: &mut Ctx<'_>) {
        if self.open == Some(self.selected) {
            self.open = None;
            return;
        }
        if self.runs().is_empty() {
            ctx.say(match &self.loaded {
                Loaded::Reading => "the checks are still being read",
                _ => "no checks at the head commit",
            });
            return;
        }
        self.open_check(self.selected, ctx.fx);
    }

    /// The URL of the check selected.
    fn url(&self) -> Option<String> {
        self.runs().get(self.selected)?.url.clone()
    }

    /// `W`: asks before re-running the failed jobs, naming each workflow run and its checks.
    fn ask_rerun(&mut self, ctx: &mut Ctx<'_>) {
        let (runs, offline) = match &self.loaded {
            Loaded::Read { runs, offline } => (runs, *offline),
            Loaded::Reading => return ctx.say("the checks are still being read"),
            Loaded::Failed(_) => return ctx.say("the checks could not be read: nothing to re-run"),
        };
        if offline {
            return ctx.say(
                "cannot re-run offline: these are the fixture's checks (open the PR live to re-run)",
            );
        }
        if self.rerunning {
            return ctx.say("a re-run is on its way to GitHub");
        }
        let targets = checks::rerun_targets(runs);
        if targets.is_empty() {
            return ctx.say("no failing Actions job to re-run");
        }
        let q = RerunAsk {
            target: self.coords().to_string(),
            runs: targets,
        };
        self.ask.ask(q, ctx);
    }

    /// After a frame showed the open check: its new annotations whose first line was on screen
    /// are seen from now on.
    fn mark_shown(&mut self, d: &Drawn, ctx: &mut Ctx<'_>) {
        let Some(r) = d.shown.and_then(|i| self.runs().get(i)) else {
            return;
        };
        let (from, to) = (
            d.detail_scroll,
            d.detail_scroll + usize::from(d.detail_height),
        );
        let starts = self.annotation_starts(r, d.detail_area.width);
        let ids: Vec<String> = r
            .annotations
            .iter()
            .zip(starts)
            .filter(|(_, at)| (from..to).contains(at))
            .map(|(a, _)| a.id(&r.name))
            .filter(|id| self.new.contains(id) && !self.marked.contains(id))
            .collect();
        if ids.is_empty() {
            return;
        }
        self.marked.extend(ids.iter().cloned());
        ctx.fx.push(Effect::MarkChecksSeen {
            pr: self.coords(),
            ids,
        });
    }
}

impl Screen for ChecksScreen {
    fn name(&self) -> &'static str {
        "checks"
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.selected)
    }

    fn busy(&self) -> bool {
        self.rerunning
    }

    fn activity(&self) -> Option<String> {
        self.rerunning
            .then(|| "re-running the failed jobs".to_owned())
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        if self.open.is_some()
            && let Some(to) = scrolled(cmd, self.scroll, self.max_scroll, self.height / 2)
        {
            self.scroll = to;
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
            KeyCommand::Toggle => self.toggle(ctx),
            KeyCommand::RerunFailed => self.ask_rerun(ctx),
            KeyCommand::Open | KeyCommand::Copy => match self.url() {
                Some(url) if cmd == KeyCommand::Open => ctx.fx.push(Effect::Open(url)),
                Some(url) => ctx.fx.push(Effect::Copy(url)),
                None => ctx.say("this check has no URL"),
            },
            KeyCommand::Refresh => {
                ctx.fx.push(load(&self.snapshot));
                ctx.say("reading the checks again…");
            }
            // An open check closes first; then the router leaves the screen.
            KeyCommand::Quit | KeyCommand::Back if self.open.is_some() => self.open = None,
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    fn question(&self) -> Option<Dialog> {
        self.ask.get().map(RerunAsk::dialog)
    }

    fn answered(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        let Some(ask) = self.ask.take() else { return };
        if !yes {
            ctx.say("not re-run");
            return;
        }
        self.rerunning = true;
        ctx.fx.push(Effect::RerunFailed {
            pr: self.coords(),
            runs: ask.runs.iter().map(|t| t.run).collect(),
        });
        ctx.say("asking GitHub to re-run the failed jobs…");
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let mine = |pr: &PrCoords| *pr == self.coords();
        match action {
            Action::ChecksLoaded { pr, result } if mine(&pr) => {
                match result {
                    Ok(load) => self.took(*load, ctx.fx),
                    Err(e) if matches!(self.loaded, Loaded::Read { .. }) => {
                        ctx.say(format!("cannot read the checks again: {}", one_line(&e)))
                    }
                    Err(e) => self.loaded = Loaded::Failed(e),
                }
                None
            }
            Action::JobLogLoaded { pr, job, tail } if mine(&pr) => {
                self.logs
                    .insert(job, tail.map_or_else(Log::Unreadable, Log::Read));
                None
            }
            Action::ChecksSeen { pr, ids, result } if mine(&pr) => {
                if let Err(e) = result {
                    for id in &ids {
                        self.marked.remove(id);
                    }
                    ctx.say(format!(
                        "the annotations were shown, but not marked seen: {}",
                        one_line(&e)
                    ));
                }
                None
            }
            Action::Rerun { pr, result } if mine(&pr) => {
                self.rerunning = false;
                match result {
                    Ok(done) => {
                        ctx.say(one_line(&done));
                        ctx.fx.push(load(&self.snapshot));
                    }
                    Err(e) => ctx.say(format!("could not re-run: {}", one_line(&e))),
                }
                None
            }
            other => Some(other),
        }
    }

    fn drawn(&mut self, d: Drawn, ctx: &mut Ctx<'_>) {
        self.height = usize::from(if self.open.is_some() {
            d.detail_height
        } else {
            d.list_height
        });
        if self.open.is_some() {
            self.max_scroll = d.detail_lines.saturating_sub(usize::from(d.detail_height));
            self.scroll = self.scroll.min(self.max_scroll);
        }
        self.mark_shown(&d, ctx);
    }

    fn tick(&mut self, now_ms: i64, _ctx: &mut Ctx<'_>) {
        self.now_ms = now_ms;
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        draw::draw(frame, area, self, view)
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        let mut out = help_entries(keymap, KEYS);
        out.push((
            "NEW".to_owned(),
            "an annotation not shown before; once a frame showed it, it is seen (as `pr-shepherd checks` marks it)"
                .to_owned(),
        ));
        out
    }
}
