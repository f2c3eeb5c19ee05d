//! `files` and `diff --since-last-look` on real history (`support::history`: a repository made
//! with git, a PR on it and a force-push that moved lines, amended one and dropped a file), git
//! the oracle: the dropped file is said to be no longer in the PR, with whether you had viewed
//! it, and a viewed file GitHub dismissed only because its lines moved says so.

use crate::support;

use pr_shepherd::pr::ViewedState;
use serde_json::{Value, json};
use support::env::TestEnv;
use support::history::{DROPPED, History, LIB, PrFile, WALK};

const MOVED: &str = "dismissed by GitHub (lines moved, code unchanged since your last look)";

fn files_json(files: &[PrFile], walk: ViewedState) -> Value {
    files
        .iter()
        .map(|f| {
            f.fixture_json(if f.filename == WALK {
                walk
            } else {
                ViewedState::Unviewed
            })
        })
        .collect()
}

/// A fixture of the PR at H1 (walk.rs viewed) whose step 1 is the force-push to H2 (walk.rs
/// dismissed by GitHub, as its patch text changed).
fn fixture(env: &TestEnv, hist: &History) -> std::path::PathBuf {
    let (one, two) = (hist.files1(), hist.files2());
    support::demo_with(env, |v| {
        v["pr"]["headSha"] = json!(hist.head1);
        v["pr"]["baseSha"] = json!(hist.base1);
        v["pr"]["files"] = files_json(&one, ViewedState::Viewed);
        v["steps"] = json!([{
            "description": "rebased onto a new base, one commit dropped, one amended",
            "changes": [{
                "op": "push",
                "headSha": hist.head2,
                "baseSha": hist.base2,
                "files": files_json(&two, ViewedState::Dismissed),
            }],
        }]);
    })
}

fn run(env: &TestEnv, args: &[&str]) -> String {
    let out = env
        .bin()
        .arg("--state-dir")
        .arg(env.state())
        .args(args)
        .output()
        .unwrap();
    support::stdout(&support::exited_0(out))
}

/// The last look at H1: every file's diff printed, the dropped file marked viewed offline.
fn looked_at_h1(env: &TestEnv, fx: &str) {
    run(env, &["diff", fx]);
    run(env, &["file", "viewed", fx, DROPPED]);
}

fn entry<'a>(v: &'a Value, path: &str) -> &'a Value {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path}: {v}"))
}

#[test]
fn files_after_a_force_push_say_what_was_dropped_and_what_only_moved() {
    let hist = History::build();
    let env = TestEnv::new();
    let fx = fixture(&env, &hist);
    let fx = fx.to_str().unwrap();
    looked_at_h1(&env, fx);
    let v: Value = serde_json::from_str(&run(
        &env,
        &["files", fx, "--step", "1", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(
        v["noLongerInPr"],
        json!([{
            "path": DROPPED,
            "seen": true,
            "viewed": true,
            "said": "no longer in this PR; you had marked it viewed",
        }]),
        "{v}"
    );
    let walk = entry(&v, WALK);
    assert_eq!(walk["viewed"], "dismissed");
    assert_eq!(walk["changedSinceLastLook"], "unchanged");
    assert_eq!(walk["linesMovedOnly"], true);
    assert_eq!(walk["viewedSaid"], MOVED);
    let lib = entry(&v, LIB);
    assert_eq!(lib["changedSinceLastLook"], "changed");
    assert_eq!(lib["linesMovedOnly"], false);
    let md = run(&env, &["files", fx, "--step", "1"]);
    assert!(
        md.contains(&format!(
            "- `{DROPPED}`: no longer in this PR; you had marked it viewed"
        )),
        "{md}"
    );
    assert!(md.contains("1 no longer in this PR)"), "{md}");
    assert!(
        md.lines()
            .any(|l| l.starts_with(&format!("| `{WALK}` |")) && l.contains(&format!("| {MOVED} |"))),
        "{md}"
    );
}

#[test]
fn diff_since_last_look_after_a_force_push_says_what_was_dropped_and_what_only_moved() {
    let hist = History::build();
    for format in ["md", "json"] {
        let env = TestEnv::new();
        let fx = fixture(&env, &hist);
        let fx = fx.to_str().unwrap();
        looked_at_h1(&env, fx);
        let out = run(
            &env,
            &[
                "diff",
                fx,
                "--step",
                "1",
                "--since-last-look",
                "--format",
                format,
            ],
        );
        if format == "json" {
            let v: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["noLongerInPr"][0]["path"], DROPPED, "{v}");
            assert_eq!(v["noLongerInPr"][0]["viewed"], true, "{v}");
            let walk = entry(&v, WALK);
            assert_eq!(walk["shown"], "nothing");
            assert_eq!(walk["viewedSaid"], MOVED);
            assert_eq!(entry(&v, LIB)["shown"], "interdiff");
        } else {
            assert!(
                out.contains(&format!(
                    "- `{DROPPED}`: no longer in this PR; you had marked it viewed"
                )),
                "{out}"
            );
            assert!(
                out.contains(&format!(
                    "modified · +1 -1 · {MOVED} · since your last look: unchanged"
                )),
                "{out}"
            );
        }
        // Said once: the look now is the PR without it.
        let again = run(&env, &["diff", fx, "--step", "1", "--since-last-look"]);
        assert!(!again.contains("no longer in this PR"), "{again}");
    }
}
