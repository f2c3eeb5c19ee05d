//! The aggregated review (pure): a run's findings classified against the earlier Shepherd
//! reviews on the PR, and the hidden metadata the posted comment carries.

use std::collections::{HashMap, HashSet};

use super::classify::{AddressedBy, Classification, addressed_by_replies, classify};
use crate::policy::Mode;
use crate::pr::Snapshot;
use crate::review::findings::Finding;
use crate::review::inputs::prior::{META_VERSION, MetaFinding, PriorReviews, ReviewMeta};
use crate::review::run::{AspectState, ReviewRun};

/// Everything the composer needs beyond the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregate {
    pub mode: Mode,
    /// Why this mode, stated in the review.
    pub mode_reason: String,
    /// The run's findings, in run order, as remembered.
    pub current: Vec<MetaFinding>,
    pub classification: Classification,
    /// How many earlier own reviews were read (0 in full mode).
    pub prior_reviews: usize,
    /// Lookalike reviews by other authors, ignored.
    pub lookalikes: usize,
    pub trigger_comment: Option<u64>,
    pub trigger_kind: Option<crate::policy::TriggerKind>,
    /// A gate an explicit invocation overrode, stated in the review.
    pub override_note: Option<String>,
    /// Earlier findings of aspects that did not complete this time (failed, timed out, skipped,
    /// cancelled): neither confirmed nor cleared, and carried forward in the metadata.
    pub not_assessed: Vec<MetaFinding>,
}

/// How the review was asked for.
#[derive(Debug, Clone, Default)]
pub struct AggregateRequest {
    /// `--all`, the console's full-review key, or `/review all`.
    pub full: bool,
    /// The literal marker that ends an addressing reply.
    pub reply_marker: String,
    /// Finding ids the maintainer marked addressed in the console.
    pub console_addressed: HashSet<String>,
    pub trigger_comment: Option<u64>,
    pub trigger_kind: Option<crate::policy::TriggerKind>,
    pub override_note: Option<String>,
}

pub fn to_meta(f: &Finding) -> MetaFinding {
    MetaFinding {
        id: f.id.clone(),
        aspect: f.aspect.as_str().to_owned(),
        severity: f.severity.as_str().to_owned(),
        file: f.file.clone(),
        line: f.line,
        message: f.message.clone(),
        reviews: 0,
        first_sha: None,
        shortened: false,
    }
}

/// The mode a review will run in, before running it (incremental needs the prior findings in
/// the prompts).
pub fn choose_mode(prior: &PriorReviews, full: bool) -> (Mode, String) {
    if full {
        return (
            Mode::Full,
            "requested (`--all`, the console or `/review all`), so earlier reviews were ignored"
                .to_owned(),
        );
    }
    match prior.own.len() {
        0 => (Mode::Full, "the first review of this PR".to_owned()),
        n => (
            Mode::Incremental,
            format!(
                "read {n} earlier Shepherd review{} on this PR",
                if n == 1 { "" } else { "s" }
            ),
        ),
    }
}

/// Classifies the run against the prior reviews found on the snapshot.
pub fn aggregate(
    run: &ReviewRun,
    snapshot: &Snapshot,
    prior: &PriorReviews,
    req: &AggregateRequest,
) -> Aggregate {
    let (mode, mode_reason) = choose_mode(prior, req.full);
    let mut agg = Aggregate::first(run);
    agg.mode_reason = mode_reason;
    agg.lookalikes = prior.lookalikes.len();
    agg.trigger_comment = req.trigger_comment;
    agg.trigger_kind = req.trigger_kind;
    agg.override_note = req.override_note.clone();
    if mode == Mode::Incremental {
        let replies: HashMap<String, AddressedBy> =
            addressed_by_replies(snapshot, &req.reply_marker, &prior.reply_trust);
        agg.mode = mode;
        agg.classification = classify(&agg.current, prior, &replies, &req.console_addressed);
        agg.prior_reviews = prior.own.len();
        // "No longer reported" only means something for an aspect that ran to the end.
        let completed: Vec<&str> = run
            .aspects
            .iter()
            .filter(|a| a.state == AspectState::Done)
            .map(|a| a.aspect.as_str())
            .collect();
        let (reported, unassessed): (Vec<_>, Vec<_>) =
            std::mem::take(&mut agg.classification.not_reported)
                .into_iter()
                .partition(|f| completed.contains(&f.aspect.as_str()));
        agg.classification.not_reported = reported;
        agg.not_assessed = unassessed;
        // A finding held back this time (dismissed, not confirmed, raised by someone else) is
        // not "no longer reported": it is counted with the held back.
        let held: HashSet<&str> = run.held_back().map(|h| h.finding.id.as_str()).collect();
        agg.classification
            .not_reported
            .retain(|f| !held.contains(f.id.as_str()));
        // Findings history: an unchanged finding counts one more review since it was first
        // raised; a new one starts here.
        let earlier: HashMap<String, MetaFinding> = prior
            .findings()
            .into_iter()
            .map(|f| (f.id.clone(), f))
            .collect();
        for i in agg.classification.unchanged.clone() {
            if let Some(p) = earlier.get(&agg.current[i].id) {
                let (n, first) = p.history();
                agg.current[i].reviews = n + 1;
                agg.current[i].first_sha = Some(
                    if first.is_empty() {
                        &run.head_sha
                    } else {
                        first
                    }
                    .to_owned(),
                );
            }
        }
    }
    agg
}

impl Aggregate {
    /// A full review with no earlier reviews: every finding is new.
    pub fn first(run: &ReviewRun) -> Aggregate {
        let (mode, mode_reason) = choose_mode(&PriorReviews::default(), false);
        let current: Vec<MetaFinding> = run
            .findings()
            .map(|f| MetaFinding {
                reviews: 1,
                first_sha: Some(run.head_sha.clone()),
                ..to_meta(f)
            })
            .collect();
        Aggregate {
            mode,
            mode_reason,
            classification: Classification {
                new: (0..current.len()).collect(),
                ..Classification::default()
            },
            current,
            prior_reviews: 0,
            lookalikes: 0,
            trigger_comment: None,
            trigger_kind: None,
            override_note: None,
            not_assessed: Vec::new(),
        }
    }

    /// "new" or "unchanged" for a current finding by index; `None` when it is suppressed as
    /// addressed.
    pub fn class_of(&self, index: usize) -> Option<&'static str> {
        if self.classification.new.contains(&index) {
            Some("new")
        } else if self.classification.unchanged.contains(&index) {
            Some("unchanged")
        } else {
            None
        }
    }

    /// The class of a current finding by id (findings with one id share their class).
    pub fn class_of_id(&self, id: &str) -> Option<&'static str> {
        let i = self.current.iter().position(|f| f.id == id)?;
        self.class_of(i)
    }

    /// The metadata the posted comment carries.
    pub fn meta(&self, head_sha: &str) -> ReviewMeta {
        let raised: Vec<MetaFinding> = self
            .current
            .iter()
            .enumerate()
            .filter(|(i, _)| self.class_of(*i).is_some())
            .map(|(_, f)| f.clone())
            .chain(self.not_assessed.iter().cloned())
            .collect();
        ReviewMeta {
            version: META_VERSION,
            mode: self.mode,
            head_sha: head_sha.to_owned(),
            trigger_comment: self.trigger_comment,
            trigger_kind: self
                .trigger_kind
                .filter(|k| *k != crate::policy::TriggerKind::Comment),
            findings: raised,
            addressed: self
                .classification
                .addressed
                .iter()
                .map(|(f, _)| f.clone())
                .collect(),
        }
    }
}
