//! The fetch plan and the mapping of GitHub's answers onto the snapshot model.
//!
//! Round trips: one `pr.graphql` request brings the PR, its labels and the first 100 threads
//! (each with its first 100 comments), conversation comments and reviews, while the changed
//! files are fetched over REST at the same time. Each further `pr.graphql` request advances every
//! connection that still has pages at once (the others are switched off with `@include`).
//! Threads with more than 100 comments continue with a generated `ThreadComments` operation: one
//! aliased `node(id:)` per thread (up to 20 per request, a few requests at a time). A PR of 260
//! threads (one with 130 comments), 230 comments, 120 reviews and 40 files takes 5 requests.

use chrono::{DateTime, Utc};
use futures::StreamExt;
use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::client::{GraphqlError, RawResponse, http_error};
use super::{GitHub, GitHubError, PR_QUERY, THREAD_COMMENTS_FRAGMENT};
use crate::pr::{
    Association, Author, ChangedFile, Comment, Item, Origin, PrCoords, PrMeta, Review, ReviewState,
    Snapshot, Thread,
};

/// Bound on `pr.graphql` continuation rounds (100 per page: 50 rounds is 5,000 of each kind).
const MAX_ROUNDS: usize = 50;
/// GitHub serves at most 3,000 files (30 pages of 100).
const MAX_FILE_PAGES: usize = 30;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageInfo {
    has_next_page: bool,
    end_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Conn<T> {
    #[serde(rename = "pageInfo")]
    page_info: PageInfo,
    #[serde(default = "Vec::new")]
    nodes: Vec<Option<T>>,
}

#[derive(Debug, Deserialize)]
struct GqlActor {
    #[serde(rename = "__typename", default)]
    typename: String,
    login: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlComment {
    id: String,
    author: Option<GqlActor>,
    author_association: Option<String>,
    created_at: DateTime<Utc>,
    last_edited_at: Option<DateTime<Utc>>,
    url: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    diff_hunk: Option<String>,
    #[serde(default)]
    is_minimized: bool,
    minimized_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlThread {
    id: String,
    is_resolved: bool,
    is_outdated: bool,
    path: String,
    line: Option<u32>,
    original_line: Option<u32>,
    comments: Conn<GqlComment>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlReview {
    id: String,
    author: Option<GqlActor>,
    author_association: Option<String>,
    state: ReviewState,
    created_at: DateTime<Utc>,
    submitted_at: Option<DateTime<Utc>>,
    last_edited_at: Option<DateTime<Utc>>,
    url: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    is_minimized: bool,
    minimized_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Label {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlPr {
    title: Option<String>,
    body: Option<String>,
    url: Option<String>,
    is_draft: Option<bool>,
    state: Option<String>,
    base_ref_name: Option<String>,
    head_ref_name: Option<String>,
    base_ref_oid: Option<String>,
    head_ref_oid: Option<String>,
    author: Option<GqlActor>,
    author_association: Option<String>,
    labels: Option<Conn<Label>>,
    review_threads: Option<Conn<GqlThread>>,
    comments: Option<Conn<GqlComment>>,
    reviews: Option<Conn<GqlReview>>,
}

#[derive(Debug, Deserialize)]
struct Typename {
    #[serde(rename = "__typename")]
    typename: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRepo {
    issue_or_pull_request: Option<Typename>,
    pull_request: Option<GqlPr>,
}

#[derive(Debug, Deserialize)]
struct PrData {
    repository: Option<GqlRepo>,
}

/// One paginated connection of the PR and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Labels,
    Threads,
    Comments,
    Reviews,
}

impl Part {
    const ALL: [Part; 4] = [Part::Labels, Part::Threads, Part::Comments, Part::Reviews];

    fn name(self) -> &'static str {
        match self {
            Part::Labels => "labels",
            Part::Threads => "review threads",
            Part::Comments => "conversation comments",
            Part::Reviews => "reviews",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Part::Labels => "labels",
            Part::Threads => "reviewThreads",
            Part::Comments => "comments",
            Part::Reviews => "reviews",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What the GraphQL side gathered.
#[derive(Default)]
struct Gathered {
    meta: Option<GqlPr>,
    labels: Vec<String>,
    threads: Vec<(GqlThread, Vec<GqlComment>)>,
    comments: Vec<GqlComment>,
    reviews: Vec<GqlReview>,
    incomplete: Vec<String>,
}

pub(super) async fn fetch_snapshot(
    gh: &GitHub,
    coords: &PrCoords,
) -> Result<Snapshot, GitHubError> {
    // A GitHub App mints its installation token here, once, rather than in each of the
    // concurrent requests below (a no-op for a plain token).
    gh.transport.creds.bearer().await?;
    let (graph, files) = futures::join!(fetch_graph(gh, coords), fetch_files(gh, coords));
    let mut g = graph?;
    let (files, files_incomplete) = match files {
        Ok(f) => (f, None),
        Err(e @ (GitHubError::Unauthorized { .. } | GitHubError::NoCredentials { .. })) => {
            return Err(e);
        }
        Err(e) => (Vec::new(), Some(format!("changed files: {e}"))),
    };
    g.incomplete.extend(files_incomplete);
    let meta = g
        .meta
        .take()
        .ok_or_else(|| GitHubError::Invalid(format!("{coords}: GitHub sent no pull request")))?;

    let pr = PrMeta {
        host: coords.host.clone(),
        owner: coords.owner.clone(),
        repo: coords.repo.clone(),
        number: coords.number,
        title: meta.title.unwrap_or_default(),
        body: meta.body.unwrap_or_default(),
        author: author(meta.author.as_ref(), meta.author_association.as_deref()),
        labels: std::mem::take(&mut g.labels),
        base_ref: meta.base_ref_name.unwrap_or_default(),
        head_ref: meta.head_ref_name.unwrap_or_default(),
        base_sha: meta.base_ref_oid.unwrap_or_default(),
        head_sha: meta.head_ref_oid.unwrap_or_default(),
        url: meta.url.unwrap_or_default(),
        draft: meta.is_draft.unwrap_or(false),
        state: meta.state.unwrap_or_else(|| "OPEN".to_owned()),
        files,
    };

    let mut items = Vec::with_capacity(g.threads.len() + g.comments.len() + g.reviews.len());
    for (t, comments) in g.threads {
        // GitHub keeps a thread only while it has a comment; one without is nothing to surface.
        let Some(diff_hunk) = comments
            .first()
            .map(|c| c.diff_hunk.clone().unwrap_or_default())
        else {
            continue;
        };
        let comments: Vec<Comment> = comments.into_iter().map(comment).collect();
        items.push(Item::Thread(Thread {
            diff_hunk,
            id: t.id,
            path: t.path,
            line: t.line,
            original_line: t.original_line,
            outdated: t.is_outdated,
            resolved: t.is_resolved,
            comments,
        }));
    }
    items.extend(g.comments.into_iter().map(|c| Item::Comment(comment(c))));
    items.extend(g.reviews.into_iter().map(|r| Item::Review(review(r))));
    // Oldest first, as on the PR page; the sort is stable, so equal times keep GitHub's order.
    items.sort_by_key(|i| i.created_at());

    Ok(Snapshot {
        pr,
        items,
        incomplete: g.incomplete,
        origin: Origin::Live,
    })
}

fn author(a: Option<&GqlActor>, association: Option<&str>) -> Author {
    let association = match association.unwrap_or("NONE") {
        "OWNER" => Association::Owner,
        "MEMBER" => Association::Member,
        "COLLABORATOR" => Association::Collaborator,
        "CONTRIBUTOR" => Association::Contributor,
        "FIRST_TIME_CONTRIBUTOR" => Association::FirstTimeContributor,
        "FIRST_TIMER" => Association::FirstTimer,
        "MANNEQUIN" => Association::Mannequin,
        _ => Association::None,
    };
    match a {
        Some(a) => Author {
            login: a.login.clone(),
            association,
            bot: a.typename == "Bot",
        },
        // A deleted account: GitHub shows it as "ghost".
        None => Author {
            login: "ghost".to_owned(),
            association,
            bot: false,
        },
    }
}

fn minimized_reason(minimized: bool, reason: Option<String>) -> Option<String> {
    if minimized {
        reason.map(|r| r.to_ascii_lowercase())
    } else {
        None
    }
}

fn comment(c: GqlComment) -> Comment {
    Comment {
        author: author(c.author.as_ref(), c.author_association.as_deref()),
        id: c.id,
        created_at: c.created_at,
        last_edited_at: c.last_edited_at,
        url: c.url,
        body: c.body,
        minimized: c.is_minimized,
        minimized_reason: minimized_reason(c.is_minimized, c.minimized_reason),
    }
}

fn review(r: GqlReview) -> Review {
    Review {
        author: author(r.author.as_ref(), r.author_association.as_deref()),
        id: r.id,
        state: r.state,
        created_at: r.submitted_at.unwrap_or(r.created_at),
        last_edited_at: r.last_edited_at,
        url: r.url,
        body: r.body,
        minimized: r.is_minimized,
        minimized_reason: minimized_reason(r.is_minimized, r.minimized_reason),
    }
}

fn errors_text(errors: &[GraphqlError]) -> String {
    errors
        .iter()
        .take(3)
        .map(|e| {
            let p = e.path_text();
            if p.is_empty() {
                e.message_line()
            } else {
                format!("{} (at {p})", e.message_line())
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Pages of the GraphQL side, then nested thread comments.
async fn fetch_graph(gh: &GitHub, coords: &PrCoords) -> Result<Gathered, GitHubError> {
    let mut g = Gathered::default();
    // Per part: Some(cursor) while more pages are wanted (the first page has cursor None).
    let mut pending: [Option<Option<String>>; 4] = [Some(None), Some(None), Some(None), Some(None)];
    // Threads whose comments continue: (index into g.threads, cursor).
    let mut more_comments: Vec<(usize, String)> = Vec::new();

    for round in 0..MAX_ROUNDS {
        if pending.iter().all(Option::is_none) {
            break;
        }
        let first = round == 0;
        let flag = |p: Part| pending[p.index()].is_some();
        let cursor = |p: Part| pending[p.index()].clone().flatten();
        let vars = json!({
            "owner": coords.owner,
            "repo": coords.repo,
            "number": coords.number,
            "withMeta": first,
            "withLabels": flag(Part::Labels),
            "labelsAfter": cursor(Part::Labels),
            "withThreads": flag(Part::Threads),
            "threadsAfter": cursor(Part::Threads),
            "withComments": flag(Part::Comments),
            "commentsAfter": cursor(Part::Comments),
            "withReviews": flag(Part::Reviews),
            "reviewsAfter": cursor(Part::Reviews),
        });
        let what = if first {
            format!("{coords}")
        } else {
            let parts: Vec<&str> = Part::ALL
                .iter()
                .filter(|p| flag(**p))
                .map(|p| p.name())
                .collect();
            format!("{coords}: further {}", parts.join(", "))
        };
        let reply = match gh.graphql(PR_QUERY, vars, &what).await {
            Ok(r) => r,
            Err(e) if first => return Err(e),
            Err(e) => {
                // A continuation that failed for good: what it was for stays incomplete.
                for p in Part::ALL {
                    if pending[p.index()].take().is_some() {
                        g.incomplete.push(format!(
                            "{} after the first {}: {e}",
                            p.name(),
                            count(&g, p)
                        ));
                    }
                }
                break;
            }
        };
        let data: PrData = match reply.data.clone() {
            Some(d) => serde_json::from_value(d).map_err(|e| {
                GitHubError::Invalid(format!("{what}: unexpected answer from GitHub: {e}"))
            })?,
            None => {
                let text = errors_text(&reply.errors);
                if first {
                    return Err(first_page_error(coords, &reply.errors, None, gh));
                }
                for p in Part::ALL {
                    if pending[p.index()].take().is_some() {
                        g.incomplete.push(format!(
                            "{} after the first {}: GraphQL errors: {text}",
                            p.name(),
                            count(&g, p)
                        ));
                    }
                }
                break;
            }
        };
        let repo = match data.repository {
            Some(r) => r,
            None => return Err(first_page_error(coords, &reply.errors, None, gh)),
        };
        let issue_kind = repo.issue_or_pull_request.map(|t| t.typename);
        let Some(mut pr) = repo.pull_request else {
            return Err(first_page_error(coords, &reply.errors, issue_kind, gh));
        };
        if !reply.errors.is_empty() {
            // A partial answer: say so, and never take it as complete.
            g.incomplete.push(format!(
                "GitHub answered with errors{}: {}",
                if first { "" } else { " on a further page" },
                errors_text(&reply.errors)
            ));
        }

        for p in Part::ALL {
            if pending[p.index()].is_none() {
                continue;
            }
            let next = match p {
                Part::Labels => pr.labels.take().map(|c| {
                    g.labels
                        .extend(c.nodes.into_iter().flatten().map(|l| l.name));
                    c.page_info
                }),
                Part::Threads => pr.review_threads.take().map(|c| {
                    for mut t in c.nodes.into_iter().flatten() {
                        let comments = std::mem::take(&mut t.comments.nodes);
                        if t.comments.page_info.has_next_page
                            && let Some(cur) = t.comments.page_info.end_cursor.clone()
                        {
                            more_comments.push((g.threads.len(), cur));
                        }
                        g.threads
                            .push((t, comments.into_iter().flatten().collect()));
                    }
                    c.page_info
                }),
                Part::Comments => pr.comments.take().map(|c| {
                    g.comments.extend(c.nodes.into_iter().flatten());
                    c.page_info
                }),
                Part::Reviews => pr.reviews.take().map(|c| {
                    g.reviews.extend(c.nodes.into_iter().flatten());
                    c.page_info
                }),
            };
            pending[p.index()] = match next {
                Some(PageInfo {
                    has_next_page: true,
                    end_cursor: Some(c),
                }) => Some(Some(c)),
                Some(_) => None,
                None => {
                    // Asked for but not delivered (nulled by an error).
                    g.incomplete.push(format!(
                        "{} after the first {}: GitHub did not deliver the {} field",
                        p.name(),
                        count(&g, p),
                        p.field()
                    ));
                    None
                }
            };
        }
        if first {
            g.meta = Some(pr);
        }
    }
    for p in Part::ALL {
        if pending[p.index()].is_some() {
            g.incomplete.push(format!(
                "{}: more than {MAX_ROUNDS} pages; the rest was not fetched",
                p.name()
            ));
        }
    }

    // Nested thread comments beyond the first 100: up to THREADS_PER_REQUEST threads advance
    // together in one aliased request, and a few such requests run at a time.
    let mut pending = more_comments;
    for _ in 0..MAX_ROUNDS {
        if pending.is_empty() {
            break;
        }
        let work: Vec<(usize, String, String)> = pending
            .drain(..)
            .map(|(idx, cursor)| {
                let id = g
                    .threads
                    .get(idx)
                    .map(|(t, _)| t.id.clone())
                    .unwrap_or_default();
                (idx, id, cursor)
            })
            .collect();
        let batches: Vec<Vec<(usize, String, String)>> = work
            .chunks(THREADS_PER_REQUEST)
            .map(<[_]>::to_vec)
            .collect();
        let results: Vec<_> = futures::stream::iter(batches.into_iter().map(|batch| async move {
            let res = thread_batch(gh, coords, &batch).await;
            (batch, res)
        }))
        .buffer_unordered(gh.transport.opts.concurrency.max(1))
        .collect()
        .await;
        for (batch, res) in results {
            let per_thread: Vec<ThreadPage> = match res {
                Ok(v) => v,
                Err(why) => batch.iter().map(|_| Err(why.clone())).collect(),
            };
            for ((idx, _, _), r) in batch.iter().zip(per_thread) {
                let Some((t, comments)) = g.threads.get_mut(*idx) else {
                    continue;
                };
                match r {
                    Ok((more, next)) => {
                        comments.extend(more);
                        if let Some(c) = next {
                            pending.push((*idx, c));
                        }
                    }
                    Err(why) => g.incomplete.push(format!(
                        "comments of review thread {} ({}) after the first {}: {why}",
                        t.id,
                        t.path,
                        comments.len()
                    )),
                }
            }
        }
    }
    for (idx, _) in pending {
        if let Some((t, comments)) = g.threads.get(idx) {
            g.incomplete.push(format!(
                "comments of review thread {} after the first {}: more than {MAX_ROUNDS} pages",
                t.id,
                comments.len()
            ));
        }
    }
    Ok(g)
}

fn count(g: &Gathered, p: Part) -> usize {
    match p {
        Part::Labels => g.labels.len(),
        Part::Threads => g.threads.len(),
        Part::Comments => g.comments.len(),
        Part::Reviews => g.reviews.len(),
    }
}

/// Why the first page has no pull request: not found, an issue, or no access.
fn first_page_error(
    coords: &PrCoords,
    errors: &[GraphqlError],
    issue_kind: Option<String>,
    gh: &GitHub,
) -> GitHubError {
    let repo_missing = errors
        .iter()
        .any(|e| e.kind() == Some("NOT_FOUND") && e.path_text() == "repository");
    if let Some(e) = errors
        .iter()
        .find(|e| matches!(e.kind(), Some("FORBIDDEN" | "INSUFFICIENT_SCOPES")))
    {
        return GitHubError::Forbidden(format!(
            "{coords}: the credentials from {} may not read it ({})",
            gh.credentials_source(),
            e.message_line()
        ));
    }
    if repo_missing {
        return GitHubError::NotFound(format!(
            "repository {}/{} not found, or the credentials from {} cannot see it",
            coords.owner,
            coords.repo,
            gh.credentials_source()
        ));
    }
    match issue_kind.as_deref() {
        Some("Issue") => GitHubError::NotAPullRequest(format!(
            "{}/{}#{} is an issue, not a pull request",
            coords.owner, coords.repo, coords.number
        )),
        _ if errors.is_empty() || errors.iter().any(|e| e.kind() == Some("NOT_FOUND")) => {
            GitHubError::NotFound(format!(
                "{}/{} has no pull request #{}",
                coords.owner, coords.repo, coords.number
            ))
        }
        _ => GitHubError::Graphql(format!("{coords}: {}", errors_text(errors))),
    }
}

/// One thread's next page: its comments and the cursor after them, or why it failed.
type ThreadPage = Result<(Vec<GqlComment>, Option<String>), String>;

/// Threads whose comment continuations share one request.
const THREADS_PER_REQUEST: usize = 20;

/// The operation for `n` thread continuations: `tI: node(id: $idI)` with
/// `comments(first: 100, after: $afterI)`, plus the fragment from `thread_comments.graphql`.
pub fn thread_comments_query(n: usize) -> String {
    let mut vars = Vec::with_capacity(n);
    let mut sel = String::new();
    for i in 0..n {
        vars.push(format!("$id{i}: ID!, $after{i}: String"));
        sel.push_str(&format!(
            "  t{i}: node(id: $id{i}) {{\n    __typename\n    ... on PullRequestReviewThread {{\n      comments(first: 100, after: $after{i}) {{\n        ...ThreadCommentPage\n      }}\n    }}\n  }}\n"
        ));
    }
    format!(
        "query ThreadComments({}) {{\n  rateLimit {{\n    cost\n    remaining\n    resetAt\n  }}\n{sel}}}\n\n{THREAD_COMMENTS_FRAGMENT}",
        vars.join(", ")
    )
}

/// One page further for each thread of `batch` (thread index, id, cursor): per thread, the
/// comments and the next cursor, or why that thread failed. `Err` when the whole request failed.
async fn thread_batch(
    gh: &GitHub,
    coords: &PrCoords,
    batch: &[(usize, String, String)],
) -> Result<Vec<ThreadPage>, String> {
    let mut vars = serde_json::Map::new();
    for (i, (_, id, cursor)) in batch.iter().enumerate() {
        vars.insert(format!("id{i}"), json!(id));
        vars.insert(format!("after{i}"), json!(cursor));
    }
    let what = format!(
        "{coords}: further comments of {} review thread(s)",
        batch.len()
    );
    let reply = gh
        .graphql(&thread_comments_query(batch.len()), vars.into(), &what)
        .await
        .map_err(|e| e.to_string())?;
    let Some(data) = reply.data else {
        return Err(format!("GraphQL errors: {}", errors_text(&reply.errors)));
    };
    Ok((0..batch.len())
        .map(|i| {
            let alias = format!("t{i}");
            let errs: Vec<GraphqlError> = reply
                .errors
                .iter()
                .filter(|e| {
                    e.path.first().and_then(|p| p.as_str()) == Some(alias.as_str())
                        || e.path.is_empty()
                })
                .cloned()
                .collect();
            if !errs.is_empty() {
                return Err(format!("GraphQL errors: {}", errors_text(&errs)));
            }
            let conn = data
                .get(&alias)
                .and_then(|n| n.get("comments"))
                .filter(|c| !c.is_null())
                .ok_or_else(|| "the thread is gone".to_owned())?;
            let conn: Conn<GqlComment> = serde_json::from_value(conn.clone())
                .map_err(|e| format!("unexpected answer from GitHub: {e}"))?;
            let next = match conn.page_info {
                PageInfo {
                    has_next_page: true,
                    end_cursor: Some(c),
                } => Some(c),
                _ => None,
            };
            Ok((conn.nodes.into_iter().flatten().collect(), next))
        })
        .collect())
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
    for page in 1..=max_pages {
        let what = format!("{what} (page {page})");
        let resp: RawResponse = gh.transport.send(Method::GET, &url, None, &what).await?;
        if !resp.status.is_success() {
            return Err(http_error(&resp, &what));
        }
        let batch: Vec<T> = resp.json(&what)?;
        out.extend(batch);
        gh.page_done(&what);
        match next_link(&resp) {
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

    #[test]
    fn bot_and_ghost_authors() {
        let bot = GqlActor {
            typename: "Bot".into(),
            login: "dependabot".into(),
        };
        let a = author(Some(&bot), Some("NONE"));
        assert!(a.bot);
        let g = author(None, Some("MEMBER"));
        assert_eq!(g.login, "ghost");
        assert_eq!(g.association, Association::Member);
        assert_eq!(
            author(None, Some("SOMETHING_NEW")).association,
            Association::None
        );
    }
}
