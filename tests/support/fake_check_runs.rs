//! The loopback GitHub's check runs and commit statuses, mounted beside [`super::fake_github`]
//! on the same server: `GET …/commits/{sha}/check-runs` (filtered by `check_name`), `POST
//! …/check-runs`, `PATCH …/check-runs/{id}` and `POST …/statuses/{sha}`, in GitHub's REST
//! shapes (a check run's `id`, `name`, `head_sha`, `external_id`, `status`, `conclusion`,
//! `output`, `app`; a status's `state`, `context`, `description`, `target_url`). Set
//! [`FakeCheckRuns::forbid_checks`] to answer writes of check runs as GitHub answers a token
//! that may not write them (403 "Resource not accessible by integration").

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Ids of created check runs start here.
pub const FIRST_CHECK_RUN_ID: u64 = 9_100;

/// One request the fake answered: method, path and JSON body.
#[derive(Debug, Clone)]
pub struct CheckCall {
    pub method: String,
    pub path: String,
    pub body: Value,
}

#[derive(Default)]
pub struct CheckState {
    /// The check runs, as GitHub holds them (JSON objects).
    pub runs: Mutex<Vec<Value>>,
    /// Commit statuses posted, oldest first.
    pub statuses: Mutex<Vec<Value>>,
    /// Every request, in order.
    pub calls: Mutex<Vec<CheckCall>>,
    /// Writes of check runs are refused with 403, as for a fork's `GITHUB_TOKEN`.
    pub forbid_checks: Mutex<bool>,
    /// Completing a check run (a PATCH to `completed`) is refused with 422.
    pub refuse_completion: Mutex<bool>,
}

#[derive(Clone, Default)]
pub struct FakeCheckRuns {
    pub state: Arc<CheckState>,
}

struct Responder(Arc<CheckState>);

fn forbidden() -> ResponseTemplate {
    ResponseTemplate::new(403).set_body_json(json!({
        "message": "Resource not accessible by integration",
        "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run",
        "status": "403",
    }))
}

impl Respond for Responder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        let path = req.url.path().to_owned();
        self.0.calls.lock().unwrap().push(CheckCall {
            method: req.method.to_string(),
            path: path.clone(),
            body: body.clone(),
        });
        let forbid = *self.0.forbid_checks.lock().unwrap();
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match (req.method.as_str(), parts.as_slice()) {
            ("GET", ["repos", _, _, "commits", sha, "check-runs"]) => {
                let name = req
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "check_name")
                    .map(|(_, v)| v.into_owned());
                let runs: Vec<Value> = self
                    .0
                    .runs
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|r| r["head_sha"] == *sha)
                    .filter(|r| name.as_deref().is_none_or(|n| r["name"] == n))
                    .cloned()
                    .collect();
                ResponseTemplate::new(200)
                    .set_body_json(json!({"total_count": runs.len(), "check_runs": runs}))
            }
            ("POST", ["repos", owner, repo, "check-runs"]) => {
                if forbid {
                    return forbidden();
                }
                let mut runs = self.0.runs.lock().unwrap();
                let id = FIRST_CHECK_RUN_ID + runs.len() as u64;
                let run = json!({
                    "id": id,
                    "node_id": format!("CR_kwDOcheck{id}"),
                    "name": body["name"],
                    "head_sha": body["head_sha"],
                    "external_id": body.get("external_id").cloned().unwrap_or(json!("")),
                    "url": format!("https://api.github.com/repos/{owner}/{repo}/check-runs/{id}"),
                    "html_url": format!("https://github.com/{owner}/{repo}/runs/{id}"),
                    "details_url": body.get("details_url").cloned().unwrap_or(Value::Null),
                    "status": body.get("status").cloned().unwrap_or(json!("queued")),
                    "conclusion": body.get("conclusion").cloned().unwrap_or(Value::Null),
                    "started_at": body.get("started_at").cloned().unwrap_or(Value::Null),
                    "completed_at": Value::Null,
                    "output": body.get("output").cloned().unwrap_or(json!({})),
                    "app": {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"},
                    "pull_requests": [],
                });
                runs.push(run.clone());
                ResponseTemplate::new(201).set_body_json(run)
            }
            ("PATCH", ["repos", _, _, "check-runs", id]) => {
                if forbid {
                    return forbidden();
                }
                if body["status"] == "completed" && *self.0.refuse_completion.lock().unwrap() {
                    return ResponseTemplate::new(422).set_body_json(json!({
                        "message": "Validation Failed",
                        "documentation_url": "https://docs.github.com/rest/checks/runs#update-a-check-run",
                        "status": "422",
                    }));
                }
                let mut runs = self.0.runs.lock().unwrap();
                let Some(run) = runs
                    .iter_mut()
                    .find(|r| id.parse::<u64>().is_ok_and(|n| r["id"] == n))
                else {
                    return ResponseTemplate::new(404)
                        .set_body_json(json!({"message": "Not Found"}));
                };
                if let Some(fields) = body.as_object() {
                    for (k, v) in fields {
                        run[k] = v.clone();
                    }
                }
                if body["status"] == "in_progress" {
                    run["conclusion"] = Value::Null;
                }
                ResponseTemplate::new(200).set_body_json(run.clone())
            }
            ("POST", ["repos", _, _, "statuses", sha]) => {
                let status = json!({
                    "id": 7000 + self.0.statuses.lock().unwrap().len(),
                    "sha": sha,
                    "state": body["state"],
                    "context": body.get("context").cloned().unwrap_or(json!("default")),
                    "description": body.get("description").cloned().unwrap_or(Value::Null),
                    "target_url": body.get("target_url").cloned().unwrap_or(Value::Null),
                });
                self.0.statuses.lock().unwrap().push(status.clone());
                ResponseTemplate::new(201).set_body_json(status)
            }
            _ => ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})),
        }
    }
}

impl FakeCheckRuns {
    /// Mounts the check-run and status endpoints on `server` (REST at its root).
    pub async fn mount(server: &MockServer) -> FakeCheckRuns {
        let fake = FakeCheckRuns::default();
        for (m, re) in [
            ("GET", r"^/repos/[^/]+/[^/]+/commits/[0-9a-f]+/check-runs$"),
            ("POST", r"^/repos/[^/]+/[^/]+/check-runs$"),
            ("PATCH", r"^/repos/[^/]+/[^/]+/check-runs/\d+$"),
            ("POST", r"^/repos/[^/]+/[^/]+/statuses/[0-9a-f]+$"),
        ] {
            Mock::given(method(m))
                .and(path_regex(re))
                .respond_with(Responder(fake.state.clone()))
                .mount(server)
                .await;
        }
        fake
    }

    /// The check runs named `name`.
    pub fn runs_named(&self, name: &str) -> Vec<Value> {
        self.state
            .runs
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r["name"] == name)
            .cloned()
            .collect()
    }

    /// Every commit status posted.
    pub fn statuses(&self) -> Vec<Value> {
        self.state.statuses.lock().unwrap().clone()
    }

    /// The writes (POST and PATCH) in order, as `METHOD path`, with their bodies.
    pub fn writes(&self) -> Vec<CheckCall> {
        self.state
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.method != "GET")
            .cloned()
            .collect()
    }

    /// Refuses writes of check runs from now on (403), as for a token without `checks: write`.
    pub fn forbid_checks(&self) {
        *self.state.forbid_checks.lock().unwrap() = true;
    }
}
