//! OpenAI Chat Completions API (`POST {base}/chat/completions`) and the servers that speak it:
//! Ollama (`http://localhost:11434/v1`), vLLM, llama.cpp server, OpenRouter.

use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::json;

use super::http::{self, RetryPolicy};
use super::structured::{self, Shape, ShapeMemory, Wire};
use super::{Completion, LlmError};
use crate::review::prompt::Prompt;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const PROVIDER: &str = "openai";

#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    pub(super) model: String,
    max_tokens: Option<u32>,
    retry: RetryPolicy,
    /// Which structured-output shape this server takes (shared by clones: remembered for the run).
    shape: ShapeMemory,
}

impl std::fmt::Debug for OpenAiClient {
    // The headers hold the API key: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("url", &self.url.as_str())
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
        let headers = http::api_headers(
            base_url,
            DEFAULT_BASE_URL,
            api_key.as_deref(),
            super::OPENAI_API_KEY,
            AUTHORIZATION,
            |key| format!("Bearer {key}"),
            || {
                format!(
                    "{} is not set (needed for --llm openai at {DEFAULT_BASE_URL}; local servers can go without)",
                    super::OPENAI_API_KEY
                )
            },
        )?;
        Ok(OpenAiClient {
            http: http::client(PROVIDER)?,
            url,
            headers,
            model,
            max_tokens,
            retry,
            shape: ShapeMemory::default(),
        })
    }

    /// Asks with structured output (falling back when the server rejects it) and asks again once
    /// when the answer was cut (see `structured::ask`).
    pub async fn complete(&self, prompt: &Prompt) -> Result<Completion, LlmError> {
        structured::ask(
            Wire::OpenAi,
            PROVIDER,
            &self.shape,
            self.max_tokens,
            |shape, max_tokens| self.send(prompt, shape, max_tokens),
        )
        .await
    }

    /// One request: `max_tokens` (when set) and the structured-output fields of `shape`.
    async fn send(
        &self,
        prompt: &Prompt,
        shape: Shape,
        max_tokens: Option<u32>,
    ) -> Result<Completion, LlmError> {
        let mut body = json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
        });
        if let (Some(n), Some(obj)) = (max_tokens, body.as_object_mut()) {
            obj.insert("max_tokens".into(), json!(n));
        }
        structured::shape_openai(&mut body, shape);
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
    let usage = answer.get("usage");
    let tokens = |k: &str| usage.and_then(|u| u.get(k)).and_then(|v| v.as_u64());
    let truncated = choice.get("finish_reason").and_then(|s| s.as_str()) == Some("length");
    Ok(Completion {
        text,
        input_tokens: tokens("prompt_tokens"),
        output_tokens: tokens("completion_tokens"),
        note: None,
        truncated,
    })
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
        assert_eq!((c.input_tokens, c.output_tokens), (Some(7), Some(2)));
        assert!(parse_answer(&json!({"choices": []})).is_err());
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
}
