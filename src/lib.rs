//! pr-shepherd: review GitHub pull requests from the terminal without losing or repeating
//! anything.
//!
//! Data flows one way: **source → snapshot → triage (with ledger) → items → console / `items`
//! printer**. The core (`pr`, `triage`) is pure; I/O lives at the edges (`source`, `ledger`).

#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod childenv;
pub mod cli;
pub mod commands;
pub mod config;
pub mod error;
pub mod ledger;
pub mod output;
pub mod par;
pub mod policy;
pub mod pr;
pub mod publish;
pub mod review;
pub mod sanitize;
pub mod source;
pub mod triage;
pub mod tui;
