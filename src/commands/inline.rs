//! `review --post --inline` (and `event`/`watch` with `[review] inline = true`): after the
//! summary comment, the findings on lines of the diff as inline comments of one review (event
//! comment), each carrying its finding id. A finding already on the PR as an own inline comment
//! (by that id, whatever the SHAs) is not posted again; one whose line is not in the diff stays
//! in the summary only ([`crate::review::results::inline::plan`]).
//!
//! Live, the PR is read again right before sending (as the summary's upsert looks right before
//! it posts), so a finding another run posted inline meanwhile is left out; and once more after
//! sending, so that of the same finding posted at the same time by runs that share no state dir
//! (no lock) the oldest comment stays and the newer are removed — every run decides alike.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::code::pending::{DraftState, PendingReview, marked_finding};
use crate::code::{LineAddr, Side};
use crate::error::CliError;
use crate::ledger::Ledger;
use crate::pr::Snapshot;
use crate::publish::GitHubComments;
use crate::publish::review::{Event, ReviewRequest, Submitted, submit_live, submit_offline};
use crate::review::ReviewRun;
use crate::review::results::aggregate::Aggregate;
use crate::review::results::inline::{InlinePlan, plan};

/// What the inline post did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InlineOutcome {
    #[serde(flatten)]
    pub plan: InlinePlan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<Submitted>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Finding ids already posted inline to the offline review outbox.
fn in_outbox(ledger: &Ledger, snapshot: &Snapshot) -> BTreeSet<String> {
    ledger
        .review_outbox(&snapshot.pr.coords())
        .unwrap_or_default()
        .iter()
        .filter_map(|r| r.body.get("comments").and_then(|c| c.as_array()).cloned())
        .flatten()
        .filter_map(|c| {
            c.get("body")
                .and_then(|b| b.as_str())
                .and_then(marked_finding)
                .map(str::to_owned)
        })
        .collect()
}

/// Where the summary went, and so the inline review goes.
pub(crate) enum Where<'a> {
    GitHub(&'a GitHubComments<'a>),
    Outbox,
}

/// Leaves out of `plan` the findings already on the PR as own inline comments, read from GitHub
/// again right before sending; returns the own inline comments read then (by node id).
async fn look_again(
    store: &GitHubComments<'_>,
    identity: &str,
    plan: &mut InlinePlan,
) -> Result<BTreeSet<String>, String> {
    let now = store
        .gh
        .fetch_snapshot(&store.pr)
        .await
        .map_err(|e| format!("the PR's inline comments could not be read again: {e}"))?;
    let there = crate::review::results::inline::posted_inline(&now, identity);
    let (again, fresh): (Vec<_>, Vec<_>) = std::mem::take(&mut plan.post)
        .into_iter()
        .partition(|p| there.contains_key(&p.finding_id));
    plan.already.extend(again.into_iter().map(|p| p.finding_id));
    plan.post = fresh;
    Ok(crate::review::results::inline::own_inline_ids(
        &now, identity,
    ))
}

/// After sending: the same findings posted inline at the same time by another run keep only
/// their oldest comment (see the module docs); those of this run that gave way count as already
/// on the PR. A failed look changes nothing (the comments are posted).
async fn settle(
    store: &GitHubComments<'_>,
    identity: &str,
    before: &BTreeSet<String>,
    out: &mut InlineOutcome,
) {
    let Ok(now) = store.gh.fetch_snapshot(&store.pr).await else {
        tracing::debug!("the look after posting the inline comments failed");
        return;
    };
    let posted: Vec<String> = out.plan.post.iter().map(|p| p.finding_id.clone()).collect();
    let twice = crate::review::results::inline::made_twice(&now, identity, &posted, before);
    let mut failed = Vec::new();
    let mut gave_way = BTreeSet::new();
    for (finding, db) in twice {
        match crate::publish::review::remove_inline_comment(store.gh, &store.pr, db).await {
            Ok(()) => {
                gave_way.insert(finding);
            }
            Err(e) => failed.push(e),
        }
    }
    let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut out.plan.post)
        .into_iter()
        .partition(|p| gave_way.contains(&p.finding_id));
    out.plan.post = kept;
    out.plan
        .already
        .extend(gone.into_iter().map(|p| p.finding_id));
    if !failed.is_empty() {
        out.error = Some(format!(
            "another run posted the same findings inline at the same time, and removing the second copies failed: {}",
            failed.join("; ")
        ));
    }
}

/// Posts the run's new findings on diff lines as one review where the summary went.
pub(crate) async fn post(
    posting: Where<'_>,
    ledger: &Ledger,
    snapshot: &Snapshot,
    identity: &str,
    run: &ReviewRun,
    agg: &Aggregate,
) -> InlineOutcome {
    // Read from a partial answer, a finding already posted inline may be what is missing.
    if matches!(posting, Where::GitHub(_))
        && let Err(e) = crate::publish::whole_answer(snapshot, "a finding is on the PR already")
    {
        return InlineOutcome {
            error: Some(format!("the inline comments were not posted: {e}")),
            ..InlineOutcome::default()
        };
    }
    let mut plan = plan(run.findings(), agg, snapshot, identity);
    if matches!(posting, Where::Outbox) {
        let earlier = in_outbox(ledger, snapshot);
        let (again, fresh): (Vec<_>, Vec<_>) = std::mem::take(&mut plan.post)
            .into_iter()
            .partition(|p| earlier.contains(&p.finding_id));
        plan.already.extend(again.into_iter().map(|p| p.finding_id));
        plan.post = fresh;
    }
    let mut out = InlineOutcome {
        plan,
        ..InlineOutcome::default()
    };
    if out.plan.post.is_empty() {
        return out;
    }
    // Live: the second look, right before sending.
    let before = match &posting {
        Where::GitHub(store) => match look_again(store, identity, &mut out.plan).await {
            Ok(before) => Some(before),
            Err(e) => {
                out.error = Some(format!("the inline comments were not posted: {e}"));
                return out;
            }
        },
        Where::Outbox => None,
    };
    if out.plan.post.is_empty() {
        return out;
    }
    let mut pending = PendingReview::default();
    for f in &out.plan.post {
        let at = LineAddr {
            side: Side::Right,
            line: f.line,
        };
        if let Some(id) = pending.propose_finding(&f.finding_id, &f.path, at, &f.body)
            && let Some(c) = pending.comments.iter_mut().find(|c| c.id == id)
        {
            c.state = DraftState::Kept;
        }
    }
    let n = out.plan.post.len();
    let body = format!(
        "PR Shepherd: {n} finding{} on {} line{} (the summary is in the `## PR Shepherd Review` comment).",
        if n == 1 { "" } else { "s" },
        if n == 1 { "its" } else { "their" },
        if n == 1 { "" } else { "s" },
    );
    let req = ReviewRequest::of(&pending, &snapshot.pr.head_sha, Event::Comment, &body);
    let result = match &posting {
        Where::GitHub(store) => submit_live(store.gh, &store.pr, &store.own_login, &req, 3).await,
        Where::Outbox => submit_offline(
            ledger,
            &snapshot.pr.coords(),
            &req,
            chrono::Utc::now().timestamp(),
        ),
    };
    match result {
        Ok(done) => {
            let sent = !done.earlier;
            out.review = Some(done);
            if let (Where::GitHub(store), Some(before), true) = (&posting, &before, sent) {
                settle(store, identity, before, &mut out).await;
            }
        }
        Err(e) => out.error = Some(format!("the inline comments were not posted: {e}")),
    }
    out
}

/// The review's JSON document with `inline` added.
pub(crate) fn with_json(doc: &str, inline: &InlineOutcome) -> Result<String, CliError> {
    let mut v: serde_json::Value = serde_json::from_str(doc)
        .map_err(|e| CliError::runtime(format!("cannot encode the review: {e}")))?;
    v["inline"] = serde_json::to_value(inline).unwrap_or_default();
    let mut s = serde_json::to_string_pretty(&v)
        .map_err(|e| CliError::runtime(format!("cannot encode the review: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// Says on stderr what was posted inline; returns the error, if the post failed.
pub(crate) fn report(inline: &InlineOutcome) -> Option<String> {
    let p = &inline.plan;
    let posted = match &inline.review {
        Some(r) => format!(
            "{} inline comment{} in review {}{} ({})",
            p.post.len(),
            if p.post.len() == 1 { "" } else { "s" },
            r.review_id,
            if r.earlier {
                ", made by an earlier try: found, not sent again"
            } else {
                ""
            },
            r.location
        ),
        None => "no new inline comment".to_owned(),
    };
    crate::eprintln_clean!(
        "inline: {posted}; {} already on the PR, not posted again; {} not on a diff line (in the summary only)",
        p.already.len(),
        p.summary_only.len()
    );
    inline.error.clone()
}
