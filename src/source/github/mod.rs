//! The live GitHub source: a complete, paginated fetch of a PR into a [`Snapshot`].
//!
//! - `auth.rs`: where credentials come from (env tokens, a GitHub App, `gh auth token`).
//! - `client.rs`: one request with rate-limit waits and bounded retries; the request counter.
//!   TLS and the `Retry-After` parser are the crate's, shared with the LLM clients (`crate::net`).
//! - `pages.rs`: one PR's GraphQL pages gathered into a snapshot (the page plan, nested thread
//!   comments, the mapping of GitHub's answers onto the snapshot model), shared by `fetch.rs`
//!   and `batch.rs` through `PrPages` and `continue_threads`.
//! - `fetch.rs`: the one-PR fetch (GraphQL rounds, REST files at the same time, REST lists).
//! - `batch.rs`: the inbox's fetch: open PRs listed, then many PRs' items in few round trips.
//! - `members.rs`: the organization membership check.
//! - `base_files.rs`: files of the PR's base branch at the base commit (the review's guidance).
//! - `contents.rs`: one file's text at a commit, bounded and cached by blob id (the diff's
//!   context on demand).
//! - `queries/*.graphql`: the GraphQL documents, validated against GitHub's schema in
//!   `tests/github/schema.rs`.
//!
//! [`GitHub`] is reused by everything that talks to GitHub through its small typed REST helpers:
//! the identity of the current credentials ([`GitHub::viewer_login`]), membership checks, and the
//! Shepherd comment store, which lives with posting in `publish::github` (this module knows
//! nothing about posting).
//!
//! Waits and retries are announced as [`Notice`]s to [`FetchOptions::notify`];
//! [`FetchOptions::from_vars`] prints them to stderr. Nothing else subscribes yet: the console
//! shows no fetch status line.

pub mod auth;
mod base_files;
pub mod batch;
pub mod checks;
pub mod client;
pub mod contents;
mod fetch;
mod files;
mod members;
mod pages;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use thiserror::Error;

pub use auth::{AuthEnv, Credentials, Secret};
pub use base_files::{base_files, base_files_query};
pub use client::{GraphqlError, GraphqlReply, RateLimit, RawResponse};
pub use members::is_org_member;

use crate::pr::{PrCoords, Snapshot};

/// The item fragments (`items.graphql`, `thread_comment_fields.graphql`), shared by the PR
/// query and the inbox's batches so both read the same fields of every item.
pub(crate) const ITEM_FRAGMENTS: &str = concat!(
    include_str!("queries/items.graphql"),
    include_str!("queries/thread_comment_fields.graphql")
);
pub(crate) const PR_QUERY: &str = concat!(
    include_str!("queries/pr.graphql"),
    include_str!("queries/items.graphql"),
    include_str!("queries/thread_comment_fields.graphql")
);
pub(crate) const THREAD_COMMENTS_FRAGMENT: &str = concat!(
    include_str!("queries/thread_comments.graphql"),
    include_str!("queries/thread_comment_fields.graphql")
);
pub(crate) const VIEWER_QUERY: &str = include_str!("queries/viewer.graphql");
/// `addPullRequestReviewThreadReply` (variables `threadId`, `body`).
pub const THREAD_REPLY_MUTATION: &str = include_str!("queries/thread_reply.graphql");
/// `resolveReviewThread` (variable `threadId`).
pub const THREAD_RESOLVE_MUTATION: &str = include_str!("queries/thread_resolve.graphql");
/// `unresolveReviewThread` (variable `threadId`).
pub const THREAD_UNRESOLVE_MUTATION: &str = include_str!("queries/thread_unresolve.graphql");

/// The PR as a decision needs it (`PrDecide`: variables `owner`, `repo`, `number`).
pub const PR_DECIDE_QUERY: &str = include_str!("queries/pr_decide.graphql");
/// `markPullRequestReadyForReview` (variable `id`).
pub const PR_READY_MUTATION: &str = include_str!("queries/pr_ready.graphql");
/// `convertPullRequestToDraft` (variable `id`).
pub const PR_DRAFT_MUTATION: &str = include_str!("queries/pr_draft.graphql");
/// `enablePullRequestAutoMerge` (variables `id`, `method`, `head`, `headline`, `body`).
pub const PR_AUTO_MERGE_MUTATION: &str = include_str!("queries/pr_auto_merge.graphql");
/// `disablePullRequestAutoMerge` (variable `id`).
pub const PR_AUTO_MERGE_OFF_MUTATION: &str = include_str!("queries/pr_auto_merge_off.graphql");
/// `enqueuePullRequest` (variables `id`, `head`).
pub const PR_ENQUEUE_MUTATION: &str = include_str!("queries/pr_enqueue.graphql");
/// `dequeuePullRequest` (variable `id`).
pub const PR_DEQUEUE_MUTATION: &str = include_str!("queries/pr_dequeue.graphql");
/// `updatePullRequestBranch` (variables `id`, `head`, `method`).
pub const PR_UPDATE_BRANCH_MUTATION: &str = include_str!("queries/pr_update_branch.graphql");

/// The fixed GraphQL documents, by file name (for the schema validation test). The thread
/// comment continuations are generated around `thread_comments.graphql`'s fragment by
/// [`thread_comments_query`].
pub const QUERIES: &[(&str, &str)] = &[
    ("pr.graphql", PR_QUERY),
    ("viewer.graphql", VIEWER_QUERY),
    ("inbox_repo.graphql", batch::INBOX_REPO_QUERY),
    ("inbox_search.graphql", batch::INBOX_SEARCH_QUERY),
    ("viewer_teams.graphql", batch::VIEWER_TEAMS_QUERY),
    ("thread_reply.graphql", THREAD_REPLY_MUTATION),
    ("thread_resolve.graphql", THREAD_RESOLVE_MUTATION),
    ("thread_unresolve.graphql", THREAD_UNRESOLVE_MUTATION),
    ("pr_files.graphql", files::PR_FILES_QUERY),
    ("file_viewed.graphql", files::FILE_VIEWED_MUTATION),
    ("file_unviewed.graphql", files::FILE_UNVIEWED_MUTATION),
    ("head_checks.graphql", checks::HEAD_CHECKS_QUERY),
    ("record_dashboard.graphql", batch::RECORD_DASHBOARD_QUERY),
    ("file_contents.graphql", contents::FILE_CONTENTS_QUERY),
    ("pr_decide.graphql", PR_DECIDE_QUERY),
    ("pr_ready.graphql", PR_READY_MUTATION),
    ("pr_draft.graphql", PR_DRAFT_MUTATION),
    ("pr_auto_merge.graphql", PR_AUTO_MERGE_MUTATION),
    ("pr_auto_merge_off.graphql", PR_AUTO_MERGE_OFF_MUTATION),
    ("pr_enqueue.graphql", PR_ENQUEUE_MUTATION),
    ("pr_dequeue.graphql", PR_DEQUEUE_MUTATION),
    ("pr_update_branch.graphql", PR_UPDATE_BRANCH_MUTATION),
];

pub use pages::{thread_comments_query, thread_tails_query};

pub const DEFAULT_API_URL: &str = "https://api.github.com";

/// Everything that can go wrong talking to GitHub. No variant ever carries a credential.
#[derive(Debug, Error)]
pub enum GitHubError {
    #[error("no GitHub credentials found; tried, in order: {}.\nSet GH_TOKEN (or GITHUB_TOKEN), configure a GitHub App (GH_APP_ID, GH_APP_PRIVATE_KEY, GH_APP_INSTALLATION_ID), or run `gh auth login`.", tried.join("; "))]
    NoCredentials { tried: Vec<String> },
    #[error(
        "GitHub rejected the credentials from {from} (401: {message}).\nCredentials are taken from the first of: GH_TOKEN, GITHUB_TOKEN, a GitHub App (GH_APP_*), `gh auth token`; fix or replace that one."
    )]
    Unauthorized { from: String, message: String },
    #[error("{0}")]
    Auth(String),
    #[error("{0}")]
    Config(String),
    /// The repository or PR does not exist, or the credentials cannot see it.
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    NotAPullRequest(String),
    #[error("no permission: {0}")]
    Forbidden(String),
    #[error("{what}: GitHub's rate limit is exhausted{}; {}", reset.map(|r| format!(" until {}", r.format("%H:%M:%S UTC"))).unwrap_or_default(), stop.says(*wait))]
    RateLimited {
        what: String,
        reset: Option<DateTime<Utc>>,
        /// The wait GitHub asked for last.
        wait: Duration,
        /// Why the client stopped waiting.
        stop: RateLimitStop,
    },
    /// An answer larger than [`FetchOptions::max_answer_bytes`]: read no further, never retried.
    #[error("{what}: GitHub's answer is larger than {} MiB (PR_SHEPHERD_HTTP_MAX_ANSWER_MB); it was not read", limit / (1024 * 1024))]
    TooLarge { what: String, limit: usize },
    /// 5xx, timeouts or connection failures that outlasted every retry.
    #[error("{what}: GitHub is unavailable: {why}")]
    Unavailable { what: String, why: String },
    #[error("{what}: GitHub answered HTTP {status}: {message}")]
    Http {
        what: String,
        status: u16,
        message: String,
    },
    #[error("{0}")]
    Graphql(String),
    #[error("{0}")]
    Invalid(String),
}

/// Why a rate-limited request stopped waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateLimitStop {
    /// The wait asked for is longer than the bound on one wait (this many seconds).
    TooLong { bound_secs: u64 },
    /// GitHub was still limiting after this many waits, the most one request waits.
    TooManyWaits { waits: u32 },
}

impl RateLimitStop {
    /// The end of the error's sentence: why no further wait.
    fn says(self, wait: Duration) -> String {
        match self {
            RateLimitStop::TooLong { bound_secs } => format!(
                "waiting {}s would exceed the bound of {bound_secs}s on one wait (PR_SHEPHERD_HTTP_MAX_WAIT_S)",
                wait.as_secs()
            ),
            RateLimitStop::TooManyWaits { waits } => format!(
                "it was still limited after {waits} waits, the most one request waits (it asked for {}s more)",
                wait.as_secs()
            ),
        }
    }
}

impl GitHubError {
    /// True for a failure of the credentials themselves (a 401, none found, a GitHub App that
    /// cannot mint a token): whatever page it struck, the run cannot go on and exits 1, as on
    /// the first request.
    pub fn is_credentials(&self) -> bool {
        matches!(
            self,
            GitHubError::Unauthorized { .. }
                | GitHubError::NoCredentials { .. }
                | GitHubError::Auth(_)
        )
    }

    /// True when the PR reference itself is wrong (exit code 2), not the environment.
    pub fn is_bad_reference(&self) -> bool {
        matches!(
            self,
            GitHubError::NotFound(_) | GitHubError::NotAPullRequest(_) | GitHubError::Config(_)
        )
    }
}

/// Something the user should see while a fetch waits (a rate-limit wait, a retry), sent to
/// [`FetchOptions::notify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    RateLimited {
        what: String,
        wait: Duration,
        reset: Option<DateTime<Utc>>,
    },
    Retrying {
        what: String,
        why: String,
        attempt: u32,
        max_attempts: u32,
        wait: Duration,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::RateLimited { what, wait, reset } => write!(
                f,
                "GitHub rate limit reached ({what}); waiting {:.1}s{}",
                wait.as_secs_f64(),
                reset
                    .map(|r| format!(" (resets at {})", r.format("%H:%M:%S UTC")))
                    .unwrap_or_default()
            ),
            Notice::Retrying {
                what,
                why,
                attempt,
                max_attempts,
                wait,
            } => write!(
                f,
                "{what}: {why}; retrying in {:.1}s (attempt {}/{max_attempts})",
                wait.as_secs_f64(),
                attempt + 1
            ),
        }
    }
}

pub type NoticeSink = Arc<dyn Fn(&Notice) + Send + Sync>;

/// Told once per page (GraphQL round or REST page) that came back, with what it was for
/// (`OWNER/REPO#N: changed files (page 2)`): progress for long fetches.
pub type PageSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Retry, wait and concurrency bounds.
#[derive(Clone)]
pub struct FetchOptions {
    /// Attempts per request for 5xx, timeouts and connection errors (1 = no retry).
    pub max_attempts: u32,
    /// First backoff; doubles per attempt up to `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// The longest single rate-limit wait; a longer one fails with the reset time.
    pub max_rate_limit_wait: Duration,
    /// Per request, connect to last byte.
    pub timeout: Duration,
    /// Per fetch: one request with all its retries and backoff (rate-limit waits, bounded on
    /// their own, are added to it). A server that never answers is given up on after this.
    pub deadline: Duration,
    /// Nested thread-comment pages fetched at once.
    pub concurrency: usize,
    /// The largest answer read (bytes, as sent): a longer one ends the request with
    /// [`GitHubError::TooLarge`] before more of it is read.
    pub max_answer_bytes: usize,
    pub notify: Option<NoticeSink>,
}

/// The default of [`FetchOptions::max_answer_bytes`]: 64 MiB. A page of 100 threads of 100
/// comments of ordinary size is a few MB; a hostile one (a 1 GB answer) is refused at this size.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            max_attempts: 4,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_rate_limit_wait: Duration::from_secs(90),
            timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            concurrency: 4,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
            notify: None,
        }
    }
}

impl std::fmt::Debug for FetchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchOptions")
            .field("max_attempts", &self.max_attempts)
            .field("backoff", &self.backoff)
            .field("max_rate_limit_wait", &self.max_rate_limit_wait)
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .field("concurrency", &self.concurrency)
            .field("max_answer_bytes", &self.max_answer_bytes)
            .finish_non_exhaustive()
    }
}

impl FetchOptions {
    /// Defaults, tuned by `PR_SHEPHERD_HTTP_BACKOFF_MS`, `PR_SHEPHERD_HTTP_MAX_WAIT_S`,
    /// `PR_SHEPHERD_HTTP_TIMEOUT_S`, `PR_SHEPHERD_HTTP_DEADLINE_S`, `PR_SHEPHERD_HTTP_ATTEMPTS`
    /// and `PR_SHEPHERD_HTTP_MAX_ANSWER_MB` (1–4096) as `var` reports them (`commands::Context` passes the
    /// process environment's, read there once); notices go to [`crate::progress::note`]: stderr,
    /// or the console's status line and message log while it runs.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> FetchOptions {
        let num = |k: &str| var(k).and_then(|v| v.trim().parse::<u64>().ok());
        let mut o = FetchOptions::default();
        if let Some(ms) = num("PR_SHEPHERD_HTTP_BACKOFF_MS") {
            o.backoff = Duration::from_millis(ms);
            o.max_backoff = o.max_backoff.max(o.backoff);
        }
        if let Some(s) = num("PR_SHEPHERD_HTTP_MAX_WAIT_S") {
            o.max_rate_limit_wait = Duration::from_secs(s);
        }
        if let Some(s) = num("PR_SHEPHERD_HTTP_TIMEOUT_S") {
            o.timeout = Duration::from_secs(s.max(1));
        }
        if let Some(s) = num("PR_SHEPHERD_HTTP_DEADLINE_S") {
            o.deadline = Duration::from_secs(s.clamp(1, 86_400));
        }
        if let Some(n) = num("PR_SHEPHERD_HTTP_ATTEMPTS") {
            o.max_attempts = u32::try_from(n.clamp(1, 10)).unwrap_or(4);
        }
        if let Some(mb) = num("PR_SHEPHERD_HTTP_MAX_ANSWER_MB") {
            o.max_answer_bytes = usize::try_from(mb.clamp(1, 4096) * 1024 * 1024)
                .unwrap_or(DEFAULT_MAX_ANSWER_BYTES);
        }
        o.notify = Some(Arc::new(|n: &Notice| {
            crate::progress::note(&format!("note: {n}"));
        }));
        o
    }
}

/// Where the REST and GraphQL APIs are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// REST base without a trailing slash (`https://api.github.com`, `https://HOST/api/v3`).
    pub api: String,
    pub graphql: String,
}

impl Endpoints {
    /// Explicit URLs win (`--api-url`/`GITHUB_API_URL`, `--graphql-url`/`GITHUB_GRAPHQL_URL`);
    /// else an Enterprise host of the PR URL gives `https://HOST/api/v3` and
    /// `https://HOST/api/graphql`; else github.com. GraphQL defaults to the REST base +
    /// `/graphql`, except that a REST base ending in `/api/v3` (Enterprise) pairs with
    /// `/api/graphql`.
    pub fn resolve(
        api_url: Option<&str>,
        graphql_url: Option<&str>,
        host: Option<&str>,
    ) -> Result<Endpoints, GitHubError> {
        let clean = |u: &str, what: &str| -> Result<String, GitHubError> {
            let u = u.trim().trim_end_matches('/');
            if (u.starts_with("https://") || u.starts_with("http://"))
                && reqwest::Url::parse(u).is_ok()
            {
                Ok(u.to_owned())
            } else {
                Err(GitHubError::Config(format!(
                    "{what} `{}` is not an http(s) URL",
                    crate::sanitize::one_line(u)
                )))
            }
        };
        let api = match (api_url.filter(|s| !s.trim().is_empty()), host) {
            (Some(u), _) => clean(u, "the API URL")?,
            (None, Some(h)) => clean(&format!("https://{h}/api/v3"), "the Enterprise host")?,
            (None, None) => DEFAULT_API_URL.to_owned(),
        };
        let graphql = match graphql_url.filter(|s| !s.trim().is_empty()) {
            Some(u) => clean(u, "the GraphQL URL")?,
            None => match api.strip_suffix("/api/v3") {
                Some(root) => format!("{root}/api/graphql"),
                None => format!("{api}/graphql"),
            },
        };
        Ok(Endpoints { api, graphql })
    }

    /// A REST URL for `path` (which starts with `/`).
    pub fn rest(&self, path: &str) -> String {
        format!("{}{path}", self.api)
    }
}

/// A GitHub client bound to one host's endpoints and one set of credentials.
pub struct GitHub {
    endpoints: Endpoints,
    host: Option<String>,
    transport: client::Transport,
    on_page: Option<PageSink>,
    /// The state dir of the run this client serves, where posting takes the PR's lock and
    /// records a reply's intent (`publish`); `None` posts without them.
    state_dir: Option<std::path::PathBuf>,
}

impl GitHub {
    pub fn new(
        endpoints: Endpoints,
        host: Option<String>,
        creds: Credentials,
        opts: FetchOptions,
    ) -> Result<GitHub, GitHubError> {
        Ok(GitHub {
            endpoints,
            host,
            transport: client::Transport::new(creds, opts)?,
            on_page: None,
            state_dir: None,
        })
    }

    /// Names the state dir of the run (see [`GitHub::state_dir`]).
    pub fn with_state_dir(mut self, dir: std::path::PathBuf) -> GitHub {
        self.state_dir = Some(dir);
        self
    }

    /// The state dir of the run this client serves: posting through this client takes the PR's
    /// lock there and records a reply's intent there, whichever front end posts.
    pub fn state_dir(&self) -> Option<&std::path::Path> {
        self.state_dir.as_deref()
    }

    /// Calls `sink` after every page that came back (see [`PageSink`]).
    pub fn with_page_hook(mut self, sink: PageSink) -> GitHub {
        self.on_page = Some(sink);
        self
    }

    /// Reports one page to the page hook, if any.
    fn page_done(&self, what: &str) {
        if let Some(f) = &self.on_page {
            f(what);
        }
    }

    pub fn endpoints(&self) -> &Endpoints {
        &self.endpoints
    }

    /// The Enterprise web host, if any (None for github.com).
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    /// Where the credentials came from ("GH_TOKEN", "GitHub App 12", …).
    pub fn credentials_source(&self) -> String {
        self.transport.creds.describe()
    }

    /// HTTP requests sent so far (retries included).
    pub fn requests(&self) -> usize {
        self.transport.requests()
    }

    /// The `x-ratelimit-*` values of the last answer that had them.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.transport.last_rate_limit()
    }

    /// Fetches the whole PR. Pages that fail for good leave reasons in `snapshot.incomplete`;
    /// a failure of the very first request (auth, not found, …) is an error.
    pub async fn fetch_snapshot(&self, coords: &PrCoords) -> Result<Snapshot, GitHubError> {
        fetch::fetch_snapshot(self, coords).await
    }

    /// Marks each of `paths` viewed (`viewed`) or not viewed for the viewer on GitHub
    /// (`markFileAsViewed` / `unmarkFileAsViewed`), in order; stops at the first failure and
    /// says how many were done before it.
    pub async fn set_files_viewed(
        &self,
        coords: &PrCoords,
        paths: &[String],
        viewed: bool,
    ) -> Result<(), (usize, GitHubError)> {
        let pr_id = files::pull_request_id(self, coords)
            .await
            .map_err(|e| (0, e))?;
        for (done, path) in paths.iter().enumerate() {
            files::set_viewed(self, &pr_id, path, viewed)
                .await
                .map_err(|e| (done, e))?;
        }
        Ok(())
    }

    /// The login of the identity behind the credentials (`name[bot]` for a GitHub App).
    pub async fn viewer_login(&self) -> Result<String, GitHubError> {
        if let Credentials::App { app, .. } = &self.transport.creds {
            #[derive(serde::Deserialize)]
            struct App {
                slug: String,
            }
            let a: App = app
                .get("/app", None::<&()>)
                .await
                .map_err(|e| GitHubError::Auth(format!("cannot read the GitHub App: {e}")))?;
            return Ok(format!("{}[bot]", a.slug));
        }
        let reply = self
            .graphql(VIEWER_QUERY, serde_json::json!({}), "the current identity")
            .await?;
        reply
            .data
            .as_ref()
            .and_then(|d| d.pointer("/viewer/login"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                GitHubError::Graphql(format!(
                    "cannot read the current identity: {}",
                    reply
                        .errors
                        .first()
                        .map(GraphqlError::message_line)
                        .unwrap_or_default()
                ))
            })
    }

    /// A GraphQL request to this host's endpoint (retries and rate limits handled).
    pub async fn graphql(
        &self,
        query: &str,
        variables: Value,
        what: &str,
    ) -> Result<GraphqlReply, GitHubError> {
        let reply = self
            .transport
            .graphql(&self.endpoints.graphql, query, variables, what)
            .await?;
        self.page_done(what);
        Ok(reply)
    }

    /// A GraphQL request sent once: no retry on 5xx, a timeout or a lost answer (a mutation
    /// that is not idempotent; the caller looks before trying again).
    pub async fn graphql_once(
        &self,
        query: &str,
        variables: Value,
        what: &str,
    ) -> Result<GraphqlReply, GitHubError> {
        let payload = serde_json::json!({ "query": query, "variables": variables });
        let resp = self
            .transport
            .send_with(
                Method::POST,
                &self.endpoints.graphql,
                Some(&payload),
                what,
                1,
            )
            .await?;
        if !resp.status.is_success() {
            return Err(client::http_error(&resp, what));
        }
        resp.json(what)
    }

    /// A GET of `path` under the API base keeping only the last `keep` bytes of the answer,
    /// however long it is (a job's log); any final status is returned.
    pub async fn get_tail(
        &self,
        path: &str,
        what: &str,
        keep: usize,
    ) -> Result<RawResponse, GitHubError> {
        self.transport
            .send_tail(Method::GET, &self.endpoints.rest(path), what, keep)
            .await
    }

    /// A REST request to `path` under the API base; any final status is returned.
    pub async fn rest_raw(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<RawResponse, GitHubError> {
        self.transport
            .send(method, &self.endpoints.rest(path), body, what)
            .await
    }

    /// GET `path` and decode a 2xx answer; 404/403/other statuses become errors.
    pub async fn get_json<T: DeserializeOwned>(
        &self,
        path: &str,
        what: &str,
    ) -> Result<T, GitHubError> {
        self.json_call(Method::GET, path, None, what).await
    }

    /// POST a JSON body to `path` and decode the 2xx answer.
    pub async fn post_json<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        what: &str,
    ) -> Result<T, GitHubError> {
        let body = encode(body, what)?;
        self.json_call(Method::POST, path, Some(&body), what).await
    }

    /// POST a JSON body to `path` once (no retry on 5xx or a lost answer: the request is not
    /// idempotent) and decode the 2xx answer.
    pub async fn post_json_once<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        what: &str,
    ) -> Result<T, GitHubError> {
        let body = encode(body, what)?;
        let resp = self
            .rest_once(Method::POST, path, Some(&body), what)
            .await?;
        if !resp.status.is_success() {
            return Err(client::http_error(&resp, what));
        }
        resp.json(what)
    }

    /// A REST request to `path` sent once (no retry on 5xx, a timeout or a lost answer: the
    /// caller reads back before trying again); any final status is returned.
    pub async fn rest_once(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<RawResponse, GitHubError> {
        self.transport
            .send_with(method, &self.endpoints.rest(path), body, what, 1)
            .await
    }

    /// PATCH a JSON body to `path` and decode the 2xx answer.
    pub async fn patch_json<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        what: &str,
    ) -> Result<T, GitHubError> {
        let body = encode(body, what)?;
        self.json_call(Method::PATCH, path, Some(&body), what).await
    }

    /// Every page of a REST list (`per_page=100` in `path` is up to the caller), following
    /// `Link: rel="next"`; at most `max_pages` pages, more is an error.
    pub async fn get_all<T: DeserializeOwned>(
        &self,
        path: &str,
        max_pages: usize,
        what: &str,
    ) -> Result<Vec<T>, GitHubError> {
        fetch::get_all(self, path, max_pages, what).await
    }

    /// The status of a GET (e.g. 204 / 404 for `GET /orgs/{org}/members/{login}`).
    pub async fn get_status(&self, path: &str, what: &str) -> Result<StatusCode, GitHubError> {
        Ok(self.rest_raw(Method::GET, path, None, what).await?.status)
    }

    async fn json_call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<T, GitHubError> {
        let resp = self.rest_raw(method, path, body, what).await?;
        if !resp.status.is_success() {
            return Err(client::http_error(&resp, what));
        }
        resp.json(what)
    }
}

/// A request body as JSON, or an error naming the request.
fn encode<B: Serialize>(body: &B, what: &str) -> Result<serde_json::Value, GitHubError> {
    serde_json::to_value(body)
        .map_err(|e| GitHubError::Invalid(format!("{what}: cannot encode the request: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fetch_gives_up_after_a_minute_by_default() {
        let o = FetchOptions::default();
        assert_eq!(o.deadline, Duration::from_secs(60));
        // Shorter than the attempts × the request timeout it bounds.
        assert!(o.deadline < o.timeout * o.max_attempts);
    }

    #[test]
    fn endpoints_default_to_github_com() {
        let e = Endpoints::resolve(None, None, None).unwrap();
        assert_eq!(e.api, "https://api.github.com");
        assert_eq!(e.graphql, "https://api.github.com/graphql");
    }

    #[test]
    fn enterprise_host_without_urls() {
        let e = Endpoints::resolve(None, None, Some("ghe.example.com")).unwrap();
        assert_eq!(e.api, "https://ghe.example.com/api/v3");
        assert_eq!(e.graphql, "https://ghe.example.com/api/graphql");
    }

    #[test]
    fn explicit_urls_win() {
        let e = Endpoints::resolve(
            Some("http://127.0.0.1:9/api/v3/"),
            None,
            Some("ghe.example.com"),
        )
        .unwrap();
        assert_eq!(e.api, "http://127.0.0.1:9/api/v3");
        assert_eq!(e.graphql, "http://127.0.0.1:9/api/graphql");
        let e = Endpoints::resolve(Some("http://x"), Some("http://y/gql"), None).unwrap();
        assert_eq!(e.graphql, "http://y/gql");
        let e = Endpoints::resolve(Some("http://x/base"), None, None).unwrap();
        assert_eq!(e.graphql, "http://x/base/graphql");
        assert!(Endpoints::resolve(Some("ftp://x"), None, None).is_err());
    }

    proptest::proptest! {
        /// Any flag values: never a panic, and what comes out is an http(s) URL pair with no
        /// trailing slash.
        #[test]
        fn resolve_never_panics(api in proptest::option::of(".{0,40}"),
                                gql in proptest::option::of(".{0,40}"),
                                host in proptest::option::of("[a-z0-9.-]{1,20}")) {
            if let Ok(e) = Endpoints::resolve(api.as_deref(), gql.as_deref(), host.as_deref()) {
                proptest::prop_assert!(e.api.starts_with("http://") || e.api.starts_with("https://"));
                proptest::prop_assert!(e.graphql.starts_with("http://") || e.graphql.starts_with("https://"));
                proptest::prop_assert!(!e.api.ends_with('/'));
            }
        }
    }
}
