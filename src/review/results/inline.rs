//! Shepherd's findings on their lines (pure): which findings of a run sit on a line of the
//! PR's diff (and so can be inline comments, or drafts in the pending review), which are already
//! on the PR as an own inline comment (found by the finding id in its hidden metadata, never by
//! a SHA or a position, so a force-push that rewrote every commit changes nothing), and which
//! stay in the summary body only.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::aggregate::Aggregate;
use super::outcome::Settled;
use crate::code::pending::{PendingReview, marked_finding};
use crate::code::{LineAddr, ParsedPatch, Side, parse};
use crate::pr::{Item, Snapshot};
use crate::review::findings::Finding;

/// A finding's inline comment text: its message and, when there is one, the suggested fix.
pub(crate) fn finding_text(f: &Finding) -> String {
    let mut s = format!(
        "**{}** ({}): {}",
        f.severity.as_str(),
        f.aspect.as_str(),
        f.message.trim()
    );
    if let Some(fix) = f.suggested_fix.as_deref().filter(|x| !x.trim().is_empty()) {
        s.push_str("\n\nSuggested fix: ");
        s.push_str(fix.trim());
    }
    s
}

/// The PR's patches, parsed once, by path.
pub fn parsed_patches(snapshot: &Snapshot) -> HashMap<String, ParsedPatch> {
    snapshot
        .pr
        .files
        .iter()
        .filter_map(|f| f.patch.as_deref().map(|p| (f.path.clone(), parse(p))))
        .collect()
}

/// Where a finding sits in the diff: its file's new side at its line, when the diff shows it.
pub fn diff_line(f: &Finding, patches: &HashMap<String, ParsedPatch>) -> Option<LineAddr> {
    let line = f.line?;
    let patch = patches.get(f.file.trim_start_matches("./"))?;
    let addr = LineAddr {
        side: Side::Right,
        line,
    };
    patch.find(addr).map(|_| addr)
}

/// Own inline comments already on the PR: finding id → (path, line now, `None` when outdated).
/// Only threads whose first comment is by `identity` count: a lookalike marker in anyone
/// else's comment names nothing.
pub(crate) fn posted_inline(
    snapshot: &Snapshot,
    identity: &str,
) -> BTreeMap<String, (String, Option<u32>)> {
    let mut out = BTreeMap::new();
    for item in &snapshot.items {
        let Item::Thread(t) = item else { continue };
        let Some(root) = t.comments.first() else {
            continue;
        };
        if !root.author.login.eq_ignore_ascii_case(identity) {
            continue;
        }
        if let Some(id) = marked_finding(&root.body) {
            out.entry(id.to_owned())
                .or_insert_with(|| (t.path.clone(), t.line));
        }
    }
    out
}

/// A review comment's database id, read from its URL (`…#discussion_r<digits>`): what REST
/// names it by.
pub(crate) fn review_comment_db_id(url: &str) -> Option<u64> {
    let (_, digits) = url.rsplit_once("#discussion_r")?;
    digits.parse().ok()
}

/// The own inline comments on the PR (thread roots by `identity` carrying a finding id), each
/// as (finding id, node id, database id), oldest first: by time, then by database id, so every
/// run that reads the same PR orders them alike.
fn own_inline_comments(snapshot: &Snapshot, identity: &str) -> Vec<(String, String, u64)> {
    let mut out: Vec<(chrono::DateTime<chrono::Utc>, u64, String, String)> = Vec::new();
    for item in &snapshot.items {
        let Item::Thread(t) = item else { continue };
        let Some(root) = t.comments.first() else {
            continue;
        };
        if !root.author.login.eq_ignore_ascii_case(identity) {
            continue;
        }
        let (Some(id), Some(db)) = (marked_finding(&root.body), review_comment_db_id(&root.url))
        else {
            continue;
        };
        out.push((root.created_at, db, id.to_owned(), root.id.clone()));
    }
    out.sort();
    out.into_iter()
        .map(|(_, db, f, node)| (f, node, db))
        .collect()
}

/// The node ids of the own inline comments on the PR (thread roots by `identity` carrying a
/// finding id): what was there before a post, so the look after it knows what is new.
pub(crate) fn own_inline_ids(
    snapshot: &Snapshot,
    identity: &str,
) -> std::collections::BTreeSet<String> {
    own_inline_comments(snapshot, identity)
        .into_iter()
        .map(|(_, node, _)| node)
        .collect()
}

/// After posting `posted` (finding ids) inline: the same findings posted inline at the same
/// time by another run (a second own comment with the same finding id, not among `before`, the
/// own inline comments read before sending). For each such finding the oldest comment stays —
/// every run decides alike — and the newer ones made meanwhile are returned, as (finding id,
/// database id), to be removed.
pub(crate) fn made_twice(
    snapshot: &Snapshot,
    identity: &str,
    posted: &[String],
    before: &std::collections::BTreeSet<String>,
) -> Vec<(String, u64)> {
    let all = own_inline_comments(snapshot, identity);
    let mut out = Vec::new();
    for id in posted {
        let same: Vec<&(String, String, u64)> = all.iter().filter(|(f, _, _)| f == id).collect();
        for (f, node, db) in same.iter().skip(1) {
            if !before.contains(node) {
                out.push((f.clone(), *db));
            }
        }
    }
    out
}

/// One inline comment to post.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InlineFinding {
    pub finding_id: String,
    pub path: String,
    pub line: u32,
    pub body: String,
}

/// What a review's findings become on the lines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InlinePlan {
    /// New inline comments.
    pub post: Vec<InlineFinding>,
    /// Already on the PR as an own inline comment: not posted again.
    pub already: Vec<String>,
    /// Not on a line of the diff: in the summary body only.
    pub summary_only: Vec<String>,
}

/// Which of the run's findings to post inline: those the aggregate still raises (not treated as
/// addressed), on a line of the diff, and not already on the PR as an own inline comment.
pub fn plan<'f>(
    findings: impl Iterator<Item = &'f Finding>,
    agg: &Aggregate,
    snapshot: &Snapshot,
    identity: &str,
) -> InlinePlan {
    let patches = parsed_patches(snapshot);
    let posted = posted_inline(snapshot, identity);
    let mut out = InlinePlan::default();
    for f in findings {
        if agg.class_of_id(&f.id).is_none() {
            continue;
        }
        if posted.contains_key(&f.id) {
            out.already.push(f.id.clone());
            continue;
        }
        match diff_line(f, &patches) {
            Some(at) if !out.post.iter().any(|p| p.finding_id == f.id) => {
                out.post.push(InlineFinding {
                    finding_id: f.id.clone(),
                    path: f.file.trim_start_matches("./").to_owned(),
                    line: at.line,
                    body: finding_text(f),
                })
            }
            Some(_) => {}
            None => out.summary_only.push(f.id.clone()),
        }
    }
    out
}

/// Proposes the latest findings on diff lines as drafts in the pending review (those already
/// there, kept, edited or dropped, are left as they are). A finding decided elsewhere
/// (`settled`: posted, dismissed, made a lesson, dropped) is never an undecided draft: a posted
/// one is shown as posted, the others are not proposed (and leave the list if they were).
/// Returns how many were added as undecided.
pub(crate) fn propose_drafts<'f>(
    review: &mut PendingReview,
    findings: impl Iterator<Item = &'f Finding>,
    snapshot: &Snapshot,
    settled: &BTreeMap<String, Settled>,
) -> usize {
    let ids: Vec<String> = review
        .comments
        .iter()
        .filter_map(|c| c.finding_id.clone())
        .collect();
    for id in ids {
        if let Some(s) = settled.get(&id) {
            review.settle_finding(&id, *s == Settled::Posted);
        }
    }
    let patches = parsed_patches(snapshot);
    let mut added = 0;
    let mut seen = std::collections::HashSet::new();
    for f in findings {
        if !seen.insert(f.id.as_str()) {
            continue;
        }
        let settled = settled.get(&f.id);
        if settled.is_some_and(|s| *s != Settled::Posted) {
            // Never saved, the drafts' numbers come from the run's order: the decided one's
            // is given to no other, so the numbers do not shift when one is decided (once
            // saved, each draft keeps its own).
            if review.saved_at == 0 && diff_line(f, &patches).is_some() {
                review.reserve_id();
            }
            continue;
        }
        if let Some(at) = diff_line(f, &patches)
            && review
                .propose_finding(&f.id, f.file.trim_start_matches("./"), at, &finding_text(f))
                .is_some()
        {
            if settled.is_some() {
                review.settle_finding(&f.id, true);
            } else {
                added += 1;
            }
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::pending::finding_marker;
    use crate::pr::{Association, Author, Comment, PrMeta, Thread};

    fn root(db: u64, login: &str, finding: &str, minute: i64) -> Item {
        Item::Thread(Thread {
            side: None,
            id: format!("PRRT_{db}"),
            path: "a.rs".into(),
            line: Some(3),
            original_line: Some(3),
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments: vec![Comment {
                id: format!("PRRC_{db}"),
                author: Author {
                    login: login.into(),
                    association: Association::Member,
                    bot: false,
                },
                created_at: chrono::DateTime::from_timestamp(1_764_000_000 + minute * 60, 0)
                    .unwrap_or_default(),
                last_edited_at: None,
                url: format!("https://github.com/o/r/pull/1#discussion_r{db}"),
                body: format!("m\n\n{}", finding_marker(finding)),
                minimized: false,
                minimized_reason: None,
            }],
        })
    }

    fn snap(items: Vec<Item>) -> Snapshot {
        let pr: PrMeta = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo"),
        )
        .unwrap()
        .pr;
        Snapshot {
            pr,
            items,
            incomplete: vec![],
            notes: vec![],
            origin: crate::pr::Origin::Live,
        }
    }

    #[test]
    fn of_one_finding_posted_twice_at_once_the_oldest_stays() {
        let (x, y) = ("PS-00000000aa", "PS-00000000bb");
        assert_eq!(
            review_comment_db_id("https://x/pull/1#discussion_r42"),
            Some(42)
        );
        assert_eq!(
            review_comment_db_id("https://x/pull/1#issuecomment-42"),
            None
        );
        let before = snap(vec![root(5, "me", y, 0)]);
        let before = own_inline_ids(&before, "me");
        // At the same minute, 810 after 800: every run keeps 800. Someone else's lookalike and
        // what was there before sending are never removed.
        let now = snap(vec![
            root(810, "me", x, 1),
            root(800, "Me", x, 1),
            root(5, "me", y, 0),
            root(820, "me", y, 1),
            root(700, "mallory", x, 0),
        ]);
        let posted = vec![x.to_owned(), y.to_owned()];
        assert_eq!(
            made_twice(&now, "me", &posted, &before),
            vec![(x.to_owned(), 810), (y.to_owned(), 820)]
        );
        assert!(made_twice(&now, "me", &[], &before).is_empty());
    }
}
