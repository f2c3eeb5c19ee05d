//! LLM backends: `anthropic` (Messages API), `openai` (Chat Completions and compatible servers:
//! Ollama, vLLM, llama.cpp, OpenRouter), `command` (a local program, prompt on stdin) and
//! `replay` (answers recorded in a fixture).
//!
//! A call is one future; cancelling it means dropping it. For HTTP backends that aborts the
//! in-flight request; for `command` it kills the child's whole process group. A backend ends a
//! call itself at its idle limit ([`TimeLimit::Idle`]); the caller ends it at its overall limit
//! by dropping it, whatever is still arriving (`engine::scheduler`, `engine::ask`).
//! API keys and base URLs come in an [`LlmEnv`], read from the environment once at the edge
//! (`commands::Context`); keys go only into request headers, and are never put in a prompt, a log
//! line, an error or the ledger.

mod anthropic;
mod command;
mod context;
mod http;
#[cfg(test)]
pub(crate) mod loopback;
mod openai;
mod replay;
mod servers;
mod sse;
mod structured;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use anthropic::AnthropicClient;
pub use command::CommandClient;
pub use http::RetryPolicy;
pub use openai::OpenAiClient;
pub use replay::ReplayClient;
pub use servers::FILE_NAME as SERVER_MEMORY_FILE;
pub use structured::Shape;

use super::aspect::Aspect;
use super::inputs::prompt::Prompt;
use super::settings::{BackendKind, DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, ReviewSettings};
use crate::pr::RecordedAnswer;

/// The most bytes one answer may take — an HTTP answer whole or streamed (events and all), a
/// `command` program's stdout: far more than any answer within the token limits, and a bound on
/// what a broken or hostile server can make a review hold. A larger answer ends the call with an
/// error saying so.
pub(crate) const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

pub const ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";
pub const ANTHROPIC_BASE_URL: &str = "ANTHROPIC_BASE_URL";
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
pub const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";

/// What the environment offers the HTTP backends: their API keys and base URLs
/// ([`ANTHROPIC_API_KEY`], [`ANTHROPIC_BASE_URL`], [`OPENAI_API_KEY`], [`OPENAI_BASE_URL`]).
/// Read once at the edge and passed down, so the library never reads the process environment for
/// them and tests pass their own. Debug output never shows a key.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct LlmEnv {
    pub anthropic_api_key: Option<String>,
    pub anthropic_base_url: Option<String>,
    pub openai_api_key: Option<String>,
    pub openai_base_url: Option<String>,
    /// The state dir, where what is learnt about each server is kept across runs
    /// ([`SERVER_MEMORY_FILE`]); `None`: nothing is remembered (every test's default).
    pub state_dir: Option<std::path::PathBuf>,
}

impl LlmEnv {
    /// The four variables as `var` reports them (the edge passes the process environment's);
    /// blank values count as unset.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> LlmEnv {
        let get = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        LlmEnv {
            anthropic_api_key: get(ANTHROPIC_API_KEY),
            anthropic_base_url: get(ANTHROPIC_BASE_URL),
            openai_api_key: get(OPENAI_API_KEY),
            openai_base_url: get(OPENAI_BASE_URL),
            state_dir: None,
        }
    }

    /// Remembers what is learnt about each server in `state_dir` (see [`LlmEnv::state_dir`]).
    pub(crate) fn remembering_in(mut self, state_dir: Option<std::path::PathBuf>) -> LlmEnv {
        self.state_dir = state_dir;
        self
    }
}

impl std::fmt::Debug for LlmEnv {
    // The keys are secrets: only whether they are set is printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = |k: &Option<String>| k.as_ref().map(|_| "<redacted>");
        f.debug_struct("LlmEnv")
            .field("anthropic_api_key", &key(&self.anthropic_api_key))
            .field("anthropic_base_url", &self.anthropic_base_url)
            .field("openai_api_key", &key(&self.openai_api_key))
            .field("openai_base_url", &self.openai_base_url)
            .field("state_dir", &self.state_dir)
            .finish()
    }
}

/// Token counts of one call, or summed over calls; a count is `None` when no call reported it.
/// Flattened into [`Completion`] and the scheduler's aspect outcome, whose JSON thus keeps the flat
/// `inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens` (absent when unknown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenUsage {
    /// Every input token, cached ones included.
    #[serde(rename = "inputTokens", skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    #[serde(rename = "outputTokens", skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    /// Input tokens read from the provider's prompt cache (part of `input`).
    #[serde(rename = "cacheReadTokens", skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<u64>,
    /// Input tokens written to the provider's prompt cache (part of `input`).
    #[serde(rename = "cacheWriteTokens", skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<u64>,
}

impl TokenUsage {
    /// Adds `more`'s counts to these; a count stays `None` while neither reported it.
    pub fn add(&mut self, more: &TokenUsage) {
        fn add(total: &mut Option<u64>, more: Option<u64>) {
            if let Some(m) = more {
                *total = Some(total.unwrap_or(0) + m);
            }
        }
        add(&mut self.input, more.input);
        add(&mut self.output, more.output);
        add(&mut self.cache_read, more.cache_read);
        add(&mut self.cache_write, more.cache_write);
    }
}

/// A model's answer and what it cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub text: String,
    #[serde(flatten)]
    pub tokens: TokenUsage,
    /// Something the backend wants said about this answer (e.g. which recorded step replayed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The provider stopped at the token limit (`finish_reason: length`, `stop_reason:
    /// max_tokens`): the answer is cut and is asked again (see `structured::ask`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The backend cannot be set up (missing key, bad URL, no program).
    #[error("{0}")]
    Config(String),
    /// The provider answered with an error status (after retries when it was retryable).
    #[error("{provider} answered HTTP {status} after {}: {detail}", attempts_text(*attempts))]
    Status {
        provider: &'static str,
        status: u16,
        attempts: u32,
        detail: String,
    },
    /// The prompt does not fit the server's context (llama.cpp's `exceed_context_size_error`,
    /// OpenAI's `context_length_exceeded`): never retried as it is; the scheduler re-chunks the
    /// diff with a budget that fits (see `review::inputs::chunk::fitting_budget`). The sizes, when
    /// the error or the server's `/props` named them.
    #[error("{provider}: the prompt does not fit the server's context{}: {detail}", context_sizes(*.n_ctx, *.prompt_tokens))]
    ContextOverflow {
        provider: &'static str,
        /// The server's context, in tokens.
        n_ctx: Option<u64>,
        /// The prompt's tokens as the server counted them.
        prompt_tokens: Option<u64>,
        detail: String,
    },
    /// The provider could not be reached (after retries).
    #[error("cannot reach {provider} after {}: {detail}", attempts_text(*attempts))]
    Transport {
        provider: &'static str,
        attempts: u32,
        detail: String,
    },
    /// The provider's answer is not the wire format expected.
    #[error("unexpected answer from {provider}: {detail}")]
    Protocol {
        provider: &'static str,
        detail: String,
    },
    /// The answer was cut at the token limit, also when asked again with a larger one.
    #[error("the answer from {provider} was cut at the token limit: {detail}")]
    Cut {
        provider: &'static str,
        detail: String,
    },
    /// The `command` backend's program failed.
    #[error("{0}")]
    Command(String),
    /// No recorded answer for this aspect.
    #[error("{0}")]
    Replay(String),
    /// A time limit ended the call (`detail`: what had arrived by then).
    #[error("stopped by {limit}: {detail}")]
    TimedOut { limit: TimeLimit, detail: String },
}

/// A limit on a call's time, as named when it ends one. Every call has an overall limit (the
/// run's, or the per-aspect one when that comes first) and an idle limit: whichever strikes first
/// ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeLimit {
    /// The run's wall-clock limit (`--timeout`, `[review] overall_timeout_secs`).
    Overall(Duration),
    /// The per-aspect limit (`--aspect-timeout`, `[review] aspect_timeout_secs`).
    Aspect(Duration),
    /// The longest silence inside an answer that has begun (`[review] idle_timeout`).
    Idle(Duration),
}

impl TimeLimit {
    /// The overall limit of one call of `settings` that starts now: the run's limit, or the
    /// per-aspect one when it is shorter.
    pub fn of_call(settings: &ReviewSettings) -> TimeLimit {
        let (overall, aspect) = (settings.overall_timeout(), settings.aspect_timeout());
        if aspect < overall {
            TimeLimit::Aspect(aspect)
        } else {
            TimeLimit::Overall(overall)
        }
    }

    pub fn duration(self) -> Duration {
        match self {
            TimeLimit::Overall(d) | TimeLimit::Aspect(d) | TimeLimit::Idle(d) => d,
        }
    }
}

impl std::fmt::Display for TimeLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (which, setting) = match self {
            TimeLimit::Overall(_) => ("overall timeout", "--timeout, overall_timeout_secs"),
            TimeLimit::Aspect(_) => (
                "per-aspect timeout",
                "--aspect-timeout, aspect_timeout_secs",
            ),
            TimeLimit::Idle(_) => ("idle timeout", "idle_timeout"),
        };
        write!(f, "the {which} of {} ({setting})", seconds(self.duration()))
    }
}

/// A duration as said in messages: `5 seconds`, `1 second`, `0.5 seconds`.
pub(crate) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s == 1.0 {
        "1 second".to_owned()
    } else {
        format!("{s} seconds")
    }
}

/// "1 attempt", "3 attempts" for an error that says how often it tried.
fn attempts_text(attempts: u32) -> String {
    crate::plural::count(attempts as usize, "attempt")
}

/// " (N tokens; the prompt has M)" for a context-overflow error, as far as the sizes are known.
fn context_sizes(n_ctx: Option<u64>, prompt: Option<u64>) -> String {
    match (n_ctx, prompt) {
        (Some(c), Some(p)) => format!(" ({c} tokens; the prompt has {p})"),
        (Some(c), None) => format!(" ({c} tokens)"),
        (None, Some(p)) => format!(" (the prompt has {p} tokens)"),
        (None, None) => String::new(),
    }
}

/// What a call reports while it runs (to the scheduler: the warm-first fan-out and the console's
/// progress). Both default to doing nothing.
pub trait CallEvents: Send + Sync {
    /// The answer began: a streamed answer's first event arrived (the prompt cache it wrote is
    /// now readable; headers alone can come before the prompt is read), or a non-streamed answer
    /// arrived whole.
    fn began(&self) {}
    /// `chars` more characters of answer arrived.
    fn received(&self, _chars: usize) {}
    /// These characters of a streamed plain-text answer arrived (after `received`). A retried
    /// attempt's answer starts over: `began` comes again before its first text. Untrusted model
    /// text, for the ask about selected lines (`engine::ask`), which shows it as it comes.
    fn text(&self, _delta: &str) {}
    /// An answer was read to its end (a whole one, a stream to its proper end, one cut at the
    /// token limit and asked again): what it cost, as the server reported it (every count `None`:
    /// it reported nothing). Every answer of a call is reported, whatever becomes of the call.
    fn answered(&self, _usage: &TokenUsage) {}
    /// The backend sends at most `to` requests at once for the rest of the run, and why (the
    /// server kept breaking concurrent streams).
    fn lowered_concurrency(&self, _to: usize, _why: &str) {}
}

/// Reports nothing.
pub struct NoEvents;

impl CallEvents for NoEvents {}

/// One configured backend.
#[derive(Debug, Clone)]
pub enum LlmClient {
    Anthropic(AnthropicClient),
    OpenAi(OpenAiClient),
    Command(CommandClient),
    Replay(ReplayClient),
}

/// What a fixture offers the replay backend.
#[derive(Debug, Clone, Default)]
pub struct ReplaySource {
    pub answers: Vec<RecordedAnswer>,
    pub step: usize,
}

impl LlmClient {
    pub fn kind(&self) -> BackendKind {
        match self {
            LlmClient::Anthropic(_) => BackendKind::Anthropic,
            LlmClient::OpenAi(_) => BackendKind::Openai,
            LlmClient::Command(_) => BackendKind::Command,
            LlmClient::Replay(_) => BackendKind::Replay,
        }
    }

    /// The model (or program) named in the output.
    pub fn model(&self) -> String {
        match self {
            LlmClient::Anthropic(c) => c.model.clone(),
            LlmClient::OpenAi(c) => c.model.clone(),
            LlmClient::Command(c) => c.program_name(),
            LlmClient::Replay(_) => "recorded answers".to_owned(),
        }
    }

    /// Asks for one aspect's review. Dropping the future cancels the call.
    pub async fn complete(&self, prompt: &Prompt) -> Result<Completion, LlmError> {
        self.complete_observed(prompt, &NoEvents).await
    }

    /// [`LlmClient::complete`], reporting the answer's start and progress to `events`.
    pub(crate) async fn complete_observed(
        &self,
        prompt: &Prompt,
        events: &dyn CallEvents,
    ) -> Result<Completion, LlmError> {
        match self {
            LlmClient::Anthropic(c) => c.complete(prompt, events).await,
            LlmClient::OpenAi(c) => c.complete(prompt, events).await,
            LlmClient::Command(c) => {
                events.began();
                let done = c.complete_observed(prompt, events).await;
                if let Ok(c) = &done {
                    events.answered(&c.tokens);
                }
                done
            }
            LlmClient::Replay(c) => {
                events.began();
                let done = c.complete(prompt.aspect, prompt.chunk);
                if let Ok(c) = &done {
                    events.answered(&c.tokens);
                }
                done
            }
        }
    }

    /// Remarks on the run as a whole that the backend made since the last call: a server memory
    /// in the state dir that was ignored or could not be written, … (the scheduler says them as
    /// [`crate::review::ReviewEvent::Note`] and keeps them in the run).
    pub(crate) fn take_notes(&self) -> Vec<String> {
        match self {
            LlmClient::Anthropic(c) => c.take_notes(),
            LlmClient::OpenAi(c) => c.take_notes(),
            LlmClient::Command(_) | LlmClient::Replay(_) => Vec::new(),
        }
    }

    /// True for backends with a prompt cache that a first call must warm before the others
    /// can read it, and that say when an answer begins: the HTTP providers, streaming. (A
    /// non-streamed answer "begins" only when it is complete; waiting for it would double the
    /// wall time, so those calls fan out at once.)
    pub(crate) fn caches_prefix(&self) -> bool {
        match self {
            LlmClient::Anthropic(c) => c.is_streaming(),
            LlmClient::OpenAi(c) => c.is_streaming(),
            LlmClient::Command(_) | LlmClient::Replay(_) => false,
        }
    }

    /// The backend the settings ask for, with the keys and base URLs of `env`. `replay` is the
    /// fixture's recorded answers; without an explicit `llm`, fixtures replay and live PRs use
    /// anthropic when `env` has an `ANTHROPIC_API_KEY`, else openai when it has an
    /// `OPENAI_API_KEY`.
    pub fn from_settings(
        settings: &ReviewSettings,
        env: &LlmEnv,
        replay: Option<ReplaySource>,
    ) -> Result<LlmClient, LlmError> {
        let kind = match settings.llm {
            Some(k) => k,
            None if replay.is_some() => BackendKind::Replay,
            None if env.anthropic_api_key.is_some() => BackendKind::Anthropic,
            None if env.openai_api_key.is_some() => BackendKind::Openai,
            None => {
                return Err(LlmError::Config(format!(
                    "no LLM backend: pass --llm anthropic|openai|command (or set {ANTHROPIC_API_KEY} or {OPENAI_API_KEY})"
                )));
            }
        };
        let retry = RetryPolicy {
            retries: settings.retries,
            backoff: Duration::from_millis(settings.retry_backoff_ms),
        };
        Ok(match kind {
            BackendKind::Anthropic => {
                let base = settings
                    .llm_url
                    .clone()
                    .or_else(|| env.anthropic_base_url.clone())
                    .unwrap_or_else(|| anthropic::DEFAULT_BASE_URL.to_owned());
                LlmClient::Anthropic(
                    AnthropicClient::new(
                        &base,
                        env.anthropic_api_key.clone(),
                        settings
                            .model
                            .clone()
                            .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned()),
                        settings.max_output_tokens,
                        retry,
                    )?
                    .streaming(settings.stream)
                    .idle_timeout(settings.idle_timeout())
                    .structured(settings.structured_output, env.state_dir.as_deref()),
                )
            }
            BackendKind::Openai => {
                let base = settings
                    .llm_url
                    .clone()
                    .or_else(|| env.openai_base_url.clone())
                    .unwrap_or_else(|| openai::DEFAULT_BASE_URL.to_owned());
                LlmClient::OpenAi(
                    OpenAiClient::new(
                        &base,
                        env.openai_api_key.clone(),
                        settings
                            .model
                            .clone()
                            .unwrap_or_else(|| DEFAULT_OPENAI_MODEL.to_owned()),
                        Some(settings.max_output_tokens),
                        retry,
                    )?
                    .streaming(settings.stream)
                    .idle_timeout(settings.idle_timeout())
                    .structured(settings.structured_output, env.state_dir.as_deref()),
                )
            }
            BackendKind::Command => LlmClient::Command(
                CommandClient::new(settings.command.clone())?
                    .passing_env(settings.command_env.clone())
                    .idle_timeout(settings.idle_timeout()),
            ),
            BackendKind::Replay => {
                let src = replay.ok_or_else(|| {
                    LlmError::Config(
                        "--llm replay needs a fixture with recorded answers (llm.answers)".into(),
                    )
                })?;
                LlmClient::Replay(ReplayClient::new(src.answers, src.step))
            }
        })
    }
}

/// The aspect a recorded answer is for, if its name is known.
pub(crate) fn aspect_of(name: &str) -> Option<Aspect> {
    name.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_count_their_attempts_in_words() {
        let one = LlmError::Transport {
            provider: "openai",
            attempts: 1,
            detail: "refused".to_owned(),
        };
        assert_eq!(
            one.to_string(),
            "cannot reach openai after 1 attempt: refused"
        );
        let three = LlmError::Status {
            provider: "openai",
            status: 503,
            attempts: 3,
            detail: "busy".to_owned(),
        };
        assert_eq!(
            three.to_string(),
            "openai answered HTTP 503 after 3 attempts: busy"
        );
    }

    /// The perf aspect's prompt for the bundled demo PR (for the providers' request tests).
    pub(super) fn demo_prompt() -> Prompt {
        let pr = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo"),
        )
        .unwrap()
        .pr;
        crate::review::inputs::prompt::build(
            Aspect::Perf,
            &pr,
            &crate::review::inputs::prompt::Prompts::embedded(),
            60_000,
        )
    }

    #[test]
    fn the_backend_comes_from_the_env_given_not_the_process_env() {
        // Whatever the process environment holds, an empty LlmEnv offers no key.
        let err = LlmClient::from_settings(&ReviewSettings::default(), &LlmEnv::default(), None)
            .unwrap_err();
        assert!(err.to_string().contains("no LLM backend"), "{err}");

        let env = LlmEnv::from_vars(|k| match k {
            OPENAI_API_KEY => Some("sk-open".to_owned()),
            OPENAI_BASE_URL => Some("http://127.0.0.1:9/v1".to_owned()),
            ANTHROPIC_API_KEY => Some("  \n".to_owned()),
            _ => None,
        });
        assert_eq!(env.anthropic_api_key, None, "a blank value is unset");
        let c = LlmClient::from_settings(&ReviewSettings::default(), &env, None).unwrap();
        assert_eq!(c.kind(), BackendKind::Openai);
        assert!(format!("{c:?}").contains("127.0.0.1:9"), "{c:?}");

        let both = LlmEnv {
            anthropic_api_key: Some("sk-ant".to_owned()),
            ..env.clone()
        };
        let c = LlmClient::from_settings(&ReviewSettings::default(), &both, None).unwrap();
        assert_eq!(c.kind(), BackendKind::Anthropic);
        let shown = format!("{both:?}");
        assert!(
            !shown.contains("sk-ant") && !shown.contains("sk-open"),
            "{shown}"
        );
        assert!(shown.contains("http://127.0.0.1:9/v1"), "{shown}");
    }

    #[test]
    fn completions_keep_their_json_to_the_byte() {
        let text = r#"{"text":"t","inputTokens":1,"outputTokens":2,"cacheWriteTokens":4,"note":"x","truncated":true}"#;
        let c: Completion = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), text);
        let bare: Completion = serde_json::from_str(r#"{"text":"t"}"#).unwrap();
        assert_eq!(
            bare,
            Completion {
                text: "t".into(),
                ..Completion::default()
            }
        );
    }

    /// Settings for `backend` at `url` (not streamed for `command`), no retries, idle `idle` s.
    fn limited(backend: BackendKind, url: &str, idle: f64) -> ReviewSettings {
        ReviewSettings {
            llm: Some(backend),
            llm_url: Some(url.to_owned()),
            model: Some("m".into()),
            retries: 0,
            idle_timeout: idle,
            ..ReviewSettings::default()
        }
    }

    /// Failed before for `command` (no idle limit: the call ran until its caller dropped it).
    /// A stream that stalls after its first event, and a program that stops writing, end at the
    /// idle limit, saying so with its seconds; a program's whole process group goes with it.
    #[tokio::test]
    async fn a_backend_ends_an_answer_that_goes_silent_at_the_idle_limit() {
        use loopback::{After, Model, Wire};
        let prompt = tests::demo_prompt();
        let openai = Model::start(Wire::OpenAi, After::Stall).await;
        let anthropic = Model::start(Wire::Anthropic, After::Stall).await;
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!(
            "cat >/dev/null; echo $$ > '{}'; printf Hel; sleep 60",
            pid_file.display()
        );
        let mut command = limited(BackendKind::Command, "", 0.5);
        command.command = vec!["sh".into(), "-c".into(), script];
        let clients = [
            limited(BackendKind::Openai, &openai.url, 0.5),
            limited(BackendKind::Anthropic, &anthropic.url, 0.5),
            command,
        ]
        .map(|s| LlmClient::from_settings(&s, &LlmEnv::default(), None).unwrap());
        let started = std::time::Instant::now();
        let ended = futures::future::join_all(clients.iter().map(|c| c.complete(&prompt))).await;
        assert!(started.elapsed() < Duration::from_secs(5), "{ended:?}");
        for (client, e) in clients.iter().zip(ended) {
            let e = e.unwrap_err();
            assert!(
                matches!(e, LlmError::TimedOut { limit: TimeLimit::Idle(d), .. } if d == Duration::from_millis(500)),
                "{:?}: {e:?}",
                client.kind()
            );
            let said = e.to_string();
            assert!(
                said.starts_with("stopped by the idle timeout of 0.5 seconds (idle_timeout): "),
                "{said}"
            );
        }
        let pid = loopback::pid_in(&pid_file).await;
        assert!(!loopback::still_running(pid).await, "{pid} still runs");
    }

    /// A trickle keeps an answer from being silent: the idle limit never ends it (its overall
    /// limit does, in `engine::ask` and the scheduler).
    #[tokio::test]
    async fn a_trickle_is_never_silent_for_the_idle_limit() {
        use loopback::{After, Model, Wire};
        let prompt = tests::demo_prompt();
        let every = After::Trickle(Duration::from_millis(200));
        let openai = Model::start(Wire::OpenAi, every).await;
        let anthropic = Model::start(Wire::Anthropic, every).await;
        let dir = tempfile::tempdir().unwrap();
        let mut command = limited(BackendKind::Command, "", 0.8);
        command.command = loopback::trickling_program(&dir.path().join("pid"));
        let clients = [
            limited(BackendKind::Openai, &openai.url, 0.8),
            limited(BackendKind::Anthropic, &anthropic.url, 0.8),
            command,
        ]
        .map(|s| LlmClient::from_settings(&s, &LlmEnv::default(), None).unwrap());
        let calls = clients
            .iter()
            .map(|c| tokio::time::timeout(Duration::from_secs(2), c.complete(&prompt)));
        for (c, still) in clients.iter().zip(futures::future::join_all(calls).await) {
            assert!(still.is_err(), "{:?}: {still:?}", c.kind());
        }
    }

    #[test]
    fn time_limits_name_themselves_and_their_seconds() {
        let s = |secs: f64| Duration::from_secs_f64(secs);
        assert_eq!(
            TimeLimit::Overall(s(5.0)).to_string(),
            "the overall timeout of 5 seconds (--timeout, overall_timeout_secs)"
        );
        assert_eq!(
            TimeLimit::Aspect(s(1.0)).to_string(),
            "the per-aspect timeout of 1 second (--aspect-timeout, aspect_timeout_secs)"
        );
        assert_eq!(
            TimeLimit::Idle(s(0.5)).to_string(),
            "the idle timeout of 0.5 seconds (idle_timeout)"
        );
        let settings = |overall: f64, aspect: f64| ReviewSettings {
            overall_timeout_secs: overall,
            aspect_timeout_secs: aspect,
            ..ReviewSettings::default()
        };
        assert_eq!(
            TimeLimit::of_call(&settings(5.0, 900.0)),
            TimeLimit::Overall(s(5.0))
        );
        assert_eq!(
            TimeLimit::of_call(&settings(900.0, 2.0)),
            TimeLimit::Aspect(s(2.0))
        );
        assert_eq!(
            TimeLimit::of_call(&settings(3.0, 3.0)),
            TimeLimit::Overall(s(3.0))
        );
    }

    #[test]
    fn the_review_library_reads_no_environment_variable() {
        // Keys and base URLs come in an LlmEnv read at the edge (commands::Context).
        let needle = ["env::", "var"].concat(); // var, var_os, vars
        let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/review")];
        let mut read = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(
                        !text.contains(&needle),
                        "{} reads the environment",
                        path.display()
                    );
                    read += 1;
                }
            }
        }
        assert!(read > 10, "only {read} files read");
    }
}
