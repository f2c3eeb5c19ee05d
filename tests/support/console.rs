//! The console on ratatui's TestBackend (`tui::harness`): opening it on the demo or on a
//! snapshot, and moving the selection.

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{PrCoords, Snapshot};
use pr_shepherd::source::Fixture;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;

/// The demo at `w`×`h` on a ledger in `dir`.
pub fn open(dir: &Path, w: u16, h: u16) -> Harness {
    Harness::demo(dir, w, h).unwrap()
}

/// The demo at `w`×`h` on a ledger in a fresh temporary dir (kept alive by the second value).
pub fn demo_harness(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (open(dir.path(), w, h), dir)
}

/// `snapshot` (plus `fixture` for stepping) at `w`×`h` on a ledger in a fresh temporary dir.
pub fn harness_with(
    snapshot: Snapshot,
    fixture: Option<Fixture>,
    w: u16,
    h: u16,
) -> (Harness, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let h = Harness::new(
        snapshot,
        fixture,
        Ledger::new(dir.path()),
        Theme::default_theme(),
        w,
        h,
    )
    .unwrap();
    (h, dir)
}

/// The PR the console shows.
pub fn coords(h: &Harness) -> PrCoords {
    h.app.pr_meta().unwrap().coords()
}

/// Selects the row of the item with this id.
pub fn select_id(h: &mut Harness, id: &str) {
    h.press("g");
    for _ in 0..h.app.row_count() {
        if h.app.selected_item().is_some_and(|i| i.id() == id) {
            return;
        }
        h.press("j");
    }
    panic!("{id} not found");
}

/// `snapshot` at `w`×`h` on a ledger in `dir`, writing to GitHub through `gh` as `monalisa` (the
/// loopback GitHub's viewer).
pub fn live_harness(
    snapshot: Snapshot,
    dir: &Path,
    gh: pr_shepherd::source::github::GitHub,
    w: u16,
    h: u16,
) -> Harness {
    let mut harness = Harness::new(
        snapshot,
        None,
        Ledger::new(dir),
        Theme::default_theme(),
        w,
        h,
    )
    .unwrap();
    harness.set_remote(pr_shepherd::tui::session::Remote::GitHub(
        pr_shepherd::tui::session::Live {
            gh: std::sync::Arc::new(gh),
            own_login: "monalisa".into(),
        },
    ));
    harness
}

/// The inbox of the bundled fixtures (plain theme) on a ledger in a fresh state dir.
pub fn bundled_inbox(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let h = Harness::inbox(
        vec![(
            "bundled fixtures".to_owned(),
            pr_shepherd::tui::inbox_link::TabSource::Bundled,
        )],
        pr_shepherd::ledger::Ledger::new(dir.path()),
        pr_shepherd::tui::theme::Theme::plain(),
        w,
        h,
    );
    (h, dir)
}
