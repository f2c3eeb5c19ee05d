//! From the pending review to the code: `Enter` on a pending comment opens its file's diff at its
//! line on its side (a range at its last line), `Esc` comes back; a line no longer in the diff
//! opens the file and says so. The pending composer hands its text to `$EDITOR` with `ctrl-o`.

use crate::support;

use pr_shepherd::code::Side;
use pr_shepherd::code::pending::{CommentKind, PendingReview};
use pr_shepherd::ledger::Ledger;
use support::console::open;

/// A stand-in for `$VISUAL`: appends a line to the file it is given.
fn stand_in_editor(dir: &std::path::Path) -> String {
    let path = dir.join("stand-in-editor.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nprintf 'added in the external editor\\n' >> \"$1\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

/// Guards `ctrl-o` in the line-comment composer (the diff's `c`, the default keymap): the text
/// goes to `$EDITOR` and its answer replaces it; `Esc` adds the edited comment.
#[test]
fn ctrl_o_in_the_line_comment_composer_edits_in_the_external_editor() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.runner.session.editor = Some(stand_in_editor(dir.path()));
    h.draw();
    h.press("F j Enter j c");
    let editing = |h: &pr_shepherd::tui::harness::Harness| {
        h.app
            .diff_composer()
            .unwrap_or_else(|| panic!("the composer is open: {}", h.screen()))
    };
    h.type_text("first line");
    assert!(
        h.screen().contains("ctrl-o $EDITOR"),
        "the title names the key: {}",
        h.screen()
    );
    h.press("ctrl-o");
    assert_eq!(editing(&h), "first line\nadded in the external editor");
    h.press("Esc");
    let review = h.app.pending_review().unwrap();
    let c = review.comments.last().unwrap();
    assert_eq!(c.body, "first line\nadded in the external editor");
    assert_eq!((c.path.as_str(), c.line), ("src/client/mod.rs", 2));
}

/// The demo PR's pending review: an old-side comment, a two-line comment and one on a line the
/// diff no longer shows, all on `src/client/mod.rs`.
fn saved_review(state: &std::path::Path) {
    let mut r = PendingReview::default();
    let path = "src/client/mod.rs";
    let add = |r: &mut PendingReview, side, start, line, body| {
        r.add(path, side, start, line, body, CommentKind::Comment, None)
            .unwrap();
    };
    add(&mut r, Side::Left, None, 5, "why 0.8 went");
    add(&mut r, Side::Right, Some(4), 5, "these two uses");
    add(&mut r, Side::Right, None, 40, "a line that left");
    Ledger::new(state)
        .save_pending(&support::demo_coords(), &r)
        .unwrap();
}

/// Guards `Enter` on pending comments (the PR screen's `P`): the diff opens at the comment's
/// line on its side — old line 5 on the left, a range at its last line — `Esc` returns to the
/// pending review, and a line no longer in the diff opens the file and says so.
#[test]
fn enter_on_a_pending_comment_opens_its_diff_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    saved_review(dir.path());
    let mut h = open(dir.path(), 120, 30);
    h.draw();
    h.press("P");
    assert_eq!(h.app.pending_review().unwrap().comments.len(), 3);

    h.press("Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    let sel = h.app.diff_selection().unwrap();
    assert_eq!((sel.end.side, sel.end.line), (Side::Left, 5));
    insta::assert_snapshot!("pending_enter_opens_the_diff_at_old_line_5", h.screen());

    h.press("Esc");
    assert_eq!(h.app.stack().last(), Some(&"pending review"));
    h.press("j Enter");
    let sel = h.app.diff_selection().unwrap();
    assert_eq!((sel.end.side, sel.end.line), (Side::Right, 5));
    assert!(sel.start.is_none(), "the cursor, not a selection");

    h.press("Esc j Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(said.contains("line 40 is no longer in this diff"), "{said}");
    assert_eq!(h.app.diff_screen().unwrap().cursor(), 0);
    h.press("Esc");
    assert_eq!(h.app.stack().last(), Some(&"pending review"));
}

/// Guards a posted comment: `Enter` never keeps it again (it would be posted twice) — said — and
/// still opens its diff at its line.
#[test]
fn enter_on_a_posted_comment_says_so_and_opens_its_diff() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = PendingReview::default();
    r.add(
        "src/client/mod.rs",
        Side::Right,
        None,
        7,
        "0.9 is the release script's",
        CommentKind::Comment,
        None,
    )
    .unwrap();
    r.comments[0].state = pr_shepherd::code::pending::DraftState::Posted;
    Ledger::new(dir.path())
        .save_pending(&support::demo_coords(), &r)
        .unwrap();
    let mut h = open(dir.path(), 120, 30);
    h.draw();
    h.press("P Enter");
    let sel = h.app.diff_selection().unwrap();
    assert_eq!((sel.end.side, sel.end.line), (Side::Right, 7));
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(said.contains("already on the PR"), "{said}");
    h.press("Esc");
    assert_eq!(
        h.app.pending_review().unwrap().comments[0].state,
        pr_shepherd::code::pending::DraftState::Posted
    );
}
