//! What became of each finding, per repository: `<state>/repos/<owner>/<repo>/decisions.jsonl`,
//! one JSON line per decision, appended (see `repo.rs`). The maintainer's dismissals live here
//! too (kind `dismissed`, with the finding's fingerprint and the reason), so a dismissed finding
//! is recognised on every later review of its PR, and `pr-shepherd stats` measures precision
//! from what was kept, edited, dropped, posted and later addressed.
//!
//! The ledger only stores and reads decisions; which ones a review, a post or a dismissal makes
//! is decided above it (`review::outcome`, `commands::finding`).

use serde::{Deserialize, Serialize};

use super::repo::RepoId;
use super::{Ledger, LedgerError};
use crate::pr::{Fingerprint, PrCoords};

/// The log's file name in the repository's folder.
pub const DECISIONS_FILE: &str = "decisions.jsonl";

/// What became of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DecisionKind {
    /// An aspect reported it (before any screening).
    Proposed,
    /// Held back from the posted review: by the verifier, a dismissal or another reviewer
    /// having raised it (`by`).
    HeldBack,
    /// The maintainer dismissed it, with a reason (`lesson`: for the whole repository).
    Dismissed,
    /// Posted from the console unchanged.
    Kept,
    /// Posted from the console with its text changed by the maintainer.
    Edited,
    /// Removed from the console's draft before posting.
    Dropped,
    /// In a posted review (from the console or headless).
    Posted,
    /// Addressed after it was posted: a trusted marker reply, or no longer reported after a push.
    Addressed,
}

impl DecisionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Proposed => "proposed",
            DecisionKind::HeldBack => "heldBack",
            DecisionKind::Dismissed => "dismissed",
            DecisionKind::Kept => "kept",
            DecisionKind::Edited => "edited",
            DecisionKind::Dropped => "dropped",
            DecisionKind::Posted => "posted",
            DecisionKind::Addressed => "addressed",
        }
    }
}

/// One decision about one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Unix seconds.
    pub at: i64,
    /// The PR's number.
    pub pr: u64,
    /// The review run it came from, when it came from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The finding's id (`PS-…`).
    pub finding: String,
    pub aspect: String,
    pub kind: DecisionKind,
    /// Who or what decided: `verifier`, `dismissal`, `others` (held back); `reply`, `push`
    /// (addressed); `maintainer`, `headless` (posted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Why: the dismissal's reason, the verifier's verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A dismissal: the finding's content, to recognise it reworded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// A dismissal: the finding's message as it was dismissed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A dismissal that became a lesson for the whole repository.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lesson: bool,
    /// Proposed: the tokens of the aspect's calls that proposed it, shared among its findings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

impl Decision {
    /// A decision of `kind` about `finding` (of `aspect`) on PR `pr`, at `at`.
    pub fn new(at: i64, pr: u64, finding: &str, aspect: &str, kind: DecisionKind) -> Decision {
        Decision {
            at,
            pr,
            run: None,
            finding: finding.to_owned(),
            aspect: aspect.to_owned(),
            kind,
            by: None,
            reason: None,
            fingerprint: None,
            message: None,
            lesson: false,
            tokens: None,
        }
    }
}

impl Ledger {
    /// Appends decisions to the repository's log (fsynced before it returns).
    pub fn record_decisions(
        &self,
        repo: &RepoId,
        decisions: &[Decision],
    ) -> Result<(), LedgerError> {
        self.append_lines(repo, DECISIONS_FILE, decisions)
    }

    /// Every decision recorded for the repository, in the order they were made.
    pub fn decisions(&self, repo: &RepoId) -> Result<Vec<Decision>, LedgerError> {
        self.read_lines(repo, DECISIONS_FILE)
    }

    /// The maintainer's dismissals on one PR, oldest first.
    pub fn dismissals(&self, pr: &PrCoords) -> Result<Vec<Decision>, LedgerError> {
        Ok(self
            .decisions(&RepoId::of(pr))?
            .into_iter()
            .filter(|d| d.kind == DecisionKind::Dismissed && d.pr == pr.number)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords(repo: &str, number: u64) -> PrCoords {
        PrCoords {
            host: None,
            owner: "acme".into(),
            repo: repo.into(),
            number,
        }
    }

    #[test]
    fn dismissals_are_per_pr_and_survive_other_decisions() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let pr = coords("rivet", 7);
        let mut d = Decision::new(1, 7, "PS-0000000001", "perf", DecisionKind::Dismissed);
        d.reason = Some("intended".into());
        d.fingerprint = Some(Fingerprint::of("perf", "a.rs", Some(3), "slow loop here"));
        let other_pr = Decision { pr: 8, ..d.clone() };
        let proposed = Decision::new(1, 7, "PS-0000000002", "perf", DecisionKind::Proposed);
        l.record_decisions(&RepoId::of(&pr), &[d.clone(), other_pr, proposed])
            .unwrap();
        assert_eq!(l.dismissals(&pr).unwrap(), [d]);
        assert!(l.dismissals(&coords("other", 7)).unwrap().is_empty());
        assert_eq!(l.decisions(&RepoId::of(&pr)).unwrap().len(), 3);
        let text =
            std::fs::read_to_string(l.repo_dir(&RepoId::of(&pr)).unwrap().join(DECISIONS_FILE))
                .unwrap();
        assert!(text.starts_with(r#"{"at":1,"pr":7,"finding":"PS-0000000001","aspect":"perf","kind":"dismissed","reason":"intended","fingerprint":{"#), "{text}");
    }
}
