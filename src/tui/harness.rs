//! The console loop on a ratatui `TestBackend`: the same draw → `Drawn` → effects → update cycle
//! as the real loop, with effects performed synchronously. Used by key-sequence tests, snapshot
//! tests and the benchmark.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

use super::EffectRunner;
use super::app::{Action, App, Asked, Drawn, Effect, InboxScreen, Job, inbox, saved_drafts};
use super::effects::review::ConsoleReview;
use super::inbox_link::{InboxLink, TabSource};
use super::keymap::{Key, Keymap};
use super::session::{Remote, Session};
use super::theme::Theme;
use crate::ledger::{Ledger, LedgerError};
use crate::pr::Snapshot;
use crate::source::{Fixture, FixtureError};

/// Why a demo harness could not be built.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    #[error(transparent)]
    Fixture(#[from] FixtureError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

pub struct Harness {
    pub app: App,
    pub runner: EffectRunner,
    pub keymap: Keymap,
    pub theme: Theme,
    pub terminal: Terminal<TestBackend>,
    /// Every effect `update` asked for, in order (for assertions; who asked is in
    /// [`Harness::asked`]).
    pub effects: Vec<Effect>,
    /// The same effects with the screen that asked for each.
    pub asked: Vec<Asked>,
}

/// A fixed clock for deterministic screens: 2026-11-23T00:00:00Z.
pub const TEST_NOW: i64 = 1_795_392_000;

/// The harness's session: the fixed clock, default gates, offline (the outbox).
fn test_session() -> Session {
    Session {
        now: TEST_NOW,
        ..Session::default()
    }
}

impl Harness {
    /// A console on `snapshot` (plus `fixture` for stepping) with markers from `ledger`.
    /// The bundled demo fixture at step 0, with its history, on a ledger in `state_dir`.
    pub fn demo(
        state_dir: &std::path::Path,
        width: u16,
        height: u16,
    ) -> Result<Harness, HarnessError> {
        let f = Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("assets/fixtures/demo.json"),
        )?;
        let snapshot = f.snapshot_at(0)?;
        Ok(Harness::new(
            snapshot,
            Some(f),
            Ledger::new(state_dir),
            Theme::default_theme(),
            width,
            height,
        )?)
    }

    pub fn new(
        snapshot: Snapshot,
        fixture: Option<Fixture>,
        ledger: Ledger,
        theme: Theme,
        width: u16,
        height: u16,
    ) -> Result<Harness, LedgerError> {
        let mut seen = ledger.load_seen(&snapshot.pr.coords())?;
        ledger.attach_kept(&snapshot.pr.coords(), &snapshot, &mut seen);
        let saved = saved_drafts(&ledger, &snapshot.pr.coords());
        let mut app = App::new(
            snapshot,
            seen,
            Session {
                theme: Some(theme.clone()),
                ..test_session()
            },
        );
        if let Some(f) = &fixture {
            app.set_history(f);
        }
        // As in the real console: a saved reply and draft come back; unreadable ones are reported.
        app.restore_saved(saved);
        let Ok(terminal) = Terminal::new(TestBackend::new(width, height));
        Ok(Harness {
            app,
            runner: EffectRunner {
                ledger,
                fixture,
                theme: theme.clone(),
                interactive: false,
                clock: Some(TEST_NOW),
                review: ConsoleReview::default(),
                session: test_session(),
                inbox: Default::default(),
                blobs: Default::default(),
                scratch: Default::default(),
            },
            keymap: Keymap::default(),
            theme,
            terminal,
            effects: Vec::new(),
            asked: Vec::new(),
        })
    }

    /// A console opened on an inbox of `tabs` (title, source), loaded synchronously, with
    /// markers from `ledger`; offline, so the Shepherd identity is the default one.
    pub fn inbox(
        tabs: Vec<(String, TabSource)>,
        ledger: Ledger,
        theme: Theme,
        width: u16,
        height: u16,
    ) -> Harness {
        let screen = InboxScreen::loading(tabs.iter().map(|(title, _)| title.clone()));
        let app = App::with_inbox(
            screen,
            Session {
                theme: Some(theme.clone()),
                ..test_session()
            },
        );
        let Ok(terminal) = Terminal::new(TestBackend::new(width, height));
        let mut h = Harness {
            app,
            runner: EffectRunner {
                ledger,
                fixture: None,
                theme: theme.clone(),
                interactive: false,
                clock: Some(TEST_NOW),
                review: ConsoleReview::default(),
                session: test_session(),
                inbox: InboxLink {
                    tabs: tabs.into_iter().map(|(_, s)| s).collect(),
                    ..Default::default()
                },
                blobs: Default::default(),
                scratch: Default::default(),
            },
            keymap: Keymap::default(),
            theme,
            terminal,
            effects: Vec::new(),
            asked: Vec::new(),
        };
        let inbox = h.app.top_id();
        h.run_effects(vec![Asked {
            by: inbox,
            effect: Effect::Work(Job::new(inbox::Work::Load)),
        }]);
        h
    }

    /// Where the console's writes go, for the app and the effect runner alike (a live PR on a
    /// loopback GitHub).
    pub fn set_remote(&mut self, remote: Remote) {
        self.app.session_mut().remote = remote.clone();
        self.runner.session.remote = remote;
    }

    /// The `[gates]` of the session, for the app and the effect runner alike (what a screen
    /// opened from now on is gated by, and how authors are labelled).
    pub fn set_gates(&mut self, gates: crate::policy::GateConfig) {
        self.app.session_mut().gates = gates.clone();
        self.runner.session.gates = gates;
    }

    /// How long a shown item must stay on screen before it counts as seen (the harness's
    /// default is 0: at once, on the frame that showed it).
    pub fn set_dwell(&mut self, ms: u64) {
        self.app.session_mut().dwell_ms = ms;
        self.runner.session.dwell_ms = ms;
    }

    /// `[code] checkout` of the session: the clone `o` and the check out use.
    pub fn set_checkout(&mut self, clone: std::path::PathBuf) {
        self.app.session_mut().checkout = Some(clone.clone());
        self.runner.session.checkout = Some(clone);
    }

    /// `[console] diff_layout` of the session (the harness's default is `auto`).
    pub fn set_diff_layout(&mut self, layout: crate::config::DiffLayout) {
        self.app.session_mut().diff_layout = layout;
        self.runner.session.diff_layout = layout;
    }

    /// The external editor (`$VISUAL`/`$EDITOR`), `[console] editor_line_arg` and `[code]
    /// checkout` of the session (the harness's default: none of them).
    pub fn set_editor(
        &mut self,
        editor: Option<&str>,
        line_arg: Option<&str>,
        checkout: Option<std::path::PathBuf>,
    ) {
        for s in [self.app.session_mut(), &mut self.runner.session] {
            s.editor = editor.map(str::to_owned);
            s.editor_line_arg = line_arg.map(str::to_owned);
            s.checkout = checkout.clone();
        }
    }

    /// How often the inbox reloads by itself, in seconds (the harness's default is 0: never).
    pub fn set_inbox_refresh(&mut self, seconds: u64) {
        self.app.session_mut().inbox_refresh = seconds;
        self.runner.session.inbox_refresh = seconds;
    }

    /// The console's clock ticks to `now_ms` (the injected clock: no test sleeps), then a frame.
    pub fn tick(&mut self, now_ms: i64) {
        let fx = self.app.update(Action::Tick { now_ms });
        self.run_effects(fx);
        self.draw();
    }

    /// Performs `fx` and every effect their results ask for, synchronously (a review runs to
    /// its end: deterministic with the replay backend).
    /// Results come back addressed to the screen that asked, as in the real loop.
    pub fn run_effects(&mut self, mut fx: Vec<Asked>) {
        while !fx.is_empty() {
            let mut next = Vec::new();
            for e in fx {
                self.effects.push(e.effect.clone());
                self.asked.push(e.clone());
                for a in self.runner.perform_blocking(e) {
                    next.extend(self.app.update(a));
                }
            }
            fx = next;
        }
    }

    /// Draws a frame; once it is "on screen", reports it to the app and performs the effects,
    /// redrawing while they changed something (as the real loop does).
    pub fn draw(&mut self) -> Drawn {
        let mut last = Drawn::default();
        for _ in 0..4 {
            let mut drawn = Drawn::default();
            let (app, theme, keymap) = (&self.app, &self.theme, &self.keymap);
            if self
                .terminal
                .draw(|f| drawn = app.draw(f, theme, keymap))
                .is_err()
            {
                return last;
            }
            last = drawn;
            let fx = self.app.update(Action::Drawn(drawn));
            if fx.is_empty() {
                break;
            }
            self.run_effects(fx);
        }
        last
    }

    /// Sends one key event (no draw).
    pub fn key(&mut self, ev: KeyEvent) {
        if let Some(a) = self.app.key_action(&self.keymap, &ev) {
            let fx = self.app.update(a);
            self.run_effects(fx);
        }
    }

    /// Presses space-separated keys (`j`, `G`, `ctrl-d`, `Enter`, `Esc`, `Space`…), drawing a
    /// frame after each, as a person at the keyboard would see it.
    pub fn press(&mut self, keys: &str) {
        for token in keys.split_whitespace() {
            let Ok(k) = Key::parse(token) else { continue };
            let mut mods = KeyModifiers::NONE;
            if k.ctrl {
                mods |= KeyModifiers::CONTROL;
            }
            if k.alt {
                mods |= KeyModifiers::ALT;
            }
            self.key(KeyEvent::new(k.code, mods));
            self.draw();
        }
    }

    /// A mouse event at a cell (column, row), then a frame, as the real loop handles it.
    pub fn mouse(&mut self, kind: MouseEventKind, column: u16, row: u16) {
        let ev = MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        };
        if let Some(a) = App::mouse_action(&ev) {
            let fx = self.app.update(a);
            self.run_effects(fx);
        }
        self.draw();
    }

    /// Types text into a prompt (search), one character at a time.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.key(KeyEvent::new(
                ratatui::crossterm::event::KeyCode::Char(c),
                KeyModifiers::NONE,
            ));
            self.draw();
        }
    }

    /// The screen as text, one line per row.
    pub fn screen(&self) -> String {
        let buf = self.terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..buf.area.height {
            let mut line = String::new();
            for x in 0..buf.area.width {
                line.push_str(buf[(x, y)].symbol());
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        let _ = self
            .terminal
            .resize(ratatui::layout::Rect::new(0, 0, width, height));
    }
}
