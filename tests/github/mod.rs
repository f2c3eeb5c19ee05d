//! The live GitHub client against a loopback GitHub that speaks the real wire format, and every GraphQL document validated against GitHub's schema.

mod dashboard;
mod inbox_live;
mod live;
mod recorded_dashboard;
mod schema;
mod sections;
