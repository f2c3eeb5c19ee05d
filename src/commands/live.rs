//! The live source at the CLI edge: a GitHub client from the context's endpoints, credentials
//! and HTTP bounds, notices on stderr.

use super::Context;
use crate::error::CliError;
use crate::pr::{PrCoords, Snapshot};
use crate::source::github::{Endpoints, GitHub, auth};

/// A client for the PR's host, with the context's endpoints and credentials.
pub(crate) async fn client(ctx: &Context, coords: &PrCoords) -> Result<GitHub, CliError> {
    let host = coords.host.as_deref();
    let endpoints = Endpoints::resolve(
        ctx.endpoints.api_url.as_deref(),
        ctx.endpoints.graphql_url.as_deref(),
        host,
    )?;
    let creds = auth::resolve(&ctx.credentials, &endpoints.api, host).await?;
    Ok(GitHub::new(
        endpoints,
        host.map(str::to_owned),
        creds,
        ctx.fetch.clone(),
    )?)
}

/// Fetches a live PR completely; incompleteness is in the snapshot, not an error.
pub(super) async fn fetch(ctx: &Context, coords: &PrCoords) -> Result<Snapshot, CliError> {
    let gh = client(ctx, coords).await?;
    let snapshot = gh.fetch_snapshot(coords).await?;
    tracing::debug!(requests = gh.requests(), "fetched {coords}");
    Ok(snapshot)
}
