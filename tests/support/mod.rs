//! Shared test helpers.

pub mod fake_github;
pub mod fake_llm;
