//! Property tests of the visibility gate: nothing is ever dropped before it was surfaced once.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use serde_json::Value;

use pr_shepherd::ledger::Marker;
use pr_shepherd::output::items::{ListingOptions, MarkerPlan, json, markdown};
use pr_shepherd::pr::{
    Association, Author, Comment, Item, Origin, PrMeta, Review, ReviewState, Snapshot, Thread,
};
use pr_shepherd::triage::{Freshness, marks, triage};

fn author() -> Author {
    Author {
        login: "ann".into(),
        association: Association::Member,
        bot: false,
    }
}

fn comment(id: String, body: String, minimized: Option<&'static str>) -> Comment {
    Comment {
        id,
        author: author(),
        created_at: DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
        last_edited_at: None,
        url: "https://github.com/o/r/pull/1".into(),
        body,
        minimized: minimized.is_some(),
        minimized_reason: minimized.map(str::to_owned),
    }
}

const REASONS: [Option<&str>; 4] = [None, Some("spam"), Some("outdated"), Some("resolved")];

/// (kind 0..3, outdated, resolved, minimized reason index, body, reply count)
fn item_strategy() -> impl Strategy<Value = (u8, bool, bool, usize, String, usize)> {
    (
        0u8..3,
        any::<bool>(),
        any::<bool>(),
        0usize..4,
        "\\PC{0,40}",
        1usize..4,
    )
}

fn build(specs: Vec<(u8, bool, bool, usize, String, usize)>) -> Snapshot {
    let items = specs
        .into_iter()
        .enumerate()
        .map(|(i, (kind, outdated, resolved, reason, body, replies))| {
            let minimized = REASONS[reason];
            match kind {
                0 => Item::Thread(Thread {
                    id: format!("PRRT_{i}"),
                    path: "src/lib.rs".into(),
                    line: (!outdated).then_some(3),
                    original_line: Some(3),
                    side: None,
                    diff_hunk: "@@ -1 +1 @@\n-a\n+b".into(),
                    outdated,
                    resolved,
                    comments: (0..replies)
                        .map(|j| {
                            comment(
                                format!("PRRC_{i}_{j}"),
                                format!("{body}{j}"),
                                if j == 0 { minimized } else { None },
                            )
                        })
                        .collect(),
                }),
                1 => Item::Comment(comment(format!("IC_{i}"), body, minimized)),
                _ => Item::Review(Review {
                    id: format!("PRR_{i}"),
                    author: author(),
                    state: [ReviewState::Approved, ReviewState::Commented][i % 2],
                    created_at: DateTime::<Utc>::from_timestamp(1_700_000_000, 0)
                        .unwrap_or_default(),
                    last_edited_at: None,
                    url: "https://github.com/o/r/pull/1".into(),
                    body,
                    minimized: minimized.is_some(),
                    minimized_reason: minimized.map(str::to_owned),
                }),
            }
        })
        .collect();
    Snapshot {
        pr: PrMeta {
            host: None,
            owner: "o".into(),
            repo: "r".into(),
            number: 1,
            title: "t".into(),
            body: String::new(),
            author: author(),
            labels: vec![],
            base_ref: "main".into(),
            head_ref: "x".into(),
            base_sha: "b".into(),
            head_sha: "h".into(),
            url: "https://github.com/o/r/pull/1".into(),
            draft: false,
            state: "OPEN".into(),
            files: vec![],
            changed_files: None,
        },
        items,
        incomplete: vec![],
        notes: vec![],
        origin: Origin::Live,
    }
}

fn opts() -> ListingOptions {
    ListingOptions {
        all: false,
        markers: MarkerPlan::Write,
        marker_problems: vec![],
        kept: Default::default(),
        own: Default::default(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Every item of any snapshot appears in the first listing, whatever its status.
    #[test]
    fn every_item_appears_in_the_first_listing(specs in prop::collection::vec(item_strategy(), 0..40)) {
        let snap = build(specs);
        let triaged = triage(&snap, &HashMap::new());
        prop_assert_eq!(triaged.len(), snap.items.len());
        let md = markdown(&snap, &triaged, &opts());
        let js = serde_json::to_value(json(&snap, &triaged, &opts())).unwrap_or_default();
        let listed: Vec<&str> = js["items"].as_array().map(|a| a.iter().filter_map(|i| i["id"].as_str()).collect()).unwrap_or_default();
        for item in &snap.items {
            prop_assert!(md.contains(&format!("id `{}`", item.id())), "missing from md: {}", item.id());
            prop_assert!(listed.contains(&item.id()), "missing from json: {}", item.id());
        }
        prop_assert_eq!(listed.len(), snap.items.len());
    }

    /// Whatever markers exist, JSON lists every item, and Markdown shows every new or edited
    /// one in full; after marking, the next pass finds everything unchanged.
    #[test]
    fn nothing_needing_attention_is_hidden(
        specs in prop::collection::vec(item_strategy(), 1..30),
        marked in prop::collection::vec(0u8..3, 30),
    ) {
        let snap = build(specs);
        let mut markers = HashMap::new();
        for (item, m) in snap.items.iter().zip(&marked) {
            // 0: no marker, 1: same hash, 2: another hash (edited since).
            let hash = match m { 0 => continue, 1 => item.body_hash(), _ => "0000000000000000".to_owned() };
            markers.insert(item.id().to_owned(), Marker { id: item.id().to_owned(), seen_at: 5, body_hash: hash, extra: Default::default() });
        }
        let triaged = triage(&snap, &markers);
        let md = markdown(&snap, &triaged, &opts());
        let js: Value = serde_json::to_value(json(&snap, &triaged, &opts())).unwrap_or_default();
        prop_assert_eq!(js["items"].as_array().map(Vec::len), Some(snap.items.len()));
        for t in &triaged {
            let id = snap.items[t.index].id();
            let shown = md.contains(&format!("id `{id}`"));
            prop_assert_eq!(shown, t.freshness != Freshness::Unchanged, "{}", id);
        }
        for (id, hash) in marks(&snap, &triaged) {
            markers.insert(id.to_owned(), Marker { id: id.to_owned(), seen_at: 6, body_hash: hash.to_owned(), extra: Default::default() });
        }
        prop_assert!(triage(&snap, &markers).iter().all(|t| t.freshness == Freshness::Unchanged));
    }
}
