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

use super::app::{Action, App, Asked, Drawn, Effect};
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

/// How the input thread is paused while an external program (the editor) has the terminal:
/// `paused` asks, `idle` answers that it no longer reads.
#[derive(Debug, Clone, Default)]
pub struct ReaderPause {
    pub paused: Arc<AtomicBool>,
    pub idle: Arc<AtomicBool>,
}

/// What the loop needs to hand the terminal to the external editor and take it back.
#[derive(Debug, Clone, Default)]
pub struct Outside {
    pub reader: ReaderPause,
    /// `$VISUAL`/`$EDITOR`, as the session holds it.
    pub editor: Option<String>,
}

/// Reads terminal input on a thread of its own until `stop` is set or the loop is gone; reads
/// nothing while `pause` says so.
pub fn spawn_reader(
    tx: mpsc::UnboundedSender<AppEvent>,
    stop: Arc<AtomicBool>,
    pause: ReaderPause,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            if pause.paused.load(Ordering::SeqCst) {
                pause.idle.store(true, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            pause.idle.store(false, Ordering::SeqCst);
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

/// Hands the terminal to an outside program (`run`: the external editor) and takes it back: the
/// input thread stops reading, raw mode, the mouse and the alternate screen are turned off, the
/// program runs, and everything is set up again and the screen redrawn whole.
fn run_outside<B: Backend, T>(
    terminal: &mut Terminal<B>,
    outside: &Outside,
    run: impl FnOnce() -> T,
) -> Result<T, TuiError> {
    use ratatui::crossterm::{execute, terminal as ct};
    outside.reader.paused.store(true, Ordering::SeqCst);
    // The reader notices within one poll (50 ms); bounded, so a stuck reader cannot hang us.
    for _ in 0..100 {
        if outside.reader.idle.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    disable_mouse();
    let _ = execute!(std::io::stdout(), ct::LeaveAlternateScreen);
    let _ = ct::disable_raw_mode();
    let result = run();
    let back = ct::enable_raw_mode()
        .and_then(|()| execute!(std::io::stdout(), ct::EnterAlternateScreen))
        .and_then(|()| enable_mouse());
    outside.reader.paused.store(false, Ordering::SeqCst);
    back?;
    terminal
        .clear()
        .map_err(|e| TuiError::Terminal(std::io::Error::other(e.to_string())))?;
    Ok(result)
}

/// Whether `effect` needs the terminal: the external editor, on a text or on a file at a line.
fn needs_terminal(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::ExternalEdit { .. } | Effect::EditorAt { .. }
    )
}

/// Starts `fx` on their lanes; an effect that needs the terminal (the external editor) runs
/// here, around a suspended screen, and what its answer asks for is routed the same way.
fn route<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    effects: &mut Effects,
    outside: Option<&Outside>,
    mut fx: Vec<Asked>,
) -> Result<(), TuiError> {
    loop {
        let Some(outside) = outside else {
            effects.dispatch(fx);
            return Ok(());
        };
        let Some(at) = fx.iter().position(|e| needs_terminal(&e.effect)) else {
            effects.dispatch(fx);
            return Ok(());
        };
        let asked = fx.remove(at);
        effects.dispatch(fx);
        let answer = match &asked.effect {
            Effect::ExternalEdit { target, text } => {
                let result = run_outside(terminal, outside, || {
                    super::editor::run_external(outside.editor.as_deref(), text)
                })?;
                Action::ExternallyEdited {
                    target: *target,
                    result,
                }
            }
            Effect::EditorAt { argv, said } => {
                Action::Notice(run_outside(terminal, outside, || {
                    super::editor_at::open(argv, said, true)
                })?)
            }
            _ => return Ok(()),
        };
        fx = app.update(asked.answer(answer));
    }
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
/// `effects` and never waited for: their results arrive on `rx` like any other event. With
/// `outside`, an external edit suspends the screen (without: it runs on its lane, headless).
pub async fn event_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    effects: &mut Effects,
    keymap: &Keymap,
    theme: &Theme,
    rx: &mut mpsc::UnboundedReceiver<AppEvent>,
    outside: Option<&Outside>,
) -> Result<(), TuiError> {
    loop {
        let mut drawn = Drawn::default();
        terminal
            .draw(|f| drawn = app.draw(f, theme, keymap))
            .map_err(|e| TuiError::Terminal(std::io::Error::other(e.to_string())))?;
        // The frame is on screen: only now may what it showed be marked seen.
        let fx = app.update(Action::Drawn(drawn));
        let redraw = fx
            .iter()
            .any(|e| !matches!(e.effect, Effect::Highlight { .. }));
        route(terminal, app, effects, outside, fx)?;
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
                        let fx = app.update(a);
                        route(terminal, app, effects, outside, fx)?;
                    }
                }
                AppEvent::Input(Event::Mouse(m)) => {
                    if let Some(a) = App::mouse_action(&m) {
                        let fx = app.update(a);
                        route(terminal, app, effects, outside, fx)?;
                    }
                }
                AppEvent::Input(_) => {}
                other => {
                    if let Some(a) = other.into_action() {
                        let fx = app.update(a);
                        route(terminal, app, effects, outside, fx)?;
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
