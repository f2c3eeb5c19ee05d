//! The HTTP plumbing shared by the `anthropic` and `openai` backends: [`HttpBackend`], one
//! reqwest client (on the crate's TLS setup, `crate::net`), JSON POST (whole or streamed) with bounded retry on
//! 429 / 5xx / connection failures / cut streams, and the prompt-cache field switched off for
//! the run when an endpoint refuses it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::HeaderMap;

use super::context;
use super::servers::ServerMemory;
use super::sse::{SseEvent, SseParser};
use super::structured::{self, Shape, ShapeMemory, StructuredOutput, Wire};
use super::{CallEvents, Completion, LlmError, MAX_ANSWER_BYTES, TimeLimit, seconds};

/// How often and how patiently a call is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Extra attempts after the first.
    pub retries: u32,
    /// Wait before retry n is `backoff * 2^n`, unless the provider sends `Retry-After`.
    pub backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 2,
            backoff: Duration::from_millis(500),
        }
    }
}

/// The longest silence inside an answer that has begun, unless the settings say otherwise
/// (`[review] idle_timeout`).
pub(crate) const DEFAULT_IDLE: Duration = Duration::from_secs(120);

/// The most bytes of an error answer that are read (its reason is at the start).
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// The longest `Retry-After` honoured; a provider asking for more is treated as this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// A reqwest client on the crate's TLS setup.
fn client(provider: &'static str) -> Result<reqwest::Client, LlmError> {
    crate::net::client_builder()
        .connect_timeout(Duration::from_secs(15))
        .build()
        .map_err(|e| LlmError::Config(format!("cannot set up the {provider} HTTP client: {e}")))
}

/// A header value carrying a secret: marked sensitive, so it never shows in debug output.
/// `var` names where the secret came from, for the error.
pub(super) fn secret_header(
    value: &str,
    var: &str,
) -> Result<reqwest::header::HeaderValue, LlmError> {
    let mut v = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
        LlmError::Config(format!(
            "{var} holds characters that cannot be sent in a header"
        ))
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// The headers every call to a provider's JSON API carries, and how its API key goes: built by
/// [`ApiHeaders::build`].
pub(super) struct ApiHeaders<'a> {
    /// The base URL in use.
    pub(super) base_url: &'a str,
    /// The provider's own base URL: refused without a key (any other endpoint, a local server or
    /// a proxy, goes without).
    pub(super) default_base_url: &'a str,
    pub(super) api_key: Option<&'a str>,
    /// The variable the key comes from, named in errors (`OPENAI_API_KEY`).
    pub(super) key_var: &'a str,
    /// The header that carries the key (`authorization`, `x-api-key`).
    pub(super) key_header: reqwest::header::HeaderName,
    /// What goes before the key in that header (`Bearer `), if anything.
    pub(super) key_prefix: &'a str,
    /// The error when the provider's own endpoint has no key.
    pub(super) missing: &'a str,
}

impl ApiHeaders<'_> {
    /// The content type and, when there is a key, `key_header` with the key (trimmed) after
    /// `key_prefix`, marked sensitive.
    pub(super) fn build(self) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        match self.api_key {
            Some(key) => {
                let value = format!("{}{}", self.key_prefix, key.trim());
                headers.insert(self.key_header, secret_header(&value, self.key_var)?);
            }
            None if self.base_url.trim_end_matches('/') == self.default_base_url => {
                return Err(LlmError::Config(self.missing.to_owned()));
            }
            None => {}
        }
        Ok(headers)
    }
}

/// Joins a base URL and a path with exactly one slash.
pub(super) fn endpoint(base: &str, path: &str) -> Result<reqwest::Url, LlmError> {
    let joined = format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    );
    let url = reqwest::Url::parse(&joined)
        .map_err(|e| LlmError::Config(format!("bad LLM base URL `{base}`: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(LlmError::Config(format!(
            "bad LLM base URL `{base}`: only http and https are supported"
        )));
    }
    Ok(url)
}

fn retryable(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

/// The wait the provider's `Retry-After` asks for (see [`crate::net::retry_after`]), capped at
/// [`MAX_RETRY_AFTER`].
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    crate::net::retry_after(headers).map(|wait| wait.min(MAX_RETRY_AFTER))
}

fn snippet(text: &str) -> String {
    let one = crate::sanitize::one_line(text);
    if one.chars().count() > 300 {
        format!("{}…", one.chars().take(300).collect::<String>())
    } else if one.is_empty() {
        "(empty body)".to_owned()
    } else {
        one
    }
}

/// One provider's endpoint: the HTTP client, the URL, the headers (the key among them), the
/// retry policy, whether answers are streamed, whether the provider's prompt-cache field is still
/// sent and which structured-output shape the server takes. Clones share the last two (they are
/// remembered for the run). Each provider keeps only its wire format: the request body, answer
/// parsing, stream events and the shaping of structured output.
#[derive(Clone)]
pub(super) struct HttpBackend {
    provider: &'static str,
    wire: Wire,
    /// The request field that asks for prompt caching (`cache_control`, `prompt_cache_key`).
    cache_field: &'static str,
    client: reqwest::Client,
    pub(super) url: reqwest::Url,
    headers: HeaderMap,
    retry: RetryPolicy,
    /// Stream answers (server-sent events).
    pub(super) stream: bool,
    /// The longest silence inside an answer that has begun (see [`HttpBackend::post`]).
    pub(super) idle: Duration,
    /// Send the prompt-cache field; cleared for the rest of the run when the endpoint refuses it.
    cache: Arc<AtomicBool>,
    /// The rung of the structured-output ladder this server takes.
    shape: ShapeMemory,
    /// Where what is learnt about this server is kept across runs (`None`: nowhere).
    servers: Option<ServerMemory>,
    /// Remarks on the run as a whole, until the scheduler takes them (see
    /// [`HttpBackend::take_notes`]).
    notes: Arc<Mutex<Vec<String>>>,
    /// The server's context size from `/props`, once asked (`Some(None)`: it has none).
    n_ctx: Arc<tokio::sync::Mutex<Option<Option<u64>>>>,
    /// How many requests go at once (all, until the server keeps breaking concurrent streams).
    gate: Arc<StreamGate>,
}

/// How many streams broke while other requests were in flight before the backend sends one
/// request at a time.
const BREAKS_BEFORE_ONE_AT_A_TIME: u32 = 2;

/// The requests of one backend in flight, and how many may be: any number, until streams keep
/// breaking while others are in flight (llama-cpp-python's server, by default, ends a running
/// stream with `[DONE]` when another request arrives). Then one at a time for the rest of the
/// run: a request waits until none other is in flight.
#[derive(Debug, Default)]
pub(super) struct StreamGate {
    state: Mutex<GateState>,
    freed: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct GateState {
    in_flight: usize,
    one_at_a_time: bool,
    /// Streams broken while another request was in flight.
    shared_breaks: u32,
}

/// A request in flight; leaves the gate when dropped.
pub(super) struct GateSlot<'a>(&'a StreamGate);

impl Drop for GateSlot<'_> {
    fn drop(&mut self) {
        self.0.lock().in_flight -= 1;
        self.0.freed.notify_waiters();
    }
}

impl StreamGate {
    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits until the request may go (at once, unless one at a time and another is in flight).
    pub(super) async fn enter(&self) -> GateSlot<'_> {
        loop {
            // Registered before the check, so a slot freed in between still wakes it.
            let freed = self.freed.notified();
            {
                let mut s = self.lock();
                if !s.one_at_a_time || s.in_flight == 0 {
                    s.in_flight += 1;
                    return GateSlot(self);
                }
            }
            freed.await;
        }
    }

    /// An answer went silent for `idle` (the first timeout on this server): from now on one
    /// request at a time. Returns why, when this silence decided it.
    pub(super) fn went_silent(&self, idle: Duration) -> Option<String> {
        let mut s = self.lock();
        if s.one_at_a_time {
            return None;
        }
        s.one_at_a_time = true;
        Some(format!(
            "an answer sent nothing for {} (idle_timeout){}",
            seconds(idle),
            if s.in_flight > 1 {
                " while other requests were in flight"
            } else {
                ""
            }
        ))
    }

    /// A stream of a request in flight broke. Returns why the backend now goes one request at a
    /// time, when this break decided it.
    pub(super) fn broke(&self) -> Option<String> {
        let mut s = self.lock();
        if s.in_flight <= 1 || s.one_at_a_time {
            return None;
        }
        s.shared_breaks += 1;
        if s.shared_breaks < BREAKS_BEFORE_ONE_AT_A_TIME {
            return None;
        }
        s.one_at_a_time = true;
        Some(format!(
            "the server broke {} answer streams while other requests were in flight",
            s.shared_breaks
        ))
    }
}

impl HttpBackend {
    /// A backend for `provider` speaking `wire` at `url` with `headers`, asking for prompt
    /// caching with `cache_field` and for answers whole (see `stream`).
    pub(super) fn new(
        provider: &'static str,
        wire: Wire,
        cache_field: &'static str,
        url: reqwest::Url,
        headers: HeaderMap,
        retry: RetryPolicy,
    ) -> Result<HttpBackend, LlmError> {
        Ok(HttpBackend {
            provider,
            wire,
            cache_field,
            client: client(provider)?,
            url,
            headers,
            retry,
            stream: false,
            idle: DEFAULT_IDLE,
            cache: Arc::new(AtomicBool::new(true)),
            shape: ShapeMemory::new(wire, StructuredOutput::Auto, None),
            servers: None,
            notes: Arc::default(),
            n_ctx: Arc::default(),
            gate: Arc::default(),
        })
    }

    /// Asks for the findings object as `setting` says, starting (for `auto`) where an earlier
    /// run found this server answers, as remembered in `state_dir` (`None`: nothing is
    /// remembered). A memory file that cannot be used is ignored, with a note.
    pub(super) fn structured(&mut self, setting: StructuredOutput, state_dir: Option<&Path>) {
        self.servers = state_dir.and_then(|d| ServerMemory::new(d, &self.url));
        let learnt = match &self.servers {
            Some(m) if setting == StructuredOutput::Auto => {
                let (learnt, note) = m.load(chrono::Utc::now());
                self.note(note);
                learnt
            }
            _ => None,
        };
        self.shape = ShapeMemory::new(self.wire, setting, learnt);
    }

    fn note(&self, note: Option<String>) {
        if let Some(n) = note {
            self.notes
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(n);
        }
    }

    /// The remarks on the run made since the last call (a server memory that was ignored, …).
    pub(super) fn take_notes(&self) -> Vec<String> {
        std::mem::take(
            &mut *self
                .notes
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// Keeps what this run learnt about the server's structured output, once, off the async
    /// threads. A memory that cannot be written is a note, not a failure.
    async fn remember_shape(&self) {
        let (Some(memory), Some(learnt)) = (&self.servers, self.shape.take_learnt()) else {
            return;
        };
        let m = memory.clone();
        let stored =
            tokio::task::spawn_blocking(move || m.store(&learnt, chrono::Utc::now())).await;
        let why = match stored {
            Ok(Ok(())) => return,
            Ok(Err(why)) => why,
            Err(e) => e.to_string(),
        };
        self.note(Some(format!(
            "what this server takes could not be remembered in {}: {}",
            memory.path().display(),
            crate::sanitize::one_line(&why)
        )));
    }

    /// Asks for one answer: on the best structured-output shape the server takes, and once more
    /// when it was cut (see `structured::ask`); with the prompt-cache field while the endpoint
    /// takes it (see `with_cache_field`). `body(shape, max_tokens, cached)` is the provider's
    /// request for one call (`max_tokens` starts as given); `whole` parses a whole answer and `C`
    /// collects a streamed one.
    pub(super) async fn ask<C: Collector>(
        &self,
        max_tokens: Option<u32>,
        events: &dyn CallEvents,
        body: impl Fn(Shape, Option<u32>, bool) -> serde_json::Value,
        whole: fn(&serde_json::Value) -> Result<Completion, LlmError>,
    ) -> Result<Completion, LlmError> {
        let body = &body;
        let done = structured::ask(
            self.provider,
            &self.shape,
            max_tokens,
            |shape, max_tokens| {
                self.with_cache_field(move |cached| async move {
                    let body = body(shape, max_tokens, cached);
                    self.send::<C>(&body, shape, events, whole).await
                })
            },
        )
        .await;
        if done.is_ok() {
            self.remember_shape().await;
        }
        done
    }

    /// `send(cached)` with the prompt-cache field while the endpoint takes it. When the endpoint
    /// refuses it (see [`refuses_cache_field`]), it is sent once more without, and it stays off
    /// for this backend's run.
    async fn with_cache_field<F, Fut>(&self, send: F) -> Result<Completion, LlmError>
    where
        F: Fn(bool) -> Fut,
        Fut: Future<Output = Result<Completion, LlmError>>,
    {
        let cached = self.cache.load(Ordering::Relaxed);
        match send(cached).await {
            Err(e) if cached && refuses_cache_field(&e, self.cache_field) => {
                // Off at once, so calls starting meanwhile go without it too.
                self.cache.store(false, Ordering::Relaxed);
                let again = send(false).await;
                match &again {
                    Ok(_) => tracing::info!(
                        "{} refused {}: sending without it",
                        self.provider,
                        self.cache_field
                    ),
                    // Refused without it as well: it was not the cache field.
                    Err(_) => self.cache.store(true, Ordering::Relaxed),
                }
                again
            }
            other => other,
        }
    }

    /// POSTs `body` and reads the answer: streamed into a `C` collector, or whole (and then
    /// parsed by `whole`). `events.began()` is called when a streamed answer's first event
    /// arrives (a provider writes its prompt cache when it has read the prompt, which is when
    /// the first event comes, not when the headers do), or when a whole answer has arrived; `events.received(n)` for every bit of streamed text.
    /// A server that ignores `stream` and answers with one JSON document is read with `whole`.
    async fn send<C: Collector>(
        &self,
        body: &serde_json::Value,
        shape: Shape,
        events: &dyn CallEvents,
        whole: fn(&serde_json::Value) -> Result<Completion, LlmError>,
    ) -> Result<Completion, LlmError> {
        let provider = self.provider;
        let idle = self.idle;
        if !self.stream {
            let answer = self
                .post(
                    false,
                    body,
                    shape,
                    events,
                    move |resp, attempt| async move { read_json(resp, provider, attempt, idle).await },
                )
                .await?;
            events.began();
            let done = whole(&answer)?;
            events.answered(&done.tokens);
            return Ok(done);
        }
        let done = self
            .post(
                true,
                body,
                shape,
                events,
                move |mut resp, attempt| async move {
                    let is_json = resp
                        .headers()
                        .get(reqwest::header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .is_some_and(|v| v.contains("application/json"));
                    if is_json {
                        let answer = match read_json(resp, provider, attempt, idle).await? {
                            Answer::Done(answer) => answer,
                            Answer::Cut(why) => return Ok(Answer::Cut(why)),
                            Answer::Silent(why) => return Ok(Answer::Silent(why)),
                        };
                        events.began();
                        return whole(&answer).map(Answer::Done);
                    }
                    match read_stream::<C>(&mut resp, events, idle).await {
                        Ok(done) => Ok(Answer::Done(done)),
                        Err(StreamEnd::Fatal(detail)) => {
                            Err(LlmError::Protocol { provider, detail })
                        }
                        Err(StreamEnd::TooLarge) => Err(too_large(provider, true)),
                        Err(StreamEnd::Cut(why)) => Ok(Answer::Cut(why)),
                        Err(StreamEnd::Silent(why)) => Ok(Answer::Silent(why)),
                    }
                },
            )
            .await?;
        events.answered(&done.tokens);
        Ok(done)
    }

    /// POSTs `body` as JSON (asking for server-sent events when `stream`) and hands a successful
    /// answer to `read`. Retries 429, 500, 502, 503, 504, 529 (after `Retry-After`, capped, when
    /// the provider sends one) and connection failures up to `retry.retries` times; so is an
    /// answer `read` finds cut (a stream that stopped before its proper end, a read error
    /// mid-stream, a retryable error event). A 5xx that refuses the structured output the body
    /// asks for (`shape`, see [`Shape::refused_by`]) is not retried: it is the server's answer.
    ///
    /// Every attempt goes through the backend's [`StreamGate`]: when streams keep breaking while
    /// other requests are in flight, the gate lets one request go at a time for the rest of the
    /// run, and `events` hears of it.
    ///
    /// **Time counts silence.** Until an answer's first byte a call waits as long as its
    /// overall limit allows (`aspect_timeout_secs`, `overall_timeout_secs`, enforced by the
    /// caller, which drops the call when it strikes, however much is still arriving): a server
    /// that serves one request at a time holds a queued request there, sending nothing, and that
    /// is waiting, not failing. The first byte is a streamed answer's headers, or a whole
    /// answer's first byte of body (written when the answer is done). From it on, no byte for
    /// `idle` (`[review] idle_timeout`) gives the attempt up as silent: a stream still producing
    /// tokens never is (only the overall limit ends it). A silent attempt is retried like a cut
    /// stream, and the first silence on a server makes it go one request at a time for the rest
    /// of the run (as broken streams do): a server that sent headers and then nothing is most
    /// likely busy with another request. The last attempt silent ends the call with
    /// [`LlmError::TimedOut`] naming the idle limit.
    async fn post<T, F, Fut>(
        &self,
        stream: bool,
        body: &serde_json::Value,
        shape: Shape,
        events: &dyn CallEvents,
        mut read: F,
    ) -> Result<T, LlmError>
    where
        F: FnMut(reqwest::Response, u32) -> Fut,
        Fut: Future<Output = Result<Answer<T>, LlmError>>,
    {
        let provider = self.provider;
        let policy = self.retry;
        let url = &self.url;
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let last = attempt > policy.retries;
            let backoff = policy.backoff.saturating_mul(1u32 << (attempt - 1).min(16));
            let slot = self.gate.enter().await;
            let started = std::time::Instant::now();
            let mut request = self.client.post(url.clone()).headers(self.headers.clone());
            if stream {
                request = request.header(reqwest::header::ACCEPT, "text/event-stream");
            }
            let sent = request.json(body).send().await;
            tracing::debug!(
                provider,
                method = "POST",
                path = url.path(),
                status = sent.as_ref().map(|r| r.status().as_u16()).ok(),
                error = sent.as_ref().err().map(|e| snippet(&e.to_string())),
                attempt,
                stream = stream.then_some(true),
                ms = started.elapsed().as_millis() as u64,
                "llm request"
            );
            let resp = match sent {
                Ok(r) => r,
                Err(e) => {
                    if last || !(e.is_connect() || e.is_timeout() || e.is_request()) {
                        return Err(LlmError::Transport {
                            provider,
                            attempts: attempt,
                            detail: snippet(&e.to_string()),
                        });
                    }
                    crate::progress::console_note(&format!(
                        "note: {provider}: {}; retrying in {:.1}s (attempt {}/{})",
                        snippet(&e.to_string()),
                        backoff.as_secs_f64(),
                        attempt + 1,
                        policy.retries + 1
                    ));
                    drop(slot);
                    tokio::time::sleep(backoff).await;
                    continue;
                }
            };
            let status = resp.status().as_u16();
            if !resp.status().is_success() {
                let wait = retry_after(resp.headers()).unwrap_or(backoff);
                let mut resp = resp;
                let text = read_error_text(&mut resp).await;
                if (400..500).contains(&status) && context::is_overflow(&text.to_ascii_lowercase())
                {
                    let (n_ctx, prompt_tokens) = context::sizes(&text);
                    let n_ctx = match n_ctx {
                        Some(n) => Some(n),
                        None => self.server_context().await,
                    };
                    return Err(LlmError::ContextOverflow {
                        provider,
                        n_ctx,
                        prompt_tokens,
                        detail: snippet(&text),
                    });
                }
                if last || !retryable(status) || shape.refused_by(status, &text) {
                    return Err(LlmError::Status {
                        provider,
                        status,
                        attempts: attempt,
                        detail: snippet(&text),
                    });
                }
                tracing::debug!(provider, status, attempt, "retrying after {wait:?}");
                crate::progress::console_note(&format!(
                    "note: {provider}: HTTP {status}; retrying in {:.1}s (attempt {}/{})",
                    wait.as_secs_f64(),
                    attempt + 1,
                    policy.retries + 1
                ));
                drop(slot);
                tokio::time::sleep(wait).await;
                continue;
            }
            let (why, lowered, silent) = match read(resp, attempt).await? {
                Answer::Done(done) => return Ok(done),
                Answer::Cut(why) => (why, self.gate.broke(), false),
                Answer::Silent(why) => (why, self.gate.went_silent(self.idle), true),
            };
            if let Some(lowered) = lowered {
                tracing::info!(provider, "{lowered}");
                events.lowered_concurrency(1, &lowered);
            }
            drop(slot);
            if last {
                return Err(if silent {
                    LlmError::TimedOut {
                        limit: TimeLimit::Idle(self.idle),
                        detail: format!("{why} ({})", super::attempts_text(attempt)),
                    }
                } else {
                    LlmError::Transport {
                        provider,
                        attempts: attempt,
                        detail: why,
                    }
                });
            }
            tracing::debug!(
                provider,
                attempt,
                "stream cut ({why}); retrying after {backoff:?}"
            );
            tokio::time::sleep(backoff).await;
        }
    }
}

impl HttpBackend {
    /// The server's context size as llama.cpp's `/props` says it (asked once per run; `None`
    /// from servers without it).
    async fn server_context(&self) -> Option<u64> {
        let mut known = self.n_ctx.lock().await;
        if let Some(n) = *known {
            return n;
        }
        let url = context::props_url(&self.url);
        let asked = async {
            let mut resp = self
                .client
                .get(url)
                .headers(self.headers.clone())
                .send()
                .await
                .ok()?;
            if !resp.status().is_success() {
                return None;
            }
            let body = read_body(&mut resp, MAX_ERROR_BYTES * 4, PROPS_TIMEOUT)
                .await
                .ok()?;
            context::n_ctx_of_props(&serde_json::from_slice(&body).ok()?)
        };
        let n = tokio::time::timeout(PROPS_TIMEOUT, asked)
            .await
            .ok()
            .flatten();
        tracing::debug!(
            provider = self.provider,
            n_ctx = n,
            "server context from /props"
        );
        *known = Some(n);
        n
    }
}

/// How long `/props` may take to answer.
const PROPS_TIMEOUT: Duration = Duration::from_secs(10);

impl std::fmt::Debug for HttpBackend {
    // The headers hold the API key: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpBackend")
            .field("url", &self.url.as_str())
            .field("stream", &self.stream)
            .finish_non_exhaustive()
    }
}

/// What reading a successful answer came to.
enum Answer<T> {
    Done(T),
    /// Cut before its end (why): worth another attempt.
    Cut(String),
    /// Begun, then nothing for the idle timeout (why): worth another attempt, one at a time.
    Silent(String),
}

/// Why a body could not be read whole.
enum BodyError {
    /// More than the limit (the rest was not read).
    TooLarge,
    /// The connection broke.
    Broken(String),
    /// Nothing came for the idle timeout after the first byte (why).
    Silent(String),
}

/// Why an answer that had begun was given up: `idle` without a byte after `read` bytes.
fn silent_for(idle: Duration, read: usize) -> String {
    format!(
        "the answer sent nothing for {} after {read} bytes",
        seconds(idle)
    )
}

/// Reads a body of at most `limit` bytes: a longer one (by its `Content-Length` or as it
/// arrives) is not read further. After its first byte, a gap of `idle` ends it as silent.
async fn read_body(
    resp: &mut reqwest::Response,
    limit: usize,
    idle: Duration,
) -> Result<Vec<u8>, BodyError> {
    if resp
        .content_length()
        .is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX))
    {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    loop {
        // The first byte of a whole answer comes when it is written: waited for as long as the
        // call may take.
        let chunk = if body.is_empty() {
            Ok(resp.chunk().await)
        } else {
            tokio::time::timeout(idle, resp.chunk()).await
        };
        let Ok(chunk) = chunk else {
            return Err(BodyError::Silent(silent_for(idle, body.len())));
        };
        let Some(bytes) = chunk.map_err(|e| BodyError::Broken(snippet(&e.to_string())))? else {
            break;
        };
        if body.len() + bytes.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&bytes);
    }
    Ok(body)
}

/// The text of an error answer: its first [`MAX_ERROR_BYTES`] (enough to say what went wrong).
async fn read_error_text(resp: &mut reqwest::Response) -> String {
    let mut body = Vec::new();
    while let Ok(Some(bytes)) = resp.chunk().await {
        let room = MAX_ERROR_BYTES - body.len();
        body.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if body.len() >= MAX_ERROR_BYTES {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The error for an answer larger than [`MAX_ANSWER_BYTES`].
fn too_large(provider: &'static str, streamed: bool) -> LlmError {
    LlmError::Protocol {
        provider,
        detail: format!(
            "the {} is larger than {} MiB; it was not read further",
            if streamed { "answer stream" } else { "answer" },
            MAX_ANSWER_BYTES / (1024 * 1024)
        ),
    }
}

/// Reads a whole answer as JSON, at most [`MAX_ANSWER_BYTES`] (attempt `attempt`, for the
/// error); one that goes silent for `idle` after its first byte is [`Answer::Silent`].
async fn read_json(
    mut resp: reqwest::Response,
    provider: &'static str,
    attempt: u32,
    idle: Duration,
) -> Result<Answer<serde_json::Value>, LlmError> {
    let body = match read_body(&mut resp, MAX_ANSWER_BYTES, idle).await {
        Ok(body) => body,
        Err(BodyError::Silent(why)) => return Ok(Answer::Silent(why)),
        Err(BodyError::TooLarge) => return Err(too_large(provider, false)),
        Err(BodyError::Broken(detail)) => {
            return Err(LlmError::Transport {
                provider,
                attempts: attempt,
                detail,
            });
        }
    };
    serde_json::from_slice(&body)
        .map(Answer::Done)
        .map_err(|e| LlmError::Protocol {
            provider,
            detail: format!(
                "the answer is not JSON ({e}): {}",
                snippet(&String::from_utf8_lossy(&body))
            ),
        })
}

/// Whether `err` is an endpoint refusing a prompt-cache field (`cache_control`,
/// `prompt_cache_key`): HTTP 400 or 422 whose text names the field, or names none of the
/// structured-output parameters (those have their own fallback, `structured::ask`).
fn refuses_cache_field(err: &LlmError, field: &str) -> bool {
    let LlmError::Status {
        status: 400 | 422,
        detail,
        ..
    } = err
    else {
        return false;
    };
    let d = detail.to_ascii_lowercase();
    d.contains(field)
        || !["tool", "response_format", "json_schema", "json_object"]
            .iter()
            .any(|n| d.contains(n))
}

/// What the transport needs from a provider's stream collector (`AnthropicStream` in
/// `anthropic.rs`, `OpenAiStream` in `openai.rs`): [`read_stream`] feeds it every event of one
/// streamed answer. A collector says whether the stream ended properly (`finished`); a stream that
/// stops before that is a cut answer, retried like a 5xx.
pub(super) trait Collector: Default {
    /// Takes one event and returns the characters of answer it added; `Err` for an error event
    /// (`retryable` says whether to try again).
    fn apply(&mut self, ev: &SseEvent) -> Result<usize, StreamError>;
    /// The stream reached its proper end.
    fn finished(&self) -> bool;
    /// Why a stream that is not `finished` did not finish, when the collector knows better than
    /// "it stopped mid-answer".
    fn why_unfinished(&self) -> Option<String> {
        None
    }
    /// Characters of answer collected so far.
    fn received(&self) -> usize;
    /// The plain text of the answer collected so far (not a tool call's input): what
    /// [`CallEvents::text`] hands on as it grows.
    fn text(&self) -> &str {
        ""
    }
    fn into_completion(self) -> Completion;
}

/// An error the provider sent inside the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StreamError {
    pub(super) retryable: bool,
    pub(super) detail: String,
}

/// Why a stream did not give an answer.
enum StreamEnd {
    /// Worth another attempt: cut mid-answer, a read error, a retryable error event.
    Cut(String),
    /// Not worth another attempt.
    Fatal(String),
    /// Nothing came for the idle timeout (why): worth another attempt, one at a time.
    Silent(String),
    /// More than [`MAX_ANSWER_BYTES`]: not read further, not asked again.
    TooLarge,
}

/// Reads one streamed answer to its end. The headers were its first byte: from them on, a gap
/// of `idle` ends it as silent.
async fn read_stream<C: Collector>(
    resp: &mut reqwest::Response,
    events: &dyn CallEvents,
    idle: Duration,
) -> Result<Completion, StreamEnd> {
    let mut parser = SseParser::default();
    let mut collector = C::default();
    let mut read = 0usize;
    let mut began = false;
    // The bytes of `collector.text()` already handed to `events.text`.
    let mut told = 0usize;
    let mut tell = |c: &C| {
        if let Some(more) = c.text().get(told..).filter(|t| !t.is_empty()) {
            events.text(more);
            told = c.text().len();
        }
    };
    loop {
        let Ok(chunk) = tokio::time::timeout(idle, resp.chunk()).await else {
            return Err(StreamEnd::Silent(silent_for(idle, read)));
        };
        let bytes = match chunk {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(e) => {
                return Err(StreamEnd::Cut(format!(
                    "the answer stream broke after {} characters: {}",
                    collector.received(),
                    snippet(&e.to_string())
                )));
            }
        };
        read += bytes.len();
        if read > MAX_ANSWER_BYTES {
            return Err(StreamEnd::TooLarge);
        }
        for ev in parser.push(&bytes) {
            if !began {
                began = true;
                events.began();
            }
            match collector.apply(&ev) {
                Ok(0) => {}
                Ok(n) => {
                    events.received(n);
                    tell(&collector);
                }
                Err(e) if e.retryable => {
                    return Err(StreamEnd::Cut(format!(
                        "the provider sent an error mid-stream: {}",
                        snippet(&e.detail)
                    )));
                }
                Err(e) => return Err(StreamEnd::Fatal(snippet(&e.detail))),
            }
        }
    }
    // The body may end without a final blank line: flush it.
    for ev in parser.push(b"\n\n") {
        if let Ok(n) = collector.apply(&ev)
            && n > 0
        {
            events.received(n);
            tell(&collector);
        }
    }
    if collector.finished() {
        Ok(collector.into_completion())
    } else {
        Err(StreamEnd::Cut(collector.why_unfinished().unwrap_or_else(
            || {
                format!(
                    "the answer stream stopped mid-answer after {} characters",
                    collector.received()
                )
            },
        )))
    }
}

/// Collects a whole stream `text` into a `C`, stopping at the first error event (for the
/// collectors' tests in each provider's file).
#[cfg(test)]
pub(super) fn collect<C: Collector>(text: &str) -> (C, Result<(), StreamError>) {
    let mut c = C::default();
    for ev in SseParser::default().push(text.as_bytes()) {
        if let Err(e) = c.apply(&ev) {
            return (c, Err(e));
        }
    }
    (c, Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_headers_carry_the_key_and_refuse_the_public_endpoint_without_one() {
        let name = reqwest::header::AUTHORIZATION;
        let headers = |base_url, api_key| ApiHeaders {
            base_url,
            default_base_url: "https://api.x",
            api_key,
            key_var: "X_KEY",
            key_header: name.clone(),
            key_prefix: "Bearer ",
            missing: "X_KEY is not set",
        };
        let h = headers("https://api.x/", Some(" sk-1 \n")).build().unwrap();
        let auth = h.get(&name).unwrap();
        assert_eq!(auth, "Bearer sk-1");
        assert!(auth.is_sensitive());
        assert_eq!(
            h.get(reqwest::header::CONTENT_TYPE).unwrap(),
            "application/json"
        );
        let err = headers("https://api.x/", None).build().unwrap_err();
        assert!(err.to_string().contains("X_KEY is not set"), "{err}");
        let local = headers("http://127.0.0.1:8080", None).build().unwrap();
        assert!(local.get(&name).is_none());
        let bad = headers("https://api.x", Some("a\u{7f}b"))
            .build()
            .unwrap_err();
        assert!(bad.to_string().contains("X_KEY"), "{bad}");
    }

    #[test]
    fn endpoints_join_with_one_slash() {
        assert_eq!(
            endpoint("http://localhost:11434/v1/", "/chat/completions")
                .unwrap()
                .as_str(),
            "http://localhost:11434/v1/chat/completions"
        );
        assert!(endpoint("not a url", "x").is_err());
        assert!(endpoint("file:///etc", "x").is_err());
    }

    #[test]
    fn retry_after_is_capped() {
        use reqwest::header::RETRY_AFTER;
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(RETRY_AFTER, "99999".parse().unwrap());
        assert_eq!(retry_after(&h), Some(MAX_RETRY_AFTER));
        h.insert(RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }
}
