//! Submitting a pending review: one GitHub review with all its line comments in one request.
//!
//! **Why REST.** `POST /repos/{o}/{r}/pulls/{n}/reviews` with `commit_id`, `event`, `body` and
//! `comments[]` (`path`, `line`, `side`, `start_line`, `start_side`) creates and submits the
//! review and all its comments in one request, at the commit named; GraphQL needs
//! `addPullRequestReview` with `threads` and, for an event, the same mutation's `event` — one
//! request too, but its refusal of one thread's line comes back as a partial pending review
//! left on the PR, which would then have to be found and deleted. The REST call either makes
//! the whole review or nothing (a 422), which is what "exactly one review" needs.
//!
//! **Never twice.** The body carries a hidden key ([`REVIEW_MARKER_PREFIX`]: a hash of the
//! request), and every try first lists the PR's reviews by the own account and looks for it; a
//! create whose answer was lost (a timeout, a 502) is found by the next try's look and not sent
//! again. The PR's post lock is held from the look to the create, as for the Shepherd comment,
//! so two runs on one machine take turns. The key hashes the commit too, so across a push the
//! same review has a new key: before sending, a submit intent is recorded in the state dir
//! (`ledger::ReviewIntent`, named by the review's content at any head, holding the key sent),
//! and removed once the outcome is known; a later try of the same review — after a push too —
//! looks for that earlier key as well, and a review found so is reported as made by an earlier
//! try (found, not sent again), never sent twice.
//!
//! **A line that left the diff.** Before sending, each comment's place is checked against the
//! PR's patches at the current head ([`lines_gone`]); those that are not in the diff any more are
//! named, and can be folded into the review's body ([`fold_into_body`]). GitHub's own 422 is
//! said as it came.
//!
//! **Approving** exists only as [`Event::Approve`], made from a [`ConsoleApproval`], which only
//! the console's confirmation makes: nothing headless or automatic ever approves.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::code::pending::{DiffAt, FileTexts, FollowState, PendingReview, Reason};
use crate::code::{LineAddr, ParsedPatch, Side};
use crate::ledger::{Ledger, LedgerError, OutboxReview, ReviewIntent};
use crate::pr::{PrCoords, sha256_hex};
use crate::source::github::contents::{self, BlobCache};
use crate::source::github::{GitHub, GitHubError};

/// The hidden key a submitted review's body ends with.
pub const REVIEW_MARKER_PREFIX: &str = "<!-- pr-shepherd:review ";

/// Pages of 100 reviews read at most when looking for an earlier submission.
const MAX_PAGES: usize = 30;

/// The maintainer's explicit, confirmed choice to approve, made only by the console's
/// confirmation dialog (the only caller of [`ConsoleApproval::confirmed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleApproval(());

impl ConsoleApproval {
    /// The maintainer confirmed "approve" in the console.
    pub(crate) fn confirmed() -> ConsoleApproval {
        ConsoleApproval(())
    }
}

/// How a review is submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Comment,
    RequestChanges,
    /// Only from the console, confirmed.
    Approve(ConsoleApproval),
}

impl Event {
    /// GitHub's word (`COMMENT`, `REQUEST_CHANGES`, `APPROVE`).
    pub fn wire(self) -> &'static str {
        match self {
            Event::Comment => "COMMENT",
            Event::RequestChanges => "REQUEST_CHANGES",
            Event::Approve(_) => "APPROVE",
        }
    }

    /// How it is said: "comment", "request changes", "approve".
    pub fn said(self) -> &'static str {
        match self {
            Event::Comment => "comment",
            Event::RequestChanges => "request changes",
            Event::Approve(_) => "approve",
        }
    }
}

/// One comment of the request, in GitHub's REST shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireComment {
    pub path: String,
    pub body: String,
    pub line: u32,
    pub side: Side,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_side: Option<Side>,
}

/// Whether a review of `event` would say nothing: approving is a verdict of its own (it needs
/// no line comment and no body, as on GitHub); a comment or a request for changes needs a body
/// (`body` given, or the pending review's own) or a comment to post. The one rule of the
/// console and `pending submit`.
pub fn says_nothing(pending: &PendingReview, approving: bool, body: &str) -> bool {
    !approving && pending.is_empty() && body.trim().is_empty()
}

/// The exact body of `POST /repos/{o}/{r}/pulls/{n}/reviews`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewRequest {
    pub commit_id: String,
    pub body: String,
    pub event: String,
    pub comments: Vec<WireComment>,
}

impl ReviewRequest {
    /// The request for `pending` (its posted comments; its body, else `body`) at `head_sha`,
    /// its body ending with the hidden key of its content.
    pub fn of(pending: &PendingReview, head_sha: &str, event: Event, body: &str) -> ReviewRequest {
        let comments: Vec<WireComment> = pending
            .to_post()
            .map(|c| WireComment {
                path: c.path.clone(),
                body: c.posted_body(),
                line: c.line,
                side: c.side,
                start_line: c.start_line,
                start_side: c.start_line.map(|_| c.side),
            })
            .collect();
        // The body given first, then the pending review's own (the comments folded into it):
        // nothing folded is left out because a body was given.
        let text = [body.trim(), pending.body.trim()]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
        let mut req = ReviewRequest {
            commit_id: head_sha.to_owned(),
            body: text,
            event: event.wire().to_owned(),
            comments,
        };
        let key = req.content_key();
        let sep = if req.body.is_empty() { "" } else { "\n\n" };
        req.body = format!("{}{sep}{REVIEW_MARKER_PREFIX}{key} -->", req.body);
        req
    }

    /// A hash of what the review says and where (the key a retry finds it by).
    fn content_key(&self) -> String {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        sha256_hex(&bytes).chars().take(16).collect()
    }

    /// The review as sent, at `at` (Unix seconds), as the console shows it until the PR read
    /// back shows it.
    pub fn as_sent(&self, at: i64) -> crate::ledger::SentReview {
        crate::ledger::SentReview::of_request(
            self.key().unwrap_or_default(),
            &serde_json::to_value(self).unwrap_or(Value::Null),
            at,
        )
    }

    /// The hidden key in the body.
    pub fn key(&self) -> Option<&str> {
        review_key(&self.body)
    }

    /// A hash of what the review says, whatever head it is sent at and wherever its comments'
    /// lines went since (a push moves them: `code::pending` follows them): the name of its
    /// submit intent, so a retry after a push finds the key an earlier try sent.
    pub fn content_at_any_head(&self) -> String {
        let mut c = self.clone();
        c.commit_id.clear();
        if let Some(at) = c.body.rfind(REVIEW_MARKER_PREFIX) {
            c.body.truncate(at);
            c.body.truncate(c.body.trim_end().len());
        }
        for w in &mut c.comments {
            w.line = 0;
            w.start_line = None;
            w.start_side = None;
        }
        let bytes = serde_json::to_vec(&c).unwrap_or_default();
        sha256_hex(&bytes)
    }
}

/// The key in a review body's hidden marker.
pub fn review_key(body: &str) -> Option<&str> {
    let start = body.rfind(REVIEW_MARKER_PREFIX)? + REVIEW_MARKER_PREFIX.len();
    let rest = &body[start..];
    let id = &rest[..rest.find(" -->")?];
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
}

/// The pending comments (their ids, with their place) whose lines are not in the diff at the
/// PR's current head, or whose lines are gone since they were written: GitHub would refuse the
/// review for them, or take them on lines they were not written on.
pub fn lines_gone(
    pending: &PendingReview,
    patches: &HashMap<String, ParsedPatch>,
) -> Vec<(String, String)> {
    pending
        .to_post()
        .filter(|c| {
            c.followed
                .as_ref()
                .is_some_and(|f| f.state == FollowState::Gone)
                || patches.get(&c.path).is_none_or(|p| {
                    !crate::code::pending::in_diff(
                        p,
                        c.start_line,
                        LineAddr {
                            side: c.side,
                            line: c.line,
                        },
                    )
                })
        })
        .map(|c| (c.id.clone(), c.place()))
        .collect()
}

/// The pending comments to post whose lines changed since they were written and that the
/// maintainer has not kept at their new place: (id, place now and what changed).
pub fn outdated(pending: &PendingReview) -> Vec<(String, String)> {
    pending
        .to_post()
        .filter_map(|c| {
            let f = c.followed.as_ref()?;
            (f.state == FollowState::Outdated && !f.kept).then(|| {
                let first = |l: &[String]| {
                    l.first()
                        .map(|t| format!("`{}`", crate::sanitize::one_line(t)))
                        .unwrap_or_else(|| "(not recorded)".to_owned())
                };
                let repeated = match f.reason {
                    Reason::Repeated => {
                        "; its lines repeat, so which copy they are now is not certain"
                    }
                    Reason::Changed => "",
                };
                (
                    c.id.clone(),
                    format!(
                        "{} (written on {}: {}{repeated}; now {})",
                        c.place(),
                        f.from,
                        first(&f.was),
                        first(&f.now)
                    ),
                )
            })
        })
        .collect()
}

/// How each comment to post that does not go where it was written is said: `c2 moved
/// src/x.rs:10 → :14`, `c3 outdated (…), kept at :14`.
pub fn moved(pending: &PendingReview) -> Vec<String> {
    pending
        .to_post()
        .filter(|c| {
            c.followed
                .as_ref()
                .is_some_and(|f| f.state == FollowState::Moved || f.kept)
        })
        .filter_map(|c| Some(format!("{} {}", c.id, c.follow_said()?)))
        .collect()
}

/// Moves the comments `ids` out of the lines and into the review's body, each under the place
/// it was written at: a comment whose line left the diff, or whose lines changed (with the code
/// it was written on).
pub fn fold_into_body(pending: &mut PendingReview, ids: &[String]) {
    let mut folded = Vec::new();
    pending.comments.retain(|c| {
        if ids.contains(&c.id) && c.state.is_posted() {
            let head = match &c.followed {
                Some(f) if f.state == FollowState::Outdated => {
                    let why = match f.reason {
                        Reason::Changed => "its lines changed since it was written",
                        Reason::Repeated => {
                            "its lines repeat, and which copy they are since it was written is not certain"
                        }
                    };
                    let mut s = format!("**{}** ({why}", f.from);
                    if !f.from_head.is_empty() {
                        s.push_str(&format!(
                            " at {}",
                            f.from_head.chars().take(7).collect::<String>()
                        ));
                    }
                    s.push(')');
                    if !f.was.is_empty() {
                        s.push_str("\n\n");
                        s.push_str(&crate::code::pending::code_block(&f.was));
                    }
                    s
                }
                _ => format!("**{}** (its line left the diff)", c.place()),
            };
            folded.push(format!("{head}\n\n{}", c.posted_body()));
            false
        } else {
            true
        }
    });
    for f in folded {
        if !pending.body.trim().is_empty() {
            pending.body.push_str("\n\n");
        }
        pending.body.push_str(&f);
    }
}

/// What stops a submission before anything is sent, unless folded (`fold`) or kept
/// (`keep_outdated`): comments whose lines are gone, outdated comments not kept. With `fold`
/// they go into the body; with `keep_outdated` outdated comments are kept at their new place.
/// Returns how the comments that moved are said.
pub fn settle(
    pending: &mut PendingReview,
    patches: &HashMap<String, ParsedPatch>,
    fold: bool,
    keep_outdated: bool,
) -> Result<Vec<String>, SubmitError> {
    if keep_outdated {
        for (id, _) in outdated(pending) {
            // Outdated comments are never gone: keeping them cannot fail.
            let _ = pending.keep(&id);
        }
    }
    let gone = lines_gone(pending, patches);
    let stale = outdated(pending);
    if !fold {
        if !gone.is_empty() {
            return Err(SubmitError::LinesGone(gone));
        }
        if !stale.is_empty() {
            return Err(SubmitError::Outdated(stale));
        }
    } else {
        let ids: Vec<String> = gone.into_iter().chain(stale).map(|(id, _)| id).collect();
        fold_into_body(pending, &ids);
    }
    Ok(moved(pending))
}

/// The comments of `pending` GitHub refused in a 422 with `message`, as `c3 at path:line (why)`:
/// those it names by position (`comments[2]`), else those that are not on a line of the diff
/// at the PR's head as read again (`patches`, at `head`).
pub fn refused_comments(
    pending: &PendingReview,
    message: &str,
    patches: &HashMap<String, ParsedPatch>,
    head: &str,
) -> Vec<String> {
    let posted: Vec<_> = pending.to_post().collect();
    let named: Vec<String> = positions(message)
        .into_iter()
        .filter_map(|i| posted.get(i))
        .map(|c| format!("{} at {}", c.id, c.place()))
        .collect();
    if !named.is_empty() {
        return named;
    }
    let at = if head.is_empty() || head == pending.head_sha {
        String::new()
    } else {
        format!(
            " at the new head {}",
            head.chars().take(7).collect::<String>()
        )
    };
    posted
        .iter()
        .filter_map(|c| {
            let why = match patches.get(&c.path) {
                None => "its file has no patch in the PR now".to_owned(),
                Some(p) => crate::code::pending::refusal(p, c)?,
            };
            Some(format!("{} at {} ({why}{at})", c.id, c.place()))
        })
        .collect()
}

/// The comment positions a 422 message names (`comments[2]`), if any.
fn positions(message: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = message;
    while let Some(i) = rest.find("comments[") {
        rest = &rest[i + "comments[".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse::<usize>()
            && rest[digits.len()..].starts_with(']')
            && !out.contains(&n)
        {
            out.push(n);
        }
    }
    out
}

/// How long reading files' texts to follow the diff may take before the patches are followed.
pub const TEXTS_WAIT: Duration = Duration::from_secs(20);

/// Where the files' texts are read that the pending review follows the diff between when the
/// head moved: live through GitHub (by blob, through `cache`), offline from a fixture's recorded
/// texts, or nowhere (the patches only). What cannot be read (over 1 MiB, binary, missing, a
/// failed request) is left out: the comments follow the patches there.
#[derive(Clone, Copy, Default)]
pub struct TextSource<'a> {
    pub gh: Option<&'a GitHub>,
    pub fixture: Option<&'a crate::source::Fixture>,
    pub cache: Option<&'a std::sync::Mutex<BlobCache>>,
}

impl TextSource<'_> {
    /// No texts: the patches only.
    pub const NONE: TextSource<'static> = TextSource {
        gh: None,
        fixture: None,
        cache: None,
    };

    /// The texts of `wanted` (commit, path) of the PR at `coords`, as far as they can be read:
    /// live in requests of [`contents::FILES_PER_REQUEST`] files, those already in the cache
    /// read from it.
    pub async fn read(&self, coords: &PrCoords, wanted: &[(String, String)]) -> FileTexts {
        let mut out = FileTexts::default();
        if wanted.is_empty() {
            return out;
        }
        let Some(gh) = self.gh else {
            for (commit, path) in wanted {
                let recorded = self.fixture.and_then(|f| f.file_at(commit, path));
                if let Ok(t) = contents::offline_file(recorded, commit, path) {
                    out.insert(commit, path, t.text);
                }
            }
            return out;
        };
        // The lock is never held across a request.
        let mut ask = Vec::new();
        for (commit, path) in wanted {
            match self.cache.and_then(|c| lock(c).get(commit, path)) {
                Some(Ok(t)) => out.insert(commit, path, t.text),
                Some(Err(_)) => {}
                None => ask.push((commit.clone(), path.clone())),
            }
        }
        // Live reads need the runtime (the console's ledger lane has it; a bare thread has
        // none, and follows the patches), and never hold the follow up for long.
        if ask.is_empty() || tokio::runtime::Handle::try_current().is_err() {
            return out;
        }
        let read = tokio::time::timeout(TEXTS_WAIT, contents::read_files_at(gh, coords, &ask));
        match read.await.unwrap_or_else(|_| {
            Err(GitHubError::Graphql(format!(
                "no answer in {} s",
                TEXTS_WAIT.as_secs()
            )))
        }) {
            Ok(read) => {
                for ((commit, path), r) in ask.iter().zip(read) {
                    if let Some(c) = self.cache {
                        lock(c).insert(commit, path, &r);
                    }
                    if let Ok(t) = r {
                        out.insert(commit, path, t.text);
                    }
                }
            }
            Err(e) => tracing::debug!("{coords}: files' texts to follow the diff: {e}"),
        }
        out
    }
}

/// The cache, even after a panic elsewhere left it poisoned (it holds only texts read).
fn lock(c: &std::sync::Mutex<BlobCache>) -> std::sync::MutexGuard<'_, BlobCache> {
    c.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The diff the pending review follows at `snapshot`'s head: its patches (`patches`, parsed
/// from the snapshot), its base, and the files it renames.
pub fn diff_at<'a>(
    snapshot: &'a crate::pr::Snapshot,
    patches: &'a HashMap<String, ParsedPatch>,
) -> DiffAt<'a> {
    let mut at = DiffAt::new(&snapshot.pr.head_sha, &snapshot.pr.base_sha, patches);
    at.renamed = snapshot
        .pr
        .files
        .iter()
        .filter_map(|f| Some((f.path.clone(), f.previous_path.clone()?)))
        .collect();
    at
}

/// Follows `pending`'s comments to `snapshot`'s head, through the files' texts read from
/// `texts` where the head moved (the patches where they cannot be read).
pub async fn follow_to(
    pending: &mut PendingReview,
    snapshot: &crate::pr::Snapshot,
    texts: TextSource<'_>,
) {
    let patches = crate::review::results::inline::parsed_patches(snapshot);
    let to = diff_at(snapshot, &patches);
    let read = texts
        .read(&snapshot.pr.coords(), &pending.texts_wanted(&to))
        .await;
    pending.follow(&to, &read);
}

/// The PR's pending review with the latest stored run's findings on diff lines proposed in it
/// as drafts (those already there, kept, edited or dropped, stay as they are), derived from the
/// decisions recorded for the PR: a finding dismissed, made a lesson, posted, kept or dropped
/// is never proposed again (a posted one is shown as posted); its head is the snapshot's when
/// it had none. Comments written at another head follow their lines there first, through the
/// files' texts read from `texts` ([`follow_to`]).
pub async fn load_with_drafts(
    ledger: &Ledger,
    snapshot: &crate::pr::Snapshot,
    texts: TextSource<'_>,
) -> Result<PendingReview, LedgerError> {
    let coords = snapshot.pr.coords();
    let mut pending = ledger.load_pending(&coords)?;
    follow_to(&mut pending, snapshot, texts).await;
    let head = &snapshot.pr.head_sha;
    let patches = crate::review::results::inline::parsed_patches(snapshot);
    let (runs, _) = ledger.load_runs::<crate::review::ReviewRun>(&coords)?;
    let decisions = ledger.decisions(&crate::ledger::RepoId::of(&coords))?;
    let settled = crate::review::results::outcome::settled(&decisions, coords.number);
    // A run's line numbers are its head's: proposed on this head's lines only when it is.
    let findings = runs
        .last()
        .filter(|r| r.head_sha.is_empty() || r.head_sha == *head)
        .into_iter()
        .flat_map(|r| r.findings());
    crate::review::results::inline::propose_drafts(&mut pending, findings, snapshot, &settled);
    pending.anchor_new(&diff_at(snapshot, &patches));
    if pending.head_sha.is_empty() {
        pending.head_sha = snapshot.pr.head_sha.clone();
    }
    Ok(pending)
}

/// Records what a submitted pending review decided of its findings' drafts (posted and kept,
/// posted and edited, dropped) in the repository's decisions, so none of them is proposed again
/// as undecided; the aspects come from the PR's latest stored run.
pub fn record_submitted(
    ledger: &Ledger,
    pr: &PrCoords,
    review: &PendingReview,
    at: i64,
) -> Result<(), LedgerError> {
    let run = ledger
        .load_runs::<crate::review::ReviewRun>(pr)
        .ok()
        .and_then(|(runs, _)| runs.into_iter().last());
    let decisions =
        crate::review::results::outcome::pending_decisions(review, run.as_ref(), pr.number, at);
    if decisions.is_empty() {
        return Ok(());
    }
    ledger.record_decisions(&crate::ledger::RepoId::of(pr), &decisions)
}

/// What a submission did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Submitted {
    pub review_id: String,
    /// The review's URL, or the outbox file offline.
    pub location: String,
    pub comments: usize,
    pub event: String,
    /// An earlier try had made it (its answer was lost): found, not sent again.
    pub earlier: bool,
    /// Offline: held in the outbox.
    pub offline: bool,
    /// The comments posted where they were not written, said (`c2 moved src/x.rs:10 → :14`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<String>,
    /// The comments that stay in the pending review (not posted: drafts still to decide,
    /// dropped drafts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub still_pending: Vec<String>,
    /// The review as it was sent, for the console to show until the PR read back shows it.
    #[serde(skip)]
    pub sent: Option<crate::ledger::SentReview>,
}

#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error(
        "nothing to submit: no comment is kept and the body is empty (a comment or a request for changes says something: write a body, keep a draft or write a line comment)"
    )]
    Empty,
    #[error(
        "{} of the comments {} on lines no longer in the diff: {}; fold them into the review's body (`pending submit --fold`, or `F` in the pending review screen) or drop them",
        .0.len(),
        if .0.len() == 1 { "is" } else { "are" },
        .0.iter().map(|(id, place)| format!("{id} at {place}")).collect::<Vec<_>>().join(", ")
    )]
    LinesGone(Vec<(String, String)>),
    #[error(
        "{} of the comments {} outdated, {} lines changed since {} written: {}; keep {} at {} new place (`pending keep PR ID`, `pending submit --keep-outdated`, or keep in the pending review screen), fold {} into the review's body (`--fold`) or drop {}",
        .0.len(),
        if .0.len() == 1 { "is" } else { "are" },
        if .0.len() == 1 { "its" } else { "their" },
        if .0.len() == 1 { "it was" } else { "they were" },
        .0.iter().map(|(id, place)| format!("{id} at {place}")).collect::<Vec<_>>().join(", "),
        if .0.len() == 1 { "it" } else { "each" },
        if .0.len() == 1 { "its" } else { "their" },
        if .0.len() == 1 { "it" } else { "them" },
        if .0.len() == 1 { "it" } else { "them" },
    )]
    Outdated(Vec<(String, String)>),
    #[error("GitHub refused the review: {0}")]
    Refused(String),
    #[error("GitHub refused the review ({reason}): {}", if named.is_empty() { "no comment could be named: each is on a line of the diff as read again".to_owned() } else { named.join(", ") })]
    RefusedComments { reason: String, named: Vec<String> },
    #[error(transparent)]
    GitHub(#[from] GitHubError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

/// A REST review, as far as submitting needs it.
#[derive(Debug, Clone, Deserialize)]
struct RestReview {
    id: u64,
    #[serde(default)]
    html_url: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    user: Option<super::RestUser>,
}

fn reviews_path(pr: &PrCoords) -> String {
    format!(
        "/repos/{}/{}/pulls/{}/reviews",
        pr.owner, pr.repo, pr.number
    )
}

/// The own review whose body carries one of `keys`, if one is on the PR (at any head).
async fn find_submitted(
    gh: &GitHub,
    pr: &PrCoords,
    own_login: &str,
    keys: &[String],
) -> Result<Option<RestReview>, GitHubError> {
    let all: Vec<RestReview> = gh
        .get_all(
            &format!("{}?per_page=100", reviews_path(pr)),
            MAX_PAGES,
            "listing the PR's reviews",
        )
        .await?;
    Ok(all.into_iter().find(|r| {
        r.user
            .as_ref()
            .is_some_and(|u| u.login.eq_ignore_ascii_case(own_login))
            && r.body
                .as_deref()
                .and_then(review_key)
                .is_some_and(|k| keys.iter().any(|key| key == k))
    }))
}

/// `key` and the key an earlier try of the review `content` sent as `own_login`, if its intent
/// is in `ledger`.
fn keys_to_look_for(
    ledger: Option<&Ledger>,
    pr: &PrCoords,
    own_login: &str,
    content: &str,
    key: &str,
) -> Result<Vec<String>, LedgerError> {
    let mut keys = vec![key.to_owned()];
    if let Some(l) = ledger
        && let Some(i) = l.review_intent(pr, content)?
        && (i.login.is_empty() || i.login.eq_ignore_ascii_case(own_login))
        && !keys.contains(&i.key)
    {
        keys.push(i.key);
    }
    Ok(keys)
}

/// Whether an earlier try of `req` (its intent in the client's state dir, at any head) made the
/// review: looked for before a submission is refused for lines that left the diff since (a
/// push after a lost answer), so the review made then is reported, not folded and sent again.
pub async fn find_earlier(
    gh: &GitHub,
    pr: &PrCoords,
    own_login: &str,
    req: &ReviewRequest,
) -> Result<Option<Submitted>, SubmitError> {
    let Some(ledger) = gh.state_dir().map(Ledger::new) else {
        return Ok(None);
    };
    let content = req.content_at_any_head();
    if ledger.review_intent(pr, &content)?.is_none() {
        return Ok(None);
    }
    let _turn = super::take_turn(&ledger, pr, super::POST_LOCK_WAIT).await?;
    let key = req.key().unwrap_or_default();
    let keys = keys_to_look_for(Some(&ledger), pr, own_login, &content, key)?;
    let Some(r) = find_submitted(gh, pr, own_login, &keys).await? else {
        return Ok(None);
    };
    ledger.clear_review_intent(pr, &content)?;
    Ok(Some(Submitted {
        review_id: r.id.to_string(),
        location: r.html_url,
        comments: req.comments.len(),
        event: req.event.clone(),
        earlier: true,
        offline: false,
        moved: Vec::new(),
        still_pending: Vec::new(),
        sent: Some(req.as_sent(chrono::Utc::now().timestamp())),
    }))
}

/// Submits `req` to the PR as `own_login`, with up to `attempts` tries, never twice: each try
/// looks for the review by its key first. Holds the PR's post lock in the client's state dir.
pub async fn submit_live(
    gh: &GitHub,
    pr: &PrCoords,
    own_login: &str,
    req: &ReviewRequest,
    attempts: u32,
) -> Result<Submitted, SubmitError> {
    submit_live_within(gh, pr, own_login, req, attempts, super::POST_LOCK_WAIT).await
}

/// [`submit_live`], waiting at most `wait` for another run's post to the PR.
pub async fn submit_live_within(
    gh: &GitHub,
    pr: &PrCoords,
    own_login: &str,
    req: &ReviewRequest,
    attempts: u32,
    wait: Duration,
) -> Result<Submitted, SubmitError> {
    let Some(key) = req.key().map(str::to_owned) else {
        return Err(SubmitError::Refused("the review carries no key".to_owned()));
    };
    let ledger = gh.state_dir().map(Ledger::new);
    let _turn = match &ledger {
        Some(l) => Some(super::take_turn(l, pr, wait).await?),
        None => None,
    };
    // An earlier try of this review (another run, perhaps at another head) may have made it:
    // its key is looked for too.
    let content = req.content_at_any_head();
    let keys = keys_to_look_for(ledger.as_ref(), pr, own_login, &content, &key)?;
    let settled = || -> Result<(), SubmitError> {
        match &ledger {
            Some(l) => Ok(l.clear_review_intent(pr, &content)?),
            None => Ok(()),
        }
    };
    let done = |r: RestReview, earlier: bool| Submitted {
        review_id: r.id.to_string(),
        location: r.html_url,
        comments: req.comments.len(),
        event: req.event.clone(),
        earlier,
        offline: false,
        moved: Vec::new(),
        still_pending: Vec::new(),
        sent: Some(req.as_sent(chrono::Utc::now().timestamp())),
    };
    let body = serde_json::to_value(req).unwrap_or(Value::Null);
    let mut last: Option<SubmitError> = None;
    let mut recorded = false;
    for _ in 0..attempts.max(1) {
        match find_submitted(gh, pr, own_login, &keys).await {
            // Made by an earlier try (this run's, whose answer was lost, or another run's).
            Ok(Some(r)) => {
                settled()?;
                return Ok(done(r, true));
            }
            Ok(None) => {}
            Err(e) => {
                last = Some(e.into());
                continue;
            }
        }
        if !recorded && let Some(l) = &ledger {
            l.record_review_intent(
                pr,
                &content,
                &ReviewIntent {
                    key: key.clone(),
                    commit_id: req.commit_id.clone(),
                    login: own_login.to_owned(),
                    at: chrono::Utc::now().timestamp(),
                },
            )?;
            recorded = true;
        }
        match gh
            .post_json_once::<Value, RestReview>(&reviews_path(pr), &body, "submitting the review")
            .await
        {
            Ok(r) => {
                settled()?;
                return Ok(done(r, false));
            }
            Err(GitHubError::Http {
                status: 422,
                message,
                ..
            }) => {
                settled()?;
                return Err(SubmitError::Refused(crate::sanitize::one_line(&message)));
            }
            // May have reached GitHub: the next try looks before it sends, and so does the next
            // run (the intent stays).
            Err(
                e @ (GitHubError::Unavailable { .. } | GitHubError::Http { status: 500.., .. }),
            ) => last = Some(e.into()),
            Err(e) => {
                settled()?;
                return Err(e.into());
            }
        }
    }
    Err(last.unwrap_or_else(|| SubmitError::Refused("no attempt was made".to_owned())))
}

/// Removes one own inline comment (REST `DELETE /repos/{o}/{r}/pulls/comments/{id}`): a second
/// copy of a finding that another run posted inline at the same time. Gone already (a retried
/// delete, or the other run removed it) is what was asked for.
pub async fn remove_inline_comment(gh: &GitHub, pr: &PrCoords, db_id: u64) -> Result<(), String> {
    let path = format!("/repos/{}/{}/pulls/comments/{db_id}", pr.owner, pr.repo);
    let what = "removing an inline comment posted twice";
    let resp = gh
        .rest_raw(reqwest::Method::DELETE, &path, None, what)
        .await
        .map_err(|e| e.to_string())?;
    if resp.status.is_success() || resp.status == reqwest::StatusCode::NOT_FOUND {
        return Ok(());
    }
    Err(format!(
        "{what}: GitHub answered {}: {}",
        resp.status.as_u16(),
        crate::sanitize::one_line(&resp.message())
    ))
}

/// Offline: the exact request goes to the PR's review outbox (once, by its key).
pub fn submit_offline(
    ledger: &Ledger,
    pr: &PrCoords,
    req: &ReviewRequest,
    now: i64,
) -> Result<Submitted, SubmitError> {
    let key = req.key().unwrap_or_default().to_owned();
    let _turn = ledger.lock(pr, crate::ledger::Lock::Post, super::POST_LOCK_WAIT)?;
    let (added, path) = ledger.push_review_outbox(
        pr,
        OutboxReview {
            key: key.clone(),
            method: "POST".to_owned(),
            path: reviews_path(pr),
            body: serde_json::to_value(req).unwrap_or(Value::Null),
            created_at: now,
        },
    )?;
    Ok(Submitted {
        review_id: format!("outbox-{key}"),
        location: path.display().to_string(),
        comments: req.comments.len(),
        event: req.event.clone(),
        earlier: !added,
        offline: true,
        moved: Vec::new(),
        still_pending: Vec::new(),
        sent: Some(req.as_sent(now)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::parse;
    use crate::code::pending::CommentKind;

    fn pending() -> PendingReview {
        let mut p = PendingReview::default();
        p.add(
            "a.rs",
            Side::Right,
            Some(2),
            4,
            "range",
            CommentKind::Comment,
            None,
        )
        .unwrap();
        p.add(
            "a.rs",
            Side::Left,
            None,
            2,
            "old",
            CommentKind::Comment,
            None,
        )
        .unwrap();
        p
    }

    #[test]
    fn the_request_is_githubs_shape_with_a_key_of_its_content() {
        let req = ReviewRequest::of(&pending(), "abc", Event::RequestChanges, "see lines");
        let v = serde_json::to_value(&req).unwrap();
        assert_eq!(v["commit_id"], "abc");
        assert_eq!(v["event"], "REQUEST_CHANGES");
        assert_eq!(v["comments"][0]["start_line"], 2);
        assert_eq!(v["comments"][0]["start_side"], "RIGHT");
        assert_eq!(v["comments"][1]["side"], "LEFT");
        assert!(v["comments"][1].get("start_line").is_none());
        let key = req.key().unwrap().to_owned();
        assert_eq!(key.len(), 16);
        let again = ReviewRequest::of(&pending(), "abc", Event::RequestChanges, "see lines");
        assert_eq!(again.key(), Some(key.as_str()), "a retry has the same key");
        let other = ReviewRequest::of(&pending(), "abc", Event::Comment, "see lines");
        assert_ne!(other.key(), Some(key.as_str()));
    }

    #[test]
    fn comments_whose_lines_left_the_diff_are_named_and_can_be_folded() {
        let mut p = pending();
        let patches: HashMap<String, ParsedPatch> = [(
            "a.rs".to_owned(),
            parse("@@ -1,3 +1,5 @@\n a\n-b\n+B\n+C\n+D\n c"),
        )]
        .into();
        assert!(lines_gone(&p, &patches).is_empty());
        let moved: HashMap<String, ParsedPatch> =
            [("a.rs".to_owned(), parse("@@ -1,2 +1,2 @@\n a\n-b\n+B"))].into();
        let gone = lines_gone(&p, &moved);
        assert_eq!(gone, vec![("c1".to_owned(), "a.rs:2-4".to_owned())]);
        let e = SubmitError::LinesGone(gone.clone()).to_string();
        assert!(e.contains("c1 at a.rs:2-4") && e.contains("fold"), "{e}");
        fold_into_body(&mut p, &[gone[0].0.clone()]);
        assert_eq!(p.comments.len(), 1);
        assert!(
            p.body.contains("**a.rs:2-4**") && p.body.contains("range"),
            "{}",
            p.body
        );
    }

    #[test]
    fn a_refused_review_names_its_comment_by_position_or_by_checking_each() {
        let p = pending();
        let patches: HashMap<String, ParsedPatch> = [(
            "a.rs".to_owned(),
            parse("@@ -1,3 +1,5 @@\n a\n-b\n+B\n+C\n+D\n c"),
        )]
        .into();
        assert_eq!(
            refused_comments(
                &p,
                "Validation Failed: comments[1].line invalid",
                &patches,
                ""
            ),
            vec!["c2 at a.rs:2 (old)".to_owned()]
        );
        let now: HashMap<String, ParsedPatch> =
            [("a.rs".to_owned(), parse("@@ -1,2 +1,2 @@\n a\n-b\n+B"))].into();
        assert_eq!(
            refused_comments(&p, "Line could not be resolved", &now, "ffff0000"),
            vec!["c1 at a.rs:2-4 (not a line of the diff at the new head ffff000)".to_owned()]
        );
        assert!(refused_comments(&p, "Line could not be resolved", &patches, "").is_empty());
    }

    #[test]
    fn a_body_given_goes_first_and_what_was_folded_follows_it() {
        let mut p = pending();
        fold_into_body(&mut p, &["c1".to_owned()]);
        let req = ReviewRequest::of(&p, "h", Event::Comment, "Two things.");
        assert!(
            req.body.starts_with("Two things.\n\n**a.rs:2-4**"),
            "{}",
            req.body
        );
        assert!(req.body.contains("range"), "{}", req.body);
    }

    #[test]
    fn the_content_at_any_head_is_the_same_across_a_push_and_differs_with_what_is_said() {
        let at = |head: &str, body: &str| ReviewRequest::of(&pending(), head, Event::Comment, body);
        let (a, b) = (at("h1", "see"), at("h2", "see"));
        assert_ne!(a.key(), b.key(), "the hidden key names the head");
        assert_eq!(a.content_at_any_head(), b.content_at_any_head());
        assert_ne!(
            a.content_at_any_head(),
            at("h1", "other").content_at_any_head()
        );
        let empty = |head: &str| {
            ReviewRequest::of(&PendingReview::default(), head, Event::Comment, "")
                .content_at_any_head()
        };
        assert_eq!(empty("h1"), empty("h2"));
    }

    #[test]
    fn a_key_is_read_back_from_a_body() {
        let req = ReviewRequest::of(&PendingReview::default(), "h", Event::Comment, "");
        assert!(req.body.starts_with(REVIEW_MARKER_PREFIX), "{}", req.body);
        assert_eq!(review_key("no key"), None);
        assert_eq!(review_key("<!-- pr-shepherd:review zz -->"), None);
    }
}
