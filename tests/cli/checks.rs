//! `pr-shepherd checks PR`: a fixture's checks and a live PR's over a loopback GitHub speaking
//! the REST check-runs, statuses, annotations and job-logs formats; an annotation shown once
//! is not new the second time; re-running failed jobs asks first and then sends one request; a
//! log over the answer limit shows its tail; an Actions job is known by its app and details URL.

use crate::support;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::checks_loopback;
use support::stderr;

const TOKEN: &str = "ghp_ChecksLoopbackToken0123456789abcd";

fn demo() -> String {
    format!("{}/assets/fixtures/demo.json", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_fixtures_failing_check_lists_its_annotations_once_as_new_and_its_log_tail() {
    let env = TestEnv::new();
    let first = env.bin().args(["checks", &demo()]).output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let md = String::from_utf8_lossy(&first.stdout).to_string();
    assert!(
        md.contains("**failing** test (ubuntu-latest) · 7m 47s"),
        "{md}"
    );
    assert!(md.contains("NEW failure `src/client/retry.rs:88`"), "{md}");
    assert!(md.contains("Log tail:"), "{md}");
    assert!(md.contains("exit code 101"), "{md}");
    // Shown once: not new the second time, in either format.
    let again = env
        .bin()
        .args(["checks", &demo(), "--format", "json"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    let doc: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(doc["state"], "failing");
    assert_eq!(doc["failing"], 1);
    let failing = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["state"] == "failing")
        .unwrap()
        .clone();
    assert_eq!(failing["durationSeconds"], 467);
    let anns = failing["annotations"].as_array().unwrap();
    assert_eq!(anns.len(), 2);
    assert!(anns.iter().all(|a| a["new"] == false), "{failing}");
    assert!(failing["logTail"].as_str().unwrap().contains("1 failed"));
}

/// A fixture's checks cannot be re-run: said at once, without asking for `--yes` first.
#[test]
fn rerun_on_a_fixture_is_refused_before_asking_for_yes() {
    let env = TestEnv::new();
    for args in [
        vec!["checks", "--rerun-failed"],
        vec!["checks", "--rerun-failed", "--yes"],
    ] {
        let out = env.bin().args(&args).arg(demo()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("a fixture's checks cannot be re-run"), "{err}");
        assert!(!err.contains("--yes"), "no --yes asked for: {err}");
    }
}

fn posts(reqs: &[wiremock::Request]) -> usize {
    reqs.iter().filter(|r| r.method.as_str() == "POST").count()
}

#[tokio::test]
async fn a_live_failing_run_shows_its_annotation_and_a_sanitized_bounded_log_tail() {
    let server = checks_loopback().await;
    let env = TestEnv::new();
    let o = env
        .bin_async()
        .env("GH_TOKEN", TOKEN)
        .args([
            "--api-url",
            &server.uri(),
            "checks",
            "acme/rivet#482",
            "--format",
            "json",
        ])
        .output()
        .await
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["state"], "failing");
    assert_eq!(
        (
            doc["failing"].clone(),
            doc["passing"].clone(),
            doc["pending"].clone()
        ),
        (json!(1), json!(1), json!(1))
    );
    let test = &doc["checks"][0];
    assert_eq!(test["name"], "test");
    assert_eq!(test["durationSeconds"], 65);
    assert_eq!(test["workflowRunId"], 9001);
    assert_eq!(
        test["annotations"][0]["message"],
        "assertion failed: 2 + 2 == 5"
    );
    assert_eq!(test["annotations"][0]["new"], true);
    let tail = test["logTail"].as_str().unwrap();
    assert_eq!(tail.lines().count(), 40, "{tail}");
    assert!(tail.ends_with("error: test failed"), "{tail}");
    assert!(!tail.contains('\u{1b}'), "escapes are sanitized: {tail:?}");
    assert!(!tail.contains("2026-11-20T"), "timestamps are cut: {tail}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains(TOKEN));
    assert_eq!(posts(&server.received_requests().await.unwrap()), 0);
}

#[tokio::test]
async fn rerun_asks_first_then_sends_one_request() {
    let server = checks_loopback().await;
    let env = TestEnv::new();
    let run = |extra: &'static [&'static str]| {
        let mut c = env.bin_async();
        c.env("GH_TOKEN", TOKEN)
            .args([
                "--api-url",
                &server.uri(),
                "checks",
                "acme/rivet#482",
                "--rerun-failed",
            ])
            .args(extra);
        c
    };
    let asked = run(&[]).output().await.unwrap();
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    assert!(stderr(&asked).contains("--yes"), "{}", stderr(&asked));
    assert!(stderr(&asked).contains("9001"), "{}", stderr(&asked));
    assert_eq!(posts(&server.received_requests().await.unwrap()), 0);

    let done = run(&["--yes"]).output().await.unwrap();
    assert!(done.status.success(), "{}", stderr(&done));
    let reqs = server.received_requests().await.unwrap();
    assert_eq!(posts(&reqs), 1);
    let post = reqs.iter().find(|r| r.method.as_str() == "POST").unwrap();
    assert_eq!(
        post.url.path(),
        "/repos/acme/rivet/actions/runs/9001/rerun-failed-jobs"
    );
}

/// `checks acme/rivet#482 --format json` against `server`, with more environment.
async fn live_checks_json(server: &wiremock::MockServer, vars: &[(&str, &str)]) -> Value {
    let env = TestEnv::new();
    let o = env
        .bin_async()
        .env("GH_TOKEN", TOKEN)
        .envs(vars.iter().copied())
        .args([
            "--api-url",
            &server.uri(),
            "checks",
            "acme/rivet#482",
            "--format",
            "json",
        ])
        .output()
        .await
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[tokio::test]
async fn a_job_log_over_the_answer_limit_shows_its_tail() {
    let server = checks_loopback().await;
    // 3 MiB of log against a 1 MiB answer limit: only its tail is kept while it is read.
    let log = "2026-11-20T09:16:00.0000000Z step line of a long build\n".repeat(60_000)
        + "2026-11-20T09:16:05.0000000Z error: THE-VERY-END\n";
    assert!(log.len() > 3 << 20);
    wiremock::Mock::given(wiremock::matchers::path(
        "/repos/acme/rivet/actions/jobs/31002/logs",
    ))
    .respond_with(wiremock::ResponseTemplate::new(200).set_body_string(log))
    .with_priority(1)
    .mount(&server)
    .await;
    let doc = live_checks_json(&server, &[("PR_SHEPHERD_HTTP_MAX_ANSWER_MB", "1")]).await;
    let tail = doc["checks"][0]["logTail"]
        .as_str()
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert!(tail.ends_with("error: THE-VERY-END"), "{tail}");
}

#[tokio::test]
async fn an_actions_job_is_known_by_its_details_url_and_its_app() {
    let server = checks_loopback().await;
    // GitHub's html_url of a check run is its own page; the job's URL is details_url. The
    // second failing job's answer has no app at all.
    wiremock::Mock::given(wiremock::matchers::path(format!(
        "/repos/acme/rivet/commits/{}/check-runs",
        support::fake_github::CHECKS_SHA
    )))
    .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
        "total_count": 2,
        "check_runs": [
            {"id": 31002, "name": "test", "status": "completed", "conclusion": "failure",
             "html_url": "https://github.com/acme/rivet/runs/31002",
             "details_url": "https://github.com/acme/rivet/actions/runs/9001/job/31002",
             "output": {"annotations_count": 0}, "app": {"slug": "github-actions"}},
            {"id": 31004, "name": "lint", "status": "completed", "conclusion": "failure",
             "html_url": "https://github.com/acme/rivet/runs/31004",
             "details_url": "https://github.com/acme/rivet/actions/runs/9002/job/31004",
             "output": {"annotations_count": 0}, "app": null}
        ]
    })))
    .with_priority(1)
    .mount(&server)
    .await;
    let doc = live_checks_json(&server, &[]).await;
    let by_name = |n: &str| {
        doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("{n}: {doc:#}"))
    };
    assert_eq!(by_name("test")["workflowRunId"], 9001, "{doc:#}");
    assert!(
        by_name("test")["logTail"]
            .as_str()
            .is_some_and(|t| t.contains("test failed"))
    );
    assert_eq!(by_name("lint")["workflowRunId"], 9002, "{doc:#}");
    // Its log is gone (the loopback answers 404): said why, not left blank.
    assert_eq!(by_name("lint")["logTail"], Value::Null);
    assert!(
        by_name("lint")["logError"]
            .as_str()
            .is_some_and(|e| e.starts_with("expired or deleted")),
        "{doc:#}"
    );
    assert_eq!(by_name("test")["logError"], Value::Null);
    // The re-run names both workflow runs.
    let env = TestEnv::new();
    let asked = env
        .bin_async()
        .env("GH_TOKEN", TOKEN)
        .args([
            "--api-url",
            &server.uri(),
            "checks",
            "acme/rivet#482",
            "--rerun-failed",
        ])
        .output()
        .await
        .unwrap();
    let err = stderr(&asked);
    assert!(err.contains("9001") && err.contains("9002"), "{err}");
}
