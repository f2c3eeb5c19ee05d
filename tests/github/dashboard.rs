//! The inbox's dashboard live: a 150-PR repository whose PRs carry check suites, statuses,
//! review decisions and review requests; `inbox --format json` reports each exactly, within
//! the request budget, asking the viewer's teams once.

use crate::support;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_inbox::{FakeInbox, OWNER, REPO, queue};
use support::stderr;

const TOKEN: &str = "ghp_DashboardLoopbackToken0123456789ab";

/// `inbox OWNER/REPO --format json` of the loopback repository through `cmd`, with the token:
/// the JSON document, after checking it succeeded.
pub(crate) async fn live_repo_inbox(mut cmd: tokio::process::Command, github: &str) -> Value {
    let o = cmd
        .env("GH_TOKEN", TOKEN)
        .arg("--api-url")
        .arg(github)
        .args([
            "inbox",
            &format!("{OWNER}/{REPO}"),
            "--format",
            "json",
            "--quiet",
        ])
        .output()
        .await
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// What PR `n` must say, written from the fake's description (not from its code).
fn expected(n: u64) -> Value {
    let checks = match n % 6 {
        0 => json!({"state": "none", "passing": 0, "failing": 0, "pending": 0, "neutral": 0}),
        1 => json!({"state": "passing", "passing": 3, "failing": 0, "pending": 0, "neutral": 0}),
        2 => json!({"state": "failing", "passing": 3, "failing": 1, "pending": 0, "neutral": 0}),
        3 => json!({"state": "pending", "passing": 0, "failing": 0, "pending": 3, "neutral": 0}),
        4 => json!({"state": "failing", "passing": 0, "failing": 1, "pending": 0, "neutral": 0}),
        _ => json!({"state": "neutral", "passing": 0, "failing": 0, "pending": 0, "neutral": 2}),
    };
    let decision = match n % 4 {
        0 => json!("approved"),
        1 => json!("changes-requested"),
        2 => json!("review-required"),
        _ => Value::Null,
    };
    let requested = match n % 5 {
        0 => "you",
        1 => "team",
        _ => "none",
    };
    json!({
        "checks": checks,
        "reviewDecision": decision,
        "reviewRequested": requested,
        "additions": 3 * n,
        "deletions": n % 7,
        "changedFiles": 1 + n % 5,
        "autoMerge": if n % 7 == 2 { json!("squash") } else { Value::Null },
        "mergeQueue": n % 7 == 3,
    })
}

#[tokio::test]
async fn the_inbox_json_reports_checks_decisions_requests_and_size_of_150_prs_within_budget() {
    let (server, fake) = FakeInbox::start(queue(150)).await;
    fake.with_dashboard();
    let env = TestEnv::new();
    let mut cmd = env.bin_async();
    cmd.env("PR_SHEPHERD_HTTP_BACKOFF_MS", "1");
    let doc = live_repo_inbox(cmd, &server.uri()).await;
    let prs = doc["prs"].as_array().unwrap();
    assert_eq!(prs.len(), 150);
    for pr in prs {
        let n = pr["number"].as_u64().unwrap();
        let want = expected(n);
        for key in [
            "checks",
            "reviewDecision",
            "reviewRequested",
            "additions",
            "deletions",
            "changedFiles",
            "autoMerge",
            "mergeQueue",
        ] {
            assert_eq!(pr[key], want[key], "#{n} {key}");
        }
        assert!(pr["updatedAt"].is_string(), "#{n}");
    }
    let teams = fake.seen().iter().filter(|s| s.kind == "teams").count();
    assert_eq!(teams, 1, "the viewer's teams are asked once");
    // 2 list pages, 15 batches of 10 PRs, 2 thread continuations, the viewer, its teams: 20.
    assert!(fake.requests() <= 30, "{} requests", fake.requests());
}

#[tokio::test]
async fn without_team_requests_the_teams_are_not_asked() {
    let (server, fake) = FakeInbox::start(queue(12)).await;
    let env = TestEnv::new();
    let doc = live_repo_inbox(env.bin_async(), &server.uri()).await;
    for pr in doc["prs"].as_array().unwrap() {
        assert_eq!(pr["reviewRequested"], "none");
        assert_eq!(pr["checks"]["state"], "none");
        assert_eq!(pr["reviewDecision"], Value::Null);
    }
    assert_eq!(fake.seen().iter().filter(|s| s.kind == "teams").count(), 0);
}
