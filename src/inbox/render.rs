//! The output of `pr-shepherd inbox`: Markdown for people (one line per PR, the ones that need
//! attention first) and JSON for agents (`docs/json-output.md`: every field always present).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Counts, Inbox, Row, ShepherdState, needs_attention};
use crate::sanitize::one_line;

/// The JSON document of an inbox.
pub fn json(inbox: &Inbox) -> Value {
    json!({
        "source": inbox.source,
        "complete": inbox.complete(),
        "prs": inbox.rows.iter().map(row_json).collect::<Vec<_>>(),
        "problems": inbox.problems,
    })
}

/// The JSON document of several sections: `{"sections": [inbox, …]}`, each row naming its
/// section (`section`: the section's title).
pub fn sections_json(inboxes: &[Inbox]) -> Value {
    let sections: Vec<Value> = inboxes
        .iter()
        .map(|inbox| {
            let mut doc = json(inbox);
            if let Some(prs) = doc.get_mut("prs").and_then(Value::as_array_mut) {
                for pr in prs {
                    pr["section"] = json!(inbox.source);
                }
            }
            doc
        })
        .collect();
    json!({ "sections": sections })
}

fn row_json(r: &Row) -> Value {
    let l = &r.listed;
    let (items, items_error) = match &r.items {
        Counts::Counted { total, new, edited } => (
            json!({"total": total, "new": new, "edited": edited}),
            Value::Null,
        ),
        Counts::Loading => (Value::Null, json!("not counted")),
        Counts::Failed(why) => (Value::Null, json!(why)),
    };
    json!({
        "owner": l.coords.owner,
        "repo": l.coords.repo,
        "number": l.coords.number,
        "title": l.title,
        "author": l.author.login,
        "url": l.url,
        "draft": l.draft,
        "team": r.team,
        "labels": l.labels,
        "headSha": l.head_sha,
        "updatedAt": l.updated_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        "items": items,
        "itemsError": items_error,
        "filesChangedSinceLastLook": r.files_changed,
        "checks": checks_json(&l.dash),
        "reviewDecision": l.dash.review_decision.map(|d| d.as_str()),
        "reviewRequested": l.requested.as_str(),
        "reviewRequestedTeam": l.requested_team,
        "additions": l.dash.additions,
        "deletions": l.dash.deletions,
        "changedFiles": l.dash.changed_files,
        "autoMerge": l.dash.auto_merge,
        "mergeQueue": l.dash.queued,
        "gate": {"review": r.gate.review.as_str(), "reason": r.gate.reason},
        "shepherd": {
            "state": r.shepherd.state.as_str(),
            "reviewedSha": r.shepherd.reviewed_sha,
            "commentId": r.shepherd.comment_id,
        },
    })
}

/// `checks`: the state of the whole and the counts by state; `null` when not known here.
fn checks_json(d: &crate::pr::Dash) -> Value {
    match d.summary() {
        None => Value::Null,
        Some(s) => json!({
            "state": s.overall().map_or("none", |x| x.as_str()),
            "passing": s.passing,
            "failing": s.failing,
            "pending": s.pending,
            "neutral": s.neutral,
        }),
    }
}

/// The checks in words: `failing (1 failing, 2 passing)`, `passing (3 passing)`, `none`.
fn checks_text(c: &crate::pr::ChecksSummary) -> String {
    let Some(state) = c.overall() else {
        return "none".to_owned();
    };
    let counts: Vec<String> = [
        (c.failing, "failing"),
        (c.pending, "pending"),
        (c.passing, "passing"),
        (c.neutral, "neutral"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, w)| format!("{n} {w}"))
    .collect();
    format!("{} ({})", state.as_str(), counts.join(", "))
}

/// `repo#N`, sanitized.
pub fn short_ref(r: &Row) -> String {
    let c = &r.listed.coords;
    one_line(&format!("{}/{}#{}", c.owner, c.repo, c.number))
}

/// The counts as words: `12 items: 3 new, 1 edited`.
pub fn counts_text(c: &Counts) -> String {
    match c {
        Counts::Counted { total, new, edited } => {
            format!("{total} items: {new} new, {edited} edited")
        }
        Counts::Loading => "counting…".to_owned(),
        Counts::Failed(why) => format!("items unknown ({})", one_line(why)),
    }
}

fn shepherd_text(r: &Row) -> String {
    match (r.shepherd.state, &r.shepherd.reviewed_sha) {
        (ShepherdState::Stale, Some(sha)) => {
            format!("Shepherd: stale (reviewed {})", one_line(&short(sha)))
        }
        (s, _) => format!("Shepherd: {}", s.as_str()),
    }
}

fn short(sha: &str) -> String {
    sha.chars().take(7).collect()
}

/// Whose review is requested, as the row says it: `you`, `team org/slug`; `None` when not yours.
pub fn requested_text(r: &Row) -> Option<String> {
    match (r.listed.requested, &r.listed.requested_team) {
        (crate::pr::ReviewRequested::You, _) => Some("you".to_owned()),
        (crate::pr::ReviewRequested::Team, Some(t)) => Some(format!("team {}", one_line(t))),
        (crate::pr::ReviewRequested::Team, None) => Some("team".to_owned()),
        (crate::pr::ReviewRequested::None, _) => None,
    }
}

fn line(out: &mut String, r: &Row, section: Option<&str>) {
    let l = &r.listed;
    let who = if r.team { "team" } else { "community" };
    let _ = write!(
        out,
        "- **{}** {} — @{} ({who}) · {} · {} · gate: {} ({})",
        short_ref(r),
        one_line(&l.title),
        one_line(&l.author.login),
        counts_text(&r.items),
        shepherd_text(r),
        r.gate.review.as_str(),
        one_line(&r.gate.reason),
    );
    if l.draft {
        out.push_str(" · draft");
    }
    // What the JSON has too: the checks, GitHub's review decision, the size and the last update.
    if let Some(c) = l.dash.summary() {
        let _ = write!(out, " · checks: {}", checks_text(&c));
    }
    if let Some(d) = l.dash.review_decision {
        let _ = write!(out, " · decision: {}", d.as_str());
    }
    if let (Some(a), Some(d)) = (l.dash.additions, l.dash.deletions) {
        let _ = write!(out, " · size: +{a} −{d}");
        if let Some(f) = l.dash.changed_files {
            let _ = write!(out, " in {}", crate::plural::count(f as usize, "file"));
        }
    }
    if let Some(t) = l.updated_at {
        let _ = write!(out, " · updated {}", t.format("%Y-%m-%d %H:%M UTC"));
    }
    if let Some(who) = requested_text(r) {
        let _ = write!(out, " · review requested: {who}");
    }
    if let Some(section) = section {
        let _ = write!(out, " · in {}", one_line(section));
    }
    if !l.labels.is_empty() {
        let labels: Vec<String> = l
            .labels
            .iter()
            .map(|x| format!("`{}`", one_line(x)))
            .collect();
        let _ = write!(out, " · {}", labels.join(" "));
    }
    let _ = writeln!(out, " · {}", one_line(&l.url));
}

/// The Markdown listing: attention first, then the rest; what could not be listed last.
pub fn markdown(inbox: &Inbox) -> String {
    markdown_of(inbox, None)
}

/// The Markdown of several sections, one after the other, each row naming its section.
pub fn markdown_sections(inboxes: &[Inbox]) -> String {
    inboxes
        .iter()
        .map(|i| markdown_of(i, Some(&i.source)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn markdown_of(inbox: &Inbox, section: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Inbox: {}\n", one_line(&inbox.source));
    if inbox.rows.is_empty() && inbox.problems.is_empty() {
        out.push_str("No open pull requests.\n");
        return out;
    }
    let (attention, rest): (Vec<&Row>, Vec<&Row>) =
        inbox.rows.iter().partition(|r| needs_attention(r));
    let _ = writeln!(
        out,
        "{}, {} need attention{}.\n",
        crate::plural::count(inbox.rows.len(), "open PR"),
        attention.len(),
        if inbox.complete() {
            ""
        } else {
            "; INCOMPLETE: some PRs could not be counted"
        }
    );
    if !attention.is_empty() {
        out.push_str("## Needs attention\n\n");
        for r in &attention {
            line(&mut out, r, section);
        }
        out.push('\n');
    }
    if !rest.is_empty() {
        out.push_str("## The rest\n\n");
        for r in &rest {
            line(&mut out, r, section);
        }
        out.push('\n');
    }
    if !inbox.problems.is_empty() {
        out.push_str("## Not listed\n\n");
        for p in &inbox.problems {
            let _ = writeln!(out, "- {}", one_line(p));
        }
        out.push('\n');
    }
    out
}
