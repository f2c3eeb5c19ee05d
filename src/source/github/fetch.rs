//! The one-PR fetch: the `pr.graphql` rounds and the nested thread comments (through
//! `pages.rs`, which the inbox's batches share), the changed files over REST at the same time,
//! and REST lists followed page by page.
//!
//! Round trips: one `pr.graphql` request brings the PR, its labels and the first 100 threads
//! (each with its first 100 comments), conversation comments and reviews, while the changed
//! files are fetched over REST at the same time. Each further `pr.graphql` request advances every
//! connection that still has pages at once (the others are switched off with `@include`).
//! Threads with more than 100 comments continue with a generated `ThreadComments` operation: one
//! aliased `node(id:)` per thread (up to 20 per request, a few requests at a time). A PR of 260
//! threads (one with 130 comments), 230 comments, 120 reviews and 40 files takes 6 requests
//! (the files' viewed state is one GraphQL `PullRequestFiles` page, `files.rs`).

use reqwest::Method;
use serde::Deserialize;

use super::client::{RawResponse, http_error};
use super::files::{fetch_graph_files, merge};
use super::pages::{MAX_ROUNDS, Pager, PrPages, continue_threads};
use super::{GitHub, GitHubError, PR_QUERY};
use crate::pr::{ChangedFile, PrCoords, Snapshot};

/// GitHub serves at most 3,000 files (30 pages of 100).
const MAX_FILE_PAGES: usize = 30;

pub(super) async fn fetch_snapshot(
    gh: &GitHub,
    coords: &PrCoords,
) -> Result<Snapshot, GitHubError> {
    // A GitHub App mints its installation token here, once, rather than in each of the
    // concurrent requests below (a no-op for a plain token).
    gh.transport.creds.bearer().await?;
    let (graph, rest_files, graph_files) = futures::join!(
        fetch_graph(gh, coords),
        fetch_files(gh, coords),
        fetch_graph_files(gh, coords)
    );
    let mut pages = graph?;
    let rest_files = match rest_files {
        Ok(f) => Some(f),
        Err(e @ (GitHubError::Unauthorized { .. } | GitHubError::NoCredentials { .. })) => {
            return Err(e);
        }
        Err(e) => {
            pages.note_incomplete(format!("changed files: {e}"));
            None
        }
    };
    let graph_files = match graph_files {
        Ok(g) => Some(g),
        Err(e @ (GitHubError::Unauthorized { .. } | GitHubError::NoCredentials { .. })) => {
            return Err(e);
        }
        Err(e) => {
            pages.note_incomplete(format!("changed files' viewed state: {e}"));
            None
        }
    };
    let changed_files = graph_files.as_ref().and_then(|g| g.changed_files);
    let mut snapshot = pages.into_snapshot(coords, merge(graph_files, rest_files))?;
    snapshot.pr.changed_files = changed_files;
    Ok(snapshot)
}

/// The `pr.graphql` rounds, then the nested thread comments.
async fn fetch_graph(gh: &GitHub, coords: &PrCoords) -> Result<PrPages, GitHubError> {
    let mut pages = PrPages::new();
    fetch_pages(gh, coords, &mut pages).await?;
    continue_threads(gh, &mut [(coords, &mut pages)]).await?;
    Ok(pages)
}

/// The `pr.graphql` rounds: the first brings the PR and the first page of every connection; each
/// further round advances every connection that still has pages. A failure of the first
/// request is an error, and so is one of the credentials on any page (a 401 halfway is no
/// more recoverable than on the first request); any other later failure leaves what it was for
/// incomplete.
async fn fetch_pages(
    gh: &GitHub,
    coords: &PrCoords,
    pages: &mut PrPages,
) -> Result<(), GitHubError> {
    for round in 0..MAX_ROUNDS {
        if !pages.wants_more() {
            break;
        }
        let first = round == 0;
        let what = pages.describe(coords, first);
        let reply = match gh
            .graphql(PR_QUERY, pages.variables(coords, first), &what)
            .await
        {
            Ok(r) => r,
            Err(e) if first || e.is_credentials() => return Err(e),
            Err(e) => {
                pages.give_up(&e.to_string());
                break;
            }
        };
        if !pages.take_answer(gh, coords, &reply, &what, first)? {
            break;
        }
    }
    pages.end_rounds();
    Ok(())
}

/// REST `pulls/{n}/files`, following `Link: rel="next"` on the same API base.
async fn fetch_files(gh: &GitHub, coords: &PrCoords) -> Result<Vec<ChangedFile>, GitHubError> {
    #[derive(Deserialize)]
    struct RestFile {
        filename: String,
        #[serde(default)]
        status: Option<String>,
        #[serde(default)]
        additions: u32,
        #[serde(default)]
        deletions: u32,
        #[serde(default)]
        previous_filename: Option<String>,
        #[serde(default)]
        patch: Option<String>,
    }
    let what = format!("{coords}: changed files");
    let path = format!(
        "/repos/{}/{}/pulls/{}/files?per_page=100",
        coords.owner, coords.repo, coords.number
    );
    let files: Vec<RestFile> = gh.get_all(&path, MAX_FILE_PAGES, &what).await?;
    Ok(files
        .into_iter()
        .map(|f| ChangedFile {
            path: f.filename,
            status: f.status.unwrap_or_else(|| "modified".to_owned()),
            additions: f.additions,
            deletions: f.deletions,
            previous_path: f.previous_filename,
            patch: f.patch,
            viewed: Default::default(),
            no_patch: None,
        })
        .collect())
}

/// Every page of a REST list, following `Link: rel="next"` on the same API base only.
pub(super) async fn get_all<T: serde::de::DeserializeOwned>(
    gh: &GitHub,
    path: &str,
    max_pages: usize,
    what: &str,
) -> Result<Vec<T>, GitHubError> {
    let mut url = gh.endpoints().rest(path);
    let mut out = Vec::new();
    let mut pager = Pager::default();
    for page in 1..=max_pages {
        let what = format!("{what} (page {page})");
        let resp: RawResponse = gh.transport.send(Method::GET, &url, None, &what).await?;
        if !resp.status.is_success() {
            return Err(http_error(&resp, &what));
        }
        let batch: Vec<T> = resp.json(&what)?;
        out.extend(batch);
        gh.page_done(&what);
        let next = next_link(&resp);
        let next = pager
            .next(next.is_some(), next.as_deref())
            .map_err(|repeated| GitHubError::Invalid(format!("{what}: {repeated}")))?;
        match next {
            // Never send the credentials anywhere but this API.
            Some(next) if next.starts_with(&gh.endpoints().api) => url = next,
            Some(next) => {
                return Err(GitHubError::Invalid(format!(
                    "{what}: the next page is on another host ({}); not followed",
                    crate::sanitize::one_line(&next)
                )));
            }
            None => return Ok(out),
        }
    }
    Err(GitHubError::Invalid(format!(
        "{what}: more than {max_pages} pages; the rest was not fetched"
    )))
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(resp: &RawResponse) -> Option<String> {
    let link = resp.headers.get("link")?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim() == "rel=\"next\"")
            .then(|| {
                url.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_link_header() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            "link",
            reqwest::header::HeaderValue::from_static(
                "<https://api.github.com/repositories/1/pulls/2/files?per_page=100&page=2>; rel=\"next\", <https://api.github.com/repositories/1/pulls/2/files?per_page=100&page=3>; rel=\"last\"",
            ),
        );
        let resp = RawResponse {
            status: reqwest::StatusCode::OK,
            headers,
            body: Vec::new(),
        };
        assert_eq!(
            next_link(&resp).as_deref(),
            Some("https://api.github.com/repositories/1/pulls/2/files?per_page=100&page=2")
        );
    }
}
