//! A run's inputs, from where its snapshot came from: a fixture's recorded answers (at the
//! snapshot's step), base branch files and check runs, or GitHub live. `review`, `event`, `watch`
//! and the console all resolve them here, so a run reads the same things whichever front end
//! started it.

use crate::pr::{Origin, Snapshot};
use crate::review::inputs::failing::ChecksSource;
use crate::review::inputs::guidance::BaseSource;
use crate::review::llm::ReplaySource;
use crate::source::Fixture;
use crate::source::github::GitHub;

/// What a run reads besides the PR, resolved: the answers to replay and where the guidance and
/// the failing checks come from.
pub struct RunInputs<'a> {
    /// The fixture's recorded answers up to the snapshot's step, for the replay backend (`None`
    /// without a fixture).
    pub replay: Option<ReplaySource>,
    /// The repository's guidance: GitHub at the base commit live, else the fixture's recorded
    /// files at that base.
    pub base: BaseSource<'a>,
    /// The head commit's checks: GitHub live, else the fixture's recorded check runs (none
    /// without a fixture).
    pub checks: ChecksSource<'a>,
}

/// Resolves a run's inputs from the snapshot's origin: `fixture` is the fixture the snapshot
/// was taken from (its step is the snapshot's), `live` the client of a PR read from GitHub.
/// Live reads win over recorded ones; the recorded answers are replayed whenever there is a
/// fixture (the settings may still name another backend).
pub fn inputs<'a>(
    snapshot: &Snapshot,
    fixture: Option<&Fixture>,
    live: Option<&'a GitHub>,
) -> RunInputs<'a> {
    let step = match snapshot.origin {
        Origin::Fixture { step, .. } => step,
        Origin::Live => 0,
    };
    let replay = fixture.map(|f| ReplaySource {
        answers: f.llm.answers.clone(),
        step,
    });
    let (base, checks) = match (live, fixture) {
        (Some(gh), _) => (BaseSource::Live(gh), ChecksSource::Live(gh)),
        (None, Some(f)) => (
            BaseSource::Recorded(crate::source::base_files_at(
                &f.base_files,
                &f.pr.base_sha,
                &snapshot.pr.base_sha,
            )),
            ChecksSource::Recorded {
                runs: f.dashboard.check_runs.clone(),
                head: f.pr.head_sha.clone(),
            },
        ),
        (None, None) => (BaseSource::Recorded(Vec::new()), ChecksSource::None),
    };
    RunInputs {
        replay,
        base,
        checks,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::review::ReviewSettings;
    use crate::review::flow::{self, ReviewRequest};
    use crate::review::llm::LlmEnv;
    use crate::review::settings::Overrides;
    use crate::source::DEMO_FIXTURE;

    fn demo() -> (Fixture, Snapshot) {
        let fixture = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap();
        let snapshot = fixture.clone().into_snapshot_at(0).unwrap();
        (fixture, snapshot)
    }

    /// A snapshot from a fixture runs on the fixture's recorded answers at its step, and its
    /// aspects are given the fixture's failing checks (the demo records one failing check run)
    /// — for `review FIXTURE` and the console alike (once a parity test of the console).
    #[tokio::test]
    async fn a_fixture_gives_the_run_its_answers_at_the_step_and_its_recorded_checks() {
        let (fixture, snapshot) = demo();
        let inputs = inputs(&snapshot, Some(&fixture), None);
        let replay = inputs.replay.as_ref().unwrap();
        assert_eq!(replay.step, 0);
        assert_eq!(replay.answers, fixture.llm.answers);
        assert!(matches!(inputs.base, BaseSource::Recorded(_)));
        assert!(matches!(inputs.checks, ChecksSource::Recorded { .. }));
        let mut p = flow::prepare(ReviewRequest {
            settings: &ReviewSettings::default(),
            llm_env: &LlmEnv::default(),
            overrides: Overrides::default(),
            snapshot: &snapshot,
            identity: "pr-shepherd",
            outbox: None,
            replay: inputs.replay,
            full: false,
            state: None,
            collaborators_are_team: false,
        })
        .unwrap();
        assert_eq!(p.failing.checks, 0);
        p.read_guidance(inputs.base).await;
        p.read_checks(inputs.checks).await;
        assert!(p.failing.checks >= 1, "{:?}", p.failing);
        assert!(
            p.failing
                .lines
                .iter()
                .any(|l| l.contains("test (ubuntu-latest)")),
            "{:?}",
            p.failing.lines
        );
    }

    /// A later step of a fixture replays the answers up to that step.
    #[test]
    fn the_step_is_the_snapshots() {
        let (fixture, _) = demo();
        let Some(last) = (1..=8).rev().find(|&s| fixture.snapshot_at(s).is_ok()) else {
            return; // a fixture without history
        };
        let snapshot = fixture.snapshot_at(last).unwrap();
        let inputs = inputs(&snapshot, Some(&fixture), None);
        assert_eq!(inputs.replay.map(|r| r.step), Some(last));
    }

    /// Without a fixture or a client, a run replays nothing and reads no checks.
    #[test]
    fn nothing_recorded_and_nothing_live_gives_nothing() {
        let (_, snapshot) = demo();
        let inputs = inputs(&snapshot, None, None);
        assert!(inputs.replay.is_none());
        assert!(matches!(inputs.base, BaseSource::Recorded(ref f) if f.is_empty()));
        assert!(matches!(inputs.checks, ChecksSource::None));
    }
}
