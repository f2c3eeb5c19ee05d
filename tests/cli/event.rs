//! `pr-shepherd event` end to end: a real webhook payload (tests/fixtures/webhooks, pointed at the
//! loopback GitHub) → the decision → gates → review → post, with an OpenAI-compatible LLM on
//! loopback.

use crate::support;

use serde_json::{Value, json};
use support::fake_github::payload;
use support::fake_github::{FakePr, OWNER};
use support::webhook::{comment_payload, event, member_comment};
use support::{Live, exited_0, stderr};

#[tokio::test]
async fn opened_team_pr_is_reviewed_and_posted() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &["--format", "json"]).await);
    assert!(stderr(&out).contains("decision: review: pull_request.opened"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"]["action"], "review");
    assert_eq!(v["posted"]["action"], "created");
    assert_eq!(fake.own_reviews().len(), 1);
    // synchronize on the same PR updates the same comment.
    let p = payload(env.root(), "pull_request/synchronize.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(stderr(&out).contains("posted: updated"));
    assert_eq!(fake.own_reviews().len(), 1);
}

#[tokio::test]
async fn community_pr_without_label_gets_no_action_with_the_reason() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &["--format", "json"]).await);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"]["action"], "noAction");
    assert!(
        v["decision"]["reason"]
            .as_str()
            .unwrap()
            .contains("without label `shepherd`")
    );
    assert_eq!(fake.own_reviews().len(), 0);
    assert!(llm.requests().await.is_empty());
    // The ambiguous CONTRIBUTOR was asked about at the org.
    assert!(
        fake.seen()
            .iter()
            .any(|s| s.path == format!("/orgs/{OWNER}/members/octocat"))
    );
}

#[tokio::test]
async fn an_org_member_behind_an_ambiguous_association_counts_as_team() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.state
        .org_members
        .lock()
        .unwrap()
        .push("octocat".into());
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(stderr(&out).contains("team PR"));
    assert_eq!(fake.own_reviews().len(), 1);
}

#[tokio::test]
async fn labeled_shepherd_reviews_a_community_pr_once_per_head() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&["shepherd"])).await;
    let p = payload(env.root(), "pull_request/labeled.payload.json", |v| {
        v["label"]["name"] = json!("shepherd");
    });
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(stderr(&out).contains("community PR with label `shepherd`"));
    assert_eq!(fake.own_reviews().len(), 1);
    // Another label on the same head: no second review.
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(
        stderr(&out).contains("already reviewed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(llm.requests().await.len(), 6);
}

#[tokio::test]
async fn no_shepherd_posts_nothing_even_for_a_team_pr_and_a_trigger_calls_no_model() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&["no-shepherd"])).await;
    fake.set_author("octocat", "MEMBER");
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(stderr(&out).contains("no-shepherd"));
    // A maintainer's trigger: refused whole, no model called, and the decision says why.
    let (_, p) = member_comment(&fake, env.root(), "@pr-shepherd /review");
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &["--format", "json"]).await);
    let err = stderr(&out);
    assert!(
        err.contains("no action") && err.contains("no-shepherd"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"]["action"], "noAction");
    assert!(
        v["decision"]["reason"]
            .as_str()
            .unwrap()
            .contains("no-shepherd")
    );
    assert!(llm.requests().await.is_empty(), "a model was called");
    assert_eq!(fake.own_reviews().len(), 0);
    assert!(fake.seen().iter().all(|s| s.kind != "create-comment"));
}

#[tokio::test]
async fn a_member_trigger_reviews_with_the_cutoff_a_contributor_trigger_does_nothing() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.add_comment("octocat", "NONE", "before", "2024-06-01T00:00:00Z");
    let (id, p) = member_comment(
        &fake,
        env.root(),
        "@pr-shepherd /review all TRIGGER-BODY-MARKER",
    );
    fake.add_comment("octocat", "NONE", "after", "2024-06-03T00:00:00Z");
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &["--format", "json"]).await);
    assert!(stderr(&out).contains("1 later or edited item left out"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "full");
    assert_eq!(v["triggerComment"], id);
    assert_eq!(v["posted"]["action"], "created");
    // A community PR was reviewed on a maintainer's explicit request, and the review says so.
    assert!(
        v["body"]
            .as_str()
            .unwrap()
            .contains("community gate by explicit request")
    );
    for r in llm.requests().await {
        assert!(!String::from_utf8_lossy(&r.body).contains("TRIGGER-BODY-MARKER"));
    }
    // The same delivery again: the same comment.
    exited_0(event(&env, &gh, &llm, "issue_comment", &p, &[]).await);
    assert_eq!(fake.own_reviews().len(), 1);

    let before = llm.requests().await.len();
    let p = comment_payload(env.root(), None, "@pr-shepherd /review", "CONTRIBUTOR");
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &[]).await);
    assert!(stderr(&out).contains("decision: no action") && stderr(&out).contains("CONTRIBUTOR"));
    assert_eq!(llm.requests().await.len(), before);
}

#[tokio::test]
async fn dry_run_prints_the_decision_and_the_review_and_posts_nothing() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "OWNER");
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &["--dry-run"]).await);
    assert!(stderr(&out).contains("decision: review"));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("## PR Shepherd Review"));
    assert_eq!(fake.own_reviews().len(), 0);
    assert!(
        fake.seen()
            .iter()
            .all(|s| s.kind != "create-comment" && s.kind != "update-comment")
    );
}

#[tokio::test]
async fn closed_and_missing_inputs() {
    let Live {
        gh,
        fake: _,
        llm,
        env,
    } = Live::start(FakePr::with_labels(&[])).await;
    let p = payload(env.root(), "pull_request/closed.payload.json", |_| {});
    let out = event(&env, &gh, &llm, "pull_request", &p, &[]).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("no action"));
    let out = event(
        &env,
        &gh,
        &llm,
        "pull_request",
        &env.root().join("nope.json"),
        &[],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
}

/// Failed before: when the review's run file could not be saved, `event` warned and exited 0.
/// The review is still posted and printed (nothing is lost); the failure is named; exit 1.
#[tokio::test]
async fn a_run_that_cannot_be_saved_is_not_success() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let pr_dir = support::fake_github::pr_state_dir(&env.state());
    std::fs::create_dir_all(&pr_dir).unwrap();
    // A file where the runs folder belongs: fails for root too.
    std::fs::write(pr_dir.join("runs"), "not a folder").unwrap();
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = event(&env, &gh, &llm, "pull_request", &p, &[]).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(support::stdout(&out).contains("## PR Shepherd Review"));
    assert!(err.contains("posted: created"), "{err}");
    assert!(err.contains("its run was not saved"), "{err}");
    assert_eq!(fake.own_reviews().len(), 1);
}

/// Failed before it was fixed (a push with the model down replaced the posted review by an empty
/// incomplete one): `event` posts an incomplete review over a complete one only with
/// `--post-incomplete`, and says why it did not in the JSON (`notPosted`) and on stderr.
#[tokio::test]
async fn a_push_with_the_model_down_leaves_the_complete_review_unless_asked() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let p = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    let complete = fake.own_reviews();
    assert_eq!(complete.len(), 1);
    // The model answers nothing but 404 now.
    let down = support::llm::StandInLlm {
        server: wiremock::MockServer::start().await,
    };
    let p = payload(env.root(), "pull_request/synchronize.payload.json", |_| {});
    let out = event(&env, &gh, &down, "pull_request", &p, &["--format", "json"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["posted"], Value::Null, "{v}");
    assert!(
        v["notPosted"]
            .as_str()
            .is_some_and(|w| w.contains("--post-incomplete")),
        "{v}"
    );
    assert!(stderr(&out).contains("not posted: the review is incomplete"));
    assert_eq!(fake.own_reviews(), complete);
    let out = event(&env, &gh, &down, "pull_request", &p, &["--post-incomplete"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("posted: updated"), "{}", stderr(&out));
    assert!(fake.own_reviews()[0].1.contains("Incomplete review"));
}
