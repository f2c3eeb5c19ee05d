//! `pr-shepherd review`: the six aspects, headless.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cli::{Format, ReviewArgs};
use crate::error::CliError;
use crate::ledger::Ledger;
use crate::policy::{self, Mode};
use crate::pr::{Item, Snapshot};
use crate::publish::{Outbox, PostAction, Posted, upsert};
use crate::review::aggregate::{AggregateRequest, aggregate, choose_mode};
use crate::review::llm::{LlmClient, ReplaySource};
use crate::review::prior::{PriorReviews, prior_reviews};
use crate::review::prompt::Prompts;
use crate::review::runner::run_review_with_prior;
use crate::review::settings::{BackendKind, Overrides};
use crate::review::{ReviewEvent, compose};
use crate::sanitize::one_line;
use crate::source::github::GitHub;
use crate::source::github::comments::{GitHubComments, is_org_member};
use crate::source::{self, Target};

impl ReviewArgs {
    /// The settings overrides these flags stand for.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            llm: self.llm.as_deref().and_then(BackendKind::parse),
            llm_url: self.llm_url.clone(),
            model: self.model.clone(),
            command: self
                .llm_command
                .as_deref()
                .map(|c| c.split_whitespace().map(str::to_owned).collect()),
            concurrency: self.concurrency,
            aspect_timeout_secs: self.aspect_timeout,
            overall_timeout_secs: self.timeout,
            prompts_dir: self.prompts_dir.clone(),
        }
    }
}

pub(super) async fn run(args: ReviewArgs, state_dir: Option<&Path>) -> Result<(), CliError> {
    let target = source::resolve(args.pr.as_deref())?;
    let ledger = super::open_ledger(state_dir)?;
    let cfg = policy::GateConfig::default();
    match target {
        Target::Fixture(f) => {
            let replay = Some(ReplaySource {
                answers: f.llm.answers.clone(),
                step: args.step.unwrap_or(0),
            });
            let snapshot = super::load_snapshot(Target::Fixture(f), args.step).await?;
            let coords = snapshot.pr.coords();
            let team = match policy::membership(snapshot.pr.author.association, &cfg) {
                policy::Membership::Team => Some(true),
                policy::Membership::Community => Some(false),
                policy::Membership::Ambiguous => None,
            };
            let triggered = match args.trigger_comment.as_deref() {
                Some(id) => Some(apply_trigger(&snapshot, id)?),
                None => None,
            };
            let snapshot = match &triggered {
                Some(t) => t.snapshot.clone(),
                None => snapshot,
            };
            // Earlier Shepherd reviews, read from the PR itself and, offline, from the outbox.
            let mut prior = prior_reviews(&snapshot, &args.identity);
            prior.add_outbox(ledger.outbox(&coords)?);
            let gate = policy::gate(&snapshot.pr, team, &cfg, policy::Invocation::Explicit);
            let post = if !args.post {
                Posting::No
            } else if gate.post {
                Posting::Outbox
            } else {
                Posting::Blocked {
                    reason: gate.reason.clone(),
                    fatal: true,
                }
            };
            let job = Job {
                full: args.all || triggered.as_ref().is_some_and(|t| t.mode == Mode::Full),
                trigger_comment: triggered.as_ref().and_then(|t| t.database_id),
                override_note: (args.post || triggered.is_some())
                    .then(|| gate.overridden.clone())
                    .flatten(),
                snapshot,
                prior,
                replay,
                ledger: &ledger,
                post,
                extra_json: None,
            };
            execute(job, &args).await.map(|_| ())
        }
        Target::Live(coords) => {
            if args.step.is_some() {
                return Err(CliError::usage(
                    "--step applies to fixtures with history, not to a live PR",
                ));
            }
            let gh = super::live::client(&coords).await?;
            let snapshot = gh.fetch_snapshot(&coords).await?;
            let team = settle_team(&gh, &snapshot.pr, &cfg, true).await;
            let triggered = match args.trigger_comment.as_deref() {
                Some(id) => Some(apply_trigger(&snapshot, id)?),
                None => None,
            };
            let gate = policy::gate(&snapshot.pr, team, &cfg, policy::Invocation::Explicit);
            let own = gh.viewer_login().await?;
            let job = live_job(
                &gh,
                snapshot,
                &own,
                triggered,
                args.all,
                &gate,
                &ledger,
                if args.post {
                    PostChoice::Post { fatal_block: true }
                } else {
                    PostChoice::No
                },
                args.post,
            );
            execute(job, &args).await.map(|_| ())
        }
    }
}

/// Whether posting is asked for.
pub(crate) enum PostChoice {
    No,
    /// Post when the gates allow; `fatal_block`: a gate that forbids it is an error (exit 1).
    Post {
        fatal_block: bool,
    },
}

/// A review of a live PR: prior reviews by the credentials' own identity, the cutoff of a
/// trigger, the gates' verdict on posting.
#[allow(clippy::too_many_arguments)]
pub(crate) fn live_job<'a>(
    gh: &'a GitHub,
    snapshot: Snapshot,
    own: &str,
    triggered: Option<Triggered>,
    all: bool,
    gate: &policy::GateDecision,
    ledger: &'a Ledger,
    post: PostChoice,
    explicit_post: bool,
) -> Job<'a> {
    let coords = snapshot.pr.coords();
    let snapshot = match &triggered {
        Some(t) => t.snapshot.clone(),
        None => snapshot,
    };
    let prior = prior_reviews(&snapshot, own);
    let post = match post {
        PostChoice::No => Posting::No,
        PostChoice::Post { fatal_block } => {
            if gate.post {
                Posting::GitHub(GitHubComments {
                    gh,
                    pr: coords,
                    own_login: own.to_owned(),
                })
            } else {
                Posting::Blocked {
                    reason: gate.reason.clone(),
                    fatal: fatal_block,
                }
            }
        }
    };
    Job {
        full: all || triggered.as_ref().is_some_and(|t| t.mode == Mode::Full),
        trigger_comment: triggered.as_ref().and_then(|t| t.database_id),
        override_note: (explicit_post || triggered.is_some())
            .then(|| gate.overridden.clone())
            .flatten(),
        snapshot,
        prior,
        replay: None,
        ledger,
        post,
        extra_json: None,
    }
}

/// Team or not, settled: the association, then for an ambiguous one (and only when `is_org`)
/// `GET /orgs/{owner}/members/{login}`. `None` when it stays unknown (counts as community).
pub(crate) async fn settle_team(
    gh: &GitHub,
    pr: &crate::pr::PrMeta,
    cfg: &policy::GateConfig,
    is_org: bool,
) -> Option<bool> {
    match policy::membership(pr.author.association, cfg) {
        policy::Membership::Team => Some(true),
        policy::Membership::Community => Some(false),
        policy::Membership::Ambiguous if !is_org => Some(false),
        policy::Membership::Ambiguous => {
            match is_org_member(gh, &pr.owner, &pr.author.login).await {
                Ok(v) => v,
                Err(e) => {
                    eprintln!(
                        "warning: the org membership check failed ({e}); counted as community"
                    );
                    None
                }
            }
        }
    }
}

/// A trigger comment that checked out: its mode, the cut-off snapshot and its database id.
#[derive(Debug, Clone)]
pub(crate) struct Triggered {
    pub mode: Mode,
    pub snapshot: Snapshot,
    pub database_id: Option<u64>,
}

/// Checks comment `id` (database or node id) as a trigger and cuts the timeline off at it. Its
/// body is tested here and never travels on: only the mode does.
pub(crate) fn apply_trigger(snapshot: &Snapshot, id: &str) -> Result<Triggered, CliError> {
    let id = id.trim();
    let comment = snapshot
        .items
        .iter()
        .find_map(|i| match i {
            Item::Comment(c)
                if c.id == id
                    || (!id.is_empty()
                        && id.bytes().all(|b| b.is_ascii_digit())
                        && c.url.ends_with(&format!("#issuecomment-{id}"))) =>
            {
                Some(c)
            }
            _ => None,
        })
        .ok_or_else(|| {
            CliError::usage(format!(
                "trigger comment `{}` is not a conversation comment on this PR",
                one_line(id)
            ))
        })?;
    let mode = match policy::trigger(&comment.author, &comment.body) {
        policy::TriggerDecision::Review(m) => m,
        policy::TriggerDecision::Ignore(why) => {
            return Err(CliError::usage(format!(
                "comment `{}` is not a valid trigger: {}",
                one_line(id),
                one_line(&why)
            )));
        }
    };
    let database_id = comment
        .url
        .rsplit_once("#issuecomment-")
        .and_then(|(_, n)| n.parse::<u64>().ok())
        .or_else(|| id.parse::<u64>().ok());
    let (cut, report) =
        policy::cutoff(snapshot, &comment.id).map_err(|e| CliError::usage(e.to_string()))?;
    eprintln!(
        "trigger {}: {} review of the timeline through it; {} later or edited item(s) left out",
        one_line(id),
        match mode {
            Mode::Full => "full",
            Mode::Incremental => "incremental",
        },
        report.excluded.len()
    );
    Ok(Triggered {
        mode,
        snapshot: cut,
        database_id,
    })
}

/// Where a finished review goes.
pub(crate) enum Posting<'a> {
    No,
    /// Asked for, but a gate forbids it; `fatal` makes that an error (exit 1).
    Blocked {
        reason: String,
        fatal: bool,
    },
    Outbox,
    GitHub(GitHubComments<'a>),
}

/// One review to run, classify, compose, post and print.
pub(crate) struct Job<'a> {
    /// The PR as the review may see it (cut off at a trigger).
    pub snapshot: Snapshot,
    pub prior: PriorReviews,
    pub full: bool,
    pub trigger_comment: Option<u64>,
    pub override_note: Option<String>,
    pub replay: Option<ReplaySource>,
    pub ledger: &'a Ledger,
    pub post: Posting<'a>,
    /// A field added to the JSON document (event mode's decision).
    pub extra_json: Option<(&'static str, serde_json::Value)>,
}

/// Runs the review flow shared by `review` and `event`; returns what was posted.
pub(crate) async fn execute(job: Job<'_>, args: &ReviewArgs) -> Result<Option<Posted>, CliError> {
    let Job {
        snapshot,
        prior,
        full,
        trigger_comment,
        override_note,
        replay,
        ledger,
        post,
        extra_json,
    } = job;
    // The config file's [review] table, then the command-line flags over it.
    let mut settings = super::configured_review_settings()?;
    settings.apply(args.overrides());
    settings
        .validate()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let client =
        LlmClient::from_settings(&settings, replay).map_err(|e| CliError::usage(e.to_string()))?;
    let prompts = Prompts::load(settings.prompts_dir.as_deref());
    let coords = snapshot.pr.coords();
    let now = chrono::Utc::now().timestamp();

    for r in prior.own.iter().filter(|r| r.meta_error.is_some()) {
        eprintln!(
            "warning: the earlier review {} has unreadable metadata; its findings count as new",
            r.url
        );
    }
    let (mode, _) = choose_mode(&prior, full);
    let prior_findings = match mode {
        Mode::Incremental => prior.findings(),
        Mode::Full => Vec::new(),
    };

    let (tx, rx) = mpsc::unbounded_channel();
    let progress = tokio::spawn(show_progress(rx, std::io::stderr().is_terminal()));
    let cancel = CancellationToken::new();
    let on_ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    // Prompts are built from the PR's metadata and diff only: no comment body (and never a
    // trigger's) reaches them.
    let review = run_review_with_prior(
        Arc::new(snapshot.pr.clone()),
        &settings,
        Arc::new(client),
        Arc::new(prompts),
        prior_findings,
        tx,
        cancel,
    )
    .await;
    on_ctrl_c.abort();
    let _ = progress.await;

    if review.cancelled {
        return Err(CliError::runtime(
            "review cancelled; nothing was printed or saved",
        ));
    }
    match ledger.save_run(&coords, &review) {
        Ok(path) => tracing::debug!("run saved to {}", path.display()),
        Err(e) => eprintln!("warning: the review run was not saved: {e}"),
    }

    let agg = aggregate(
        &review,
        &snapshot,
        &prior,
        &AggregateRequest {
            full,
            reply_marker: args.reply_marker.clone(),
            trigger_comment,
            override_note,
            ..AggregateRequest::default()
        },
    );
    let body = compose::markdown(&review, &agg);

    // Post before printing, so the output can say what happened.
    let mut posted = None;
    let mut post_error = None;
    let mut post_note = None;
    match &post {
        Posting::No => {}
        Posting::Blocked { reason, fatal } => {
            let msg = format!("not posted: {reason}");
            if *fatal {
                post_error = Some(msg);
            } else {
                post_note = Some(msg);
            }
        }
        Posting::Outbox => {
            let outbox = Outbox {
                ledger,
                pr: coords.clone(),
                now,
            };
            match upsert(&outbox, &body, 3).await {
                Ok(p) => posted = Some(p),
                Err(e) => post_error = Some(format!("not posted: {e}")),
            }
        }
        Posting::GitHub(store) => match upsert(store, &body, 3).await {
            Ok(p) => posted = Some(p),
            Err(e) => post_error = Some(format!("not posted: {e}")),
        },
    }

    let text = match args.format {
        Format::Md => body.clone(),
        Format::Json => {
            let mut v = compose::json(&review, &agg, &body);
            v["posted"] = serde_json::to_value(&posted).unwrap_or_default();
            if let Some((k, extra)) = extra_json {
                v[k] = extra;
            }
            let mut s = serde_json::to_string_pretty(&v)
                .map_err(|e| CliError::runtime(format!("cannot encode the review: {e}")))?;
            s.push('\n');
            s
        }
    };
    super::emit(&text)?;
    if let Some(p) = &posted {
        eprintln!(
            "posted: {} comment {} ({})",
            match p.action {
                PostAction::Created => "created",
                PostAction::Updated => "updated",
            },
            p.comment_id,
            p.location
        );
    }
    if let Some(n) = post_note {
        eprintln!("{n}");
    }
    if let Some(e) = post_error {
        return Err(CliError::runtime(e));
    }

    if review.is_incomplete() {
        let which: Vec<String> = review
            .aspects
            .iter()
            .filter(|a| a.is_incomplete())
            .map(|a| format!("{} {}", a.aspect, a.state.as_str().replace('_', " ")))
            .collect();
        return Err(CliError::Incomplete(format!(
            "the review is incomplete: {}",
            which.join(", ")
        )));
    }
    Ok(posted)
}

/// Prints state changes to stderr when it is a terminal; otherwise only drains the channel.
async fn show_progress(mut rx: mpsc::UnboundedReceiver<ReviewEvent>, show: bool) {
    while let Some(ev) = rx.recv().await {
        if !show {
            continue;
        }
        let line = match ev {
            ReviewEvent::Queued { .. }
            | ReviewEvent::Running { .. }
            | ReviewEvent::Streaming { .. } => continue,
            ReviewEvent::Done {
                aspect,
                findings,
                elapsed,
            } => format!(
                "{aspect}: done, {findings} finding(s) in {:.1} s",
                elapsed.as_secs_f64()
            ),
            ReviewEvent::Failed { aspect, why } => format!("{aspect}: failed: {}", one_line(&why)),
            ReviewEvent::TimedOut { aspect, after } => {
                format!("{aspect}: timed out after {:.1} s", after.as_secs_f64())
            }
            ReviewEvent::Skipped { aspect, reason } => {
                format!("{aspect}: skipped: {}", one_line(&reason))
            }
            ReviewEvent::Cancelled { aspect } => format!("{aspect}: cancelled"),
            ReviewEvent::Finished(run) => {
                format!("review finished in {:.1} s", run.elapsed_ms as f64 / 1000.0)
            }
        };
        eprintln!("{line}");
    }
}
