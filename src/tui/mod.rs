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
//! Background work reports through the one [`AppEvent`] enum over a tokio channel. **Review
//! engine:** add its variants to `AppEvent` (e.g. `Review(review::Progress)`), and turn them into
//! actions in [`AppEvent::into_action`]; the header already renders `App::review_progress` (one
//! line: aspect progress and gate state) through `Action::ReviewProgress`.

pub mod app;
pub mod harness;
pub mod highlight;
pub mod keymap;
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

use crate::ledger::Ledger;
use crate::pr::Snapshot;
use crate::sanitize::one_line;
use crate::source::Fixture;

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
}

impl AppEvent {
    /// The action for an event that is not terminal input or a signal.
    pub fn into_action(self) -> Option<Action> {
        match self {
            AppEvent::Action(a) => Some(a),
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
        }
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
        let spawned = std::process::Command::new(&opener)
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
    } = session;
    let mut app = App::new(snapshot, seen, options);
    let runner = Arc::new(Runner {
        ledger,
        fixture,
        theme: theme.clone(),
        interactive: true,
        clock: None,
    });
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
    )
    .await;
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
    effects: Vec<Effect>,
) {
    for e in effects {
        match e {
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
                    dispatch(app, runner, tx, more);
                }
            }
        }
    }
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    runner: &Arc<Runner>,
    keymap: &Keymap,
    theme: &Theme,
    tx: &mpsc::UnboundedSender<AppEvent>,
    rx: &mut mpsc::UnboundedReceiver<AppEvent>,
) -> Result<(), TuiError> {
    loop {
        let mut drawn = Drawn::default();
        terminal.draw(|f| drawn = ui::draw(f, app, theme, keymap))?;
        // The frame is on screen: only now may what it showed be marked seen.
        let effects = app.update(Action::Drawn(drawn));
        let redraw = effects
            .iter()
            .any(|e| !matches!(e, Effect::Highlight { .. }));
        dispatch(app, runner, tx, effects);
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
                        dispatch(app, runner, tx, fx);
                    }
                }
                AppEvent::Input(_) => {}
                other => {
                    if let Some(a) = other.into_action() {
                        let fx = app.update(a);
                        dispatch(app, runner, tx, fx);
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

    #[test]
    fn only_web_urls_are_opened() {
        assert!(is_web_url("https://github.com/o/r/pull/1#x"));
        assert!(!is_web_url("file:///etc/passwd"));
        assert!(!is_web_url("--help"));
        assert!(!is_web_url("https://x y"));
        assert!(!is_web_url("https://x\u{1b}]"));
    }
}
