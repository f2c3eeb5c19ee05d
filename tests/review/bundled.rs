//! The bundled fixtures review offline, as docs/console.md promises: each ships recorded
//! answers for every aspect, so the replayed review is complete.

use crate::support;

use support::env::TestEnv;

#[test]
fn every_bundled_fixture_reviews_offline_with_every_aspect() {
    let env = TestEnv::new();
    for name in ["demo", "history", "community"] {
        let path = format!("{}/assets/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let o = env.bin().args(["review", &path]).output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: {err}\n{out}");
        assert!(out.contains("assessed by all 6 aspects"), "{name}:\n{out}");
        assert!(!out.contains("Incomplete review"), "{name}:\n{out}");
    }
    // The team PR with history: at the step after the author's fix, the closed-pool finding is
    // gone and the rest stand.
    let path = format!(
        "{}/assets/fixtures/history.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = env
        .bin()
        .args(["review", &path, "--step", "1"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("never wakes up"), "{out}");
    assert!(out.contains("does not return its permit"), "{out}");
}
