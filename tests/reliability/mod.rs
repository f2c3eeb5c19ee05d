//! Reliability and security: trusted authors and concurrent writers, hostile input, absurd sizes and numbers, full disks, fuzzing.

mod fuzz;
mod hardening;
mod hardening_io;
mod trust;
