//! `pr-shepherd event`: GitHub Actions event mode. The event decides (pure,
//! [`crate::policy::event::decide`]); then, for a review, the PR is fetched, the gates are
//! applied (automatic invocation, or explicit for a trigger comment) and the review flow shared
//! with `review` runs and posts.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::review::{PostChoice, apply_trigger, execute, live_job, settle_team};
use crate::cli::{EventArgs, Format, LlmOptions, ReviewArgs};
use crate::error::CliError;
use crate::policy::event::{EventDecision, decide};
use crate::policy::{self, Invocation, Mode};
use crate::pr::PrCoords;
use crate::sanitize::one_line;

impl LlmOptions {
    /// The `review` options these flags stand for (the review flow is the same).
    pub(crate) fn review_args(
        &self,
        pr: String,
        format: Format,
        all: bool,
        post: bool,
        identity: Option<&str>,
    ) -> ReviewArgs {
        ReviewArgs {
            pr: Some(pr),
            format,
            llm: self.llm.clone(),
            llm_url: self.llm_url.clone(),
            model: self.model.clone(),
            llm_command: self.llm_command.clone(),
            step: None,
            concurrency: self.concurrency,
            timeout: self.timeout,
            aspect_timeout: self.aspect_timeout,
            prompts_dir: self.prompts_dir.clone(),
            all,
            post,
            identity: identity.unwrap_or_default().to_owned(),
            reply_marker: self.reply_marker.clone(),
            trigger_comment: None,
            quiet: false,
        }
    }
}

/// Says what was decided and why: always on stderr; with `--format json` and no review to
/// print, as a JSON document on stdout.
fn no_action(args: &EventArgs, reason: &str) -> Result<(), CliError> {
    eprintln!("decision: no action: {}", one_line(reason));
    if args.format == Format::Json {
        let v = json!({"decision": {"action": "noAction", "reason": reason}, "posted": null});
        super::emit(&format!("{v:#}\n"))?;
    }
    Ok(())
}

/// The Enterprise web host from `GITHUB_SERVER_URL`, if it is not github.com.
fn server_host() -> Option<String> {
    let url = std::env::var("GITHUB_SERVER_URL").ok()?;
    let host = reqwest::Url::parse(url.trim()).ok()?.host_str()?.to_owned();
    (!host.eq_ignore_ascii_case("github.com")).then_some(host)
}

pub(super) async fn run(
    args: EventArgs,
    state_dir: Option<&std::path::Path>,
) -> Result<(), CliError> {
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
    let text = std::fs::read_to_string(&path).map_err(|e| {
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
    let decision = decide(name.trim(), &payload).map_err(|e| CliError::usage(e.to_string()))?;
    let decision_json = serde_json::to_value(&decision).unwrap_or(Value::Null);
    let (owner, repo, number, mode, trigger) = match &decision {
        EventDecision::NoAction { reason } => return no_action(&args, reason),
        EventDecision::Review {
            owner,
            repo,
            number,
            mode,
            trigger_comment,
            reason,
        } => {
            eprintln!("decision: review: {}", one_line(reason));
            (owner, repo, *number, *mode, *trigger_comment)
        }
        EventDecision::Regate {
            owner,
            repo,
            number,
            reason,
        } => {
            eprintln!("decision: gates again: {}", one_line(reason));
            (owner, repo, *number, Mode::Incremental, None)
        }
    };
    let coords = PrCoords {
        host: server_host(),
        owner: owner.clone(),
        repo: repo.clone(),
        number,
    };
    coords.validate()?;
    let ledger = super::open_ledger(state_dir)?;
    let gh = super::live::client(&coords).await?;
    let snapshot = gh.fetch_snapshot(&coords).await?;
    if snapshot.pr.state != "OPEN" {
        return no_action(&args, &format!("the PR is {}", snapshot.pr.state));
    }
    if snapshot.pr.draft && trigger.is_none() {
        return no_action(
            &args,
            "the PR is a draft: reviewed once it is ready for review",
        );
    }

    // Gates: automatic unless a maintainer's trigger comment asked (explicit: may override the
    // community and pause gates, never `no-shepherd` for posting).
    let cfg = policy::GateConfig::default();
    let is_org = payload
        .pointer("/repository/owner/type")
        .and_then(Value::as_str)
        == Some("Organization");
    let team = settle_team(&gh, &snapshot.pr, &cfg, is_org).await;
    let how = if trigger.is_some() {
        Invocation::Explicit
    } else {
        Invocation::Automatic
    };
    let gate = policy::gate(&snapshot.pr, team, &cfg, how);
    eprintln!("gates: {}", one_line(&gate.reason));
    if !gate.review {
        return no_action(&args, &format!("gates: {}", gate.reason));
    }
    let triggered = match trigger {
        Some(id) => match apply_trigger(&snapshot, &id.to_string()) {
            Ok(t) => Some(t),
            Err(e) => return no_action(&args, &e.to_string()),
        },
        None => None,
    };
    let own = match &args.identity {
        Some(login) if !login.trim().is_empty() => login.trim().to_owned(),
        _ => gh.viewer_login().await?,
    };

    // Labels changing must not review the same head twice.
    if matches!(decision, EventDecision::Regate { .. }) {
        let prior = crate::review::prior::prior_reviews(&snapshot, &own);
        if let Some(meta) = prior.latest().and_then(|r| r.meta.as_ref())
            && meta.head_sha == snapshot.pr.head_sha
        {
            return no_action(
                &args,
                &format!(
                    "the head {} was already reviewed",
                    snapshot.pr.head_sha.chars().take(12).collect::<String>()
                ),
            );
        }
    }

    let pr_text = coords.to_string();
    let review_args = args.llm.review_args(
        pr_text,
        args.format,
        mode == Mode::Full,
        !args.dry_run,
        Some(&own),
    );
    let post = if args.dry_run {
        eprintln!("dry run: nothing will be posted");
        PostChoice::No
    } else {
        PostChoice::Post { fatal_block: false }
    };
    let mut job = live_job(
        &gh,
        snapshot,
        &own,
        triggered,
        mode == Mode::Full,
        &gate,
        &ledger,
        post,
        false,
    );
    job.extra_json = Some(("decision", decision_json));
    execute(job, &review_args).await.map(|_| ())
}
