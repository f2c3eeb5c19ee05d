//! Performing the effects `App::update` returns.
//!
//! [`EffectRunner`] knows how to do each effect (ledger writes, highlighting, the opener and
//! clipboard, review runs, posting). [`Effects`] runs them for the live console, every one off
//! the UI loop, each result reported back as an [`AppEvent`]:
//!
//! - ledger effects (markers, drafts, fixture steps) on one ordered lane, so a draft saved after
//!   a discard is never overtaken by it;
//! - highlighting, the opener and the clipboard on blocking threads;
//! - planning a post and posting as tasks of their own: the console keeps drawing and answering
//!   keys while GitHub answers;
//! - review runs as cancellable tasks: preparation, then `ReviewEvent`s tagged with the run's
//!   sequence number (the app drops those of a replaced run).
//!
//! The test harness performs the same effects synchronously with [`EffectRunner::perform_blocking`].

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::app::{Action, Effect, StepData};
use super::desktop;
use super::highlight;
use super::prepare::{Prepared, ReviewContext, prepare};
use super::review::{PostDestination, PostPreview};
use super::terminal::AppEvent;
use super::theme::Theme;
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot, Thread};
use crate::publish::threads::{act_live, act_offline};
use crate::publish::{Outbox, Posted, ThreadDo, record_own_reply, upsert};
use crate::review::ReviewEvent;
use crate::source::Fixture;

/// Performs effects. `interactive: false` (tests, benches) never opens a browser or writes to
/// the real terminal: it reports what it would have done as a notice.
pub struct EffectRunner {
    pub ledger: Ledger,
    pub fixture: Option<Fixture>,
    pub theme: Theme,
    pub interactive: bool,
    /// Unix seconds for new markers; `None` = now.
    pub clock: Option<i64>,
    /// How `r` reviews: settings (config `[review]`), identity, reply marker.
    pub review: ReviewContext,
    /// Where `p` posts.
    pub post_to: PostDestination,
    /// The inbox the console opened on, if any (`Default` otherwise).
    pub inbox: super::inbox_load::InboxLink,
}

impl EffectRunner {
    /// Performs an effect that needs no network (file I/O, highlighting, opener, clipboard) and
    /// returns its result as an action. Network and review effects: `None` (see
    /// [`EffectRunner::perform_network`] and [`Effects`]).
    pub fn perform_local(&self, effect: Effect) -> Option<Action> {
        match effect {
            Effect::MarkSeen { pr, items, kept } => {
                let at = self.now();
                let pairs: Vec<(&str, &str)> = items
                    .iter()
                    .map(|(a, b)| (a.as_str(), b.as_str()))
                    .collect();
                // The texts first: one whose marker is then not written is ignored on reading.
                let result = self
                    .ledger
                    .keep_texts(&pr, &kept)
                    .and_then(|_| self.ledger.mark_seen(&pr, &pairs, at))
                    .map(|_| ())
                    .map_err(|e| e.to_string());
                Some(Action::Marked { items, at, result })
            }
            Effect::LoadStep(step) => Some(Action::StepLoaded(self.load_step(step))),
            Effect::Highlight { key, path, hunk } => Some(Action::Highlighted {
                key,
                lines: Arc::new(highlight::highlight_hunk(&path, &hunk, &self.theme)),
            }),
            Effect::Open(url) => Some(Action::Notice(desktop::open(&url, self.interactive))),
            Effect::Copy(url) => Some(Action::Notice(desktop::copy(&url, self.interactive))),
            Effect::SaveDraft { pr, mut draft } => {
                draft.saved_at = self.now();
                Some(Action::DraftSaved(
                    self.ledger
                        .save_draft(&pr, &draft)
                        .map_err(|e| e.to_string()),
                ))
            }
            Effect::DiscardDraft { pr } => Some(Action::DraftDiscarded(
                self.ledger.discard_draft(&pr).map_err(|e| e.to_string()),
            )),
            Effect::Recount { snapshot } => Some(self.recount(&snapshot)),
            Effect::SaveReplyDraft { pr, mut draft } => {
                draft.saved_at = self.now();
                self.ledger
                    .save_reply_draft(&pr, &draft)
                    .err()
                    .map(|e| Action::Notice(format!("the reply was NOT saved: {e}")))
            }
            Effect::DiscardReplyDraft { pr } => {
                self.ledger.discard_reply_draft(&pr).err().map(|e| {
                    Action::Notice(format!("the sent reply's draft could not be removed: {e}"))
                })
            }
            Effect::PlanPost { .. }
            | Effect::Post { .. }
            | Effect::ThreadAct { .. }
            | Effect::StartReview { .. }
            | Effect::CancelReview
            | Effect::OpenPr(_)
            | Effect::LoadInbox => None,
        }
    }

    /// Plans a post or posts (network for a live PR). Other effects: `None`.
    pub async fn perform_network(&self, effect: Effect) -> Option<Action> {
        match effect {
            Effect::PlanPost { pr, chars } => {
                Some(Action::PostPlanned(self.plan_post(&pr, chars).await))
            }
            Effect::Post { pr, body } => Some(Action::Posted(self.post(&pr, &body).await)),
            Effect::OpenPr(opener) => Some(Action::PrOpened(self.open_pr(&opener).await)),
            Effect::ThreadAct { pr, thread, what } => Some(Action::ThreadActed {
                thread_id: thread.id.clone(),
                kind: what.kind(),
                result: self.thread_act(&pr, &thread, &what).await,
            }),
            _ => None,
        }
    }

    /// Any effect but a review, synchronously (tests, harness, benches). Must not be called from
    /// inside a tokio runtime.
    pub fn perform_blocking(&self, effect: Effect) -> Option<Action> {
        if !matches!(
            effect,
            Effect::PlanPost { .. }
                | Effect::Post { .. }
                | Effect::OpenPr(_)
                | Effect::ThreadAct { .. }
        ) {
            return self.perform_local(effect);
        }
        match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(self.perform_network(effect)),
            Err(e) => Some(Action::Notice(format!("cannot start the runtime: {e}"))),
        }
    }

    fn now(&self) -> i64 {
        self.clock.unwrap_or_else(|| chrono::Utc::now().timestamp())
    }

    fn outbox_path(&self, pr: &PrCoords) -> String {
        self.ledger
            .pr_dir(pr)
            .map(|d| d.join("outbox").join("comment.json").display().to_string())
            .unwrap_or_else(|e| e.to_string())
    }

    /// What a post would do, for the confirmation dialog.
    async fn plan_post(&self, pr: &PrCoords, chars: usize) -> Result<PostPreview, String> {
        let target = format!("{}/{}#{}", pr.owner, pr.repo, pr.number);
        match &self.post_to {
            PostDestination::Outbox => {
                let outbox = Outbox {
                    ledger: &self.ledger,
                    pr: pr.clone(),
                    now: self.now(),
                };
                let update = crate::publish::target(&outbox)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(PostPreview {
                    target,
                    update,
                    chars,
                    destination: format!("the outbox {}", self.outbox_path(pr)),
                })
            }
            PostDestination::GitHub(live) => {
                let store = crate::publish::GitHubComments {
                    gh: &live.gh,
                    pr: pr.clone(),
                    own_login: live.own_login.clone(),
                };
                let update = crate::publish::target(&store)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(PostPreview {
                    target,
                    update,
                    chars,
                    destination: format!("GitHub, as @{}", live.own_login),
                })
            }
            PostDestination::Unavailable(why) => Err(why.clone()),
        }
    }

    /// Posts `body`: asked for only after the maintainer confirmed the dialog.
    async fn post(&self, pr: &PrCoords, body: &str) -> Result<Posted, String> {
        match &self.post_to {
            PostDestination::Outbox => {
                let outbox = Outbox {
                    ledger: &self.ledger,
                    pr: pr.clone(),
                    now: self.now(),
                };
                let mut p = upsert(&outbox, body, 3).await.map_err(|e| e.to_string())?;
                p.location = format!("the outbox {}", p.location);
                Ok(p)
            }
            PostDestination::GitHub(live) => {
                let store = crate::publish::GitHubComments {
                    gh: &live.gh,
                    pr: pr.clone(),
                    own_login: live.own_login.clone(),
                };
                upsert(&store, body, 3).await.map_err(|e| e.to_string())
            }
            PostDestination::Unavailable(why) => Err(why.clone()),
        }
    }

    /// Replies to, resolves or unresolves a thread (only after the maintainer confirmed): live
    /// as the credentials' account (the own reply recorded as seen), offline into the outbox.
    async fn thread_act(
        &self,
        pr: &PrCoords,
        thread: &Thread,
        what: &ThreadDo,
    ) -> Result<String, String> {
        let now = self.now();
        match &self.post_to {
            PostDestination::Outbox => act_offline(&self.ledger, pr, thread, what, now)
                .map(|d| format!("the outbox {}", d.location))
                .map_err(|e| e.to_string()),
            PostDestination::GitHub(live) => {
                let done = act_live(&live.gh, pr, thread, what, &live.own_login, 3)
                    .await
                    .map_err(|e| e.to_string())?;
                if let Some(reply) = &done.reply
                    && let Err(e) = record_own_reply(&self.ledger, pr, thread, reply, now)
                {
                    return Ok(format!("{} (not recorded as seen: {e})", done.location));
                }
                Ok(done.location)
            }
            PostDestination::Unavailable(why) => Err(why.clone()),
        }
    }

    /// Prepares run `seq` (see [`prepare`]).
    pub fn prepare(&self, seq: u64, full: bool, snapshot: &Snapshot) -> Result<Prepared, String> {
        let fixture = self.current_fixture();
        prepare(
            &self.review,
            fixture.as_ref(),
            &self.ledger,
            seq,
            full,
            snapshot,
        )
    }

    /// Runs a prepared review to its end and saves it in the ledger (unless cancelled).
    pub async fn run_prepared(
        &self,
        p: Prepared,
        events: mpsc::UnboundedSender<ReviewEvent>,
        cancel: CancellationToken,
    ) -> Option<String> {
        let coords = p.review.pr.coords();
        let run = p.review.run(events, cancel).await;
        if run.cancelled {
            return None;
        }
        self.ledger
            .save_run(&coords, &run)
            .err()
            .map(|e| format!("the review run was not saved: {e}"))
    }

    /// The whole review synchronously, as the actions the loop would deliver (tests, harness).
    /// Must not be called from inside a tokio runtime.
    pub fn review_blocking(&self, seq: u64, full: bool, snapshot: &Snapshot) -> Vec<Action> {
        let p = match self.prepare(seq, full, snapshot) {
            Ok(p) => p,
            Err(why) => return vec![Action::ReviewNotStarted { seq, why }],
        };
        let rt = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                return vec![Action::ReviewNotStarted {
                    seq,
                    why: e.to_string(),
                }];
            }
        };
        let mut out = vec![p.started.clone()];
        let (tx, mut rx) = mpsc::unbounded_channel();
        let problem = rt.block_on(self.run_prepared(p, tx, CancellationToken::new()));
        while let Ok(event) = rx.try_recv() {
            out.push(Action::Review { seq, event });
        }
        out.extend(problem.map(Action::Notice));
        out
    }

    fn load_step(&self, step: usize) -> Result<Box<StepData>, String> {
        let f = self
            .current_fixture()
            .ok_or_else(|| "no fixture to step through".to_owned())?;
        let snapshot = f.snapshot_at(step).map_err(|e| e.to_string())?;
        let coords = snapshot.pr.coords();
        let mut seen = self.ledger.load_seen(&coords).map_err(|e| e.to_string())?;
        self.ledger.attach_kept(&coords, &snapshot, &mut seen);
        let ahead = super::app::later_versions(&f, step);
        Ok(Box::new(StepData {
            snapshot,
            seen,
            ahead,
        }))
    }
}

/// A review task in flight.
struct RunningReview {
    cancel: CancellationToken,
    handle: JoinHandle<()>,
}

/// The live console's effects, all off the UI loop (see the module docs).
pub struct Effects {
    runner: Arc<EffectRunner>,
    tx: mpsc::UnboundedSender<AppEvent>,
    /// The ordered lane for ledger effects.
    ledger_lane: mpsc::UnboundedSender<Effect>,
    ledger_task: JoinHandle<()>,
    reviews: Vec<RunningReview>,
    /// Post plans and posts in flight.
    posts: Vec<JoinHandle<()>>,
}

/// How long quitting waits for a review to end or a post to answer.
const DRAIN: Duration = Duration::from_secs(5);

impl Effects {
    /// Must be called inside a tokio runtime.
    pub fn new(runner: Arc<EffectRunner>, tx: mpsc::UnboundedSender<AppEvent>) -> Effects {
        let (ledger_lane, mut lane) = mpsc::unbounded_channel::<Effect>();
        let (r, events) = (runner.clone(), tx.clone());
        let ledger_task = tokio::spawn(async move {
            while let Some(e) = lane.recv().await {
                let r = r.clone();
                let done = tokio::task::spawn_blocking(move || r.perform_local(e)).await;
                if let Ok(Some(a)) = done {
                    let _ = events.send(AppEvent::Action(a));
                }
            }
        });
        Effects {
            runner,
            tx,
            ledger_lane,
            ledger_task,
            reviews: Vec::new(),
            posts: Vec::new(),
        }
    }

    /// Starts every effect; none waits for its result.
    pub fn dispatch(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::CancelReview => self.cancel_reviews(),
                Effect::StartReview {
                    seq,
                    full,
                    snapshot,
                } => self.start_review(seq, full, snapshot),
                Effect::MarkSeen { .. }
                | Effect::LoadStep(_)
                | Effect::SaveDraft { .. }
                | Effect::DiscardDraft { .. }
                | Effect::SaveReplyDraft { .. }
                | Effect::DiscardReplyDraft { .. } => {
                    let _ = self.ledger_lane.send(e);
                }
                Effect::Highlight { .. } | Effect::Open(_) | Effect::Copy(_) => {
                    let (r, tx) = (self.runner.clone(), self.tx.clone());
                    tokio::task::spawn_blocking(move || {
                        if let Some(a) = r.perform_local(e) {
                            let _ = tx.send(AppEvent::Action(a));
                        }
                    });
                }
                Effect::LoadInbox => {
                    self.posts.retain(|p| !p.is_finished());
                    let (r, tx) = (self.runner.clone(), self.tx.clone());
                    self.posts.push(tokio::spawn(async move {
                        r.load_inbox(|a| {
                            let _ = tx.send(AppEvent::Action(a));
                        })
                        .await;
                    }));
                }
                Effect::Recount { .. } => {
                    let _ = self.ledger_lane.send(e);
                }
                Effect::PlanPost { .. }
                | Effect::Post { .. }
                | Effect::OpenPr(_)
                | Effect::ThreadAct { .. } => {
                    self.posts.retain(|p| !p.is_finished());
                    let (r, tx) = (self.runner.clone(), self.tx.clone());
                    self.posts.push(tokio::spawn(async move {
                        if let Some(a) = r.perform_network(e).await {
                            let _ = tx.send(AppEvent::Action(a));
                        }
                    }));
                }
            }
        }
    }

    fn cancel_reviews(&mut self) {
        for r in &self.reviews {
            r.cancel.cancel();
        }
    }

    /// Cancels the run in flight, then prepares and runs run `seq` in a task of its own.
    fn start_review(&mut self, seq: u64, full: bool, snapshot: Box<Snapshot>) {
        self.cancel_reviews();
        self.reviews.retain(|r| !r.handle.is_finished());
        let cancel = CancellationToken::new();
        let (runner, tx, stop) = (self.runner.clone(), self.tx.clone(), cancel.clone());
        let handle = tokio::spawn(async move {
            let prepared = {
                let runner = runner.clone();
                tokio::task::spawn_blocking(move || runner.prepare(seq, full, &snapshot)).await
            };
            let prepared = match prepared {
                Ok(Ok(p)) => p,
                Ok(Err(why)) => {
                    let _ = tx.send(AppEvent::Action(Action::ReviewNotStarted { seq, why }));
                    return;
                }
                Err(e) => {
                    let why = e.to_string();
                    let _ = tx.send(AppEvent::Action(Action::ReviewNotStarted { seq, why }));
                    return;
                }
            };
            let _ = tx.send(AppEvent::Action(prepared.started.clone()));
            let (etx, mut erx) = mpsc::unbounded_channel();
            let forward = async {
                while let Some(event) = erx.recv().await {
                    let _ = tx.send(AppEvent::Review { seq, event });
                }
            };
            let (problem, ()) = tokio::join!(runner.run_prepared(prepared, etx, stop), forward);
            if let Some(p) = problem {
                let _ = tx.send(AppEvent::Action(Action::Notice(p)));
            }
        });
        self.reviews.push(RunningReview { cancel, handle });
    }

    /// The console is closing, first half: no review outlives it (cancel, then wait, bounded),
    /// and a post in flight gets a bounded wait for its answer — which lands in the event channel;
    /// the caller applies it (see `tui::close`) before [`Effects::shutdown`].
    pub async fn settle(&mut self) {
        for r in std::mem::take(&mut self.reviews) {
            r.cancel.cancel();
            let _ = tokio::time::timeout(DRAIN, r.handle).await;
        }
        for p in std::mem::take(&mut self.posts) {
            let abort = p.abort_handle();
            if tokio::time::timeout(DRAIN, p).await.is_err() {
                abort.abort();
            }
        }
    }

    /// The console is closing: [`Effects::settle`], then the ledger lane finishes its writes.
    pub async fn shutdown(mut self) {
        self.settle().await;
        drop(self.ledger_lane);
        let _ = tokio::time::timeout(DRAIN, self.ledger_task).await;
    }
}
