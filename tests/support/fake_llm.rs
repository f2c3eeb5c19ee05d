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
//! close`), so a stream can be cut mid-answer, or stall after its first event, or trickle
//! forever ([`Then`]).

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
    /// Streamed: a prefill pause between the response headers (sent after `first_byte`) and the
    /// first event, as a server that reads the prompt after answering with headers. The prompt's
    /// cache is written, and readable, only when the first event comes.
    pub prefill: Duration,
    /// The answer text.
    pub reply: String,
    /// The first this-many streamed answers stop after one delta (the connection closes).
    pub cut_first: usize,
    /// Refuse (HTTP 400) requests that carry `cache_control` or `prompt_cache_key`.
    pub reject_cache_fields: bool,
    /// Answer without end (streamed: content events; whole: one JSON string that never closes),
    /// until the client stops reading — or [`ENDLESS_CAP`] bytes, so the fake stops by itself.
    pub endless: bool,
    /// Like llama-cpp-python's server (its default `interrupt_requests`): a request that arrives
    /// while a stream is running interrupts that stream, which ends with `data: [DONE]` without
    /// a finish reason.
    pub interrupt_running: bool,
    /// Leave `usage` out of streamed answers (llama-cpp-python ignores
    /// `stream_options.include_usage`).
    pub stream_usage: bool,
    /// The server's context in tokens (OpenAI wire): a longer prompt is refused with llama.cpp's
    /// `exceed_context_size_error` (HTTP 400, naming the sizes); `GET /props` says it.
    pub n_ctx: Option<u64>,
    /// With `n_ctx`: refuse in OpenAI's `context_length_exceeded` shape instead, and have no
    /// `/props` (the size is in the message only).
    pub openai_overflow: bool,
    /// Like llama.cpp's server with one slot: requests are answered one at a time, in arrival
    /// order. A streamed request gets its response headers at once and then nothing until its
    /// turn; one whose client gave up meanwhile is dropped unanswered.
    pub one_at_a_time: bool,
    /// Streamed: what the answer does after its first event.
    pub then: Then,
}

/// What a streamed answer does after its first event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Goes on to its end.
    Finish,
    /// Sends nothing more, the connection held open until the client goes.
    Stall,
    /// Sends one more character of text every this long, never ending.
    Trickle(Duration),
}

/// The most an endless answer sends (far over any client's bound).
pub const ENDLESS_CAP: usize = 128 << 20;

impl Behaviour {
    pub fn new(wire: Wire) -> Behaviour {
        Behaviour {
            wire,
            first_byte: Duration::from_millis(100),
            total: Duration::from_secs(1),
            prefill: Duration::ZERO,
            reply: r#"{"findings": []}"#.to_owned(),
            cut_first: 0,
            reject_cache_fields: false,
            endless: false,
            interrupt_running: false,
            stream_usage: true,
            n_ctx: None,
            openai_overflow: false,
            one_at_a_time: false,
            then: Then::Finish,
        }
    }
}

/// One request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Call {
    pub received: Instant,
    /// When the response began (headers sent; with a `prefill` pause, the first event sent);
    /// `None` for a refused request.
    pub began: Option<Instant>,
    pub streamed: bool,
    pub input_tokens: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output_tokens: u64,
    pub refused: bool,
    pub cut: bool,
    /// Interrupted by a later request (`interrupt_running`).
    pub interrupted: bool,
    /// Refused as larger than `n_ctx`.
    pub overflowed: bool,
    /// Bytes of answer written before the client stopped reading (`endless`).
    pub written: usize,
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
    /// Streams running now, by call index, each with its interrupt flag.
    running: Vec<(usize, Arc<std::sync::atomic::AtomicBool>)>,
    /// The most calls that were in flight at once.
    max_in_flight: usize,
    in_flight: usize,
    /// `GET /props` requests.
    props: usize,
    /// Requests whose client gave up while they waited for their turn (`one_at_a_time`).
    abandoned: usize,
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
        let turn = Arc::new(tokio::sync::Mutex::new(()));
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (st, b, turn) = (st.clone(), b.clone(), turn.clone());
                tokio::spawn(async move {
                    let _ = serve(sock, &b, &st, &turn).await;
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

    /// The most requests that were answered at once.
    pub fn max_in_flight(&self) -> usize {
        self.state.lock().unwrap().max_in_flight
    }

    /// How often `GET /props` was asked.
    pub fn props_asked(&self) -> usize {
        self.state.lock().unwrap().props
    }

    /// Requests whose client gave up while they waited for their turn (`one_at_a_time`).
    pub fn abandoned(&self) -> usize {
        self.state.lock().unwrap().abandoned
    }
}

/// One request: its method, path and JSON body (`Value::Null` without one).
struct Request {
    method: String,
    path: String,
    body: Value,
}

async fn read_request(sock: &mut TcpStream) -> Option<Request> {
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
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut first = head.lines().next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_owned();
    let path = first.next().unwrap_or("").to_owned();
    let len: usize = head
        .to_ascii_lowercase()
        .lines()
        .find_map(|l| l.strip_prefix("content-length:").map(str::to_owned))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body = if len == 0 {
        Value::Null
    } else {
        serde_json::from_slice(&buf[head_end..head_end + len]).ok()?
    };
    Some(Request { method, path, body })
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

/// Writes a whole HTTP answer and closes.
async fn respond(sock: &mut TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    let resp = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    sock.write_all(resp.as_bytes()).await?;
    sock.shutdown().await
}

/// Counts a request in flight until dropped.
struct InFlight<'a>(&'a Mutex<State>, usize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut s = self.0.lock().unwrap();
        s.in_flight -= 1;
        let index = self.1;
        s.running.retain(|(i, _)| *i != index);
    }
}

/// The response head of a streamed answer.
const STREAM_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";

fn call(received: Instant, streamed: bool, body: &Value) -> Call {
    Call {
        received,
        began: None,
        streamed,
        input_tokens: 0,
        cache_read: 0,
        cache_write: 0,
        output_tokens: 0,
        refused: false,
        cut: false,
        interrupted: false,
        overflowed: false,
        written: 0,
        body: body.clone(),
    }
}

/// Sends `chunk` until the client stops reading or [`ENDLESS_CAP`] bytes went; returns how many.
async fn endless(sock: &mut TcpStream, head: &str, chunk: &str) -> usize {
    let mut written = 0;
    if sock.write_all(head.as_bytes()).await.is_err() {
        return 0;
    }
    while written < ENDLESS_CAP {
        if sock.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
        written += chunk.len();
    }
    written
}

async fn serve(
    mut sock: TcpStream,
    b: &Behaviour,
    st: &Mutex<State>,
    turn: &Arc<tokio::sync::Mutex<()>>,
) -> std::io::Result<()> {
    let Some(req) = read_request(&mut sock).await else {
        return Ok(());
    };
    let received = Instant::now();
    if req.method == "GET" {
        st.lock().unwrap().props += 1;
        return match (req.path.as_str(), b.n_ctx) {
            ("/props", Some(n)) if !b.openai_overflow => {
                let props = json!({"default_generation_settings": {"n_ctx": n}, "total_slots": 1});
                respond(&mut sock, "200 OK", &props.to_string()).await
            }
            _ => respond(&mut sock, "404 Not Found", r#"{"error":"not found"}"#).await,
        };
    }
    let body = req.body;
    let streamed = body.get("stream").and_then(|s| s.as_bool()) == Some(true);
    // One at a time: the headers now (streamed), the answer at its turn.
    let mut head_sent = false;
    let _turn = if b.one_at_a_time {
        if streamed {
            sock.write_all(STREAM_HEAD).await?;
            sock.flush().await?;
            head_sent = true;
        }
        let mut probe = [0u8; 1];
        tokio::select! {
            t = turn.clone().lock_owned() => Some(t),
            // The client closed the connection while it waited.
            _ = sock.read(&mut probe) => {
                st.lock().unwrap().abandoned += 1;
                return Ok(());
            }
        }
    } else {
        None
    };
    let has_cache_fields =
        body.get("prompt_cache_key").is_some() || blocks(&body).iter().any(|(_, marked)| *marked);
    if b.reject_cache_fields && has_cache_fields {
        st.lock().unwrap().calls.push(Call {
            refused: true,
            ..call(received, streamed, &body)
        });
        let msg = r#"{"error":{"type":"invalid_request_error","message":"Unrecognized request argument supplied: cache_control / prompt_cache_key"}}"#;
        return respond(&mut sock, "400 Bad Request", msg).await;
    }
    if let Some(n_ctx) = b.n_ctx {
        let all: String = blocks(&body).iter().map(|(t, _)| t.as_str()).collect();
        let prompt = tokens(all.chars().count());
        if prompt > n_ctx {
            st.lock().unwrap().calls.push(Call {
                overflowed: true,
                input_tokens: prompt,
                ..call(received, streamed, &body)
            });
            let msg = if b.openai_overflow {
                json!({"error": {"message": format!("This model's maximum context length is {n_ctx} tokens. However, your messages resulted in {prompt} tokens. Please reduce the length of the messages."),
                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
            } else {
                json!({"error": {"code": 400, "message": format!("request ({prompt} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it"),
                    "type": "exceed_context_size_error", "n_prompt_tokens": prompt, "n_ctx": n_ctx}})
            };
            return respond(&mut sock, "400 Bad Request", &msg.to_string()).await;
        }
    }
    // The prompt is read from the cache as it arrives (prefill starts now); what it writes
    // becomes readable once its answer begins, after `first_byte`, streamed or not.
    let interrupted = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (input, read, write, ready, cut, index) = {
        let mut s = st.lock().unwrap();
        let (input, read, write, ready) = account(b.wire, &body, &s);
        let cut = streamed && s.cuts_done < b.cut_first;
        if cut {
            s.cuts_done += 1;
        }
        s.calls.push(Call {
            input_tokens: input,
            cache_read: read,
            cache_write: write,
            output_tokens: tokens(b.reply.chars().count()),
            cut,
            ..call(received, streamed, &body)
        });
        let index = s.calls.len() - 1;
        if b.interrupt_running {
            for (_, flag) in &s.running {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        if streamed {
            s.running.push((index, interrupted.clone()));
        }
        s.in_flight += 1;
        s.max_in_flight = s.max_in_flight.max(s.in_flight);
        (input, read, write, ready, cut, index)
    };
    let _in_flight = InFlight(st, index);
    tokio::time::sleep(b.first_byte).await;
    let head_first = streamed && !b.endless && !b.prefill.is_zero();
    if head_first {
        if !head_sent {
            sock.write_all(STREAM_HEAD).await?;
            sock.flush().await?;
        }
        tokio::time::sleep(b.prefill).await;
    }
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
    if b.endless {
        let chunk = "x".repeat(64 * 1024);
        let written = if streamed {
            let event = format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {"content": chunk}}]})
            );
            endless(
                &mut sock,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
                &event,
            )
            .await
        } else {
            endless(
                &mut sock,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{\"choices\": [{\"message\": {\"content\": \"",
                &chunk,
            )
            .await
        };
        if let Some(c) = st.lock().unwrap().calls.get_mut(index) {
            c.written = written;
        }
        return Ok(());
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
        return respond(&mut sock, "200 OK", &answer).await;
    }
    if !head_first && !head_sent {
        sock.write_all(STREAM_HEAD).await?;
    }
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
            if b.stream_usage {
                events.push(format!(
                    "data: {}\n\n",
                    json!({"choices": [], "usage": {"prompt_tokens": input, "completion_tokens": output,
                        "prompt_tokens_details": {"cached_tokens": read}}})
                ));
            }
            events.push("data: [DONE]\n\n".to_owned());
        }
    }
    if b.then != Then::Finish {
        sock.write_all(events[0].as_bytes()).await?;
        sock.flush().await?;
        return never_ending(&mut sock, b).await;
    }
    for (i, ev) in events.iter().enumerate() {
        if i >= 1 && interrupted.load(std::sync::atomic::Ordering::SeqCst) {
            // llama-cpp-python: another request is waiting, so this stream ends here.
            if let Some(c) = st.lock().unwrap().calls.get_mut(index) {
                c.interrupted = true;
            }
            sock.write_all(b"data: [DONE]\n\n").await?;
            return sock.shutdown().await;
        }
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

/// After the first event: nothing until the client goes (`Then::Stall`), or a character of text
/// every so often for as long as the client reads (`Then::Trickle`).
async fn never_ending(sock: &mut TcpStream, b: &Behaviour) -> std::io::Result<()> {
    match b.then {
        Then::Finish => Ok(()),
        Then::Stall => {
            let mut probe = [0u8; 1];
            while sock.read(&mut probe).await? > 0 {}
            Ok(())
        }
        Then::Trickle(every) => {
            let delta = match b.wire {
                Wire::Anthropic => {
                    sock.write_all(b"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n").await?;
                    format!(
                        "event: content_block_delta\ndata: {}\n\n",
                        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}})
                    )
                }
                Wire::OpenAi => format!(
                    "data: {}\n\n",
                    json!({"choices": [{"index": 0, "delta": {"content": "x"}}]})
                ),
            };
            loop {
                tokio::time::sleep(every).await;
                sock.write_all(delta.as_bytes()).await?;
                sock.flush().await?;
            }
        }
    }
}
