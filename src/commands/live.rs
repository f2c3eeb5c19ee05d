//! The live source at the CLI edge: endpoint flags, credentials from the environment, notices on
//! stderr.

use std::sync::Mutex;

use crate::error::CliError;
use crate::pr::{PrCoords, Snapshot};
use crate::source::github::{FetchOptions, GitHub};

/// `--api-url` / `--graphql-url` (or their environment variables) of the current command line.
/// Kept here rather than threaded through every command's signature, so every command that
/// loads a snapshot gets the live source with the same endpoints.
static ENDPOINTS: Mutex<(Option<String>, Option<String>)> = Mutex::new((None, None));

pub(super) fn configure(api_url: Option<String>, graphql_url: Option<String>) {
    if let Ok(mut g) = ENDPOINTS.lock() {
        *g = (api_url, graphql_url);
    }
}

/// A client for the PR's host, with the configured endpoints and the environment's credentials.
pub(crate) async fn client(coords: &PrCoords) -> Result<GitHub, CliError> {
    let (api, graphql) = ENDPOINTS.lock().map(|g| g.clone()).unwrap_or_default();
    Ok(GitHub::from_env(
        api.as_deref(),
        graphql.as_deref(),
        coords.host.as_deref(),
        FetchOptions::from_env(),
    )
    .await?)
}

/// Fetches a live PR completely; incompleteness is in the snapshot, not an error.
pub(super) async fn fetch(coords: &PrCoords) -> Result<Snapshot, CliError> {
    let gh = client(coords).await?;
    let snapshot = gh.fetch_snapshot(coords).await?;
    tracing::debug!(requests = gh.requests(), "fetched {coords}");
    Ok(snapshot)
}
