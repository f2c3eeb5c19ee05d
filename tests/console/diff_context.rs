//! The diff's context on demand (`e`, `E`): the file's lines around the hunks, read from the
//! file at the PR's head and base when first asked (offline: the fixture's `fileContents`),
//! drawn as context in both layouts; they are not lines of the diff, and the console says so
//! when a comment is asked on one.

use crate::support;

use pr_shepherd::tui::harness::Harness;
use support::console::demo_harness;

/// The demo's Python client (`F j j Enter`): one hunk, old lines 12–23, in a 32-line file.
fn python_diff(h: &mut Harness) {
    h.draw();
    h.press("F j j Enter");
    assert_eq!(h.app.diff_path(), Some("bindings/python/rivet/client.py"));
}

fn diff(h: &Harness) -> &pr_shepherd::tui::app::DiffScreen {
    h.app.diff_screen().expect("the diff on top")
}

/// Guards `e` in the unified layout at 120×35: the 11 lines above the hunk and the 9 below it
/// (the whole file here) are drawn dim with both numbers and no sign; before `e` none is.
#[test]
fn e_shows_the_lines_around_the_hunk_unified() {
    let (mut h, _d) = demo_harness(120, 35);
    python_diff(&mut h);
    let before = h.screen();
    assert!(
        !before.contains("from .errors import RivetError"),
        "{before}"
    );
    h.press("e");
    let screen = h.screen();
    insta::assert_snapshot!("diff_context_unified_120x35", screen);
    // Line 7 of both files, no sign, both numbers.
    let l = screen
        .lines()
        .find(|l| l.contains("from .errors import RivetError"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(l.contains("    7     7  from .errors"), "{l}");
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.contains("more lines of the file shown")),
        "{:?}",
        h.app.notice()
    );
}

/// Guards the narrow screen and `E`: at 80×24 the whole file is shown (its last line too),
/// and `E` again goes back to the hunks only.
#[test]
fn shift_e_shows_the_whole_file_and_again_the_hunks_only_at_80x24() {
    let (mut h, _d) = demo_harness(80, 24);
    python_diff(&mut h);
    h.press("E");
    insta::assert_snapshot!("diff_context_whole_unified_80x24", h.screen());
    h.press("G");
    let screen = h.screen();
    assert!(
        screen.contains("return f\"Client({self._base_url!r})\""),
        "{screen}"
    );
    assert!(!screen.contains("hidden"), "{screen}");
    h.press("E");
    assert_eq!(h.app.notice(), Some("the hunks only"));
    h.press("g");
    let screen = h.screen();
    assert!(
        screen.contains("⋯ 11 lines hidden (e shows 11 more)"),
        "{screen}"
    );
    assert!(!screen.contains("from .errors"), "{screen}");
}

/// Guards the split layout at 200×50: expanded lines on both halves with their own numbers,
/// dim, no sign.
#[test]
fn expanded_lines_side_by_side_at_200x50() {
    let (mut h, _d) = demo_harness(200, 50);
    python_diff(&mut h);
    assert!(h.app.diff_split());
    h.press("E");
    let screen = h.screen();
    insta::assert_snapshot!("diff_context_split_200x50", screen);
    let row = screen
        .lines()
        .find(|l| l.contains("def __enter__"))
        .unwrap_or_else(|| panic!("{screen}"));
    let (left, right) = row.split_once('│').unwrap();
    assert!(left.contains("   25      def __enter__"), "{row}");
    assert!(right.contains("   42      def __enter__"), "{row}");
}

/// Guards the cursor on expanded lines: `k` from the hunk's first line goes onto the line above
/// it, `c`, `S` and `V` there are refused with the reason, `j` and `}` come back to the diff's
/// lines, `|` keeps the cursor on its expanded line; nothing is added to the pending review.
#[test]
fn the_cursor_walks_onto_expanded_lines_where_comments_are_refused() {
    let (mut h, _d) = demo_harness(120, 35);
    python_diff(&mut h);
    h.press("e");
    assert_eq!(diff(&h).on_expanded_line(), None);
    h.press("k");
    assert_eq!(diff(&h).on_expanded_line(), Some((11, 11)));
    assert!(
        h.screen().contains("▶    11    11  from ._native"),
        "{}",
        h.screen()
    );
    assert!(h.app.diff_selection().is_none());
    for key in ["c", "S", "V"] {
        h.press(key);
        assert_eq!(
            h.app.notice(),
            Some(
                "line 11 is not a line of the diff: GitHub takes review comments only on the diff's lines"
            ),
            "{key}"
        );
        assert_eq!(h.app.stack().last().copied(), Some("diff"));
    }
    assert!(!diff(&h).selecting());
    h.press("k k");
    assert_eq!(diff(&h).on_expanded_line(), Some((9, 9)));
    // `|` keeps the cursor on its line, both ways.
    h.press("|");
    assert!(h.app.diff_split());
    assert_eq!(diff(&h).on_expanded_line(), Some((9, 9)));
    h.press("|");
    assert_eq!(diff(&h).on_expanded_line(), Some((9, 9)));
    // `}`: the hunk below.
    h.press("}");
    assert_eq!(diff(&h).on_expanded_line(), None);
    assert_eq!(h.app.diff_selection().map(|s| s.end.line), Some(12));
    h.press("k j");
    assert_eq!(h.app.diff_selection().map(|s| s.end.line), Some(12));
    // Below the hunk: the expanded lines after it, the last line of the file.
    h.press("G");
    assert_eq!(diff(&h).on_expanded_line(), Some((32, 49)));
    h.press("c");
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.starts_with("line 49 is not"))
    );
    assert!(
        h.app.pending_review().is_none_or(|r| r.comments.is_empty()),
        "no comment made"
    );
    // `n`/`N` still go from file to file.
    h.press("n");
    assert_eq!(h.app.diff_path(), Some("web/src/components/RetryBadge.tsx"));
    h.press("N");
    assert_eq!(h.app.diff_path(), Some("bindings/python/rivet/client.py"));
}

/// Guards the files with nothing around their hunks: an added file is all in its diff, a binary
/// one has no lines; said, and nothing read.
#[test]
fn added_and_binary_files_say_there_is_nothing_to_expand() {
    let (mut h, _d) = demo_harness(120, 35);
    h.draw();
    h.press("F Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    h.press("e");
    assert_eq!(
        h.app.notice(),
        Some("src/client/retry.rs is an added file: the diff shows all of it")
    );
    assert!(
        !h.effects
            .iter()
            .any(|e| format!("{e:?}").contains("Contents"))
    );
}
