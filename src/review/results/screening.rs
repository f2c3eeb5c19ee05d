//! Screening an aspect's findings before they can be posted (pure): a finding the maintainer
//! dismissed on this PR — the same id, or the same point reworded (its
//! [`crate::pr::Fingerprint`]) — and a finding that repeats another reviewer's open thread on
//! the same file and a nearby line are moved from the aspect's findings to its held-back list,
//! each with why. Held back means listed (JSON, console) and counted in the posted review,
//! never posted and never silently dropped.

use crate::ledger::{Decision, DecisionKind, Lesson};
use crate::pr::{Fingerprint, covered_by, key_terms, lines_near};
use crate::review::findings::Finding;
use crate::review::inputs::others::Remark;
use crate::review::inputs::prompt::strip_untrusted;
use crate::review::run::{AspectOutcome, HeldBack, HoldReason};
use crate::sanitize::one_line;

/// A finding the maintainer dismissed on this PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dismissal {
    pub finding: String,
    pub fingerprint: Fingerprint,
    pub reason: String,
    pub lesson: bool,
    pub message: String,
}

impl Dismissal {
    /// The dismissals among a PR's decisions (a dismissal without a fingerprint still matches
    /// by id).
    pub fn from_decisions(decisions: &[Decision]) -> Vec<Dismissal> {
        decisions
            .iter()
            .filter(|d| d.kind == DecisionKind::Dismissed)
            .map(|d| Dismissal {
                finding: d.finding.clone(),
                fingerprint: d.fingerprint.clone().unwrap_or_else(|| Fingerprint {
                    aspect: d.aspect.clone(),
                    file: String::new(),
                    line: None,
                    terms: Vec::new(),
                }),
                reason: d.reason.clone().unwrap_or_default(),
                lesson: d.lesson,
                message: d.message.clone().unwrap_or_default(),
            })
            .collect()
    }

    /// The dismissal as one prompt line.
    pub fn prompt_line(&self) -> String {
        let fp = &self.fingerprint;
        let at = fp.line.map_or(String::new(), |l| format!(":{l}"));
        format!(
            "[{}] `{}{at}`: {} — dismissed because: {}",
            one_line(&fp.aspect),
            one_line(&strip_untrusted(&fp.file).text),
            one_line(&strip_untrusted(&self.message).text),
            one_line(&strip_untrusted(&self.reason).text)
        )
    }
}

/// A repository lesson as one prompt line.
pub fn lesson_line(l: &Lesson) -> String {
    format!(
        "[{}] `{}`: {} — dismissed on #{} because: {}",
        one_line(&l.aspect),
        one_line(&strip_untrusted(&l.file).text),
        one_line(&strip_untrusted(&l.message).text),
        l.pr,
        one_line(&strip_untrusted(&l.reason).text)
    )
}

/// What findings are screened against.
#[derive(Debug, Clone, Default)]
pub struct Screening {
    pub dismissals: Vec<Dismissal>,
    pub others: Vec<Remark>,
}

/// A finding's fingerprint.
pub fn fingerprint(f: &Finding) -> Fingerprint {
    Fingerprint::of(f.aspect.as_str(), &f.file, f.line, &f.message)
}

impl Screening {
    /// Why `f` is held back, if it is.
    pub fn hold(&self, f: &Finding) -> Option<HoldReason> {
        if let Some(d) = self.dismissals.iter().find(|d| d.finding == f.id) {
            return Some(HoldReason::Dismissed {
                dismissed: d.finding.clone(),
                matched: "id".into(),
                reason: d.reason.clone(),
                lesson: d.lesson,
            });
        }
        let fp = fingerprint(f);
        if let Some(d) = self.dismissals.iter().find(|d| d.fingerprint.matches(&fp)) {
            return Some(HoldReason::Dismissed {
                dismissed: d.finding.clone(),
                matched: "fingerprint".into(),
                reason: d.reason.clone(),
                lesson: d.lesson,
            });
        }
        let terms: Vec<String> = key_terms(&f.message).into_iter().collect();
        self.others
            .iter()
            .find(|r| {
                r.path.as_deref() == Some(f.file.as_str())
                    && lines_near(r.line, f.line)
                    && covered_by(&terms, &r.terms)
            })
            .map(|r| HoldReason::AlreadyRaised {
                login: r.login.clone(),
                url: r.url.clone(),
                thread: r.id.clone(),
            })
    }

    /// Moves every aspect's held-back findings of `run` to its held-back list: a stored run
    /// read again holds back what the maintainer dismissed since it was made, as the console
    /// did when the dismissal was made.
    pub fn apply_to_run(&self, run: &mut crate::review::ReviewRun) {
        for a in &mut run.aspects {
            self.apply(a);
        }
    }

    /// Moves the outcome's held-back findings to its held-back list.
    pub fn apply(&self, out: &mut AspectOutcome) {
        if self.dismissals.is_empty() && self.others.is_empty() {
            return;
        }
        let findings = std::mem::take(&mut out.findings);
        for f in findings {
            match self.hold(&f) {
                Some(reason) => out.held_back.push(HeldBack {
                    finding: f,
                    held_back: reason,
                }),
                None => out.findings.push(f),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::aspect::Aspect;
    use crate::review::run::AspectState;

    fn finding(file: &str, line: u32, message: &str) -> Finding {
        Finding::for_test(file, line, message)
    }

    #[test]
    fn dismissed_by_id_or_reworded_and_already_raised_are_held_back() {
        let dismissed = finding(
            "src/retry.rs",
            41,
            "The retry loop never stops on HTTP 429.",
        );
        let screening = Screening {
            dismissals: vec![Dismissal {
                finding: dismissed.id.clone(),
                fingerprint: fingerprint(&dismissed),
                reason: "bounded by the caller".into(),
                lesson: false,
                message: dismissed.message.clone(),
            }],
            others: vec![Remark {
                login: "coderabbitai[bot]".into(),
                url: "https://github.com/o/r/pull/1#discussion_r9".into(),
                id: "PRRT_9".into(),
                path: Some("src/auth.rs".into()),
                line: Some(12),
                terms: key_terms("⚠️ The token is written to the debug log in plain text.")
                    .into_iter()
                    .collect(),
                excerpt: String::new(),
            }],
        };
        let mut out = AspectOutcome::new(Aspect::Correctness, AspectState::Done, None);
        out.findings = vec![
            dismissed.clone(),
            finding(
                "src/retry.rs",
                43,
                "Retrying on 429 never stops: the loop is unbounded.",
            ),
            finding(
                "src/auth.rs",
                14,
                "The token is logged in plain text at debug level.",
            ),
            finding(
                "src/auth.rs",
                90,
                "The token is logged in plain text at debug level.",
            ),
            finding(
                "src/other.rs",
                41,
                "The retry loop never stops on HTTP 429.",
            ),
        ];
        screening.apply(&mut out);
        let said: Vec<String> = out.held_back.iter().map(|h| h.held_back.said()).collect();
        assert_eq!(
            said,
            [
                "dismissed: bounded by the caller",
                "dismissed, reworded: bounded by the caller",
                "already raised by @coderabbitai[bot]",
            ]
        );
        let kept: Vec<(&str, Option<u32>)> = out
            .findings
            .iter()
            .map(|f| (f.file.as_str(), f.line))
            .collect();
        assert_eq!(
            kept,
            [("src/auth.rs", Some(90)), ("src/other.rs", Some(41))]
        );
    }
}
