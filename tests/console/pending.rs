//! The pending review in the console, live against the loopback GitHub that checks GitHub's
//! rules for review comments: the composer driven with a `LineSelection` built from the PR's
//! patch (as the diff view hands it), findings' drafts kept, edited and dropped one key each,
//! one review submitted (also after a lost answer), and the approve confirmation.

use crate::support;
use support::console::live_harness;

use pr_shepherd::code::pending::{CommentKind, DraftState};
use pr_shepherd::code::{LineSelection, parse};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{PrCoords, Snapshot};
use pr_shepherd::review::ReviewRun;
use pr_shepherd::source::github::GitHub;
use pr_shepherd::tui::app::{InputMode, PendingAsk, PendingScreen, SubmitAs, compose_line_comment};
use pr_shepherd::tui::harness::Harness;
use serde_json::json;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO};
use support::webhook::TOKEN;

fn coords() -> PrCoords {
    PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number: NUMBER,
    }
}

fn client(uri: &str) -> GitHub {
    support::github_client::loopback_github(uri, TOKEN, support::github_client::quick_options())
        .expect("client")
}

/// A stored review run with three findings on lines of `src/mod1.rs`'s diff (right side 2, 3, 4).
fn run_with_three_findings(head: &str) -> ReviewRun {
    let finding = |line: u32, message: &str| {
        json!({
            "id": pr_shepherd::review::findings::finding_id(
                pr_shepherd::review::Aspect::Correctness, "src/mod1.rs", message),
            "aspect": "correctness", "severity": "important", "file": "src/mod1.rs",
            "line": line, "message": message, "suggestedFix": "check it",
        })
    };
    serde_json::from_value(json!({
        "runId": "20261201T120000Z-test",
        "pr": format!("{OWNER}/{REPO}#{NUMBER}"),
        "headSha": head,
        "backend": "replay",
        "model": "recorded",
        "startedAt": "2026-12-01T12:00:00Z",
        "elapsedMs": 1,
        "cancelled": false,
        "aspects": [{
            "aspect": "correctness", "state": "done", "elapsedMs": 1,
            "findings": [
                finding(2, "new() replaces old() without a test"),
                finding(3, "more() is called on every path"),
                finding(4, "again() repeats more()"),
            ],
        }],
    }))
    .expect("a run")
}

/// The selection of patch lines `range` of `path` in `snapshot`, as the diff view makes it.
fn selection(
    snapshot: &Snapshot,
    path: &str,
    range: std::ops::RangeInclusive<usize>,
) -> LineSelection {
    let file = snapshot
        .pr
        .files
        .iter()
        .find(|f| f.path == path)
        .expect("the file");
    let patch = parse(file.patch.as_deref().expect("a patch"));
    LineSelection::of(path, &patch, range).expect("a selection")
}

/// A console on the fake's PR, live, with a stored run; the pending list opened with `P`.
fn console(uri: &str, dir: &std::path::Path) -> (Harness, Snapshot) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let snapshot = rt.block_on(client(uri).fetch_snapshot(&coords())).unwrap();
    drop(rt);
    let ledger = Ledger::new(dir);
    ledger
        .save_run(&coords(), &run_with_three_findings(&snapshot.pr.head_sha))
        .unwrap();
    let mut h = live_harness(snapshot.clone(), dir, client(uri), 120, 40);
    h.draw();
    (h, snapshot)
}

#[test]
fn a_console_pending_review_is_submitted_as_one_review_with_its_four_comments_even_after_a_timeout()
{
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::with_labels(&[])));
    drop(rt);
    let dir = tempfile::tempdir().unwrap();
    let (mut h, snapshot) = console(&server.uri(), dir.path());

    // One key from the PR screen: the findings on diff lines are drafts, nothing decided yet.
    h.press("P");
    assert!(h.app.top_is::<PendingScreen>(), "{:?}", h.app.stack());
    let r = h.app.pending_review().expect("read");
    assert_eq!(r.comments.len(), 3);
    assert!(r.comments.iter().all(|c| c.state == DraftState::Proposed));
    assert!(h.screen().contains("Pending review"), "{}", h.screen());

    // Keep two, drop one (one key each), then edit the first kept one.
    h.press("g Enter j Enter j d g e");
    assert_eq!(*h.app.mode(), InputMode::Edit);
    h.type_text(" Really.");
    h.press("Esc");
    let r = h.app.pending_review().unwrap();
    let states: Vec<DraftState> = r.comments.iter().map(|c| c.state).collect();
    assert_eq!(
        states,
        [DraftState::Edited, DraftState::Kept, DraftState::Dropped]
    );
    assert!(
        r.comments[0].body.contains("Really."),
        "{}",
        r.comments[0].body
    );

    // The composer, opened as the diff view opens it: a comment on `+ new();` of src/mod0.rs…
    let one = selection(&snapshot, "src/mod0.rs", 2..=2);
    assert_eq!(one.end.line, 2);
    h.app
        .open_screen(compose_line_comment(&snapshot, one, false));
    h.draw();
    assert_eq!(
        *h.app.mode(),
        InputMode::Edit,
        "the editor is open on the line"
    );
    h.type_text("Why new()?");
    h.press("Esc");
    // …and a suggestion on a three-line range, prefilled with those lines.
    let three = selection(&snapshot, "src/mod0.rs", 2..=4);
    assert_eq!(three.start.map(|a| a.line), Some(2));
    h.app
        .open_screen(compose_line_comment(&snapshot, three, true));
    h.draw();
    let prefill = h.app.pending().and_then(|p| p.editing()).map(|e| e.text());
    assert_eq!(
        prefill.as_deref(),
        Some("```suggestion\n    new();\n    more();\n    again();\n```")
    );
    h.press("Esc");
    let r = h.app.pending_review().unwrap();
    assert_eq!(r.to_post().count(), 4, "{r:?}");
    assert_eq!(
        r.comments
            .iter()
            .filter(|c| c.kind == CommentKind::Suggestion)
            .count(),
        1
    );

    // Submit requesting changes; GitHub stores it but the answer is lost (a timeout): the retry
    // finds it by its key and sends nothing again.
    fake.fail_reviews_after_store(1);
    h.press("X Esc");
    match h.app.pending_asked() {
        Some(PendingAsk::Submit(ask)) => {
            assert_eq!(ask.how, SubmitAs::RequestChanges);
            assert_eq!(ask.comments, 4);
        }
        other => panic!("no confirmation: {other:?}"),
    }
    assert!(h.screen().contains("Request changes?"), "{}", h.screen());
    h.press("y");
    let reviews = fake.reviews();
    assert_eq!(reviews.len(), 1, "exactly one review");
    assert_eq!(reviews[0].event, "REQUEST_CHANGES");
    assert_eq!(reviews[0].comments.len(), 4, "{:?}", reviews[0].comments);
    let range = reviews[0]
        .comments
        .iter()
        .find(|c| c.start_line.is_some())
        .expect("the suggestion's range");
    assert_eq!((range.start_line, range.line), (Some(2), 4));
    assert_eq!(
        reviews[0]
            .comments
            .iter()
            .filter(|c| c.body.contains("<!-- pr-shepherd:finding PS-"))
            .count(),
        2,
        "the two kept findings carry their ids"
    );
    // The retry found the review the lost answer had made: it says so, not "submitted".
    assert!(
        h.app.notice().unwrap_or("").starts_with(
            "found, not sent again (request changes, 4 comments; made by an earlier try)"
        ),
        "{:?}",
        h.app.notice()
    );
    assert!(
        Ledger::new(dir.path())
            .load_pending(&coords())
            .unwrap()
            .comments
            .is_empty(),
        "the pending review is gone once submitted"
    );
}

#[test]
fn approving_asks_with_a_confirmation_that_names_it_and_only_y_approves() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::with_labels(&[])));
    drop(rt);
    let dir = tempfile::tempdir().unwrap();
    let (mut h, _) = console(&server.uri(), dir.path());
    h.press("P g Enter");
    h.press("ctrl-a Esc");
    assert!(
        matches!(h.app.pending_asked(), Some(PendingAsk::Submit(a)) if a.how == SubmitAs::Approve),
        "{:?}",
        h.app.mode()
    );
    let screen = h.screen();
    assert!(screen.contains("APPROVE this pull request?"), "{screen}");
    assert!(screen.contains("y approves the PR"), "{screen}");
    // The two drafts not kept are named: left out, or decided first. Any other key goes back
    // to decide them: nothing is sent.
    assert!(
        screen.contains("Undecided: 2 drafts from findings"),
        "{screen}"
    );
    h.press("n");
    assert!(fake.reviews().is_empty());
    assert_eq!(
        h.app.notice(),
        Some("not submitted: 2 drafts from findings still to decide (keep, edit or drop each)")
    );
    h.press("ctrl-a Esc y");
    let reviews = fake.reviews();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].event, "APPROVE");
}

/// An empty pending review names the keys that add to it as the keymap binds them: a rebound
/// key is the one the hint names.
#[test]
fn the_empty_pending_review_names_its_keys_as_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::demo(dir.path(), 80, 24).unwrap();
    h.draw();
    h.press("P");
    let s = h.screen();
    assert!(
        s.contains("In a file's diff (F, Enter): c comments on the line,"),
        "{s}"
    );
    assert!(s.contains("V selects lines, S suggests."), "{s}");
    h.press("q");
    let loaded = pr_shepherd::config::Config::parse(
        "[keys]\nselect_lines = \"ctrl-v\"\nsuggest = \"ctrl-s\"\n",
        std::path::Path::new("c.toml"),
    )
    .unwrap();
    h.keymap = pr_shepherd::tui::keymap::Keymap::new(&loaded.keys);
    h.press("P");
    let s = h.screen();
    assert!(s.contains("Ctrl-v selects lines, Ctrl-s suggests"), "{s}");
}

/// A pending review written at one head, opened after a force-push: the comment whose lines
/// moved says where from and to, the one whose lines changed shows both texts and is posted
/// only once kept (one key); the confirmation names the moved one.
#[test]
fn after_a_force_push_the_pending_screen_shows_moved_and_outdated_comments_and_posts_them_only_when_said()
 {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::with_labels(&[])));
    drop(rt);
    let dir = tempfile::tempdir().unwrap();
    let (mut h, snapshot) = console(&server.uri(), dir.path());
    h.press("P");
    for (path, line, text) in [
        ("src/mod0.rs", 3, "Why more()?"),
        ("src/mod1.rs", 4, "again() again?"),
    ] {
        let sel = selection(&snapshot, path, line..=line);
        h.app
            .open_screen(compose_line_comment(&snapshot, sel, false));
        h.draw();
        h.type_text(text);
        h.press("Esc");
    }
    assert_eq!(h.app.pending_review().map(|r| r.to_post().count()), Some(2));

    // The push: src/mod0.rs's change moves 8 lines down, src/mod1.rs's last line changes.
    fake.force_push(
        "0123456789abcdef0123456789abcdef01234567",
        &[
            (
                "src/mod0.rs",
                "@@ -5,2 +9,4 @@\n fn f0() {\n-    old();\n+    new();\n+    more();\n+    again();\n }",
            ),
            (
                "src/mod1.rs",
                "@@ -1,2 +1,4 @@\n fn f1() {\n-    old();\n+    new();\n+    more();\n+    AGAIN();\n }",
            ),
        ],
    );
    let (mut h, _) = console(&server.uri(), dir.path());
    h.press("P");
    let r = h.app.pending_review().expect("read").clone();
    let own: Vec<_> = r
        .comments
        .iter()
        .filter(|c| c.kind == CommentKind::Comment)
        .collect();
    assert_eq!((own[0].line, own[1].line), (11, 4));
    let screen = h.screen();
    assert!(screen.contains("moved src/mod0.rs:11"), "{screen}");
    assert!(screen.contains("outdated src/mod1.rs:4"), "{screen}");
    // Submitting is refused while the outdated comment is not kept (before the body's editor).
    h.press("p");
    assert!(
        matches!(h.app.pending_asked(), Some(PendingAsk::Refused(why)) if why.contains("outdated") && why.contains(&format!("{} at src/mod1.rs:4", own[1].id))),
        "{:?}",
        h.app.mode()
    );
    h.press("n");
    // Its detail shows what it was written on and what is there now.
    h.press("G");
    let screen = h.screen();
    assert!(
        screen.contains("was: +    again();") && screen.contains("now: +    AGAIN();"),
        "{screen}"
    );
    h.press("Enter");
    assert!(
        h.app
            .pending_review()
            .and_then(|r| r.get(&own[1].id))
            .and_then(|c| c.followed.as_ref())
            .is_some_and(|f| f.kept)
    );
    h.press("p Esc");
    match h.app.pending_asked() {
        Some(PendingAsk::Submit(ask)) => {
            assert!(
                ask.moved
                    .contains(&format!("{} moved src/mod0.rs:3 → :11", own[0].id)),
                "{:?}",
                ask.moved
            );
        }
        other => panic!("no confirmation: {other:?}"),
    }
    assert!(
        h.screen().contains("moved src/mod0.rs:3 → :11"),
        "{}",
        h.screen()
    );
    h.press("y");
    let reviews = fake.reviews();
    assert_eq!(reviews.len(), 1);
    let lines: Vec<(String, u32)> = reviews[0]
        .comments
        .iter()
        .map(|c| (c.path.clone(), c.line))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("src/mod0.rs".to_owned(), 11),
            ("src/mod1.rs".to_owned(), 4)
        ]
    );
    // The drafts nobody decided on stay pending.
    let left = Ledger::new(dir.path()).load_pending(&coords()).unwrap();
    assert!(
        !left.comments.is_empty() && left.comments.iter().all(|c| c.kind == CommentKind::Finding),
        "{left:?}"
    );
}

/// The pending list gives each column its own width with a space between (never
/// `suggestionkept`), and lists a suggestion by the first line it changes, never by its fence.
#[test]
fn the_pending_list_keeps_its_columns_apart_and_lists_a_suggestion_by_its_changed_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::demo(dir.path(), 80, 24).unwrap();
    h.draw();
    let pr = support::console::coords(&h);
    let head = h.app.pr_meta().unwrap().head_sha.clone();
    let review: pr_shepherd::code::pending::PendingReview = serde_json::from_value(json!({
        "headSha": head,
        "body": "",
        "lastId": 2,
        "comments": [
            {
                "id": "c1", "path": "src/client/mod.rs", "side": "RIGHT", "line": 2,
                "body": "Is retry public on purpose?", "kind": "comment", "state": "kept"
            },
            {
                "id": "c2", "path": "src/client/mod.rs", "side": "RIGHT", "startLine": 5,
                "line": 7, "kind": "suggestion", "state": "kept",
                "body": "```suggestion\npub use retry::{with_retry, RetryPolicy};\n\npub const USER_AGENT: &str = \"rivet/1.0\";\n```",
                "written": {
                    "headSha": head, "side": "RIGHT", "startLine": 5, "line": 7,
                    "text": [
                        "+pub use retry::{with_retry, RetryPolicy};",
                        " ",
                        "+pub const USER_AGENT: &str = \"rivet/0.9\";"
                    ]
                }
            }
        ]
    }))
    .unwrap();
    Ledger::new(dir.path()).save_pending(&pr, &review).unwrap();
    h.press("P");
    let s = h.screen();
    assert!(!s.contains("suggestionkept"), "{s}");
    assert!(!s.contains("```suggestion"), "{s}");
    assert!(
        s.contains("src/client/mod.rs:5-7  suggest: pub const USER_AGENT"),
        "{s}"
    );
    insta::assert_snapshot!("pending_list_columns_80x24", s);
}
