//! The checks screen's own effects ([`Work`]) and their results ([`Done`]), as headless `checks`
//! does them: reading the checks at the head (live over REST without the logs, offline from the
//! fixture's `dashboard`) with which annotations were shown before; a failing job's log tail on
//! demand; marking shown annotations seen; and re-running the failed jobs of workflow runs (live
//! only: a fixture's checks cannot be re-run). The screen's I/O edge: only the effect runner
//! performs it (see `app/work.rs`).

use crate::ledger::Ledger;
use crate::pr::{PrCoords, checks};
use crate::source::Fixture;
use crate::source::github::checks as rest;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};
use crate::tui::session::Remote;

/// What the checks screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// Read the checks at `head_sha` (live: GitHub's check runs and statuses with the failing
    /// runs' annotations, no logs; offline: the fixture's `dashboard`), and which of their
    /// annotations were shown before.
    Load { pr: PrCoords, head_sha: String },
    /// Read the tail of a failing Actions job's log (when the job is opened).
    JobLog { pr: PrCoords, job: u64 },
    /// The frame that showed these annotations is on screen: mark them seen (the same markers
    /// `pr-shepherd checks` writes).
    MarkSeen { pr: PrCoords, ids: Vec<String> },
    /// Re-run the failed jobs of these workflow runs, one request each (only ever after the
    /// maintainer confirmed the dialog naming them).
    Rerun { pr: PrCoords, runs: Vec<u64> },
}

/// What comes back to the checks screen.
#[derive(Debug, Clone)]
pub enum Done {
    /// The checks at the head (or why not).
    Loaded(Result<Box<ChecksLoad>, String>),
    /// The tail of job `job`'s log, or why it could not be read.
    JobLog {
        job: u64,
        tail: Result<String, String>,
    },
    /// These annotations were marked seen, or why not.
    Seen {
        ids: Vec<String>,
        result: Result<(), String>,
    },
    /// The re-run was asked of GitHub: what was done, or why it failed.
    Rerun(Result<String, String>),
}

/// What the checks screen reads: the checks at the head and which annotations are new.
#[derive(Debug, Clone)]
pub struct ChecksLoad {
    pub runs: Vec<crate::pr::CheckRun>,
    /// Ids of the annotations never shown before.
    pub new: std::collections::BTreeSet<String>,
    /// The checks are a fixture's (offline): nothing can be re-run.
    pub offline: bool,
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        match self {
            Work::Load { .. } | Work::JobLog { .. } => Lane::Fetch,
            Work::MarkSeen { .. } => Lane::Ledger,
            Work::Rerun { .. } => Lane::Send,
        }
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let remote = &io.session.remote;
            let done = match self {
                Work::Load { pr, head_sha } => {
                    let fixture = (io.fixture_of)(&pr);
                    let result = read(remote, fixture, io.ledger, &pr, &head_sha)
                        .await
                        .map(Box::new)
                        .map_err(|e| format!("{pr}: {e}"));
                    Done::Loaded(result)
                }
                Work::JobLog { pr, job } => Done::JobLog {
                    job,
                    tail: job_log(remote, &pr, job).await,
                },
                Work::MarkSeen { pr, ids } => {
                    let result = mark_seen(io.ledger, &pr, &ids, io.now);
                    Done::Seen { ids, result }
                }
                Work::Rerun { pr, runs } => Done::Rerun(rerun_failed(remote, &pr, &runs).await),
            };
            send(work::Done::new(done));
        })
    }
}

/// The checks of `pr` at `head_sha`: GitHub's live, else the fixture's (when it is this PR's),
/// else none; with the ids of annotations never shown before.
async fn read(
    remote: &Remote,
    fixture: Option<Fixture>,
    ledger: &Ledger,
    pr: &PrCoords,
    head_sha: &str,
) -> Result<ChecksLoad, String> {
    let (runs, offline) = match remote.github() {
        Some(gh) => (
            rest::fetch_listed(gh, pr, head_sha)
                .await
                .map_err(|e| e.to_string())?,
            false,
        ),
        None => (
            fixture
                .filter(|f| f.pr.coords() == *pr)
                .map(|f| f.dashboard.check_runs)
                .unwrap_or_default(),
            true,
        ),
    };
    let ids = checks::annotation_ids(&runs);
    let seen = ledger
        .load_seen_of(pr, ids.iter().map(String::as_str))
        .map_err(|e| e.to_string())?;
    let new = checks::new_annotations(&ids, |id| seen.markers.contains_key(id));
    Ok(ChecksLoad { runs, new, offline })
}

/// The tail of job `job`'s log (live only; offline a fixture carries its tail).
async fn job_log(remote: &Remote, pr: &PrCoords, job: u64) -> Result<String, String> {
    match remote.github() {
        Some(gh) => rest::job_log(gh, pr, job).await,
        None => Err("offline: a fixture carries its log tail".to_owned()),
    }
}

/// Marks the annotations `ids` seen at `now` (an annotation's id is its content).
fn mark_seen(ledger: &Ledger, pr: &PrCoords, ids: &[String], now: i64) -> Result<(), String> {
    let marks: Vec<(&str, &str)> = ids.iter().map(|i| (i.as_str(), i.as_str())).collect();
    ledger
        .mark_seen(pr, &marks, now)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Asks GitHub to re-run the failed jobs of each workflow run in `runs` (live only: offline, a
/// fixture's checks cannot be re-run); what was done, or the first failure (naming the runs
/// already re-running).
async fn rerun_failed(remote: &Remote, pr: &PrCoords, runs: &[u64]) -> Result<String, String> {
    let Some(live) = remote.live() else {
        return Err("a fixture's checks cannot be re-run offline".to_owned());
    };
    let mut done: Vec<String> = Vec::new();
    for id in runs {
        if let Err(e) = rest::rerun_failed(&live.gh, pr, *id).await {
            let why = format!("workflow run {id}: {e}");
            return Err(if done.is_empty() {
                why
            } else {
                format!(
                    "{why} (workflow run {} re-running already)",
                    done.join(", ")
                )
            });
        }
        done.push(id.to_string());
    }
    Ok(format!(
        "re-running the failed jobs of workflow run {} on {pr}",
        done.join(", ")
    ))
}
