//! Command runners: the I/O edge that ties sources, the ledger and renderers together.

mod completions;
mod config_cmd;
mod console;
mod event;
mod fixture;
mod inbox;
mod items;
mod live;
mod record;
mod review;
mod state;
mod thread;
mod watch;

use std::io::Write;
use std::path::PathBuf;

use crate::cli::{Cli, Command};
use crate::config::{Config, Loaded};
use crate::error::CliError;
use crate::ledger::{Ledger, resolve_state_dir};
use crate::pr::Snapshot;
use crate::review::ReviewSettings;
use crate::review::llm::LlmEnv;
use crate::source::Target;
use crate::source::github::AuthEnv;

/// Everything a command reads from outside the command line's own arguments, built once in
/// [`run`] and handed to every command and to the console: no command reads a global, and the
/// headless commands and the console read their settings the same way.
pub struct Context {
    /// `--state-dir` (else `$PR_SHEPHERD_STATE_DIR`, else the platform state dir, resolved when
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
    /// The console theme (`--theme`, else the config's `theme`, else dark), resolved for every
    /// command so a misspelt name is exit 2 everywhere, not only in the console.
    pub theme: crate::tui::theme::Theme,
}

/// The endpoint flags as given; [`crate::source::github::Endpoints::resolve`] turns them (and a
/// PR's Enterprise host) into URLs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointFlags {
    pub api_url: Option<String>,
    pub graphql_url: Option<String>,
}

impl Context {
    /// Reads the config file and the environment once.
    pub fn from_cli(cli: &Cli) -> Result<Context, CliError> {
        let config = Config::load(cli.config.as_deref())?;
        let theme = console::resolve_theme(cli.theme.as_deref(), &config)?;
        Ok(Context {
            state_dir: cli.state_dir.clone(),
            config,
            theme,
            endpoints: EndpointFlags {
                api_url: cli.api_url.clone(),
                graphql_url: cli.graphql_url.clone(),
            },
            credentials: AuthEnv::from_process(),
            // What is learnt about each LLM server is kept in the state dir (when there is one).
            llm_env: LlmEnv::from_vars(|k| std::env::var(k).ok())
                .remembering_in(crate::ledger::resolve_state_dir(cli.state_dir.as_deref()).ok()),
        })
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
            return config_cmd::run(cmd, cli.config.as_deref(), cli.theme.as_deref());
        }
        Some(Command::Completions(args)) => return completions::completions(args),
        Some(Command::Man(args)) => return completions::man(args),
        _ => {}
    }
    let ctx = Context::from_cli(&cli)?;
    match cli.command {
        None => console::run(&ctx, cli.pr.as_deref(), cli.query.as_deref()).await,
        Some(Command::Items(args)) => items::run(&ctx, args).await,
        Some(Command::State(cmd)) => state::run(&ctx, cmd),
        Some(Command::Fixture(cmd)) => fixture::run(cmd),
        Some(Command::Review(args)) => review::run(&ctx, args).await,
        Some(Command::Record(args)) => record::run(&ctx, args).await,
        Some(Command::Event(args)) => event::run(&ctx, args).await,
        Some(Command::Watch(args)) => watch::run(&ctx, args).await,
        Some(Command::Inbox(args)) => inbox::run(&ctx, args).await,
        Some(Command::Thread(cmd)) => thread::run(&ctx, cmd).await,
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

/// Writes text to standard output and flushes it; a closed pipe is an error, never a panic.
pub(crate) fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::runtime(format!("could not write the output: {e}")))
}
