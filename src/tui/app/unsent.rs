//! Unsent work, named before quitting: review drafts, thread replies, pending reviews (their
//! comments to submit and their findings' drafts still to decide), on every PR of the session —
//! those whose screens are alive (their own words, from memory) and those the state dir holds
//! from this session or an earlier one (read by `Effect::ScanUnsent`, on the ledger lane, so
//! every save asked before is written first).

use crate::pr::PrCoords;

/// A kind of unsent work of one PR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsent {
    /// The Shepherd review's draft (`draft.json`).
    Draft,
    /// A thread reply (`reply-draft.json`).
    Reply,
    /// A conversation comment being written (`comment-draft.json`).
    Comment,
    /// The pending review (`pending.json`).
    Pending,
    /// What the PR holds could not be read.
    Unreadable,
}

/// One unsent thing, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsentWork {
    pub pr: PrCoords,
    pub what: Unsent,
    pub said: String,
}

/// "the review draft of acme/rivet#471 stays unposted (kept for next time)".
pub fn draft_said(pr: &PrCoords) -> String {
    format!("the review draft of {pr} stays unposted (kept for next time)")
}

/// "the reply on acme/rivet#471 stays unsent (kept for next time)".
pub fn reply_said(pr: &PrCoords) -> String {
    format!("the reply on {pr} stays unsent (kept for next time)")
}

/// "the conversation comment on acme/rivet#471 stays unposted (kept for next time)".
pub fn comment_said(pr: &PrCoords) -> String {
    format!("the conversation comment on {pr} stays unposted (kept for next time)")
}

/// The pending review of `pr` with `comments` to submit, `undecided` findings' drafts and a
/// `body` written or not:
/// "the pending review of acme/rivet#471 stays unsubmitted: 2 comments, 3 finding drafts
/// undecided (kept for next time)"; `None` when it holds neither.
pub fn pending_said(
    pr: &PrCoords,
    comments: usize,
    undecided: usize,
    body: bool,
) -> Option<String> {
    let mut parts = Vec::new();
    if body {
        parts.push("its body".to_owned());
    }
    if comments > 0 {
        parts.push(crate::output::plural::count(comments, "comment"));
    }
    if undecided > 0 {
        parts.push(format!(
            "{} undecided",
            crate::output::plural::count(undecided, "finding draft")
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "the pending review of {pr} stays unsubmitted: {} (kept for next time)",
            parts.join(", ")
        )
    })
}

/// What quitting would leave unsent: `alive` (what the screens alive say, each with the kinds
/// of work of its PR it holds in memory) first, then what the disk holds that no screen alive
/// speaks for.
pub fn merge(
    alive: Vec<(Option<PrCoords>, Vec<Unsent>, Vec<String>)>,
    disk: &[UnsentWork],
) -> Vec<String> {
    let held: Vec<(PrCoords, Unsent)> = alive
        .iter()
        .filter_map(|(pr, kinds, _)| Some((pr.clone()?, kinds)))
        .flat_map(|(pr, kinds)| kinds.iter().map(move |k| (pr.clone(), *k)))
        .collect();
    let mut out: Vec<String> = alive.into_iter().flat_map(|(_, _, said)| said).collect();
    for w in disk {
        if held.iter().any(|(pr, k)| *pr == w.pr && *k == w.what) {
            continue;
        }
        if !out.contains(&w.said) {
            out.push(w.said.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr(n: u64) -> PrCoords {
        PrCoords {
            host: None,
            owner: "acme".into(),
            repo: "rivet".into(),
            number: n,
        }
    }

    #[test]
    fn the_disk_fills_in_what_no_screen_alive_speaks_for() {
        let alive = vec![(
            Some(pr(1)),
            vec![Unsent::Draft, Unsent::Reply],
            vec![reply_said(&pr(1))],
        )];
        let disk = [
            // Posted in this session: the screen alive knows better than an older read.
            UnsentWork {
                pr: pr(1),
                what: Unsent::Draft,
                said: draft_said(&pr(1)),
            },
            UnsentWork {
                pr: pr(2),
                what: Unsent::Draft,
                said: draft_said(&pr(2)),
            },
            UnsentWork {
                pr: pr(1),
                what: Unsent::Pending,
                said: pending_said(&pr(1), 2, 0, false).unwrap(),
            },
        ];
        assert_eq!(
            merge(alive, &disk),
            [
                reply_said(&pr(1)),
                draft_said(&pr(2)),
                "the pending review of acme/rivet#1 stays unsubmitted: 2 comments (kept for next time)"
                    .to_owned(),
            ]
        );
        assert_eq!(pending_said(&pr(1), 0, 0, false), None);
        assert_eq!(
            pending_said(&pr(1), 1, 3, false).unwrap(),
            "the pending review of acme/rivet#1 stays unsubmitted: 1 comment, 3 finding drafts undecided (kept for next time)"
        );
        // A body alone is work kept, and named.
        assert_eq!(
            pending_said(&pr(1), 0, 0, true).unwrap(),
            "the pending review of acme/rivet#1 stays unsubmitted: its body (kept for next time)"
        );
    }
}
