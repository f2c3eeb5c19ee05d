//! The visibility gate (pure): a snapshot plus the PR's seen markers give every item a freshness.
//!
//! At least once: this module never drops an item. Whatever a view later hides (resolved,
//! outdated, minimized) it hides from a list that has already surfaced every item once.

use std::collections::HashMap;

use serde::Serialize;

use crate::ledger::Marker;
use crate::pr::Snapshot;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Freshness {
    /// No marker: never surfaced before.
    New,
    /// A marker with another body hash: changed since it was first surfaced.
    Edited,
    /// A marker with the same hash.
    Unchanged,
}

impl Freshness {
    pub fn as_str(self) -> &'static str {
        match self {
            Freshness::New => "new",
            Freshness::Edited => "edited",
            Freshness::Unchanged => "unchanged",
        }
    }

    /// New and edited items still need a look.
    pub fn needs_attention(self) -> bool {
        !matches!(self, Freshness::Unchanged)
    }
}

/// One item's verdict; `index` points into `Snapshot::items`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triaged {
    pub index: usize,
    pub freshness: Freshness,
    /// When the item was first surfaced (kept across edits).
    pub seen_at: Option<i64>,
    /// The current body hash (what a marker written now would hold).
    pub body_hash: String,
}

/// Classifies every item of the snapshot, in snapshot order. The result has exactly one entry per
/// item.
pub fn triage(snapshot: &Snapshot, markers: &HashMap<String, Marker>) -> Vec<Triaged> {
    // Hashing every body is the costly part on a large PR: spread it over the cores.
    crate::par::map_chunks(&snapshot.items, 512, |start, items| {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let body_hash = item.body_hash();
                let marker = markers.get(item.id());
                let freshness = match marker {
                    None => Freshness::New,
                    Some(m) if m.body_hash == body_hash => Freshness::Unchanged,
                    Some(_) => Freshness::Edited,
                };
                Triaged {
                    index: start + i,
                    freshness,
                    seen_at: marker.map(|m| m.seen_at),
                    body_hash,
                }
            })
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Counts per freshness: (new, edited, unchanged).
pub fn counts(triaged: &[Triaged]) -> (usize, usize, usize) {
    triaged
        .iter()
        .fold((0, 0, 0), |(n, e, u), t| match t.freshness {
            Freshness::New => (n + 1, e, u),
            Freshness::Edited => (n, e + 1, u),
            Freshness::Unchanged => (n, e, u + 1),
        })
}

/// The (id, hash) pairs to mark once these items have been delivered.
pub fn marks<'a>(snapshot: &'a Snapshot, triaged: &'a [Triaged]) -> Vec<(&'a str, &'a str)> {
    triaged
        .iter()
        .filter(|t| t.freshness.needs_attention())
        .filter_map(|t| {
            snapshot
                .items
                .get(t.index)
                .map(|i| (i.id(), t.body_hash.as_str()))
        })
        .collect()
}
