//! The dialog layer: what has the keys above the screen on top (a search prompt, the filter
//! dialog, help, the draft editor, the reply composer, a question). Like a compositor layer,
//! the top one answers a key first; `Normal` hands keys to the screen. The router sends the
//! dialogs' input to the screen that opened them; help belongs to the router (it lists the
//! screen's keys).
//!
//! A question belongs to the screen that asked it: the screen keeps it in its own state (an
//! `Asking` of its own question type, `screen.rs`), turns it into the dialog widget's content
//! ([`Screen::question`]) and takes the answer ([`Screen::answered`]). The router keeps only
//! that a question is open ([`InputMode::Asked`]), draws the widget and hands `y` (or any
//! other key, a no) to the screen. Its own question, whether to quit, it asks itself.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::App;
use super::action::Action;
use crate::sanitize::one_line;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::ui::Dialog;

/// Which layer has the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputMode {
    /// The screen has the keys.
    Normal,
    /// Typing a search; `before` is the row selected when it started (restored on Esc).
    Search {
        query: String,
        before: usize,
    },
    Filter,
    Help,
    /// The message log overlay (every notice and note, whole).
    Messages,
    /// Editing the review draft (keys go to the text area; Esc leaves).
    Edit,
    /// Writing a reply to a thread (keys go to the composer; ctrl-s sends; Esc closes).
    Reply,
    /// A question (or a refusal) of the screen on top: drawn from its state and answered by
    /// it. While it is open the keys go to it.
    Asked,
    /// The router's own question: quit, though work is going on or unsent (`lost` names each
    /// thing, in words).
    ConfirmQuit {
        lost: Vec<String>,
    },
}

impl InputMode {
    /// Maps a key event to an action for this layer.
    pub fn key_action(&self, keymap: &Keymap, ev: &KeyEvent) -> Option<Action> {
        if force_quit(ev) {
            return Some(Action::ForceQuit);
        }
        match self {
            InputMode::Search { .. } => match ev.code {
                KeyCode::Enter => Some(Action::SearchAccept),
                KeyCode::Esc => Some(Action::SearchCancel),
                KeyCode::Backspace => Some(Action::SearchBackspace),
                KeyCode::Char(c) if !ev.modifiers.contains(KeyModifiers::CONTROL) => {
                    Some(Action::SearchInput(c))
                }
                _ => None,
            },
            InputMode::Filter => match ev.code {
                KeyCode::Char(c) => Some(Action::FilterKey(c)),
                KeyCode::Esc | KeyCode::Enter => Some(Action::FilterKey('\u{1b}')),
                _ => None,
            },
            InputMode::Edit => match ev.code {
                KeyCode::Esc => Some(Action::EditDone),
                _ => Some(Action::EditKey(*ev)),
            },
            InputMode::Reply => match ev.code {
                KeyCode::Esc => Some(Action::ReplyClose),
                _ => Some(Action::ReplyKey(*ev)),
            },
            // Only `y` confirms; every other key cancels (the router first asks the question's
            // own dialog: a refusal closes on any key).
            InputMode::Asked | InputMode::ConfirmQuit { .. } => Some(Action::Confirmed(matches!(
                ev.code,
                KeyCode::Char('y') | KeyCode::Char('Y')
            ))),
            InputMode::Help | InputMode::Messages | InputMode::Normal => {
                let cmd = keymap.command(ev)?;
                Some(match keymap.also(ev) {
                    Some(second) => Action::SharedKey(cmd, second),
                    None => Action::Command(cmd),
                })
            }
        }
    }
}

/// Ctrl-c: quits from any layer.
pub(super) fn force_quit(ev: &KeyEvent) -> bool {
    ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('c')
}

/// The router's quit question, naming what quitting would lose.
fn quit_dialog(lost: &[String]) -> Dialog {
    let mut d = Dialog::yes_no(" Quit? ").line("Quitting now:");
    for l in lost {
        d = d.line(format!("· {}", one_line(l)));
    }
    d.blank().line("y quits · any other key stays")
}

impl App {
    /// The open question's dialog: the screen on top's, or the router's own quit question.
    pub fn question(&self) -> Option<Dialog> {
        match &self.mode {
            InputMode::Asked => self.stack.last()?.question(),
            InputMode::ConfirmQuit { lost } => Some(quit_dialog(lost)),
            _ => None,
        }
    }

    /// A command while help or the message log is open: it closes on its keys and swallows the
    /// rest. False: no dialog took the command.
    pub(super) fn dialog_command(&mut self, cmd: KeyCommand) -> bool {
        if !matches!(self.mode, InputMode::Help | InputMode::Messages) {
            return false;
        }
        let max = self.last_drawn.help_max_scroll;
        self.help_scroll = self.help_scroll.min(max);
        let half = usize::from((self.last_drawn.help_height / 2).max(1));
        match cmd {
            KeyCommand::Help | KeyCommand::Messages | KeyCommand::Back | KeyCommand::Quit => {
                self.mode = InputMode::Normal;
            }
            KeyCommand::Down => self.help_scroll = (self.help_scroll + 1).min(max),
            KeyCommand::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
            KeyCommand::PageDown => self.help_scroll = (self.help_scroll + half).min(max),
            KeyCommand::PageUp => self.help_scroll = self.help_scroll.saturating_sub(half),
            KeyCommand::Top => self.help_scroll = 0,
            KeyCommand::Bottom => self.help_scroll = max,
            _ => {}
        }
        true
    }
}

/// What the questions' tests share: a key pressed as the console maps it, the screen drawn.
#[cfg(test)]
pub(crate) mod testing {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::super::{App, Effect};
    use crate::pr::Snapshot;
    use crate::source::{DEMO_FIXTURE, Fixture};
    use crate::tui::keymap::Keymap;
    use crate::tui::theme::Theme;

    /// The demo PR at its first step.
    pub fn demo_snapshot() -> Snapshot {
        Fixture::parse(DEMO_FIXTURE, std::path::Path::new("demo.json"))
            .and_then(|f| f.snapshot_at(0))
            .expect("the demo fixture")
    }

    /// Key `c` as the console maps it (the dialog layer first), then its action.
    pub fn press(app: &mut App, c: char) -> Vec<Effect> {
        let ev = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        match app.key_action(&Keymap::default(), &ev) {
            Some(a) => app.update(a),
            None => Vec::new(),
        }
    }

    /// The console drawn at 120×40, as text.
    pub fn screen(app: &App) -> String {
        let mut term = Terminal::new(TestBackend::new(120, 40)).expect("a test terminal");
        term.draw(|f| {
            app.draw(f, &Theme::plain(), &Keymap::default());
        })
        .expect("drawn");
        let buf = term.backend().buffer();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{demo_snapshot, press, screen};
    use super::*;
    use crate::ledger::SeenSet;
    use crate::tui::app::Effect;
    use crate::tui::keymap::KeyCommand;
    use crate::tui::session::Session;

    /// The quit question is the router's own: drawn from its mode, answered by it.
    #[test]
    fn the_quit_question_is_the_routers_and_y_quits() {
        let mut app = App::new(demo_snapshot(), SeenSet::default(), Session::default());
        app.update(Action::Command(KeyCommand::Review));
        let fx = app.update(Action::ForceQuit);
        assert!(
            matches!(fx.as_slice(), [Effect::ScanUnsent { .. }]),
            "{fx:?}"
        );
        app.update(Action::UnsentScanned(Vec::new()));
        let InputMode::ConfirmQuit { lost } = app.mode().clone() else {
            panic!("no quit question: {:?}", app.mode());
        };
        assert!(lost.iter().any(|l| l.contains("review")), "{lost:?}");
        let q = app.question().expect("the quit question");
        assert_eq!(q.title(), " Quit? ");
        assert!(screen(&app).contains("y quits · any other key stays"));
        press(&mut app, 'n');
        assert_eq!(*app.mode(), InputMode::Normal);
        assert_eq!(app.notice(), Some("not quitting"));
        assert!(!app.quitting());
        app.update(Action::ForceQuit);
        app.update(Action::UnsentScanned(Vec::new()));
        press(&mut app, 'y');
        assert!(app.quitting());
    }
}
