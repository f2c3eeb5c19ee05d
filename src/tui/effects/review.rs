//! The review lane's work: a console review run (`r`/`R`) through the shared review flow of the
//! headless commands ([`crate::review::flow`]) — its inputs resolved, prepared, run and concluded
//! there, so the console and `pr-shepherd review` end a run alike; the console only shows it.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::ledger::Ledger;
use crate::pr::Snapshot;
use crate::review::flow::{self, PreparedReview, ReviewRequest};
use crate::review::llm::LlmEnv;
use crate::review::results::aggregate::AggregateRequest;
use crate::review::settings::Overrides;
use crate::review::{ReviewEvent, ReviewSettings};
use crate::source::Fixture;
use crate::source::github::GitHub;
use crate::tui::app::{Action, console_gate};
use crate::tui::session::Session;

/// What a console review needs beyond the snapshot and the session (whose identity decides
/// which earlier reviews are Shepherd's).
#[derive(Debug, Clone)]
pub struct ConsoleReview {
    pub settings: ReviewSettings,
    /// The literal marker that ends a reply addressing a finding.
    pub reply_marker: String,
    /// The LLM keys and base URLs the environment offers (read once at the edge; none by
    /// default).
    pub llm_env: LlmEnv,
}

impl Default for ConsoleReview {
    fn default() -> Self {
        ConsoleReview {
            settings: ReviewSettings::default(),
            reply_marker: crate::review::results::classify::DEFAULT_REPLY_MARKER.to_owned(),
            llm_env: LlmEnv::default(),
        }
    }
}

/// A prepared review run: the shared flow's preparation plus what the app is told.
pub struct Prepared {
    pub seq: u64,
    pub review: PreparedReview,
    /// `Action::ReviewStarted` for the app.
    pub started: Action,
    /// The PR as the run sees it, the fixture it came from and the live client (the run's
    /// inputs are resolved from them, see [`flow::inputs`]).
    snapshot: Box<Snapshot>,
    fixture: Option<Fixture>,
    live: Option<Arc<GitHub>>,
    /// How the finished run is classified: the maintainer's explicit run may override the
    /// community and pause gates, and the posted review says so.
    request: AggregateRequest,
}

/// Prepares run `seq` through the same review flow as `pr-shepherd review` ([`flow::prepare`]):
/// replay with the fixture's recorded answers at the snapshot's step for fixtures (unless the
/// settings name a backend), else the settings; earlier reviews from the PR (plus the outbox
/// offline) decide incremental or full.
pub fn prepare(
    review: &ConsoleReview,
    session: &Session,
    fixture: Option<Fixture>,
    ledger: &Ledger,
    seq: u64,
    full: bool,
    snapshot: &Snapshot,
) -> Result<Prepared, String> {
    let live = session.remote.live().map(|l| l.gh.clone());
    let outbox = session
        .remote
        .offline_post(ledger, &snapshot.pr.coords())
        .map_err(|e| e.to_string())?;
    let prepared = flow::prepare(ReviewRequest {
        settings: &review.settings,
        llm_env: &review.llm_env,
        overrides: Overrides::default(),
        snapshot,
        identity: session.identity(),
        outbox,
        replay: flow::inputs(snapshot, fixture.as_ref(), live.as_deref()).replay,
        full,
        state: Some(ledger),
        collaborators_are_team: session.gates.collaborators_are_team,
    })
    .map_err(|e| e.to_string())?;
    let started = Action::ReviewStarted {
        seq,
        mode: prepared.mode,
        reason: prepared.mode_reason.clone(),
        prior: Box::new(prepared.prior.clone()),
        reply_marker: review.reply_marker.clone(),
    };
    let request = AggregateRequest {
        full,
        reply_marker: review.reply_marker.clone(),
        override_note: console_gate(&snapshot.pr, &session.gates).overridden,
        ..AggregateRequest::default()
    };
    Ok(Prepared {
        seq,
        review: prepared,
        started,
        snapshot: Box::new(snapshot.clone()),
        fixture,
        live,
        request,
    })
}

/// Reads what the aspects are given besides the PR (the repository's guidance from the base
/// branch, the head commit's failing checks: live through the PR's client, offline the
/// fixture's), runs a prepared review to its end and concludes it ([`PreparedReview::conclude`]:
/// saved, classified, composed, its decisions recorded) at `now`. What the app is told: the
/// concluded review, then what could not be saved or recorded; nothing for a cancelled run.
pub async fn run(
    p: Prepared,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
    now: i64,
) -> Vec<Action> {
    let Prepared {
        seq,
        mut review,
        snapshot,
        fixture,
        live,
        request,
        ..
    } = p;
    let inputs = flow::inputs(&snapshot, fixture.as_ref(), live.as_deref());
    review.read_guidance(inputs.base).await;
    review.read_checks(inputs.checks).await;
    let run = review.run(events, cancel).await;
    let Some(concluded) = review.conclude(run, &snapshot, request, now) else {
        return Vec::new();
    };
    let unsaved = concluded
        .unsaved
        .as_ref()
        .map(|e| Action::Notice(format!("the review run was not saved: {e}")));
    let unrecorded = concluded
        .unrecorded
        .clone()
        .map(|e| Action::Notice(format!("what became of the findings was NOT recorded: {e}")));
    let concluded = Action::ReviewConcluded {
        seq,
        concluded: Box::new(concluded),
    };
    std::iter::once(concluded)
        .chain(unrecorded)
        .chain(unsaved)
        .collect()
}
