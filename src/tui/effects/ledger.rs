//! The ledger lane's work: seen markers (with the texts kept beside them), the review draft and
//! the unsent thread reply, fixture history steps. Run in order, one at a time, off the UI loop
//! (see [`super::Effects`]), so a draft saved after a discard is never overtaken by it.

use crate::ledger::{Decision, Draft, KeptText, Ledger, Lesson, ReplyDraft, RepoId};
use crate::pr::PrCoords;
use crate::source::Fixture;
use crate::tui::app::{Action, StepData, later_versions};

/// Writes the markers of `items` (with their kept texts first: a text whose marker is then not
/// written is ignored on reading).
pub fn mark_seen(
    ledger: &Ledger,
    pr: &PrCoords,
    items: Vec<(String, String)>,
    kept: &[KeptText],
    at: i64,
) -> Action {
    let pairs: Vec<(&str, &str)> = items
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let result = ledger
        .keep_texts(pr, kept)
        .and_then(|_| ledger.mark_seen(pr, &pairs, at))
        .map(|_| ())
        .map_err(|e| e.to_string());
    Action::Marked { items, at, result }
}

/// Step `step` of `fixture`, with the ledger's markers and kept texts read afresh.
pub fn load_step(
    ledger: &Ledger,
    fixture: Option<Fixture>,
    step: usize,
) -> Result<Box<StepData>, String> {
    let f = fixture.ok_or_else(|| "no fixture to step through".to_owned())?;
    let snapshot = f.snapshot_at(step).map_err(|e| e.to_string())?;
    let coords = snapshot.pr.coords();
    let mut seen = ledger.load_seen(&coords).map_err(|e| e.to_string())?;
    ledger.attach_kept(&coords, &snapshot, &mut seen);
    let ahead = later_versions(&f, step);
    Ok(Box::new(StepData {
        snapshot,
        seen,
        ahead,
    }))
}

pub fn save_draft(ledger: &Ledger, pr: &PrCoords, mut draft: Draft, now: i64) -> Action {
    draft.saved_at = now;
    Action::DraftSaved(ledger.save_draft(pr, &draft).map_err(|e| e.to_string()))
}

pub fn discard_draft(ledger: &Ledger, pr: &PrCoords) -> Action {
    Action::DraftDiscarded(ledger.discard_draft(pr).map_err(|e| e.to_string()))
}

/// Saves the reply being written; only a failure is said.
pub fn save_reply_draft(
    ledger: &Ledger,
    pr: &PrCoords,
    mut draft: ReplyDraft,
    now: i64,
) -> Option<Action> {
    draft.saved_at = now;
    ledger
        .save_reply_draft(pr, &draft)
        .err()
        .map(|e| Action::Notice(format!("the reply was NOT saved: {e}")))
}

/// Forgets the sent reply's draft; only a failure is said.
pub fn discard_reply_draft(ledger: &Ledger, pr: &PrCoords) -> Option<Action> {
    ledger
        .discard_reply_draft(pr)
        .err()
        .map(|e| Action::Notice(format!("the sent reply's draft could not be removed: {e}")))
}

/// What `prs` hold unsent in the state dir, in words, for the quit question: a review draft, a
/// thread reply, a pending review's comments and its findings' drafts still to decide (those
/// decided since, by a dismissal, a lesson or a post, are not counted).
pub fn scan_unsent(ledger: &Ledger, prs: &[PrCoords]) -> Action {
    use crate::tui::app::unsent::{self, Unsent, UnsentWork};
    let mut out = Vec::new();
    let mut decisions: std::collections::HashMap<RepoId, Vec<Decision>> = Default::default();
    for pr in prs {
        let work = |what, said| UnsentWork {
            pr: pr.clone(),
            what,
            said,
        };
        let files = match ledger.unsent_files(pr) {
            Ok(f) => f,
            Err(e) => {
                out.push(work(
                    Unsent::Unreadable,
                    format!("what {pr} holds unsent could not be read: {e}"),
                ));
                continue;
            }
        };
        if files.draft {
            out.push(work(Unsent::Draft, unsent::draft_said(pr)));
        }
        if files.reply {
            out.push(work(Unsent::Reply, unsent::reply_said(pr)));
        }
        let Some(pending) = files.pending else {
            continue;
        };
        let repo = RepoId::of(pr);
        let known = decisions
            .entry(repo.clone())
            .or_insert_with(|| ledger.decisions(&repo).unwrap_or_default());
        let settled = crate::review::results::outcome::settled(known, pr.number);
        let undecided = pending
            .comments
            .iter()
            .filter(|c| c.state == crate::code::pending::DraftState::Proposed)
            .filter(|c| {
                c.finding_id
                    .as_ref()
                    .is_none_or(|id| !settled.contains_key(id))
            })
            .count();
        if let Some(said) = unsent::pending_said(pr, pending.to_post().count(), undecided) {
            out.push(work(Unsent::Pending, said));
        }
    }
    Action::UnsentScanned(out)
}

/// Appends `decisions` to the PR's repository log and adds `lesson` (a dismissal from the
/// findings picker, what a post kept, edited and dropped); `said` once both are written.
pub fn record_decisions(
    ledger: &Ledger,
    pr: &PrCoords,
    decisions: &[Decision],
    lesson: Option<Lesson>,
    said: String,
) -> Action {
    let repo = RepoId::of(pr);
    let written = ledger
        .record_decisions(&repo, decisions)
        .and_then(|()| match lesson {
            Some(l) => ledger.add_lesson(&repo, l),
            None => Ok(()),
        });
    Action::DecisionsRecorded(written.map(|()| said).map_err(|e| e.to_string()))
}

/// The precision of the PR's repository, as one line (`pr-shepherd stats` in short).
pub fn load_stats(ledger: &Ledger, pr: &PrCoords) -> Action {
    let repo = RepoId::of(pr);
    let line = ledger.decisions(&repo).and_then(|d| {
        let spend = ledger.spend(&repo)?;
        Ok(crate::review::stats::compute(&repo.said(), &d, &spend, i64::MIN).line())
    });
    Action::StatsLoaded(line.map_err(|e| e.to_string()))
}
