//! `pr-shepherd finding dismiss PR ID --reason TEXT [--repo]`: the maintainer's dismissal,
//! recorded in the state dir with the finding's fingerprint (and, with `--repo`, as a lesson
//! for the repository). Later reviews of the PR hold the finding back
//! (`review::results::screening`).

use serde_json::json;

use super::Context;
use crate::cli::{FindingCommand, Format};
use crate::error::CliError;
use crate::ledger::{Ledger, RepoId};
use crate::pr::PrCoords;
use crate::review::ReviewRun;
use crate::review::inputs::prior::{MetaFinding, prior_reviews};
use crate::sanitize::one_line;
use crate::source::Target;

/// The longest reason kept, in characters.
pub const MAX_REASON_CHARS: usize = 1_000;

pub(super) async fn run(ctx: &Context, cmd: FindingCommand) -> Result<(), CliError> {
    let FindingCommand::Dismiss {
        pr,
        id,
        reason,
        repo,
        format,
    } = cmd;
    let reason = reason.trim().to_owned();
    if reason.is_empty() {
        return Err(CliError::usage(
            "--reason is empty: say why it is dismissed",
        ));
    }
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(CliError::usage(format!(
            "--reason has {} characters; at most {MAX_REASON_CHARS} are kept",
            reason.chars().count()
        )));
    }
    let id = id.trim().to_owned();
    if crate::review::results::classify::mentioned_ids(&id) != [id.as_str()] {
        return Err(CliError::usage(format!(
            "`{}` is not a finding id (PS- and 10 hex characters, as a review lists it)",
            one_line(&id)
        )));
    }
    let ledger = ctx.ledger()?;
    let target = ctx.resolve(Some(&pr))?;
    let coords = target.coords();
    let found = match in_runs(&ledger, &coords, &id)? {
        Some(f) => f,
        None => in_reviews(ctx, &ledger, target, &id).await?.ok_or_else(|| {
            CliError::usage(format!(
                "no finding {id} in the reviews of {coords} (its review runs in the state dir and Shepherd's reviews on the PR)"
            ))
        })?,
    };
    let now = chrono::Utc::now().timestamp();
    let (d, lesson) =
        crate::review::results::outcome::dismissal(&found, &reason, repo, coords.number, now);
    let repo_id = RepoId::of(&coords);
    ledger.record_decisions(&repo_id, &[d])?;
    if let Some(l) = &lesson {
        ledger.add_lesson(&repo_id, l.clone())?;
    }
    let text = match format {
        Format::Json => {
            let v = json!({
                "dismissed": {
                    "pr": coords.to_string(),
                    "id": id,
                    "aspect": found.aspect,
                    "file": found.file,
                    "line": found.line,
                    "message": found.message,
                    "reason": reason,
                },
                "lesson": lesson,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
        Format::Md => {
            let mut s = format!(
                "Dismissed {id} on {coords} ({} `{}`): {}\nIt is held back from every later review of this PR, also when reworded.\n",
                one_line(&found.aspect),
                one_line(&found.file),
                one_line(&reason)
            );
            if let Some(l) = &lesson {
                s.push_str(&format!(
                    "Lesson {} for {}: given to the aspects of every later review of the repository (`pr-shepherd lessons drop {} {}` drops it).\n",
                    l.id,
                    repo_id.said(),
                    repo_id.said(),
                    l.id
                ));
            }
            s
        }
    };
    super::emit_in(format, &text)
}

/// The finding in the PR's review runs, newest first (raised or held back).
fn in_runs(ledger: &Ledger, coords: &PrCoords, id: &str) -> Result<Option<MetaFinding>, CliError> {
    let (runs, _) = ledger.load_runs::<ReviewRun>(coords)?;
    Ok(runs.iter().rev().find_map(|r| {
        r.findings()
            .chain(r.held_back().map(|h| &h.finding))
            .find(|f| f.id == id)
            .map(crate::review::results::aggregate::to_meta)
    }))
}

/// The finding in Shepherd's reviews on the PR (the fixture's, and its outbox, offline).
async fn in_reviews(
    ctx: &Context,
    ledger: &Ledger,
    target: Target,
    id: &str,
) -> Result<Option<MetaFinding>, CliError> {
    let (snapshot, identity, outbox) = match target {
        Target::Fixture(f) => {
            let coords = f.pr.coords();
            let steps = f.steps.len();
            (
                f.into_snapshot_at(steps)?,
                crate::pr::DEFAULT_IDENTITY.to_owned(),
                ledger.outbox(&coords)?,
            )
        }
        Target::Live(coords) => {
            let gh = super::live::client(ctx, &coords).await?;
            let snapshot = gh.fetch_snapshot(&coords).await?;
            (snapshot, gh.viewer_login().await?, None)
        }
    };
    let mut prior = prior_reviews(&snapshot, &identity);
    prior.add_outbox(outbox);
    Ok(prior.findings().into_iter().rev().find(|f| f.id == id))
}
