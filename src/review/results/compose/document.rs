//! The JSON document of `pr-shepherd review --format json` (docs/json-output.md), as serde
//! structs: each struct's field order is the document's key order (`serde_json` keeps it), and a
//! field without `skip_serializing_if` is always there, `null` when unknown.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::sorted;
use crate::policy::{Mode, TriggerKind};
use crate::review::aspect::Aspect;
use crate::review::findings::{Finding, Rejected, Severity, Verdict};
use crate::review::inputs::guidance::GuidanceRead;
use crate::review::inputs::prior::MetaFinding;
use crate::review::inputs::prompt::DiffReport;
use crate::review::results::aggregate::Aggregate;
use crate::review::results::classify::AddressedBy;
use crate::review::run::{
    AspectOutcome, AspectState, BudgetReport, ConcurrencyLowered, HoldReason, ReviewRun,
    VerificationReport,
};

/// The whole document: the run, its aspects, every raised finding flat (with its
/// classification), what was treated as addressed or no longer reported, and the body.
/// `posted` is `null` here; the command that posts fills it in.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewDocument<'a> {
    run_id: &'a str,
    pr: &'a str,
    head_sha: &'a str,
    mode: Mode,
    backend: &'a str,
    model: &'a str,
    started_at: DateTime<Utc>,
    elapsed_ms: u64,
    /// No aspect failed or timed out, and the run was not cancelled.
    complete: bool,
    usage: UsageTotals,
    /// Remarks on the run as a whole (the concurrency lowered, a server memory ignored, …).
    notes: &'a [String],
    /// The concurrency was lowered during the run (`null`: it was not).
    concurrency_lowered: Option<&'a ConcurrencyLowered>,
    aspects: Vec<AspectEntry<'a>>,
    findings: Vec<RaisedFinding<'a>>,
    mode_reason: &'a str,
    addressed: Vec<AddressedFinding<'a>>,
    not_reported: &'a [MetaFinding],
    /// Findings held back from the posted review (dismissed, not confirmed by the verifier,
    /// already raised by another reviewer), each with why.
    held_back: Vec<HeldBackEntry<'a>>,
    /// The repository's guidance files read from the base branch, at which commit, applied or
    /// not.
    guidance: &'a [GuidanceRead],
    guidance_error: Option<&'a str>,
    /// The head commit's failing checks given to the aspects, and why the checks could not be
    /// read; each absent when there is nothing to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    failing_checks: Option<FailingChecksEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks_error: Option<&'a str>,
    /// The caps and what stopped the run, when caps are configured.
    budget: Option<&'a BudgetReport>,
    counts: Counts,
    trigger_comment: Option<u64>,
    trigger_kind: Option<TriggerKind>,
    body: &'a str,
    posted: Option<()>,
}

/// How many failing checks, and of their annotations, the aspects were given.
#[derive(Debug, Serialize)]
struct FailingChecksEntry {
    checks: usize,
    annotations: usize,
}

/// A held-back finding: every finding field, why (`heldBack`: `by` and its details) and the
/// short form (`said`: "held back: confidence 40", "already raised by @login", …).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HeldBackEntry<'a> {
    #[serde(flatten)]
    finding: FindingEntry<'a>,
    held_back: &'a HoldReason,
    said: String,
}

/// Top-level usage totals; `estimatedCost` only when `[review.prices]` is configured.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct UsageTotals {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
    calls: u32,
    /// Calls whose answers came without usage (not in the counts).
    calls_without_usage: u32,
    /// "not reported by the server" (for N of M calls), or `null` when every call reported.
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimated_cost: Option<EstimatedCost>,
}

#[derive(Debug, Serialize)]
struct EstimatedCost {
    total: Option<f64>,
    prices: PricesPerMillion,
    per: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PricesPerMillion {
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write: f64,
}

/// One aspect: its state and accepted findings (most severe first), what broke the contract,
/// and what it cost. Token counts are `null` when the backend did not report them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AspectEntry<'a> {
    aspect: Aspect,
    state: AspectState,
    error: Option<&'a str>,
    findings: Vec<FindingEntry<'a>>,
    rejected: &'a [Rejected],
    raw_reply: Option<&'a str>,
    elapsed_ms: u64,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
    calls: u32,
    calls_without_usage: u32,
    diff: Option<&'a DiffReport>,
    note: Option<&'a str>,
    /// Findings merged into another with the same id (0 when none).
    merged: u32,
    verification: Option<&'a VerificationReport>,
}

/// A finding with every field (unlike the run file, which leaves out empty ones).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FindingEntry<'a> {
    id: &'a str,
    aspect: Aspect,
    severity: Severity,
    file: &'a str,
    line: Option<u32>,
    message: &'a str,
    suggested_fix: Option<&'a str>,
    outside_diff: bool,
    /// The repository rule it rests on, as the model named it.
    rule: Option<&'a str>,
    /// The verifier's score and quoted evidence, when the verifier confirmed it.
    verification: Option<&'a Verdict>,
}

/// A finding this review raises: new or unchanged, and since when it has been reported.
#[derive(Debug, Serialize)]
struct RaisedFinding<'a> {
    #[serde(flatten)]
    finding: FindingEntry<'a>,
    classification: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<History<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct History<'a> {
    reviews: u32,
    first_sha: &'a str,
}

/// A finding treated as addressed, and by what.
#[derive(Debug, Serialize)]
struct AddressedFinding<'a> {
    id: &'a str,
    aspect: &'a str,
    severity: &'a str,
    file: &'a str,
    line: Option<u32>,
    message: &'a str,
    by: &'a AddressedBy,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Counts {
    new: usize,
    unchanged: usize,
    addressed: usize,
    not_reported: usize,
    held_back: HeldBackCounts,
}

/// Held-back findings by what held them back.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HeldBackCounts {
    dismissed: usize,
    verifier: usize,
    already_raised: usize,
}

impl<'a> ReviewDocument<'a> {
    pub fn new(run: &'a ReviewRun, agg: &'a Aggregate, body: &'a str) -> ReviewDocument<'a> {
        let c = &agg.classification;
        let mut all: Vec<&Finding> = run.findings().collect();
        all.sort_by(|a, b| {
            let aspect = |f: &Finding| Aspect::ALL.iter().position(|x| *x == f.aspect);
            (a.severity, aspect(a), &a.file, a.line).cmp(&(b.severity, aspect(b), &b.file, b.line))
        });
        ReviewDocument {
            run_id: &run.run_id,
            pr: &run.pr,
            head_sha: &run.head_sha,
            mode: agg.mode,
            backend: &run.backend,
            model: &run.model,
            started_at: run.started_at,
            elapsed_ms: run.elapsed_ms,
            complete: !run.is_incomplete() && !run.cancelled,
            usage: UsageTotals::of(run),
            notes: &run.notes,
            concurrency_lowered: run.concurrency_lowered.as_ref(),
            aspects: run.aspects.iter().map(AspectEntry::of).collect(),
            findings: all
                .into_iter()
                .filter_map(|f| RaisedFinding::of(f, agg))
                .collect(),
            mode_reason: &agg.mode_reason,
            addressed: c
                .addressed
                .iter()
                .map(|(f, by)| AddressedFinding {
                    id: &f.id,
                    aspect: &f.aspect,
                    severity: &f.severity,
                    file: &f.file,
                    line: f.line,
                    message: &f.message,
                    by,
                })
                .collect(),
            not_reported: &c.not_reported,
            held_back: run
                .held_back()
                .map(|h| HeldBackEntry {
                    finding: FindingEntry::of(&h.finding),
                    held_back: &h.held_back,
                    said: h.held_back.said(),
                })
                .collect(),
            guidance: &run.context.guidance,
            guidance_error: run.context.guidance_error.as_deref(),
            failing_checks: (run.context.failing_checks > 0).then_some(FailingChecksEntry {
                checks: run.context.failing_checks,
                annotations: run.context.failing_annotations,
            }),
            checks_error: run.context.checks_error.as_deref(),
            budget: run.context.budget.as_ref(),
            counts: Counts {
                new: c.new.len(),
                unchanged: c.unchanged.len(),
                addressed: c.addressed.len(),
                not_reported: c.not_reported.len(),
                held_back: HeldBackCounts {
                    dismissed: held_by(run, "dismissal"),
                    verifier: held_by(run, "verifier"),
                    already_raised: held_by(run, "others"),
                },
            },
            trigger_comment: agg.trigger_comment,
            trigger_kind: agg.trigger_kind,
            body,
            posted: None,
        }
    }

    /// The document as a JSON value, for the command to add what it posted.
    pub fn to_value(&self) -> Value {
        // Structs, strings, numbers and string-keyed enums only: serde_json has nothing to refuse
        // here (`json!`, which this replaced, unwrapped the same conversion).
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl UsageTotals {
    fn of(run: &ReviewRun) -> UsageTotals {
        let u = run.usage();
        UsageTotals {
            input_tokens: u.tokens.input,
            output_tokens: u.tokens.output,
            cache_read_tokens: u.tokens.cache_read,
            cache_write_tokens: u.tokens.cache_write,
            calls: u.calls,
            calls_without_usage: u.calls_without_usage,
            note: super::usage_note(run),
            estimated_cost: run.prices.map(|p| EstimatedCost {
                total: run.estimated_cost(),
                prices: PricesPerMillion {
                    input: p.input,
                    output: p.output,
                    cache_read: p.cache_read,
                    cache_write: p.cache_write,
                },
                per: "1M tokens",
            }),
        }
    }
}

impl<'a> AspectEntry<'a> {
    fn of(a: &'a AspectOutcome) -> AspectEntry<'a> {
        AspectEntry {
            aspect: a.aspect,
            state: a.state,
            error: a.error.as_deref(),
            findings: sorted(&a.findings)
                .into_iter()
                .map(FindingEntry::of)
                .collect(),
            rejected: &a.rejected,
            raw_reply: a.raw_reply.as_deref(),
            elapsed_ms: a.elapsed_ms,
            input_tokens: a.tokens.input,
            output_tokens: a.tokens.output,
            cache_read_tokens: a.tokens.cache_read,
            cache_write_tokens: a.tokens.cache_write,
            calls: a.calls,
            calls_without_usage: a.calls_without_usage,
            diff: a.diff.as_ref(),
            note: a.note.as_deref(),
            merged: a.merged,
            verification: a.verification.as_ref(),
        }
    }
}

/// How many of the run's findings `by` held back (`dismissal`, `verifier`, `others`).
pub(crate) fn held_by(run: &ReviewRun, by: &str) -> usize {
    run.held_back().filter(|h| h.held_back.by() == by).count()
}

impl<'a> FindingEntry<'a> {
    fn of(f: &'a Finding) -> FindingEntry<'a> {
        FindingEntry {
            id: &f.id,
            aspect: f.aspect,
            severity: f.severity,
            file: &f.file,
            line: f.line,
            message: &f.message,
            suggested_fix: f.suggested_fix.as_deref(),
            outside_diff: f.outside_diff,
            rule: f.rule.as_deref(),
            verification: f.verified.as_ref(),
        }
    }
}

impl<'a> RaisedFinding<'a> {
    /// `None` for a finding this review does not raise (treated as addressed).
    fn of(f: &'a Finding, agg: &'a Aggregate) -> Option<RaisedFinding<'a>> {
        let classification = agg.class_of_id(&f.id)?;
        let history = agg.current.iter().find(|m| m.id == f.id).map(|m| {
            let (reviews, first_sha) = m.history();
            History { reviews, first_sha }
        });
        Some(RaisedFinding {
            finding: FindingEntry::of(f),
            classification,
            history,
        })
    }
}
