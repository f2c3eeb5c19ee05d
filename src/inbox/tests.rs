use super::*;
use crate::source::DEMO_FIXTURE;

fn ledger() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let l = Ledger::new(dir.path());
    (dir, l)
}

fn row_for(number: u64, inbox: &Inbox) -> &Row {
    inbox
        .rows
        .iter()
        .find(|r| r.listed.coords.number == number)
        .unwrap()
}

#[test]
fn bundled_fixtures_show_three_kinds_of_pr() {
    let (_d, l) = ledger();
    let inbox = bundled(&l, DEFAULT_IDENTITY, &GateConfig::default());
    assert!(inbox.problems.is_empty(), "{:?}", inbox.problems);
    assert_eq!(inbox.rows.len(), 3);
    let demo = row_for(482, &inbox);
    assert_eq!(demo.gate.review, GateReview::Allowed);
    assert_eq!(demo.shepherd.state, ShepherdState::None);
    let community = row_for(497, &inbox);
    assert_eq!(community.gate.review, GateReview::NeedsLabel);
    assert!(!community.team);
    let history = row_for(471, &inbox);
    assert!(history.team);
    assert_eq!(history.shepherd.state, ShepherdState::Stale);
    assert_eq!(history.shepherd.comment_id, Some(2_490_099));
    assert!(inbox.complete());
}

#[test]
fn counts_are_those_of_items_and_marked_items_drop_out() {
    let (_d, l) = ledger();
    let cfg = GateConfig::default();
    let fixture = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap();
    let snapshot = fixture.into_snapshot_at(0).unwrap();
    let before = bundled(&l, DEFAULT_IDENTITY, &cfg);
    let Counts::Counted { total, new, edited } = row_for(482, &before).items else {
        panic!("not counted");
    };
    assert_eq!((total, new, edited), (snapshot.items.len(), total, 0));
    // Mark two items as `items` would; one of them then changes.
    let triaged = triage(&snapshot, &Default::default());
    let marks = crate::triage::marks(&snapshot, &triaged);
    l.mark_seen(&snapshot.pr.coords(), &marks[..2], 1).unwrap();
    let after = bundled(&l, DEFAULT_IDENTITY, &cfg);
    assert_eq!(
        row_for(482, &after).items,
        Counts::Counted {
            total,
            new: total - 2,
            edited: 0
        }
    );
    let first = marks[0].0.to_owned();
    l.mark_seen(&snapshot.pr.coords(), &[(first.as_str(), "other-hash")], 2)
        .unwrap();
    let edited = bundled(&l, DEFAULT_IDENTITY, &cfg);
    assert_eq!(
        row_for(482, &edited).items,
        Counts::Counted {
            total,
            new: total - 2,
            edited: 1
        }
    );
}

#[test]
fn gate_names_follow_the_policy_precedence() {
    let cfg = GateConfig::default();
    let mut pr = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap().pr;
    pr.labels = vec![
        "shepherd".into(),
        "pause-shepherd".into(),
        "no-shepherd".into(),
    ];
    assert_eq!(gate_of(&pr, &cfg).1.review, GateReview::Refused);
    pr.labels.pop();
    assert_eq!(gate_of(&pr, &cfg).1.review, GateReview::Paused);
    pr.labels.pop();
    assert_eq!(gate_of(&pr, &cfg).1.review, GateReview::Allowed);
    pr.labels.clear();
    let (team, g) = gate_of(&pr, &cfg);
    assert!(!team);
    assert_eq!(g.review, GateReview::NeedsLabel);
    assert!(g.reason.contains("shepherd"), "{}", g.reason);
    pr.author.association = crate::pr::Association::Member;
    let (team, g) = gate_of(&pr, &cfg);
    assert!(team);
    assert_eq!(g.review, GateReview::Allowed);
}

#[test]
fn an_incomplete_snapshot_is_never_a_zero() {
    let (_d, l) = ledger();
    let mut s = Fixture::parse(DEMO_FIXTURE, Path::new("demo"))
        .unwrap()
        .into_snapshot_at(0)
        .unwrap();
    s.incomplete
        .push("reviews after the first 0: timeout".into());
    let (c, sh) = assess(&s, &l, DEFAULT_IDENTITY, None);
    assert!(matches!(c, Counts::Failed(ref why) if why.contains("timeout")));
    assert_eq!(sh.state, ShepherdState::Unknown);
}

#[test]
fn attention_first_then_updated() {
    let (_d, l) = ledger();
    let mut inbox = bundled(&l, DEFAULT_IDENTITY, &GateConfig::default());
    // Everything new: all need attention; then by last activity.
    assert!(inbox.rows.iter().all(needs_attention));
    sort_rows(&mut inbox.rows, SortBy::Unseen);
    let unseen: Vec<usize> = inbox.rows.iter().filter_map(|r| r.items.unseen()).collect();
    let mut sorted = unseen.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(unseen, sorted);
}

#[test]
fn json_fields_are_never_omitted() {
    let (_d, l) = ledger();
    let inbox = bundled(&l, DEFAULT_IDENTITY, &GateConfig::default());
    let v = render::json(&inbox);
    assert_eq!(v["complete"], true);
    for pr in v["prs"].as_array().unwrap() {
        for k in [
            "owner",
            "repo",
            "number",
            "title",
            "author",
            "url",
            "draft",
            "team",
            "labels",
            "headSha",
            "updatedAt",
            "items",
            "itemsError",
            "gate",
            "shepherd",
        ] {
            assert!(pr.get(k).is_some(), "missing {k} in {pr}");
        }
        for k in ["state", "reviewedSha", "commentId"] {
            assert!(pr["shepherd"].get(k).is_some());
        }
    }
}

/// The inbox leaves the state dir as it found it, also once the markers have settled and a
/// plain load would refresh the derived index of them (the ledger's clock is moved past the
/// settle window instead of waiting for it).
#[test]
fn counting_settled_markers_writes_no_index() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap();
    let snapshot = fixture.into_snapshot_at(0).unwrap();
    let triaged = triage(&snapshot, &Default::default());
    let marks = crate::triage::marks(&snapshot, &triaged);
    Ledger::new(dir.path())
        .mark_seen(&snapshot.pr.coords(), &marks, 1)
        .unwrap();
    let later = Ledger::new(dir.path()).at(chrono::Utc::now().timestamp() + 60);
    let index = later
        .pr_dir(&snapshot.pr.coords())
        .unwrap()
        .join("seen-index");
    let _ = std::fs::remove_file(&index);
    let (counts, _) = assess(&snapshot, &later, DEFAULT_IDENTITY, None);
    assert!(
        matches!(counts, Counts::Counted { new: 0, .. }),
        "{counts:?}"
    );
    assert!(!index.exists(), "the inbox wrote the derived index");
    // A plain load at that moment does write it: the check above can fail.
    later.load_seen(&snapshot.pr.coords()).unwrap();
    assert!(index.exists());
}

#[test]
fn rows_of_sections_name_their_section_and_who_the_review_is_requested_from() {
    let (_d, l) = ledger();
    let mut needs = bundled(&l, DEFAULT_IDENTITY, &GateConfig::default());
    needs.source = "Needs my review".to_owned();
    let row = needs
        .rows
        .iter_mut()
        .find(|r| r.listed.coords.number == 482);
    let Some(row) = row else {
        panic!("no #482");
    };
    row.listed.requested = crate::pr::ReviewRequested::Team;
    row.listed.requested_team = Some("acme/core".to_owned());
    let mut mine = needs.clone();
    mine.source = "Mine".to_owned();
    mine.rows.truncate(1);
    let doc = render::sections_json(&[needs.clone(), mine]);
    let sections = doc["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    for s in sections {
        for pr in s["prs"].as_array().unwrap() {
            assert_eq!(pr["section"], s["source"]);
        }
    }
    let md = render::markdown_sections(std::slice::from_ref(&needs));
    let line = md.lines().find(|l| l.contains("#482**")).unwrap();
    assert!(line.contains("review requested: team acme/core"), "{line}");
    assert!(line.contains(" · in Needs my review"), "{line}");
    // A single inbox's Markdown names no section.
    assert!(!render::markdown(&needs).contains("· in Needs my review"));
}
