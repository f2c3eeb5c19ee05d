//! What review runs spent, per repository: `<state>/repos/<owner>/<repo>/spend.jsonl`, JSON
//! lines (appended under the repository's lock; see `repo.rs`). The daily budget of a repository
//! (`[review] daily_max_input_tokens`, `daily_max_cost`) is checked against the lines of the same
//! UTC day; `pr-shepherd stats` reads the tokens per aspect.
//!
//! Each LLM call of a run writes two lines: before it is made, a `reserved` line with its
//! estimated input and cost — appended only when the day's spend with it stays within the daily
//! caps, read and appended under one hold of `repo.lock`, so runs at the same time cannot together
//! pass a cap — and when it ends (answered, failed, timed out or cancelled) a `call` line with
//! what it spent, which replaces the reservation. A reservation without its `call` line (the
//! process was killed, or its settling could not be written) counts as spent at its estimate,
//! for good: the safe side, and nothing to clean up (it only ever counts against its own day).
//! Lines written before calls were recorded one by one are a whole run's (`kind` absent).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use super::repo::{RepoId, append_held, parse_lines};
use super::{Ledger, LedgerError};

/// The log's file name in the repository's folder.
pub const SPEND_FILE: &str = "spend.jsonl";

/// What a line of the log is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpendKind {
    /// A whole run's spend (the lines of runs recorded before calls were recorded one by one).
    #[default]
    Run,
    /// A call about to be made: its estimated input and cost, counted until its `call` line.
    Reserved,
    /// A call that ended, however it ended: what it spent (its estimate when nothing was read).
    Call,
}

impl SpendKind {
    fn is_run(&self) -> bool {
        *self == SpendKind::Run
    }
}

/// What one run, or one call of a run, spent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spend {
    /// Unix seconds, when the run (or the call) ended, or when the call was reserved.
    pub at: i64,
    /// The UTC day it counts on, `YYYY-MM-DD` (a call's line keeps its reservation's day).
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
    #[serde(default, skip_serializing_if = "SpendKind::is_run")]
    pub kind: SpendKind,
    /// The call a `reserved` and its `call` line are about (unique in the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// The process that reserved the call (for whoever reads the log by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// Input tokens and cost spent on one day.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DaySpend {
    pub input_tokens: u64,
    pub cost: f64,
    pub runs: usize,
}

/// The lines that count, in the log's order: whole runs, ended calls, and reservations whose
/// call has no line of its own (in flight, or its process is gone: spent at the estimate).
pub fn counted(lines: Vec<Spend>) -> Vec<Spend> {
    let settled: HashSet<String> = lines
        .iter()
        .filter(|s| s.kind == SpendKind::Call)
        .filter_map(|s| s.call.clone())
        .collect();
    lines
        .into_iter()
        .filter(|s| {
            s.kind != SpendKind::Reserved || s.call.as_ref().is_none_or(|c| !settled.contains(c))
        })
        .collect()
}

/// What the counted `lines` spent on `day`.
fn day_spend(lines: &[Spend], day: &str) -> DaySpend {
    let mut out = DaySpend::default();
    for s in lines.iter().filter(|s| s.day == day) {
        out.input_tokens += s.input_tokens;
        out.cost += s.cost.unwrap_or(0.0);
    }
    out.runs = runs(lines.iter().filter(|s| s.day == day));
    out
}

/// How many runs `lines` are of: a whole run's line is one, calls count once per run.
pub fn runs<'a>(lines: impl Iterator<Item = &'a Spend>) -> usize {
    let mut whole = 0;
    let mut called = BTreeSet::new();
    for s in lines {
        match s.kind {
            SpendKind::Run => whole += 1,
            _ => {
                called.insert((s.pr, s.run.as_str()));
            }
        }
    }
    whole + called.len()
}

impl Ledger {
    /// Appends what a run or a call spent (fsynced before it returns).
    pub fn record_spend(&self, repo: &RepoId, spend: &Spend) -> Result<(), LedgerError> {
        self.append_lines(repo, SPEND_FILE, std::slice::from_ref(spend))
    }

    /// What counts of the repository's spend ([`counted`]), in the order it was written.
    pub fn spend(&self, repo: &RepoId) -> Result<Vec<Spend>, LedgerError> {
        self.read_lines(repo, SPEND_FILE).map(counted)
    }

    /// What the repository's runs spent on UTC day `day` (`YYYY-MM-DD`).
    pub fn spent_on(&self, repo: &RepoId, day: &str) -> Result<DaySpend, LedgerError> {
        Ok(day_spend(&self.spend(repo)?, day))
    }

    /// Reserves a call: under the repository's lock, what counts on `reserved.day` is read and
    /// given to `fits`; when it agrees, the `reserved` line is appended before the lock is let
    /// go. `Ok(Err(why))`: `fits` refused, nothing was written.
    pub fn reserve_spend(
        &self,
        repo: &RepoId,
        reserved: &Spend,
        fits: impl FnOnce(&DaySpend) -> Result<(), String>,
    ) -> Result<Result<(), String>, LedgerError> {
        self.with_repo_lock(repo, |dir| {
            let path = dir.join(SPEND_FILE);
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                Err(e) => return Err(LedgerError::io("read", &path)(e)),
            };
            let lines = counted(parse_lines(&text, &path)?);
            if let Err(why) = fits(&day_spend(&lines, &reserved.day)) {
                return Ok(Err(why));
            }
            append_held(dir, SPEND_FILE, std::slice::from_ref(reserved))?;
            Ok(Ok(()))
        })
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
            ..Spend::default()
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

    #[test]
    fn a_reservation_counts_until_its_call_line_and_for_good_without_one() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::new(dir.path());
        let r = RepoId {
            host: None,
            owner: "acme".into(),
            repo: "rivet".into(),
        };
        let line = |kind, call: &str, input: u64| Spend {
            at: 1,
            day: "2026-12-01".into(),
            pr: 1,
            run: "run-a".into(),
            input_tokens: input,
            kind,
            call: Some(call.into()),
            ..Spend::default()
        };
        let under = |cap: u64| {
            move |d: &DaySpend| {
                if d.input_tokens + 400 > cap {
                    Err(format!("{} spent", d.input_tokens))
                } else {
                    Ok(())
                }
            }
        };
        let first = line(SpendKind::Reserved, "run-a/1", 400);
        assert_eq!(l.reserve_spend(&r, &first, under(1_000)).unwrap(), Ok(()));
        let second = line(SpendKind::Reserved, "run-a/2", 400);
        assert_eq!(l.reserve_spend(&r, &second, under(1_000)).unwrap(), Ok(()));
        // Two in flight: 800 counted, a third of 400 does not fit and writes nothing.
        let third = line(SpendKind::Reserved, "run-a/3", 400);
        assert_eq!(
            l.reserve_spend(&r, &third, under(1_000)).unwrap(),
            Err("800 spent".into())
        );
        // The first ends having spent 100: its line replaces its estimate.
        l.record_spend(&r, &line(SpendKind::Call, "run-a/1", 100))
            .unwrap();
        let d = l.spent_on(&r, "2026-12-01").unwrap();
        assert_eq!((d.input_tokens, d.runs), (500, 1));
        assert_eq!(l.reserve_spend(&r, &third, under(1_000)).unwrap(), Ok(()));
        // The second never ends (its process was killed): it stays counted at its estimate.
        assert_eq!(l.spent_on(&r, "2026-12-01").unwrap().input_tokens, 900);
        assert_eq!(l.spend(&r).unwrap().len(), 3);
    }
}
