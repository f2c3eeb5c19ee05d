//! Shepherd's findings on their lines (pure): which findings of a run sit on a line of the
//! PR's diff (and so can be inline comments, or drafts in the pending review), which are already
//! on the PR as an own inline comment (found by the finding id in its hidden metadata, never by
//! a SHA or a position, so a force-push that rewrote every commit changes nothing), and which
//! stay in the summary body only.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::aggregate::Aggregate;
use super::findings::Finding;
use super::outcome::Settled;
use crate::code::pending::{PendingReview, marked_finding};
use crate::code::{LineAddr, ParsedPatch, Side, parse};
use crate::pr::{Item, Snapshot};

/// A finding's inline comment text: its message and, when there is one, the suggested fix.
pub fn finding_text(f: &Finding) -> String {
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
pub fn posted_inline(
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
pub fn propose_drafts<'f>(
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
    for f in findings {
        let settled = settled.get(&f.id);
        if settled.is_some_and(|s| *s != Settled::Posted) {
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
