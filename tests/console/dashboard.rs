//! The inbox as a table at the widths people use: 80, 120 and 200 columns, each with its
//! header and the columns that fit (the title shrinks first, then columns go).

use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::effects::inbox::TabSource;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;

fn bundled(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let harness = Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        Ledger::new(dir.path()),
        Theme::plain(),
        w,
        h,
    );
    (harness, dir)
}

fn header(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(" PR ") && l.contains("title"))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn at_80_columns_the_table_keeps_checks_review_and_requests() {
    let (mut h, _d) = bundled(80, 12);
    h.draw();
    let screen = h.screen();
    let head = header(&screen);
    for col in ["PR", "unseen", "title", "checks", "review", "asks"] {
        assert!(head.contains(col), "{col}: {screen}");
    }
    assert!(screen.contains("✗1 …1 ✓2"), "{screen}");
    insta::assert_snapshot!("dashboard_80", screen);
}

#[test]
fn at_120_columns_the_table_adds_the_gate_and_the_author() {
    let (mut h, _d) = bundled(120, 12);
    h.draw();
    let screen = h.screen();
    let head = header(&screen);
    for col in ["checks", "review", "asks", "gate", "author"] {
        assert!(head.contains(col), "{col}: {screen}");
    }
    insta::assert_snapshot!("dashboard_120", screen);
}

#[test]
fn at_200_columns_every_column_shows() {
    let (mut h, _d) = bundled(200, 12);
    h.draw();
    let screen = h.screen();
    let head = header(&screen);
    for col in [
        "PR", "unseen", "title", "checks", "review", "asks", "size", "age", "shepherd", "gate",
        "author", "labels",
    ] {
        assert!(head.contains(col), "{col}: {screen}");
    }
    assert!(screen.contains("+111 −4 5f"), "{screen}");
    insta::assert_snapshot!("dashboard_200", screen);
}
