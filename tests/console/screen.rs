//! The screen itself: the status line and message log, honest review states, comment Markdown,
//! the diff gutter, findings by severity. Key sequences through the console loop on a TestBackend
//! (`tui::harness`).

use crate::support;

use pr_shepherd::source::Fixture;
use pr_shepherd::tui::Action;
use pr_shepherd::tui::app::{InputMode, PrAsk};
use support::console::{harness_with, open, select_id};

/// A notice longer than the screen is one line in the status line (cut with `…`, the key to
/// read it named) and whole in the message log (`!`).
#[test]
fn a_long_notice_is_one_status_line_and_whole_in_the_message_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 80, 24);
    h.draw();
    let long = format!(
        "note: GitHub rate limit reached (the PR's pages); {} END-OF-NOTE",
        "waiting for the reset, ".repeat(8)
    );
    let fx = h.app.update(Action::Notice(long.clone()));
    assert!(fx.is_empty());
    h.draw();
    let screen = h.screen();
    let rows: Vec<&str> = screen.lines().collect();
    let status = rows.last().copied().unwrap_or_default();
    assert!(
        status.starts_with("note: GitHub rate limit reached") && status.contains('…'),
        "{screen}"
    );
    assert!(status.ends_with("! messages"), "{screen}");
    assert!(!screen.contains("END-OF-NOTE"), "{screen}");
    assert_eq!(
        screen.matches("rate limit reached").count(),
        1,
        "one line, once: {screen}"
    );
    // The screen's own footer is still there, above the status line.
    assert!(rows[rows.len() - 2].starts_with("j/↓ move"), "{screen}");

    h.press("!");
    assert_eq!(*h.app.mode(), InputMode::Messages);
    let log = h.screen();
    assert!(log.contains("Messages, newest last"), "{log}");
    assert!(log.contains("END-OF-NOTE"), "the whole note: {log}");
    h.press("Esc");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    // The notice went with the next key; the log keeps it.
    assert!(!h.screen().contains("rate limit"), "{}", h.screen());
    h.press("!");
    assert!(h.screen().contains("END-OF-NOTE"));
}

/// The demo without its recorded answers: every aspect fails. The draft's mode line says none
/// assessed the diff, the review pane says what failed and why, and the post dialog warns.
#[test]
fn with_every_aspect_failed_the_mode_line_the_pane_and_the_post_dialog_say_so() {
    let mut doc: serde_json::Value =
        serde_json::from_str(pr_shepherd::source::DEMO_FIXTURE).unwrap();
    doc.as_object_mut().unwrap().remove("llm");
    let f = Fixture::parse(&doc.to_string(), std::path::Path::new("no-answers.json")).unwrap();
    let snap = f.snapshot_at(0).unwrap();
    let (mut h, _dir) = harness_with(snap, Some(f), 140, 45);
    h.draw();
    h.press("r");
    let body = h.app.draft().unwrap().body();
    assert!(
        body.contains("assessed by 0 of 6 aspects (correctness failed"),
        "{body}"
    );
    assert!(!body.contains("6 of 6"), "{body}");
    let screen = h.screen();
    assert!(
        screen.contains("Incomplete review: 0 of 6 aspects ran · correctness failed:"),
        "{screen}"
    );
    h.press("p");
    let Some(PrAsk::Post(plan)) = h.app.pr_asked() else {
        panic!("no post dialog: {:?}", h.app.mode())
    };
    assert!(
        plan.incomplete
            .as_deref()
            .is_some_and(|w| w.starts_with("0 of 6 aspects ran")),
        "{plan:?}"
    );
    let screen = h.screen();
    assert!(screen.contains("Post an INCOMPLETE review?"), "{screen}");
    assert!(
        screen.contains("Incomplete: 0 of 6 aspects ran"),
        "{screen}"
    );
}

/// A complete review's pane says nothing of failures, and its post dialog does not warn.
#[test]
fn a_complete_review_posts_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 45);
    h.draw();
    h.press("r");
    assert!(
        h.app
            .draft()
            .unwrap()
            .body()
            .contains("the whole diff was assessed by all 6 aspects")
    );
    assert!(!h.screen().contains("Incomplete review:"));
    h.press("p");
    let Some(PrAsk::Post(plan)) = h.app.pr_asked() else {
        panic!("no post dialog: {:?}", h.app.mode())
    };
    assert_eq!(plan.incomplete, None);
    assert!(h.screen().contains("Post the review?"));
}

/// The CI bot's coverage comment: a heading, a table and bold text, rendered, not shown raw.
#[test]
fn comment_markdown_is_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    select_id(&mut h, "IC_kwDOKq3xZs6Aa0001");
    h.press("Tab");
    let screen = h.screen();
    assert!(screen.contains("### Coverage report"), "{screen}");
    assert!(
        screen.contains("src/client/retry.rs             │ 71.4%"),
        "a table in columns: {screen}"
    );
    assert!(screen.contains("Overall: 84.2% (-0.3%)"), "{screen}");
    assert!(
        !screen.contains("|---|") && !screen.contains("**84.2%**"),
        "{screen}"
    );
    insta::assert_snapshot!("coverage_comment_rendered_120x40", screen);
}

/// A hunk line longer than the pane wraps under its `+`/`-`: every row of it keeps the sign.
#[test]
fn wrapped_diff_lines_keep_their_gutter() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 60, 30);
    h.draw();
    // The detail below the list, full width: the hunk's tail holds a long added line that
    // does not fit 58 columns.
    let screen = h.screen();
    let rows: Vec<&str> = screen.lines().collect();
    let at = rows
        .iter()
        .position(|l| l.starts_with("│+") && l.contains("Err(e) if e.is_transient()"))
        .unwrap_or_else(|| panic!("the long added line: {screen}"));
    assert!(
        rows[at + 1].starts_with("│+") && rows[at + 1].contains("=> {"),
        "its continuation keeps the `+`:\n{screen}"
    );
}

/// The findings list leads with what a finding says and ends with its id; each is coloured by
/// severity.
#[test]
fn findings_lead_with_the_message_and_are_coloured_by_severity() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 45);
    h.draw();
    h.press("r");
    let composed = h.app.composed().unwrap();
    for (id, label) in composed.finding_rows() {
        assert!(label.ends_with(&format!("· {id}")), "{label}");
        assert!(!label.starts_with("PS-"), "{label}");
    }
    let views = composed.finding_views();
    let theme = &h.theme;
    let buf = h.terminal.backend().buffer().clone();
    let style_of = |needle: &str| {
        for y in 0..buf.area.height {
            let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            if let Some(col) = row.find(needle) {
                let x = row[..col].chars().count() as u16;
                return Some(buf[(x, y)].fg);
            }
        }
        None
    };
    use pr_shepherd::review::findings::Severity;
    for sev in [
        Severity::Critical,
        Severity::Important,
        Severity::Suggestion,
    ] {
        let Some((_, _, label)) = views.iter().skip(1).find(|(_, s, _)| *s == sev) else {
            continue;
        };
        let want = match sev {
            Severity::Critical => theme.severity_critical,
            Severity::Important => theme.severity_important,
            Severity::Suggestion => theme.severity_suggestion,
        };
        let head: String = label.chars().take(30).collect();
        assert_eq!(style_of(&head), want.fg, "{sev:?}: {label}");
    }
}

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

/// Replying keeps the thread being answered in view; a long line wraps in the composer instead
/// of scrolling it sideways.
#[test]
fn the_reply_composer_keeps_the_thread_in_view_and_wraps_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("c");
    assert_eq!(*h.app.mode(), InputMode::Reply);
    let long = "The budget is the caller's deadline, not ours, so the loop stops when the deadline does and END-OF-LINE";
    h.type_text(long);
    let screen = h.screen();
    assert!(screen.contains("The thread you are answering"), "{screen}");
    assert!(
        screen.contains("@maya-chen"),
        "the thread's comments: {screen}"
    );
    assert!(
        screen.contains("The budget is the caller's") && screen.contains("END-OF-LINE"),
        "the whole line is on screen, wrapped: {screen}"
    );
    insta::assert_snapshot!("reply_beside_its_thread_120x40", screen);
}

/// The draft editor opens on the first line of text under the heading; ctrl-z undoes, ctrl-r
/// redoes; ctrl-o hands the text to `$VISUAL` and takes the edited text back, saved.
#[test]
fn the_draft_editor_starts_on_the_text_undoes_and_hands_over_to_the_external_editor() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.runner.session.editor = Some(stand_in_editor(dir.path()));
    h.draw();
    h.press("r");
    let before = h.app.draft().unwrap().body();
    h.press("e");
    assert_eq!(*h.app.mode(), InputMode::Edit);
    let d = h.app.draft().unwrap();
    let ratatui_textarea::DataCursor(row, _) = d.editor.cursor();
    let lines = d.editor.lines();
    assert!(
        !lines[row].trim().is_empty() && !lines[row].starts_with("## "),
        "the cursor is on text, not under the heading: row {row} {:?}",
        &lines[..row + 1]
    );
    h.type_text("X");
    assert_ne!(h.app.draft().unwrap().body(), before);
    h.press("ctrl-z");
    assert_eq!(h.app.draft().unwrap().body(), before, "undone");
    h.press("ctrl-r");
    assert_ne!(h.app.draft().unwrap().body(), before, "redone");
    h.press("ctrl-z");

    h.press("ctrl-o");
    let body = h.app.draft().unwrap().body();
    assert!(body.starts_with(&before), "{body}");
    assert!(body.ends_with("added in the external editor"), "{body}");
    let saved = std::fs::read_to_string(support::demo_dir(dir.path()).join("draft.json")).unwrap();
    assert!(saved.contains("added in the external editor"), "{saved}");
    // Undo takes the external edit back (the insertion, then the removal).
    h.press("ctrl-z ctrl-z");
    assert_eq!(h.app.draft().unwrap().body(), before);
}

/// The reply composer hands over too; without `$VISUAL`/`$EDITOR` the console says how to set
/// one and keeps the text.
#[test]
fn the_reply_composer_hands_over_to_the_external_editor() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("c");
    h.type_text("first line");
    h.press("ctrl-o");
    assert!(
        h.app.notice().unwrap_or_default().contains("$VISUAL"),
        "{:?}",
        h.app.notice()
    );
    assert_eq!(h.app.reply().unwrap().body(), "first line");
    h.runner.session.editor = Some(stand_in_editor(dir.path()));
    h.press("ctrl-o");
    assert_eq!(
        h.app.reply().unwrap().body(),
        "first line\nadded in the external editor"
    );
    let saved =
        std::fs::read_to_string(support::demo_dir(dir.path()).join("reply-draft.json")).unwrap();
    assert!(saved.contains("added in the external editor"), "{saved}");
}
