//! Shepherd's own check on a PR's head commit over REST: the `pr-shepherd` check run
//! (`POST /repos/{o}/{r}/check-runs`, `PATCH …/check-runs/{id}`), or, where the token cannot
//! write check runs, the commit status `pr-shepherd` (`POST …/statuses/{sha}`).
//!
//! One check per head: the check run carries an `external_id` naming the PR and the head, and
//! [`ShepherdCheck::start`] first looks for it (`GET …/commits/{sha}/check-runs?check_name=…`),
//! so a retried run (the same PR, the same head) updates the same check and never creates a
//! second one. A create is sent once (it is not idempotent); when its answer is lost, the next
//! try looks again and finds it. What the check says is decided by the pure
//! [`crate::policy::check`]; this file only talks to GitHub, through the client and its retries.
//!
//! A 403 from the check-runs API ("Resource not accessible by integration": a fork's
//! `GITHUB_TOKEN`; a personal token, since only GitHub Apps write check runs) is not an error:
//! the check becomes a commit status, and [`Started::fallback`] says why.

use serde::Deserialize;
use serde_json::json;

use crate::policy::check::{CHECK_NAME, CheckReport, fit_description};
use crate::pr::PrCoords;
use crate::source::github::{GitHub, GitHubError};

/// Check runs of one name read at most when looking for Shepherd's (one page).
const PER_PAGE: usize = 100;

/// The most characters GitHub takes in a check run's output summary.
const SUMMARY_CHARS: usize = 65_535;

/// The note a commit status carries: why it is a status and not a check run.
pub const STATUS_NOTE: &str = "a commit status: this token cannot write check runs";

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{0}")]
    Api(String),
    /// Neither a check run nor a commit status could be written.
    #[error(
        "the token can write neither check runs ({checks}) nor commit statuses ({statuses}); give the workflow `checks: write` or `statuses: write`"
    )]
    NoWrite { checks: String, statuses: String },
}

impl From<GitHubError> for CheckError {
    fn from(e: GitHubError) -> Self {
        CheckError::Api(e.to_string())
    }
}

/// The `external_id` of Shepherd's check on `head` of `pr`: what a retry finds it by.
pub fn external_id(pr: &PrCoords, head: &str) -> String {
    format!("{CHECK_NAME}:{}/{}#{}@{head}", pr.owner, pr.repo, pr.number)
}

/// Where the check lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Channel {
    /// A check run, by id.
    CheckRun { id: u64, html_url: Option<String> },
    /// The commit status `pr-shepherd` (the token cannot write check runs).
    Status,
}

/// What starting the check did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// True when an existing check (a retried run's) was taken over rather than created.
    pub reused: bool,
    /// Why the check is a commit status, when it is one.
    pub fallback: Option<String>,
}

/// What finishing the check did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The conclusion GitHub holds now (a check run's, read back from its answer; a status's
    /// state).
    pub conclusion: String,
    /// When GitHub kept something other than what was sent (a completed check run whose
    /// conclusion it would not change), what it kept.
    pub kept: Option<String>,
}

/// A REST check run, as far as this needs it.
#[derive(Debug, Clone, Deserialize)]
struct RestCheckRun {
    id: u64,
    #[serde(default)]
    name: String,
    #[serde(default)]
    external_id: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    conclusion: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RunsPage {
    #[serde(default)]
    check_runs: Vec<RestCheckRun>,
}

/// Shepherd's check on one head, once started.
pub struct ShepherdCheck<'a> {
    gh: &'a GitHub,
    pr: PrCoords,
    head_sha: String,
    channel: Channel,
}

/// `true` for GitHub's "you may not write this" (a 403 that is not a rate limit).
fn forbidden(e: &GitHubError) -> bool {
    matches!(e, GitHubError::Forbidden(_))
}

impl<'a> ShepherdCheck<'a> {
    fn repo_path(pr: &PrCoords) -> String {
        format!("/repos/{}/{}", pr.owner, pr.repo)
    }

    /// Puts the check `in_progress` on `head_sha` of `pr`: the existing one for this PR and head
    /// (a retry) is updated, else one is created; a token that may not write check runs gets a
    /// pending commit status instead. `summary` says what is being reviewed.
    pub async fn start(
        gh: &'a GitHub,
        pr: &PrCoords,
        head_sha: &str,
        summary: &str,
    ) -> Result<(ShepherdCheck<'a>, Started), CheckError> {
        if head_sha.is_empty() || !head_sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CheckError::Api(format!(
                "`{}` is not a commit SHA",
                crate::sanitize::one_line(head_sha)
            )));
        }
        let mut check = ShepherdCheck {
            gh,
            pr: pr.clone(),
            head_sha: head_sha.to_owned(),
            channel: Channel::Status,
        };
        let title = "Reviewing";
        let output = json!({"title": title, "summary": bounded(summary)});
        let mut last = None;
        for _ in 0..2 {
            let found = match check.find().await {
                Ok(found) => found,
                Err(e) if forbidden(&e) => return check.fall_back(e, summary).await,
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            };
            let result = match &found {
                Some(run) => {
                    let path = format!("{}/check-runs/{}", Self::repo_path(pr), run.id);
                    let body = json!({"status": "in_progress", "output": output});
                    check
                        .gh
                        .patch_json::<_, RestCheckRun>(
                            &path,
                            &body,
                            "updating the pr-shepherd check",
                        )
                        .await
                }
                None => {
                    let path = format!("{}/check-runs", Self::repo_path(pr));
                    let body = json!({
                        "name": CHECK_NAME,
                        "head_sha": head_sha,
                        "status": "in_progress",
                        "external_id": external_id(pr, head_sha),
                        "started_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                        "output": output,
                    });
                    check
                        .gh
                        .post_json_once::<_, RestCheckRun>(
                            &path,
                            &body,
                            "creating the pr-shepherd check",
                        )
                        .await
                }
            };
            match result {
                Ok(run) => {
                    check.channel = Channel::CheckRun {
                        id: run.id,
                        html_url: run.html_url,
                    };
                    let started = Started {
                        reused: found.is_some(),
                        fallback: None,
                    };
                    return Ok((check, started));
                }
                Err(e) if forbidden(&e) => return check.fall_back(e, summary).await,
                // A create whose answer was lost is found by the next try's look.
                Err(e) => last = Some(e),
            }
        }
        Err(last
            .map(CheckError::from)
            .unwrap_or_else(|| CheckError::Api("no attempt was made".to_owned())))
    }

    /// Shepherd's check run on this head, if one exists: named `pr-shepherd` with this PR's and
    /// head's `external_id` (the oldest, should there be several).
    async fn find(&self) -> Result<Option<RestCheckRun>, GitHubError> {
        let path = format!(
            "{}/commits/{}/check-runs?check_name={CHECK_NAME}&filter=all&per_page={PER_PAGE}",
            Self::repo_path(&self.pr),
            self.head_sha
        );
        let page: RunsPage = self
            .gh
            .get_json(&path, "looking for the pr-shepherd check")
            .await?;
        let ours = external_id(&self.pr, &self.head_sha);
        Ok(page
            .check_runs
            .into_iter()
            .filter(|r| r.name == CHECK_NAME && r.external_id.as_deref() == Some(ours.as_str()))
            .min_by_key(|r| r.id))
    }

    /// The check-runs API said no: a pending commit status instead, saying why.
    async fn fall_back(
        mut self,
        refused: GitHubError,
        summary: &str,
    ) -> Result<(ShepherdCheck<'a>, Started), CheckError> {
        let why = crate::sanitize::one_line(&refused.to_string());
        self.channel = Channel::Status;
        let description = fit_description(&crate::sanitize::one_line(summary), STATUS_NOTE);
        match self.post_status("pending", &description, None).await {
            Ok(()) => Ok((
                self,
                Started {
                    reused: false,
                    fallback: Some(why),
                },
            )),
            Err(e) if forbidden(&e) => Err(CheckError::NoWrite {
                checks: why,
                statuses: crate::sanitize::one_line(&e.to_string()),
            }),
            Err(e) => Err(e.into()),
        }
    }

    async fn post_status(
        &self,
        state: &str,
        description: &str,
        target_url: Option<&str>,
    ) -> Result<(), GitHubError> {
        let path = format!("{}/statuses/{}", Self::repo_path(&self.pr), self.head_sha);
        let mut body = json!({
            "state": state,
            "context": CHECK_NAME,
            "description": description,
        });
        if let Some(url) = target_url {
            body["target_url"] = json!(url);
        }
        // A status is a new entry each time (the latest per context counts): retrying is safe.
        let _: serde_json::Value = self
            .gh
            .post_json(&path, &body, "setting the pr-shepherd commit status")
            .await?;
        Ok(())
    }

    /// Where the check lives.
    pub fn channel(&self) -> &Channel {
        &self.channel
    }

    /// Completes the check with `report`; `details` (the Shepherd comment) is linked from it.
    pub async fn finish(
        &self,
        report: &CheckReport,
        details: Option<&str>,
    ) -> Result<Finished, CheckError> {
        match &self.channel {
            Channel::CheckRun { id, .. } => {
                let path = format!("{}/check-runs/{id}", Self::repo_path(&self.pr));
                let mut body = json!({
                    "status": "completed",
                    "conclusion": report.conclusion.as_str(),
                    "completed_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    "output": {"title": report.title, "summary": bounded(&report.summary)},
                });
                if let Some(url) = details {
                    body["details_url"] = json!(url);
                }
                let run: RestCheckRun = self
                    .gh
                    .patch_json(&path, &body, "completing the pr-shepherd check")
                    .await?;
                let held = run.conclusion.clone().unwrap_or_default();
                let kept = (run.status.as_deref() != Some("completed")
                    || held != report.conclusion.as_str())
                .then(|| {
                    format!(
                        "{} {}",
                        run.status.as_deref().unwrap_or("?"),
                        if held.is_empty() { "-" } else { &held }
                    )
                });
                Ok(Finished {
                    conclusion: if held.is_empty() {
                        report.conclusion.as_str().to_owned()
                    } else {
                        held
                    },
                    kept,
                })
            }
            Channel::Status => {
                let state = report.conclusion.status_state();
                let description = crate::policy::check::status_description(report, STATUS_NOTE);
                self.post_status(state, &description, details).await?;
                Ok(Finished {
                    conclusion: state.to_owned(),
                    kept: None,
                })
            }
        }
    }
}

/// `text` within GitHub's summary limit.
fn bounded(text: &str) -> String {
    if text.chars().count() <= SUMMARY_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(SUMMARY_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_external_id_names_the_pr_and_the_head() {
        let pr = crate::ledger::test_coords(7);
        let id = external_id(&pr, "abc123");
        assert!(id.starts_with("pr-shepherd:"), "{id}");
        assert!(id.ends_with("#7@abc123"), "{id}");
        assert_ne!(id, external_id(&pr, "abc124"));
    }

    #[test]
    fn a_summary_is_cut_to_githubs_limit() {
        let long = "x".repeat(SUMMARY_CHARS + 10);
        assert_eq!(bounded(&long).chars().count(), SUMMARY_CHARS);
        assert_eq!(bounded("short"), "short");
    }
}
