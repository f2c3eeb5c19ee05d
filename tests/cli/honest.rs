//! Headless answers that say what happened: a mistyped subcommand, a listing piped into `head`,
//! a merged or closed PR, the session's own review, a closed-PR query.

use crate::support;

use std::process::Output;

use support::env::TestEnv;
use support::{stderr, stdout};

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.bin()
        .arg("--state-dir")
        .arg(env.state())
        .args(args)
        .output()
        .expect("run pr-shepherd")
}

#[test]
fn a_mistyped_subcommand_is_not_read_as_a_pr() {
    let env = TestEnv::new();
    let o = run(&env, &["itmes"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("did you mean `pr-shepherd items`"), "{err}");
    // The console's forms, the inbox's among them.
    for form in ["OWNER/REPO#N", "OWNER/REPO ", "DIR "] {
        assert!(err.contains(form), "{form}: {err}");
    }
    assert!(!err.contains("needs a terminal"), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn a_search_for_closed_prs_is_refused_not_listed_empty() {
    let env = TestEnv::new();
    for q in ["org:acme is:closed", "repo:acme/rivet is:merged"] {
        let o = run(&env, &["inbox", "--query", q]);
        assert_eq!(o.status.code(), Some(2), "{q}: {}", stderr(&o));
        assert!(stderr(&o).contains("open PRs only"), "{q}: {}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }
}

fn fixture(name: &str) -> String {
    format!("{}/assets/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn items_shows_shepherds_own_review_as_such_without_its_metadata() {
    let env = TestEnv::new();
    let history = fixture("history.json");
    let raw = std::fs::read_to_string(&history).expect("fixture");
    assert!(
        raw.contains("pr-shepherd:meta"),
        "the fixture carries a review's metadata"
    );
    let o = run(&env, &["items", &history, "--peek"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("`SHEPHERD`"), "{md}");
    assert!(md.contains("## Shepherd's own review (1)"), "{md}");
    assert!(!md.contains("pr-shepherd:meta"), "{md}");
    let new_section = md
        .split("## New")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_default();
    assert!(!new_section.contains("PR Shepherd Review"), "{new_section}");

    let o = run(&env, &["items", &history, "--peek", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let own: Vec<&serde_json::Value> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["shepherd"] == true)
        .collect();
    assert_eq!(own.len(), 1);
    assert_eq!(v["counts"]["shepherd"], 1);
    let c = &v["counts"];
    assert_eq!(
        c["new"].as_u64().unwrap()
            + c["edited"].as_u64().unwrap()
            + c["unchanged"].as_u64().unwrap()
            + 1,
        c["total"].as_u64().unwrap()
    );
}

#[test]
fn items_says_when_a_pr_is_merged_or_closed() {
    let env = TestEnv::new();
    let raw = std::fs::read_to_string(fixture("demo.json")).expect("fixture");
    let mut v: serde_json::Value = serde_json::from_str(&raw).expect("json");
    for (state, said) in [("MERGED", "merged"), ("CLOSED", "closed"), ("OPEN", "open")] {
        v["pr"]["state"] = state.into();
        let path = env.root().join(format!("{said}.json"));
        std::fs::write(&path, v.to_string()).expect("write");
        let path = path.display().to_string();
        let o = run(&env, &["items", &path, "--peek"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let head = stdout(&o).lines().next().unwrap_or_default().to_owned();
        assert_eq!(
            head.ends_with(&format!("({said})")),
            said != "open",
            "{head}"
        );
        let o = run(&env, &["items", &path, "--peek", "--format", "json"]);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(j["pr"]["state"], said);
    }
}

#[test]
fn a_listing_into_a_pipe_says_how_many_items_it_marked() {
    let env = TestEnv::new();
    // `output()` reads stdout through a pipe, as `items | head` does.
    let o = run(&env, &["items"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("marked 18 items seen") && stderr(&o).contains("--peek"),
        "{}",
        stderr(&o)
    );
    // Nothing new the second time: said too.
    let o = run(&env, &["items"]);
    assert!(
        stderr(&o).contains("nothing was marked seen"),
        "{}",
        stderr(&o)
    );
    let o = run(&env, &["items", "--quiet"]);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let o = run(&env, &["items", "--help"]);
    let help = stdout(&o);
    assert!(
        help.contains("items | head") && help.contains("--peek"),
        "{help}"
    );
}
