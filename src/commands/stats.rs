//! `pr-shepherd stats [OWNER/REPO] [--since DATE] [--format md|json]`: precision from the
//! maintainer's decisions in the state dir (`review::stats`).

use chrono::NaiveDate;
use serde_json::json;

use super::Context;
use crate::cli::{Format, StatsArgs};
use crate::error::CliError;
use crate::review::stats::compute;

pub(super) fn run(ctx: &Context, args: StatsArgs) -> Result<(), CliError> {
    let ledger = ctx.ledger()?;
    let since = match &args.since {
        None => i64::MIN,
        Some(d) => NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().timestamp())
            .ok_or_else(|| {
                CliError::usage(format!(
                    "--since `{}` is not a date (YYYY-MM-DD)",
                    crate::sanitize::one_line(d)
                ))
            })?,
    };
    let repos = match &args.repo {
        Some(r) => vec![super::lessons::repo_of(r)?],
        None => ledger.repos(),
    };
    let mut all = Vec::new();
    for r in &repos {
        let decisions = ledger.decisions(r)?;
        let spend = ledger.spend(r)?;
        all.push(compute(&r.said(), &decisions, &spend, since));
    }
    let text = match args.format {
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "since": args.since,
                "repositories": all.iter().map(|s| json!({
                    "repository": s.repository,
                    "prs": s.prs,
                    "runs": s.runs,
                    "aspects": s.aspects.iter().map(|(a, r)| {
                        let mut v = serde_json::to_value(r).unwrap_or_default();
                        v["aspect"] = json!(a.as_str());
                        v
                    }).collect::<Vec<_>>(),
                    "overall": s.overall,
                })).collect::<Vec<_>>(),
            }))
            .unwrap_or_default()
        ),
        Format::Md if all.is_empty() => {
            "No decisions in the state dir yet: reviews, posts and dismissals record them.\n"
                .to_owned()
        }
        Format::Md => all
            .iter()
            .map(|s| s.markdown(args.since.as_deref()))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    super::emit_in(args.format, &text)
}
