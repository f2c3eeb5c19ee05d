//! The real binary: `items`, `state`, `fixture`, exit codes, and when markers are written.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::PrCoords;
use serde_json::Value;
use support::env::TestEnv;
use support::{demo_coords, stderr, stdout};

/// The hermetic binary on `state`.
fn run_at(env: &TestEnv, state: &Path, args: &[&str]) -> Output {
    env.bin()
        .arg("--state-dir")
        .arg(state)
        .args(args)
        .output()
        .expect("run pr-shepherd")
}

/// The hermetic binary on the test environment's state dir.
fn run(env: &TestEnv, args: &[&str]) -> Output {
    run_at(env, &env.state(), args)
}

fn json_at(env: &TestEnv, state: &Path, args: &[&str]) -> Value {
    let mut all = vec!["items", "--format", "json"];
    all.extend_from_slice(args);
    let o = run_at(env, state, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("json output")
}

fn json(env: &TestEnv, args: &[&str]) -> Value {
    json_at(env, &env.state(), args)
}

fn freshness(v: &Value) -> Vec<(String, String)> {
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap_or_default().to_owned(),
                i["freshness"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn new_then_unchanged_then_edited_through_history() {
    let env = TestEnv::new();
    let first = json(&env, &[]);
    assert_eq!(first["counts"]["new"], 18);
    assert!(freshness(&first).iter().all(|(_, f)| f == "new"));

    let second = json(&env, &[]);
    assert_eq!(second["counts"]["unchanged"], 18);

    // Step 1: a reply on the jitter thread and an edit of a conversation comment.
    let third = json(&env, &["--step", "1"]);
    let edited: Vec<_> = freshness(&third)
        .into_iter()
        .filter(|(_, f)| f == "edited")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(edited, ["PRRT_kwDOKq3xZs5hQ1bB", "IC_kwDOKq3xZs6Aa0002"]);
    // The original seenAt is kept and shown for edited items.
    let thread = &third["items"][1];
    assert!(first["items"][1]["seenAt"].is_null());
    assert_eq!(thread["seenAt"], second["items"][1]["seenAt"].clone());
    assert!(thread["seenAt"].is_i64());
    assert_eq!(thread["comments"].as_array().map(Vec::len), Some(5));

    // Step 2: one new comment; resolving and minimizing do not change bodies.
    let fourth = json(&env, &["--step", "2"]);
    assert_eq!(fourth["counts"]["new"], 1);
    assert_eq!(fourth["counts"]["edited"], 0);
    assert_eq!(fourth["counts"]["total"], 19);
}

#[test]
fn markdown_sections_and_all() {
    let env = TestEnv::new();
    let o = run(&env, &["items"]);
    let md = stdout(&o);
    assert!(md.contains("## New (18)"), "{md}");
    assert!(md.contains("## Edited since first look (0)"));
    assert!(md.contains("## Unchanged (0)"));
    assert!(md.contains("`MINIMIZED(spam)`"));
    assert!(md.contains("`OUTDATED` `RESOLVED`"));
    // Hostile text arrives made visible, never raw.
    assert!(!md.contains('\u{1b}'));
    assert!(md.contains("␛[2J"));

    let again = stdout(&run(&env, &["items"]));
    assert!(again.contains("## Unchanged (18)"));
    assert!(again.contains("`--all` shows them"));
    assert!(!again.contains("### Thread"));
    let all = stdout(&run(&env, &["items", "--all"]));
    assert!(all.contains("`UNCHANGED`"));
    assert_eq!(all.matches("\n### ").count(), 18);
}

#[test]
fn peek_writes_nothing() {
    let env = TestEnv::new();
    let o = run(&env, &["items", "--peek"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Peek: no seen markers are written"));
    assert_eq!(
        std::fs::read_dir(env.state()).unwrap().count(),
        0,
        "nothing written"
    );
    assert_eq!(json(&env, &["--peek"])["counts"]["new"], 18);
}

#[test]
fn bad_references_exit_2_with_accepted_forms() {
    let env = TestEnv::new();
    for bad in ["nonsense", "a/b#0", "../../x#1", "./missing.json"] {
        let o = run(&env, &["items", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains("accepted forms"),
            "{bad}: {}",
            stderr(&o)
        );
    }
    let o = run(&env, &["items", "--step", "9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("out of range"));
    let o = run(&env, &["items", "--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
}

fn write_fixture(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

#[test]
fn bad_fixtures_exit_2_with_path_and_position() {
    let env = TestEnv::new();
    let demo = pr_shepherd::source::DEMO_FIXTURE;
    let cases = [
        ("notjson.json", "{ nope".to_owned(), "not valid JSON"),
        (
            "tag.json",
            demo.replace("pr-shepherd/fixture@1", "other@2"),
            "at `format`",
        ),
        (
            "missing.json",
            demo.replacen("\"headSha\"", "\"headShaX\"", 1),
            "missing field `headSha`",
        ),
        (
            "type.json",
            demo.replacen("\"number\": 482", "\"number\": \"482\"", 1),
            "at `pr.number`",
        ),
        (
            "dup.json",
            demo.replacen("IC_kwDOKq3xZs6Aa0003", "IC_kwDOKq3xZs6Aa0001", 1),
            "duplicate id `IC_kwDOKq3xZs6Aa0001`",
        ),
        (
            "step.json",
            demo.replacen(
                "\"thread\": \"PRRT_kwDOKq3xZs5hQ1bB\"",
                "\"thread\": \"PRRT_gone\"",
                1,
            ),
            "at `steps[0].changes[0].thread`",
        ),
        (
            "owner.json",
            demo.replacen("\"owner\": \"acme\"", "\"owner\": \"../../etc\"", 1),
            "at `pr.owner`",
        ),
    ];
    for (name, text, expect) in cases {
        let p = write_fixture(&env.state(), name, &text);
        let o = run(&env, &["items", p.to_str().expect("utf8")]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(expect), "{name}: {err}");
        assert!(err.contains(name), "{name}: {err}");
        // file:line:col
        assert!(
            err.split('`').nth(2).is_some_and(|s| s.starts_with(':')),
            "{name}: {err}"
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
        let check = run(&env, &["fixture", "check", p.to_str().expect("utf8")]);
        assert_eq!(check.status.code(), Some(2), "{name}");
    }
    assert!(
        std::fs::read_dir(env.state())
            .expect("dir")
            .flatten()
            .all(|e| e.path().is_file()),
        "no state written for refused fixtures"
    );
}

#[cfg(unix)]
#[test]
fn unwritable_state_dir_still_delivers_the_listing() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let locked = env.root().join("locked");
    std::fs::create_dir(&locked).expect("mkdir");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).expect("chmod");
    // Root ignores permissions; a plain file where the dir should be fails for everyone.
    let blocker = env.root().join("blocker");
    std::fs::write(&blocker, "not a dir").expect("write");
    for state in [locked.as_path(), blocker.as_path()] {
        if state == locked.as_path() && std::fs::write(locked.join("probe"), "x").is_ok() {
            continue; // running as root: permissions do not bind
        }
        // The listing is delivered; a disk failure is still not success (exit 1).
        let o = run_at(&env, state, &["items"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let md = stdout(&o);
        assert!(md.contains("## New (18)"));
        assert!(md.contains("Seen markers will not be saved"), "{md}");
        assert!(stderr(&o).contains("seen markers were not saved"));
        let o = run_at(&env, state, &["items", "--format", "json"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).expect("json output");
        assert_eq!(v["markers"]["write"], false);
        assert!(
            v["markers"]["reason"]
                .as_str()
                .is_some_and(|r| !r.is_empty())
        );
    }
}

#[test]
fn closed_pipe_writes_no_markers() {
    let env = TestEnv::new();
    // Big enough that the listing cannot fit in a pipe buffer.
    let big = env.state().join("big.json");
    let o = run(
        &env,
        &[
            "fixture",
            "synth",
            "--threads",
            "2000",
            "--comments",
            "1000",
            "--reviews",
            "100",
            "--out",
            big.to_str().expect("utf8"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut child = env
        .bin()
        .arg("--state-dir")
        .arg(env.state())
        .args(["items", big.to_str().expect("utf8")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take()); // the reader goes away before the listing is written
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("no seen markers were written"));
    let coords = PrCoords {
        host: None,
        owner: "synth".into(),
        repo: "big".into(),
        number: 1,
    };
    let seen = Ledger::new(env.state()).load_seen(&coords).expect("load");
    assert!(seen.markers.is_empty());
}

#[test]
fn concurrent_runs_leave_only_whole_markers() {
    let env = TestEnv::new();
    let children: Vec<_> = (0..4)
        .map(|_| {
            env.bin()
                .arg("--state-dir")
                .arg(env.state())
                .args(["items", "--format", "json"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().expect("wait");
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let ledger = Ledger::new(env.state());
    let seen = ledger.load_seen(&demo_coords()).expect("load");
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    assert_eq!(seen.markers.len(), 18);
    let seen_dir = ledger.seen_dir(&demo_coords()).expect("dir");
    let names: Vec<_> = std::fs::read_dir(seen_dir)
        .expect("read")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 18, "no temporary files left: {names:?}");
    assert_eq!(json(&env, &[])["counts"]["unchanged"], 18);
}

#[test]
fn corrupt_marker_resurfaces_and_is_reported() {
    let env = TestEnv::new();
    json(&env, &[]);
    let ledger = Ledger::new(env.state());
    let seen_dir = ledger.seen_dir(&demo_coords()).expect("dir");
    let name = format!(
        "{}.json",
        pr_shepherd::pr::sha256_hex(b"IC_kwDOKq3xZs6Aa0001")
    );
    std::fs::write(seen_dir.join(&name), "{\"id\": trunc").expect("corrupt");
    let o = run(&env, &["items"]);
    assert!(o.status.success());
    let md = stdout(&o);
    assert!(md.contains("## New (1)"), "{md}");
    assert!(md.contains("Ignored an unusable seen marker"), "{md}");
    // Rewritten whole after delivery.
    assert!(
        ledger
            .load_seen(&demo_coords())
            .expect("load")
            .problems
            .is_empty()
    );
}

#[test]
fn state_show_and_clear() {
    let env = TestEnv::new();
    json(&env, &[]);
    let show = run(&env, &["state", "show", "--format", "json"]);
    let v: Value = serde_json::from_slice(&show.stdout).expect("json");
    assert_eq!(v["markers"].as_array().map(Vec::len), Some(18));
    assert!(
        v["markers"][0]["bodyHash"]
            .as_str()
            .is_some_and(|h| h.len() == 16)
    );
    let md = stdout(&run(&env, &["state", "show"]));
    assert!(md.contains("18 seen markers"), "{md}");
    let clear = run(&env, &["state", "clear"]);
    assert!(
        stdout(&clear).contains("18 seen marker"),
        "{}",
        stdout(&clear)
    );
    assert_eq!(json(&env, &[])["counts"]["new"], 18);
}

/// A defect a new user met: `state clear` forgets what was seen and nothing else (the unsaved
/// draft and the outbox stay); `state clear --all` removes everything, and with a draft it asks
/// first — without a terminal and without `--yes` it refuses (exit 2, saying why).
#[test]
fn state_clear_keeps_the_draft_and_clear_all_asks() {
    let env = TestEnv::new();
    json(&env, &[]);
    let ledger = Ledger::new(env.state());
    let pr = demo_coords();
    let draft = pr_shepherd::ledger::Draft {
        body: "## PR Shepherd Review\n\nmy words".to_owned(),
        head_sha: "abc".to_owned(),
        saved_at: 1,
    };
    ledger.save_draft(&pr, &draft).expect("draft");
    let o = run(&env, &["state", "clear"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(ledger.load_seen(&pr).expect("load").markers.is_empty());
    assert_eq!(
        ledger.load_draft(&pr).expect("draft").map(|d| d.body),
        Some(draft.body.clone()),
        "the draft survives a plain clear"
    );
    assert!(stdout(&o).contains("draft"), "{}", stdout(&o));

    // --all with a draft, no terminal, no --yes: refused, nothing removed.
    json(&env, &[]);
    let o = run(&env, &["state", "clear", "--all"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--yes"), "{}", stderr(&o));
    assert!(stderr(&o).contains("draft"), "{}", stderr(&o));
    assert!(ledger.load_draft(&pr).expect("draft").is_some());
    assert_eq!(ledger.load_seen(&pr).expect("load").markers.len(), 18);

    let o = run(&env, &["state", "clear", "--all", "--yes"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(ledger.load_draft(&pr).expect("draft").is_none());
    assert!(ledger.load_seen(&pr).expect("load").markers.is_empty());
    // Without a draft there is nothing to ask about.
    json(&env, &[]);
    let o = run(&env, &["state", "clear", "--all"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `fixture check` checks a fixture's patches against themselves: each hunk header against its
/// lines, each file's additions and deletions against its patch; the bundled fixtures pass.
#[test]
fn fixture_check_refuses_patches_that_disagree_with_their_headers_or_counts() {
    let env = TestEnv::new();
    for name in ["demo.json", "community.json", "history.json"] {
        let path = format!("{}/assets/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let o = run(&env, &["fixture", "check", &path]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    }
    let demo = std::fs::read_to_string(format!(
        "{}/assets/fixtures/demo.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("demo");
    let mut v: Value = serde_json::from_str(&demo).expect("json");
    v["pr"]["files"][1]["patch"] =
        Value::from("@@ -1,9 +1,14 @@\n mod http;\n+mod retry;\n-mod old;");
    v["pr"]["files"][1]["additions"] = Value::from(40);
    let p = write_fixture(&env.state(), "bad-patch.json", &v.to_string());
    let o = run(&env, &["fixture", "check", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("`src/client/mod.rs`: hunk `@@ -1,9 +1,14 @@` says 9 old and 14 new lines, it has 2 and 2"),
        "{err}"
    );
    assert!(
        err.contains("`src/client/mod.rs`: says +40 −1, its patch adds 1 and removes 1 lines"),
        "{err}"
    );
}

#[test]
fn synth_is_deterministic_and_valid() {
    let env = TestEnv::new();
    let synth = [
        "fixture",
        "synth",
        "--threads",
        "5",
        "--comments",
        "3",
        "--reviews",
        "2",
    ];
    let a = run(&env, &synth);
    let b = run(&env, &synth);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let p = write_fixture(&env.state(), "s.json", &stdout(&a));
    let v = json(&env, &[p.to_str().expect("utf8")]);
    assert_eq!(v["counts"]["total"], 10);
}

#[test]
fn help_is_complete() {
    let env = TestEnv::new();
    for args in [
        vec!["--help"],
        vec!["items", "--help"],
        vec!["state", "--help"],
        vec!["state", "show", "--help"],
        vec!["state", "clear", "--help"],
        vec!["fixture", "synth", "--help"],
        vec!["fixture", "check", "--help"],
    ] {
        let o = env.bin().args(&args).output().expect("run");
        assert!(o.status.success(), "{args:?}");
        let h = stdout(&o);
        assert!(h.contains("Usage:"), "{args:?}");
        assert!(h.contains("--state-dir"), "{args:?}: global option shown");
    }
    let items = stdout(&env.bin().args(["items", "--help"]).output().expect("run"));
    for flag in ["--format", "--all", "--peek", "--step"] {
        assert!(items.contains(flag), "{flag}");
    }
}

/// The test environment is all a command sees: nothing of the user's leaks through.
#[cfg(unix)]
#[test]
fn commands_see_only_the_test_environment() {
    let env = TestEnv::new();
    let out = env.command("env").output().expect("run env");
    let seen = stdout(&out);
    let mut names: Vec<&str> = seen.lines().filter_map(|l| l.split('=').next()).collect();
    names.sort_unstable();
    let mut expected: Vec<&str> = env.vars().iter().map(|(k, _)| *k).collect();
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert!(seen.contains(&format!("HOME={}", env.home().display())));
    assert_eq!(std::fs::read_to_string(env.config()).expect("config"), "");
}

/// Every command reads the config file the same way (through the one context built at start):
/// a bad key stops `items`, `state` and `fixture` too, with exit 2 naming the key — and `items`
/// writes no seen markers; a valid file changes nothing.
#[test]
fn every_command_refuses_an_invalid_config_naming_the_key() {
    let env = TestEnv::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "[review]\nconcurency = 3\n").expect("write config");
    let state = dir.path().join("state");
    for args in [
        vec!["items"],
        vec!["items", "--peek", "--format", "json"],
        vec!["state", "show"],
        vec!["state", "clear"],
        vec!["fixture", "check", "no-such-file.json"],
    ] {
        let mut all = vec!["--config", cfg.to_str().expect("utf8")];
        all.extend_from_slice(&args);
        let o = run_at(&env, &state, &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("concurency"), "{args:?}: {err}");
        assert!(err.contains("config.toml"), "{args:?}: {err}");
        assert!(stdout(&o).is_empty(), "{args:?}: nothing printed");
    }
    let seen = Ledger::new(state.clone())
        .load_seen(&demo_coords())
        .expect("load");
    assert!(seen.markers.is_empty(), "no markers written");

    std::fs::write(&cfg, "[review]\nconcurrency = 3\n").expect("write config");
    let o = run_at(
        &env,
        &state,
        &[
            "--config",
            cfg.to_str().expect("utf8"),
            "items",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A defect a new user met: the flags are checked the same way for every command — an unknown
/// `--theme` stops `items` and `state` as it stops the console (exit 2, naming it), and nothing
/// is marked seen.
#[test]
fn every_command_refuses_an_unknown_theme() {
    let env = TestEnv::new();
    for args in [
        vec!["items", "--theme", "nope"],
        vec!["--theme", "nope", "items", "--format", "json"],
        vec!["state", "show", "--theme", "nope"],
        vec!["state", "clear", "--theme", "nope"],
    ] {
        let o = run(&env, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("nope"), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: nothing printed");
    }
    let seen = Ledger::new(env.state())
        .load_seen(&demo_coords())
        .expect("load");
    assert!(seen.markers.is_empty(), "no markers written");
    // A known theme changes nothing for a listing.
    let o = run(&env, &["items", "--theme", "light", "--peek"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn an_earlier_step_never_moves_markers_back() {
    let env = TestEnv::new();
    json(&env, &[]);
    json(&env, &["--step", "2"]);
    // A look at the past: the edited items show as edited against the later markers, but
    // their markers keep the later texts.
    json(&env, &["--step", "0"]);
    let back = json(&env, &["--step", "2"]);
    assert_eq!(back["counts"]["edited"], 0, "{:?}", freshness(&back));
    assert_eq!(back["counts"]["new"], 0);
    assert_eq!(back["counts"]["unchanged"], 19);
}
