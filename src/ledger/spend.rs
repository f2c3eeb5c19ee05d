//! What each review run spent, per repository: `<state>/repos/<owner>/<repo>/spend.jsonl`, one
//! JSON line per run (appended; see `repo.rs`). The daily budget of a repository
//! (`[review] daily_max_input_tokens`, `daily_max_cost`) is checked against the runs of the same
//! UTC day; `pr-shepherd stats` reads the tokens per aspect.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::repo::RepoId;
use super::{Ledger, LedgerError};

/// The log's file name in the repository's folder.
pub const SPEND_FILE: &str = "spend.jsonl";

/// What one run spent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spend {
    /// Unix seconds, when the run ended.
    pub at: i64,
    /// The run's UTC day, `YYYY-MM-DD`.
    pub day: String,
    pub pr: u64,
    pub run: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The estimated cost at the configured prices, when there were prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Input plus output tokens per aspect (the verifier's calls included).
    #[serde(default)]
    pub aspects: BTreeMap<String, u64>,
}

/// Input tokens and cost spent on one day.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DaySpend {
    pub input_tokens: u64,
    pub cost: f64,
    pub runs: usize,
}

impl Ledger {
    /// Appends what a run spent (fsynced before it returns).
    pub fn record_spend(&self, repo: &RepoId, spend: &Spend) -> Result<(), LedgerError> {
        self.append_lines(repo, SPEND_FILE, std::slice::from_ref(spend))
    }

    /// Every run's spend for the repository, in the order they ended.
    pub fn spend(&self, repo: &RepoId) -> Result<Vec<Spend>, LedgerError> {
        self.read_lines(repo, SPEND_FILE)
    }

    /// What the repository's runs spent on UTC day `day` (`YYYY-MM-DD`).
    pub fn spent_on(&self, repo: &RepoId, day: &str) -> Result<DaySpend, LedgerError> {
        let mut out = DaySpend::default();
        for s in self.spend(repo)?.into_iter().filter(|s| s.day == day) {
            out.input_tokens += s.input_tokens;
            out.cost += s.cost.unwrap_or(0.0);
            out.runs += 1;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_sums_its_runs_only() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = RepoId {
            host: None,
            owner: "acme".into(),
            repo: "rivet".into(),
        };
        let run = |day: &str, input: u64, cost: Option<f64>| Spend {
            at: 1,
            day: day.into(),
            pr: 1,
            run: "r".into(),
            input_tokens: input,
            output_tokens: 5,
            cost,
            aspects: BTreeMap::new(),
        };
        l.record_spend(&r, &run("2026-12-01", 100, Some(0.5)))
            .unwrap();
        l.record_spend(&r, &run("2026-12-01", 50, None)).unwrap();
        l.record_spend(&r, &run("2026-12-02", 1000, Some(9.0)))
            .unwrap();
        let d = l.spent_on(&r, "2026-12-01").unwrap();
        assert_eq!((d.input_tokens, d.runs), (150, 2));
        assert!((d.cost - 0.5).abs() < 1e-9);
        assert_eq!(l.spent_on(&r, "2026-11-30").unwrap().runs, 0);
    }
}
