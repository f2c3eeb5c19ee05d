//! `pr-shepherd state show|clear|prune`.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::json;

use super::Context;
use crate::cli::{Format, StateCommand};
use crate::error::CliError;
use crate::ledger::{Ledger, OldFolder};
use crate::sanitize::sanitize;
use crate::source::Target;

pub(super) async fn run(ctx: &Context, cmd: StateCommand) -> Result<(), CliError> {
    let ledger = ctx.ledger()?;
    match cmd {
        StateCommand::Prune { pr } => prune(ctx, &ledger, pr.as_deref()).await,
        StateCommand::Show { pr, format } => {
            let target = ctx.resolve(pr.as_deref())?;
            let coords = target.coords();
            let dir = ledger.pr_dir(&coords)?;
            let seen = ledger.load_seen(&coords)?;
            let unmoved = ledger.unmoved_old_folder(&coords)?;
            // For a fixture, say which markers belong to items of its latest step.
            let known: Option<std::collections::HashSet<String>> = match &target {
                Target::Fixture(f) => f
                    .snapshot_at(f.steps.len())
                    .ok()
                    .map(|s| s.items.iter().map(|i| i.id().to_owned()).collect()),
                Target::Live(_) => None,
            };
            // What was acknowledged and is kept beside the markers: the offline thread actions
            // and the live replies whose outcome is not known yet.
            let actions = ledger.thread_outbox(&coords)?.actions;
            let intents = ledger.reply_intents(&coords)?;
            let review_intents = ledger.review_intents(&coords)?;
            let viewed = ledger.viewed_outbox(&coords)?.actions;
            let look = ledger.code_look(&coords)?;
            let reviews = ledger.review_outbox(&coords)?;
            let pending = ledger.load_pending(&coords)?;
            // The unsent work, each unreadable one said rather than failing the whole listing.
            let unsent = Unsent {
                draft: ledger.load_draft(&coords).map_err(|e| e.to_string()),
                reply: ledger.load_reply_draft(&coords).map_err(|e| e.to_string()),
                comment: ledger.outbox(&coords).map_err(|e| e.to_string()),
            };
            let mut markers: Vec<_> = seen.markers.values().collect();
            markers.sort_by(|a, b| a.seen_at.cmp(&b.seen_at).then(a.id.cmp(&b.id)));
            let mut out = String::new();
            match format {
                Format::Json => {
                    let v = json!({
                        "pr": {"owner": coords.owner, "repo": coords.repo, "number": coords.number},
                        "dir": dir,
                        "oldFolder": unmoved.as_ref().map(|o| json!({
                            "path": o.path(), "note": unmoved_note(o),
                        })),
                        "markers": markers.iter().map(|m| json!({
                            "id": m.id, "seenAt": m.seen_at, "bodyHash": m.body_hash,
                            "inFixture": known.as_ref().map(|k| k.contains(&m.id)),
                        })).collect::<Vec<_>>(),
                        "problems": seen.problems.iter().map(|p| json!({
                            "path": p.path, "reason": p.reason,
                        })).collect::<Vec<_>>(),
                        "threadOutbox": actions,
                        "viewedOutbox": viewed,
                        "reviewOutbox": reviews,
                        "pendingComments": pending.comments.len(),
                        "pendingReview": (!pending.comments.is_empty() || !pending.body.trim().is_empty()).then(|| json!({
                            "headSha": pending.head_sha,
                            "toPost": pending.to_post().count(),
                            "savedAt": pending.saved_at,
                            "body": pending.body,
                            "comments": pending.comments,
                        })),
                        "draft": unsent.draft_json(),
                        "replyDraft": unsent.reply_json(),
                        "outboxComment": unsent.comment_json(),
                        "codeLook": {"files": look.files.len(), "keptPatches": look.files.values().filter(|f| f.kept).count()},
                        "replyIntents": intents.iter().map(|i| json!({
                            "threadId": i.thread_id, "login": i.login, "bodyHash": i.body_hash,
                            "at": i.at,
                        })).collect::<Vec<_>>(),
                        "reviewIntents": review_intents,
                    });
                    let _ = writeln!(
                        out,
                        "{}",
                        serde_json::to_string_pretty(&v).unwrap_or_default()
                    );
                }
                Format::Md => {
                    let _ = writeln!(out, "# State of {coords}\n");
                    let _ = writeln!(out, "Directory: {}\n", dir.display());
                    if let Some(old) = &unmoved {
                        let _ = writeln!(out, "{}\n", unmoved_note(old));
                    }
                    let _ = writeln!(
                        out,
                        "{}, {} unusable.\n",
                        crate::plural::count(markers.len(), "seen marker"),
                        seen.problems.len()
                    );
                    if let Some(k) = &known {
                        let stale = markers.iter().filter(|m| !k.contains(&m.id)).count();
                        if stale > 0 {
                            let _ = writeln!(
                                out,
                                "{} not in the fixture \
                                 (`state prune` removes them).\n",
                                crate::plural::count_irregular(
                                    stale,
                                    "marker names an item that is",
                                    "markers name items that are"
                                )
                            );
                        }
                    }
                    if !markers.is_empty() {
                        let _ = writeln!(out, "| id | first seen | body hash |\n|---|---|---|");
                        for m in &markers {
                            let when = DateTime::<Utc>::from_timestamp(m.seen_at, 0)
                                .map_or_else(|| m.seen_at.to_string(), |t| t.to_rfc3339());
                            let _ = writeln!(
                                out,
                                "| `{}` | {when} | `{}` |",
                                sanitize(&m.id),
                                sanitize(&m.body_hash)
                            );
                        }
                        out.push('\n');
                    }
                    for p in &seen.problems {
                        let _ = writeln!(
                            out,
                            "- unusable marker {}: {}",
                            p.path.display(),
                            sanitize(&p.reason)
                        );
                    }
                    write_outbox_md(&mut out, &actions, &intents);
                    write_viewed_md(&mut out, &viewed, &look);
                    write_unsent_md(&mut out, &unsent, &dir);
                    write_reviews_md(&mut out, &reviews, &pending, &dir);
                    write_review_intents_md(&mut out, &review_intents);
                }
            }
            super::emit_in(format, &out)
        }
        StateCommand::Clear { pr, all, yes } => {
            let coords = ctx.resolve(pr.as_deref())?.coords();
            if !all {
                let removed = ledger.forget_seen(&coords)?;
                let kept = if ledger.has_draft(&coords)? {
                    " The unposted draft, the outbox and the run history were kept \
                     (--all removes them)."
                } else {
                    " The outbox and the run history were kept (--all removes them)."
                };
                return super::emit(&format!(
                    "Forgot what was seen on {coords}: {} removed.{kept}\n",
                    crate::plural::count(removed, "seen marker file")
                ));
            }
            if ledger.has_draft(&coords)? && !yes && !confirm_draft_removal(&coords)? {
                return super::emit("Nothing removed.\n");
            }
            let removed = ledger.clear(&coords)?;
            super::emit(&format!(
                "Cleared the state of {coords}: {} removed.\n",
                crate::plural::count(removed, "file")
            ))
        }
    }
}

/// What `state show` says about an old-layout folder that was not moved to this PR's.
fn unmoved_note(old: &OldFolder) -> String {
    match old {
        OldFolder::Theirs { path, pr } => format!(
            "The old state folder {} is {pr}'s (its review runs name it), not this PR's.",
            path.display()
        ),
        OldFolder::Shared { path, prs } => format!(
            "The old state folder {} was written by several PRs ({}) and was left in place: \
             move it by hand to the folder of the PR it belongs to, or remove it.",
            path.display(),
            prs.join(", ")
        ),
        OldFolder::Ours(path) => format!("The old state folder {} is this PR's.", path.display()),
    }
}

/// `state prune`: reads the PR (a fixture's latest step, or GitHub, completely) and removes the
/// markers and kept texts of the items it no longer has.
async fn prune(ctx: &Context, ledger: &Ledger, pr: Option<&str>) -> Result<(), CliError> {
    let target = ctx.resolve(pr)?;
    let snapshot = match target {
        Target::Fixture(f) => {
            let latest = f.steps.len();
            f.into_snapshot_at(latest)?
        }
        live @ Target::Live(_) => super::load_snapshot(ctx, live, None).await?,
    };
    let coords = snapshot.pr.coords();
    if !snapshot.is_complete() {
        return Err(CliError::runtime(format!(
            "{coords} could not be read completely ({}); nothing was pruned",
            sanitize(&snapshot.incomplete.join("; "))
        ))
        .with_hint("a marker is removed only when the whole PR is known not to have its item"));
    }
    let (markers, texts) = ledger.prune_seen(&coords, snapshot.items.iter().map(|i| i.id()))?;
    super::emit(&format!(
        "Pruned {coords}: {} and {} of items the PR no \
         longer has removed; the {} it has keep theirs.\n",
        crate::plural::count(markers, "seen marker"),
        crate::plural::count(texts, "kept text"),
        crate::plural::count(snapshot.items.len(), "item")
    ))
}

/// The live review submissions whose outcome is not known, as Markdown (nothing when none).
fn write_review_intents_md(out: &mut String, intents: &[crate::ledger::ReviewIntent]) {
    if intents.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n{} whose outcome is not known (the run stopped before GitHub's answer); \
         submitting the same review again — after a push too — looks on GitHub first and sends \
         only if it is not there:\n",
        crate::plural::count(intents.len(), "live review submission")
    );
    for i in intents {
        let when = DateTime::<Utc>::from_timestamp(i.at, 0)
            .map_or_else(|| i.at.to_string(), |t| t.to_rfc3339());
        let _ = writeln!(
            out,
            "- key `{}` at `{}` as @{} since {when}",
            sanitize(&i.key),
            sanitize(&i.commit_id),
            sanitize(&i.login)
        );
    }
}

/// The offline thread actions and the pending reply intents, as Markdown (nothing when there are
/// none).
fn write_outbox_md(
    out: &mut String,
    actions: &[crate::ledger::ThreadAction],
    intents: &[crate::ledger::ReplyIntent],
) {
    let when = |at: i64| {
        DateTime::<Utc>::from_timestamp(at, 0).map_or_else(|| at.to_string(), |t| t.to_rfc3339())
    };
    if !actions.is_empty() {
        let _ = writeln!(
            out,
            "\n{} in the outbox:\n\n| id | action | thread | at | reply |\n|---|---|---|---|---|",
            crate::plural::count(actions.len(), "offline thread action")
        );
        for a in actions {
            let reply = a.body.as_deref().map_or_else(String::new, |b| {
                let line = crate::sanitize::one_line(b).replace('|', "\\|");
                match line.char_indices().nth(60) {
                    Some((cut, _)) => format!("{}…", &line[..cut]),
                    None => line,
                }
            });
            let _ = writeln!(
                out,
                "| `{}` | {} | `{}` | {} | {reply} |",
                sanitize(&a.id),
                a.kind.as_str(),
                sanitize(&a.thread_id),
                when(a.at)
            );
        }
    }
    if !intents.is_empty() {
        let _ = writeln!(
            out,
            "\n{} live reply(ies) whose outcome is not known (the run stopped before GitHub's answer); \
             the same `thread reply` again looks on GitHub first and sends only if it is not there:\n",
            intents.len()
        );
        for i in intents {
            let _ = writeln!(
                out,
                "- thread `{}` as @{} since {}",
                sanitize(&i.thread_id),
                sanitize(&i.login),
                when(i.at)
            );
        }
    }
}

/// `state clear --all` with a draft on disk: asks on a terminal; refuses without one.
/// The offline viewed marks and the last look at the code, as Markdown (nothing when empty).
fn write_viewed_md(
    out: &mut String,
    viewed: &[crate::ledger::ViewedAction],
    look: &crate::ledger::CodeLook,
) {
    if !viewed.is_empty() {
        let _ = writeln!(
            out,
            "\n{} in the outbox:\n\n| id | mark | file | at |\n|---|---|---|---|",
            crate::plural::count(viewed.len(), "offline viewed mark")
        );
        for a in viewed {
            let when = DateTime::<Utc>::from_timestamp(a.at, 0)
                .map_or_else(|| a.at.to_string(), |t| t.to_rfc3339());
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {when} |",
                sanitize(&a.id),
                if a.viewed { "viewed" } else { "unviewed" },
                sanitize(&a.path).replace('|', "\\|")
            );
        }
    }
    if !look.files.is_empty() {
        let _ = writeln!(
            out,
            "\nLast look at the code: {} file patch(es) recorded as shown, {} kept for interdiffs.",
            look.files.len(),
            look.files.values().filter(|f| f.kept).count()
        );
    }
}

fn confirm_draft_removal(coords: &crate::pr::PrCoords) -> Result<bool, CliError> {
    use std::io::{BufRead, IsTerminal, Write};
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(CliError::usage(format!(
            "{coords} has an unposted draft (a review or a thread reply); `state clear --all` would delete it"
        ))
        .with_hint(
            "pass --yes to delete it too, or run `state clear` (without --all) to keep it",
        ));
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "{coords} has an unposted draft (a review or a thread reply). Delete it with everything else? [y/N] "
    );
    let _ = err.flush();
    let mut answer = String::new();
    stdin
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::runtime(format!("could not read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

/// The offline submitted reviews (each the exact request) and the pending review, as Markdown
/// (nothing when both are empty).
fn write_reviews_md(
    out: &mut String,
    reviews: &[crate::ledger::OutboxReview],
    pending: &crate::code::pending::PendingReview,
    dir: &std::path::Path,
) {
    if !reviews.is_empty() {
        let _ = writeln!(
            out,
            "\n{} review{} submitted offline, in {} (each the exact request):\n\n| key | request | event | comments | at |\n|---|---|---|---|---|",
            reviews.len(),
            if reviews.len() == 1 { "" } else { "s" },
            dir.join("outbox").join("reviews.json").display()
        );
        for r in reviews {
            let when = DateTime::<Utc>::from_timestamp(r.created_at, 0)
                .map_or_else(|| r.created_at.to_string(), |t| t.to_rfc3339());
            let _ = writeln!(
                out,
                "| `{}` | {} {} | {} | {} | {when} |",
                sanitize(&r.key),
                sanitize(&r.method),
                sanitize(&r.path),
                sanitize(r.body.get("event").and_then(|e| e.as_str()).unwrap_or("")),
                r.body
                    .get("comments")
                    .and_then(|c| c.as_array())
                    .map_or(0, Vec::len)
            );
        }
    }
    if !pending.comments.is_empty() {
        let _ = writeln!(
            out,
            "\nPending review: {}, {} to post (`pending list` shows them), in {}:\n\n| id | place | kind | state |\n|---|---|---|---|",
            crate::plural::count(pending.comments.len(), "comment"),
            pending.to_post().count(),
            dir.join("pending.json").display()
        );
        for c in &pending.comments {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                sanitize(&c.id),
                sanitize(&c.place()).replace('|', "\\|"),
                c.kind.as_str(),
                c.state.as_str()
            );
        }
    } else if !pending.body.trim().is_empty() {
        let _ = writeln!(
            out,
            "\nPending review: no comments, a body of {} characters, in {}.",
            pending.body.chars().count(),
            dir.join("pending.json").display()
        );
    }
}

/// What the PR holds unsent besides the pending review: the console's review draft, its thread
/// reply, and the Shepherd comment "posted" offline.
struct Unsent {
    draft: Result<Option<crate::ledger::Draft>, String>,
    reply: Result<Option<crate::ledger::ReplyDraft>, String>,
    comment: Result<Option<crate::pr::OutboxComment>, String>,
}

impl Unsent {
    fn draft_json(&self) -> serde_json::Value {
        match &self.draft {
            Ok(Some(d)) => json!({
                "headSha": d.head_sha, "savedAt": d.saved_at, "chars": d.body.chars().count(),
            }),
            Ok(None) => serde_json::Value::Null,
            Err(e) => json!({ "error": e }),
        }
    }

    fn reply_json(&self) -> serde_json::Value {
        match &self.reply {
            Ok(Some(r)) => json!({
                "threadId": r.thread_id, "savedAt": r.saved_at, "chars": r.body.chars().count(),
            }),
            Ok(None) => serde_json::Value::Null,
            Err(e) => json!({ "error": e }),
        }
    }

    fn comment_json(&self) -> serde_json::Value {
        match &self.comment {
            Ok(Some(c)) => json!({
                "commentId": c.comment_id, "createdAt": c.created_at, "updatedAt": c.updated_at,
                "revisions": c.revisions, "chars": c.body.chars().count(),
            }),
            Ok(None) => serde_json::Value::Null,
            Err(e) => json!({ "error": e }),
        }
    }
}

/// The review draft, the thread reply and the offline Shepherd comment, as Markdown (nothing
/// for what is not there).
fn write_unsent_md(out: &mut String, u: &Unsent, dir: &std::path::Path) {
    let when = |t: i64| {
        DateTime::<Utc>::from_timestamp(t, 0).map_or_else(|| t.to_string(), |t| t.to_rfc3339())
    };
    match &u.draft {
        Ok(Some(d)) => {
            let _ = writeln!(
                out,
                "\nUnposted review draft: {} characters for head `{}`, saved {} ({}; the console restores it).",
                d.body.chars().count(),
                sanitize(&d.head_sha.chars().take(12).collect::<String>()),
                when(d.saved_at),
                dir.join("draft.json").display()
            );
        }
        Ok(None) => {}
        Err(e) => {
            let _ = writeln!(out, "\nThe review draft is unreadable: {}", sanitize(e));
        }
    }
    match &u.reply {
        Ok(Some(r)) => {
            let _ = writeln!(
                out,
                "\nUnsent thread reply: {} characters to thread `{}`, saved {} ({}).",
                r.body.chars().count(),
                sanitize(&r.thread_id),
                when(r.saved_at),
                dir.join("reply-draft.json").display()
            );
        }
        Ok(None) => {}
        Err(e) => {
            let _ = writeln!(
                out,
                "\nThe thread reply draft is unreadable: {}",
                sanitize(e)
            );
        }
    }
    match &u.comment {
        Ok(Some(c)) => {
            let _ = writeln!(
                out,
                "\nShepherd comment posted offline: `{}`, {} characters, {}, last {} ({}).",
                sanitize(&c.comment_id),
                c.body.chars().count(),
                crate::plural::count(c.revisions as usize, "revision"),
                when(c.updated_at),
                dir.join("outbox").join("comment.json").display()
            );
        }
        Ok(None) => {}
        Err(e) => {
            let _ = writeln!(
                out,
                "\nThe offline Shepherd comment is unreadable: {}",
                sanitize(e)
            );
        }
    }
}
