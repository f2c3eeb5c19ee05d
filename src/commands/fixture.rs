//! `pr-shepherd fixture synth|check`.

use crate::cli::FixtureCommand;
use crate::error::CliError;
use crate::source::Fixture;
use crate::source::synth::{SynthSpec, synth};

pub(super) fn run(cmd: FixtureCommand) -> Result<(), CliError> {
    match cmd {
        FixtureCommand::Synth(a) => {
            let fixture = synth(SynthSpec {
                threads: a.threads,
                comments: a.comments,
                reviews: a.reviews,
                replies: a.replies,
                seed: a.seed,
            });
            match a.out {
                Some(path) => {
                    fixture.write(&path)?;
                    crate::eprintln_clean!(
                        "wrote {} items to {}",
                        fixture.items.len(),
                        path.display()
                    );
                }
                None => super::emit_json(&(fixture.to_json_pretty() + "\n"))?,
            }
            Ok(())
        }
        FixtureCommand::Check { file } => {
            let f = Fixture::load(&file)?;
            super::emit(&format!(
                "ok: {} — {}/{}#{}, {}, {}, {}\n",
                file.display(),
                f.pr.owner,
                f.pr.repo,
                f.pr.number,
                crate::plural::count(f.items.len(), "item"),
                crate::plural::count(f.steps.len(), "step"),
                crate::plural::count(f.llm.answers.len(), "recorded LLM answer")
            ))
        }
    }
}
