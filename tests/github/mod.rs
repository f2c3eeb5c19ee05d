//! The live GitHub client against a loopback GitHub that speaks the real wire format, and every GraphQL document validated against GitHub's schema, a file's text at a commit (bounded, cached by blob id).

mod contents;
mod dashboard;
mod decide;
mod inbox_live;
mod live;
mod recorded_dashboard;
mod schema;
mod sections;
