//! Submitting the pending review opens the house editor on the review's summary body first:
//! empty, or (one key, `ctrl-t`) the Shepherd summary; what is written there is the submitted
//! review's body. Approving has a key no other screen uses, and is always confirmed.

use crate::support;

use pr_shepherd::keys::{COMMANDS, Key, KeyCommand};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::app::{InputMode, PendingAsk, PendingScreen, SubmitAs};
use support::console::{coords, open};

/// The demo reviewed (the Shepherd summary is its review draft) and its pending review open,
/// with the first finding's draft kept: something to submit.
fn pending_with_a_kept_draft(dir: &std::path::Path) -> pr_shepherd::tui::harness::Harness {
    let mut h = open(dir, 120, 40);
    h.draw();
    h.press("r");
    h.press("P");
    assert!(h.app.top_is::<PendingScreen>(), "{:?}", h.app.stack());
    h.press("g Enter");
    assert!(
        h.app
            .pending_review()
            .is_some_and(|r| r.to_post().count() == 1),
        "{:?}",
        h.app.pending_review()
    );
    h
}

fn body_in_editor(h: &pr_shepherd::tui::harness::Harness) -> Option<String> {
    h.app.pending()?.editing().map(|e| e.text())
}

/// Failed before: `p` asked at once, and the review went without a body.
#[test]
fn submitting_writes_the_reviews_body_in_the_editor_and_it_reaches_the_outbox() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = pending_with_a_kept_draft(dir.path());
    h.press("p");
    assert_eq!(*h.app.mode(), InputMode::Edit, "the editor opens first");
    assert_eq!(body_in_editor(&h).as_deref(), Some(""), "empty by default");
    let s = h.screen();
    assert!(s.contains("Review body (comment)"), "{s}");
    assert!(
        s.contains("ctrl-t empty ⇄ Shepherd summary · Esc asks"),
        "{s}"
    );
    // One key swaps in the Shepherd summary (the review draft, less its hidden lines) and back.
    h.press("ctrl-t");
    let summary = body_in_editor(&h).unwrap_or_default();
    assert!(summary.contains("PR Shepherd Review"), "{summary}");
    assert!(!summary.contains("<!--"), "{summary}");
    h.press("ctrl-t");
    assert_eq!(body_in_editor(&h).as_deref(), Some(""));
    h.type_text("Close: one thing before it goes in.");
    h.press("Esc");
    match h.app.pending_asked() {
        Some(PendingAsk::Submit(ask)) => {
            assert_eq!(ask.how, SubmitAs::Comment);
            assert_eq!(ask.body, "Close: one thing before it goes in.");
        }
        other => panic!("no confirmation: {other:?}"),
    }
    assert!(h.screen().contains("Body: 35 characters"), "{}", h.screen());
    h.press("y");
    let held = Ledger::new(dir.path()).review_outbox(&coords(&h)).unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    let body = held[0].body["body"].as_str().unwrap_or_default();
    assert!(
        body.starts_with("Close: one thing before it goes in.\n\n"),
        "{body}"
    );
    assert_eq!(held[0].body["event"], "COMMENT");
}

/// The Shepherd summary, chosen in the editor, is the submitted review's body.
#[test]
fn the_shepherd_summary_chosen_in_the_editor_is_the_reviews_body() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = pending_with_a_kept_draft(dir.path());
    h.press("X ctrl-t");
    let summary = body_in_editor(&h).unwrap_or_default();
    assert!(!summary.is_empty());
    h.press("Esc y");
    let held = Ledger::new(dir.path()).review_outbox(&coords(&h)).unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    let body = held[0].body["body"].as_str().unwrap_or_default();
    assert!(body.starts_with(summary.trim()), "{body}");
    assert_eq!(held[0].body["event"], "REQUEST_CHANGES");
}

/// Failed before: `A` approved on the pending screen and showed the aspects on the PR screen.
/// Approving has a key no other command (so no other screen) has, one terminals deliver, and
/// `A` on the pending screen no longer approves.
#[test]
fn approve_has_a_key_no_other_screen_uses_and_is_always_confirmed() {
    let approve: Vec<Key> = COMMANDS
        .iter()
        .find(|c| c.0 == KeyCommand::Approve)
        .map(|c| c.2.iter().map(|k| Key::parse(k).unwrap()).collect())
        .expect("an approve command");
    assert_eq!(approve.len(), 1);
    for (cmd, name, keys, _) in COMMANDS {
        if *cmd == KeyCommand::Approve {
            continue;
        }
        for k in keys.iter().map(|k| Key::parse(k).unwrap()) {
            assert!(!approve.contains(&k), "approve's key is also `{name}`'s");
        }
    }
    // Not a plain letter: no screen's own letter key can be it either.
    assert!(approve[0].ctrl, "{:?}", approve[0]);

    let dir = tempfile::tempdir().unwrap();
    let mut h = pending_with_a_kept_draft(dir.path());
    h.press("A");
    assert_eq!(*h.app.mode(), InputMode::Normal, "A no longer approves");
    h.press("ctrl-a Esc");
    assert!(
        matches!(h.app.pending_asked(), Some(PendingAsk::Submit(a)) if a.how == SubmitAs::Approve),
        "{:?}",
        h.app.mode()
    );
    h.press("n");
    assert!(
        Ledger::new(dir.path())
            .review_outbox(&coords(&h))
            .unwrap()
            .is_empty()
    );
    // The footer and the help name the key as bound.
    assert!(h.screen().contains("Ctrl-a approve"), "{}", h.screen());
}
