//! A triage session a maintainer can live in: an item counts as seen only once it was on screen
//! long enough to read, PR screens and the inbox refresh (on a key, after the session's own
//! writes, on an interval), all on the injected clock (no test sleeps).

use crate::support;

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::app::{InboxScreen, inbox};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::inbox_link::TabSource;
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
            .filter(|e| matches!(e.work::<inbox::Work>(), Some(inbox::Work::Load)))
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
        h.effects[n..].iter().any(|e| matches!(
            e.work(),
            Some(pr_shepherd::tui::app::pr::Work::LoadStep { step: 0, .. })
        )),
        "{:?}",
        &h.effects[n..]
    );
    assert_eq!(h.app.selected_id(), Some(id.as_str()));
}

/// The inbox filter is a menu (one key per filter, like the PR screen's); sections switch with
/// Tab, Shift-Tab and a click on their tab; sort and sections are rebindable in `[keys]`.
#[test]
fn the_inbox_filter_is_a_menu_and_sections_follow_shift_tab_clicks_and_keys() {
    use pr_shepherd::inbox::GateReview;
    use pr_shepherd::keys::{Key, KeyCommand};
    use pr_shepherd::tui::app::{InboxFilter, InputMode};
    use pr_shepherd::tui::keymap::Keymap;
    use ratatui::crossterm::event::{MouseButton, MouseEventKind};
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::inbox(
        vec![
            ("A".to_owned(), TabSource::Bundled),
            ("B".to_owned(), TabSource::Bundled),
            ("C".to_owned(), TabSource::Bundled),
        ],
        Ledger::new(dir.path()),
        Theme::plain(),
        120,
        16,
    );
    h.draw();
    h.press("f");
    assert_eq!(*h.app.mode(), InputMode::Filter);
    let screen = h.screen();
    assert!(screen.contains("gate: needs the label"), "{screen}");
    h.press("l");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    let inbox = h.app.inbox().unwrap();
    assert_eq!(inbox.filter, InboxFilter::Gate(GateReview::NeedsLabel));
    assert!(
        inbox
            .visible()
            .iter()
            .all(|&i| inbox.current().unwrap().rows[i].gate.review == GateReview::NeedsLabel)
    );
    h.press("f Esc");
    assert_eq!(*h.app.mode(), InputMode::Normal);

    // Shift-Tab goes back a section (from the first, to the last); a click shows a tab.
    h.press("BackTab");
    assert_eq!(h.app.inbox().unwrap().tab, 2);
    h.press("Tab");
    assert_eq!(h.app.inbox().unwrap().tab, 0);
    // "Inbox " then " A " " B ": B's tab starts at column 10.
    h.mouse(MouseEventKind::Down(MouseButton::Left), 11, 0);
    assert_eq!(h.app.inbox().unwrap().tab, 1);

    // `[keys] sort = "z"`: z sorts, s no longer does.
    let mut o = std::collections::HashMap::new();
    o.insert(KeyCommand::Sort, vec![Key::parse("z").unwrap()]);
    h.keymap = Keymap::new(&o);
    h.press("z");
    assert!(h.screen().contains("sort: updated"), "{}", h.screen());
    h.press("s");
    assert!(h.screen().contains("sort: updated"), "{}", h.screen());
}

/// With sections configured and no usable credentials the console opens, and the tab says why
/// (the reason once, on the tab, not an exit before any screen).
#[test]
fn a_section_without_credentials_opens_and_its_tab_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::inbox(
        vec![(
            "Mine".to_owned(),
            TabSource::Unavailable("GitHub refused the token: Bad credentials".to_owned()),
        )],
        Ledger::new(dir.path()),
        Theme::plain(),
        100,
        14,
    );
    h.draw();
    let screen = h.screen();
    assert!(h.app.top_is::<InboxScreen>());
    assert!(
        screen.contains("The list could not be loaded: GitHub refused the token"),
        "{screen}"
    );
    assert!(!h.app.quitting());
}
