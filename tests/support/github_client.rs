//! The library's GitHub client against a loopback GitHub (REST at the root, GraphQL at
//! /graphql) with a token as if from `GH_TOKEN`. Benches include this file by path.

use pr_shepherd::source::github::{Credentials, Endpoints, FetchOptions, GitHub, Secret};

/// A client of the GitHub at `uri` with `token` and `opts`; `None` if either refuses the input.
pub fn loopback_github(uri: &str, token: &str, opts: FetchOptions) -> Option<GitHub> {
    GitHub::new(
        Endpoints::resolve(Some(uri), None, None).ok()?,
        None,
        Credentials::Token {
            token: Secret::new(token),
            source: "GH_TOKEN",
        },
        opts,
    )
    .ok()
}

/// Options for tests of the console's live writes: two attempts, millisecond backoffs, a
/// one-second rate-limit wait, so a fault costs milliseconds, not the defaults' seconds.
pub fn quick_options() -> FetchOptions {
    FetchOptions {
        max_attempts: 2,
        backoff: std::time::Duration::from_millis(5),
        max_backoff: std::time::Duration::from_millis(20),
        max_rate_limit_wait: std::time::Duration::from_secs(1),
        timeout: std::time::Duration::from_secs(5),
        deadline: std::time::Duration::from_secs(30),
        concurrency: 2,
        notify: None,
        ..FetchOptions::default()
    }
}
