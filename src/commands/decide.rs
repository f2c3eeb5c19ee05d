//! `pr-shepherd merge | pr close|reopen|ready|draft|auto-merge-off|dequeue | label add|remove |
//! assign | request-review | update-branch`: the decisions that end a triage, headless. Each
//! reads the PR afresh, sends nothing for what is so already, and offline records into the
//! action outbox ("recorded offline, not sent").

use std::collections::HashSet;

use serde_json::json;

use super::Context;
use crate::cli::{
    AssignArgs, Format, LabelCommand, MergeArgs, PrCommand, PrStateArgs, RequestReviewArgs,
    UpdateBranchArgs,
};
use crate::error::CliError;
use crate::ledger::Ledger;
use crate::policy::merge::{self, MergeMethod, MergePlan, short};
use crate::pr::{ChecksSummary, Snapshot};
use crate::publish::decide::{
    DecideError, Decided, LiveFacts, MergeAsk, PrDo, act_live, act_offline, facts_live,
    facts_offline,
};
use crate::sanitize::one_line;
use crate::source::Target;
use crate::source::github::GitHub;

/// The PR as a decision reads it: the snapshot now, GitHub's facts (or the fixture's), the
/// fixture's checks, and the live client.
struct Read {
    snapshot: Snapshot,
    facts: LiveFacts,
    checks: Option<ChecksSummary>,
    gh: Option<GitHub>,
    ledger: Ledger,
}

async fn read(
    ctx: &Context,
    pr: &str,
    step: Option<usize>,
    reviewed: Option<&str>,
) -> Result<Read, CliError> {
    read_target(ctx, ctx.resolve(Some(pr))?, step, reviewed).await
}

/// [`read`] of a PR already resolved.
async fn read_target(
    ctx: &Context,
    target: Target,
    step: Option<usize>,
    reviewed: Option<&str>,
) -> Result<Read, CliError> {
    let ledger = ctx.ledger()?;
    match target {
        Target::Fixture(f) => {
            let checks = f.dashboard.summary();
            let snapshot = f.into_snapshot_at(step.unwrap_or(0))?;
            let facts = facts_offline(&snapshot, &ledger.action_outbox(&snapshot.pr.coords())?);
            Ok(Read {
                snapshot,
                facts,
                checks,
                gh: None,
                ledger,
            })
        }
        Target::Live(coords) => {
            if step.is_some() {
                return Err(CliError::usage(
                    "--step applies to fixtures with history, not to a live PR",
                ));
            }
            let gh = super::live::client(ctx, &coords).await?;
            let snapshot = gh.fetch_snapshot(&coords).await?;
            let facts = facts_live(&gh, &coords, reviewed)
                .await
                .map_err(decide_error)?;
            Ok(Read {
                snapshot,
                facts,
                checks: None,
                gh: Some(gh),
                ledger,
            })
        }
    }
}

fn decide_error(e: DecideError) -> CliError {
    if e.is_usage() {
        CliError::usage(e.to_string())
    } else {
        CliError::runtime(e.to_string())
    }
}

/// Does `what` (live or offline) and reports it.
async fn act(r: &Read, what: &PrDo, now: i64) -> Result<Decided, CliError> {
    match &r.gh {
        Some(gh) => act_live(gh, Some(&r.ledger), &r.snapshot.pr.coords(), what)
            .await
            .map_err(decide_error),
        None => act_offline(&r.ledger, &r.snapshot, what, now).map_err(decide_error),
    }
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn pr_name(s: &Snapshot) -> String {
    let p = &s.pr;
    format!("{}/{}#{}", one_line(&p.owner), one_line(&p.repo), p.number)
}

fn report(s: &Snapshot, d: &Decided, format: Format) -> Result<(), CliError> {
    let text = match format {
        Format::Json => serde_json::to_string_pretty(&json!({
            "pr": pr_name(s),
            "action": d.kind,
            "said": d.said,
            "location": d.location,
            "offline": d.offline,
            "already": d.already,
        }))
        .unwrap_or_default(),
        Format::Md => format!("{}: {}\n{}\n", pr_name(s), d.said, one_line(&d.location)),
    };
    super::emit_in(format, &text)
}

/// The head a decision must find: `--match-head SHA`, `any` (none), else the last look's.
fn reviewed_head(
    ledger: &Ledger,
    s: &Snapshot,
    arg: Option<&str>,
) -> Result<Option<String>, CliError> {
    match arg.map(str::trim) {
        Some(a) if a.eq_ignore_ascii_case("any") => Ok(None),
        Some(sha) => {
            if sha.len() < 7 || sha.len() > 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(CliError::usage(format!(
                    "--match-head takes a commit id (7 to 64 hex digits) or `any`, not `{}`",
                    one_line(sha)
                )));
            }
            Ok(Some(sha.to_ascii_lowercase()))
        }
        None => match ledger.looked_head(&s.pr.coords())? {
            Some(l) => Ok(Some(l.head)),
            None => Err(CliError::usage(format!(
                "no look at {} is recorded, so there is no head you reviewed: read it first (`items` or the console), or give --match-head SHA (or `any`)",
                pr_name(s)
            ))),
        },
    }
}

pub(super) async fn merge(ctx: &Context, args: MergeArgs) -> Result<(), CliError> {
    let asked = match args.method.as_deref() {
        Some(m) => Some(MergeMethod::parse(m).ok_or_else(|| {
            CliError::usage(format!(
                "--method takes merge, squash or rebase, not `{}`",
                one_line(m)
            ))
        })?),
        None => None,
    };
    if args.past_unseen && !args.yes {
        return Err(CliError::usage(
            "--past-unseen merges past items you were never shown: give --yes with it",
        ));
    }
    // The look recorded before this read: the head a merge must find.
    let ledger = ctx.ledger()?;
    let target = ctx.resolve(Some(&args.pr))?;
    let coords = match &target {
        Target::Fixture(f) => f.pr.coords(),
        Target::Live(c) => c.clone(),
    };
    let looked = ledger.looked_head(&coords)?.map(|l| l.head);
    let hint = match args.match_head.as_deref() {
        Some(a) if a.trim().eq_ignore_ascii_case("any") => None,
        Some(a) => Some(a.trim().to_owned()),
        None => looked,
    };
    let r = read_target(ctx, target, args.step, hint.as_deref()).await?;
    let reviewed = reviewed_head(&r.ledger, &r.snapshot, args.match_head.as_deref())?;
    let method = merge::choose_method(
        asked,
        ctx.config.config.merge.method,
        &r.facts.facts.allowed,
    );
    let stakes = crate::publish::stakes::stakes(
        &r.ledger,
        &r.snapshot,
        &r.facts,
        r.checks,
        &HashSet::new(),
    )?;
    let mut plan = merge::plan(&r.facts.facts, reviewed.as_deref(), method, &stakes);
    if args.auto {
        if !r.facts.facts.auto_merge_allowed {
            return Err(CliError::usage(
                "the repository does not allow auto-merge (Settings → Allow auto-merge)",
            ));
        }
        // Auto-merge waits for protection: that is what it is for.
        plan.blocked.retain(|b| !b.waits_for_protection());
    }
    if args.dry_run {
        return super::emit_in(
            args.format,
            &plan_text(&r.snapshot, &plan, args.auto, args.format),
        );
    }
    if r.facts.facts.state.eq_ignore_ascii_case("MERGED") {
        let d = Decided {
            kind: "merge",
            said: "merged already: nothing sent".to_owned(),
            location: r.snapshot.pr.url.clone(),
            offline: r.gh.is_none(),
            already: true,
        };
        return report(&r.snapshot, &d, args.format);
    }
    if !plan.blocked.is_empty() {
        let why: Vec<String> = plan.blocked.iter().map(merge::Blocked::words).collect();
        let mut e = CliError::runtime(format!("nothing merged: {}", why.join("; ")));
        if plan.only_protection() && r.facts.facts.auto_merge_allowed {
            e = e.with_hint(
                "--auto arms auto-merge at this head instead: GitHub merges once protection allows",
            );
        }
        return Err(e);
    }
    if plan.needs_second() && !(args.yes && args.past_unseen) {
        let what: Vec<String> = plan
            .past
            .iter()
            .filter(|p| p.second)
            .map(|p| p.what.clone())
            .collect();
        return Err(CliError::past_unseen(format!(
            "nothing merged: it would go past {}",
            what.join("; ")
        ))
        .with_hint("read them first (the console, `items`), or give --yes --past-unseen"));
    }
    let ask = MergeAsk {
        method,
        head: plan.head.clone(),
        headline: args.headline.clone(),
        body: args.body.clone(),
    };
    let what = if args.auto {
        PrDo::AutoMerge(ask)
    } else if plan.queue {
        PrDo::Enqueue { head: ask.head }
    } else {
        PrDo::Merge(ask)
    };
    let d = act(&r, &what, now()).await?;
    let stated: Vec<String> = plan.past.iter().map(|p| p.what.clone()).collect();
    match args.format {
        Format::Json => super::emit_json(
            &serde_json::to_string_pretty(&json!({
                "pr": pr_name(&r.snapshot),
                "action": d.kind,
                "said": d.said,
                "location": d.location,
                "offline": d.offline,
                "already": d.already,
                "method": method.as_str(),
                "head": plan.head,
                "past": plan.past,
            }))
            .unwrap_or_default(),
        ),
        Format::Md => {
            let mut text = format!("{}: {}\n", pr_name(&r.snapshot), d.said);
            if !stated.is_empty() {
                text.push_str(&format!("Merged past: {}\n", stated.join("; ")));
            }
            text.push_str(&format!("{}\n", one_line(&d.location)));
            super::emit(&text)
        }
    }
}

/// The dry run: what the merge would do and go past, and what stops it.
fn plan_text(s: &Snapshot, plan: &MergePlan, auto: bool, format: Format) -> String {
    let action = if auto {
        "auto-merge"
    } else if plan.queue {
        "enqueue"
    } else {
        "merge"
    };
    match format {
        Format::Json => serde_json::to_string_pretty(&json!({
            "pr": pr_name(s),
            "action": action,
            "method": plan.method.as_str(),
            "head": plan.head,
            "wouldMerge": plan.may_merge() && !plan.needs_second(),
            "needsSecond": plan.needs_second(),
            "past": plan.past,
            "blocked": plan.blocked.iter().map(|b| {
                let mut v = serde_json::to_value(b).unwrap_or_default();
                v["words"] = json!(b.words());
                v
            }).collect::<Vec<_>>(),
        }))
        .unwrap_or_default(),
        Format::Md => {
            let mut out = format!(
                "{}: would {} ({}) at {}\n",
                pr_name(s),
                if auto {
                    "arm auto-merge"
                } else if plan.queue {
                    "add to the merge queue"
                } else {
                    "merge"
                },
                plan.method.as_str(),
                short(&plan.head)
            );
            for b in &plan.blocked {
                out.push_str(&format!("- stops it: {}\n", b.words()));
            }
            for p in &plan.past {
                out.push_str(&format!(
                    "- past: {}{}\n",
                    p.what,
                    if p.second {
                        " (needs --yes --past-unseen)"
                    } else {
                        ""
                    }
                ));
            }
            if plan.blocked.is_empty() && plan.past.is_empty() {
                out.push_str("- nothing in the way, nothing unseen\n");
            }
            out
        }
    }
}

pub(super) async fn pr(ctx: &Context, cmd: PrCommand) -> Result<(), CliError> {
    let (args, what): (PrStateArgs, PrDo) = match cmd {
        PrCommand::Close(a) => (a, PrDo::Close),
        PrCommand::Reopen(a) => (a, PrDo::Reopen),
        PrCommand::Ready(a) => (a, PrDo::Ready),
        PrCommand::Draft(a) => (a, PrDo::Draft),
        PrCommand::AutoMergeOff(a) => (a, PrDo::AutoMergeOff),
        PrCommand::Dequeue(a) => (a, PrDo::Dequeue),
    };
    if let Some(c) = &args.comment {
        if !matches!(what, PrDo::Close | PrDo::Reopen) {
            return Err(CliError::usage("--comment goes with close and reopen"));
        }
        crate::publish::conversation::check_comment(c).map_err(CliError::usage)?;
    }
    let r = read(ctx, &args.pr, args.step, None).await?;
    let coords = r.snapshot.pr.coords();
    if let Some(body) = &args.comment {
        // The comment first: a close with its reason, never a reason without its close said.
        let posted = match &r.gh {
            Some(gh) => crate::publish::conversation::comment_live(gh, &coords, body).await,
            None => crate::publish::conversation::comment_offline(&r.ledger, &coords, body, now()),
        }
        .map_err(|e| {
            CliError::runtime(format!(
                "the comment was not posted, nothing else was done: {e}"
            ))
        })?;
        if args.format == Format::Md {
            super::emit(&format!("comment: {}\n", one_line(&posted)))?;
        }
    }
    let d = act(&r, &what, now()).await?;
    report(&r.snapshot, &d, args.format)
}

/// The names of `wanted` as the repository spells its labels; an unknown one is refused.
async fn repo_labels(
    gh: &GitHub,
    s: &Snapshot,
    wanted: &[String],
) -> Result<Vec<String>, CliError> {
    let all = crate::publish::decide::repo_labels(gh, &s.pr.coords()).await?;
    wanted
        .iter()
        .map(|w| {
            all.iter()
                .find(|l| l.eq_ignore_ascii_case(w.trim()))
                .cloned()
                .ok_or_else(|| {
                    CliError::usage(format!(
                        "{} has no label `{}` (labels are not created here; `label add` takes the repository's own)",
                        pr_name(s).split('#').next().unwrap_or_default(),
                        one_line(w)
                    ))
                })
        })
        .collect()
}

pub(super) async fn label(ctx: &Context, cmd: LabelCommand) -> Result<(), CliError> {
    let (args, add) = match cmd {
        LabelCommand::Add(a) => (a, true),
        LabelCommand::Remove(a) => (a, false),
    };
    let names: Vec<String> = args
        .names
        .iter()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err(CliError::usage("give at least one label name"));
    }
    let r = read(ctx, &args.pr, args.step, None).await?;
    let names = match &r.gh {
        Some(gh) if add => repo_labels(gh, &r.snapshot, &names).await?,
        _ => names,
    };
    // What is on the PR now (the outbox applied offline).
    let on: Vec<String> = match &r.gh {
        Some(_) => r.snapshot.pr.labels.clone(),
        None => r
            .ledger
            .action_outbox(&r.snapshot.pr.coords())?
            .names_after(&r.snapshot.pr.labels, "label-add", "label-remove"),
    };
    let has = |n: &String| on.iter().any(|o| o.eq_ignore_ascii_case(n));
    let (todo, so): (Vec<String>, Vec<String>) = names
        .into_iter()
        .partition(|n| if add { !has(n) } else { has(n) });
    if todo.is_empty() {
        let d = Decided {
            kind: if add { "label-add" } else { "label-remove" },
            said: format!(
                "nothing sent: {} {}",
                so.join(", "),
                if add {
                    "already on the PR"
                } else {
                    "not on the PR"
                }
            ),
            location: r.snapshot.pr.url.clone(),
            offline: r.gh.is_none(),
            already: true,
        };
        return report(&r.snapshot, &d, args.format);
    }
    let what = if add {
        PrDo::AddLabels(todo)
    } else {
        PrDo::RemoveLabels(todo)
    };
    let mut d = act(&r, &what, now()).await?;
    if !so.is_empty() {
        d.said.push_str(&format!(
            " ({} {})",
            so.join(", "),
            if add { "already on it" } else { "not on it" }
        ));
    }
    report(&r.snapshot, &d, args.format)
}

/// `@login` or `login` as a login; a malformed one is refused.
fn login(s: &str) -> Result<String, CliError> {
    let l = s.trim().trim_start_matches('@');
    let ok = !l.is_empty()
        && l.len() <= 39
        && l.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'[' || b == b']');
    if ok {
        Ok(l.to_owned())
    } else {
        Err(CliError::usage(format!(
            "`{}` is not a GitHub login",
            one_line(s)
        )))
    }
}

pub(super) async fn assign(ctx: &Context, args: AssignArgs) -> Result<(), CliError> {
    let logins = args
        .logins
        .iter()
        .map(|l| login(l))
        .collect::<Result<Vec<_>, _>>()?;
    let r = read(ctx, &args.pr, args.step, None).await?;
    let what = if args.remove {
        PrDo::Unassign(logins)
    } else {
        PrDo::Assign(logins)
    };
    let d = act(&r, &what, now()).await?;
    report(&r.snapshot, &d, args.format)
}

pub(super) async fn request_review(ctx: &Context, args: RequestReviewArgs) -> Result<(), CliError> {
    let mut users = Vec::new();
    let mut teams = Vec::new();
    for r in &args.reviewers {
        let t = r.trim().trim_start_matches('@');
        match t.split_once('/') {
            Some((org, team)) => {
                login(org)?;
                if team.is_empty()
                    || !team
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
                {
                    return Err(CliError::usage(format!(
                        "`{}` is not ORG/TEAM (a team's slug)",
                        one_line(r)
                    )));
                }
                teams.push(t.to_owned());
            }
            None => users.push(login(t)?),
        }
    }
    let r = read(ctx, &args.pr, args.step, None).await?;
    let d = act(&r, &PrDo::RequestReview { users, teams }, now()).await?;
    report(&r.snapshot, &d, args.format)
}

pub(super) async fn update_branch(ctx: &Context, args: UpdateBranchArgs) -> Result<(), CliError> {
    let r = read(ctx, &args.pr, args.step, None).await?;
    let head = reviewed_head(&r.ledger, &r.snapshot, args.match_head.as_deref())?
        .unwrap_or_else(|| r.facts.facts.head.clone());
    let d = act(
        &r,
        &PrDo::UpdateBranch {
            rebase: args.rebase,
            head,
        },
        now(),
    )
    .await?;
    report(&r.snapshot, &d, args.format)
}
