//! Key bindings: which key runs which console command. Defaults follow vim and arrow habits;
//! `[keys]` in config.toml replaces the keys of any command (`down = ["j", "Down"]`).

use std::collections::HashMap;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use crate::keys::may_share;
pub use crate::keys::{COMMANDS, Key, KeyCommand, command_by_name};

/// The active bindings.
#[derive(Debug, Clone)]
pub struct Keymap {
    by_key: HashMap<Key, KeyCommand>,
    /// A key's second command, when it is shared (see [`crate::keys::SHARED`]).
    also: HashMap<Key, KeyCommand>,
    by_command: HashMap<KeyCommand, Vec<Key>>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap::new(&HashMap::new())
    }
}

impl Keymap {
    /// Defaults with `overrides` (already-parsed keys per command) replacing a command's keys.
    pub fn new(overrides: &HashMap<KeyCommand, Vec<Key>>) -> Keymap {
        let mut by_key: HashMap<Key, KeyCommand> = HashMap::new();
        let mut also: HashMap<Key, KeyCommand> = HashMap::new();
        let mut by_command = HashMap::new();
        for (cmd, _, defaults, _) in COMMANDS {
            let keys: Vec<Key> = match overrides.get(cmd) {
                Some(keys) => keys.clone(),
                None => defaults.iter().filter_map(|k| Key::parse(k).ok()).collect(),
            };
            by_command.insert(*cmd, keys);
        }
        // Overrides win a key conflict over defaults: insert defaults first, then overrides.
        for (cmd, _, _, _) in COMMANDS {
            if overrides.contains_key(cmd) {
                continue;
            }
            for k in by_command.get(cmd).into_iter().flatten() {
                match by_key.get(k) {
                    Some(first) if may_share(*first, *cmd) => {
                        also.insert(*k, *cmd);
                    }
                    Some(_) => {}
                    None => {
                        by_key.insert(*k, *cmd);
                    }
                }
            }
        }
        for (cmd, keys) in overrides {
            for k in keys {
                match by_key.insert(*k, *cmd) {
                    Some(before) if before != *cmd && may_share(before, *cmd) => {
                        also.insert(*k, before);
                    }
                    _ => {
                        also.remove(k);
                    }
                }
            }
        }
        // A shared key whose second command was bound elsewhere since is its first's alone.
        also.retain(|k, cmd| by_command.get(cmd).is_some_and(|keys| keys.contains(k)));
        Keymap {
            by_key,
            also,
            by_command,
        }
    }

    pub fn command(&self, ev: &KeyEvent) -> Option<KeyCommand> {
        let key = Key::from_event(ev);
        self.by_key.get(&key).copied().or_else(|| {
            // Shifted letters may arrive with SHIFT and the upper-case char; fine as is. Some
            // terminals send Ctrl-letter as upper case: try lower.
            match key.code {
                KeyCode::Char(c) if key.ctrl && c.is_ascii_uppercase() => self
                    .by_key
                    .get(&Key {
                        code: KeyCode::Char(c.to_ascii_lowercase()),
                        ..key
                    })
                    .copied(),
                _ => None,
            }
        })
    }

    /// The key's second command when it is shared: offered to the screen that does not answer
    /// the first ([`crate::keys::SHARED`]).
    pub fn also(&self, ev: &KeyEvent) -> Option<KeyCommand> {
        self.also.get(&Key::from_event(ev)).copied()
    }

    /// "j/↓" for the footer and help.
    pub fn keys_label(&self, cmd: KeyCommand) -> String {
        self.by_command
            .get(&cmd)
            .map(|keys| keys.iter().map(Key::label).collect::<Vec<_>>().join("/"))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::KeyModifiers;

    use super::*;

    fn ev(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn defaults_cover_every_command() {
        let km = Keymap::default();
        for (cmd, name, _, _) in COMMANDS {
            assert!(!km.keys_label(*cmd).is_empty(), "{name}");
        }
        assert_eq!(
            km.command(&ev(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            Some(KeyCommand::PageDown)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(KeyCommand::Bottom)
        );
        // An unbound key (`x` became resolve).
        assert_eq!(
            km.command(&ev(KeyCode::Char('z'), KeyModifiers::NONE)),
            None
        );
    }

    #[test]
    fn overrides_replace_and_win() {
        let mut o = HashMap::new();
        o.insert(
            KeyCommand::Down,
            vec![Key::parse("x").unwrap(), Key::parse("k").unwrap()],
        );
        let km = Keymap::new(&o);
        assert_eq!(
            km.command(&ev(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some(KeyCommand::Down)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('k'), KeyModifiers::NONE)),
            Some(KeyCommand::Down)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('j'), KeyModifiers::NONE)),
            None
        );
    }

    /// `n`/`N` run the search's command and, where it is not answered, the diff's next file;
    /// rebinding one of them leaves the key to the other alone.
    #[test]
    fn a_shared_key_offers_its_second_command() {
        let n = ev(KeyCode::Char('n'), KeyModifiers::NONE);
        let km = Keymap::default();
        assert_eq!(km.command(&n), Some(KeyCommand::NextMatch));
        assert_eq!(km.also(&n), Some(KeyCommand::NextFile));
        let mut o = HashMap::new();
        o.insert(KeyCommand::NextFile, vec![Key::parse(")").unwrap()]);
        let km = Keymap::new(&o);
        assert_eq!(km.command(&n), Some(KeyCommand::NextMatch));
        assert_eq!(km.also(&n), None);
        let mut o = HashMap::new();
        o.insert(KeyCommand::NextMatch, vec![Key::parse("ctrl-n").unwrap()]);
        let km = Keymap::new(&o);
        assert_eq!(km.command(&n), Some(KeyCommand::NextFile));
        assert_eq!(km.also(&n), None);
    }
}
