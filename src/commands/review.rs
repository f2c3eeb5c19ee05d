//! `pr-shepherd review`: the six aspects, headless.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cli::{Format, ReviewArgs};
use crate::error::CliError;
use crate::policy::{self, Mode};
use crate::publish::{Outbox, PostAction, upsert};
use crate::review::aggregate::{AggregateRequest, aggregate, choose_mode};
use crate::review::llm::{LlmClient, ReplaySource};
use crate::review::prior::prior_reviews;
use crate::review::prompt::Prompts;
use crate::review::runner::run_review_with_prior;
use crate::review::settings::{BackendKind, Overrides};
use crate::review::{ReviewEvent, ReviewSettings, compose};
use crate::sanitize::one_line;
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
    let replay = match &target {
        Target::Fixture(f) => Some(ReplaySource {
            answers: f.llm.answers.clone(),
            step: args.step.unwrap_or(0),
        }),
        Target::Live(_) => None,
    };
    let offline = matches!(target, Target::Fixture(_));
    let snapshot = super::load_snapshot(target, args.step).await?;
    let mut settings = ReviewSettings::default();
    settings.apply(args.overrides());
    settings
        .validate()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let client =
        LlmClient::from_settings(&settings, replay).map_err(|e| CliError::usage(e.to_string()))?;
    let prompts = Prompts::load(settings.prompts_dir.as_deref());
    let coords = snapshot.pr.coords();
    let ledger = super::open_ledger(state_dir)?;
    let now = chrono::Utc::now().timestamp();

    // Earlier Shepherd reviews, read from the PR itself (and, offline, from the outbox).
    let mut prior = prior_reviews(&snapshot, &args.identity);
    if offline {
        prior.add_outbox(ledger.outbox(&coords)?);
    }
    for r in prior.own.iter().filter(|r| r.meta_error.is_some()) {
        eprintln!(
            "warning: the earlier review {} has unreadable metadata; its findings count as new",
            r.url
        );
    }
    let (mode, _) = choose_mode(&prior, args.all);
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
            full: args.all,
            reply_marker: args.reply_marker.clone(),
            ..AggregateRequest::default()
        },
    );
    let body = compose::markdown(&review, &agg);

    // Post before printing, so the output can say what happened.
    let mut posted = None;
    let mut post_error = None;
    if args.post {
        let gate = policy::gate(
            &snapshot.pr,
            None,
            &policy::GateConfig::default(),
            policy::Invocation::Explicit,
        );
        if !gate.post {
            post_error = Some(format!("not posted: {}", gate.reason));
        } else if offline {
            let outbox = Outbox {
                ledger: &ledger,
                pr: coords.clone(),
                now,
            };
            match upsert(&outbox, &body, 3).await {
                Ok(p) => posted = Some(p),
                Err(e) => post_error = Some(format!("not posted: {e}")),
            }
        } else {
            post_error = Some("not posted: posting to GitHub needs the live source".to_owned());
        }
    }

    let text = match args.format {
        Format::Md => body.clone(),
        Format::Json => {
            let mut v = compose::json(&review, &agg, &body);
            v["posted"] = serde_json::to_value(&posted).unwrap_or_default();
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
    Ok(())
}

/// Prints state changes to stderr when it is a terminal; otherwise only drains the channel.
async fn show_progress(mut rx: mpsc::UnboundedReceiver<ReviewEvent>, show: bool) {
    while let Some(ev) = rx.recv().await {
        if !show {
            continue;
        }
        let line = match ev {
            ReviewEvent::Queued { .. } | ReviewEvent::Running { .. } => continue,
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
