//! A plain conversation comment written on the PR screen (`w`): the house editor, a confirmation
//! naming the PR and where it goes, then a new comment — live through GitHub's issue comment
//! endpoint (and shown by the refetch), offline into the PR's comment outbox. Never the
//! Shepherd comment, never an edit.

use crate::support;
use support::console::live_harness;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::PrCoords;
use pr_shepherd::tui::app::{InputMode, PrAsk};
use support::console::{coords, open};
use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO};
use support::webhook::TOKEN;

const TEXT: &str = "Thanks, merging after CI.";

/// Failed before: there was no way to write a plain comment on the PR from the console.
#[test]
fn a_conversation_comment_is_written_confirmed_and_held_in_the_outbox_offline() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("w");
    assert_eq!(*h.app.mode(), InputMode::Reply, "the composer opens");
    assert!(
        h.screen().contains("Comment on the conversation"),
        "{}",
        h.screen()
    );
    // Empty is refused before any question.
    h.press("ctrl-s");
    assert!(
        matches!(h.app.pr_asked(), Some(PrAsk::Refused(why)) if why.contains("empty")),
        "{:?}",
        h.app.mode()
    );
    h.press("n w");
    h.type_text(TEXT);
    h.press("ctrl-s");
    match h.app.pr_asked() {
        Some(PrAsk::Comment(ask)) => {
            assert_eq!(ask.body, TEXT);
            assert!(ask.destination.contains("outbox"), "{ask:?}");
        }
        other => panic!("no confirmation: {other:?}"),
    }
    assert!(
        h.screen()
            .contains("Post this comment on the conversation?"),
        "{}",
        h.screen()
    );
    // Not confirmed: nothing is written and the comment is kept.
    h.press("n");
    let pr = coords(&h);
    assert!(
        Ledger::new(dir.path())
            .comment_outbox(&pr)
            .unwrap()
            .is_empty()
    );
    h.press("w ctrl-s y");
    let held = Ledger::new(dir.path()).comment_outbox(&pr).unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0].body["body"], TEXT);
    assert_eq!(held[0].method, "POST");
    assert!(
        held[0]
            .path
            .ends_with(&format!("/issues/{}/comments", pr.number))
    );
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.starts_with("commented: the outbox")),
        "{:?}",
        h.app.notice()
    );
    // A second one is a second comment, never an edit of the first.
    h.press("w");
    h.type_text("One more thing.");
    h.press("ctrl-s y");
    assert_eq!(
        Ledger::new(dir.path()).comment_outbox(&pr).unwrap().len(),
        2
    );
}

/// Live: posted once through the issue comment endpoint as the credentials' account, and the
/// refetch after it shows it on the PR screen.
#[test]
fn a_conversation_comment_is_posted_live_and_the_refetch_shows_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::with_labels(&[])));
    let gh = || {
        support::github_client::loopback_github(
            &server.uri(),
            TOKEN,
            support::github_client::quick_options(),
        )
        .expect("client")
    };
    let pr = PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number: NUMBER,
    };
    let snapshot = rt.block_on(gh().fetch_snapshot(&pr)).unwrap();
    drop(rt);
    let dir = tempfile::tempdir().unwrap();
    let mut h = live_harness(snapshot, dir.path(), gh(), 120, 40);
    h.draw();
    let before = fake.extra_comments().len();
    h.press("w");
    h.type_text(TEXT);
    h.press("ctrl-s");
    assert!(
        matches!(h.app.pr_asked(), Some(PrAsk::Comment(a)) if a.destination.contains("GitHub")),
        "{:?}",
        h.app.mode()
    );
    h.press("y");
    let extra = fake.extra_comments();
    assert_eq!(extra.len(), before + 1, "one comment created");
    let (_, c) = extra.last().unwrap();
    assert_eq!((c.login.as_str(), c.body.as_str()), ("monalisa", TEXT));
    assert!(
        h.app.notice().is_some_and(|n| n.starts_with("commented: ")),
        "{:?}",
        h.app.notice()
    );
    // The refetch after the write shows it.
    h.press("G");
    assert!(h.screen().contains("Thanks, merging"), "{}", h.screen());
}

/// A comment that reads like the Shepherd review is refused: the Shepherd post would take it
/// for its own and overwrite it.
#[test]
fn a_comment_that_looks_like_the_shepherd_review_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("w");
    h.type_text("## PR Shepherd Review");
    h.press("ctrl-s");
    assert!(
        matches!(h.app.pr_asked(), Some(PrAsk::Refused(why)) if why.contains("Shepherd review")),
        "{:?}",
        h.app.mode()
    );
    assert!(
        Ledger::new(dir.path())
            .comment_outbox(&coords(&h))
            .unwrap()
            .is_empty()
    );
}

/// The comment is kept on disk as it is typed until it is posted: quitting names it, kept.
#[test]
fn quitting_names_a_conversation_comment_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("w");
    h.type_text(TEXT);
    h.press("Esc Q");
    let pr = coords(&h);
    match h.app.mode() {
        InputMode::ConfirmQuit { lost } => assert!(
            lost.iter().any(|l| l
                == &format!(
                    "the conversation comment on {pr} stays unposted (kept for next time)"
                )),
            "{lost:?}"
        ),
        other => panic!("no quit question: {other:?}"),
    }
    h.press("n");
    assert!(!h.app.quitting());
}
