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
