//! Automation end to end, with GitHub's real webhook payloads (tests/fixtures/webhooks) pointed at
//! the loopback GitHub and an OpenAI-compatible LLM on loopback: triggers in review summaries and
//! inline review comments, mentions and gates from the config, oversized triggers, closed PRs,
//! write-action labels, and the findings history over three successive reviews.

use crate::support;

use std::process::Output;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::payload;
use support::fake_github::{FComment, FReview, FThread, FakePr, NUMBER, OWNER, REPO};
use support::llm::StandInLlm;
use support::webhook::{TOKEN, authored_payload, event, member_comment};
use support::{Live, exited_0, live_run, stderr, stdout, stdout_json};
use wiremock::MockServer;

fn fcomment(id: &str, login: &str, association: &'static str, body: &str, at: &str) -> FComment {
    FComment {
        id: id.to_owned(),
        login: login.to_owned(),
        bot: false,
        association,
        body: body.to_owned(),
        created: at.to_owned(),
        edited: None,
        minimized: None,
    }
}

/// Everything the LLM was sent, as text.
async fn prompts(llm: &StandInLlm) -> String {
    llm.requests()
        .await
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect()
}

/// One `watch` tick over the fake's repository, which may post.
async fn watch(env: &TestEnv, gh: &MockServer, llm: &StandInLlm) -> Output {
    let repo = format!("{OWNER}/{REPO}");
    let args = ["watch", &repo, "--ticks", "1", "--debounce", "0s", "--post"];
    live_run(env, &gh.uri(), TOKEN, llm, &args).await
}

/// A watch tick on `env` that answers no trigger and so asks the LLM nothing.
async fn watch_answers_nothing(env: &TestEnv, gh: &MockServer, llm: &StandInLlm) {
    let before = llm.requests().await.len();
    let out = exited_0(watch(env, gh, llm).await);
    assert!(
        !stderr(&out).contains("answering trigger"),
        "{}",
        stderr(&out)
    );
    assert_eq!(llm.requests().await.len(), before);
}

const REVIEW_DB: u64 = 777;
const INLINE_DB: u64 = 888;

/// A community PR with a maintainer's review summary (database id 777) and an inline review
/// comment (database id 888), both triggers.
fn pr_with_review_triggers(labels: &[&str]) -> FakePr {
    let mut pr = FakePr::with_labels(labels);
    pr.reviews.push(FReview {
        comment: fcomment(
            &format!("PRR_kwDOtrigger:db{REVIEW_DB}"),
            "hubot",
            "MEMBER",
            "Two things.\n\n@pr-shepherd /review all REVIEW-TRIGGER-MARKER",
            "2024-06-02T00:00:00Z",
        ),
        state: "COMMENTED",
    });
    pr.threads.push(FThread {
        id: "PRRT_kwDOthread".to_owned(),
        path: "src/mod1.rs".to_owned(),
        line: Some(3),
        original_line: 3,
        outdated: false,
        resolved: false,
        comments: vec![
            fcomment(
                &format!("PRRC_kwDOinline:db{INLINE_DB}"),
                "hubot",
                "OWNER",
                "@pr-shepherd /review INLINE-TRIGGER-MARKER",
                "2024-06-02T00:00:01Z",
            ),
            fcomment(
                "PRRC_kwDOreply:db889",
                "octocat",
                "NONE",
                "LATER-REPLY-MARKER",
                "2024-06-04T00:00:00Z",
            ),
        ],
    });
    pr
}

#[tokio::test]
async fn a_review_summary_trigger_is_answered_through_the_review_and_idempotently() {
    let Live { gh, fake, llm, env } = Live::start(pr_with_review_triggers(&[])).await;
    fake.add_comment(
        "octocat",
        "NONE",
        "LATER-COMMENT-MARKER",
        "2024-06-03T00:00:00Z",
    );
    let p = authored_payload(
        env.root(),
        "pull_request_review/submitted.payload.json",
        "review",
        Some(REVIEW_DB),
        "Two things.\n\n@pr-shepherd /review all",
        "MEMBER",
    );
    let out = exited_0(
        event(
            &env,
            &gh,
            &llm,
            "pull_request_review",
            &p,
            &["--format", "json"],
        )
        .await,
    );
    let err = stderr(&out);
    assert!(err.contains("decision: review"), "{err}");
    assert!(err.contains("(review summary)"), "{err}");
    let v: Value = stdout_json(&out);
    assert_eq!(v["decision"]["triggerKind"], "review");
    assert_eq!(v["triggerComment"], REVIEW_DB);
    assert_eq!(v["triggerKind"], "review");
    assert_eq!(v["mode"], "full");
    assert_eq!(v["posted"]["action"], "created");
    // A community PR answered on a maintainer's explicit request.
    assert!(
        v["body"]
            .as_str()
            .unwrap()
            .contains("community gate by explicit request")
    );
    // The trigger's text and everything after it stay out of every prompt.
    let sent = prompts(&llm).await;
    assert!(!sent.is_empty());
    for marker in [
        "REVIEW-TRIGGER-MARKER",
        "LATER-COMMENT-MARKER",
        "LATER-REPLY-MARKER",
        "Two things",
    ] {
        assert!(!sent.contains(marker), "{marker} reached a prompt");
    }
    // The cutoff left out the later conversation comment, the inline comment a second after
    // the review, the later reply and so their whole thread.
    assert!(err.contains("4 later or edited items left out"), "{err}");
    // The same delivery again updates the same comment; the metadata names the review.
    let out = exited_0(event(&env, &gh, &llm, "pull_request_review", &p, &[]).await);
    assert!(stderr(&out).contains("posted: updated"), "{}", stderr(&out));
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    assert!(
        own[0]
            .1
            .contains(r#""triggerComment":777,"triggerKind":"review""#)
    );
}

#[tokio::test]
async fn an_inline_review_comment_trigger_is_answered_and_watch_does_not_answer_it_again() {
    let Live { gh, fake, llm, env } = Live::start(pr_with_review_triggers(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let p = authored_payload(
        env.root(),
        "pull_request_review_comment/created.payload.json",
        "comment",
        Some(INLINE_DB),
        "@pr-shepherd /review",
        "OWNER",
    );
    let out = exited_0(
        event(
            &env,
            &gh,
            &llm,
            "pull_request_review_comment",
            &p,
            &["--format", "json"],
        )
        .await,
    );
    let v: Value = stdout_json(&out);
    assert_eq!(v["triggerKind"], "reviewComment");
    assert_eq!(v["triggerComment"], INLINE_DB);
    // The first review of the PR is a full one.
    assert_eq!(v["mode"], "full");
    let sent = prompts(&llm).await;
    for marker in ["INLINE-TRIGGER-MARKER", "LATER-REPLY-MARKER"] {
        assert!(!sent.contains(marker), "{marker} reached a prompt");
    }
    // `review --trigger-comment` takes review-comment ids too (the node id here; the database
    // id 888 names one item as well).
    let pr = support::fake_github::pr_ref(NUMBER);
    let out = live_run(
        &env,
        &gh.uri(),
        TOKEN,
        &llm,
        &["review", &pr, "--trigger-comment", "888", "--post"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("trigger 888 (inline review comment)"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("posted: updated"), "{}", stderr(&out));
    assert_eq!(fake.own_reviews().len(), 1);
    // watch: the review summary (older, never answered by this PR's reviews) is not answered
    // after the newer inline trigger was; nothing new, so no LLM call.
    watch_answers_nothing(&env, &gh, &llm).await;
}

#[tokio::test]
async fn watch_answers_a_review_summary_trigger_once() {
    let mut pr = pr_with_review_triggers(&[]);
    pr.threads.clear();
    let Live { gh, fake, llm, env } = Live::start(pr).await;
    fake.set_author("octocat", "MEMBER");
    let out = exited_0(watch(&env, &gh, &llm).await);
    assert!(
        stderr(&out).contains("answering trigger 777 (review summary)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fake.own_reviews().len(), 1);
    assert!(!prompts(&llm).await.contains("REVIEW-TRIGGER-MARKER"));
    // A fresh machine (no watch state) reads the answered trigger from the posted review.
    watch_answers_nothing(&TestEnv::new(), &gh, &llm).await;
}

#[tokio::test]
async fn mentions_and_gates_come_from_the_config() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&["review-me"])).await;
    // Defaults: `review-me` means nothing, `@horton` is not a mention.
    let opened = payload(env.root(), "pull_request/opened.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &opened, &[]).await);
    assert!(
        stderr(&out).contains("without label `shepherd`"),
        "{}",
        stderr(&out)
    );
    let (_, horton) = member_comment(&fake, env.root(), "@horton /review");
    let out = event(&env, &gh, &llm, "issue_comment", &horton, &[]).await;
    assert!(
        stderr(&out).contains("decision: no action"),
        "{}",
        stderr(&out)
    );
    assert!(llm.requests().await.is_empty());

    std::fs::write(
        env.config(),
        "[automation]\nmentions = [\"@pr-shepherd\", \"@horton\"]\n\n\
         [gates]\nopt_in_label = \"review-me\"\n",
    )
    .unwrap();
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &opened, &[]).await);
    assert!(
        stderr(&out).contains("community PR with label `review-me`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fake.own_reviews().len(), 1);
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &horton, &[]).await);
    assert!(
        stderr(&out).contains("decision: review"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("posted: updated"), "{}", stderr(&out));

    // The same [gates] reach `review` (explicit, so it reviews anyway; the pause label by its
    // configured name blocks an explicit post only for `never_label`).
    std::fs::write(env.config(), "[gates]\nnever_label = \"review-me\"\n").unwrap();
    let pr = support::fake_github::pr_ref(NUMBER);
    let out = live_run(&env, &gh.uri(), TOKEN, &llm, &["review", &pr, "--post"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not posted: label `review-me`"),
        "{}",
        stderr(&out)
    );

    // Unknown keys in the new tables are an error naming them (exit 2).
    for (text, key) in [
        ("[gates]\nopt-in-label = \"x\"\n", "opt-in-label"),
        ("[automation]\nmention = [\"@x\"]\n", "mention"),
        (
            "[automation]\nmentions = [\"horton\"]\n",
            "automation.mentions",
        ),
    ] {
        std::fs::write(env.config(), text).unwrap();
        let out = event(&env, &gh, &llm, "pull_request", &opened, &[]).await;
        assert_eq!(out.status.code(), Some(2), "{text}: {}", stderr(&out));
        assert!(stderr(&out).contains(key), "{text}: {}", stderr(&out));
    }
}

#[tokio::test]
async fn an_oversized_trigger_is_ignored_with_the_reason() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    let long = format!("@pr-shepherd /review\n{}", "please ".repeat(2_858));
    assert!(long.chars().count() > 20_000);
    let (_, p) = member_comment(&fake, env.root(), &long);
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &["--format", "json"]).await);
    let v: Value = stdout_json(&out);
    assert_eq!(v["decision"]["action"], "noAction");
    let reason = v["decision"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("oversized") && reason.contains("max_trigger_chars"),
        "{reason}"
    );
    assert!(llm.requests().await.is_empty());
    assert_eq!(fake.requests(), 0, "nothing was fetched");
    // Raised in the config, the same comment is a trigger.
    std::fs::write(env.config(), "[automation]\nmax_trigger_chars = 30000\n").unwrap();
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &[]).await);
    assert!(
        stderr(&out).contains("decision: review"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn a_closed_pr_answers_an_explicit_trigger_only() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    *fake.state.pr_state.lock().unwrap() = "CLOSED".to_owned();
    // Automatic events do nothing for it.
    let p = payload(env.root(), "pull_request/synchronize.payload.json", |_| {});
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(
        stderr(&out).contains("no action: the PR is CLOSED"),
        "{}",
        stderr(&out)
    );
    let p = payload(env.root(), "pull_request/closed.payload.json", |_| {});
    let out = event(&env, &gh, &llm, "pull_request", &p, &[]).await;
    assert!(stderr(&out).contains("no action"), "{}", stderr(&out));
    assert!(llm.requests().await.is_empty());
    // A maintainer's trigger is answered, and the review says the PR is closed.
    let (_, p) = member_comment(&fake, env.root(), "@pr-shepherd /review");
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &["--format", "json"]).await);
    let v: Value = stdout_json(&out);
    assert_eq!(v["posted"]["action"], "created");
    assert!(
        v["body"]
            .as_str()
            .unwrap()
            .contains("the PR is closed: answered on an explicit request"),
        "{}",
        v["body"]
    );
}

#[tokio::test]
async fn a_merged_pr_with_no_shepherd_refuses_even_a_trigger_without_a_model_call() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&["no-shepherd"])).await;
    fake.set_author("octocat", "MEMBER");
    *fake.state.pr_state.lock().unwrap() = "MERGED".to_owned();
    let (_, p) = member_comment(&fake, env.root(), "@pr-shepherd /review");
    let out = exited_0(event(&env, &gh, &llm, "issue_comment", &p, &[]).await);
    // Refused whole: no model is called, and the decision names the label.
    let err = stderr(&out);
    assert!(
        err.contains("no action") && err.contains("no-shepherd"),
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    assert!(llm.requests().await.is_empty(), "a model was called");
    assert_eq!(fake.own_reviews().len(), 0);
    assert!(fake.seen().iter().all(|s| s.kind != "create-comment"));
}

#[tokio::test]
async fn write_action_labels_are_recognized_and_nothing_is_done() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&["fix-ci"])).await;
    fake.set_author("octocat", "MEMBER");
    for label in ["fix-ci", "address-review"] {
        let p = payload(env.root(), "pull_request/labeled.payload.json", |v| {
            v["label"]["name"] = json!(label);
        });
        let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &["--format", "json"]).await);
        assert!(
            stderr(&out).contains("write actions are not available in this version"),
            "{}",
            stderr(&out)
        );
        let v: Value = stdout_json(&out);
        assert_eq!(v["decision"]["action"], "writeActionLabel");
        assert_eq!(v["decision"]["writeAction"], label);
        assert_eq!(v["decision"]["available"], false);
        assert_eq!(v["posted"], Value::Null);
    }
    assert_eq!(fake.requests(), 0, "nothing fetched, nothing written");
    assert!(llm.requests().await.is_empty());
    // Other label events behave as before: the gates are asked again.
    let p = payload(env.root(), "pull_request/unlabeled.payload.json", |v| {
        v["label"]["name"] = json!("fix-ci");
    });
    let out = exited_0(event(&env, &gh, &llm, "pull_request", &p, &[]).await);
    assert!(stderr(&out).contains("gates again"), "{}", stderr(&out));
}

#[tokio::test]
async fn three_successive_reviews_carry_the_findings_history() {
    let Live { gh, fake, llm, env } = Live::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let heads = [
        "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        "3333333ccccccccccccccccccccccccccccccccc",
    ];
    let mut docs = Vec::new();
    for (i, head) in heads.iter().enumerate() {
        *fake.state.head_sha.lock().unwrap() = (*head).to_owned();
        // Each pass on a fresh machine: the history comes from the PR's own review.
        let p = payload(env.root(), "pull_request/synchronize.payload.json", |_| {});
        let out = event(&env, &gh, &llm, "pull_request", &p, &["--format", "json"]).await;
        assert_eq!(out.status.code(), Some(0), "pass {i}: {}", stderr(&out));
        docs.push(stdout_json(&out));
    }
    assert_eq!(fake.own_reviews().len(), 1, "one comment, updated");
    for (i, v) in docs.iter().enumerate() {
        let findings = v["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 6, "pass {i}");
        for f in findings {
            assert_eq!(
                f["history"],
                json!({"reviews": i + 1, "firstSha": heads[0]}),
                "pass {i}: {f}"
            );
        }
    }
    assert_eq!(docs[0]["findings"][0]["classification"], "new");
    assert_eq!(docs[2]["findings"][0]["classification"], "unchanged");
    let body = docs[2]["body"].as_str().unwrap();
    assert!(
        body.contains("_(unchanged: reported in 3 reviews since 1111111)_"),
        "{body}"
    );
    assert!(
        docs[1]["body"]
            .as_str()
            .unwrap()
            .contains("reported in 2 reviews since 1111111")
    );
    // The third pass's prompts carried the history with the prior findings.
    let sent = prompts(&llm).await;
    assert!(
        sent.contains("reported in 2 reviews since 1111111"),
        "the prompts carry the history"
    );
}
