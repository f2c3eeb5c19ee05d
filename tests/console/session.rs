//! A triage session a maintainer can live in: an item counts as seen only once it was on screen
//! long enough to read, PR screens and the inbox refresh (on a key, after the session's own
//! writes, on an interval), all on the injected clock (no test sleeps).

use crate::support;

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::app::{Effect, InboxScreen};
use pr_shepherd::tui::effects::inbox::TabSource;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;
use support::console::{coords, open};

fn seen_count(dir: &Path, h: &Harness) -> usize {
    Ledger::new(dir)
        .load_seen(&coords(h))
        .unwrap()
        .markers
        .len()
}

/// Skimming with `j` marks nothing: an item counts as shown once its detail stayed on screen
/// for the dwell; `m` still marks at once.
#[test]
fn skimming_marks_nothing_and_a_read_item_counts_after_the_dwell() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.set_dwell(600);
    h.tick(10_000);
    h.press("j j j j");
    h.tick(10_300);
    assert_eq!(seen_count(dir.path(), &h), 0, "skimmed items were marked");
    // The item stays on screen: once the dwell is over, it (and only it) is marked.
    h.tick(10_700);
    h.tick(11_000);
    assert_eq!(seen_count(dir.path(), &h), 1);
    // `m` marks the next one at once.
    h.press("j m");
    assert_eq!(seen_count(dir.path(), &h), 2);
}

fn bundled_inbox(dir: &Path) -> Harness {
    Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        Ledger::new(dir),
        Theme::default_theme(),
        140,
        16,
    )
}

/// `[inbox] refresh` reloads the lists on the console's clock, keeping the selection on its
/// PR; 0 never reloads by itself.
#[test]
fn the_inbox_reloads_on_its_interval_keeping_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = bundled_inbox(dir.path());
    h.set_inbox_refresh(120);
    h.draw();
    h.press("j j");
    let selected = h.app.inbox_selected().unwrap().listed.coords.clone();
    let loads = |h: &Harness| {
        h.effects
            .iter()
            .filter(|e| matches!(e, Effect::LoadInbox))
            .count()
    };
    let before = loads(&h);
    h.tick(1_000_000);
    h.tick(1_000_000 + 119_000);
    assert_eq!(loads(&h), before, "reloaded before the interval");
    h.tick(1_000_000 + 120_000);
    assert_eq!(loads(&h), before + 1);
    assert!(h.app.top_is::<InboxScreen>());
    assert_eq!(h.app.inbox_selected().unwrap().listed.coords, selected);

    let dir = tempfile::tempdir().unwrap();
    let mut h = bundled_inbox(dir.path());
    h.set_inbox_refresh(0);
    let before = loads(&h);
    h.tick(1);
    h.tick(10_000_000);
    assert_eq!(loads(&h), before, "0 is off");
}

/// The refresh key reads the PR again (offline: its fixture step with the ledger's markers),
/// keeping the selected item.
#[test]
fn the_refresh_key_reloads_the_pr_keeping_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("j j j");
    let id = h.app.selected_id().unwrap().to_owned();
    let n = h.effects.len();
    h.press("ctrl-r");
    assert!(
        h.effects[n..]
            .iter()
            .any(|e| matches!(e, Effect::LoadStep { step: 0, .. })),
        "{:?}",
        &h.effects[n..]
    );
    assert_eq!(h.app.selected_id(), Some(id.as_str()));
}
