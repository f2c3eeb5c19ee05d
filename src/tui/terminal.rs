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

/// Ctrl-L: redraw the whole screen (not a keymap command: it belongs to the terminal, and works
/// in every dialog and editor).
pub fn is_redraw(k: &ratatui::crossterm::event::KeyEvent) -> bool {
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};
    k.kind != KeyEventKind::Release
        && k.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(k.code, KeyCode::Char('l') | KeyCode::Char('L'))
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
                // Ctrl-L repaints the whole screen, whatever has the keys (whatever else wrote
                // to the terminal, or a terminal that lost its contents).
                AppEvent::Input(Event::Key(k)) if is_redraw(&k) => {
                    terminal
                        .clear()
                        .map_err(|e| TuiError::Terminal(std::io::Error::other(e.to_string())))?;
                }
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
