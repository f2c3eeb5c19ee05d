//! The pending review's effects: read it (with the latest findings proposed as drafts) and save
//! it on the ledger lane; submit it on the send lane through `publish::review`, exactly as
//! `pending submit` does — live as the credentials' account at the PR's current head (fetched
//! again, so a line that left the diff since is named before anything is sent), offline into
//! the review outbox. The pending review is removed once the review exists.

use crate::code::pending::PendingReview;
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot};
use crate::publish::review::{
    Event, ReviewRequest, SubmitError, Submitted, lines_gone, load_with_drafts, record_submitted,
    submit_live, submit_offline,
};
use crate::review::inline::parsed_patches;
use crate::tui::app::Action;
use crate::tui::session::Remote;

/// Tries for a live submission (each looks for the review before sending again).
const ATTEMPTS: u32 = 3;

pub fn load(ledger: &Ledger, snapshot: &Snapshot) -> Action {
    Action::PendingLoaded(
        load_with_drafts(ledger, snapshot)
            .map(Box::new)
            .map_err(|e| e.to_string()),
    )
}

pub fn save(ledger: &Ledger, pr: &PrCoords, mut review: Box<PendingReview>, now: i64) -> Action {
    review.saved_at = now;
    Action::PendingSaved(ledger.save_pending(pr, &review).map_err(|e| e.to_string()))
}

/// Submits `review` where the session's remote says.
pub async fn submit(
    remote: &Remote,
    ledger: &Ledger,
    snapshot: &Snapshot,
    review: &PendingReview,
    event: Event,
    now: i64,
) -> Result<Submitted, String> {
    let pr = snapshot.pr.coords();
    let done = match remote.live() {
        Some(live) => {
            let current = live
                .gh
                .fetch_snapshot(&pr)
                .await
                .map_err(|e| e.to_string())?;
            let req = checked(review, &current, event)?;
            submit_live(&live.gh, &pr, &live.own_login, &req, ATTEMPTS)
                .await
                .map_err(|e| e.to_string())?
        }
        None => {
            let req = checked(review, snapshot, event)?;
            submit_offline(ledger, &pr, &req, now).map_err(|e| e.to_string())?
        }
    };
    // The drafts kept, edited and dropped are decided: never proposed again.
    let mut done = done;
    if let Err(e) = record_submitted(ledger, &pr, review, now) {
        done.location = format!(
            "{} (what it decided of the findings was not recorded: {e})",
            done.location
        );
    }
    if let Err(e) = ledger.discard_pending(&pr) {
        return Ok(Submitted {
            location: format!(
                "{} (the pending review could not be removed: {e})",
                done.location
            ),
            ..done
        });
    }
    Ok(done)
}

/// The request at `snapshot`'s head, or why not: nothing to submit, or lines gone.
fn checked(
    review: &PendingReview,
    snapshot: &Snapshot,
    event: Event,
) -> Result<ReviewRequest, String> {
    if review.is_empty() {
        return Err(SubmitError::Empty.to_string());
    }
    let gone = lines_gone(review, &parsed_patches(snapshot));
    if !gone.is_empty() {
        return Err(SubmitError::LinesGone(gone).to_string());
    }
    Ok(ReviewRequest::of(review, &snapshot.pr.head_sha, event, ""))
}
