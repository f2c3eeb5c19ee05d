//! Writing and deciding beside the code: the composer under the line or the selection in both
//! layouts, a finding read whole and decided in the diff with the pending review's keys, the
//! diff's search from match to match across files, and the place and layout kept.

use crate::support;

use pr_shepherd::code::pending::DraftState;
use pr_shepherd::tui::app::InputMode;
use pr_shepherd::tui::harness::Harness;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::console::{demo_harness, open};

/// The demo's review run (its findings proposed as drafts in the pending review).
fn reviewed(h: &mut Harness) {
    h.draw();
    h.press("r");
    assert!(h.app.composed().is_some(), "{}", h.screen());
}

/// The row of `screen` holding `needle` (its index).
fn row_of(screen: &str, needle: &str) -> usize {
    screen
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in\n{screen}"))
}

#[test]
fn the_composer_opens_under_the_selection_at_80x24_and_esc_keeps_it_pending() {
    let (mut h, _d) = demo_harness(80, 24);
    h.draw();
    // Lines 12 to 14 of retry.rs, selected low in the body: the lines above stay in sight.
    h.press("F Enter");
    for _ in 0..11 {
        h.press("j");
    }
    h.press("V j j c");
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    assert_eq!(h.app.mode(), &InputMode::Edit);
    h.type_text("Why the blank line?");
    let screen = h.screen();
    insta::assert_snapshot!("composer_under_the_selection_80x24", screen);
    let boxed = row_of(&screen, "Comment on src/client/retry.rs:12-14");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines[boxed - 1].contains("   14 +"), "{screen}");
    assert!(lines[boxed - 2].contains("   13 +"), "{screen}");
    assert!(lines[boxed + 1].contains("Why the blank line?"), "{screen}");
    assert!(
        lines.last().is_some_and(|l| l.contains("Esc keep it")),
        "{screen}"
    );
    h.press("Esc");
    assert_eq!(h.app.mode(), &InputMode::Normal);
    let r = h.app.pending_review().expect("read");
    let c = r.comments.last().expect("added");
    assert_eq!((c.start_line, c.line), (Some(12), 14));
    assert_eq!(c.body, "Why the blank line?");
    // Under its lines now, and the selection is gone.
    let screen = h.screen();
    assert!(screen.contains("pending c1"), "{screen}");
    assert_eq!(h.app.diff_selection().map(|s| s.start), Some(None));
    // An empty composer adds nothing.
    h.press("c Esc");
    assert_eq!(h.app.pending_review().map(|r| r.comments.len()), Some(1));
    assert!(h.app.notice().is_some_and(|n| n.contains("nothing added")));
}

#[test]
fn quitting_while_a_comment_is_being_written_names_it() {
    let (mut h, _d) = demo_harness(120, 35);
    h.draw();
    h.press("F Enter j c");
    h.type_text("half a thought");
    h.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    match h.app.mode() {
        InputMode::ConfirmQuit { lost } => assert!(
            lost.iter()
                .any(|l| l.contains("being written on src/client/retry.rs:2")),
            "{lost:?}"
        ),
        other => panic!("no quit question: {other:?}"),
    }
}

#[test]
fn the_composer_opens_under_the_line_in_the_split_view() {
    let (mut h, _d) = demo_harness(200, 50);
    h.draw();
    h.press("F j j Enter");
    assert!(h.app.diff_split());
    h.press("j j j j j S");
    let screen = h.screen();
    insta::assert_snapshot!("composer_under_the_line_split_200x50", screen);
    let boxed = row_of(&screen, "Suggestion on bindings/python/rivet/client.py");
    assert!(boxed > 5, "{screen}");
    h.press("Esc");
    assert!(h.screen().contains("pending c1"), "{}", h.screen());
}

#[test]
fn a_finding_opens_whole_in_the_diff_and_is_kept_dropped_edited_there() {
    let (mut h, _d) = demo_harness(120, 35);
    reviewed(&mut h);
    h.press("F Enter ]");
    assert!(h.screen().contains("to decide c8"), "{}", h.screen());
    // Enter shows it whole, in the diff (its line still in sight above the pane).
    h.press("Enter");
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    let screen = h.screen();
    assert!(
        screen.contains("c8 · to decide · src/client/retry.rs:9"),
        "{screen}"
    );
    assert!(
        screen.contains("Suggested fix: Document each field"),
        "{screen}"
    );
    assert!(row_of(&screen, "▶") < row_of(&screen, "c8 · to decide"));
    let state = |h: &Harness| {
        h.app
            .pending_review()
            .and_then(|r| r.get("c8"))
            .map(|c| c.state)
    };
    h.press("Enter");
    assert_eq!(state(&h), Some(DraftState::Kept), "{:?}", h.app.notice());
    assert!(h.screen().contains("c8 · kept"), "{}", h.screen());
    h.press("d");
    assert_eq!(state(&h), Some(DraftState::Dropped));
    h.press("Enter");
    assert_eq!(state(&h), Some(DraftState::Kept));
    // `e` edits it in the composer under its line.
    h.press("e");
    let body = h.app.diff_composer().expect("the composer");
    assert!(body.contains("Document each field"), "{body}");
    h.press("ctrl-z");
    h.type_text(" Also for the delays.");
    h.press("Esc");
    assert_eq!(state(&h), Some(DraftState::Edited), "{:?}", h.app.notice());
    // Esc closes the pane; the diff keys are back.
    h.press("Enter Esc j");
    assert!(!h.screen().contains("c8 · edited"), "{}", h.screen());
}

#[test]
fn a_finding_dismissed_in_the_diff_is_held_back_everywhere_after_a_relaunch_too() {
    let (mut h, d) = demo_harness(120, 35);
    reviewed(&mut h);
    let before = h.app.composed().expect("composed").finding_rows().len();
    h.press("F Enter ] Enter");
    let id = h
        .app
        .pending_review()
        .and_then(|r| r.get("c8"))
        .and_then(|c| c.finding_id.clone())
        .expect("c8 is a finding's draft");
    // A dismissal needs its reason: the prompt stays open, and what is typed is the reason.
    h.press("D Enter");
    assert!(matches!(h.app.mode(), InputMode::Search { .. }));
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.contains("needs its reason"))
    );
    h.type_text("documented in the guide");
    assert!(
        h.screen().contains("reason: documented in the guide"),
        "{}",
        h.screen()
    );
    h.press("Enter");
    assert!(
        h.app.notice().is_some_and(|n| n.contains("dismissed")),
        "{:?}",
        h.app.notice()
    );
    // The diff no longer proposes it on its line; the PR screen holds it back.
    assert!(!h.screen().contains("to decide c8"), "{}", h.screen());
    h.press("q q");
    let rows = h.app.composed().expect("composed").finding_rows();
    assert_eq!(rows.len(), before - 1);
    assert!(rows.iter().all(|(f, _)| *f != id));
    // After a relaunch: the diff shows it nowhere, the pending review has it decided.
    drop(h);
    let mut h = open(d.path(), 120, 35);
    h.draw();
    h.press("F Enter");
    assert!(
        !h.screen().contains("Document each field"),
        "{}",
        h.screen()
    );
    assert!(
        h.app.pending_review().is_none_or(|r| r
            .comments
            .iter()
            .all(|c| c.finding_id.as_deref() != Some(&id) || c.state != DraftState::Proposed)),
        "{:?}",
        h.app.pending_review()
    );
}

#[test]
fn the_search_goes_from_match_to_match_across_the_files_and_says_where() {
    let (mut h, _d) = demo_harness(120, 35);
    h.draw();
    h.press("F Enter /");
    h.type_text("retry");
    assert!(h.screen().contains("1 of 15"), "{}", h.screen());
    h.press("Enter");
    assert!(h.app.notice().is_some_and(|n| n.contains("1 of 15")));
    for _ in 0..8 {
        h.press("n");
    }
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    assert!(
        h.app.notice().is_some_and(|n| n.contains("9 of 15")),
        "{:?}",
        h.app.notice()
    );
    // Back before the PR's first match: around to its last.
    h.press("N");
    assert!(h.app.notice().is_some_and(|n| n.contains("8 of 15")));
    for _ in 0..8 {
        h.press("N");
    }
    assert!(
        h.app.notice().is_some_and(|n| n.contains("15 of 15")),
        "{:?}",
        h.app.notice()
    );
    // A capital makes the case count.
    h.press("/");
    h.type_text("Retry");
    h.press("Enter");
    assert!(
        h.app.notice().is_some_and(|n| n.contains(" of 12")),
        "{:?}",
        h.app.notice()
    );
    // Esc ends the search: n is the next file again.
    h.press("Esc N");
    assert!(
        h.app.notice().is_some_and(|n| n.starts_with("file ")),
        "{:?}",
        h.app.notice()
    );
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    // Esc in the prompt goes back where the cursor was, with no search.
    let at = h.app.diff_screen().map(|d| d.cursor());
    h.press("/");
    h.type_text("fn");
    h.press("Esc");
    assert_eq!(h.app.diff_screen().map(|d| d.cursor()), at);
}

#[test]
fn the_files_list_follows_the_diff_and_the_layout_chosen_holds_for_the_run() {
    let (mut h, _d) = demo_harness(120, 35);
    h.draw();
    h.press("F Enter n n q");
    assert_eq!(h.app.files_screen().map(|f| f.selected()), Some(2));
    // `|` chose side by side at 120 columns: every diff opened after keeps it.
    h.press("Enter |");
    assert!(h.app.diff_split());
    h.press("q j Enter");
    assert!(h.app.diff_split(), "{}", h.screen());
    h.press("q q F Enter");
    assert!(h.app.diff_split(), "{}", h.screen());
}

#[test]
fn the_diffs_help_names_search_comment_keep_and_drop() {
    let (mut h, _d) = demo_harness(120, 35);
    h.draw();
    h.press("F Enter");
    let help: Vec<String> = h
        .app
        .help_entries()
        .into_iter()
        .map(|(k, w)| format!("{k} {w}"))
        .collect();
    for (key, word) in [
        ("/", "search"),
        ("c", "comment"),
        ("Enter", "keep"),
        ("d", "drop"),
        ("D", "dismiss"),
        ("n", "next match"),
    ] {
        assert!(
            help.iter()
                .any(|l| l.starts_with(&format!("{key} ")) && l.contains(word)),
            "`{key}` for {word} in {help:#?}"
        );
    }
}

/// A review submitted from the pending review opened in the diff (`P` there) is laid over the
/// PR screen's lists once the diff and the files are left, as one submitted from the PR screen.
#[test]
fn a_review_submitted_from_the_diffs_pending_review_stands_in_the_pr_screen() {
    let (mut h, _d) = demo_harness(120, 40);
    h.draw();
    h.press("F Enter j c");
    h.type_text("Why a blank line?");
    h.press("Esc P p");
    h.type_text("One question.");
    h.press("Esc y");
    assert!(
        h.app.notice().is_some_and(|n| n.starts_with("submitted")),
        "{:?}",
        h.app.notice()
    );
    h.press("q q q");
    assert_eq!(h.app.stack(), vec!["PR"]);
    assert!(h.screen().contains("QUEUED(offline)"), "{}", h.screen());
}
