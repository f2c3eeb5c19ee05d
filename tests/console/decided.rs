//! What was decided stays decided, and what is unsent is named: findings dismissed (`D`) or made
//! a lesson (`L`) are never offered again as drafts in the pending review (`P`), a draft kept and
//! submitted comes back as posted after a relaunch (a new console on the same state dir); the
//! precision counts the decisions recorded (`stats` after a drop and an edit); quitting (`q` at
//! the bottom, `Q` anywhere) names every unsent thing of the session — from the screens alive and
//! from the state dir, restored from an earlier session — and submitting with undecided drafts
//! says how many.

use crate::support;

use pr_shepherd::code::pending::{CommentKind, DraftState, PendingReview};
use pr_shepherd::code::{LineAddr, Side};
use pr_shepherd::ledger::{Draft, Ledger, ReplyDraft};
use pr_shepherd::pr::PrCoords;
use pr_shepherd::review::results::inline::{diff_line, parsed_patches};
use pr_shepherd::tui::app::{Focus, InputMode, PendingScreen};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::inbox_link::TabSource;
use pr_shepherd::tui::theme::Theme;
use support::console::{coords, open};

/// The findings' drafts of the pending review open on top, by finding id and state.
fn drafts(h: &Harness) -> Vec<(String, DraftState)> {
    h.app
        .pending_review()
        .expect("the pending review is read")
        .comments
        .iter()
        .filter_map(|c| Some((c.finding_id.clone()?, c.state)))
        .collect()
}

fn quit_question(h: &Harness) -> Vec<String> {
    match h.app.mode() {
        InputMode::ConfirmQuit { lost } => lost.clone(),
        other => panic!("no quit question: {other:?}"),
    }
}

#[test]
fn a_dismissed_or_lesson_finding_is_not_offered_again_and_a_submitted_one_comes_back_posted() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 120);
    h.draw();
    h.press("r");
    h.draw();
    let screen = h.screen();
    assert!(
        screen.contains("precision in acme/rivet: no decisions yet"),
        "{screen}"
    );
    // The findings on lines of the diff: each is a draft until decided.
    let patches = parsed_patches(&support::demo_fixture().snapshot_at(0).unwrap());
    let composed = h.app.composed().expect("a review");
    let rows = composed.finding_rows();
    let mut before: Vec<String> = Vec::new();
    for f in composed.run.findings() {
        if diff_line(f, &patches).is_some() && !before.contains(&f.id) {
            before.push(f.id.clone());
        }
    }
    assert!(before.len() >= 3, "{before:?}");
    // D and L on two findings that are drafts, picked in the review pane (Tab, then j/k).
    let on_lines: Vec<String> = rows
        .iter()
        .map(|(id, _)| id.clone())
        .filter(|id| before.contains(id))
        .collect();
    let (dismissed, lesson) = (on_lines[0].clone(), on_lines[1].clone());
    if h.app.focus() != Some(Focus::Detail) {
        h.press("Tab");
    }
    let pick = |h: &mut Harness, id: &str| {
        let rows = h.app.composed().unwrap().finding_rows();
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
    };
    pick(&mut h, &dismissed);
    h.press("D");
    h.type_text("intended");
    h.press("Enter");
    pick(&mut h, &lesson);
    h.press("L");
    h.type_text("fine here");
    h.press("Enter");
    assert_eq!(
        Ledger::new(dir.path())
            .dismissals(&coords(&h))
            .unwrap()
            .len(),
        2
    );
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("· dismissed 2 ·"), "{screen}");

    // P offers neither again.
    h.press("P");
    assert!(h.app.top_is::<PendingScreen>(), "{:?}", h.app.stack());
    let after = drafts(&h);
    assert!(
        !after.iter().any(|(f, _)| *f == dismissed || *f == lesson),
        "{after:?}"
    );
    assert_eq!(after.len(), before.len() - 2, "{after:?}");
    assert!(
        after.iter().all(|(_, s)| *s == DraftState::Proposed),
        "{after:?}"
    );
    let screen = h.screen();
    assert!(
        screen.contains(&format!(
            "{} drafts from findings still to decide",
            before.len() - 2
        )),
        "{screen}"
    );

    // Keep one, submit (offline): the confirmation says how many are left undecided.
    // `p` opens the editor on the review's body first; `Esc` asks.
    h.press("g Enter p Esc");
    match h.app.pending_asked() {
        Some(pr_shepherd::tui::app::PendingAsk::Submit(ask)) => {
            assert_eq!(ask.comments, 1);
            assert_eq!(ask.undecided, before.len() - 3);
        }
        other => panic!("no confirmation: {other:?}"),
    }
    let screen = h.screen();
    assert!(screen.contains("Undecided:"), "{screen}");
    assert!(screen.contains("left out of this review"), "{screen}");
    h.press("y");
    assert!(
        h.app.pending().and_then(|p| p.submitted()).is_some(),
        "{}",
        h.screen()
    );
    let kept = after[0].0.clone();
    drop(h);

    // Relaunched: the kept one is shown as posted, the decided ones are not offered, the rest are.
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("P");
    let again = drafts(&h);
    assert!(
        again.contains(&(kept.clone(), DraftState::Posted)),
        "{again:?}"
    );
    assert!(
        !again.iter().any(|(f, _)| *f == dismissed || *f == lesson),
        "{again:?}"
    );
    assert_eq!(
        again
            .iter()
            .filter(|(_, s)| *s == DraftState::Proposed)
            .count(),
        before.len() - 3,
        "{again:?}"
    );
    let screen = h.screen();
    assert!(
        screen.contains(&format!(
            "{} drafts from findings still to decide",
            before.len() - 3
        )),
        "{screen}"
    );
    // A posted draft cannot be kept again (it would be posted twice).
    let at = again.iter().position(|(f, _)| *f == kept).unwrap();
    h.press("g");
    for _ in 0..at {
        h.press("j");
    }
    h.press("Enter");
    assert!(
        h.app
            .notice()
            .unwrap_or_default()
            .contains("already on the PR"),
        "{:?}",
        h.app.notice()
    );
}

#[test]
fn quit_at_once_names_the_pending_reviews_comments_and_undecided_drafts() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 140, 60);
    h.draw();
    h.press("r P");
    let n = drafts(&h).len();
    h.press("g Enter j Enter");
    h.press("Q");
    let lost = quit_question(&h);
    assert!(
        lost.iter().any(|l| l
            == &format!(
                "the pending review of acme/rivet#482 stays unsubmitted: 2 comments, {} undecided (kept for next time)",
                pr_shepherd::output::plural::count(n - 2, "finding draft")
            )),
        "{lost:?}"
    );
    assert!(
        lost.iter()
            .any(|l| l.starts_with("the review draft of acme/rivet#482")),
        "{lost:?}"
    );
    assert!(!h.app.quitting());
    // Any other key stays; y quits.
    h.press("n");
    assert!(!h.app.quitting());
    h.press("Q y");
    assert!(h.app.quitting());
}

fn pr(number: u64) -> PrCoords {
    PrCoords {
        host: None,
        owner: "acme".into(),
        repo: "rivet".into(),
        number,
    }
}

#[test]
fn after_a_relaunch_quitting_names_what_the_inboxs_prs_hold_unsent_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    // An earlier session left: #471's review draft, #497's reply and #482's pending comment.
    ledger
        .save_draft(
            &pr(471),
            &Draft {
                body: "## PR Shepherd Review\n\nunposted".into(),
                head_sha: "abc".into(),
                saved_at: 1,
            },
        )
        .unwrap();
    ledger
        .save_reply_draft(
            &pr(497),
            &ReplyDraft {
                thread_id: "PRRT_x".into(),
                body: "thanks".into(),
                saved_at: 1,
            },
        )
        .unwrap();
    let mut pending = PendingReview::default();
    pending
        .add(
            "src/client/mod.rs",
            Side::Right,
            None,
            2,
            "why?",
            CommentKind::Comment,
            None,
        )
        .unwrap();
    pending.propose_finding(
        "PS-00000000aa",
        "src/client/mod.rs",
        LineAddr {
            side: Side::Right,
            line: 2,
        },
        "a finding",
    );
    ledger.save_pending(&pr(482), &pending).unwrap();

    let mut h = Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        Ledger::new(dir.path()),
        Theme::plain(),
        120,
        30,
    );
    h.draw();
    h.press("q");
    let lost = quit_question(&h);
    for said in [
        "the review draft of acme/rivet#471 stays unposted (kept for next time)",
        "the reply on acme/rivet#497 stays unsent (kept for next time)",
        "the pending review of acme/rivet#482 stays unsubmitted: 1 comment, 1 finding draft undecided (kept for next time)",
    ] {
        assert!(lost.iter().any(|l| l == said), "{said}: {lost:?}");
    }
    assert_eq!(lost.len(), 3, "{lost:?}");
    assert!(
        h.screen().contains("the review draft of acme/rivet#471"),
        "{}",
        h.screen()
    );
    h.press("y");
    assert!(h.app.quitting());

    // Nothing unsent: q quits at once.
    let empty = tempfile::tempdir().unwrap();
    let mut h = Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        Ledger::new(empty.path()),
        Theme::plain(),
        120,
        30,
    );
    h.draw();
    h.press("q");
    assert!(h.app.quitting());
}

#[test]
fn stats_count_the_drop_and_the_edit_of_a_submitted_pending_review() {
    let env = support::env::TestEnv::new();
    let mut h = open(&env.state(), 140, 60);
    h.draw();
    h.press("r P");
    assert!(drafts(&h).len() >= 3);
    // Keep the first, edit the second, drop the third; submit.
    h.press("g Enter j e");
    h.type_text(" Really.");
    h.press("Esc j d p Esc y");
    assert!(
        h.app.pending().and_then(|p| p.submitted()).is_some(),
        "{}",
        h.screen()
    );
    drop(h);
    let out = env
        .bin()
        .args(["stats", "acme/rivet", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = &v["repositories"][0]["overall"];
    assert_eq!(all["dropped"], 1, "{v}");
    assert_eq!(all["edited"], 1, "{v}");
    assert_eq!(all["kept"], 2, "{v}");
    assert_eq!(all["posted"], 2, "{v}");
}
