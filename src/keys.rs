//! Key specs and the commands keys can be bound to: parsing `j`, `ctrl-d`, `PageDown` into a
//! [`Key`], and the table of [`KeyCommand`]s with their config names, default keys and help.
//!
//! Below both `config` (which validates `[keys]` in config.toml) and `tui` (whose keymap turns
//! key events into commands), so neither imports the other.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Every command a key can be bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCommand {
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
    Dismiss,
    Lesson,
    Reply,
    Comment,
    Resolve,
    Unresolve,
    PendingReview,
    Approve,
    Refresh,
    Sort,
    SortReverse,
    FocusBack,
    Description,
    Files,
    ToggleViewed,
    NextUnviewed,
    NextChanged,
    NextHunk,
    PrevHunk,
    NextFile,
    PrevFile,
    Interdiff,
    SelectLines,
    Suggest,
    ToggleSplit,
    SideLeft,
    SideRight,
    ExpandContext,
    ExpandFile,
    OpenInEditor,
    AskModel,
    Checks,
    RerunFailed,
    Commits,
    Merge,
    CloseReopen,
    ReadyDraft,
    Labels,
    Reviewers,
    Assign,
    UpdateBranch,
    MarkRow,
    MarkRange,
    Checkout,
    Help,
    Messages,
    Quit,
    QuitAll,
    Back,
}

/// (command, config name, default keys, help text), in help-overlay order.
pub const COMMANDS: &[(KeyCommand, &str, &[&str], &str)] = &[
    (
        KeyCommand::Down,
        "down",
        &["j", "Down"],
        "next row / scroll down",
    ),
    (
        KeyCommand::Up,
        "up",
        &["k", "Up"],
        "previous row / scroll up",
    ),
    (KeyCommand::Top, "top", &["g", "Home"], "first row / top"),
    (
        KeyCommand::Bottom,
        "bottom",
        &["G", "End"],
        "last row / bottom",
    ),
    (
        KeyCommand::PageDown,
        "page_down",
        &["ctrl-d", "PageDown"],
        "half a page down",
    ),
    (
        KeyCommand::PageUp,
        "page_up",
        &["ctrl-u", "PageUp"],
        "half a page up",
    ),
    (
        KeyCommand::Focus,
        "focus",
        &["Tab"],
        "switch between list and detail",
    ),
    (
        KeyCommand::Toggle,
        "toggle",
        &["Enter"],
        "expand/collapse (group, or full-width detail)",
    ),
    (
        KeyCommand::Search,
        "search",
        &["/"],
        "search authors, paths and bodies",
    ),
    (
        KeyCommand::NextMatch,
        "next_match",
        &["n"],
        "next search match",
    ),
    (
        KeyCommand::PrevMatch,
        "prev_match",
        &["N"],
        "previous search match",
    ),
    (
        KeyCommand::Filter,
        "filter",
        &["f"],
        "filter by freshness and status",
    ),
    (
        KeyCommand::NextNew,
        "next_new",
        &["]"],
        "next new or edited item",
    ),
    (
        KeyCommand::PrevNew,
        "prev_new",
        &["["],
        "previous new or edited item",
    ),
    (
        KeyCommand::Open,
        "open",
        &["o"],
        "open in the browser (or show the URL)",
    ),
    (KeyCommand::Copy, "copy", &["y"], "copy the URL (OSC 52)"),
    (
        KeyCommand::MarkSeen,
        "mark_seen",
        &["m"],
        "mark the selected item seen",
    ),
    (
        KeyCommand::MarkAll,
        "mark_all",
        &["M"],
        "mark all listed items seen (asks first)",
    ),
    (
        KeyCommand::StepForward,
        "step_forward",
        &[">"],
        "fixture history: next step",
    ),
    (
        KeyCommand::StepBack,
        "step_back",
        &["<"],
        "fixture history: previous step",
    ),
    (
        KeyCommand::Review,
        "review",
        &["r"],
        "run the review (incremental after one was posted)",
    ),
    (
        KeyCommand::FullReview,
        "full_review",
        &["R"],
        "run a full review, ignoring earlier ones",
    ),
    (
        KeyCommand::Aspects,
        "aspects",
        &["A"],
        "show/hide the aspects panel",
    ),
    (
        KeyCommand::ReviewPane,
        "review_pane",
        &["v"],
        "show/hide the review pane",
    ),
    (KeyCommand::Edit, "edit", &["e"], "edit the review draft"),
    (
        KeyCommand::Post,
        "post",
        &["p"],
        "post the review (asks first)",
    ),
    (
        KeyCommand::Discard,
        "discard",
        &["d"],
        "discard the draft (asks first)",
    ),
    (
        KeyCommand::MarkAddressed,
        "mark_addressed",
        &["a"],
        "mark the selected finding addressed",
    ),
    (
        KeyCommand::Dismiss,
        "dismiss",
        &["D"],
        "dismiss the selected finding with a reason: never proposed again on this PR",
    ),
    (
        KeyCommand::Lesson,
        "lesson",
        &["L"],
        "dismiss the selected finding for the whole repository (a lesson)",
    ),
    (
        KeyCommand::Reply,
        "reply",
        &["c"],
        "reply to the selected thread (composer: ctrl-s sends, asks first)",
    ),
    (
        KeyCommand::Comment,
        "comment",
        &["w"],
        "write a conversation comment on the PR (editor: ctrl-s posts, asks first)",
    ),
    (
        KeyCommand::Resolve,
        "resolve",
        &["x"],
        "resolve the selected thread (asks first)",
    ),
    (
        KeyCommand::Unresolve,
        "unresolve",
        &["u"],
        "unresolve the selected thread (asks first)",
    ),
    (
        KeyCommand::PendingReview,
        "pending_review",
        &["P"],
        "the pending review: line comments, suggestions, findings' drafts; submit it",
    ),
    (
        KeyCommand::Approve,
        "approve",
        &["ctrl-a"],
        "pending review: approve the PR (asks first; a key no other screen uses)",
    ),
    (
        KeyCommand::Refresh,
        "refresh",
        &["ctrl-r", "F5"],
        "fetch the PR or the inbox afresh, keeping selection and drafts",
    ),
    (
        KeyCommand::Sort,
        "sort",
        &["s"],
        "inbox: next sort order (attention, updated, unseen, then by each other column)",
    ),
    (
        KeyCommand::SortReverse,
        "sort_reverse",
        &["O"],
        "inbox: reverse the sort order (the header's ↓ becomes ↑)",
    ),
    (
        KeyCommand::FocusBack,
        "focus_back",
        &["BackTab"],
        "previous pane (inbox: previous section)",
    ),
    (
        KeyCommand::Description,
        "description",
        &["i"],
        "the PR's description: title, branch, state, labels, reviewers, size, body",
    ),
    (
        KeyCommand::Files,
        "files",
        &["F"],
        "the PR's changed files (Enter opens a file's diff)",
    ),
    (
        KeyCommand::ToggleViewed,
        "toggle_viewed",
        &["t"],
        "files: mark the selected file viewed / not viewed",
    ),
    (
        KeyCommand::NextUnviewed,
        "next_unviewed",
        &["U"],
        "files: next file not viewed",
    ),
    (
        KeyCommand::NextChanged,
        "next_changed",
        &["C"],
        "files: next file changed since your last look",
    ),
    (KeyCommand::NextHunk, "next_hunk", &["}"], "diff: next hunk"),
    (
        KeyCommand::PrevHunk,
        "prev_hunk",
        &["{"],
        "diff: previous hunk",
    ),
    (
        KeyCommand::NextFile,
        "next_file",
        &["n"],
        "diff: the PR's next file (shares its key with next_match: no search there)",
    ),
    (
        KeyCommand::PrevFile,
        "prev_file",
        &["N"],
        "diff: the PR's previous file (shares its key with prev_match)",
    ),
    (
        KeyCommand::Interdiff,
        "interdiff",
        &["I"],
        "diff: show/hide the interdiff since your last look",
    ),
    (
        KeyCommand::SelectLines,
        "select_lines",
        &["V"],
        "diff: start/end a selection of lines (then j/k)",
    ),
    (
        KeyCommand::Suggest,
        "suggest",
        &["S"],
        "diff: suggest a change on the line or the selected lines",
    ),
    (
        KeyCommand::ToggleSplit,
        "toggle_split",
        &["|"],
        "diff: side by side (old left, new right) / unified",
    ),
    (
        KeyCommand::SideLeft,
        "side_left",
        &["h", "Left"],
        "diff: side by side, the cursor to the old (left) side",
    ),
    (
        KeyCommand::SideRight,
        "side_right",
        &["l", "Right"],
        "diff: side by side, the cursor to the new (right) side",
    ),
    (
        KeyCommand::ExpandContext,
        "expand_context",
        &["e"],
        "diff: 20 more lines of the file above and below the hunk under the cursor (shares its key with edit)",
    ),
    (
        KeyCommand::ExpandFile,
        "expand_file",
        &["E"],
        "diff: the whole file around the hunks (again: the hunks only)",
    ),
    (
        KeyCommand::OpenInEditor,
        "open_in_editor",
        &["o"],
        "diff: the file in $VISUAL/$EDITOR at the cursor's line (shares its key with open)",
    ),
    (
        KeyCommand::AskModel,
        "ask",
        &["a"],
        "diff: ask the model about the selected lines or the cursor line (shares its key with mark_addressed)",
    ),
    (
        KeyCommand::Checks,
        "checks",
        &["K"],
        "the checks at the PR's head, failing first: annotations, log tail",
    ),
    (
        KeyCommand::RerunFailed,
        "rerun_failed",
        &["W"],
        "checks: re-run the failed jobs of the failing workflow runs (asks first)",
    ),
    (
        KeyCommand::Commits,
        "commits",
        &["H"],
        "the PR's commits (offline: the fixture's pushes); Enter shows one's diff",
    ),
    (
        KeyCommand::Merge,
        "merge",
        &["J"],
        "merge at the head shown, never another (asks first; twice past the unseen)",
    ),
    (
        KeyCommand::CloseReopen,
        "close",
        &["Z"],
        "close the PR, or reopen a closed one (asks first; a comment may go first)",
    ),
    (
        KeyCommand::ReadyDraft,
        "ready",
        &["T"],
        "mark a draft ready for review, or convert the PR to a draft (asks first)",
    ),
    (
        KeyCommand::Labels,
        "labels",
        &["b"],
        "the PR's labels: add or remove the repository's own (a picker with a filter)",
    ),
    (
        KeyCommand::Reviewers,
        "reviewers",
        &["B"],
        "reviewers: request a review from people or teams (asks first)",
    ),
    (
        KeyCommand::Assign,
        "assign",
        &["Y"],
        "assign people to the PR (asks first)",
    ),
    (
        KeyCommand::UpdateBranch,
        "update_branch",
        &["ctrl-e"],
        "update the branch with its base, merge or rebase, at the head shown (asks first)",
    ),
    (
        KeyCommand::Checkout,
        "checkout",
        &["ctrl-g"],
        "check out the PR's head in a worktree beside [code] checkout (asks first)",
    ),
    (
        KeyCommand::MarkRow,
        "mark",
        &["Space"],
        "inbox: mark the PR (again: unmark); a decision key then acts on every marked PR",
    ),
    (
        KeyCommand::MarkRange,
        "mark_range",
        &["V"],
        "inbox: mark every PR from the last one marked to this one (shares its key with select_lines)",
    ),
    (KeyCommand::Help, "help", &["?"], "this help"),
    (
        KeyCommand::Messages,
        "messages",
        &["!"],
        "message log (every notice, whole)",
    ),
    (
        KeyCommand::Quit,
        "quit",
        &["q"],
        "close the current view (quit at the top)",
    ),
    (
        KeyCommand::QuitAll,
        "quit_all",
        &["Q"],
        "quit from anywhere",
    ),
    (
        KeyCommand::Back,
        "back",
        &["Esc"],
        "back (close or cancel; never quits)",
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

/// Pairs of commands that may share a key: no screen answers both (the diff has no search, the
/// lists that search show no file's diff). The key runs the first; a screen that does not
/// answer it is offered the second.
pub const SHARED: &[(KeyCommand, KeyCommand)] = &[
    (KeyCommand::NextMatch, KeyCommand::NextFile),
    (KeyCommand::PrevMatch, KeyCommand::PrevFile),
    // The diff edits no review draft, opens no URL and marks no finding: its keys for context,
    // the editor and a question to the model.
    (KeyCommand::Edit, KeyCommand::ExpandContext),
    (KeyCommand::Open, KeyCommand::OpenInEditor),
    (KeyCommand::MarkAddressed, KeyCommand::AskModel),
    // The inbox selects no lines and marks no item seen; the PR and diff screens mark no rows.
    (KeyCommand::SelectLines, KeyCommand::MarkRange),
    (KeyCommand::MarkSeen, KeyCommand::MarkRow),
];

/// Whether `a` and `b` may share a key (see [`SHARED`]).
pub fn may_share(a: KeyCommand, b: KeyCommand) -> bool {
    SHARED
        .iter()
        .any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b))
}

/// The config name of a command (`page_down`).
pub fn command_name(cmd: KeyCommand) -> &'static str {
    COMMANDS.iter().find(|c| c.0 == cmd).map_or("?", |c| c.1)
}

/// Checks the bindings in force — every command's default keys, with `overrides` (from
/// `[keys]`) replacing a command's own — and refuses a key bound to two commands: the console
/// could run only one of them, and the other would silently lose the key. `Err` names the
/// overridden command (its `[keys]` entry) and says which command holds the key already. The
/// one check for every command and the console (`crate::config` calls it while loading).
pub fn check_bindings(
    overrides: &std::collections::HashMap<KeyCommand, Vec<Key>>,
) -> Result<(), (&'static str, String)> {
    let mut holder: std::collections::HashMap<Key, (KeyCommand, bool)> =
        std::collections::HashMap::new();
    // Defaults first, so a conflict is reported on the command the config file names.
    let mut order: Vec<&(KeyCommand, &str, &[&str], &str)> = COMMANDS.iter().collect();
    order.sort_by_key(|c| overrides.contains_key(&c.0));
    for (cmd, name, defaults, _) in order {
        let overridden = overrides.get(cmd);
        let keys: Vec<Key> = match overridden {
            Some(keys) => keys.clone(),
            None => defaults.iter().filter_map(|k| Key::parse(k).ok()).collect(),
        };
        for key in keys {
            match holder.get(&key) {
                Some((other, _)) if other == cmd || may_share(*other, *cmd) => {}
                Some((other, other_overridden)) => {
                    let other_name = command_name(*other);
                    let why = if *other_overridden {
                        format!("`{}` is also bound to `{other_name}`", key.label())
                    } else {
                        format!(
                            "`{}` is already `{other_name}`'s default key; bind `{other_name}` to another key too, or choose another one here",
                            key.label()
                        )
                    };
                    return Err((name, why));
                }
                None => {
                    holder.insert(key, (*cmd, overridden.is_some()));
                }
            }
        }
    }
    Ok(())
}

/// Looks up a command by its config name.
pub fn command_by_name(name: &str) -> Option<KeyCommand> {
    COMMANDS.iter().find(|c| c.1 == name).map(|c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors() {
        assert!(Key::parse("ctrl-c").is_err());
        assert!(Key::parse("Hyper").is_err());
        assert_eq!(Key::parse("F5").unwrap().code, KeyCode::F(5));
        assert!(Key::parse("ctrl-D").unwrap().ctrl);
    }

    fn overrides(
        pairs: &[(KeyCommand, &[&str])],
    ) -> std::collections::HashMap<KeyCommand, Vec<Key>> {
        pairs
            .iter()
            .map(|(c, keys)| (*c, keys.iter().map(|k| Key::parse(k).unwrap()).collect()))
            .collect()
    }

    #[test]
    fn the_defaults_bind_every_key_once() {
        check_bindings(&overrides(&[])).unwrap();
    }

    /// Failed before: `down = "k"` was accepted and left `k` bound to both `down` and `up`.
    #[test]
    fn a_key_bound_to_two_commands_is_refused_naming_both() {
        let (name, why) = check_bindings(&overrides(&[(KeyCommand::Down, &["k"])])).unwrap_err();
        assert_eq!(name, "down");
        assert!(why.contains("`k`") && why.contains("`up`"), "{why}");
        // Two overrides on one key.
        let (name, why) = check_bindings(&overrides(&[
            (KeyCommand::Down, &["z"]),
            (KeyCommand::Up, &["z"]),
        ]))
        .unwrap_err();
        assert!(["down", "up"].contains(&name), "{name}");
        assert!(why.contains("also bound"), "{why}");
        // A swap is fine: each key is bound once.
        check_bindings(&overrides(&[
            (KeyCommand::Down, &["k"]),
            (KeyCommand::Up, &["j"]),
        ]))
        .unwrap();
        // The same key twice for one command is no conflict.
        check_bindings(&overrides(&[(KeyCommand::Down, &["j", "j", "Down"])])).unwrap();
    }

    #[test]
    fn commands_are_found_by_config_name() {
        assert_eq!(command_by_name("page_down"), Some(KeyCommand::PageDown));
        assert_eq!(command_by_name("PageDown"), None);
        for (cmd, name, _, _) in COMMANDS {
            assert_eq!(command_by_name(name), Some(*cmd));
        }
    }
}
