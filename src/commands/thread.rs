//! `pr-shepherd thread reply|resolve|unresolve PR THREAD_ID`.

use std::io::Read;

use super::Context;
use crate::cli::{Format, ThreadCommand, ThreadTarget};
use crate::error::CliError;
use crate::ledger::ThreadActionKind;
use crate::pr::{Item, Snapshot, Thread};
use crate::publish::threads::{act_live, act_offline};
use crate::publish::{ThreadDo, ThreadDone, ThreadError, check_reply, record_own_reply};
use crate::sanitize::one_line;
use crate::source::Target;

/// Tries for a live reply (each looks at the thread before sending again).
const REPLY_ATTEMPTS: u32 = 3;

pub(super) async fn run(ctx: &Context, cmd: ThreadCommand) -> Result<(), CliError> {
    let (target, what) = match cmd {
        ThreadCommand::Reply {
            target,
            body,
            body_file,
        } => {
            let body = match (body, body_file) {
                (Some(b), _) => b,
                (None, Some(f)) => read_body(&f)?,
                (None, None) => {
                    return Err(CliError::usage("give --body TEXT or --body-file FILE"));
                }
            };
            // Checked before anything is fetched or sent.
            check_reply(&body).map_err(CliError::usage)?;
            (target, ThreadDo::Reply(body))
        }
        ThreadCommand::Resolve { target } => (target, ThreadDo::Resolve),
        ThreadCommand::Unresolve { target } => (target, ThreadDo::Unresolve),
    };
    let ThreadTarget {
        pr,
        thread_id,
        step,
        format,
    } = target;
    let resolved = ctx.resolve(Some(&pr))?;
    let live = matches!(resolved, Target::Live(_));
    let snapshot = super::load_snapshot(ctx, resolved, step).await?;
    let thread = find_thread(&snapshot, &thread_id)?.clone();
    let coords = snapshot.pr.coords();
    let ledger = ctx.ledger()?;
    let now = chrono::Utc::now().timestamp();
    // Resolving a resolved thread (or unresolving an open one) sends and queues nothing.
    if let Some(want) = match what {
        ThreadDo::Resolve => Some(true),
        ThreadDo::Unresolve => Some(false),
        ThreadDo::Reply(_) => None,
    } {
        let pending = if live {
            None
        } else {
            ledger
                .thread_outbox(&coords)?
                .actions
                .iter()
                .rev()
                .find_map(|a| {
                    (a.thread_id == thread.id)
                        .then_some(a.kind)
                        .and_then(|k| match k {
                            ThreadActionKind::Resolve => Some(true),
                            ThreadActionKind::Unresolve => Some(false),
                            ThreadActionKind::Reply => None,
                        })
                })
        };
        if is_resolved(thread.resolved, pending) == want {
            return super::emit_in(
                format,
                &already(&thread, &snapshot, want, pending.is_some(), format),
            );
        }
    }
    // A posted reply whose seen marker cannot be saved: reported, then exit 1 (a disk failure).
    let mut unrecorded = None;
    let (done, recorded) = if live {
        let gh = super::live::client(ctx, &coords).await?;
        let viewer = gh.viewer_login().await?;
        let done = act_live(&gh, &coords, &thread, &what, &viewer, REPLY_ATTEMPTS)
            .await
            .map_err(thread_error)?;
        let recorded = match &done.reply {
            Some(reply) => match record_own_reply(&ledger, &coords, &thread, reply, now) {
                Ok(r) => r,
                Err(e) => {
                    unrecorded = Some(e);
                    false
                }
            },
            None => false,
        };
        (done, recorded)
    } else {
        (
            act_offline(&ledger, &coords, &thread, &what, now).map_err(thread_error)?,
            false,
        )
    };
    super::emit_in(format, &report(&done, &snapshot, live, recorded, format))?;
    unrecorded.map_or(Ok(()), |e| {
        Err(CliError::runtime(format!(
            "the reply was posted, but not recorded as seen: {e}"
        )))
    })
}

fn read_body(path: &std::path::Path) -> Result<String, CliError> {
    let mut text = String::new();
    let limit = crate::infile::REPLY_LIMIT;
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .take(limit.saturating_add(1))
            .read_to_string(&mut text)
            .and_then(|n| {
                if n as u64 > limit {
                    Err(crate::infile::grew_past(limit))
                } else {
                    Ok(())
                }
            })
    } else {
        crate::infile::read_to_string(path, limit).map(|t| text = t)
    };
    read.map_err(|e| {
        CliError::usage(format!(
            "cannot read the reply from `{}`: {e}",
            path.display()
        ))
    })?;
    Ok(text)
}

/// The thread `id` names, or exit 2 naming it (unknown, or an item that is not a thread).
fn find_thread<'s>(snapshot: &'s Snapshot, id: &str) -> Result<&'s Thread, CliError> {
    let pr = &snapshot.pr;
    match snapshot.find(id) {
        Some(Item::Thread(t)) => Ok(t),
        Some(other) => Err(CliError::usage(format!(
            "`{}` is a {} on {}/{}#{}, not a review thread; give a thread id (PRRT_…)",
            one_line(id),
            match other {
                Item::Review(_) => "review summary",
                _ => "conversation comment",
            },
            pr.owner,
            pr.repo,
            pr.number
        ))),
        None => {
            // A comment inside a thread: name the thread it belongs to.
            let owner = snapshot.items.iter().find_map(|i| match i {
                Item::Thread(t) if t.comments.iter().any(|c| c.id == id) => Some(t.id.as_str()),
                _ => None,
            });
            Err(CliError::usage(match owner {
                Some(t) => format!(
                    "`{}` is a comment inside review thread `{}`, not a thread; give the thread's id",
                    one_line(id),
                    one_line(t)
                ),
                None => format!(
                    "no review thread `{}` on {}/{}#{} (`items` lists the thread ids)",
                    one_line(id),
                    pr.owner,
                    pr.repo,
                    pr.number
                ),
            }))
        }
    }
}

/// Whether a thread is resolved once the actions already queued for it (offline) are done:
/// the last queued resolve or unresolve, else what the snapshot says.
fn is_resolved(in_snapshot: bool, last_queued: Option<bool>) -> bool {
    last_queued.unwrap_or(in_snapshot)
}

/// The report of a resolve or unresolve that had nothing to do.
fn already(
    thread: &Thread,
    snapshot: &Snapshot,
    resolved: bool,
    queued: bool,
    f: Format,
) -> String {
    let pr = &snapshot.pr;
    let state = if resolved { "resolved" } else { "unresolved" };
    match f {
        Format::Json => {
            let v = serde_json::json!({
                "action": if resolved { "resolve" } else { "unresolve" },
                "pr": format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
                "threadId": thread.id,
                "destination": null,
                "already": true,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
        Format::Md => format!(
            "thread {} on {}/{}#{} is already {state}{}: nothing sent or queued\n",
            one_line(&thread.id),
            pr.owner,
            pr.repo,
            pr.number,
            if queued {
                " (by an action in the outbox)"
            } else {
                ""
            },
        ),
    }
}

fn thread_error(e: ThreadError) -> CliError {
    CliError::runtime(e.to_string())
}

fn report(done: &ThreadDone, snapshot: &Snapshot, live: bool, recorded: bool, f: Format) -> String {
    let pr = &snapshot.pr;
    match f {
        Format::Json => {
            let v = serde_json::json!({
                "action": done.kind.as_str(),
                "pr": format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
                "threadId": done.thread_id,
                "destination": if live { "github" } else { "outbox" },
                "commentId": done.reply.as_ref().map(|c| c.id.clone()),
                "location": done.location,
                "attempts": done.attempts,
                "postedEarlier": done.earlier,
                "recordedSeen": recorded,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
        Format::Md => {
            let verb = match done.kind {
                ThreadActionKind::Reply => "replied to",
                ThreadActionKind::Resolve => "resolved",
                ThreadActionKind::Unresolve => "unresolved",
            };
            let place = if !live {
                " (offline: written to the outbox)".to_owned()
            } else if done.earlier {
                " (posted by an earlier run that did not finish; found on GitHub, not sent again)"
                    .to_owned()
            } else {
                String::new()
            };
            format!(
                "{verb} thread {} on {}/{}#{}{place}: {}\n",
                one_line(&done.thread_id),
                pr.owner,
                pr.repo,
                pr.number,
                one_line(&done.location)
            )
        }
    }
}
