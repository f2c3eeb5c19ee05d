//! A review of hundreds of findings against a loopback GitHub that enforces the 65,536-character
//! comment limit: posted condensed as one comment, updated in place on the next run with every
//! finding unchanged; GitHub's own reason shows when it refuses a body (REST and GraphQL).

use crate::support;

use std::path::Path;
use std::process::Output;

use pr_shepherd::pr::PrCoords;
use pr_shepherd::publish::{GitHubComments, upsert};
use pr_shepherd::source::github::{FetchOptions, GitHub};
use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::{BODY_LIMIT, FakeGitHub, FakePr, NUMBER, OWNER, REPO, pr_ref};
use support::github_client::loopback_github;
use support::llm::StandInLlm;
use support::{stderr, stdout, stdout_json};
use wiremock::MockServer;

const TOKEN: &str = "ghp_CondenseLoopbackToken0123456789ab";
const OWN: &str = "monalisa";
/// Findings per aspect: six aspects make 246.
const PER_ASPECT: usize = 41;

/// Two letters per index: numbers do not make finding ids differ, letters do.
fn tag(i: usize) -> String {
    [i / 26 % 26, i % 26]
        .iter()
        .map(|d| char::from(b'a' + *d as u8))
        .collect()
}

/// 41 long findings for every aspect: 3 critical, 6 important, the rest suggestions, each with a
/// suggested fix.
fn many_findings() -> Vec<Value> {
    (0..PER_ASPECT)
        .map(|i| {
            let severity = match i % 14 {
                0 => "critical",
                1 | 2 => "important",
                _ => "suggestion",
            };
            long_finding(i, severity, 7, 6)
        })
        .collect()
}

/// Finding `i` of an answer: its message says the same sentence `says` times, its suggested
/// fix repeats `fixes` times.
fn long_finding(i: usize, severity: &str, says: usize, fixes: usize) -> Value {
    json!({
        "severity": severity,
        "file": format!("src/mod{}.rs", i % 2),
        "line": i + 1,
        "message": format!("Finding {}: {}", tag(i), "the error path drops the retry state and the caller cannot tell a timeout from a refusal. ".repeat(says)),
        "suggestedFix": "Keep the retry state in the error and add a test that times out. ".repeat(fixes),
    })
}

async fn shepherd(env: &TestEnv, gh: &MockServer, llm: &StandInLlm, args: &[&str]) -> Output {
    support::live_run(env, &gh.uri(), TOKEN, llm, args).await
}

#[tokio::test]
async fn hundreds_of_findings_post_condensed_and_update_in_place_all_unchanged() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(many_findings()).await;
    let env = TestEnv::new();
    let pr = pr_ref(NUMBER);
    let args = ["review", pr.as_str(), "--post", "--format", "json"];

    let first = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let v = stdout_json(&first);
    assert_eq!(v["posted"]["action"], "created");
    assert_eq!(v["posted"]["condensed"], true);
    let findings = v["findings"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(findings, 6 * PER_ASPECT);
    // The output keeps the full review; the comment is within the limit.
    let full = v["body"].as_str().unwrap_or("").chars().count();
    assert!(
        full > 4 * BODY_LIMIT,
        "the full review is {full} characters"
    );
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    let posted = own[0].1.chars().count();
    assert_eq!(v["posted"]["characters"], posted);
    assert!(posted <= BODY_LIMIT, "{posted}");
    eprintln!("the full review: {full} characters; posted: {posted}");
    assert!(
        own[0]
            .1
            .contains("Condensed to fit GitHub's 65,536-character comment limit")
    );
    assert!(
        stderr(&first).contains("condensed from"),
        "{}",
        stderr(&first)
    );
    // Critical findings stay whole, with their fixes.
    for f in v["findings"].as_array().into_iter().flatten() {
        if f["severity"] == "critical" {
            let msg = f["message"].as_str().unwrap_or("?").trim();
            assert!(own[0].1.contains(msg), "{} whole", f["id"]);
        }
    }
    // The run file in the state dir keeps every finding.
    let runs: Vec<_> = walk(&env.state())
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "runs"))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run: Value = serde_json::from_slice(&std::fs::read(&runs[0]).unwrap()).unwrap();
    let kept: usize = run["aspects"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a["findings"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(kept, 6 * PER_ASPECT);

    // The next run reads the condensed comment back: every finding is unchanged, and the one
    // comment is updated in place.
    let second = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let v = stdout_json(&second);
    assert_eq!(v["mode"], "incremental");
    assert_eq!(v["counts"]["unchanged"], 6 * PER_ASPECT);
    assert_eq!(v["counts"]["new"], 0);
    assert_eq!(v["counts"]["notReported"], 0);
    assert_eq!(v["posted"]["action"], "updated");
    assert_eq!(v["posted"]["condensed"], true);
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    assert!(own[0].1.chars().count() <= BODY_LIMIT);
    assert!(own[0].1.contains("<details><summary>"));
    // --format md prints the full review.
    let md = shepherd(&env, &gh, &llm, &["review", pr.as_str()]).await;
    assert_eq!(md.status.code(), Some(0), "{}", stderr(&md));
    assert!(stdout(&md).chars().count() > 4 * BODY_LIMIT);
    assert!(!stdout(&md).contains("Condensed to fit"));
    assert!(!stderr(&second).contains(TOKEN));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out
}

fn client(server: &MockServer) -> GitHub {
    let opts = FetchOptions {
        max_attempts: 1,
        ..FetchOptions::default()
    };
    loopback_github(&server.uri(), TOKEN, opts).expect("client")
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_with_githubs_reason_rest() {
    let (server, fake) = FakeGitHub::start(FakePr::default()).await;
    let gh = client(&server);
    let store = GitHubComments {
        gh: &gh,
        pr: PrCoords {
            host: None,
            owner: OWNER.into(),
            repo: REPO.into(),
            number: NUMBER,
        },
        own_login: OWN.into(),
    };
    let body = format!("## PR Shepherd Review\n\n{}", "x".repeat(BODY_LIMIT));
    let err = upsert(&store, &body, 1).await.unwrap_err().to_string();
    assert!(
        err.contains("HTTP 422: Validation Failed: body is too long (maximum is 65536 characters)"),
        "{err}"
    );
    assert!(fake.own_reviews().is_empty());
    // Exactly at the limit is accepted.
    let body = format!("## PR Shepherd Review\n\n{}", "x".repeat(BODY_LIMIT - 23));
    assert_eq!(body.chars().count(), BODY_LIMIT);
    upsert(&store, &body, 1).await.unwrap();
    assert_eq!(fake.own_reviews().len(), 1);
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_with_githubs_reason_graphql() {
    let (server, fake) = FakeGitHub::start(FakePr::default()).await;
    let gh = client(&server);
    let mutation = "mutation AddComment($input: AddCommentInput!) { addComment(input: $input) { commentEdge { node { id url } } } }";
    let too_long = "y".repeat(BODY_LIMIT + 1);
    let reply = gh
        .graphql(
            mutation,
            json!({"input": {"subjectId": "PR_kwDOA0000042", "body": too_long}}),
            "adding a comment",
        )
        .await
        .unwrap();
    assert!(
        reply
            .data
            .as_ref()
            .is_some_and(|d| d["addComment"].is_null())
    );
    let text: Vec<String> = reply.errors.iter().map(|e| e.message_line()).collect();
    assert_eq!(text, ["Body is too long"]);
    assert_eq!(reply.errors[0].kind(), Some("UNPROCESSABLE"));
    assert!(fake.extra_comments().is_empty());
    let reply = gh
        .graphql(
            mutation,
            json!({"input": {"subjectId": "PR_kwDOA0000042", "body": "fits"}}),
            "adding a comment",
        )
        .await
        .unwrap();
    assert!(reply.errors.is_empty());
    assert_eq!(fake.extra_comments().len(), 1);
}

/// Critical findings per aspect in the many-critical review: six aspects make 90.
const CRITICAL_PER_ASPECT: usize = 15;

/// Per aspect: 15 critical and 6 important findings and 4 suggestions, each with a long
/// suggested fix — the critical findings with their fixes alone are over the limit.
fn many_critical_findings() -> Vec<Value> {
    (0..CRITICAL_PER_ASPECT + 10)
        .map(|i| {
            let severity = match i {
                i if i < CRITICAL_PER_ASPECT => "critical",
                i if i < CRITICAL_PER_ASPECT + 6 => "important",
                _ => "suggestion",
            };
            long_finding(i, severity, 4, 7)
        })
        .collect()
}

#[tokio::test]
async fn many_critical_findings_drop_their_fixes_before_anything_is_cut_and_new_ones_are_named() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(many_critical_findings()).await;
    let env = TestEnv::new();
    let pr = pr_ref(NUMBER);
    let args = ["review", pr.as_str(), "--post", "--format", "json"];

    let first = shepherd(&env, &gh, &llm, &args).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let v = stdout_json(&first);
    assert_eq!(v["posted"]["condensed"], true);
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1);
    let body = &own[0].1;
    assert!(body.chars().count() <= BODY_LIMIT);
    assert!(!body.contains("cut here to fit"), "the text was cut");
    assert!(
        body.contains("the suggested fixes of 90 critical findings"),
        "{}",
        body.lines().take(8).collect::<Vec<_>>().join("\n")
    );
    let findings = v["findings"].as_array().cloned().unwrap_or_default();
    let critical = findings.iter().filter(|f| f["severity"] == "critical");
    assert_eq!(critical.clone().count(), 6 * CRITICAL_PER_ASPECT);
    // No critical finding is lost from the readable body: each keeps its whole message.
    for f in critical {
        let msg = f["message"].as_str().unwrap_or("?").trim();
        assert!(body.contains(msg), "{} whole", f["id"]);
    }
    // Every new finding is named (by id), not only counted.
    let new: Vec<_> = findings
        .iter()
        .filter(|f| f["classification"] == "new" && f["severity"] != "suggestion")
        .collect();
    assert_eq!(
        new.len(),
        6 * (CRITICAL_PER_ASPECT + 6),
        "a first review: all new"
    );
    for f in new {
        let id = f["id"].as_str().unwrap_or("?");
        assert!(body.contains(id), "{id} ({}) named", f["severity"]);
    }
}
