//! Comment Markdown is rendered outside drawing: after a frame the selected comment's rendered
//! lines are in the PR screen's cache, the next frames read them and look the same, and a
//! different width renders again.

use std::path::Path;

use chrono::{TimeZone, Utc};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::{Association, Author, Comment, Item};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;

const BODY: &str = "### Coverage\n\n| file | before | after |\n|---|---:|---:|\n\
| src/pool.rs | 71.4% | 80.2% |\n\n```rust\nfn main() {}\n```\n\n- **one**\n- two\n";

fn harness(dir: &Path) -> Harness {
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap();
    let mut snap = f.snapshot_at(0).unwrap();
    snap.items = vec![Item::Comment(Comment {
        id: "IC_md".to_owned(),
        author: Author {
            login: "rivet-ci".to_owned(),
            association: Association::None,
            bot: true,
        },
        created_at: Utc.with_ymd_and_hms(2026, 11, 18, 12, 0, 0).unwrap(),
        last_edited_at: None,
        url: "https://github.com/acme/rivet/pull/1#issuecomment-1".to_owned(),
        body: BODY.to_owned(),
        minimized: false,
        minimized_reason: None,
    })];
    Harness::new(
        snap,
        None,
        Ledger::new(dir),
        Theme::default_theme(),
        120,
        30,
    )
    .unwrap()
}

fn cached(h: &Harness) -> usize {
    h.app.pr().map_or(0, |pr| pr.list.cached_bodies())
}

#[test]
fn the_selected_comments_markdown_is_cached_after_a_frame_and_drawn_the_same_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(dir.path());
    assert_eq!(cached(&h), 0);
    h.draw();
    let rendered = h.screen();
    assert!(rendered.contains("src/pool.rs"), "{rendered}");
    assert!(!rendered.contains("|---|"), "{rendered}");
    // The frame was drawn uncached; the after-frame hook filled the cache.
    assert_eq!(cached(&h), 1);
    h.draw();
    assert_eq!(
        h.screen(),
        rendered,
        "a frame from the cache looks the same"
    );
    assert_eq!(cached(&h), 1, "nothing rendered again at the same width");
    // Another width: rendered again for it, and the frame after reads that.
    h.resize(100, 30);
    h.draw();
    assert_eq!(cached(&h), 2);
    let narrow = h.screen();
    h.draw();
    assert_eq!(h.screen(), narrow);
}
