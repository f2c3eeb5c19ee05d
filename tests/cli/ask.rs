//! `pr-shepherd ask`: a question about selected diff lines, run as a user runs it against a
//! loopback OpenAI-compatible model (`support::fake_llm`, streamed): the request carries the
//! selected lines, their hunk and the question; the streamed answer is printed terminal-safe;
//! the repository's spend log gets the call, reserved then settled; a budget that refuses makes
//! no request; lines outside the diff are exit 2, naming the diff's lines; `--timeout` ends the
//! call whatever the model does (a stream that stalls after its first event, one that trickles,
//! a program that trickles), saying which limit struck, settled, no program left running.

use crate::support;

use std::time::Duration;

use serde_json::Value;
use support::env::TestEnv;
use support::fake_llm::{Behaviour, FakeLlm, Then, Wire};
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

/// `ask` about line 2 of the demo's `src/client/mod.rs` with `args` (the backend and limits):
/// its output and how long it took. Still running after 30 s is a failure (and it is killed).
async fn ask_timed(env: &TestEnv, args: &[&str]) -> (std::process::Output, Duration) {
    let started = std::time::Instant::now();
    let mut ask = env.bin_async();
    ask.args([
        "ask",
        PR,
        "--path",
        "src/client/mod.rs",
        "--lines",
        "2",
        "Why?",
    ])
    .args(args)
    .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(30), ask.output())
        .await
        .expect("ask still running after 30 s")
        .expect("run pr-shepherd");
    (out, started.elapsed())
}

/// The ask's one call in the spend log: reserved, then settled as a call.
fn settled_once(env: &TestEnv) -> Value {
    let lines = spend(env);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!(lines[0]["kind"], "reserved");
    assert_eq!(lines[1]["kind"], "call");
    assert_eq!(lines[1]["call"], lines[0]["call"]);
    lines[1].clone()
}

/// Failed before: each of these was still running after a minute (the overall limit was not
/// enforced once the first byte came). A stream that stalls after its first event and one that
/// trickles a character every half second, on both wire formats: `ask --timeout 2` ends in about
/// two seconds (well under ten on a loaded machine), exit 1, naming the overall limit and its
/// seconds, the call settled in the spend log.
#[tokio::test]
async fn ask_timeout_ends_a_stream_that_stalls_or_trickles() {
    let trickle = Then::Trickle(Duration::from_millis(500));
    let cases = [
        (Wire::OpenAi, Then::Stall),
        (Wire::Anthropic, Then::Stall),
        (Wire::OpenAi, trickle),
        (Wire::Anthropic, trickle),
    ];
    let mut fakes = Vec::new();
    for (wire, then) in cases {
        fakes.push(
            FakeLlm::start(Behaviour {
                first_byte: Duration::from_millis(5),
                then,
                ..Behaviour::new(wire)
            })
            .await,
        );
    }
    let envs: Vec<TestEnv> = cases.iter().map(|_| TestEnv::new()).collect();
    let runs = futures::future::join_all(fakes.iter().zip(&envs).map(|(fake, env)| {
        let llm = match fake.behaviour().wire {
            Wire::OpenAi => "openai",
            Wire::Anthropic => "anthropic",
        };
        let url = fake.base_url.clone();
        async move {
            let args = [
                "--llm",
                llm,
                "--model",
                "m",
                "--llm-url",
                &url,
                "--timeout",
                "2",
            ];
            ask_timed(env, &args).await
        }
    }))
    .await;
    for (i, ((out, took), env)) in runs.into_iter().zip(&envs).enumerate() {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{i}: {err}");
        assert!(took < Duration::from_secs(10), "{i}: {took:?}");
        assert!(
            err.contains(
                "error: stopped by the overall timeout of 2 seconds (--timeout, overall_timeout_secs)"
            ),
            "{i}: {err}"
        );
        let call = settled_once(env);
        assert!(call["inputTokens"].as_u64().unwrap() > 0, "{call}");
        if matches!(cases[i].1, Then::Trickle(_)) {
            // What the trickle served is counted.
            assert!(call["outputTokens"].as_u64().unwrap() > 0, "{i}: {call}");
            assert!(stdout(&out).starts_with('x'), "{i}: {}", stdout(&out));
        }
        assert_eq!(fakes[i].calls().len(), 1, "{i}: not asked again");
    }
}

/// Failed before: still running after a minute, and the program kept trickling after the ask
/// was killed. A `command` program that writes one character every half second forever: `ask
/// --timeout 2` ends in about two seconds, naming the limit; the program (its whole process
/// group) is gone; what it wrote is counted in the settled call.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn ask_timeout_ends_a_trickling_program_and_leaves_none_running() {
    let env = TestEnv::new();
    let pid_file = env.root().join("pid");
    let program = crate::support::llm::trickling_program(env.root(), &pid_file);
    let args = [
        "--llm",
        "command",
        "--llm-command",
        &program,
        "--timeout",
        "2",
    ];
    let (out, took) = ask_timed(&env, &args).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        err.contains("error: stopped by the overall timeout of 2 seconds (--timeout"),
        "{err}"
    );
    assert!(err.contains("of the answer had arrived"), "{err}");
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .expect("the program ran")
        .trim()
        .parse()
        .unwrap();
    assert!(
        !crate::support::llm::running_after_a_moment(pid).await,
        "{pid} still runs"
    );
    let call = settled_once(&env);
    assert!(call["outputTokens"].as_u64().unwrap() > 0, "{call}");
}

/// The idle limit (`[review] idle_timeout`, here 1 s) ends a stream that stalls after its first
/// event long before the overall one (30 s), naming itself with its seconds.
#[tokio::test]
async fn the_idle_limit_ends_a_stalled_stream_before_the_overall_one() {
    let env = TestEnv::with_config("[review]\nidle_timeout = 1\nretries = 0\n");
    let fake = FakeLlm::start(Behaviour {
        first_byte: Duration::from_millis(5),
        then: Then::Stall,
        ..Behaviour::new(Wire::OpenAi)
    })
    .await;
    let url = fake.base_url.clone();
    let args = [
        "--llm",
        "openai",
        "--model",
        "m",
        "--llm-url",
        &url,
        "--timeout",
        "30",
    ];
    let (out, took) = ask_timed(&env, &args).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        err.contains("error: stopped by the idle timeout of 1 second (idle_timeout): the answer sent nothing for 1 second"),
        "{err}"
    );
    settled_once(&env);
}
