//! The dialog layer: what has the keys above the screen on top (a search prompt, the filter
//! dialog, help, the draft editor, the reply composer, a confirmation). Like a compositor layer,
//! the top one answers a key first; `Normal` hands keys to the screen. The router sends the
//! dialogs' input to the screen that opened them; help belongs to the router (it lists the
//! screen's keys).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::App;
use super::action::Action;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::review::Confirm;

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
    /// A confirmation dialog (post, discard) or a refusal.
    Confirm(Confirm),
}

impl InputMode {
    /// Maps a key event to an action for this layer.
    pub fn key_action(&self, keymap: &Keymap, ev: &KeyEvent) -> Option<Action> {
        if ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('c') {
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
            InputMode::Confirm(Confirm::Refused(_)) => Some(Action::Confirmed(false)),
            // Only `y` confirms; every other key cancels.
            InputMode::Confirm(_) => Some(Action::Confirmed(matches!(
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

impl App {
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
