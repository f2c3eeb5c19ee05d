//! What the maintainer sent stays in sight until the PR read back shows it: a conversation
//! comment under the conversation, a submitted review under the review summaries with its line
//! comments as threads on their lines (in the diff too), and the pending review's list says
//! what it sent — each marked queued (offline) — across a relaunch, read from the outbox. The
//! maintainer's own reply never makes its thread edited: one seen state, the same in the PR
//! screen, the inbox and `items`.

use crate::support;

use pr_shepherd::code::Side;
use pr_shepherd::code::pending::{CommentKind, PendingReview};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{Item, is_queued};
use pr_shepherd::review::results::inline::parsed_patches;
use pr_shepherd::triage::{Freshness, kept_texts, marks, triage};
use pr_shepherd::tui::harness::Harness;
use support::console::{coords, open, select_id};

/// The items the PR screen shows that stand for something sent, by kind.
fn stand_ins(h: &Harness) -> Vec<Item> {
    h.app
        .pr()
        .expect("the PR screen")
        .list
        .snapshot
        .items
        .iter()
        .filter(|i| is_queued(i.id()))
        .cloned()
        .collect()
}

/// A line of the demo's diff on the new side: (path, line).
fn a_right_line() -> (String, u32) {
    let snap = support::demo_fixture().snapshot_at(0).unwrap();
    parsed_patches(&snap)
        .iter()
        .find_map(|(p, patch)| {
            let a = patch.lines.iter().find_map(|l| l.addr())?;
            (a.side == Side::Right).then(|| (p.clone(), a.line))
        })
        .expect("a line")
}

/// Failed before: offline, the `w` comment and the submitted review never showed on the PR
/// screen, and the review's line comment vanished from the diff and the pending list.
#[test]
fn a_comment_and_a_review_sent_offline_stand_in_their_places_marked_queued() {
    let dir = tempfile::tempdir().unwrap();
    let (path, line) = a_right_line();
    {
        let h = open(dir.path(), 120, 40);
        let mut review = PendingReview::default();
        review
            .add(
                &path,
                Side::Right,
                None,
                line,
                "Name this for what it holds.",
                CommentKind::Comment,
                None,
            )
            .unwrap();
        Ledger::new(dir.path())
            .save_pending(&coords(&h), &review)
            .unwrap();
    }
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    h.press("w");
    h.type_text("Thanks, merging after CI.");
    h.press("ctrl-s y");
    h.press("P X");
    h.type_text("One rename, then it goes in.");
    h.press("Esc y");
    // The pending list says what it sent.
    let s = h.screen();
    assert!(
        s.contains("queued (offline), not on GitHub yet") && s.contains("Name this for"),
        "{s}"
    );
    h.press("Esc");
    let items = stand_ins(&h);
    assert!(
        items
            .iter()
            .any(|i| matches!(i, Item::Comment(c) if c.body == "Thanks, merging after CI.")),
        "{items:?}"
    );
    assert!(
        items
            .iter()
            .any(|i| matches!(i, Item::Review(r) if r.body.starts_with("One rename"))),
        "{items:?}"
    );
    assert!(
        items
            .iter()
            .any(|i| matches!(i, Item::Thread(t) if t.path == path && t.line == Some(line))),
        "{items:?}"
    );
    // Never news to their author, and said queued where they are shown.
    for i in &items {
        assert_eq!(h.app.freshness_of(i.id()), Some(Freshness::Unchanged));
    }
    let review_id = items
        .iter()
        .find(|i| matches!(i, Item::Review(_)))
        .map(|i| i.id().to_owned())
        .unwrap();
    select_id(&mut h, &review_id);
    let s = h.screen();
    assert!(s.contains("queued (offline), not on"), "{s}");
    assert!(s.contains("QUEUED(offline)  CHANGES_REQUESTED"), "{s}");
    drop(h);

    // Relaunched: read from the outbox, in the same places.
    let mut h = open(dir.path(), 120, 40);
    h.draw();
    let again = stand_ins(&h);
    assert_eq!(again.len(), items.len(), "{again:?}");
    // The line comment is on its line in the diff.
    let thread = again
        .iter()
        .find(|i| matches!(i, Item::Thread(_)))
        .map(|i| i.id().to_owned())
        .unwrap();
    select_id(&mut h, &thread);
    let s = h.screen();
    assert!(s.contains("QUEUED(offline)"), "{s}");
    assert!(s.contains("Name this for what it holds."), "{s}");
    // And under its line in the file's diff, marked queued.
    let index = support::demo_fixture()
        .snapshot_at(0)
        .unwrap()
        .pr
        .files
        .iter()
        .position(|f| f.path == path)
        .unwrap();
    h.press("F g");
    for _ in 0..index {
        h.press("j");
    }
    h.press("Enter");
    assert_eq!(h.app.diff_path(), Some(path.as_str()));
    let s = h.screen();
    assert!(
        s.contains("thread @pr-shepherd: Name this for what it holds. · queued (offline)"),
        "{s}"
    );
}

/// Failed before: an own reply queued offline left the PR screen saying UNCHANGED while the
/// inbox and `items` counted the thread as edited.
#[test]
fn an_own_reply_never_makes_its_thread_edited_anywhere() {
    let f = support::demo_fixture();
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    let first = f.snapshot_at(0).unwrap();
    let pr = first.pr.coords();
    let t = triage(&first, &Default::default());
    ledger.keep_texts(&pr, &kept_texts(&first, &t)).unwrap();
    ledger
        .mark_seen(&pr, &marks(&first, &t), 1_700_000_000)
        .unwrap();
    let mut h = Harness::new(
        first.clone(),
        Some(f.clone()),
        Ledger::new(dir.path()),
        pr_shepherd::tui::theme::Theme::default_theme(),
        120,
        40,
    )
    .unwrap();
    h.set_dwell(0);
    h.draw();
    let thread = first
        .items
        .iter()
        .find_map(|i| matches!(i, Item::Thread(_)).then(|| i.id().to_owned()))
        .unwrap();
    select_id(&mut h, &thread);
    h.press("c");
    h.type_text("Fixed in the next push.");
    h.press("ctrl-s y");
    h.tick(10_000);
    h.draw();
    assert_eq!(h.app.freshness_of(&thread), Some(Freshness::Unchanged));
    drop(h);
    // The inbox and `items` read the PR without the outbox, against the same markers.
    let seen = ledger.load_seen(&pr).unwrap();
    let counted = triage(&first, &seen.markers);
    let at = first.items.iter().position(|i| i.id() == thread).unwrap();
    assert_eq!(counted[at].freshness, Freshness::Unchanged);
    assert!(
        counted.iter().all(|t| t.freshness == Freshness::Unchanged),
        "{counted:?}"
    );
}
