//! The diff side by side (`|`, `[console] diff_layout`) and the changed words of a modified
//! line: old left, new right, a modified pair on one row, notes under their side; the cursor's
//! side chooses where a comment goes; a toggle keeps the cursor's line.

use crate::support;

use pr_shepherd::code::Side;
use pr_shepherd::config::DiffLayout;
use pr_shepherd::tui::harness::Harness;
use support::console::demo_harness;

/// The demo's Python client (`F j j Enter`): modified pairs, context, an added block.
fn python_diff(h: &mut Harness) {
    h.draw();
    h.press("F j j Enter");
    assert_eq!(h.app.diff_path(), Some("bindings/python/rivet/client.py"));
}

/// Guards the split view at 200×50 (auto: split from 160 columns): the old file's numbers and
/// text on the left, the new file's on the right, a modified pair on one row.
#[test]
fn auto_at_200_columns_is_side_by_side_old_left_new_right() {
    let (mut h, _d) = demo_harness(200, 50);
    python_diff(&mut h);
    assert!(h.app.diff_split());
    let screen = h.screen();
    insta::assert_snapshot!("diff_split_200x50", screen);
    let pair = screen
        .lines()
        .find(|l| l.contains("-        self._inner = _Client(base_url, timeout)"))
        .unwrap_or_else(|| panic!("{screen}"));
    let (left, right) = pair.split_once('│').unwrap();
    assert!(left.contains("-        self._inner"), "{pair}");
    assert!(
        right.contains("+        self._inner = _Client(base_url, timeout, max_attempts"),
        "{pair}"
    );
    // `|` goes back to one column.
    h.press("|");
    assert!(!h.app.diff_split());
}

/// Guards the narrow screen: at 80 columns `auto` is unified; `diff_layout = "split"` still
/// draws both halves readably (each with at least 20 columns of text).
#[test]
fn at_80_columns_auto_is_unified_and_a_forced_split_is_readable() {
    let (mut h, _d) = demo_harness(80, 24);
    python_diff(&mut h);
    assert!(!h.app.diff_split());
    insta::assert_snapshot!("diff_auto_80x24", h.screen());
    let (mut h, _d) = demo_harness(80, 24);
    h.set_diff_layout(DiffLayout::Split);
    python_diff(&mut h);
    assert!(h.app.diff_split());
    let screen = h.screen();
    insta::assert_snapshot!("diff_split_80x24", screen);
    assert!(screen.lines().any(|l| l.contains('│')), "{screen}");
}

/// Guards the changed words: in a removed/added pair only the changed part takes the word
/// style (drawn over the line's own), the rest of the line keeps the line's.
#[test]
fn changed_words_of_a_modified_line_are_marked() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("F j Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    let screen = h.screen();
    insta::assert_snapshot!("diff_words_unified_120x30", screen);
    let theme = h.theme.clone();
    let buf = h.terminal.backend().buffer().clone();
    let cell_of = |needle: &str, offset: usize| {
        let (y, line) = screen
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(needle) && !l.contains('┆'))
            .unwrap_or_else(|| panic!("{needle}: {screen}"));
        let col = line[..line.find(needle).unwrap()].chars().count() + offset;
        buf[(col as u16, y as u16)].clone()
    };
    // `"rivet/0.8"` → `"rivet/0.9"`: the `8` and the `9` are marked, `rivet` is not.
    let old = cell_of("\"rivet/0.8\"", 9);
    let new = cell_of("\"rivet/0.9\"", 9);
    assert_eq!(old.symbol(), "8");
    assert_eq!(new.symbol(), "9");
    assert_eq!(Some(old.bg), theme.diff_word_removed.bg);
    assert_eq!(Some(new.bg), theme.diff_word_added.bg);
    let plain = cell_of("\"rivet/0.9\"", 2);
    assert_eq!(plain.symbol(), "i");
    assert_eq!(Some(plain.bg), theme.diff_added.bg);
}

/// Guards a comment on the old side: `h` puts the cursor on the left half of a context row and
/// `c` writes a comment on `LEFT` with the old file's line number.
#[test]
fn c_on_the_left_side_comments_on_the_old_line() {
    let (mut h, _d) = demo_harness(200, 50);
    python_diff(&mut h);
    // The eleventh row: context, old line 16 beside new line 22.
    h.press("j j j j j j j j j j");
    let right = h.app.diff_selection().unwrap();
    h.press("h");
    let left = h.app.diff_selection().unwrap();
    assert_eq!((left.end.side, left.end.line), (Side::Left, 16), "{left:?}");
    assert_eq!(
        (right.end.side, right.end.line),
        (Side::Right, 22),
        "{right:?}"
    );
    // `S` is for the new side only.
    h.press("S");
    assert!(
        h.app.notice().is_some_and(|n| n.contains("new side")),
        "{:?}",
        h.app.notice()
    );
    h.press("c");
    h.draw();
    h.type_text("Why was this removed?");
    h.press("Esc");
    h.draw();
    let r = h.app.pending_review().expect("the pending review");
    assert_eq!(r.comments.len(), 1, "{r:?}");
    let c = &r.comments[0];
    assert_eq!(
        (c.side, c.line, c.body.as_str()),
        (Side::Left, left.end.line, "Why was this removed?")
    );
}

/// Guards the toggle: `|` keeps the cursor on its patch line, both ways, on a removed line (the
/// left side) and an added one (the right).
#[test]
fn toggling_the_layout_keeps_the_cursors_line() {
    let (mut h, _d) = demo_harness(120, 40);
    python_diff(&mut h);
    assert!(!h.app.diff_split());
    for _ in 0..3 {
        h.press("j");
        let before = h.app.diff_selection().unwrap();
        h.press("|");
        assert!(h.app.diff_split());
        assert_eq!(h.app.diff_selection().unwrap(), before);
        h.press("|");
        assert!(!h.app.diff_split());
        assert_eq!(h.app.diff_selection().unwrap(), before);
    }
    h.press("|");
    assert!(h.screen().contains('▶'), "{}", h.screen());
}

/// The layout `|` chose holds from file to file (`n`/`N`), as a maintainer reading the PR in
/// split view expects. Failed before: the next file opened unified again.
#[test]
fn the_chosen_layout_holds_across_files() {
    let (mut h, _d) = demo_harness(120, 40);
    h.draw();
    h.press("F Enter");
    assert!(!h.app.diff_split());
    h.press("|");
    assert!(h.app.diff_split());
    h.press("n");
    assert!(h.app.diff_split(), "{}", h.screen());
    h.press("N");
    assert!(h.app.diff_split(), "{}", h.screen());
}
