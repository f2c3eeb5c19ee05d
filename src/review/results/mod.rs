//! What comes out of a run: its findings screened (`screening`) and verified (`verify`),
//! classified against earlier reviews (`classify`), aggregated (`aggregate`), composed
//! (`compose`) and fitted to GitHub's limit (`condense`), placed on diff lines (`inline`), and
//! the decisions they make (`outcome`).

pub(crate) mod aggregate;
pub(crate) mod classify;
pub mod compose;
pub mod condense;
pub mod inline;
pub(crate) mod outcome;
pub(crate) mod screening;
pub(crate) mod verify;
