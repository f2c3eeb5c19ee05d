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
