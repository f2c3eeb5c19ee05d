//! `pr-shepherd pending add|list|drop|submit PR`: the pending review, headless.
//!
//! The pending review lives in the state dir (`<pr>/pending.json`, [`crate::ledger`]); the
//! latest review run's findings on lines of the diff are proposed in it as drafts
//! ([`crate::review::results::inline::propose_drafts`]), posted only once kept (in the console).
//! `submit` goes through [`crate::publish::review`]: one review, never twice; offline into the
//! review outbox. There is no approve here.

use super::Context;
use crate::cli::{Format, PendingAddArgs, PendingCommand, PendingSubmitArgs};
use crate::code::pending::{
    CommentKind, DraftState, FollowState, PendingReview, code_block, suggestion_body,
};
use crate::code::{ParsedPatch, Side};
use crate::error::CliError;
use crate::ledger::Ledger;
use crate::pr::Snapshot;
use crate::publish::review::{
    Event, ReviewRequest, SubmitError, Submitted, TextSource, diff_at, find_earlier,
    load_with_drafts, record_submitted, refused_comments, says_nothing, settle, submit_live,
    submit_offline,
};
use crate::review::results::inline::parsed_patches;
use crate::sanitize::one_line;
use crate::source::github::contents::{BlobCache, DEFAULT_CACHE_BYTES};
use crate::source::{Fixture, Target};
use std::sync::Mutex;

/// Tries for a live submission (each looks for the review before sending again).
const SUBMIT_ATTEMPTS: u32 = 3;

pub(super) async fn run(ctx: &Context, cmd: PendingCommand) -> Result<(), CliError> {
    match cmd {
        PendingCommand::Add(args) => add(ctx, args).await,
        PendingCommand::List { pr, format } => list(ctx, &pr, format).await,
        PendingCommand::Drop { pr, id } => drop_one(ctx, &pr, &id).await,
        PendingCommand::Keep { pr, id } => keep_one(ctx, &pr, &id).await,
        PendingCommand::Submit(args) => submit(ctx, args).await,
    }
}

/// The PR as it is now (live: fetched; a fixture: its initial snapshot), whether it is live,
/// and the fixture it was read from.
async fn load(ctx: &Context, pr: &str) -> Result<(Snapshot, bool, Option<Box<Fixture>>), CliError> {
    match ctx.resolve(Some(pr))? {
        Target::Fixture(f) => Ok((f.snapshot_at(0)?, false, Some(f))),
        live => Ok((super::load_snapshot(ctx, live, None).await?, true, None)),
    }
}

/// The pending review with the latest run's findings on diff lines proposed as drafts, its
/// comments followed to the snapshot's head through the files' texts: offline the fixture's
/// recorded ones, live read from GitHub (only those of comments written at another head).
pub(crate) async fn open(
    ctx: &Context,
    ledger: &Ledger,
    snapshot: &Snapshot,
    fixture: Option<&Fixture>,
) -> Result<PendingReview, CliError> {
    let cache = Mutex::new(BlobCache::new(DEFAULT_CACHE_BYTES));
    let gh = match fixture {
        Some(_) => None,
        None => Some(super::live::client(ctx, &snapshot.pr.coords()).await?),
    };
    let texts = TextSource {
        gh: gh.as_ref(),
        fixture,
        cache: Some(&cache),
    };
    Ok(load_with_drafts(ledger, snapshot, texts).await?)
}

fn save(ledger: &Ledger, snapshot: &Snapshot, pending: &mut PendingReview) -> Result<(), CliError> {
    pending.saved_at = chrono::Utc::now().timestamp();
    ledger.save_pending(&snapshot.pr.coords(), pending)?;
    Ok(())
}

async fn add(ctx: &Context, args: PendingAddArgs) -> Result<(), CliError> {
    let (snapshot, _, fixture) = load(ctx, &args.pr).await?;
    let ledger = ctx.ledger()?;
    let side = if args.side.eq_ignore_ascii_case("left") {
        Side::Left
    } else {
        Side::Right
    };
    let patches = parsed_patches(&snapshot);
    let patch: &ParsedPatch = patches.get(&args.path).ok_or_else(|| {
        CliError::usage(format!(
            "`{}` is not among the PR's changed files with a patch (`files` lists them)",
            one_line(&args.path)
        ))
    })?;
    let (body, kind) = match (args.body, args.suggestion) {
        (Some(b), _) => (b, CommentKind::Comment),
        (None, Some(s)) => (
            suggestion_body(&s.lines().map(str::to_owned).collect::<Vec<_>>()),
            CommentKind::Suggestion,
        ),
        (None, None) => return Err(CliError::usage("give --body T or --suggestion T")),
    };
    let mut pending = open(ctx, &ledger, &snapshot, fixture.as_deref()).await?;
    let id = pending
        .add(
            &args.path,
            side,
            args.start_line,
            args.line,
            &body,
            kind,
            Some(patch),
        )
        .map_err(|e| CliError::usage(e.to_string()))?;
    pending.anchor(&id, &diff_at(&snapshot, &patches));
    save(&ledger, &snapshot, &mut pending)?;
    let place = pending.get(&id).map(|c| c.place()).unwrap_or_default();
    super::emit(&format!(
        "added {} {id} at {}\n",
        kind.as_str(),
        one_line(&place)
    ))
}

/// The pending review as Markdown: each comment with its id, place, kind and state.
fn markdown(pending: &PendingReview) -> String {
    let mut s = String::from("# Pending review\n\n");
    if pending.comments.is_empty() {
        s.push_str("No pending comments.\n");
    }
    for c in &pending.comments {
        s.push_str(&format!(
            "- **{}** `{}` {} ({}){}{}\n",
            c.id,
            c.place(),
            c.kind.as_str(),
            c.state.as_str(),
            c.finding_id
                .as_deref()
                .map(|f| format!(" {f}"))
                .unwrap_or_default(),
            c.followed
                .as_ref()
                .map(|f| format!(" **{}**", f.state.as_str()))
                .unwrap_or_default()
        ));
        if let (Some(said), Some(f)) = (c.follow_said(), c.followed.as_ref()) {
            s.push_str(&format!("  - {said}\n"));
            if f.state != FollowState::Moved {
                let block = |label: &str, lines: &[String]| {
                    if lines.is_empty() {
                        format!("  - {label}: (not recorded)\n")
                    } else {
                        let code = code_block(lines).replace('\n', "\n    ");
                        format!("  - {label}:\n\n    {code}\n\n")
                    }
                };
                s.push_str(&block("written on", &f.was));
                if f.state == FollowState::Outdated {
                    s.push_str(&block("now", &f.now));
                }
            }
        }
        for line in c.body.lines() {
            s.push_str("  > ");
            s.push_str(line);
            s.push('\n');
        }
    }
    if !pending.body.trim().is_empty() {
        s.push_str("\n## Body\n\n");
        s.push_str(pending.body.trim());
        s.push('\n');
    }
    s
}

async fn list(ctx: &Context, pr: &str, format: Format) -> Result<(), CliError> {
    let (snapshot, _, fixture) = load(ctx, pr).await?;
    let pending = open(ctx, &ctx.ledger()?, &snapshot, fixture.as_deref()).await?;
    let text = match format {
        Format::Md => markdown(&pending),
        Format::Json => {
            let p = &snapshot.pr;
            let v = serde_json::json!({
                "pr": format!("{}/{}#{}", p.owner, p.repo, p.number),
                "headSha": pending.head_sha,
                "body": pending.body,
                "comments": pending.comments,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
    };
    super::emit_in(format, &text)
}

async fn drop_one(ctx: &Context, pr: &str, id: &str) -> Result<(), CliError> {
    let (snapshot, _, fixture) = load(ctx, pr).await?;
    let ledger = ctx.ledger()?;
    let mut pending = open(ctx, &ledger, &snapshot, fixture.as_deref()).await?;
    pending
        .drop_comment(id)
        .map_err(|e| CliError::usage(format!("{e} (`pending list` shows the ids)")))?;
    save(&ledger, &snapshot, &mut pending)?;
    super::emit(&format!("dropped {}\n", one_line(id)))
}

async fn keep_one(ctx: &Context, pr: &str, id: &str) -> Result<(), CliError> {
    let (snapshot, _, fixture) = load(ctx, pr).await?;
    let ledger = ctx.ledger()?;
    let mut pending = open(ctx, &ledger, &snapshot, fixture.as_deref()).await?;
    pending
        .keep(id)
        .map_err(|e| CliError::usage(format!("{e} (`pending list` shows the ids)")))?;
    save(&ledger, &snapshot, &mut pending)?;
    let place = pending.get(id).map(|c| c.place()).unwrap_or_default();
    super::emit(&format!("kept {} at {}\n", one_line(id), one_line(&place)))
}

/// A failed submission as a CLI error: a refused line is bad input (exit 2), the rest runtime.
fn submit_error(e: SubmitError) -> CliError {
    match e {
        SubmitError::Empty
        | SubmitError::LinesGone(_)
        | SubmitError::Outdated(_)
        | SubmitError::Refused(_)
        | SubmitError::RefusedComments { .. } => CliError::usage(e.to_string()),
        e => CliError::runtime(e.to_string()),
    }
}

/// How a review is submitted: its event, the body given, whether lines that left the diff or
/// changed are folded into the body, and whether outdated comments are kept at their new place.
struct Submission<'a> {
    event: Event,
    body: &'a str,
    fold: bool,
    keep_outdated: bool,
}

/// Submits `pending` at the snapshot's head, live or to the outbox; once the review exists, the
/// comments it posted leave the pending review and the rest stay. Lines that left the diff and
/// outdated comments are refused, or folded with `fold` (outdated ones kept with
/// `keep_outdated`); comments that moved with their lines are said.
async fn send(
    ctx: &Context,
    ledger: &Ledger,
    snapshot: &Snapshot,
    live: bool,
    pending: &mut PendingReview,
    how: Submission<'_>,
) -> Result<Submitted, CliError> {
    let Submission {
        event,
        body,
        fold,
        keep_outdated,
    } = how;
    let coords = snapshot.pr.coords();
    let gh = if live {
        // Read from a partial answer, what the review is checked against may be what is missing.
        crate::publish::whole_answer(snapshot, "this review is on the PR already")
            .map_err(|e| CliError::runtime(e.to_string()))?;
        let gh = super::live::client(ctx, &coords).await?;
        let viewer = gh.viewer_login().await?;
        // A push since an earlier try whose answer was lost: the review made then is found
        // (whatever became of its lines since), not refused for them, folded and sent again.
        let earlier = ReviewRequest::of(pending, &snapshot.pr.head_sha, event, body);
        if let Some(done) = find_earlier(&gh, &coords, &viewer, &earlier)
            .await
            .map_err(submit_error)?
        {
            let posted: Vec<String> = pending.to_post().map(|c| c.id.clone()).collect();
            return finish(ledger, &coords, pending, &posted, done);
        }
        Some((gh, viewer))
    } else {
        None
    };
    let before = pending.clone();
    let moved =
        settle(pending, &parsed_patches(snapshot), fold, keep_outdated).map_err(submit_error)?;
    if *pending != before {
        save(ledger, snapshot, pending)?;
    }
    if says_nothing(pending, matches!(event, Event::Approve(_)), body) {
        return Err(submit_error(SubmitError::Empty));
    }
    let req = ReviewRequest::of(pending, &snapshot.pr.head_sha, event, body);
    let mut done = match &gh {
        Some((gh, viewer)) => match submit_live(gh, &coords, viewer, &req, SUBMIT_ATTEMPTS).await {
            Ok(done) => done,
            Err(SubmitError::Refused(reason)) => {
                // Name the comments GitHub refused: by position when it says, else by reading
                // the PR again and checking each.
                let named = match super::live::fetch(ctx, &coords).await {
                    Ok(now) => {
                        refused_comments(pending, &reason, &parsed_patches(&now), &now.pr.head_sha)
                    }
                    Err(_) => refused_comments(pending, &reason, &parsed_patches(snapshot), ""),
                };
                return Err(submit_error(SubmitError::RefusedComments { reason, named }));
            }
            Err(e) => return Err(submit_error(e)),
        },
        None => submit_offline(ledger, &coords, &req, chrono::Utc::now().timestamp())
            .map_err(submit_error)?,
    };
    done.moved = moved;
    let posted: Vec<String> = pending.to_post().map(|c| c.id.clone()).collect();
    finish(ledger, &coords, pending, &posted, done)
}

/// Once the review exists: what it posted (`posted`) leaves the pending review, the rest stays
/// (said as still pending); an empty pending review is removed.
fn finish(
    ledger: &Ledger,
    coords: &crate::pr::PrCoords,
    pending: &mut PendingReview,
    posted: &[String],
    mut done: Submitted,
) -> Result<Submitted, CliError> {
    // The drafts kept, edited and dropped are decided: never proposed again.
    if let Err(e) = record_submitted(ledger, coords, pending, chrono::Utc::now().timestamp()) {
        crate::progress::note(&format!(
            "the review was submitted, but what it decided of the findings was not recorded: {e}"
        ));
    }
    pending.remove_posted(posted);
    done.still_pending = pending
        .comments
        .iter()
        .filter(|c| c.state != DraftState::Dropped)
        .map(|c| c.id.clone())
        .collect();
    let kept = if pending.comments.is_empty() {
        ledger.discard_pending(coords).map(|_| ())
    } else {
        pending.saved_at = chrono::Utc::now().timestamp();
        ledger.save_pending(coords, pending)
    };
    if let Err(e) = kept {
        return Err(CliError::runtime(format!(
            "the review was submitted ({}), but the pending review could not be updated: {e}; \
             remove it with `state clear` before submitting again",
            one_line(&done.location)
        )));
    }
    Ok(done)
}

/// How a submission is said: "submitted" only when this run sent it; a review an earlier try
/// had made is "found, not sent again".
fn submitted_line(done: &Submitted) -> String {
    let what = format!(
        "review {} ({}, {} comment{})",
        one_line(&done.review_id),
        done.event.to_lowercase().replace('_', " "),
        done.comments,
        if done.comments == 1 { "" } else { "s" },
    );
    let at = one_line(&done.location);
    let mut s = match (done.earlier, done.offline) {
        (false, false) => format!("submitted {what}: {at}\n"),
        (false, true) => {
            format!("submitted {what} (offline: the request is in the outbox): {at}\n")
        }
        (true, false) => format!(
            "found, not sent again: {what}, made by an earlier try (its answer lost, or the same review sent before): {at}\n"
        ),
        (true, true) => format!(
            "found, not sent again: {what}, in the outbox already from an earlier try: {at}\n"
        ),
    };
    for m in &done.moved {
        s.push_str(&format!("  {}\n", one_line(m)));
    }
    if !done.still_pending.is_empty() {
        s.push_str(&format!(
            "still pending (not posted): {}\n",
            one_line(&done.still_pending.join(", "))
        ));
    }
    s
}

async fn submit(ctx: &Context, args: PendingSubmitArgs) -> Result<(), CliError> {
    let event = match args.event.as_str() {
        "request-changes" => Event::RequestChanges,
        _ => Event::Comment,
    };
    let (snapshot, live, fixture) = load(ctx, &args.pr).await?;
    let ledger = ctx.ledger()?;
    let mut pending = open(ctx, &ledger, &snapshot, fixture.as_deref()).await?;
    let undecided = pending
        .comments
        .iter()
        .filter(|c| c.state == crate::code::pending::DraftState::Proposed)
        .count();
    let body = args.body.unwrap_or_default();
    let done = send(
        ctx,
        &ledger,
        &snapshot,
        live,
        &mut pending,
        Submission {
            event,
            body: &body,
            fold: args.fold,
            keep_outdated: args.keep_outdated,
        },
    )
    .await?;
    if undecided > 0 {
        // Headless nothing is asked: said, and left for the console (or `pending drop`).
        crate::progress::note(&format!(
            "{} from findings still to decide left out of this review (keep them with `pending keep PR ID` or in the console, or drop them with `pending drop PR ID`)",
            crate::plural::count(undecided, "draft")
        ));
    }
    match args.format {
        Format::Md => super::emit(&submitted_line(&done)),
        Format::Json => super::emit_in(
            Format::Json,
            &format!(
                "{}\n",
                serde_json::to_string_pretty(&done).unwrap_or_default()
            ),
        ),
    }
}
