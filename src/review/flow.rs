//! The one review flow: from a [`ReviewRequest`] to a [`PreparedReview`] that is ready to run.
//!
//! Every way of starting a review — `pr-shepherd review`, `event`, `watch`, and the console's
//! `r` — goes through [`prepare`]: the config file's `[review]` table with the caller's overrides
//! over it, validated; the LLM backend built from those settings (replaying a fixture's recorded
//! answers when there are any); the prompts loaded; Shepherd's earlier reviews read from the PR
//! (and, offline, from the outbox); and the mode picked (incremental once a review exists, unless
//! a full one is asked for). [`PreparedReview::run`] then runs the six aspects.
//!
//! It lives in `review` (not in `commands`) because both front ends sit above `review`: the
//! headless commands and the console can each call it without either importing the other. What
//! happens around a run — gates, triggers, progress on stderr or on screen, posting, printing —
//! stays with the front end.
//!
//! ```ignore
//! let prepared = flow::prepare(ReviewRequest {
//!     settings: &config.review,
//!     llm_env: &ctx.llm_env,
//!     overrides: Overrides::default(),
//!     snapshot: &snapshot,
//!     identity: "pr-shepherd",
//!     outbox: ledger.outbox(&coords)?,
//!     replay: None,
//!     full: false,
//!     collaborators_are_team: config.gates.collaborators_are_team,
//! })?;
//! let run = prepared.run(events_tx, cancel).await;
//! ```

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::aggregate::choose_mode;
use super::llm::{LlmClient, LlmEnv, LlmError, ReplaySource};
use super::prior::{MetaFinding, PriorReviews, prior_reviews};
use super::prompt::Prompts;
use super::run::ReviewRun;
use super::runner::{ReviewEvent, run_review_with_prior};
use super::settings::{Overrides, ReviewSettings, SettingsError};
use crate::policy::Mode;
use crate::pr::OutboxComment;
use crate::pr::{PrMeta, Snapshot};

/// What a review is asked to be. Every field is named; nothing is positional.
#[derive(Debug, Clone)]
pub struct ReviewRequest<'a> {
    /// The config file's `[review]` table (or the defaults without one).
    pub settings: &'a ReviewSettings,
    /// The LLM keys and base URLs the environment offers (read once at the edge).
    pub llm_env: &'a LlmEnv,
    /// The command line's overrides of those settings (empty for the console).
    pub overrides: Overrides,
    /// The PR as the review may see it (already cut off at a trigger comment).
    pub snapshot: &'a Snapshot,
    /// The login whose `## PR Shepherd Review` comments count as Shepherd's own: the
    /// credentials' account live, `--identity` (default `pr-shepherd`) offline.
    pub identity: &'a str,
    /// Offline: the outbox comment, an earlier review "posted" there (counts as prior).
    pub outbox: Option<OutboxComment>,
    /// A fixture's recorded answers, for the replay backend (`None` live).
    pub replay: Option<ReplaySource>,
    /// A full review (`--all`, `/review all`, the console's full review): earlier reviews are
    /// ignored for the prompts.
    pub full: bool,
    /// `[gates] collaborators_are_team`: whether a COLLABORATOR's marker reply counts as the
    /// team's (see [`crate::review::prior::ReplyTrust`]). Every front end passes its gates.
    pub collaborators_are_team: bool,
}

/// Why a review could not be prepared. Each is the user's to fix (exit 2 at the CLI edge).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// The settings cannot work (zero concurrency, no program for `llm = "command"`, …).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The backend cannot be set up (no API key, a bad URL, no recorded answers, …).
    #[error(transparent)]
    Backend(#[from] LlmError),
    /// A prompt file in the prompts dir cannot be used (a device, too large, not UTF-8, …).
    #[error(transparent)]
    Prompt(#[from] super::prompt::PromptFileError),
}

/// A review ready to run: everything the background task needs, plus what the front end shows
/// and aggregates with (the prior reviews and the mode with its reason).
#[derive(Clone)]
pub struct PreparedReview {
    /// The effective settings (config table plus overrides), validated.
    pub settings: ReviewSettings,
    pub client: Arc<LlmClient>,
    pub prompts: Arc<Prompts>,
    pub pr: Arc<PrMeta>,
    /// Shepherd's earlier reviews of this PR (from the PR, and offline from the outbox).
    pub prior: PriorReviews,
    /// Incremental or full, and why (for the console's status and the aggregate).
    pub mode: Mode,
    pub mode_reason: String,
    /// The prior findings each aspect's prompt carries (empty for a full review).
    pub prior_findings: Vec<MetaFinding>,
}

/// Prepares a review: settings, backend, prompts, prior reviews, mode.
pub fn prepare(req: ReviewRequest<'_>) -> Result<PreparedReview, FlowError> {
    let ReviewRequest {
        settings,
        llm_env,
        overrides,
        snapshot,
        identity,
        outbox,
        replay,
        full,
        collaborators_are_team,
    } = req;
    let settings = effective_settings(settings, overrides)?;
    let client = LlmClient::from_settings(&settings, llm_env, replay)?;
    let prompts = Prompts::load(settings.prompts_dir.as_deref())?;
    let mut prior = prior_reviews(snapshot, identity);
    prior.add_outbox(outbox);
    // Whose marker replies count travels with the prior reviews to every front end's
    // classification: the agent logins of the settings and the gates' word on collaborators.
    prior.reply_trust.agent_logins = settings.agent_logins.clone();
    prior.reply_trust.collaborators_are_team = collaborators_are_team;
    let (mode, mode_reason) = choose_mode(&prior, full);
    let prior_findings = match mode {
        Mode::Incremental => prior.findings(),
        Mode::Full => Vec::new(),
    };
    Ok(PreparedReview {
        settings,
        client: Arc::new(client),
        prompts: Arc::new(prompts),
        pr: Arc::new(snapshot.pr.clone()),
        prior,
        mode,
        mode_reason,
        prior_findings,
    })
}

/// The config table with the overrides over it, validated.
pub fn effective_settings(
    base: &ReviewSettings,
    overrides: Overrides,
) -> Result<ReviewSettings, SettingsError> {
    let mut settings = base.clone();
    settings.apply(overrides);
    settings.validate()?;
    Ok(settings)
}

impl PreparedReview {
    /// Runs the six aspects to their end (or until `cancel`), reporting on `events`. Prompts are
    /// built from the PR's metadata and diff only: no comment body (and never a trigger's)
    /// reaches them.
    pub async fn run(
        &self,
        events: mpsc::UnboundedSender<ReviewEvent>,
        cancel: CancellationToken,
    ) -> ReviewRun {
        run_review_with_prior(
            self.pr.clone(),
            &self.settings,
            self.client.clone(),
            self.prompts.clone(),
            self.prior_findings.clone(),
            events,
            cancel,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::settings::BackendKind;
    use crate::source::{DEMO_FIXTURE, Fixture};

    static NO_ENV: LlmEnv = LlmEnv {
        anthropic_api_key: None,
        anthropic_base_url: None,
        openai_api_key: None,
        openai_base_url: None,
        state_dir: None,
    };

    fn demo() -> (Fixture, Snapshot) {
        let f = Fixture::parse(DEMO_FIXTURE, std::path::Path::new("demo")).unwrap();
        let s = f.clone().into_snapshot_at(0).unwrap();
        (f, s)
    }

    fn request<'a>(
        settings: &'a ReviewSettings,
        snapshot: &'a Snapshot,
        replay: Option<ReplaySource>,
    ) -> ReviewRequest<'a> {
        ReviewRequest {
            settings,
            llm_env: &NO_ENV,
            overrides: Overrides::default(),
            snapshot,
            identity: "pr-shepherd",
            outbox: None,
            replay,
            full: false,
            collaborators_are_team: false,
        }
    }

    #[test]
    fn overrides_win_and_are_validated() {
        let (f, s) = demo();
        let base = ReviewSettings::default();
        let replay = Some(ReplaySource {
            answers: f.llm.answers.clone(),
            step: 0,
        });
        let mut req = request(&base, &s, replay.clone());
        req.overrides.concurrency = Some(2);
        let p = prepare(req).unwrap();
        assert_eq!(p.settings.concurrency, 2);
        assert_eq!(p.client.kind(), BackendKind::Replay);

        let mut req = request(&base, &s, replay);
        req.overrides.concurrency = Some(0);
        let err = prepare(req).err().unwrap();
        assert!(matches!(err, FlowError::Settings(_)), "{err}");
        assert!(err.to_string().contains("concurrency"), "{err}");
    }

    #[test]
    fn full_asks_for_no_prior_findings() {
        let (f, s) = demo();
        let base = ReviewSettings::default();
        let replay = Some(ReplaySource {
            answers: f.llm.answers.clone(),
            step: 0,
        });
        let mut req = request(&base, &s, replay);
        req.full = true;
        let p = prepare(req).unwrap();
        assert_eq!(p.mode, Mode::Full);
        assert!(p.prior_findings.is_empty());
        assert!(!p.mode_reason.is_empty());
    }

    #[test]
    fn replay_without_recorded_answers_is_a_backend_error() {
        let (_, s) = demo();
        let base = ReviewSettings {
            llm: Some(BackendKind::Replay),
            ..ReviewSettings::default()
        };
        let err = prepare(request(&base, &s, None)).err();
        assert!(matches!(err, Some(FlowError::Backend(_))), "{err:?}");
    }
}
