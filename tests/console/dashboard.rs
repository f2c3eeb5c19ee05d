//! The inbox as a table at the widths people use: 80, 120 and 200 columns, each with its
//! header and the columns that fit (the title shrinks first, then columns go).

use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::inbox_link::TabSource;
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
fn at_80_columns_the_table_keeps_the_checks_the_review_and_half_the_row_for_the_title() {
    let (mut h, _d) = bundled(80, 12);
    h.draw();
    let screen = h.screen();
    let head = header(&screen);
    for col in ["PR", "unseen", "title", "checks", "review"] {
        assert!(head.contains(col), "{col}: {screen}");
    }
    // The title has at least half the row: from its header word to the next column's.
    let title_at = head.find("title").unwrap();
    let checks_at = head.find("checks").unwrap();
    assert!(head[title_at..checks_at].chars().count() >= 40, "{screen}");
    assert!(screen.contains("✗1 …1 ✓2"), "{screen}");
    insta::assert_snapshot!("dashboard_80", screen);
}

#[test]
fn at_120_columns_the_table_adds_review_asks_and_shepherd_and_the_title_reads_whole() {
    let (mut h, _d) = bundled(120, 12);
    h.draw();
    let screen = h.screen();
    let head = header(&screen);
    for col in ["checks", "review", "asks", "shepherd"] {
        assert!(head.contains(col), "{col}: {screen}");
    }
    // The title keeps at least half the row (it had 17 cells before: `docs: fix the ty…`).
    assert!(
        screen.contains("docs: fix the typo in the retry guide"),
        "{screen}"
    );
    insta::assert_snapshot!("dashboard_120", screen);
}

#[test]
fn at_260_columns_every_column_shows() {
    let (mut h, _d) = bundled(260, 12);
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
    insta::assert_snapshot!("dashboard_260", screen);
}
