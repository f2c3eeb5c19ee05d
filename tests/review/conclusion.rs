//! One conclusion of a review: the demo's run, reviewed headless (`pr-shepherd review`) and at the
//! console (`r`), is saved, composed and recorded alike — both end in `review::flow`'s
//! `PreparedReview::conclude`, and this fails when one of them goes its own way again.

use crate::support;

use pr_shepherd::ledger::{Decision, Ledger, RepoId};
use pr_shepherd::review::ReviewRun;
use serde_json::Value;
use support::console::{coords, open};
use support::env::TestEnv;
use support::{stderr, stdout};

/// A saved run as JSON, without what differs between two runs of the same answers: its id, when
/// it started and how long each part took.
fn comparable(run: &ReviewRun) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["runId", "startedAt", "elapsedMs"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(run).unwrap();
    strip(&mut v);
    v
}

/// What the decisions say, without when or in which run.
fn said(d: &[Decision]) -> Vec<String> {
    d.iter()
        .map(|d| {
            let mut v = serde_json::to_value(d).unwrap();
            if let Value::Object(m) = &mut v {
                m.remove("at");
                m.remove("run");
            }
            v.to_string()
        })
        .collect()
}

#[test]
fn the_console_and_review_conclude_the_same_run_alike() {
    // Headless: `pr-shepherd review` on the bundled demo.
    let env = TestEnv::new();
    let out = env.bin().arg("review").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out);
    let headless = Ledger::new(env.state());

    // The console: `r` on the same demo.
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("r");
    let shown = h
        .app
        .composed()
        .expect("the review was concluded")
        .body
        .clone();
    let console = Ledger::new(dir.path());

    let pr = coords(&h);
    let (a, _) = headless.load_runs::<ReviewRun>(&pr).unwrap();
    let (b, _) = console.load_runs::<ReviewRun>(&pr).unwrap();
    assert_eq!((a.len(), b.len()), (1, 1), "one run saved by each");
    assert_eq!(comparable(&a[0]), comparable(&b[0]), "the same run saved");
    assert!(a[0].findings().count() > 0);

    // The same body (the console's as it will be posted), but for the run's id and how long its
    // parts took (the header's line and the aspects' table).
    let timeless = |body: &str, run: &ReviewRun| -> Vec<String> {
        body.replace(&run.run_id, "RUN")
            .lines()
            .filter(|l| !l.contains("**Time:**") && !l.starts_with('|'))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(timeless(&printed, &a[0]), timeless(&shown, &b[0]));

    // The same decisions recorded: each finding proposed (and any addressed), nothing else.
    let repo = RepoId::of(&pr);
    let (da, db) = (
        headless.decisions(&repo).unwrap(),
        console.decisions(&repo).unwrap(),
    );
    assert!(!da.is_empty());
    assert_eq!(said(&da), said(&db));
}
