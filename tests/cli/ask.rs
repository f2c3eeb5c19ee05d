//! `pr-shepherd ask`: a question about selected diff lines, run as a user runs it against a
//! loopback OpenAI-compatible model (`support::fake_llm`, streamed): the request carries the
//! selected lines, their hunk and the question; the streamed answer is printed terminal-safe;
//! the repository's spend log gets the call, reserved then settled; a budget that refuses makes
//! no request; lines outside the diff are exit 2, naming the diff's lines.

use crate::support;

use std::time::Duration;

use serde_json::Value;
use support::env::TestEnv;
use support::fake_llm::{Behaviour, FakeLlm, Wire};
use support::{stderr, stdout};

const PR: &str = "acme/rivet#482";

async fn model(reply: &str) -> FakeLlm {
    FakeLlm::start(Behaviour {
        first_byte: Duration::from_millis(5),
        total: Duration::from_millis(50),
        reply: reply.to_owned(),
        ..Behaviour::new(Wire::OpenAi)
    })
    .await
}

async fn ask(env: &TestEnv, fake: &FakeLlm, args: &[&str]) -> std::process::Output {
    env.bin_async()
        .args(["ask", PR])
        .args(args)
        .args([
            "--llm",
            "openai",
            "--model",
            "m",
            "--llm-url",
            &fake.base_url,
        ])
        .output()
        .await
        .expect("run pr-shepherd")
}

/// The lines of the repository's spend log.
fn spend(env: &TestEnv) -> Vec<Value> {
    let path = env.state().join("repos/acme/rivet/spend.jsonl");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn the_question_and_the_selected_lines_go_out_and_the_streamed_answer_comes_back() {
    let env = TestEnv::new();
    let fake =
        model("`retry` is re-exported so callers can\u{1b}[2J build their own policy.").await;
    let out = ask(
        &env,
        &fake,
        &[
            "--path",
            "src/client/mod.rs",
            "--lines",
            "2-5",
            "Why is the retry module public?",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let calls = fake.calls();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].streamed);
    let user = calls[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("+mod retry;"), "{user}");
    assert!(
        user.contains("+pub use retry::{with_retry, RetryPolicy};"),
        "{user}"
    );
    assert!(user.contains("Why is the retry module public?"), "{user}");
    assert!(user.contains("lines 2-5 on the right (new) side"), "{user}");
    // Plain text: no structured output asked for.
    assert!(calls[0].body.get("response_format").is_none());
    // The answer, terminal-safe (the escape shown as a symbol, never sent), then the usage on
    // stderr.
    assert_eq!(
        stdout(&out),
        "`retry` is re-exported so callers can\u{241b}[2J build their own policy.\n"
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "asked m: {} input tokens, {} output tokens",
            calls[0].input_tokens, calls[0].output_tokens
        )),
        "{err}"
    );
    // Reserved, then settled at the usage the server reported.
    let lines = spend(&env);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!(lines[0]["kind"], "reserved");
    assert_eq!(lines[1]["kind"], "call");
    assert_eq!(lines[1]["call"], lines[0]["call"]);
    assert_eq!(lines[1]["pr"], 482);
    assert_eq!(lines[1]["inputTokens"], calls[0].input_tokens);
    assert_eq!(lines[1]["outputTokens"], calls[0].output_tokens);
    assert!(lines[1]["aspects"]["ask"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn a_budget_that_refuses_makes_no_request() {
    let env = TestEnv::with_config("[review]\nmax_input_tokens = 50\n");
    let fake = model("never asked").await;
    let out = ask(
        &env,
        &fake,
        &["--path", "src/client/mod.rs", "--lines", "2", "Why?"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not asked: the run's budget of 50 input tokens would be exceeded"),
        "{err}"
    );
    assert!(fake.calls().is_empty());
    assert!(stdout(&out).is_empty());
    assert!(spend(&env).is_empty());
}

#[tokio::test]
async fn lines_outside_the_diff_are_bad_input_naming_the_diffs_lines() {
    let env = TestEnv::new();
    let fake = model("never asked").await;
    let out = ask(
        &env,
        &fake,
        &["--path", "src/client/mod.rs", "--lines", "6-9", "Why?"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "line 9 (right) of `src/client/mod.rs` is not a line of its diff; the diff's right lines are 1-7"
        ),
        "{}",
        stderr(&out)
    );
    let out = ask(
        &env,
        &fake,
        &["--path", "src/nope.rs", "--lines", "1", "Why?"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(fake.calls().is_empty());
}
