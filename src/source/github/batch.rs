//! The inbox's fetch: the open PRs of a repository or a search, then many PRs' items in few
//! round trips.
//!
//! Round trips for N PRs: the list (100 per page); then one generated `InboxPullRequests`
//! document per [`PRS_PER_REQUEST`] PRs, each PR an aliased `pN: repository { pullRequest }`
//! with the connections and `@include` switches of `pr.graphql`, so a batch's PRs advance their
//! pages together (a PR with more than 100 threads, comments or reviews takes a further round
//! in the same batch, the others are left out of it); then the thread comments past 100 of all
//! the batch's PRs together, 20 threads per `ThreadComments` request. The paging rules, the
//! mapping onto the snapshot and the incomplete-page rules are those of the one-PR fetch: both
//! go through `pages.rs` (`PrPages`, `continue_threads`); retries and rate-limit waits are the
//! client's. Changed files are not fetched (the inbox counts items only).

use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{Value, json};

use super::client::{GraphqlError, GraphqlReply, errors_text};
use super::pages::{MAX_ROUNDS, PageInfo, Pager, PrPages, continue_threads};
use super::{GitHub, GitHubError, ITEM_FRAGMENTS};
use crate::pr::{
    Association, Author, CheckState, ChecksSummary, Dash, PrCoords, PrMeta, ReviewDecision,
    Reviewer, Snapshot,
};

pub(crate) const INBOX_REPO_QUERY: &str = concat!(
    include_str!("queries/inbox_repo.graphql"),
    include_str!("queries/inbox_listed.graphql")
);
pub(crate) const INBOX_SEARCH_QUERY: &str = concat!(
    include_str!("queries/inbox_search.graphql"),
    include_str!("queries/inbox_listed.graphql")
);

pub(crate) const VIEWER_TEAMS_QUERY: &str = include_str!("queries/viewer_teams.graphql");

/// The teams (`org/slug`) `login` is in, across the organizations the credentials see (one
/// request; the first 100 organizations and 100 teams each). An answer without them is an error:
/// "in no team" is never guessed.
pub async fn viewer_teams(gh: &GitHub, login: &str) -> Result<Vec<String>, GitHubError> {
    let what = "the teams of the current identity";
    let reply = gh
        .graphql(VIEWER_TEAMS_QUERY, json!({"login": login}), what)
        .await?;
    let orgs = reply
        .data
        .as_ref()
        .and_then(|d| d.pointer("/viewer/organizations/nodes"))
        .and_then(Value::as_array)
        .ok_or_else(|| GitHubError::Graphql(format!("{what}: {}", errors_text(&reply.errors))))?;
    Ok(orgs
        .iter()
        .filter_map(|o| o.pointer("/teams/nodes").and_then(Value::as_array))
        .flatten()
        .filter_map(|t| t.get("combinedSlug").and_then(Value::as_str))
        .map(str::to_owned)
        .collect())
}

/// PRs per batched document. Ten PRs of 100 threads × 100 comments stay far below GitHub's
/// 500,000-node limit per query.
pub const PRS_PER_REQUEST: usize = 10;
/// Bound on a repository's list pages (100 each): 100,000 open PRs. The repository's
/// `pullRequests` connection pages without the search's cap; the bound only ends a listing that
/// never would (a repeated cursor ends it at once, see [`Pager`]).
const MAX_LIST_PAGES: usize = 1_000;
/// GitHub's search serves at most this many results, whatever `issueCount` says.
pub const SEARCH_RESULT_CAP: usize = 1_000;

/// One open PR as the list shows it (the body and the files are not fetched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPr {
    pub meta: PrMeta,
    pub updated_at: Option<DateTime<Utc>>,
    /// Checks at the head (counted by state), review decision and requests, size.
    pub dash: Dash,
}

/// What to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListSpec {
    Repo {
        owner: String,
        repo: String,
    },
    /// A GitHub search (`is:pr is:open` is added when missing).
    Search(String),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListedNode {
    #[serde(rename = "__typename", default)]
    typename: Option<String>,
    number: Option<u64>,
    title: Option<String>,
    url: Option<String>,
    is_draft: Option<bool>,
    state: Option<String>,
    head_ref_oid: Option<String>,
    updated_at: Option<DateTime<Utc>>,
    author: Option<Actor>,
    author_association: Option<String>,
    repository: Option<NodeRepo>,
    labels: Option<Labels>,
    additions: Option<u64>,
    deletions: Option<u64>,
    changed_files: Option<u64>,
    review_decision: Option<String>,
    #[serde(default)]
    auto_merge_request: Option<AutoMerge>,
    #[serde(default)]
    is_in_merge_queue: Option<bool>,
    review_requests: Option<Nodes<ReviewRequestNode>>,
    commits: Option<Nodes<CommitNode>>,
}

#[derive(Debug, Deserialize)]
struct Nodes<T> {
    #[serde(default = "Vec::new")]
    nodes: Vec<Option<T>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReviewRequestNode {
    requested_reviewer: Option<RequestedReviewer>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestedReviewer {
    #[serde(rename = "__typename", default)]
    typename: String,
    login: Option<String>,
    combined_slug: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CommitNode {
    commit: Option<CommitRollup>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommitRollup {
    status_check_rollup: Option<Rollup>,
}

#[derive(Debug, Deserialize)]
struct Rollup {
    contexts: Option<RollupContexts>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RollupContexts {
    #[serde(default)]
    check_run_counts_by_state: Option<Vec<StateCount>>,
    #[serde(default)]
    status_context_counts_by_state: Option<Vec<StateCount>>,
}

#[derive(Debug, Deserialize)]
struct StateCount {
    state: String,
    count: u32,
}

/// The dashboard's data of a listed node. A PR without a rollup has no checks (a zero summary);
/// a node that did not carry the commits at all says nothing.
fn dash_of(n: &ListedNode) -> Dash {
    let checks = n.commits.as_ref().map(|c| {
        let mut s = ChecksSummary::default();
        let rollup = c
            .nodes
            .iter()
            .flatten()
            .filter_map(|n| n.commit.as_ref())
            .filter_map(|c| c.status_check_rollup.as_ref())
            .filter_map(|r| r.contexts.as_ref())
            .next_back();
        if let Some(ctx) = rollup {
            for sc in ctx.check_run_counts_by_state.iter().flatten() {
                s.add(CheckState::of_check_run(&sc.state, None), sc.count);
            }
            for sc in ctx.status_context_counts_by_state.iter().flatten() {
                s.add(CheckState::of_status(&sc.state), sc.count);
            }
        }
        s
    });
    let review_requests = n
        .review_requests
        .as_ref()
        .map(|r| {
            r.nodes
                .iter()
                .flatten()
                .filter_map(|r| r.requested_reviewer.as_ref())
                .filter_map(
                    |r| match (r.typename.as_str(), &r.login, &r.combined_slug) {
                        ("Team", _, Some(slug)) => Some(Reviewer::Team { slug: slug.clone() }),
                        (_, Some(login), _) => Some(Reviewer::User {
                            login: login.clone(),
                        }),
                        _ => None,
                    },
                )
                .collect()
        })
        .unwrap_or_default();
    Dash {
        checks,
        review_decision: n.review_decision.as_deref().and_then(ReviewDecision::parse),
        review_requests,
        additions: n.additions,
        deletions: n.deletions,
        changed_files: n.changed_files,
        auto_merge: n.auto_merge_request.as_ref().map(|a| {
            a.merge_method
                .clone()
                .unwrap_or_default()
                .to_ascii_lowercase()
        }),
        queued: n.is_in_merge_queue.unwrap_or(false),
        ..Dash::default()
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AutoMerge {
    #[serde(default)]
    merge_method: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Actor {
    #[serde(rename = "__typename", default)]
    typename: String,
    login: String,
}

#[derive(Debug, Deserialize)]
struct NodeRepo {
    name: String,
    owner: Login,
}

#[derive(Debug, Deserialize)]
struct Login {
    login: String,
}

#[derive(Debug, Deserialize)]
struct Labels {
    #[serde(default)]
    nodes: Vec<Option<Name>>,
}

#[derive(Debug, Deserialize)]
struct Name {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListPage {
    page_info: PageInfo,
    #[serde(default)]
    nodes: Vec<Option<ListedNode>>,
    /// A search's count of everything it matched (absent for a repository's list).
    #[serde(default)]
    issue_count: Option<usize>,
}

fn association(s: Option<&str>) -> Association {
    serde_json::from_value(Value::String(s.unwrap_or("NONE").to_owned()))
        .unwrap_or(Association::None)
}

fn open_pr(n: ListedNode, host: Option<&str>) -> Option<OpenPr> {
    let dash = dash_of(&n);
    if n.typename.as_deref().is_some_and(|t| t != "PullRequest") {
        return None;
    }
    let repo = n.repository?;
    let state = n.state.unwrap_or_else(|| "OPEN".to_owned());
    if !state.eq_ignore_ascii_case("OPEN") {
        return None;
    }
    let author = match n.author {
        Some(a) => Author {
            bot: a.typename == "Bot",
            login: a.login,
            association: association(n.author_association.as_deref()),
        },
        None => Author {
            login: "ghost".to_owned(),
            association: association(n.author_association.as_deref()),
            bot: false,
        },
    };
    Some(OpenPr {
        meta: PrMeta {
            host: host.map(str::to_owned),
            owner: repo.owner.login,
            repo: repo.name,
            number: n.number?,
            title: n.title.unwrap_or_default(),
            body: String::new(),
            author,
            labels: n
                .labels
                .map(|l| l.nodes.into_iter().flatten().map(|x| x.name).collect())
                .unwrap_or_default(),
            base_ref: String::new(),
            head_ref: String::new(),
            base_sha: String::new(),
            head_sha: n.head_ref_oid.unwrap_or_default(),
            url: n.url.unwrap_or_default(),
            draft: n.is_draft.unwrap_or(false),
            state,
            files: Vec::new(),
            changed_files: None,
        },
        updated_at: n.updated_at,
        dash,
    })
}

/// The search text: the user's query with `is:pr is:open` added when it does not say so.
pub fn search_text(query: &str) -> String {
    let mut q = query.trim().to_owned();
    let words: Vec<String> = q.split_whitespace().map(str::to_ascii_lowercase).collect();
    if !words.iter().any(|w| w == "is:pr" || w == "type:pr") {
        q.push_str(" is:pr");
    }
    if !words.iter().any(|w| w == "is:open" || w == "state:open") {
        q.push_str(" is:open");
    }
    q
}

/// Every open PR the spec names, paged completely: a repository's however many (its
/// `pullRequests` connection has no result cap). An unknown repository or a query GitHub
/// rejects is an error carrying GitHub's reason; so is a search that matches more than GitHub's
/// search serves ([`SEARCH_RESULT_CAP`]) and a repeated cursor: a partial list is never passed
/// off as the whole.
pub async fn list_open(gh: &GitHub, spec: &ListSpec) -> Result<Vec<OpenPr>, GitHubError> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    let mut pager = Pager::default();
    for page in 1..=MAX_LIST_PAGES {
        let (query, vars, what) = match spec {
            ListSpec::Repo { owner, repo } => (
                INBOX_REPO_QUERY,
                json!({"owner": owner, "repo": repo, "after": after}),
                format!("open PRs of {owner}/{repo} (page {page})"),
            ),
            ListSpec::Search(q) => (
                INBOX_SEARCH_QUERY,
                json!({"query": search_text(q), "after": after}),
                format!(
                    "the search `{}` (page {page})",
                    crate::sanitize::one_line(q)
                ),
            ),
        };
        let reply = gh.graphql(query, vars, &what).await?;
        let conn = match spec {
            ListSpec::Repo { .. } => reply
                .data
                .as_ref()
                .and_then(|d| d.get("repository"))
                .filter(|r| !r.is_null())
                .and_then(|r| r.get("pullRequests")),
            ListSpec::Search(_) => reply.data.as_ref().and_then(|d| d.get("search")),
        }
        .filter(|c| !c.is_null());
        let Some(conn) = conn else {
            return Err(list_error(spec, &reply, &what));
        };
        let conn: ListPage = serde_json::from_value(conn.clone()).map_err(|e| {
            GitHubError::Invalid(format!("{what}: unexpected answer from GitHub: {e}"))
        })?;
        if !reply.errors.is_empty() {
            // A partial list would hide PRs: never pass it off as the whole.
            return Err(GitHubError::Graphql(format!(
                "{what}: GitHub answered with errors: {}",
                errors_text(&reply.errors)
            )));
        }
        if let (ListSpec::Search(q), Some(found)) = (spec, conn.issue_count)
            && found > SEARCH_RESULT_CAP
        {
            return Err(GitHubError::Config(format!(
                "the search `{}` finds {found} pull requests; GitHub's search serves at most \
                 {SEARCH_RESULT_CAP}, so the rest could not be listed: narrow the search, or list \
                 the repository (`pr-shepherd inbox OWNER/REPO`), which has no such cap",
                crate::sanitize::one_line(q)
            )));
        }
        out.extend(
            conn.nodes
                .into_iter()
                .flatten()
                .filter_map(|n| open_pr(n, gh.host())),
        );
        match pager.after(&conn.page_info) {
            Ok(Some(c)) => after = Some(c),
            Ok(None) => return Ok(out),
            Err(repeated) => {
                return Err(GitHubError::Invalid(format!(
                    "{what}: {repeated}; the list was not finished"
                )));
            }
        }
    }
    Err(GitHubError::Invalid(format!(
        "more than {} pages of open PRs; the rest was not listed",
        MAX_LIST_PAGES
    )))
}

fn list_error(spec: &ListSpec, reply: &GraphqlReply, what: &str) -> GitHubError {
    let text = errors_text(&reply.errors);
    match spec {
        ListSpec::Repo { owner, repo } => {
            if reply.errors.iter().any(|e| e.kind() == Some("NOT_FOUND")) || reply.errors.is_empty()
            {
                GitHubError::NotFound(format!(
                    "repository {owner}/{repo} not found, or the credentials from {} cannot see it{}",
                    "these credentials",
                    if text.is_empty() {
                        String::new()
                    } else {
                        format!(" (GitHub: {text})")
                    }
                ))
            } else {
                GitHubError::Graphql(format!("{what}: {text}"))
            }
        }
        // GitHub rejects a bad search with errors and no data: that is bad input.
        ListSpec::Search(q) => GitHubError::Config(format!(
            "GitHub rejected the search `{}`: {}",
            crate::sanitize::one_line(q),
            if text.is_empty() {
                "no results object".to_owned()
            } else {
                text
            }
        )),
    }
}

/// The operation for `n` PRs: `pI: repository(owner: $owner_I, name: $repo_I)` with the PR's
/// connections on `_I` variables, plus the item fragments `items` uses (`items.graphql`).
pub fn inbox_prs_query(n: usize) -> String {
    let mut vars = Vec::with_capacity(n);
    let mut sel = String::new();
    for i in 0..n {
        vars.push(format!(
            "$owner_{i}: String!, $repo_{i}: String!, $number_{i}: Int!, $withMeta_{i}: Boolean!, \
             $withLabels_{i}: Boolean!, $labelsAfter_{i}: String, $withThreads_{i}: Boolean!, \
             $threadsAfter_{i}: String, $withComments_{i}: Boolean!, $commentsAfter_{i}: String, \
             $withReviews_{i}: Boolean!, $reviewsAfter_{i}: String"
        ));
        let m = format!("@include(if: $withMeta_{i})");
        let page = "pageInfo {\n          hasNextPage\n          endCursor\n        }";
        sel.push_str(&format!(
            "  p{i}: repository(owner: $owner_{i}, name: $repo_{i}) {{
    issueOrPullRequest(number: $number_{i}) {m} {{
      __typename
    }}
    pullRequest(number: $number_{i}) {{
      id
      number
      title {m}
      url {m}
      isDraft {m}
      state {m}
      baseRefName {m}
      headRefName {m}
      baseRefOid {m}
      headRefOid {m}
      author {m} {{
        __typename
        login
      }}
      authorAssociation {m}
      labels(first: 100, after: $labelsAfter_{i}) @include(if: $withLabels_{i}) {{
        {page}
        nodes {{
          name
        }}
      }}
      reviewThreads(first: 100, after: $threadsAfter_{i}) @include(if: $withThreads_{i}) {{
        {page}
        nodes {{
          ...ThreadFields
        }}
      }}
      comments(first: 100, after: $commentsAfter_{i}) @include(if: $withComments_{i}) {{
        {page}
        nodes {{
          ...IssueCommentFields
        }}
      }}
      reviews(
        first: 100
        after: $reviewsAfter_{i}
        states: [APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED]
      ) @include(if: $withReviews_{i}) {{
        {page}
        nodes {{
          ...ReviewFields
        }}
      }}
    }}
  }}
"
        ));
    }
    format!(
        "query InboxPullRequests({}) {{\n  rateLimit {{\n    cost\n    remaining\n    resetAt\n  }}\n{sel}}}\n{ITEM_FRAGMENTS}",
        vars.join(", ")
    )
}

/// One PR of a batch while its pages come in.
struct InFlight {
    coords: PrCoords,
    pages: PrPages,
    /// Set when the PR failed for good (its first page).
    failed: Option<GitHubError>,
    rounds: usize,
}

/// The answer for alias `pI`, shaped like a `pr.graphql` answer (`data.repository`, errors with
/// their path starting at `repository`), so the one-PR rules read it.
fn alias_reply(reply: &GraphqlReply, i: usize) -> GraphqlReply {
    let alias = format!("p{i}");
    let data = reply
        .data
        .as_ref()
        .map(|d| json!({"repository": d.get(&alias).cloned().unwrap_or(Value::Null)}));
    let errors = reply
        .errors
        .iter()
        .filter(|e| {
            e.path.first().and_then(Value::as_str) == Some(alias.as_str()) || e.path.is_empty()
        })
        .map(|e| {
            let mut e: GraphqlError = e.clone();
            if let Some(first) = e.path.first_mut()
                && first.as_str() == Some(alias.as_str())
            {
                *first = json!("repository");
            }
            e
        })
        .collect();
    GraphqlReply { data, errors }
}

/// Fetches every PR of `prs` — [`PRS_PER_REQUEST`] per batch, a few batches at a time — and
/// hands each finished batch's snapshots to `done` as they arrive. A PR whose first page fails
/// comes back as its error; later pages that fail leave it incomplete (`Snapshot::incomplete`).
pub async fn fetch_many(
    gh: &GitHub,
    prs: Vec<PrCoords>,
    mut done: impl FnMut(Vec<(PrCoords, Result<Snapshot, GitHubError>)>),
) {
    // A GitHub App mints its installation token once, before the concurrent requests.
    if let Err(e) = gh.transport.creds.bearer().await {
        let why = e.to_string();
        done(
            prs.into_iter()
                .map(|c| (c, Err(GitHubError::Auth(why.clone()))))
                .collect(),
        );
        return;
    }
    let batches: Vec<Vec<PrCoords>> = prs.chunks(PRS_PER_REQUEST).map(<[_]>::to_vec).collect();
    let mut stream = futures::stream::iter(batches.into_iter().map(|b| fetch_batch(gh, b)))
        .buffer_unordered(gh.transport.opts.concurrency.max(1));
    while let Some(results) = stream.next().await {
        done(results);
    }
}

/// One batch: the PR rounds, then the thread-comment continuations of all its PRs.
async fn fetch_batch(
    gh: &GitHub,
    prs: Vec<PrCoords>,
) -> Vec<(PrCoords, Result<Snapshot, GitHubError>)> {
    let mut flights: Vec<InFlight> = prs
        .into_iter()
        .map(|coords| InFlight {
            coords,
            pages: PrPages::new(),
            failed: None,
            rounds: 0,
        })
        .collect();
    for _ in 0..MAX_ROUNDS {
        let active: Vec<usize> = flights
            .iter()
            .enumerate()
            .filter(|(_, f)| f.failed.is_none() && f.pages.wants_more())
            .map(|(i, _)| i)
            .collect();
        if active.is_empty() {
            break;
        }
        let mut vars = serde_json::Map::new();
        for (slot, &i) in active.iter().enumerate() {
            let f = &flights[i];
            if let Value::Object(v) = f.pages.variables(&f.coords, f.rounds == 0) {
                for (k, v) in v {
                    vars.insert(format!("{k}_{slot}"), v);
                }
            }
        }
        let what = match active.as_slice() {
            [one] => flights[*one]
                .pages
                .describe(&flights[*one].coords, flights[*one].rounds == 0),
            many => format!("{} pull requests", many.len()),
        };
        let reply = gh
            .graphql(&inbox_prs_query(active.len()), vars.into(), &what)
            .await;
        for (slot, &i) in active.iter().enumerate() {
            let f = &mut flights[i];
            let first = f.rounds == 0;
            f.rounds += 1;
            match &reply {
                // A 401 halfway fails the PR as one on the first page does.
                Err(e) if first || e.is_credentials() => f.failed = Some(clone_error(e)),
                Err(e) => f.pages.give_up(&e.to_string()),
                Ok(reply) => {
                    let one = alias_reply(reply, slot);
                    let what = f.pages.describe(&f.coords, first);
                    // `Ok(false)`: what the page was for is given up on, incomplete.
                    if let Err(e) = f.pages.take_answer(gh, &f.coords, &one, &what, first) {
                        f.failed = Some(e);
                    }
                }
            }
        }
    }
    for f in &mut flights {
        if f.failed.is_none() {
            f.pages.end_rounds();
        }
    }
    // The thread comments past 100 of every PR of the batch together.
    let mut going: Vec<(&PrCoords, &mut PrPages)> = flights
        .iter_mut()
        .filter(|f| f.failed.is_none())
        .map(|f| (&f.coords, &mut f.pages))
        .collect();
    let fatal = continue_threads(gh, &mut going).await.err();
    if let Some(e) = &fatal {
        for f in flights.iter_mut().filter(|f| f.failed.is_none()) {
            f.failed = Some(clone_error(e));
        }
    }
    flights
        .into_iter()
        .map(|f| {
            let result = match f.failed {
                Some(e) => Err(e),
                None => f.pages.into_snapshot(&f.coords, Vec::new()),
            };
            (f.coords, result)
        })
        .collect()
}

/// `GitHubError` is not `Clone` (it may carry sources); a batch's failed request is the same
/// failure for each of its PRs.
fn clone_error(e: &GitHubError) -> GitHubError {
    match e {
        GitHubError::RateLimited {
            what,
            reset,
            wait,
            stop,
        } => GitHubError::RateLimited {
            what: what.clone(),
            reset: *reset,
            wait: *wait,
            stop: *stop,
        },
        GitHubError::TooLarge { what, limit } => GitHubError::TooLarge {
            what: what.clone(),
            limit: *limit,
        },
        GitHubError::NoCredentials { tried } => GitHubError::NoCredentials {
            tried: tried.clone(),
        },
        GitHubError::Auth(why) => GitHubError::Auth(why.clone()),
        GitHubError::Unavailable { what, why } => GitHubError::Unavailable {
            what: what.clone(),
            why: why.clone(),
        },
        GitHubError::Http {
            what,
            status,
            message,
        } => GitHubError::Http {
            what: what.clone(),
            status: *status,
            message: message.clone(),
        },
        GitHubError::Unauthorized { from, message } => GitHubError::Unauthorized {
            from: from.clone(),
            message: message.clone(),
        },
        other => GitHubError::Graphql(other.to_string()),
    }
}

/// One PR's dashboard fields (`InboxListedPr`, the fragment the inbox lists with), for `record`.
pub(crate) const RECORD_DASHBOARD_QUERY: &str = concat!(
    include_str!("queries/record_dashboard.graphql"),
    include_str!("queries/inbox_listed.graphql")
);

/// What the inbox's dashboard shows of one PR — checks counted by state, review decision and
/// requests, size — read in one request with the inbox's own fragment, so a recorded fixture
/// shows the columns the live inbox showed. The viewer's teams are not asked here.
pub async fn dashboard_of(gh: &GitHub, c: &PrCoords) -> Result<Dash, GitHubError> {
    let what = "the PR's dashboard fields";
    let reply = gh
        .graphql(
            RECORD_DASHBOARD_QUERY,
            json!({"owner": c.owner, "repo": c.repo, "number": c.number}),
            what,
        )
        .await?;
    let node = reply
        .data
        .as_ref()
        .and_then(|d| d.pointer("/repository/pullRequest"))
        .filter(|n| !n.is_null())
        .ok_or_else(|| GitHubError::Graphql(format!("{what}: {}", errors_text(&reply.errors))))?;
    let node = ListedNode::deserialize(node)
        .map_err(|e| GitHubError::Graphql(format!("{what}: an unexpected answer: {e}")))?;
    Ok(dash_of(&node))
}
