//! Key bindings: which key runs which console command. Defaults follow vim and arrow habits;
//! `[keys]` in config.toml replaces the keys of any command (`down = ["j", "Down"]`).

use std::collections::HashMap;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Every command a key can be bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    Down,
    Up,
    Top,
    Bottom,
    PageDown,
    PageUp,
    Focus,
    Toggle,
    Search,
    NextMatch,
    PrevMatch,
    Filter,
    NextNew,
    PrevNew,
    Open,
    Copy,
    MarkSeen,
    MarkAll,
    StepForward,
    StepBack,
    Review,
    FullReview,
    Aspects,
    ReviewPane,
    Edit,
    Post,
    Discard,
    MarkAddressed,
    Help,
    Quit,
    Back,
}

/// (command, config name, default keys, help text), in help-overlay order.
pub const COMMANDS: &[(Command, &str, &[&str], &str)] = &[
    (
        Command::Down,
        "down",
        &["j", "Down"],
        "next row / scroll down",
    ),
    (Command::Up, "up", &["k", "Up"], "previous row / scroll up"),
    (Command::Top, "top", &["g", "Home"], "first row / top"),
    (
        Command::Bottom,
        "bottom",
        &["G", "End"],
        "last row / bottom",
    ),
    (
        Command::PageDown,
        "page_down",
        &["ctrl-d", "PageDown"],
        "half a page down",
    ),
    (
        Command::PageUp,
        "page_up",
        &["ctrl-u", "PageUp"],
        "half a page up",
    ),
    (
        Command::Focus,
        "focus",
        &["Tab"],
        "switch between list and detail",
    ),
    (
        Command::Toggle,
        "toggle",
        &["Enter"],
        "expand/collapse (group, or full-width detail)",
    ),
    (
        Command::Search,
        "search",
        &["/"],
        "search authors, paths and bodies",
    ),
    (
        Command::NextMatch,
        "next_match",
        &["n"],
        "next search match",
    ),
    (
        Command::PrevMatch,
        "prev_match",
        &["N"],
        "previous search match",
    ),
    (
        Command::Filter,
        "filter",
        &["f"],
        "filter by freshness and status",
    ),
    (
        Command::NextNew,
        "next_new",
        &["]"],
        "next new or edited item",
    ),
    (
        Command::PrevNew,
        "prev_new",
        &["["],
        "previous new or edited item",
    ),
    (
        Command::Open,
        "open",
        &["o"],
        "open in the browser (or show the URL)",
    ),
    (Command::Copy, "copy", &["y"], "copy the URL (OSC 52)"),
    (
        Command::MarkSeen,
        "mark_seen",
        &["m"],
        "mark the selected item seen",
    ),
    (
        Command::MarkAll,
        "mark_all",
        &["M"],
        "mark all listed items seen",
    ),
    (
        Command::StepForward,
        "step_forward",
        &[">"],
        "fixture history: next step",
    ),
    (
        Command::StepBack,
        "step_back",
        &["<"],
        "fixture history: previous step",
    ),
    (
        Command::Review,
        "review",
        &["r"],
        "run the review (incremental after one was posted)",
    ),
    (
        Command::FullReview,
        "full_review",
        &["R"],
        "run a full review, ignoring earlier ones",
    ),
    (
        Command::Aspects,
        "aspects",
        &["A"],
        "show/hide the aspects panel",
    ),
    (
        Command::ReviewPane,
        "review_pane",
        &["v"],
        "show/hide the review pane",
    ),
    (Command::Edit, "edit", &["e"], "edit the review draft"),
    (
        Command::Post,
        "post",
        &["p"],
        "post the review (asks first)",
    ),
    (
        Command::Discard,
        "discard",
        &["d"],
        "discard the draft (asks first)",
    ),
    (
        Command::MarkAddressed,
        "mark_addressed",
        &["a"],
        "mark the selected finding addressed",
    ),
    (Command::Help, "help", &["?"], "this help"),
    (Command::Quit, "quit", &["q"], "quit"),
    (
        Command::Back,
        "back",
        &["Esc"],
        "back (close, cancel, or quit)",
    ),
];

/// A key as bound: a code plus whether Ctrl/Alt are held (Shift is folded into the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl Key {
    pub fn from_event(ev: &KeyEvent) -> Key {
        let code = ev.code;
        Key {
            code,
            ctrl: ev.modifiers.contains(KeyModifiers::CONTROL),
            alt: ev.modifiers.contains(KeyModifiers::ALT),
        }
    }

    /// Parses `j`, `G`, `ctrl-d`, `alt-x`, `Down`, `PageDown`, `Enter`, `Esc`, `Tab`, `Space`,
    /// `F5`...
    pub fn parse(s: &str) -> Result<Key, String> {
        let mut rest = s;
        let (mut ctrl, mut alt) = (false, false);
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.len() > 5 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.len() > 4 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => match rest.to_ascii_lowercase().as_str() {
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" => KeyCode::PageUp,
                "pagedown" => KeyCode::PageDown,
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                f if f.starts_with('f')
                    && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) =>
                {
                    KeyCode::F(f[1..].parse::<u8>().unwrap_or(1))
                }
                _ => {
                    return Err(format!(
                        "`{s}` is not a key (e.g. \"j\", \"ctrl-d\", \"PageDown\")"
                    ));
                }
            },
        };
        if ctrl && matches!(code, KeyCode::Char('c')) {
            return Err("ctrl-c always quits and cannot be rebound".to_owned());
        }
        Ok(Key { code, ctrl, alt })
    }

    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_owned(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => "↑".to_owned(),
            KeyCode::Down => "↓".to_owned(),
            KeyCode::Left => "←".to_owned(),
            KeyCode::Right => "→".to_owned(),
            KeyCode::Home => "Home".to_owned(),
            KeyCode::End => "End".to_owned(),
            KeyCode::PageUp => "PgUp".to_owned(),
            KeyCode::PageDown => "PgDn".to_owned(),
            KeyCode::Enter => "Enter".to_owned(),
            KeyCode::Esc => "Esc".to_owned(),
            KeyCode::Tab => "Tab".to_owned(),
            KeyCode::BackTab => "BackTab".to_owned(),
            KeyCode::Backspace => "Backspace".to_owned(),
            KeyCode::Delete => "Del".to_owned(),
            KeyCode::F(n) => format!("F{n}"),
            _ => "?".to_owned(),
        };
        match (self.ctrl, self.alt) {
            (true, _) => format!("Ctrl-{base}"),
            (_, true) => format!("Alt-{base}"),
            _ => base,
        }
    }
}

/// Looks up a command by its config name.
pub fn command_by_name(name: &str) -> Option<Command> {
    COMMANDS.iter().find(|c| c.1 == name).map(|c| c.0)
}

/// The active bindings.
#[derive(Debug, Clone)]
pub struct Keymap {
    by_key: HashMap<Key, Command>,
    by_command: HashMap<Command, Vec<Key>>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap::new(&HashMap::new())
    }
}

impl Keymap {
    /// Defaults with `overrides` (already-parsed keys per command) replacing a command's keys.
    pub fn new(overrides: &HashMap<Command, Vec<Key>>) -> Keymap {
        let mut by_key = HashMap::new();
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
                by_key.entry(*k).or_insert(*cmd);
            }
        }
        for (cmd, keys) in overrides {
            for k in keys {
                by_key.insert(*k, *cmd);
            }
        }
        Keymap { by_key, by_command }
    }

    pub fn command(&self, ev: &KeyEvent) -> Option<Command> {
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

    /// "j/↓" for the footer and help.
    pub fn keys_label(&self, cmd: Command) -> String {
        self.by_command
            .get(&cmd)
            .map(|keys| keys.iter().map(Key::label).collect::<Vec<_>>().join("/"))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
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
            Some(Command::PageDown)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Command::Bottom)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('x'), KeyModifiers::NONE)),
            None
        );
    }

    #[test]
    fn overrides_replace_and_win() {
        let mut o = HashMap::new();
        o.insert(
            Command::Down,
            vec![Key::parse("x").unwrap(), Key::parse("k").unwrap()],
        );
        let km = Keymap::new(&o);
        assert_eq!(
            km.command(&ev(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some(Command::Down)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('k'), KeyModifiers::NONE)),
            Some(Command::Down)
        );
        assert_eq!(
            km.command(&ev(KeyCode::Char('j'), KeyModifiers::NONE)),
            None
        );
    }

    #[test]
    fn parse_errors() {
        assert!(Key::parse("ctrl-c").is_err());
        assert!(Key::parse("Hyper").is_err());
        assert_eq!(Key::parse("F5").unwrap().code, KeyCode::F(5));
        assert!(Key::parse("ctrl-D").unwrap().ctrl);
    }
}
