//! Deciding a PR in the console: `J` merges the head shown, naming the method, the head and what
//! it goes past, and asks a second time before going past items never shown; `Z` closes with a
//! comment posted first; `b` labels from a filtered picker; `T`, `B`, `Y` and `ctrl-e` each one
//! key with one confirmation. Offline all of it lands in the outbox, and the console says
//! "recorded offline, not sent", never "merged".

use crate::support;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::PrCoords;
use pr_shepherd::tui::app::{DecideAsk, DecideScreen, InputMode, PrScreen};
use pr_shepherd::tui::harness::Harness;
use support::console::{coords, open};

fn actions(dir: &std::path::Path, pr: &PrCoords) -> Vec<(String, serde_json::Value)> {
    Ledger::new(dir)
        .action_outbox(pr)
        .unwrap()
        .actions
        .into_iter()
        .map(|a| (a.kind, a.detail))
        .collect()
}

fn confirm_lines(h: &Harness) -> Vec<String> {
    match h.app.decide_asked() {
        Some(DecideAsk::Confirm { lines, .. }) => lines.clone(),
        other => panic!("no confirmation: {other:?}\n{}", h.screen()),
    }
}

#[test]
fn a_merge_names_method_head_and_what_it_goes_past_and_asks_twice_past_the_unseen() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 120, 35);
    h.draw();
    let pr = coords(&h);
    let head = h.app.pr_meta().unwrap().head_sha.clone();
    h.press("J");
    assert!(h.app.top_is::<DecideScreen>(), "{:?}", h.app.stack());
    let s = h.screen();
    assert!(
        s.contains("Method") && s.contains("merge") && s.contains("squash"),
        "{s}"
    );
    assert!(s.contains(&head[..7]), "{s}");
    // s chooses squash; Enter asks, naming it and the head.
    h.press("s Enter");
    let lines = confirm_lines(&h);
    assert!(
        lines.iter().any(|l| l.contains("squash and merge")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains(&head[..7])), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("unresolved thread")),
        "{lines:?}"
    );
    assert!(
        h.screen().contains("a second question follows"),
        "{}",
        h.screen()
    );
    // The first yes leads to the second question: items never shown.
    h.press("y");
    assert!(
        matches!(h.app.decide_asked(), Some(DecideAsk::Past { lines, .. }) if lines.iter().any(|l| l.contains("never shown"))),
        "{:?}",
        h.app.decide_asked()
    );
    // No there: nothing recorded.
    h.press("n");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert!(actions(dir.path(), &pr).is_empty());
    // Both yeses: recorded offline at the head shown.
    h.press("Enter y y");
    let a = actions(dir.path(), &pr);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0].0, "merge");
    assert_eq!(a[0].1["method"], "squash");
    assert_eq!(a[0].1["head"], serde_json::json!(head));
    let notice = h.app.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("recorded offline, not sent"), "{notice}");
    assert!(!notice.contains("merged ("), "{notice}");
    // Merged offline: the screen says so and a second merge records nothing.
    h.press("Enter");
    assert!(h.app.decide_asked().is_none());
    assert!(h.screen().contains("merged"), "{}", h.screen());
    assert_eq!(actions(dir.path(), &pr).len(), 1);
    // Esc: back on the PR screen.
    h.press("Esc");
    assert!(h.app.top_is::<PrScreen>(), "{:?}", h.app.stack());
}

#[test]
fn close_with_a_comment_labels_from_the_picker_and_one_key_decisions_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(dir.path(), 80, 24);
    h.draw();
    let pr = coords(&h);
    // Z: close, with a comment written first.
    h.press("Z e");
    assert_eq!(*h.app.mode(), InputMode::Edit, "{}", h.screen());
    h.type_text("Superseded by #498.");
    h.press("Esc Enter");
    let lines = confirm_lines(&h);
    assert!(
        lines.iter().any(|l| l.contains("Superseded by #498.")),
        "{lines:?}"
    );
    h.press("y");
    assert_eq!(actions(dir.path(), &pr)[0].0, "close");
    let posted = std::fs::read_to_string(dir.path().join(format!(
        "prs/{}/{}/{}/outbox/comments.json",
        pr.owner, pr.repo, pr.number
    )))
    .unwrap();
    assert!(posted.contains("Superseded by #498."), "{posted}");
    h.press("Esc");
    // b: the picker; typing filters, Space marks, Enter asks.
    h.press("b");
    h.type_text("cli");
    let s = h.screen();
    assert!(s.contains("Filter cli") && s.contains("[x] client"), "{s}");
    h.press("Space");
    assert!(h.screen().contains("[-] remove client"), "{}", h.screen());
    h.press("Enter");
    let lines = confirm_lines(&h);
    assert!(lines.iter().any(|l| l == "Remove: client"), "{lines:?}");
    h.press("y Esc");
    assert!(
        actions(dir.path(), &pr)
            .iter()
            .any(|(k, d)| k == "label-remove" && d["names"][0] == "client")
    );
    // T and ctrl-e: one key, one confirmation each.
    h.press("T Enter y Esc");
    h.press("ctrl-e r Enter y Esc");
    h.press("B");
    h.type_text("mia acme/core");
    h.press("Enter");
    let lines = confirm_lines(&h);
    assert!(lines.iter().any(|l| l.contains("PR:")), "{lines:?}");
    h.press("y Esc");
    let kinds: Vec<String> = actions(dir.path(), &pr)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for k in ["close", "draft", "update-branch", "request-review"] {
        assert!(kinds.iter().any(|x| x == k), "{k} in {kinds:?}");
    }
    let update = actions(dir.path(), &pr)
        .into_iter()
        .find(|(k, _)| k == "update-branch")
        .unwrap();
    assert_eq!(update.1["rebase"], true);
}

#[test]
fn the_keys_are_in_the_pr_screens_help_by_their_words() {
    let dir = tempfile::tempdir().unwrap();
    let h = open(dir.path(), 120, 35);
    let help = h.app.help_entries();
    for word in [
        "merge",
        "close",
        "label",
        "reviewer",
        "ready",
        "update the branch",
        "check out",
    ] {
        assert!(
            help.iter().any(|(_, what)| what.contains(word)),
            "`{word}` in {help:?}"
        );
    }
}

#[test]
fn a_decision_key_on_an_inbox_row_opens_the_pr_then_its_decision() {
    let (mut h, _dir) = support::console::bundled_inbox(120, 35);
    h.draw();
    h.press("Z");
    assert!(
        h.app.top_is::<DecideScreen>(),
        "{:?}\n{}",
        h.app.stack(),
        h.screen()
    );
    assert_eq!(h.app.stack().len(), 3, "{:?}", h.app.stack());
    h.press("Enter");
    assert!(
        matches!(h.app.decide_asked(), Some(DecideAsk::Confirm { title, .. }) if title == "Close?")
    );
    h.press("n Esc");
    assert!(h.app.top_is::<PrScreen>(), "{:?}", h.app.stack());
    let help = {
        h.press("q");
        h.app.help_entries()
    };
    assert!(
        help.iter().any(|(_, w)| w.contains("merge, close/reopen")),
        "{help:?}"
    );
}

#[test]
fn reviewers_suggests_the_code_owners_of_the_changed_files_and_tab_adds_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("assets/fixtures/demo.json").unwrap())
            .unwrap();
    let base = v["pr"]["baseSha"].clone();
    v["fileContents"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "sha": base, "path": ".github/CODEOWNERS",
            "text": "*  @acme/core\nsrc/client/ @maya-chen\n*.tsx @tomasz-w @web-lead\n",
        }));
    let path = dir.path().join("pr.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let fixture = pr_shepherd::source::Fixture::load(&path).unwrap();
    let snapshot = fixture.snapshot_at(0).unwrap();
    let (mut h, _d) = support::console::harness_with(snapshot, Some(fixture), 120, 35);
    h.draw();
    h.press("B");
    let s = h.screen();
    // The author (tomasz-w) is left out.
    assert!(
        s.contains("Code owners: @maya-chen, @acme/core, @web-lead"),
        "{s}"
    );
    h.press("Tab Enter");
    match h.app.decide_asked() {
        Some(DecideAsk::Confirm { title, .. }) => {
            assert!(
                title.contains("@maya-chen, @web-lead, @acme/core"),
                "{title}"
            )
        }
        other => panic!("{other:?}\n{}", h.screen()),
    }
}

#[test]
fn marked_inbox_rows_get_one_confirmation_naming_each_and_a_result_per_pr() {
    use pr_shepherd::tui::app::decide::batch::{BatchAsk, BatchScreen};
    let (mut h, dir) = support::console::bundled_inbox(120, 35);
    h.draw();
    // Space marks the first row, V from it to the third: three PRs.
    h.press("Space");
    assert_eq!(
        h.app.notice(),
        Some("1 marked · a decision key (J Z T b B Y ctrl-e) acts on each · Space unmarks"),
        "{:?}",
        h.app.stack()
    );
    h.press("j j V");
    assert!(h.screen().contains(" ●"), "{}", h.screen());
    let marked: Vec<PrCoords> = h
        .app
        .inbox_rows(0)
        .iter()
        .map(|r| r.listed.coords.clone())
        .collect();
    assert_eq!(marked.len(), 3);
    // b: labels to add on all of them.
    h.press("b");
    assert!(h.app.top_is::<BatchScreen>(), "{:?}", h.app.stack());
    h.type_text("triaged");
    h.press("Enter");
    match h.app.batch_asked() {
        Some(BatchAsk::Confirm { lines, .. }) => {
            assert_eq!(lines.len(), 3, "{lines:?}");
            for c in &marked {
                assert!(
                    lines
                        .iter()
                        .any(|l| l.starts_with(&c.to_string()) && l.contains("triaged")),
                    "{lines:?}"
                );
            }
        }
        other => panic!("{other:?}\n{}", h.screen()),
    }
    h.press("y");
    let s = h.screen();
    assert_eq!(s.matches("✓").count(), 3, "{s}");
    for c in &marked {
        assert!(
            actions(dir.path(), c)
                .iter()
                .any(|(k, d)| k == "label-add" && d["names"][0] == "triaged")
        );
    }
    // J on the same marks: a merge each, asked twice past the unseen.
    h.press("Esc J Enter");
    assert!(
        matches!(h.app.batch_asked(), Some(BatchAsk::Confirm { second, .. }) if !second.is_empty()),
        "{:?}",
        h.app.batch_asked()
    );
    h.press("y");
    assert!(matches!(h.app.batch_asked(), Some(BatchAsk::Past { .. })));
    h.press("n");
    for c in &marked {
        assert!(!actions(dir.path(), c).iter().any(|(k, _)| k == "merge"));
    }
    // Ctrl-a: approve each, past the unseen only with the second yes; into the review outbox.
    h.press("Esc ctrl-a Enter y y");
    let s = h.screen();
    assert_eq!(
        s.matches("✓ recorded offline, not sent: approve at")
            .count(),
        3,
        "{s}"
    );
    for c in &marked {
        let held = Ledger::new(dir.path()).review_outbox(c).unwrap();
        assert_eq!(held.len(), 1, "{c}: {held:?}");
        assert_eq!(held[0].body["event"], "APPROVE");
    }
}

#[test]
fn ctrl_g_checks_out_the_head_shown_beside_the_configured_clone() {
    // "GitHub" with the PR's head at refs/pull/482/head, and the maintainer's clone of it.
    let pc = support::gitrepo::PrClone::new();
    let (root, clone) = (&pc.root, pc.clone.clone());
    let fixture =
        pr_shepherd::source::Fixture::parse(&pc.fixture_json(), std::path::Path::new("pr.json"))
            .unwrap();
    let snapshot = fixture.snapshot_at(0).unwrap();
    let (mut h, _d) = support::console::harness_with(snapshot, Some(fixture), 120, 35);
    h.set_checkout(clone.clone());
    h.draw();
    h.press("ctrl-g Enter");
    match h.app.decide_asked() {
        Some(DecideAsk::Confirm { lines, .. }) => {
            assert!(
                lines.iter().any(|l| l.contains("rivet-pr-482")),
                "{lines:?}"
            )
        }
        other => panic!("{other:?}\n{}", h.screen()),
    }
    h.press("y");
    let notice = h.app.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("checked out the PR's head"), "{notice}");
    let tree = root.path().join("rivet-pr-482");
    assert_eq!(
        std::fs::read_to_string(tree.join("src/lib.rs")).unwrap(),
        "pub fn one() {}\npub fn two() {}\n"
    );
}

#[test]
fn a_batch_approval_past_the_unseen_is_asked_as_an_approval_not_a_merge() {
    let (mut h, _dir) = support::console::bundled_inbox(80, 24);
    h.draw();
    h.press("Space ctrl-a Enter y");
    let s = h.screen();
    assert!(
        s.contains("Approve past what you have not seen?") && s.contains("y approves anyway"),
        "{s}"
    );
    assert!(!s.contains("Merge past"), "{s}");
    // Back on the inbox after deciding: the list is read again.
    h.press("y Esc");
    assert!(
        h.app.top_is::<pr_shepherd::tui::app::InboxScreen>(),
        "{:?}",
        h.app.stack()
    );
    assert_eq!(h.app.notice(), Some("reloading the list…"));
}
