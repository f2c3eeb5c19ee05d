//! `pr-shepherd inbox` offline: the bundled fixtures, a fixture directory, bad input, and the
//! promise that the inbox leaves the state dir exactly as it found it.

use crate::support;

use std::process::Output;

use serde_json::Value;
use support::env::TestEnv;
use support::{stderr, stdout, tree};

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.bin().args(args).output().expect("run pr-shepherd")
}

fn json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["inbox", "--format", "json"];
    all.extend_from_slice(args);
    let o = run(env, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("json output")
}

fn pr(doc: &Value, number: u64) -> &Value {
    doc["prs"]
        .as_array()
        .expect("prs")
        .iter()
        .find(|p| p["number"] == number)
        .unwrap_or_else(|| panic!("#{number} not listed: {doc}"))
}

#[test]
fn bundled_fixtures_without_an_argument() {
    let env = TestEnv::new();
    let doc = json(&env, &[]);
    assert_eq!(doc["source"], "bundled fixtures");
    assert_eq!(doc["complete"], true);
    assert_eq!(doc["prs"].as_array().map(Vec::len), Some(3));
    let demo = pr(&doc, 482);
    assert_eq!(demo["gate"]["review"], "allowed");
    assert_eq!(demo["shepherd"]["state"], "none");
    assert_eq!(demo["items"]["new"], demo["items"]["total"]);
    let community = pr(&doc, 497);
    assert_eq!(community["gate"]["review"], "needs-label");
    assert_eq!(community["team"], false);
    let history = pr(&doc, 471);
    assert_eq!(history["team"], true);
    assert_eq!(history["shepherd"]["state"], "stale");
    assert!(history["shepherd"]["reviewedSha"].is_string());

    let md = run(&env, &["inbox"]);
    assert!(md.status.success(), "{}", stderr(&md));
    let text = stdout(&md);
    assert!(text.contains("## Needs attention"), "{text}");
    assert!(text.contains("acme/rivet#497"), "{text}");
    assert!(text.contains("gate: needs-label"), "{text}");
}

/// The Markdown says what the JSON has of each PR: its checks, GitHub's review decision, its
/// size and its last update.
#[test]
fn the_markdown_names_checks_decision_size_and_age_as_the_json_does() {
    let env = TestEnv::new();
    let doc = json(&env, &[]);
    let text = stdout(&run(&env, &["inbox"]));
    for p in doc["prs"].as_array().expect("prs") {
        let number = p["number"].as_u64().unwrap_or(0);
        let line = text
            .lines()
            .find(|l| l.contains(&format!("acme/rivet#{number}**")))
            .unwrap_or_else(|| panic!("#{number} not in {text}"));
        if let Some(state) = p["checks"]["state"].as_str() {
            assert!(line.contains(&format!("checks: {state} (")), "{line}");
        }
        if let Some(d) = p["reviewDecision"].as_str() {
            assert!(line.contains(&format!("decision: {d}")), "{line}");
        }
        if let (Some(a), Some(d)) = (p["additions"].as_u64(), p["deletions"].as_u64()) {
            assert!(line.contains(&format!("size: +{a} −{d}")), "{line}");
        }
        if let Some(at) = p["updatedAt"].as_str() {
            // `2026-11-28T14:02:00Z` → `updated 2026-11-28 14:02 UTC`.
            let said = format!("updated {} {} UTC", &at[..10], &at[11..16]);
            assert!(line.contains(&said), "{line}");
        }
    }
    let demo = pr(&doc, 482);
    assert!(demo["checks"]["state"].is_string(), "{demo}");
    assert!(demo["additions"].is_u64(), "{demo}");
    assert!(demo["updatedAt"].is_string(), "{demo}");
}

#[test]
fn counts_match_items_and_the_inbox_writes_nothing() {
    let env = TestEnv::new();
    // `items` marks the demo's items seen; the inbox then counts none of them as new.
    let before = json(&env, &[]);
    let total = pr(&before, 482)["items"]["total"].clone();
    let o = run(&env, &["items"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Twice: the second `items` run may write the derived index; after that the dir is settled
    // for the purpose of this test except for what the inbox might add.
    let snapshot = tree(&env.state());
    assert!(!snapshot.is_empty());
    let after = json(&env, &[]);
    assert_eq!(pr(&after, 482)["items"]["new"], 0);
    assert_eq!(pr(&after, 482)["items"]["edited"], 0);
    assert_eq!(pr(&after, 482)["items"]["total"], total);
    // The other PRs are untouched: everything still new.
    assert_eq!(
        pr(&after, 497)["items"]["new"],
        pr(&after, 497)["items"]["total"]
    );
    let md = run(&env, &["inbox"]);
    assert!(md.status.success());
    assert_eq!(
        tree(&env.state()),
        snapshot,
        "the inbox changed the state dir"
    );
}

#[test]
fn a_state_dir_with_old_markers_is_byte_identical_after() {
    let env = TestEnv::new();
    assert!(run(&env, &["items"]).status.success());
    // Without the derived index (that the inbox must not write once the markers have settled
    // either: `counting_settled_markers_writes_no_index` in src/inbox/tests.rs moves the clock).
    let pr_dir = support::demo_dir(&env.state());
    let _ = std::fs::remove_file(pr_dir.join("seen-index"));
    let before = tree(&env.state());
    let doc = json(&env, &[]);
    assert_eq!(pr(&doc, 482)["items"]["new"], 0);
    assert_eq!(tree(&env.state()), before);
}

#[test]
fn a_directory_of_fixtures_with_a_bad_one_and_a_closed_one() {
    let env = TestEnv::new();
    let dir = env.root().join("fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a-demo.json"), pr_shepherd::source::DEMO_FIXTURE).unwrap();
    std::fs::write(dir.join("b-broken.json"), "{\"format\": 3}").unwrap();
    let closed = pr_shepherd::source::DEMO_FIXTURE
        .replacen("\"number\": 482", "\"number\": 9", 1)
        .replacen("\"state\": \"OPEN\"", "\"state\": \"MERGED\"", 1);
    std::fs::write(dir.join("c-merged.json"), closed).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a fixture").unwrap();
    let d = dir.to_str().unwrap();
    let o = run(&env, &["inbox", d, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["prs"].as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(doc["complete"], false);
    let problems = doc["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    assert!(problems[0].as_str().unwrap().contains("b-broken.json"));
    let md = stdout(&run(&env, &["inbox", d]));
    assert!(
        md.contains("## Not listed") && md.contains("b-broken.json"),
        "{md}"
    );
    assert!(!md.contains("#9 "), "{md}");
}

#[test]
fn bad_input_exits_2() {
    let env = TestEnv::new();
    let empty = env.root().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = run(&env, &["inbox", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no fixture"), "{}", stderr(&o));
    let o = run(&env, &["inbox", "not a repo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = run(&env, &["inbox", "--query", " "]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn config_sections_must_be_well_formed() {
    let env = TestEnv::new();
    std::fs::write(
        env.config(),
        "[[inbox.sections]]\ntitle = \"Mine\"\nquerry = \"is:pr\"\n",
    )
    .unwrap();
    let o = run(&env, &["inbox"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("inbox.sections"), "{}", stderr(&o));
}
