//! Anthropic Messages API (`POST {base}/v1/messages`).

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::json;

use super::http::{self, RetryPolicy};
use super::structured::{self, Shape, ShapeMemory, Wire};
use super::{Completion, LlmError};
use crate::review::prompt::Prompt;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
const API_VERSION: &str = "2023-06-01";
const PROVIDER: &str = "anthropic";

#[derive(Clone)]
pub struct AnthropicClient {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    pub(super) model: String,
    max_tokens: u32,
    retry: RetryPolicy,
    /// Whether this server takes the forced findings tool (shared by clones: remembered for the
    /// run).
    shape: ShapeMemory,
}

impl std::fmt::Debug for AnthropicClient {
    // The headers hold the API key: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicClient")
            .field("url", &self.url.as_str())
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
        let mut headers = http::api_headers(
            base_url,
            DEFAULT_BASE_URL,
            api_key.as_deref(),
            super::ANTHROPIC_API_KEY,
            HeaderName::from_static("x-api-key"),
            str::to_owned,
            || {
                format!(
                    "{} is not set (needed for --llm anthropic)",
                    super::ANTHROPIC_API_KEY
                )
            },
        )?;
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        Ok(AnthropicClient {
            http: http::client(PROVIDER)?,
            url,
            headers,
            model,
            max_tokens,
            retry,
            shape: ShapeMemory::default(),
        })
    }

    /// Asks with the findings tool forced (falling back to text when the server rejects tools)
    /// and asks again once when the answer was cut (see `structured::ask`).
    pub async fn complete(&self, prompt: &Prompt) -> Result<Completion, LlmError> {
        structured::ask(
            Wire::Anthropic,
            PROVIDER,
            &self.shape,
            Some(self.max_tokens),
            |shape, max_tokens| self.send(prompt, shape, max_tokens.unwrap_or(self.max_tokens)),
        )
        .await
    }

    /// One request with `max_tokens` and the structured-output fields of `shape`.
    ///
    /// Streaming (issue 14): the forced tool's input then arrives as `input_json_delta` events;
    /// feed them to `structured::ToolInputStream` and use its text where this uses
    /// `structured::anthropic_tool_input`.
    async fn send(
        &self,
        prompt: &Prompt,
        shape: Shape,
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        let mut body = json!({
            "model": self.model,
            "max_tokens": max_tokens,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
        });
        structured::shape_anthropic(&mut body, shape);
        let answer = http::post_json(
            &self.http,
            PROVIDER,
            &self.url,
            self.headers.clone(),
            &body,
            self.retry,
        )
        .await?;
        parse_answer(&answer)
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
    let usage = answer.get("usage");
    let tokens = |k: &str| usage.and_then(|u| u.get(k)).and_then(|v| v.as_u64());
    let truncated = answer.get("stop_reason").and_then(|s| s.as_str()) == Some("max_tokens");
    Ok(Completion {
        text,
        input_tokens: tokens("input_tokens"),
        output_tokens: tokens("output_tokens"),
        note: None,
        truncated,
    })
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
        assert_eq!((c.input_tokens, c.output_tokens), (Some(10), Some(3)));
        assert!(parse_answer(&json!({"error": "x"})).is_err());
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
}
