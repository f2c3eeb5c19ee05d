//! Deciding a fixture's PR headless: the merge goes to the outbox ("recorded offline, not sent")
//! at the head of the last look, never past items never shown without the explicit waiver (exit
//! 3), the dry run says the same as JSON, what is so already records nothing, and the check out
//! makes a worktree at the PR's head from a real git repository.

use std::process::Output;

use crate::support;
use serde_json::Value;
use support::all_output;
use support::env::TestEnv;

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.bin().args(args).output().unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", all_output(o)))
}

#[test]
fn a_merge_needs_a_look_then_goes_past_nothing_unseen_and_is_recorded_once() {
    let env = TestEnv::new();
    let pr = "acme/rivet#471";
    // No look: no head to merge at.
    let o = run(&env, &["merge", pr]);
    assert_eq!(o.status.code(), Some(2));
    assert!(all_output(&o).contains("no look at acme/rivet#471 is recorded"));
    // A look at step 0 records its head, but peeking marks nothing: every item is unseen.
    let o = run(&env, &["items", pr, "--peek"]);
    assert!(o.status.success());
    let o = run(
        &env,
        &[
            "merge",
            pr,
            "--match-head",
            "any",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", all_output(&o));
    let v = json(&o);
    assert_eq!(v["needsSecond"], true);
    assert_eq!(v["wouldMerge"], false);
    assert_eq!(v["past"][0]["kind"], "unseen");
    assert!(v["past"][0]["count"].as_u64().unwrap() > 0);
    // Without the waiver: exit 3, nothing recorded.
    let o = run(&env, &["merge", pr, "--match-head", "any"]);
    assert_eq!(o.status.code(), Some(3), "{}", all_output(&o));
    assert!(all_output(&o).contains("never shown to you"));
    assert!(all_output(&o).contains("--yes --past-unseen"));
    let outbox = env.state().join("prs/acme/rivet/471/outbox/actions.json");
    assert!(!outbox.exists());
    // --past-unseen alone is refused: it goes with --yes.
    let o = run(&env, &["merge", pr, "--match-head", "any", "--past-unseen"]);
    assert_eq!(o.status.code(), Some(2));
    // Read (items marks everything seen and records the head), then merge: recorded offline.
    assert!(run(&env, &["items", pr]).status.success());
    let o = run(&env, &["merge", pr, "--method", "squash"]);
    assert!(o.status.success(), "{}", all_output(&o));
    let t = all_output(&o);
    assert!(
        t.contains("recorded offline, not sent: merge (squash) at c3a9e1f"),
        "{t}"
    );
    assert!(
        t.contains("Merged past:") && t.contains("unresolved threads"),
        "{t}"
    );
    assert!(!t.contains("merged ("), "offline never says merged: {t}");
    let recorded: Value = serde_json::from_slice(&std::fs::read(&outbox).unwrap()).unwrap();
    assert_eq!(recorded["actions"][0]["kind"], "merge");
    assert_eq!(recorded["actions"][0]["detail"]["method"], "squash");
    assert_eq!(
        recorded["actions"][0]["detail"]["head"]
            .as_str()
            .unwrap()
            .get(..7),
        Some("c3a9e1f")
    );
    // Once merged offline, a second merge records nothing.
    let o = run(&env, &["merge", pr]);
    assert!(o.status.success());
    assert!(all_output(&o).contains("merged already"));
    let recorded: Value = serde_json::from_slice(&std::fs::read(&outbox).unwrap()).unwrap();
    assert_eq!(recorded["actions"].as_array().unwrap().len(), 1);
}

#[test]
fn a_moved_head_and_a_bad_method_merge_nothing() {
    let env = TestEnv::new();
    let pr = "acme/rivet#482";
    assert!(run(&env, &["items", pr]).status.success());
    let o = run(&env, &["merge", pr, "--match-head", "0000000deadbeef"]);
    assert_eq!(o.status.code(), Some(1));
    let t = all_output(&o);
    assert!(
        t.contains("moved since you looked") && t.contains("0000000"),
        "{t}"
    );
    let o = run(&env, &["merge", pr, "--method", "octopus"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&env, &["merge", pr, "--match-head", "xyz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        !env.state()
            .join("prs/acme/rivet/482/outbox/actions.json")
            .exists()
    );
}

#[test]
fn close_with_a_comment_labels_and_reviewers_are_recorded_offline_once() {
    let env = TestEnv::new();
    let pr = "acme/rivet#497";
    let o = run(
        &env,
        &["pr", "close", pr, "--comment", "Superseded by #498"],
    );
    assert!(o.status.success(), "{}", all_output(&o));
    let t = all_output(&o);
    assert!(
        t.contains("comment:") && t.contains("recorded offline, not sent: close"),
        "{t}"
    );
    let o = run(&env, &["pr", "close", pr, "--format", "json"]);
    let v = json(&o);
    assert_eq!(v["already"], true);
    assert!(run(&env, &["label", "add", pr, "bug"]).status.success());
    let o = run(&env, &["label", "add", pr, "BUG"]);
    assert!(
        all_output(&o).contains("already on the PR"),
        "{}",
        all_output(&o)
    );
    let o = run(&env, &["request-review", pr, "@mia", "acme/core"]);
    assert!(
        all_output(&o).contains("@mia, @acme/core"),
        "{}",
        all_output(&o)
    );
    let o = run(&env, &["assign", pr, "not a login"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&env, &["pr", "ready", pr, "--comment", "x"]);
    assert_eq!(o.status.code(), Some(2));
    let outbox: Value = serde_json::from_slice(
        &std::fs::read(env.state().join("prs/acme/rivet/497/outbox/actions.json")).unwrap(),
    )
    .unwrap();
    let kinds: Vec<&str> = outbox["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["close", "label-add", "request-review"]);
}

/// git in `dir` with no user or system config (the clone beside the test's repository).
fn git_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn checkout_makes_a_worktree_at_the_prs_head_and_never_touches_one_with_changes() {
    let env = TestEnv::new();
    // "GitHub" holding the PR's head at refs/pull/482/head, and the maintainer's clone on main.
    let pc = support::gitrepo::PrClone::new();
    let (root, clone, head) = (&pc.root, &pc.clone, pc.head.clone());
    let main_before = git_in(clone, &["rev-parse", "HEAD"]);
    // The demo's PR with this repository's head.
    let fixture = env.root().join("pr.json");
    std::fs::write(&fixture, pc.fixture_json()).unwrap();
    let mut v: Value = serde_json::from_str(&pc.fixture_json()).unwrap();
    let f = fixture.to_str().unwrap();
    let repo = clone.to_str().unwrap();
    let o = run(&env, &["checkout", f, "--repo", repo]);
    assert!(o.status.success(), "{}", all_output(&o));
    let tree = root.path().join("rivet-pr-482");
    assert!(
        all_output(&o).contains("checked out the PR's head"),
        "{}",
        all_output(&o)
    );
    assert_eq!(git_in(&tree, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        std::fs::read_to_string(tree.join("src/lib.rs")).unwrap(),
        "pub fn one() {}\npub fn two() {}\n"
    );
    // The clone's own working tree is where it was.
    assert_eq!(git_in(clone, &["rev-parse", "HEAD"]), main_before);
    // Again: already there.
    let o = run(&env, &["checkout", f, "--repo", repo]);
    assert!(
        all_output(&o).contains("already at the PR's head"),
        "{}",
        all_output(&o)
    );
    // A change of the maintainer's in the worktree: never touched.
    std::fs::write(tree.join("src/lib.rs"), "mine\n").unwrap();
    let o = run(&env, &["checkout", f, "--repo", repo]);
    assert_eq!(o.status.code(), Some(1), "{}", all_output(&o));
    assert!(
        all_output(&o).contains("has changes of its own"),
        "{}",
        all_output(&o)
    );
    assert_eq!(
        std::fs::read_to_string(tree.join("src/lib.rs")).unwrap(),
        "mine\n"
    );
    // A head the remote does not have at refs/pull/N/head: nothing checked out.
    v["pr"]["headSha"] = serde_json::json!("1111111111111111111111111111111111111111");
    std::fs::write(&fixture, v.to_string()).unwrap();
    let o = run(
        &env,
        &[
            "checkout",
            f,
            "--repo",
            repo,
            "--dir",
            root.path().join("other").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        all_output(&o).contains("but the PR's head is 1111111"),
        "{}",
        all_output(&o)
    );
    assert!(!root.path().join("other").exists());
    // Not a repository: exit 2.
    let o = run(
        &env,
        &["checkout", f, "--repo", root.path().to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
}
