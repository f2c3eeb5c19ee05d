//! Server-sent events: the byte-level parser, and one collector per provider that turns a
//! stream of events into a [`Completion`].
//!
//! A collector says whether the stream ended properly (`finished`); a stream that stops before
//! that is a cut answer, retried by the transport like a 5xx.

use super::Completion;

/// One event: its `event:` name (if any) and its `data:` lines joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// Splits a byte stream into events. Bytes may arrive cut anywhere, even inside a UTF-8
/// character; `\n`, `\r\n` and `\r` all end a line.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

impl SseParser {
    /// Feeds bytes; returns the events they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.buf.iter().position(|b| *b == b'\n' || *b == b'\r') {
            // A `\r` at the very end may be the first half of `\r\n`: wait for the next byte.
            if self.buf[end] == b'\r' && end + 1 == self.buf.len() {
                break;
            }
            let skip = if self.buf[end] == b'\r' && self.buf.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            let line: Vec<u8> = self.buf.drain(..end + skip).take(end).collect();
            let line = String::from_utf8_lossy(&line);
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
        }
        out
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            if self.data.is_empty() && self.event.is_none() {
                return None;
            }
            return Some(SseEvent {
                event: self.event.take(),
                data: std::mem::take(&mut self.data).join("\n"),
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => self.data.push(value.to_owned()),
            _ => {}
        }
        None
    }
}

/// What the transport needs from a provider's stream collector.
pub trait Collector: Default {
    /// Takes one event; `Err` for an error event (`retryable` says whether to try again).
    fn apply(&mut self, ev: &SseEvent) -> Result<usize, StreamError>;
    /// The stream reached its proper end.
    fn finished(&self) -> bool;
    /// Characters of answer collected so far.
    fn received(&self) -> usize;
    fn into_completion(self) -> Completion;
}

/// An error the provider sent inside the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    pub retryable: bool,
    pub detail: String,
}

fn json(data: &str) -> Option<serde_json::Value> {
    serde_json::from_str(data).ok()
}

/// Anthropic Messages streaming: `message_start` (input usage, cache fields), `content_block_*`
/// (text in `text_delta`, a forced tool's input in `input_json_delta`), `message_delta` (stop
/// reason, output usage), `message_stop` (the end), `error`, `ping`.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    text: String,
    /// The forced findings tool's input (`input_json_delta`).
    tool: super::structured::ToolInputStream,
    tool_chars: usize,
    usage: super::anthropic::Usage,
    stop_reason: Option<String>,
    done: bool,
}

impl Collector for AnthropicStream {
    fn apply(&mut self, ev: &SseEvent) -> Result<usize, StreamError> {
        let Some(v) = json(&ev.data) else {
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

    fn into_completion(self) -> Completion {
        // The forced findings tool answers in its input (as `structured::anthropic_tool_input`
        // does for a whole answer); else the text.
        let text = self.tool.finish().unwrap_or(self.text);
        let mut c = self.usage.completion(text);
        c.truncated = self.stop_reason.as_deref() == Some("max_tokens");
        c
    }
}

/// OpenAI Chat Completions streaming: `data: {choices:[{delta:{content}}]}` chunks, a last chunk
/// with `usage` (asked for with `stream_options.include_usage`), then `data: [DONE]`.
#[derive(Debug, Default)]
pub struct OpenAiStream {
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
        let Some(v) = json(&ev.data) else {
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
        // Some compatible servers end without `[DONE]`; a finish reason is an end too.
        self.done || self.finish_reason.is_some()
    }

    fn received(&self) -> usize {
        self.text.len() + self.tool_input.len()
    }

    fn into_completion(self) -> Completion {
        let text = if self.text.is_empty() {
            self.tool_input
        } else {
            self.text
        };
        let mut c = super::openai::usage_completion(self.usage.as_ref(), text);
        c.truncated = self.finish_reason.as_deref() == Some("length");
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str, cut_at: &[usize]) -> Vec<SseEvent> {
        let bytes = text.as_bytes();
        let mut p = SseParser::default();
        let mut out = Vec::new();
        let mut at = 0;
        for &c in cut_at.iter().chain(std::iter::once(&bytes.len())) {
            out.extend(p.push(&bytes[at..c]));
            at = c;
        }
        out
    }

    #[test]
    fn parses_events_split_anywhere() {
        let text = "event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: comment\n\ndata: é\n\n";
        let whole = events(text, &[]);
        assert_eq!(
            whole,
            [
                SseEvent {
                    event: Some("a".into()),
                    data: "{\"x\":\n1}".into()
                },
                SseEvent {
                    event: None,
                    data: "é".into()
                }
            ]
        );
        // Cut at every byte, including inside `\r\n` and inside `é`.
        let cuts: Vec<usize> = (1..text.len()).collect();
        assert_eq!(events(text, &cuts), whole);
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

    fn collect<C: Collector>(text: &str) -> (C, Result<(), StreamError>) {
        let mut c = C::default();
        for ev in events(text, &[]) {
            if let Err(e) = c.apply(&ev) {
                return (c, Err(e));
            }
        }
        (c, Ok(()))
    }

    #[test]
    fn anthropic_stream_collects_text_and_cache_usage() {
        let (c, r) = collect::<AnthropicStream>(ANTHROPIC);
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
        let (c, _) = collect::<AnthropicStream>(cut);
        assert!(!c.finished());
        // An overloaded error event is retryable.
        let (_, r) = collect::<AnthropicStream>(
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
        let (c, r) = collect::<AnthropicStream>(text);
        r.unwrap();
        let done = c.into_completion();
        assert_eq!(done.text, "{\"findings\": []}");
        // Unknown usage stays unknown.
        assert_eq!(done.tokens.cache_read, None);
        assert_eq!(done.tokens.input, None);
    }

    #[test]
    fn openai_stream_collects_content_and_cached_tokens() {
        let text = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"findings\\\": []}\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4000,\"completion_tokens\":7,\"prompt_tokens_details\":{\"cached_tokens\":3584}}}\n\n\
data: [DONE]\n\n";
        let (c, r) = collect::<OpenAiStream>(text);
        r.unwrap();
        assert!(c.finished());
        let done = c.into_completion();
        assert_eq!(done.text, "{\"findings\": []}");
        assert_eq!(done.tokens.input, Some(4000));
        assert_eq!(done.tokens.output, Some(7));
        assert_eq!(done.tokens.cache_read, Some(3584));
        assert_eq!(done.tokens.cache_write, None);
        let cut = &text[..text.find("data: {\"choices\":[{\"delta\":{},").unwrap()];
        let (c, _) = collect::<OpenAiStream>(cut);
        assert!(!c.finished());
    }
}
