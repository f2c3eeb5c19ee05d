//! Opening a PR for a PR screen, from the state dir and the session's remote: its snapshot (a
//! fixture's first, or live), its markers and what it kept from an earlier session. The inbox
//! opens a PR this way and a PR screen refreshes itself this way; the console reads the kept
//! drafts the same way when it opens on one PR.

use super::action::{OpenedPr, SavedDrafts, later_versions};
use crate::inbox::Opener;
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot};
use crate::tui::inbox_link::InboxLink;
use crate::tui::session::Session;

/// Loads the PR `opener` names: its snapshot (a fixture's initial one, or live), its markers and
/// any saved drafts. A fixture is kept in `link` for its history steps.
pub async fn open_pr(
    link: &InboxLink,
    ledger: &Ledger,
    session: &Session,
    opener: &Opener,
) -> Result<Box<OpenedPr>, String> {
    let (snapshot, fixture) = match opener {
        Opener::Live(coords) => {
            let gh = session
                .remote
                .github()
                .ok_or_else(|| "no GitHub client for a live PR".to_owned())?;
            let s = gh.fetch_snapshot(coords).await.map_err(|e| e.to_string())?;
            (s, None)
        }
        fixture => {
            let f = fixture
                .fixture()
                .ok_or_else(|| "no fixture".to_owned())?
                .map_err(|e| e.to_string())?;
            (f.snapshot_at(0).map_err(|e| e.to_string())?, Some(f))
        }
    };
    let mut opened = opened_pr(ledger, snapshot)?;
    if let Some(f) = &fixture {
        opened.ahead = later_versions(f, 0);
    }
    if let (Some(f), Ok(mut g)) = (fixture, link.opened.lock()) {
        g.insert(opened.snapshot.pr.coords(), f);
    }
    Ok(opened)
}

fn opened_pr(ledger: &Ledger, snapshot: Snapshot) -> Result<Box<OpenedPr>, String> {
    let coords = snapshot.pr.coords();
    let mut seen = ledger.load_seen(&coords).map_err(|e| e.to_string())?;
    // Kept texts beside the markers: edited items show what changed, as on a direct open.
    ledger.attach_kept(&coords, &snapshot, &mut seen);
    // An unreadable draft is said once the PR is open, as on a direct open; it never keeps the
    // PR from opening.
    let saved = saved_drafts(ledger, &coords);
    let marks = if snapshot.is_complete() {
        ledger.check_writable(&coords).map_err(|e| e.to_string())
    } else {
        Err(format!(
            "the snapshot is incomplete ({})",
            snapshot.incomplete.join("; ")
        ))
    };
    Ok(Box::new(OpenedPr {
        snapshot,
        seen,
        saved,
        marks,
        ahead: Default::default(),
    }))
}

/// What the PR at `coords` kept from an earlier session (see [`SavedDrafts`]).
pub fn saved_drafts(ledger: &Ledger, coords: &PrCoords) -> SavedDrafts {
    let draft = ledger.load_draft(coords).map_err(|e| e.to_string());
    // The run the draft was composed from: the latest stored one for the same head. An
    // unreadable run only costs the picker (the draft itself is kept either way).
    let run = match &draft {
        Ok(Some(d)) => ledger
            .load_runs::<crate::review::ReviewRun>(coords)
            .ok()
            .and_then(|(runs, _)| runs.into_iter().rev().find(|r| r.head_sha == d.head_sha))
            .map(|mut run| {
                // What was dismissed since the run was made stays dismissed: held back, as the
                // draft saved then says (an unreadable log holds nothing back, as a new run's
                // screening would not).
                let dismissals = ledger.dismissals(coords).unwrap_or_default();
                crate::review::results::screening::Screening {
                    dismissals: crate::review::results::screening::Dismissal::from_decisions(
                        &dismissals,
                    ),
                    others: Vec::new(),
                }
                .apply_to_run(&mut run);
                Box::new(run)
            }),
        _ => None,
    };
    SavedDrafts {
        draft,
        reply: ledger.load_reply_draft(coords).map_err(|e| e.to_string()),
        comment: ledger.load_comment_draft(coords).map_err(|e| e.to_string()),
        sent: ledger
            .comment_outbox(coords)
            .and_then(|c| Ok((c, ledger.review_outbox(coords)?)))
            .map(|(c, r)| crate::ledger::Sent::from_outbox(&c, &r))
            .map_err(|e| e.to_string()),
        run,
        queued: ledger
            .thread_outbox(coords)
            .map(|o| o.actions)
            .map_err(|e| e.to_string()),
    }
}
