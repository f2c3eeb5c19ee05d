//! A loopback LLM for tests and the cost benchmark: speaks the Anthropic Messages and OpenAI Chat
//! Completions wire formats, streamed (SSE) or not, with a fixed time to the first byte and a
//! fixed total answer time, and accounts prompt-cache tokens the way the providers document:
//!
//! - Anthropic: a block marked `cache_control` ends a cacheable prefix (at least 1,024 tokens).
//!   The longest ready prefix is read; the rest up to the last mark is written. A written entry
//!   becomes readable once the answer that wrote it has begun.
//! - OpenAI: automatic prefix caching of prompts of 1,024 tokens or more, in 128-token steps,
//!   matched against earlier prompts whose answers have begun. Writes are not reported.
//!
//! Tokens are counted as characters / 4. Raw HTTP/1.1 over a tokio listener (`Connection:
//! close`), so a stream can be cut mid-answer.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Anthropic,
    OpenAi,
}

/// How the fake behaves.
#[derive(Debug, Clone)]
pub struct Behaviour {
    pub wire: Wire,
    /// Until the response headers (and, streamed, the first event).
    pub first_byte: Duration,
    /// Until the answer is complete.
    pub total: Duration,
    /// The answer text.
    pub reply: String,
    /// The first this-many streamed answers stop after one delta (the connection closes).
    pub cut_first: usize,
    /// Refuse (HTTP 400) requests that carry `cache_control` or `prompt_cache_key`.
    pub reject_cache_fields: bool,
}

impl Behaviour {
    pub fn new(wire: Wire) -> Behaviour {
        Behaviour {
            wire,
            first_byte: Duration::from_millis(100),
            total: Duration::from_secs(1),
            reply: r#"{"findings": []}"#.to_owned(),
            cut_first: 0,
            reject_cache_fields: false,
        }
    }
}

/// One request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Call {
    pub received: Instant,
    /// When the response began (headers sent); `None` for a refused request.
    pub began: Option<Instant>,
    pub streamed: bool,
    pub input_tokens: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output_tokens: u64,
    pub refused: bool,
    pub cut: bool,
    pub body: Value,
}

#[derive(Default)]
struct State {
    calls: Vec<Call>,
    /// Anthropic: hashes of prefixes readable from the cache.
    ready: HashSet<String>,
    /// OpenAI: prompts whose answers have begun.
    prompts: Vec<String>,
    cuts_done: usize,
}

pub struct FakeLlm {
    pub base_url: String,
    behaviour: Behaviour,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

const MIN_CACHE_TOKENS: u64 = 1024;

impl FakeLlm {
    pub async fn start(behaviour: Behaviour) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let (st, b) = (state.clone(), behaviour.clone());
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (st, b) = (st.clone(), b.clone());
                tokio::spawn(async move {
                    let _ = serve(sock, &b, &st).await;
                });
            }
        });
        let base_url = match behaviour.wire {
            Wire::Anthropic => format!("http://{addr}"),
            Wire::OpenAi => format!("http://{addr}/v1"),
        };
        FakeLlm {
            base_url,
            behaviour,
            state,
            task,
        }
    }

    /// Every request so far, in arrival order.
    pub fn calls(&self) -> Vec<Call> {
        self.state.lock().unwrap().calls.clone()
    }

    pub fn behaviour(&self) -> &Behaviour {
        &self.behaviour
    }
}

async fn read_request(sock: &mut TcpStream) -> Option<Value> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 16 * 1024];
    let head_end = loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    serde_json::from_slice(&buf[head_end..head_end + len]).ok()
}

/// Text blocks in prompt order, each with whether it carries a cache mark.
fn blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut take = |v: Option<&Value>| match v {
        Some(Value::String(s)) => out.push((s.clone(), false)),
        Some(Value::Array(items)) => {
            for b in items {
                let text = b.get("text").and_then(|t| t.as_str()).unwrap_or("");
                out.push((text.to_owned(), b.get("cache_control").is_some()));
            }
        }
        _ => {}
    };
    take(body.get("system"));
    for m in body
        .get("messages")
        .and_then(|m| m.as_array())
        .into_iter()
        .flatten()
    {
        take(m.get("content"));
    }
    out
}

/// (input, cache read, cache write, prefixes to make ready when the answer begins).
fn account(wire: Wire, body: &Value, st: &State) -> (u64, u64, u64, Vec<String>) {
    let blocks = blocks(body);
    let all: String = blocks.iter().map(|(t, _)| t.as_str()).collect();
    let input = tokens(all.chars().count());
    match wire {
        Wire::Anthropic => {
            // Prefix ends at each mark.
            let mut prefix = String::new();
            let mut marks: Vec<String> = Vec::new();
            for (t, marked) in &blocks {
                prefix.push_str(t);
                if *marked && tokens(prefix.chars().count()) >= MIN_CACHE_TOKENS {
                    marks.push(prefix.clone());
                }
            }
            let read = marks
                .iter()
                .rev()
                .find(|p| st.ready.contains(*p))
                .map_or(0, |p| tokens(p.chars().count()));
            let last = marks.last().map_or(0, |p| tokens(p.chars().count()));
            let write = last.saturating_sub(read);
            (input, read, write, marks)
        }
        Wire::OpenAi => {
            let best = st
                .prompts
                .iter()
                .map(|p| {
                    p.chars()
                        .zip(all.chars())
                        .take_while(|(a, b)| a == b)
                        .count()
                })
                .max()
                .unwrap_or(0);
            let t = tokens(best).min(input);
            let read = if t >= MIN_CACHE_TOKENS {
                t / 128 * 128
            } else {
                0
            };
            (input, read, 0, vec![all])
        }
    }
}

fn chunks_of(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

async fn serve(mut sock: TcpStream, b: &Behaviour, st: &Mutex<State>) -> std::io::Result<()> {
    let Some(body) = read_request(&mut sock).await else {
        return Ok(());
    };
    let received = Instant::now();
    let streamed = body.get("stream").and_then(|s| s.as_bool()) == Some(true);
    let has_cache_fields =
        body.get("prompt_cache_key").is_some() || blocks(&body).iter().any(|(_, marked)| *marked);
    if b.reject_cache_fields && has_cache_fields {
        st.lock().unwrap().calls.push(Call {
            received,
            began: None,
            streamed,
            input_tokens: 0,
            cache_read: 0,
            cache_write: 0,
            output_tokens: 0,
            refused: true,
            cut: false,
            body: body.clone(),
        });
        let msg = r#"{"error":{"type":"invalid_request_error","message":"Unrecognized request argument supplied: cache_control / prompt_cache_key"}}"#;
        let resp = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{msg}",
            msg.len()
        );
        sock.write_all(resp.as_bytes()).await?;
        return sock.shutdown().await;
    }
    // The prompt is read from the cache as it arrives (prefill starts now); what it writes
    // becomes readable once its answer begins, after `first_byte`, streamed or not.
    let (input, read, write, ready, cut, index) = {
        let mut s = st.lock().unwrap();
        let (input, read, write, ready) = account(b.wire, &body, &s);
        let cut = streamed && s.cuts_done < b.cut_first;
        if cut {
            s.cuts_done += 1;
        }
        s.calls.push(Call {
            received,
            began: None,
            streamed,
            input_tokens: input,
            cache_read: read,
            cache_write: write,
            output_tokens: tokens(b.reply.chars().count()),
            refused: false,
            cut,
            body: body.clone(),
        });
        (input, read, write, ready, cut, s.calls.len() - 1)
    };
    tokio::time::sleep(b.first_byte).await;
    {
        let mut s = st.lock().unwrap();
        match b.wire {
            Wire::Anthropic => s.ready.extend(ready.iter().cloned()),
            Wire::OpenAi => s.prompts.extend(ready.iter().cloned()),
        }
        if streamed && let Some(c) = s.calls.get_mut(index) {
            c.began = Some(Instant::now());
        }
    }
    if !streamed {
        tokio::time::sleep(b.total.saturating_sub(b.first_byte)).await;
        if let Some(c) = st.lock().unwrap().calls.get_mut(index) {
            c.began = Some(Instant::now());
        }
    }
    let output = tokens(b.reply.chars().count());
    if !streamed {
        let answer = match b.wire {
            Wire::Anthropic => json!({
                "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": b.reply}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": input - read - write, "cache_read_input_tokens": read,
                          "cache_creation_input_tokens": write, "output_tokens": output},
            }),
            Wire::OpenAi => json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": b.reply}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": input, "completion_tokens": output,
                          "prompt_tokens_details": {"cached_tokens": read}},
            }),
        }
        .to_string();
        let resp = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        );
        sock.write_all(resp.as_bytes()).await?;
        return sock.shutdown().await;
    }
    sock.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    )
    .await?;
    let parts = chunks_of(&b.reply, 8);
    let step = b.total.saturating_sub(b.first_byte) / (parts.len() as u32 + 1);
    let mut events: Vec<String> = Vec::new();
    match b.wire {
        Wire::Anthropic => {
            events.push(format!(
                "event: message_start\ndata: {}\n\n",
                json!({"type": "message_start", "message": {"type": "message", "role": "assistant", "content": [],
                    "usage": {"input_tokens": input - read - write, "cache_read_input_tokens": read,
                              "cache_creation_input_tokens": write, "output_tokens": 1}}})
            ));
            events.push("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".to_owned());
            for p in &parts {
                events.push(format!(
                    "event: content_block_delta\ndata: {}\n\n",
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}})
                ));
            }
            events.push("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n".to_owned());
            events.push(format!(
                "event: message_delta\ndata: {}\n\n",
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": output}})
            ));
            events.push("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_owned());
        }
        Wire::OpenAi => {
            events.push(format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
            ));
            for p in &parts {
                events.push(format!(
                    "data: {}\n\n",
                    json!({"choices": [{"index": 0, "delta": {"content": p}}]})
                ));
            }
            events.push(format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            ));
            events.push(format!(
                "data: {}\n\n",
                json!({"choices": [], "usage": {"prompt_tokens": input, "completion_tokens": output,
                    "prompt_tokens_details": {"cached_tokens": read}}})
            ));
            events.push("data: [DONE]\n\n".to_owned());
        }
    }
    for (i, ev) in events.iter().enumerate() {
        sock.write_all(ev.as_bytes()).await?;
        sock.flush().await?;
        if cut && i >= 2 {
            // Stop mid-answer: close without the end events.
            return sock.shutdown().await;
        }
        if i >= 1 && i <= parts.len() + 1 {
            tokio::time::sleep(step).await;
        }
    }
    sock.shutdown().await
}
