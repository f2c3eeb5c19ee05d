//! `pr-shepherd lessons list|drop OWNER/REPO`: the repository's lessons in the state dir.

use serde_json::json;

use super::Context;
use crate::cli::{Format, LessonsCommand};
use crate::error::CliError;
use crate::ledger::RepoId;
use crate::sanitize::one_line;

/// `OWNER/REPO`, or the repository of a PR reference (`OWNER/REPO#N`, a PR URL, a fixture).
pub(super) fn repo_of(text: &str) -> Result<RepoId, CliError> {
    if !text.contains('#')
        && !text.contains("://")
        && text.matches('/').count() == 1
        && let Ok(r) = RepoId::parse(text)
    {
        return Ok(r);
    }
    // Only the coordinates are used: a bundled PR and the live one have the same.
    let target = crate::source::resolve(Some(text), crate::source::Bundled::ByName)?;
    Ok(RepoId::of(&target.coords()))
}

pub(super) fn run(ctx: &Context, cmd: LessonsCommand) -> Result<(), CliError> {
    let ledger = ctx.ledger()?;
    match cmd {
        LessonsCommand::List { repo, format } => {
            let repo = repo_of(&repo)?;
            let lessons = ledger.lessons(&repo)?;
            let text = match format {
                Format::Json => format!(
                    "{}\n",
                    serde_json::to_string_pretty(
                        &json!({"repository": repo.said(), "lessons": lessons})
                    )
                    .unwrap_or_default()
                ),
                Format::Md => {
                    let mut s = format!("# Lessons for {}\n\n", repo.said());
                    if lessons.is_empty() {
                        s.push_str("None: `pr-shepherd finding dismiss PR ID --reason TEXT --repo` makes one.\n");
                    }
                    for l in &lessons {
                        s.push_str(&format!(
                            "- `{}` ({}, `{}`, from #{} {}): {} — **{}**\n",
                            l.id,
                            one_line(&l.aspect),
                            one_line(&l.file),
                            l.pr,
                            l.finding,
                            one_line(&l.message),
                            one_line(&l.reason)
                        ));
                    }
                    s
                }
            };
            super::emit_in(format, &text)
        }
        LessonsCommand::Drop { repo, id } => {
            let repo = repo_of(&repo)?;
            if ledger.drop_lesson(&repo, id.trim())? {
                super::emit(&format!(
                    "Dropped lesson {} of {}.\n",
                    one_line(id.trim()),
                    repo.said()
                ))
            } else {
                Err(CliError::usage(format!(
                    "{} has no lesson {} (`pr-shepherd lessons list {}` lists them)",
                    repo.said(),
                    one_line(id.trim()),
                    repo.said()
                )))
            }
        }
    }
}
