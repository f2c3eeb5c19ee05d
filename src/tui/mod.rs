//! The interactive console: `pr-shepherd [PR]`.
//!
//! - [`app`]: state and the pure `App::update(Action) -> Vec<Effect>`.
//! - [`ui`]: drawing, a pure function of the state that reports what it showed.
//! - [`keymap`], [`theme`], [`highlight`]: bindings, colours, syntect.
//! - this module: the event loop (terminal set-up and restore, input thread, signals) and the
//!   [`Runner`] that performs effects; [`harness`] runs the same loop on a `TestBackend`.
//!
//! The console takes a [`Snapshot`] plus an optional [`Fixture`] (for `>`/`<` history); a live
//! source plugs in by handing over its snapshot (and, later, sending refreshed snapshots as an
//! [`AppEvent`]).
//!
//! Background work reports through the one [`AppEvent`] enum over a tokio channel. A review run
//! (`r`/`R`) is a tokio task calling `run_review_with_prior`; its `ReviewEvent`s arrive as
//! [`AppEvent::Review`] tagged with the run's sequence number (a newer run makes older events
//! stale). Quitting or starting another run cancels it through its `CancellationToken`, and the
//! loop joins every run task before it returns. The pure review state lives in [`review`].

pub mod app;
pub mod harness;
pub mod highlight;
pub mod keymap;
pub mod review;
pub mod theme;
pub mod ui;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::crossterm::event::{self, Event, KeyEventKind};
use thiserror::Error;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::ledger::Ledger;
use crate::policy::Mode as ReviewMode;
use crate::pr::{Origin, PrMeta, Snapshot};
use crate::publish::{Outbox, upsert};
use crate::review::llm::{LlmClient, ReplaySource};
use crate::review::prior::{MetaFinding, prior_reviews};
use crate::review::prompt::Prompts;
use crate::review::runner::run_review_with_prior;
use crate::review::{ReviewEvent, ReviewSettings};
use crate::sanitize::one_line;
use crate::source::Fixture;
use review::{PostPlan, PostTo};

pub use app::{Action, App, Drawn, Effect, Options};
pub use keymap::Keymap;
pub use theme::Theme;

#[derive(Debug, Error)]
pub enum TuiError {
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
    #[error("interrupted by {0}")]
    Interrupted(&'static str),
}

/// Everything that reaches the loop from outside `update`: terminal input, background results,
/// signals. Add review-engine variants here (see the module docs).
#[derive(Debug)]
pub enum AppEvent {
    Input(Event),
    /// The result of background work (highlighting, …) as an action for `update`.
    Action(Action),
    /// SIGINT or SIGTERM: leave cleanly.
    Terminate(&'static str),
    /// Progress of review run `seq`.
    Review {
        seq: u64,
        event: ReviewEvent,
    },
}

impl AppEvent {
    /// The action for an event that is not terminal input or a signal.
    pub fn into_action(self) -> Option<Action> {
        match self {
            AppEvent::Action(a) => Some(a),
            AppEvent::Review { seq, event } => Some(Action::Review { seq, event }),
            AppEvent::Input(_) | AppEvent::Terminate(_) => None,
        }
    }
}

/// Performs effects. `interactive: false` (tests, benches) never opens a browser or writes to
/// the real terminal: it reports what it would have done as a notice.
pub struct Runner {
    pub ledger: Ledger,
    pub fixture: Option<Fixture>,
    pub theme: Theme,
    pub interactive: bool,
    /// Unix seconds for new markers; `None` = now.
    pub clock: Option<i64>,
    /// How `r` reviews: settings (config `[review]`), identity, reply marker.
    pub review: ReviewContext,
    /// Where `p` posts.
    pub post_to: PostTo,
}

/// Runs network I/O to completion from the console's event loop (a confirmed post is the one
/// moment the maintainer waits for an answer). Needs the multi-thread runtime `main` starts.
fn block_on_io<F: std::future::Future>(fut: F) -> F::Output {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => tokio::task::block_in_place(|| handle.block_on(fut)),
        Err(_) => futures::executor::block_on(fut),
    }
}

/// What a console review needs beyond the snapshot.
#[derive(Debug, Clone)]
pub struct ReviewContext {
    pub settings: ReviewSettings,
    /// Offline: the login whose `## PR Shepherd Review` comments count as Shepherd's own.
    pub identity: String,
    /// The literal marker that ends a reply addressing a finding.
    pub reply_marker: String,
}

impl Default for ReviewContext {
    fn default() -> Self {
        ReviewContext {
            settings: ReviewSettings::default(),
            identity: "pr-shepherd".to_owned(),
            reply_marker: crate::review::classify::DEFAULT_REPLY_MARKER.to_owned(),
        }
    }
}

/// A prepared review run: everything the background task needs.
pub struct Prepared {
    pub seq: u64,
    pub settings: ReviewSettings,
    pub client: Arc<LlmClient>,
    pub prompts: Arc<Prompts>,
    pub pr: Arc<PrMeta>,
    pub prior_findings: Vec<MetaFinding>,
    /// `Action::ReviewStarted` for the app.
    pub started: Action,
}

/// A review task in flight.
struct RunningReview {
    cancel: CancellationToken,
    handle: tokio::task::JoinHandle<()>,
}

impl Runner {
    /// Runs an effect synchronously (highlighting too) and returns its result as an action.
    pub fn perform(&self, effect: Effect) -> Option<Action> {
        match effect {
            Effect::MarkSeen { pr, items } => {
                let at = self.clock.unwrap_or_else(|| chrono::Utc::now().timestamp());
                let pairs: Vec<(&str, &str)> = items
                    .iter()
                    .map(|(a, b)| (a.as_str(), b.as_str()))
                    .collect();
                let result = self
                    .ledger
                    .mark_seen(&pr, &pairs, at)
                    .map(|_| ())
                    .map_err(|e| e.to_string());
                Some(Action::Marked { items, at, result })
            }
            Effect::LoadStep(step) => Some(Action::StepLoaded(self.load_step(step))),
            Effect::Highlight { key, path, hunk } => Some(Action::Highlighted {
                key,
                lines: Arc::new(highlight::highlight_hunk(&path, &hunk, &self.theme)),
            }),
            Effect::Open(url) => Some(Action::Notice(self.open(&url))),
            Effect::Copy(url) => Some(Action::Notice(self.copy(&url))),
            // The loop (or the harness) runs reviews; nothing to do synchronously.
            Effect::StartReview { .. } | Effect::CancelReview => None,
            Effect::SaveDraft { pr, mut draft } => {
                draft.saved_at = self.now();
                Some(Action::DraftSaved(
                    self.ledger
                        .save_draft(&pr, &draft)
                        .map_err(|e| e.to_string()),
                ))
            }
            Effect::DiscardDraft { pr } => Some(Action::DraftDiscarded(
                self.ledger.discard_draft(&pr).map_err(|e| e.to_string()),
            )),
            Effect::PlanPost { pr, bytes } => Some(Action::PostPlanned(self.plan_post(&pr, bytes))),
            Effect::Post { pr, body } => Some(Action::Posted(self.post(&pr, &body))),
        }
    }

    fn now(&self) -> i64 {
        self.clock.unwrap_or_else(|| chrono::Utc::now().timestamp())
    }

    fn outbox_path(&self, pr: &crate::pr::PrCoords) -> String {
        self.ledger
            .pr_dir(pr)
            .map(|d| d.join("outbox").join("comment.json").display().to_string())
            .unwrap_or_else(|e| e.to_string())
    }

    /// What a post would do, for the confirmation dialog.
    fn plan_post(&self, pr: &crate::pr::PrCoords, bytes: usize) -> Result<PostPlan, String> {
        match &self.post_to {
            PostTo::Outbox => {
                let outbox = Outbox {
                    ledger: &self.ledger,
                    pr: pr.clone(),
                    now: self.now(),
                };
                // The outbox store does plain file I/O: no runtime needed.
                let update = futures::executor::block_on(crate::publish::target(&outbox))
                    .map_err(|e| e.to_string())?;
                Ok(PostPlan {
                    target: format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
                    update,
                    bytes,
                    destination: format!("the outbox {}", self.outbox_path(pr)),
                })
            }
            PostTo::GitHub(live) => {
                let store = crate::publish::GitHubComments {
                    gh: &live.gh,
                    pr: pr.clone(),
                    own_login: live.own_login.clone(),
                };
                let update =
                    block_on_io(crate::publish::target(&store)).map_err(|e| e.to_string())?;
                Ok(PostPlan {
                    target: format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
                    update,
                    bytes,
                    destination: format!("GitHub, as @{}", live.own_login),
                })
            }
            PostTo::Unavailable(why) => Err(why.clone()),
        }
    }

    /// Posts `body`: called only after the maintainer confirmed the dialog.
    fn post(&self, pr: &crate::pr::PrCoords, body: &str) -> Result<crate::publish::Posted, String> {
        match &self.post_to {
            PostTo::Outbox => {
                let outbox = Outbox {
                    ledger: &self.ledger,
                    pr: pr.clone(),
                    now: self.now(),
                };
                let mut p = futures::executor::block_on(upsert(&outbox, body, 3))
                    .map_err(|e| e.to_string())?;
                p.location = format!("the outbox {}", p.location);
                Ok(p)
            }
            PostTo::GitHub(live) => {
                let store = crate::publish::GitHubComments {
                    gh: &live.gh,
                    pr: pr.clone(),
                    own_login: live.own_login.clone(),
                };
                block_on_io(upsert(&store, body, 3)).map_err(|e| e.to_string())
            }
            PostTo::Unavailable(why) => Err(why.clone()),
        }
    }

    /// Prepares run `seq` exactly like `pr-shepherd review`: replay with the fixture's recorded
    /// answers at the snapshot's step for fixtures (unless the settings name a backend), else the
    /// settings; earlier reviews from the PR (plus the outbox offline) decide incremental or full.
    pub fn prepare(&self, seq: u64, full: bool, snapshot: &Snapshot) -> Result<Prepared, String> {
        let step = match snapshot.origin {
            Origin::Fixture { step, .. } => step,
            Origin::Live => 0,
        };
        let replay = self.fixture.as_ref().map(|f| ReplaySource {
            answers: f.llm.answers.clone(),
            step,
        });
        let settings = self.review.settings.clone();
        settings.validate().map_err(|e| e.to_string())?;
        let client = LlmClient::from_settings(&settings, replay).map_err(|e| e.to_string())?;
        let prompts = Prompts::load(settings.prompts_dir.as_deref());
        let coords = snapshot.pr.coords();
        let mut prior = prior_reviews(snapshot, &self.review.identity);
        if self.fixture.is_some() {
            prior.add_outbox(self.ledger.outbox(&coords).map_err(|e| e.to_string())?);
        }
        let (mode, reason) = crate::review::aggregate::choose_mode(&prior, full);
        let prior_findings = match mode {
            ReviewMode::Incremental => prior.findings(),
            ReviewMode::Full => Vec::new(),
        };
        Ok(Prepared {
            seq,
            settings,
            client: Arc::new(client),
            prompts: Arc::new(prompts),
            pr: Arc::new(snapshot.pr.clone()),
            prior_findings,
            started: Action::ReviewStarted {
                seq,
                mode,
                reason,
                prior: Box::new(prior),
                reply_marker: self.review.reply_marker.clone(),
            },
        })
    }

    /// Runs a prepared review to its end and saves it in the ledger (unless cancelled).
    pub async fn run_prepared(
        &self,
        p: Prepared,
        events: mpsc::UnboundedSender<ReviewEvent>,
        cancel: CancellationToken,
    ) -> Option<String> {
        let coords = p.pr.coords();
        let run = run_review_with_prior(
            p.pr,
            &p.settings,
            p.client,
            p.prompts,
            p.prior_findings,
            events,
            cancel,
        )
        .await;
        if run.cancelled {
            return None;
        }
        self.ledger
            .save_run(&coords, &run)
            .err()
            .map(|e| format!("the review run was not saved: {e}"))
    }

    /// The whole review synchronously, as the actions the loop would deliver (tests, harness).
    /// Must not be called from inside a tokio runtime.
    pub fn review_blocking(&self, seq: u64, full: bool, snapshot: &Snapshot) -> Vec<Action> {
        let p = match self.prepare(seq, full, snapshot) {
            Ok(p) => p,
            Err(why) => return vec![Action::ReviewNotStarted { seq, why }],
        };
        let rt = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                return vec![Action::ReviewNotStarted {
                    seq,
                    why: e.to_string(),
                }];
            }
        };
        let mut out = vec![p.started.clone()];
        let (tx, mut rx) = mpsc::unbounded_channel();
        let problem = rt.block_on(self.run_prepared(p, tx, CancellationToken::new()));
        while let Ok(event) = rx.try_recv() {
            out.push(Action::Review { seq, event });
        }
        out.extend(problem.map(Action::Notice));
        out
    }

    fn load_step(&self, step: usize) -> Result<Box<app::StepData>, String> {
        let f = self
            .fixture
            .as_ref()
            .ok_or_else(|| "no fixture to step through".to_owned())?;
        let snapshot = f.snapshot_at(step).map_err(|e| e.to_string())?;
        let seen = self
            .ledger
            .load_seen(&snapshot.pr.coords())
            .map_err(|e| e.to_string())?;
        Ok(Box::new(app::StepData { snapshot, seen }))
    }

    fn open(&self, url: &str) -> String {
        let shown = one_line(url);
        if !is_web_url(url) {
            return format!("not opening a non-web URL: {shown}");
        }
        if !self.interactive {
            return format!("open: {shown}");
        }
        let Some(opener) = opener() else {
            return format!("no browser opener found; URL: {shown}");
        };
        let mut cmd = std::process::Command::new(&opener);
        // The opener keeps the desktop session's variables, never a token or an API key.
        for k in crate::childenv::secret_names() {
            cmd.env_remove(k);
        }
        let spawned = cmd
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        match spawned {
            Ok(mut child) => {
                // Reap it in the background so no zombie is left.
                std::thread::spawn(move || child.wait());
                format!("opened {shown}")
            }
            Err(e) => format!("cannot run {}: {e}; URL: {shown}", opener.display()),
        }
    }

    fn copy(&self, url: &str) -> String {
        let shown = one_line(url);
        if !self.interactive {
            return format!("copied (OSC 52): {shown}");
        }
        let seq = osc52(url);
        let mut out = std::io::stdout().lock();
        match out.write_all(seq.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => format!("copied to the clipboard (OSC 52): {shown}"),
            Err(e) => format!("cannot copy ({e}); URL: {shown}"),
        }
    }
}

/// Only http(s) URLs without spaces or controls are handed to an opener (a URL from the PR is
/// untrusted: it must not become an option or a local path for the opener).
pub fn is_web_url(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || crate::sanitize::is_hazard(c))
}

/// The platform's URL opener, if it is installed.
fn opener() -> Option<PathBuf> {
    let name = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer.exe"
    } else {
        "xdg-open"
    };
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The OSC 52 "set clipboard" sequence for `text`.
pub fn osc52(text: &str) -> String {
    format!("\u{1b}]52;c;{}\u{7}", base64(text.as_bytes()))
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(T[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Leaves raw mode and the alternate screen when dropped (normal exit, error, early return).
/// Panics are covered by the hook `ratatui::try_init` installs.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// What the console needs to start.
pub struct Session {
    pub snapshot: Snapshot,
    pub fixture: Option<Fixture>,
    pub ledger: Ledger,
    pub theme: Theme,
    pub keymap: Keymap,
    pub options: Options,
    pub seen: crate::ledger::SeenSet,
    pub review: ReviewContext,
    pub post_to: PostTo,
}

/// Runs the console until the user quits or a signal arrives. The terminal is restored on every
/// way out.
pub async fn run(session: Session) -> Result<(), TuiError> {
    let Session {
        snapshot,
        fixture,
        ledger,
        theme,
        keymap,
        options,
        seen,
        review,
        post_to,
    } = session;
    let coords = snapshot.pr.coords();
    let mut app = App::new(snapshot, seen, options);
    // An unposted draft from an earlier session (quit, crash, kill) comes back.
    match ledger.load_draft(&coords) {
        Ok(Some(d)) => {
            app.update(Action::DraftRestored(d));
        }
        Ok(None) => {}
        Err(e) => {
            app.update(Action::Notice(format!(
                "the saved draft is unreadable: {e}"
            )));
        }
    }
    let runner = Arc::new(Runner {
        ledger,
        fixture,
        theme: theme.clone(),
        interactive: true,
        clock: None,
        review,
        post_to,
    });
    let mut reviews: Vec<RunningReview> = Vec::new();
    let (tx, mut rx) = mpsc::unbounded_channel::<AppEvent>();

    // syntect's assets take a while to load: do it while the first frame is drawn.
    if theme.syntect.is_some() {
        tokio::task::spawn_blocking(highlight::warm_up);
    }
    spawn_signals(tx.clone());

    // The guard first: if set-up fails half-way (raw mode on, alternate screen not), the early
    // return still restores what was changed.
    let guard = TerminalGuard;
    let mut terminal = ratatui::try_init()?;
    let stop = Arc::new(AtomicBool::new(false));
    let reader = spawn_reader(tx.clone(), stop.clone());

    let result = event_loop(
        &mut terminal,
        &mut app,
        &runner,
        &keymap,
        &theme,
        &tx,
        &mut rx,
        &mut reviews,
    )
    .await;
    // No review outlives the console: cancel, then wait (bounded) for each task to end.
    for r in reviews {
        r.cancel.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(5), r.handle).await;
    }
    stop.store(true, Ordering::Relaxed);
    drop(terminal);
    drop(guard);
    let _ = reader.join();
    result
}

fn spawn_reader(
    tx: mpsc::UnboundedSender<AppEvent>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match event::poll(Duration::from_millis(50)) {
                Ok(true) => match event::read() {
                    Ok(ev) => {
                        if tx.send(AppEvent::Input(ev)).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                },
                Ok(false) => {}
                Err(_) => return,
            }
        }
    })
}

fn spawn_signals(tx: mpsc::UnboundedSender<AppEvent>) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                return;
            };
            let name = tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            };
            let _ = tx.send(AppEvent::Terminate(name));
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_ok() {
                let _ = tx.send(AppEvent::Terminate("Ctrl-C"));
            }
        }
    });
}

fn dispatch(
    app: &mut App,
    runner: &Arc<Runner>,
    tx: &mpsc::UnboundedSender<AppEvent>,
    reviews: &mut Vec<RunningReview>,
    effects: Vec<Effect>,
) {
    for e in effects {
        match e {
            Effect::CancelReview => {
                for r in reviews.iter() {
                    r.cancel.cancel();
                }
            }
            Effect::StartReview {
                seq,
                full,
                snapshot,
            } => {
                for r in reviews.iter() {
                    r.cancel.cancel();
                }
                reviews.retain(|r| !r.handle.is_finished());
                match runner.prepare(seq, full, &snapshot) {
                    Err(why) => {
                        let more = app.update(Action::ReviewNotStarted { seq, why });
                        dispatch(app, runner, tx, reviews, more);
                    }
                    Ok(prepared) => {
                        let more = app.update(prepared.started.clone());
                        dispatch(app, runner, tx, reviews, more);
                        let cancel = CancellationToken::new();
                        let (runner2, tx2, stop) = (runner.clone(), tx.clone(), cancel.clone());
                        let handle = tokio::spawn(async move {
                            let (etx, mut erx) = mpsc::unbounded_channel();
                            let forward = async {
                                while let Some(event) = erx.recv().await {
                                    let _ = tx2.send(AppEvent::Review { seq, event });
                                }
                            };
                            let (problem, ()) =
                                tokio::join!(runner2.run_prepared(prepared, etx, stop), forward);
                            if let Some(p) = problem {
                                let _ = tx2.send(AppEvent::Action(Action::Notice(p)));
                            }
                        });
                        reviews.push(RunningReview { cancel, handle });
                    }
                }
            }
            // Highlighting is slow: off the loop, back as an event.
            Effect::Highlight { .. } => {
                let runner = runner.clone();
                let tx = tx.clone();
                tokio::task::spawn_blocking(move || {
                    if let Some(a) = runner.perform(e) {
                        let _ = tx.send(AppEvent::Action(a));
                    }
                });
            }
            other => {
                if let Some(a) = runner.perform(other) {
                    let more = app.update(a);
                    dispatch(app, runner, tx, reviews, more);
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    runner: &Arc<Runner>,
    keymap: &Keymap,
    theme: &Theme,
    tx: &mpsc::UnboundedSender<AppEvent>,
    rx: &mut mpsc::UnboundedReceiver<AppEvent>,
    reviews: &mut Vec<RunningReview>,
) -> Result<(), TuiError> {
    loop {
        let mut drawn = Drawn::default();
        terminal.draw(|f| drawn = ui::draw(f, app, theme, keymap))?;
        // The frame is on screen: only now may what it showed be marked seen.
        let effects = app.update(Action::Drawn(drawn));
        let redraw = effects
            .iter()
            .any(|e| !matches!(e, Effect::Highlight { .. }));
        dispatch(app, runner, tx, reviews, effects);
        if app.quit {
            return Ok(());
        }
        if redraw {
            continue;
        }
        let Some(mut ev) = rx.recv().await else {
            return Ok(());
        };
        // Handle everything already queued before drawing again (fast key repeat, resizes).
        loop {
            match ev {
                AppEvent::Terminate(sig) => return Err(TuiError::Interrupted(sig)),
                AppEvent::Input(Event::Key(k)) if k.kind != KeyEventKind::Release => {
                    if let Some(a) = app.key_action(keymap, &k) {
                        let fx = app.update(a);
                        dispatch(app, runner, tx, reviews, fx);
                    }
                }
                AppEvent::Input(_) => {}
                other => {
                    if let Some(a) = other.into_action() {
                        let fx = app.update(a);
                        dispatch(app, runner, tx, reviews, fx);
                    }
                }
            }
            if app.quit {
                return Ok(());
            }
            match rx.try_recv() {
                Ok(next) => ev = next,
                Err(_) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn block_on_io_works_where_the_console_runs_and_without_a_runtime() {
        // As in `main`: a multi-thread runtime's block_on, sync code inside its future.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let v = rt.block_on(async {
            super::block_on_io(async {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                7
            })
        });
        assert_eq!(v, 7);
        assert_eq!(super::block_on_io(async { 8 }), 8);
    }

    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
        assert_eq!(osc52("hi"), "\u{1b}]52;c;aGk=\u{7}");
    }

    fn runner(dir: &std::path::Path, settings: ReviewSettings) -> (Runner, Snapshot) {
        let f = Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo.json"),
        )
        .unwrap();
        let snap = f.snapshot_at(0).unwrap();
        let r = Runner {
            ledger: Ledger::new(dir),
            fixture: Some(f),
            theme: Theme::plain(),
            interactive: false,
            clock: Some(0),
            review: ReviewContext {
                settings,
                ..ReviewContext::default()
            },
            post_to: PostTo::Outbox,
        };
        (r, snap)
    }

    #[tokio::test]
    async fn cancelling_a_console_run_ends_it_promptly_and_saves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let settings = ReviewSettings {
            llm: Some(crate::review::settings::BackendKind::Command),
            command: vec!["sleep".into(), "30".into()],
            ..ReviewSettings::default()
        };
        let (runner, snap) = runner(dir.path(), settings);
        let p = runner.prepare(1, false, &snap).unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let runner = Arc::new(runner);
        let r2 = runner.clone();
        let task = tokio::spawn(async move { r2.run_prepared(p, tx, stop).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
        let problem = tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the run ends soon after cancel")
            .unwrap();
        assert_eq!(problem, None);
        let mut cancelled = 0;
        let mut finished = false;
        while let Ok(ev) = rx.try_recv() {
            match ev {
                ReviewEvent::Cancelled { .. } => cancelled += 1,
                ReviewEvent::Finished(run) => finished = run.cancelled,
                _ => {}
            }
        }
        assert_eq!(cancelled, 6);
        assert!(finished);
        assert!(!dir.path().join("acme-rivet/482/runs").exists());
    }

    #[test]
    fn replay_is_prepared_for_fixtures_and_bad_settings_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let (runner, snap) = runner(dir.path(), ReviewSettings::default());
        let acts = runner.review_blocking(3, true, &snap);
        assert!(matches!(
            acts.first(),
            Some(Action::ReviewStarted {
                seq: 3,
                mode: ReviewMode::Full,
                ..
            })
        ));
        assert!(matches!(
            acts.last(),
            Some(Action::Review {
                event: ReviewEvent::Finished(_),
                ..
            })
        ));
        let bad = ReviewSettings {
            concurrency: 0,
            ..ReviewSettings::default()
        };
        let (runner, snap) = super::tests::runner(dir.path(), bad);
        assert!(matches!(
            runner.review_blocking(4, false, &snap).as_slice(),
            [Action::ReviewNotStarted { seq: 4, .. }]
        ));
    }

    #[test]
    fn only_web_urls_are_opened() {
        assert!(is_web_url("https://github.com/o/r/pull/1#x"));
        assert!(!is_web_url("file:///etc/passwd"));
        assert!(!is_web_url("--help"));
        assert!(!is_web_url("https://x y"));
        assert!(!is_web_url("https://x\u{1b}]"));
    }
}
