//! Edited comments in the console: the detail of an edited comment shows the diff against the text last
//! seen (in the theme's diff colours); a thread with new replies opens at the first one, each
//! new reply tagged NEW.

use crate::support;

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use pr_shepherd::triage::{kept_texts, marks, triage};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;
use support::console::select_id;

const JITTER: &str = "PRRT_kwDOKq3xZs5hQ1bB";
const QUESTION: &str = "IC_kwDOKq3xZs6Aa0002";

/// The demo at step 1, after everything of step 0 was seen (markers and kept texts).
fn after_a_look(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("assets/fixtures/demo.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    let first = f.snapshot_at(0).unwrap();
    let coords = first.pr.coords();
    let t = triage(&first, &Default::default());
    ledger.keep_texts(&coords, &kept_texts(&first, &t)).unwrap();
    ledger
        .mark_seen(&coords, &marks(&first, &t), 1_700_000_000)
        .unwrap();
    let snapshot = f.snapshot_at(1).unwrap();
    let h = Harness::new(snapshot, Some(f), ledger, Theme::default_theme(), w, h).unwrap();
    (h, dir)
}

#[test]
fn an_edited_comment_shows_its_diff_in_the_diff_colours() {
    let (mut h, _d) = after_a_look(120, 40);
    select_id(&mut h, QUESTION);
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("changed since your last look:"), "{screen}");
    insta::assert_snapshot!("edited_comment_diff_120x40", screen);
    // The added line is drawn in the theme's `diff.added` colour.
    let theme = Theme::default_theme();
    let (x, y) = screen
        .lines()
        .enumerate()
        .find_map(|(y, l)| {
            l.find("+ **Edit:**")
                .map(|p| (l[..p].chars().count() as u16, y as u16))
        })
        .expect("the added line is on screen");
    let cell = &h.terminal.backend().buffer()[(x, y)];
    assert_eq!(cell.fg, theme.diff_added.fg.unwrap_or_default());
}

#[test]
fn a_thread_with_new_replies_opens_at_the_first_new_one() {
    let (mut h, _d) = after_a_look(120, 30);
    select_id(&mut h, JITTER);
    h.draw();
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("NEW @tomasz-w"), "{screen}");
    assert!(
        h.app.detail_scroll().unwrap() > 0,
        "opened below the top, at the new reply"
    );
    insta::assert_snapshot!("thread_new_reply_120x30", screen);
    // Scrolling back up still works from there.
    let at = h.app.detail_scroll().unwrap();
    h.press("Tab");
    h.press("k");
    assert_eq!(h.app.detail_scroll(), Some(at - 1));
}

fn outbox(dir: &Path) -> serde_json::Value {
    let path = support::demo_dir(dir).join("outbox/threads.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn reply_from_the_console_asks_naming_the_thread_then_goes_to_the_outbox() {
    let (mut h, dir) = after_a_look(120, 40);
    select_id(&mut h, JITTER);
    h.press("c");
    h.type_text("On it: jitter at the call site.");
    // Saved on every change, like the review draft.
    let saved = support::demo_dir(dir.path()).join("reply-draft.json");
    assert!(saved.exists());
    insta::assert_snapshot!("reply_composer_120x40", h.screen());
    h.press("ctrl-s");
    let screen = h.screen();
    assert!(screen.contains("Post this reply?"), "{screen}");
    assert!(
        screen.contains("src/client/retry.rs:29 (@rajesh-k, PRRT_kwDOKq3xZs5hQ1bB)"),
        "the dialog names the thread: {screen}"
    );
    insta::assert_snapshot!("reply_confirm_120x40", screen);
    h.press("y");
    let actions = outbox(dir.path())["actions"].clone();
    assert_eq!(actions[0]["kind"], "reply");
    assert_eq!(actions[0]["threadId"], JITTER);
    assert_eq!(actions[0]["body"], "On it: jitter at the call site.");
    assert!(!saved.exists(), "the sent reply's draft is removed");
    assert!(h.app.reply().is_none());
    assert!(h.app.notice().unwrap_or("").starts_with("replied"));
}

#[test]
fn an_unsent_reply_survives_a_crash() {
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("assets/fixtures/demo.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    {
        let mut h = Harness::new(
            f.snapshot_at(1).unwrap(),
            Some(f.clone()),
            Ledger::new(dir.path()),
            Theme::default_theme(),
            100,
            30,
        )
        .unwrap();
        select_id(&mut h, JITTER);
        h.press("c");
        h.type_text("half a thought");
        // No Esc, no send: the process dies here.
    }
    let mut h = Harness::new(
        f.snapshot_at(1).unwrap(),
        Some(f),
        Ledger::new(dir.path()),
        Theme::default_theme(),
        100,
        30,
    )
    .unwrap();
    // The notice names the thread the reply belongs to: its place and its author.
    let notice = h.app.notice().unwrap_or("").to_owned();
    assert!(
        notice.contains("restored the unsent reply to src/client/retry.rs:29 (@rajesh-k)"),
        "{notice}"
    );
    select_id(&mut h, JITTER);
    h.press("c");
    assert!(h.screen().contains("half a thought"), "{}", h.screen());
    // Esc closes and keeps it; cancelling the dialog keeps it too.
    h.press("Esc");
    assert!(h.app.reply().is_some());
    h.press("c ctrl-s n");
    assert!(h.app.reply().is_some());
    assert!(
        !support::demo_dir(dir.path())
            .join("outbox/threads.json")
            .exists()
    );
}

#[test]
fn an_oversized_reply_is_refused_before_the_question() {
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("assets/fixtures/demo.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    let snapshot = f.snapshot_at(1).unwrap();
    ledger
        .save_reply_draft(
            &snapshot.pr.coords(),
            &pr_shepherd::ledger::ReplyDraft {
                thread_id: JITTER.into(),
                body: "y".repeat(65_540),
                saved_at: 1,
            },
        )
        .unwrap();
    let mut h = Harness::new(snapshot, Some(f), ledger, Theme::default_theme(), 120, 40).unwrap();
    select_id(&mut h, JITTER);
    h.press("c ctrl-s");
    let screen = h.screen();
    assert!(screen.contains("Not posting"), "{screen}");
    assert!(screen.contains("4 too many"), "{screen}");
    h.press("y");
    assert!(
        !support::demo_dir(dir.path())
            .join("outbox/threads.json")
            .exists()
    );
}

#[test]
fn resolve_and_unresolve_ask_first_and_need_a_thread() {
    let (mut h, dir) = after_a_look(120, 40);
    select_id(&mut h, QUESTION);
    h.press("x");
    assert!(
        matches!(h.app.pr_asked(), Some(pr_shepherd::tui::app::PrAsk::Cannot(why)) if why.contains("select one to resolve")),
        "{:?}",
        h.app.pr_asked()
    );
    // The refusal takes the next key, and only closes.
    h.press("Esc");
    select_id(&mut h, JITTER);
    h.press("x");
    let screen = h.screen();
    assert!(screen.contains("Resolve this thread?"), "{screen}");
    assert!(screen.contains("PRRT_kwDOKq3xZs5hQ1bB"), "{screen}");
    h.press("n");
    assert!(!support::demo_dir(dir.path()).join("outbox").exists());
    h.press("x y");
    assert!(h.app.selected_item().is_some_and(|i| i.status().resolved));
    h.press("u y");
    let actions = outbox(dir.path())["actions"].clone();
    assert_eq!(actions[0]["kind"], "resolve");
    assert_eq!(actions[1]["kind"], "unresolve");
    assert!(!h.app.selected_item().is_some_and(|i| i.status().resolved));
}

/// Offline, a reply and a resolve wait in the outbox: the thread shows them queued at once (the
/// reply under it, marked queued; the thread RESOLVING(queued)), and again after the PR is
/// opened anew, where the header counts the thread resolved as the badge says.
#[test]
fn queued_replies_and_resolves_show_as_queued_and_again_after_reopening() {
    let (mut h, dir) = after_a_look(120, 40);
    select_id(&mut h, JITTER);
    h.press("c");
    h.type_text("On it: jitter at the call site.");
    h.press("ctrl-s y");
    h.press("x y");
    h.draw();
    assert_eq!(
        last_reply(&h),
        (
            "pr-shepherd".to_owned(),
            "On it: jitter at the call site.".to_owned()
        )
    );
    // The detail's end: the reply, marked queued.
    h.press("Tab G");
    let screen = h.screen();
    assert!(screen.contains("queued (offline)"), "{screen}");
    assert!(
        screen.contains("On it: jitter at the call site."),
        "{screen}"
    );
    assert!(screen.contains("RESOLVING(queued)"), "{screen}");
    let resolved = h.app.selected_item().map(|i| i.status().resolved);
    assert_eq!(resolved, Some(true));
    drop(h);

    // Opened anew (a relaunch): the outbox is laid over the fixture again.
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("assets/fixtures/demo.json")).unwrap();
    let mut h = Harness::new(
        f.snapshot_at(1).unwrap(),
        Some(f),
        Ledger::new(dir.path()),
        Theme::default_theme(),
        120,
        40,
    )
    .unwrap();
    select_id(&mut h, JITTER);
    h.draw();
    assert_eq!(
        last_reply(&h),
        (
            "pr-shepherd".to_owned(),
            "On it: jitter at the call site.".to_owned()
        )
    );
    h.press("Tab G");
    let screen = h.screen();
    assert!(screen.contains("queued (offline)"), "{screen}");
    assert!(
        screen.contains("On it: jitter at the call site."),
        "{screen}"
    );
    assert!(screen.contains("RESOLVING(queued)"), "{screen}");
    assert!(!screen.contains(" UNCHANGED  RESOLVED"), "{screen}");
    assert_eq!(
        h.app.selected_item().map(|i| i.status().resolved),
        Some(true)
    );
    insta::assert_snapshot!("thread_queued_offline_120x40", screen);
}

/// The author and text of the selected thread's last comment.
fn last_reply(h: &Harness) -> (String, String) {
    match h.app.selected_item() {
        Some(pr_shepherd::pr::Item::Thread(t)) => t
            .comments
            .last()
            .map(|c| (c.author.login.clone(), c.body.clone()))
            .unwrap_or_default(),
        other => panic!("no thread selected: {other:?}"),
    }
}
