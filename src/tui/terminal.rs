//! The terminal side of the console: the guard that restores it, the input thread, signals, and
//! the event loop (draw → `Drawn` → effects; then every queued event → `update` → effects). The
//! events are [`AppEvent`]s (`event.rs`); the effects run on their lanes (`effects/`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use thiserror::Error;
use tokio::sync::mpsc;

use super::app::{Action, App, Drawn, Effect};
use super::effects::Effects;
use super::event::AppEvent;
use super::keymap::Keymap;
use super::theme::Theme;

#[derive(Debug, Error)]
pub enum TuiError {
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
    #[error("interrupted by {0}")]
    Interrupted(&'static str),
}

/// Leaves raw mode and the alternate screen when dropped (normal exit, error, early return).
/// Panics are covered by the hook `ratatui::try_init` installs.
pub struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        disable_mouse();
        ratatui::restore();
    }
}

/// Clicks and the wheel reach the console (call after the terminal is set up). The guard turns
/// it off again on every way out.
pub fn enable_mouse() -> std::io::Result<()> {
    ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    )
}

fn disable_mouse() {
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
}

/// Reads terminal input on a thread of its own until `stop` is set or the loop is gone.
pub fn spawn_reader(
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

/// SIGINT/SIGTERM (Ctrl-C elsewhere) become [`AppEvent::Terminate`]. The handlers are
/// registered before this returns, so a signal that arrives once the first frame is up is never
/// missed (only the waiting happens in a task).
pub fn spawn_signals(tx: mpsc::UnboundedSender<AppEvent>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        tokio::spawn(async move {
            let name = tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            };
            let _ = tx.send(AppEvent::Terminate(name));
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = tx.send(AppEvent::Terminate("Ctrl-C"));
        }
    });
}

/// How often the console's clock ticks: the dwell before a shown item counts as seen and the
/// inbox's refresh interval are measured on it.
pub const TICK: std::time::Duration = std::time::Duration::from_millis(200);

/// The console's clock: an [`Action::Tick`] with the milliseconds since the Unix epoch, now
/// and then every [`TICK`] (the only place the console reads the wall clock for it).
pub fn spawn_ticker(tx: mpsc::UnboundedSender<AppEvent>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(TICK);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            let now_ms = chrono::Utc::now().timestamp_millis();
            if tx.send(AppEvent::Action(Action::Tick { now_ms })).is_err() {
                return;
            }
        }
    })
}

/// Runs until the app quits, a signal arrives or every sender is gone. Effects are started on
/// `effects` and never waited for: their results arrive on `rx` like any other event.
pub async fn event_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    effects: &mut Effects,
    keymap: &Keymap,
    theme: &Theme,
    rx: &mut mpsc::UnboundedReceiver<AppEvent>,
) -> Result<(), TuiError> {
    loop {
        let mut drawn = Drawn::default();
        terminal
            .draw(|f| drawn = app.draw(f, theme, keymap))
            .map_err(|e| TuiError::Terminal(std::io::Error::other(e.to_string())))?;
        // The frame is on screen: only now may what it showed be marked seen.
        let fx = app.update(Action::Drawn(drawn));
        let redraw = fx.iter().any(|e| !matches!(e, Effect::Highlight { .. }));
        effects.dispatch(fx);
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
                        effects.dispatch(app.update(a));
                    }
                }
                AppEvent::Input(Event::Mouse(m)) => {
                    if let Some(a) = App::mouse_action(&m) {
                        effects.dispatch(app.update(a));
                    }
                }
                AppEvent::Input(_) => {}
                other => {
                    if let Some(a) = other.into_action() {
                        effects.dispatch(app.update(a));
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
