use std::io::IsTerminal;

use clap::Parser;

use pr_shepherd::cli::Cli;
use pr_shepherd::error::CliError;

fn main() {
    let cli = Cli::parse();
    // The console draws on the terminal: a log there would tear the screen.
    let console_on_terminal = cli.command.is_none() && std::io::stderr().is_terminal();
    pr_shepherd::debuglog::init(cli.verbose, console_on_terminal);
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::runtime(format!("cannot start the async runtime: {e}")))
        .and_then(|rt| rt.block_on(pr_shepherd::commands::run(cli)));
    // Log lines held for a console that never took the terminal are not lost.
    pr_shepherd::debuglog::release();
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
