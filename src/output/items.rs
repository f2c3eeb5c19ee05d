//! `pr-shepherd items`: the triaged listing as Markdown (for people) or JSON (for agents).
//! The JSON shape is documented in `docs/json-output.md`.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::pr::{Comment, Item, Origin, Snapshot};
use crate::sanitize::sanitize;
use crate::triage::{Freshness, Triaged, counts};

/// What the listing says about seen markers, decided before it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkerPlan {
    /// Markers for new and edited items are written once the listing has been delivered.
    Write,
    /// `--peek`: nothing is written.
    Peek,
    /// Markers cannot or must not be written; the reason is shown.
    NotSaved(String),
}

#[derive(Debug, Clone)]
pub struct ListingOptions {
    /// Show unchanged items in full (Markdown); JSON always has every item.
    pub all: bool,
    pub markers: MarkerPlan,
    /// Marker files that could not be read (their items count as new).
    pub marker_problems: Vec<String>,
}

/// The badges of an item, in display order (freshness first).
pub fn badges(item: &Item, freshness: Freshness) -> Vec<String> {
    let mut out = vec![freshness.as_str().to_uppercase()];
    let s = item.status();
    if s.outdated {
        out.push("OUTDATED".to_owned());
    }
    if s.resolved {
        out.push("RESOLVED".to_owned());
    }
    if s.minimized {
        out.push(match &s.minimized_reason {
            Some(r) => format!("MINIMIZED({})", r.to_lowercase()),
            None => "MINIMIZED".to_owned(),
        });
    }
    out
}

fn source_line(snapshot: &Snapshot) -> String {
    match &snapshot.origin {
        Origin::Live => "live".to_owned(),
        Origin::Fixture { path, step, steps } => {
            format!("fixture {} (step {step} of {steps})", path.display())
        }
    }
}

fn ts(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn seen_text(seen_at: Option<i64>) -> Option<String> {
    seen_at
        .and_then(|s| DateTime::<Utc>::from_timestamp(s, 0))
        .map(ts)
}

fn quote(out: &mut String, body: &str) {
    let body = sanitize(body);
    if body.trim().is_empty() {
        out.push_str("> _(empty body)_\n");
        return;
    }
    for line in body.lines() {
        if line.is_empty() {
            out.push_str(">\n");
        } else {
            let _ = writeln!(out, "> {line}");
        }
    }
}

fn comment_header(c: &Comment) -> String {
    let mut h = format!(
        "**@{}** ({}) · {}",
        sanitize(&c.author.login),
        c.author.association.as_str(),
        ts(c.created_at)
    );
    if let Some(e) = c.last_edited_at {
        let _ = write!(h, " · edited {}", ts(e));
    }
    if c.minimized {
        let _ = write!(
            h,
            " · minimized ({})",
            c.minimized_reason.as_deref().unwrap_or("no reason")
        );
    }
    h
}

fn item_markdown(out: &mut String, item: &Item, t: &Triaged) {
    let badges = badges(item, t.freshness)
        .iter()
        .map(|b| format!("`{b}`"))
        .collect::<Vec<_>>()
        .join(" ");
    let what = match item {
        Item::Thread(th) => format!(
            "Thread on {} ({} comment{})",
            sanitize(&item.location().unwrap_or_default()),
            th.comments.len(),
            if th.comments.len() == 1 { "" } else { "s" }
        ),
        Item::Comment(_) => "Comment".to_owned(),
        Item::Review(r) => format!("Review {}", r.state.as_str()),
    };
    let _ = writeln!(out, "### {what} — @{} {badges}\n", sanitize(item.login()));
    let mut facts = vec![format!("id `{}`", sanitize(item.id()))];
    if let Some(a) = item.author() {
        facts.push(a.association.as_str().to_owned());
    }
    if let Some(c) = item.created_at() {
        facts.push(ts(c));
    }
    if t.freshness == Freshness::Edited
        && let Some(s) = seen_text(t.seen_at)
    {
        facts.push(format!("first seen {s}"));
    }
    let _ = writeln!(out, "{} · <{}>\n", facts.join(" · "), sanitize(item.url()));
    match item {
        Item::Thread(th) => {
            for (i, c) in th.comments.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                let _ = writeln!(out, "{}\n", comment_header(c));
                quote(out, &c.body);
            }
        }
        Item::Comment(c) => {
            if let Some(e) = c.last_edited_at {
                let _ = writeln!(out, "_edited {}_\n", ts(e));
            }
            quote(out, &c.body);
        }
        Item::Review(r) => {
            if let Some(e) = r.last_edited_at {
                let _ = writeln!(out, "_edited {}_\n", ts(e));
            }
            quote(out, &r.body);
        }
    }
    out.push('\n');
}

/// The Markdown listing: sections New, Edited since first look, Unchanged.
pub fn markdown(snapshot: &Snapshot, triaged: &[Triaged], opts: &ListingOptions) -> String {
    let pr = &snapshot.pr;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}/{}#{}: {}\n",
        pr.owner,
        pr.repo,
        pr.number,
        sanitize(&pr.title)
    );
    let short = pr.head_sha.get(..12).unwrap_or(&pr.head_sha);
    let _ = writeln!(
        out,
        "@{} · head `{}` · {} · <{}>\n",
        sanitize(&pr.author.login),
        sanitize(short),
        source_line(snapshot),
        sanitize(&pr.url)
    );
    let (n, e, u) = counts(triaged);
    let _ = writeln!(
        out,
        "{} items: {n} new, {e} edited, {u} unchanged.\n",
        triaged.len()
    );
    for reason in &snapshot.incomplete {
        let _ = writeln!(
            out,
            "> **INCOMPLETE:** {} — the listing may be missing items; no seen markers are written.\n",
            sanitize(reason)
        );
    }
    match &opts.markers {
        MarkerPlan::Write => {}
        MarkerPlan::Peek => out.push_str("_Peek: no seen markers are written._\n\n"),
        MarkerPlan::NotSaved(why) => {
            let _ = writeln!(
                out,
                "> **Seen markers will not be saved:** {}\n",
                sanitize(why)
            );
        }
    }
    for p in &opts.marker_problems {
        let _ = writeln!(
            out,
            "> Ignored an unusable seen marker (its item counts as new): {}\n",
            sanitize(p)
        );
    }
    let section = |out: &mut String, title: &str, f: Freshness| {
        let members: Vec<&Triaged> = triaged.iter().filter(|t| t.freshness == f).collect();
        let _ = writeln!(out, "## {title} ({})\n", members.len());
        if members.is_empty() {
            out.push_str("_None._\n\n");
        }
        for t in members {
            if let Some(item) = snapshot.items.get(t.index) {
                item_markdown(out, item, t);
            }
        }
    };
    section(&mut out, "New", Freshness::New);
    section(&mut out, "Edited since first look", Freshness::Edited);
    if opts.all {
        section(&mut out, "Unchanged", Freshness::Unchanged);
    } else {
        let _ = writeln!(
            out,
            "## Unchanged ({u})\n\n{}",
            if u == 0 {
                "_None._\n"
            } else {
                "_Seen before and not changed since; `--all` shows them._\n"
            }
        );
    }
    out
}

fn comment_json(c: &Comment) -> Value {
    json!({
        "id": c.id,
        "author": c.author.login,
        "authorAssociation": c.author.association.as_str(),
        "authorIsBot": c.author.bot,
        "createdAt": c.created_at,
        "lastEditedAt": c.last_edited_at,
        "url": c.url,
        "body": c.body,
        "minimized": c.minimized,
        "minimizedReason": c.minimized_reason,
    })
}

fn item_json(item: &Item, t: &Triaged) -> Value {
    let status = item.status();
    let (path, line, original_line, diff_hunk, comments) = match item {
        Item::Thread(th) => (
            Some(th.path.as_str()),
            th.line,
            th.original_line,
            Some(th.diff_hunk.as_str()),
            th.comments.iter().map(comment_json).collect(),
        ),
        _ => (None, None, None, None, Vec::new()),
    };
    let author = item.author();
    json!({
        "id": item.id(),
        "kind": item.kind().as_str(),
        "author": item.login(),
        "authorAssociation": author.map(|a| a.association.as_str()),
        "authorIsBot": author.is_some_and(|a| a.bot),
        "url": item.url(),
        "createdAt": item.created_at(),
        "lastEditedAt": item.last_edited_at(),
        "status": {
            "outdated": status.outdated,
            "resolved": status.resolved,
            "minimized": status.minimized,
            "minimizedReason": status.minimized_reason,
        },
        "freshness": t.freshness.as_str(),
        "seenAt": t.seen_at,
        "bodyHash": t.body_hash,
        "path": path,
        "line": line,
        "originalLine": original_line,
        "diffHunk": diff_hunk,
        "reviewState": item.review_state().map(|s| s.as_str()),
        "body": item.body(),
        "comments": comments,
    })
}

/// The JSON listing: every item, whatever its freshness, in snapshot order.
pub fn json(snapshot: &Snapshot, triaged: &[Triaged], opts: &ListingOptions) -> Value {
    let pr = &snapshot.pr;
    let (n, e, u) = counts(triaged);
    let (step, steps) = match &snapshot.origin {
        Origin::Fixture { step, steps, .. } => (Some(*step), Some(*steps)),
        Origin::Live => (None, None),
    };
    let (write, reason) = match &opts.markers {
        MarkerPlan::Write => (true, None),
        MarkerPlan::Peek => (false, Some("peek".to_owned())),
        MarkerPlan::NotSaved(why) => (false, Some(why.clone())),
    };
    json!({
        "pr": {
            "owner": pr.owner,
            "repo": pr.repo,
            "number": pr.number,
            "title": pr.title,
            "url": pr.url,
            "author": pr.author.login,
            "headSha": pr.head_sha,
            "baseSha": pr.base_sha,
            "labels": pr.labels,
        },
        "source": {
            "kind": if step.is_some() { "fixture" } else { "live" },
            "step": step,
            "steps": steps,
        },
        "complete": snapshot.is_complete(),
        "incomplete": snapshot.incomplete,
        "counts": {"total": triaged.len(), "new": n, "edited": e, "unchanged": u},
        "markers": {"write": write, "reason": reason, "problems": opts.marker_problems},
        "items": triaged
            .iter()
            .filter_map(|t| snapshot.items.get(t.index).map(|i| item_json(i, t)))
            .collect::<Vec<_>>(),
    })
}
