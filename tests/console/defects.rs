//! The defects a new user tripped on ("Defects found trying the console as a new
//! user"): one test (or more) per defect, each failing before its fix. Key sequences through the
//! console loop on a TestBackend (`tui::harness`).

use crate::support;

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::PrCoords;
use pr_shepherd::tui::app::{Focus, InputMode, Pane};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;
use support::console::{coords, open};

fn seen_count(dir: &Path, pr: &PrCoords) -> usize {
    Ledger::new(dir).load_seen(pr).unwrap().markers.len()
}

/// Defect 13: `q` closes the current view and quits only at the top level; `Q` quits from
/// anywhere.
#[test]
fn q_closes_the_current_view_and_capital_q_quits_from_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    // Full-width detail: q unzooms.
    h.press("Enter");
    assert!(h.app.zoomed());
    h.press("q");
    assert!(
        !h.app.quitting(),
        "q in the full-width detail must not quit"
    );
    assert!(!h.app.zoomed());
    // The review pane: q closes it.
    h.press("r");
    assert_eq!(h.app.pane(), Some(Pane::Review));
    h.press("Tab q");
    assert!(!h.app.quitting() && h.app.focus().unwrap() == Focus::List);
    h.press("q");
    assert!(!h.app.quitting(), "q in the review pane must not quit");
    assert_eq!(h.app.pane(), Some(Pane::Item));
    // Top level: q quits, asking first for the unposted draft the review left.
    h.press("q");
    assert!(!h.app.quitting());
    assert!(
        matches!(h.app.mode(), InputMode::ConfirmQuit { lost } if lost.iter().any(|l| l.contains("draft"))),
        "{:?}",
        h.app.mode()
    );
    h.press("y");
    assert!(h.app.quitting());

    // Q quits from a nested view at once.
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("Tab Enter Q");
    // The draft restored from the first run is still unposted: Q asks too, y quits.
    h.press("y");
    assert!(h.app.quitting());
}

/// Defect 13: `M` asks first, naming how many, and reports what it did.
#[test]
fn capital_m_asks_first_naming_how_many() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 30, 8); // too small: nothing is marked by being shown
    let pr = coords(&h);
    h.draw();
    h.press("M");
    assert!(
        matches!(h.app.mode(), InputMode::Asked),
        "M opens a question"
    );
    h.resize(120, 40);
    h.draw();
    assert!(
        h.screen().contains("Mark 18 listed items seen?"),
        "{}",
        h.screen()
    );
    h.press("n");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert_eq!(
        seen_count(dir.path(), &pr),
        1,
        "only the item shown on screen"
    );
    h.press("M");
    assert!(
        h.screen().contains("Mark 17 listed items seen?"),
        "{}",
        h.screen()
    );
    h.press("y");
    assert_eq!(seen_count(dir.path(), &pr), 18);
    assert!(
        h.screen().contains("marked 17 listed items seen"),
        "{}",
        h.screen()
    );
}

/// Defect 10: after a resize the very next frame keeps the selection visible and the list
/// filled (before, it showed the old scroll until the next key).
#[test]
fn a_resize_keeps_the_selection_visible_and_the_list_filled() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 60, 12);
    h.draw();
    h.press("G");
    h.resize(200, 60);
    h.draw();
    let screen = h.screen();
    assert!(
        screen.contains("Review threads (7)"),
        "all 21 rows fit: the list starts at the top\n{screen}"
    );
    assert!(screen.contains('▶'), "{screen}");

    let mut h = open(dir.path(), 200, 60);
    h.draw();
    h.press("G");
    h.resize(60, 14);
    h.draw();
    let screen = h.screen();
    assert!(
        screen.contains('▶'),
        "the selection stays visible\n{screen}"
    );
}

/// The footer, and below it the status line while a notice shows (`notice  hints`).
fn footer(h: &Harness) -> String {
    let screen = h.screen();
    let rows: Vec<&str> = screen.lines().collect();
    match rows.as_slice() {
        [.., hints, status] if status.ends_with("! messages") => format!("{status}  {hints}"),
        [.., last] => (*last).to_owned(),
        [] => String::new(),
    }
}

/// Defect 5: with the findings focused, keys act on the findings (Enter does not collapse a
/// group of the hidden list) and the footer follows the focus.
#[test]
fn keys_act_on_the_focused_findings_and_the_footer_follows_focus() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("g r");
    assert_eq!(h.app.pane(), Some(Pane::Review));
    let list_footer = footer(&h);
    assert!(list_footer.contains("Tab findings"), "{list_footer}");
    h.press("Tab");
    let rows = h.app.row_count();
    // Enter opens the finding under the cursor (Esc goes back to the findings).
    h.press("Enter");
    assert!(h.app.opened_finding().is_some());
    h.press("Esc ] [");
    assert_eq!(h.app.row_count(), rows, "the hidden list is untouched");
    assert_eq!(h.app.selected_row(), Some(0));
    let f = footer(&h);
    assert!(f.contains("Tab list"), "{f}");
    assert!(f.contains("a addressed"), "{f}");
    assert_ne!(f, list_footer);
}

/// Defect 6: with the review pane open (or a review running), moving in the list shows the
/// item's detail and marks it seen; the review is one key (`v`) away.
#[test]
fn the_list_stays_usable_with_the_review_pane_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    let pr = coords(&h);
    h.draw();
    h.press("r");
    assert_eq!(h.app.pane(), Some(Pane::Review));
    let before = seen_count(dir.path(), &pr);
    h.press("j j");
    let id = h.app.selected_item().unwrap().id().to_owned();
    assert!(
        Ledger::new(dir.path())
            .load_seen(&pr)
            .unwrap()
            .markers
            .contains_key(&id),
        "the selected item was shown and marked seen"
    );
    assert_eq!(seen_count(dir.path(), &pr), before + 2);
    assert!(h.screen().contains(" Detail "), "{}", h.screen());
    h.press("v");
    assert_eq!(h.app.pane(), Some(Pane::Review));
}

/// Defect 12: header and footer text is cut with a sign (…), a status message leaves room for
/// the key hints, and the footer does not repeat hints.
#[test]
fn header_and_footer_are_cut_with_a_sign_and_keep_the_hints() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 80, 24);
    h.draw();
    let screen = h.screen();
    let lines: Vec<&str> = screen.lines().collect();
    for l in &lines[..2] {
        assert!(l.ends_with('…'), "a cut header line ends with …: {l:?}");
    }
    h.press("r");
    let f = footer(&h);
    assert!(f.contains("review finished"), "{f}");
    assert!(f.contains("Tab findings"), "the hints stay: {f}");
    assert_eq!(f.matches("edit").count(), 1, "no repeated hints: {f}");
    assert!(f.ends_with('…') || f.contains("quit"), "{f}");
}

/// Defect 7: the help overlay wraps (never cuts a description) and scrolls; every binding is
/// readable at 120×40 and at 80×24.
#[test]
fn help_wraps_and_scrolls_every_binding_readable() {
    for (w, hgt) in [(120, 40), (80, 24)] {
        let dir = tempfile::tempdir().unwrap();
        let mut h = open(dir.path(), w, hgt);
        h.draw();
        h.press("?");
        // The overlay's inside (it is centred, at most 100 columns wide): wrapped descriptions
        // continue on the next line, so the text is read across lines.
        let rect_w = usize::from(w - 4).min(100);
        let x0 = (usize::from(w) - rect_w) / 2;
        let mut seen = String::new();
        for _ in 0..60 {
            for line in h.screen().lines() {
                let inside: String = line.chars().skip(x0 + 1).take(rect_w - 2).collect();
                seen.push_str(&inside);
                seen.push('\n');
            }
            h.press("j");
        }
        assert_eq!(
            *h.app.mode(),
            InputMode::Help,
            "j scrolls, it does not close help"
        );
        let text: String = seen.split_whitespace().collect::<Vec<_>>().join(" ");
        // The files', the diff's, the inbox's, the checks' and the pending review's own keys are
        // in their screens' help.
        let own = |help: &str| {
            help.starts_with("files: ")
                || help.starts_with("diff: ")
                || help.starts_with("inbox: ")
                || help.starts_with("checks: ")
                || help.starts_with("pending review: ")
        };
        for (_, _, _, help) in pr_shepherd::keys::COMMANDS.iter().filter(|c| !own(c.3)) {
            assert!(
                text.contains(help),
                "{w}×{hgt}: “{help}” not readable\n{seen}"
            );
        }
        h.press("?");
        assert_eq!(*h.app.mode(), InputMode::Normal);
    }
}

/// Defect 8: the console's findings are in the posted review's order (new first, then by
/// severity within each aspect section), checked against the body that will be posted.
#[test]
fn findings_are_listed_in_the_posted_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("r");
    let composed = h.app.composed().unwrap();
    let rows = composed.finding_rows();
    assert!(rows.len() > 2, "{rows:?}");
    let at: Vec<usize> = rows
        .iter()
        .map(|(id, _)| {
            composed
                .body
                .find(id.as_str())
                .expect("every finding is posted")
        })
        .collect();
    let mut sorted = at.clone();
    sorted.sort_unstable();
    assert_eq!(at, sorted, "{rows:#?}");
}

/// Defect 9: stepping back through fixture history is a look at the past — it never moves a
/// seen marker back to an older version, so the later step does not show items EDITED again
/// (and reopening the console at step 0 does not either).
#[test]
fn stepping_back_never_moves_a_marker_to_an_older_version() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    let pr = coords(&h);
    h.draw();
    h.press("> >");
    assert_eq!(h.app.step(), Some((2, 2)));
    h.press("M y");
    let latest = Ledger::new(dir.path()).load_seen(&pr).unwrap().markers;
    assert_eq!(h.app.counts().unwrap().edited, 0);
    // Back to the past, looking at every item there.
    h.press("< <");
    h.press("g");
    for _ in 0..h.app.row_count() {
        h.press("j");
    }
    let after = Ledger::new(dir.path()).load_seen(&pr).unwrap().markers;
    for (id, m) in &latest {
        assert_eq!(
            after.get(id).map(|a| &a.body_hash),
            Some(&m.body_hash),
            "{id}: the marker moved back"
        );
    }
    h.press("> >");
    assert_eq!(h.app.step(), Some((2, 2)));
    assert_eq!(
        h.app.counts().unwrap().edited,
        0,
        "nothing re-surfaces as edited"
    );

    // A new console opens at step 0 with the later markers: looking there changes nothing.
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("j j j j");
    let reopened = Ledger::new(dir.path()).load_seen(&pr).unwrap().markers;
    for (id, m) in &latest {
        assert_eq!(
            reopened.get(id).map(|a| &a.body_hash),
            Some(&m.body_hash),
            "{id}"
        );
    }
}

fn open_with_draft(dir: &Path, body: &str) -> Harness {
    let f = support::demo_fixture();
    let snap = f.snapshot_at(0).unwrap();
    let ledger = Ledger::new(dir);
    let draft = pr_shepherd::ledger::Draft {
        body: body.to_owned(),
        head_sha: snap.pr.head_sha.clone(),
        saved_at: 0,
    };
    ledger.save_draft(&snap.pr.coords(), &draft).unwrap();
    Harness::new(snap, Some(f), ledger, Theme::default_theme(), 120, 40).unwrap()
}

/// Defect 1: the editor starts below the `## PR Shepherd Review` header, so typed text never
/// lands above it; a body without the header is refused before the confirmation box, saying why.
#[test]
fn the_editor_keeps_the_header_and_a_headerless_body_is_refused_before_confirming() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open_with_draft(dir.path(), "## PR Shepherd Review\n\nLooks fine.");
    h.draw();
    h.press("e");
    assert_eq!(*h.app.mode(), InputMode::Edit);
    h.type_text("Note");
    h.press("Esc");
    let body = h.app.draft().unwrap().body();
    assert!(body.starts_with("## PR Shepherd Review\n"), "{body:?}");
    assert!(body.contains("Note"), "{body:?}");

    let dir = tempfile::tempdir().unwrap();
    let mut h = open_with_draft(dir.path(), "Oops\n## PR Shepherd Review\n\nLooks fine.");
    h.draw();
    h.effects.clear();
    h.press("p");
    match h.app.pr_asked() {
        Some(pr_shepherd::tui::app::PrAsk::Refused(why)) => {
            assert!(why.contains("## PR Shepherd Review"), "{why}")
        }
        other => panic!("expected a refusal before the confirm box, got {other:?}"),
    }
    assert!(
        h.effects.iter().all(|e| !matches!(
            e.work(),
            Some(pr_shepherd::tui::app::pr::Work::PlanPost { .. })
        )),
        "{:?}",
        h.effects
    );
}

/// Defect 3: under "hide minimized", a new minimized item keeps its promise (it is listed) but
/// shows as one collapsed line — badge, author, reason — and its text stays folded (and unmarked)
/// until it is opened with Enter.
#[test]
fn new_minimized_items_are_one_collapsed_line_until_opened() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 44);
    let pr = coords(&h);
    h.draw();
    let rows = h.app.row_count();
    h.press("f m Esc");
    assert_eq!(h.app.row_count(), rows, "new items stay listed");
    let screen = h.screen();
    let spam = screen
        .lines()
        .find(|l| l.contains("@quickwins99"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(spam.contains("MINIMIZED(spam)"), "{spam}");
    assert!(spam.contains("Enter opens"), "collapsed: {spam}");
    // Select it: the detail stays folded and nothing is marked.
    h.press("g");
    let is_spam = |h: &Harness| {
        h.app
            .selected_item()
            .is_some_and(|i| i.login() == "quickwins99")
    };
    while !is_spam(&h) {
        h.press("j");
    }
    let id = h.app.selected_item().unwrap().id().to_owned();
    assert!(
        h.app
            .selected_item()
            .unwrap()
            .body()
            .contains("free credits")
    );
    let first_words = "free credits";
    assert!(!h.screen().contains(first_words), "{}", h.screen());
    assert!(
        !Ledger::new(dir.path())
            .load_seen(&pr)
            .unwrap()
            .markers
            .contains_key(&id),
        "a folded item is not marked seen"
    );
    // Enter opens it: shown, and so marked seen.
    h.press("Enter");
    assert!(h.screen().contains(first_words), "{}", h.screen());
    assert!(
        Ledger::new(dir.path())
            .load_seen(&pr)
            .unwrap()
            .markers
            .contains_key(&id)
    );
}

/// Defect 14: the mouse — a click selects the row under the pointer; the wheel scrolls the pane
/// under it (list, detail, review pane, help).
#[test]
fn a_click_selects_a_row_and_the_wheel_scrolls_the_pane_under_the_pointer() {
    use ratatui::crossterm::event::{MouseButton, MouseEventKind};
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    // Click on the row showing @rajesh-k (the list is on the left at 120 columns).
    let screen = h.screen();
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("@rajesh-k") && !l.contains('▶'))
        .unwrap_or_else(|| panic!("{screen}"));
    let x = line.chars().position(|c| c == '@').unwrap() as u16;
    h.mouse(MouseEventKind::Down(MouseButton::Left), x, y as u16);
    assert_eq!(
        h.app.selected_item().unwrap().login(),
        "rajesh-k",
        "{}",
        h.screen()
    );
    // The wheel over the list moves the selection.
    let before = h.app.selected_row().unwrap();
    h.mouse(MouseEventKind::ScrollDown, x, y as u16);
    assert_eq!(h.app.selected_row(), Some(before + 1));
    // The wheel over the detail (right half) scrolls it.
    h.resize(120, 16); // a short detail pane, so items scroll
    h.draw();
    let mut scrolled = false;
    for _ in 0..h.app.row_count() {
        h.mouse(MouseEventKind::ScrollDown, 100, 10);
        if h.app.detail_scroll().unwrap() > 0 {
            scrolled = true;
            break;
        }
        h.press("j");
    }
    assert!(scrolled, "some item's detail scrolls under the wheel");
    h.mouse(MouseEventKind::ScrollUp, 100, 10);
    assert_eq!(h.app.detail_scroll(), Some(0));
    // The help overlay scrolls under the wheel at 80×24.
    h.resize(80, 24);
    h.press("?");
    h.mouse(MouseEventKind::ScrollDown, 40, 12);
    assert!(h.app.help_scroll() > 0);
    h.press("Esc");
    // The review pane scrolls under the wheel.
    h.resize(120, 40);
    h.press("r");
    h.mouse(MouseEventKind::ScrollDown, 100, 20);
    assert!(h.app.review_scroll().unwrap() > 0);
}

/// A COLLABORATOR's side reads as the gates count it: "(community)" in the header and beside
/// their comments with the default gates (which gate them as community), "(team)" only with
/// `[gates] collaborators_are_team`.
#[test]
fn a_collaborator_is_labelled_as_the_gates_count_them() {
    use pr_shepherd::pr::Association;
    use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
    let dir = tempfile::tempdir().unwrap();
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap();
    let mut snap = f.snapshot_at(0).unwrap();
    snap.pr.author.association = Association::Collaborator;
    snap.pr.labels.clear();
    let login = snap.pr.author.login.clone();
    let mut h = Harness::new(
        snap,
        None,
        Ledger::new(dir.path()),
        Theme::default_theme(),
        140,
        30,
    )
    .unwrap();
    h.draw();
    let screen = h.screen();
    let header = screen
        .lines()
        .find(|l| l.contains(&format!("@{login} (")))
        .unwrap_or_default();
    assert!(header.contains("(community)"), "{screen}");
    let gate = h.app.gate().unwrap();
    assert!(!gate.reason.contains("team PR"), "{}", gate.reason);

    h.set_gates(pr_shepherd::policy::GateConfig {
        collaborators_are_team: true,
        ..Default::default()
    });
    h.draw();
    let screen = h.screen();
    assert!(screen.contains(&format!("@{login} (team)")), "{screen}");
}
