//! The review as the maintainer left it: a verdict with a body alone (no line comment), a
//! review body kept on disk as it is typed (across a "no" and a relaunch, named when quitting),
//! decisions that stay decided in every list after a relaunch (the findings list, the pending
//! review; the Shepherd comment and the pending review never decide each other), stable draft
//! numbers, a dropped draft kept again, and prompts that refuse without turning what is typed
//! next into commands.

use crate::support;

use pr_shepherd::code::pending::DraftState;
use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::app::{Focus, InputMode, PendingAsk, PendingScreen, PrAsk, SubmitAs};
use pr_shepherd::tui::harness::Harness;
use support::console::{coords, open};

fn body_in_editor(h: &Harness) -> Option<String> {
    h.app.pending()?.editing().map(|e| e.text())
}

fn quit_question(h: &Harness) -> Vec<String> {
    match h.app.mode() {
        InputMode::ConfirmQuit { lost } => lost.clone(),
        other => panic!("no quit question: {other:?}"),
    }
}

/// The findings' drafts of the pending review on top: (draft id, finding id, state).
fn drafts(h: &Harness) -> Vec<(String, String, DraftState)> {
    h.app
        .pending_review()
        .expect("the pending review is read")
        .comments
        .iter()
        .filter_map(|c| Some((c.id.clone(), c.finding_id.clone()?, c.state)))
        .collect()
}

/// Puts the review pane's cursor on finding `id` (Tab to the pane first).
fn pick(h: &mut Harness, id: &str) {
    if h.app.focus() != Some(Focus::Detail) {
        h.press("Tab");
    }
    let rows = h.app.composed().expect("a review").finding_rows();
    let at = rows
        .iter()
        .position(|(f, _)| f == id)
        .expect("in the picker");
    for _ in 0..rows.len() {
        h.press("k");
    }
    for _ in 0..at {
        h.press("j");
    }
}

/// Failed before: `X` and `Ctrl-a` on a pending review with no line comment said "nothing to
/// submit". A verdict needs no line comment; a plain comment review needs a body or a comment.
#[test]
fn a_verdict_with_a_body_alone_is_submitted_and_a_comment_that_says_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("P");
    assert!(h.app.top_is::<PendingScreen>(), "{:?}", h.app.stack());
    // A plain comment review with nothing in it: refused after the body, the refusal taking
    // the next key.
    h.press("p");
    assert_eq!(*h.app.mode(), InputMode::Edit, "{}", h.screen());
    h.press("Esc");
    assert!(
        matches!(h.app.pending_asked(), Some(PendingAsk::Refused(why)) if why.contains("nothing to submit")),
        "{:?}",
        h.app.pending_asked()
    );
    h.press("j");
    assert_eq!(*h.app.mode(), InputMode::Normal);

    // Request changes with a body only.
    h.press("X");
    assert_eq!(*h.app.mode(), InputMode::Edit, "{}", h.screen());
    h.type_text("Please split the retry change out.");
    h.press("Esc");
    match h.app.pending_asked() {
        Some(PendingAsk::Submit(ask)) => {
            assert_eq!(ask.how, SubmitAs::RequestChanges);
            assert_eq!(ask.comments, 0);
        }
        other => panic!("no confirmation: {other:?} {}", h.screen()),
    }
    h.press("y");
    let held = Ledger::new(dir.path()).review_outbox(&coords(&h)).unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0].body["event"], "REQUEST_CHANGES");
    assert_eq!(held[0].body["comments"].as_array().map(Vec::len), Some(0));
    assert!(
        held[0].body["body"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Please split the retry change out."),
        "{:?}",
        held[0].body
    );

    // Approve with nothing at all: a verdict of its own.
    h.press("ctrl-a");
    assert_eq!(*h.app.mode(), InputMode::Edit, "{}", h.screen());
    h.press("Esc");
    assert!(
        matches!(h.app.pending_asked(), Some(PendingAsk::Submit(a)) if a.how == SubmitAs::Approve),
        "{:?}",
        h.app.pending_asked()
    );
    h.press("y");
    let held = Ledger::new(dir.path()).review_outbox(&coords(&h)).unwrap();
    assert_eq!(held.len(), 2, "{held:?}");
    assert_eq!(held[1].body["event"], "APPROVE");
}

/// Failed before: `p`, a body, `Esc`, `n`, `p` again showed an empty editor and `pending.json`
/// held `"body": ""`.
#[test]
fn the_reviews_body_is_kept_on_disk_as_typed_across_a_no_and_a_relaunch() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("P p");
    h.type_text("Close: one thing left.");
    // On disk as it is typed, before any Esc.
    let on_disk = Ledger::new(dir.path()).load_pending(&coords(&h)).unwrap();
    assert_eq!(on_disk.body, "Close: one thing left.");
    h.press("Esc n");
    h.press("p");
    assert_eq!(
        body_in_editor(&h).as_deref(),
        Some("Close: one thing left.")
    );
    // Ctrl-t swaps the Shepherd summary in (none offline without a review) and never loses it.
    h.press("Esc n");
    h.press("Q");
    let lost = quit_question(&h);
    assert!(
        lost.iter()
            .any(|l| l.contains("pending review") && l.contains("its body")),
        "{lost:?}"
    );
    drop(h);

    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("P p");
    assert_eq!(
        body_in_editor(&h).as_deref(),
        Some("Close: one thing left."),
        "{}",
        h.screen()
    );
    h.press("Esc y");
    let held = Ledger::new(dir.path()).review_outbox(&coords(&h)).unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    assert!(
        held[0].body["body"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Close: one thing left."),
        "{:?}",
        held[0].body
    );
    // Submitted: the body went with it, and is not offered again.
    assert_eq!(
        Ledger::new(dir.path())
            .load_pending(&coords(&h))
            .unwrap()
            .body,
        ""
    );
}

/// Failed before: after `D` on a finding and a relaunch, the findings list still listed it
/// (as new), and `r` was refused as if the draft held edits.
#[test]
fn a_dismissal_stays_decided_in_the_findings_list_after_a_relaunch() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("r");
    h.draw();
    let rows = h.app.composed().expect("a review").finding_rows();
    let (first, second) = (rows[0].0.clone(), rows[1].0.clone());
    for id in [&first, &second] {
        pick(&mut h, id);
        h.press("D");
        h.type_text("intended");
        h.press("Enter");
    }
    let after = h.app.composed().unwrap().finding_rows().len();
    assert_eq!(after, rows.len() - 2);
    h.press("Q y");
    drop(h);

    let mut h = open(dir.path(), 140, 60);
    h.draw();
    let again = h
        .app
        .composed()
        .expect("the review restored")
        .finding_rows();
    assert_eq!(again.len(), rows.len() - 2, "{again:?}");
    assert!(
        !again.iter().any(|(id, _)| *id == first || *id == second),
        "{again:?}"
    );
    assert!(
        !h.app.draft().expect("the draft").edited,
        "only dismissals: the draft holds no edits"
    );
    let screen = h.screen();
    assert!(
        screen.contains(&format!("Findings ({})", rows.len() - 2)),
        "{screen}"
    );
    // `r` asks first (a review is here), and is not refused for edits.
    h.press("r");
    assert!(
        matches!(h.app.pr_asked(), Some(PrAsk::Rerun { .. })),
        "{:?} {:?}",
        h.app.pr_asked(),
        h.app.notice()
    );
    assert!(h.screen().contains("costs money"), "{}", h.screen());
    h.press("n");
    assert!(h.app.run().is_none_or(|r| !r.running()));
}

/// Failed before: posting the Shepherd comment (`p`) marked every open draft of the pending
/// review posted, a dropped one included. And a dropped draft could not be kept again in the
/// console; draft numbers moved when a finding was dismissed before the review was saved.
#[test]
fn the_shepherd_comment_and_the_pending_review_never_decide_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("r");
    h.draw();
    h.press("P");
    let before = drafts(&h);
    assert!(before.len() >= 3, "{before:?}");
    assert!(before.iter().all(|(_, _, s)| *s == DraftState::Proposed));
    h.press("Esc");

    // A finding dismissed before the pending review was ever saved: the others keep their numbers.
    let dismissed = before[0].1.clone();
    pick(&mut h, &dismissed);
    h.press("D");
    h.type_text("intended");
    h.press("Enter");
    h.press("P");
    let numbered = drafts(&h);
    for (id, finding, _) in &numbered {
        assert!(
            before.iter().any(|(i, f, _)| i == id && f == finding),
            "{id} is another draft now: {numbered:?} (was {before:?})"
        );
    }
    // Drop one; post the Shepherd comment.
    h.press("g d");
    let dropped = numbered[0].0.clone();
    assert!(
        drafts(&h)
            .iter()
            .any(|(i, _, s)| *i == dropped && *s == DraftState::Dropped),
        "{:?}",
        drafts(&h)
    );
    h.press("Esc p y");
    assert!(h.app.posted().is_some(), "{:?}", h.app.notice());
    drop(h);

    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("P");
    let now = drafts(&h);
    assert!(
        now.iter()
            .any(|(i, _, s)| *i == dropped && *s == DraftState::Dropped),
        "{now:?}"
    );
    assert!(
        now.iter()
            .filter(|(i, _, _)| *i != dropped)
            .all(|(_, _, s)| *s == DraftState::Proposed),
        "the Shepherd comment decided no draft: {now:?}"
    );
    // A dropped draft is kept again with Enter.
    h.press("g Enter");
    assert!(
        drafts(&h)
            .iter()
            .any(|(i, _, s)| *i == dropped && *s == DraftState::Kept),
        "{:?} {:?}",
        drafts(&h),
        h.app.notice()
    );
}

/// Failed before: `D` then `Enter` with no reason closed the prompt, and what was typed next
/// ran as keys.
#[test]
fn a_dismissal_without_a_reason_keeps_its_prompt_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("r");
    let id = h.app.composed().unwrap().finding_rows()[0].0.clone();
    pick(&mut h, &id);
    h.press("D Enter");
    assert!(
        matches!(h.app.mode(), InputMode::Search { .. }),
        "{:?}",
        h.app.mode()
    );
    assert!(h.screen().contains("a reason is needed"), "{}", h.screen());
    // `w` and `r` are the reason's letters now, not a composer and a new review.
    h.type_text("wr");
    assert!(
        matches!(h.app.mode(), InputMode::Search { query, .. } if query == "wr"),
        "{:?}",
        h.app.mode()
    );
    h.press("Enter");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    let d = Ledger::new(dir.path()).dismissals(&coords(&h)).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].reason.as_deref(), Some("wr"));
}

/// Failed before: `c` on a row that is no thread said so in the status line, and the reply
/// typed after it ran as keys (`r` started a review, `w` opened a composer).
#[test]
fn a_reply_on_a_row_that_is_no_thread_is_refused_and_the_refusal_takes_the_next_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("g");
    for _ in 0..h.app.row_count() {
        if !matches!(
            h.app.selected_item(),
            Some(pr_shepherd::pr::Item::Thread(_))
        ) {
            break;
        }
        h.press("j");
    }
    assert!(!matches!(
        h.app.selected_item(),
        Some(pr_shepherd::pr::Item::Thread(_))
    ));
    h.press("c");
    assert!(
        matches!(h.app.pr_asked(), Some(PrAsk::Cannot(why)) if why.contains("not a review thread")),
        "{:?}",
        h.app.pr_asked()
    );
    h.press("r");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert!(h.app.run().is_none(), "the refusal took the key");
}

/// Failed before: the conversation comment (`w`) lived only in memory: a relaunch lost it.
#[test]
fn a_conversation_comment_being_written_is_kept_across_a_relaunch() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("w");
    h.type_text("Thanks, merging after CI.");
    h.press("Esc");
    h.press("Q");
    let lost = quit_question(&h);
    assert!(
        lost.iter()
            .any(|l| l.contains("conversation comment") && l.contains("kept for next time")),
        "{lost:?}"
    );
    drop(h);
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("w");
    assert!(
        h.screen().contains("Thanks, merging after CI."),
        "{}",
        h.screen()
    );
}

/// Failed before: a PR opened from the inbox said `q quit` though `q` goes back; the inbox's
/// `?` left the pending review out of what quitting asks about; at 80 columns the pending
/// review's footer dropped `X` and `ctrl-a`.
#[test]
fn the_keys_say_what_they_do_where_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::inbox(
        vec![(
            "bundled fixtures".to_owned(),
            pr_shepherd::tui::inbox_link::TabSource::Bundled,
        )],
        Ledger::new(dir.path()),
        pr_shepherd::tui::theme::Theme::plain(),
        80,
        24,
    );
    h.draw();
    h.press("?");
    let mut help = h.screen();
    h.press("ctrl-d");
    help.push_str(&h.screen());
    assert!(help.contains("pending"), "{help}");
    h.press("?");
    h.press("Enter");
    assert_eq!(h.app.stack(), vec!["inbox", "PR"], "{}", h.screen());
    let s = h.screen();
    let footer = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(footer.contains("q back"), "{footer}");
    assert!(!footer.contains("q quit"), "{footer}");
    h.press("P");
    assert!(h.app.top_is::<PendingScreen>(), "{:?}", h.app.stack());
    let s = h.screen();
    let footer = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    for key in ["p submit", "X request changes", "Ctrl-a approve", "q back"] {
        assert!(footer.contains(key), "{key}: {footer}");
    }
}

/// Failed before: a finding dismissed after the Shepherd comment was posted still stood on its
/// line in the diff, as if still to read.
#[test]
fn a_dismissed_finding_leaves_its_line_in_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("r p y");
    let composed = h.app.composed().expect("a review").clone();
    let snap = support::demo_fixture().snapshot_at(0).unwrap();
    let patches = pr_shepherd::review::results::inline::parsed_patches(&snap);
    let f = composed
        .run
        .findings()
        .find(|f| pr_shepherd::review::results::inline::diff_line(f, &patches).is_some())
        .expect("a finding on a line of the diff")
        .clone();
    let start: String = f.message.chars().take(30).collect();
    let open_diff = |h: &mut Harness| {
        let index = snap.pr.files.iter().position(|x| x.path == f.file).unwrap();
        h.press("F g");
        for _ in 0..index {
            h.press("j");
        }
        h.press("Enter");
        assert_eq!(h.app.diff_path(), Some(f.file.as_str()));
        // Walk the whole file: the finding is somewhere under its line.
        let mut seen = h.screen();
        for _ in 0..40 {
            h.press("ctrl-d");
            seen.push_str(&h.screen());
        }
        seen
    };
    let before = open_diff(&mut h);
    assert!(before.contains(&start), "{start}: {before}");
    h.press("q q");
    pick(&mut h, &f.id);
    h.press("D");
    h.type_text("intended");
    h.press("Enter");
    let after = open_diff(&mut h);
    assert!(!after.contains(&start), "{start} still shown:\n{after}");
}
