//! The PR's code in the console: its description, its files with viewed state and what changed
//! since your last look, and a file's diff with threads and findings on their lines, the
//! interdiff after a force-push, and the line selection a comment is written on.

use crate::support;
use support::console::live_harness;

use pr_shepherd::code::{Side, SinceLastLook};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{NoPatch, ViewedState};
use pr_shepherd::tui::app::{Action, Asked, Drawn};
use pr_shepherd::tui::harness::Harness;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::console::{coords, demo_harness, harness_with, open};

/// The demo's Shepherd review run and posted to the outbox: its findings are the latest.
fn reviewed_and_posted(h: &mut Harness) {
    h.draw();
    h.press("r");
    h.press("p");
    h.press("y");
    assert!(
        h.app.notice().is_some_and(|n| n.contains("outbox")),
        "{:?}",
        h.app.notice()
    );
    h.press("q");
}

/// The paths the ledger's last look at the code holds.
fn looked_at(h: &Harness, dir: &std::path::Path) -> Vec<String> {
    let look = Ledger::new(dir).code_look(&coords(h)).unwrap();
    look.files.keys().cloned().collect()
}

fn since(h: &Harness) -> Vec<(String, SinceLastLook)> {
    h.app
        .files()
        .into_iter()
        .map(|(p, s)| (p, s.since))
        .collect()
}

/// A key, without the frame that would show its result.
fn key_only(h: &mut Harness, c: char) {
    h.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
}

#[test]
fn the_description_says_the_pr_and_renders_its_body() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("i");
    assert_eq!(h.app.stack(), vec!["PR", "description"]);
    insta::assert_snapshot!("code_description_120x30", h.screen());
    // Back to the PR, as it was.
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR"]);
}

#[test]
fn the_files_say_change_viewed_threads_findings_and_since_your_last_look() {
    let (mut h, _d) = demo_harness(120, 24);
    reviewed_and_posted(&mut h);
    h.press("F");
    assert_eq!(h.app.stack(), vec!["PR", "files"]);
    insta::assert_snapshot!("code_files_120x24", h.screen());
    let files = h.app.files();
    assert_eq!(files.len(), 5);
    let (path, retry) = &files[0];
    assert_eq!(path, "src/client/retry.rs");
    assert_eq!((retry.threads, retry.findings), (2, 8));
    assert_eq!(retry.since, SinceLastLook::NeverSeen);
    assert_eq!(files[4].1.viewed, ViewedState::Viewed, "docs/retry.md");
}

#[test]
fn the_diff_shows_threads_and_findings_on_their_lines_and_jumps_between_them() {
    let (mut h, _d) = demo_harness(120, 30);
    reviewed_and_posted(&mut h);
    h.press("F Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    h.press("]");
    // The first finding is on line 9 of the new file.
    let sel = h.app.diff_selection().unwrap();
    assert_eq!(
        (sel.end.side, sel.end.line, sel.start),
        (Side::Right, 9, None)
    );
    h.press("] ]");
    insta::assert_snapshot!("code_diff_120x30", h.screen());
    let screen = h.screen();
    assert!(screen.contains("┆ finding (important): `delay()` is deterministic"));
    // On to the thread on line 29; `[` goes back.
    let line = |h: &Harness| h.app.diff_selection().unwrap().end.line;
    while line(&h) < 29 {
        let before = line(&h);
        h.press("]");
        assert!(line(&h) > before, "] moves on");
    }
    assert_eq!(line(&h), 29);
    assert!(
        h.screen().contains("┆ thread @rajesh-k: No jitter here."),
        "{}",
        h.screen()
    );
    h.press("[");
    assert!(line(&h) < 29);
    // `}` goes to the next hunk; this file has one: it says so.
    h.press("g }");
    assert_eq!(h.app.notice(), Some("the last hunk"));
}

#[test]
fn a_range_selected_with_v_is_the_line_selection_a_comment_is_on() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("F Enter j j V j j");
    let sel = h.app.diff_selection().unwrap();
    assert_eq!(sel.path, "src/client/retry.rs");
    assert_eq!(sel.start.map(|s| s.line), Some(3));
    assert_eq!(sel.end.line, 5);
    assert_eq!(sel.end.side, Side::Right);
    assert_eq!(
        sel.text,
        vec!["", "use crate::client::{Error, Response};", ""]
    );
    // Esc ends the selection first (the cursor line alone).
    h.press("Esc");
    assert_eq!(h.app.diff_selection().unwrap().start, None);
    h.press("Esc");
    assert_eq!(h.app.stack(), vec!["PR", "files"]);
}

/// `S` on a selected range opens the pending review's composer prefilled with a suggestion of
/// those lines, `c` on one line an empty comment; what is written is in the pending review at
/// the places the diff chose.
#[test]
fn comment_and_suggest_keys_in_the_diff_write_into_the_pending_review() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("F Enter j j V j j S");
    h.draw();
    // The composer opens under the lines, in the diff: the code stays in sight.
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    assert_eq!(
        h.app.diff_composer().as_deref(),
        Some("```suggestion\n\nuse crate::client::{Error, Response};\n\n```")
    );
    let screen = h.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let box_at = lines
        .iter()
        .position(|l| l.contains("Suggestion on src/client/retry.rs:3-5"))
        .expect(&screen);
    assert!(lines[box_at - 1].contains("     5 +"), "{screen}");
    assert!(lines[box_at - 3].contains("     3 +"), "{screen}");
    h.press("Esc");
    h.draw();
    let r = h.app.pending_review().expect("the pending review");
    assert_eq!(r.comments.len(), 1, "{r:?}");
    assert_eq!(
        (
            r.comments[0].path.as_str(),
            r.comments[0].start_line,
            r.comments[0].line
        ),
        ("src/client/retry.rs", Some(3), 5)
    );
    // Still in the diff, a comment on one line.
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"]);
    assert!(h.screen().contains("pending c1"), "{}", h.screen());
    h.press("j c");
    h.draw();
    h.type_text("Why an empty line here?");
    h.press("Esc");
    h.draw();
    let r = h.app.pending_review().expect("the pending review");
    assert_eq!(r.comments.len(), 2, "{r:?}");
    assert!(
        r.comments
            .iter()
            .any(|c| c.body == "Why an empty line here?" && c.start_line.is_none())
    );
}

#[test]
fn a_selection_across_the_old_and_new_side_is_no_selection() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    // src/client/mod.rs: a removed line then an added one.
    h.press("F j Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    let screen = h.screen();
    let lines: Vec<&str> = screen.lines().collect();
    // The diff's row (not the outdated thread's own hunk shown above the diff).
    let removed = lines
        .iter()
        .position(|l| l.contains("-pub const") && !l.contains('┆'))
        .unwrap();
    let first = lines.iter().position(|l| l.starts_with('▶')).unwrap();
    for _ in first..removed {
        h.press("j");
    }
    assert_eq!(h.app.diff_selection().unwrap().end.side, Side::Left);
    h.press("V j");
    assert_eq!(h.app.diff_selection(), None, "{}", h.screen());
}

#[test]
fn a_patch_is_recorded_as_seen_only_once_a_frame_showed_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 30);
    h.draw();
    h.press("F");
    // Enter, without a frame: nothing is recorded yet.
    h.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert!(looked_at(&h, dir.path()).is_empty());
    // A frame covered by the help overlay shows nothing either.
    key_only(&mut h, '?');
    h.draw();
    assert!(looked_at(&h, dir.path()).is_empty());
    h.press("?");
    assert_eq!(looked_at(&h, dir.path()), vec!["src/client/retry.rs"]);
    // Back on the files: that one is seen now, the others untouched.
    h.press("q");
    let files = h.app.files();
    assert!(files[0].1.seen_now);
    assert!(files[1..].iter().all(|(_, s)| !s.seen_now));
}

/// A frame drawn and reported to the app, the work it asks for held back (answered later, as a
/// slow disk or a slow GitHub answers).
fn draw_holding(h: &mut Harness) -> Vec<Asked> {
    let mut drawn = Drawn::default();
    let (app, theme, keymap) = (&h.app, &h.theme, &h.keymap);
    h.terminal
        .draw(|f| drawn = app.draw(f, theme, keymap))
        .unwrap();
    h.app.update(Action::Drawn(drawn))
}

/// A key, the work it asks for held back.
fn key_holding(h: &mut Harness, c: char) -> Vec<Asked> {
    let ev = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    let action = h.app.key_action(&h.keymap, &ev).unwrap();
    h.app.update(action)
}

#[test]
fn a_diff_left_before_its_seen_record_or_viewed_mark_was_answered_still_tells_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 30);
    h.draw();
    h.press("F");
    // The first file's diff is shown; its seen record is answered only after `q`, `j`,
    // `Enter` opened the next file's diff.
    h.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let seen_record = draw_holding(&mut h);
    assert!(!seen_record.is_empty());
    h.press("q j Enter");
    // There `t` marks the second file viewed; that answer too comes after its diff was left
    // and a third was opened.
    let viewed_mark = key_holding(&mut h, 't');
    assert!(!viewed_mark.is_empty());
    h.press("q j Enter q");
    h.run_effects(seen_record);
    h.run_effects(viewed_mark);
    h.draw();
    let files = h.app.files();
    assert!(files[0].1.seen_now, "{}", h.screen());
    assert!(files[1].1.seen_now && files[2].1.seen_now, "{}", h.screen());
    assert_eq!(files[1].1.viewed, ViewedState::Viewed, "{}", h.screen());
}

#[test]
fn enter_typed_before_the_files_were_read_opens_the_diff_once_they_are() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    let read = key_holding(&mut h, 'F');
    h.draw();
    h.press("Enter");
    assert_eq!(h.app.stack(), vec!["PR", "files"]);
    h.run_effects(read);
    h.draw();
    assert_eq!(h.app.stack(), vec!["PR", "files", "diff"], "{}", h.screen());
    assert!(
        h.screen().contains("src/client/retry.rs · added · +57"),
        "{}",
        h.screen()
    );
}

#[test]
fn generated_files_are_collapsed_until_asked_and_binary_files_named() {
    let mut s = support::demo_fixture().snapshot_at(0).unwrap();
    s.pr.files[1].path = "Cargo.lock".into();
    s.pr.files[2].patch = None;
    s.pr.files[2].no_patch = Some(NoPatch::Binary);
    s.pr.files[2].path = "assets/logo.png".into();
    let (mut h, dir) = harness_with(s, None, 120, 30);
    h.draw();
    h.press("F j Enter");
    assert!(
        h.screen().contains("collapsed: a generated file"),
        "{}",
        h.screen()
    );
    assert!(
        looked_at(&h, dir.path()).is_empty(),
        "a collapsed patch is not shown"
    );
    h.press("Enter");
    assert!(!h.screen().contains("collapsed"));
    assert_eq!(looked_at(&h, dir.path()), vec!["Cargo.lock"]);
    h.press("q j Enter");
    assert!(
        h.screen()
            .contains("assets/logo.png: a binary file, not shown"),
        "{}",
        h.screen()
    );
}

#[test]
fn viewed_toggles_go_to_the_outbox_offline_and_the_keys_find_the_next_unviewed() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 30);
    h.draw();
    h.press("F t");
    assert!(
        h.app
            .notice()
            .unwrap()
            .contains("marked viewed: src/client/retry.rs")
    );
    assert_eq!(h.app.files()[0].1.viewed, ViewedState::Viewed);
    let outbox = Ledger::new(dir.path()).viewed_outbox(&coords(&h)).unwrap();
    assert_eq!(outbox.actions.len(), 1);
    assert!(outbox.actions[0].viewed);
    // U: the next file not viewed (docs/retry.md, the last, is viewed: around to the first).
    h.press("U");
    assert_eq!(h.app.selected_row(), Some(1));
    h.press("G U");
    assert_eq!(
        h.app.selected_row(),
        Some(1),
        "past the viewed ones, around the end"
    );
    // t again on the first one: not viewed.
    h.press("g t");
    assert_eq!(h.app.files()[0].1.viewed, ViewedState::Unviewed);
    // Reopened, the files read the outbox's marks.
    h.press("q F");
    assert_eq!(h.app.files()[0].1.viewed, ViewedState::Unviewed);
    assert_eq!(h.app.files()[4].1.viewed, ViewedState::Viewed);
}

/// The force-push of the demo (step 2) rebased every commit and changed `retry.rs` only.
#[test]
fn after_a_force_push_exactly_the_changed_file_is_changed_with_its_interdiff() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 30);
    h.draw();
    h.press("F");
    for _ in 0..5 {
        h.press("Enter q j");
    }
    assert_eq!(looked_at(&h, dir.path()).len(), 5);
    // Back on the PR, to the force-push.
    h.press("q > >");
    h.press("F");
    let got = since(&h);
    assert_eq!(
        got[0],
        ("src/client/retry.rs".into(), SinceLastLook::Changed)
    );
    assert!(
        got[1..].iter().all(|(_, s)| *s == SinceLastLook::Unchanged),
        "{got:?}"
    );
    assert!(
        h.screen()
            .contains("since your last look: 1 changed, 4 unchanged")
    );
    // C: the next changed file (around to the first); its interdiff on I.
    h.press("G C");
    assert_eq!(h.app.selected_row(), Some(0));
    h.press("Enter");
    assert!(h.screen().contains("changed since your last look"));
    h.press("I");
    assert!(h.app.diff_screen().unwrap().showing_interdiff());
    insta::assert_snapshot!("code_interdiff_120x30", h.screen());
    let screen = h.screen();
    assert!(screen.contains("3 lines only now, 0 only in the patch you saw"));
    assert!(screen.contains("> +                if attempt + 1 >= policy.max_attempts {"));
    // An unchanged file has none, and says why.
    h.press("I q j Enter I");
    assert_eq!(
        h.app.notice(),
        Some("unchanged since your last look: no interdiff")
    );
}

/// The inbox row says how many files changed since your last look, and after the files were
/// looked at again, nothing.
#[test]
fn the_inbox_row_counts_the_files_changed_since_your_last_look() {
    use pr_shepherd::tui::inbox_link::TabSource;
    use pr_shepherd::tui::theme::Theme;
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    // A last look at the demo when retry.rs had another patch.
    let s = support::demo_fixture().snapshot_at(0).unwrap();
    let mut before = s.pr.files[0].clone();
    before.patch = Some("@@ -0,0 +1,1 @@\n+//! An older retry.".into());
    let all: Vec<String> = s.pr.files.iter().map(|f| f.path.clone()).collect();
    let mut shown: Vec<_> = s.pr.files.iter().skip(1).collect();
    shown.push(&before);
    ledger
        .record_shown(&s.pr.coords(), &shown, &all, 1)
        .unwrap();
    let mut h = Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        Ledger::new(dir.path()),
        Theme::plain(),
        160,
        30,
    );
    h.draw();
    let row = |h: &Harness| {
        h.app
            .inbox_rows(0)
            .iter()
            .find(|r| r.listed.coords.number == 482)
            .and_then(|r| r.files_changed)
    };
    assert_eq!(row(&h), Some(1));
    assert!(h.screen().contains("1 file changed"), "{}", h.screen());
    // Open it, read retry.rs's diff, back to the inbox: nothing changed since.
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter F");
    assert_eq!(since(&h)[0].1, SinceLastLook::Changed);
    h.press("Enter q q q");
    assert!(h.app.stack().len() == 1, "{:?}", h.app.stack());
    assert_eq!(row(&h), Some(0));
    assert!(!h.screen().contains("file changed"), "{}", h.screen());
}

/// `?` on each code screen lists its keys, as the keymap binds them.
#[test]
fn each_code_screen_has_its_own_help() {
    let (mut h, _d) = demo_harness(120, 40);
    h.draw();
    h.press("i ?");
    assert!(h.screen().contains("the changed files"), "{}", h.screen());
    h.press("? q F ?");
    let s = h.screen();
    for want in [
        "mark viewed / not viewed",
        "next file not viewed",
        "the file's diff",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    h.press("? Enter ?");
    let s = h.screen();
    for want in [
        "next hunk",
        "next thread or finding",
        "the interdiff since your last look",
        "comment on the line or the selected lines",
        "suggest a change",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
}

/// Live, against the loopback GitHub: `t` marks a file viewed through GraphQL's
/// `markFileAsViewed`, and after a force-push that rewrote every SHA and changed one file's
/// patch, the console's files say exactly that file changed since your last look.
#[test]
fn live_viewed_through_graphql_and_a_force_push_changes_exactly_one_file() {
    use std::time::Duration;

    use pr_shepherd::pr::PrCoords;
    use pr_shepherd::source::github::FetchOptions;

    use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO, file_path};

    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::generate(6, 2, 2, 2, 12)));
    let client = || {
        let opts = FetchOptions {
            timeout: Duration::from_secs(5),
            deadline: Duration::from_secs(30),
            ..FetchOptions::default()
        };
        support::github_client::loopback_github(&server.uri(), "ghp_consoleCodeToken", opts)
            .expect("client")
    };
    let coords = PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number: NUMBER,
    };
    let dir = tempfile::tempdir().unwrap();
    let console = |rt: &tokio::runtime::Runtime| {
        let snapshot = rt.block_on(client().fetch_snapshot(&coords)).unwrap();
        let mut h = live_harness(snapshot, dir.path(), client(), 160, 30);
        h.draw();
        h
    };
    let mut h = console(&rt);
    h.press("F j t");
    assert_eq!(
        fake.viewed_state(&file_path(1)),
        "VIEWED",
        "{:?}",
        h.app.notice()
    );
    assert!(h.app.notice().unwrap().contains("GitHub, as @monalisa"));
    // Every file's diff shown.
    h.press("g");
    for _ in 0..12 {
        h.press("Enter q j");
    }
    assert_eq!(looked_at(&h, dir.path()).len(), 12);
    drop(h);
    let changed = "@@ -5,2 +5,3 @@\n fn f1() {\n-    old();\n+    fixed();\n }";
    fake.force_push(
        "0123456789abcdef0123456789abcdef01234567",
        &[(&file_path(1), changed)],
    );
    let mut h = console(&rt);
    h.press("F");
    let got = since(&h);
    assert_eq!(got[1], (file_path(1), SinceLastLook::Changed));
    assert_eq!(
        got.iter()
            .filter(|(_, s)| *s == SinceLastLook::Unchanged)
            .count(),
        11,
        "{got:?}"
    );
    // GitHub's own word for a viewed file whose patch changed.
    assert_eq!(h.app.files()[1].1.viewed, ViewedState::Dismissed);
    h.press("C Enter I");
    assert!(h.screen().contains("> +    fixed();"), "{}", h.screen());
    drop(h);
    drop(rt);
}

/// The diff's header says what the files screen says: viewed or not, and "seen now" once a
/// frame showed the patch; `t` marks the file viewed from the diff, and the files hear it.
#[test]
fn the_diff_header_agrees_with_the_files_and_t_marks_viewed_from_the_diff() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("F Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    h.draw();
    let header: String = h.screen().lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(header.contains("unviewed"), "{header}");
    assert!(header.contains("seen now"), "{header}");
    assert!(!header.contains("never seen"), "{header}");
    h.press("t");
    h.draw();
    let header: String = h.screen().lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(header.contains(" · viewed"), "{header}");
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR", "files"]);
    let files = h.app.files();
    assert_eq!(files[0].1.viewed, ViewedState::Viewed);
    assert!(files[0].1.seen_now);
}

/// A diff line longer than the row wraps under its gutter: the continued rows keep the `+` and
/// the line's indentation, with `↪` where the line numbers are; the cursor stays in sight.
#[test]
fn a_long_diff_line_wraps_with_its_sign_and_indentation() {
    let (mut h, _d) = demo_harness(80, 24);
    h.draw();
    h.press("F j j Enter");
    assert_eq!(h.app.diff_path(), Some("bindings/python/rivet/client.py"));
    let screen = h.screen();
    assert!(
        screen.contains("+        self._inner = _Client(base_url, timeout, max_attempts,"),
        "{screen}"
    );
    assert!(screen.contains("↪ +        base_delay)"), "{screen}");
    insta::assert_snapshot!("code_diff_wrapped_80x24", screen);
    // Down past the bottom: the cursor's line stays on screen though the rows above it wrap.
    for _ in 0..16 {
        h.press("j");
        let screen = h.screen();
        assert!(screen.contains('▶'), "{screen}");
    }
}
