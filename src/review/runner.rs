//! The runner: one tokio task per aspect, a concurrency bound, per-aspect and overall timeouts,
//! cancellation, and progress as [`ReviewEvent`]s over one channel.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rand::Rng;
use serde::{Deserialize, Serialize};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::aspect::Aspect;
use super::findings::{Finding, Rejected, Severity, parse_reply};
use super::llm::{Completion, LlmClient, LlmError};
use super::prompt::{self, DiffReport, Prompts};
use super::settings::ReviewSettings;
use crate::pr::PrMeta;

/// Progress of a run, one value per state change of an aspect (plus `Running` ticks about once a
/// second while a call is in flight), ending with exactly one `Finished`.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewEvent {
    /// Waiting for a concurrency slot.
    Queued { aspect: Aspect },
    /// The call is in flight; sent when it starts and then about once a second.
    Running { aspect: Aspect, elapsed: Duration },
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
    /// Every aspect has a final state; the whole run.
    Finished(Box<ReviewRun>),
}

/// The final state of one aspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AspectState {
    Done,
    Failed,
    TimedOut,
    Skipped,
    Cancelled,
}

impl AspectState {
    pub fn as_str(self) -> &'static str {
        match self {
            AspectState::Done => "done",
            AspectState::Failed => "failed",
            AspectState::TimedOut => "timed_out",
            AspectState::Skipped => "skipped",
            AspectState::Cancelled => "cancelled",
        }
    }
}

/// What one aspect produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AspectOutcome {
    pub aspect: Aspect,
    pub state: AspectState,
    /// Why it failed, timed out, was skipped or cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub findings: Vec<Finding>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Rejected>,
    /// The model's reply verbatim, kept when it failed to parse or had rejected findings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_reply: Option<String>,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// What the diff budget did to this aspect's prompt (absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffReport>,
    /// A backend remark (e.g. "replayed the answer recorded for step 0").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl AspectOutcome {
    fn new(aspect: Aspect, state: AspectState, error: Option<String>) -> AspectOutcome {
        AspectOutcome {
            aspect,
            state,
            error,
            findings: Vec::new(),
            rejected: Vec::new(),
            raw_reply: None,
            elapsed_ms: 0,
            input_tokens: None,
            output_tokens: None,
            diff: None,
            note: None,
        }
    }

    /// Failed or timed out: the review is incomplete (exit code 3 headless).
    pub fn is_incomplete(&self) -> bool {
        matches!(self.state, AspectState::Failed | AspectState::TimedOut)
    }
}

/// One review run over a PR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRun {
    pub run_id: String,
    /// `owner/repo#number`.
    pub pr: String,
    pub head_sha: String,
    pub backend: String,
    pub model: String,
    pub started_at: DateTime<Utc>,
    pub elapsed_ms: u64,
    pub cancelled: bool,
    /// In [`Aspect::ALL`] order.
    pub aspects: Vec<AspectOutcome>,
}

impl ReviewRun {
    /// Every accepted finding, aspect by aspect.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.aspects.iter().flat_map(|a| a.findings.iter())
    }

    /// True when any aspect failed or timed out.
    pub fn is_incomplete(&self) -> bool {
        self.aspects.iter().any(AspectOutcome::is_incomplete)
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings().filter(|f| f.severity == severity).count()
    }

    pub fn tokens(&self) -> (u64, u64) {
        self.aspects.iter().fold((0, 0), |(i, o), a| {
            (
                i + a.input_tokens.unwrap_or(0),
                o + a.output_tokens.unwrap_or(0),
            )
        })
    }
}

/// A fresh run id: UTC time plus random hex, sortable by time (`20261129T214500Z-3fa2c1`).
pub fn new_run_id(now: DateTime<Utc>) -> String {
    let r: u32 = rand::rng().random_range(0..0x100_0000);
    format!("{}-{r:06x}", now.format("%Y%m%dT%H%M%SZ"))
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
    prior: Vec<crate::review::prior::MetaFinding>,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
) -> ReviewRun {
    let prior = Arc::new(prior);
    let started_at = Utc::now();
    let start = Instant::now();
    let overall_deadline = tokio::time::Instant::now() + settings.overall_timeout();
    let aspect_timeout = settings.aspect_timeout();
    let sem = Arc::new(Semaphore::new(settings.concurrency.max(1)));
    let diff_files: Arc<HashSet<String>> =
        Arc::new(pr.files.iter().map(|f| f.path.clone()).collect());

    let mut outcomes: Vec<AspectOutcome> = Vec::new();
    let mut set = JoinSet::new();
    let mut ids = HashMap::new();
    for aspect in Aspect::ALL {
        let rule = settings.skip_rule(aspect);
        if let Some(reason) =
            rule.and_then(|r| r.skip_reason(pr.files.iter().map(|f| f.path.as_str())))
        {
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
        let job = Job {
            aspect,
            pr: pr.clone(),
            client: client.clone(),
            prompts: prompts.clone(),
            budget: settings.diff_budget(aspect),
            prior: prior.clone(),
            diff_files: diff_files.clone(),
            events: events.clone(),
            cancel: cancel.clone(),
            sem: sem.clone(),
            aspect_timeout,
            overall_deadline,
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
    let run = ReviewRun {
        run_id: new_run_id(started_at),
        pr: format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
        head_sha: pr.head_sha.clone(),
        backend: client.kind().as_str().to_owned(),
        model: client.model(),
        started_at,
        elapsed_ms: millis(start.elapsed()),
        cancelled: cancel.is_cancelled(),
        aspects: outcomes,
    };
    let _ = events.send(ReviewEvent::Finished(Box::new(run.clone())));
    run
}

/// Two remarks on one aspect as one note (`; `-separated).
fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

struct Job {
    aspect: Aspect,
    pr: Arc<PrMeta>,
    client: Arc<LlmClient>,
    prompts: Arc<Prompts>,
    budget: usize,
    prior: Arc<Vec<crate::review::prior::MetaFinding>>,
    diff_files: Arc<HashSet<String>>,
    events: mpsc::UnboundedSender<ReviewEvent>,
    cancel: CancellationToken,
    sem: Arc<Semaphore>,
    aspect_timeout: Duration,
    overall_deadline: tokio::time::Instant,
}

enum Ended {
    Answer(Result<Completion, LlmError>),
    Cancelled,
    TimedOut(&'static str),
}

impl Job {
    async fn run(self) -> AspectOutcome {
        let aspect = self.aspect;
        // Wait for a slot (cancel and the overall deadline still apply while queued).
        let permit = tokio::select! {
            biased;
            () = self.cancel.cancelled() => None,
            () = tokio::time::sleep_until(self.overall_deadline) => None,
            p = self.sem.clone().acquire_owned() => p.ok(),
        };
        let Some(_permit) = permit else {
            return self.finish_early(
                Duration::ZERO,
                "the overall timeout struck before it started",
            );
        };

        let start = Instant::now();
        let deadline =
            (tokio::time::Instant::now() + self.aspect_timeout).min(self.overall_deadline);
        let which_timeout = if deadline == self.overall_deadline {
            "the overall timeout"
        } else {
            "the per-aspect timeout"
        };
        let mine: Vec<_> = self
            .prior
            .iter()
            .filter(|f| f.aspect == aspect.as_str())
            .cloned()
            .collect();
        let prompt = prompt::build_with_prior(aspect, &self.pr, &self.prompts, self.budget, &mine);
        let ended = self.wait(&prompt, start, deadline, which_timeout).await;
        let elapsed = start.elapsed();
        let mut out = AspectOutcome::new(aspect, AspectState::Done, None);
        out.elapsed_ms = millis(elapsed);
        out.diff = Some(prompt.diff);
        self.conclude(out, ended, elapsed)
    }

    async fn wait(
        &self,
        prompt: &prompt::Prompt,
        start: Instant,
        deadline: tokio::time::Instant,
        which_timeout: &'static str,
    ) -> Ended {
        let aspect = self.aspect;
        let call = self.client.complete(prompt);
        tokio::pin!(call);
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Ended::Cancelled,
                () = tokio::time::sleep_until(deadline) => return Ended::TimedOut(which_timeout),
                r = &mut call => return Ended::Answer(r),
                _ = ticker.tick() => {
                    let _ = self.events.send(ReviewEvent::Running { aspect, elapsed: start.elapsed() });
                }
            }
        }
    }

    fn conclude(&self, mut out: AspectOutcome, ended: Ended, elapsed: Duration) -> AspectOutcome {
        let aspect = self.aspect;
        match ended {
            Ended::Cancelled => {
                out.state = AspectState::Cancelled;
                out.error = Some("the run was cancelled".into());
                let _ = self.events.send(ReviewEvent::Cancelled { aspect });
            }
            Ended::TimedOut(which) => {
                out.state = AspectState::TimedOut;
                out.error = Some(format!(
                    "no answer within {which} ({:.1} s)",
                    elapsed.as_secs_f64()
                ));
                let _ = self.events.send(ReviewEvent::TimedOut {
                    aspect,
                    after: elapsed,
                });
            }
            Ended::Answer(Err(e)) => {
                let why = e.to_string();
                out.state = AspectState::Failed;
                out.error = Some(why.clone());
                let _ = self.events.send(ReviewEvent::Failed { aspect, why });
            }
            Ended::Answer(Ok(c)) => {
                out.input_tokens = c.input_tokens;
                out.output_tokens = c.output_tokens;
                out.note = c.note;
                let files: HashSet<&str> = self.diff_files.iter().map(String::as_str).collect();
                match parse_reply(aspect, &c.text, &files) {
                    Ok(parsed) => {
                        out.note = join_notes(out.note.take(), parsed.note());
                        out.findings = parsed.findings;
                        if !parsed.rejected.is_empty() {
                            out.raw_reply = Some(c.text);
                        }
                        out.rejected = parsed.rejected;
                        let _ = self.events.send(ReviewEvent::Done {
                            aspect,
                            findings: out.findings.len(),
                            elapsed,
                        });
                    }
                    Err(e) => {
                        let why = format!("unparseable reply: {e}");
                        out.state = AspectState::Failed;
                        out.error = Some(why.clone());
                        out.raw_reply = Some(c.text);
                        let _ = self.events.send(ReviewEvent::Failed { aspect, why });
                    }
                }
            }
        }
        out
    }

    fn finish_early(&self, elapsed: Duration, timeout_why: &str) -> AspectOutcome {
        let aspect = self.aspect;
        if self.cancel.is_cancelled() {
            let _ = self.events.send(ReviewEvent::Cancelled { aspect });
            AspectOutcome::new(
                aspect,
                AspectState::Cancelled,
                Some("the run was cancelled".into()),
            )
        } else {
            let _ = self.events.send(ReviewEvent::TimedOut {
                aspect,
                after: elapsed,
            });
            AspectOutcome::new(aspect, AspectState::TimedOut, Some(timeout_why.into()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pr::RecordedAnswer;
    use crate::review::llm::{ReplayClient, ReplaySource};
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
            LlmClient::from_settings(&settings, Some(ReplaySource { answers, step: 0 })).unwrap(),
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

    #[tokio::test]
    async fn a_cut_diff_is_stated_in_the_run_and_the_review() {
        let answers: Vec<_> = Aspect::ALL
            .into_iter()
            .map(|a| answer(a, r#"{"findings": []}"#))
            .collect();
        let mut settings = ReviewSettings::default();
        settings.diff_budgets.insert(Aspect::Tests, 1_500);
        let (run, _) = run_with(answers, settings).await;
        let tests = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Tests)
            .unwrap();
        assert!(tests.diff.as_ref().unwrap().is_cut());
        let perf = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Perf)
            .unwrap();
        assert!(!perf.diff.as_ref().unwrap().is_cut());
        let md =
            crate::review::compose::markdown(&run, &crate::review::compose::first_review(&run));
        assert!(
            md.contains("_Not everything was reviewed — diff budget 1500 chars:"),
            "{md}"
        );
        assert!(md.contains("cut to each aspect's budget"));
    }

    #[test]
    fn run_ids_sort_by_time() {
        let a = new_run_id("2026-11-29T21:00:00Z".parse().unwrap());
        let b = new_run_id("2026-11-29T21:00:01Z".parse().unwrap());
        assert!(a < b);
        assert!(a.starts_with("20261129T210000Z-"));
    }
}
