//! `pr-shepherd watch` for a bounded number of ticks (`--ticks N --interval 0s`: no real
//! sleeping) against the loopback GitHub: a new head is reviewed once, a settling PR gets no
//! review and no seen markers until the window closes, a trigger is answered once, and a new head
//! reviewed with the model down leaves a complete review in place unless `--post-incomplete`.

use crate::support;

use std::process::Output;

use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, OWNER, REPO, pr_state_dir, seen_markers};
use support::llm::{StandInLlm, magic_number};
use support::{stderr, stdout};
use wiremock::MockServer;

async fn watch(env: &TestEnv, gh: &MockServer, llm: &StandInLlm, extra: &[&str]) -> Output {
    env.bin_async()
        .env("GH_TOKEN", "ghp_WatchLoopbackToken0123456789")
        .env("GITHUB_API_URL", gh.uri())
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args(["watch", &format!("{OWNER}/{REPO}"), "--interval", "0s"])
        .args(llm.args())
        .args(extra)
        .output()
        .await
        .unwrap()
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
    let llm = StandInLlm::answering(vec![magic_number()]).await;
    let env = TestEnv::new();
    let out = watch(&env, &gh, &llm, &["--ticks", "3", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).matches("reviewing head").count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_eq!(fake.own_reviews().len(), 1);
    assert_eq!(llm.requests().await.len(), 6);
    assert!(seen_markers(&env.state()) > 0);
    let st: serde_json::Value = serde_json::from_slice(
        &std::fs::read(pr_state_dir(&env.state()).join("watch.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        st["lastHeadSha"],
        "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    );
    // A fresh state dir: the PR's own review says this head was reviewed; nothing again.
    let fresh = TestEnv::new();
    let out = watch(&fresh, &gh, &llm, &["--ticks", "1", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(llm.requests().await.len(), 6);
}

#[tokio::test]
async fn ticks_inside_the_settle_window_write_no_markers() {
    let (gh, fake) = FakeGitHub::start(team_pr()).await;
    fake.set_author("octocat", "MEMBER");
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    fake.add_comment("octocat", "NONE", "one more thing", &now);
    let llm = StandInLlm::answering(vec![magic_number()]).await;
    let env = TestEnv::new();
    let out = watch(&env, &gh, &llm, &["--ticks", "2", "--debounce", "1h"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out).matches("settling until").count(), 2);
    assert_eq!(seen_markers(&env.state()), 0);
    assert!(llm.requests().await.is_empty());
    assert!(!pr_state_dir(&env.state()).join("watch.json").exists());
    // The window closed: the next tick reviews and marks.
    let out = watch(&env, &gh, &llm, &["--ticks", "1", "--debounce", "0s"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(seen_markers(&env.state()) > 0);
    let listing = stdout(&out);
    assert!(
        listing.contains("one more thing"),
        "the late comment was surfaced before it was marked"
    );
    assert_eq!(llm.requests().await.len(), 6);
}

#[tokio::test]
async fn a_trigger_is_answered_once_and_a_community_pr_waits_for_its_label() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(vec![magic_number()]).await;
    let env = TestEnv::new();
    let out = watch(&env, &gh, &llm, &["--ticks", "1", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("without label `shepherd`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fake.own_reviews().len(), 0);

    // Asked again next tick (nothing remembered on a refusal).
    let out = watch(&env, &gh, &llm, &["--ticks", "1", "--post"]).await;
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
    let out = watch(&env, &gh, &llm, &["--ticks", "2", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out)
            .matches(&format!("answering trigger {id}"))
            .count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_eq!(fake.own_reviews().len(), 1);
    let body = &fake.own_reviews()[0].1;
    assert!(body.contains(&format!("\"triggerComment\":{id}")));
}

/// Failed before: a review whose run file (or a seen marker) could not be saved was named on
/// stderr, but the watch ended with exit 0. The review is still printed and posted; the watch
/// ends with exit 1. (A file where a folder belongs fails for root too.)
#[tokio::test]
async fn a_state_dir_that_cannot_be_written_is_not_success() {
    let (gh, fake) = FakeGitHub::start(team_pr()).await;
    fake.set_author("octocat", "MEMBER");
    let llm = StandInLlm::answering(vec![magic_number()]).await;
    for blocked in ["runs", "seen"] {
        let env = TestEnv::new();
        let pr_dir = pr_state_dir(&env.state());
        std::fs::create_dir_all(&pr_dir).unwrap();
        std::fs::write(pr_dir.join(blocked), "not a folder").unwrap();
        let out = watch(&env, &gh, &llm, &["--ticks", "1", "--debounce", "0s"]).await;
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{blocked}: {err}");
        assert!(
            stdout(&out).contains("## PR Shepherd Review"),
            "{blocked}: the review is printed"
        );
        assert!(err.contains(blocked), "{blocked}: names the file: {err}");
        assert!(err.contains("failed 1 time "), "{blocked}: {err}");
    }
}

/// Failed before it was fixed (a new head reviewed with the model down replaced the posted
/// review by an empty incomplete one): `watch --post` leaves a complete review in place and says
/// so; `--post-incomplete` posts over it.
#[tokio::test]
async fn a_new_head_with_the_model_down_leaves_the_complete_review_unless_asked() {
    let (gh, fake) = FakeGitHub::start(team_pr()).await;
    fake.set_author("octocat", "MEMBER");
    let llm = StandInLlm::answering(vec![magic_number()]).await;
    let env = TestEnv::with_config("[review]\nretries = 0\n");
    let out = watch(&env, &gh, &llm, &["--ticks", "1", "--post"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let complete = fake.own_reviews();
    assert_eq!(complete.len(), 1);
    // The model answers nothing but 404 now; a push brings a new head.
    let down = StandInLlm {
        server: MockServer::start().await,
    };
    fake.force_push("1111111111111111111111111111111111111111", &[]);
    let out = watch(&env, &gh, &down, &["--ticks", "1", "--post"]).await;
    assert!(
        stderr(&out).contains("not posted: the review is incomplete")
            && stderr(&out).contains("--post-incomplete"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fake.own_reviews(), complete);
    fake.force_push("2222222222222222222222222222222222222222", &[]);
    let out = watch(
        &env,
        &gh,
        &down,
        &["--ticks", "1", "--post", "--post-incomplete"],
    )
    .await;
    assert!(stderr(&out).contains("posted: updated"), "{}", stderr(&out));
    assert!(fake.own_reviews()[0].1.contains("Incomplete review"));
}
