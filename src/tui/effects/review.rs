//! The review lane's work: preparing a console review run (`r`/`R`) — settings, backend,
//! prompts, earlier reviews, mode — through the shared review flow of the headless commands
//! ([`crate::review::flow`]), so the console and `pr-shepherd review` prepare a run alike; then
//! running it and saving it in the ledger.

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::ledger::offline_post;
use crate::ledger::Ledger;
use crate::pr::{Origin, Snapshot};
use crate::review::flow::{self, PreparedReview, ReviewRequest};
use crate::review::inputs::failing::ChecksSource;
use crate::review::inputs::guidance::BaseSource;
use crate::review::llm::{LlmEnv, ReplaySource};
use crate::review::settings::Overrides;
use crate::review::{ReviewEvent, ReviewSettings};
use crate::source::Fixture;
use crate::tui::app::Action;
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
    /// Where the repository's guidance is read from: always the base branch.
    base: Base,
    /// The checks a fixture recorded, and the head they were recorded at (live: read from
    /// GitHub at the head, through `base`'s client).
    recorded_checks: Option<(Vec<crate::pr::CheckRun>, String)>,
}

/// The base branch's files: the fixture's recorded ones, or GitHub at the base commit.
enum Base {
    Recorded(Vec<crate::pr::BaseFile>),
    Live(std::sync::Arc<crate::source::github::GitHub>),
}

/// Prepares run `seq` through the same review flow as `pr-shepherd review` ([`flow::prepare`]):
/// replay with the fixture's recorded answers at the snapshot's step for fixtures (unless the
/// settings name a backend), else the settings; earlier reviews from the PR (plus the outbox
/// offline) decide incremental or full.
pub fn prepare(
    review: &ConsoleReview,
    session: &Session,
    fixture: Option<&Fixture>,
    ledger: &Ledger,
    seq: u64,
    full: bool,
    snapshot: &Snapshot,
) -> Result<Prepared, String> {
    let step = match snapshot.origin {
        Origin::Fixture { step, .. } => step,
        Origin::Live => 0,
    };
    let replay = fixture.map(|f| ReplaySource {
        answers: f.llm.answers.clone(),
        step,
    });
    let outbox =
        offline_post(ledger, &session.remote, &snapshot.pr.coords()).map_err(|e| e.to_string())?;
    let prepared = flow::prepare(ReviewRequest {
        settings: &review.settings,
        llm_env: &review.llm_env,
        overrides: Overrides::default(),
        snapshot,
        identity: session.identity(),
        outbox,
        replay,
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
    let base = match (session.remote.live(), fixture) {
        (Some(live), _) => Base::Live(live.gh.clone()),
        (None, Some(f)) => Base::Recorded(crate::source::base_files_at(
            &f.base_files,
            &f.pr.base_sha,
            &snapshot.pr.base_sha,
        )),
        (None, None) => Base::Recorded(Vec::new()),
    };
    let recorded_checks = match (session.remote.live(), fixture) {
        (None, Some(f)) => Some((f.dashboard.check_runs.clone(), f.pr.head_sha.clone())),
        _ => None,
    };
    Ok(Prepared {
        seq,
        review: prepared,
        started,
        base,
        recorded_checks,
    })
}

/// Reads the repository's guidance from the base branch, runs a prepared review to its end and
/// saves it in the ledger (unless cancelled); a run that could not be saved is said.
pub async fn run(
    ledger: &Ledger,
    p: Prepared,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
) -> Option<String> {
    let Prepared {
        mut review,
        base,
        recorded_checks,
        ..
    } = p;
    read_context(&mut review, &base, recorded_checks).await;
    let coords = review.pr.coords();
    let run = review.run(events, cancel).await;
    if run.cancelled {
        return None;
    }
    ledger
        .save_run(&coords, &run)
        .err()
        .map(|e| format!("the review run was not saved: {e}"))
}

/// Reads what the aspects are given besides the PR: the repository's guidance from the base
/// branch, and the head commit's failing checks (as `pr-shepherd review` does; live through the
/// PR's client, offline the fixture's recorded checks). A failure to read either is kept in the
/// run's context and the review goes on.
async fn read_context(
    review: &mut PreparedReview,
    base: &Base,
    recorded_checks: Option<(Vec<crate::pr::CheckRun>, String)>,
) {
    match base {
        Base::Recorded(files) => {
            review
                .read_guidance(BaseSource::Recorded(files.clone()))
                .await
        }
        Base::Live(gh) => review.read_guidance(BaseSource::Live(gh)).await,
    }
    let checks = match (base, recorded_checks) {
        (Base::Live(gh), _) => ChecksSource::Live(gh),
        (Base::Recorded(_), Some((runs, head))) => ChecksSource::Recorded { runs, head },
        (Base::Recorded(_), None) => ChecksSource::None,
    };
    review.read_checks(checks).await;
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::policy::GateConfig;
    use crate::source::DEMO_FIXTURE;

    /// The console's review reads `[gates] collaborators_are_team` like `pr-shepherd review`
    /// does: a COLLABORATOR's marker reply counts as the team's only when the gates say so.
    #[test]
    fn the_console_review_takes_whose_replies_count_from_the_gates() {
        let fixture = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap();
        let snapshot = fixture.clone().into_snapshot_at(0).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        for team in [false, true] {
            let session = Session {
                gates: GateConfig {
                    collaborators_are_team: team,
                    ..GateConfig::default()
                },
                ..Session::default()
            };
            let p = prepare(
                &ConsoleReview::default(),
                &session,
                Some(&fixture),
                &ledger,
                1,
                false,
                &snapshot,
            )
            .unwrap();
            assert_eq!(p.review.prior.reply_trust.collaborators_are_team, team);
        }
    }

    /// The console's review gives the aspects the head commit's failing checks, as
    /// `pr-shepherd review` does: the demo fixture records one failing check run.
    #[tokio::test]
    async fn the_console_review_reads_the_fixtures_failing_checks() {
        let fixture = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap();
        let snapshot = fixture.clone().into_snapshot_at(0).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let p = prepare(
            &ConsoleReview::default(),
            &Session::default(),
            Some(&fixture),
            &ledger,
            1,
            false,
            &snapshot,
        )
        .unwrap();
        let Prepared {
            mut review,
            base,
            recorded_checks,
            ..
        } = p;
        assert_eq!(review.failing.checks, 0);
        read_context(&mut review, &base, recorded_checks).await;
        assert!(review.failing.checks >= 1, "{:?}", review.failing);
        assert!(
            review
                .failing
                .lines
                .iter()
                .any(|l| l.contains("test (ubuntu-latest)")),
            "{:?}",
            review.failing.lines
        );
    }
}
