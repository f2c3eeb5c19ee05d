//! Command runners: the I/O edge that ties sources, the ledger and renderers together.

mod completions;
mod config_cmd;
mod console;
mod event;
mod fixture;
mod items;
mod live;
mod record;
mod review;
mod state;
mod watch;

use std::io::Write;
use std::path::Path;

use crate::cli::{Cli, Command};
use crate::error::CliError;
use crate::ledger::{Ledger, resolve_state_dir};
use crate::pr::Snapshot;
use crate::source::Target;

/// `--config`, for the headless commands that read the `[review]` table.
static CONFIG_FLAG: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();

/// The review settings of the config file (`[review]`), or the defaults without one. An invalid
/// config file is an error naming the key, as in the console.
pub(crate) fn configured_review_settings() -> Result<crate::review::ReviewSettings, CliError> {
    let flag = CONFIG_FLAG.get().and_then(|p| p.as_deref());
    Ok(crate::config::Config::load(flag)?.config.review)
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<(), CliError> {
    live::configure(cli.api_url.clone(), cli.graphql_url.clone());
    let _ = CONFIG_FLAG.set(cli.config.clone());
    let state_dir = cli.state_dir.as_deref();
    match cli.command {
        None => {
            console::run(
                cli.pr.as_deref(),
                state_dir,
                cli.theme.as_deref(),
                cli.config.as_deref(),
            )
            .await
        }
        Some(Command::Items(args)) => items::run(args, state_dir).await,
        Some(Command::State(cmd)) => state::run(cmd, state_dir),
        Some(Command::Fixture(cmd)) => fixture::run(cmd),
        Some(Command::Review(args)) => review::run(args, state_dir).await,
        Some(Command::Record(args)) => record::run(args).await,
        Some(Command::Event(args)) => event::run(args, state_dir).await,
        Some(Command::Watch(args)) => watch::run(args, state_dir).await,
        Some(Command::Config(cmd)) => {
            config_cmd::run(cmd, cli.config.as_deref(), cli.theme.as_deref())
        }
        Some(Command::Completions(args)) => completions::completions(args),
        Some(Command::Man(args)) => completions::man(args),
    }
}

pub(crate) fn open_ledger(flag: Option<&Path>) -> Result<Ledger, CliError> {
    Ok(Ledger::new(resolve_state_dir(flag)?))
}

/// The snapshot a command works on: a fixture at a step (default: the initial snapshot), or live.
pub(crate) async fn load_snapshot(
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
            live::fetch(&coords).await
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
