//! A partial GitHub answer — `data` with a `null` node and `errors` beside it — is never read as
//! "not there": every check that decides whether something was posted already (a reply after a
//! lost answer, a pending review's submission, the findings already inline, the earlier
//! Shepherd review) stops with an error naming the partial answer, exit 1, and sends nothing.
//! Reading still shows what arrived, with a note that the answer was partial.

use crate::support;
use support::console::live_harness;

use serde_json::json;
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref};
use support::llm::StandInLlm;
use support::webhook::TOKEN;
use support::{Live, live_run, stderr, stdout, stdout_json};

/// GitHub's reason for the `null` node, as the fake gives it beside the data.
const WHY: &str = "Resource not accessible by integration";

fn says_partial(o: &std::process::Output) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("GitHub's answer for"), "{e}");
    assert!(e.contains("was partial"), "{e}");
    assert!(e.contains(WHY), "the errors' messages are carried: {e}");
    assert!(e.contains("nothing was sent"), "{e}");
}

/// `kind` requests the fake saw (`create-comment`, `update-comment`, `reply`, …).
fn count(fake: &FakeGitHub, kind: &str) -> usize {
    fake.seen().iter().filter(|s| s.kind == kind).count()
}

async fn run(live: &Live, args: &[&str]) -> std::process::Output {
    if args.first() == Some(&"review") {
        return live_run(&live.env, &live.gh.uri(), TOKEN, &live.llm, args).await;
    }
    live.env
        .bin_async()
        .env("GH_TOKEN", TOKEN)
        .env("GITHUB_API_URL", live.gh.uri())
        .args(args)
        .output()
        .await
        .expect("run pr-shepherd")
}

const THREAD: &str = "PRRT_kwDOA00001";
/// The id the fake gives the first reply it stores.
const FIRST_REPLY: &str = "PRRC_kwDOR00000001";

/// Failed before: the retry's look read the thread from a partial answer in which the stored
/// reply was `null`, took it for "not there", and sent the reply again (two replies).
#[tokio::test]
async fn a_reply_whose_look_comes_back_partial_is_not_sent_again() {
    let live = Live::start(FakePr::generate(3, 2, 1, 1, 1)).await;
    let pr = pr_ref(NUMBER);
    let reply = ["thread", "reply", &pr, THREAD, "--body", "Fixed."];
    // GitHub stores the reply and its answer is lost; every later look gets it as `null`.
    *live.fake.state.fail_replies_after_store.lock().unwrap() = 1;
    *live.fake.state.null_nodes.lock().unwrap() = vec![FIRST_REPLY.to_owned()];
    let out = run(&live, &reply).await;
    says_partial(&out);
    assert!(stderr(&out).contains("whether the reply was posted already"));
    assert_eq!(count(&live.fake, "reply"), 1, "the mutation went out once");
    // The reply's intent stays: the next run looks first, and still sends nothing.
    let again = run(&live, &reply).await;
    says_partial(&again);
    assert_eq!(count(&live.fake, "reply"), 1);
    // Once GitHub answers whole, the earlier reply is found, not sent.
    live.fake.state.null_nodes.lock().unwrap().clear();
    let mut args = reply.to_vec();
    args.extend(["--format", "json"]);
    let whole = run(&live, &args).await;
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert_eq!(stdout_json(&whole)["postedEarlier"], true);
    assert_eq!(live.fake.thread_replies(THREAD).len(), 1);
    assert_eq!(count(&live.fake, "reply"), 1);
}

/// Failed before: the submission went out although the PR was read from a partial answer.
#[tokio::test]
async fn a_pending_review_is_not_submitted_from_a_partial_answer() {
    let live = Live::start(FakePr::with_labels(&[])).await;
    let pr = pr_ref(NUMBER);
    let own = live
        .fake
        .add_comment("monalisa", "MEMBER", "Looking.", "2026-12-01T10:00:00Z");
    let args = [
        "pending",
        "add",
        &pr,
        "--path",
        "src/mod1.rs",
        "--line",
        "3",
        "--body",
        "Why twice?",
    ];
    let out = run(&live, &args).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    *live.fake.state.null_nodes.lock().unwrap() = vec![format!("IC_kwDOX{own:08}")];
    let out = run(&live, &["pending", "submit", &pr, "--event", "comment"]).await;
    says_partial(&out);
    assert!(stderr(&out).contains("whether this review is on the PR already"));
    assert!(live.fake.reviews().is_empty(), "nothing was sent");
    // The pending review is kept, whole.
    let list = run(&live, &["pending", "list", &pr, "--format", "json"]).await;
    assert_eq!(
        stdout_json(&list)["comments"].as_array().map(Vec::len),
        Some(1)
    );
    // Answered whole, it goes.
    live.fake.state.null_nodes.lock().unwrap().clear();
    let out = run(&live, &["pending", "submit", &pr, "--event", "comment"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(live.fake.reviews().len(), 1);
}

/// Failed before: the own inline comments came back as `null` threads, so every finding on a
/// line was posted inline again in a second review (and the summary updated from a review that
/// had lost its history).
#[tokio::test]
async fn findings_already_inline_are_not_posted_again_from_a_partial_answer() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(vec![
        json!({"severity": "important", "file": "src/mod1.rs", "line": 3, "message": "more() is called twice"}),
    ])
    .await;
    let live = Live {
        gh,
        fake,
        llm,
        env: TestEnv::new(),
    };
    let pr = pr_ref(NUMBER);
    let args = ["review", &pr, "--post", "--inline", "--format", "json"];
    let first = run(&live, &args).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let reviews = live.fake.reviews();
    assert_eq!(reviews.len(), 1);
    let threads: Vec<String> = reviews[0]
        .comments
        .iter()
        .map(|c| format!("PRRT_posted{}", c.id))
        .collect();
    assert!(!threads.is_empty());
    *live.fake.state.null_nodes.lock().unwrap() = threads;
    let (created, updated) = (
        count(&live.fake, "create-comment"),
        count(&live.fake, "update-comment"),
    );
    let second = run(&live, &args).await;
    says_partial(&second);
    assert_eq!(live.fake.reviews().len(), 1, "no second inline review");
    assert_eq!(count(&live.fake, "create-comment"), created);
    assert_eq!(count(&live.fake, "update-comment"), updated);
}

/// Failed before: the earlier Shepherd review came back as a `null` comment, so the review was
/// composed as the first one (every finding new, its history lost) and replaced the earlier one.
#[tokio::test]
async fn the_summary_is_not_upserted_from_a_partial_answer() {
    let live = Live::start(FakePr::with_labels(&[])).await;
    let pr = pr_ref(NUMBER);
    let args = ["review", &pr, "--post", "--format", "json"];
    let first = run(&live, &args).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let own = live.fake.own_reviews();
    assert_eq!(own.len(), 1);
    let body = own[0].1.clone();
    *live.fake.state.null_nodes.lock().unwrap() = vec![format!("IC_kwDOX{:08}", own[0].0)];
    let (created, updated) = (
        count(&live.fake, "create-comment"),
        count(&live.fake, "update-comment"),
    );
    let second = run(&live, &args).await;
    says_partial(&second);
    assert!(
        stderr(&second).contains("whether there is an earlier Shepherd review"),
        "{}",
        stderr(&second)
    );
    assert_eq!(count(&live.fake, "create-comment"), created);
    assert_eq!(count(&live.fake, "update-comment"), updated);
    assert_eq!(
        live.fake.own_reviews()[0].1,
        body,
        "the earlier review is as it was"
    );
    // The review itself is still printed, for reading.
    assert!(
        stdout(&second).contains("PR Shepherd"),
        "{}",
        stdout(&second)
    );
}

/// Reading shows what arrived, and says the answer was partial.
#[tokio::test]
async fn items_show_what_arrived_with_a_note_that_the_answer_was_partial() {
    let live = Live::start(FakePr::generate(3, 2, 3, 1, 1)).await;
    let pr = pr_ref(NUMBER);
    *live.fake.state.null_nodes.lock().unwrap() = vec!["IC_kwDOA00001".to_owned()];
    let out = run(&live, &["items", &pr]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains(WHY), "{all}");
    assert!(all.contains("Conversation comment 2"), "{all}");
    assert!(!all.contains("Conversation comment 1\n"), "{all}");
}

/// The console's submission reads the PR again before it sends: failed before, a partial answer
/// there was taken as whole and the review went out.
#[test]
fn the_console_does_not_submit_a_pending_review_from_a_partial_answer() {
    use pr_shepherd::code::Side;
    use pr_shepherd::code::pending::{CommentKind, PendingReview};
    use pr_shepherd::ledger::Ledger;
    use pr_shepherd::tui::app::PendingAsk;

    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::with_labels(&[])));
    let own = fake.add_comment("monalisa", "MEMBER", "Looking.", "2026-12-01T10:00:00Z");
    let client = || {
        support::github_client::loopback_github(
            &server.uri(),
            TOKEN,
            support::github_client::quick_options(),
        )
        .expect("client")
    };
    let coords = pr_shepherd::pr::PrCoords {
        host: None,
        owner: support::fake_github::OWNER.into(),
        repo: support::fake_github::REPO.into(),
        number: NUMBER,
    };
    let snapshot = rt.block_on(client().fetch_snapshot(&coords)).unwrap();
    drop(rt);
    let dir = tempfile::tempdir().unwrap();
    let mut pending = PendingReview::default();
    pending
        .add(
            "src/mod1.rs",
            Side::Right,
            None,
            3,
            "Why twice?",
            CommentKind::Comment,
            None,
        )
        .unwrap();
    Ledger::new(dir.path())
        .save_pending(&coords, &pending)
        .unwrap();
    let mut h = live_harness(snapshot, dir.path(), client(), 120, 40);
    h.draw();
    *fake.state.null_nodes.lock().unwrap() = vec![format!("IC_kwDOX{own:08}")];
    // `X` opens the review body's editor; `Esc` asks.
    h.press("P X Esc");
    assert!(
        matches!(h.app.pending_asked(), Some(PendingAsk::Submit(_))),
        "{:?}",
        h.app.mode()
    );
    h.press("y");
    assert!(fake.reviews().is_empty(), "nothing was sent");
    let said = h.app.notice().unwrap_or("").to_owned();
    assert!(said.contains("was partial") && said.contains(WHY), "{said}");
    assert_eq!(
        Ledger::new(dir.path())
            .load_pending(&coords)
            .unwrap()
            .comments
            .len(),
        1,
        "the pending review is kept"
    );
}

/// The console's post dialog for a review composed from a partial answer is refused, saying
/// why: the earlier Shepherd review may be what is missing. Failed before: the dialog offered
/// the post.
#[test]
fn the_console_refuses_to_post_a_review_composed_from_a_partial_answer() {
    use pr_shepherd::ledger::Ledger;
    use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
    use pr_shepherd::tui::app::PrAsk;
    use pr_shepherd::tui::harness::Harness;
    use pr_shepherd::tui::theme::Theme;
    use pr_shepherd::tui::{Live, Remote};
    use std::sync::Arc;

    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::with_labels(&[])));
    drop(rt);
    let f = Fixture::parse(DEMO_FIXTURE, std::path::Path::new("demo.json")).unwrap();
    let mut snapshot = f.snapshot_at(0).unwrap();
    snapshot.incomplete.push(format!(
        "GitHub answered with errors: {WHY} (at repository.pullRequest.comments.nodes.3)"
    ));
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::new(
        snapshot,
        Some(f),
        Ledger::new(dir.path()),
        Theme::default_theme(),
        120,
        40,
    )
    .unwrap();
    let gh = support::github_client::loopback_github(
        &server.uri(),
        TOKEN,
        support::github_client::quick_options(),
    )
    .expect("client");
    h.set_remote(Remote::GitHub(Live {
        gh: Arc::new(gh),
        own_login: "monalisa".into(),
    }));
    h.draw();
    h.press("r");
    h.press("p");
    let Some(PrAsk::Refused(why)) = h.app.pr_asked() else {
        panic!("no refusal: {:?}", h.app.mode())
    };
    assert!(why.contains("was partial") && why.contains(WHY), "{why}");
    assert!(
        why.contains("whether there is an earlier Shepherd review"),
        "{why}"
    );
    h.press("y");
    assert_eq!(
        count(&fake, "create-comment") + count(&fake, "update-comment"),
        0
    );
}

/// `watch --post` does not review (nor spend the model's time) a PR GitHub answers only in part,
/// says so, and asks again next tick. Failed before: each tick ran the review on the model and
/// posted it (with the summary guard alone: ran it, then refused to post).
#[tokio::test]
async fn watch_does_not_review_a_pr_answered_in_part() {
    let (gh, fake) = FakeGitHub::start(FakePr {
        files: 2,
        ..FakePr::generate(2, 2, 3, 1, 2)
    })
    .await;
    fake.set_author("octocat", "MEMBER");
    *fake.state.null_nodes.lock().unwrap() = vec!["IC_kwDOA00001".to_owned()];
    let llm = StandInLlm::answering(vec![support::llm::magic_number()]).await;
    let env = TestEnv::new();
    let out = env
        .bin_async()
        .env("GH_TOKEN", TOKEN)
        .env("GITHUB_API_URL", gh.uri())
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args([
            "watch",
            &format!(
                "{}/{}",
                support::fake_github::OWNER,
                support::fake_github::REPO
            ),
        ])
        .args(["--interval", "0s", "--ticks", "2", "--post"])
        .args(llm.args())
        .output()
        .await
        .unwrap();
    let e = stderr(&out);
    assert_eq!(e.matches("was partial").count(), 2, "{e}");
    assert!(e.contains("not reviewed this tick"), "{e}");
    assert!(llm.requests().await.is_empty(), "the model was not asked");
    assert!(fake.own_reviews().is_empty());
    assert_eq!(count(&fake, "create-comment"), 0);
}
