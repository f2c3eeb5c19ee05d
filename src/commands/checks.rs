//! `pr-shepherd checks PR [--format md|json] [--rerun-failed [--yes]]`: the checks at the PR's
//! head commit — a fixture's `dashboard.checkRuns`, or live over REST (`source::github::checks`)
//! — with each failing one's annotations (new until shown once: the same seen markers as the
//! PR's items) and log tail.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Context;
use crate::cli::{ChecksArgs, Format};
use crate::error::CliError;
use crate::pr::{CheckRun, CheckState, ChecksSummary, PrCoords, checks, duration_text};
use crate::sanitize::one_line;
use crate::source::Target;

/// The checks of one PR, as shown.
struct Shown {
    coords: PrCoords,
    head_sha: String,
    runs: Vec<CheckRun>,
    /// Ids of annotations never shown before.
    new: BTreeSet<String>,
    /// Why a failing job's log could not be read, by check run id.
    log_errors: crate::source::github::checks::LogErrors,
}

#[derive(serde::Deserialize)]
struct PullHead {
    head: HeadRef,
}

#[derive(serde::Deserialize)]
struct HeadRef {
    sha: String,
}

pub(super) async fn run(ctx: &Context, args: ChecksArgs) -> Result<(), CliError> {
    let target = ctx.resolve(Some(&args.pr))?;
    let (coords, head_sha, (runs, log_errors), gh) = match target {
        Target::Fixture(f) => (
            f.pr.coords(),
            f.pr.head_sha.clone(),
            (f.dashboard.check_runs.clone(), Default::default()),
            None,
        ),
        Target::Live(coords) => {
            let gh = super::live::client(ctx, &coords).await?;
            let pull: PullHead = gh
                .get_json(
                    &format!(
                        "/repos/{}/{}/pulls/{}",
                        coords.owner, coords.repo, coords.number
                    ),
                    "the pull request",
                )
                .await?;
            let runs = crate::source::github::checks::fetch(&gh, &coords, &pull.head.sha).await?;
            (coords, pull.head.sha, runs, Some(gh))
        }
    };
    if args.rerun_failed {
        return rerun(&coords, &runs, gh.as_ref(), args.yes).await;
    }
    let ledger = ctx.ledger()?;
    let ids = checks::annotation_ids(&runs);
    let seen = ledger.load_seen_of(&coords, ids.iter().map(String::as_str))?;
    let new = checks::new_annotations(&ids, |id| seen.markers.contains_key(id));
    let shown = Shown {
        coords,
        head_sha,
        runs,
        new,
        log_errors,
    };
    let now = chrono::Utc::now();
    let text = match args.format {
        Format::Md => markdown(&shown, now),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&to_json(&shown, now))
                .map_err(|e| CliError::runtime(format!("cannot encode the checks: {e}")))?;
            s.push('\n');
            s
        }
    };
    super::emit_in(args.format, &text)?;
    // Printed: every annotation shown is seen from now on (its id is its content).
    let marks: Vec<(&str, &str)> = ids.iter().map(|i| (i.as_str(), i.as_str())).collect();
    if !marks.is_empty() {
        ledger.mark_seen(&shown.coords, &marks, now.timestamp())?;
    }
    Ok(())
}

async fn rerun(
    coords: &PrCoords,
    runs: &[CheckRun],
    gh: Option<&crate::source::github::GitHub>,
    yes: bool,
) -> Result<(), CliError> {
    // A fixture is refused before anything else: asking for --yes first would promise a
    // re-run that can never happen.
    let Some(gh) = gh else {
        return Err(CliError::usage(
            "a fixture's checks cannot be re-run: name a live PR (OWNER/REPO#N)",
        ));
    };
    let targets: Vec<u64> = checks::rerun_targets(runs).iter().map(|t| t.run).collect();
    if targets.is_empty() {
        return Err(CliError::usage(format!(
            "{coords}: no failing Actions job to re-run"
        )));
    }
    let names: Vec<String> = checks::rerun_targets(runs)
        .iter()
        .flat_map(|t| t.checks.iter().map(|n| one_line(n)))
        .collect();
    if !yes {
        return Err(CliError::usage(format!(
            "this would re-run the failed jobs of {} {} on {coords} ({}); add --yes \
             to do it",
            crate::plural::noun_for(targets.len(), "workflow run"),
            targets
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            names.join(", ")
        )));
    }
    for id in &targets {
        crate::source::github::checks::rerun_failed(gh, coords, *id).await?;
        crate::progress::Progress::stderr(false).line(&format!(
            "{coords}: re-running the failed jobs of workflow run {id}"
        ));
    }
    Ok(())
}

fn state_word(r: &CheckRun) -> &'static str {
    r.state.as_str()
}

fn to_json(s: &Shown, now: chrono::DateTime<chrono::Utc>) -> Value {
    let summary = ChecksSummary::of_runs(&s.runs);
    json!({
        "owner": s.coords.owner,
        "repo": s.coords.repo,
        "number": s.coords.number,
        "headSha": s.head_sha,
        "state": summary.overall().map_or("none", |x| x.as_str()),
        "passing": summary.passing,
        "failing": summary.failing,
        "pending": summary.pending,
        "neutral": summary.neutral,
        "checks": s.runs.iter().map(|r| json!({
            "name": r.name,
            "kind": match r.kind { crate::pr::CheckKind::Run => "check-run", crate::pr::CheckKind::Status => "status" },
            "state": state_word(r),
            "conclusion": r.conclusion,
            "startedAt": r.started_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            "completedAt": r.completed_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            "durationSeconds": r.duration_secs(now),
            "url": r.url,
            "workflowRunId": r.workflow_run_id,
            "annotations": r.annotations.iter().map(|a| {
                let id = a.id(&r.name);
                json!({
                    "id": id,
                    "new": s.new.contains(&id),
                    "path": a.path,
                    "startLine": a.start_line,
                    "endLine": a.end_line,
                    "level": a.level,
                    "title": a.title,
                    "message": a.message,
                })
            }).collect::<Vec<_>>(),
            "logTail": r.log_tail,
            "logError": r.id.and_then(|id| s.log_errors.get(&id)),
        })).collect::<Vec<_>>(),
    })
}

fn markdown(s: &Shown, now: chrono::DateTime<chrono::Utc>) -> String {
    let mut out = String::new();
    let summary = ChecksSummary::of_runs(&s.runs);
    let _ = writeln!(
        out,
        "# Checks: {} at {}\n",
        one_line(&s.coords.to_string()),
        one_line(&s.head_sha.chars().take(7).collect::<String>())
    );
    if s.runs.is_empty() {
        out.push_str("No checks at the head commit.\n");
        return out;
    }
    let _ = writeln!(
        out,
        "{}: {} failing, {} pending, {} passing, {} neutral.\n",
        crate::plural::count(summary.total() as usize, "check"),
        summary.failing,
        summary.pending,
        summary.passing,
        summary.neutral
    );
    for r in checks::ordered(&s.runs) {
        let dur = r
            .duration_secs(now)
            .map(|d| format!(" · {}", duration_text(d)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- **{}** {}{}{}",
            state_word(r),
            one_line(&r.name),
            dur,
            r.url
                .as_deref()
                .map(|u| format!(" · {}", one_line(u)))
                .unwrap_or_default()
        );
        for a in &r.annotations {
            let id = a.id(&r.name);
            let badge = if s.new.contains(&id) { "NEW " } else { "" };
            let _ = writeln!(
                out,
                "  - {badge}{} `{}:{}` {}{}",
                one_line(&a.level),
                one_line(&a.path),
                a.start_line,
                if a.title.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", one_line(&a.title))
                },
                one_line(&a.message)
            );
        }
        if r.state == CheckState::Failing {
            match &r.log_tail {
                Some(tail) => {
                    out.push_str("\n  Log tail:\n\n  ```text\n");
                    for l in tail.lines() {
                        let _ = writeln!(out, "  {}", one_line(l).replace("```", "'''"));
                    }
                    out.push_str("  ```\n\n");
                }
                None => match r.id.and_then(|id| s.log_errors.get(&id)) {
                    Some(why) => {
                        let _ = writeln!(
                            out,
                            "  (the job's log could not be read: {})",
                            one_line(why)
                        );
                    }
                    None if r.workflow_run_id.is_some() => {
                        out.push_str("  (the job's log could not be read)\n");
                    }
                    None => {}
                },
            }
        }
    }
    out
}
