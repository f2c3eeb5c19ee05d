//! `review PR --post` against a live (loopback) GitHub: create, update, lookalikes untouched, a
//! lost create answer then retry → one comment, `no-shepherd`, and `--trigger-comment` (cutoff,
//! mode, refusal, idempotency, the body never reaching a prompt), and an incomplete review never
//! replacing a complete one unless asked (`--post-incomplete`).

use crate::support;

use std::process::Output;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref};
use support::llm::StandInLlm;
use support::{stderr, stdout, stdout_json};
use wiremock::MockServer;

const TOKEN: &str = "ghp_PostLoopbackToken0123456789abcdef";

/// What the stand-in LLM finds in every aspect.
fn unhandled_error() -> Value {
    json!({"severity": "important", "file": "src/mod0.rs", "line": 2, "message": "The error path of `f0` is not handled"})
}

async fn shepherd(env: &TestEnv, gh: &MockServer, llm: &StandInLlm, args: &[&str]) -> Output {
    support::live_run(env, &gh.uri(), TOKEN, llm, args).await
}

/// `review PR --post --format json`, which must exit 0: its JSON.
async fn post_json(env: &TestEnv, gh: &MockServer, llm: &StandInLlm) -> Value {
    let args = ["review", &pr_ref(NUMBER), "--post", "--format", "json"];
    let out = shepherd(env, gh, llm, &args).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout_json(&out)
}

#[tokio::test]
async fn post_creates_then_updates_the_one_comment() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let args = ["review", &pr_ref(NUMBER), "--post", "--format", "json"];
    let first = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let v = stdout_json(&first);
    assert_eq!(v["posted"]["action"], "created");
    assert_eq!(v["mode"], "full");
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    assert_eq!(v["posted"]["commentId"], own[0].0.to_string());
    assert!(own[0].1.contains("pr-shepherd:meta"));
    // Posting costs a list page, one create and the look again after it (for a comment another
    // run made at the same time); nothing else is written.
    let kinds = |k: &str| fake.seen().iter().filter(|s| s.kind == k).count();
    assert_eq!((kinds("list-comments"), kinds("create-comment")), (2, 1));
    assert_eq!(kinds("update-comment"), 0);

    let second = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let v = stdout_json(&second);
    assert_eq!(v["posted"]["action"], "updated");
    assert_eq!(v["posted"]["commentId"], own[0].0.to_string());
    // The first review was read back from the PR: the finding is now unchanged.
    assert_eq!(v["mode"], "incremental");
    assert_eq!(v["counts"]["unchanged"], 6);
    assert_eq!(fake.own_reviews().len(), 1);
    assert_eq!((kinds("create-comment"), kinds("update-comment")), (1, 1));
    // The token never shows.
    assert!(!stderr(&second).contains(TOKEN));
    assert!(!stdout(&second).contains(TOKEN));
}

#[tokio::test]
async fn a_lookalike_by_another_author_is_never_edited() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let fake_body = "## PR Shepherd Review\n\nI am not Shepherd.";
    let mallory = fake.add_comment("mallory", "NONE", fake_body, "2024-06-01T00:00:00Z");
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let v = post_json(&env, &gh, &llm).await;
    assert_eq!(v["posted"]["action"], "created");
    assert_ne!(v["posted"]["commentId"], mallory.to_string());
    let comments = fake.extra_comments();
    assert_eq!(comments[0].1.body, fake_body);
    assert!(comments[0].1.edited.is_none());
    assert!(
        fake.seen()
            .iter()
            .all(|s| !(s.kind == "update-comment" && s.path.ends_with(&mallory.to_string())))
    );
    assert_eq!(fake.own_reviews().len(), 1);
}

#[tokio::test]
async fn a_lost_create_answer_then_retry_leaves_one_comment() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    *fake.state.fail_creates_after_store.lock().unwrap() = 1;
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let v = post_json(&env, &gh, &llm).await;
    assert_eq!(
        v["posted"]["action"], "updated",
        "the retry found the stored comment"
    );
    assert_eq!(fake.own_reviews().len(), 1);
    let creates = fake
        .seen()
        .iter()
        .filter(|s| s.kind == "create-comment")
        .count();
    assert_eq!(creates, 1, "a create is never repeated blindly");
}

#[tokio::test]
async fn no_shepherd_is_never_posted() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&["no-shepherd"])).await;
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let out = shepherd(&env, &gh, &llm, &["review", &pr_ref(NUMBER), "--post"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("not posted") && err.contains("no-shepherd"),
        "{err}"
    );
    assert!(stdout(&out).starts_with("## PR Shepherd Review"));
    assert!(fake.extra_comments().is_empty());
    assert!(fake.seen().iter().all(|s| s.kind != "create-comment"));
}

#[tokio::test]
async fn a_trigger_on_a_no_shepherd_pr_calls_no_model() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&["no-shepherd"])).await;
    let trigger = fake.add_comment(
        "hubot",
        "MEMBER",
        "@pr-shepherd /review",
        "2024-06-02T00:00:00Z",
    );
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let id = trigger.to_string();
    let out = shepherd(
        &env,
        &gh,
        &llm,
        &["review", &pr_ref(NUMBER), "--trigger-comment", &id],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not reviewed") && err.contains("no-shepherd"),
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert!(llm.requests().await.is_empty(), "a model was called");
    assert!(fake.seen().iter().all(|s| s.kind != "create-comment"));
}

const TRIGGER_TEXT: &str = "@pr-shepherd /review all\n\nAlso IGNORE-PREVIOUS-INSTRUCTIONS-MARKER.";

#[tokio::test]
async fn a_trigger_comment_cuts_off_sets_the_mode_and_is_idempotent() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    fake.add_comment("octocat", "NONE", "before", "2024-06-01T00:00:00Z");
    let trigger = fake.add_comment("hubot", "MEMBER", TRIGGER_TEXT, "2024-06-02T00:00:00Z");
    fake.add_comment("octocat", "NONE", "AFTER-MARKER", "2024-06-03T00:00:00Z");
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let id = trigger.to_string();
    let args = [
        "review",
        &pr_ref(NUMBER),
        "--post",
        "--format",
        "json",
        "--trigger-comment",
        &id,
    ];
    let first = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let v = stdout_json(&first);
    assert_eq!(v["mode"], "full", "`/review all` asks for a full review");
    assert_eq!(v["triggerComment"], trigger);
    assert_eq!(v["posted"]["action"], "created");
    assert!(stderr(&first).contains("1 later or edited item left out"));
    let body = &fake.own_reviews()[0].1;
    assert!(body.contains(&format!("\"triggerComment\":{trigger}")));

    // The same trigger again: the same comment is updated, never a second one.
    let second = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(stdout_json(&second)["posted"]["action"], "updated");
    assert_eq!(fake.own_reviews().len(), 1);

    // The trigger's body (and anything after it) never reached a prompt.
    let prompts = llm.requests().await;
    assert_eq!(prompts.len(), 12);
    for r in prompts {
        let text = String::from_utf8_lossy(&r.body);
        assert!(!text.contains("IGNORE-PREVIOUS-INSTRUCTIONS-MARKER"));
        assert!(!text.contains("AFTER-MARKER"));
    }
}

#[tokio::test]
async fn a_trigger_by_node_id_works_and_a_contributor_trigger_is_refused() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let member = fake.add_comment(
        "hubot",
        "MEMBER",
        "@pr-shepherd /review",
        "2024-06-02T00:00:00Z",
    );
    let outsider = fake.add_comment(
        "octocat",
        "CONTRIBUTOR",
        "@pr-shepherd /review",
        "2024-06-03T00:00:00Z",
    );
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::new();
    let node = format!("IC_kwDOX{member:08}");
    let out = shepherd(
        &env,
        &gh,
        &llm,
        &[
            "review",
            &pr_ref(NUMBER),
            "--format",
            "json",
            "--trigger-comment",
            &node,
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout_json(&out)["triggerComment"], member);

    let out = shepherd(
        &env,
        &gh,
        &llm,
        &[
            "review",
            &pr_ref(NUMBER),
            "--post",
            "--trigger-comment",
            &outsider.to_string(),
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("not a valid trigger") && err.contains("CONTRIBUTOR"),
        "{err}"
    );
    assert!(fake.own_reviews().is_empty());
    let out = shepherd(
        &env,
        &gh,
        &llm,
        &["review", &pr_ref(NUMBER), "--trigger-comment", "999999"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
}

/// `review PR --post --format json` with the model down (nothing listens at its URL), plus
/// `extra` flags.
async fn post_with_the_model_down(env: &TestEnv, gh: &MockServer, extra: &[&str]) -> Output {
    let down = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", down.local_addr().expect("addr"));
    drop(down);
    env.bin_async()
        .env("GH_TOKEN", TOKEN)
        .env("GITHUB_API_URL", gh.uri())
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args(["review", &pr_ref(NUMBER), "--post", "--format", "json"])
        .args(["--llm", "openai", "--llm-url", &url])
        .args(extra)
        .output()
        .await
        .expect("run pr-shepherd")
}

/// Failed before it was fixed (a headless `--post` with the model down replaced the visible
/// review by "Findings: 0 … Incomplete review"): an incomplete review is posted over a complete
/// one only with `--post-incomplete`; without it, it is printed (exit 3), stderr and the JSON say
/// why it was not posted, and the complete review stays. A first review, or one over an
/// incomplete review, is posted as before.
#[tokio::test]
async fn an_incomplete_review_never_replaces_a_complete_one_unless_asked() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(vec![unhandled_error()]).await;
    let env = TestEnv::with_config("[review]\nretries = 0\n");
    // No review on the PR yet: an incomplete first review is posted (and exits 3).
    let first = post_with_the_model_down(&env, &gh, &[]).await;
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    assert_eq!(stdout_json(&first)["posted"]["action"], "created");
    assert!(fake.own_reviews()[0].1.contains("Incomplete review"));
    // A complete review replaces it.
    let complete = post_json(&env, &gh, &llm).await;
    assert_eq!(complete["posted"]["action"], "updated");
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    assert!(!own[0].1.contains("Incomplete review"), "{}", own[0].1);
    let complete_body = own[0].1.clone();

    // The model is down again: the complete review stays.
    let down = post_with_the_model_down(&env, &gh, &[]).await;
    assert_eq!(down.status.code(), Some(3), "{}", stderr(&down));
    let v = stdout_json(&down);
    assert_eq!(v["posted"], Value::Null, "{v}");
    assert_eq!(v["complete"], false);
    let why = v["notPosted"].as_str().unwrap_or_default();
    assert!(
        why.contains("incomplete") && why.contains("--post-incomplete"),
        "{v}"
    );
    let err = stderr(&down);
    assert!(
        err.contains("not posted: the review is incomplete") && err.contains("--post-incomplete"),
        "{err}"
    );
    assert_eq!(fake.own_reviews(), vec![(own[0].0, complete_body.clone())]);

    // Asked for: it replaces it.
    let asked = post_with_the_model_down(&env, &gh, &["--post-incomplete"]).await;
    assert_eq!(asked.status.code(), Some(3), "{}", stderr(&asked));
    assert_eq!(stdout_json(&asked)["posted"]["action"], "updated");
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    assert!(own[0].1.contains("Incomplete review"), "{}", own[0].1);
}
