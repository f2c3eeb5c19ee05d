//! Anthropic Messages API (`POST {base}/v1/messages`): the request body, the whole answer and the
//! streamed one ([`AnthropicStream`]); the transport is `http.rs`.

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::json;

use super::http::{self, ApiHeaders, Collector, HttpBackend, RetryPolicy, StreamError};
use super::sse::SseEvent;
use super::structured::{self, StructuredOutput, Wire};
use super::{CallEvents, Completion, LlmError, TokenUsage};
use crate::review::inputs::prompt::Prompt;

pub(crate) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
const API_VERSION: &str = "2023-06-01";
const PROVIDER: &str = "anthropic";

#[derive(Clone)]
pub struct AnthropicClient {
    /// The endpoint, its headers and retries; sends `cache_control` marks until refused, and
    /// remembers whether the server takes the forced findings tool.
    http: HttpBackend,
    pub(super) model: String,
    max_tokens: u32,
}

impl std::fmt::Debug for AnthropicClient {
    // The headers hold the API key: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicClient")
            .field("url", &self.http.url.as_str())
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl AnthropicClient {
    /// `api_key` may be `None` only for a non-default base URL (a proxy or a test server).
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        model: String,
        max_tokens: u32,
        retry: RetryPolicy,
    ) -> Result<AnthropicClient, LlmError> {
        let url = http::endpoint(base_url, "v1/messages")?;
        let mut headers = ApiHeaders {
            base_url,
            default_base_url: DEFAULT_BASE_URL,
            api_key: api_key.as_deref(),
            key_var: super::ANTHROPIC_API_KEY,
            key_header: HeaderName::from_static("x-api-key"),
            key_prefix: "",
            missing: &format!(
                "{} is not set (needed for --llm anthropic)",
                super::ANTHROPIC_API_KEY
            ),
        }
        .build()?;
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        Ok(AnthropicClient {
            http: HttpBackend::new(
                PROVIDER,
                Wire::Anthropic,
                "cache_control",
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
    pub fn streaming(mut self, on: bool) -> AnthropicClient {
        self.http.stream = on;
        self
    }

    pub(crate) fn is_streaming(&self) -> bool {
        self.http.stream
    }

    /// The longest silence inside an answer that has begun (`[review] idle_timeout`; see
    /// `HttpBackend::post`).
    pub fn idle_timeout(mut self, idle: std::time::Duration) -> AnthropicClient {
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
    ) -> AnthropicClient {
        self.http.structured(setting, state_dir);
        self
    }

    /// Remarks on the run made since the last call (see `LlmClient::take_notes`).
    pub(super) fn take_notes(&self) -> Vec<String> {
        self.http.take_notes()
    }

    /// Asks with the findings tool forced (falling back to text when the server rejects tools)
    /// and asks again once when the answer was cut; the `cache_control` marks go until the
    /// endpoint refuses them (see `HttpBackend::ask`).
    pub async fn complete(
        &self,
        prompt: &Prompt,
        events: &dyn CallEvents,
    ) -> Result<Completion, LlmError> {
        let body = |shape, max_tokens: Option<u32>, cached| {
            let max_tokens = max_tokens.unwrap_or(self.max_tokens);
            let mut body = request_body(&self.model, max_tokens, prompt, cached, self.http.stream);
            structured::shape_anthropic(&mut body, shape);
            body
        };
        self.http
            .ask::<AnthropicStream>(Some(self.max_tokens), events, body, parse_answer)
            .await
    }
}

/// The Messages request in cache order: the playbook (system) and the PR data and diff blocks
/// carry `cache_control` marks when `cached`; the aspect's task comes last, unmarked.
fn request_body(
    model: &str,
    max_tokens: u32,
    prompt: &Prompt,
    cached: bool,
    stream: bool,
) -> serde_json::Value {
    let block = |text: &str, mark: bool| {
        let mut b = json!({"type": "text", "text": text});
        if mark && cached {
            b["cache_control"] = json!({"type": "ephemeral"});
        }
        b
    };
    let mut content = vec![block(&prompt.data, true)];
    if !prompt.diff_text.is_empty() {
        content.push(block(&prompt.diff_text, true));
    }
    content.push(block(&prompt.task, false));
    let mut body = json!({
        "model": model,
        "max_tokens": max_tokens,
        "system": [block(&prompt.system, true)],
        "messages": [{"role": "user", "content": content}],
    });
    if stream {
        body["stream"] = json!(true);
    }
    body
}

/// Token usage as the Messages API reports it: its `input_tokens` excludes cached tokens (held
/// here as reported); the completion's `input` is their sum (everything the prompt held), with
/// the cache parts alongside.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Usage(TokenUsage);

impl Usage {
    /// Takes the fields a `usage` object has (later events update earlier ones).
    fn merge(&mut self, u: &serde_json::Value) {
        let get = |k: &str| u.get(k).and_then(|v| v.as_u64());
        let t = &mut self.0;
        t.input = get("input_tokens").or(t.input);
        t.output = get("output_tokens").or(t.output);
        t.cache_read = get("cache_read_input_tokens").or(t.cache_read);
        t.cache_write = get("cache_creation_input_tokens").or(t.cache_write);
    }

    fn completion(&self, text: String) -> Completion {
        let t = self.0;
        Completion {
            text,
            tokens: TokenUsage {
                input: t
                    .input
                    .map(|i| i + t.cache_read.unwrap_or(0) + t.cache_write.unwrap_or(0)),
                ..t
            },
            ..Completion::default()
        }
    }
}

/// The findings of a Messages API answer — the forced tool's input as JSON text, else the text
/// blocks joined — with the token usage.
fn parse_answer(answer: &serde_json::Value) -> Result<Completion, LlmError> {
    let blocks = answer
        .get("content")
        .and_then(|c| c.as_array())
        .ok_or_else(|| LlmError::Protocol {
            provider: PROVIDER,
            detail: "no `content` array in the answer".into(),
        })?;
    let text: String = match structured::anthropic_tool_input(answer) {
        Some(input) => input,
        None => blocks
            .iter()
            .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
            .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join(""),
    };
    let mut usage = Usage::default();
    if let Some(u) = answer.get("usage") {
        usage.merge(u);
    }
    let mut done = usage.completion(text);
    done.truncated = answer.get("stop_reason").and_then(|s| s.as_str()) == Some("max_tokens");
    Ok(done)
}

/// Anthropic Messages streaming: `message_start` (input usage, cache fields), `content_block_*`
/// (text in `text_delta`, a forced tool's input in `input_json_delta`), `message_delta` (stop
/// reason, output usage), `message_stop` (the end), `error`, `ping`.
#[derive(Debug, Default)]
pub(super) struct AnthropicStream {
    text: String,
    /// The forced findings tool's input (`input_json_delta`).
    tool: structured::ToolInputStream,
    tool_chars: usize,
    usage: Usage,
    stop_reason: Option<String>,
    done: bool,
}

impl Collector for AnthropicStream {
    fn apply(&mut self, ev: &SseEvent) -> Result<usize, StreamError> {
        let Some(v) = ev.json() else {
            return Ok(0);
        };
        self.tool.on_event(&v);
        let kind = ev
            .event
            .clone()
            .or_else(|| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_default();
        match kind.as_str() {
            "message_start" => {
                if let Some(u) = v.get("message").and_then(|m| m.get("usage")) {
                    self.usage.merge(u);
                }
            }
            "content_block_start" => {
                let block = v.get("content_block");
                if let Some(t) = block.and_then(|b| b.get("text")).and_then(|t| t.as_str()) {
                    self.text.push_str(t);
                    return Ok(t.chars().count());
                }
            }
            "content_block_delta" => {
                let d = v.get("delta");
                let s = |k: &str| d.and_then(|d| d.get(k)).and_then(|t| t.as_str());
                match s("type") {
                    Some("text_delta") => {
                        let t = s("text").unwrap_or_default();
                        self.text.push_str(t);
                        return Ok(t.chars().count());
                    }
                    Some("input_json_delta") => {
                        let n = s("partial_json").unwrap_or_default().chars().count();
                        self.tool_chars += n;
                        return Ok(n);
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(r) = v
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(|r| r.as_str())
                {
                    self.stop_reason = Some(r.to_owned());
                }
                if let Some(u) = v.get("usage") {
                    self.usage.merge(u);
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let e = v.get("error");
                let t = e
                    .and_then(|e| e.get("type"))
                    .and_then(|t| t.as_str())
                    .unwrap_or("error");
                let m = e
                    .and_then(|e| e.get("message"))
                    .and_then(|t| t.as_str())
                    .unwrap_or("");
                return Err(StreamError {
                    retryable: matches!(t, "overloaded_error" | "api_error" | "rate_limit_error"),
                    detail: format!("{t}: {m}"),
                });
            }
            _ => {}
        }
        Ok(0)
    }

    fn finished(&self) -> bool {
        self.done
    }

    fn received(&self) -> usize {
        self.text.len() + self.tool_chars
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn into_completion(self) -> Completion {
        // The forced findings tool answers in its input (as `structured::anthropic_tool_input`
        // does for a whole answer); else the text.
        let text = self.tool.finish().unwrap_or(self.text);
        let mut c = self.usage.completion(text);
        c.truncated = self.stop_reason.as_deref() == Some("max_tokens");
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_text_blocks_and_usage() {
        let c = parse_answer(&json!({
            "content": [{"type": "text", "text": "{\"findings\""}, {"type": "text", "text": ": []}"}],
            "usage": {"input_tokens": 10, "output_tokens": 3},
            "stop_reason": "end_turn"
        }))
        .unwrap();
        assert_eq!(c.text, "{\"findings\": []}");
        assert_eq!((c.tokens.input, c.tokens.output), (Some(10), Some(3)));
        assert!(parse_answer(&json!({"error": "x"})).is_err());
    }

    #[test]
    fn requests_mark_the_shared_prefix_for_the_cache_unless_refused() {
        let p = super::super::tests::demo_prompt();
        let body = request_body("m", 10, &p, true, true);
        assert_eq!(body["stream"], true);
        assert_eq!(body["system"][0]["text"], p.system.as_str());
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        let content = body["messages"][0]["content"].as_array().unwrap();
        assert_eq!(content.len(), 3);
        assert_eq!(content[0]["text"], p.data.as_str());
        assert_eq!(content[0]["cache_control"]["type"], "ephemeral");
        assert_eq!(content[1]["cache_control"]["type"], "ephemeral");
        assert_eq!(content[2]["text"], p.task.as_str());
        assert!(content[2].get("cache_control").is_none());
        let plain = request_body("m", 10, &p, false, false);
        assert!(!plain.to_string().contains("cache_control"));
        assert!(plain.get("stream").is_none());
    }

    #[test]
    fn usage_counts_cached_tokens_as_input_too() {
        let c = parse_answer(&json!({
            "content": [{"type": "text", "text": "{}"}],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 3000,
                      "cache_creation_input_tokens": 500, "output_tokens": 3}
        }))
        .unwrap();
        assert_eq!(c.tokens.input, Some(3510));
        assert_eq!(
            (c.tokens.cache_read, c.tokens.cache_write),
            (Some(3000), Some(500))
        );
    }

    #[test]
    fn default_url_needs_a_key() {
        let r = AnthropicClient::new(
            DEFAULT_BASE_URL,
            None,
            "m".into(),
            10,
            RetryPolicy::default(),
        );
        assert!(matches!(r, Err(LlmError::Config(_))));
        let c = AnthropicClient::new(
            DEFAULT_BASE_URL,
            Some("sk-secret".into()),
            "m".into(),
            10,
            RetryPolicy::default(),
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("sk-secret"));
    }

    const ANTHROPIC: &str = "event: message_start\n\
data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":3000,\"output_tokens\":1}}}\n\n\
event: content_block_start\n\
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: ping\ndata: {\"type\": \"ping\"}\n\n\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"{\\\"findings\\\"\"}}\n\n\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\": []}\"}}\n\n\
event: message_delta\n\
data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

    #[test]
    fn anthropic_stream_collects_text_and_cache_usage() {
        let (c, r) = http::collect::<AnthropicStream>(ANTHROPIC);
        r.unwrap();
        assert!(c.finished());
        let done = c.into_completion();
        assert_eq!(done.text, "{\"findings\": []}");
        assert_eq!(done.tokens.input, Some(3012));
        assert_eq!(done.tokens.output, Some(9));
        assert_eq!(done.tokens.cache_read, Some(3000));
        assert_eq!(done.tokens.cache_write, Some(0));
        // Cut before message_stop: not finished.
        let cut = &ANTHROPIC[..ANTHROPIC.find("event: message_delta").unwrap()];
        let (c, _) = http::collect::<AnthropicStream>(cut);
        assert!(!c.finished());
        // An overloaded error event is retryable.
        let (_, r) = http::collect::<AnthropicStream>(
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
        );
        assert!(r.unwrap_err().retryable);
    }

    #[test]
    fn anthropic_stream_collects_a_forced_tools_input() {
        let text = "event: content_block_start\n\
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"report_findings\",\"input\":{}}}\n\n\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"findings\\\":\"}}\n\n\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" []}\"}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let (c, r) = http::collect::<AnthropicStream>(text);
        r.unwrap();
        let done = c.into_completion();
        assert_eq!(done.text, "{\"findings\": []}");
        // Unknown usage stays unknown.
        assert_eq!(done.tokens.cache_read, None);
        assert_eq!(done.tokens.input, None);
    }
}
