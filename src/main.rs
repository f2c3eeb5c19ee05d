use clap::Parser;

use pr_shepherd::cli::Cli;
use pr_shepherd::error::CliError;

fn main() {
    let cli = Cli::parse();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::runtime(format!("cannot start the async runtime: {e}")))
        .and_then(|rt| rt.block_on(pr_shepherd::commands::run(cli)));
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
