//! The bundled PRs by the names the inbox gives them (`acme/rivet#482`, `#471`, `#497`, their
//! URLs) and `demo`, in every subcommand that takes a PR: without GitHub credentials they are the
//! bundled fixtures (an installed binary has no `assets/`); with a token they are GitHub's,
//! unless `--demo` says otherwise.

use crate::support;

use std::process::Output;

use serde_json::Value;
use support::env::TestEnv;

fn run(env: &TestEnv, args: &[&str]) -> Output {
    // Run from an empty folder: no `assets/` to fall back on, as after `cargo install`.
    env.bin()
        .current_dir(env.root())
        .arg("--state-dir")
        .arg(env.state())
        .args(args)
        .output()
        .unwrap()
}

fn ok_json(out: Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}\n{}",
        out.status.code(),
        support::all_output(&out)
    );
    serde_json::from_str(&support::stdout(&out)).unwrap()
}

#[test]
fn every_bundled_pr_opens_by_its_name_without_credentials() {
    let env = TestEnv::new();
    for (name, number) in [
        ("acme/rivet#482", 482),
        ("acme/rivet#471", 471),
        ("acme/rivet#497", 497),
        ("https://github.com/acme/rivet/pull/471", 471),
        ("demo", 482),
    ] {
        let v = ok_json(run(&env, &["items", name, "--peek", "--format", "json"]));
        assert_eq!(v["pr"]["number"], number, "{name}");
        let files = ok_json(run(&env, &["files", name, "--format", "json"]));
        assert!(
            !files["files"].as_array().unwrap().is_empty(),
            "{name}: {files}"
        );
    }
    // And the commands that write to the PR's state: offline, to its outbox.
    let out = run(&env, &["pending", "list", "acme/rivet#471"]);
    assert!(out.status.success(), "{}", support::all_output(&out));
    let out = run(&env, &["checks", "acme/rivet#482"]);
    assert!(out.status.success(), "{}", support::all_output(&out));
}

#[test]
fn a_pr_that_is_not_bundled_still_goes_to_github() {
    let env = TestEnv::new();
    // A GitHub that is not there: whatever credentials the machine's `gh` may hand out, the PR
    // is asked of GitHub (no credentials, or no answer), never of the bundled fixtures.
    let out = env
        .bin()
        .current_dir(env.root())
        .args(["--api-url", "http://127.0.0.1:9", "--state-dir"])
        .arg(env.state())
        .args(["files", "acme/rivet#1", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", support::all_output(&out));
    assert!(
        support::stdout(&out).is_empty(),
        "{}",
        support::all_output(&out)
    );
    let err = support::stderr(&out);
    assert!(
        err.contains("no GitHub credentials")
            || err.contains("127.0.0.1:9")
            || err.contains("cannot connect"),
        "{err}"
    );
}

#[test]
fn with_a_token_the_names_are_githubs_unless_demo_is_given() {
    let env = TestEnv::new();
    // A GitHub that is not there: a live read fails fast, a bundled one never asks it.
    let live = |args: &[&str]| {
        env.bin()
            .current_dir(env.root())
            .env("GH_TOKEN", "ghp_BundledNamesToken0123456789abcdef")
            .args(["--api-url", "http://127.0.0.1:9", "--state-dir"])
            .arg(env.state())
            .args(args)
            .output()
            .unwrap()
    };
    let out = live(&["files", "acme/rivet#482", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", support::all_output(&out));
    let v = ok_json(live(&[
        "--demo",
        "files",
        "acme/rivet#482",
        "--format",
        "json",
    ]));
    assert!(!v["files"].as_array().unwrap().is_empty());
    // `demo` is the demo either way.
    let v = ok_json(live(&["items", "demo", "--peek", "--format", "json"]));
    assert_eq!(v["pr"]["number"], 482);
}
