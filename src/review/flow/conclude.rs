//! The one end of a review: a finished run becomes a [`Concluded`] review — saved in the state
//! dir, classified against the earlier reviews, composed, fitted to GitHub's comment limit, its
//! decisions recorded — whichever front end ran it. What the front end does with it (print,
//! post, show in the console's desk) is its own; what could not be saved is in the value, for the
//! front end to say.

use std::path::PathBuf;

use super::PreparedReview;
use crate::ledger::{Decision, LedgerError, RepoId};
use crate::pr::Snapshot;
use crate::review::ReviewRun;
use crate::review::inputs::prior::PriorReviews;
use crate::review::results::aggregate::{Aggregate, AggregateRequest, aggregate};
use crate::review::results::compose;
use crate::review::results::condense::{self, Fitted};
use crate::review::results::outcome::{addressed_decisions, post_decisions, run_decisions};

/// A finished run, concluded: what every front end presents.
#[derive(Debug, Clone)]
pub struct Concluded {
    /// The run as saved (what it proposed recorded; `context.unrecorded` says what was not).
    pub run: ReviewRun,
    /// The earlier reviews it was classified against.
    pub prior: PriorReviews,
    /// The front end's word on the classification (full, trigger, reply marker, gate note).
    pub request: AggregateRequest,
    /// The run classified (new, unchanged, addressed) against `prior`.
    pub agg: Aggregate,
    /// The whole review in Markdown, with its hidden metadata (what `review` prints).
    pub body: String,
    /// The review as it is posted: condensed only when `body` is over GitHub's limit.
    pub fitted: Fitted,
    /// The earlier findings this review found addressed, as recorded in the state dir.
    pub decisions: Vec<Decision>,
    /// Where the run was saved (`None` without a state dir, or when it could not be).
    pub saved: Option<PathBuf>,
    /// Why the run file could not be saved.
    pub unsaved: Option<String>,
    /// Why `decisions` could not be recorded.
    pub unrecorded: Option<String>,
}

impl PreparedReview {
    /// Concludes a finished run: records what it proposed and held back, saves it (`<pr>/runs/`),
    /// classifies it against the earlier reviews with the front end's `request`, composes the
    /// review and fits it to GitHub's comment limit, and records the earlier findings it found
    /// addressed (at `now`, Unix seconds: the front end's clock). A failure to save or record is kept in the value; the
    /// review is concluded all the same. A cancelled run concludes nothing: `None`, nothing saved.
    pub fn conclude(
        &self,
        mut run: ReviewRun,
        snapshot: &Snapshot,
        request: AggregateRequest,
        now: i64,
    ) -> Option<Concluded> {
        if run.cancelled {
            return None;
        }
        let coords = self.pr.coords();
        let repo = RepoId::of(&coords);
        let state = self.state.as_ref();
        // What the run proposed and held back, recorded (as the run ends: the clock's time, not
        // the front end's) before the run is saved, so the run file says when it was not.
        let ended = chrono::Utc::now().timestamp();
        if let Some(l) = state
            && let Err(e) = l.record_decisions(&repo, &run_decisions(&run, coords.number, ended))
        {
            run.context.unrecorded = Some(format!(
                "the run's findings were not recorded in the state dir: {e}"
            ));
        }
        let (saved, unsaved) = match state.map(|l| l.save_run(&coords, &run)) {
            Some(Ok(path)) => {
                tracing::debug!("run saved to {}", path.display());
                (Some(path), None)
            }
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, None),
        };
        let agg = aggregate(&run, snapshot, &self.prior, &request);
        let body = compose::markdown(&run, &agg);
        let fitted = condense::fit(&run, &agg);
        let decisions = addressed_decisions(&run, &agg, &self.prior, coords.number, now);
        let unrecorded = state
            .and_then(|l| l.record_decisions(&repo, &decisions).err())
            .map(|e| e.to_string());
        Some(Concluded {
            run,
            prior: self.prior.clone(),
            request,
            agg,
            body,
            fitted,
            decisions,
            saved,
            unsaved,
            unrecorded,
        })
    }

    /// Records what became of a concluded review's findings once it was posted as it was fitted
    /// (`event`, `watch`, `review --post`): each raised finding posted. Why not, when it fails.
    pub fn record_posted(&self, concluded: &Concluded, now: i64) -> Option<String> {
        let coords = self.pr.coords();
        let body = &concluded.fitted.body;
        let decisions = posted_decisions(
            &concluded.run,
            &concluded.agg,
            body,
            body,
            false,
            coords.number,
            now,
        );
        let l = self.state.as_ref()?;
        l.record_decisions(&RepoId::of(&coords), &decisions)
            .err()
            .map(|e: LedgerError| e.to_string())
    }
}

/// What a post makes of a review's findings: each raised finding posted, and, sent by the
/// maintainer (`offered`: the body the console offered, `sent`: what was posted), each kept,
/// edited or dropped. The console records these on its ledger lane once its post succeeded.
pub fn posted_decisions(
    run: &ReviewRun,
    agg: &Aggregate,
    offered: &str,
    sent: &str,
    by_maintainer: bool,
    pr: u64,
    at: i64,
) -> Vec<Decision> {
    post_decisions(run, agg, offered, sent, by_maintainer, pr, at)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use tokio::sync::mpsc;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::ledger::{DecisionKind, Ledger};
    use crate::review::ReviewSettings;
    use crate::review::flow::{self, ReviewRequest};
    use crate::review::llm::LlmEnv;
    use crate::review::settings::Overrides;
    use crate::source::{DEMO_FIXTURE, Fixture};

    /// The demo fixture's review, prepared and run with its recorded answers and the state dir
    /// at `dir`, as every front end runs one.
    async fn demo_run(dir: &Path) -> (PreparedReview, Snapshot, ReviewRun) {
        let fixture = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap();
        let snapshot = fixture.clone().into_snapshot_at(0).unwrap();
        let ledger = Ledger::new(dir);
        let inputs = flow::inputs(&snapshot, Some(&fixture), None);
        let mut p = flow::prepare(ReviewRequest {
            settings: &ReviewSettings::default(),
            llm_env: &LlmEnv::default(),
            overrides: Overrides::default(),
            snapshot: &snapshot,
            identity: "pr-shepherd",
            outbox: None,
            replay: inputs.replay,
            full: false,
            state: Some(&ledger),
            collaborators_are_team: false,
        })
        .unwrap();
        p.read_guidance(inputs.base).await;
        p.read_checks(inputs.checks).await;
        let (tx, _rx) = mpsc::unbounded_channel();
        let run = p.run(tx, CancellationToken::new()).await;
        (p, snapshot, run)
    }

    fn request() -> AggregateRequest {
        AggregateRequest {
            reply_marker: "— AI Coding Agent".to_owned(),
            override_note: Some("a gate the request overrode".to_owned()),
            ..AggregateRequest::default()
        }
    }

    /// The contract every front end relies on: the run saved as concluded, classified with the
    /// front end's request against the earlier reviews, composed, fitted, and what it proposed
    /// and found addressed recorded; nothing unsaved.
    #[tokio::test]
    async fn a_finished_run_is_saved_classified_composed_fitted_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let (p, snapshot, run) = demo_run(dir.path()).await;
        assert!(
            run.findings().count() > 0,
            "the demo's answers raise findings"
        );
        let c = p
            .conclude(run, &snapshot, request(), 1_700_000_000)
            .unwrap();
        assert_eq!((&c.unsaved, &c.unrecorded), (&None, &None));
        assert_eq!(c.run.context.unrecorded, None);
        // Saved: the run file holds the concluded run.
        let ledger = Ledger::new(dir.path());
        let coords = snapshot.pr.coords();
        let (stored, problems) = ledger.load_runs::<ReviewRun>(&coords).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        let json = |r: &ReviewRun| serde_json::to_value(r).unwrap();
        assert_eq!(
            stored.iter().map(json).collect::<Vec<_>>(),
            vec![json(&c.run)]
        );
        assert!(
            c.saved.as_ref().is_some_and(|p| p.exists()),
            "{:?}",
            c.saved
        );
        // Classified with the request, against the prepared earlier reviews.
        assert_eq!(c.request.override_note, request().override_note);
        assert_eq!(c.prior, p.prior);
        assert_eq!(c.agg, aggregate(&c.run, &snapshot, &p.prior, &request()));
        assert_eq!(
            c.agg.override_note.as_deref(),
            Some("a gate the request overrode")
        );
        // Composed and fitted.
        assert_eq!(c.body, compose::markdown(&c.run, &c.agg));
        assert_eq!(c.fitted, condense::fit(&c.run, &c.agg));
        assert!(!c.fitted.condensed);
        // Recorded: each finding proposed by this run, and the addressed ones.
        assert_eq!(
            c.decisions,
            addressed_decisions(&c.run, &c.agg, &p.prior, coords.number, 1_700_000_000)
        );
        let recorded = ledger.decisions(&RepoId::of(&coords)).unwrap();
        let proposed = recorded
            .iter()
            .filter(|d| d.kind == DecisionKind::Proposed && d.run.as_ref() == Some(&c.run.run_id))
            .count();
        assert_eq!(
            proposed,
            c.run.findings().count() + c.run.held_back().count()
        );
        assert!(c.decisions.iter().all(|d| recorded.contains(d)));
    }

    /// A state dir that cannot be written does not lose the review: it is concluded, and the
    /// value says what was not saved (the front end says it: stderr and exit 1, or a notice).
    #[tokio::test]
    async fn what_could_not_be_saved_is_said_and_the_review_still_concludes() {
        let dir = tempfile::tempdir().unwrap();
        let (p, snapshot, run) = demo_run(dir.path()).await;
        // The state dir breaks while the run goes on.
        for sub in ["prs", "repos"] {
            let path = dir.path().join(sub);
            let _ = std::fs::remove_dir_all(&path);
            std::fs::write(&path, "not a folder").unwrap();
        }
        let c = p.conclude(run, &snapshot, request(), 5).unwrap();
        assert!(c.unsaved.is_some(), "{c:?}");
        assert_eq!(c.saved, None);
        assert!(
            c.run
                .context
                .unrecorded
                .as_deref()
                .is_some_and(|u| u.contains("findings were not recorded")),
            "{:?}",
            c.run.context
        );
        assert!(c.body.starts_with(crate::pr::REVIEW_HEADER), "{}", c.body);
        assert_eq!(c.fitted, condense::fit(&c.run, &c.agg));
    }

    /// A cancelled run concludes nothing: no run file, no decisions, nothing composed.
    #[tokio::test]
    async fn a_cancelled_run_concludes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (p, snapshot, mut run) = demo_run(dir.path()).await;
        run.cancelled = true;
        assert!(p.conclude(run, &snapshot, request(), 5).is_none());
        let ledger = Ledger::new(dir.path());
        let (stored, _) = ledger
            .load_runs::<ReviewRun>(&snapshot.pr.coords())
            .unwrap();
        assert!(stored.is_empty());
    }

    /// A posted review records each finding it raised as posted.
    #[tokio::test]
    async fn a_posted_review_records_its_findings_posted() {
        let dir = tempfile::tempdir().unwrap();
        let (p, snapshot, run) = demo_run(dir.path()).await;
        let c = p.conclude(run, &snapshot, request(), 5).unwrap();
        assert_eq!(p.record_posted(&c, 6), None);
        let ledger = Ledger::new(dir.path());
        let recorded = ledger
            .decisions(&RepoId::of(&snapshot.pr.coords()))
            .unwrap();
        let posted = recorded
            .iter()
            .filter(|d| d.kind == DecisionKind::Posted)
            .count();
        let raised: std::collections::HashSet<&str> = c
            .run
            .findings()
            .filter(|f| c.agg.class_of_id(&f.id).is_some())
            .map(|f| f.id.as_str())
            .collect();
        assert!(!raised.is_empty());
        assert_eq!(posted, raised.len(), "{recorded:?}");
    }

    /// Every `.rs` file under `dir`, as (path relative to `src/`, text).
    fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(root, &path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((rel.replace('\\', "/"), text));
            }
        }
    }

    /// A review ends in one place: no front end saves a run or decides what became of its
    /// findings by itself, and the headless commands and the console both resolve a run's
    /// inputs and conclude it here. Fails when a front end goes its own way again.
    #[test]
    fn every_front_end_ends_a_review_through_the_flow() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &src, &mut files);
        assert!(files.len() > 50, "only {} files read", files.len());
        let code = |text: &str| -> String {
            let production = text.split("#[cfg(test)]").next().unwrap_or_default();
            production
                .lines()
                .map(|l| l.split("//").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let ends: Vec<String> = files
            .iter()
            .filter(|(rel, _)| !rel.starts_with("review/") && !rel.starts_with("ledger/"))
            .flat_map(|(rel, text)| {
                let code = code(text);
                [
                    "save_run(",
                    "run_decisions(",
                    "addressed_decisions(",
                    "post_decisions(",
                ]
                .into_iter()
                .filter(move |n| code.contains(n))
                .map(move |n| format!("{rel}: {n}"))
            })
            .collect();
        assert!(
            ends.is_empty(),
            "a review ends in review::flow alone (conclude, record_posted, posted_decisions): {ends:#?}"
        );
        for front in ["commands/", "tui/"] {
            for call in [".conclude(", "flow::inputs("] {
                assert!(
                    files
                        .iter()
                        .any(|(rel, text)| rel.starts_with(front) && code(text).contains(call)),
                    "no file under src/{front} calls {call}"
                );
            }
        }
    }
}
