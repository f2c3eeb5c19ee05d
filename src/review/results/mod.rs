//! What comes out of a run: its findings screened (`screening`) and verified (`verify`),
//! classified against earlier reviews (`classify`), aggregated (`aggregate`), composed
//! (`compose`) and fitted to GitHub's limit (`condense`), placed on diff lines (`inline`), and
//! the decisions they make (`outcome`).

pub mod aggregate;
pub mod classify;
pub mod compose;
pub mod condense;
pub mod inline;
pub mod outcome;
pub mod screening;
pub mod verify;
