//! The run model: what one review run over a PR produced, aspect by aspect, as it is saved to
//! and loaded from the ledger (`<pr>/runs/<run-id>.json`) and read by `aggregate`, `compose` and
//! the console. Pure data and its sums (usage, estimated cost); the scheduler that produces it is
//! `runner`.

use chrono::{DateTime, Utc};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::aspect::Aspect;
use super::findings::{Finding, Rejected, Severity};
use super::llm::TokenUsage;
use super::prompt::DiffReport;
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
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

    /// True when any aspect failed or timed out.
    pub fn is_incomplete(&self) -> bool {
        self.aspects.iter().any(AspectOutcome::is_incomplete)
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
        let line = crate::review::compose::usage_line(&run).unwrap();
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
        let line = crate::review::compose::usage_line(&run).unwrap();
        assert!(line.contains("3 calls"), "{line}");
        assert!(line.contains("600000 read from the prompt cache, 200000 written to it"));
        assert!(line.contains("estimated cost $3.0300"), "{line}");
        let agg = crate::review::compose::first_review(&run);
        let json = crate::review::compose::json(&run, &agg, "");
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
