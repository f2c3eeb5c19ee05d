//! `pr-shepherd completions SHELL` and `pr-shepherd man`: generated from the clap definitions in
//! `crate::cli`, so they can never disagree with the real command line.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::CliError;

/// The completion script for `shell`, as text.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pr-shepherd", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

pub(super) fn completions(args: &CompletionsArgs) -> Result<(), CliError> {
    super::emit(&completion_script(args.shell))
}

/// One man page: the top-level page (synopsis, the global options once, the list of
/// subcommands, notes and exit codes, the console's keys per screen, ENVIRONMENT, FILES), then a
/// section per subcommand, nested ones included (`PR-SHEPHERD STATE SHOW`), with its description,
/// synopsis, its own options (the global ones are listed once, at the top) and notes.
pub fn man_page() -> Result<String, std::io::Error> {
    let mut cmd = Cli::command();
    // Sets every subcommand's bin name (`pr-shepherd state show`) for the synopses.
    cmd.build();
    let globals: Vec<clap::Id> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.get_id().clone())
        .collect();
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    out.extend_from_slice(
        b".PP\nThe options above are global: every subcommand accepts them too.\n",
    );
    man.render_subcommands_section(&mut out)?;
    render_notes(&man, &cmd, &mut out)?;
    out.extend_from_slice(roff_console_keys().as_bytes());
    out.extend_from_slice(roff_environment().as_bytes());
    out.extend_from_slice(roff_files().as_bytes());
    man.render_version_section(&mut out)?;
    let mut subs = Vec::new();
    collect_subcommands(&cmd, &mut subs);
    for sub in subs {
        let name = sub
            .get_bin_name()
            .map_or_else(|| sub.get_name().to_owned(), str::to_owned);
        // The global options are listed once, at the top, not again in every subcommand.
        let mut own = sub.clone();
        for id in &globals {
            if own.get_arguments().any(|a| a.get_id() == id) {
                own = own.mut_arg(id.clone(), |a| a.hide(true));
            }
        }
        let man = clap_mangen::Man::new(own.clone());
        let mut part = Vec::new();
        man.render_description_section(&mut part)?;
        man.render_synopsis_section(&mut part)?;
        if own.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut part)?;
        }
        render_notes(&man, &own, &mut part)?;
        let part = String::from_utf8_lossy(&part);
        out.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        // The page has one SYNOPSIS and one OPTIONS section: a subcommand's are subsections.
        for line in part.lines() {
            // The quote-string definitions are made once, by the title.
            if line.starts_with(".ie \\n(.g") || line.starts_with(".el .ds Aq") {
                continue;
            }
            let line = match line.strip_prefix(".SH ") {
                Some(title) => format!(".SS {}", title_case(title)),
                None => line.to_owned(),
            };
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    Ok(ascii_roff(&String::from_utf8_lossy(&out)))
}

/// The after-help text of `cmd` as a NOTES section (clap_mangen calls it EXTRA), if it has one.
fn render_notes(
    man: &clap_mangen::Man,
    cmd: &clap::Command,
    out: &mut Vec<u8>,
) -> Result<(), std::io::Error> {
    if cmd.get_after_long_help().is_none() && cmd.get_after_help().is_none() {
        return Ok(());
    }
    let mut part = Vec::new();
    man.render_extra_section(&mut part)?;
    for line in String::from_utf8_lossy(&part).lines() {
        let line = if line == ".SH EXTRA" {
            ".SH NOTES"
        } else {
            line
        };
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    Ok(())
}

/// Text for roff: backslashes and hyphens escaped, no line starting with a control character.
fn roff_text(text: &str) -> String {
    // groff has no glyph for the inbox's ↩ (a PR left open), ▶ (the selected row) or ✗ (a
    // failing check) or ⇄ (a swap): the nearest it has.
    let t = text
        .replace('\\', "\\e")
        .replace('-', "\\-")
        .replace('↩', "\\[<-]")
        .replace('▶', "\\[->]")
        .replace('✗', "\\[mu]")
        .replace('⇄', "\\[<>]");
    if t.starts_with('.') || t.starts_with('\'') {
        format!("\\&{t}")
    } else {
        t
    }
}

/// One `.TP` entry: the tag in bold, then its text.
fn roff_entry(out: &mut String, tag: &str, text: &str) {
    out.push_str(".TP\n");
    out.push_str(&format!("\\fB{}\\fR\n", roff_text(tag)));
    out.push_str(&roff_text(text));
    out.push('\n');
}

/// CONSOLE KEYS: each screen's keys as its `?` help lists them with the default keymap (the
/// screens read the keymap, which is `keys::COMMANDS`), then every rebindable command with its
/// config name, so the page stays true to the keymap.
fn roff_console_keys() -> String {
    let keymap = crate::tui::keymap::Keymap::default();
    let mut out = String::from(".SH \"CONSOLE KEYS\"\n");
    out.push_str(
        "Each screen's \\fB?\\fR lists the keys below, as the keymap binds them. Every command \
         can be bound to other keys in the [keys] table of the config file (the Keymap list below).\n",
    );
    for (screen, entries) in screen_help(&keymap) {
        out.push_str(&format!(".SS \"{screen}\"\n"));
        for (key, what) in entries {
            roff_entry(&mut out, &key, &what);
        }
    }
    out.push_str(".SS \"Editor\"\n");
    for (key, what) in EDITOR_KEYS {
        roff_entry(&mut out, key, what);
    }
    out.push_str(".SS \"Keymap\"\n");
    out.push_str("Every command, its name in [keys] and its default keys:\n");
    for (_, name, keys, help) in crate::keys::COMMANDS {
        roff_entry(&mut out, &format!("{name} = {}", keys.join(", ")), help);
    }
    out
}

/// The draft editor's and the reply composer's keys (the text area's own, `tui::editor`).
const EDITOR_KEYS: &[(&str, &str)] = &[
    ("arrows, Home, End", "move; long lines wrap"),
    ("ctrl-z, ctrl-u", "undo"),
    ("ctrl-r", "redo"),
    (
        crate::tui::editor::EXTERNAL_KEY,
        "edit the text in $VISUAL, else $EDITOR (a private temporary file; its text comes back, undoable)",
    ),
    ("ctrl-s", "the reply composer: send (asks first)"),
    ("Esc", "done (the draft is saved on every change)"),
];

/// Each console screen's help, in the order a session meets them, from a screen built on the
/// bundled demo PR (what `?` shows there).
fn screen_help(keymap: &crate::tui::keymap::Keymap) -> Vec<(&'static str, Vec<(String, String)>)> {
    use crate::tui::app::{
        CodeLoad, DescriptionScreen, DiffScreen, FilesScreen, InboxScreen, PendingScreen, PrScreen,
        Screen,
    };
    use std::sync::Arc;
    let mut out: Vec<(&'static str, Vec<(String, String)>)> = Vec::new();
    out.push(("Inbox", InboxScreen::loading(Vec::new()).help(keymap)));
    let Ok(fixture) =
        crate::source::Fixture::parse(crate::source::DEMO_FIXTURE, std::path::Path::new("demo"))
    else {
        return out;
    };
    let Ok(snapshot) = fixture.snapshot_at(0) else {
        return out;
    };
    let pr = PrScreen::new(
        snapshot.clone(),
        crate::ledger::SeenSet::default(),
        None,
        &crate::policy::GateConfig::default(),
        crate::pr::DEFAULT_IDENTITY,
    );
    out.push(("PR screen", pr.help(keymap)));
    let shared = Arc::new(snapshot.clone());
    fn no_body(
        _: &str,
        _: usize,
        _: &crate::tui::theme::Theme,
        _: &mut Vec<ratatui::text::Line<'static>>,
    ) {
    }
    out.push((
        "Description",
        DescriptionScreen::new(shared.clone(), no_body).help(keymap),
    ));
    out.push(("Files", FilesScreen::new(shared.clone()).help(keymap)));
    let load = Arc::new(CodeLoad::empty(snapshot.pr.coords()));
    out.push((
        "Diff",
        DiffScreen::new(shared, load, 0, crate::code::SinceLastLook::New).help(keymap),
    ));
    out.push(("Pending review", PendingScreen::new(snapshot).help(keymap)));
    out
}

/// ENVIRONMENT: every variable the tool reads.
fn roff_environment() -> String {
    let mut out = String::from(".SH ENVIRONMENT\n");
    for (var, what) in ENVIRONMENT {
        roff_entry(&mut out, var, what);
    }
    out
}

/// Every environment variable pr-shepherd reads, and what for.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "GH_TOKEN, GITHUB_TOKEN",
        "the GitHub token (GH_TOKEN first); without one, only fixtures work",
    ),
    (
        "GH_APP_ID, GH_APP_PRIVATE_KEY, GH_APP_INSTALLATION_ID",
        "act as a GitHub App installation instead of a token",
    ),
    (
        "GITHUB_API_URL, GITHUB_GRAPHQL_URL, GITHUB_SERVER_URL",
        "GitHub's REST and GraphQL endpoints and web host (GitHub Enterprise; set by GitHub Actions); --api-url and --graphql-url win",
    ),
    (
        "GITHUB_EVENT_NAME, GITHUB_EVENT_PATH",
        "the webhook event `pr-shepherd event` reads in GitHub Actions",
    ),
    ("PR_SHEPHERD_STATE_DIR", "the state dir (--state-dir wins)"),
    (
        "PR_SHEPHERD_IDENTITY",
        "the account whose `## PR Shepherd Review` comments are Shepherd's own, where the credentials cannot say",
    ),
    (
        "PR_SHEPHERD_HTTP_ATTEMPTS, PR_SHEPHERD_HTTP_BACKOFF_MS, PR_SHEPHERD_HTTP_TIMEOUT_S, PR_SHEPHERD_HTTP_DEADLINE_S, PR_SHEPHERD_HTTP_MAX_WAIT_S, PR_SHEPHERD_HTTP_MAX_ANSWER_MB",
        "GitHub requests: attempts, backoff, per-request timeout, a fetch's deadline, the longest rate-limit wait, the largest answer",
    ),
    (
        "ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL",
        "the Anthropic backend's key and endpoint",
    ),
    (
        "OPENAI_API_KEY, OPENAI_BASE_URL",
        "the OpenAI-compatible backend's key and endpoint (llama.cpp, vLLM, Ollama, …)",
    ),
    (
        "VISUAL, EDITOR",
        "the external editor of the console's draft editor and reply composer (ctrl-o)",
    ),
    ("NO_COLOR", "set and non-empty: no colours"),
    (
        "RUST_LOG",
        "a tracing filter for the debug log (wins over -v)",
    ),
    (
        "PATH",
        "where the browser opener (xdg-open, open) and a `command` LLM backend are found",
    ),
    (
        "XDG_CONFIG_HOME, XDG_STATE_HOME, HOME",
        "the platform's config and state dirs",
    ),
];

/// FILES: the config file, the themes, the state dir and what lives there, the debug log.
fn roff_files() -> String {
    let mut out = String::from(".SH FILES\n");
    for (path, what) in FILES {
        roff_entry(&mut out, path, what);
    }
    out
}

const FILES: &[(&str, &str)] = &[
    (
        "$XDG_CONFIG_HOME/pr-shepherd/config.toml (~/.config/pr-shepherd/config.toml)",
        "the config file (optional; --config names another; `pr-shepherd config path` prints it)",
    ),
    (
        "<config dir>/themes/NAME.toml",
        "console themes named by --theme or `theme`",
    ),
    (
        "$XDG_STATE_HOME/pr-shepherd (~/.local/state/pr-shepherd)",
        "the state dir (--state-dir, $PR_SHEPHERD_STATE_DIR)",
    ),
    (
        "<state>/prs/OWNER/REPO/N/seen/",
        "seen markers, one file per item, with seen-index (a cache) and seen-text.log (the texts last seen)",
    ),
    (
        "<state>/prs/OWNER/REPO/N/code/",
        "the last look at the PR's code: looks.json and the patches shown",
    ),
    (
        "<state>/prs/OWNER/REPO/N/",
        "review runs, the unposted draft, reply-draft.json, the pending review and the offline outbox",
    ),
    (
        "<state>/repos/OWNER/REPO/",
        "decisions.jsonl, spend.jsonl and lessons.json of a repository",
    ),
    (
        "<state>/debug.log",
        "the debug log while the console runs (-v, RUST_LOG)",
    ),
];

/// Non-ASCII characters as roff escapes (`—` → `\[u2014]`): troff reads its input as Latin-1
/// unless a preprocessor converts it, so raw UTF-8 would print as mojibake.
fn ascii_roff(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", c as u32));
        }
    }
    out
}

/// `SYNOPSIS` → `Synopsis` (section titles of a subcommand become subsection titles).
fn title_case(title: &str) -> String {
    let t = title.trim().trim_matches('"');
    let mut chars = t.chars();
    match chars.next() {
        Some(first) => format!(
            "\"{}{}\"",
            first.to_uppercase(),
            chars.as_str().to_lowercase()
        ),
        None => String::new(),
    }
}

/// Every visible subcommand, depth first, without clap's generated `help`.
fn collect_subcommands(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        out.push(sub.clone());
        collect_subcommands(sub, out);
    }
}

pub(super) fn man(args: &ManArgs) -> Result<(), CliError> {
    match &args.dir {
        None => {
            let page = man_page()
                .map_err(|e| CliError::runtime(format!("cannot render the man page: {e}")))?;
            super::emit(&page)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                CliError::runtime(format!("cannot create `{}`: {e}", dir.display()))
            })?;
            write_man_pages(dir).map_err(|e| {
                CliError::runtime(format!(
                    "cannot write the man pages to `{}`: {e}",
                    dir.display()
                ))
            })?;
            crate::eprintln_clean!("wrote the man pages to {}", dir.display());
            Ok(())
        }
    }
}

/// One page per command and subcommand (`pr-shepherd.1`, `pr-shepherd-items.1`, …), as
/// `clap_mangen::generate_to` names them, each written by rename ([`crate::outfile`]): a file or
/// symlink already at a page's path is replaced, never written through.
fn write_man_pages(dir: &std::path::Path) -> std::io::Result<()> {
    fn pages(cmd: &clap::Command, out: &mut Vec<clap_mangen::Man>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            pages(sub, out);
        }
        out.push(clap_mangen::Man::new(cmd.clone()));
    }
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut all = Vec::new();
    pages(&cmd, &mut all);
    for man in all {
        let mut page = Vec::new();
        man.render(&mut page)?;
        crate::outfile::write_replacing(
            &dir.join(man.get_filename()),
            &page,
            crate::source::fixture::TEMP_PREFIX,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand path, `items` … `state show`, from the clap definitions.
    fn all_subcommand_names() -> Vec<String> {
        let mut cmd = Cli::command();
        cmd.build();
        let mut subs = Vec::new();
        collect_subcommands(&cmd, &mut subs);
        subs.iter()
            .map(|s| s.get_bin_name().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn man_page_has_every_subcommand() {
        let page = man_page().unwrap();
        assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{page}");
        assert!(page.contains(".TH pr-shepherd 1"), "{}", &page[..200]);
        let names = all_subcommand_names();
        for must in [
            "pr-shepherd items",
            "pr-shepherd state show",
            "pr-shepherd event",
            "pr-shepherd watch",
            "pr-shepherd config init",
            "pr-shepherd completions",
            "pr-shepherd man",
        ] {
            assert!(names.iter().any(|n| n == must), "{must} in {names:?}");
        }
        for name in &names {
            assert!(
                page.contains(&format!(".SH \"{}\"", name.to_uppercase())),
                "no section for {name}"
            );
        }
        // One SYNOPSIS section; the subcommands' are subsections.
        assert_eq!(page.matches(".SH SYNOPSIS").count(), 1);
        assert!(page.is_ascii());
        assert!(
            page.contains("\\[u2014] AI Coding Agent"),
            "the reply marker's dash"
        );
        assert!(page.contains(".SS \"Synopsis\""));
    }

    /// Every `env = "…"` of the clap definitions, in every subcommand.
    fn clap_env_vars(cmd: &clap::Command, out: &mut Vec<String>) {
        for a in cmd.get_arguments() {
            if let Some(e) = a.get_env() {
                out.push(e.to_string_lossy().into_owned());
            }
        }
        for sub in cmd.get_subcommands() {
            clap_env_vars(sub, out);
        }
    }

    #[test]
    fn man_page_has_the_console_keys_environment_and_files_and_the_global_options_once() {
        let page = man_page().unwrap();
        for heading in [
            ".SH \"CONSOLE KEYS\"",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH NOTES",
        ] {
            assert_eq!(page.matches(heading).count(), 1, "{heading}");
        }
        assert!(
            !page.to_uppercase().contains("EXTRA\n"),
            "an EXTRA heading is left"
        );
        for screen in [
            "Inbox",
            "PR screen",
            "Description",
            "Files",
            "Diff",
            "Pending review",
            "Editor",
            "Keymap",
        ] {
            assert!(page.contains(&format!(".SS \"{screen}\"\n")), "{screen}");
        }
        // Every command of the keymap, by its config name and its default keys.
        for (_, name, keys, _) in crate::keys::COMMANDS {
            let tag = ascii_roff(&roff_text(&format!("{name} = {}", keys.join(", "))));
            assert!(page.contains(&tag), "{tag}");
        }
        // The global options: once in the top OPTIONS and once in the top synopsis.
        let mut cmd = Cli::command();
        cmd.build();
        let globals: Vec<String> = cmd
            .get_arguments()
            .filter(|a| a.is_global_set())
            .filter_map(|a| a.get_long().map(str::to_owned))
            .collect();
        assert!(globals.iter().any(|g| g == "state-dir"), "{globals:?}");
        for long in &globals {
            let flag = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
            let lines: Vec<&str> = page.lines().collect();
            let entries = lines
                .windows(2)
                .filter(|w| w[0] == ".TP" && w[1].contains(&flag))
                .count();
            assert_eq!(entries, 1, "--{long} listed once");
            let synopses = lines
                .windows(2)
                .filter(|w| {
                    (w[0] == ".SH SYNOPSIS" || w[0] == ".SS \"Synopsis\"") && w[1].contains(&flag)
                })
                .count();
            assert_eq!(synopses, 1, "--{long} in one synopsis");
        }
        // Every variable the command line reads, the tokens, the editor and the LLM keys.
        let mut vars = Vec::new();
        clap_env_vars(&cmd, &mut vars);
        vars.extend(
            [
                "GITHUB_TOKEN",
                "GH_TOKEN",
                "VISUAL",
                "EDITOR",
                crate::review::llm::ANTHROPIC_API_KEY,
                crate::review::llm::OPENAI_API_KEY,
                crate::ledger::STATE_DIR_ENV,
                "PR_SHEPHERD_HTTP_DEADLINE_S",
                "NO_COLOR",
                "RUST_LOG",
            ]
            .map(str::to_owned),
        );
        let env = page
            .split(".SH ENVIRONMENT")
            .nth(1)
            .and_then(|s| s.split(".SH FILES").next())
            .unwrap_or_default();
        for v in &vars {
            assert!(
                env.contains(&v.replace('-', "\\-")),
                "{v} not in ENVIRONMENT"
            );
        }
        let files = page.split(".SH FILES").nth(1).unwrap_or_default();
        for f in ["config.toml", "debug.log", "seen/", "reply\\-draft.json"] {
            assert!(files.contains(f), "{f} not in FILES");
        }
    }

    #[test]
    fn every_shell_gets_a_script_naming_every_subcommand() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::Elvish,
            clap_complete::Shell::PowerShell,
        ] {
            let script = completion_script(shell);
            for sub in [
                "items", "review", "record", "event", "watch", "config", "man",
            ] {
                assert!(script.contains(sub), "{shell:?} lacks {sub}");
            }
        }
    }
}
