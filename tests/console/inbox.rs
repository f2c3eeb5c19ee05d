//! The console's inbox screen on a TestBackend: snapshots of the bundled inbox, and the triage
//! loop inbox → Enter → PR → q → inbox (row recounted) → q.

use pr_shepherd::inbox::{Counts, ShepherdState};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::app::{InboxScreen, PrScreen, inbox};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::inbox_link::TabSource;
use pr_shepherd::tui::theme::Theme;

fn bundled(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    crate::support::console::bundled_inbox(w, h)
}

fn row_unseen(h: &Harness, number: u64) -> Option<usize> {
    h.app
        .inbox_rows(0)
        .iter()
        .find(|r| r.listed.coords.number == number)
        .and_then(|r| r.items.unseen())
}

#[test]
fn the_bundled_inbox() {
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    let screen = h.screen();
    // One repository: named once, on the table's frame, its rows by number.
    assert!(screen.contains("┌ acme/rivet ─"), "{screen}");
    assert!(screen.contains("│  #482 "), "{screen}");
    assert!(screen.contains("needs-label"), "{screen}");
    assert!(screen.contains("stale"), "{screen}");
    insta::assert_snapshot!("inbox_bundled_140x16", screen);
}

#[test]
fn the_bundled_inbox_narrow_and_filtered() {
    let (mut h, _d) = bundled(80, 14);
    h.draw();
    insta::assert_snapshot!("inbox_bundled_80x14", h.screen());
    // f opens the filter menu; g lists the PRs the gate allows.
    h.press("f g");
    let screen = h.screen();
    assert!(screen.contains("showing: gate allowed"), "{screen}");
    assert!(!screen.contains("#497"), "{screen}");
    insta::assert_snapshot!("inbox_filter_allowed", screen);
}

#[test]
fn enter_opens_the_pr_and_q_comes_back_with_the_row_recounted() {
    let (mut h, _d) = bundled(120, 30);
    h.draw();
    assert!(h.app.top_is::<InboxScreen>());
    // Select the demo (#482) with search, then open it.
    h.press("/");
    h.type_text("482");
    h.press("Enter");
    let before = row_unseen(&h, 482).unwrap();
    assert!(before > 0);
    h.press("Enter");
    assert!(h.app.top_is::<PrScreen>(), "{}", h.screen());
    assert_eq!(h.app.pr_meta().unwrap().number, 482);
    assert!(h.screen().contains("acme/rivet#482 client: retry"));
    // Looking at items in the PR screen marks them seen; M marks every listed item (y confirms).
    h.press("M");
    h.press("y");
    h.press("q");
    assert!(h.app.top_is::<InboxScreen>(), "{}", h.screen());
    assert!(!h.app.quitting());
    assert_eq!(row_unseen(&h, 482), Some(0), "{}", h.screen());
    // `]` goes to the next PR with unseen items (the search cleared first); q quits.
    h.press("/");
    h.press("Esc");
    assert!(h.app.top_is::<InboxScreen>());
    assert!(!h.app.quitting());
    h.press("]");
    let sel = h.app.inbox_selected().unwrap();
    assert!(sel.items.unseen().unwrap() > 0);
    h.press("q");
    assert!(h.app.quitting());
}

#[test]
fn sort_and_sections_keys() {
    let (mut h, _d) = bundled(120, 20);
    h.draw();
    h.press("s");
    assert!(h.screen().contains("sort: updated"));
    h.press("s");
    assert!(h.screen().contains("sort: unseen"));
    let rows = &h.app.inbox_rows(0);
    let unseen: Vec<usize> = rows.iter().filter_map(|r| r.items.unseen()).collect();
    let mut sorted = unseen.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(unseen, sorted);
    // r reloads the list; counts stay as the ledger says.
    h.press("r");
    assert!(
        h.app
            .inbox_rows(0)
            .iter()
            .all(|r| matches!(r.items, Counts::Counted { .. }))
    );
    let hist = h
        .app
        .inbox_rows(0)
        .iter()
        .find(|r| r.listed.coords.number == 471)
        .unwrap();
    assert_eq!(hist.shepherd.state, ShepherdState::Stale);
}

/// `s` goes on from the three orders to the table's columns: the rows follow the column's
/// order, the selected PR stays selected, the header names the column, and the cycle comes
/// round to attention.
#[test]
fn sort_goes_on_through_the_columns_keeping_the_selection() {
    use pr_shepherd::inbox::columns::{ALL, Column, compare};
    let (mut h, _d) = bundled(120, 20);
    h.draw();
    h.press("j");
    h.press("j");
    let kept = h.app.inbox_selected().unwrap().listed.coords.clone();
    for _ in 0..3 {
        h.press("s");
    }
    assert_eq!(h.app.inbox().unwrap().sort_column, Some(Column::Pr));
    assert!(h.screen().contains("sort: PR column"), "{}", h.screen());
    while h.app.inbox().unwrap().sort_column != Some(Column::Checks) {
        h.press("s");
    }
    h.draw();
    assert!(h.screen().contains("sort: checks column"), "{}", h.screen());
    let rows = h.app.inbox_rows(0);
    assert!(
        rows.windows(2)
            .all(|w| compare(&w[0], &w[1], Column::Checks).is_le()),
        "{rows:#?}"
    );
    assert_eq!(h.app.inbox_selected().unwrap().listed.coords, kept);
    // Every column after checks but age (sorted as the `updated` order is), then attention.
    let after_checks = ALL.len() - 1 - ALL.iter().position(|c| *c == Column::Checks).unwrap() - 1;
    let mut presses = 0;
    while h.app.inbox().unwrap().sort_column.is_some() {
        h.press("s");
        presses += 1;
    }
    assert_eq!(presses, after_checks + 1);
    h.draw();
    assert!(h.screen().contains("sort: attention"), "{}", h.screen());
    assert_eq!(h.app.inbox_selected().unwrap().listed.coords, kept);
}

/// The reverse key turns the rows round; the header's arrow says which way they go.
#[test]
fn the_sort_reverses_and_the_header_says_so() {
    let (mut h, _d) = bundled(120, 20);
    h.draw();
    h.press("s");
    assert!(h.screen().contains("sort: updated ↓"), "{}", h.screen());
    let down: Vec<_> = h
        .app
        .inbox_rows(0)
        .iter()
        .map(|r| r.listed.coords.clone())
        .collect();
    h.press("O");
    assert!(h.screen().contains("sort: updated ↑"), "{}", h.screen());
    let up: Vec<_> = h
        .app
        .inbox_rows(0)
        .iter()
        .map(|r| r.listed.coords.clone())
        .collect();
    assert_eq!(up, down.into_iter().rev().collect::<Vec<_>>());
    h.press("O");
    assert!(h.screen().contains("sort: updated ↓"), "{}", h.screen());
}

/// A triage session opens PR after PR from the inbox, in any order: the PR screen's header line
/// (always there) once counted as a review running, so every PR after the first was refused.
#[test]
fn the_inbox_opens_one_pr_after_another() {
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    let mut opened = Vec::new();
    for down in ["", "j", "j"] {
        h.press(down);
        let chosen = h.app.inbox_selected().unwrap().listed.coords.number;
        h.press("Enter");
        assert!(h.app.top_is::<PrScreen>(), "{}", h.screen());
        assert_eq!(h.app.pr_meta().unwrap().number, chosen);
        opened.push(chosen);
        h.press("q");
        assert!(h.app.top_is::<InboxScreen>());
    }
    // Back up to the first one: it opens again.
    h.press("g Enter");
    assert_eq!(h.app.pr_meta().unwrap().number, opened[0]);
    opened.dedup();
    assert_eq!(opened.len(), 3, "{opened:?}");
}

/// Each PR screen owns its run: a review running on one PR goes on while others are opened and
/// read, its progress reaches it (and no other screen) and shows on its inbox row, and reopening
/// it returns to it as it was.
#[test]
fn a_review_running_on_one_pr_goes_on_while_others_are_read() {
    use pr_shepherd::review::{Aspect, ReviewEvent};
    use pr_shepherd::tui::app::{Action, Effect};
    use pr_shepherd::tui::keymap::KeyCommand;
    use pr_shepherd::tui::review::AspectView;
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    h.press("/");
    h.type_text("482");
    h.press("Enter");
    h.press("Enter");
    assert!(h.app.top_is::<PrScreen>());
    let a = h.app.pr_meta().unwrap().coords();
    // `r` without performing its effects: the run stays in flight, as it does while the model
    // answers.
    let fx = h.app.update(Action::Command(KeyCommand::Review));
    let (seq_a, screen_a) = fx
        .iter()
        .find_map(|e| match &e.effect {
            Effect::StartReview { seq, snapshot, .. } => {
                assert_eq!(snapshot.pr.coords(), a);
                Some((*seq, e.by))
            }
            _ => None,
        })
        .unwrap();
    h.press("q");
    assert!(h.app.top_is::<InboxScreen>());
    // Another PR opens while the run goes on.
    h.press("/ Esc g");
    if h.app.inbox_selected().unwrap().listed.coords == a {
        h.press("j");
    }
    h.press("Enter");
    assert!(h.app.top_is::<PrScreen>(), "{}", h.screen());
    let b = h.app.pr_meta().unwrap().coords();
    assert_ne!(a, b);
    // B starts its own run: the same sequence number as A's, on another PR.
    let fx = h.app.update(Action::Command(KeyCommand::Review));
    assert!(
        fx.iter()
            .any(|e| matches!(&e.effect, Effect::StartReview { seq, .. } if *seq == seq_a))
    );
    // A's progress, addressed to the screen that started it, reaches A's screen only.
    h.app.update(Action::For {
        screen: screen_a,
        action: Box::new(Action::Review {
            seq: seq_a,
            event: ReviewEvent::Cancelled {
                aspect: Aspect::Perf,
            },
        }),
    });
    let state = |pr| {
        h.app
            .pr_of(pr)
            .unwrap()
            .desk
            .run
            .as_ref()
            .unwrap()
            .aspects
            .iter()
            .find(|(x, _)| *x == Aspect::Perf)
            .unwrap()
            .1
            .clone()
    };
    assert_ne!(state(&b), AspectView::Cancelled, "A's event reached B");
    assert_eq!(state(&a), AspectView::Cancelled);
    assert!(h.app.pr_of(&a).unwrap().desk.busy(), "A's run goes on");
    // Back to the inbox: both rows say their run is going on.
    h.press("q");
    assert!(h.app.top_is::<InboxScreen>());
    let screen = h.screen();
    for pr in [&a, &b] {
        let row = screen
            .lines()
            .find(|l| l.contains(&format!(" #{} ", pr.number)))
            .unwrap_or_default();
        assert!(row.contains("[review"), "{pr}: {screen}");
    }
    // Reopening A returns to its screen, its run still there.
    h.press("/");
    h.type_text(&a.number.to_string());
    h.press("Enter Enter");
    assert_eq!(h.app.pr_meta().unwrap().coords(), a);
    assert_eq!(h.app.run().unwrap().seq, seq_a);
    assert!(h.app.pr().unwrap().desk.busy());
}

#[test]
fn the_inbox_footer_and_keys_follow_the_keymap() {
    use pr_shepherd::keys::Key;
    use pr_shepherd::tui::keymap::{KeyCommand, Keymap};
    let (mut h, _d) = bundled(140, 16);
    // `[keys] next_new = "x"`: the footer names `x`, not the default `]`.
    let overrides =
        std::collections::HashMap::from([(KeyCommand::NextNew, vec![Key::parse("x").unwrap()])]);
    h.keymap = Keymap::new(&overrides);
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("x next unseen"), "{screen}");
    assert!(!screen.contains("] next unseen"), "{screen}");
}

/// `pr-shepherd DIR`: the console's inbox of a directory lists the fixtures that parse, names
/// the one that does not (with its file) instead of hiding it, and leaves out a merged PR.
#[test]
fn a_directory_tab_lists_what_parses_and_names_what_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::write(
        fixtures.join("a-demo.json"),
        pr_shepherd::source::DEMO_FIXTURE,
    )
    .unwrap();
    std::fs::write(fixtures.join("b-broken.json"), "{\"format\": 3}").unwrap();
    let merged = pr_shepherd::source::DEMO_FIXTURE
        .replacen("\"number\": 482", "\"number\": 9", 1)
        .replacen("\"state\": \"OPEN\"", "\"state\": \"MERGED\"", 1);
    std::fs::write(fixtures.join("c-merged.json"), merged).unwrap();
    let mut h = Harness::inbox(
        vec![(
            fixtures.display().to_string(),
            TabSource::Dir(fixtures.clone()),
        )],
        Ledger::new(dir.path().join("state")),
        Theme::plain(),
        140,
        16,
    );
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("┌ acme/rivet ─"), "{screen}");
    assert!(screen.contains(" #482 "), "{screen}");
    assert!(!screen.contains("#9 "), "{screen}");
    assert!(
        screen.contains("not listed: ") && screen.contains("b-broken.json"),
        "{screen}"
    );
    assert!(screen.contains("1 not listed"), "{screen}");
}

/// A PR opened from the inbox gets back what it kept from an earlier session, as a PR opened
/// directly does: its unsent thread reply (before, only the review draft came back), and an
/// unreadable draft is said without keeping the PR from opening (before: "cannot open the PR").
#[test]
fn a_pr_opened_from_the_inbox_gets_its_saved_reply_and_survives_a_bad_draft() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    let coords = pr_shepherd::pr::PrCoords {
        host: None,
        owner: "acme".into(),
        repo: "rivet".into(),
        number: 482,
    };
    ledger
        .save_reply_draft(
            &coords,
            &pr_shepherd::ledger::ReplyDraft {
                thread_id: "PRRT_kwDOKq3xZs5hQ1bB".into(),
                body: "kept reply".into(),
                saved_at: 1,
            },
        )
        .unwrap();
    std::fs::write(
        ledger.pr_dir(&coords).unwrap().join("draft.json"),
        "{ not json",
    )
    .unwrap();
    let mut h = Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        ledger,
        Theme::plain(),
        120,
        30,
    );
    h.draw();
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter");
    assert!(h.app.top_is::<PrScreen>(), "{}", h.screen());
    let notice = h.app.notice().map(str::to_owned).unwrap_or_default();
    assert!(notice.contains("the saved draft is unreadable"), "{notice}");
    assert!(
        h.app.reply().is_some(),
        "the unsent reply did not come back"
    );
}

/// `?` on the inbox lists the inbox's keys, as the keymap binds them — not the PR screen's
/// (before, the inbox's help was the PR screen's list: post, discard, reply, …).
#[test]
fn the_inbox_help_lists_the_inbox_keys() {
    use pr_shepherd::keys::Key;
    use pr_shepherd::tui::app::InputMode;
    use pr_shepherd::tui::keymap::{KeyCommand, Keymap};
    let (mut h, _d) = bundled(120, 40);
    let overrides =
        std::collections::HashMap::from([(KeyCommand::NextNew, vec![Key::parse("x").unwrap()])]);
    h.keymap = Keymap::new(&overrides);
    h.draw();
    h.press("?");
    assert_eq!(*h.app.mode(), InputMode::Help);
    let screen = h.screen();
    for inbox_key in [
        "open the PR",
        "next PR with unseen items",
        "next sort order",
        "reload the list",
        "next section",
    ] {
        assert!(
            screen.contains(inbox_key),
            "help lacks `{inbox_key}`:\n{screen}"
        );
    }
    assert!(
        screen.contains("x  next PR with unseen items"),
        "the rebound key is named:\n{screen}"
    );
    for pr_key in [
        "post the review",
        "run the review",
        "reply to the selected thread",
        "fixture history",
    ] {
        assert!(
            !screen.contains(pr_key),
            "the inbox's help lists `{pr_key}`:\n{screen}"
        );
    }
    insta::assert_snapshot!("inbox_help", screen);
    // `?` closes it; the PR screen's help is the PR's.
    h.press("?");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter ?");
    assert!(h.app.top_is::<PrScreen>(), "{}", h.screen());
    let screen = h.screen();
    assert!(screen.contains("post the review"), "{screen}");
    assert!(!screen.contains("next PR with unseen items"), "{screen}");
}

/// A PR opened from the inbox is pushed on it: the stack is inbox, PR; leaving the PR keeps it
/// (it comes back as it was), and the inbox is the bottom again.
#[test]
fn a_pr_opened_from_the_inbox_is_pushed_on_it_and_kept_when_left() {
    let (mut h, _d) = bundled(120, 30);
    h.draw();
    assert_eq!(h.app.stack(), ["inbox"]);
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter");
    assert_eq!(h.app.stack(), ["inbox", "PR"]);
    h.press("j j");
    let selected = h.app.selected_id().map(str::to_owned);
    h.press("q");
    assert_eq!(h.app.stack(), ["inbox"]);
    assert_eq!(h.app.kept(), 1);
    // The same PR again: back as it was, without loading it again.
    let opens = |h: &Harness| {
        h.effects
            .iter()
            .filter(|e| matches!(e.work::<inbox::Work>(), Some(inbox::Work::Open(_))))
            .count()
    };
    let before = opens(&h);
    h.press("Enter");
    assert_eq!(h.app.stack(), ["inbox", "PR"]);
    assert_eq!(
        opens(&h),
        before,
        "the kept screen came back, nothing was loaded"
    );
    assert_eq!(h.app.selected_id().map(str::to_owned), selected);
    assert_eq!(h.app.kept(), 0);
}

/// `Esc` in the inbox leaves a search and closes the help, and never quits the session (nor
/// a review running behind it): there `q` quits.
#[test]
fn esc_in_the_inbox_never_quits() {
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    h.press("/");
    h.type_text("482");
    h.press("Esc");
    assert!(h.app.search().is_none() || !h.app.quitting());
    h.press("? Esc");
    h.press("Esc");
    assert!(!h.app.quitting());
    assert!(h.app.top_is::<InboxScreen>());
    assert!(
        h.screen().contains(pr_shepherd::tui::app::NOTHING_TO_CLOSE),
        "{}",
        h.screen()
    );
    h.press("q");
    assert!(h.app.quitting());
}

/// Quitting while a review runs asks first, naming what would be lost; `n` stays, `y` quits, and
/// a second Ctrl-c while the question is open quits too. With nothing at stake `q` quits at once.
#[test]
fn quitting_while_a_review_runs_asks_first() {
    use pr_shepherd::tui::app::{Action, InputMode};
    use pr_shepherd::tui::keymap::KeyCommand;
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter");
    let _in_flight = h.app.update(Action::Command(KeyCommand::Review));
    h.press("q");
    assert!(h.app.top_is::<InboxScreen>());
    h.press("q");
    assert!(!h.app.quitting());
    match h.app.mode() {
        InputMode::ConfirmQuit { lost } => {
            assert!(
                lost.iter()
                    .any(|l| l.contains("review running on acme/rivet#482")),
                "{lost:?}"
            );
        }
        other => panic!("no quit confirmation: {other:?}"),
    }
    assert!(h.screen().contains("Quit?"), "{}", h.screen());
    h.press("n");
    assert!(!h.app.quitting());
    assert_eq!(*h.app.mode(), InputMode::Normal);
    h.app.update(Action::ForceQuit);
    assert!(!h.app.quitting(), "Ctrl-c asks too");
    h.app.update(Action::ForceQuit);
    assert!(h.app.quitting(), "a second Ctrl-c quits");

    let (mut h, _d) = bundled(140, 16);
    h.draw();
    h.press("q");
    assert!(h.app.quitting(), "nothing at stake: q quits at once");
}

/// The attention sort follows the counts as they arrive: a PR found to have new items rises to
/// the top while the selection stays on the PR it was on, and the header says "counting k/n"
/// until the last count.
#[test]
fn rows_resort_as_counts_arrive_keeping_the_selection() {
    use pr_shepherd::inbox::GateReview;
    use pr_shepherd::tui::app::{Action, Done};
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    let mut rows = h.app.inbox_rows(0).to_vec();
    assert!(rows.len() >= 3);
    for r in &mut rows {
        r.items = Counts::Loading;
        r.gate.review = GateReview::Paused;
    }
    h.app.update(Action::to(
        h.app.top_id(),
        Action::Done(Done::new(inbox::Done::Listed {
            tab: 0,
            result: Ok((rows, Vec::new())),
        })),
    ));
    h.press("g");
    let selected = h.app.inbox_selected().unwrap().listed.coords.clone();
    let last = h.app.inbox_rows(0).last().unwrap().clone();
    assert_ne!(last.listed.coords, selected);
    let mut counted = last.clone();
    counted.items = Counts::Counted {
        total: 4,
        new: 3,
        edited: 0,
    };
    h.app.update(Action::to(
        h.app.top_id(),
        Action::Done(Done::new(inbox::Done::Counted {
            tab: 0,
            rows: vec![counted],
            finished: false,
        })),
    ));
    h.draw();
    assert_eq!(
        h.app.inbox_rows(0)[0].listed.coords,
        last.listed.coords,
        "the PR with new items is on top"
    );
    assert_eq!(h.app.inbox_selected().unwrap().listed.coords, selected);
    let n = h.app.inbox_rows(0).len();
    assert_eq!(h.app.inbox_loading(0), Some((1, n)));
    assert!(
        h.screen().contains(&format!("counting 1/{n}")),
        "{}",
        h.screen()
    );
}

/// A PR left with an unposted draft stays in the session while other PRs are opened: quitting
/// later still names its draft, and reopening it returns to it.
#[test]
fn a_draft_left_in_one_pr_is_named_when_quitting_after_others() {
    use pr_shepherd::tui::app::InputMode;
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter");
    // The replayed review runs to its end: its draft is unposted.
    h.press("r");
    assert!(h.app.draft().is_some());
    h.press("q q");
    assert!(h.app.top_is::<InboxScreen>());
    h.press("/ Esc g");
    if h.app.inbox_selected().unwrap().listed.coords.number == 482 {
        h.press("j");
    }
    h.press("Enter");
    assert_ne!(h.app.pr_meta().unwrap().number, 482);
    h.press("q q");
    match h.app.mode() {
        InputMode::ConfirmQuit { lost } => assert!(
            lost.iter().any(|l| l.contains("draft of acme/rivet#482")),
            "{lost:?}"
        ),
        other => panic!("quit without asking: {other:?}"),
    }
}

/// Shepherd's own review comment is not news to the maintainer who posted it: the inbox row of
/// a PR carrying one counts it neither new nor edited (as `items` does), so a reviewed PR stops
/// needing attention once the rest is seen.
#[test]
fn the_inbox_does_not_count_shepherds_own_review_as_unseen() {
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    let row = h
        .app
        .inbox_rows(0)
        .iter()
        .find(|r| r.listed.coords.number == 471)
        .expect("the PR with history is in the bundled inbox");
    let Counts::Counted { total, new, edited } = row.items.clone() else {
        panic!("counted: {:?}", row.items);
    };
    let fixture = pr_shepherd::source::Fixture::parse(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/fixtures/history.json"
        ))
        .unwrap(),
        std::path::Path::new("history"),
    )
    .unwrap();
    let snapshot = fixture.into_snapshot_at(0).unwrap();
    let own = pr_shepherd::review::inputs::prior::prior_reviews(
        &snapshot,
        pr_shepherd::pr::DEFAULT_IDENTITY,
    )
    .own
    .len();
    assert!(own >= 1, "the fixture carries Shepherd's own review");
    assert_eq!(total, snapshot.items.len());
    assert_eq!(
        new + edited,
        total - own,
        "nothing seen yet, the own review aside"
    );
    assert_eq!(row_unseen(&h, 471), Some(total - own));
}

/// `Esc` closes the innermost thing in the inbox: a search already applied with `Enter`, then
/// a filter picked from the menu — one at a time, the selection kept — and only then has
/// nothing to close; it never quits (`q` does, search or not).
#[test]
fn esc_in_the_inbox_clears_an_applied_search_then_the_filter() {
    let (mut h, _d) = bundled(140, 16);
    h.draw();
    h.press("f n");
    assert!(!h.screen().contains("showing: all"), "{}", h.screen());
    h.press("/");
    h.type_text("482");
    h.press("Enter");
    let screen = h.screen();
    assert!(
        screen.contains("search `482`") && !screen.contains(" #497 "),
        "{screen}"
    );
    h.press("Esc");
    let screen = h.screen();
    assert!(!screen.contains("search `"), "the search stayed:\n{screen}");
    assert!(screen.contains(" #497 "), "{screen}");
    assert!(
        !screen.contains("showing: all"),
        "one thing at a time:\n{screen}"
    );
    assert!(!h.app.quitting());
    h.press("Esc");
    let screen = h.screen();
    assert!(
        screen.contains("showing: all"),
        "the filter stayed:\n{screen}"
    );
    assert!(!h.app.quitting());
    h.press("Esc");
    assert!(
        h.screen().contains(pr_shepherd::tui::app::NOTHING_TO_CLOSE),
        "{}",
        h.screen()
    );
    assert!(!h.app.quitting() && h.app.top_is::<InboxScreen>());
    h.press("/");
    h.type_text("482");
    h.press("Enter q");
    assert!(h.app.quitting(), "q quits with a search applied");
}

/// A PR opened from the inbox shows what its thread outbox queued offline: the reply under its
/// thread marked queued, the resolve as RESOLVING(queued), counted resolved in the header.
#[test]
fn a_pr_opened_from_the_inbox_shows_its_queued_thread_actions() {
    use pr_shepherd::ledger::ThreadActionKind;
    let (mut h, dir) = bundled(120, 40);
    let ledger = Ledger::new(dir.path());
    let pr = crate::support::demo_coords();
    let thread = "PRRT_kwDOKq3xZs5hQ1bB";
    ledger
        .push_thread_action(
            &pr,
            ThreadActionKind::Reply,
            thread,
            Some("queued words"),
            1,
        )
        .unwrap();
    ledger
        .push_thread_action(&pr, ThreadActionKind::Resolve, thread, None, 2)
        .unwrap();
    h.draw();
    h.press("/");
    h.type_text("482");
    h.press("Enter Enter");
    assert!(h.app.top_is::<PrScreen>(), "{}", h.screen());
    crate::support::console::select_id(&mut h, thread);
    let screen = h.screen();
    assert!(screen.contains("RESOLVING(queued)"), "{screen}");
    assert!(screen.contains("REPLY(queued)"), "{screen}");
    match h.app.selected_item() {
        Some(pr_shepherd::pr::Item::Thread(t)) => {
            assert!(t.resolved);
            let last = t.comments.last().unwrap();
            assert_eq!(last.body, "queued words");
            assert!(pr_shepherd::ledger::is_queued(&last.id));
        }
        other => panic!("{other:?}"),
    }
}

/// The table's header line: the one naming both `PR` and `title`.
fn table_header(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(" PR ") && l.contains(" title "))
        .unwrap_or_default()
        .to_owned()
}

/// The cell of `line` under the header word `word` of `head`: from the word's first cell to the
/// next header word's (or the border), in display cells.
fn cell_under(head: &str, line: &str, word: &str) -> String {
    let head: Vec<char> = in_cells(head);
    let line: Vec<char> = in_cells(line);
    let text: String = head.iter().collect();
    let Some(byte) = text.find(&format!(" {word} ")) else {
        return String::new();
    };
    let from = text[..byte].chars().count() + 1;
    let mut to = from + word.chars().count();
    while to < head.len() && head[to] == ' ' {
        to += 1;
    }
    line.get(from..to.min(line.len()))
        .map(|c| c.iter().collect())
        .unwrap_or_default()
}

/// A captured line as its display cells: the capture holds one `char` per cell (the second
/// cell of a wide character is a blank of its own).
fn in_cells(line: &str) -> Vec<char> {
    line.chars().collect()
}

/// The bundled inbox is one repository's: it says so once, on the table's frame, and each row names
/// its PR by number; at 80, 120 and 200 columns the header names the checks and the review, and
/// the title is what gives up cells (cut with `…`).
#[test]
fn the_bundled_inbox_at_80_120_and_200_columns() {
    for (w, h) in [(80u16, 14u16), (120, 16), (200, 16)] {
        let (mut harness, _d) = bundled(w, h);
        harness.draw();
        let screen = harness.screen();
        let head = table_header(&screen);
        for col in ["PR", "unseen", "title", "checks", "review"] {
            assert!(head.contains(&format!(" {col} ")), "{w}: {col}:\n{screen}");
        }
        assert!(!screen.contains("acme/rivet#"), "{w}:\n{screen}");
        assert_eq!(
            screen.matches("acme/rivet").count(),
            1,
            "{w}: the repository said once:\n{screen}"
        );
        assert!(screen.contains("┌ acme/rivet ─"), "{w}:\n{screen}");
        for n in [497, 482, 471] {
            let row = screen
                .lines()
                .find(|l| l.contains(&format!(" #{n} ")))
                .unwrap_or_default();
            assert_eq!(row.chars().count(), usize::from(w), "{w}: #{n}:\n{screen}");
            assert!(row.ends_with(" │"), "{w}: #{n}:\n{screen}");
        }
        // The demo's review decision shows in its column.
        let demo = screen
            .lines()
            .find(|l| l.contains(" #482 "))
            .unwrap_or_default();
        assert_eq!(
            cell_under(&head, demo, "review").trim(),
            "required",
            "{w}:\n{screen}"
        );
        if w == 80 {
            assert!(demo.contains('…'), "the title is cut at 80:\n{screen}");
        } else {
            insta::assert_snapshot!(format!("inbox_bundled_{w}x{h}"), screen);
        }
    }
}

/// Fixtures of two repositories (and a PR with 2 failing checks, 1 pending, 118 passing) in a
/// directory tab.
fn two_repositories(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    let demo: serde_json::Value = serde_json::from_str(pr_shepherd::source::DEMO_FIXTURE).unwrap();
    let mut rivet = demo.clone();
    rivet["dashboard"]["checks"] = serde_json::json!({"failing": 2, "pending": 1, "passing": 118});
    let mut gears = demo;
    gears["pr"]["owner"] = "umbrella".into();
    gears["pr"]["repo"] = "gears".into();
    gears["pr"]["number"] = 7.into();
    gears["pr"]["title"] =
        "gears: 歯車の回転数を表示する 🦀 and a title long enough to be cut".into();
    for (name, v) in [("a-rivet.json", rivet), ("b-gears.json", gears)] {
        std::fs::write(fixtures.join(name), serde_json::to_string(&v).unwrap()).unwrap();
    }
    let harness = Harness::inbox(
        vec![(
            fixtures.display().to_string(),
            TabSource::Dir(fixtures.clone()),
        )],
        Ledger::new(dir.path().join("state")),
        Theme::plain(),
        w,
        h,
    );
    (harness, dir)
}

/// An inbox of two repositories names each PR in full; at 80 columns a checks cell of 2
/// failing, 1 pending and 118 passing stays inside its column (a blank before the next one)
/// and shows the failing count, and the review column stays.
#[test]
fn a_two_repository_inbox_keeps_owner_repo_and_its_checks_cells_in_their_column() {
    let (mut h, _d) = two_repositories(80, 14);
    h.draw();
    let screen = h.screen();
    assert!(screen.contains("acme/rivet#482 "), "{screen}");
    assert!(screen.contains("umbrella/gears#7 "), "{screen}");
    assert!(!screen.contains("┌ acme/rivet"), "{screen}");
    let head = table_header(&screen);
    for col in ["checks", "review"] {
        assert!(head.contains(&format!(" {col} ")), "{col}:\n{screen}");
    }
    let row = screen
        .lines()
        .find(|l| l.contains("acme/rivet#482 "))
        .unwrap_or_default();
    assert_eq!(row.chars().count(), 80, "{screen}");
    assert!(row.ends_with('│'), "the border is the last cell:\n{screen}");
    let checks = cell_under(&head, row, "checks");
    assert!(checks.starts_with("✗2 "), "`{checks}`:\n{screen}");
    assert!(
        checks.ends_with(' '),
        "`{checks}` runs into the next column:\n{screen}"
    );
    assert_eq!(
        cell_under(&head, row, "review").trim(),
        "required",
        "{screen}"
    );
    // The other row's title, CJK and emoji, is cut whole, and its row is the width.
    let gears = screen
        .lines()
        .find(|l| l.contains("umbrella/gears#7 "))
        .unwrap_or_default();
    assert!(gears.contains('…'), "{screen}");
    assert_eq!(in_cells(gears).len(), 80, "{screen}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]
    /// At any width the console draws (60 columns up) and with any checks counts and titles
    /// (CJK, emoji), every row of the bundled inbox is the width, blank before the border, the
    /// header names the checks and the review, and a failing count always shows in its column.
    #[test]
    fn every_row_fits_the_width_and_keeps_the_review_and_the_failing_count(
        width in 60u16..=220,
        counts in proptest::collection::vec((0u32..3000, 0u32..3000, 0u32..300_000), 3),
        titles in proptest::collection::vec("[a-z 漢字🦀é]{0,120}", 3),
    ) {
        use pr_shepherd::pr::ChecksSummary;
        use pr_shepherd::tui::app::{Action, Done};
        let (mut h, _d) = bundled(width, 12);
        let mut rows = h.app.inbox_rows(0).to_vec();
        for ((r, (failing, pending, passing)), title) in rows.iter_mut().zip(&counts).zip(&titles) {
            r.listed.dash.checks = Some(ChecksSummary { failing: *failing, pending: *pending, passing: *passing, neutral: 0 });
            r.listed.title = title.clone();
        }
        h.app.update(Action::to(
            h.app.top_id(),
            Action::Done(Done::new(inbox::Done::Listed { tab: 0, result: Ok((rows.clone(), Vec::new())) })),
        ));
        h.draw();
        let screen = h.screen();
        let head = table_header(&screen);
        for col in ["checks", "review"] {
            proptest::prop_assert!(head.contains(&format!(" {col} ")), "{}: {}:\n{}", width, col, screen);
        }
        for r in &rows {
            let n = r.listed.coords.number;
            let line = screen.lines().find(|l| l.contains(&format!(" #{n} "))).unwrap_or_default();
            proptest::prop_assert_eq!(in_cells(line).len(), usize::from(width), "#{}:\n{}", n, screen);
            proptest::prop_assert!(line.ends_with(" │"), "#{}:\n{}", n, screen);
            let checks = cell_under(&head, line, "checks");
            proptest::prop_assert!(checks.ends_with(' '), "#{} `{}`:\n{}", n, checks, screen);
            let Some(s) = r.listed.dash.checks else { continue };
            if s.failing > 0 {
                proptest::prop_assert!(checks.starts_with(&format!("✗{} ", s.failing)), "#{} `{}`:\n{}", n, checks, screen);
            }
        }
    }
}
