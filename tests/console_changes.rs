//! Issue 13 in the console: the detail of an edited comment shows the diff against the text last
//! seen (in the theme's diff colours); a thread with new replies opens at the first one, each
//! new reply tagged NEW.

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use pr_shepherd::triage::{kept_texts, marks, triage};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;

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

fn select_id(h: &mut Harness, id: &str) {
    h.press("g");
    for _ in 0..h.app.pr.list.rows.len() {
        if h.app.pr.list.selected_item().is_some_and(|i| i.id() == id) {
            return;
        }
        h.press("j");
    }
    panic!("{id} not found");
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
        h.app.pr.list.detail_scroll > 0,
        "opened below the top, at the new reply"
    );
    insta::assert_snapshot!("thread_new_reply_120x30", screen);
    // Scrolling back up still works from there.
    let at = h.app.pr.list.detail_scroll;
    h.press("Tab");
    h.press("k");
    assert_eq!(h.app.pr.list.detail_scroll, at - 1);
}
