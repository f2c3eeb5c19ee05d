//! `pr-shepherd watch` for a bounded number of ticks (`--ticks N --interval 0s`: no real
//! sleeping) against the loopback GitHub: a new head is reviewed once, a settling PR gets no
//! review and no seen markers until the window closes, a trigger is answered once.

mod support;

use std::path::Path;
use std::process::Output;

use serde_json::json;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const OWN: &str = "monalisa";

async fn llm() -> MockServer {
    let server = MockServer::start().await;
    let content = r#"{"findings": [{"severity": "suggestion", "file": "src/mod1.rs", "line": 3, "message": "Name the magic number"}]}"#;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}
        })))
        .mount(&server)
        .await;
    server
}

async fn watch(state: &Path, gh: &MockServer, llm: &MockServer, extra: &[&str]) -> Output {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_pr-shepherd"));
    for k in [
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "GH_APP_ID",
        "GH_APP_PRIVATE_KEY",
        "GH_APP_INSTALLATION_ID",
        "GITHUB_API_URL",
        "GITHUB_GRAPHQL_URL",
        "PR_SHEPHERD_STATE_DIR",
        "PR_SHEPHERD_IDENTITY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
    ] {
        c.env_remove(k);
    }
    c.env("PR_SHEPHERD_HTTP_BACKOFF_MS", "1")
        .env("PR_SHEPHERD_HTTP_ATTEMPTS", "2")
        .env("GH_TOKEN", "ghp_WatchLoopbackToken0123456789")
        .env("GITHUB_API_URL", gh.uri())
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .arg("--state-dir")
        .arg(state)
        .args(["watch", &format!("{OWNER}/{REPO}"), "--interval", "0s"])
        .args(["--llm", "openai", "--llm-url", &format!("{}/v1", llm.uri())])
        .args(extra);
    c.output().await.unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn pr_dir(state: &Path) -> std::path::PathBuf {
    state
        .join(format!("{OWNER}-{REPO}"))
        .join(NUMBER.to_string())
}

fn markers(state: &Path) -> usize {
    std::fs::read_dir(pr_dir(state).join("seen"))
        .map(|d| d.count())
        .unwrap_or(0)
}

fn own_reviews(fake: &FakeGitHub) -> usize {
    fake.extra_comments()
        .iter()
        .filter(|(_, c)| c.login == OWN && c.body.starts_with("## PR Shepherd Review"))
        .count()
}

fn team_pr() -> FakePr {
    FakePr {
        files: 2,
        ..FakePr::generate(2, 2, 3, 1, 2)
    }
}

#[tokio::test]
async fn a_new_head_is_reviewed_once_over_several_ticks() {
    let (gh, fake) = FakeGitHub::start(team_pr()).await;
    fake.set_author("octocat", "MEMBER");
    let llm = llm().await;
    let state = tempfile::tempdir().unwrap();
    let out = watch(state.path(), &gh, &llm, &["--ticks", "3", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).matches("reviewing head").count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_eq!(own_reviews(&fake), 1);
    assert_eq!(llm.received_requests().await.unwrap().len(), 6);
    assert!(markers(state.path()) > 0);
    let st: serde_json::Value =
        serde_json::from_slice(&std::fs::read(pr_dir(state.path()).join("watch.json")).unwrap())
            .unwrap();
    assert_eq!(
        st["lastHeadSha"],
        "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    );
    // A fresh state dir: the PR's own review says this head was reviewed; nothing again.
    let fresh = tempfile::tempdir().unwrap();
    let out = watch(fresh.path(), &gh, &llm, &["--ticks", "1", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(llm.received_requests().await.unwrap().len(), 6);
}

#[tokio::test]
async fn ticks_inside_the_settle_window_write_no_markers() {
    let (gh, fake) = FakeGitHub::start(team_pr()).await;
    fake.set_author("octocat", "MEMBER");
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    fake.add_comment("octocat", "NONE", "one more thing", &now);
    let llm = llm().await;
    let state = tempfile::tempdir().unwrap();
    let out = watch(
        state.path(),
        &gh,
        &llm,
        &["--ticks", "2", "--debounce", "1h"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out).matches("settling until").count(), 2);
    assert_eq!(markers(state.path()), 0);
    assert!(llm.received_requests().await.unwrap().is_empty());
    assert!(!pr_dir(state.path()).join("watch.json").exists());
    // The window closed: the next tick reviews and marks.
    let out = watch(
        state.path(),
        &gh,
        &llm,
        &["--ticks", "1", "--debounce", "0s"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(markers(state.path()) > 0);
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(
        listing.contains("one more thing"),
        "the late comment was surfaced before it was marked"
    );
    assert_eq!(llm.received_requests().await.unwrap().len(), 6);
}

#[tokio::test]
async fn a_trigger_is_answered_once_and_a_community_pr_waits_for_its_label() {
    let (gh, fake) = FakeGitHub::start(FakePr {
        labels: vec![],
        files: 2,
        ..FakePr::default()
    })
    .await;
    let llm = llm().await;
    let state = tempfile::tempdir().unwrap();
    let out = watch(state.path(), &gh, &llm, &["--ticks", "1", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("without label `shepherd`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(own_reviews(&fake), 0);

    // Asked again next tick (nothing remembered on a refusal).
    let out = watch(state.path(), &gh, &llm, &["--ticks", "1", "--post"]).await;
    assert!(
        stderr(&out).contains("without label `shepherd`"),
        "{}",
        stderr(&out)
    );

    let id = fake.add_comment(
        "hubot",
        "MEMBER",
        "@pr-shepherd /review",
        "2024-06-02T00:00:00Z",
    );
    let out = watch(state.path(), &gh, &llm, &["--ticks", "2", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out)
            .matches(&format!("answering trigger {id}"))
            .count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_eq!(own_reviews(&fake), 1);
    let body = fake
        .extra_comments()
        .into_iter()
        .find(|(_, c)| c.login == OWN)
        .unwrap()
        .1
        .body;
    assert!(body.contains(&format!("\"triggerComment\":{id}")));
}
