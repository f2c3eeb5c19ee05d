//! `pr-shepherd event`: GitHub Actions event mode. The event decides (pure,
//! [`crate::policy::event::decide`]); then, for a review, the PR is fetched, the gates are
//! applied (automatic invocation, or explicit for a trigger comment) and the review flow shared
//! with `review` runs and posts.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::Context;
use super::review::{
    AfterPost, AfterPosted, Destination, PostChoice, ReviewReport, ReviewSetup, Triggered,
    apply_trigger_ref, closed_note, execute_then, settle_team,
};
use crate::cli::{EventArgs, Format};
use crate::error::CliError;
use crate::policy::check::{CHECK_NAME, CheckFailsOn, ReviewEnd, SeverityCounts, check_report};
use crate::policy::event::{EventDecision, decide_with};
use crate::policy::{self, GateDecision, Invocation, Mode, TriggerKind, TriggerRef};
use crate::pr::{PrCoords, Snapshot};
use crate::publish::check_run::{Channel, ShepherdCheck};
use crate::sanitize::one_line;
use crate::source::github::GitHub;

/// Says what was decided and why: always on stderr; with `--format json` and no review to
/// print, as a JSON document on stdout.
fn no_action(args: &EventArgs, reason: &str) -> Result<(), CliError> {
    nothing_done(
        args,
        reason,
        json!({"action": "noAction", "reason": reason}),
    )
}

/// [`no_action`] with the decision as decided (a recognized write-action label says so).
fn nothing_done(args: &EventArgs, reason: &str, decision: Value) -> Result<(), CliError> {
    crate::eprintln_clean!("decision: no action: {}", one_line(reason));
    if args.format == Format::Json {
        let v = json!({"decision": decision, "posted": null});
        super::emit_json(&format!("{v:#}\n"))?;
    }
    Ok(())
}

/// The Enterprise web host from `GITHUB_SERVER_URL` (read by the context), if it is not
/// github.com.
fn server_host(ctx: &Context) -> Option<String> {
    let url = ctx.github_server_url.as_deref()?;
    let host = reqwest::Url::parse(url.trim()).ok()?.host_str()?.to_owned();
    (!host.eq_ignore_ascii_case("github.com")).then_some(host)
}

/// What the event asks for, once decided.
enum Asked {
    Nothing { reason: String },
    Review(ReviewAsked),
}

/// A review asked for: which PR, in which mode, answering which trigger.
struct ReviewAsked {
    coords: PrCoords,
    mode: Mode,
    trigger: Option<TriggerRef>,
    /// Labels changed: the gates are asked again, and the same head is not reviewed twice.
    regate: bool,
}

pub(super) async fn run(ctx: &Context, args: EventArgs) -> Result<(), CliError> {
    let (name, payload) = read_event(&args)?;
    let decision = decide_with(name.trim(), &payload, ctx.automation())
        .map_err(|e| CliError::usage(e.to_string()))?;
    let decision_json = serde_json::to_value(&decision).unwrap_or(Value::Null);
    let asked = match asked_for(&decision, server_host(ctx))? {
        Asked::Nothing { reason } => return nothing_done(&args, &reason, decision_json),
        Asked::Review(r) => r,
    };
    let ledger = ctx.ledger()?;
    let gh = super::live::client(ctx, &asked.coords).await?;
    let snapshot = gh.fetch_snapshot(&asked.coords).await?;
    if let Some(why) = not_reviewable(&snapshot, asked.trigger) {
        return no_action(&args, &why);
    }
    let gate = gates(ctx, &gh, &snapshot, &payload, asked.trigger.is_some()).await;
    if !gate.review {
        return no_action(&args, &format!("gates: {}", gate.reason));
    }
    let gate = closed_note(&snapshot, gate);
    let triggered = match asked.trigger {
        Some(r) => match apply_trigger_ref(&snapshot, r, ctx.automation()) {
            Ok(t) => Some(t),
            Err(e) => return no_action(&args, &e.to_string()),
        },
        None => None,
    };
    let own_login = match &args.identity {
        Some(login) if !login.trim().is_empty() => login.trim().to_owned(),
        _ => gh.viewer_login().await?,
    };
    if asked.regate
        && let Some(why) = head_already_reviewed(&snapshot, &own_login)
    {
        return no_action(&args, &why);
    }
    review_and_post(
        ctx,
        &args,
        &gh,
        &ledger,
        Reviewing {
            snapshot,
            triggered,
            full: asked.mode == Mode::Full,
            gate: &gate,
            own_login,
            decision: decision_json,
        },
    )
    .await
}

/// The event's name and payload (from the flags or the Actions environment).
fn read_event(args: &EventArgs) -> Result<(String, Value), CliError> {
    let name = args
        .event_name
        .clone()
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| {
            CliError::usage("no event name: set GITHUB_EVENT_NAME or pass --event-name")
        })?;
    let path: PathBuf = args.event_path.clone().ok_or_else(|| {
        CliError::usage("no event payload: set GITHUB_EVENT_PATH or pass --event-path")
    })?;
    let text = crate::infile::read_to_string(&path, crate::infile::EVENT_LIMIT).map_err(|e| {
        CliError::usage(format!(
            "cannot read the event payload {}: {e}",
            path.display()
        ))
    })?;
    let payload: Value = serde_json::from_str(&text).map_err(|e| {
        CliError::usage(format!(
            "the event payload {} is not JSON: {e}",
            path.display()
        ))
    })?;
    Ok((name, payload))
}

/// The PR and mode a decision asks to review (said on stderr), or why nothing is to be done.
fn asked_for(decision: &EventDecision, host: Option<String>) -> Result<Asked, CliError> {
    let (owner, repo, number, mode, trigger, regate) = match decision {
        EventDecision::NoAction { reason } | EventDecision::WriteActionLabel { reason, .. } => {
            return Ok(Asked::Nothing {
                reason: reason.clone(),
            });
        }
        EventDecision::Review {
            owner,
            repo,
            number,
            mode,
            trigger_comment,
            trigger_kind,
            reason,
        } => {
            crate::eprintln_clean!("decision: review: {}", one_line(reason));
            let trigger = trigger_comment.map(|id| TriggerRef {
                kind: trigger_kind.unwrap_or(TriggerKind::Comment),
                id,
            });
            (owner, repo, *number, *mode, trigger, false)
        }
        EventDecision::Regate {
            owner,
            repo,
            number,
            reason,
        } => {
            crate::eprintln_clean!("decision: gates again: {}", one_line(reason));
            (owner, repo, *number, Mode::Incremental, None, true)
        }
    };
    let coords = PrCoords {
        host,
        owner: owner.clone(),
        repo: repo.clone(),
        number,
    };
    coords.validate()?;
    Ok(Asked::Review(ReviewAsked {
        coords,
        mode,
        trigger,
        regate,
    }))
}

/// Why the PR is not reviewed now (closed or merged, or a draft, without a trigger), if so. An
/// explicit trigger is answered on a closed PR too (seed 003: an explicit invocation bypasses
/// the business filters); the gates still apply, `no-shepherd` included.
fn not_reviewable(snapshot: &Snapshot, trigger: Option<TriggerRef>) -> Option<String> {
    if snapshot.pr.state != "OPEN" && trigger.is_none() {
        return Some(format!(
            "the PR is {}: automatic events do nothing for it",
            snapshot.pr.state
        ));
    }
    if snapshot.pr.draft && trigger.is_none() {
        return Some("the PR is a draft: reviewed once it is ready for review".to_owned());
    }
    None
}

/// The gates, said on stderr: automatic unless a maintainer's trigger comment asked (a trigger:
/// may override the community and pause gates; `no-shepherd` refuses it, no model called).
async fn gates(
    ctx: &Context,
    gh: &GitHub,
    snapshot: &Snapshot,
    payload: &Value,
    trigger: bool,
) -> GateDecision {
    let cfg = ctx.gates();
    let is_org = payload
        .pointer("/repository/owner/type")
        .and_then(Value::as_str)
        == Some("Organization");
    let team = settle_team(gh, &snapshot.pr, cfg, is_org).await;
    let how = if trigger {
        Invocation::Trigger
    } else {
        Invocation::Automatic
    };
    let gate = policy::gate(&snapshot.pr, team, cfg, how);
    crate::eprintln_clean!("gates: {}", one_line(&gate.reason));
    gate
}

/// Labels changing must not review the same head twice.
fn head_already_reviewed(snapshot: &Snapshot, own_login: &str) -> Option<String> {
    let prior = crate::review::inputs::prior::prior_reviews(snapshot, own_login);
    let meta = prior.latest().and_then(|r| r.meta.as_ref())?;
    (meta.head_sha == snapshot.pr.head_sha).then(|| {
        format!(
            "the head {} was already reviewed",
            snapshot.pr.head_sha.chars().take(12).collect::<String>()
        )
    })
}

/// The review the event decided on, past every check.
struct Reviewing<'a> {
    snapshot: Snapshot,
    triggered: Option<Triggered>,
    full: bool,
    gate: &'a GateDecision,
    own_login: String,
    /// The decision, added to the JSON document.
    decision: Value,
}

/// Runs the review flow shared with `review` and posts (unless `--dry-run`).
async fn review_and_post(
    ctx: &Context,
    args: &EventArgs,
    gh: &GitHub,
    ledger: &crate::ledger::Ledger,
    r: Reviewing<'_>,
) -> Result<(), CliError> {
    let post = if args.dry_run {
        crate::eprintln_clean!("dry run: nothing will be posted");
        PostChoice::No
    } else {
        PostChoice::Automatic
    };
    let mut review = ReviewSetup {
        snapshot: r.snapshot,
        triggered: r.triggered,
        full: r.full,
        gate: r.gate,
        post,
        destination: Destination::GitHub {
            gh,
            own_login: r.own_login,
        },
        ledger,
        llm: &args.llm,
        format: args.format,
    }
    .build()?;
    review.extra_json = Some(("decision", r.decision));
    review.quiet = args.quiet;
    review.inline = ctx.review_settings().inline;
    review.post_incomplete = args.post_incomplete;
    let automation = ctx.automation();
    if !automation.check {
        return execute_then(ctx, review, &mut ()).await.map(|_| ());
    }
    if args.dry_run {
        crate::eprintln_clean!("dry run: the `{CHECK_NAME}` check is not published");
        return execute_then(ctx, review, &mut ()).await.map(|_| ());
    }
    let mut check = CheckHook::start(gh, &review.snapshot, automation.check_fails_on).await;
    let result = execute_then(ctx, review, &mut check).await;
    if let Err(e) = &result {
        check.not_run(e.message()).await;
    }
    result.map(|_| ())
}

/// Shepherd's own check on the head (`[automation] check`, for `event` and `watch --post`):
/// started `in_progress` before the model is called, completed once the review was posted
/// (the conclusion from [`crate::policy::check::check_report`]), or completed neutral when the
/// review could not run. A failure to publish it never loses the review: it is said on stderr
/// and fails the command (exit 1) once the review was posted and printed.
pub(super) struct CheckHook<'a> {
    gh: &'a GitHub,
    pr: PrCoords,
    head_sha: String,
    fails_on: CheckFailsOn,
    check: Option<ShepherdCheck<'a>>,
    /// Why the check is a commit status, when it is one.
    fallback: Option<String>,
    /// Why starting it failed (tried again when the review ends).
    start_error: Option<String>,
    finished: bool,
}

impl<'a> CheckHook<'a> {
    /// Puts the check in progress on the snapshot's head (said on stderr); a failure is said and
    /// the review goes on.
    pub(super) async fn start(
        gh: &'a GitHub,
        snapshot: &Snapshot,
        fails_on: CheckFailsOn,
    ) -> CheckHook<'a> {
        let mut hook = CheckHook {
            gh,
            pr: snapshot.pr.coords(),
            head_sha: snapshot.pr.head_sha.clone(),
            fails_on,
            check: None,
            fallback: None,
            start_error: None,
            finished: false,
        };
        match hook.try_start().await {
            Ok(()) => {
                let short: String = hook.head_sha.chars().take(12).collect();
                match (
                    &hook.fallback,
                    hook.check.as_ref().map(ShepherdCheck::channel),
                ) {
                    (Some(why), _) => crate::eprintln_clean!(
                        "check: this token cannot write check runs ({}); the commit status `{CHECK_NAME}` on {short} stands in for the check (pending)",
                        one_line(why)
                    ),
                    (None, Some(Channel::CheckRun { id, .. })) => crate::eprintln_clean!(
                        "check: `{CHECK_NAME}` in progress on {short} (check run {id})"
                    ),
                    (None, _) => {}
                }
            }
            Err(e) => {
                crate::eprintln_clean!(
                    "warning: check: the `{CHECK_NAME}` check could not be started: {}; the review goes on",
                    one_line(&e)
                );
                hook.start_error = Some(e);
            }
        }
        hook
    }

    async fn try_start(&mut self) -> Result<(), String> {
        let short: String = self.head_sha.chars().take(12).collect();
        let summary = format!("Reviewing head {short} of {}.", self.pr);
        let (check, started) = ShepherdCheck::start(self.gh, &self.pr, &self.head_sha, &summary)
            .await
            .map_err(|e| e.to_string())?;
        if started.reused {
            tracing::debug!("the check of an earlier run on this head is updated");
        }
        self.fallback = started.fallback;
        self.check = Some(check);
        self.start_error = None;
        Ok(())
    }

    /// Completes the check for a review that ended as `end`: the JSON of what was published,
    /// the note for stderr, and the error when it could not be.
    async fn complete(
        &mut self,
        end: &ReviewEnd,
        comment: Option<&str>,
        not_posted: Option<&str>,
    ) -> AfterPosted {
        self.finished = true;
        let report = check_report(end, self.fails_on, comment, not_posted);
        if self.check.is_none()
            && let Err(e) = self.try_start().await
        {
            let why = format!(
                "the `{CHECK_NAME}` check was not published: {}",
                one_line(&e)
            );
            return AfterPosted {
                json: Some(("check", self.json(&report, None, Some(&why)))),
                notes: Vec::new(),
                error: Some(why),
            };
        }
        let Some(check) = self.check.as_ref() else {
            return AfterPosted::default();
        };
        match check.finish(&report, comment).await {
            Ok(done) => {
                let mut notes = vec![match check.channel() {
                    Channel::CheckRun { id, .. } => format!(
                        "check: `{CHECK_NAME}` completed {} (check run {id}): {}",
                        report.conclusion.as_str(),
                        report.title
                    ),
                    Channel::Status => format!(
                        "check: the commit status `{CHECK_NAME}` is {}{}: {} — a status, not a check run, because this token cannot write check runs",
                        done.conclusion,
                        if done.conclusion == report.conclusion.as_str() {
                            String::new()
                        } else {
                            format!(
                                " (a check would be {}: statuses have no neutral)",
                                report.conclusion.as_str()
                            )
                        },
                        report.title
                    ),
                }];
                if let Some(kept) = &done.kept {
                    notes.push(format!(
                        "warning: check: GitHub kept the check as `{kept}` instead of `completed {}` (a completed check run may not change again)",
                        report.conclusion.as_str()
                    ));
                }
                AfterPosted {
                    json: Some(("check", self.json(&report, Some(&done), None))),
                    notes,
                    error: None,
                }
            }
            Err(e) => {
                let why = format!(
                    "the `{CHECK_NAME}` check could not be completed ({}): {}",
                    report.conclusion.as_str(),
                    one_line(&e.to_string())
                );
                AfterPosted {
                    json: Some(("check", self.json(&report, None, Some(&why)))),
                    notes: Vec::new(),
                    error: Some(why),
                }
            }
        }
    }

    /// The `check` field of the JSON document.
    fn json(
        &self,
        report: &crate::policy::check::CheckReport,
        done: Option<&crate::publish::check_run::Finished>,
        error: Option<&str>,
    ) -> Value {
        let (channel, id) = match self.check.as_ref().map(ShepherdCheck::channel) {
            Some(Channel::CheckRun { id, .. }) => ("checkRun", Some(*id)),
            Some(Channel::Status) => ("commitStatus", None),
            None => ("none", None),
        };
        json!({
            "name": CHECK_NAME,
            "headSha": self.head_sha,
            "channel": channel,
            "id": id,
            "conclusion": report.conclusion.as_str(),
            "published": done.map(|d| d.conclusion.clone()),
            "title": report.title,
            "fallback": self.fallback,
            "error": error,
        })
    }

    /// When the review ended before it could be posted (it never ran, or it stopped): completes
    /// the check neutral with `why`. Says on stderr what became of it.
    pub(super) async fn not_run(&mut self, why: &str) {
        if self.finished {
            return;
        }
        let end = ReviewEnd::NotRun {
            why: why.to_owned(),
        };
        let done = self.complete(&end, None, None).await;
        for note in &done.notes {
            crate::eprintln_clean!("{note}");
        }
        if let Some(e) = &done.error {
            crate::eprintln_clean!("error: {e}");
        }
    }
}

impl AfterPost for CheckHook<'_> {
    async fn after_post(&mut self, report: ReviewReport<'_>) -> AfterPosted {
        let end = review_end(&report);
        let comment = report.posted.map(|p| p.location.clone());
        self.complete(&end, comment.as_deref(), report.not_posted)
            .await
    }
}

/// How a review ended, for the check: the unaddressed findings (new or unchanged) by severity;
/// incomplete when an aspect failed or timed out or the budget stopped it; not run at all when
/// no aspect finished (the model down, a rate limit on every call).
pub(super) fn review_end(report: &ReviewReport<'_>) -> ReviewEnd {
    let mut unaddressed = SeverityCounts::default();
    for (i, f) in report.agg.current.iter().enumerate() {
        if report.agg.class_of(i).is_some() {
            unaddressed.add(&f.severity);
        }
    }
    let run = report.run;
    if !run.is_incomplete() {
        return ReviewEnd::Reviewed { unaddressed };
    }
    let failed: Vec<&crate::review::run::AspectOutcome> =
        run.aspects.iter().filter(|a| a.is_incomplete()).collect();
    if !failed.is_empty() && failed.len() == run.aspects.len() {
        let first = failed
            .iter()
            .find_map(|a| a.error.as_deref())
            .unwrap_or("no answer");
        return ReviewEnd::NotRun {
            why: format!(
                "every aspect failed or timed out (first: {})",
                one_line(first)
            ),
        };
    }
    ReviewEnd::Incomplete {
        unaddressed,
        failed: failed
            .iter()
            .map(|a| format!("{} {}", a.aspect, a.state.as_str().replace('_', " ")))
            .collect(),
        budget_stop: run.context.budget_stop().map(str::to_owned),
    }
}
