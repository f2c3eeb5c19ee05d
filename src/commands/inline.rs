//! `review --post --inline` (and `event`/`watch` with `[review] inline = true`): after the
//! summary comment, the findings on lines of the diff as inline comments of one review (event
//! comment), each carrying its finding id. A finding already on the PR as an own inline comment
//! (by that id, whatever the SHAs) is not posted again; one whose line is not in the diff stays
//! in the summary only ([`crate::review::inline::plan`]).

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
use crate::review::aggregate::Aggregate;
use crate::review::inline::{InlinePlan, plan};

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
    let result = match posting {
        Where::GitHub(store) => submit_live(store.gh, &store.pr, &store.own_login, &req, 3).await,
        Where::Outbox => submit_offline(
            ledger,
            &snapshot.pr.coords(),
            &req,
            chrono::Utc::now().timestamp(),
        ),
    };
    match result {
        Ok(done) => out.review = Some(done),
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
            "{} inline comment{} in review {} ({})",
            p.post.len(),
            if p.post.len() == 1 { "" } else { "s" },
            r.review_id,
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
