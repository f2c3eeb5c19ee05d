//! Precision from the maintainer's own decisions (pure): per aspect and overall, over a
//! repository's decision log and spend log (`ledger::decisions`, `ledger::spend`).
//!
//! Each count is of distinct findings (a PR's finding id), however many runs reported it:
//!
//! - **proposed**: reported by an aspect (held back or not);
//! - **kept**: posted from the console as composed or **edited** (edited ones are kept too);
//!   **dropped**: removed from the draft; **dismissed**: dismissed with a reason;
//! - **posted**: in a posted review; **addressed**: posted, then marked addressed by a trusted
//!   reply or no longer reported after a push;
//! - **held back** by the verifier, by a dismissal, or as already raised by another reviewer.
//!
//! Rates: kept ÷ proposed (the maintainer's precision), addressed ÷ posted; tokens per kept
//! finding: the tokens of the runs (their aspects' calls, the verifier's included) ÷ kept.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::aspect::Aspect;
use crate::ledger::{Decision, DecisionKind, Spend};

/// The counts and rates of one aspect, or of all.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rates {
    pub proposed: usize,
    pub kept: usize,
    pub edited: usize,
    pub dropped: usize,
    pub dismissed: usize,
    pub posted: usize,
    pub addressed: usize,
    pub held_back_by_verifier: usize,
    pub held_back_by_dismissals: usize,
    pub already_raised: usize,
    pub tokens: u64,
    /// kept ÷ proposed; `None` when nothing was proposed.
    pub kept_rate: Option<f64>,
    /// addressed ÷ posted; `None` when nothing was posted.
    pub addressed_rate: Option<f64>,
    /// tokens ÷ kept; `None` when nothing was kept.
    pub tokens_per_kept: Option<f64>,
}

impl Rates {
    /// Whether the maintainer decided anything yet: kept, edited, dropped, dismissed or posted.
    pub fn decided(&self) -> bool {
        self.kept + self.edited + self.dropped + self.dismissed + self.posted > 0
    }
}

/// One repository's precision.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoStats {
    pub repository: String,
    pub prs: usize,
    pub runs: usize,
    /// Per aspect, in the aspects' order (only aspects with a decision or tokens).
    pub aspects: Vec<(Aspect, Rates)>,
    pub overall: Rates,
}

type Key = (u64, String);

#[derive(Default)]
struct Sets {
    by: BTreeMap<DecisionKind, BTreeSet<Key>>,
    held: BTreeMap<&'static str, BTreeSet<Key>>,
    tokens: u64,
}

impl Sets {
    fn add(&mut self, d: &Decision) {
        let key = (d.pr, d.finding.clone());
        if d.kind == DecisionKind::HeldBack {
            let by = match d.by.as_deref() {
                Some("verifier") => "verifier",
                Some("dismissal") => "dismissal",
                Some("others") => "others",
                _ => "other",
            };
            self.held.entry(by).or_default().insert(key.clone());
        }
        self.by.entry(d.kind).or_default().insert(key);
    }

    fn rates(&self) -> Rates {
        let n = |k: DecisionKind| self.by.get(&k).map_or(0, BTreeSet::len);
        let set = |k: DecisionKind| self.by.get(&k).cloned().unwrap_or_default();
        let kept: BTreeSet<Key> = set(DecisionKind::Kept)
            .union(&set(DecisionKind::Edited))
            .cloned()
            .collect();
        let posted = set(DecisionKind::Posted);
        let addressed = set(DecisionKind::Addressed).intersection(&posted).count();
        let held = |by: &str| self.held.get(by).map_or(0, BTreeSet::len);
        let ratio = |a: f64, b: usize| (b > 0).then(|| a / b as f64);
        Rates {
            proposed: n(DecisionKind::Proposed),
            kept: kept.len(),
            edited: n(DecisionKind::Edited),
            dropped: n(DecisionKind::Dropped),
            dismissed: n(DecisionKind::Dismissed),
            posted: posted.len(),
            addressed,
            held_back_by_verifier: held("verifier"),
            held_back_by_dismissals: held("dismissal"),
            already_raised: held("others"),
            tokens: self.tokens,
            kept_rate: (kept.len()
                + n(DecisionKind::Dropped)
                + n(DecisionKind::Dismissed)
                + n(DecisionKind::Posted)
                > 0)
            .then(|| ratio(kept.len() as f64, n(DecisionKind::Proposed)))
            .flatten(),
            addressed_rate: ratio(addressed as f64, posted.len()),
            tokens_per_kept: ratio(self.tokens as f64, kept.len()),
        }
    }
}

/// The precision of `repository` from its decisions and spend made at or after `since` (Unix
/// seconds).
pub fn compute(repository: &str, decisions: &[Decision], spend: &[Spend], since: i64) -> RepoStats {
    let mut all = Sets::default();
    let mut per: BTreeMap<Aspect, Sets> = BTreeMap::new();
    let mut prs = BTreeSet::new();
    for d in decisions.iter().filter(|d| d.at >= since) {
        prs.insert(d.pr);
        all.add(d);
        if let Ok(a) = d.aspect.parse::<Aspect>() {
            per.entry(a).or_default().add(d);
        }
    }
    let runs = crate::ledger::spend_runs(spend.iter().filter(|s| s.at >= since));
    for s in spend.iter().filter(|s| s.at >= since) {
        prs.insert(s.pr);
        all.tokens += s.input_tokens + s.output_tokens;
        for (name, t) in &s.aspects {
            if let Ok(a) = name.parse::<Aspect>() {
                per.entry(a).or_default().tokens += t;
            }
        }
    }
    RepoStats {
        repository: repository.to_owned(),
        prs: prs.len(),
        runs,
        aspects: Aspect::ALL
            .into_iter()
            .filter_map(|a| per.get(&a).map(|s| (a, s.rates())))
            .collect(),
        overall: all.rates(),
    }
}

/// A rate as a percentage (`60%`), `–` without a denominator.
pub fn percent(r: Option<f64>) -> String {
    r.map_or("–".to_owned(), |r| format!("{:.0}%", r * 100.0))
}

impl RepoStats {
    /// The Markdown table of `pr-shepherd stats`.
    pub fn markdown(&self, since: Option<&str>) -> String {
        let mut s = format!(
            "## Precision — {}{}\n\n{} · {} · {} tokens\n\n",
            self.repository,
            since.map_or(String::new(), |d| format!(" (since {d})")),
            crate::plural::count(self.prs, "PR"),
            crate::plural::count(self.runs, "review run"),
            self.overall.tokens
        );
        s.push_str("| Aspect | Proposed | Kept (edited) | Kept rate | Dropped | Dismissed | Posted | Addressed | Addressed rate | Held back: verifier | Held back: dismissals | Already raised | Tokens per kept |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        let row = |name: &str, r: &Rates| {
            format!(
                "| {name} | {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.proposed,
                r.kept,
                r.edited,
                percent(r.kept_rate),
                r.dropped,
                r.dismissed,
                r.posted,
                r.addressed,
                percent(r.addressed_rate),
                r.held_back_by_verifier,
                r.held_back_by_dismissals,
                r.already_raised,
                r.tokens_per_kept
                    .map_or("–".to_owned(), |t| format!("{t:.0}"))
            )
        };
        for (a, r) in &self.aspects {
            s.push_str(&row(a.title(), r));
        }
        s.push_str(&row("**All**", &self.overall));
        s.push_str(
            "\nKept rate = kept ÷ proposed (the maintainer's precision; kept includes edited); \
             addressed rate = addressed ÷ posted. Only reviews posted from the console have a \
             maintainer's keep, edit or drop.\n",
        );
        s
    }

    /// One line for the console, counted from the decisions recorded: kept (edited), dropped
    /// and dismissed of those proposed, addressed of those posted, and what later runs held back;
    /// "no decisions yet" until the maintainer made one.
    pub fn line(&self) -> String {
        let o = &self.overall;
        if !o.decided() {
            return format!(
                "precision in {}: no decisions yet ({} proposed)",
                self.repository,
                crate::plural::count(o.proposed, "finding")
            );
        }
        format!(
            "precision in {}: kept {} of {} proposed ({}) · dismissed {} · dropped {} · edited {} · addressed {} of {} posted ({}) · held back {} by the verifier, {} by dismissals, {} already raised",
            self.repository,
            o.kept,
            o.proposed,
            percent(o.kept_rate),
            o.dismissed,
            o.dropped,
            o.edited,
            o.addressed,
            o.posted,
            percent(o.addressed_rate),
            o.held_back_by_verifier,
            o.held_back_by_dismissals,
            o.already_raised
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(pr: u64, finding: &str, aspect: &str, kind: DecisionKind, by: Option<&str>) -> Decision {
        let mut d = Decision::new(100, pr, finding, aspect, kind);
        d.by = by.map(str::to_owned);
        d
    }

    fn spend(pr: u64, perf: u64, tests: u64) -> Spend {
        Spend {
            at: 100,
            day: "2026-12-01".into(),
            pr,
            run: format!("r{pr}"),
            input_tokens: perf + tests - 100,
            output_tokens: 100,
            cost: None,
            aspects: [("perf".to_owned(), perf), ("tests".to_owned(), tests)].into(),
            ..Spend::default()
        }
    }

    /// Three PRs with known decisions.
    fn three_prs() -> (Vec<Decision>, Vec<Spend>) {
        use DecisionKind::*;
        let mut v = Vec::new();
        // PR 1: three perf findings; one kept, one edited, one dropped; the kept one addressed.
        for f in ["A", "B", "C"] {
            v.push(d(1, f, "perf", Proposed, None));
        }
        v.push(d(1, "A", "perf", Posted, Some("maintainer")));
        v.push(d(1, "A", "perf", Kept, Some("maintainer")));
        v.push(d(1, "B", "perf", Posted, Some("maintainer")));
        v.push(d(1, "B", "perf", Edited, Some("maintainer")));
        v.push(d(1, "C", "perf", Dropped, Some("maintainer")));
        v.push(d(1, "A", "perf", Addressed, Some("push")));
        // A second run proposes A again: still one finding.
        v.push(d(1, "A", "perf", Proposed, None));
        // PR 2: one tests finding held back by the verifier, one dismissed and then held back.
        v.push(d(2, "D", "tests", Proposed, None));
        v.push(d(2, "D", "tests", HeldBack, Some("verifier")));
        v.push(d(2, "E", "tests", Proposed, None));
        v.push(d(2, "E", "tests", Dismissed, None));
        v.push(d(2, "E", "tests", HeldBack, Some("dismissal")));
        // PR 3: one perf finding already raised by another bot, one tests finding kept but
        // never addressed.
        v.push(d(3, "F", "perf", Proposed, None));
        v.push(d(3, "F", "perf", HeldBack, Some("others")));
        v.push(d(3, "G", "tests", Proposed, None));
        v.push(d(3, "G", "tests", Posted, Some("maintainer")));
        v.push(d(3, "G", "tests", Kept, Some("maintainer")));
        // Before the window.
        let mut old = d(4, "Z", "perf", Proposed, None);
        old.at = 10;
        v.push(old);
        (
            v,
            vec![spend(1, 3_000, 0), spend(2, 0, 1_000), spend(3, 1_000, 500)],
        )
    }

    #[test]
    fn rates_over_three_prs_with_known_decisions() {
        let (decisions, spend) = three_prs();
        let s = compute("acme/rivet", &decisions, &spend, 50);
        assert_eq!((s.prs, s.runs), (3, 3));
        let o = &s.overall;
        assert_eq!(
            (
                o.proposed,
                o.kept,
                o.edited,
                o.dropped,
                o.dismissed,
                o.posted,
                o.addressed
            ),
            (7, 3, 1, 1, 1, 3, 1)
        );
        assert_eq!(
            (
                o.held_back_by_verifier,
                o.held_back_by_dismissals,
                o.already_raised
            ),
            (1, 1, 1)
        );
        assert_eq!(o.kept_rate, Some(3.0 / 7.0));
        assert_eq!(o.addressed_rate, Some(1.0 / 3.0));
        assert_eq!(o.tokens, 5_500);
        assert_eq!(o.tokens_per_kept, Some(5_500.0 / 3.0));
        let perf = &s
            .aspects
            .iter()
            .find(|(a, _)| *a == Aspect::Perf)
            .unwrap()
            .1;
        assert_eq!(
            (perf.proposed, perf.kept, perf.posted, perf.addressed),
            (4, 2, 2, 1)
        );
        assert_eq!(perf.kept_rate, Some(0.5));
        assert_eq!(perf.addressed_rate, Some(0.5));
        assert_eq!(perf.tokens_per_kept, Some(2_000.0));
        let tests = &s
            .aspects
            .iter()
            .find(|(a, _)| *a == Aspect::Tests)
            .unwrap()
            .1;
        assert_eq!(
            (tests.proposed, tests.kept, tests.held_back_by_verifier),
            (3, 1, 1)
        );
        assert_eq!(percent(tests.kept_rate), "33%");
        let md = s.markdown(Some("2026-11-01"));
        assert!(
            md.contains("## Precision — acme/rivet (since 2026-11-01)"),
            "{md}"
        );
        assert!(
            md.contains(
                "| Performance | 4 | 2 (1) | 50% | 1 | 0 | 2 | 1 | 50% | 0 | 0 | 1 | 2000 |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| **All** | 7 | 3 (1) | 43% | 1 | 1 | 3 | 1 | 33% | 1 | 1 | 1 | 1833 |"),
            "{md}"
        );
        // Nothing in the window: no rates, no division by zero.
        let empty = compute("acme/rivet", &decisions, &spend, i64::MAX);
        assert_eq!(empty.overall.kept_rate, None);
        assert!(empty.markdown(None).contains("| **All** | 0 | 0 (0) | – |"));
        assert_eq!(
            s.line(),
            "precision in acme/rivet: kept 3 of 7 proposed (43%) · dismissed 1 · dropped 1 · edited 1 · addressed 1 of 3 posted (33%) · held back 1 by the verifier, 1 by dismissals, 1 already raised"
        );
    }

    #[test]
    fn a_fresh_review_has_no_decisions_yet_and_two_dismissals_are_counted_at_once() {
        use DecisionKind::*;
        let mut v: Vec<Decision> = (0..18)
            .map(|i| d(1, &format!("F{i}"), "perf", Proposed, None))
            .collect();
        let fresh = compute("acme/rivet", &v, &[], 0);
        assert_eq!(
            fresh.line(),
            "precision in acme/rivet: no decisions yet (18 findings proposed)"
        );
        assert_eq!(
            fresh.overall.kept_rate, None,
            "no precision before a decision"
        );
        v.push(d(1, "F0", "perf", Dismissed, Some("maintainer")));
        v.push(d(1, "F1", "perf", Dismissed, Some("maintainer")));
        let line = compute("acme/rivet", &v, &[], 0).line();
        assert!(
            line.contains("kept 0 of 18 proposed (0%) · dismissed 2 · dropped 0 · edited 0"),
            "{line}"
        );
    }
}
