//! The state dir on disk, through the binary: a state dir written by the release before this
//! layout is read whole; PRs whose names shared a folder get one each, and an old folder whose
//! owner is in doubt is decided as docs/architecture.md says; a first look writes a marker per
//! item and one log of texts; only the markers of the PR's items are read, and `state prune`
//! removes the others.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use pr_shepherd::ledger::{KeptText, Ledger};
use pr_shepherd::pr::{Association, Author, Comment, Item, PrCoords};
use serde_json::Value;
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref, pr_state_dir};
use support::{demo_coords, demo_dir, stderr, stdout};

/// A state dir exactly as the release before this layout left it (made by that release's
/// binary and library: `items` at step 0 twice, `review --post`, `thread reply`, a draft, a
/// reply draft and watch state; see tests/data/old-state/SOURCE.md).
const OLD_STATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/old-state");

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.bin().args(args).output().expect("run the binary")
}

fn ok(o: Output) -> Output {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o
}

fn json(env: &TestEnv, args: &[&str]) -> Value {
    serde_json::from_slice(&ok(run(env, args)).stdout).expect("JSON listing")
}

fn counts(v: &Value) -> (u64, u64, u64) {
    let c = &v["counts"];
    let n = |k: &str| c[k].as_u64().unwrap_or(u64::MAX);
    (n("new"), n("edited"), n("unchanged"))
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("below").to_path_buf();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let path = to.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
}

/// The demo fixture as another PR's (same items), written to `<root>/<name>.json`.
fn demo_as(env: &TestEnv, owner: &str, repo: &str, number: u64) -> String {
    let mut v: Value = serde_json::from_str(pr_shepherd::source::DEMO_FIXTURE).expect("demo");
    v["pr"]["owner"] = owner.into();
    v["pr"]["repo"] = repo.into();
    v["pr"]["number"] = number.into();
    let path = env.root().join(format!("{owner}_{repo}_{number}.json"));
    std::fs::write(&path, serde_json::to_vec(&v).expect("encode")).expect("write fixture");
    path.display().to_string()
}

fn coords(owner: &str, repo: &str, number: u64) -> PrCoords {
    PrCoords {
        host: None,
        owner: owner.into(),
        repo: repo.into(),
        number,
    }
}

/// No format change loses anything: the old folder moves whole (every file of it is in the new
/// folder, byte for byte, but the markers the run rewrote and the derived index), its markers
/// still count, its per-item kept texts still show what changed, and the draft, reply draft,
/// outbox, thread outbox, run and watch state are all there for the new release to read.
/// (Fails with the move taken out of `Ledger::pr_dir`: every item counts as new and the draft
/// is gone.)
#[test]
fn a_state_dir_of_the_release_before_is_read_whole() {
    let env = TestEnv::new();
    copy_tree(Path::new(OLD_STATE), &env.state());
    let old_dir = env.state().join("acme-rivet/482");
    let before = tree(&old_dir);
    assert!(before.len() > 40, "the test data is there");

    let listing = json(&env, &["items", "--step", "2", "--format", "json"]);
    assert_eq!(counts(&listing), (1, 2, 16), "{listing:#}");
    let edited = listing["items"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["id"] == "IC_kwDOKq3xZs6Aa0002"))
        .expect("the edited comment");
    assert_eq!(edited["freshness"], "edited");
    assert!(
        edited["changes"]["previousBody"]
            .as_str()
            .is_some_and(|b| b.starts_with("Will this also retry POST")),
        "the text kept by the release before shows what changed: {edited:#}"
    );

    let new_dir = demo_dir(&env.state());
    assert_eq!(new_dir, env.state().join("prs/acme/rivet/482"));
    assert!(
        !env.state().join("acme-rivet").exists(),
        "moved, not copied"
    );
    let after = tree(&new_dir);
    for (rel, bytes) in &before {
        let now = after.get(rel);
        assert!(now.is_some(), "{} was lost", rel.display());
        // The markers the run rewrote, and the derived index (a cache), may differ.
        if rel == Path::new("seen-index") {
            continue;
        }
        if !rel.starts_with("seen") {
            assert!(now == Some(bytes), "{} changed", rel.display());
        } else {
            // A rewritten marker keeps its id and first-seen time.
            let (a, b): (Value, Value) = (
                serde_json::from_slice(bytes).expect("old marker"),
                serde_json::from_slice(now.expect("marker")).expect("new marker"),
            );
            assert_eq!((&a["id"], &a["seenAt"]), (&b["id"], &b["seenAt"]));
        }
    }

    let ledger = Ledger::new(env.state());
    let pr = demo_coords();
    let draft = ledger.load_draft(&pr).expect("draft").expect("a draft");
    assert!(draft.body.contains("kept across the upgrade"));
    let reply = ledger
        .load_reply_draft(&pr)
        .expect("reply")
        .expect("a reply draft");
    assert_eq!(reply.thread_id, "PRRT_kwDOKq3xZs5hQ1aA");
    assert!(ledger.outbox(&pr).expect("outbox").is_some());
    assert_eq!(ledger.thread_outbox(&pr).expect("threads").actions.len(), 1);
    assert!(new_dir.join("watch.json").is_file());
    let shown = json(&env, &["state", "show", "--format", "json"]);
    assert_eq!(shown["markers"].as_array().map(Vec::len), Some(19));
    assert!(shown["problems"].as_array().is_some_and(Vec::is_empty));
}

/// Failed before: `acme-rivet/core#7` and `acme/rivet-core#7` shared `acme-rivet-core/7`, so the
/// second PR found the first one's markers and listed nothing as new (and would have restored
/// its draft and outbox as its own).
#[test]
fn two_prs_whose_names_shared_a_folder_each_have_their_own() {
    let env = TestEnv::new();
    let a = demo_as(&env, "acme-rivet", "core", 7);
    let b = demo_as(&env, "acme", "rivet-core", 7);
    let first = json(&env, &["items", &a, "--format", "json"]);
    assert_eq!(counts(&first).0, 18);
    ok(run(&env, &["review", &a, "--post", "--quiet"]));
    let other = json(&env, &["items", &b, "--format", "json"]);
    assert_eq!(counts(&other), (18, 0, 0), "b sees a's state: {other:#}");
    let ledger = Ledger::new(env.state());
    assert!(
        ledger
            .outbox(&coords("acme-rivet", "core", 7))
            .unwrap()
            .is_some()
    );
    assert!(
        ledger
            .outbox(&coords("acme", "rivet-core", 7))
            .unwrap()
            .is_none()
    );
    assert_ne!(
        ledger.pr_dir(&coords("acme-rivet", "core", 7)).unwrap(),
        ledger.pr_dir(&coords("acme", "rivet-core", 7)).unwrap()
    );
}

/// An old folder `acme-rivet-core/7` with the markers of the demo's items and a draft, whose run
/// records name `pr` (as `owner/repo#7`) once each.
fn old_shared_folder(env: &TestEnv, prs: &[&str]) -> PathBuf {
    let old = env.state().join("acme-rivet-core/7");
    copy_tree(
        &Path::new(OLD_STATE).join("acme-rivet/482/seen"),
        &old.join("seen"),
    );
    std::fs::write(
        old.join("draft.json"),
        r#"{"body":"A draft of the review","headSha":"abc","savedAt":1}"#,
    )
    .expect("draft");
    std::fs::create_dir_all(old.join("runs")).expect("runs");
    for (i, pr) in prs.iter().enumerate() {
        std::fs::write(
            old.join(format!("runs/2026120{i}T000000Z-aaaaaa.json")),
            format!(r#"{{"format":"pr-shepherd/run@1","runId":"r{i}","pr":"{pr}"}}"#),
        )
        .expect("run");
    }
    old
}

/// An old folder whose run records name both PRs that mapped to it was written by both: it is
/// left where it is, untouched; each PR starts empty, and `state show` names the old folder.
#[test]
fn an_old_folder_two_prs_wrote_stays_where_it_is() {
    let env = TestEnv::new();
    let old = old_shared_folder(&env, &["acme/rivet-core#7", "acme-rivet/core#7"]);
    let before = tree(&old);
    let a = demo_as(&env, "acme-rivet", "core", 7);
    let b = demo_as(&env, "acme", "rivet-core", 7);
    assert_eq!(
        counts(&json(&env, &["items", &a, "--format", "json"])).0,
        18
    );
    assert_eq!(
        counts(&json(&env, &["items", &b, "--format", "json"])).0,
        18
    );
    assert_eq!(tree(&old), before, "the shared folder is not touched");
    let shown = stdout(&ok(run(&env, &["state", "show", &a])));
    assert!(shown.contains("left in place"), "{shown}");
    assert!(shown.contains("acme-rivet-core"), "{shown}");
    let ledger = Ledger::new(env.state());
    assert!(
        ledger
            .load_draft(&coords("acme", "rivet-core", 7))
            .unwrap()
            .is_none()
    );
}

/// An old folder whose run records name one of the PRs that mapped to it is that PR's: the other
/// one does not take it, and it moves whole when its own PR is used.
#[test]
fn an_old_folder_goes_to_the_pr_its_runs_name() {
    let env = TestEnv::new();
    let old = old_shared_folder(&env, &["acme/rivet-core#7"]);
    let a = demo_as(&env, "acme-rivet", "core", 7);
    let b = demo_as(&env, "acme", "rivet-core", 7);
    assert_eq!(
        counts(&json(&env, &["items", &a, "--format", "json"])).0,
        18
    );
    assert!(old.is_dir(), "not taken by the other reading of its name");
    let shown = stdout(&ok(run(&env, &["state", "show", &a])));
    assert!(shown.contains("acme/rivet-core#7's"), "{shown}");
    let listing = json(&env, &["items", &b, "--format", "json"]);
    assert_eq!(counts(&listing), (0, 0, 18), "its own markers: {listing:#}");
    assert!(!old.exists());
    let ledger = Ledger::new(env.state());
    assert!(
        ledger
            .load_draft(&coords("acme", "rivet-core", 7))
            .unwrap()
            .is_some()
    );
}

/// Half the files: a first look writes one marker per item (the seed's format) and one log of
/// the texts. Failed before: a kept text was a file of its own beside each marker.
#[test]
fn a_first_look_writes_a_marker_per_item_and_one_log_of_texts() {
    let env = TestEnv::new();
    ok(run(&env, &["items"]));
    let files = tree(&demo_dir(&env.state()));
    let markers = files.keys().filter(|p| p.starts_with("seen")).count();
    assert_eq!(markers, 18, "{:?}", files.keys());
    let others: Vec<&PathBuf> = files.keys().filter(|p| !p.starts_with("seen/")).collect();
    // Beside them, the head that was read (the one `merge` carries by default).
    assert_eq!(
        others,
        [Path::new("looked-head.json"), Path::new("seen-text.log")],
        "{others:?}"
    );
}

/// Marks `n` items the PR does not have (and keeps a text for three of them), plus one corrupt
/// marker of an item gone.
fn stale_markers(state: &Path, pr: &PrCoords, n: usize) {
    let ledger = Ledger::new(state);
    let ids: Vec<String> = (0..n).map(|i| format!("IC_gone_{i}")).collect();
    let pairs: Vec<(&str, &str)> = ids
        .iter()
        .map(|i| (i.as_str(), "0123456789abcdef"))
        .collect();
    ledger.mark_seen(pr, &pairs, 1).expect("mark");
    let texts: Vec<KeptText> = ids[..3]
        .iter()
        .map(|id| {
            let item = Item::Comment(Comment {
                id: id.clone(),
                author: Author {
                    login: "someone".into(),
                    association: Association::Member,
                    bot: false,
                },
                created_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
                last_edited_at: None,
                url: String::new(),
                body: "of an item gone".into(),
                minimized: false,
                minimized_reason: None,
            });
            KeptText::of(&item, "0123456789abcdef")
        })
        .collect();
    ledger.keep_texts(pr, &texts).expect("keep");
    let seen = ledger.seen_dir(pr).expect("dir");
    let corrupt = seen.join(format!(
        "{}.json",
        pr_shepherd::pr::sha256_hex(b"IC_gone_corrupt")
    ));
    std::fs::write(corrupt, "{not json").expect("corrupt");
}

/// Failed before: every marker file of the PR was read whatever the PR holds, so a corrupt
/// marker of an item long gone was reported on every run (and a million of them took seconds
/// and gigabytes). Only the markers of the PR's items are read; `state prune` removes the
/// others, saying how many, and never a marker of an item the PR has.
#[test]
fn markers_of_items_gone_are_not_read_and_prune_removes_them() {
    let env = TestEnv::new();
    assert_eq!(counts(&json(&env, &["items", "--format", "json"])).0, 18);
    stale_markers(&env.state(), &demo_coords(), 500);
    let listing = json(&env, &["items", "--format", "json"]);
    assert_eq!(counts(&listing), (0, 0, 18));
    assert_eq!(
        listing["markers"]["problems"],
        Value::Array(vec![]),
        "a marker of an item the PR does not have is not read"
    );
    let seen = demo_dir(&env.state()).join("seen");
    let kept_before: BTreeMap<PathBuf, Vec<u8>> = tree(&seen)
        .into_iter()
        .filter(|(_, b)| !String::from_utf8_lossy(b).contains("IC_gone"))
        .filter(|(_, b)| b.as_slice() != b"{not json")
        .collect();
    assert_eq!(kept_before.len(), 18);
    std::fs::write(seen.join("notes.json"), "not a marker").expect("write");

    let said = stdout(&ok(run(&env, &["state", "prune"])));
    assert!(said.contains("501 seen markers and 3 kept texts"), "{said}");
    let left = tree(&seen);
    assert_eq!(
        left.len(),
        19,
        "the PR's 18 markers and a file that is no marker"
    );
    for (rel, bytes) in &kept_before {
        assert_eq!(left.get(rel), Some(bytes), "{} changed", rel.display());
    }
    assert_eq!(
        counts(&json(&env, &["items", "--step", "2", "--format", "json"])),
        (1, 2, 16)
    );
    let again = stdout(&ok(run(&env, &["state", "prune"])));
    assert!(
        again.contains(": 0 seen markers and 0 kept texts"),
        "{again}"
    );
}

fn live(env: &TestEnv, server: &wiremock::MockServer, args: &[&str]) -> Output {
    env.bin()
        .env("GH_TOKEN", "ghp_disk_test_token")
        .args(["--api-url", &server.uri()])
        .args(args)
        .output()
        .expect("run the binary")
}

/// A live PR that cannot be read completely is not pruned (nothing is known not to be there);
/// read completely, only the markers of items it does not have go.
#[tokio::test]
async fn prune_of_a_live_pr_needs_the_whole_pr() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(3, 2, 3, 1, 1)).await;
    let env = TestEnv::new();
    let pr = pr_ref(NUMBER);
    let first: Value = serde_json::from_slice(
        &ok(live(&env, &server, &["items", &pr, "--format", "json"])).stdout,
    )
    .expect("json");
    let items = first["counts"]["total"].as_u64().expect("total") as usize;
    let ledger = Ledger::new(env.state());
    let dir = pr_state_dir(&env.state());
    let pr_coords = coords_of(&first);
    stale_markers(&env.state(), &pr_coords, 4);
    let markers = || std::fs::read_dir(dir.join("seen")).map_or(0, |d| d.count());
    assert_eq!(markers(), items + 5);

    *fake.state.partial_reviews_error.lock().expect("lock") = true;
    let refused = live(&env, &server, &["state", "prune", &pr]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("nothing was pruned"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(markers(), items + 5);

    *fake.state.partial_reviews_error.lock().expect("lock") = false;
    let said = stdout(&ok(live(&env, &server, &["state", "prune", &pr])));
    assert!(said.contains("5 seen markers"), "{said}");
    assert_eq!(markers(), items);
    assert_eq!(
        ledger.load_seen(&pr_coords).expect("load").markers.len(),
        items
    );
}

fn coords_of(listing: &Value) -> PrCoords {
    let pr = &listing["pr"];
    coords(
        pr["owner"].as_str().expect("owner"),
        pr["repo"].as_str().expect("repo"),
        pr["number"].as_u64().expect("number"),
    )
}
