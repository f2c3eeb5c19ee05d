//! Shepherd's own check on the PR's head (`[automation] check`): `event` and `watch --post`
//! against the loopback GitHub (its check runs and commit statuses) and the stand-in LLM — in
//! progress before the model is called, then failure on an unaddressed critical finding (the
//! summary linking the comment), neutral when the model is unreachable, the same check updated
//! by a retry, and a commit status, said so, where the token cannot write check runs.

use crate::support;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_check_runs::FakeCheckRuns;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO, payload};
use support::llm::StandInLlm;
use support::webhook::event;
use support::{stderr, stdout_json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const CHECK_ON: &str = "[automation]\ncheck = true\n";
const HEAD: &str = "6dcb09b5b57875f334f61aebed695e2e4193db5e";

fn critical() -> Value {
    json!({"severity": "critical", "file": "src/mod1.rs", "line": 3,
           "message": "The token is written to the log"})
}

/// An OpenAI-compatible stand-in that answers `findings` and records, at each call, the
/// `pr-shepherd` check runs' statuses on the loopback GitHub (what existed when the model was
/// called).
struct Watching {
    checks: FakeCheckRuns,
    content: String,
    seen: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Respond for Watching {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let statuses = self
            .checks
            .runs_named("pr-shepherd")
            .iter()
            .map(|r| r["status"].as_str().unwrap_or("?").to_owned())
            .collect();
        self.seen.lock().unwrap().push(statuses);
        ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"role": "assistant", "content": self.content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}
        }))
    }
}

/// A team PR on the loopback GitHub with its check runs, a stand-in LLM answering `findings`,
/// and an environment whose config is `config`.
struct Setup {
    gh: MockServer,
    fake: FakeGitHub,
    checks: FakeCheckRuns,
    llm: StandInLlm,
    env: TestEnv,
    /// The check runs' statuses at each model call.
    seen: Arc<Mutex<Vec<Vec<String>>>>,
}

async fn setup(findings: Vec<Value>, config: &str) -> Setup {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let checks = FakeCheckRuns::mount(&gh).await;
    let server = MockServer::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Watching {
            checks: checks.clone(),
            content: json!({ "findings": findings }).to_string(),
            seen: seen.clone(),
        })
        .mount(&server)
        .await;
    Setup {
        gh,
        fake,
        checks,
        llm: StandInLlm { server },
        env: TestEnv::with_config(config),
        seen,
    }
}

fn opened(s: &Setup) -> std::path::PathBuf {
    payload(s.env.root(), "pull_request/opened.payload.json", |_| {})
}

impl Setup {
    /// `event` on `pull_request.opened`, then `extra` flags.
    async fn opened(&self, extra: &[&str]) -> std::process::Output {
        event(
            &self.env,
            &self.gh,
            &self.llm,
            "pull_request",
            &opened(self),
            extra,
        )
        .await
    }
}

/// The writes as `METHOD path`.
fn writes(checks: &FakeCheckRuns) -> Vec<String> {
    checks
        .writes()
        .iter()
        .map(|c| format!("{} {}", c.method, c.path))
        .collect()
}

#[tokio::test]
async fn an_unaddressed_critical_finding_ends_the_one_check_in_failure_linking_the_comment() {
    let s = setup(vec![critical()], CHECK_ON).await;
    let out = s.opened(&["--format", "json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs = s.checks.runs_named("pr-shepherd");
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = &runs[0];
    let id = run["id"].as_u64().unwrap();
    // In progress before the model was called: every call saw it so.
    let seen = s.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 6);
    assert!(
        seen.iter().all(|at| at == &["in_progress".to_owned()]),
        "{seen:?}"
    );
    let repo = format!("/repos/{OWNER}/{REPO}");
    assert_eq!(
        writes(&s.checks),
        [
            format!("POST {repo}/check-runs"),
            format!("PATCH {repo}/check-runs/{id}")
        ]
    );
    let created = &s.checks.writes()[0].body;
    assert_eq!(created["status"], "in_progress");
    assert_eq!(created["head_sha"], HEAD);
    let external = created["external_id"].as_str().unwrap();
    assert!(
        external.contains(&format!("{OWNER}/{REPO}#{NUMBER}")) && external.contains(HEAD),
        "{external}"
    );
    // Completed failure, its summary linking the posted comment.
    let (comment_id, _) = s.fake.own_reviews()[0].clone();
    let url = format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#issuecomment-{comment_id}");
    assert_eq!(run["status"], "completed");
    assert_eq!(run["conclusion"], "failure");
    assert!(
        run["output"]["title"]
            .as_str()
            .unwrap()
            .contains("at or above critical"),
        "{run}"
    );
    let summary = run["output"]["summary"].as_str().unwrap();
    assert!(summary.contains(&format!("({url})")), "{summary}");
    assert!(summary.contains("| critical |"), "{summary}");
    assert_eq!(run["details_url"], url.as_str());
    // The output says so too.
    let doc = stdout_json(&out);
    assert_eq!(doc["check"]["conclusion"], "failure");
    assert_eq!(doc["check"]["channel"], "checkRun");
    assert_eq!(doc["check"]["id"], id);
    assert!(
        stderr(&out).contains(&format!("completed failure (check run {id})")),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn with_the_model_unreachable_the_check_ends_neutral() {
    let s = setup(
        vec![critical()],
        &format!("{CHECK_ON}[review]\nretries = 0\n"),
    )
    .await;
    // A port nothing listens on: every call is refused.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let p = opened(&s);
    let out = s
        .env
        .bin_async()
        .env("GITHUB_TOKEN", support::webhook::TOKEN)
        .env("GITHUB_API_URL", s.gh.uri())
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &p)
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args(["event", "--llm", "openai", "--llm-url"])
        .arg(format!("http://127.0.0.1:{closed}/v1"))
        .output()
        .await
        .unwrap();
    // Incomplete (exit 3), never red.
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let runs = s.checks.runs_named("pr-shepherd");
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "completed");
    assert_eq!(runs[0]["conclusion"], "neutral");
    let title = runs[0]["output"]["title"].as_str().unwrap();
    assert!(title.starts_with("Not reviewed"), "{title}");
    assert!(
        stderr(&out).contains("completed neutral"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("sk-test-0123456789"));
}

#[tokio::test]
async fn a_retried_run_on_the_same_head_updates_the_same_check() {
    let s = setup(vec![critical()], CHECK_ON).await;
    let p = opened(&s);
    for _ in 0..2 {
        let out = event(&s.env, &s.gh, &s.llm, "pull_request", &p, &[]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let runs = s.checks.runs_named("pr-shepherd");
    assert_eq!(runs.len(), 1, "never two checks on one head: {runs:?}");
    let id = runs[0]["id"].as_u64().unwrap();
    let repo = format!("/repos/{OWNER}/{REPO}");
    let patch = format!("PATCH {repo}/check-runs/{id}");
    assert_eq!(
        writes(&s.checks),
        [
            format!("POST {repo}/check-runs"),
            patch.clone(),
            patch.clone(),
            patch
        ],
        "the retry patched the same check and posted none"
    );
    assert_eq!(s.checks.writes()[2].body["status"], "in_progress");
    assert_eq!(runs[0]["conclusion"], "failure");
    assert_eq!(s.fake.own_reviews().len(), 1);
}

#[tokio::test]
async fn a_token_that_cannot_write_checks_gets_a_commit_status_and_is_told_so() {
    let s = setup(vec![critical()], CHECK_ON).await;
    s.checks.forbid_checks();
    let out = s.opened(&["--format", "json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.checks.runs_named("pr-shepherd").is_empty());
    let statuses = s.checks.statuses();
    let states: Vec<&str> = statuses
        .iter()
        .map(|st| st["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["pending", "failure"]);
    for st in &statuses {
        assert_eq!(st["context"], "pr-shepherd");
        assert_eq!(st["sha"], HEAD);
        let d = st["description"].as_str().unwrap();
        assert!(d.chars().count() <= 140, "{d}");
        assert!(d.ends_with("this token cannot write check runs"), "{d}");
    }
    let (comment_id, _) = s.fake.own_reviews()[0].clone();
    assert!(
        statuses[1]["target_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("#issuecomment-{comment_id}"))
    );
    let err = stderr(&out);
    assert!(
        err.contains("this token cannot write check runs (")
            && err.contains("Resource not accessible by integration"),
        "{err}"
    );
    assert!(
        err.contains("the commit status `pr-shepherd` is failure"),
        "{err}"
    );
    assert!(!err.contains(support::webhook::TOKEN));
    let doc = stdout_json(&out);
    assert_eq!(doc["check"]["channel"], "commitStatus");
    assert!(
        doc["check"]["fallback"]
            .as_str()
            .unwrap()
            .contains("Resource not accessible by integration")
    );
}

#[tokio::test]
async fn without_the_setting_no_check_is_published() {
    let s = setup(vec![critical()], "").await;
    let out = s.opened(&[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.checks.state.calls.lock().unwrap().is_empty());
    assert!(!stderr(&out).contains("check:"), "{}", stderr(&out));
    assert_eq!(s.fake.own_reviews().len(), 1);
}

#[tokio::test]
async fn watch_with_post_publishes_the_check_on_the_head_it_reviews() {
    let s = setup(
        vec![json!({"severity": "important", "file": "src/mod1.rs", "line": 3, "message": "m"})],
        CHECK_ON,
    )
    .await;
    let out = s
        .env
        .bin_async()
        .env("GH_TOKEN", "ghp_WatchLoopbackToken0123456789")
        .env("GITHUB_API_URL", s.gh.uri())
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args(["watch", &format!("{OWNER}/{REPO}"), "--interval", "0s"])
        .args(s.llm.args())
        .args(["--ticks", "2", "--post", "--debounce", "0s"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs = s.checks.runs_named("pr-shepherd");
    assert_eq!(runs.len(), 1, "{runs:?}");
    // An important finding does not fail the default threshold (critical).
    assert_eq!(runs[0]["conclusion"], "success");
    assert_eq!(runs[0]["head_sha"], HEAD);
    assert_eq!(
        s.checks.writes().len(),
        2,
        "the second tick reviewed nothing"
    );
}

#[tokio::test]
async fn a_check_that_cannot_be_completed_is_reported_and_the_review_is_not_lost() {
    let s = setup(vec![critical()], CHECK_ON).await;
    *s.checks.state.refuse_completion.lock().unwrap() = true;
    let out = s.opened(&["--format", "json"]).await;
    // The review is posted and printed; the check's failure fails the command (exit 1).
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(s.fake.own_reviews().len(), 1);
    let doc = stdout_json(&out);
    assert_eq!(doc["posted"]["action"], "created");
    assert_eq!(doc["check"]["conclusion"], "failure");
    assert!(doc["check"]["published"].is_null(), "{}", doc["check"]);
    let err = stderr(&out);
    assert!(
        err.contains("error: the `pr-shepherd` check could not be completed (failure)"),
        "{err}"
    );
    assert!(err.contains("posted: created comment"), "{err}");
}
