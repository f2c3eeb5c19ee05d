//! The engine: the scheduler that runs a review's calls (`scheduler`), what those calls share
//! (`calls`: concurrency slots, the diff budget that fits the server), the run's budget
//! (`budget`) and what a run is given besides the PR (`extras`).

pub(crate) mod budget;
mod calls;
pub(crate) mod extras;
pub(crate) mod scheduler;
