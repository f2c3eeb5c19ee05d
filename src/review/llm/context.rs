//! A prompt larger than the server's context: recognizing the error (llama.cpp's
//! `exceed_context_size_error`, OpenAI's `context_length_exceeded` and the messages vLLM and
//! llama-cpp-python send in that shape) and reading the sizes it names, or asking llama.cpp's
//! `/props` for the context size. What the review does about it (re-chunking the diff with a
//! budget that fits) is the scheduler's; this is only what the wire says.

use serde_json::Value;

/// What an error answer's text must contain (lowercased) to be a context overflow.
const OVERFLOW_MARKS: &[&str] = &[
    // llama.cpp's server: `{"error":{"type":"exceed_context_size_error","n_prompt_tokens":…,
    // "n_ctx":…,"message":"request (N tokens) exceeds the available context size (M tokens)…"}}`
    "exceed_context_size_error",
    "exceeds the available context size",
    // OpenAI, and llama-cpp-python in its shape: `"code": "context_length_exceeded"`,
    // "This model's maximum context length is M tokens. However, …"; vLLM says the same words.
    "context_length_exceeded",
    "maximum context length",
    // llama-cpp-python's own words when they are not reshaped.
    "exceed context window",
];

/// Whether `lower` (an error answer's text, lowercased) says the prompt does not fit.
pub(crate) fn is_overflow(lower: &str) -> bool {
    OVERFLOW_MARKS.iter().any(|m| lower.contains(m))
}

/// The number right after `prefix` in `text` (digits, `,` ignored), if any.
fn number_after(text: &str, prefix: &str) -> Option<u64> {
    let at = text.find(prefix)? + prefix.len();
    let digits: String = text[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The context size and the prompt's tokens an overflow error names: llama.cpp's `n_ctx` and
/// `n_prompt_tokens`, else the numbers in the message (OpenAI, vLLM, llama-cpp-python).
pub fn sizes(text: &str) -> (Option<u64>, Option<u64>) {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        let err = v.get("error").unwrap_or(&v);
        let n_ctx = err.get("n_ctx").and_then(Value::as_u64);
        let prompt = err.get("n_prompt_tokens").and_then(Value::as_u64);
        if n_ctx.is_some() || prompt.is_some() {
            return (n_ctx, prompt);
        }
    }
    let lower = text.to_ascii_lowercase();
    let n_ctx = number_after(&lower, "maximum context length is")
        .or_else(|| number_after(&lower, "available context size ("))
        .or_else(|| number_after(&lower, "exceed context window of"));
    let prompt = number_after(&lower, "resulted in")
        .or_else(|| {
            // "you requested 5000 tokens (4000 in the messages, 1000 in the completion)"
            let at = lower.find("you requested")?;
            number_after(&lower[at..], "tokens (")
        })
        .or_else(|| number_after(&lower, "request ("))
        .or_else(|| number_after(&lower, "requested tokens ("));
    (n_ctx, prompt)
}

/// llama.cpp's `/props` beside an endpoint (`http://host:port/v1/chat/completions` →
/// `http://host:port/props`).
pub(crate) fn props_url(endpoint: &reqwest::Url) -> reqwest::Url {
    let mut u = endpoint.clone();
    u.set_path("/props");
    u.set_query(None);
    u.set_fragment(None);
    u
}

/// The context size in a `/props` answer: `default_generation_settings.n_ctx` (or `n_ctx`).
pub(crate) fn n_ctx_of_props(props: &Value) -> Option<u64> {
    props
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| props.get("n_ctx"))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overflow_errors_of_real_servers_are_recognized_with_their_sizes() {
        // llama.cpp's server (build 0c1e570), as the shared llama-server answers.
        let llama = r#"{"error":{"code":400,"message":"request (14012 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":14012,"n_ctx":2048}}"#;
        assert!(is_overflow(&llama.to_ascii_lowercase()));
        assert_eq!(sizes(llama), (Some(2048), Some(14012)));
        // The same message without the fields.
        assert_eq!(
            sizes("request (14012 tokens) exceeds the available context size (2048 tokens)"),
            (Some(2048), Some(14012))
        );
        // OpenAI.
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9,001 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert!(is_overflow(&openai.to_ascii_lowercase()));
        assert_eq!(sizes(openai), (Some(8192), Some(9001)));
        // llama-cpp-python's reshaped error, and vLLM's words.
        let lcp = r#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, you requested 5096 tokens (5000 in the messages, 96 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        assert_eq!(sizes(lcp), (Some(2048), Some(5000)));
        assert_eq!(
            sizes("Requested tokens (5000) exceed context window of 2048"),
            (Some(2048), Some(5000))
        );
        // Not an overflow: a refused field, a bad model.
        for other in [
            r#"{"error":{"message":"Unrecognized request argument supplied: prompt_cache_key"}}"#,
            "model not found",
        ] {
            assert!(!is_overflow(&other.to_ascii_lowercase()), "{other}");
        }
        assert_eq!(sizes("model not found"), (None, None));
    }

    #[test]
    fn props_sit_at_the_server_root() {
        let e: reqwest::Url = "http://127.0.0.1:8080/v1/chat/completions?x=1"
            .parse()
            .unwrap();
        assert_eq!(props_url(&e).as_str(), "http://127.0.0.1:8080/props");
        let props =
            serde_json::json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 4});
        assert_eq!(n_ctx_of_props(&props), Some(4096));
        assert_eq!(n_ctx_of_props(&serde_json::json!({"n_ctx": 0})), None);
    }
}
