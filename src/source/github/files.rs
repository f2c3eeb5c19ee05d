//! The files of one PR: GraphQL `files` (100 a page, every page) for the metadata and the
//! viewer's viewed state, merged by path with the REST `pulls/{n}/files` list (100 a page) that
//! carries the patches and previous paths; and the viewed-state mutations.
//!
//! Round trips for a PR of `n` files: `ceil(n / 100)` GraphQL pages and `ceil(n / 100)` REST
//! pages (at least one each), the two lists fetched at the same time as the `pr.graphql` rounds.
//! A 300-file PR takes 3 + 3 requests for its files.

use serde::Deserialize;
use serde_json::json;

use super::client::errors_text;
use super::{GitHub, GitHubError};
use crate::pr::{ChangeType, ChangedFile, GITHUB_FILE_LIMIT, NoPatch, PrCoords, ViewedState};

/// `PullRequestFiles`: the files' metadata and the viewer's viewed state.
pub(crate) const PR_FILES_QUERY: &str = include_str!("queries/pr_files.graphql");
/// `markFileAsViewed` (variables `pullRequestId`, `path`).
pub const FILE_VIEWED_MUTATION: &str = include_str!("queries/file_viewed.graphql");
/// `unmarkFileAsViewed` (variables `pullRequestId`, `path`).
pub const FILE_UNVIEWED_MUTATION: &str = include_str!("queries/file_unviewed.graphql");

/// GraphQL pages of files at most (GitHub serves 3,000 files: 30 pages of 100).
const MAX_GRAPH_PAGES: usize = GITHUB_FILE_LIMIT / 100;

/// One file as GraphQL lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GraphFile {
    pub path: String,
    pub change_type: String,
    #[serde(default)]
    pub additions: u32,
    #[serde(default)]
    pub deletions: u32,
    #[serde(default)]
    pub viewer_viewed_state: Option<ViewedState>,
}

/// What the GraphQL side of the file list brought.
#[derive(Debug, Default)]
pub(super) struct GraphFiles {
    /// The PR's node id (for the viewed-state mutations).
    pub pr_id: String,
    /// GitHub's `changedFiles` count.
    pub changed_files: Option<u32>,
    pub files: Vec<GraphFile>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageInfo {
    has_next_page: bool,
    end_cursor: Option<String>,
}

#[derive(Deserialize)]
struct Conn {
    #[serde(rename = "pageInfo")]
    page_info: PageInfo,
    #[serde(default)]
    nodes: Vec<Option<GraphFile>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pr {
    id: String,
    changed_files: Option<u32>,
    files: Option<Conn>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Repo {
    pull_request: Option<Pr>,
}

#[derive(Deserialize)]
struct Data {
    repository: Option<Repo>,
}

/// The variables of a `PullRequestFiles` page after `after`.
fn vars(coords: &PrCoords, after: Option<&str>) -> serde_json::Value {
    json!({
        "owner": coords.owner,
        "repo": coords.repo,
        "number": coords.number,
        "after": after,
    })
}

/// Every GraphQL page of the PR's files.
pub(super) async fn fetch_graph_files(
    gh: &GitHub,
    coords: &PrCoords,
) -> Result<GraphFiles, GitHubError> {
    let mut out = GraphFiles::default();
    let mut after: Option<String> = None;
    for page in 1..=MAX_GRAPH_PAGES {
        let what = format!("{coords}: files (page {page})");
        let reply = gh
            .graphql(PR_FILES_QUERY, vars(coords, after.as_deref()), &what)
            .await?;
        if !reply.errors.is_empty() {
            return Err(GitHubError::Graphql(format!(
                "{what}: {}",
                errors_text(&reply.errors)
            )));
        }
        let data: Data = serde_json::from_value(reply.data.unwrap_or_default()).map_err(|e| {
            GitHubError::Invalid(format!("{what}: unexpected answer from GitHub: {e}"))
        })?;
        let pr = data
            .repository
            .and_then(|r| r.pull_request)
            .ok_or_else(|| GitHubError::NotFound(format!("{what}: no such pull request")))?;
        out.pr_id = pr.id;
        out.changed_files = pr.changed_files;
        let Some(conn) = pr.files else {
            return Err(GitHubError::Invalid(format!(
                "{what}: GitHub did not deliver the files field"
            )));
        };
        out.files.extend(conn.nodes.into_iter().flatten());
        match (conn.page_info.has_next_page, conn.page_info.end_cursor) {
            (true, Some(c)) if Some(&c) != after.as_ref() => after = Some(c),
            (true, _) => {
                return Err(GitHubError::Invalid(format!(
                    "{what}: GitHub repeated its cursor; the rest was not fetched"
                )));
            }
            (false, _) => return Ok(out),
        }
    }
    // GitHub's own limit: the list is as whole as GitHub serves it (said by `files_cut_note`).
    Ok(out)
}

/// The PR's node id, for the viewed-state mutations (one small request).
pub(super) async fn pull_request_id(gh: &GitHub, coords: &PrCoords) -> Result<String, GitHubError> {
    let what = format!("{coords}: pull request id");
    let reply = gh
        .graphql(PR_FILES_QUERY, vars(coords, None), &what)
        .await?;
    let data: Option<Data> = reply.data.and_then(|d| serde_json::from_value(d).ok());
    data.and_then(|d| d.repository)
        .and_then(|r| r.pull_request)
        .map(|p| p.id)
        .ok_or_else(|| {
            GitHubError::NotFound(format!(
                "{what}: no such pull request{}",
                if reply.errors.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", errors_text(&reply.errors))
                }
            ))
        })
}

/// Marks `path` viewed (`viewed`) or not viewed for the viewer. GitHub's answer for a path the
/// PR does not change is an error, said as it is.
pub(super) async fn set_viewed(
    gh: &GitHub,
    pr_id: &str,
    path: &str,
    viewed: bool,
) -> Result<(), GitHubError> {
    let (query, field) = if viewed {
        (FILE_VIEWED_MUTATION, "markFileAsViewed")
    } else {
        (FILE_UNVIEWED_MUTATION, "unmarkFileAsViewed")
    };
    let what = format!("{field} {}", crate::sanitize::one_line(path));
    // Idempotent on GitHub's side (marking twice leaves it marked), so retries are safe.
    let reply = gh
        .graphql(query, json!({"pullRequestId": pr_id, "path": path}), &what)
        .await?;
    if !reply.errors.is_empty() {
        return Err(GitHubError::Graphql(format!(
            "{what}: {}",
            errors_text(&reply.errors)
        )));
    }
    let done = reply
        .data
        .as_ref()
        .and_then(|d| d.get(field))
        .is_some_and(|v| !v.is_null());
    if done {
        Ok(())
    } else {
        Err(GitHubError::Invalid(format!(
            "{what}: GitHub answered without the mutation's result"
        )))
    }
}

/// The file list: GraphQL's order and metadata (viewed state, change type), REST's patches and
/// previous paths by path. A file only REST lists keeps REST's word (unviewed); one only GraphQL
/// lists has no patch, said as not fetched. With no GraphQL list, REST's list as it is.
pub(super) fn merge(graph: Option<GraphFiles>, rest: Option<Vec<ChangedFile>>) -> Vec<ChangedFile> {
    let Some(graph) = graph else {
        return rest.unwrap_or_default();
    };
    let mut by_path: std::collections::HashMap<String, ChangedFile> = rest
        .unwrap_or_default()
        .into_iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    let mut out = Vec::with_capacity(graph.files.len().max(by_path.len()));
    for g in graph.files {
        let viewed = g.viewer_viewed_state.unwrap_or_default();
        match by_path.remove(&g.path) {
            Some(mut f) => {
                f.viewed = viewed;
                out.push(f);
            }
            None => {
                let mut f = ChangedFile::new(&g.path, None);
                f.status = ChangeType::parse(&g.change_type).as_str().to_owned();
                f.additions = g.additions;
                f.deletions = g.deletions;
                f.viewed = viewed;
                // REST did not list it (its request failed, or past its own limit).
                f.no_patch = Some(NoPatch::NotFetched);
                out.push(f);
            }
        }
    }
    // What REST listed and GraphQL did not (GraphQL's list cut short): kept, never dropped.
    let mut rest_only: Vec<ChangedFile> = by_path.into_values().collect();
    rest_only.sort_by(|a, b| a.path.cmp(&b.path));
    out.extend(rest_only);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str, ViewedState)]) -> GraphFiles {
        GraphFiles {
            pr_id: "PR_1".into(),
            changed_files: Some(files.len() as u32),
            files: files
                .iter()
                .map(|(p, t, v)| GraphFile {
                    path: (*p).into(),
                    change_type: (*t).into(),
                    additions: 1,
                    deletions: 2,
                    viewer_viewed_state: Some(*v),
                })
                .collect(),
        }
    }

    #[test]
    fn merge_takes_viewed_state_from_graphql_and_patches_from_rest() {
        let rest = vec![
            ChangedFile::new("b.rs", Some("@@ -1 +1 @@\n-a\n+b".into())),
            ChangedFile::new("only-rest.rs", Some("@@ -0,0 +1 @@\n+x".into())),
        ];
        let files = merge(
            Some(graph(&[
                ("a.rs", "ADDED", ViewedState::Viewed),
                ("b.rs", "MODIFIED", ViewedState::Dismissed),
            ])),
            Some(rest),
        );
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a.rs", "b.rs", "only-rest.rs"]);
        assert_eq!(files[0].viewed, ViewedState::Viewed);
        assert_eq!(files[0].no_patch(), Some(NoPatch::NotFetched));
        assert_eq!(files[0].change_type(), ChangeType::Added);
        assert_eq!(files[1].viewed, ViewedState::Dismissed);
        assert!(files[1].patch.is_some());
        assert_eq!(files[2].viewed, ViewedState::Unviewed);
    }

    #[test]
    fn merge_without_graphql_is_rest() {
        let rest = vec![ChangedFile::new("x", None)];
        assert_eq!(merge(None, Some(rest.clone())), rest);
        assert!(merge(None, None).is_empty());
    }
}
