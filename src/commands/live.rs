//! The live source at the CLI edge: a GitHub client from the context's endpoints, credentials
//! and HTTP bounds, notices on stderr.

use super::Context;
use crate::error::CliError;
use crate::pr::{PrCoords, Snapshot};
use crate::source::github::{Endpoints, GitHub, auth};

/// A client for the PR's host, with the context's endpoints and credentials, and the state dir
/// (when there is one) where posting through it takes the PR's lock and records reply intents.
pub(crate) async fn client(ctx: &Context, coords: &PrCoords) -> Result<GitHub, CliError> {
    let host = coords.host.as_deref();
    let endpoints = Endpoints::resolve(
        ctx.endpoints.api_url.as_deref(),
        ctx.endpoints.graphql_url.as_deref(),
        host,
    )?;
    let creds = auth::resolve(&ctx.credentials, &endpoints.api, host).await?;
    let gh = GitHub::new(endpoints, host.map(str::to_owned), creds, ctx.fetch.clone())?;
    Ok(match ctx.ledger() {
        Ok(ledger) => gh.with_state_dir(ledger.root().to_path_buf()),
        Err(_) => gh,
    })
}

/// Fetches a live PR completely; incompleteness is in the snapshot, not an error.
pub(super) async fn fetch(ctx: &Context, coords: &PrCoords) -> Result<Snapshot, CliError> {
    let gh = client(ctx, coords).await?;
    let snapshot = gh.fetch_snapshot(coords).await?;
    tracing::debug!(requests = gh.requests(), "fetched {coords}");
    Ok(snapshot)
}
