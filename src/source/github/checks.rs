//! The checks at a PR's head commit over REST: the check runs
//! (`GET /repos/{o}/{r}/commits/{sha}/check-runs`) and the commit statuses
//! (`GET …/commits/{sha}/status`); for a failing run its annotations
//! (`GET …/check-runs/{id}/annotations`) and, for an Actions job, the tail of its log
//! (`GET …/actions/jobs/{id}/logs`, sanitized and bounded); and the re-run of a workflow run's
//! failed jobs (`POST …/actions/runs/{id}/rerun-failed-jobs`).

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::Deserialize;

use super::{GitHub, GitHubError};
pub use crate::pr::checks::MAX_LOG_BYTES;
use crate::pr::{Annotation, CheckKind, CheckRun, CheckState, PrCoords};

/// Annotations read per failing check run (one page).
pub const MAX_ANNOTATIONS: usize = 100;

#[derive(Debug, Deserialize)]
struct RunsPage {
    #[serde(default)]
    check_runs: Vec<RestRun>,
}

#[derive(Debug, Deserialize)]
struct RestRun {
    id: u64,
    name: String,
    status: String,
    conclusion: Option<String>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
    html_url: Option<String>,
    details_url: Option<String>,
    #[serde(default)]
    output: Option<RunOutput>,
    #[serde(default)]
    app: Option<App>,
}

#[derive(Debug, Deserialize)]
struct RunOutput {
    #[serde(default)]
    annotations_count: u64,
}

#[derive(Debug, Deserialize)]
struct App {
    #[serde(default)]
    slug: String,
}

#[derive(Debug, Deserialize)]
struct Combined {
    #[serde(default)]
    statuses: Vec<RestStatus>,
}

#[derive(Debug, Deserialize)]
struct RestStatus {
    context: String,
    state: String,
    target_url: Option<String>,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize)]
struct RestAnnotation {
    path: String,
    #[serde(default)]
    start_line: u32,
    #[serde(default)]
    end_line: u32,
    annotation_level: Option<String>,
    title: Option<String>,
    message: Option<String>,
}

/// The workflow run an Actions job's URL names (`…/actions/runs/{run}/job/{job}`).
pub fn workflow_run_of(url: &str) -> Option<u64> {
    let (_, rest) = url.split_once("/actions/runs/")?;
    rest.split(['/', '?', '#']).next()?.parse().ok()
}

fn repo_path(c: &PrCoords) -> String {
    format!("/repos/{}/{}", c.owner, c.repo)
}

/// Every check run and commit status at `sha`, with the failing runs' annotations and, for a
/// failing Actions job, its log tail. A log that cannot be read leaves `log_tail` empty (its
/// absence is said by the caller); the lists themselves must be read whole.
pub async fn fetch(gh: &GitHub, c: &PrCoords, sha: &str) -> Result<Vec<CheckRun>, GitHubError> {
    list(gh, c, sha, true).await
}

/// As [`fetch`], without the logs: the checks screen reads a failing job's log tail when it is
/// opened ([`job_log`]).
pub async fn fetch_listed(
    gh: &GitHub,
    c: &PrCoords,
    sha: &str,
) -> Result<Vec<CheckRun>, GitHubError> {
    list(gh, c, sha, false).await
}

async fn list(
    gh: &GitHub,
    c: &PrCoords,
    sha: &str,
    logs: bool,
) -> Result<Vec<CheckRun>, GitHubError> {
    let base = repo_path(c);
    let page: RunsPage = gh
        .get_json(
            &format!("{base}/commits/{sha}/check-runs?per_page=100"),
            "the check runs at the head commit",
        )
        .await?;
    let combined: Combined = gh
        .get_json(
            &format!("{base}/commits/{sha}/status?per_page=100"),
            "the commit statuses at the head commit",
        )
        .await?;
    let mut out = Vec::new();
    for r in page.check_runs {
        let state = CheckState::of_check_run(&r.status, r.conclusion.as_deref());
        let url = r.html_url.clone().or(r.details_url.clone());
        let actions = r.app.as_ref().is_some_and(|a| a.slug == "github-actions");
        let workflow_run_id = if actions {
            url.as_deref().and_then(workflow_run_of)
        } else {
            None
        };
        let mut run = CheckRun {
            name: r.name,
            kind: CheckKind::Run,
            state,
            conclusion: r.conclusion.or(Some(r.status)),
            started_at: r.started_at,
            completed_at: r.completed_at,
            url,
            id: Some(r.id),
            workflow_run_id,
            annotations: Vec::new(),
            log_tail: None,
        };
        if state == CheckState::Failing {
            if r.output.as_ref().is_some_and(|o| o.annotations_count > 0) {
                run.annotations = annotations(gh, c, r.id).await?;
            }
            if actions && logs {
                run.log_tail = job_log(gh, c, r.id).await;
            }
        }
        out.push(run);
    }
    for s in combined.statuses {
        out.push(CheckRun {
            name: s.context,
            kind: CheckKind::Status,
            state: CheckState::of_status(&s.state),
            conclusion: Some(s.state),
            started_at: s.created_at,
            completed_at: s.updated_at,
            url: s.target_url,
            id: None,
            workflow_run_id: None,
            annotations: Vec::new(),
            log_tail: None,
        });
    }
    Ok(out)
}

async fn annotations(gh: &GitHub, c: &PrCoords, id: u64) -> Result<Vec<Annotation>, GitHubError> {
    let list: Vec<RestAnnotation> = gh
        .get_json(
            &format!(
                "{}/check-runs/{id}/annotations?per_page={MAX_ANNOTATIONS}",
                repo_path(c)
            ),
            "a failing check's annotations",
        )
        .await?;
    Ok(list
        .into_iter()
        .map(|a| Annotation {
            path: a.path,
            start_line: a.start_line,
            end_line: a.end_line,
            level: a.annotation_level.unwrap_or_else(|| "notice".to_owned()),
            title: a.title.unwrap_or_default(),
            message: a.message.unwrap_or_default(),
        })
        .collect())
}

/// The tail of an Actions job's log, bounded and sanitized
/// ([`bounded_log_tail`](crate::pr::checks::bounded_log_tail)); `None` when it cannot be read
/// (expired, no permission).
pub async fn job_log(gh: &GitHub, c: &PrCoords, job: u64) -> Option<String> {
    let resp = gh
        .rest_raw(
            Method::GET,
            &format!("{}/actions/jobs/{job}/logs", repo_path(c)),
            None,
            "a failing job's log",
        )
        .await
        .ok()?;
    if !resp.status.is_success() {
        return None;
    }
    Some(crate::pr::checks::bounded_log_tail(
        &resp.body,
        crate::sanitize::one_line,
    ))
}

/// Re-runs the failed jobs of a workflow run: one request, never retried.
pub async fn rerun_failed(gh: &GitHub, c: &PrCoords, run: u64) -> Result<(), GitHubError> {
    let what = "re-running the failed jobs";
    let path = format!("{}/actions/runs/{run}/rerun-failed-jobs", repo_path(c));
    let resp = gh
        .transport
        .send_with(
            Method::POST,
            &gh.endpoints.rest(&path),
            Some(&serde_json::json!({})),
            what,
            1,
        )
        .await?;
    if resp.status.is_success() {
        Ok(())
    } else {
        Err(super::client::http_error(&resp, what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_actions_jobs_url_names_its_workflow_run() {
        assert_eq!(
            workflow_run_of("https://github.com/acme/rivet/actions/runs/9001/job/31002"),
            Some(9001)
        );
        assert_eq!(workflow_run_of("https://ci.example.com/build/4"), None);
    }
}
