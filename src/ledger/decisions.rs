//! What became of each finding, per repository: `<state>/repos/<owner>/<repo>/decisions.jsonl`,
//! one JSON line per decision, appended (see `repo.rs`). The maintainer's dismissals live here
//! too (kind `dismissed`, with the finding's fingerprint and the reason), so a dismissed finding
//! is recognised on every later review of its PR, and `pr-shepherd stats` measures precision
//! from what was kept, edited, dropped, posted and later addressed.
//!
//! The ledger only stores and reads decisions; which ones a review, a post or a dismissal makes
//! is decided above it (`review::results::outcome`, `commands::finding`).

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
    /// Where a posted, kept, edited or dropped finding was decided: the Shepherd comment
    /// ([`VIA_COMMENT`]) or the pending review ([`VIA_REVIEW`]); none on other kinds (and on
    /// records older than the field, read as deciding both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
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
    /// The fields cut to fit a record's bound (`message`, `terms`, …; see
    /// [`Decision::bounded`]), when any was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut: Vec<String>,
}

/// The Shepherd comment decided it (posted in it, kept, edited or dropped from its draft).
pub const VIA_COMMENT: &str = "comment";
/// The pending review decided it (its draft kept, edited or dropped, and submitted).
pub const VIA_REVIEW: &str = "review";

/// Bytes a record keeps of its message or reason (cut at a character, `…` added).
pub const MAX_TEXT_BYTES: usize = 8 * 1024;
/// Bytes a record keeps of a name (the finding's id, aspect, file, run, who decided).
pub const MAX_NAME_BYTES: usize = 512;
/// Terms a dismissal's fingerprint keeps (the first ones, in their sorted order: a finding's
/// whole list still matches the kept ones, see `pr::fingerprint::similar_terms`).
pub const MAX_TERMS: usize = 256;
/// Bytes a record keeps of one term.
pub const MAX_TERM_BYTES: usize = 64;

/// Cuts `text` to at most `max` bytes at a character boundary (the cut ends in `…`); true when
/// it was cut.
fn cut_text(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    true
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
            via: None,
            reason: None,
            fingerprint: None,
            message: None,
            lesson: false,
            tokens: None,
            cut: Vec::new(),
        }
    }

    /// The decision as a record keeps it: every text within its bound ([`MAX_TEXT_BYTES`],
    /// [`MAX_NAME_BYTES`], [`MAX_TERMS`] of [`MAX_TERM_BYTES`]), each field that was cut named in
    /// `cut`. A model's finding can be megabytes long; the log's lines stay small, so a line torn
    /// by a killed writer is always found and dropped, and reading the log stays cheap.
    pub fn bounded(mut self) -> Decision {
        let mut cut = std::mem::take(&mut self.cut);
        let mut note = |field: &str, was_cut: bool| {
            if was_cut && !cut.iter().any(|c| c == field) {
                cut.push(field.to_owned());
            }
        };
        note("finding", cut_text(&mut self.finding, MAX_NAME_BYTES));
        note("aspect", cut_text(&mut self.aspect, MAX_NAME_BYTES));
        for (field, name) in [("run", &mut self.run), ("by", &mut self.by)] {
            if let Some(v) = name.as_mut() {
                note(field, cut_text(v, MAX_NAME_BYTES));
            }
        }
        if let Some(r) = self.reason.as_mut() {
            note("reason", cut_text(r, MAX_TEXT_BYTES));
        }
        if let Some(m) = self.message.as_mut() {
            note("message", cut_text(m, MAX_TEXT_BYTES));
        }
        if let Some(fp) = self.fingerprint.as_mut() {
            note("file", cut_text(&mut fp.file, MAX_NAME_BYTES));
            note("aspect", cut_text(&mut fp.aspect, MAX_NAME_BYTES));
            let mut terms_cut = fp.terms.len() > MAX_TERMS;
            fp.terms.truncate(MAX_TERMS);
            for t in &mut fp.terms {
                terms_cut |= cut_text(t, MAX_TERM_BYTES);
            }
            if terms_cut {
                fp.terms.sort();
                fp.terms.dedup();
            }
            note("terms", terms_cut);
        }
        self.cut = cut;
        self
    }
}

impl Ledger {
    /// Appends decisions to the repository's log (fsynced before it returns), each
    /// [`Decision::bounded`].
    pub fn record_decisions(
        &self,
        repo: &RepoId,
        decisions: &[Decision],
    ) -> Result<(), LedgerError> {
        let bounded: Vec<Decision> = decisions.iter().cloned().map(Decision::bounded).collect();
        self.append_lines(repo, DECISIONS_FILE, &bounded)
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

    #[test]
    fn a_huge_dismissal_is_kept_bounded_and_says_what_was_cut() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let pr = coords("rivet", 7);
        // 1.7 MB of distinct words, as a model's runaway finding.
        let message: String = (0..200_000).map(|i| format!("w{i}ord ")).collect();
        // As `review::results::outcome::dismissal` makes it.
        let mut d = Decision::new(1, 7, "PS-0000000009", "perf", DecisionKind::Dismissed);
        d.by = Some("maintainer".into());
        d.reason = Some("why ".repeat(10_000));
        d.fingerprint = Some(Fingerprint::of("perf", "a.rs", Some(3), &message));
        d.message = Some(message.clone());
        let full = d.fingerprint.clone().unwrap();
        assert!(full.terms.len() > MAX_TERMS);
        l.record_decisions(&RepoId::of(&pr), &[d]).unwrap();
        let path = l.repo_dir(&RepoId::of(&pr)).unwrap().join(DECISIONS_FILE);
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size < 64 * 1024, "{size} bytes");
        let back = l.dismissals(&pr).unwrap();
        assert_eq!(back.len(), 1);
        let kept = &back[0];
        assert_eq!(kept.cut, ["reason", "message", "terms"]);
        assert!(kept.message.as_deref().unwrap().ends_with('…'));
        assert!(message.starts_with(kept.message.as_deref().unwrap().trim_end_matches('…')));
        // The kept terms still recognize the finding in full.
        assert!(kept.fingerprint.as_ref().unwrap().matches(&full));
        // A small decision is written as it is.
        let small = Decision::new(1, 7, "PS-1", "perf", DecisionKind::Proposed);
        assert_eq!(small.clone().bounded(), small);
    }
}
