//! Performing the effects `App::update` returns.
//!
//! Where an effect runs is declared once, by [`Effect::lane`]; [`Effects::dispatch`] reads it.
//! [`EffectRunner`] knows how to do each one, with the session's [`Remote`] deciding where writes
//! go:
//!
//! - `ledger.rs` — the ledger lane's shared reads: what a PR kept from an earlier session, what
//!   the session holds unsent (and the inbox's recounts), in order, one at a time;
//! - highlighting, the opener and the clipboard — the blocking lane, a thread each;
//! - viewed marks through `tui::remote` (the one place that tells the outbox from GitHub; the PR
//!   screen's posts and thread actions call it from `app/pr/work.rs`): a task each, so the
//!   console keeps drawing and answering keys while GitHub answers;
//! - `review.rs` — review runs: preparation, then `ReviewEvent`s tagged with the run's sequence
//!   number (the app drops those of a replaced run), cancellable.
//!
//! - a screen's own work (`Effect::Work`: the PR screen's, the checks', the pending review's,
//!   the code screens', the inbox's, each in its screen's `work.rs`) — on the lane it declares,
//!   performed with the [`Io`] the runner lends ([`EffectRunner::perform_work`]); no arm here
//!   names a screen.
//!
//! [`Effects`] runs them for the live console, every one off the UI loop, each result reported
//! back as an [`AppEvent`] addressed to the screen that asked (the id the router stamped on the
//! effect, see [`Asked`]). The test harness performs the same effects synchronously with
//! [`EffectRunner::perform_blocking`], and routes their results the same way.

pub mod ledger;

pub mod review;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::app::{Action, Asked, Effect, Io, Job, Lane, Said, ScreenId};
use super::event::AppEvent;
use super::inbox_link::InboxLink;
use super::session::Session;
use super::theme::Theme;
use super::{desktop, highlight, remote};
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot};
use crate::review::ReviewEvent;
use crate::source::Fixture;
use review::{ConsoleReview, Prepared};

#[cfg(doc)]
use super::session::Remote;

/// Performs effects. `interactive: false` (tests, benches) never opens a browser or writes to
/// the real terminal: it reports what it would have done as a notice.
pub struct EffectRunner {
    pub ledger: Ledger,
    /// The fixture the console opened on (history steps, replayed reviews).
    pub fixture: Option<Fixture>,
    pub theme: Theme,
    pub interactive: bool,
    /// Unix seconds for new markers and drafts; `None` = now.
    pub clock: Option<i64>,
    /// How `r` reviews: settings (config `[review]`), the reply marker, the LLM environment.
    pub review: ConsoleReview,
    /// The app's session, made from the same value: where writes go, whose reviews are
    /// Shepherd's, the gates (none of it changes during a session).
    pub session: Session,
    /// The inbox the console opened on, if any (`Default` otherwise).
    pub inbox: InboxLink,
    /// Files' texts the diff read (`e`/`E`, `o`), by blob id, for the session.
    pub blobs: std::sync::Mutex<crate::source::github::contents::BlobCache>,
    /// The private folder of the read-only copies `o` opens in the editor (removed when the
    /// console exits).
    pub scratch: super::scratch::Scratch,
}

impl EffectRunner {
    fn now(&self) -> i64 {
        self.clock.unwrap_or_else(|| chrono::Utc::now().timestamp())
    }

    /// The fixture of `pr`: the one it was opened from in the inbox, else the session's (a
    /// console opened on one PR).
    pub fn fixture_of(&self, pr: &PrCoords) -> Option<Fixture> {
        self.inbox
            .opened_fixture(pr)
            .or_else(|| self.fixture.clone())
    }

    /// Performs a screen's own work (see `app/work.rs`) with what the runner lends it, handing
    /// each result to `send` as it is known.
    pub async fn perform_work(&self, job: Job, send: &mut (dyn FnMut(Action) + Send)) {
        let fixture_of = |pr: &PrCoords| self.fixture_of(pr);
        let io = Io {
            ledger: &self.ledger,
            session: &self.session,
            inbox: &self.inbox,
            now: self.now(),
            fixture_of: &fixture_of,
            interactive: self.interactive,
            review: &self.review.settings,
            llm_env: &self.review.llm_env,
            blobs: &self.blobs,
            scratch: &self.scratch,
        };
        let mut reply = |done: super::app::Done| {
            send(match done.take::<Said>() {
                Some(Said(n)) => Action::Notice(n),
                None => Action::Done(done),
            })
        };
        job.perform(&io, &mut reply).await;
    }

    /// [`EffectRunner::perform_work`] on this thread (the ledger and blocking lanes: a thread
    /// off the UI loop already).
    pub fn perform_work_here(&self, job: Job, send: &mut (dyn FnMut(Action) + Send)) {
        futures::executor::block_on(self.perform_work(job, send));
    }

    /// Performs an effect of the ledger or the blocking lane (file I/O, highlighting, opener,
    /// clipboard) and returns its result as an action. Effects of the other lanes: `None`.
    pub fn perform_local(&self, effect: Effect) -> Option<Action> {
        let l = &self.ledger;
        match effect {
            Effect::ScanUnsent { prs } => Some(ledger::scan_unsent(l, &prs)),
            Effect::Highlight { key, path, hunk } => Some(Action::Highlighted {
                key,
                lines: Arc::new(highlight::highlight_hunk(&path, &hunk, &self.theme)),
            }),
            Effect::Open(url) => Some(Action::Notice(desktop::open(&url, self.interactive))),
            Effect::Copy(url) => Some(Action::Notice(desktop::copy(&url, self.interactive))),
            // The console runs it around a suspended screen (`terminal.rs`); the harness here.
            Effect::ExternalEdit { target, text } => Some(Action::ExternallyEdited {
                target,
                result: crate::tui::editor::run_external(self.session.editor.as_deref(), &text),
            }),
            // Likewise: the console runs it around a suspended screen; headless, what would run.
            Effect::EditorAt { argv, said } => Some(Action::Notice(crate::tui::editor_at::open(
                &argv,
                &said,
                self.interactive,
            ))),
            // The fetch, send and review lanes.
            _ => None,
        }
    }

    /// Performs an effect of the fetch or the send lane (the network, for a live PR), handing
    /// each result to `send` as soon as it is known (the inbox reports row after row).
    pub async fn perform_remote(&self, effect: Effect, send: &mut (impl FnMut(Action) + Send)) {
        let (remote, l, now) = (&self.session.remote, &self.ledger, self.now());
        match effect {
            Effect::Work(job) => self.perform_work(job, send).await,
            Effect::SetViewed {
                pr,
                paths,
                keys,
                viewed,
            } => send(Action::ViewedSet {
                result: remote::set_viewed(remote, l, &pr, &paths, &keys, viewed, now).await,
                paths,
                viewed,
            }),
            // The ledger, blocking and review lanes.
            _ => {}
        }
    }

    /// Any effect synchronously, as the actions the loop would deliver (tests, harness, benches),
    /// each addressed to the screen that asked: a review runs to its end. Must not be called
    /// from inside a tokio runtime.
    pub fn perform_blocking(&self, asked: Asked) -> Vec<Action> {
        let by = asked.by;
        self.perform_blocking_bare(asked.effect)
            .into_iter()
            .map(|a| Action::to(by, a))
            .collect()
    }

    fn perform_blocking_bare(&self, effect: Effect) -> Vec<Action> {
        match effect.lane() {
            Lane::Ledger | Lane::Blocking => match effect {
                Effect::Work(job) => {
                    let mut out = Vec::new();
                    self.perform_work_here(job, &mut |a| out.push(a));
                    out
                }
                e => self.perform_local(e).into_iter().collect(),
            },
            Lane::Fetch | Lane::Send => {
                let mut out = Vec::new();
                match runtime() {
                    Ok(rt) => rt.block_on(self.perform_remote(effect, &mut |a| out.push(a))),
                    Err(e) => out.push(Action::Notice(format!("cannot start the runtime: {e}"))),
                }
                out
            }
            Lane::Review => match effect {
                Effect::StartReview {
                    seq,
                    full,
                    snapshot,
                } => self.review_blocking(seq, full, &snapshot),
                _ => Vec::new(),
            },
        }
    }

    /// Prepares run `seq` (see [`review::prepare`]).
    pub fn prepare(&self, seq: u64, full: bool, snapshot: &Snapshot) -> Result<Prepared, String> {
        let fixture = self.fixture_of(&snapshot.pr.coords());
        review::prepare(
            &self.review,
            &self.session,
            fixture,
            &self.ledger,
            seq,
            full,
            snapshot,
        )
    }

    /// Runs a prepared review to its end and concludes it (unless cancelled): what the app is
    /// told once it ended (see [`review::run`]).
    pub async fn run_prepared(
        &self,
        p: Prepared,
        events: mpsc::UnboundedSender<ReviewEvent>,
        cancel: CancellationToken,
    ) -> Vec<Action> {
        review::run(p, events, cancel, self.now()).await
    }

    /// The whole review synchronously, as the actions the loop would deliver (tests, harness).
    /// Must not be called from inside a tokio runtime.
    pub fn review_blocking(&self, seq: u64, full: bool, snapshot: &Snapshot) -> Vec<Action> {
        let p = match self.prepare(seq, full, snapshot) {
            Ok(p) => p,
            Err(why) => return vec![Action::ReviewNotStarted { seq, why }],
        };
        let rt = match runtime() {
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
        let ended = rt.block_on(self.run_prepared(p, tx, CancellationToken::new()));
        while let Ok(event) = rx.try_recv() {
            out.push(Action::Review { seq, event });
        }
        out.extend(ended);
        out
    }
}

impl EffectRunner {
    /// An effect of the ledger or blocking lane on this thread, its results sent to the screen
    /// that asked (`by`).
    fn perform_here(&self, by: ScreenId, effect: Effect, tx: &mpsc::UnboundedSender<AppEvent>) {
        let mut send = |a| {
            let _ = tx.send(AppEvent::Action(Action::to(by, a)));
        };
        match effect {
            Effect::Work(job) => self.perform_work_here(job, &mut send),
            e => {
                if let Some(a) = self.perform_local(e) {
                    send(a);
                }
            }
        }
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// A review task in flight, on its PR (each PR screen owns its run).
struct RunningReview {
    pr: PrCoords,
    cancel: CancellationToken,
    handle: JoinHandle<()>,
}

/// The live console's effects, all off the UI loop, each on the lane [`Effect::lane`] names.
pub struct Effects {
    runner: Arc<EffectRunner>,
    tx: mpsc::UnboundedSender<AppEvent>,
    /// The ledger lane: one task performing its effects in order.
    ledger_lane: mpsc::UnboundedSender<Asked>,
    ledger_task: JoinHandle<()>,
    reviews: Vec<RunningReview>,
    /// Posts and thread actions in flight: closing waits for their answers (bounded).
    sends: Vec<JoinHandle<()>>,
    /// Post plans, PR opens and inbox loads in flight: they only read, so closing drops them.
    fetches: Vec<JoinHandle<()>>,
}

/// How long quitting waits for a review to end or a post to answer.
const DRAIN: Duration = Duration::from_secs(5);

impl Effects {
    /// Must be called inside a tokio runtime.
    pub fn new(runner: Arc<EffectRunner>, tx: mpsc::UnboundedSender<AppEvent>) -> Effects {
        let (ledger_lane, mut lane) = mpsc::unbounded_channel::<Asked>();
        let (r, events) = (runner.clone(), tx.clone());
        let ledger_task = tokio::spawn(async move {
            while let Some(Asked { by, effect }) = lane.recv().await {
                let (r, tx) = (r.clone(), events.clone());
                let _ = tokio::task::spawn_blocking(move || r.perform_here(by, effect, &tx)).await;
            }
        });
        Effects {
            runner,
            tx,
            ledger_lane,
            ledger_task,
            reviews: Vec::new(),
            sends: Vec::new(),
            fetches: Vec::new(),
        }
    }

    /// Starts every effect on its lane; none waits for its result.
    /// Every result goes to the screen that asked (the id the effect carries).
    pub fn dispatch(&mut self, effects: Vec<Asked>) {
        for Asked { by, effect: e } in effects {
            match e.lane() {
                Lane::Ledger => {
                    let _ = self.ledger_lane.send(Asked { by, effect: e });
                }
                Lane::Blocking => {
                    let (r, tx) = (self.runner.clone(), self.tx.clone());
                    tokio::task::spawn_blocking(move || r.perform_here(by, e, &tx));
                }
                Lane::Fetch => {
                    self.fetches.retain(|t| !t.is_finished());
                    let task = self.remote_task(by, e);
                    self.fetches.push(task);
                }
                Lane::Send => {
                    self.sends.retain(|t| !t.is_finished());
                    let task = self.remote_task(by, e);
                    self.sends.push(task);
                }
                Lane::Review => match e {
                    Effect::StartReview {
                        seq,
                        full,
                        snapshot,
                    } => self.start_review(by, seq, full, snapshot),
                    Effect::CancelReview { pr } => self.cancel_review(&pr),
                    _ => {}
                },
            }
        }
    }

    /// A task performing a fetch or send effect, its results sent as they come.
    fn remote_task(&self, by: ScreenId, e: Effect) -> JoinHandle<()> {
        let (r, tx) = (self.runner.clone(), self.tx.clone());
        tokio::spawn(async move {
            r.perform_remote(e, &mut |a| {
                let _ = tx.send(AppEvent::Action(Action::to(by, a)));
            })
            .await;
        })
    }

    /// Cancels the run in flight on `pr` (a run on another PR goes on).
    fn cancel_review(&mut self, pr: &PrCoords) {
        for r in self.reviews.iter().filter(|r| &r.pr == pr) {
            r.cancel.cancel();
        }
    }

    /// Cancels the run in flight on the snapshot's PR, then prepares and runs run `seq` in a
    /// task of its own; its results and progress go to the screen that asked (`by`).
    fn start_review(&mut self, by: ScreenId, seq: u64, full: bool, snapshot: Box<Snapshot>) {
        let pr = snapshot.pr.coords();
        self.cancel_review(&pr);
        self.reviews.retain(|r| !r.handle.is_finished());
        let cancel = CancellationToken::new();
        let (runner, tx, stop) = (self.runner.clone(), self.tx.clone(), cancel.clone());
        let handle = tokio::spawn(async move {
            let said = |a: Action| AppEvent::Action(Action::to(by, a));
            let prepared = {
                let runner = runner.clone();
                tokio::task::spawn_blocking(move || runner.prepare(seq, full, &snapshot)).await
            };
            let prepared = match prepared {
                Ok(Ok(p)) => p,
                Ok(Err(why)) => {
                    let _ = tx.send(said(Action::ReviewNotStarted { seq, why }));
                    return;
                }
                Err(e) => {
                    let why = e.to_string();
                    let _ = tx.send(said(Action::ReviewNotStarted { seq, why }));
                    return;
                }
            };
            let _ = tx.send(said(prepared.started.clone()));
            let (etx, mut erx) = mpsc::unbounded_channel();
            // The run's last event waits for its conclusion, so the two arrive together.
            let forward = async {
                let mut last = None;
                while let Some(event) = erx.recv().await {
                    if matches!(event, ReviewEvent::Finished(_)) {
                        last = Some(event);
                        continue;
                    }
                    let _ = tx.send(AppEvent::Review {
                        screen: by,
                        seq,
                        event,
                    });
                }
                last
            };
            let (ended, last) = tokio::join!(runner.run_prepared(prepared, etx, stop), forward);
            if let Some(event) = last {
                let _ = tx.send(AppEvent::Review {
                    screen: by,
                    seq,
                    event,
                });
            }
            for a in ended {
                // What could not be saved is the console's notice, as any other.
                let a = match a {
                    Action::Notice(n) => AppEvent::Action(Action::Notice(n)),
                    a => said(a),
                };
                let _ = tx.send(a);
            }
        });
        self.reviews.push(RunningReview { pr, cancel, handle });
    }

    /// The console is closing, first half: no review outlives it (cancel, then wait, bounded),
    /// reads in flight are dropped, and a post or thread action in flight gets a bounded wait
    /// for its answer — which lands in the event channel; the caller applies it (see
    /// `tui::close`) before [`Effects::shutdown`].
    pub async fn settle(&mut self) {
        for r in std::mem::take(&mut self.reviews) {
            r.cancel.cancel();
            let _ = tokio::time::timeout(DRAIN, r.handle).await;
        }
        for f in std::mem::take(&mut self.fetches) {
            f.abort();
        }
        for p in std::mem::take(&mut self.sends) {
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
