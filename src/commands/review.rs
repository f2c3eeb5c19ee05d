//! `pr-shepherd review`: the six aspects, headless. Also the delivery half shared with `event`
//! and `watch`: a [`ReviewSetup`] (what to review, the gates' verdict, where a post goes) becomes
//! a [`HeadlessReview`], which [`execute`] prepares and concludes through the one review flow
//! ([`crate::review::flow`]: inputs, prepare, conclude), runs with progress on stderr, posts and
//! prints.

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use std::io::IsTerminal;

use super::Context;
use crate::cli::{Format, LlmOptions, ReviewArgs};
use crate::error::CliError;
use crate::ledger::Ledger;
use crate::policy::{self, GateDecision, Mode};
use crate::pr::{OutboxComment, PrCoords, Snapshot, is_incomplete, is_review_body};
use crate::publish::GitHubComments;
use crate::publish::{Outbox, PostAction, Posted, upsert};
use crate::review::flow::{self, PreparedReview, ReviewRequest, RunInputs};
use crate::review::results::aggregate::AggregateRequest;
use crate::review::results::{compose, condense};
use crate::review::settings::{BackendKind, Overrides};
use crate::review::{ReviewEvent, ReviewRun};
use crate::sanitize::one_line;
use crate::source::github::GitHub;
use crate::source::github::is_org_member;
use crate::source::{Fixture, Target};

impl LlmOptions {
    /// The settings overrides these flags stand for.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            llm: self.llm.as_deref().and_then(BackendKind::parse),
            llm_url: self.llm_url.clone(),
            model: self.model.clone(),
            command: self
                .llm_command
                .as_deref()
                .map(|c| c.split_whitespace().map(str::to_owned).collect()),
            concurrency: self.concurrency,
            aspect_timeout_secs: self.aspect_timeout,
            overall_timeout_secs: self.timeout,
            prompts_dir: self.prompts_dir.clone(),
        }
    }
}

pub(super) async fn run(ctx: &Context, args: ReviewArgs) -> Result<(), CliError> {
    let target = ctx.resolve(args.pr.as_deref())?;
    let ledger = ctx.ledger()?;
    match target {
        Target::Fixture(f) => review_fixture(ctx, &args, f, &ledger).await,
        Target::Live(coords) => review_live(ctx, &args, &coords, &ledger).await,
    }
}

/// `review FIXTURE`: replayed answers, prior reviews from the PR and the outbox, posts to the
/// outbox.
async fn review_fixture(
    ctx: &Context,
    args: &ReviewArgs,
    fixture: Box<Fixture>,
    ledger: &Ledger,
) -> Result<(), CliError> {
    let cfg = ctx.gates().clone();
    // The fixture stays for the run's inputs (its recorded answers, base files and checks).
    let snapshot = super::load_snapshot(ctx, Target::Fixture(fixture.clone()), args.step).await?;
    let team = match policy::membership(snapshot.pr.author.association, &cfg) {
        policy::Membership::Team => Some(true),
        policy::Membership::Community => Some(false),
        policy::Membership::Ambiguous => None,
    };
    let triggered = trigger_of(ctx, &snapshot, args.trigger_comment.as_deref())?;
    let gate = closed_note(
        &snapshot,
        policy::gate(&snapshot.pr, team, &cfg, invocation(args)),
    );
    refused(&gate)?;
    let mut review = ReviewSetup {
        snapshot,
        triggered,
        full: args.all,
        gate: &gate,
        post: PostChoice::explicit(args.post),
        destination: Destination::Outbox {
            identity: args.identity.clone(),
            fixture,
        },
        ledger,
        llm: &args.llm,
        format: args.format,
    }
    .build()?;
    review.quiet = args.quiet;
    review.inline = args.inline;
    review.post_incomplete = args.post_incomplete;
    execute(ctx, review).await.map(|_| ())
}

/// `review OWNER/REPO#N`: prior reviews by the credentials' own account, posts to the PR.
async fn review_live(
    ctx: &Context,
    args: &ReviewArgs,
    coords: &PrCoords,
    ledger: &Ledger,
) -> Result<(), CliError> {
    if args.step.is_some() {
        return Err(CliError::usage(
            "--step applies to fixtures with history, not to a live PR",
        ));
    }
    let cfg = ctx.gates().clone();
    let gh = super::live::client(ctx, coords).await?;
    let snapshot = gh.fetch_snapshot(coords).await?;
    let team = settle_team(&gh, &snapshot.pr, &cfg, true).await;
    let triggered = trigger_of(ctx, &snapshot, args.trigger_comment.as_deref())?;
    let gate = closed_note(
        &snapshot,
        policy::gate(&snapshot.pr, team, &cfg, invocation(args)),
    );
    refused(&gate)?;
    let own_login = gh.viewer_login().await?;
    let mut review = ReviewSetup {
        snapshot,
        triggered,
        full: args.all,
        gate: &gate,
        post: PostChoice::explicit(args.post),
        destination: Destination::GitHub { gh: &gh, own_login },
        ledger,
        llm: &args.llm,
        format: args.format,
    }
    .build()?;
    review.quiet = args.quiet;
    review.inline = args.inline;
    review.post_incomplete = args.post_incomplete;
    execute(ctx, review).await.map(|_| ())
}

/// How `review` was asked for: a named trigger comment is a trigger (`no-shepherd` refuses it
/// whole), otherwise the maintainer's explicit request.
fn invocation(args: &ReviewArgs) -> policy::Invocation {
    if args.trigger_comment.is_some() {
        policy::Invocation::Trigger
    } else {
        policy::Invocation::Explicit
    }
}

/// A review the gates refuse outright (a trigger on a `no-shepherd` PR): exit 1 with the reason,
/// before any model is called; the decision is said on stderr.
fn refused(gate: &GateDecision) -> Result<(), CliError> {
    if gate.review {
        return Ok(());
    }
    crate::eprintln_clean!(
        "decision: no review: {}",
        crate::sanitize::one_line(&gate.reason)
    );
    Err(CliError::runtime(format!("not reviewed: {}", gate.reason)))
}

/// `--trigger-comment ID`, checked and applied.
fn trigger_of(
    ctx: &Context,
    snapshot: &Snapshot,
    id: Option<&str>,
) -> Result<Option<Triggered>, CliError> {
    id.map(|id| apply_trigger(snapshot, id, ctx.automation()))
        .transpose()
}

/// A closed or merged PR is reviewed only on an explicit request (automatic events do nothing
/// for it): the review says so, beside any gate the request overrode.
pub(crate) fn closed_note(snapshot: &Snapshot, mut gate: GateDecision) -> GateDecision {
    if snapshot.pr.state == "OPEN" || !gate.review {
        return gate;
    }
    let note = format!(
        "the PR is {}: answered on an explicit request",
        snapshot.pr.state.to_lowercase()
    );
    gate.overridden = Some(match gate.overridden.take() {
        Some(o) => format!("{o}; {note}"),
        None => note,
    });
    gate
}

/// Whether posting is asked for, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PostChoice {
    /// Print only.
    No,
    /// Asked for by the user (`review --post`): a gate that forbids it is an error (exit 1), and
    /// a gate the request overrides is noted in the review.
    Explicit,
    /// Part of an automatic run (`event`, `watch --post`): a gate that forbids it is a note.
    Automatic,
}

impl PostChoice {
    /// `--post` of `review`.
    fn explicit(post: bool) -> PostChoice {
        if post {
            PostChoice::Explicit
        } else {
            PostChoice::No
        }
    }
}

/// Where the PR came from, and so where earlier reviews are read and a post goes.
pub(crate) enum Destination<'a> {
    /// A fixture: `identity`'s comments and the outbox hold earlier reviews; posts go to the
    /// outbox; the run's inputs are the fixture's (see [`flow::inputs`]).
    Outbox {
        identity: String,
        fixture: Box<Fixture>,
    },
    /// A live PR: the credentials' own account's comments are Shepherd's; posts go to the PR.
    GitHub { gh: &'a GitHub, own_login: String },
}

/// What a headless review is asked to do, before it is resolved into a [`HeadlessReview`].
pub(crate) struct ReviewSetup<'a> {
    /// The PR as fetched (a trigger's cutoff is applied by [`ReviewSetup::build`]).
    pub snapshot: Snapshot,
    pub triggered: Option<Triggered>,
    /// A full review was asked for (`--all`, or the event's decision); a `/review all` trigger
    /// asks for one too.
    pub full: bool,
    pub gate: &'a GateDecision,
    pub post: PostChoice,
    pub destination: Destination<'a>,
    pub ledger: &'a Ledger,
    pub llm: &'a LlmOptions,
    pub format: Format,
}

impl<'a> ReviewSetup<'a> {
    /// Applies the trigger's cutoff and the gates' verdict on posting; offline, reads the outbox.
    pub(crate) fn build(self) -> Result<HeadlessReview<'a>, CliError> {
        let ReviewSetup {
            snapshot,
            triggered,
            full,
            gate,
            post,
            destination,
            ledger,
            llm,
            format,
        } = self;
        let coords = snapshot.pr.coords();
        let snapshot = match &triggered {
            Some(t) => t.snapshot.clone(),
            None => snapshot,
        };
        let blocked = || Posting::Blocked {
            reason: gate.reason.clone(),
            fatal: post == PostChoice::Explicit,
        };
        let (identity, outbox, posting, inputs) = match destination {
            Destination::Outbox { identity, fixture } => {
                let outbox = ledger.outbox(&coords)?;
                let posting = match post {
                    PostChoice::No => Posting::No,
                    _ if gate.post => Posting::Outbox,
                    _ => blocked(),
                };
                let inputs = flow::inputs(&snapshot, Some(&fixture), None);
                (identity, outbox, posting, inputs)
            }
            Destination::GitHub { gh, own_login } => {
                let posting = match post {
                    PostChoice::No => Posting::No,
                    _ if gate.post => Posting::GitHub(GitHubComments {
                        gh,
                        pr: coords,
                        own_login: own_login.clone(),
                    }),
                    _ => blocked(),
                };
                (
                    own_login,
                    None,
                    posting,
                    flow::inputs(&snapshot, None, Some(gh)),
                )
            }
        };
        Ok(HeadlessReview {
            full: full || triggered.as_ref().is_some_and(|t| t.mode == Mode::Full),
            trigger_comment: triggered.as_ref().and_then(|t| t.database_id),
            trigger_kind: triggered.as_ref().map(|t| t.kind),
            override_note: (post == PostChoice::Explicit || triggered.is_some())
                .then(|| gate.overridden.clone())
                .flatten(),
            snapshot,
            identity,
            outbox,
            inputs,
            ledger,
            post: posting,
            llm,
            format,
            extra_json: None,
            quiet: false,
            inline: false,
            post_incomplete: false,
        })
    }
}

/// Team or not, settled: the association, then for an ambiguous one (and only when `is_org`)
/// `GET /orgs/{owner}/members/{login}`. `None` when it stays unknown (counts as community).
pub(crate) async fn settle_team(
    gh: &GitHub,
    pr: &crate::pr::PrMeta,
    cfg: &policy::GateConfig,
    is_org: bool,
) -> Option<bool> {
    match policy::membership(pr.author.association, cfg) {
        policy::Membership::Team => Some(true),
        policy::Membership::Community => Some(false),
        policy::Membership::Ambiguous if !is_org => Some(false),
        policy::Membership::Ambiguous => {
            match is_org_member(gh, &pr.owner, &pr.author.login).await {
                Ok(v) => v,
                Err(e) => {
                    crate::eprintln_clean!(
                        "warning: the org membership check failed ({e}); counted as community"
                    );
                    None
                }
            }
        }
    }
}

/// A trigger that checked out: its mode, the cut-off snapshot, its kind and database id.
#[derive(Debug, Clone)]
pub(crate) struct Triggered {
    pub mode: Mode,
    pub snapshot: Snapshot,
    pub database_id: Option<u64>,
    pub kind: policy::TriggerKind,
}

/// Checks trigger `id` (a node id, or the database id of a conversation comment, review or
/// review comment) and cuts the timeline off at it. Its text is tested here and never travels
/// on: only the mode does.
pub(crate) fn apply_trigger(
    snapshot: &Snapshot,
    id: &str,
    cfg: &policy::AutomationConfig,
) -> Result<Triggered, CliError> {
    let id = id.trim();
    let found = policy::find_trigger(snapshot, id).map_err(|e| CliError::usage(e.to_string()))?;
    let mode = match policy::trigger_with(cfg, found.author, found.body) {
        policy::TriggerDecision::Review(m) => m,
        policy::TriggerDecision::Ignore(why) => {
            return Err(CliError::usage(format!(
                "{} `{}` is not a valid trigger: {}",
                found.kind.said(),
                one_line(id),
                one_line(&why)
            )));
        }
    };
    let (kind, database_id) = (found.kind, found.database_id);
    let (cut, report) =
        policy::cutoff(snapshot, found.node_id).map_err(|e| CliError::usage(e.to_string()))?;
    crate::eprintln_clean!(
        "trigger {} ({}): {} review of the timeline through it; {} left out",
        one_line(id),
        kind.said(),
        match mode {
            Mode::Full => "full",
            Mode::Incremental => "incremental",
        },
        crate::plural::count(report.excluded.len(), "later or edited item")
    );
    Ok(Triggered {
        mode,
        snapshot: cut,
        database_id,
        kind,
    })
}

/// [`apply_trigger`] for a trigger known by kind and database id (event mode, watch).
pub(crate) fn apply_trigger_ref(
    snapshot: &Snapshot,
    r: policy::TriggerRef,
    cfg: &policy::AutomationConfig,
) -> Result<Triggered, CliError> {
    let node = policy::trigger_candidates(snapshot)
        .into_iter()
        .find(|t| t.kind == r.kind && t.database_id == Some(r.id))
        .map(|t| t.node_id.to_owned())
        .ok_or_else(|| {
            CliError::usage(format!(
                "trigger {} {} is not on this PR",
                r.kind.said(),
                r.id
            ))
        })?;
    apply_trigger(snapshot, &node, cfg)
}

/// Where a finished review goes.
pub(crate) enum Posting<'a> {
    No,
    /// Asked for, but a gate forbids it; `fatal` makes that an error (exit 1).
    Blocked {
        reason: String,
        fatal: bool,
    },
    Outbox,
    GitHub(GitHubComments<'a>),
}

/// One headless review of one PR, resolved: what the review may see, whose earlier reviews
/// count, where it is posted and how it is printed. (Not the runner's per-aspect job.)
pub(crate) struct HeadlessReview<'a> {
    /// The PR as the review may see it (cut off at a trigger).
    pub snapshot: Snapshot,
    /// The login whose earlier reviews count as Shepherd's.
    pub identity: String,
    /// Offline: the outbox comment (an earlier review posted there).
    pub outbox: Option<OutboxComment>,
    /// What the run reads besides the PR: the answers to replay, the base branch's files (the
    /// repository's guidance) and the head commit's checks (their failing ones go to the aspects).
    pub inputs: RunInputs<'a>,
    pub full: bool,
    pub trigger_comment: Option<u64>,
    pub trigger_kind: Option<policy::TriggerKind>,
    pub override_note: Option<String>,
    pub ledger: &'a Ledger,
    pub post: Posting<'a>,
    /// The LLM flags (settings overrides, reply marker).
    pub llm: &'a LlmOptions,
    pub format: Format,
    /// A field added to the JSON document (event mode's decision).
    pub extra_json: Option<(&'static str, serde_json::Value)>,
    /// `--quiet`: no progress on stderr even on a terminal.
    pub quiet: bool,
    /// With the post: the findings on diff lines as inline comments of one review
    /// (`review --inline`, `[review] inline` for `event` and `watch`).
    pub inline: bool,
    /// `--post-incomplete`: an incomplete review is posted also over a complete one.
    pub post_incomplete: bool,
}

/// What posting did: the post, or why not (an error fails the command, a note does not).
#[derive(Default)]
struct PostOutcome {
    posted: Option<Posted>,
    error: Option<String>,
    note: Option<String>,
}

/// What a review left, for work done once it was posted (or not) and before it is printed.
pub(crate) struct ReviewReport<'r> {
    pub run: &'r ReviewRun,
    pub agg: &'r crate::review::results::aggregate::Aggregate,
    pub posted: Option<&'r Posted>,
    /// Why it was not posted, when a post was asked for and failed or was refused.
    pub not_posted: Option<&'r str>,
}

/// What that work adds: a field of the JSON document, notes for stderr (after the post's), and
/// a failure that fails the command (exit 1).
#[derive(Debug, Default)]
pub(crate) struct AfterPosted {
    pub json: Option<(&'static str, serde_json::Value)>,
    pub notes: Vec<String>,
    pub error: Option<String>,
}

/// Work done once a review was posted (or not) and before it is printed: Shepherd's own check
/// (`event`, `watch`). `()` does nothing.
pub(crate) trait AfterPost {
    async fn after_post(&mut self, report: ReviewReport<'_>) -> AfterPosted;
}

impl AfterPost for () {
    async fn after_post(&mut self, _: ReviewReport<'_>) -> AfterPosted {
        AfterPosted::default()
    }
}

/// Runs a headless review — prepare, run and conclude (the one flow: saved, composed, its
/// decisions recorded), post, print — and returns what was posted. Shared by `review`, `event` and `watch`.
pub(crate) async fn execute(
    ctx: &Context,
    review: HeadlessReview<'_>,
) -> Result<Option<Posted>, CliError> {
    execute_then(ctx, review, &mut ()).await
}

/// [`execute`], with `after` run once the review was posted (or not), before it is printed.
pub(crate) async fn execute_then(
    ctx: &Context,
    review: HeadlessReview<'_>,
    after: &mut impl AfterPost,
) -> Result<Option<Posted>, CliError> {
    let HeadlessReview {
        snapshot,
        identity,
        outbox,
        inputs,
        full,
        trigger_comment,
        trigger_kind,
        override_note,
        ledger,
        post,
        llm,
        format,
        extra_json,
        quiet,
        inline,
        post_incomplete,
    } = review;
    // The comment a post would replace, read before the outbox goes to the flow.
    let replaced = replaced_review(&post, &snapshot, &identity, outbox.as_ref());
    let mut prepared = flow::prepare(ReviewRequest {
        settings: ctx.review_settings(),
        llm_env: &ctx.llm_env,
        overrides: llm.overrides(),
        snapshot: &snapshot,
        identity: &identity,
        outbox,
        replay: inputs.replay,
        full,
        state: Some(ledger),
        collaborators_are_team: ctx.gates().collaborators_are_team,
    })
    .map_err(|e| match e {
        flow::FlowError::State(why) => CliError::runtime(why),
        e => CliError::usage(e.to_string()),
    })?;
    prepared.read_guidance(inputs.base).await;
    prepared.read_checks(inputs.checks).await;
    if let Some(e) = &prepared.failing.error {
        crate::eprintln_clean!("note: {e}");
    }
    warn_unreadable_metadata(&prepared);

    let run = run_with_progress(&prepared, quiet).await;
    let request = AggregateRequest {
        full,
        reply_marker: llm.reply_marker.clone(),
        trigger_comment,
        trigger_kind,
        override_note,
        ..AggregateRequest::default()
    };
    // Saved, classified, composed and fitted (what is posted always fits GitHub's comment
    // limit; the output keeps the full review), the addressed findings recorded.
    let now = chrono::Utc::now().timestamp();
    let Some(concluded) = prepared.conclude(run, &snapshot, request, now) else {
        return Err(CliError::runtime(
            "review cancelled; nothing was printed or saved (what its calls spent is recorded for the daily budget)",
        ));
    };
    let coords = snapshot.pr.coords();
    // A run file that cannot be saved (a full disk, a broken state dir) does not stop the
    // review from being posted and printed — nothing is lost — but the command fails (exit 1).
    let unsaved = concluded
        .unsaved
        .as_ref()
        .map(|e| format!("the review was printed, but its run was not saved: {e}"));
    let (run, agg, body, fitted) = (
        &concluded.run,
        &concluded.agg,
        &concluded.body,
        &concluded.fitted,
    );
    // A review the budget stopped is partial: never posted as if it were whole.
    let post = match (post, run.context.budget_stop()) {
        (Posting::No, _) => Posting::No,
        // Read from a partial answer, the earlier Shepherd review (what this one builds on and
        // replaces) may be what is missing.
        (Posting::GitHub(_), _) if !snapshot.is_complete() => Posting::Blocked {
            reason: crate::publish::whole_answer(&snapshot, "there is an earlier Shepherd review")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
            fatal: true,
        },
        (_, Some(why)) => Posting::Blocked {
            reason: format!(
                "the budget stopped the review before it was whole ({why}); a partial review is never posted"
            ),
            fatal: false,
        },
        (post, None) => post,
    };
    // An incomplete review never replaces a complete one unless asked (`--post-incomplete`).
    let post = match (post, replaced) {
        (Posting::Outbox | Posting::GitHub(_), Some(earlier))
            if run.is_incomplete() && !post_incomplete =>
        {
            Posting::Blocked {
                reason: format!(
                    "the review is incomplete ({}) and would replace the complete review at {earlier}; --post-incomplete posts it anyway",
                    not_done(run)
                ),
                fatal: false,
            }
        }
        (post, _) => post,
    };

    // Post before printing, so the output can say what happened. Ctrl-C still stops it: the
    // run's handler stays installed for the process, so it is listened to here too.
    let outcome = tokio::select! {
        outcome = post_review(&post, ledger, &coords, &fitted.body) => outcome,
        _ = tokio::signal::ctrl_c() => {
            return Err(CliError::runtime(
                "review cancelled while posting; nothing was printed (the post may have been made: running the review again updates the same comment)",
            ));
        }
    };
    // The findings on their lines, once the summary is posted (never a partial review's).
    let inline_to = match &post {
        Posting::GitHub(store) if inline && outcome.posted.is_some() => {
            Some(super::inline::Where::GitHub(store))
        }
        Posting::Outbox if inline && outcome.posted.is_some() => Some(super::inline::Where::Outbox),
        _ => None,
    };
    let inline_outcome = match inline_to {
        Some(to) => Some(super::inline::post(to, ledger, &snapshot, &identity, run, agg).await),
        None => None,
    };
    let after_posted = after
        .after_post(ReviewReport {
            run,
            agg,
            posted: outcome.posted.as_ref(),
            not_posted: outcome
                .error
                .as_deref()
                .or(outcome.note.as_deref())
                .filter(|_| outcome.posted.is_none()),
        })
        .await;
    let extras = extra_json.into_iter().chain(after_posted.json);
    let text = match format {
        Format::Md => for_reading(body, std::io::stdout().is_terminal()),
        Format::Json => {
            let not_posted = outcome
                .error
                .as_deref()
                .or(outcome.note.as_deref())
                .filter(|_| outcome.posted.is_none());
            let extras = extras
                .chain(not_posted.map(|why| ("notPosted", serde_json::Value::from(one_line(why)))));
            let doc = review_json(run, agg, body, &outcome.posted, fitted, extras)?;
            match &inline_outcome {
                Some(i) => super::inline::with_json(&doc, i)?,
                None => doc,
            }
        }
    };
    super::emit_in(format, &text)?;
    report_post(&outcome, fitted);
    for note in &after_posted.notes {
        crate::eprintln_clean!("{note}");
    }
    let inline_error = inline_outcome.as_ref().and_then(super::inline::report);
    // What became of the findings: addressed since the last review (recorded as it was
    // concluded), posted.
    let posted_unrecorded = outcome
        .posted
        .as_ref()
        .and_then(|_| prepared.record_posted(&concluded, now));
    let unrecorded = concluded
        .unrecorded
        .clone()
        .or(posted_unrecorded)
        .map(|e| format!("what became of the findings was not recorded: {e}"));
    // A failed post or save is a runtime failure (exit 1), which outranks an incomplete review
    // (exit 3); every one of them is said.
    let failures: Vec<String> = outcome
        .error
        .into_iter()
        .chain(unsaved)
        .chain(inline_error)
        .chain(after_posted.error)
        .chain(run.context.unrecorded.clone())
        .chain(unrecorded)
        .collect();
    if failures.is_empty() {
        return incomplete_error(run).map_or(Ok(outcome.posted), Err);
    }
    let also = incomplete_error(run).map(|e| e.message().to_owned());
    Err(CliError::runtime(
        failures
            .into_iter()
            .chain(also)
            .collect::<Vec<_>>()
            .join("\nerror: "),
    ))
}

/// Earlier reviews whose metadata cannot be read: their findings count as new.
fn warn_unreadable_metadata(prepared: &PreparedReview) {
    for r in prepared.prior.own.iter().filter(|r| r.meta_error.is_some()) {
        crate::eprintln_clean!(
            "warning: the earlier review {} has unreadable metadata; its findings count as new",
            r.url
        );
    }
}

/// Runs the aspects with progress on stderr (when it is a terminal and not `quiet`); Ctrl-C
/// cancels the run.
async fn run_with_progress(prepared: &PreparedReview, quiet: bool) -> ReviewRun {
    let (tx, rx) = mpsc::unbounded_channel();
    let progress = tokio::spawn(show_progress(rx, crate::progress::Progress::stderr(quiet)));
    let cancel = CancellationToken::new();
    let on_ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let run = prepared.run(tx, cancel).await;
    on_ctrl_c.abort();
    let _ = progress.await;
    run
}

/// Posts the composed body where the review goes (the outbox or the PR), or says why not.
async fn post_review(
    post: &Posting<'_>,
    ledger: &Ledger,
    coords: &PrCoords,
    body: &str,
) -> PostOutcome {
    let result = match post {
        Posting::No => return PostOutcome::default(),
        Posting::Blocked { reason, fatal } => {
            let msg = format!("not posted: {reason}");
            return if *fatal {
                PostOutcome {
                    error: Some(msg),
                    ..PostOutcome::default()
                }
            } else {
                PostOutcome {
                    note: Some(msg),
                    ..PostOutcome::default()
                }
            };
        }
        Posting::Outbox => {
            let outbox = Outbox {
                ledger,
                pr: coords.clone(),
                now: chrono::Utc::now().timestamp(),
            };
            upsert(&outbox, body, 3).await
        }
        Posting::GitHub(store) => upsert(store, body, 3).await,
    };
    match result {
        Ok(p) => PostOutcome {
            posted: Some(p),
            ..PostOutcome::default()
        },
        Err(e) => PostOutcome {
            error: Some(format!("not posted: {e}")),
            ..PostOutcome::default()
        },
    }
}

/// The JSON document of a review (docs/json-output.md), with what was posted.
fn review_json(
    run: &ReviewRun,
    agg: &crate::review::results::aggregate::Aggregate,
    body: &str,
    posted: &Option<Posted>,
    fitted: &condense::Fitted,
    extra_json: impl IntoIterator<Item = (&'static str, serde_json::Value)>,
) -> Result<String, CliError> {
    let mut v = compose::json(run, agg, body);
    v["posted"] = serde_json::to_value(posted).unwrap_or_default();
    if posted.is_some() {
        v["posted"]["condensed"] = fitted.condensed.into();
        v["posted"]["characters"] = fitted.chars.into();
    }
    for (k, extra) in extra_json {
        v[k] = extra;
    }
    let mut s = serde_json::to_string_pretty(&v)
        .map_err(|e| CliError::runtime(format!("cannot encode the review: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// What was posted (and whether it was condensed), or the note on why not, on stderr (after the
/// review was printed).
fn report_post(outcome: &PostOutcome, fitted: &condense::Fitted) {
    if let Some(p) = &outcome.posted {
        crate::eprintln_clean!(
            "posted: {} comment {} ({}){}",
            match p.action {
                PostAction::Created => "created",
                PostAction::Updated => "updated",
            },
            p.comment_id,
            p.location,
            condensed_note(fitted)
        );
    }
    if let Some(n) = &outcome.note {
        crate::eprintln_clean!("{n}");
    }
}

/// Where a post would go when it replaces a complete review: the comment's URL (live: the newest
/// own Shepherd comment on the PR, the one an upsert updates), or the outbox offline. `None`
/// when there is none, or when the review there is itself incomplete (posting over it is what
/// happened before: an incomplete first review is posted, and so is one over an incomplete one).
fn replaced_review(
    post: &Posting<'_>,
    snapshot: &Snapshot,
    identity: &str,
    outbox: Option<&OutboxComment>,
) -> Option<String> {
    let complete = |body: &str| is_review_body(body) && !is_incomplete(body);
    match post {
        Posting::Outbox => outbox
            .filter(|c| complete(&c.body))
            .map(|c| format!("{} (the outbox)", c.comment_id)),
        Posting::GitHub(_) => snapshot
            .items
            .iter()
            .filter_map(|i| match i {
                crate::pr::Item::Comment(c)
                    if is_review_body(&c.body) && c.author.login.eq_ignore_ascii_case(identity) =>
                {
                    Some(c)
                }
                _ => None,
            })
            .max_by_key(|c| c.created_at)
            .filter(|c| complete(&c.body))
            .map(|c| one_line(&c.url)),
        Posting::No | Posting::Blocked { .. } => None,
    }
}

/// The aspects that failed or timed out, said (`security failed, perf timed out`).
fn not_done(run: &ReviewRun) -> String {
    run.aspects
        .iter()
        .filter(|a| a.is_incomplete())
        .map(|a| format!("{} {}", a.aspect, a.state.as_str().replace('_', " ")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Exit 3 when an aspect failed or timed out (the review was printed all the same).
fn incomplete_error(run: &ReviewRun) -> Option<CliError> {
    if !run.is_incomplete() {
        return None;
    }
    let which = not_done(run);
    let budget = run
        .context
        .budget_stop()
        .map(|why| format!(" — stopped by the budget: {why}; nothing was posted"))
        .unwrap_or_default();
    Some(CliError::incomplete(format!(
        "the review is incomplete: {which}{budget}"
    )))
}

/// Prints each aspect's final state as it comes, `[n/6] aspect: …`, when `progress` is enabled
/// (stderr a terminal, no `--quiet`); otherwise only drains the channel.
async fn show_progress(
    mut rx: mpsc::UnboundedReceiver<ReviewEvent>,
    progress: crate::progress::Progress,
) {
    let aspects = progress.counter(Some(crate::review::aspect::Aspect::ALL.len()));
    while let Some(ev) = rx.recv().await {
        if !progress.is_enabled() {
            continue;
        }
        let line = match ev {
            ReviewEvent::Queued { .. }
            | ReviewEvent::Running { .. }
            | ReviewEvent::Streaming { .. } => continue,
            ReviewEvent::Done {
                aspect,
                findings,
                elapsed,
            } => format!(
                "{aspect}: done, {} in {:.1} s",
                crate::output::plural::count(findings, "finding"),
                elapsed.as_secs_f64()
            ),
            ReviewEvent::Failed { aspect, why } => format!("{aspect}: failed: {}", one_line(&why)),
            ReviewEvent::TimedOut { aspect, after } => {
                format!("{aspect}: timed out after {:.1} s", after.as_secs_f64())
            }
            ReviewEvent::Skipped { aspect, reason } => {
                format!("{aspect}: skipped: {}", one_line(&reason))
            }
            ReviewEvent::Cancelled { aspect } => format!("{aspect}: cancelled"),
            ReviewEvent::Note { text } => {
                aspects.note(&format!("note: {}", one_line(&text)));
                continue;
            }
            ReviewEvent::Finished(run) => {
                aspects.note(&format!(
                    "review finished in {:.1} s",
                    run.elapsed_ms as f64 / 1000.0
                ));
                continue;
            }
        };
        aspects.tick(&line);
    }
}

/// How a condensed post differs from the full review (empty when nothing was left out).
fn condensed_note(fitted: &condense::Fitted) -> String {
    if !fitted.condensed {
        return String::new();
    }
    format!(
        "; condensed from {} to {} to fit GitHub's limit (the full review is in the run file and in --format md|json)",
        condense::thousands(fitted.full_chars),
        condense::BodySize::of(&fitted.body)
    )
}

/// The review's Markdown as `review` prints it: whole (with its hidden metadata, what `--post`
/// and a file or pipe keep) unless `to_terminal`, where the metadata — kilobytes of one line for
/// the next run to read — is left out of what a person reads.
fn for_reading(body: &str, to_terminal: bool) -> String {
    if to_terminal {
        format!(
            "{}\n",
            crate::review::results::outcome::visible(body).trim_end()
        )
    } else {
        body.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_reads_the_review_without_its_hidden_metadata_and_a_pipe_keeps_it() {
        let body = "## PR Shepherd Review\n\nOne finding.\n\n<!-- pr-shepherd:meta {\"v\":1} -->\n";
        assert_eq!(for_reading(body, false), body);
        let shown = for_reading(body, true);
        assert_eq!(shown, "## PR Shepherd Review\n\nOne finding.\n");
        assert!(!shown.contains("<!--"));
    }
}
