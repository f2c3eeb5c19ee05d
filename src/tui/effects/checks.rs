//! The checks screen's work, as headless `checks` does it: reading the checks at the head (live
//! over REST without the logs, offline from the fixture's `dashboard`) with which annotations
//! were shown before; a failing job's log tail on demand; and marking shown annotations seen.
//! Re-running the failed jobs is a write: `remote.rs` does it ([`super::remote::rerun_failed`]).

use crate::ledger::Ledger;
use crate::pr::{PrCoords, checks};
use crate::source::Fixture;
use crate::source::github::checks as rest;
use crate::tui::app::{Action, ChecksLoad};
use crate::tui::session::Remote;

/// The checks of `pr` at `head_sha`: GitHub's live, else the fixture's (when it is this PR's),
/// else none; with the ids of annotations never shown before.
pub async fn load(
    remote: &Remote,
    fixture: Option<Fixture>,
    ledger: &Ledger,
    pr: &PrCoords,
    head_sha: &str,
) -> Action {
    let result = read(remote, fixture, ledger, pr, head_sha)
        .await
        .map(Box::new)
        .map_err(|e| format!("{pr}: {e}"));
    Action::ChecksLoaded {
        pr: pr.clone(),
        result,
    }
}

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
pub async fn job_log(remote: &Remote, pr: &PrCoords, job: u64) -> Action {
    let tail = match remote.github() {
        Some(gh) => rest::job_log(gh, pr, job).await,
        None => Err("offline: a fixture carries its log tail".to_owned()),
    };
    Action::JobLogLoaded {
        pr: pr.clone(),
        job,
        tail,
    }
}

/// Marks the annotations `ids` seen at `now` (an annotation's id is its content).
pub fn mark_seen(ledger: &Ledger, pr: &PrCoords, ids: Vec<String>, now: i64) -> Action {
    let marks: Vec<(&str, &str)> = ids.iter().map(|i| (i.as_str(), i.as_str())).collect();
    let result = ledger
        .mark_seen(pr, &marks, now)
        .map(|_| ())
        .map_err(|e| e.to_string());
    Action::ChecksSeen {
        pr: pr.clone(),
        ids,
        result,
    }
}
