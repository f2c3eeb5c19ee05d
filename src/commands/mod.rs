//! Command runners: the I/O edge that ties sources, the ledger and renderers together.

mod ask;
mod checkout;
mod checks;
mod code;
mod completions;
mod config_cmd;
mod console;
mod decide;
mod event;
mod finding;
mod fixture;
mod inbox;
mod inline;
mod items;
mod lessons;
mod live;
mod pending;
mod record;
mod review;
mod state;
mod stats;
mod thread;
mod watch;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::config::{Config, ConfigError, Loaded, themes_dir};
use crate::error::CliError;
use crate::ledger::{Ledger, resolve_state_dir};
use crate::pr::Snapshot;
use crate::review::ReviewSettings;
use crate::review::llm::LlmEnv;
use crate::source::Target;
use crate::source::github::{AuthEnv, FetchOptions};
use crate::tui::theme::Theme;

/// Everything a command reads from outside the command line's own arguments, built once in
/// [`run`] and handed to every command and to the console: no command reads a global, and the
/// headless commands and the console read their settings the same way.
///
/// The process environment is read here and nowhere else (a test below keeps it so). The only
/// other reads are process-wide by nature: `debuglog` reads `RUST_LOG` before there is a
/// context, `childenv` builds a child process's environment from this one, and `tui::desktop`
/// looks the opener up on `PATH`.
pub struct Context {
    /// `--state-dir`, else `$PR_SHEPHERD_STATE_DIR` (else the platform state dir, resolved when
    /// a command opens the ledger).
    pub state_dir: Option<PathBuf>,
    /// The config file (`--config`, else the platform one), loaded and validated: an invalid
    /// file stops every command with exit 2, naming the key.
    pub config: Loaded,
    /// `--api-url` / `--graphql-url` (or their environment variables).
    pub endpoints: EndpointFlags,
    /// Where GitHub credentials come from (`GH_TOKEN`, `GITHUB_TOKEN`, a GitHub App, `gh`),
    /// read from the environment once.
    pub credentials: AuthEnv,
    /// The LLM API keys and base URLs (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
    /// `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`), read from the environment once: the review
    /// library never reads them itself.
    pub llm_env: LlmEnv,
    /// The GitHub client's retry and wait bounds (`PR_SHEPHERD_HTTP_*`), notices on stderr.
    pub fetch: FetchOptions,
    /// `GITHUB_SERVER_URL` (set by GitHub Actions): the Enterprise host of `event`'s PR.
    pub github_server_url: Option<String>,
    /// The console's external editor: `$VISUAL`, else `$EDITOR` (set and not blank).
    pub editor: Option<String>,
    /// The console theme (`--theme`, else the config's `theme`, else dark; plain when
    /// `NO_COLOR` is set), resolved for every command so a misspelt name is exit 2 everywhere,
    /// not only in the console.
    pub theme: Theme,
    /// `--demo`: the bundled PRs by name even with credentials (see [`Context::bundled`]).
    pub demo: bool,
}

/// The endpoint flags as given; [`crate::source::github::Endpoints::resolve`] turns them (and a
/// PR's Enterprise host) into URLs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointFlags {
    pub api_url: Option<String>,
    pub graphql_url: Option<String>,
}

/// One environment variable of this process, as text (`None`: unset or not UTF-8). The only
/// reader of the environment besides those named on [`Context`].
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// `NO_COLOR` set and non-empty (<https://no-color.org>).
fn no_color() -> bool {
    var("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// `$PR_SHEPHERD_STATE_DIR`, when set and non-empty (a path need not be UTF-8).
fn state_dir_var() -> Option<PathBuf> {
    std::env::var_os(crate::ledger::STATE_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The config file and the theme, loaded and checked: the one validation every command, the
/// console and `config show` go through, so a setting refused by one is refused by all with the
/// same message (exit 2, naming the key). `[keys]` is checked while the file is parsed
/// (`Config::parse`); the theme here, because finding it needs the themes folder beside the
/// config file. A theme named by the config file is reported as that file's key `theme`.
pub(crate) fn load_settings(
    config_flag: Option<&Path>,
    theme_flag: Option<&str>,
    no_color: bool,
) -> Result<(Loaded, Theme), CliError> {
    let loaded = Config::load(config_flag)?;
    let theme = match (theme_flag, &loaded.config.theme, &loaded.path) {
        (Some(name), _, _) => Theme::load(name, themes_dir(&loaded).as_deref())
            .map_err(|e| CliError::usage(format!("--theme: {e}")))?,
        (None, Some(name), Some(path)) => Theme::load(name, themes_dir(&loaded).as_deref())
            .map_err(|e| ConfigError::Invalid {
                path: path.clone(),
                key: "theme".to_owned(),
                message: e.to_string(),
            })?,
        (None, _, _) => Theme::default_theme(),
    };
    // NO_COLOR wins over all, after the named theme was checked, so a typo is still reported.
    Ok((loaded, if no_color { Theme::plain() } else { theme }))
}

impl Context {
    /// Reads the config file and the environment once.
    pub fn from_cli(cli: &Cli) -> Result<Context, CliError> {
        let (config, theme) =
            load_settings(cli.config.as_deref(), cli.theme.as_deref(), no_color())?;
        Ok(Context {
            state_dir: cli.state_dir.clone().or_else(state_dir_var),
            config,
            theme,
            endpoints: EndpointFlags {
                api_url: cli.api_url.clone(),
                graphql_url: cli.graphql_url.clone(),
            },
            credentials: AuthEnv::from_vars(var),
            // What is learnt about each LLM server is kept in the state dir (when there is one).
            llm_env: LlmEnv::from_vars(var).remembering_in(
                resolve_state_dir(cli.state_dir.clone().or_else(state_dir_var).as_deref()).ok(),
            ),
            fetch: FetchOptions::from_vars(var),
            github_server_url: var("GITHUB_SERVER_URL"),
            editor: ["VISUAL", "EDITOR"]
                .into_iter()
                .find_map(|k| var(k).filter(|v| !v.trim().is_empty())),
            demo: cli.demo,
        })
    }

    /// Whether the bundled PRs' names (`acme/rivet#482`, …) name the bundled fixtures: with
    /// `--demo`, or without a token in the environment (the same test as the inbox's: without
    /// one, the inbox shows the bundled PRs, so their names open them).
    pub fn bundled(&self) -> crate::source::Bundled {
        if self.demo || !inbox::token_present(self) {
            crate::source::Bundled::ByName
        } else {
            crate::source::Bundled::GitHubFirst
        }
    }

    /// A PR argument resolved ([`crate::source::resolve`]) with this run's [`Context::bundled`].
    pub fn resolve(
        &self,
        pr: Option<&str>,
    ) -> Result<crate::source::Target, crate::source::TargetError> {
        crate::source::resolve(pr, self.bundled())
    }

    /// The review settings of the config file (`[review]`), or the defaults without one.
    pub fn review_settings(&self) -> &ReviewSettings {
        &self.config.config.review
    }

    /// The gates of the config file (`[gates]`), or the defaults without one.
    pub fn gates(&self) -> &crate::policy::GateConfig {
        &self.config.config.gates
    }

    /// The automation settings of the config file (`[automation]`), or the defaults.
    pub fn automation(&self) -> &crate::policy::AutomationConfig {
        &self.config.config.automation
    }

    /// The ledger in the state dir.
    pub fn ledger(&self) -> Result<Ledger, CliError> {
        Ok(Ledger::new(resolve_state_dir(self.state_dir.as_deref())?))
    }
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    // These work whatever the config file holds, or before there is one (`config init`, or
    // `config path` for a --config file still to be written): they need no context.
    match &cli.command {
        Some(Command::Config(cmd)) => {
            return config_cmd::run(cmd, cli.config.as_deref(), cli.theme.as_deref(), no_color());
        }
        Some(Command::Completions(args)) => return completions::completions(args),
        Some(Command::Man(args)) => return completions::man(args),
        _ => {}
    }
    let ctx = Context::from_cli(&cli)?;
    match cli.command {
        None => console::run(&ctx, cli.pr.as_deref(), cli.query.as_deref()).await,
        Some(Command::Items(args)) => items::run(&ctx, args).await,
        Some(Command::State(cmd)) => state::run(&ctx, cmd).await,
        Some(Command::Fixture(cmd)) => fixture::run(cmd),
        Some(Command::Review(args)) => review::run(&ctx, args).await,
        Some(Command::Record(args)) => record::run(&ctx, args).await,
        Some(Command::Event(args)) => event::run(&ctx, args).await,
        Some(Command::Watch(args)) => watch::run(&ctx, args).await,
        Some(Command::Inbox(args)) => inbox::run(&ctx, args).await,
        Some(Command::Thread(cmd)) => thread::run(&ctx, cmd).await,
        Some(Command::Merge(args)) => decide::merge(&ctx, args).await,
        Some(Command::Pr(cmd)) => decide::pr(&ctx, cmd).await,
        Some(Command::Label(cmd)) => decide::label(&ctx, cmd).await,
        Some(Command::Assign(args)) => decide::assign(&ctx, args).await,
        Some(Command::RequestReview(args)) => decide::request_review(&ctx, args).await,
        Some(Command::UpdateBranch(args)) => decide::update_branch(&ctx, args).await,
        Some(Command::Checkout(args)) => checkout::run(&ctx, args).await,
        Some(Command::Files(args)) => code::files(&ctx, args).await,
        Some(Command::Checks(args)) => checks::run(&ctx, args).await,
        Some(Command::Diff(args)) => code::diff(&ctx, args).await,
        Some(Command::File(cmd)) => code::file(&ctx, cmd).await,
        Some(Command::Finding(cmd)) => finding::run(&ctx, cmd).await,
        Some(Command::Lessons(cmd)) => lessons::run(&ctx, cmd),
        Some(Command::Stats(args)) => stats::run(&ctx, args),
        Some(Command::Pending(cmd)) => pending::run(&ctx, cmd).await,
        Some(Command::Ask(args)) => ask::run(&ctx, args).await,
        // Handled above, before the context.
        Some(Command::Config(_) | Command::Completions(_) | Command::Man(_)) => Ok(()),
    }
}

/// The snapshot a command works on: a fixture at a step (default: the initial snapshot), or live.
pub(crate) async fn load_snapshot(
    ctx: &Context,
    target: Target,
    step: Option<usize>,
) -> Result<Snapshot, CliError> {
    match target {
        Target::Fixture(f) => Ok(f.into_snapshot_at(step.unwrap_or(0))?),
        Target::Live(coords) => {
            if step.is_some() {
                return Err(CliError::usage(
                    "--step applies to fixtures with history, not to a live PR",
                ));
            }
            live::fetch(ctx, &coords).await
        }
    }
}

/// Writes text (Markdown, plain text) to standard output, terminal-safe
/// ([`crate::output::safe`]), and flushes it; a closed pipe is an error, never a panic.
pub(crate) fn emit(text: &str) -> Result<(), CliError> {
    emit_as(text, crate::output::safe::Kind::Text)
}

/// Writes a JSON document to standard output with every hazard escaped (the same JSON, safe on
/// a terminal, [`crate::output::safe`]) and flushes it. Every JSON output goes through here (or,
/// streamed, through [`crate::output::safe::SafeWriter`]).
pub(crate) fn emit_json(text: &str) -> Result<(), CliError> {
    emit_as(text, crate::output::safe::Kind::Json)
}

/// [`emit_json`] for `--format json`, else [`emit`].
pub(crate) fn emit_in(format: crate::cli::Format, text: &str) -> Result<(), CliError> {
    match format {
        crate::cli::Format::Json => emit_json(text),
        crate::cli::Format::Md => emit(text),
    }
}

fn emit_as(text: &str, kind: crate::output::safe::Kind) -> Result<(), CliError> {
    write_safe(text, kind)
        .map_err(|e| CliError::runtime(format!("could not write the output: {e}")))
}

/// The pass an output of `format` gets on its way out ([`crate::output::safe::Kind`]).
pub(crate) fn kind_of(format: crate::cli::Format) -> crate::output::safe::Kind {
    match format {
        crate::cli::Format::Json => crate::output::safe::Kind::Json,
        crate::cli::Format::Md => crate::output::safe::Kind::Text,
    }
}

/// The one place a command writes a whole text to standard output: through
/// [`crate::output::safe`] as `kind`, then flushed. A command that must tell a failed write
/// apart (`diff` records what it showed only once it is out) calls this; the rest call
/// [`emit`], [`emit_json`] or [`emit_in`]. A unit test below keeps every other file of `src/`
/// (the console's terminal aside) from writing to stdout.
pub(crate) fn write_safe(text: &str, kind: crate::output::safe::Kind) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(crate::output::safe::safe(text, kind).as_bytes())
        .and_then(|()| out.flush())
}

/// Standard output for a command that streams (the `items` listing): every byte passes through
/// [`crate::output::safe::SafeWriter`] as `kind`.
pub(crate) fn safe_stdout(
    kind: crate::output::safe::Kind,
) -> crate::output::safe::SafeWriter<std::io::StdoutLock<'static>> {
    crate::output::safe::SafeWriter::new(std::io::stdout().lock(), kind)
}

#[cfg(test)]
mod tests {
    /// `docs/architecture.md` promises the environment is read in one place: here. A read
    /// anywhere else in `src/` fails this test, except the process-wide ones named on
    /// `Context` (each says why where it reads).
    /// Every `.rs` file under `dir`, as paths relative to `root` with `/` separators.
    fn rust_files(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                rust_files(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs")
                && let (Ok(rel), Ok(text)) =
                    (path.strip_prefix(root), std::fs::read_to_string(&path))
            {
                out.push((rel.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }

    #[test]
    fn only_the_safe_pass_writes_to_stdout() {
        // Every output reaches stdout through `write_safe` or `safe_stdout` (both in this
        // file): a command that wrote on its own could forget the terminal-safe pass (as
        // `diff --format json` once did). The console draws on the terminal itself (`tui/`).
        let needles = ["stdout()", "print!(", "println!("];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &src, &mut files);
        assert!(files.len() > 50, "only {} files read", files.len());
        let writers: Vec<String> = files
            .iter()
            .filter(|(rel, _)| rel != "commands/mod.rs" && !rel.starts_with("tui/"))
            .flat_map(|(rel, text)| {
                text.lines()
                    .filter(|l| {
                        let code = l.split("//").next().unwrap_or_default();
                        needles.iter().any(|n| code.contains(n))
                            && !code.contains("stdout().is_terminal()")
                            && !code.contains("eprint")
                    })
                    .map(move |l| format!("{rel}: {}", l.trim()))
            })
            .collect();
        assert!(
            writers.is_empty(),
            "these lines write to stdout past the terminal-safe pass; use commands::emit_in, \
             write_safe or safe_stdout: {writers:#?}"
        );
    }

    #[test]
    fn the_environment_is_read_only_in_the_context() {
        let needle = ["env::", "var"].concat(); // var, var_os, vars, vars_os
        let allowed = [
            "commands/mod.rs",
            "debuglog.rs",
            "childenv.rs",
            "tui/desktop.rs",
        ];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &src, &mut files);
        assert!(files.len() > 50, "only {} files read", files.len());
        let readers: Vec<&str> = files
            .iter()
            .filter(|(rel, text)| text.contains(&needle) && !allowed.contains(&rel.as_str()))
            .map(|(rel, _)| rel.as_str())
            .collect();
        assert!(
            readers.is_empty(),
            "these files read the environment; read it in commands::Context and hand the value down: {readers:?}"
        );
    }
}
