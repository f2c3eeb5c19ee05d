//! The one review flow: from a [`ReviewRequest`] to a [`PreparedReview`] that is ready to run.
//!
//! Every way of starting a review — `pr-shepherd review`, `event`, `watch`, and the console's
//! `r` — goes through [`prepare`]: the config file's `[review]` table with the caller's overrides
//! over it, validated; the LLM backend built from those settings (replaying a fixture's recorded
//! answers when there are any); the prompts loaded; Shepherd's earlier reviews read from the PR
//! (and, offline, from the outbox); and the mode picked (incremental once a review exists, unless
//! a full one is asked for). [`PreparedReview::run`] then runs the six aspects.
//!
//! Its back half is shared too: [`inputs`] resolves what a run reads from where the snapshot
//! came from (a fixture's recorded answers, base files and checks, or GitHub), and
//! [`PreparedReview::conclude`] ends a finished run once for every front end — saved, classified,
//! composed, fitted, its decisions recorded, what could not be saved said in the [`Concluded`].
//!
//! It lives in `review` (not in `commands`) because both front ends sit above `review`: the
//! headless commands and the console can each call it without either importing the other. What
//! happens around a run — gates, triggers, progress on stderr or on screen, posting, printing —
//! stays with the front end.
//!
//! ```ignore
//! let mut prepared = flow::prepare(ReviewRequest {
//!     settings: &config.review,
//!     llm_env: &ctx.llm_env,
//!     overrides: Overrides::default(),
//!     snapshot: &snapshot,
//!     identity: "pr-shepherd",
//!     outbox: ledger.outbox(&coords)?,
//!     replay: inputs.replay, // inputs = flow::inputs(&snapshot, fixture, live)
//!     full: false,
//!     state: Some(&ledger),
//!     collaborators_are_team: config.gates.collaborators_are_team,
//! })?;
//! prepared.read_guidance(inputs.base).await;
//! prepared.read_checks(inputs.checks).await;
//! let run = prepared.run(events_tx, cancel).await;
//! let concluded = prepared.conclude(run, &snapshot, request, now); // None: cancelled
//! ```

mod conclude;
mod inputs;

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::engine::budget::{Budget, SpendLog, SpentToday};
use super::engine::extras::RunExtras;
use super::engine::scheduler::{ReviewEvent, run_review_with};
use super::inputs::blocks::PromptBlocks;
use super::inputs::failing::{self, ChecksSource, FailingChecks};
use super::inputs::guidance::{self, BaseSource, Guidance};
use super::inputs::others::{Remark, remarks};
use super::inputs::prior::{MetaFinding, PriorReviews, prior_reviews};
use super::inputs::prompt::{Prompts, strip_untrusted};
use super::llm::{LlmClient, LlmEnv, LlmError, ReplaySource};
use super::results::aggregate::choose_mode;
use super::results::screening::{Dismissal, Screening, lesson_line};
use super::results::verify::VerifySetup;
use super::run::{ReviewRun, RunFacts, new_run_id};
use super::settings::{BackendKind, Overrides, ReviewSettings, SettingsError};
use crate::ledger::{Ledger, Lesson, RepoId};
use crate::policy::Mode;
use crate::pr::OutboxComment;
use crate::pr::{PrMeta, Snapshot};
pub use conclude::{Concluded, posted_decisions};
pub use inputs::{RunInputs, inputs};

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
    /// The state dir: the maintainer's dismissals on this PR and lessons for its repository
    /// are read from it, today's spend for the daily budget, and the run's spend and decisions
    /// are recorded in it. `None`: none of that (tests).
    pub state: Option<&'a Ledger>,
    /// `[gates] collaborators_are_team`: whether a COLLABORATOR's marker reply counts as the
    /// team's (see [`crate::review::inputs::prior::ReplyTrust`]). Every front end passes its gates.
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
    Prompt(#[from] super::inputs::prompt::PromptFileError),
    /// The state dir's dismissals, lessons or spend cannot be read: reviewing without them would
    /// propose dismissed findings again or overspend (a runtime failure, exit 1).
    #[error("{0}")]
    State(String),
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
    /// The maintainer's dismissals on this PR (held back when proposed again) and the
    /// repository's lessons (given to the aspects).
    pub dismissals: Vec<Dismissal>,
    pub lessons: Vec<Lesson>,
    /// Other reviewers' open threads and comments.
    pub others: Vec<Remark>,
    /// The repository's guidance from the base branch (see [`PreparedReview::read_guidance`]).
    pub guidance: Guidance,
    /// The failing checks at the head commit (see [`PreparedReview::read_checks`]).
    pub failing: FailingChecks,
    /// What the repository spent earlier today (for the daily budget).
    pub spent_today: SpentToday,
    /// The fixture's recorded verifier answers, for the replay backend.
    pub verify_recorded: Option<Vec<crate::pr::RecordedAnswer>>,
    /// Where the run's spend and decisions are recorded, and the concluded run saved.
    pub state: Option<Ledger>,
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
        state,
        collaborators_are_team,
    } = req;
    let settings = effective_settings(settings, overrides)?;
    let verify_recorded = replay
        .as_ref()
        .filter(|_| settings.llm.is_none_or(|k| k == BackendKind::Replay))
        .map(|r| {
            r.answers
                .iter()
                .filter(|a| a.aspect.starts_with("verify:") && a.step <= r.step)
                .cloned()
                .collect::<Vec<_>>()
        });
    let client = LlmClient::from_settings(&settings, llm_env, replay)?;
    let prompts = Prompts::load(settings.prompts_dir.as_deref())?;
    let mut prior = prior_reviews(snapshot, identity);
    prior.add_outbox(outbox);
    // Whose marker replies count travels with the prior reviews to every front end's
    // classification: the agent logins of the settings and the gates' word on collaborators.
    prior.reply_trust.agent_logins = settings.agent_logins.clone();
    prior.reply_trust.collaborators_are_team = collaborators_are_team;
    prior.reply_trust.shepherd_login = Some(req.identity.to_owned());
    let (mode, mode_reason) = choose_mode(&prior, full);
    let prior_findings = match mode {
        Mode::Incremental => prior.findings(),
        Mode::Full => Vec::new(),
    };
    let coords = snapshot.pr.coords();
    let repo = RepoId::of(&coords);
    let read = |e: crate::ledger::LedgerError| FlowError::State(e.to_string());
    let (dismissals, lessons, spent_today) = match state {
        Some(l) => {
            let dismissals = Dismissal::from_decisions(&l.dismissals(&coords).map_err(read)?);
            let lessons = l.lessons(&repo).map_err(read)?;
            let spent_today =
                if settings.daily_max_input_tokens.is_some() || settings.daily_max_cost.is_some() {
                    let day = l.spent_on(&repo, &today()).map_err(read)?;
                    SpentToday {
                        input_tokens: day.input_tokens,
                        cost: day.cost,
                    }
                } else {
                    SpentToday::default()
                };
            (dismissals, lessons, spent_today)
        }
        None => (Vec::new(), Vec::new(), SpentToday::default()),
    };
    let others = remarks(snapshot, identity);
    Ok(PreparedReview {
        settings,
        client: Arc::new(client),
        prompts: Arc::new(prompts),
        pr: Arc::new(snapshot.pr.clone()),
        prior,
        mode,
        mode_reason,
        prior_findings,
        dismissals,
        lessons,
        others,
        guidance: Guidance::default(),
        failing: FailingChecks::default(),
        spent_today,
        verify_recorded,
        state: state.cloned(),
    })
}

/// Today's UTC day, as the spend log names it.
pub fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
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
    /// Reads the repository's guidance from the base branch (`source`: the fixture's recorded
    /// files, or GitHub at the base commit). Without it the run has no guidance.
    pub async fn read_guidance(&mut self, source: BaseSource<'_>) {
        self.guidance = guidance::read(source, &self.pr, &self.settings).await;
    }

    /// Reads the checks at the head commit (`source`: the fixture's recorded checks, or GitHub
    /// in one request) and keeps the failing ones for the aspects. A failure to read them is
    /// kept as the run's `checksError`; the review goes on without them.
    pub async fn read_checks(&mut self, source: ChecksSource<'_>) {
        self.failing = failing::read(source, &self.pr).await;
    }

    /// What the run is given besides the PR: its prompts' context, the screening, the verifier
    /// and the budget.
    pub fn extras(&self) -> RunExtras {
        let run_id = new_run_id(chrono::Utc::now());
        let mut budget = Budget::new(&self.settings, self.spent_today);
        if let Some(l) = &self.state {
            let coords = self.pr.coords();
            budget = budget.logged(SpendLog {
                ledger: l.clone(),
                repo: RepoId::of(&coords),
                pr: coords.number,
                run: run_id.clone(),
            });
        }
        let mut context = PromptBlocks::default();
        self.guidance.fill(&mut context, &self.pr);
        context.lessons = self.lessons.iter().map(lesson_line).collect();
        context.dismissed = self.dismissals.iter().map(Dismissal::prompt_line).collect();
        context.others = self.others.iter().map(Remark::prompt_line).collect();
        context.checks = self.failing.lines.clone();
        context.checks_left_out = self.failing.left_out.clone();
        let verify = self.settings.verify.then(|| VerifySetup {
            threshold: u8::try_from(self.settings.verify_threshold.min(100)).unwrap_or(100),
            recorded: self.verify_recorded.clone(),
            patches: self
                .pr
                .files
                .iter()
                .filter_map(|f| {
                    let p = f.patch.as_ref()?;
                    Some((strip_untrusted(&f.path).text, strip_untrusted(p).text))
                })
                .collect(),
        });
        RunExtras {
            record: RunFacts {
                guidance: self.guidance.read.clone(),
                guidance_error: self.guidance.error.clone(),
                lessons: self.lessons.len(),
                dismissals: self.dismissals.len(),
                others: self.others.len(),
                failing_checks: self.failing.checks,
                failing_annotations: self.failing.annotations,
                checks_error: self.failing.error.clone(),
                budget: None,
                verify_threshold: verify.as_ref().map(|v| v.threshold),
                unrecorded: None,
            },
            context,
            screening: Screening {
                dismissals: self.dismissals.clone(),
                others: self.others.clone(),
            },
            verify,
            budget: Arc::new(budget),
            run_id: Some(run_id),
        }
    }

    /// Runs the six aspects to their end (or until `cancel`), reporting on `events`; each call
    /// is reserved and settled in the state dir's spend log as it goes (what could not be
    /// recorded is said in `context.unrecorded`); what the run proposed is recorded when it is
    /// concluded ([`PreparedReview::conclude`]). Prompts carry the PR's metadata and diff and the
    /// run's context (guidance, lessons, other reviewers' remarks): never a trigger's text.
    pub async fn run(
        &self,
        events: mpsc::UnboundedSender<ReviewEvent>,
        cancel: CancellationToken,
    ) -> ReviewRun {
        let extras = Arc::new(self.extras());
        let mut run = run_review_with(
            self.pr.clone(),
            &self.settings,
            self.client.clone(),
            self.prompts.clone(),
            self.prior_findings.clone(),
            extras.clone(),
            events,
            cancel,
        )
        .await;
        // What each call spent is already in the spend log (written as the call ended, also in
        // a cancelled run); what the run proposed is recorded once it is concluded.
        if let Some(e) = extras.budget.unrecorded() {
            run.context.unrecorded = Some(format!(
                "the run's spend was not all recorded in the state dir: {e}"
            ));
        }
        run
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
            state: None,
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

    /// Whose marker replies count travels with the prior reviews: a COLLABORATOR's counts as
    /// the team's only when `[gates] collaborators_are_team` says so — the console's review
    /// as `pr-shepherd review` (once a parity test of the console).
    #[test]
    fn whose_replies_count_comes_from_the_gates() {
        let (f, s) = demo();
        let base = ReviewSettings::default();
        for team in [false, true] {
            let replay = Some(ReplaySource {
                answers: f.llm.answers.clone(),
                step: 0,
            });
            let mut req = request(&base, &s, replay);
            req.collaborators_are_team = team;
            let p = prepare(req).unwrap();
            assert_eq!(p.prior.reply_trust.collaborators_are_team, team);
        }
    }
}
