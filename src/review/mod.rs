//! The review engine. `prior` (reading earlier Shepherd reviews from the PR itself) and
//! `classify` (new / unchanged / addressed) are pure.

pub mod classify;
pub mod prior;
