//! The ledger lane's shared read: what the session's PRs hold unsent (the router's quit
//! question). Run in order, one at a time, off the UI loop (see [`super::Effects`]). The PR
//! screen's own ledger work (markers, drafts, steps, decisions) is in `app/pr/work.rs`; what a PR
//! kept from an earlier session is read by `app/opened.rs`, the review posted offline by
//! `Remote::offline_post`.

use crate::ledger::{Decision, Ledger, RepoId};
use crate::pr::PrCoords;
use crate::tui::app::Action;

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
        if files.comment {
            out.push(work(Unsent::Comment, unsent::comment_said(pr)));
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
        if let Some(said) = unsent::pending_said(
            pr,
            pending.to_post().count(),
            undecided,
            !pending.body.trim().is_empty(),
        ) {
            out.push(work(Unsent::Pending, said));
        }
    }
    Action::UnsentScanned(out)
}
