//! The console's text editor, for the review draft and the thread reply alike: a text area that
//! soft-wraps long lines (no sideways scroll) and keeps an undo history (`ctrl-z` or `ctrl-u`
//! undo, `ctrl-r` redo), and the way out to the user's own editor (`ctrl-o`: `$VISUAL`, else
//! `$EDITOR`, as `commands::Context` read them) on a private temporary file that is removed
//! afterwards.
//!
//! Entry points: [`area`] (a text area holding `text`), [`input`] (one key; true when the text
//! changed), [`EXTERNAL_KEY`] and [`run_external`] (edit `text` in the external editor and get
//! the new text back). The console suspends its screen around [`run_external`]
//! (`terminal.rs`); the test harness calls it as it is.

use std::io::Write;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{CursorMove, TextArea, WrapMode};

/// Undo steps kept per editor.
const HISTORY: usize = 200;

/// The largest text read back from the external editor.
const MAX_EDITED_BYTES: u64 = 4 * 1024 * 1024;

/// A text area over `text` (sanitized by the caller), soft-wrapping, with undo; the cursor on
/// the first line.
pub fn area(text: &str) -> TextArea<'static> {
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut t = TextArea::new(lines);
    t.set_wrap_mode(WrapMode::WordOrGlyph);
    t.set_max_histories(HISTORY);
    t
}

/// The key that hands the text to the external editor.
pub fn is_external_key(ev: &KeyEvent) -> bool {
    ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('o')
}

/// How the key is named in titles and help.
pub const EXTERNAL_KEY: &str = "ctrl-o";

/// One key for the editor; true when the text changed. `ctrl-z` undoes (besides the text area's
/// own `ctrl-u`), `ctrl-r` redoes.
pub fn input(t: &mut TextArea<'static>, ev: KeyEvent) -> bool {
    if ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('z') {
        return t.undo();
    }
    t.input(ev)
}

/// Replaces the text (the external editor's answer), undoably (two `ctrl-z`: the insertion,
/// then the removal of the old text): the cursor goes to where it was, as far as the new text
/// allows.
pub fn replace(t: &mut TextArea<'static>, text: &str) {
    let ratatui_textarea::DataCursor(row, col) = t.cursor();
    t.select_all();
    t.insert_str(text.trim_end_matches('\n'));
    t.move_cursor(CursorMove::Jump(
        u16::try_from(row).unwrap_or(u16::MAX),
        u16::try_from(col).unwrap_or(u16::MAX),
    ));
}

/// Edits `text` in `editor` (a shell command line, e.g. `vi` or `code --wait`): written to a
/// private temporary file (`pr-shepherd-*.md`, owner-only, removed when done), the editor run on
/// it with this process's environment less its secrets, and the file read back. `Err`: why not
/// (no editor, it failed, the file is unreadable), in words.
pub fn run_external(editor: Option<&str>, text: &str) -> Result<String, String> {
    let Some(editor) = editor.map(str::trim).filter(|e| !e.is_empty()) else {
        return Err("no external editor: set $VISUAL or $EDITOR".to_owned());
    };
    let mut file = tempfile::Builder::new()
        .prefix("pr-shepherd-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| format!("cannot make the temporary file: {e}"))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.flush())
        .map_err(|e| format!("cannot write the temporary file: {e}"))?;
    let path = file.path().to_owned();
    let mut cmd = std::process::Command::new("sh");
    // The editor line may carry arguments (`code --wait`); the path goes as "$1", never
    // through the shell's parsing.
    cmd.arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path);
    for k in crate::childenv::secret_names() {
        cmd.env_remove(k);
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start the editor `{}`: {e}", one(editor)))?;
    if !status.success() {
        return Err(format!(
            "the editor `{}` ended with {status}; the text is unchanged",
            one(editor)
        ));
    }
    let read = crate::infile::read_to_string(&path, MAX_EDITED_BYTES)
        .map_err(|e| format!("cannot read the edited text back: {e}"))?;
    drop(file);
    Ok(crate::sanitize::sanitize(&read).into_owned())
}

fn one(s: &str) -> String {
    crate::sanitize::one_line(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char, ctrl: bool) -> KeyEvent {
        KeyEvent::new(
            KeyCode::Char(c),
            if ctrl {
                KeyModifiers::CONTROL
            } else {
                KeyModifiers::NONE
            },
        )
    }

    #[test]
    fn undo_and_redo() {
        let mut t = area("");
        for c in "abc".chars() {
            assert!(input(&mut t, key(c, false)));
        }
        assert!(input(&mut t, key('z', true)));
        assert_ne!(t.lines()[0], "abc");
        assert!(input(&mut t, key('r', true)));
        assert_eq!(t.lines()[0], "abc");
        assert_eq!(t.wrap_mode(), WrapMode::WordOrGlyph);
    }

    #[test]
    fn an_external_editor_edits_a_private_file_that_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        // The stand-in editor: notes the file's path, then replaces its text.
        let editor = format!(
            "sh -c 'echo \"$1\" > {}; printf \"new text\\n\" > \"$1\"' sh",
            seen.display()
        );
        let out = run_external(Some(&editor), "old text").unwrap();
        assert_eq!(out.trim_end(), "new text");
        let path = std::fs::read_to_string(&seen).unwrap();
        let path = std::path::Path::new(path.trim());
        assert!(!path.exists(), "the temporary file is removed: {path:?}");
        assert!(run_external(None, "x").unwrap_err().contains("$VISUAL"));
        assert!(
            run_external(Some("false"), "x")
                .unwrap_err()
                .contains("unchanged")
        );
        let mut t = area("one\ntwo");
        replace(&mut t, "three\n");
        assert_eq!(t.lines(), ["three"]);
        assert!(t.undo() && t.undo());
        assert_eq!(t.lines(), ["one", "two"]);
    }
}
