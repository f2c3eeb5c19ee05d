//! Reliability and security: trusted authors and concurrent writers, hostile input, absurd sizes and numbers, full disks, fuzzing, state dirs of earlier releases.

mod fuzz;
mod hardening;
mod hardening_io;
mod hostile;
mod partial_answers;
mod state_dir;
mod trust;
