//! The pending review screen's own effects ([`Work`]) and their results ([`Done`]): read the
//! pending review (with the latest findings proposed as drafts) and save it on the ledger lane;
//! submit it on the send lane through `publish::review`, exactly as `pending submit` does — live
//! as the credentials' account at the PR's current head (fetched again, so a line that left the
//! diff since is named before anything is sent), offline into the review outbox. Once the review
//! exists, what it posted leaves the pending review. The screen's I/O edge: only the effect
//! runner performs it (see `app/work.rs`).

use crate::code::pending::{DraftState, PendingReview};
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot};
use crate::publish::review::{
    Event, ReviewRequest, SubmitError, Submitted, TextSource, find_earlier, follow_to,
    load_with_drafts, record_submitted, refused_comments, says_nothing, settle, submit_live,
    submit_offline,
};
use crate::review::results::inline::parsed_patches;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};
use crate::tui::session::Remote;

/// What the pending review screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// Read the pending review (with the latest findings proposed as drafts) and the Shepherd
    /// summary a submission may start from.
    Load { snapshot: Box<Snapshot> },
    /// Save the pending review (fsynced: the maintainer's work).
    Save {
        pr: PrCoords,
        review: Box<PendingReview>,
    },
    /// Submit the pending review as one GitHub review (offline: into the review outbox); asked
    /// for only after the maintainer confirmed the dialog that names the event.
    Submit {
        snapshot: Box<Snapshot>,
        review: Box<PendingReview>,
        /// The review's body is the pending review's own (written before confirming).
        event: Event,
    },
}

/// What comes back to the pending review screen.
#[derive(Debug, Clone)]
pub enum Done {
    /// The pending review, read from the ledger with the latest findings proposed as drafts.
    Loaded {
        review: Result<Box<PendingReview>, String>,
        /// The Shepherd summary (the PR's review draft), the body a submission may start from.
        summary: Option<String>,
    },
    Saved(Result<(), String>),
    /// A submitted pending review (or why not).
    Submitted(Result<Submitted, String>),
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        match self {
            Work::Load { .. } | Work::Save { .. } => Lane::Ledger,
            Work::Submit { .. } => Lane::Send,
        }
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let done = match self {
                Work::Load { snapshot } => {
                    let fixture = gh_or_fixture(io, &snapshot);
                    load(io.ledger, &snapshot, texts_of(io, fixture.as_ref())).await
                }
                Work::Save { pr, review } => save(io.ledger, &pr, review, io.now),
                Work::Submit {
                    snapshot,
                    review,
                    event,
                } => {
                    let fixture = gh_or_fixture(io, &snapshot);
                    Done::Submitted(
                        submit(
                            &io.session.remote,
                            io.ledger,
                            &snapshot,
                            &review,
                            event,
                            io.now,
                            texts_of(io, fixture.as_ref()),
                        )
                        .await,
                    )
                }
            };
            send(work::Done::new(done));
        })
    }
}

/// Tries for a live submission (each looks for the review before sending again).
const ATTEMPTS: u32 = 3;

/// Offline, the fixture of the PR (its recorded texts of files); live, none is needed.
fn gh_or_fixture(io: &Io<'_>, snapshot: &Snapshot) -> Option<crate::source::Fixture> {
    match io.session.remote.github() {
        Some(_) => None,
        None => (io.fixture_of)(&snapshot.pr.coords()),
    }
}

/// Where the files' texts are read that the comments follow the diff between: live through
/// GitHub and the session's blob cache, else the fixture's recorded texts.
fn texts_of<'a>(io: &'a Io<'a>, fixture: Option<&'a crate::source::Fixture>) -> TextSource<'a> {
    TextSource {
        gh: io.session.remote.github().map(|g| g.as_ref()),
        fixture,
        cache: Some(io.blobs),
    }
}

async fn load(ledger: &Ledger, snapshot: &Snapshot, texts: TextSource<'_>) -> Done {
    // The Shepherd summary: the PR's review draft, less its hidden metadata (a draft that cannot
    // be read offers none; the draft's own screen says why).
    let summary = ledger
        .load_draft(&snapshot.pr.coords())
        .ok()
        .flatten()
        .map(|d| summary_of(&d.body))
        .filter(|s| !s.trim().is_empty());
    Done::Loaded {
        review: load_with_drafts(ledger, snapshot, texts)
            .await
            .map(Box::new)
            .map_err(|e| e.to_string()),
        summary,
    }
}

/// A Shepherd comment's text as a review's body: without its hidden `<!-- … -->` lines.
fn summary_of(body: &str) -> String {
    body.lines()
        .filter(|l| {
            let t = l.trim();
            !(t.starts_with("<!--") && t.ends_with("-->"))
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

fn save(ledger: &Ledger, pr: &PrCoords, mut review: Box<PendingReview>, now: i64) -> Done {
    review.saved_at = now;
    Done::Saved(ledger.save_pending(pr, &review).map_err(|e| e.to_string()))
}

/// Submits `review` where the session's remote says. Live, the PR is read again and the
/// comments follow their lines to its head first; whatever moved is said, whatever changed or
/// left the diff stops the submission. Once the review exists, the comments it posted leave the
/// pending review and the rest stay.
async fn submit(
    remote: &Remote,
    ledger: &Ledger,
    snapshot: &Snapshot,
    review: &PendingReview,
    event: Event,
    now: i64,
    texts: TextSource<'_>,
) -> Result<Submitted, String> {
    // The body is the pending review's own: none is given besides it.
    let body = "";
    let pr = snapshot.pr.coords();
    let mut review = review.clone();
    let (mut done, moved) = match remote.live() {
        Some(live) => {
            let current = live
                .gh
                .fetch_snapshot(&pr)
                .await
                .map_err(|e| e.to_string())?;
            crate::publish::whole_answer(&current, "this review is on the PR already")
                .map_err(|e| e.to_string())?;
            // A push since an earlier try whose answer was lost: the review made then is
            // found (wherever its lines went since), not refused for them and sent again.
            let earlier = ReviewRequest::of(&review, &current.pr.head_sha, event, body);
            let found = find_earlier(&live.gh, &pr, &live.own_login, &earlier)
                .await
                .map_err(|e| e.to_string())?;
            if let Some(done) = found {
                (done, Vec::new())
            } else {
                let (req, moved) = checked(&mut review, &current, event, body, texts).await?;
                match submit_live(&live.gh, &pr, &live.own_login, &req, ATTEMPTS).await {
                    Ok(done) => (done, moved),
                    Err(SubmitError::Refused(reason)) => {
                        let named = refused_comments(
                            &review,
                            &reason,
                            &parsed_patches(&current),
                            &current.pr.head_sha,
                        );
                        return Err(SubmitError::RefusedComments { reason, named }.to_string());
                    }
                    Err(e) => return Err(e.to_string()),
                }
            }
        }
        None => {
            let (req, moved) = checked(&mut review, snapshot, event, body, texts).await?;
            let done = submit_offline(ledger, &pr, &req, now).map_err(|e| e.to_string())?;
            (done, moved)
        }
    };
    // The drafts kept, edited and dropped are decided: never proposed again.
    if let Err(e) = record_submitted(ledger, &pr, &review, now) {
        done.location = format!(
            "{} (what it decided of the findings was not recorded: {e})",
            done.location
        );
    }
    done.moved = moved;
    let posted: Vec<String> = review.to_post().map(|c| c.id.clone()).collect();
    review.remove_posted(&posted);
    done.still_pending = review
        .comments
        .iter()
        .filter(|c| c.state != DraftState::Dropped)
        .map(|c| c.id.clone())
        .collect();
    let kept = if review.comments.is_empty() {
        ledger.discard_pending(&pr).map(|_| ())
    } else {
        review.saved_at = now;
        ledger.save_pending(&pr, &review)
    };
    if let Err(e) = kept {
        return Ok(Submitted {
            location: format!(
                "{} (the pending review could not be updated: {e})",
                done.location
            ),
            ..done
        });
    }
    Ok(done)
}

/// The request at `snapshot`'s head, with how the comments that moved are said, or why not:
/// nothing to submit, lines gone, outdated comments not kept.
async fn checked(
    review: &mut PendingReview,
    snapshot: &Snapshot,
    event: Event,
    body: &str,
    texts: TextSource<'_>,
) -> Result<(ReviewRequest, Vec<String>), String> {
    follow_to(review, snapshot, texts).await;
    let patches = parsed_patches(snapshot);
    if says_nothing(review, matches!(event, Event::Approve(_)), body) {
        return Err(SubmitError::Empty.to_string());
    }
    let moved = settle(review, &patches, false, false).map_err(|e| e.to_string())?;
    Ok((
        ReviewRequest::of(review, &snapshot.pr.head_sha, event, body),
        moved,
    ))
}
