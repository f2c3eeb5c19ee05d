//! The console's code screens on real history (`support::history`: a repository made with git,
//! a PR on it, a force-push that moved lines, amended one and dropped a file), git the oracle
//! for every line number and side: threads on the old side sit on their old rows, an outdated
//! thread is shown with the code it was written on, a dropped file is said, a viewed file that
//! GitHub dismissed only because its lines moved says so; and no body shows pr-shepherd's own
//! hidden markers.

use crate::support;

use pr_shepherd::code::parse;
use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{ChangedFile, Item, Snapshot, ViewedState};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;
use serde_json::json;
use support::history::{
    ADDED_LINE, CONTEXT_LINE, DROPPED, History, LIB, LIB_LINE_H1, LIB_LINE_H2, REMOVED_LINE, WALK,
};

/// A review thread by @maya-chen on `path`; outdated when it is on no `line` now.
fn thread(
    id: &str,
    path: &str,
    side: &str,
    line: Option<u32>,
    original: u32,
    hunk: &str,
    body: &str,
) -> Item {
    let outdated = line.is_none();
    serde_json::from_value(json!({
        "kind": "thread",
        "id": id,
        "path": path,
        "line": line,
        "originalLine": original,
        "diffSide": side,
        "diffHunk": hunk,
        "outdated": outdated,
        "resolved": false,
        "comments": [{
            "id": format!("{id}_1"),
            "author": {"login": "maya-chen", "association": "MEMBER"},
            "createdAt": "2026-11-20T09:14:03Z",
            "url": "https://github.com/acme/rivet/pull/482#discussion_r1",
            "body": body,
        }],
    }))
    .unwrap()
}

/// The demo PR with these files and items.
fn snapshot(files: Vec<ChangedFile>, items: Vec<Item>) -> Snapshot {
    let mut s = support::demo_fixture().snapshot_at(0).unwrap();
    s.pr.files = files;
    s.items = items;
    s
}

fn console(s: Snapshot, dir: &std::path::Path, w: u16, h: u16) -> Harness {
    Harness::new(s, None, Ledger::new(dir), Theme::plain(), w, h).unwrap()
}

/// Opens the diff of `path` from the PR screen.
fn open_diff(h: &mut Harness, files: &[ChangedFile], path: &str) {
    let idx = files.iter().position(|f| f.path == path).unwrap();
    h.draw();
    h.press("F");
    for _ in 0..idx {
        h.press("j");
    }
    h.press("Enter");
    assert_eq!(h.app.diff_path(), Some(path));
}

/// The screen line right under the only diff row that shows `text` with these line numbers.
fn under_row(screen: &str, old: Option<u32>, new: Option<u32>, text: &str) -> String {
    let num = |n: Option<u32>| n.map_or(String::new(), |n| n.to_string());
    let numbers = format!("{:>5} {:>5} ", num(old), num(new));
    let lines: Vec<&str> = screen.lines().collect();
    let rows: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(&numbers) && lines[i].contains(text.trim()))
        .collect();
    assert_eq!(rows.len(), 1, "`{numbers}{text}`:\n{screen}");
    lines.get(rows[0] + 1).unwrap_or(&"").to_string()
}

fn viewed(files: &[support::history::PrFile], path: &str, v: ViewedState) -> Vec<ChangedFile> {
    files
        .iter()
        .map(|f| {
            f.changed(if f.filename == path {
                v
            } else {
                ViewedState::Unviewed
            })
        })
        .collect()
}

/// A thread on the old side (GitHub's `LEFT`) sits under the old-side row with its number: a
/// removed row, and a context row whose new number differs; a new-side thread under its new row.
#[test]
fn threads_on_the_old_side_sit_under_their_old_rows() {
    let hist = History::build();
    let repo = &hist.repo;
    // git's numbers: the removed line on the old side, the context line on both.
    let removed = repo.line_of(&hist.base1, WALK, REMOVED_LINE);
    let ctx_old = repo.line_of(&hist.base1, WALK, CONTEXT_LINE);
    let ctx_new = repo.line_of(&hist.head1, WALK, CONTEXT_LINE);
    let added = repo.line_of(&hist.head1, WALK, ADDED_LINE);
    assert_ne!(ctx_old, ctx_new, "the context row's numbers differ");
    let files = viewed(&hist.files1(), "", ViewedState::Unviewed);
    let items = vec![
        thread(
            "T_removed",
            WALK,
            "LEFT",
            Some(removed),
            removed,
            "",
            "On the removed line.",
        ),
        thread(
            "T_context",
            WALK,
            "LEFT",
            Some(ctx_old),
            ctx_old,
            "",
            "On the context row, old side.",
        ),
        thread(
            "T_added",
            WALK,
            "RIGHT",
            Some(added),
            added,
            "",
            "On the added line.",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut h = console(snapshot(files.clone(), items), dir.path(), 120, 40);
    open_diff(&mut h, &files, WALK);
    let screen = h.screen();
    assert!(!screen.contains("not in this diff"), "{screen}");
    assert!(
        under_row(&screen, Some(removed), None, REMOVED_LINE)
            .contains("┆ thread @maya-chen: On the removed line."),
        "{screen}"
    );
    assert!(
        under_row(&screen, Some(ctx_old), Some(ctx_new), CONTEXT_LINE)
            .contains("┆ thread @maya-chen: On the context row, old side."),
        "{screen}"
    );
    assert!(
        under_row(&screen, None, Some(added), ADDED_LINE)
            .contains("┆ thread @maya-chen: On the added line."),
        "{screen}"
    );
    insta::assert_snapshot!("code_history_old_side_120x40", screen);
    // `]` walks them in the diff's order.
    h.press("g ]");
    let sel = h.app.diff_selection().unwrap();
    assert_eq!(sel.end.line, added);
}

/// After the force-push amended line 10 of `src/lib.rs`, the thread written on it at H1 is
/// outdated: shown with its own hunk (the code it was written on), never under the row that now
/// has number 10.
#[test]
fn an_outdated_thread_is_shown_with_the_code_it_was_written_on() {
    let hist = History::build();
    let repo = &hist.repo;
    let line = repo.line_of(&hist.head1, LIB, LIB_LINE_H1);
    assert_eq!(repo.line_of(&hist.head2, LIB, LIB_LINE_H2), line);
    // GitHub's diffHunk: the hunk at H1 from its header to the commented line.
    let files1 = hist.files1();
    let patch1 = support::history::file(&files1, LIB).patch.clone().unwrap();
    let parsed = parse(&patch1);
    let at = parsed
        .lines
        .iter()
        .position(|l| l.new == Some(line) && l.text == LIB_LINE_H1)
        .unwrap();
    let hunk: Vec<&str> = patch1.lines().take(at + 2).collect();
    let hunk = hunk.join("\n");
    assert!(hunk.ends_with(&format!("+{LIB_LINE_H1}")), "{hunk}");
    let files = viewed(&hist.files2(), "", ViewedState::Unviewed);
    let items = vec![thread(
        "T_outdated",
        LIB,
        "RIGHT",
        None,
        line,
        &hunk,
        "Why 100?",
    )];
    let dir = tempfile::tempdir().unwrap();
    let mut h = console(snapshot(files.clone(), items), dir.path(), 120, 30);
    open_diff(&mut h, &files, LIB);
    let screen = h.screen();
    // Not beside the code that now has its old number.
    let now = under_row(&screen, None, Some(line), LIB_LINE_H2);
    assert!(!now.contains("thread"), "{screen}");
    // Above the diff, marked, with the line it was written on.
    let lines: Vec<&str> = screen.lines().collect();
    let note = lines
        .iter()
        .position(|l| l.contains("┆ thread @maya-chen: Why 100?"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(lines[note].contains("outdated"), "{screen}");
    let first_row = lines.iter().position(|l| l.contains("@@ -")).unwrap();
    assert!(note < first_row, "{screen}");
    assert!(
        lines[note + 1..first_row]
            .iter()
            .any(|l| l.contains(&format!("┆ +{LIB_LINE_H1}"))),
        "{screen}"
    );
    insta::assert_snapshot!("code_history_outdated_120x30", screen);
}

/// After the force-push the files screen lists the dropped file as no longer in the PR, with
/// whether you had viewed it, and a viewed file that GitHub dismissed only because its lines
/// moved says so.
#[test]
fn the_files_say_what_the_force_push_dropped_and_what_only_moved() {
    let hist = History::build();
    let dir = tempfile::tempdir().unwrap();
    // At H1: walk.rs viewed on GitHub; every file's diff shown; extra.rs marked viewed here.
    let files1 = viewed(&hist.files1(), WALK, ViewedState::Viewed);
    let mut h = console(snapshot(files1.clone(), Vec::new()), dir.path(), 140, 24);
    h.draw();
    h.press("F");
    for _ in 0..files1.len() {
        h.press("Enter q j");
    }
    let dropped = files1.iter().position(|f| f.path == DROPPED).unwrap();
    h.press("g");
    for _ in 0..dropped {
        h.press("j");
    }
    h.press("t");
    assert!(
        h.app.notice().unwrap_or("").contains("marked viewed"),
        "{:?}",
        h.app.notice()
    );
    drop(h);
    // At H2: GitHub dismissed walk.rs (its patch text changed: the hunks moved).
    let files2 = viewed(&hist.files2(), WALK, ViewedState::Dismissed);
    assert!(files2.iter().all(|f| f.path != DROPPED));
    let mut h = console(snapshot(files2.clone(), Vec::new()), dir.path(), 140, 24);
    h.draw();
    h.press("F");
    let screen = h.screen();
    assert!(
        screen.contains(&format!(
            "✗ no longer in this PR {DROPPED}  you had marked it viewed"
        )),
        "{screen}"
    );
    assert!(screen.contains("1 no longer in this PR"), "{screen}");
    let walk = files2.iter().position(|f| f.path == WALK).unwrap();
    let (_, st) = &h.app.files()[walk];
    assert!(st.moved && st.viewed == ViewedState::Dismissed, "{st:?}");
    let lib = files2.iter().position(|f| f.path == LIB).unwrap();
    assert!(!h.app.files()[lib].1.moved, "lib.rs changed");
    h.press("g");
    for _ in 0..walk {
        h.press("j");
    }
    let screen = h.screen();
    assert!(
        screen.contains("dismissed by GitHub (lines moved, code unchanged since your last look)"),
        "{screen}"
    );
    insta::assert_snapshot!("code_history_files_after_push_140x24", screen);
}

/// Review summaries, comments and threads are drawn without pr-shepherd's hidden markers (the
/// pending review's key, a finding's id), in the list, the detail and the diff.
#[test]
fn the_console_never_shows_its_own_hidden_markers() {
    let hist = History::build();
    let files = viewed(&hist.files1(), "", ViewedState::Unviewed);
    let line = hist.repo.line_of(&hist.head1, LIB, LIB_LINE_H1);
    let review: Item = serde_json::from_value(json!({
        "kind": "review",
        "id": "PRR_marked",
        "author": {"login": "rajesh-k", "association": "OWNER"},
        "state": "COMMENTED",
        "createdAt": "2026-11-20T12:10:00Z",
        "url": "https://github.com/acme/rivet/pull/482#pullrequestreview-1",
        "body": "Two notes inline.\n\n<!-- pr-shepherd:review 0123456789abcdef -->",
    }))
    .unwrap();
    let items = vec![
        review,
        thread(
            "T_marked",
            LIB,
            "RIGHT",
            Some(line),
            line,
            "",
            "Check the bound.\n\n<!-- pr-shepherd:finding PS-00000000ff -->",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut h = console(snapshot(files.clone(), items), dir.path(), 160, 30);
    h.draw();
    for _ in 0..h.app.row_count() {
        let screen = h.screen();
        assert!(!screen.contains("pr-shepherd:"), "{screen}");
        h.press("j");
    }
    let screen = h.screen();
    assert!(screen.contains("Two notes inline."), "{screen}");
    h.press("g");
    open_diff(&mut h, &files, LIB);
    let screen = h.screen();
    assert!(
        screen.contains("┆ thread @maya-chen: Check the bound."),
        "{screen}"
    );
    assert!(!screen.contains("pr-shepherd:"), "{screen}");
}
