//! Shepherd's own review on the PR screen: the session's `## PR Shepherd Review` comment is
//! badged `SHEPHERD`, its hidden metadata is not shown, and it is not counted as new or edited. A
//! comment by another account that looks the same is an ordinary comment.

use std::path::Path;

use chrono::{TimeZone, Utc};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{Association, Author, Comment, DEFAULT_IDENTITY, Item, Snapshot};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;

const REVIEW: &str = "## PR Shepherd Review\n\n**Mode:** full (first review) · head `5d2e8f1a3c4b`\n\n\
### Correctness\n- **major** `src/pool/mod.rs:88` — `acquire` can wait forever. (PS-1a2b3c4d5e)\n\n\
<!-- pr-shepherd:meta {\"version\":1,\"mode\":\"full\",\"headSha\":\"5d2e8f1a3c4b6d7e9f0a1b2c3d4e5f6a7b8c9d0e\",\
\"findings\":[],\"addressed\":[]} -->";

fn comment(id: &str, login: &str, minute: u32) -> Item {
    Item::Comment(Comment {
        id: id.to_owned(),
        author: Author {
            login: login.to_owned(),
            association: Association::None,
            bot: false,
        },
        created_at: Utc.with_ymd_and_hms(2026, 11, 18, 12, minute, 0).unwrap(),
        last_edited_at: None,
        url: format!("https://github.com/acme/rivet/pull/1#issuecomment-{minute}"),
        body: REVIEW.to_owned(),
        minimized: false,
        minimized_reason: None,
    })
}

/// The demo PR with only two conversation comments, both Shepherd-looking and new: the
/// session's own (the offline identity) and a look-alike by another account.
fn snapshot() -> Snapshot {
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap();
    let mut snap = f.snapshot_at(0).unwrap();
    snap.items = vec![
        comment("IC_own", DEFAULT_IDENTITY, 0),
        comment("IC_lookalike", "mallory", 5),
    ];
    snap
}

fn harness(dir: &Path) -> Harness {
    Harness::new(
        snapshot(),
        None,
        Ledger::new(dir),
        Theme::default_theme(),
        120,
        30,
    )
    .unwrap()
}

#[test]
fn the_sessions_own_review_is_badged_with_its_metadata_hidden_and_not_counted_new() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(dir.path());
    h.draw();
    let screen = h.screen();
    insta::assert_snapshot!("own_review_selected_120x30", screen);
    // The header counts the look-alike as new, and Shepherd's own apart.
    let header = screen
        .lines()
        .find(|l| l.contains(" NEW "))
        .unwrap_or_default();
    assert!(header.contains(" NEW  1 "), "{header}");
    assert!(header.contains(" SHEPHERD  1 "), "{header}");
    // The own review's detail (selected first) shows its text, not the metadata.
    assert!(screen.contains("PR Shepherd Review"), "{screen}");
    assert!(!screen.contains("pr-shepherd:meta"), "{screen}");
    let own_row = screen
        .lines()
        .find(|l| l.contains(&format!("@{DEFAULT_IDENTITY} ")) && l.contains('▶'))
        .unwrap_or_default();
    assert!(own_row.contains(" SHEPHERD "), "{own_row}");
}

#[test]
fn a_lookalike_review_by_another_account_is_an_ordinary_new_comment() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(dir.path());
    h.draw();
    h.press("j");
    h.draw();
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("@mallory") && l.contains('▶'))
        .unwrap_or_default();
    assert!(row.contains(" NEW "), "{screen}");
    assert!(!row.contains("SHEPHERD"), "{screen}");
    let detail_head = screen
        .lines()
        .find(|l| l.contains("Conversation comment"))
        .unwrap_or_default();
    assert!(!detail_head.contains("SHEPHERD"), "{screen}");
}
