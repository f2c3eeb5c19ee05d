//! The HTTP edge: one authenticated request with rate-limit waits and bounded retries.
//!
//! Transport is reqwest rather than octocrab's own request methods, on purpose:
//! - octocrab attaches the `Authorization` header only to relative URIs or `api.github.com`, and
//!   joins relative URIs onto the REST base path, so GitHub Enterprise's GraphQL endpoint
//!   (`/api/graphql`, beside `/api/v3`) cannot be reached with credentials from one client;
//! - its retry layer decides on its own what to retry and how long to wait, while we must read
//!   `x-ratelimit-*` / `retry-after`, bound and show every wait, and count every request;
//! - its timeouts are per socket read, not per request.
//!
//! octocrab is still used for GitHub App auth (pure-Rust JWT signing, installation-token minting
//! and refresh), see `auth.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

use super::auth::Credentials;
use super::{FetchOptions, GitHubError, Notice, RateLimitStop};

/// What `x-ratelimit-*` said on the last answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RateLimit {
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    pub reset: Option<DateTime<Utc>>,
    pub resource: Option<String>,
}

impl RateLimit {
    pub fn from_headers(h: &HeaderMap) -> RateLimit {
        let num = |k: &str| {
            h.get(k)
                .and_then(|v| v.to_str().ok())
                .and_then(|s| s.trim().parse::<u64>().ok())
        };
        RateLimit {
            limit: num("x-ratelimit-limit"),
            remaining: num("x-ratelimit-remaining"),
            reset: num("x-ratelimit-reset")
                .and_then(|s| i64::try_from(s).ok())
                .and_then(|s| DateTime::<Utc>::from_timestamp(s, 0)),
            resource: h
                .get("x-ratelimit-resource")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        }
    }
}

/// A finished answer: any status that is neither retryable nor 401.
#[derive(Debug)]
pub struct RawResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn json<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<T, GitHubError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            GitHubError::Invalid(format!("{what}: unexpected answer from GitHub: {e}"))
        })
    }

    /// GitHub's `message` of an error body with the reasons in its `errors[]` (REST
    /// `errors[].message`, or `code` and `field`; GraphQL `errors[].message`), sanitized to one
    /// line: `Validation Failed: body is too long (maximum is 65536 characters)`. The status
    /// line's reason when the body says nothing.
    pub fn message(&self) -> String {
        #[derive(Deserialize)]
        struct Msg {
            message: Option<String>,
            #[serde(default)]
            errors: Vec<Value>,
        }
        let reason = |e: &Value| -> Option<String> {
            match e {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| {
                        let code = o.get("code").and_then(Value::as_str)?;
                        let field = o.get("field").and_then(Value::as_str).unwrap_or("");
                        Some(format!("{field} {code}").trim().to_owned())
                    }),
                _ => None,
            }
        };
        let Ok(m) = serde_json::from_slice::<Msg>(&self.body) else {
            return self.status.canonical_reason().unwrap_or("").to_owned();
        };
        let reasons: Vec<String> = m.errors.iter().filter_map(reason).collect();
        let text = match (m.message, reasons.is_empty()) {
            (Some(msg), true) => msg,
            (Some(msg), false) => format!("{msg}: {}", reasons.join("; ")),
            (None, false) => reasons.join("; "),
            (None, true) => return self.status.canonical_reason().unwrap_or("").to_owned(),
        };
        crate::sanitize::one_line(&text).chars().take(500).collect()
    }
}

/// The transport: reqwest client, credentials, options and the request counter.
pub(super) struct Transport {
    http: reqwest::Client,
    pub(super) creds: Credentials,
    pub(super) opts: FetchOptions,
    requests: Arc<AtomicUsize>,
    last_rate: std::sync::Mutex<Option<RateLimit>>,
}

impl Transport {
    pub(super) fn new(creds: Credentials, opts: FetchOptions) -> Result<Transport, GitHubError> {
        let http = crate::net::client_builder()
            .user_agent(concat!("pr-shepherd/", env!("CARGO_PKG_VERSION")))
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| GitHubError::Config(format!("cannot set up the HTTP client: {e}")))?;
        Ok(Transport {
            http,
            creds,
            opts,
            requests: Arc::new(AtomicUsize::new(0)),
            last_rate: std::sync::Mutex::new(None),
        })
    }

    pub(super) fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    pub(super) fn last_rate_limit(&self) -> Option<RateLimit> {
        self.last_rate.lock().ok().and_then(|g| g.clone())
    }

    fn notify(&self, n: Notice) {
        if let Some(f) = &self.opts.notify {
            f(&n);
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(6);
        // Checked: a huge PR_SHEPHERD_HTTP_BACKOFF_MS must not overflow into a panic.
        self.opts
            .backoff
            .checked_mul(factor)
            .unwrap_or(self.opts.max_backoff)
            .min(self.opts.max_backoff)
    }

    /// Sends one request; retries 5xx, timeouts and connection errors with backoff, waits out
    /// rate limits (bounded), and turns 401 into [`GitHubError::Unauthorized`]. Every other
    /// status is returned for the caller to interpret. `what` names the request in messages.
    pub(super) async fn send(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<RawResponse, GitHubError> {
        self.send_with(method, url, body, what, self.opts.max_attempts)
            .await
    }

    /// [`Transport::send`] with its own bound on attempts for 5xx, timeouts and connection
    /// errors. A request that is not idempotent (creating a comment) passes 1: an answer lost
    /// after the server acted must not be repeated blindly; the caller looks first, then retries.
    pub(super) async fn send_with(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        what: &str,
        max_attempts: u32,
    ) -> Result<RawResponse, GitHubError> {
        let deadline = Instant::now() + self.opts.deadline;
        self.send_until(method, url, body, what, max_attempts, deadline, Keep::Whole)
            .await
    }

    /// [`Transport::send`] keeping only the last `keep` bytes of the answer's body, however long
    /// it is (a job's log: its tail is what is shown): the body is read through a bounded
    /// buffer, never whole, and the answer-size limit does not refuse it.
    pub(super) async fn send_tail(
        &self,
        method: Method,
        url: &str,
        what: &str,
        keep: usize,
    ) -> Result<RawResponse, GitHubError> {
        let deadline = Instant::now() + self.opts.deadline;
        self.send_until(
            method,
            url,
            None,
            what,
            self.opts.max_attempts,
            deadline,
            Keep::Tail(keep),
        )
        .await
    }

    /// [`Transport::send_with`] within the overall `deadline` of a fetch (which a rate-limit
    /// wait moves by its own length): no attempt starts or runs past it; `keep` says how much of
    /// the answer is read.
    #[allow(clippy::too_many_arguments)] // one request's parts, and how much of its answer to keep
    async fn send_until(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        what: &str,
        max_attempts: u32,
        mut deadline: Instant,
        keep: Keep,
    ) -> Result<RawResponse, GitHubError> {
        let max_attempts = max_attempts.max(1);
        let mut attempt = 0u32;
        let mut rate_waits = 0u32;
        loop {
            attempt += 1;
            if Instant::now() >= deadline {
                return Err(self.out_of_time(what, attempt - 1));
            }
            let request = self.authorized(&method, url, body).await?;
            self.requests.fetch_add(1, Ordering::Relaxed);
            let sent = Instant::now();
            let read = read_response(request, self.opts.max_answer_bytes, keep);
            let Ok(answer) = tokio::time::timeout_at(deadline, read).await else {
                tracing::debug!(
                    %method,
                    path = crate::debuglog::url_path(url),
                    attempt,
                    ms = sent.elapsed().as_millis() as u64,
                    "github request: no answer before the fetch deadline"
                );
                return Err(self.out_of_time(what, attempt));
            };
            match &answer {
                Ok(r) => tracing::debug!(
                    %method,
                    path = crate::debuglog::url_path(url),
                    status = r.status.as_u16(),
                    bytes = r.body.len(),
                    attempt,
                    ms = sent.elapsed().as_millis() as u64,
                    "github request"
                ),
                Err(why) => tracing::debug!(
                    %method,
                    path = crate::debuglog::url_path(url),
                    attempt,
                    ms = sent.elapsed().as_millis() as u64,
                    error = %why,
                    "github request failed"
                ),
            }
            let resp = match answer {
                Ok(r) => r,
                // The same answer would come again: never retried, never read further.
                Err(ReadFailure::TooLarge) => {
                    return Err(GitHubError::TooLarge {
                        what: what.to_owned(),
                        limit: self.opts.max_answer_bytes,
                    });
                }
                Err(ReadFailure::Transport(why)) => {
                    let wait = self.retry_wait(what, why, attempt, max_attempts, None, deadline)?;
                    tokio::time::sleep(wait).await;
                    continue;
                }
            };
            let rate = self.remember_rate_limit(&resp);
            let status = resp.status;
            if status == StatusCode::UNAUTHORIZED {
                return Err(GitHubError::Unauthorized {
                    from: self.creds.describe(),
                    message: resp.message(),
                });
            }
            if is_rate_limited(&resp, &rate) {
                let wait = self.wait_out_rate_limit(what, &resp, &rate, rate_waits)?;
                rate_waits += 1;
                attempt -= 1; // a rate-limit wait is bounded on its own, not as a failure
                deadline += wait;
                tokio::time::sleep(wait).await;
                continue;
            }
            if status.is_server_error() {
                let asked =
                    crate::net::retry_after(&resp.headers).filter(|w| *w <= self.opts.max_backoff);
                let why = format!("HTTP {}", status.as_u16());
                let wait = self.retry_wait(what, why, attempt, max_attempts, asked, deadline)?;
                tokio::time::sleep(wait).await;
                continue;
            }
            return Ok(resp);
        }
    }

    /// The request with the bearer token (marked sensitive) and GitHub's API headers.
    async fn authorized(
        &self,
        method: &Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<reqwest::RequestBuilder, GitHubError> {
        let token = self.creds.bearer().await?;
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                GitHubError::Auth(format!(
                    "the token from {} contains characters that cannot be sent in a header",
                    self.creds.describe()
                ))
            })?;
        auth.set_sensitive(true);
        let mut req = self
            .http
            .request(method.clone(), url)
            .header(reqwest::header::AUTHORIZATION, auth)
            .header(reqwest::header::ACCEPT, "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28");
        if let Some(b) = body {
            req = req.json(b);
        }
        Ok(req)
    }

    /// Keeps the answer's rate-limit headers (when it sent any) for [`Transport::last_rate_limit`].
    fn remember_rate_limit(&self, resp: &RawResponse) -> RateLimit {
        let rate = RateLimit::from_headers(&resp.headers);
        if rate != RateLimit::default()
            && let Ok(mut g) = self.last_rate.lock()
        {
            *g = Some(rate.clone());
        }
        rate
    }

    /// The fetch's deadline struck after `attempts` attempts.
    fn out_of_time(&self, what: &str, attempts: u32) -> GitHubError {
        GitHubError::Unavailable {
            what: what.to_owned(),
            why: format!(
                "no answer within the {}s deadline (PR_SHEPHERD_HTTP_DEADLINE_S; {})",
                self.opts.deadline.as_secs(),
                crate::plural::count(attempts as usize, "attempt")
            ),
        }
    }

    /// How long to wait before attempt `attempt + 1` after a failure (`asked` = the server's
    /// `retry-after`, else backoff), announced; or, when the attempts are used up or the wait
    /// would reach the fetch's `deadline`, [`GitHubError::Unavailable`].
    fn retry_wait(
        &self,
        what: &str,
        why: String,
        attempt: u32,
        max_attempts: u32,
        asked: Option<Duration>,
        deadline: Instant,
    ) -> Result<Duration, GitHubError> {
        if attempt >= max_attempts {
            return Err(GitHubError::Unavailable {
                what: what.to_owned(),
                why: format!(
                    "{why} ({})",
                    crate::plural::count(attempt as usize, "attempt")
                ),
            });
        }
        let wait = asked.unwrap_or_else(|| self.backoff(attempt));
        tracing::debug!(
            what,
            why = %why,
            attempt,
            max_attempts,
            wait_ms = wait.as_millis() as u64,
            "github retry"
        );
        if Instant::now() + wait >= deadline {
            return Err(GitHubError::Unavailable {
                what: what.to_owned(),
                why: format!(
                    "{why} ({}; no time left for another within the {}s deadline, PR_SHEPHERD_HTTP_DEADLINE_S)",
                    crate::plural::count(attempt as usize, "attempt"),
                    self.opts.deadline.as_secs()
                ),
            });
        }
        self.notify(Notice::Retrying {
            what: what.to_owned(),
            why,
            attempt,
            max_attempts,
            wait,
        });
        Ok(wait)
    }

    /// How long to wait out a rate limit, announced; [`GitHubError::RateLimited`] after three
    /// waits or when the wait would be longer than allowed.
    fn wait_out_rate_limit(
        &self,
        what: &str,
        resp: &RawResponse,
        rate: &RateLimit,
        waits_so_far: u32,
    ) -> Result<Duration, GitHubError> {
        let wait = rate_limit_wait(&resp.headers, rate);
        tracing::debug!(
            what,
            status = resp.status.as_u16(),
            remaining = rate.remaining,
            wait_ms = wait.as_millis() as u64,
            waits_so_far,
            "github rate limit"
        );
        if let Some(stop) = self.stop_waiting(waits_so_far, wait) {
            return Err(GitHubError::RateLimited {
                what: what.to_owned(),
                reset: rate.reset,
                wait,
                stop,
            });
        }
        self.notify(Notice::RateLimited {
            what: what.to_owned(),
            wait,
            reset: rate.reset,
        });
        Ok(wait)
    }

    /// Why a rate-limited request waits no more after `waits_so_far` waits, when GitHub asks
    /// for `wait`: at most [`MAX_RATE_LIMIT_WAITS`] waits, each within the bound.
    fn stop_waiting(&self, waits_so_far: u32, wait: Duration) -> Option<RateLimitStop> {
        if waits_so_far >= MAX_RATE_LIMIT_WAITS {
            Some(RateLimitStop::TooManyWaits {
                waits: waits_so_far,
            })
        } else if wait > self.opts.max_rate_limit_wait {
            Some(RateLimitStop::TooLong {
                bound_secs: self.opts.max_rate_limit_wait.as_secs(),
            })
        } else {
            None
        }
    }

    /// A GraphQL request. HTTP-level faults are handled by [`Transport::send`]; an answer whose
    /// `errors` look transient (no data at all, or GitHub's "something went wrong" / timeout
    /// kinds) is retried with backoff; the last answer is returned with its errors.
    pub(super) async fn graphql(
        &self,
        url: &str,
        query: &str,
        variables: Value,
        what: &str,
    ) -> Result<GraphqlReply, GitHubError> {
        let payload = serde_json::json!({ "query": query, "variables": variables });
        let mut attempt = 0u32;
        let mut rate_waits = 0u32;
        let mut deadline = Instant::now() + self.opts.deadline;
        loop {
            attempt += 1;
            let resp = self
                .send_until(
                    Method::POST,
                    url,
                    Some(&payload),
                    what,
                    self.opts.max_attempts,
                    deadline,
                    Keep::Whole,
                )
                .await?;
            if !resp.status.is_success() {
                return Err(http_error(&resp, what));
            }
            let reply: GraphqlReply = resp.json(what)?;
            // GraphQL's own limit answers 200 with an error of type RATE_LIMITED.
            if reply
                .errors
                .iter()
                .any(|e| e.kind() == Some("RATE_LIMITED"))
            {
                let rate = RateLimit::from_headers(&resp.headers);
                let wait = rate_limit_wait(&resp.headers, &rate);
                tracing::debug!(
                    what,
                    wait_ms = wait.as_millis() as u64,
                    rate_waits,
                    "github graphql rate limit"
                );
                if let Some(stop) = self.stop_waiting(rate_waits, wait) {
                    return Err(GitHubError::RateLimited {
                        what: what.to_owned(),
                        reset: rate.reset,
                        wait,
                        stop,
                    });
                }
                rate_waits += 1;
                attempt -= 1;
                deadline += wait;
                self.notify(Notice::RateLimited {
                    what: what.to_owned(),
                    wait,
                    reset: rate.reset,
                });
                tokio::time::sleep(wait).await;
                continue;
            }
            let transient = !reply.errors.is_empty()
                && (reply.data.is_none() || reply.errors.iter().all(GraphqlError::is_transient));
            if transient
                && attempt < self.opts.max_attempts
                && Instant::now() + self.backoff(attempt) < deadline
            {
                let wait = self.backoff(attempt);
                tracing::debug!(
                    what,
                    attempt,
                    wait_ms = wait.as_millis() as u64,
                    "github graphql retry after transient errors"
                );
                self.notify(Notice::Retrying {
                    what: what.to_owned(),
                    why: format!("GraphQL error: {}", reply.errors[0].message_line()),
                    attempt,
                    max_attempts: self.opts.max_attempts,
                    wait,
                });
                tokio::time::sleep(wait).await;
                continue;
            }
            return Ok(reply);
        }
    }
}

fn transport_text(e: &reqwest::Error) -> String {
    // reqwest's text names the URL (no credentials in it) and the cause.
    if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        format!("cannot connect: {}", root_cause(e))
    } else {
        root_cause(e)
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

fn is_rate_limited(resp: &RawResponse, rate: &RateLimit) -> bool {
    match resp.status.as_u16() {
        429 => true,
        403 => {
            rate.remaining == Some(0)
                || resp.headers.contains_key("retry-after")
                || resp.message().to_ascii_lowercase().contains("rate limit")
        }
        _ => false,
    }
}

/// GitHub's documented order: `retry-after`, else until `x-ratelimit-reset` when nothing is
/// left, else one minute (secondary limits without a hint).
fn rate_limit_wait(h: &HeaderMap, rate: &RateLimit) -> Duration {
    if let Some(w) = crate::net::retry_after(h) {
        return w;
    }
    if rate.remaining == Some(0)
        && let Some(reset) = rate.reset
    {
        let secs = (reset - Utc::now()).num_seconds().max(0);
        return Duration::from_secs(u64::try_from(secs).unwrap_or(0) + 1);
    }
    Duration::from_secs(60)
}

/// Rate-limit waits one request makes at most; GitHub still limiting after them ends it.
const MAX_RATE_LIMIT_WAITS: u32 = 3;

/// Why an answer was not read.
enum ReadFailure {
    /// The connection failed or broke off (retryable), as text.
    Transport(String),
    /// The answer is over the size limit (said up front by `Content-Length`, or found while
    /// reading): what was read is dropped.
    TooLarge,
}

impl std::fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadFailure::Transport(why) => f.write_str(why),
            ReadFailure::TooLarge => f.write_str("the answer is over the size limit"),
        }
    }
}

/// How much of an answer's body is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    /// All of it, within the answer-size limit.
    Whole,
    /// Its last `n` bytes, however long it is.
    Tail(usize),
}

/// Sends the request and reads the answer, at most `limit` bytes of it: a `Content-Length` over
/// the limit is refused before the body is read, and a body that grows past it is dropped as
/// soon as it does, so a hostile answer costs at most `limit` bytes of memory. With
/// [`Keep::Tail`] the body is read to its end, keeping only its last bytes (at most twice that
/// many held at once), and is never too large.
async fn read_response(
    request: reqwest::RequestBuilder,
    limit: usize,
    keep: Keep,
) -> Result<RawResponse, ReadFailure> {
    let transport = |e: reqwest::Error| ReadFailure::Transport(transport_text(&e));
    let mut resp = request.send().await.map_err(transport)?;
    let status = resp.status();
    let headers = resp.headers().clone();
    let declared = resp.content_length().and_then(|n| usize::try_from(n).ok());
    if let Keep::Tail(n) = keep {
        let mut body = Vec::with_capacity(declared.unwrap_or(0).min(n));
        while let Some(chunk) = resp.chunk().await.map_err(transport)? {
            keep_tail(&mut body, &chunk, n);
        }
        trim_tail(&mut body, n);
        return Ok(RawResponse {
            status,
            headers,
            body,
        });
    }
    if declared.is_some_and(|n| n > limit) {
        return Err(ReadFailure::TooLarge);
    }
    let mut body = Vec::with_capacity(declared.unwrap_or(0));
    while let Some(chunk) = resp.chunk().await.map_err(transport)? {
        if body.len() + chunk.len() > limit {
            return Err(ReadFailure::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

/// Appends `chunk` to `tail`, which keeps only the last `keep` bytes read (the front is dropped
/// once `tail` holds twice that, so each byte is moved at most once on average).
fn keep_tail(tail: &mut Vec<u8>, chunk: &[u8], keep: usize) {
    if chunk.len() >= keep {
        tail.clear();
        tail.extend_from_slice(&chunk[chunk.len() - keep..]);
        return;
    }
    tail.extend_from_slice(chunk);
    if tail.len() >= keep.saturating_mul(2) {
        trim_tail(tail, keep);
    }
}

/// Drops the front of `tail` down to its last `keep` bytes.
fn trim_tail(tail: &mut Vec<u8>, keep: usize) {
    if tail.len() > keep {
        tail.drain(..tail.len() - keep);
    }
}

/// An answer that is not a success, as an error naming the request.
pub(super) fn http_error(resp: &RawResponse, what: &str) -> GitHubError {
    let message = resp.message();
    match resp.status.as_u16() {
        404 => GitHubError::NotFound(format!("{what}: not found ({message})")),
        403 => GitHubError::Forbidden(format!("{what}: {message}")),
        s => GitHubError::Http {
            what: what.to_owned(),
            status: s,
            message,
        },
    }
}

/// A GraphQL answer: `data` may be present together with `errors` (a partial answer).
#[derive(Debug, Deserialize)]
pub struct GraphqlReply {
    #[serde(default)]
    pub data: Option<Value>,
    #[serde(default)]
    pub errors: Vec<GraphqlError>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct GraphqlError {
    #[serde(default)]
    pub message: String,
    /// GitHub's error kind: NOT_FOUND, FORBIDDEN, RATE_LIMITED, …
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub path: Vec<Value>,
}

impl GraphqlError {
    pub fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }

    /// The path as `repository.pullRequest.reviews`.
    pub fn path_text(&self) -> String {
        self.path
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    pub fn message_line(&self) -> String {
        crate::sanitize::one_line(&self.message)
            .chars()
            .take(300)
            .collect()
    }

    fn is_transient(&self) -> bool {
        match self.kind() {
            Some("NOT_FOUND" | "FORBIDDEN" | "INSUFFICIENT_SCOPES" | "UNPROCESSABLE") => false,
            Some(_) => true,
            None => {
                let m = self.message.to_ascii_lowercase();
                m.contains("something went wrong") || m.contains("timeout")
            }
        }
    }
}

/// Up to three errors of an answer on one line each, with where they are:
/// `Could not resolve to a User (at repository.pullRequest.author)`.
pub(super) fn errors_text(errors: &[GraphqlError]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_keeps_the_last_bytes_whatever_the_chunks() {
        let text: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        for chunk in [1, 7, 99, 100, 101, 4096, 20_000] {
            let mut tail = Vec::new();
            for c in text.chunks(chunk) {
                keep_tail(&mut tail, c, 100);
                assert!(tail.len() < 200, "held {}", tail.len());
            }
            trim_tail(&mut tail, 100);
            assert_eq!(tail, text[text.len() - 100..], "chunks of {chunk}");
        }
        let mut short = Vec::new();
        keep_tail(&mut short, b"abc", 100);
        trim_tail(&mut short, 100);
        assert_eq!(short, b"abc");
    }

    #[test]
    fn reads_rate_limit_headers() {
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-limit", HeaderValue::from_static("5000"));
        h.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        h.insert("x-ratelimit-reset", HeaderValue::from_static("1700000000"));
        h.insert("x-ratelimit-resource", HeaderValue::from_static("graphql"));
        let r = RateLimit::from_headers(&h);
        assert_eq!(r.limit, Some(5000));
        assert_eq!(r.remaining, Some(0));
        assert_eq!(r.reset.map(|d| d.timestamp()), Some(1_700_000_000));
        assert_eq!(r.resource.as_deref(), Some("graphql"));
        // Reset in the past: wait at least a second, never negative.
        assert_eq!(rate_limit_wait(&h, &r), Duration::from_secs(1));
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(rate_limit_wait(&h, &r), Duration::from_secs(7));
    }

    #[test]
    fn secondary_limit_without_hints_waits_a_minute() {
        let h = HeaderMap::new();
        assert_eq!(
            rate_limit_wait(&h, &RateLimit::default()),
            Duration::from_secs(60)
        );
    }

    fn answer(status: u16, body: &str) -> RawResponse {
        RawResponse {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::IM_A_TEAPOT),
            headers: HeaderMap::new(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn error_messages_say_why() {
        // REST: the validation reason is in errors[].message.
        let r = answer(
            422,
            r#"{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}],"documentation_url":"https://docs.github.com/rest"}"#,
        );
        let e = http_error(&r, "creating the review comment").to_string();
        assert_eq!(
            e,
            "creating the review comment: GitHub answered HTTP 422: Validation Failed: body is too long (maximum is 65536 characters)"
        );
        // Only a code and a field; a GraphQL-shaped body; a plain message; nothing.
        let r = answer(
            422,
            r#"{"message":"Validation Failed","errors":[{"resource":"Issue","code":"missing_field","field":"title"}]}"#,
        );
        assert_eq!(r.message(), "Validation Failed: title missing_field");
        let r = answer(400, r#"{"errors":[{"message":"Body is too long"}]}"#);
        assert_eq!(r.message(), "Body is too long");
        assert_eq!(
            answer(404, r#"{"message":"Not Found"}"#).message(),
            "Not Found"
        );
        assert_eq!(answer(502, "<html>").message(), "Bad Gateway");
        // GitHub's text is untrusted: sanitized to one visible line.
        let r = answer(
            422,
            r#"{"message":"Validation Failed","errors":["bad\u001b[2J\nthing"]}"#,
        );
        assert_eq!(r.message(), "Validation Failed: bad␛[2J thing");
    }
}
