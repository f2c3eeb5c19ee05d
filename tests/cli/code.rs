//! The PR's code headless, offline and live: `files`, `diff [--since-last-look]` and
//! `file viewed|unviewed`, and a force-push that rebased every commit and changed one file.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, file_path, pr_ref};

const TOKEN: &str = "ghp_CodeLoopbackToken0123456789abcdef";
const DEMO: &str = "assets/fixtures/demo.json";

fn shepherd(env: &TestEnv) -> Command {
    let mut c = env.bin();
    c.arg("--state-dir").arg(env.state());
    c
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_of(out: Output) -> Value {
    serde_json::from_str(&ok(out)).unwrap()
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    shepherd(env).args(args).output().unwrap()
}

/// path → changedSinceLastLook of a `files --format json`.
fn since(files: &Value) -> Vec<(String, String)> {
    files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["changedSinceLastLook"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn files_lists_every_file_with_its_threads_and_viewed_state() {
    let env = TestEnv::new();
    let v = json_of(run(&env, &["files", DEMO, "--format", "json"]));
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 5);
    let retry = &files[0];
    assert_eq!(retry["path"], "src/client/retry.rs");
    assert_eq!(retry["changeType"], "added");
    assert_eq!(retry["additions"], 57);
    assert_eq!(retry["threads"], 2);
    assert_eq!(retry["viewed"], "unviewed");
    assert_eq!(retry["changedSinceLastLook"], "never-seen");
    assert_eq!(retry["noPatch"], Value::Null);
    let docs = files.iter().find(|f| f["path"] == "docs/retry.md").unwrap();
    assert_eq!(docs["viewed"], "viewed");
    // Listing marks no patch seen.
    let again = json_of(run(&env, &["files", DEMO, "--format", "json"]));
    assert!(since(&again).iter().all(|(_, s)| s == "never-seen"));
    let md = ok(run(&env, &["files", DEMO]));
    assert!(
        md.contains("| `src/client/retry.rs` | added | +57 -0 | unviewed | 2 | 0 | never-seen |"),
        "{md}"
    );
}

#[test]
fn a_rebase_with_one_changed_file_shows_exactly_that_file_changed_offline() {
    let env = TestEnv::new();
    // Every file's patch shown at step 0.
    let first = ok(run(&env, &["diff", DEMO]));
    assert!(first.contains("```diff\n@@ -0,0 +1,57 @@"), "{first}");
    // Step 2 rebased every commit (new head and base) and changed retry.rs only.
    let v = json_of(run(
        &env,
        &["files", DEMO, "--step", "2", "--format", "json"],
    ));
    let got = since(&v);
    assert_eq!(
        got[0],
        ("src/client/retry.rs".to_owned(), "changed".to_owned())
    );
    assert!(got[1..].iter().all(|(_, s)| s == "unchanged"), "{got:?}");
    assert_eq!(v["changedSinceLastLook"], 1);
    let d = json_of(run(
        &env,
        &[
            "diff",
            DEMO,
            "--step",
            "2",
            "--since-last-look",
            "--format",
            "json",
        ],
    ));
    let files = d["files"].as_array().unwrap();
    assert_eq!(files[0]["shown"], "interdiff");
    assert_eq!(files[0]["interdiff"]["onlyBefore"], 0);
    assert_eq!(files[0]["interdiff"]["onlyNow"], 3);
    let text = files[0]["interdiff"]["text"].as_str().unwrap();
    assert!(
        text.contains("+ +                if attempt + 1 >= policy.max_attempts {"),
        "{text}"
    );
    assert!(
        files[1..]
            .iter()
            .all(|f| f["shown"] == "nothing" && f["patch"].is_null())
    );
    // Shown: now nothing is changed.
    let after = json_of(run(
        &env,
        &["files", DEMO, "--step", "2", "--format", "json"],
    ));
    assert!(since(&after).iter().all(|(_, s)| s == "unchanged"));
}

#[test]
fn only_the_files_printed_are_recorded_and_an_unknown_path_is_refused() {
    let env = TestEnv::new();
    ok(run(&env, &["diff", DEMO, "docs/retry.md"]));
    let v = json_of(run(&env, &["files", DEMO, "--format", "json"]));
    for (path, s) in since(&v) {
        let want = if path == "docs/retry.md" {
            "unchanged"
        } else {
            "never-seen"
        };
        assert_eq!(s, want, "{path}");
    }
    let out = run(&env, &["diff", DEMO, "no/such\u{1b}[31m.rs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not change") && !err.contains('\u{1b}'),
        "{err}"
    );
    // Still only docs/retry.md was recorded.
    let v = json_of(run(&env, &["files", DEMO, "--format", "json"]));
    assert_eq!(
        since(&v).iter().filter(|(_, s)| s == "unchanged").count(),
        1
    );
}

#[test]
fn a_file_added_by_a_push_is_new_and_a_binary_file_is_named() {
    let env = TestEnv::new();
    let fixture = env.root().join("pr.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(DEMO).unwrap()).unwrap();
    v["steps"] = json!([{"changes": [{"op": "push", "headSha": "1111111111111111111111111111111111111111",
        "patches": [{"path": "assets/logo.png", "additions": 0, "deletions": 0}]}]}]);
    std::fs::write(&fixture, v.to_string()).unwrap();
    let f = fixture.to_str().unwrap();
    ok(run(&env, &["diff", f]));
    let v = json_of(run(&env, &["files", f, "--step", "1", "--format", "json"]));
    let logo = v["files"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(logo["path"], "assets/logo.png");
    assert_eq!(logo["changedSinceLastLook"], "new");
    assert_eq!(logo["noPatch"], "binary");
    let md = ok(run(&env, &["diff", f, "--step", "1", "assets/logo.png"]));
    assert!(
        md.contains("_No patch: binary file: no text diff._"),
        "{md}"
    );
}

#[test]
fn viewed_marks_go_to_the_outbox_offline_and_state_show_lists_them() {
    let env = TestEnv::new();
    let out = ok(run(
        &env,
        &[
            "file",
            "viewed",
            DEMO,
            "src/client/mod.rs",
            "src/client/retry.rs",
        ],
    ));
    assert!(out.contains("2 files marked viewed in the outbox"), "{out}");
    ok(run(&env, &["file", "unviewed", DEMO, "docs/retry.md"]));
    let v = json_of(run(&env, &["files", DEMO, "--format", "json"]));
    let viewed: Vec<(&str, &str)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["viewed"].as_str().unwrap()))
        .collect();
    assert!(viewed.contains(&("src/client/mod.rs", "viewed")));
    assert!(viewed.contains(&("docs/retry.md", "unviewed")));
    let state = json_of(run(&env, &["state", "show", DEMO, "--format", "json"]));
    let actions = state["viewedOutbox"].as_array().unwrap();
    assert_eq!(actions.len(), 3);
    assert_eq!(actions[2]["path"], "docs/retry.md");
    assert_eq!(actions[2]["viewed"], false);
    let md = ok(run(&env, &["state", "show", DEMO]));
    assert!(md.contains("3 offline viewed marks in the outbox"), "{md}");
    let bad = run(&env, &["file", "viewed", DEMO, "nope.rs"]);
    assert_eq!(bad.status.code(), Some(2));
}

fn live(env: &TestEnv, uri: &str, args: &[&str]) -> Output {
    shepherd(env)
        .env("GH_TOKEN", TOKEN)
        .arg("--api-url")
        .arg(uri)
        .args(args)
        .output()
        .unwrap()
}

#[tokio::test]
async fn live_files_diff_and_viewed_through_graphql_and_a_force_push() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(6, 2, 2, 2, 120)).await;
    let env = TestEnv::new();
    let pr = pr_ref(NUMBER);
    let uri = server.uri();
    // A file GitHub sends no patch for (lines changed: too large).
    fake.set_patch(&file_path(3), None);
    let v = json_of(live(&env, &uri, &["files", &pr, "--format", "json"]));
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 120, "both pages of both lists");
    assert_eq!(v["changedFiles"], 120);
    assert_eq!(files[9]["changeType"], "renamed");
    assert_eq!(files[9]["previousPath"], "src/old9.rs");
    assert_eq!(files[3]["noPatch"], "too-large");
    // Viewed on GitHub through the mutation, and read back from GraphQL.
    ok(live(
        &env,
        &uri,
        &["file", "viewed", &pr, &file_path(1), &file_path(2)],
    ));
    assert_eq!(fake.viewed_state(&file_path(1)), "VIEWED");
    ok(live(&env, &uri, &["file", "unviewed", &pr, &file_path(2)]));
    assert_eq!(fake.viewed_state(&file_path(2)), "UNVIEWED");
    // `record` carries the files, their patches and the viewed state into the fixture.
    let fixture = env.root().join("recorded.json");
    ok(live(
        &env,
        &uri,
        &["record", &pr, "--out", fixture.to_str().unwrap()],
    ));
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    assert_eq!(rec["pr"]["changedFiles"], 120);
    assert_eq!(rec["pr"]["files"][1]["viewerViewedState"], "VIEWED");
    assert!(
        rec["pr"]["files"][1]["patch"]
            .as_str()
            .unwrap()
            .starts_with("@@")
    );
    let replay = json_of(run(
        &env,
        &["files", fixture.to_str().unwrap(), "--format", "json"],
    ));
    assert_eq!(replay["files"][1]["viewed"], "viewed");
    let kinds: Vec<&str> = fake.seen().iter().map(|s| s.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "file-viewed").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "file-unviewed").count(), 1);
    // Every patch shown, then a force-push that rewrote every SHA and changed file 1 only.
    ok(live(&env, &uri, &["diff", &pr]));
    let changed = "@@ -5,2 +5,3 @@\n fn f1() {\n-    old();\n+    fixed();\n }";
    fake.force_push(
        "0123456789abcdef0123456789abcdef01234567",
        &[(&file_path(1), changed)],
    );
    let v = json_of(live(&env, &uri, &["files", &pr, "--format", "json"]));
    let got = since(&v);
    assert_eq!(got[1], (file_path(1), "changed".to_owned()));
    assert_eq!(
        got.iter().filter(|(_, s)| s == "unchanged").count(),
        119,
        "{got:?}"
    );
    // GitHub's own word: changed since you marked it viewed.
    assert_eq!(v["files"][1]["viewed"], "dismissed");
    let d = json_of(live(
        &env,
        &uri,
        &[
            "diff",
            &pr,
            &file_path(1),
            "--since-last-look",
            "--format",
            "json",
        ],
    ));
    let text = d["files"][0]["interdiff"]["text"].as_str().unwrap();
    assert!(
        text.contains("- +    new();") && text.contains("+ +    fixed();"),
        "{text}"
    );
    // The token never shows.
    let all = String::from_utf8_lossy(&live(&env, &uri, &["files", &pr]).stdout).into_owned();
    assert!(!all.contains(TOKEN));
}

#[test]
fn json_output_is_documented() {
    let doc = std::fs::read_to_string(Path::new("docs/json-output.md")).unwrap();
    for key in [
        "changedSinceLastLook",
        "noPatch",
        "interdiff",
        "viewedOutbox",
    ] {
        assert!(
            doc.contains(key),
            "docs/json-output.md does not describe `{key}`"
        );
    }
}

#[test]
fn the_inbox_row_counts_files_changed_since_the_last_look() {
    let env = TestEnv::new();
    let dir = env.root().join("prs");
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = dir.join("demo.json");
    std::fs::copy(DEMO, &fixture).unwrap();
    let f = fixture.to_str().unwrap();
    let d = dir.to_str().unwrap();
    let count = |env: &TestEnv| {
        let v = json_of(run(env, &["inbox", d, "--format", "json"]));
        v["prs"][0]["filesChangedSinceLastLook"].clone()
    };
    // Nothing of its code looked at yet: not a zero.
    assert_eq!(count(&env), Value::Null);
    ok(run(&env, &["diff", f]));
    assert_eq!(count(&env), json!(0));
    // The author rewrites one file's patch (the fixture as it is now).
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    v["pr"]["files"][1]["patch"] = json!("@@ -1,2 +1,2 @@\n mod http;\n-mod old;\n+mod new;");
    std::fs::write(&fixture, v.to_string()).unwrap();
    assert_eq!(count(&env), json!(1));
}

#[test]
fn an_offline_viewed_file_whose_patch_changed_reads_dismissed_as_on_github() {
    let env = TestEnv::new();
    let paths: Vec<String> = {
        let v = json_of(run(&env, &["files", DEMO, "--format", "json"]));
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut args = vec!["file", "viewed", DEMO];
    args.extend(paths.iter().map(String::as_str));
    ok(run(&env, &args));
    let viewed = |step: &str| -> Vec<(String, String)> {
        let v = json_of(run(
            &env,
            &["files", DEMO, "--step", step, "--format", "json"],
        ));
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_owned(),
                    f["viewed"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert!(viewed("0").iter().all(|(_, v)| v == "viewed"));
    // Step 2 changed retry.rs only: GitHub unchecks it, the others stay viewed.
    let after = viewed("2");
    assert_eq!(
        after[0],
        ("src/client/retry.rs".to_owned(), "dismissed".to_owned())
    );
    assert!(after[1..].iter().all(|(_, v)| v == "viewed"), "{after:?}");
    // Marked again at the new patch, it is viewed.
    ok(run(
        &env,
        &["file", "viewed", DEMO, "--step", "2", "src/client/retry.rs"],
    ));
    assert!(viewed("2").iter().all(|(_, v)| v == "viewed"));
}
