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

/// Whether a check run is an Actions job, and its workflow run: the app that made it says so
/// (`github-actions`), or — without an app — a URL of a workflow run's job does; the workflow
/// run is read from the first of `urls` that names one (GitHub's `html_url` is often the check
/// run's own page, `…/runs/{id}`, while `details_url` names the job).
fn actions_job(app: Option<&str>, urls: &[Option<&str>]) -> (bool, Option<u64>) {
    let run = urls.iter().flatten().find_map(|u| workflow_run_of(u));
    let actions = match app {
        Some(slug) if !slug.is_empty() => slug == "github-actions",
        _ => run.is_some(),
    };
    (actions, run.filter(|_| actions))
}

/// The workflow run an Actions job's URL names (`…/actions/runs/{run}/job/{job}`).
pub fn workflow_run_of(url: &str) -> Option<u64> {
    let (_, rest) = url.split_once("/actions/runs/")?;
    rest.split(['/', '?', '#']).next()?.parse().ok()
}

fn repo_path(c: &PrCoords) -> String {
    format!("/repos/{}/{}", c.owner, c.repo)
}

/// Why a failing job's log could not be read, by its check run's id.
pub type LogErrors = std::collections::BTreeMap<u64, String>;

/// Every check run and commit status at `sha`, with the failing runs' annotations and, for a
/// failing Actions job, its log tail. A log that cannot be read leaves `log_tail` empty and
/// says why in the [`LogErrors`]; the lists themselves must be read whole.
pub async fn fetch(
    gh: &GitHub,
    c: &PrCoords,
    sha: &str,
) -> Result<(Vec<CheckRun>, LogErrors), GitHubError> {
    list(gh, c, sha, true).await
}

/// As [`fetch`], without the logs: the checks screen reads a failing job's log tail when it is
/// opened ([`job_log`]).
pub async fn fetch_listed(
    gh: &GitHub,
    c: &PrCoords,
    sha: &str,
) -> Result<Vec<CheckRun>, GitHubError> {
    Ok(list(gh, c, sha, false).await?.0)
}

async fn list(
    gh: &GitHub,
    c: &PrCoords,
    sha: &str,
    logs: bool,
) -> Result<(Vec<CheckRun>, LogErrors), GitHubError> {
    let base = repo_path(c);
    let mut log_errors = LogErrors::new();
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
        let (actions, workflow_run_id) = actions_job(
            r.app.as_ref().map(|a| a.slug.as_str()),
            &[r.html_url.as_deref(), r.details_url.as_deref()],
        );
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
                match job_log(gh, c, r.id).await {
                    Ok(tail) => run.log_tail = Some(tail),
                    Err(why) => {
                        log_errors.insert(r.id, why);
                    }
                }
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
    Ok((out, log_errors))
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
/// ([`bounded_log_tail`](crate::pr::checks::bounded_log_tail)); only the log's last
/// [`MAX_LOG_BYTES`] are kept while it is read, so a log of any length shows its tail. An `Err`
/// says why it cannot be read (expired or deleted, no permission, GitHub's error).
pub async fn job_log(gh: &GitHub, c: &PrCoords, job: u64) -> Result<String, String> {
    let what = "a failing job's log";
    let resp = gh
        .get_tail(
            &format!("{}/actions/jobs/{job}/logs", repo_path(c)),
            what,
            MAX_LOG_BYTES,
        )
        .await
        .map_err(|e| e.to_string())?;
    if !resp.status.is_success() {
        return Err(match resp.status.as_u16() {
            404 | 410 => "expired or deleted (GitHub keeps logs for a limited time)".to_owned(),
            403 => format!("no permission: {}", resp.message()),
            _ => super::client::http_error(&resp, what).to_string(),
        });
    }
    Ok(crate::pr::checks::bounded_log_tail(
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

    #[test]
    fn an_actions_job_is_known_by_its_app_or_its_details_url() {
        let page = Some("https://github.com/acme/rivet/runs/31002");
        let job = Some("https://github.com/acme/rivet/actions/runs/9001/job/31002");
        // GitHub's html_url is the check run's page; details_url names the job.
        assert_eq!(
            actions_job(Some("github-actions"), &[page, job]),
            (true, Some(9001))
        );
        // No app in the answer: the job's URL says it.
        assert_eq!(actions_job(None, &[page, job]), (true, Some(9001)));
        assert_eq!(actions_job(Some(""), &[None, job]), (true, Some(9001)));
        // The Actions app without a job URL: an Actions job, its workflow run unknown.
        assert_eq!(
            actions_job(Some("github-actions"), &[page, None]),
            (true, None)
        );
        // Another app's check pointing at an Actions URL is not an Actions job.
        assert_eq!(actions_job(Some("circleci"), &[job, None]), (false, None));
        assert_eq!(actions_job(None, &[page, None]), (false, None));
    }
}

/// Every check run and commit status at one commit, with each run's first
/// [`HEAD_CHECK_ANNOTATIONS`] annotations, in **one** GraphQL request (the review's context and
/// `record`; `fetch` above is the checks screen's REST walk with log tails).
pub const HEAD_CHECKS_QUERY: &str = include_str!("queries/head_checks.graphql");
/// Annotations read per check run by [`fetch_in_one_request`].
pub const HEAD_CHECK_ANNOTATIONS: usize = 50;

/// What one request read of a commit's checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeadChecks {
    pub runs: Vec<CheckRun>,
    /// Checks at the commit beyond the first 100 contexts, not read (`0`: all read).
    pub unread: usize,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlCheckNodes {
    #[serde(default)]
    total_count: usize,
    #[serde(default)]
    nodes: Vec<Option<GqlCheckNode>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlCheckNode {
    #[serde(rename = "__typename", default)]
    typename: String,
    database_id: Option<u64>,
    name: Option<String>,
    status: Option<String>,
    conclusion: Option<String>,
    started_at: Option<DateTime<Utc>>,
    completed_at: Option<DateTime<Utc>>,
    details_url: Option<String>,
    permalink: Option<String>,
    check_suite: Option<GqlSuite>,
    annotations: Option<GqlAnnotations>,
    context: Option<String>,
    state: Option<String>,
    target_url: Option<String>,
    created_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlSuite {
    app: Option<App>,
    workflow_run: Option<GqlId>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlId {
    database_id: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct GqlAnnotations {
    #[serde(default)]
    nodes: Vec<Option<GqlAnnotation>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlAnnotation {
    #[serde(default)]
    path: String,
    location: Option<GqlSpan>,
    annotation_level: Option<String>,
    title: Option<String>,
    #[serde(default)]
    message: String,
}

#[derive(Debug, Deserialize)]
struct GqlSpan {
    start: Option<GqlLine>,
    end: Option<GqlLine>,
}

#[derive(Debug, Deserialize)]
struct GqlLine {
    #[serde(default)]
    line: u32,
}

/// A GraphQL context (check run or status context) as a [`CheckRun`]; `None` for a node of
/// another type.
fn check_of_context(n: GqlCheckNode) -> Option<CheckRun> {
    match n.typename.as_str() {
        "CheckRun" => {
            let status = n.status.unwrap_or_default();
            let state = CheckState::of_check_run(&status, n.conclusion.as_deref());
            let (actions, from_urls) = actions_job(
                n.check_suite
                    .as_ref()
                    .and_then(|s| s.app.as_ref())
                    .map(|a| a.slug.as_str()),
                &[n.permalink.as_deref(), n.details_url.as_deref()],
            );
            let workflow_run_id = n
                .check_suite
                .as_ref()
                .and_then(|s| s.workflow_run.as_ref())
                .and_then(|w| w.database_id)
                .filter(|_| actions)
                .or(from_urls);
            let annotations = n
                .annotations
                .map(|a| a.nodes.into_iter().flatten().map(annotation_of).collect())
                .unwrap_or_default();
            Some(CheckRun {
                name: n.name.unwrap_or_default(),
                kind: CheckKind::Run,
                state,
                conclusion: n
                    .conclusion
                    .map(|c| c.to_ascii_lowercase())
                    .or(Some(status.to_ascii_lowercase())),
                started_at: n.started_at,
                completed_at: n.completed_at,
                url: n.permalink.or(n.details_url),
                id: n.database_id,
                workflow_run_id,
                annotations,
                log_tail: None,
            })
        }
        "StatusContext" => {
            let state = n.state.unwrap_or_default();
            Some(CheckRun {
                name: n.context.unwrap_or_default(),
                kind: CheckKind::Status,
                state: CheckState::of_status(&state),
                conclusion: Some(state.to_ascii_lowercase()),
                started_at: n.created_at,
                completed_at: None,
                url: n.target_url,
                id: None,
                workflow_run_id: None,
                annotations: Vec::new(),
                log_tail: None,
            })
        }
        _ => None,
    }
}

fn annotation_of(a: GqlAnnotation) -> Annotation {
    let start = a
        .location
        .as_ref()
        .and_then(|l| l.start.as_ref())
        .map_or(0, |l| l.line);
    let end = a
        .location
        .as_ref()
        .and_then(|l| l.end.as_ref())
        .map_or(start, |l| l.line);
    Annotation {
        path: a.path,
        start_line: start,
        end_line: end,
        level: a
            .annotation_level
            .map_or_else(|| "notice".to_owned(), |l| l.to_ascii_lowercase()),
        title: a.title.unwrap_or_default(),
        message: a.message,
    }
}

/// The checks at `sha` in one GraphQL request ([`HEAD_CHECKS_QUERY`]). A commit GitHub does not
/// know, or an answer without the commit, is an error naming GitHub's reason; a commit without
/// any check is an empty list.
pub async fn fetch_in_one_request(
    gh: &GitHub,
    c: &PrCoords,
    sha: &str,
) -> Result<HeadChecks, GitHubError> {
    let what = "the checks at the head commit";
    let reply = gh
        .graphql(
            HEAD_CHECKS_QUERY,
            serde_json::json!({"owner": c.owner, "repo": c.repo, "sha": sha}),
            what,
        )
        .await?;
    let object = reply
        .data
        .as_ref()
        .and_then(|d| d.pointer("/repository/object"))
        .filter(|o| !o.is_null())
        .ok_or_else(|| {
            GitHubError::Graphql(format!("{what}: {}", missing_commit(&reply, c, sha)))
        })?;
    let contexts = match object.pointer("/statusCheckRollup/contexts") {
        None | Some(serde_json::Value::Null) => return Ok(HeadChecks::default()),
        Some(v) => GqlCheckNodes::deserialize(v)
            .map_err(|e| GitHubError::Graphql(format!("{what}: an unexpected answer: {e}")))?,
    };
    let runs: Vec<CheckRun> = contexts
        .nodes
        .into_iter()
        .flatten()
        .filter_map(check_of_context)
        .collect();
    Ok(HeadChecks {
        unread: contexts.total_count.saturating_sub(runs.len()),
        runs,
    })
}

/// Why an answer holds no commit: GitHub's errors when it sent any, else what is missing — the
/// repository, or the commit (force-pushed away, or not yet visible to GitHub's API).
fn missing_commit(reply: &super::GraphqlReply, c: &PrCoords, sha: &str) -> String {
    if !reply.errors.is_empty() {
        return super::client::errors_text(&reply.errors);
    }
    let repository = reply.data.as_ref().and_then(|d| d.get("repository"));
    if repository.is_none_or(serde_json::Value::is_null) {
        return format!(
            "the repository {}/{} was not found (or the credentials cannot see it)",
            c.owner, c.repo
        );
    }
    format!(
        "the head commit {} was not found (force-pushed, or not yet visible)",
        crate::sanitize::one_line(&sha.chars().take(12).collect::<String>())
    )
}

#[cfg(test)]
mod head_checks_tests {
    use super::*;

    #[test]
    fn the_one_request_reads_as_many_annotations_as_it_says() {
        assert!(
            HEAD_CHECKS_QUERY.contains(&format!("annotations(first: {HEAD_CHECK_ANNOTATIONS})"))
        );
    }

    #[test]
    fn graphql_contexts_become_check_runs_and_statuses() {
        let node = |v: serde_json::Value| GqlCheckNode::deserialize(v).unwrap();
        let run = check_of_context(node(serde_json::json!({
            "__typename": "CheckRun", "databaseId": 7, "name": "lint", "status": "COMPLETED",
            "conclusion": "FAILURE", "permalink": "https://github.com/a/b/runs/7",
            "checkSuite": {"app": {"slug": "github-actions"}, "workflowRun": {"databaseId": 9}},
            "annotations": {"nodes": [{"path": "src/a.rs",
                "location": {"start": {"line": 3}, "end": {"line": 5}},
                "annotationLevel": "FAILURE", "title": "clippy", "message": "unused"}]}
        })))
        .unwrap();
        assert_eq!(run.state, CheckState::Failing);
        assert_eq!(run.workflow_run_id, Some(9));
        assert_eq!(run.annotations[0].level, "failure");
        assert_eq!(
            (run.annotations[0].start_line, run.annotations[0].end_line),
            (3, 5)
        );
        let status = check_of_context(node(serde_json::json!({
            "__typename": "StatusContext", "context": "ci/jenkins", "state": "ERROR"
        })))
        .unwrap();
        assert_eq!(
            (status.kind, status.state),
            (CheckKind::Status, CheckState::Failing)
        );
    }
}
