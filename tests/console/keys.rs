//! Key sequences through the console loop (TestBackend), with the ledger checked afterwards.

use crate::support;

use std::path::Path;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::PrCoords;
use pr_shepherd::triage::Freshness;
use pr_shepherd::tui::app::{Focus, Row};
use pr_shepherd::tui::harness::{Harness, TEST_NOW};
use pr_shepherd::tui::theme::Theme;
use pr_shepherd::tui::{Effect, Keymap};

fn seen_ids(dir: &Path, pr: &PrCoords) -> Vec<String> {
    let mut ids: Vec<String> = Ledger::new(dir)
        .load_seen(pr)
        .unwrap()
        .markers
        .into_keys()
        .collect();
    ids.sort();
    ids
}

fn selected_id(h: &Harness) -> String {
    h.app.selected_item().unwrap().id().to_owned()
}

fn freshness_of(h: &Harness, id: &str) -> Freshness {
    h.app.freshness_of(id).unwrap()
}

#[test]
fn navigation_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    h.draw();
    assert_eq!(
        h.app.selected_row(),
        Some(1),
        "the first item is selected, not the group row"
    );
    h.press("j j k");
    assert_eq!(h.app.selected_row(), Some(2));
    h.press("Down Down Up");
    assert_eq!(h.app.selected_row(), Some(3));
    h.press("G");
    assert_eq!(h.app.selected_row(), Some(h.app.row_count() - 1));
    h.press("g");
    assert_eq!(h.app.selected_row(), Some(0));
    h.press("ctrl-d");
    let half = h.app.selected_row().unwrap();
    assert!(half > 1, "ctrl-d moves half a page");
    h.press("ctrl-u");
    assert_eq!(h.app.selected_row(), Some(0));
    // ] and [ jump between new-or-edited items, skipping group rows.
    h.press("g ] ]");
    assert_eq!(
        h.app.row(h.app.selected_row().unwrap()).unwrap(),
        Row::Item(1)
    );
    h.press("[");
    assert_eq!(
        h.app.row(h.app.selected_row().unwrap()).unwrap(),
        Row::Item(0)
    );
    // Tab moves focus to the detail pane; j scrolls it instead of moving the selection.
    let sel = h.app.selected_row().unwrap();
    h.press("Tab");
    assert_eq!(h.app.focus(), Some(Focus::Detail));
    h.press("j j");
    assert_eq!(h.app.selected_row(), Some(sel));
    assert_eq!(h.app.detail_scroll(), Some(2));
    h.press("G");
    assert!(h.app.detail_scroll().unwrap() > 2);
    h.press("g Tab");
    assert_eq!(
        (h.app.detail_scroll().unwrap(), h.app.focus().unwrap()),
        (0, Focus::List)
    );
    // Enter on a group collapses it; again expands.
    h.press("g Enter");
    assert_eq!(h.app.row_count(), 21 - 7);
    h.press("Enter");
    assert_eq!(h.app.row_count(), 21);
    // Enter on an item zooms the detail; Esc unzooms; q quits.
    h.press("j Enter");
    assert!(h.app.zoomed());
    // The whole hunk, around the commented line (its top may be above the pane).
    assert!(
        !h.screen().contains("earlier line"),
        "zoomed thread shows the whole hunk"
    );
    h.press("Esc");
    assert!(!h.app.zoomed() && !h.app.quitting());
    h.press("q");
    assert!(h.app.quitting());
}

#[test]
fn a_list_of_ten_thousand_scrolls_and_draws_only_what_fits() {
    let dir = tempfile::tempdir().unwrap();
    let f = pr_shepherd::source::synth::synth(pr_shepherd::source::synth::SynthSpec {
        threads: 4000,
        comments: 4000,
        reviews: 2000,
        replies: 2,
        seed: 7,
    });
    let mut h = Harness::new(
        f.snapshot_at(0).unwrap(),
        None,
        Ledger::new(dir.path()),
        // Plain: keeps syntect (slow in debug builds) out of a test about the list.
        Theme::plain(),
        120,
        40,
    )
    .unwrap();
    h.draw();
    h.press("G");
    assert_eq!(h.app.selected_row(), Some(10_002));
    assert!(h.app.list_offset().unwrap() > 9_900);
    h.press("g");
    assert_eq!(h.app.list_offset(), Some(0));
    for _ in 0..5 {
        h.press("ctrl-d");
    }
    assert!(h.app.selected_row().unwrap() >= h.app.list_offset().unwrap());
    assert!(h.app.selected_row().unwrap() < h.app.list_offset().unwrap() + 40);
}

#[test]
fn shown_items_are_marked_seen_after_the_frame() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    let pr = coords(&h);
    assert!(
        seen_ids(dir.path(), &pr).is_empty(),
        "nothing before the first frame"
    );
    h.draw();
    let first = selected_id(&h);
    assert_eq!(seen_ids(dir.path(), &pr), vec![first.clone()]);
    // The marker holds the current hash and the clock of the run.
    let m = &Ledger::new(dir.path()).load_seen(&pr).unwrap().markers[&first];
    assert_eq!(m.seen_at, TEST_NOW);
    h.press("j");
    let second = selected_id(&h);
    let mut want = vec![first.clone(), second];
    want.sort();
    assert_eq!(seen_ids(dir.path(), &pr), want);
    // The help overlay covers the detail: moving underneath it marks nothing.
    h.press("?");
    let before = seen_ids(dir.path(), &pr);
    h.app.update(pr_shepherd::tui::Action::Command(
        pr_shepherd::tui::keymap::KeyCommand::Down,
    ));
    h.draw();
    assert_eq!(seen_ids(dir.path(), &pr), before);
    // Each marker is written once: redrawing the same item asks for nothing.
    h.press("Esc");
    let n = h
        .effects
        .iter()
        .filter(|e| {
            matches!(
                e.work(),
                Some(pr_shepherd::tui::app::pr::Work::MarkSeen { .. })
            )
        })
        .count();
    h.draw();
    h.draw();
    let n2 = h
        .effects
        .iter()
        .filter(|e| {
            matches!(
                e.work(),
                Some(pr_shepherd::tui::app::pr::Work::MarkSeen { .. })
            )
        })
        .count();
    assert_eq!(n, n2);
}

#[test]
fn m_and_capital_m_mark_explicitly() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    let pr = coords(&h);
    // Tiny terminal: nothing is shown, so nothing is marked until asked.
    h.resize(30, 8);
    h.draw();
    assert!(seen_ids(dir.path(), &pr).is_empty());
    h.press("j m");
    let id = selected_id(&h);
    assert_eq!(seen_ids(dir.path(), &pr), vec![id]);
    // M marks every listed item; with a filter, only the listed ones.
    h.press("f u r Esc");
    h.press("M y");
    assert_eq!(seen_ids(dir.path(), &pr).len(), 18);
    h.resize(100, 30);
    h.draw();
    assert!(h.screen().contains("✓ 18 seen now"), "{}", h.screen());
}

#[test]
fn capital_m_respects_the_filter() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 30, 8); // too small: nothing auto-marked
    let pr = coords(&h);
    h.draw();
    // Collapse review threads and conversation: only the 5 summaries are listed.
    h.press("g Enter j Enter");
    h.press("M y");
    let ids = seen_ids(dir.path(), &pr);
    assert_eq!(ids.len(), 5, "{ids:?}");
    assert!(ids.iter().all(|i| i.starts_with("PRR_")));
}

#[test]
fn stepping_history_retriages_against_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    let pr = coords(&h);
    h.draw(); // shows (and marks) the first thread
    const JITTER: &str = "PRRT_kwDOKq3xZs5hQ1bB"; // gets a reply at step 1
    const POST_Q: &str = "IC_kwDOKq3xZs6Aa0002"; // edited at step 1
    const LATE: &str = "IC_kwDOKq3xZs6Aa0007"; // added at step 2
    let first = selected_id(&h);
    // Look at the jitter thread and the POST question, so they have markers.
    h.press("j");
    assert_eq!(selected_id(&h), JITTER);
    for _ in 0..12 {
        if h.app.selected_item().is_some_and(|i| i.id() == POST_Q) {
            break;
        }
        h.press("j");
    }
    assert_eq!(selected_id(&h), POST_Q);
    let marked = seen_ids(dir.path(), &pr);
    assert!(marked.contains(&JITTER.to_owned()) && marked.contains(&POST_Q.to_owned()));

    h.press(">");
    assert_eq!(h.app.step(), Some((1, 2)));
    assert_eq!(freshness_of(&h, &first), Freshness::Unchanged);
    assert_eq!(
        freshness_of(&h, JITTER),
        Freshness::Edited,
        "a reply re-surfaces the thread"
    );
    assert_eq!(
        freshness_of(&h, POST_Q),
        Freshness::Edited,
        "edited in place"
    );
    assert_eq!(
        freshness_of(&h, "PRR_kwDOKq3xZs6Rr0001"),
        Freshness::New,
        "never shown: still new"
    );
    assert!(h.screen().contains("step 1 of 2"));
    // The selection stayed on the POST question and it was shown again: its marker now holds
    // the edited hash, so stepping on keeps it unchanged.
    assert_eq!(selected_id(&h), POST_Q);
    h.press(">");
    assert_eq!(h.app.step(), Some((2, 2)));
    assert_eq!(freshness_of(&h, POST_Q), Freshness::Unchanged);
    assert_eq!(freshness_of(&h, LATE), Freshness::New);
    assert_eq!(
        freshness_of(&h, JITTER),
        Freshness::Edited,
        "not looked at since the reply"
    );
    // Back to step 0: the ledger remembers the newer hashes, so the edited items read as
    // edited against the older text — exactly what a live PR would do.
    h.press("< <");
    assert_eq!(h.app.step(), Some((0, 2)));
    assert_eq!(freshness_of(&h, POST_Q), Freshness::Edited);
    assert_eq!(freshness_of(&h, &first), Freshness::Unchanged);
    h.press("<");
    assert!(h.screen().contains("at step 0 of 2"));
}

#[test]
fn search_n_and_capital_n_cycle_matches() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    h.draw();
    h.press("/");
    h.type_text("rajesh");
    h.press("Enter");
    let a = h.app.selected_row().unwrap();
    h.press("n");
    let b = h.app.selected_row().unwrap();
    assert_ne!(a, b);
    h.press("N");
    assert_eq!(h.app.selected_row(), Some(a));
    assert!(
        selected_id(&h).starts_with("PRRT_")
            || h.app.selected_item().unwrap().login() == "rajesh-k"
    );
    // Esc clears the search before it quits.
    h.press("Esc");
    assert!(h.app.search().is_none() && !h.app.quitting());
}

#[test]
fn open_and_copy_report_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    h.draw();
    h.press("o");
    let url = h.app.selected_item().unwrap().url().to_owned();
    assert!(h.effects.contains(&Effect::Open(url.clone())));
    assert!(h.screen().contains(&url[..40]));
    h.press("y");
    assert!(h.effects.contains(&Effect::Copy(url)));
    assert!(h.screen().contains("OSC 52"));
}

#[test]
fn configured_keys_drive_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    let loaded = pr_shepherd::config::Config::parse(
        "[keys]\ndown = \"x\"\nresolve = \"X\"\nquit = \"Q\"\nquit_all = \"ctrl-q\"\n",
        Path::new("c.toml"),
    )
    .unwrap();
    h.keymap = Keymap::new(&loaded.keys);
    h.draw();
    let start = h.app.selected_row().unwrap();
    h.press("j");
    assert_eq!(h.app.selected_row(), Some(start), "j is no longer bound");
    h.press("x");
    assert_eq!(h.app.selected_row(), Some(start + 1));
    h.press("q");
    assert!(!h.app.quitting());
    h.press("Q");
    assert!(h.app.quitting());
}

#[test]
fn unwritable_state_dir_is_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a dir").unwrap();
    let f = support::demo_fixture();
    let mut h = Harness::new(
        f.snapshot_at(0).unwrap(),
        Some(f),
        Ledger::new(&blocker),
        Theme::default_theme(),
        100,
        30,
    )
    .unwrap();
    h.draw();
    assert!(h.app.marks_blocked().is_some());
    assert!(h.screen().contains("markers not saved"), "{}", h.screen());
    h.press("j j m");
    assert!(!h.app.quitting());
}

// ---- The review engine in the console (issues 5, 6, 7) ----

use pr_shepherd::tui::app::{InputMode, Pane, PrAsk};
use pr_shepherd::tui::review::AspectView;
use support::console::{coords, open};

/// `r` with the replay backend: the harness runs the whole review synchronously.
fn reviewed(dir: &Path) -> Harness {
    let mut h = open(dir, 120, 40);
    h.draw();
    h.press("r");
    h
}

#[test]
fn r_runs_the_review_and_shows_progress_and_the_aspects_panel() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = reviewed(dir.path());
    let run = h.app.run().unwrap();
    assert!(run.finished);
    assert!(
        run.aspects
            .iter()
            .all(|(_, v)| matches!(v, AspectView::Done { .. })),
        "{:?}",
        run.aspects
    );
    let screen = h.screen();
    assert!(
        screen.contains("review finished (full): 6/6 done"),
        "{screen}"
    );
    assert!(screen.contains("Review — exactly as it will be posted"));
    // The body is below the findings (each wrapped whole): scrolling the pane reaches it.
    h.press("Tab");
    for _ in 0..20 {
        if h.screen().contains("## PR Shepherd Review") {
            break;
        }
        h.press("ctrl-d");
    }
    assert!(
        h.screen().contains("## PR Shepherd Review"),
        "{}",
        h.screen()
    );
    h.press("Tab");
    assert_eq!(h.app.pane(), Some(Pane::Review));
    // The list stays usable while the pane is open.
    let before = h.app.selected_row().unwrap();
    h.press("j");
    assert_eq!(h.app.selected_row(), Some(before + 1));
    h.press("A");
    let screen = h.screen();
    assert!(
        screen.contains("full review — the first review of this PR"),
        "{screen}"
    );
    assert!(screen.contains("security     done ·"), "{screen}");
    // The run is in the ledger, and the composed review was autosaved as the draft.
    let runs = support::demo_dir(dir.path()).join("runs");
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 1);
    let draft = Ledger::new(dir.path())
        .load_draft(&coords(&h))
        .unwrap()
        .unwrap();
    assert!(draft.body.starts_with("## PR Shepherd Review"));
    assert_eq!(draft.body, h.app.draft().unwrap().body());
}

#[test]
fn edit_post_confirm_writes_the_outbox() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = reviewed(dir.path());
    h.press("e");
    assert_eq!(*h.app.mode(), InputMode::Edit);
    h.press("Down Down");
    h.type_text("Maintainer note: ship it after the jitter fix.");
    // Autosaved on every change.
    let saved = Ledger::new(dir.path())
        .load_draft(&coords(&h))
        .unwrap()
        .unwrap();
    assert!(saved.body.contains("Maintainer note: ship it"));
    h.press("Esc");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    h.press("p");
    let Some(PrAsk::Post(plan)) = h.app.pr_asked() else {
        panic!("no post dialog: {:?}", h.app.mode())
    };
    assert_eq!(plan.target, "acme/rivet#482");
    assert_eq!(plan.update, None);
    let screen = h.screen();
    assert!(screen.contains("Post the review?"), "{screen}");
    assert!(screen.contains("Target: acme/rivet#482"), "{screen}");
    assert!(screen.contains("Action: create a new comment"), "{screen}");
    assert!(screen.contains("Body: "), "{screen}");
    assert!(screen.contains(" / 65,536 characters"), "{screen}");
    // Nothing was posted before the confirmation.
    assert!(
        Ledger::new(dir.path())
            .outbox(&coords(&h))
            .unwrap()
            .is_none()
    );
    h.press("y");
    let outbox = Ledger::new(dir.path())
        .outbox(&coords(&h))
        .unwrap()
        .unwrap();
    assert!(outbox.body.contains("Maintainer note: ship it"));
    assert_eq!(outbox.body, h.app.draft().unwrap().body());
    assert!(
        h.screen().contains("posted to the outbox"),
        "{}",
        h.screen()
    );
    // Posted: the saved draft is gone.
    assert!(
        Ledger::new(dir.path())
            .load_draft(&coords(&h))
            .unwrap()
            .is_none()
    );
    // A second post updates the same comment.
    h.press("p");
    let Some(PrAsk::Post(plan)) = h.app.pr_asked() else {
        panic!("no post dialog")
    };
    assert_eq!(plan.update.as_deref(), Some("outbox-1"));
    h.press("n");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert_eq!(
        Ledger::new(dir.path())
            .outbox(&coords(&h))
            .unwrap()
            .unwrap()
            .revisions,
        1
    );
}

#[test]
fn discard_removes_the_draft_and_posts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = reviewed(dir.path());
    h.press("d");
    assert_eq!(h.app.pr_asked(), Some(&PrAsk::Discard));
    h.press("n");
    assert!(h.app.draft().is_some());
    assert!(
        Ledger::new(dir.path())
            .load_draft(&coords(&h))
            .unwrap()
            .is_some()
    );
    h.press("d y");
    assert!(h.app.draft().is_none());
    assert!(
        Ledger::new(dir.path())
            .load_draft(&coords(&h))
            .unwrap()
            .is_none()
    );
    assert!(
        Ledger::new(dir.path())
            .outbox(&coords(&h))
            .unwrap()
            .is_none()
    );
    assert!(h.screen().contains("draft discarded; nothing was posted"));
}

/// A restored draft's age is its real age, kept up to date by the console's clock: "saved just
/// now" does not stick while minutes pass.
#[test]
fn a_restored_drafts_age_follows_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut h = reviewed(dir.path());
        h.press("e Down");
        h.type_text("Unsaved thought");
    }
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    assert!(h.screen().contains("saved just now"), "{}", h.screen());
    h.tick((TEST_NOW + 300) * 1000);
    assert!(h.screen().contains("saved 5m ago"), "{}", h.screen());
}

#[test]
fn draft_is_restored_when_the_console_opens_again() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut h = reviewed(dir.path());
        h.press("e Down");
        h.type_text("Unsaved thought");
        // Dropped without quitting: as after a crash or kill.
    }
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    let d = h.app.draft().expect("draft restored");
    assert!(d.body().contains("Unsaved thought"));
    assert_eq!(h.app.pane(), Some(Pane::Review));
    let screen = h.screen();
    assert!(screen.contains("Restored draft"), "{screen}");
    // A restored draft may hold edits: a new run does not overwrite it.
    h.press("r");
    assert!(h.app.run().is_none());
    assert!(h.app.notice().unwrap().contains("post (p) or discard (d)"));
}

#[test]
fn a_restored_draft_has_the_saved_runs_findings_and_unedited_does_not_block_a_new_review() {
    let dir = tempfile::tempdir().unwrap();
    let findings = {
        let h = reviewed(dir.path());
        h.app.composed().unwrap().finding_rows()
        // Dropped without quitting: the draft and the run stay in the ledger.
    };
    assert!(findings.len() > 1, "the demo review has findings to pick");
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    assert!(h.app.draft().is_some(), "draft restored");
    let composed = h
        .app
        .composed()
        .expect("the picker has the saved run's findings");
    assert_eq!(composed.finding_rows(), findings);
    assert!(h.screen().contains("Findings ("), "{}", h.screen());
    // The picker moves like a fresh review's.
    h.press("Tab j");
    let second: String = findings[1].1.chars().take(30).collect();
    assert!(
        h.screen().contains(&format!("▸ {second}")),
        "{}",
        h.screen()
    );
    // Nothing was typed into it: a new review may replace it, once asked (it costs a model
    // call).
    h.press("r");
    assert!(
        matches!(
            h.app.pr_asked(),
            Some(pr_shepherd::tui::app::PrAsk::Rerun { .. })
        ),
        "{:?}",
        h.app.pr_asked()
    );
    h.press("y");
    assert!(h.app.run().is_some_and(|r| r.finished));
    assert!(
        !h.app
            .notice()
            .unwrap_or_default()
            .contains("post (p) or discard (d)")
    );
}

#[test]
fn a_marks_a_finding_addressed_and_the_body_changes() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = reviewed(dir.path());
    // Full review first: nothing to mark addressed.
    h.press("Tab a");
    assert!(h.app.notice().unwrap().contains("full review"));
    h.press("p y");
    assert!(
        Ledger::new(dir.path())
            .outbox(&coords(&h))
            .unwrap()
            .is_some()
    );
    // The second review is incremental against the posted one (asked first: one is here).
    h.press("r y");
    let composed = h.app.composed().unwrap();
    assert_eq!(composed.agg.mode, pr_shepherd::policy::Mode::Incremental);
    let before = h.app.draft().unwrap().body();
    // The cursor starts on the first finding of the pane (the posted order).
    let id = composed.finding_rows()[0].0.clone();
    assert_eq!(h.app.focus(), Some(Focus::Detail));
    h.press("a");
    let after = h.app.draft().unwrap().body();
    assert_ne!(before, after);
    assert!(h.app.notice().unwrap().contains("marked addressed"));
    let composed = h.app.composed().unwrap();
    assert!(composed.request.console_addressed.contains(&id));
    assert_eq!(composed.agg.class_of_id(&id), None, "no longer raised");
    assert!(
        after.contains("marked addressed by the maintainer"),
        "{after}"
    );
    // Autosaved.
    let saved = Ledger::new(dir.path())
        .load_draft(&coords(&h))
        .unwrap()
        .unwrap();
    assert_eq!(saved.body, after);
    // The cursor stayed on that finding (it moved to the end of the list): `a` again undoes it.
    h.press("a");
    let composed = h.app.composed().unwrap();
    assert!(!composed.request.console_addressed.contains(&id));
    assert_eq!(h.app.draft().unwrap().body(), before);
}

#[test]
fn no_shepherd_label_refuses_the_post() {
    let dir = tempfile::tempdir().unwrap();
    let f = support::demo_fixture();
    let mut snap = f.snapshot_at(0).unwrap();
    snap.pr.labels.push("no-shepherd".into());
    let mut h = Harness::new(
        snap,
        Some(f),
        Ledger::new(dir.path()),
        Theme::default_theme(),
        120,
        40,
    )
    .unwrap();
    h.draw();
    assert!(
        h.screen().contains("gate: label `no-shepherd`"),
        "{}",
        h.screen()
    );
    h.press("r");
    assert!(h.app.draft().is_some(), "an explicit review is still shown");
    h.press("p");
    let Some(PrAsk::Refused(why)) = h.app.pr_asked() else {
        panic!("not refused: {:?}", h.app.mode())
    };
    assert!(why.contains("no-shepherd"), "{why}");
    assert!(h.screen().contains("Not posting"));
    h.press("y");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert!(
        Ledger::new(dir.path())
            .outbox(&coords(&h))
            .unwrap()
            .is_none()
    );
}

#[test]
fn next_new_wraps_round_to_earlier_unseen_items_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 100, 30);
    h.draw();
    // From the last row, `]` has nothing ahead: round to the first new-or-edited item, said.
    h.press("G");
    let bottom = h.app.selected_row().unwrap();
    h.press("]");
    let first = h.app.selected_row().unwrap();
    assert!(first < bottom, "{first} {bottom}");
    assert_eq!(
        h.app.notice(),
        Some("wrapped to the top: the first new or edited item")
    );
    // And `[` from there goes round to the last one.
    h.press("[");
    assert!(h.app.selected_row().unwrap() > first);
    assert_eq!(
        h.app.notice(),
        Some("wrapped to the bottom: the last new or edited item")
    );
}
