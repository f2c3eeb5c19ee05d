//! What the calls of one review run share, for the scheduler (`scheduler.rs`): the concurrency
//! slots (lowered for the rest of the run when the server keeps breaking concurrent streams), the
//! diff budget that fits the server's context (learnt from a context overflow), and what each
//! call spent as the server reported it (and served without reporting it).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::budget::estimate_tokens;
use crate::review::inputs::chunk::{Overflow, fitting_budget};
use crate::review::llm::TokenUsage;

/// The concurrency slots of a run: a semaphore whose number of permits can be lowered while the
/// run goes on (a permit given back above the target is forgotten).
pub(super) struct Slots {
    sem: std::sync::Arc<Semaphore>,
    /// Permits the semaphore holds in all (given out or not).
    total: AtomicUsize,
    /// What `total` is being brought down to.
    target: AtomicUsize,
}

/// One call's slot; given back when dropped (or forgotten, when the slots were lowered).
pub(super) struct Slot<'a> {
    permit: Option<OwnedSemaphorePermit>,
    slots: &'a Slots,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.permit.take() {
            let target = self.slots.target.load(Ordering::SeqCst);
            let over = self
                .slots
                .total
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                    (t > target).then(|| t - 1)
                })
                .is_ok();
            if over {
                p.forget();
            }
        }
    }
}

impl Slots {
    pub(super) fn new(n: usize) -> Slots {
        let n = n.max(1);
        Slots {
            sem: std::sync::Arc::new(Semaphore::new(n)),
            total: AtomicUsize::new(n),
            target: AtomicUsize::new(n),
        }
    }

    /// Waits for a slot (`None`: the semaphore was closed, which it never is).
    pub(super) async fn acquire(&self) -> Option<Slot<'_>> {
        let permit = self.sem.clone().acquire_owned().await.ok()?;
        Some(Slot {
            permit: Some(permit),
            slots: self,
        })
    }

    /// How many calls may run at once now.
    pub(super) fn limit(&self) -> usize {
        self.target.load(Ordering::SeqCst)
    }

    /// Lowers the slots to `to` (at least one) for the rest of the run: free permits go at once,
    /// the others as their calls end. Returns the limit before, when it was higher.
    pub(super) fn lower(&self, to: usize) -> Option<usize> {
        let to = to.max(1);
        let before = self.target.fetch_min(to, Ordering::SeqCst);
        if to >= before {
            return None;
        }
        let total = self.total.load(Ordering::SeqCst);
        let gone = self.sem.forget_permits(total.saturating_sub(to));
        self.total.fetch_sub(gone, Ordering::SeqCst);
        Some(before)
    }
}

/// The diff budget that fits the server's context, learnt from the first context overflow of the
/// run and shared by every aspect (they all send the same prompt prefix), or why none does.
#[derive(Default)]
pub(super) struct Fit {
    state: Mutex<FitState>,
}

#[derive(Default)]
struct FitState {
    budget: Option<usize>,
    impossible: Option<String>,
}

impl Fit {
    fn lock(&self) -> std::sync::MutexGuard<'_, FitState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Learns from a prompt planned with a diff budget of `used` that overflowed as `o` says: the
    /// budget that fits (the smallest learnt), or why none fits. A prompt planned before a
    /// smaller budget was learnt teaches nothing new.
    pub(super) fn learn(&self, o: &Overflow, used: usize) {
        let mut s = self.lock();
        if s.budget.is_some_and(|b| used > b) || s.impossible.is_some() {
            return;
        }
        match fitting_budget(o) {
            Ok(b) => s.budget = Some(s.budget.map_or(b, |old| old.min(b))),
            Err(why) => s.impossible = Some(why),
        }
    }

    /// The budget that fits, once learnt.
    pub(super) fn budget(&self) -> Option<usize> {
        self.lock().budget
    }

    /// Why no budget fits, once learnt.
    pub(super) fn impossible(&self) -> Option<String> {
        self.lock().impossible.clone()
    }
}

/// What one call spent, as the server reported it in each answer it gave, and what it served in
/// answers that never got to report it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Spent {
    pub(super) tokens: TokenUsage,
    /// Answers read to their end (a call asked again after a cut answer has two).
    pub(super) answers: u32,
    /// Of those, the answers without any usage.
    pub(super) unreported: u32,
    /// Characters of the answer being read (since it began; none once it is read to its end).
    reading: usize,
    /// Characters of earlier answers that broke off before their end (cut, silent).
    broke_off: usize,
}

impl Spent {
    /// An answer (a first one, or one asked again) begins: what the one before served without
    /// reaching its end is kept.
    pub(super) fn began(&mut self) {
        self.broke_off += std::mem::take(&mut self.reading);
    }

    /// Characters of the answer being read so far.
    pub(super) fn reading(&self) -> usize {
        self.reading
    }

    /// `chars` more characters of the answer being read arrived.
    pub(super) fn received(&mut self, chars: usize) {
        self.reading += chars;
    }

    pub(super) fn answered(&mut self, usage: &TokenUsage) {
        self.tokens.add(usage);
        self.answers += 1;
        self.reading = 0;
        if *usage == TokenUsage::default() {
            self.unreported += 1;
        }
    }

    /// What the call is settled at in the budget: the usage its answers reported, plus the
    /// output tokens (estimated from characters, see [`estimate_tokens`]) of what it served in
    /// answers that never reached their end — cut, silent, or stopped by a time limit or a
    /// cancel; the input stays unknown unless an answer reported it (the budget keeps its
    /// estimate then). `None`: nothing was answered or served.
    pub(super) fn settled(&self) -> Option<TokenUsage> {
        let served = self.broke_off + self.reading;
        if self.answers == 0 && served == 0 {
            return None;
        }
        let mut usage = self.tokens;
        if served > 0 {
            usage.add(&TokenUsage {
                output: Some(estimate_tokens(served)),
                ..TokenUsage::default()
            });
        }
        Some(usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lowered_slots_hold_back_new_calls_and_forget_permits_given_back() {
        let slots = Slots::new(3);
        let a = slots.acquire().await.unwrap();
        let b = slots.acquire().await.unwrap();
        assert_eq!(slots.lower(1), Some(3));
        assert_eq!(slots.lower(2), None, "never raised again");
        assert_eq!(slots.limit(), 1);
        // Two calls still hold their slots; the free one is gone.
        assert_eq!(slots.sem.available_permits(), 0);
        drop(a);
        assert_eq!(
            slots.sem.available_permits(),
            0,
            "given back above the limit: forgotten"
        );
        drop(b);
        assert_eq!(slots.sem.available_permits(), 1);
        let c = slots.acquire().await.unwrap();
        assert!(slots.sem.try_acquire().is_err());
        drop(c);
        assert_eq!(slots.sem.available_permits(), 1);
    }

    #[test]
    fn the_fit_keeps_the_smallest_budget_and_ignores_stale_prompts() {
        let fit = Fit::default();
        let o = Overflow {
            n_ctx: None,
            prompt_tokens: None,
            prompt_chars: 30_000,
            diff_chars: 20_000,
            output_tokens: 1000,
        };
        fit.learn(&o, 60_000);
        assert_eq!(fit.budget(), Some(10_000));
        // Planned with 60,000 before 10,000 was learnt: nothing new.
        fit.learn(
            &Overflow {
                diff_chars: 4_000,
                ..o
            },
            60_000,
        );
        assert_eq!(fit.budget(), Some(10_000));
        fit.learn(
            &Overflow {
                diff_chars: 8_000,
                ..o
            },
            10_000,
        );
        assert_eq!(fit.budget(), Some(4_000));
        fit.learn(
            &Overflow {
                diff_chars: 1_500,
                ..o
            },
            4_000,
        );
        assert!(fit.impossible().is_some());
    }

    #[test]
    fn an_answer_without_usage_is_counted_as_unreported() {
        let mut s = Spent::default();
        s.answered(&TokenUsage {
            input: Some(10),
            output: Some(2),
            ..TokenUsage::default()
        });
        s.answered(&TokenUsage::default());
        assert_eq!((s.answers, s.unreported), (2, 1));
        assert_eq!(s.tokens.input, Some(10));
    }
}
