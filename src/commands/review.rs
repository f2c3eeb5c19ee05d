//! `pr-shepherd review`: the six aspects, headless.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cli::{Format, ReviewArgs};
use crate::error::CliError;
use crate::review::llm::{LlmClient, ReplaySource};
use crate::review::prompt::Prompts;
use crate::review::settings::{BackendKind, Overrides};
use crate::review::{ReviewEvent, ReviewSettings, compose, run_review};
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
    let review = run_review(
        Arc::new(snapshot.pr),
        &settings,
        Arc::new(client),
        Arc::new(prompts),
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
    let ledger = super::open_ledger(state_dir)?;
    match ledger.save_run(&coords, &review) {
        Ok(path) => tracing::debug!("run saved to {}", path.display()),
        Err(e) => eprintln!("warning: the review run was not saved: {e}"),
    }

    let body = compose::markdown(&review);
    let text = match args.format {
        Format::Md => body,
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&compose::json(&review, &body))
                .map_err(|e| CliError::runtime(format!("cannot encode the review: {e}")))?;
            s.push('\n');
            s
        }
    };
    super::emit(&text)?;

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
