//! OpenAI Chat Completions API (`POST {base}/chat/completions`) and the servers that speak it:
//! Ollama (`http://localhost:11434/v1`), vLLM, llama.cpp server, OpenRouter. The request body,
//! the whole answer and the streamed one ([`OpenAiStream`]); the transport is `http.rs`.

use reqwest::header::AUTHORIZATION;
use serde_json::json;

use super::http::{self, ApiHeaders, Collector, HttpBackend, RetryPolicy, StreamError};
use super::sse::SseEvent;
use super::structured::{self, StructuredOutput, Wire};
use super::{CallEvents, Completion, LlmError, TokenUsage};
use crate::review::inputs::prompt::Prompt;

pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const PROVIDER: &str = "openai";

#[derive(Clone)]
pub struct OpenAiClient {
    /// The endpoint, its headers and retries; sends `prompt_cache_key` until refused (some
    /// compatible servers refuse unknown fields), and remembers which structured-output shape
    /// the server takes.
    http: HttpBackend,
    pub(super) model: String,
    max_tokens: Option<u32>,
}

impl std::fmt::Debug for OpenAiClient {
    // The headers hold the API key: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("url", &self.http.url.as_str())
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl OpenAiClient {
    /// `api_key` may be `None` for local servers (Ollama, llama.cpp) but not for the default URL.
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        model: String,
        max_tokens: Option<u32>,
        retry: RetryPolicy,
    ) -> Result<OpenAiClient, LlmError> {
        let url = http::endpoint(base_url, "chat/completions")?;
        let headers = ApiHeaders {
            base_url,
            default_base_url: DEFAULT_BASE_URL,
            api_key: api_key.as_deref(),
            key_var: super::OPENAI_API_KEY,
            key_header: AUTHORIZATION,
            key_prefix: "Bearer ",
            missing: &format!(
                "{} is not set (needed for --llm openai at {DEFAULT_BASE_URL}; local servers can go without)",
                super::OPENAI_API_KEY
            ),
        }
        .build()?;
        Ok(OpenAiClient {
            http: HttpBackend::new(
                PROVIDER,
                Wire::OpenAi,
                "prompt_cache_key",
                url,
                headers,
                retry,
            )?,
            model,
            max_tokens,
        })
    }

    /// Streams answers (server-sent events) or asks for them whole (the default of `new`;
    /// `LlmClient::from_settings` streams unless `stream = false`).
    pub fn streaming(mut self, on: bool) -> OpenAiClient {
        self.http.stream = on;
        self
    }

    pub(crate) fn is_streaming(&self) -> bool {
        self.http.stream
    }

    /// The longest silence inside an answer that has begun (`[review] idle_timeout`; see
    /// `HttpBackend::post`).
    pub fn idle_timeout(mut self, idle: std::time::Duration) -> OpenAiClient {
        self.http.idle = idle;
        self
    }

    /// Asks for the findings object as `[review] structured_output` says; with `auto`, starts
    /// where an earlier run found this server answers, as remembered in `state_dir` (`None`:
    /// nothing is remembered).
    pub fn structured(
        mut self,
        setting: StructuredOutput,
        state_dir: Option<&std::path::Path>,
    ) -> OpenAiClient {
        self.http.structured(setting, state_dir);
        self
    }

    /// Remarks on the run made since the last call (see `LlmClient::take_notes`).
    pub(super) fn take_notes(&self) -> Vec<String> {
        self.http.take_notes()
    }

    /// Asks with structured output (falling back when the server rejects it) and asks again once
    /// when the answer was cut; `prompt_cache_key` goes until the server refuses it (see
    /// `HttpBackend::ask`).
    pub async fn complete(
        &self,
        prompt: &Prompt,
        events: &dyn CallEvents,
    ) -> Result<Completion, LlmError> {
        let body = |shape, max_tokens, cached| {
            let mut body = request_body(&self.model, max_tokens, prompt, cached, self.http.stream);
            structured::shape_openai(&mut body, shape);
            body
        };
        self.http
            .ask::<OpenAiStream>(self.max_tokens, events, body, parse_answer)
            .await
    }
}

/// The Chat Completions request: the same message prefix for every call of a run (automatic
/// prefix caching), `prompt_cache_key` naming the PR when `cached`.
fn request_body(
    model: &str,
    max_tokens: Option<u32>,
    prompt: &Prompt,
    cached: bool,
    stream: bool,
) -> serde_json::Value {
    let mut body = json!({
        "model": model,
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user()},
        ],
    });
    if let Some(n) = max_tokens {
        body["max_tokens"] = json!(n);
    }
    if cached {
        body["prompt_cache_key"] = json!(prompt.cache_key);
    }
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

/// A completion from a Chat Completions `usage` object: `prompt_tokens` (cached ones included),
/// `completion_tokens`, `prompt_tokens_details.cached_tokens`. Cache writes are not reported.
fn usage_completion(usage: Option<&serde_json::Value>, text: String) -> Completion {
    let tokens = |path: &[&str]| {
        let mut cur = usage?;
        for k in path {
            cur = cur.get(k)?;
        }
        cur.as_u64()
    };
    Completion {
        text,
        tokens: TokenUsage {
            input: tokens(&["prompt_tokens"]),
            output: tokens(&["completion_tokens"]),
            cache_read: tokens(&["prompt_tokens_details", "cached_tokens"]),
            cache_write: None,
        },
        ..Completion::default()
    }
}

fn parse_answer(answer: &serde_json::Value) -> Result<Completion, LlmError> {
    let choice = answer
        .get("choices")
        .and_then(|c| c.as_array())
        .and_then(|c| c.first())
        .ok_or_else(|| LlmError::Protocol {
            provider: PROVIDER,
            detail: "no `choices` in the answer".into(),
        })?;
    let text = choice
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(|c| c.as_str())
        .ok_or_else(|| LlmError::Protocol {
            provider: PROVIDER,
            detail: "the first choice has no `message.content` text".into(),
        })?
        .to_owned();
    let mut done = usage_completion(answer.get("usage"), text);
    done.truncated = choice.get("finish_reason").and_then(|s| s.as_str()) == Some("length");
    Ok(done)
}

/// OpenAI Chat Completions streaming: `data: {choices:[{delta:{content}}]}` chunks, a last chunk
/// with `usage` (asked for with `stream_options.include_usage`), then `data: [DONE]`.
#[derive(Debug, Default)]
pub(super) struct OpenAiStream {
    text: String,
    tool_input: String,
    usage: Option<serde_json::Value>,
    finish_reason: Option<String>,
    done: bool,
}

impl Collector for OpenAiStream {
    fn apply(&mut self, ev: &SseEvent) -> Result<usize, StreamError> {
        if ev.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(0);
        }
        let Some(v) = ev.json() else {
            return Ok(0);
        };
        if let Some(e) = v.get("error") {
            let m = e.get("message").and_then(|m| m.as_str()).unwrap_or("");
            return Err(StreamError {
                retryable: true,
                detail: m.to_owned(),
            });
        }
        if let Some(u) = v.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(u.clone());
        }
        let mut n = 0;
        let choices = v.get("choices").and_then(|c| c.as_array());
        if let Some(choice) = choices.and_then(|c| c.first()) {
            let delta = choice.get("delta");
            if let Some(t) = delta
                .and_then(|d| d.get("content"))
                .and_then(|t| t.as_str())
            {
                self.text.push_str(t);
                n += t.chars().count();
            }
            let calls = delta
                .and_then(|d| d.get("tool_calls"))
                .and_then(|c| c.as_array());
            for call in calls.into_iter().flatten() {
                if let Some(a) = call
                    .get("function")
                    .and_then(|f| f.get("arguments"))
                    .and_then(|a| a.as_str())
                {
                    self.tool_input.push_str(a);
                    n += a.chars().count();
                }
            }
            if let Some(r) = choice.get("finish_reason").and_then(|r| r.as_str()) {
                self.finish_reason = Some(r.to_owned());
            }
        }
        Ok(n)
    }

    fn finished(&self) -> bool {
        // The finish reason is the end of an answer; `[DONE]` only ends the stream. Without one
        // the answer is broken (llama-cpp-python sends `[DONE]` alone when another request
        // interrupts it), and asked again; some servers end without `[DONE]` after it.
        self.finish_reason.is_some()
    }

    fn why_unfinished(&self) -> Option<String> {
        (self.done && self.finish_reason.is_none()).then(|| {
            format!(
                "the answer stream ended (`[DONE]`) without a finish reason after {} characters",
                self.received()
            )
        })
    }

    fn received(&self) -> usize {
        self.text.len() + self.tool_input.len()
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn into_completion(self) -> Completion {
        let text = if self.text.is_empty() {
            self.tool_input
        } else {
            self.text
        };
        let mut c = usage_completion(self.usage.as_ref(), text);
        c.truncated = self.finish_reason.as_deref() == Some("length");
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_choice_and_usage() {
        let c = parse_answer(&json!({
            "choices": [{"message": {"role": "assistant", "content": "{\"findings\": []}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 2}
        }))
        .unwrap();
        assert_eq!(c.text, "{\"findings\": []}");
        assert_eq!((c.tokens.input, c.tokens.output), (Some(7), Some(2)));
        assert!(parse_answer(&json!({"choices": []})).is_err());
    }

    #[test]
    fn requests_carry_the_cache_key_and_ask_for_usage_when_streamed() {
        let p = super::super::tests::demo_prompt();
        let body = request_body("m", Some(5), &p, true, true);
        assert_eq!(body["prompt_cache_key"], p.cache_key.as_str());
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["messages"][1]["content"], p.user().as_str());
        let plain = request_body("m", None, &p, false, false);
        assert!(plain.get("prompt_cache_key").is_none());
        assert!(plain.get("stream").is_none() && plain.get("max_tokens").is_none());
        let c = parse_answer(&json!({
            "choices": [{"message": {"content": "x"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 2000, "completion_tokens": 2,
                      "prompt_tokens_details": {"cached_tokens": 1536}}
        }))
        .unwrap();
        assert_eq!(
            (c.tokens.input, c.tokens.cache_read),
            (Some(2000), Some(1536))
        );
        assert_eq!(c.tokens.cache_write, None);
    }

    /// A provider asking to wait longer than a `Duration` holds (`Retry-After: 1e20`) panicked
    /// the call; now the hint is ignored, the retry waits the backoff, and the answer comes.
    #[tokio::test]
    async fn a_retry_after_too_large_to_hold_is_no_hint_and_no_panic() {
        use wiremock::matchers::method;
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "1e20"))
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "choices": [{"message": {"content": "{\"findings\": []}"}, "finish_reason": "stop"}]
            })))
            .mount(&server)
            .await;
        let client = OpenAiClient::new(
            &format!("{}/v1", server.uri()),
            None,
            "m".into(),
            None,
            RetryPolicy {
                retries: 1,
                backoff: std::time::Duration::from_millis(1),
            },
        )
        .unwrap();
        let p = super::super::tests::demo_prompt();
        let done = client.complete(&p, &super::super::NoEvents).await.unwrap();
        assert_eq!(done.text, "{\"findings\": []}");
        assert_eq!(server.received_requests().await.map(|r| r.len()), Some(2));
    }

    #[test]
    fn local_servers_need_no_key() {
        OpenAiClient::new(
            "http://localhost:11434/v1",
            None,
            "m".into(),
            None,
            RetryPolicy::default(),
        )
        .unwrap();
        assert!(
            OpenAiClient::new(
                DEFAULT_BASE_URL,
                None,
                "m".into(),
                None,
                RetryPolicy::default()
            )
            .is_err()
        );
    }

    #[test]
    fn openai_stream_collects_content_and_cached_tokens() {
        let text = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"findings\\\": []}\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4000,\"completion_tokens\":7,\"prompt_tokens_details\":{\"cached_tokens\":3584}}}\n\n\
data: [DONE]\n\n";
        let (c, r) = http::collect::<OpenAiStream>(text);
        r.unwrap();
        assert!(c.finished());
        let done = c.into_completion();
        assert_eq!(done.text, "{\"findings\": []}");
        assert_eq!(done.tokens.input, Some(4000));
        assert_eq!(done.tokens.output, Some(7));
        assert_eq!(done.tokens.cache_read, Some(3584));
        assert_eq!(done.tokens.cache_write, None);
        let cut = &text[..text.find("data: {\"choices\":[{\"delta\":{},").unwrap()];
        let (c, _) = http::collect::<OpenAiStream>(cut);
        assert!(!c.finished());
    }
}
