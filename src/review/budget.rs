//! The budget of a run (`[review] max_input_tokens`, `max_cost`, and per repository and UTC day
//! `daily_max_input_tokens`, `daily_max_cost`, counted in the state dir): checked before every
//! call, the verifier's included. A call whose estimated input (characters / 4; its cost at the
//! input price, without a cache discount) would take the run past a cap is not made: the run
//! stops there — every later call is refused with the same reason — and says so; a stopped run
//! is incomplete (exit 3) and is never posted as if it were whole (`publish` refuses a partial
//! review). Calls in flight are counted at their estimate until their usage is known, so
//! concurrent calls cannot together overshoot.

use std::sync::Mutex;

use super::llm::TokenUsage;
use super::run::{BudgetReport, Usage};
use super::settings::{Prices, ReviewSettings};

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
        }
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

    /// Takes a place for a call of about `chars` characters of input, or says why the run stops.
    pub fn reserve(&self, chars: usize) -> Result<Reservation, String> {
        let tokens = estimate_tokens(chars);
        let cost = self
            .prices
            .map_or(0.0, |p| tokens as f64 * p.input / 1_000_000.0);
        let mut report = self.report.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(why) = &report.stopped {
            return Err(why.clone());
        }
        if !Budget::has_caps(&report) {
            return Ok(Reservation { tokens, cost });
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
        let why = over(report.max_input_tokens, 0, "the run's budget")
            .or_else(|| over_cost(report.max_cost, 0.0, "the run's budget"))
            .or_else(|| {
                over(
                    report.daily_max_input_tokens,
                    report.spent_today_input_tokens,
                    "the repository's daily budget",
                )
            })
            .or_else(|| {
                over_cost(
                    report.daily_max_cost,
                    report.spent_today_cost,
                    "the repository's daily budget",
                )
            });
        if let Some(why) = why {
            report.stopped = Some(why.clone());
            return Err(why);
        }
        s.reserved_tokens += tokens;
        s.reserved_cost += cost;
        Ok(Reservation { tokens, cost })
    }

    /// The call ended: its usage replaces its estimate (an unknown usage keeps the estimate).
    pub fn settle(&self, r: Reservation, usage: Option<&TokenUsage>) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.reserved_tokens = s.reserved_tokens.saturating_sub(r.tokens);
        s.reserved_cost = (s.reserved_cost - r.cost).max(0.0);
        let tokens = usage.and_then(|u| u.input).unwrap_or(r.tokens);
        let cost = match (usage, self.prices) {
            (Some(u), Some(p)) => Usage {
                tokens: *u,
                calls: 1,
                calls_without_usage: 0,
            }
            .cost(&p)
            .unwrap_or(r.cost),
            _ => r.cost,
        };
        s.tokens += tokens;
        s.cost += cost;
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
        let first = b.reserve(2_000).unwrap(); // 500 tokens
        let second = b.reserve(1_600).unwrap(); // 400, in flight together: 900
        let why = b.reserve(800).unwrap_err(); // +200 > 1000
        assert!(
            why.starts_with("the run's budget of 1000 input tokens"),
            "{why}"
        );
        b.settle(first, Some(&usage(100)));
        b.settle(second, None);
        // Stopped is stopped, even with room now.
        assert_eq!(b.reserve(4).unwrap_err(), why);
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
        let why = b.reserve(800).unwrap_err();
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
        let r = b.reserve(2_000).unwrap(); // 500 tokens × $10/M = $0.005
        b.settle(r, Some(&usage(500)));
        assert!(b.reserve(2_400).unwrap_err().contains("$0.0100"));
        assert!(Budget::unlimited().report().is_none());
        assert!(Budget::unlimited().reserve(usize::MAX / 2).is_ok());
    }
}
