//! Loopback models for the library's tests of time limits: an HTTP server speaking the OpenAI
//! Chat Completions or Anthropic Messages streaming wire format (server-sent events) that sends
//! its answer's first event and then holds the connection open with nothing more, or trickles
//! one more piece of text every so often, never ending the answer; and a `command` program that
//! trickles one character every half second forever, writing its pid first.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Which wire format the model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    OpenAi,
    Anthropic,
}

/// What the model does after its first event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// Nothing, the connection held open.
    Stall,
    /// A text delta of one character every this long, forever.
    Trickle(Duration),
}

/// A loopback model on `127.0.0.1`; stops serving when dropped.
pub(crate) struct Model {
    /// The base URL to configure (`…/v1` for OpenAI).
    pub(crate) url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Model {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Model {
    /// Serves every request the same way: headers, the first event, then `after`.
    pub(crate) async fn start(wire: Wire, after: After) -> Model {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let mut served = tokio::task::JoinSet::new();
            while let Ok((sock, _)) = listener.accept().await {
                served.spawn(serve(sock, wire, after));
            }
        });
        let url = match wire {
            Wire::OpenAi => format!("http://{addr}/v1"),
            Wire::Anthropic => format!("http://{addr}"),
        };
        Model { url, task }
    }
}

/// Reads one request (head and `content-length` body).
async fn read_request(sock: &mut TcpStream) -> Option<()> {
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
    Some(())
}

/// The stream's first event: OpenAI's first delta (with text), Anthropic's `message_start`.
fn first_event(wire: Wire) -> String {
    match wire {
        Wire::OpenAi => format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]})
        ),
        Wire::Anthropic => format!(
            "event: message_start\ndata: {}\n\n",
            json!({"type": "message_start", "message": {"type": "message", "role": "assistant",
                "content": [], "usage": {"input_tokens": 700, "output_tokens": 1}}})
        ),
    }
}

/// One more character of text (Anthropic: after the text block's start, sent once).
fn delta(wire: Wire) -> String {
    match wire {
        Wire::OpenAi => format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": "x"}}]})
        ),
        Wire::Anthropic => format!(
            "event: content_block_delta\ndata: {}\n\n",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}})
        ),
    }
}

async fn serve(mut sock: TcpStream, wire: Wire, after: After) -> std::io::Result<()> {
    if read_request(&mut sock).await.is_none() {
        return Ok(());
    }
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(first_event(wire).as_bytes()).await?;
    sock.flush().await?;
    match after {
        After::Stall => {
            // Held open, silent, until the client goes.
            let mut probe = [0u8; 1];
            while sock.read(&mut probe).await? > 0 {}
        }
        After::Trickle(every) => {
            if wire == Wire::Anthropic {
                let start = format!(
                    "event: content_block_start\ndata: {}\n\n",
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
                );
                sock.write_all(start.as_bytes()).await?;
            }
            loop {
                tokio::time::sleep(every).await;
                sock.write_all(delta(wire).as_bytes()).await?;
                sock.flush().await?;
            }
        }
    }
    Ok(())
}

/// A `command` program (`sh -c`) that reads its prompt, writes its pid to `pid_file`, then one
/// character to stdout every half second, forever.
pub(crate) fn trickling_program(pid_file: &std::path::Path) -> Vec<String> {
    vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            "cat >/dev/null; echo $$ > '{}'; while :; do printf x; sleep 0.5; done",
            pid_file.display()
        ),
    ]
}

/// The pid `trickling_program` wrote, once it has.
pub(crate) async fn pid_in(pid_file: &std::path::Path) -> u32 {
    for _ in 0..400 {
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the program never wrote its pid");
}

/// Whether `pid` is a live process (not gone, not a zombie waiting for its reaper), waiting a
/// little for a kill to land.
pub(crate) async fn still_running(pid: u32) -> bool {
    let running = || match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => !matches!(
            stat.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .chars()
                .next(),
            Some('Z' | 'X')
        ),
    };
    for _ in 0..100 {
        if !running() {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}
