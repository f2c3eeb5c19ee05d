//! Every integration test, in one test binary (as jj does): one link of the library instead of
//! one per file, and one shared `support`. Each folder is a feature; `cargo test --test suite
//! console::` runs one of them.

mod support;

mod cli;
mod console;
mod github;
mod project;
mod reliability;
mod review;
