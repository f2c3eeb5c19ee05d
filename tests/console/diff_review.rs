//! The diff as the place you review: the PR's next and previous file on a key, the pending
//! review's comments under their lines, a thread opened whole from its line.

use std::collections::HashMap;

use pr_shepherd::tui::keymap::{Key, KeyCommand, Keymap};
use support::console::demo_harness;

use crate::support;

/// `n` / `N` go to the PR's next and previous file in the diff (the files screen's order),
/// saying which; at either end they say so and stay. Failed before: `n` was the search's next
/// match, which the diff does not answer: nothing happened.
#[test]
fn n_and_shift_n_go_to_the_next_and_previous_file_in_the_diff() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("F Enter");
    let paths: Vec<String> = h.app.files().into_iter().map(|(p, _)| p).collect();
    assert_eq!(h.app.diff_path(), Some(paths[0].as_str()));
    h.press("n");
    assert_eq!(h.app.diff_path(), Some(paths[1].as_str()));
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    let notice = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        notice.contains(&format!("file 2 of {}", paths.len())),
        "{notice}"
    );
    h.draw();
    assert!(h.screen().contains(paths[1].as_str()), "{}", h.screen());
    h.press("N");
    assert_eq!(h.app.diff_path(), Some(paths[0].as_str()));
    h.press("N");
    assert_eq!(h.app.diff_path(), Some(paths[0].as_str()));
    assert_eq!(h.app.notice(), Some("the first file of the PR"));
    for _ in 1..paths.len() {
        h.press("n");
    }
    assert_eq!(h.app.diff_path(), paths.last().map(String::as_str));
    h.press("n");
    assert_eq!(h.app.notice(), Some("the last file of the PR"));
    // Back on the files screen, as before.
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR", "files"]);
}

/// `[keys] next_file` rebinds it; `n` then stays the search's alone (and does nothing here).
#[test]
fn next_file_is_rebindable_and_n_still_searches_elsewhere() {
    let (mut h, _d) = demo_harness(120, 30);
    h.keymap = Keymap::new(&HashMap::from([(
        KeyCommand::NextFile,
        vec![Key::parse(")").unwrap()],
    )]));
    h.draw();
    h.press("F Enter");
    let paths: Vec<String> = h.app.files().into_iter().map(|(p, _)| p).collect();
    h.press("n");
    assert_eq!(h.app.diff_path(), Some(paths[0].as_str()));
    h.press(")");
    assert_eq!(h.app.diff_path(), Some(paths[1].as_str()));
    // The defaults share `n` between the search and the diff, and nothing else.
    let km = Keymap::default();
    assert_eq!(km.keys_label(KeyCommand::NextFile), "n");
    assert_eq!(km.keys_label(KeyCommand::NextMatch), "n");
    pr_shepherd::keys::check_bindings(&HashMap::new()).unwrap();
    // Binding another command to `n` is still refused.
    let err = pr_shepherd::keys::check_bindings(&HashMap::from([(
        KeyCommand::Down,
        vec![Key::parse("n").unwrap()],
    )]))
    .unwrap_err();
    assert_eq!(err.0, "down");
}

/// The demo's Shepherd review run and posted to the outbox: its findings are the latest, and
/// proposed as drafts in the pending review.
fn reviewed_and_posted(h: &mut pr_shepherd::tui::harness::Harness) {
    h.draw();
    h.press("r");
    h.press("p");
    h.press("y");
    h.press("q");
}

/// The pending review's comments sit under their lines in the diff, marked pending (a comment
/// written from the diff as soon as the diff is back, a finding's draft with its severity and
/// that it is still to decide, shown once), and after a relaunch, read from disk. Failed
/// before: the diff showed no pending comment at all.
#[test]
fn pending_comments_and_finding_drafts_show_under_their_lines_in_the_diff() {
    let (mut h, d) = demo_harness(120, 30);
    reviewed_and_posted(&mut h);
    h.press("F Enter j j j");
    let sel = h.app.diff_selection().unwrap();
    h.press("c");
    h.draw();
    h.type_text("Why an empty line here?");
    h.press("Esc");
    h.draw();
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    h.draw();
    let screen = h.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(" pending c") && l.contains("┆ comment: Why an empty line here?"))
        .unwrap_or_else(|| panic!("{screen}"));
    // Under its line (the cursor's, where it was written).
    assert!(lines[at - 1].starts_with('▶'), "{screen}");
    assert!(
        lines[at - 1].contains(&format!(" {} ", sel.end.line)),
        "{screen}"
    );
    // A finding's draft, once, still to decide: the Shepherd comment posted above decides
    // nothing of the pending review (neither sends the other).
    h.press("g ]");
    let screen = h.screen();
    let drafts: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("┆ finding (suggestion): The public fields"))
        .collect();
    assert_eq!(drafts.len(), 1, "{screen}");
    assert!(
        drafts[0].trim_start().starts_with("to decide c"),
        "{screen}"
    );
    insta::assert_snapshot!("diff_review_pending_120x30", screen);
    // A relaunch reads it from disk.
    drop(h);
    let mut h = support::console::open(d.path(), 120, 30);
    h.draw();
    h.press("F Enter");
    h.draw();
    assert!(
        h.screen().contains("comment: Why an empty line here?"),
        "{}",
        h.screen()
    );
}

/// `Enter` on a thread's line opens it whole (every comment), and it is replied to and resolved
/// from there with the PR screen's composer and questions, into the outbox offline. Failed
/// before: `Enter` on the line only said "the whole file is shown".
#[test]
fn enter_on_a_threads_line_opens_it_whole_to_reply_and_resolve() {
    let (mut h, d) = demo_harness(120, 40);
    h.draw();
    h.press("F Enter");
    let line = |h: &pr_shepherd::tui::harness::Harness| h.app.diff_selection().unwrap().end.line;
    while line(&h) < 29 {
        let before = line(&h);
        h.press("]");
        assert!(line(&h) > before, "] moves on");
    }
    h.press("Enter");
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff", "thread"]);
    let screen = h.screen();
    assert!(screen.contains("src/client/retry.rs:29"), "{screen}");
    assert!(screen.contains("@rajesh-k"), "{screen}");
    assert!(screen.contains("No jitter here."), "{screen}");
    insta::assert_snapshot!("diff_review_thread_120x40", screen);
    // Reply: the PR screen's composer and question.
    h.press("c");
    h.type_text("Jitter added at the call site.");
    h.press("ctrl-s");
    assert!(h.screen().contains("Post this reply?"), "{}", h.screen());
    h.press("y");
    assert!(
        h.app.notice().unwrap_or("").starts_with("replied"),
        "{:?}",
        h.app.notice()
    );
    let outbox = support::demo_dir(d.path()).join("outbox/threads.json");
    let actions: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&outbox).unwrap()).unwrap();
    assert_eq!(actions["actions"][0]["kind"], "reply");
    assert_eq!(
        actions["actions"][0]["body"],
        "Jitter added at the call site."
    );
    // Resolve, asked first.
    h.press("x");
    h.press("y");
    assert!(
        h.app.notice().unwrap_or("").starts_with("resolved"),
        "{:?}",
        h.app.notice()
    );
    let actions: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&outbox).unwrap()).unwrap();
    assert_eq!(actions["actions"][1]["kind"], "resolve");
    h.draw();
    assert!(
        h.screen().contains("5 comments · resolved"),
        "{}",
        h.screen()
    );
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
}

/// Opens the thread on `src/client/retry.rs:29` from its diff line.
fn open_the_thread_at_29(h: &mut pr_shepherd::tui::harness::Harness) {
    h.draw();
    h.press("F Enter");
    while h.app.diff_selection().unwrap().end.line < 29 {
        h.press("]");
    }
    h.press("Enter");
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff", "thread"]);
}

/// A reply answered after its thread screen was left still reaches that screen: it says so and
/// forgets the saved reply (which would otherwise come back as unsent on the next launch, and be
/// sent twice). Failed before: the screen stopped taking its answer once left, and the answer was
/// dropped.
#[test]
fn a_reply_answered_after_the_thread_screen_was_left_still_lands() {
    let (mut h, _d) = demo_harness(120, 40);
    open_the_thread_at_29(&mut h);
    h.press("c");
    h.type_text("Jitter added at the call site.");
    h.press("ctrl-s");
    assert!(h.screen().contains("Post this reply?"), "{}", h.screen());
    // `y`, and the answer is held until the maintainer has gone back to the diff.
    let fx = h.app.update(pr_shepherd::tui::app::Action::Confirmed(true));
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    h.effects.clear();
    h.run_effects(fx);
    assert!(
        h.app.notice().unwrap_or("").starts_with("replied"),
        "{:?}",
        h.app.notice()
    );
    assert!(
        h.effects.iter().any(|e| matches!(
            e.work::<pr_shepherd::tui::app::pr::Work>(),
            Some(pr_shepherd::tui::app::pr::Work::DiscardReplyDraft { .. })
        )),
        "{:?}",
        h.effects
    );
}

/// `w` on a thread screen writes a conversation comment, asked first, into the outbox offline.
/// Failed before: the question was asked and its `y` dropped.
#[test]
fn w_on_a_thread_screen_posts_a_conversation_comment() {
    let (mut h, d) = demo_harness(120, 40);
    open_the_thread_at_29(&mut h);
    h.press("w");
    h.type_text("Thanks, all addressed.");
    h.press("ctrl-s");
    assert!(
        h.screen()
            .contains("Post this comment on the conversation?"),
        "{}",
        h.screen()
    );
    h.press("y");
    assert!(
        h.app.notice().unwrap_or("").starts_with("commented"),
        "{:?}",
        h.app.notice()
    );
    let dir = support::demo_dir(d.path()).join("outbox");
    let found = std::fs::read_dir(&dir).unwrap().flatten().any(|e| {
        std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("Thanks, all addressed."))
    });
    assert!(found, "the comment is in the outbox");
}
