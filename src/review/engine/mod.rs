//! The engine: the scheduler that runs a review's calls (`scheduler`), what those calls share
//! (`calls`: concurrency slots, the diff budget that fits the server), the run's budget
//! (`budget`) and what a run is given besides the PR (`extras`); `ask`: the maintainer's question
//! about selected lines, one call under the same budget.

pub(crate) mod ask;
pub(crate) mod budget;
mod calls;
pub(crate) mod extras;
pub(crate) mod scheduler;
