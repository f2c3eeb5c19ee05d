//! `record` writes the fixture's `dashboard`: what the live inbox reports of a PR — checks,
//! review decision, your review request, size — is what the recorded fixture reports offline,
//! and the head commit's checks are recorded in full with their annotations.

use crate::support;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref};
use support::fake_inbox::{self, FakeInbox, VIEWER, VIEWER_TEAM};
use support::stderr;

const TOKEN: &str = "ghp_RecordDashboardLoopback0123456789";
const FIELDS: [&str; 6] = [
    "checks",
    "reviewDecision",
    "reviewRequested",
    "additions",
    "deletions",
    "changedFiles",
];

/// `inbox … --format json --identity VIEWER`, its one PR row with number `n`.
fn row_of(o: &std::process::Output, n: u64) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    row_in(&doc, n)
}

/// The PR row with number `n` of an inbox document.
fn row_in(doc: &Value, n: u64) -> Value {
    doc["prs"]
        .as_array()
        .and_then(|prs| prs.iter().find(|p| p["number"] == n).cloned())
        .unwrap_or_else(|| panic!("no #{n} in {doc}"))
}

/// What the live inbox reports of PR `n` of the loopback repository whose PRs carry the
/// dashboard's data.
async fn live_inbox_row(n: u64) -> Value {
    let (server, fake) = FakeInbox::start(fake_inbox::queue(30)).await;
    fake.with_dashboard();
    let env = TestEnv::new();
    let doc = super::dashboard::live_repo_inbox(env.bin_async(), &server.uri()).await;
    row_in(&doc, n)
}

#[tokio::test]
async fn a_recorded_fixture_shows_the_inbox_columns_the_live_inbox_showed() {
    // 20: a failing run, approved, asks you; 26: a failing run, review required, asks your
    // team; 27: pending, no decision, asks another team.
    for n in [20, 26, 27] {
        let live = live_inbox_row(n).await;
        let (server, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
        *fake.state.viewer.lock().unwrap() = VIEWER.to_owned();
        fake.set_dashboard(fake_inbox::dashboard(n), &[VIEWER_TEAM]);
        fake.set_checks(vec![json!({
            "__typename": "CheckRun", "databaseId": 31, "name": "clippy", "status": "COMPLETED",
            "conclusion": "FAILURE", "permalink": "https://github.com/o/r/runs/31",
            "checkSuite": {"app": {"slug": "github-actions"}, "workflowRun": {"databaseId": 9}},
            "annotations": {"totalCount": 1, "nodes": [{"path": "src/a.rs",
                "location": {"start": {"line": 4}, "end": {"line": 6}},
                "annotationLevel": "FAILURE", "title": "unused", "message": "`x` is never read"}]}
        })]);
        let env = TestEnv::new();
        let dir = env.root().join("recorded");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pr.json");
        let o = env
            .bin_async()
            .env("GH_TOKEN", TOKEN)
            .arg("--api-url")
            .arg(server.uri())
            .args(["record", &pr_ref(NUMBER), "--out"])
            .arg(&file)
            .output()
            .await
            .unwrap();
        assert!(o.status.success(), "#{n}: {}", stderr(&o));
        let kinds = |k: &str| fake.seen().iter().filter(|s| s.kind == k).count();
        assert_eq!(
            (kinds("record-dashboard"), kinds("checks")),
            (1, 1),
            "#{n}: one request each"
        );
        let teams_asked = usize::from(n % 5 == 1 || n % 5 == 2);
        assert_eq!(kinds("viewer-teams"), teams_asked, "#{n}");

        let recorded: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let run = &recorded["dashboard"]["checkRuns"][0];
        assert_eq!(run["name"], "clippy");
        assert_eq!(run["state"], "failing");
        assert_eq!(run["workflowRunId"], 9);
        assert_eq!(
            run["annotations"][0],
            json!({"path": "src/a.rs", "startLine": 4, "endLine": 6, "level": "failure",
                "title": "unused", "message": "`x` is never read"})
        );

        let offline = env
            .bin_async()
            .arg("inbox")
            .arg(&dir)
            .args(["--identity", VIEWER, "--format", "json", "--quiet"])
            .output()
            .await
            .unwrap();
        let offline = row_of(&offline, NUMBER);
        for key in FIELDS {
            assert_eq!(offline[key], live[key], "#{n} {key}");
        }
    }
}
