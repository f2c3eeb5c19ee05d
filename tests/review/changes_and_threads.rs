//! Changes and threads, headless: what changed since the last look (`items` JSON `changes`, the Markdown
//! line diff and NEW replies) and acting on threads (`thread reply|resolve|unresolve`), offline
//! on the demo fixture and live against the loopback GitHub (edits, new replies, a lost answer,
//! a locked PR).

use crate::support;
use support::console::live_harness;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref, pr_state_dir};
use support::{all_output, stderr, stdout};

const TOKEN: &str = "ghp_ThreadLoopbackToken0123456789abcdef";
const JITTER: &str = "PRRT_kwDOKq3xZs5hQ1bB";
const QUESTION: &str = "IC_kwDOKq3xZs6Aa0002";

fn demo_path() -> String {
    format!("{}/assets/fixtures/demo.json", env!("CARGO_MANIFEST_DIR"))
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.bin()
        .arg("--state-dir")
        .arg(env.state())
        .args(args)
        .output()
        .unwrap()
}

fn live(env: &TestEnv, server: &wiremock::MockServer, args: &[&str]) -> Output {
    let mut c: Command = env.bin();
    c.arg("--state-dir")
        .arg(env.state())
        .env("GH_TOKEN", TOKEN)
        .args(["--api-url", &server.uri()])
        .args(args);
    c.output().unwrap()
}

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", all_output(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn item<'a>(listing: &'a Value, id: &str) -> &'a Value {
    listing["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("no item {id}"))
}

#[test]
fn fixture_history_shows_the_edit_as_a_diff_and_the_reply_as_new() {
    let env = TestEnv::new();
    let demo = demo_path();
    // The first look: everything new, no changes; markers and kept texts are written.
    let first = json(&run(&env, &["items", &demo, "--format", "json"]));
    assert!(
        first["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["changes"].is_null())
    );
    let before = item(&first, QUESTION)["body"].as_str().unwrap().to_owned();

    // Step 1: the author replied on the jitter thread and the question was edited in place.
    let md = run(&env, &["items", &demo, "--step", "1", "--peek"]);
    assert!(md.status.success(), "{}", all_output(&md));
    let text = stdout(&md);
    assert!(text.contains("_Changed since the last look:_"), "{text}");
    assert!(text.contains("```diff"), "{text}");
    assert!(
        text.contains("+**Edit:** I see `is_transient()`"),
        "the added line is marked: {text}"
    );
    assert!(text.contains("@tomasz-w** (CONTRIBUTOR)"), "{text}");
    assert!(
        text.contains("· **NEW**"),
        "the new reply is tagged: {text}"
    );

    let step1 = json(&run(
        &env,
        &["items", &demo, "--step", "1", "--format", "json"],
    ));
    let q = item(&step1, QUESTION);
    assert_eq!(q["freshness"], "edited");
    assert_eq!(q["changes"]["previousBody"], Value::String(before));
    assert_eq!(q["changes"]["newComments"], serde_json::json!([]));
    let t = item(&step1, JITTER);
    assert_eq!(t["freshness"], "edited");
    assert_eq!(t["changes"]["previousBody"], Value::Null);
    assert_eq!(
        t["changes"]["newComments"],
        serde_json::json!(["PRRC_kwDOKq3xZs5pX0013"])
    );
    // Unchanged items have no changes.
    assert!(
        step1["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["freshness"] == "unchanged")
            .all(|i| i["changes"].is_null())
    );
    // Seen now: the next look has nothing edited.
    let again = json(&run(
        &env,
        &["items", &demo, "--step", "1", "--format", "json"],
    ));
    assert_eq!(again["counts"]["edited"], 0);
    assert!(item(&again, QUESTION)["changes"].is_null());
}

#[test]
fn kept_texts_live_beside_the_markers() {
    let env = TestEnv::new();
    let o = run(&env, &["items", &demo_path()]);
    assert!(o.status.success(), "{}", all_output(&o));
    let pr = support::demo_dir(&env.state());
    let markers = std::fs::read_dir(pr.join("seen")).unwrap().count();
    // One log beside them, a record (line) per marker.
    let log = std::fs::read_to_string(pr.join("seen-text.log")).unwrap();
    let kept = log.lines().filter(|l| l.starts_with('{')).count();
    assert_eq!(markers, kept);
    assert!(!pr.join("seen-text").exists(), "no file per item");
    // The markers stay exactly as seed 000 prescribes: id, seenAt, bodyHash.
    let one = std::fs::read_dir(pr.join("seen"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let v: Value = serde_json::from_slice(&std::fs::read(one).unwrap()).unwrap();
    let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["bodyHash", "id", "seenAt"]);
}

#[test]
fn offline_thread_actions_go_to_the_outbox() {
    let env = TestEnv::new();
    let demo = demo_path();
    let o = run(
        &env,
        &["thread", "reply", &demo, JITTER, "--body", "Thanks, fixed."],
    );
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(stdout(&o).contains("offline"), "{}", stdout(&o));
    let o = run(
        &env,
        &["thread", "resolve", &demo, JITTER, "--format", "json"],
    );
    let v = json(&o);
    assert_eq!(v["action"], "resolve");
    assert_eq!(v["destination"], "outbox");
    let path = support::demo_dir(&env.state()).join("outbox/threads.json");
    let outbox: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let actions = outbox["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 2);
    assert_eq!(actions[0]["kind"], "reply");
    assert_eq!(actions[0]["threadId"], JITTER);
    assert_eq!(actions[0]["body"], "Thanks, fixed.");
    assert_eq!(actions[1]["kind"], "resolve");
}

#[test]
fn resolving_a_resolved_thread_says_so_and_queues_nothing() {
    let env = TestEnv::new();
    let demo = demo_path();
    let outbox = support::demo_dir(&env.state()).join("outbox/threads.json");
    let queued = || -> usize {
        std::fs::read(&outbox)
            .map(|b| {
                let v: Value = serde_json::from_slice(&b).unwrap();
                v["actions"].as_array().unwrap().len()
            })
            .unwrap_or(0)
    };
    // Resolved in the fixture already.
    let o = run(&env, &["thread", "resolve", &demo, "PRRT_kwDOKq3xZs5hQ1dD"]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(stdout(&o).contains("already resolved"), "{}", stdout(&o));
    assert_eq!(queued(), 0);
    // Open in the fixture: the first resolve is queued, the second is not.
    let o = run(&env, &["thread", "resolve", &demo, JITTER]);
    assert!(
        stdout(&o).starts_with("resolved thread"),
        "{}",
        all_output(&o)
    );
    assert_eq!(queued(), 1);
    let o = run(
        &env,
        &["thread", "resolve", &demo, JITTER, "--format", "json"],
    );
    let v = json(&o);
    assert_eq!(v["already"], true);
    assert_eq!(queued(), 1);
    // Unresolving an open thread has nothing to do either.
    let o = run(
        &env,
        &["thread", "unresolve", &demo, "PRRT_kwDOKq3xZs5hQ1aA"],
    );
    assert!(
        stdout(&o).contains("already unresolved"),
        "{}",
        all_output(&o)
    );
    assert_eq!(queued(), 1);
}

#[test]
fn bad_thread_input_exits_2_naming_it_and_writes_nothing() {
    let env = TestEnv::new();
    let demo = demo_path();
    let long = env.root().join("long.txt");
    std::fs::write(&long, "x".repeat(65_537)).unwrap();
    let long = long.display().to_string();
    for (args, says) in [
        (
            vec!["thread", "resolve", &demo, "PRRT_nope"],
            "no review thread `PRRT_nope`",
        ),
        (
            vec!["thread", "resolve", &demo, QUESTION],
            "is a conversation comment",
        ),
        (
            vec![
                "thread",
                "reply",
                &demo,
                "PRRC_kwDOKq3xZs5pX0002",
                "--body",
                "x",
            ],
            "is a comment inside review thread",
        ),
        (
            vec!["thread", "reply", &demo, JITTER, "--body", "  \n"],
            "the reply is empty",
        ),
        (
            vec!["thread", "reply", &demo, JITTER, "--body-file", &long],
            "1 too many",
        ),
        (vec!["thread", "reply", &demo, JITTER], "--body"),
    ] {
        let o = run(&env, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", all_output(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    assert!(!support::demo_dir(&env.state()).join("outbox").exists());
}

fn small_pr() -> FakePr {
    FakePr::generate(3, 2, 3, 1, 1)
}

const T1: &str = "PRRT_kwDOA00001";
const T2: &str = "PRRT_kwDOA00002";

#[tokio::test]
async fn live_edits_and_new_replies_show_as_changes() {
    let (server, fake) = FakeGitHub::start(small_pr()).await;
    let env = TestEnv::new();
    let ref_ = pr_ref(NUMBER);
    let first = json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    assert_eq!(first["counts"]["new"], first["counts"]["total"]);

    fake.edit_body(
        "IC_kwDOA00001",
        "Conversation comment 1\nwith a second line",
    );
    let reply = fake.add_thread_reply(T1, "hubot", "me too");
    // An edited comment inside a thread (not its first).
    fake.edit_body("PRRC_kwDOA0002x0001", "Thread 2 comment 1: never mind");

    let second = json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    assert_eq!(second["counts"]["edited"], 3, "{second:#}");
    let c = item(&second, "IC_kwDOA00001");
    assert_eq!(c["changes"]["previousBody"], "Conversation comment 1");
    let t1 = item(&second, T1);
    assert_eq!(t1["changes"]["newComments"], serde_json::json!([reply]));
    assert_eq!(t1["changes"]["previousBody"], Value::Null);
    let t2 = item(&second, T2);
    assert_eq!(t2["changes"]["newComments"], serde_json::json!([]));
    assert_eq!(
        t2["changes"]["editedComments"],
        serde_json::json!([{"id": "PRRC_kwDOA0002x0001", "previousBody": "Thread 2 comment 1: is this right?"}])
    );
    let third = json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    assert_eq!(third["counts"]["edited"], 0);
}

#[tokio::test]
async fn a_live_reply_is_posted_once_and_recorded_as_seen() {
    let (server, fake) = FakeGitHub::start(small_pr()).await;
    let env = TestEnv::new();
    let ref_ = pr_ref(NUMBER);
    json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    // The first answer is lost after GitHub stored the reply: the retry looks and finds it.
    *fake.state.fail_replies_after_store.lock().unwrap() = 1;
    let o = live(
        &env,
        &server,
        &[
            "thread",
            "reply",
            &ref_,
            T1,
            "--body",
            "Fixed in the next push.",
            "--format",
            "json",
        ],
    );
    let v = json(&o);
    let replies = fake.thread_replies(T1);
    assert_eq!(replies.len(), 1, "never posted twice: {replies:?}");
    assert_eq!(replies[0].login, "monalisa");
    assert_eq!(replies[0].body, "Fixed in the next push.");
    assert_eq!(v["commentId"], Value::String(replies[0].id.clone()));
    assert_eq!(v["recordedSeen"], true);
    let sent = fake.seen().iter().filter(|s| s.kind == "reply").count();
    assert_eq!(sent, 1, "the mutation went out once");

    // The own reply does not re-surface the thread.
    let after = json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    assert_eq!(item(&after, T1)["freshness"], "unchanged", "{after:#}");

    // A reply by someone else afterwards does, and only it is new.
    let theirs = fake.add_thread_reply(T1, "hubot", "thanks!");
    let later = json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    assert_eq!(
        item(&later, T1)["changes"]["newComments"],
        serde_json::json!([theirs])
    );
}

#[tokio::test]
async fn live_resolve_and_unresolve() {
    let (server, fake) = FakeGitHub::start(small_pr()).await;
    let env = TestEnv::new();
    let ref_ = pr_ref(NUMBER);
    assert!(!fake.is_resolved(T1));
    let o = live(&env, &server, &["thread", "resolve", &ref_, T1]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(stdout(&o).starts_with("resolved thread"), "{}", stdout(&o));
    assert!(fake.is_resolved(T1));
    let o = live(&env, &server, &["thread", "unresolve", &ref_, T1]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(!fake.is_resolved(T1));
}

#[tokio::test]
async fn a_locked_pr_gives_githubs_reason_and_exit_1() {
    let (server, fake) = FakeGitHub::start(small_pr()).await;
    let env = TestEnv::new();
    *fake.state.locked.lock().unwrap() = true;
    let o = live(
        &env,
        &server,
        &["thread", "reply", &pr_ref(NUMBER), T1, "--body", "hello"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", all_output(&o));
    assert!(
        stderr(&o).contains("Unable to create comment because issue is locked."),
        "{}",
        stderr(&o)
    );
    assert!(fake.thread_replies(T1).is_empty());
    // Bad input live: named, exit 2, nothing sent.
    let o = live(
        &env,
        &server,
        &[
            "thread",
            "reply",
            &pr_ref(NUMBER),
            "PRRT_missing",
            "--body",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", all_output(&o));
    assert!(stderr(&o).contains("PRRT_missing"));
    assert_eq!(
        fake.seen().iter().filter(|s| s.kind == "reply").count(),
        1,
        "only the locked attempt was sent"
    );
    let _ = pr_state_dir(Path::new("."));
}

/// The console on a live PR (the loopback GitHub): a reply whose first answer is lost goes out
/// once, and is recorded as seen.
#[test]
fn a_console_reply_on_a_live_pr_goes_out_once_and_is_recorded_seen() {
    use pr_shepherd::ledger::Ledger;
    use pr_shepherd::pr::{Item, PrCoords};

    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(small_pr()));
    let client = || {
        let opts = support::github_client::quick_options();
        support::github_client::loopback_github(&server.uri(), TOKEN, opts).expect("client")
    };
    let coords = PrCoords {
        host: None,
        owner: support::fake_github::OWNER.into(),
        repo: support::fake_github::REPO.into(),
        number: NUMBER,
    };
    let snapshot = rt.block_on(client().fetch_snapshot(&coords)).unwrap();
    let Some(Item::Thread(before)) = snapshot.find(T1).cloned() else {
        panic!("no thread {T1}");
    };
    drop(rt);
    let dir = tempfile::tempdir().unwrap();
    let mut h = live_harness(snapshot, dir.path(), client(), 120, 40);
    h.press("g");
    for _ in 0..h.app.row_count() {
        if h.app.selected_item().is_some_and(|i| i.id() == T1) {
            break;
        }
        h.press("j");
    }
    // Shown, so seen as it stands; then the reply.
    h.press("c");
    h.type_text("Done in the next push.");
    *fake.state.fail_replies_after_store.lock().unwrap() = 1;
    h.press("ctrl-s");
    assert!(
        h.screen()
            .contains("GitHub, as the credentials' own account")
    );
    h.press("y");
    let replies = fake.thread_replies(T1);
    assert_eq!(replies.len(), 1, "posted once: {replies:?}");
    assert!(
        h.app.notice().unwrap_or("").starts_with("replied"),
        "{:?}",
        h.app.notice()
    );
    // The thread's marker now covers the reply.
    let mut after = before.clone();
    after.comments.push(pr_shepherd::pr::Comment {
        id: replies[0].id.clone(),
        author: before.comments[0].author.clone(),
        created_at: before.comments[0].created_at,
        last_edited_at: None,
        url: String::new(),
        body: replies[0].body.clone(),
        minimized: false,
        minimized_reason: None,
    });
    after.comments.last_mut().unwrap().author.login = "monalisa".into();
    let marker = Ledger::new(dir.path())
        .load_marker(&coords, T1)
        .unwrap()
        .unwrap();
    assert_eq!(marker.body_hash, Item::Thread(after).body_hash());
}

/// A folder where the kept texts' log belongs (fails for root too, unlike a read-only mode).
fn block_kept_texts(pr_dir: &Path) {
    let kept = pr_dir.join("seen-text.log");
    if kept.is_file() {
        std::fs::remove_file(&kept).unwrap();
    }
    std::fs::create_dir_all(kept.join("not a file")).unwrap();
}

/// Failed before: a reply posted whose seen marker could not be recorded was a warning and exit
/// 0. The report is still printed (the reply went out once); the failure is named; exit 1.
#[tokio::test]
async fn a_posted_reply_that_cannot_be_recorded_is_not_success() {
    let (server, fake) = FakeGitHub::start(small_pr()).await;
    let env = TestEnv::new();
    let ref_ = pr_ref(NUMBER);
    json(&live(&env, &server, &["items", &ref_, "--format", "json"]));
    block_kept_texts(&pr_state_dir(&env.state()));
    let o = live(
        &env,
        &server,
        &[
            "thread", "reply", &ref_, T1, "--body", "Done.", "--format", "json",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["recordedSeen"], false);
    assert!(err.contains("not recorded as seen"), "{err}");
    assert!(err.contains("seen-text"), "names the file: {err}");
    assert_eq!(fake.thread_replies(T1).len(), 1);
}

/// Failed before: `items` whose kept texts could not be saved warned and exited 0 (the markers
/// were saved, but a later edit could show no diff). The listing is printed; exit 1.
#[test]
fn items_whose_texts_cannot_be_kept_is_not_success() {
    let env = TestEnv::new();
    block_kept_texts(&support::demo_dir(&env.state()));
    let o = run(&env, &["items", &demo_path()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(stdout(&o).contains("## New"), "the listing is printed");
    assert!(err.contains("texts of seen items were not kept"), "{err}");
    assert!(err.contains("seen-text"), "{err}");
}
