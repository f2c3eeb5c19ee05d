//! The aspect review engine: six reviewers (correctness, conventions, security, perf, tests,
//! architecture) run as concurrent LLM calls over a PR's diff; their replies are parsed
//! tolerantly into findings (one contract, sent as structured output where the backend has it)
//! and composed into one `## PR Shepherd Review`. `inputs::prior` (earlier Shepherd reviews read
//! from the PR itself) and `results::classify` (new / unchanged / addressed) are pure.
//!
//! The files are grouped in rooms: `inputs` (what a call is given), `engine` (the scheduler and
//! its calls), `results` (what comes out), `llm` (the backends); at the top what the front ends
//! use — `flow`, `run`, `findings`, `aspect`, `settings`, `glob`, `stats`. The rooms import one
//! way: `inputs` ← `findings` ← `llm` ← `run` ← `results` ← `engine` ← `flow`.
//!
//! ```text
//! PrMeta ─ inputs::prompt::RunPrompts (playbook + fenced, stripped PR data, one boundary per
//!          run)
//!        ─ inputs::chunk::plan (the diff in chunks within the budget) ─ one Prompt per aspect
//!          and chunk (shared prefix first, the aspect's instructions last)
//!        ─ llm::LlmClient::complete_observed (anthropic | openai: streamed, cache-marked;
//!          command | replay) — the first call warms the cache, the rest follow
//!        ─ findings::parse_reply (tolerant) ─ engine::scheduler ─ run::ReviewRun
//!                                                                 └ ledger: <pr>/runs/<run-id>.json
//!        ─ results::compose::{markdown, json}
//! ```
//!
//! # Consuming progress (console)
//!
//! `engine::scheduler::run_review_with_prior` (and [`run_review`], the same without prior
//! findings) reports through one enum, [`ReviewEvent`], over a
//! `tokio::sync::mpsc::UnboundedSender`, and returns the finished [`ReviewRun`];
//! `flow::PreparedReview::conclude` stores it. The console (`tui::Runner::run_prepared`) starts a
//! run like this and keeps drawing:
//!
//! ```ignore
//! let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
//! let cancel = tokio_util::sync::CancellationToken::new();
//! tokio::spawn(run_review_with_prior(pr, &settings, client, prompts, prior, tx, cancel.clone()));
//! // forwarding: every `ev` from `rx` becomes `AppEvent::Review { seq, event: ev }`, then
//! // `app.update(Action::Review { seq, event })`; events of a replaced run (another `seq`) are
//! // dropped.
//! // quit / discard / new run: `cancel.cancel()` — the run still ends with `Finished`.
//! ```
//!
//! Per aspect the events go `Queued` → `Running{elapsed}` (at start, then about once a second;
//! `Streaming{tokens}` as streamed answer text arrives) →
//! one of `Done{findings}`, `Failed{why}`, `TimedOut{after}`, `Cancelled`; an aspect excluded by a
//! skip rule sends only `Skipped{reason}`. The last event of a run is always
//! `Finished(Box<ReviewRun>)`, carrying the same value `run_review` returns. Every string in an
//! event is safe to draw after `sanitize` (no secrets; model text is stripped of hidden content).

pub(crate) mod aspect;
pub(crate) mod engine;
pub mod findings;
pub(crate) mod flow;
pub(crate) mod glob;
pub mod inputs;
pub mod llm;
pub mod results;
pub(crate) mod run;
pub mod settings;
pub(crate) mod stats;

pub use aspect::Aspect;
pub use engine::scheduler::{ReviewEvent, run_review};
pub use findings::{Finding, Severity};
pub use run::{AspectOutcome, AspectState, HeldBack, HoldReason, ReviewRun};
pub use settings::ReviewSettings;

/// A review run is what the ledger's run files hold (`<pr>/runs/<run-id>.json`).
impl crate::ledger::StoredRun for ReviewRun {
    fn run_id(&self) -> &str {
        &self.run_id
    }
}
