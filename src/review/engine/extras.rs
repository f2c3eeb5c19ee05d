//! What a run is given besides the PR, the settings, the client and the prompts: the context
//! blocks of its prompts, what its findings are screened against, the verifier and the budget.
//! Built by `flow::PreparedReview` from the state dir, the snapshot and the base branch; read by
//! the scheduler. The default is none of it (no context, no screening, no verifier, no caps).

use std::sync::Arc;

use super::budget::Budget;
use crate::review::inputs::blocks::PromptBlocks;
use crate::review::results::screening::Screening;
use crate::review::results::verify::VerifySetup;
use crate::review::run::RunFacts;

#[derive(Debug)]
pub struct RunExtras {
    /// The extra prompt blocks (guidance, lessons, dismissals, other reviewers).
    pub context: PromptBlocks,
    /// Dismissals and other reviewers' threads the findings are screened against.
    pub screening: Screening,
    /// `Some` when `[review] verify` is on.
    pub verify: Option<VerifySetup>,
    pub budget: Arc<Budget>,
    /// What the run records of all this (the budget's report is added at its end).
    pub record: RunFacts,
    /// The run's id, when it is known before the run (its calls' lines in the spend log carry
    /// it); else the scheduler makes one.
    pub run_id: Option<String>,
}

impl Default for RunExtras {
    fn default() -> Self {
        RunExtras {
            context: PromptBlocks::default(),
            screening: Screening::default(),
            verify: None,
            budget: Arc::new(Budget::unlimited()),
            record: RunFacts::default(),
            run_id: None,
        }
    }
}
