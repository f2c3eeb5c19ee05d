//! The scheduler: one tokio task per aspect, one call per chunk of its diff, a
//! concurrency bound on calls, per-aspect and overall timeouts, cancellation, and progress as
//! [`ReviewEvent`]s over one channel. What it produces, the saved run, is the model in `run`.
//!
//! Warm-first fan-out: for backends with a prompt cache, the first call of a run goes alone; the
//! others start as soon as its answer begins — a streamed answer's first event, not its
//! headers (when the cache entry it wrote becomes readable).
//! The same holds per chunk: the first call for a chunk's diff warms it for the other aspects.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::calls::{Fit, Slots, Spent};
use super::extras::RunExtras;
use crate::pr::PrMeta;
use crate::review::aspect::Aspect;
use crate::review::findings::parse_reply;
use crate::review::inputs::chunk::Overflow;
use crate::review::inputs::prompt::{DiffPlan, Prompt, Prompts, RunPrompts};
use crate::review::llm::{CallEvents, Completion, LlmClient, LlmError, TimeLimit, TokenUsage};
use crate::review::results::verify::{self, VerifySetup};
use crate::review::run::{
    AspectOutcome, AspectState, ConcurrencyLowered, HeldBack, ReviewRun, RunFacts, Unconfirmed,
    VerificationReport, new_run_id,
};
use crate::review::settings::ReviewSettings;

/// Progress of a run, one value per state change of an aspect (plus `Running` ticks about once a
/// second while a call is in flight), ending with exactly one `Finished`.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewEvent {
    /// Waiting for a concurrency slot.
    Queued { aspect: Aspect },
    /// The call is in flight; sent when it starts and then about once a second.
    Running { aspect: Aspect, elapsed: Duration },
    /// Streamed answer text arrived: about `tokens` tokens so far (characters / 4, every chunk of
    /// the aspect together). Sent at the first text and then every 32 tokens or so.
    Streaming { aspect: Aspect, tokens: u64 },
    /// The aspect finished; `findings` were accepted (0 = looked and found nothing).
    Done {
        aspect: Aspect,
        findings: usize,
        elapsed: Duration,
    },
    /// The call or its reply failed; `why` is safe to show (sanitized, no secrets).
    Failed { aspect: Aspect, why: String },
    /// The aspect's own timeout or the run's overall timeout struck.
    TimedOut { aspect: Aspect, after: Duration },
    /// A skip rule matched; the aspect did not run.
    Skipped { aspect: Aspect, reason: String },
    /// The run was cancelled before the aspect finished.
    Cancelled { aspect: Aspect },
    /// A remark on the run as a whole, safe to show: the concurrency was lowered because the
    /// server kept breaking concurrent streams, a server memory in the state dir was ignored, ….
    /// Also kept in the run (`ReviewRun::notes`).
    Note { text: String },
    /// Every aspect has a final state; the whole run.
    Finished(Box<ReviewRun>),
}

/// Runs the review of `pr` over every aspect, reporting progress on `events`.
///
/// Returns when every aspect has a final state: done, failed, timed out (its own timeout or the
/// overall one), skipped, or cancelled (when `cancel` fires). Nothing outlives the call: in-flight
/// HTTP requests are dropped, `command` children are killed, and every task has been joined. The
/// last event sent is `Finished` with the same run that is returned.
pub async fn run_review(
    pr: Arc<PrMeta>,
    settings: &ReviewSettings,
    client: Arc<LlmClient>,
    prompts: Arc<Prompts>,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
) -> ReviewRun {
    run_review_with_prior(pr, settings, client, prompts, Vec::new(), events, cancel).await
}

/// [`run_review`] for an incremental review: each aspect's prompt carries its `prior` findings.
pub async fn run_review_with_prior(
    pr: Arc<PrMeta>,
    settings: &ReviewSettings,
    client: Arc<LlmClient>,
    prompts: Arc<Prompts>,
    prior: Vec<crate::review::inputs::prior::MetaFinding>,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
) -> ReviewRun {
    let extras = Arc::new(RunExtras::default());
    run_review_with(pr, settings, client, prompts, prior, extras, events, cancel).await
}

/// [`run_review_with_prior`] with the run's extras: its prompts carry their context, its
/// findings are screened (dismissals, other reviewers) and verified, and every call is checked
/// against the budget.
#[allow(clippy::too_many_arguments)] // the run's parts, each its own kind
pub async fn run_review_with(
    pr: Arc<PrMeta>,
    settings: &ReviewSettings,
    client: Arc<LlmClient>,
    prompts: Arc<Prompts>,
    prior: Vec<crate::review::inputs::prior::MetaFinding>,
    extras: Arc<RunExtras>,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
) -> ReviewRun {
    let started_at = Utc::now();
    let start = Instant::now();
    let overall_deadline = tokio::time::Instant::now() + settings.overall_timeout();
    let aspect_timeout = settings.aspect_timeout();
    // Calls, not aspects, take the slots: a chunked review has more calls than aspects, and
    // runs as many at once as the setting says. Never more than the setting's maximum, so an
    // unchecked setting cannot reach the semaphore's limit.
    let concurrency = settings
        .concurrency
        .clamp(1, crate::review::settings::MAX_CONCURRENCY);
    let shared_state = Arc::new(RunState {
        slots: Slots::new(concurrency),
        fit: Fit::default(),
        notes: std::sync::Mutex::new(Vec::new()),
        lowered: std::sync::Mutex::new(None),
        events: events.clone(),
    });
    for note in client.take_notes() {
        shared_state.note(note);
    }
    let diff_files: Arc<HashSet<String>> =
        Arc::new(pr.files.iter().map(|f| f.path.clone()).collect());
    let shared = Arc::new(RunPrompts::with_context(
        &pr,
        &prompts,
        &prior,
        &extras.context,
    ));
    let prior = Arc::new(prior);
    let warmup = client.caches_prefix().then(|| Arc::new(Warmup::default()));
    let mut plans: HashMap<usize, Arc<DiffPlan>> = HashMap::new();

    let mut outcomes: Vec<AspectOutcome> = Vec::new();
    let mut set = JoinSet::new();
    let mut ids = HashMap::new();
    let skips = match skip_decisions(&pr, settings, &cancel, overall_deadline).await {
        Ok(skips) => skips,
        Err(stopped) => {
            // Cancelled or out of time while matching skip rules: no aspect started.
            let elapsed = start.elapsed();
            for aspect in Aspect::ALL {
                outcomes.push(stopped_before_start(aspect, stopped, elapsed, &events));
            }
            Vec::new()
        }
    };
    for (aspect, skip) in skips {
        if let Some(reason) = skip {
            let _ = events.send(ReviewEvent::Skipped {
                aspect,
                reason: reason.clone(),
            });
            outcomes.push(AspectOutcome::new(
                aspect,
                AspectState::Skipped,
                Some(reason),
            ));
            continue;
        }
        let _ = events.send(ReviewEvent::Queued { aspect });
        let budget = settings.diff_budget(aspect);
        let plan = plans
            .entry(budget)
            .or_insert_with(|| Arc::new(shared.plan(budget, settings.max_calls_per_aspect)))
            .clone();
        let job = Job {
            aspect,
            client: client.clone(),
            shared: shared.clone(),
            plan,
            prior: prior.clone(),
            diff_files: diff_files.clone(),
            events: events.clone(),
            cancel: cancel.clone(),
            run: shared_state.clone(),
            warmup: warmup.clone(),
            aspect_timeout,
            overall_timeout: settings.overall_timeout(),
            overall_deadline,
            max_calls: settings.max_calls_per_aspect,
            output_tokens: u64::from(settings.max_output_tokens),
            extras: extras.clone(),
        };
        let handle = set.spawn(job.run());
        ids.insert(handle.id(), aspect);
    }
    while let Some(joined) = set.join_next_with_id().await {
        match joined {
            Ok((_, outcome)) => outcomes.push(outcome),
            Err(e) => {
                let aspect = ids.get(&e.id()).copied();
                if let Some(aspect) = aspect {
                    let why = "internal error: the aspect's task stopped unexpectedly".to_owned();
                    let _ = events.send(ReviewEvent::Failed {
                        aspect,
                        why: why.clone(),
                    });
                    outcomes.push(AspectOutcome::new(aspect, AspectState::Failed, Some(why)));
                }
            }
        }
    }
    outcomes.sort_by_key(|o| o.aspect);
    for note in client.take_notes() {
        shared_state.note(note);
    }
    let notes = std::mem::take(&mut *lock(&shared_state.notes));
    let concurrency_lowered = lock(&shared_state.lowered).take();
    let run = ReviewRun {
        run_id: extras
            .run_id
            .clone()
            .unwrap_or_else(|| new_run_id(started_at)),
        pr: format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
        head_sha: pr.head_sha.clone(),
        backend: client.kind().as_str().to_owned(),
        model: client.model(),
        started_at,
        elapsed_ms: millis(start.elapsed()),
        cancelled: cancel.is_cancelled(),
        aspects: outcomes,
        prices: settings.prices,
        notes,
        concurrency_lowered,
        context: RunFacts {
            budget: extras.budget.report(),
            ..extras.record.clone()
        },
    };
    let _ = events.send(ReviewEvent::Finished(Box::new(run.clone())));
    run
}

/// Every finding of a verifier call held back for the same reason.
fn failed_all(
    findings: &[&crate::review::Finding],
    why: Unconfirmed,
    threshold: u8,
    error: Option<String>,
) -> Vec<verify::Judgement> {
    findings
        .iter()
        .map(|_| verify::Judgement::Held(verify::not_judged(why, threshold, error.clone())))
        .collect()
}

/// Two remarks on one aspect as one note (`; `-separated).
fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What every aspect of a run shares: the concurrency slots, the diff budget that fits the
/// server's context, and the run's remarks.
struct RunState {
    slots: Slots,
    fit: Fit,
    notes: std::sync::Mutex<Vec<String>>,
    lowered: std::sync::Mutex<Option<ConcurrencyLowered>>,
    events: mpsc::UnboundedSender<ReviewEvent>,
}

impl RunState {
    /// A remark on the run: said now (progress) and kept in the run.
    fn note(&self, text: String) {
        let text = crate::sanitize::one_line(&text);
        let _ = self.events.send(ReviewEvent::Note { text: text.clone() });
        lock(&self.notes).push(text);
    }

    /// The backend sends at most `to` requests at once from now on: so do the slots, and the run
    /// says so (once per lowering).
    fn lower(&self, to: usize, why: &str) {
        let Some(from) = self.slots.lower(to) else {
            return;
        };
        let to = self.slots.limit();
        let reason = crate::sanitize::one_line(why);
        self.note(format!(
            "concurrency lowered from {from} to {to} for the rest of the run: {reason}"
        ));
        let mut lowered = lock(&self.lowered);
        let from = lowered.as_ref().map_or(from, |l| l.from);
        *lowered = Some(ConcurrencyLowered { from, to, reason });
    }
}

/// Why matching the skip rules stopped before it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    Cancelled,
    TimedOut,
}

/// Each aspect's skip reason (`None`: it runs), decided off the async threads, with the run's
/// cancel and overall deadline checked between two matches: whatever the rules and however many
/// files, neither Ctrl-C nor `--timeout` waits for the matching.
async fn skip_decisions(
    pr: &PrMeta,
    settings: &ReviewSettings,
    cancel: &CancellationToken,
    deadline: tokio::time::Instant,
) -> Result<Vec<(Aspect, Option<String>)>, Stopped> {
    let rules: Vec<(Aspect, Option<crate::review::settings::SkipRule>)> = Aspect::ALL
        .iter()
        .map(|a| (*a, settings.skip_rule(*a).cloned()))
        .collect();
    if rules.iter().all(|(_, r)| r.is_none()) {
        return Ok(rules.into_iter().map(|(a, _)| (a, None)).collect());
    }
    let paths: Vec<String> = pr.files.iter().map(|f| f.path.clone()).collect();
    let stop_cancel = cancel.clone();
    let std_deadline = deadline.into_std();
    let decide = tokio::task::spawn_blocking(move || {
        let stop = || stop_cancel.is_cancelled() || Instant::now() >= std_deadline;
        rules
            .into_iter()
            .map(|(aspect, rule)| match rule {
                None => Some((aspect, None)),
                Some(r) => r
                    .skip_reason_until(paths.iter().map(String::as_str), &stop)
                    .map(|reason| (aspect, reason)),
            })
            .collect::<Option<Vec<_>>>()
    });
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(Stopped::Cancelled),
        () = tokio::time::sleep_until(deadline) => Err(Stopped::TimedOut),
        done = decide => match done {
            Ok(Some(d)) => Ok(d),
            Ok(None) | Err(_) if cancel.is_cancelled() => Err(Stopped::Cancelled),
            Ok(None) | Err(_) => Err(Stopped::TimedOut),
        },
    }
}

/// The outcome of an aspect that never started because the run stopped first.
fn stopped_before_start(
    aspect: Aspect,
    why: Stopped,
    elapsed: Duration,
    events: &mpsc::UnboundedSender<ReviewEvent>,
) -> AspectOutcome {
    match why {
        Stopped::Cancelled => {
            let _ = events.send(ReviewEvent::Cancelled { aspect });
            AspectOutcome::new(
                aspect,
                AspectState::Cancelled,
                Some("the run was cancelled".into()),
            )
        }
        Stopped::TimedOut => {
            let _ = events.send(ReviewEvent::TimedOut {
                aspect,
                after: elapsed,
            });
            AspectOutcome::new(
                aspect,
                AspectState::TimedOut,
                Some("the overall timeout struck while the skip rules were matched".into()),
            )
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The longest a call waits for another call to warm the prefix they share.
const WARM_WAIT_MAX: Duration = Duration::from_secs(15);

/// Who warms which cached prefix. The first call to claim a prefix goes; later calls with the
/// same prefix wait until its answer begins (or it ends, however it ends).
#[derive(Default)]
struct Warmup {
    gates: std::sync::Mutex<HashMap<u64, watch::Receiver<bool>>>,
}

enum Turn {
    Warm(watch::Sender<bool>),
    Wait(watch::Receiver<bool>),
}

impl Warmup {
    fn turn(&self, key: u64) -> Turn {
        let mut gates = self
            .gates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(rx) = gates.get(&key) {
            return Turn::Wait(rx.clone());
        }
        let (tx, rx) = watch::channel(false);
        gates.insert(key, rx);
        Turn::Warm(tx)
    }
}

/// The cached prefixes of a call, shortest first: the run's (playbook + PR data), then the
/// chunk's (… + this diff).
fn warm_keys(p: &Prompt) -> [u64; 2] {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    p.system.hash(&mut h);
    p.data.hash(&mut h);
    let run = h.finish();
    p.diff_text.hash(&mut h);
    [run, h.finish()]
}

/// One call's reports: opens the gates it warms when its answer begins, counts streamed text
/// for the aspect's progress, keeps what each answer cost and passes a lowered concurrency on to
/// the run.
struct CallProgress<'a> {
    aspect: Aspect,
    gates: Vec<watch::Sender<bool>>,
    received: &'a AtomicUsize,
    events: &'a mpsc::UnboundedSender<ReviewEvent>,
    spent: &'a std::sync::Mutex<Spent>,
    run: &'a RunState,
}

impl CallEvents for CallProgress<'_> {
    fn began(&self) {
        lock(self.spent).began();
        for g in &self.gates {
            g.send_replace(true);
        }
    }

    fn answered(&self, usage: &TokenUsage) {
        lock(self.spent).answered(usage);
    }

    fn lowered_concurrency(&self, to: usize, why: &str) {
        self.run.lower(to, why);
    }

    fn received(&self, chars: usize) {
        lock(self.spent).received(chars);
        let before = self.received.fetch_add(chars, Ordering::Relaxed);
        let (old, new) = (before / 4, (before + chars) / 4);
        if before == 0 || old / 32 != new / 32 {
            let _ = self.events.send(ReviewEvent::Streaming {
                aspect: self.aspect,
                tokens: new as u64,
            });
        }
    }
}

struct Job {
    aspect: Aspect,
    client: Arc<LlmClient>,
    shared: Arc<RunPrompts>,
    plan: Arc<DiffPlan>,
    prior: Arc<Vec<crate::review::inputs::prior::MetaFinding>>,
    diff_files: Arc<HashSet<String>>,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
    run: Arc<RunState>,
    warmup: Option<Arc<Warmup>>,
    aspect_timeout: Duration,
    /// The run's overall limit, and when it strikes.
    overall_timeout: Duration,
    overall_deadline: tokio::time::Instant,
    /// `max_calls_per_aspect`, for a plan made again with a smaller budget.
    max_calls: Option<usize>,
    /// The answer's token limit (room is kept for it when a budget is fitted to the context).
    output_tokens: u64,
    extras: Arc<RunExtras>,
}

enum Ended {
    Answer(Result<Completion, LlmError>),
    Cancelled,
    /// The limit that struck, before or during the call (the call was dropped then).
    TimedOut(TimeLimit),
    /// Not sent: its prompt is larger than the server's context takes (a smaller diff budget
    /// was learnt meanwhile); the aspect plans its diff again.
    Refit,
    /// Not sent: no diff budget fits the server's context (why).
    NoFit(String),
    /// Not made: it would have exceeded the budget (why).
    Budget(String),
}

/// What one aspect's calls share while they run.
struct AspectCalls {
    /// When the aspect's first call got a slot (its timeout counts from there).
    started: OnceLock<Instant>,
    received: AtomicUsize,
}

/// How often an aspect plans its diff again to fit the server's context.
const MAX_REFITS: usize = 3;

impl Job {
    async fn run(self) -> AspectOutcome {
        let calls = AspectCalls {
            started: OnceLock::new(),
            received: AtomicUsize::new(0),
        };
        let mut plan = self.plan.clone();
        // What calls of plans given up (to fit the server's context) made and spent.
        let mut earlier = Spent::default();
        let mut earlier_calls = 0u32;
        let mut earlier_unreported = 0u32;
        let mut refitted: Option<String> = None;
        let mut round = 0;
        let (ended, prompts) = loop {
            if let Some(b) = self.run.fit.budget()
                && b < plan.report.budget_chars
            {
                plan = Arc::new(self.shared.plan(b, self.max_calls));
                refitted = Some(format!(
                    "the prompt did not fit the server's context: the diff was planned again with a budget of {b} characters per call ({} call{})",
                    plan.chunks.len().max(1),
                    if plan.chunks.len() > 1 { "s" } else { "" }
                ));
            }
            let prompts = self.shared.calls(self.aspect, &plan, &self.prior);
            // Cancelled with the run, or when one call fails (the others are no use then).
            let stop = self.cancel.child_token();
            let ended = {
                let all =
                    futures::future::join_all(prompts.iter().map(|p| self.call(p, &calls, &stop)));
                tokio::pin!(all);
                let mut ticker = tokio::time::interval(Duration::from_secs(1));
                ticker.tick().await;
                loop {
                    tokio::select! {
                        r = &mut all => break r,
                        _ = ticker.tick() => {
                            if let Some(s) = calls.started.get() {
                                let _ = self.events.send(ReviewEvent::Running { aspect: self.aspect, elapsed: s.elapsed() });
                            }
                        }
                    }
                }
            };
            let overflowed = ended.iter().any(|(e, _)| {
                matches!(
                    e,
                    Ended::Refit | Ended::Answer(Err(LlmError::ContextOverflow { .. }))
                )
            });
            let smaller = self
                .run
                .fit
                .budget()
                .is_some_and(|b| b < plan.report.budget_chars);
            if overflowed && smaller && round < MAX_REFITS && !self.cancel.is_cancelled() {
                round += 1;
                for (e, spent) in &ended {
                    if matches!(e, Ended::Answer(_)) {
                        earlier_calls += 1;
                    }
                    earlier.tokens.add(&spent.tokens);
                    earlier_unreported += u32::from(spent.unreported > 0);
                }
                continue;
            }
            break (ended, prompts);
        };
        let elapsed = calls.started.get().map_or(Duration::ZERO, Instant::elapsed);
        let mut out = self.conclude(ended, &plan, elapsed);
        out.tokens.add(&earlier.tokens);
        out.calls += earlier_calls;
        out.calls_without_usage += earlier_unreported;
        if let Some(r) = refitted {
            out.note = join_notes(Some(r), out.note.take());
        }
        if out.state == AspectState::Done {
            self.extras.screening.apply(&mut out);
            if let Some(setup) = &self.extras.verify {
                self.verify(&mut out, &prompts, &calls, setup).await;
            }
        }
        tracing::debug!(
            aspect = self.aspect.as_str(),
            backend = self.client.kind().as_str(),
            state = out.state.as_str(),
            ms = out.elapsed_ms,
            calls = out.calls,
            input_tokens = out.tokens.input,
            output_tokens = out.tokens.output,
            findings = out.findings.len(),
            error = out.error.as_deref().unwrap_or(""),
            "llm call"
        );
        out
    }

    /// One chunk's call: wait for the prefixes it shares to be warm, then for a slot, then ask.
    /// Returns how it ended and what its answers cost (also when it failed or timed out).
    async fn call(
        &self,
        prompt: &Prompt,
        calls: &AspectCalls,
        stop: &CancellationToken,
    ) -> (Ended, Spent) {
        let spent = std::sync::Mutex::new(Spent::default());
        let ended = self.call_inner(prompt, calls, stop, &spent).await;
        if !matches!(ended, Ended::Answer(Ok(_)) | Ended::Cancelled) {
            stop.cancel();
        }
        let spent = *lock(&spent);
        (ended, spent)
    }

    async fn call_inner(
        &self,
        prompt: &Prompt,
        calls: &AspectCalls,
        stop: &CancellationToken,
        spent: &std::sync::Mutex<Spent>,
    ) -> Ended {
        let overall = TimeLimit::Overall(self.overall_timeout);
        let mut gates = Vec::new();
        if let Some(w) = &self.warmup {
            for key in warm_keys(prompt) {
                match w.turn(key) {
                    Turn::Warm(tx) => gates.push(tx),
                    Turn::Wait(mut rx) => {
                        let warm_by = tokio::time::Instant::now() + WARM_WAIT_MAX;
                        tokio::select! {
                            biased;
                            () = stop.cancelled() => return Ended::Cancelled,
                            () = tokio::time::sleep_until(self.overall_deadline) => return Ended::TimedOut(overall),
                            // Err: the warming call ended without an answer; go anyway.
                            _ = rx.wait_for(|open| *open) => {}
                            // A warming call stuck before its answer begins holds no one long.
                            () = tokio::time::sleep_until(warm_by) => {}
                        }
                    }
                }
            }
        }
        let slot = tokio::select! {
            biased;
            () = stop.cancelled() => return Ended::Cancelled,
            () = tokio::time::sleep_until(self.overall_deadline) => return Ended::TimedOut(overall),
            s = self.run.slots.acquire() => s,
        };
        let Some(_slot) = slot else {
            return Ended::TimedOut(overall);
        };
        // Another call found the server's context too small for prompts like this one.
        if let Some(why) = self.run.fit.impossible() {
            return Ended::NoFit(why);
        }
        if self
            .run
            .fit
            .budget()
            .is_some_and(|b| b < prompt.diff.budget_chars)
        {
            return Ended::Refit;
        }
        let mut first = false;
        let started = *calls.started.get_or_init(|| {
            first = true;
            Instant::now()
        });
        if first {
            let _ = self.events.send(ReviewEvent::Running {
                aspect: self.aspect,
                elapsed: Duration::ZERO,
            });
        }
        let deadline = (tokio::time::Instant::from_std(started) + self.aspect_timeout)
            .min(self.overall_deadline);
        let which = if deadline == self.overall_deadline {
            overall
        } else {
            TimeLimit::Aspect(self.aspect_timeout)
        };
        let progress = CallProgress {
            aspect: self.aspect,
            gates,
            received: &calls.received,
            events: &self.events,
            spent,
            run: &self.run,
        };
        // The budget is checked before the call, at the call's estimated size (after the checks
        // above: a call not sent reserves nothing).
        let chars =
            prompt.system.len() + prompt.data.len() + prompt.diff_text.len() + prompt.task.len();
        // With the state dir the reservation is read and written there (under the repository's
        // lock), off the async threads.
        let budget = self.extras.budget.clone();
        let aspect = self.aspect.as_str();
        let place = match tokio::task::spawn_blocking(move || budget.reserve(aspect, chars)).await {
            Ok(Ok(p)) => p,
            Ok(Err(why)) => return Ended::Budget(why),
            Err(e) => return Ended::Budget(format!("the budget could not be checked: {e}")),
        };
        let ended = tokio::select! {
            biased;
            () = stop.cancelled() => Ended::Cancelled,
            () = tokio::time::sleep_until(deadline) => Ended::TimedOut(which),
            r = self.client.complete_observed(prompt, &progress) => Ended::Answer(r),
        };
        // Learnt before the gates this call warms open: the calls waiting on them then plan
        // their diff with a budget that fits instead of overflowing too.
        if let Ended::Answer(Err(LlmError::ContextOverflow {
            n_ctx,
            prompt_tokens,
            ..
        })) = &ended
        {
            self.run.fit.learn(
                &Overflow {
                    n_ctx: *n_ctx,
                    prompt_tokens: *prompt_tokens,
                    prompt_chars: prompt.system.chars().count() + prompt.user().chars().count(),
                    diff_chars: prompt.diff_text.chars().count(),
                    output_tokens: self.output_tokens,
                },
                prompt.diff.budget_chars,
            );
        }
        drop(progress);
        // What the call's answers spent (every answer, also of a call that failed later), and the
        // output of answers that broke off, replaces its estimate; with nothing read the
        // estimate stays.
        // Settled also when the call was cut, timed out or cancelled: what it spent is written
        // as it ends, not only with the run.
        let used = *lock(spent);
        let budget = self.extras.budget.clone();
        let settled = tokio::task::spawn_blocking(move || {
            budget.settle(place, used.settled().as_ref());
        })
        .await;
        if let Err(e) = settled {
            tracing::debug!(error = %e, "a call's spend was not settled");
        }
        ended
    }

    /// The verifier's calls for the aspect's findings (see `crate::review::results::verify`): the
    /// confirmed stay, the rest are held back with why. Its calls and tokens count in the aspect's (and in the
    /// budget: each goes through `call_inner`).
    async fn verify(
        &self,
        out: &mut AspectOutcome,
        chunks: &[Prompt],
        calls: &AspectCalls,
        setup: &VerifySetup,
    ) {
        if out.findings.is_empty() {
            return;
        }
        let findings = std::mem::take(&mut out.findings);
        let mut report = VerificationReport {
            threshold: setup.threshold,
            ..VerificationReport::default()
        };
        let (plan, unshown) = verify::plan(&findings, chunks);
        let mut judged: Vec<Option<verify::Judgement>> = vec![None; findings.len()];
        for i in unshown {
            judged[i] = Some(verify::Judgement::Held(verify::not_judged(
                Unconfirmed::NoEvidence,
                setup.threshold,
                None,
            )));
        }
        // Cancelled with the run only: one verifier call failing leaves the others to go on.
        let stop = self.cancel.child_token();
        for call in &plan {
            let spent = std::sync::Mutex::new(Spent::default());
            let ended = match &setup.recorded {
                Some(rec) => {
                    match verify::recorded(rec, self.aspect, call.prompt.chunk, usize::MAX) {
                        Some(a) => {
                            let tokens = TokenUsage {
                                input: a.input_tokens,
                                output: a.output_tokens,
                                ..Default::default()
                            };
                            lock(&spent).answered(&tokens);
                            self.extras
                                .budget
                                .record_answered(self.aspect.as_str(), &tokens);
                            Ended::Answer(Ok(Completion {
                                text: a.reply.clone(),
                                tokens,
                                ..Completion::default()
                            }))
                        }
                        None => Ended::Answer(Err(LlmError::Replay(format!(
                            "the fixture has no recorded verifier answer (`{}`)",
                            verify::recording_name(self.aspect)
                        )))),
                    }
                }
                None => self.call_inner(&call.prompt, calls, &stop, &spent).await,
            };
            // Every answer's usage counts, whatever became of the call.
            let spent = *lock(&spent);
            report.tokens.add(&spent.tokens);
            out.tokens.add(&spent.tokens);
            out.calls_without_usage += u32::from(spent.unreported > 0);
            let mine: Vec<&crate::review::Finding> =
                call.findings.iter().map(|i| &findings[*i]).collect();
            let failed = |report: &mut VerificationReport, why: String| {
                report.error.get_or_insert(why.clone());
                failed_all(&mine, Unconfirmed::Failed, setup.threshold, Some(why))
            };
            let verdicts: Vec<verify::Judgement> = match ended {
                Ended::Answer(Ok(c)) => {
                    report.calls += 1;
                    out.calls += 1;
                    match verify::parse_verdicts(&c.text) {
                        Ok(v) => verify::judge(&mine, &v, setup),
                        Err(e) => failed(&mut report, format!("unreadable verifier answer: {e}")),
                    }
                }
                Ended::Answer(Err(e)) => {
                    report.calls += 1;
                    out.calls += 1;
                    failed(&mut report, e.to_string())
                }
                Ended::Budget(why) => {
                    report
                        .error
                        .get_or_insert(format!("stopped by the budget: {why}"));
                    failed_all(&mine, Unconfirmed::Budget, setup.threshold, None)
                }
                Ended::Refit => {
                    let why = "the verifier's prompt does not fit the server's context";
                    failed(
                        &mut report,
                        format!("{why} (a smaller diff budget was learnt)"),
                    )
                }
                Ended::NoFit(why) => {
                    let fits = "the verifier's prompt does not fit the server's context";
                    failed(&mut report, format!("{fits}: {why}"))
                }
                Ended::Cancelled => failed_all(
                    &mine,
                    Unconfirmed::Failed,
                    setup.threshold,
                    Some("the run was cancelled".into()),
                ),
                Ended::TimedOut(which) => {
                    failed(&mut report, format!("no verifier answer within {which}"))
                }
            };
            for (i, j) in call.findings.iter().zip(verdicts) {
                judged[*i] = Some(j);
            }
        }
        for (mut f, j) in findings.into_iter().zip(judged) {
            match j {
                Some(verify::Judgement::Confirmed(v)) => {
                    report.confirmed += 1;
                    f.verified = Some(v);
                    out.findings.push(f);
                }
                Some(verify::Judgement::Held(reason)) => {
                    report.held_back += 1;
                    out.held_back.push(HeldBack {
                        finding: f,
                        held_back: reason,
                    });
                }
                None => {
                    report.held_back += 1;
                    out.held_back.push(HeldBack {
                        finding: f,
                        held_back: verify::not_judged(
                            Unconfirmed::NoVerdict,
                            setup.threshold,
                            None,
                        ),
                    });
                }
            }
        }
        out.verification = Some(report);
    }

    /// The aspect's outcome from its calls: findings merged and de-duplicated by id; the first
    /// failure (in chunk order) fails the aspect, naming the chunk.
    fn conclude(
        &self,
        ended: Vec<(Ended, Spent)>,
        plan: &DiffPlan,
        elapsed: Duration,
    ) -> AspectOutcome {
        let aspect = self.aspect;
        let count = ended.len();
        let chunk = |i: usize| {
            if count > 1 {
                format!("chunk {} of {count}: ", i + 1)
            } else {
                String::new()
            }
        };
        let mut out = AspectOutcome::new(aspect, AspectState::Done, None);
        out.elapsed_ms = millis(elapsed);
        out.diff = Some(plan.report.clone());
        let files: HashSet<&str> = self.diff_files.iter().map(String::as_str).collect();
        let mut seen: HashSet<String> = HashSet::new();
        let mut failure: Option<(AspectState, String)> = None;
        let mut cancelled = false;
        for (i, (e, spent)) in ended.into_iter().enumerate() {
            // Every answer's usage counts, whatever became of the call.
            out.tokens.add(&spent.tokens);
            out.calls_without_usage += u32::from(spent.unreported > 0);
            match e {
                Ended::Cancelled => cancelled = true,
                Ended::Refit => {
                    failure.get_or_insert((
                        AspectState::Failed,
                        format!(
                            "{}the prompt does not fit the server's context, also after planning the diff again {MAX_REFITS} times",
                            chunk(i)
                        ),
                    ));
                }
                Ended::NoFit(why) => {
                    failure.get_or_insert((
                        AspectState::Failed,
                        format!(
                            "{}the prompt does not fit the server's context: {why}",
                            chunk(i)
                        ),
                    ));
                }
                Ended::Answer(Err(e @ LlmError::ContextOverflow { .. })) => {
                    out.calls += 1;
                    let why = self
                        .run
                        .fit
                        .impossible()
                        .map(|w| format!("; {w}"))
                        .unwrap_or_default();
                    failure.get_or_insert((AspectState::Failed, format!("{}{e}{why}", chunk(i))));
                }
                Ended::Budget(why) => {
                    failure.get_or_insert((
                        AspectState::Failed,
                        format!("{}stopped by the budget: {why}", chunk(i)),
                    ));
                }
                Ended::TimedOut(which) => {
                    failure.get_or_insert((
                        AspectState::TimedOut,
                        format!(
                            "{}no answer within {which}, after {:.1} s",
                            chunk(i),
                            elapsed.as_secs_f64()
                        ),
                    ));
                }
                Ended::Answer(Err(e)) => {
                    out.calls += 1;
                    failure.get_or_insert((AspectState::Failed, format!("{}{e}", chunk(i))));
                }
                Ended::Answer(Ok(c)) => {
                    out.calls += 1;
                    match parse_reply(aspect, &c.text, &files) {
                        Ok(parsed) => {
                            // One note per chunk at most (the first that has one).
                            if out.note.is_none() {
                                out.note = join_notes(c.note, parsed.note())
                                    .map(|n| format!("{}{n}", chunk(i)));
                            }
                            for f in parsed.findings {
                                if seen.insert(f.id.clone()) {
                                    out.findings.push(f);
                                } else {
                                    out.merged = out.merged.saturating_add(1);
                                }
                            }
                            if !parsed.rejected.is_empty() {
                                out.raw_reply = Some(c.text);
                            }
                            out.rejected.extend(parsed.rejected);
                        }
                        Err(e) => {
                            if out.note.is_none() {
                                out.note = c.note.map(|n| format!("{}{n}", chunk(i)));
                            }
                            if failure.is_none() {
                                out.raw_reply = Some(c.text);
                            }
                            failure.get_or_insert((
                                AspectState::Failed,
                                format!("{}unparseable reply: {e}", chunk(i)),
                            ));
                        }
                    }
                }
            }
        }
        // A finding that continues a shortened prior message is that prior finding (its id).
        crate::review::results::classify::adopt_prior_ids(&mut out.findings, &self.prior);
        if cancelled && self.cancel.is_cancelled() {
            out.state = AspectState::Cancelled;
            out.error = Some("the run was cancelled".into());
            out.findings.clear();
            let _ = self.events.send(ReviewEvent::Cancelled { aspect });
            return out;
        }
        match failure {
            None => {
                let _ = self.events.send(ReviewEvent::Done {
                    aspect,
                    findings: out.findings.len(),
                    elapsed,
                });
            }
            Some((state, why)) => {
                // A failed aspect reports no findings (as a single-call aspect never did).
                out.findings.clear();
                out.state = state;
                out.error = Some(why.clone());
                let _ = self.events.send(match state {
                    AspectState::TimedOut => ReviewEvent::TimedOut {
                        aspect,
                        after: elapsed,
                    },
                    _ => ReviewEvent::Failed { aspect, why },
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pr::RecordedAnswer;
    use crate::review::llm::{LlmEnv, ReplayClient, ReplaySource};
    use crate::review::settings::SkipRule;
    use crate::source::{DEMO_FIXTURE, Fixture};

    fn demo() -> Fixture {
        Fixture::parse(DEMO_FIXTURE, std::path::Path::new("demo")).unwrap()
    }

    async fn run_with(
        answers: Vec<RecordedAnswer>,
        settings: ReviewSettings,
    ) -> (ReviewRun, Vec<ReviewEvent>) {
        let f = demo();
        let client = Arc::new(
            LlmClient::from_settings(
                &settings,
                &LlmEnv::default(),
                Some(ReplaySource { answers, step: 0 }),
            )
            .unwrap(),
        );
        let (tx, mut rx) = mpsc::unbounded_channel();
        let run = run_review(
            Arc::new(f.pr),
            &settings,
            client,
            Arc::new(Prompts::embedded()),
            tx,
            CancellationToken::new(),
        )
        .await;
        let mut events = Vec::new();
        while let Ok(e) = rx.try_recv() {
            events.push(e);
        }
        (run, events)
    }

    fn answer(aspect: Aspect, reply: &str) -> RecordedAnswer {
        RecordedAnswer {
            aspect: aspect.to_string(),
            step: 0,
            chunk: None,
            reply: reply.into(),
            input_tokens: Some(100),
            output_tokens: Some(10),
        }
    }

    #[tokio::test]
    async fn every_aspect_ends_in_a_state_and_finished_comes_last() {
        let mut answers: Vec<_> = Aspect::ALL
            .into_iter()
            .map(|a| answer(a, r#"{"findings": []}"#))
            .collect();
        answers[0] = answer(
            Aspect::Correctness,
            r#"{"findings":[{"severity":"critical","file":"src/client/retry.rs","line":41,"message":"m"}]}"#,
        );
        answers[1] = answer(Aspect::Conventions, "I think it is fine.");
        answers.pop(); // architecture: no recording → failed
        let mut settings = ReviewSettings::default();
        settings.skip.insert(
            Aspect::Tests,
            SkipRule {
                always: true,
                ..Default::default()
            },
        );
        let (run, events) = run_with(answers, settings).await;
        let states: Vec<_> = run.aspects.iter().map(|a| (a.aspect, a.state)).collect();
        assert_eq!(
            states,
            [
                (Aspect::Correctness, AspectState::Done),
                (Aspect::Conventions, AspectState::Failed),
                (Aspect::Security, AspectState::Done),
                (Aspect::Perf, AspectState::Done),
                (Aspect::Tests, AspectState::Skipped),
                (Aspect::Architecture, AspectState::Failed),
            ]
        );
        assert_eq!(run.aspects[0].findings.len(), 1);
        assert_eq!(
            run.aspects[1].raw_reply.as_deref(),
            Some("I think it is fine.")
        );
        assert!(
            run.aspects[1]
                .error
                .as_deref()
                .unwrap()
                .starts_with("unparseable reply")
        );
        assert!(run.is_incomplete());
        assert_eq!(run.tokens(), (400, 40));
        assert!(matches!(events.last(), Some(ReviewEvent::Finished(r)) if **r == run));
        assert!(events.contains(&ReviewEvent::Skipped {
            aspect: Aspect::Tests,
            reason: "disabled in the review settings".into()
        }));
        assert!(events.contains(&ReviewEvent::Queued {
            aspect: Aspect::Perf
        }));
        let _ = ReplayClient::new(Vec::new(), 0);
    }

    /// Failed before it was fixed: an unchecked concurrency of i64::MAX panicked inside the runtime
    /// (Semaphore::new); the scheduler never asks for more permits than the setting's maximum.
    #[tokio::test]
    async fn an_absurd_unchecked_concurrency_does_not_panic() {
        let answers: Vec<_> = Aspect::ALL
            .into_iter()
            .map(|a| answer(a, r#"{"findings": []}"#))
            .collect();
        let settings = ReviewSettings {
            concurrency: 9_223_372_036_854_775_807,
            ..ReviewSettings::default()
        };
        let (run, _) = run_with(answers, settings).await;
        assert_eq!(run.aspects.len(), Aspect::ALL.len());
        assert!(!run.is_incomplete());
    }

    #[tokio::test]
    async fn a_diff_over_budget_is_reviewed_in_chunks_and_findings_are_merged_once() {
        let answers: Vec<_> = Aspect::ALL
            .into_iter()
            .map(|a| {
                answer(
                    a,
                    r#"{"findings":[{"severity":"important","file":"src/client/retry.rs","line":41,"message":"429 loop never stops."}]}"#,
                )
            })
            .collect();
        let mut settings = ReviewSettings::default();
        settings.diff_budgets.insert(Aspect::Tests, 1_000);
        let (run, _) = run_with(answers.clone(), settings.clone()).await;
        let tests = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Tests)
            .unwrap();
        let diff = tests.diff.as_ref().unwrap();
        assert!(diff.chunks > 1, "{diff:?}");
        assert!(!diff.is_cut(), "nothing is cut without a cap: {diff:?}");
        assert_eq!(tests.calls as usize, diff.chunks);
        // The aspect-level recording answered every chunk: one finding after de-duplication.
        assert_eq!(tests.findings.len(), 1);
        assert_eq!(tests.tokens.input, Some(100 * diff.chunks as u64));
        let perf = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Perf)
            .unwrap();
        assert_eq!((perf.calls, perf.diff.as_ref().unwrap().chunks), (1, 1));
        assert_eq!(run.usage().calls as usize, 5 + diff.chunks);
        let md = crate::review::results::compose::markdown(
            &run,
            &crate::review::results::compose::first_review(&run),
        );
        assert!(!md.contains("Not everything was reviewed"), "{md}");

        // With a cap of one call per aspect, the rest is cut and said so.
        settings.max_calls_per_aspect = Some(1);
        let (run, _) = run_with(answers.clone(), settings.clone()).await;
        let tests = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Tests)
            .unwrap();
        assert!(tests.diff.as_ref().unwrap().is_cut());
        let md = crate::review::results::compose::markdown(
            &run,
            &crate::review::results::compose::first_review(&run),
        );
        assert!(
            md.contains("_Not everything was reviewed — diff budget 1000 chars:"),
            "{md}"
        );
        assert!(md.contains("cut to each aspect's budget"));

        // A chunk that fails fails its aspect, and the reason names the chunk.
        let mut broken = answers;
        broken.push(RecordedAnswer {
            chunk: Some(2),
            ..answer(Aspect::Tests, "not json")
        });
        settings.max_calls_per_aspect = None;
        let (run, _) = run_with(broken, settings).await;
        let tests = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Tests)
            .unwrap();
        assert_eq!(tests.state, AspectState::Failed);
        let why = tests.error.as_deref().unwrap();
        assert!(why.starts_with("chunk 2 of "), "{why}");
        assert!(run.is_incomplete());
    }

    /// A PR with many long paths and rules of many patterns that match none of them: minutes of
    /// matching, even at linear time.
    fn slow_to_match() -> (PrMeta, ReviewSettings) {
        let mut pr = demo().pr;
        pr.files = (0..20_000)
            .map(|i| crate::pr::ChangedFile {
                path: format!("{}/{i}.rs", "d/".repeat(100)),
                status: "modified".into(),
                additions: 1,
                deletions: 0,
                previous_path: None,
                patch: None,
                viewed: Default::default(),
                no_patch: None,
            })
            .collect();
        let pattern = format!("{}z", "**/a*".repeat(16));
        let mut settings = ReviewSettings::default();
        for aspect in Aspect::ALL {
            settings.skip.insert(
                aspect,
                SkipRule {
                    unless_files_match: vec![pattern.clone(); 64],
                    ..Default::default()
                },
            );
        }
        (pr, settings)
    }

    async fn run_slow(settings: ReviewSettings, cancel: CancellationToken) -> ReviewRun {
        let (pr, mut slow) = slow_to_match();
        slow.overall_timeout_secs = settings.overall_timeout_secs;
        let client = Arc::new(
            LlmClient::from_settings(&slow, &LlmEnv::default(), Some(ReplaySource::default()))
                .unwrap(),
        );
        let (tx, _rx) = mpsc::unbounded_channel();
        run_review(
            Arc::new(pr),
            &slow,
            client,
            Arc::new(Prompts::embedded()),
            tx,
            cancel,
        )
        .await
    }

    /// Failed before it was fixed (it matched to the end, whatever `--timeout` said): the overall
    /// timeout bounds the skip-rule phase too.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_overall_timeout_bounds_skip_matching() {
        let settings = ReviewSettings {
            overall_timeout_secs: 0.3,
            ..Default::default()
        };
        let start = Instant::now();
        let run = run_slow(settings, CancellationToken::new()).await;
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(run.aspects.iter().all(|a| a.state == AspectState::TimedOut));
        assert!(run.is_incomplete());
    }

    /// Failed before it was fixed (Ctrl-C was caught, then ignored until matching ended): a cancel
    /// stops the skip-rule phase.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancel_stops_skip_matching() {
        let cancel = CancellationToken::new();
        let later = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            later.cancel();
        });
        let start = Instant::now();
        let run = run_slow(ReviewSettings::default(), cancel).await;
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(run.cancelled);
        assert!(
            run.aspects
                .iter()
                .all(|a| a.state == AspectState::Cancelled)
        );
    }

    /// A review of the demo PR through `settings`' backend with the run's spend logged in `dir`
    /// (and the verifier when `verify`): the run, how long it took, the spend log's lines.
    async fn limited_run(
        settings: &ReviewSettings,
        dir: &std::path::Path,
        verify: bool,
    ) -> (ReviewRun, Duration, Vec<crate::ledger::Spend>) {
        use super::super::budget::{Budget, SpendLog, SpentToday};
        let pr = demo().pr;
        let ledger = crate::ledger::Ledger::new(dir);
        let repo = crate::ledger::RepoId::of(&pr.coords());
        let budget = Budget::new(settings, SpentToday::default()).logged(SpendLog {
            ledger: ledger.clone(),
            repo: repo.clone(),
            pr: pr.number,
            run: "r".into(),
        });
        let extras = RunExtras {
            verify: verify.then(|| VerifySetup {
                threshold: 50,
                recorded: None,
                patches: HashMap::new(),
            }),
            budget: Arc::new(budget),
            ..RunExtras::default()
        };
        let client =
            Arc::new(LlmClient::from_settings(settings, &LlmEnv::default(), None).unwrap());
        let (tx, _rx) = mpsc::unbounded_channel();
        let started = Instant::now();
        let run = run_review_with(
            Arc::new(pr),
            settings,
            client,
            Arc::new(Prompts::embedded()),
            Vec::new(),
            Arc::new(extras),
            tx,
            CancellationToken::new(),
        )
        .await;
        let took = started.elapsed();
        (run, took, ledger.spend(&repo).unwrap())
    }

    /// Every aspect's call ends at the run's overall limit whatever the model does — stalled
    /// after its first event, or trickling a character every 0.2 s (the idle limit, 120 s,
    /// never strikes) — saying which limit with its seconds, each call settled in the spend log.
    #[tokio::test]
    async fn every_call_of_a_review_ends_at_the_overall_limit() {
        use crate::review::llm::loopback::{After, Model, Wire};
        use crate::review::settings::BackendKind;
        let stall = Model::start(Wire::OpenAi, After::Stall).await;
        let trickle =
            Model::start(Wire::Anthropic, After::Trickle(Duration::from_millis(200))).await;
        let settings = |backend, url: &str| ReviewSettings {
            llm: Some(backend),
            llm_url: Some(url.to_owned()),
            model: Some("m".into()),
            retries: 0,
            overall_timeout_secs: 1.5,
            ..ReviewSettings::default()
        };
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (stalled, trickled) = (
            settings(BackendKind::Openai, &stall.url),
            settings(BackendKind::Anthropic, &trickle.url),
        );
        let runs = tokio::join!(
            limited_run(&stalled, a.path(), false),
            limited_run(&trickled, b.path(), false)
        );
        for (run, took, lines) in [runs.0, runs.1] {
            assert!(took < Duration::from_secs(8), "{took:?}");
            for a in &run.aspects {
                assert_eq!(a.state, AspectState::TimedOut, "{a:?}");
                let e = a.error.as_deref().unwrap_or("");
                assert!(
                    e.starts_with("no answer within the overall timeout of 1.5 seconds (--timeout"),
                    "{e}"
                );
            }
            let calls = lines
                .iter()
                .filter(|l| l.kind == crate::ledger::SpendKind::Call)
                .count();
            assert_eq!(calls, 6, "every reservation settled: {lines:?}");
        }
    }

    /// The verifier's call is held to the aspect's limits like its own: a program that answers
    /// the aspect at once and then trickles a character every half second to the verifier is
    /// stopped at the overall limit, its process group ended, both calls settled.
    #[tokio::test]
    async fn the_verifiers_call_ends_at_the_overall_limit_and_its_program_with_it() {
        use crate::review::settings::BackendKind;
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let finding = r#"{"findings":[{"severity":"important","file":"src/client/retry.rs","line":41,"message":"Unbounded 429 loop."}]}"#;
        let script = format!(
            "prompt=$(cat); case \"$prompt\" in *'Verification of the'*) echo $$ > '{}'; while :; do printf x; sleep 0.5; done;; *) printf '%s' '{finding}';; esac",
            pid_file.display()
        );
        let mut settings = ReviewSettings {
            llm: Some(BackendKind::Command),
            command: vec!["sh".into(), "-c".into(), script],
            overall_timeout_secs: 2.0,
            ..ReviewSettings::default()
        };
        for a in Aspect::ALL
            .into_iter()
            .filter(|a| *a != Aspect::Correctness)
        {
            settings.skip.insert(
                a,
                SkipRule {
                    always: true,
                    ..Default::default()
                },
            );
        }
        let (run, took, lines) = limited_run(&settings, dir.path(), true).await;
        assert!(took < Duration::from_secs(8), "{took:?}");
        let a = &run.aspects[Aspect::ALL
            .iter()
            .position(|a| *a == Aspect::Correctness)
            .unwrap()];
        let report = a.verification.as_ref().expect("verified");
        let e = report.error.as_deref().unwrap_or("");
        assert!(
            e.starts_with("no verifier answer within the overall timeout of 2 seconds (--timeout"),
            "{e}"
        );
        assert_eq!(a.held_back.len(), 1, "{a:?}");
        let pid = crate::review::llm::loopback::pid_in(&pid_file).await;
        assert!(
            !crate::review::llm::loopback::still_running(pid).await,
            "{pid} still runs"
        );
        let calls: Vec<_> = lines
            .iter()
            .filter(|l| l.kind == crate::ledger::SpendKind::Call)
            .collect();
        assert_eq!(calls.len(), 2, "the aspect's and the verifier's: {lines:?}");
        // The verifier's trickle is counted as output.
        assert!(calls.iter().any(|l| l.output_tokens > 0), "{calls:?}");
    }
}
