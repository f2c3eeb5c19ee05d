//! The run model: what one review run over a PR produced, aspect by aspect, as it is saved to
//! and loaded from the ledger (`<pr>/runs/<run-id>.json`) and read by `aggregate`, `compose` and
//! the console. Pure data and its sums (usage, estimated cost); the scheduler that produces it is
//! `engine::scheduler`.

use chrono::{DateTime, Utc};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::aspect::Aspect;
use super::findings::{Finding, Rejected, Severity};
use super::inputs::guidance::GuidanceRead;
use super::inputs::prompt::DiffReport;
use super::llm::TokenUsage;
use super::settings::Prices;

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
    /// Summed over the aspect's calls.
    #[serde(flatten)]
    pub tokens: TokenUsage,
    /// LLM calls made (one per chunk; retries inside a call are not counted).
    #[serde(default)]
    pub calls: u32,
    /// Calls whose answers came without usage (the server reported none): `tokens` leaves them
    /// out, and the review says "not reported by the server" rather than a count.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub calls_without_usage: u32,
    /// What the diff budget did to this aspect's prompt (absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffReport>,
    /// A backend remark (e.g. "replayed the answer recorded for step 0").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Findings that had the id of an earlier one of this aspect and were merged into it: the
    /// id is over the aspect, the file and the message with its numbers left out (so a moved
    /// line keeps it), so two findings that differ only in numbers are one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub merged: u32,
    /// Findings held back from the posted review (dismissed, not confirmed by the verifier,
    /// already raised by another reviewer), each with why: listed in the JSON and the console,
    /// counted in the posted review, never silently dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_back: Vec<HeldBack>,
    /// What the verifier did for this aspect (absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<VerificationReport>,
}

/// A finding held back from the posted review, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldBack {
    #[serde(flatten)]
    pub finding: Finding,
    pub held_back: HoldReason,
}

/// Why a finding was held back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "camelCase")]
pub enum HoldReason {
    /// The maintainer dismissed it on this PR: the same id, or the same point reworded (its
    /// fingerprint).
    #[serde(rename_all = "camelCase")]
    Dismissed {
        /// The dismissed finding's id (this one's when matched by id).
        dismissed: String,
        /// `id` or `fingerprint`.
        matched: String,
        reason: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        lesson: bool,
    },
    /// The verifier did not confirm it.
    #[serde(rename_all = "camelCase")]
    Verifier {
        why: Unconfirmed,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        confidence: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        evidence: Option<String>,
        threshold: u8,
        /// Why the verifier's call failed, for [`Unconfirmed::Failed`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Another reviewer (a person or another bot) already raised it on the same code.
    #[serde(rename_all = "camelCase")]
    AlreadyRaised {
        login: String,
        url: String,
        thread: String,
    },
}

/// Why the verifier did not confirm a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Unconfirmed {
    /// Scored below `verify_threshold`.
    BelowThreshold,
    /// The quoted evidence is not a line of the diff.
    EvidenceNotInDiff,
    /// No evidence quoted (or the finding's file is not in the diff).
    NoEvidence,
    /// The verifier's answer had no verdict for it.
    NoVerdict,
    /// The verifier's call failed or its answer could not be read.
    Failed,
    /// The budget stopped the run before it was verified.
    Budget,
}

impl HoldReason {
    /// The short form shown beside the finding: `held back: confidence 40`, `dismissed: …`,
    /// `already raised by @login`.
    pub fn said(&self) -> String {
        match self {
            HoldReason::Dismissed {
                reason,
                lesson,
                matched,
                ..
            } => format!(
                "dismissed{}{}: {}",
                if *lesson { " (repository lesson)" } else { "" },
                if matched == "fingerprint" {
                    ", reworded"
                } else {
                    ""
                },
                crate::sanitize::one_line(reason)
            ),
            HoldReason::Verifier {
                why, confidence, ..
            } => match (why, confidence) {
                (Unconfirmed::BelowThreshold, Some(c)) => format!("held back: confidence {c}"),
                (Unconfirmed::BelowThreshold, None) => "held back: no confidence given".to_owned(),
                (Unconfirmed::EvidenceNotInDiff, _) => {
                    "held back: its quoted evidence is not in the diff".to_owned()
                }
                (Unconfirmed::NoEvidence, _) => {
                    "held back: no evidence from the diff quoted".to_owned()
                }
                (Unconfirmed::NoVerdict, _) => "held back: the verifier gave no verdict".to_owned(),
                (Unconfirmed::Failed, _) => "held back: the verifier failed".to_owned(),
                (Unconfirmed::Budget, _) => {
                    "held back: not verified (the budget stopped the run)".to_owned()
                }
            },
            HoldReason::AlreadyRaised { login, .. } => {
                format!("already raised by @{}", crate::sanitize::one_line(login))
            }
        }
    }

    /// Which screen held it back: `dismissal`, `verifier` or `others`.
    pub fn by(&self) -> &'static str {
        match self {
            HoldReason::Dismissed { .. } => "dismissal",
            HoldReason::Verifier { .. } => "verifier",
            HoldReason::AlreadyRaised { .. } => "others",
        }
    }
}

/// The verifier's work for one aspect.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerificationReport {
    /// Verifier calls made (also counted in the aspect's `calls`).
    pub calls: u32,
    /// Their tokens (also counted in the aspect's tokens).
    #[serde(flatten)]
    pub tokens: TokenUsage,
    pub threshold: u8,
    /// Findings it confirmed (kept) and held back.
    pub confirmed: usize,
    pub held_back: usize,
    /// Why a verifier call failed, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the budget allowed and what the run spent against it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_max_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_max_cost: Option<f64>,
    /// Spent on the repository the same UTC day when the run began (every run's calls in the
    /// state dir's spend log, those in flight at their estimate). With the state dir each call is
    /// checked against the log as it is then, not against this.
    #[serde(default)]
    pub spent_today_input_tokens: u64,
    #[serde(default)]
    pub spent_today_cost: f64,
    /// Why the run stopped before its next call, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

// The costs are finite sums of validated prices and counts.
impl Eq for BudgetReport {}

/// What a run was given besides the PR: the repository's guidance, the maintainer's lessons and
/// dismissals, other reviewers' remarks, the budget and the verifier's threshold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFacts {
    /// The guidance files read from the base branch (applied or not).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guidance: Vec<GuidanceRead>,
    /// Why the guidance could not be read, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guidance_error: Option<String>,
    /// Repository lessons and this PR's dismissals given to the aspects.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lessons: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dismissals: usize,
    /// Open threads and comments by other reviewers given to the aspects.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub others: usize,
    /// Failing checks at the head commit given to the aspects, and their annotations given.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failing_checks: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failing_annotations: usize,
    /// Why the head commit's checks could not be read, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetReport>,
    /// The verifier's threshold, when the verifier was on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_threshold: Option<u8>,
    /// What of the run could not be recorded in the state dir (its spend, its decisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
}

/// A count of zero is left out of the JSON.
fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

impl RunFacts {
    pub fn is_empty(&self) -> bool {
        *self == RunFacts::default()
    }

    /// Why the budget stopped the run, if it did.
    pub fn budget_stop(&self) -> Option<&str> {
        self.budget.as_ref().and_then(|b| b.stopped.as_deref())
    }
}

impl AspectOutcome {
    /// An outcome with no findings, calls or time yet.
    pub(crate) fn new(aspect: Aspect, state: AspectState, error: Option<String>) -> AspectOutcome {
        AspectOutcome {
            aspect,
            state,
            error,
            findings: Vec::new(),
            rejected: Vec::new(),
            raw_reply: None,
            elapsed_ms: 0,
            tokens: TokenUsage::default(),
            calls: 0,
            calls_without_usage: 0,
            diff: None,
            note: None,
            merged: 0,
            held_back: Vec::new(),
            verification: None,
        }
    }

    /// Failed or timed out: the review is incomplete (exit code 3 headless).
    pub fn is_incomplete(&self) -> bool {
        matches!(self.state, AspectState::Failed | AspectState::TimedOut)
    }
}

/// Token usage summed over aspects and calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub tokens: TokenUsage,
    pub calls: u32,
    /// Calls whose answers came without usage (left out of `tokens`).
    pub calls_without_usage: u32,
}

impl Usage {
    fn add(&mut self, o: &AspectOutcome) {
        self.tokens.add(&o.tokens);
        self.calls += o.calls;
        self.calls_without_usage += o.calls_without_usage;
    }

    /// Whether every count is unknown because no call reported usage (not because none was
    /// made): the review says "not reported" instead of a count.
    pub fn unreported(&self) -> bool {
        self.calls_without_usage > 0 && self.tokens == TokenUsage::default()
    }

    /// The estimated cost at `prices` (per million tokens), when input and output are known.
    /// Input not read from or written to the cache is charged at the input price.
    pub fn cost(&self, prices: &Prices) -> Option<f64> {
        let input = self.tokens.input?;
        let output = self.tokens.output?;
        let read = self.tokens.cache_read.unwrap_or(0);
        let write = self.tokens.cache_write.unwrap_or(0);
        let plain = input.saturating_sub(read + write);
        let per = |n: u64, price: f64| n as f64 * price / 1_000_000.0;
        Some(
            per(plain, prices.input)
                + per(read, prices.cache_read)
                + per(write, prices.cache_write)
                + per(output, prices.output),
        )
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
    /// The configured prices, for the estimated cost (absent when none are configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<Prices>,
    /// Remarks on the run as a whole (the concurrency lowered, a server memory ignored, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The concurrency was lowered during the run, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_lowered: Option<ConcurrencyLowered>,
    /// What the run was given besides the PR and what held it (guidance, lessons, remarks by
    /// others, the budget, the verifier).
    #[serde(default, skip_serializing_if = "RunFacts::is_empty")]
    pub context: RunFacts,
}

/// The run lowered its concurrency: the server kept breaking concurrent answer streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConcurrencyLowered {
    /// The calls at once before (the configured concurrency, or an earlier lowering).
    pub from: usize,
    /// The calls at once for the rest of the run.
    pub to: usize,
    pub reason: String,
}

impl ReviewRun {
    /// Every accepted finding, aspect by aspect.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.aspects.iter().flat_map(|a| a.findings.iter())
    }

    /// True when any aspect failed or timed out, or the budget stopped the run.
    pub fn is_incomplete(&self) -> bool {
        self.aspects.iter().any(AspectOutcome::is_incomplete)
            || self.context.budget_stop().is_some()
    }

    /// Every held-back finding, aspect by aspect.
    pub fn held_back(&self) -> impl Iterator<Item = &HeldBack> {
        self.aspects.iter().flat_map(|a| a.held_back.iter())
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings().filter(|f| f.severity == severity).count()
    }

    /// Usage over every aspect and call.
    pub fn usage(&self) -> Usage {
        let mut u = Usage::default();
        for a in &self.aspects {
            u.add(a);
        }
        u
    }

    /// The estimated cost, when prices are configured and the backend reported tokens.
    pub fn estimated_cost(&self) -> Option<f64> {
        self.usage().cost(self.prices.as_ref()?)
    }

    pub fn tokens(&self) -> (u64, u64) {
        self.aspects.iter().fold((0, 0), |(i, o), a| {
            (
                i + a.tokens.input.unwrap_or(0),
                o + a.tokens.output.unwrap_or(0),
            )
        })
    }
}

/// A fresh run id: UTC time plus random hex, sortable by time (`20261129T214500Z-3fa2c1`).
pub fn new_run_id(now: DateTime<Utc>) -> String {
    let r: u32 = rand::rng().random_range(0..0x100_0000);
    format!("{}-{r:06x}", now.format("%Y%m%dT%H%M%SZ"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_totals_and_the_estimated_cost_at_configured_prices() {
        let mut a = AspectOutcome::new(Aspect::Correctness, AspectState::Done, None);
        a.tokens.input = Some(1_000_000);
        a.tokens.output = Some(60_000);
        a.tokens.cache_read = Some(600_000);
        a.tokens.cache_write = Some(200_000);
        a.calls = 2;
        let mut b = AspectOutcome::new(Aspect::Perf, AspectState::Done, None);
        b.tokens.output = Some(40_000);
        b.calls = 1;
        let skipped = AspectOutcome::new(Aspect::Tests, AspectState::Skipped, None);
        let mut run = ReviewRun {
            run_id: "r".into(),
            pr: "o/r#1".into(),
            head_sha: "abc".into(),
            backend: "anthropic".into(),
            model: "m".into(),
            started_at: "2026-11-29T21:00:00Z".parse().unwrap(),
            elapsed_ms: 1,
            cancelled: false,
            aspects: vec![a, b, skipped],
            prices: None,
            notes: Vec::new(),
            concurrency_lowered: None,
            context: RunFacts::default(),
        };
        let u = run.usage();
        assert_eq!(
            u,
            Usage {
                tokens: TokenUsage {
                    input: Some(1_000_000),
                    output: Some(100_000),
                    cache_read: Some(600_000),
                    cache_write: Some(200_000),
                },
                calls: 3,
                calls_without_usage: 0,
            }
        );
        // No prices configured: no estimate, anywhere.
        assert_eq!(run.estimated_cost(), None);
        let line = crate::review::results::compose::usage_line(&run).unwrap();
        assert!(!line.contains("cost"), "{line}");
        run.prices = Some(Prices {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        });
        // 200k plain × 3 + 600k read × 0.3 + 200k written × 3.75 + 100k out × 15, per million.
        let cost = run.estimated_cost().unwrap();
        assert!((cost - 3.03).abs() < 1e-9, "{cost}");
        let line = crate::review::results::compose::usage_line(&run).unwrap();
        assert!(line.contains("3 calls"), "{line}");
        assert!(line.contains("600000 read from the prompt cache, 200000 written to it"));
        assert!(line.contains("estimated cost $3.0300"), "{line}");
        let agg = crate::review::results::compose::first_review(&run);
        let json = crate::review::results::compose::json(&run, &agg, "");
        assert_eq!(json["usage"]["cacheReadTokens"], 600_000);
        assert!((json["usage"]["estimatedCost"]["total"].as_f64().unwrap() - 3.03).abs() < 1e-9);
        assert_eq!(
            json["aspects"][1]["cacheReadTokens"],
            serde_json::Value::Null
        );
    }

    #[test]
    fn run_ids_sort_by_time() {
        let a = new_run_id("2026-11-29T21:00:00Z".parse().unwrap());
        let b = new_run_id("2026-11-29T21:00:01Z".parse().unwrap());
        assert!(a < b);
        assert!(a.starts_with("20261129T210000Z-"));
    }

    #[test]
    fn stored_outcomes_keep_their_json_to_the_byte() {
        // Run files hold AspectOutcome as serde writes it: the token fields sit flat between
        // `elapsedMs` and `calls`, absent when unknown.
        let pretty = r#"{
  "aspect": "perf",
  "state": "done",
  "findings": [],
  "elapsedMs": 0,
  "inputTokens": 1200,
  "cacheReadTokens": 1000,
  "calls": 2,
  "note": "n"
}"#;
        let a: AspectOutcome = serde_json::from_str(pretty).unwrap();
        assert_eq!(serde_json::to_string_pretty(&a).unwrap(), pretty);
        let flat = r#"{"aspect":"tests","state":"failed","error":"e","findings":[],"elapsedMs":0,"outputTokens":7,"cacheWriteTokens":3,"calls":0}"#;
        let b: AspectOutcome = serde_json::from_str(flat).unwrap();
        assert_eq!(serde_json::to_string(&b).unwrap(), flat);
        let mut summed = Usage::default();
        summed.add(&a);
        summed.add(&b);
        assert_eq!(summed.calls, 2);
        assert_eq!(
            summed.cost(&Prices {
                input: 1_000_000.0,
                output: 0.0,
                cache_read: 0.0,
                cache_write: 0.0,
            }),
            Some(197.0),
            "input not read from or written to the cache"
        );
    }
}
