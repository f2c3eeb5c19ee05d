//! The user's editor opened at a line of a file (the diff screen's `o`): the program and its
//! arguments, run without a shell.
//!
//! The editor is the command line `commands::Context` took from `$VISUAL`, else `$EDITOR` (set
//! and not blank); its own arguments are kept (`code --wait`), split as a POSIX shell splits
//! words (quotes and backslashes; no expansion, no shell run). The line goes the editor's way:
//!
//! | editor (the program's file name) | arguments |
//! |---|---|
//! | `vi`, `vim`, `nvim`, `gvim`, `view`, `emacs`, `emacsclient`, `nano`, `micro` | `+LINE FILE` |
//! | `hx`/`helix` (helix(1): "`+N` open the first given file at line number N") | `+LINE FILE` |
//! | `kak` (kak(1): `[+line[:column]] file`) | `+LINE FILE` |
//! | `code`, `code-insiders`, `codium`, `cursor` | `--goto FILE:LINE` |
//! | `subl`, `zed` | `FILE:LINE` |
//! | anything else | `FILE` (the line cannot be said), unless `[console] editor_line_arg` |
//!
//! `[console] editor_line_arg` is a template for the arguments after the editor's own, such as
//! `{file}:{line}` or `--line {line} {file}`: split into words first, then `{line}` and `{file}`
//! filled in each word (a path with spaces stays one argument); without `{file}` the file goes
//! last. When it is set it is used whatever the editor is.

use std::ffi::OsString;
use std::path::Path;

use thiserror::Error;

/// Why the editor's arguments cannot be made.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum EditorArgvError {
    #[error("no external editor: set $VISUAL or $EDITOR")]
    NoEditor,
    #[error("the editor's command line cannot be split into words: {0}")]
    Editor(String),
    #[error("[console] editor_line_arg cannot be split into words: {0}")]
    Template(String),
    #[error("[console] editor_line_arg has no `{{line}}`: the line would not be passed")]
    NoLine,
}

/// A program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorArgv {
    pub program: String,
    pub args: Vec<OsString>,
    /// Whether the line is among the arguments (false: an unknown editor without a template).
    pub at_line: bool,
}

/// How a known editor is told the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `+LINE FILE`
    Plus,
    /// `--goto FILE:LINE`
    Goto,
    /// `FILE:LINE`
    Colon,
}

fn style(program: &str) -> Option<Style> {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    match name {
        "vi" | "vim" | "nvim" | "gvim" | "view" | "emacs" | "emacsclient" | "nano" | "micro"
        | "hx" | "helix" | "kak" => Some(Style::Plus),
        "code" | "code-insiders" | "codium" | "cursor" => Some(Style::Goto),
        "subl" | "zed" => Some(Style::Colon),
        _ => None,
    }
}

/// Checks an `editor_line_arg` template (config validation): it splits into words and says
/// `{line}`.
pub fn check_line_arg(template: &str) -> Result<(), EditorArgvError> {
    let words = crate::shellwords::split(template).map_err(EditorArgvError::Template)?;
    if !words.iter().any(|w| w.contains("{line}")) {
        return Err(EditorArgvError::NoLine);
    }
    Ok(())
}

/// `word` with `{line}` and `{file}` filled in.
fn fill(word: &str, line: u32, path: &Path) -> OsString {
    let word = word.replace("{line}", &line.to_string());
    let mut out = OsString::new();
    let mut parts = word.split("{file}");
    if let Some(first) = parts.next() {
        out.push(first);
    }
    for part in parts {
        out.push(path.as_os_str());
        out.push(part);
    }
    out
}

/// `FILE:LINE` as one argument.
fn colon(path: &Path, line: u32) -> OsString {
    let mut s = path.as_os_str().to_owned();
    s.push(format!(":{line}"));
    s
}

/// The program and arguments that open `path` at `line` in `editor` (the `$VISUAL`/`$EDITOR`
/// command line, its own arguments kept), the line given the editor's way or by `line_arg`
/// (`[console] editor_line_arg`) when set.
pub fn argv_at(
    editor: &str,
    line: u32,
    path: &Path,
    line_arg: Option<&str>,
) -> Result<EditorArgv, EditorArgvError> {
    let mut words = crate::shellwords::split(editor).map_err(EditorArgvError::Editor)?;
    if words.is_empty() {
        return Err(EditorArgvError::NoEditor);
    }
    let program = words.remove(0);
    let mut args: Vec<OsString> = words.into_iter().map(OsString::from).collect();
    let line = line.max(1);
    if let Some(template) = line_arg.map(str::trim).filter(|t| !t.is_empty()) {
        check_line_arg(template)?;
        let words = crate::shellwords::split(template).map_err(EditorArgvError::Template)?;
        let has_file = words.iter().any(|w| w.contains("{file}"));
        args.extend(words.iter().map(|w| fill(w, line, path)));
        if !has_file {
            args.push(path.as_os_str().to_owned());
        }
        return Ok(EditorArgv {
            program,
            args,
            at_line: true,
        });
    }
    let at_line = match style(&program) {
        Some(Style::Plus) => {
            args.push(format!("+{line}").into());
            args.push(path.as_os_str().to_owned());
            true
        }
        Some(Style::Goto) => {
            args.push("--goto".into());
            args.push(colon(path, line));
            true
        }
        Some(Style::Colon) => {
            args.push(colon(path, line));
            true
        }
        None => {
            args.push(path.as_os_str().to_owned());
            false
        }
    };
    Ok(EditorArgv {
        program,
        args,
        at_line,
    })
}

/// The command line of `argv`, for a notice (one line, sanitized; arguments with spaces quoted).
pub fn shown(argv: &EditorArgv) -> String {
    let word = |w: &str| {
        if w.is_empty() || w.contains(char::is_whitespace) || w.contains('\'') {
            format!("'{}'", w.replace('\'', r"'\''"))
        } else {
            w.to_owned()
        }
    };
    let mut out = word(&argv.program);
    for a in &argv.args {
        out.push(' ');
        out.push_str(&word(&a.to_string_lossy()));
    }
    crate::sanitize::one_line(&out)
}

/// Runs `argv` (no shell) with this process's environment less its secrets and waits for it;
/// `Err`: why it did not start or how it ended, in words.
pub fn run(argv: &EditorArgv) -> Result<(), String> {
    let mut cmd = std::process::Command::new(&argv.program);
    cmd.args(&argv.args);
    for k in crate::childenv::secret_names() {
        cmd.env_remove(k);
    }
    let program = crate::sanitize::one_line(&argv.program);
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start the editor `{program}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the editor `{program}` ended with {status}"))
    }
}

/// Opens `argv` (see [`run`]) and says how it went: `said` (which file, and why that one), or
/// why the editor failed; not `interactive` (tests, benches): nothing runs, and the notice says
/// what would have.
pub fn open(argv: &EditorArgv, said: &str, interactive: bool) -> String {
    if !interactive {
        return format!("{said} — would run: {}", shown(argv));
    }
    match run(argv) {
        Ok(()) => said.to_owned(),
        Err(why) => format!("{why} ({said})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(editor: &str, line_arg: Option<&str>) -> (String, Vec<String>, bool) {
        let a = argv_at(editor, 42, Path::new("/tmp/my file.rs"), line_arg).unwrap();
        (
            a.program,
            a.args
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect(),
            a.at_line,
        )
    }

    // Guards the `+LINE FILE` family: vi-, emacs-, nano-, micro-, helix- and kakoune-style.
    #[test]
    fn plus_line_editors() {
        for e in [
            "vi",
            "vim",
            "nvim",
            "/usr/bin/vim",
            "emacs",
            "emacsclient -t",
            "nano",
            "micro",
            "hx",
            "helix",
            "kak",
        ] {
            let (program, args, at) = argv(e, None);
            let mut want: Vec<String> = e.split(' ').skip(1).map(str::to_owned).collect();
            want.extend(["+42".to_owned(), "/tmp/my file.rs".to_owned()]);
            assert_eq!(program, e.split(' ').next().unwrap(), "{e}");
            assert_eq!(args, want, "{e}");
            assert!(at, "{e}");
        }
    }

    // Guards VS Code-style and `FILE:LINE` editors, with the variable's own arguments kept.
    #[test]
    fn goto_and_colon_editors_keep_their_arguments() {
        assert_eq!(
            argv("code --wait", None),
            (
                "code".to_owned(),
                vec![
                    "--wait".to_owned(),
                    "--goto".to_owned(),
                    "/tmp/my file.rs:42".to_owned()
                ],
                true
            )
        );
        assert_eq!(
            argv("subl -w", None).1,
            ["-w", "/tmp/my file.rs:42"],
            "subl"
        );
    }

    // Guards an unknown editor: the file alone, and the caller told the line was not passed.
    #[test]
    fn an_unknown_editor_gets_the_file_only() {
        assert_eq!(
            argv("'/opt/My Editor/ed' --flag", None),
            (
                "/opt/My Editor/ed".to_owned(),
                vec!["--flag".to_owned(), "/tmp/my file.rs".to_owned()],
                false
            )
        );
    }

    // Guards the template: split into words before filling in (a path with spaces is one
    // argument), the file appended when the template does not place it, and it wins over the
    // editor's own style.
    #[test]
    fn the_line_arg_template() {
        assert_eq!(
            argv("gedit", Some("{file}:{line}")).1,
            ["/tmp/my file.rs:42"]
        );
        assert_eq!(
            argv("kate -n", Some("--line {line}")).1,
            ["-n", "--line", "42", "/tmp/my file.rs"]
        );
        assert_eq!(
            argv("vim", Some("'+call cursor({line}, 1)' {file}")).1,
            ["+call cursor(42, 1)", "/tmp/my file.rs"]
        );
        assert_eq!(
            argv_at("ed", 1, Path::new("f"), Some("{file}")),
            Err(EditorArgvError::NoLine)
        );
        assert!(matches!(
            argv_at("ed", 1, Path::new("f"), Some("'{line}")),
            Err(EditorArgvError::Template(_))
        ));
    }

    // Guards running it: no shell (a `;` is an argument), a failing exit said, the headless
    // notice naming what would run.
    #[test]
    fn running_the_editor() {
        let a = argv_at("true", 3, Path::new("/tmp/a b.rs"), None).unwrap();
        assert_eq!(shown(&a), "true '/tmp/a b.rs'");
        assert_eq!(open(&a, "opened", true), "opened");
        let failing = argv_at("false", 3, Path::new("x;y"), None).unwrap();
        assert!(open(&failing, "opened", true).contains("ended with"));
        let said = open(&a, "the head version", false);
        assert!(said.contains("would run: true '/tmp/a b.rs'"), "{said}");
        let missing = argv_at("/nonexistent/editor", 1, Path::new("f"), None).unwrap();
        assert!(run(&missing).unwrap_err().contains("cannot start"));
    }

    // Guards an empty editor line.
    #[test]
    fn no_editor() {
        assert_eq!(
            argv_at("  ", 1, Path::new("f"), None),
            Err(EditorArgvError::NoEditor)
        );
    }
}
