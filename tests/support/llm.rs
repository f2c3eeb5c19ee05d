//! The stand-in LLM: an OpenAI-compatible chat-completions server on loopback that gives every
//! aspect the same answer.

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The finding most tests use: one suggestion on `src/mod1.rs`.
pub fn magic_number() -> Value {
    json!({"severity": "suggestion", "file": "src/mod1.rs", "line": 3, "message": "Name the magic number"})
}

pub struct StandInLlm {
    pub server: MockServer,
}

impl StandInLlm {
    /// Answers every `POST /v1/chat/completions` with `{"findings": findings}`.
    pub async fn answering(findings: Vec<Value>) -> StandInLlm {
        let server = MockServer::start().await;
        let content = json!({ "findings": findings }).to_string();
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}
            })))
            .mount(&server)
            .await;
        StandInLlm { server }
    }

    /// The base URL to pass as `--llm-url`.
    pub fn url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// `--llm openai --llm-url URL`: the flags that point the binary here.
    pub fn args(&self) -> [String; 4] {
        [
            "--llm".to_owned(),
            "openai".to_owned(),
            "--llm-url".to_owned(),
            self.url(),
        ]
    }

    /// Every request received so far.
    pub async fn requests(&self) -> Vec<wiremock::Request> {
        self.server.received_requests().await.unwrap_or_default()
    }
}

/// An uncancelled review of `pr` through `client` with the embedded prompts: the run and every
/// event it sent, in order.
pub async fn review_events(
    client: pr_shepherd::review::llm::LlmClient,
    pr: pr_shepherd::pr::PrMeta,
    settings: &pr_shepherd::review::ReviewSettings,
) -> (
    pr_shepherd::review::ReviewRun,
    Vec<pr_shepherd::review::ReviewEvent>,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let run = pr_shepherd::review::run_review(
        std::sync::Arc::new(pr),
        settings,
        std::sync::Arc::new(client),
        std::sync::Arc::new(pr_shepherd::review::inputs::prompt::Prompts::embedded()),
        tx,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (run, events)
}

impl StandInLlm {
    /// Like [`StandInLlm::answering`], but a request whose body contains `slow_when` is answered
    /// only after `delay` (a review of one PR that keeps running while the others finish at once).
    pub async fn answering_slowly_when(
        findings: Vec<Value>,
        slow_when: &str,
        delay: std::time::Duration,
    ) -> StandInLlm {
        struct SlowWhen {
            answer: ResponseTemplate,
            marker: String,
            delay: std::time::Duration,
        }
        impl wiremock::Respond for SlowWhen {
            fn respond(&self, req: &wiremock::Request) -> ResponseTemplate {
                let slow = String::from_utf8_lossy(&req.body).contains(&self.marker);
                if slow {
                    self.answer.clone().set_delay(self.delay)
                } else {
                    self.answer.clone()
                }
            }
        }
        let server = MockServer::start().await;
        let content = json!({ "findings": findings }).to_string();
        let answer = ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}
        }));
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(SlowWhen {
                answer,
                marker: slow_when.to_owned(),
                delay,
            })
            .mount(&server)
            .await;
        StandInLlm { server }
    }
}

/// A `command` backend that reads its prompt, appends its pid to `pids` and then writes one
/// character every half second forever: the path of the program, made executable.
#[cfg(unix)]
pub fn trickling_program(dir: &std::path::Path, pids: &std::path::Path) -> String {
    let script = dir.join("trickle.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat >/dev/null\necho $$ >> '{}'\nwhile :; do printf x; sleep 0.5; done\n",
            pids.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

/// A live process: not gone, not a zombie waiting for its reaper.
#[cfg(target_os = "linux")]
pub fn process_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
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
    }
}

/// Still a live process after up to two seconds for a kill to land.
#[cfg(target_os = "linux")]
pub async fn running_after_a_moment(pid: u32) -> bool {
    for _ in 0..100 {
        if !process_running(pid) {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    true
}
