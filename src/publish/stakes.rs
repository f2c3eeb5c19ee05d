//! What a merge would go past, read from the PR as it is now and from the state dir: the items
//! never shown (or edited since), the unresolved threads, who requested changes, the checks,
//! Shepherd's open findings and the maintainer's own unsent work. The console's merge question
//! and `merge --dry-run` read the same [`Stakes`].

use std::collections::HashSet;

use crate::ledger::{DecisionKind, Ledger, LedgerError, RepoId};
use crate::policy::merge::Stakes;
use crate::pr::{ChecksSummary, Item, ReviewState, Snapshot};
use crate::publish::decide::LiveFacts;
use crate::review::findings::Severity;
use crate::triage::{Freshness, triage};

/// The stakes of a merge of `snapshot` (read now) with `facts` (GitHub's, or the fixture's);
/// `checks` the fixture's checks when `facts` has none. `shown`: the items (`id` and edit hash)
/// a console showed but whose markers may still be on their way to disk.
pub fn stakes(
    ledger: &Ledger,
    snapshot: &Snapshot,
    facts: &LiveFacts,
    checks: Option<ChecksSummary>,
    shown: &HashSet<String>,
) -> Result<Stakes, LedgerError> {
    let pr = snapshot.pr.coords();
    let seen = ledger.peek_seen(&pr)?;
    let unseen = triage(snapshot, &seen.markers)
        .iter()
        .filter(|t| matches!(t.freshness, Freshness::New | Freshness::Edited))
        .filter(|t| {
            snapshot
                .items
                .get(t.index)
                .is_none_or(|i| !shown.contains(i.id()))
        })
        .count();
    let unresolved = snapshot
        .items
        .iter()
        .filter(|i| matches!(i, Item::Thread(t) if !t.resolved))
        .count();
    let changes_requested = if facts.id.is_empty() {
        changes_requested(snapshot)
    } else {
        facts.changes_requested.clone()
    };
    let (checks_failing, checks_pending) = if facts.id.is_empty() {
        checks.map_or((0, 0), |c| (c.failing, c.pending))
    } else {
        (facts.checks_failing, facts.checks_pending)
    };
    let files = ledger.unsent_files(&pr)?;
    let decisions = ledger.decisions(&RepoId::of(&pr))?;
    let settled = crate::review::results::outcome::settled(&decisions, pr.number);
    let (pending_comments, pending_body, drafts_undecided) = match &files.pending {
        Some(p) => (
            p.to_post().count(),
            !p.body.trim().is_empty(),
            p.comments
                .iter()
                .filter(|c| c.state == crate::code::pending::DraftState::Proposed)
                .filter(|c| {
                    c.finding_id
                        .as_ref()
                        .is_none_or(|id| !settled.contains_key(id))
                })
                .count(),
        ),
        None => (0, false, 0),
    };
    let mut unsent_other = Vec::new();
    if files.draft {
        unsent_other.push("the Shepherd review's draft".to_owned());
    }
    if files.reply {
        unsent_other.push("a thread reply".to_owned());
    }
    if files.comment {
        unsent_other.push("a conversation comment".to_owned());
    }
    let findings_open = open_findings(ledger, snapshot, &decisions)?;
    Ok(Stakes {
        unseen,
        unresolved,
        changes_requested,
        checks_failing,
        checks_pending,
        findings_open,
        pending_comments,
        pending_body,
        drafts_undecided,
        unsent_other,
    })
}

/// Who requested changes in their latest review of the snapshot (approving or dismissing later
/// takes it back; a comment review does not).
fn changes_requested(snapshot: &Snapshot) -> Vec<String> {
    let mut latest: Vec<(String, ReviewState)> = Vec::new();
    let mut reviews: Vec<_> = snapshot
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Review(r) => Some(r),
            _ => None,
        })
        .collect();
    reviews.sort_by_key(|r| r.created_at);
    for r in reviews {
        if r.state == ReviewState::Commented || r.state == ReviewState::Pending {
            continue;
        }
        let login = r.author.login.clone();
        latest.retain(|(l, _)| !l.eq_ignore_ascii_case(&login));
        latest.push((login, r.state));
    }
    latest
        .into_iter()
        .filter(|(_, s)| *s == ReviewState::ChangesRequested)
        .map(|(l, _)| l)
        .collect()
}

/// Shepherd's critical and important findings of the latest review not dismissed, addressed or
/// left out since.
fn open_findings(
    ledger: &Ledger,
    snapshot: &Snapshot,
    decisions: &[crate::ledger::Decision],
) -> Result<usize, LedgerError> {
    let (runs, _) = ledger.load_runs::<crate::review::ReviewRun>(&snapshot.pr.coords())?;
    let Some(run) = runs.last() else {
        return Ok(0);
    };
    let closed: HashSet<&str> = decisions
        .iter()
        .filter(|d| d.pr == snapshot.pr.number)
        .filter(|d| {
            matches!(
                d.kind,
                DecisionKind::Dismissed | DecisionKind::Addressed | DecisionKind::HeldBack
            )
        })
        .map(|d| d.finding.as_str())
        .collect();
    Ok(run
        .findings()
        .filter(|f| matches!(f.severity, Severity::Critical | Severity::Important))
        .filter(|f| !closed.contains(f.id.as_str()))
        .count())
}
