//! The budget of a run (`[review] max_input_tokens`, `max_cost`, and per repository and UTC day
//! `daily_max_input_tokens`, `daily_max_cost`, counted in the state dir): checked before every
//! call, the verifier's included. A call whose estimated input (characters / 4; its cost at the
//! input price, without a cache discount) would take the run past a cap is not made: the run
//! stops there — every later call is refused with the same reason — and says so; a stopped run
//! is incomplete (exit 3) and is never posted as if it were whole (`publish` refuses a partial
//! review). Calls in flight are counted at their estimate until their usage is known, so
//! concurrent calls cannot together overshoot.
//!
//! With the state dir ([`SpendLog`]) the daily caps hold across processes too: each call is
//! reserved in the repository's spend log (`ledger::spend`) under its lock — the day's spend is
//! read again there, other runs' calls in flight included, and the reservation is written only
//! when it fits — and settled there with its real usage as it ends, also when it failed, timed
//! out or was cancelled. A process killed before settling leaves its reservation, counted at the
//! estimate. When the log cannot be read or written and a daily cap is set, the call is not
//! made (the cap could not be checked).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ledger::{DaySpend, Ledger, RepoId, Spend, SpendKind};
use crate::review::llm::TokenUsage;
use crate::review::run::{BudgetReport, Usage};
use crate::review::settings::{Prices, ReviewSettings};

/// What was spent on the repository earlier the same day.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SpentToday {
    pub input_tokens: u64,
    pub cost: f64,
}

/// The run's budget: its caps and what is spent and reserved against them.
#[derive(Debug)]
pub struct Budget {
    report: Mutex<BudgetReport>,
    prices: Option<Prices>,
    state: Mutex<Spent>,
    log: Option<SpendLog>,
    /// The run's calls so far (their ids in the log).
    calls: AtomicU64,
    /// What could not be written to the log.
    unrecorded: Mutex<Option<String>>,
}

/// Where a run's calls are reserved and settled: the repository's spend log in the state dir.
#[derive(Debug, Clone)]
pub struct SpendLog {
    pub ledger: Ledger,
    pub repo: RepoId,
    pub pr: u64,
    /// The run's id, which its lines carry.
    pub run: String,
}

#[derive(Debug, Default)]
struct Spent {
    tokens: u64,
    cost: f64,
    reserved_tokens: u64,
    reserved_cost: f64,
}

/// A call's place in the budget, until its usage is known.
#[derive(Debug)]
pub struct Reservation {
    tokens: u64,
    cost: f64,
    aspect: String,
    /// Its id and day in the spend log, when there is one.
    logged: Option<(String, String)>,
}

/// A call's input tokens, estimated from its characters.
pub fn estimate_tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

impl Budget {
    /// The caps of `settings`, with what the repository spent earlier today.
    pub fn new(settings: &ReviewSettings, today: SpentToday) -> Budget {
        Budget {
            report: Mutex::new(BudgetReport {
                max_input_tokens: settings.max_input_tokens,
                max_cost: settings.max_cost,
                daily_max_input_tokens: settings.daily_max_input_tokens,
                daily_max_cost: settings.daily_max_cost,
                spent_today_input_tokens: today.input_tokens,
                spent_today_cost: today.cost,
                stopped: None,
            }),
            prices: settings.prices,
            state: Mutex::new(Spent::default()),
            log: None,
            calls: AtomicU64::new(0),
            unrecorded: Mutex::new(None),
        }
    }

    /// This budget, with every call reserved and settled in `log` (and the daily caps checked
    /// there, against every run's calls, instead of against what was spent when the run began).
    pub fn logged(mut self, log: SpendLog) -> Budget {
        self.log = Some(log);
        self
    }

    /// No caps at all.
    pub fn unlimited() -> Budget {
        Budget::new(&ReviewSettings::default(), SpentToday::default())
    }

    fn has_caps(r: &BudgetReport) -> bool {
        r.max_input_tokens.is_some()
            || r.max_cost.is_some()
            || r.daily_max_input_tokens.is_some()
            || r.daily_max_cost.is_some()
    }

    /// Takes a place for a call of `aspect` of about `chars` characters of input, or says why the
    /// run stops. With a spend log this reads and writes the state dir (under the repository's
    /// lock): call it off the async threads.
    pub fn reserve(&self, aspect: &str, chars: usize) -> Result<Reservation, String> {
        let tokens = estimate_tokens(chars);
        let cost = self
            .prices
            .map_or(0.0, |p| tokens as f64 * p.input / 1_000_000.0);
        let mut report = self.report.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(why) = &report.stopped {
            return Err(why.clone());
        }
        let mut place = Reservation {
            tokens,
            cost,
            aspect: aspect.to_owned(),
            logged: None,
        };
        if !Budget::has_caps(&report) {
            // Nothing to check: a reservation that cannot be written is only said.
            place.logged = self
                .log_checked(&place, None::<fn(&DaySpend) -> Result<(), String>>)
                .unwrap_or(None);
            return Ok(place);
        }
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let used_tokens = s.tokens + s.reserved_tokens;
        let used_cost = s.cost + s.reserved_cost;
        let over = |cap: Option<u64>, earlier: u64, what: &str| {
            cap.filter(|c| earlier + used_tokens + tokens > *c).map(|c| {
                format!(
                    "{what} of {c} input tokens would be exceeded ({} spent{}, the next call needs about {tokens})",
                    earlier + used_tokens,
                    if earlier > 0 { " including earlier runs today" } else { "" }
                )
            })
        };
        let over_cost = |cap: Option<f64>, earlier: f64, what: &str| {
            cap.filter(|c| earlier + used_cost + cost > *c).map(|c| {
                format!(
                    "{what} of ${c:.4} would be exceeded (${:.4} spent{}, the next call about ${cost:.4})",
                    earlier + used_cost,
                    if earlier > 0.0 { " including earlier runs today" } else { "" }
                )
            })
        };
        let run_over = over(report.max_input_tokens, 0, "the run's budget")
            .or_else(|| over_cost(report.max_cost, 0.0, "the run's budget"));
        // Without a log, the daily caps are checked here against what was spent when the run
        // began; with one, against the log's day as it is now (below).
        let why = run_over.or_else(|| {
            if self.log.is_some() {
                return None;
            }
            over(
                report.daily_max_input_tokens,
                report.spent_today_input_tokens,
                "the repository's daily budget",
            )
            .or_else(|| {
                over_cost(
                    report.daily_max_cost,
                    report.spent_today_cost,
                    "the repository's daily budget",
                )
            })
        });
        let why = match why {
            Some(why) => Some(why),
            None => {
                let daily = (report.daily_max_input_tokens, report.daily_max_cost);
                let checked = (daily.0.is_some() || daily.1.is_some())
                    .then_some(move |d: &DaySpend| daily_fits(daily, d, tokens, cost));
                match self.log_checked(&place, checked) {
                    Ok(logged) => {
                        place.logged = logged;
                        None
                    }
                    Err(why) => Some(why),
                }
            }
        };
        if let Some(why) = why {
            report.stopped = Some(why.clone());
            return Err(why);
        }
        s.reserved_tokens += tokens;
        s.reserved_cost += cost;
        Ok(place)
    }

    /// Writes the call's `reserved` line; with `fits`, only when the day's spend in the log
    /// (read under the same lock) leaves room for it, else the reason the run stops. A log that
    /// cannot be read or written stops the run when there is a cap to check, and is said in
    /// [`Budget::unrecorded`] when there is none.
    fn log_checked(
        &self,
        place: &Reservation,
        fits: Option<impl FnOnce(&DaySpend) -> Result<(), String>>,
    ) -> Result<Option<(String, String)>, String> {
        let Some(log) = &self.log else {
            return Ok(None);
        };
        let id = format!(
            "{}/{}",
            log.run,
            self.calls.fetch_add(1, Ordering::SeqCst) + 1
        );
        let now = chrono::Utc::now();
        let day = now.format("%Y-%m-%d").to_string();
        let line = Spend {
            at: now.timestamp(),
            day: day.clone(),
            pr: log.pr,
            run: log.run.clone(),
            input_tokens: place.tokens,
            output_tokens: 0,
            cost: self.prices.map(|_| place.cost),
            aspects: [(place.aspect.clone(), place.tokens)].into(),
            kind: SpendKind::Reserved,
            call: Some(id.clone()),
            pid: Some(std::process::id()),
        };
        let written = match fits {
            Some(fits) => match log.ledger.reserve_spend(&log.repo, &line, fits) {
                Ok(fitted) => fitted.map_err(Some),
                Err(e) => {
                    return Err(format!(
                        "the repository's daily budget could not be checked in the state dir: {e}"
                    ));
                }
            },
            None => log.ledger.record_spend(&log.repo, &line).map_err(|e| {
                self.unrecord(format!("a call's reservation: {e}"));
                None
            }),
        };
        match written {
            Ok(()) => Ok(Some((id, day))),
            Err(Some(why)) => Err(why),
            // Not written, and nothing to check: the call's own line is written when it ends.
            Err(None) => Ok(Some((id, day))),
        }
    }

    fn unrecord(&self, what: String) {
        let mut u = self.unrecorded.lock().unwrap_or_else(|p| p.into_inner());
        if u.is_none() {
            *u = Some(what);
        }
    }

    /// What of the run's spend could not be written to the spend log, when something could not.
    pub fn unrecorded(&self) -> Option<String> {
        self.unrecorded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A call answered without going through the budget (a replayed verifier answer): its usage
    /// is written to the spend log as a call of its own.
    pub fn record_answered(&self, aspect: &str, usage: &TokenUsage) {
        let Some(log) = &self.log else {
            return;
        };
        let id = format!(
            "{}/{}",
            log.run,
            self.calls.fetch_add(1, Ordering::SeqCst) + 1
        );
        let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
        self.log_call(log, (&id, &day), aspect, usage, None);
    }

    /// The call ended: its usage replaces its estimate (an unknown usage keeps the estimate; an
    /// unknown input keeps the estimated input).
    /// With a spend log this writes the call's line there: call it off the async threads.
    pub fn settle(&self, r: Reservation, usage: Option<&TokenUsage>) {
        let (tokens, cost) = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            s.reserved_tokens = s.reserved_tokens.saturating_sub(r.tokens);
            s.reserved_cost = (s.reserved_cost - r.cost).max(0.0);
            let tokens = usage.and_then(|u| u.input).unwrap_or(r.tokens);
            let cost = match (usage, self.prices) {
                // An input no answer reported is the estimate, also for the cost.
                (Some(u), Some(p)) => Usage {
                    tokens: TokenUsage {
                        input: Some(tokens),
                        ..*u
                    },
                    calls: 1,
                    calls_without_usage: 0,
                }
                .cost(&p)
                .unwrap_or(r.cost),
                _ => r.cost,
            };
            s.tokens += tokens;
            s.cost += cost;
            (tokens, cost)
        };
        if let (Some(log), Some((id, day))) = (&self.log, &r.logged) {
            let spent = TokenUsage {
                input: Some(tokens),
                output: usage.and_then(|u| u.output),
                ..TokenUsage::default()
            };
            self.log_call(log, (id, day), &r.aspect, &spent, Some(cost));
        }
    }

    /// Writes a call's `call` line (`cost`: as settled; `None`: from `usage` at the prices).
    fn log_call(
        &self,
        log: &SpendLog,
        (id, day): (&str, &str),
        aspect: &str,
        usage: &TokenUsage,
        cost: Option<f64>,
    ) {
        let input = usage.input.unwrap_or(0);
        let output = usage.output.unwrap_or(0);
        let cost = self.prices.map(|p| {
            cost.unwrap_or_else(|| {
                Usage {
                    tokens: *usage,
                    calls: 1,
                    calls_without_usage: 0,
                }
                .cost(&p)
                .unwrap_or(0.0)
            })
        });
        let line = Spend {
            at: chrono::Utc::now().timestamp(),
            day: day.to_owned(),
            pr: log.pr,
            run: log.run.clone(),
            input_tokens: input,
            output_tokens: output,
            cost,
            aspects: [(aspect.to_owned(), input + output)].into(),
            kind: SpendKind::Call,
            call: Some(id.to_owned()),
            pid: None,
        };
        if let Err(e) = log.ledger.record_spend(&log.repo, &line) {
            self.unrecord(format!("a call's spend: {e}"));
        }
    }

    /// Why the run stopped, if it did.
    pub fn stopped(&self) -> Option<String> {
        self.report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stopped
            .clone()
    }

    /// The report for the run (`None` without caps).
    pub fn report(&self) -> Option<BudgetReport> {
        let r = self
            .report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Budget::has_caps(&r).then_some(r)
    }
}

/// Whether a call of about `tokens` and `cost` fits the daily caps with `day` spent already
/// (every run's calls in the log, those in flight at their estimate), or why not.
fn daily_fits(
    (max_tokens, max_cost): (Option<u64>, Option<f64>),
    day: &DaySpend,
    tokens: u64,
    cost: f64,
) -> Result<(), String> {
    if let Some(c) = max_tokens.filter(|c| day.input_tokens + tokens > *c) {
        return Err(format!(
            "the repository's daily budget of {c} input tokens would be exceeded ({} spent today by every run, calls in flight included; the next call needs about {tokens})",
            day.input_tokens
        ));
    }
    if let Some(c) = max_cost.filter(|c| day.cost + cost > *c) {
        return Err(format!(
            "the repository's daily budget of ${c:.4} would be exceeded (${:.4} spent today by every run, calls in flight included; the next call about ${cost:.4})",
            day.cost
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64) -> TokenUsage {
        TokenUsage {
            input: Some(input),
            output: Some(10),
            ..TokenUsage::default()
        }
    }

    #[test]
    fn a_call_that_would_exceed_the_run_budget_is_refused_and_so_is_every_later_one() {
        let settings = ReviewSettings {
            max_input_tokens: Some(1_000),
            ..ReviewSettings::default()
        };
        let b = Budget::new(&settings, SpentToday::default());
        let first = b.reserve("perf", 2_000).unwrap(); // 500 tokens
        let second = b.reserve("perf", 1_600).unwrap(); // 400, in flight together: 900
        let why = b.reserve("perf", 800).unwrap_err(); // +200 > 1000
        assert!(
            why.starts_with("the run's budget of 1000 input tokens"),
            "{why}"
        );
        b.settle(first, Some(&usage(100)));
        b.settle(second, None);
        // Stopped is stopped, even with room now.
        assert_eq!(b.reserve("perf", 4).unwrap_err(), why);
        assert_eq!(b.report().unwrap().stopped.as_deref(), Some(why.as_str()));
    }

    #[test]
    fn the_daily_budget_counts_earlier_runs_and_costs_need_prices() {
        let settings = ReviewSettings {
            daily_max_input_tokens: Some(1_000),
            ..ReviewSettings::default()
        };
        let b = Budget::new(
            &settings,
            SpentToday {
                input_tokens: 900,
                cost: 0.0,
            },
        );
        let why = b.reserve("perf", 800).unwrap_err();
        assert!(
            why.contains("daily budget") && why.contains("earlier runs today"),
            "{why}"
        );
        let priced = ReviewSettings {
            max_cost: Some(0.01),
            prices: Some(Prices {
                input: 10.0,
                output: 10.0,
                cache_read: 1.0,
                cache_write: 10.0,
            }),
            ..ReviewSettings::default()
        };
        let b = Budget::new(&priced, SpentToday::default());
        let r = b.reserve("perf", 2_000).unwrap(); // 500 tokens × $10/M = $0.005
        b.settle(r, Some(&usage(500)));
        assert!(b.reserve("perf", 2_400).unwrap_err().contains("$0.0100"));
        assert!(Budget::unlimited().report().is_none());
        assert!(Budget::unlimited().reserve("perf", usize::MAX / 2).is_ok());
    }

    #[test]
    fn two_runs_with_one_spend_log_share_the_daily_cap() {
        let dir = tempfile::tempdir().unwrap();
        let settings = ReviewSettings {
            daily_max_input_tokens: Some(1_000),
            ..ReviewSettings::default()
        };
        let repo = RepoId {
            host: None,
            owner: "acme".into(),
            repo: "rivet".into(),
        };
        let run = |name: &str| {
            // Both began with nothing spent: only the log knows about the other.
            Budget::new(&settings, SpentToday::default()).logged(SpendLog {
                ledger: Ledger::new(dir.path()),
                repo: repo.clone(),
                pr: 7,
                run: name.into(),
            })
        };
        let (a, b) = (run("a"), run("b"));
        let first = a.reserve("perf", 2_000).unwrap(); // 500
        let second = b.reserve("tests", 1_600).unwrap(); // 400: 900 in flight
        let why = b.reserve("tests", 800).unwrap_err(); // +200 > 1000
        assert!(
            why.starts_with("the repository's daily budget of 1000 input tokens")
                && why.contains("900 spent today"),
            "{why}"
        );
        // `a` ends having spent 100 (its line replaces its estimate): room for `a`'s next call.
        a.settle(first, Some(&usage(100)));
        let third = a.reserve("perf", 800).unwrap();
        // `b`'s process dies with its call in flight: its reservation stays counted.
        drop(second);
        drop(b);
        a.settle(third, None);
        let day = Ledger::new(dir.path())
            .spent_on(&repo, &chrono::Utc::now().format("%Y-%m-%d").to_string())
            .unwrap();
        assert_eq!((day.input_tokens, day.runs), (100 + 400 + 200, 2));
        assert!(a.unrecorded().is_none());
    }
}
