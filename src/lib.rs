//! pr-shepherd: review GitHub pull requests from the terminal without losing or repeating
//! anything.
//!
//! Data flows one way: **source → snapshot → triage (with ledger) → items → console / `items`
//! printer**. The core (`pr`, `triage`) is pure; I/O lives at the edges (`source`, `ledger`).
//!
//! Modules import one way, each only from the rows below it (`tests/project/module_graph.rs` fails on a
//! circle):
//!
//! ```text
//! commands, tui                  the CLI commands and the console
//! config, output, error          settings (config.toml); the `items` printer; CLI errors
//! review, triage, publish        review engine; what is new since last seen; posting
//! source, ledger, policy         GitHub and fixtures; state on disk; the gates
//! childenv, debuglog             what a child process may inherit; the redacted debug log
//! code                           patches parsed, interdiffs, since your last look (pure)
//! pr, keys, par, sanitize, cli   pure data, key specs, helpers, clap definitions
//! plural                         counts in words (`1 review`, `2 reviews`), for every printer
//! schema                         every config.toml key: type, default, range, meaning
//! infile, outfile                files named by settings: regular, size-limited; files written
//!                                by rename, and the sweep of a killed run's temporary files
//! net                            what the GitHub and LLM HTTP clients share: TLS, Retry-After
//! ```

#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod childenv;
pub mod cli;
pub mod code;
pub mod commands;
pub mod config;
pub mod debuglog;
pub mod error;
pub mod inbox;
pub mod infile;
pub mod keys;
pub mod ledger;
pub mod net;
pub mod outfile;
pub mod output;
pub mod par;
pub mod plural;
pub mod policy;
pub mod pr;
pub mod progress;
pub mod publish;
pub mod review;
pub mod sanitize;
pub mod schema;
pub mod shellwords;
pub mod source;
pub mod triage;
pub mod tui;
