//! Server-sent events: the byte-level framing only. [`SseParser`] splits a byte stream into
//! [`SseEvent`]s; what an event means is each provider's (its stream collector lives in its own
//! file, `anthropic.rs` and `openai.rs`, and implements `http::Collector`).

/// One event: its `event:` name (if any) and its `data:` lines joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

impl SseEvent {
    /// The data as JSON, or `None` when it is not JSON (a keep-alive, `[DONE]`).
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.data).ok()
    }
}

/// Splits a byte stream into events. Bytes may arrive cut anywhere, even inside a UTF-8
/// character; `\n`, `\r\n` and `\r` all end a line. Each byte is looked at once, however the
/// stream is cut (a line that never ends costs no more than its bytes; the transport bounds them).
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    /// How far `buf` has been searched for a line end without finding one.
    scanned: usize,
    event: Option<String>,
    data: Vec<String>,
}

impl SseParser {
    /// Feeds bytes; returns the events they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        // `start`: where the current line begins; `at`: from where to look for its end.
        let mut start = 0;
        let mut at = self.scanned;
        loop {
            let Some(off) = self.buf[at..]
                .iter()
                .position(|b| *b == b'\n' || *b == b'\r')
            else {
                at = self.buf.len();
                break;
            };
            let end = at + off;
            // A `\r` at the very end may be the first half of `\r\n`: wait for the next byte.
            if self.buf[end] == b'\r' && end + 1 == self.buf.len() {
                at = end;
                break;
            }
            let skip = if self.buf[end] == b'\r' && self.buf.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            let line = String::from_utf8_lossy(&self.buf[start..end]).into_owned();
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
            start = end + skip;
            at = start;
        }
        self.buf.drain(..start);
        self.scanned = at - start;
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
}
