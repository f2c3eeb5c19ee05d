//! The live source end to end through the binary: `items OWNER/REPO#N`, `record`, replay
//! equivalence, exit codes, credentials, and that the token never shows.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::all_output;
use support::env::TestEnv;
use support::fake_github::{
    FakeGitHub, FakePr, ISSUE_NUMBER, NUMBER, OWNER, REPO, pr_ref, seen_markers,
};
use wiremock::ResponseTemplate;

const TOKEN: &str = "ghp_CliLoopbackToken9876543210fedcba";

/// The hermetic binary on the state dir `state`.
fn shepherd(env: &TestEnv, state: &Path) -> Command {
    let mut c = env.bin();
    c.arg("--state-dir").arg(state);
    c
}

/// `record` of the fake's PR from the loopback GitHub at `uri` into `fixture`.
fn record(env: &TestEnv, state: &Path, uri: &str, fixture: &Path) -> Output {
    shepherd(env, state)
        .env("GH_TOKEN", TOKEN)
        .args(["--api-url", uri, "record", &pr_ref(NUMBER), "--out"])
        .arg(fixture)
        .output()
        .unwrap()
}

/// ids, kinds, statuses and hashes of a `--format json` listing, in order.
fn essence(listing: &Value) -> Vec<Value> {
    listing["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let mut i = i.clone();
            // Freshness and seen times depend on the ledger, not on the source.
            if let Some(m) = i.as_object_mut() {
                m.remove("seenAt");
            }
            i
        })
        .collect()
}

#[tokio::test]
async fn record_then_replay_lists_the_same_items() {
    let (server, _fake) = FakeGitHub::start(FakePr::generate(120, 105, 30, 12, 5)).await;
    let env = TestEnv::new();
    let dir = env.root();
    let live_state = dir.join("live");
    let replay_state = dir.join("replay");
    let fixture = dir.join("pr.json");

    let live = shepherd(&env, &live_state)
        .env("GH_TOKEN", TOKEN)
        .args([
            "--api-url",
            &server.uri(),
            "items",
            &pr_ref(NUMBER),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(live.status.success(), "{}", all_output(&live));
    let live_json: Value = serde_json::from_slice(&live.stdout).unwrap();
    assert_eq!(live_json["complete"], true);
    assert_eq!(live_json["source"]["kind"], "live");
    assert_eq!(live_json["counts"]["total"], 162);
    // A complete live listing marks what it listed.
    assert_eq!(seen_markers(&live_state), 162);

    let rec = record(&env, &live_state, &server.uri(), &fixture);
    assert!(rec.status.success(), "{}", all_output(&rec));
    assert!(
        all_output(&rec).contains("162 items"),
        "{}",
        all_output(&rec)
    );

    let replay = shepherd(&env, &replay_state)
        .args(["items"])
        .arg(&fixture)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", all_output(&replay));
    let replay_json: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(replay_json["source"]["kind"], "fixture");
    assert_eq!(replay_json["pr"], live_json["pr"]);
    assert_eq!(replay_json["counts"], live_json["counts"]);
    assert_eq!(essence(&replay_json), essence(&live_json));

    // The token is nowhere: not in outputs, not in the fixture.
    let recorded = std::fs::read_to_string(&fixture).unwrap();
    for t in [
        all_output(&live),
        all_output(&rec),
        all_output(&replay),
        recorded,
    ] {
        assert!(!t.contains(TOKEN));
        assert!(!t.contains("CliLoopbackToken"));
    }
}

/// Guards `record` keeping the files the PR shows: each changed file's text at the head and at
/// the base, read 25 to a request (a 300-file PR: 24 requests, not 600); binary and over-1-MiB
/// files left out and counted in its summary; the texts replay as the fixture's `fileContents`.
#[tokio::test]
async fn record_keeps_the_changed_files_texts_in_batches() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(0, 0, 0, 0, 300)).await;
    let env = TestEnv::new();
    let dir = env.root();
    let fixture = dir.join("pr.json");
    let rec = record(&env, &dir.join("state"), &server.uri(), &fixture);
    let out = all_output(&rec);
    assert!(rec.status.success(), "{out}");
    let batches = fake
        .seen()
        .iter()
        .filter(|s| s.kind == "file-texts")
        .count();
    assert_eq!(batches, 24, "600 texts, 25 a request");
    assert!(
        out.contains("596 of their texts (4 binary or over 1 MiB left out)"),
        "{out}"
    );
    let fx: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    let texts = fx["fileContents"].as_array().unwrap();
    assert_eq!(texts.len(), 596);
    let (base, head) = (
        fx["pr"]["baseSha"].as_str().unwrap(),
        fx["pr"]["headSha"].as_str().unwrap(),
    );
    for sha in [base, head] {
        let t = texts
            .iter()
            .find(|t| t["path"] == "src/mod0.rs" && t["sha"] == sha)
            .unwrap_or_else(|| panic!("src/mod0.rs at {sha}"));
        assert_eq!(t["text"], format!("// {sha}:src/mod0.rs\n"));
    }
    assert!(
        !texts
            .iter()
            .any(|t| t["path"] == "src/mod7.rs" || t["path"] == "src/mod8.rs")
    );
    // The fixture is valid as written.
    let check = shepherd(&env, &dir.join("state"))
        .args(["fixture", "check"])
        .arg(&fixture)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", all_output(&check));
}

#[tokio::test]
async fn an_incomplete_live_listing_writes_no_markers() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(150, 2, 10, 10, 1)).await;
    fake.set_fault(Box::new(|_, seen| {
        (seen.kind == "pr" && seen.variables["withMeta"] == false)
            .then(|| ResponseTemplate::new(502))
    }));
    let env = TestEnv::new();
    let dir = env.root();
    let out = shepherd(&env, dir)
        .env("GH_TOKEN", TOKEN)
        .args(["--api-url", &server.uri(), "items", &pr_ref(NUMBER)])
        .output()
        .unwrap();
    let t = all_output(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("INCOMPLETE"), "{t}");
    assert!(t.contains("review threads after the first 100"), "{t}");
    assert!(t.contains("seen markers were not saved"), "{t}");
    assert!(
        t.contains("retrying"),
        "the retry is visible on stderr: {t}"
    );
    assert_eq!(seen_markers(dir), 0, "no markers for an incomplete pass");

    // And `record` refuses to freeze an incomplete PR into a fixture.
    let fixture = dir.join("pr.json");
    let rec = record(&env, dir, &server.uri(), &fixture);
    assert_eq!(rec.status.code(), Some(1), "{}", all_output(&rec));
    assert!(!fixture.exists());
}

#[tokio::test]
async fn bad_references_exit_2_and_runtime_failures_exit_1() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(1, 1, 1, 1, 1)).await;
    let env = TestEnv::new();
    let dir = env.root();
    let run = |r: String| {
        shepherd(&env, dir)
            .env("GH_TOKEN", TOKEN)
            .args(["--api-url", &server.uri(), "items", &r])
            .output()
            .unwrap()
    };
    let issue = run(pr_ref(ISSUE_NUMBER));
    assert_eq!(issue.status.code(), Some(2), "{}", all_output(&issue));
    assert!(all_output(&issue).contains("is an issue, not a pull request"));
    let missing = run(pr_ref(999));
    assert_eq!(missing.status.code(), Some(2), "{}", all_output(&missing));
    let repo = run(format!("{OWNER}/nope#1"));
    assert_eq!(repo.status.code(), Some(2), "{}", all_output(&repo));
    assert!(all_output(&repo).contains("not found"));

    fake.set_fault(Box::new(|_, _| {
        Some(
            ResponseTemplate::new(401)
                .set_body_json(serde_json::json!({"message": "Bad credentials"})),
        )
    }));
    let unauth = run(pr_ref(NUMBER));
    assert_eq!(unauth.status.code(), Some(1), "{}", all_output(&unauth));
    let t = all_output(&unauth);
    assert!(t.contains("GH_TOKEN") && t.contains("401"), "{t}");
    assert!(!t.contains(TOKEN) && !t.contains("CliLoopbackToken"), "{t}");
}

#[tokio::test]
async fn no_credentials_lists_every_source_tried() {
    let env = TestEnv::new();
    let dir = env.root();
    let empty_path = dir.join("bin");
    std::fs::create_dir_all(&empty_path).unwrap();
    let out = shepherd(&env, dir)
        .env("PATH", &empty_path)
        .args(["--api-url", "http://127.0.0.1:9", "items", &pr_ref(NUMBER)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let t = all_output(&out);
    for s in [
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "GH_APP_ID",
        "gh auth token",
        "gh is not installed",
    ] {
        assert!(t.contains(s), "missing {s}: {t}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn gh_auth_token_is_the_last_resort() {
    use std::os::unix::fs::PermissionsExt;
    let (server, fake) = FakeGitHub::start(FakePr::generate(2, 1, 2, 2, 1)).await;
    let env = TestEnv::new();
    let dir = env.root();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!("#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] && echo {TOKEN}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = shepherd(&env, dir)
        .env("PATH", &bin)
        .args([
            "--api-url",
            &server.uri(),
            "items",
            &pr_ref(NUMBER),
            "--peek",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(
        fake.seen()
            .iter()
            .all(|s| s.authorization.as_deref() == Some(&format!("Bearer {TOKEN}")))
    );
    assert!(!all_output(&out).contains(TOKEN));
}

#[tokio::test]
async fn enterprise_pr_url_with_env_endpoints() {
    let server = wiremock::MockServer::start().await;
    let fake = FakeGitHub::new(FakePr::generate(2, 1, 2, 2, 1));
    fake.mount(&server, "/api/v3", "/api/graphql").await;
    let env = TestEnv::new();
    let dir = env.root();
    let out = shepherd(&env, dir)
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", format!("{}/api/v3", server.uri()))
        .args([
            "items",
            &format!("https://ghe.example.com/{OWNER}/{REPO}/pull/{NUMBER}"),
            "--format",
            "json",
            "--peek",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["complete"], true);
    let paths: Vec<_> = fake.seen().into_iter().map(|s| s.path).collect();
    assert!(paths.contains(&"/api/graphql".to_owned()), "{paths:?}");
}
