//! The daily budget across processes, through the binary and the loopback LLM (which reports
//! usage: characters / 4): runs at the same time share `[review] daily_max_input_tokens` (each
//! call is reserved in the state dir's spend log under the repository's lock before it is made),
//! and a run killed or cancelled after its calls were served leaves what they spent counted.

use std::time::Duration;

use serde_json::json;

use crate::support::env::TestEnv;
use crate::support::fake_llm::{Behaviour, FakeLlm, Wire};
use crate::support::{demo_with, stderr};
use pr_shepherd::ledger::{DaySpend, Ledger, RepoId, Spend, SpendKind};

const KEY: &str = "sk-test-budget-0123456789";

/// The demo fixture without its recorded answers (the loopback LLM answers).
fn fixture(env: &TestEnv) -> String {
    demo_with(env, |v| v["llm"] = json!({"answers": []}))
        .display()
        .to_string()
}

fn review(env: &TestEnv, fixture: &str, llm: &FakeLlm) -> tokio::process::Command {
    let mut c = env.bin_async();
    c.env("OPENAI_API_KEY", KEY)
        .args(["review", fixture, "--format", "json", "--quiet"])
        .args(["--llm", "openai", "--llm-url", &llm.base_url])
        .kill_on_drop(true);
    c
}

fn rivet() -> RepoId {
    RepoId {
        host: None,
        owner: "acme".into(),
        repo: "rivet".into(),
    }
}

/// What the state dir counts for acme/rivet today.
fn spent_today(env: &TestEnv) -> DaySpend {
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    Ledger::new(env.state())
        .spent_on(&rivet(), &today)
        .expect("the spend log reads")
}

/// Every line of acme/rivet's spend log, as written.
fn spend_lines(env: &TestEnv) -> Vec<Spend> {
    let path = env.state().join("repos/acme/rivet/spend.jsonl");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a spend line"))
        .collect()
}

/// Input tokens the loopback LLM was sent in its calls `from..`.
fn sent(llm: &FakeLlm, from: usize) -> u64 {
    llm.calls()[from..].iter().map(|c| c.input_tokens).sum()
}

/// Failed before it was fixed (every run read the day's spend once, at its start, and wrote its
/// own at its end: four runs at once each spent a whole review against a cap of two and a half):
/// the calls of every run are reserved against the one cap as they are made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_at_the_same_time_share_the_daily_budget() {
    let llm = FakeLlm::start(Behaviour::new(Wire::OpenAi)).await;
    // One run alone: what a whole review sends.
    let alone = TestEnv::new();
    let out = review(&alone, &fixture(&alone), &llm)
        .output()
        .await
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let one_run = sent(&llm, 0);
    assert!(one_run > 0);
    assert_eq!(spent_today(&alone).input_tokens, one_run, "usage recorded");

    let cap = one_run * 5 / 2;
    let env = TestEnv::with_config(format!("[review]\ndaily_max_input_tokens = {cap}\n"));
    let fx = fixture(&env);
    let before = llm.calls().len();
    let runs = (0..4).map(|_| {
        let mut c = review(&env, &fx, &llm);
        async move { c.output().await.expect("run") }
    });
    let outs = futures::future::join_all(runs).await;
    let spent = sent(&llm, before);
    assert!(
        spent <= cap,
        "{spent} input tokens sent against a daily cap of {cap} (one review sends {one_run})"
    );
    // Two whole reviews fit; the others stopped at the cap, incomplete, and said why.
    assert!(spent >= one_run * 2, "{spent} of {cap}");
    let stopped: Vec<_> = outs.iter().filter(|o| o.status.code() == Some(3)).collect();
    assert!(!stopped.is_empty(), "no run stopped at the cap");
    for o in &stopped {
        assert!(stderr(o).contains("daily budget"), "{}", stderr(o));
    }
    for o in &outs {
        assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(o));
    }
    // The log holds what the server was sent: each call's real usage, none left reserved.
    assert_eq!(spent_today(&env).input_tokens, spent);
    let lines = spend_lines(&env);
    let reserved = lines
        .iter()
        .filter(|l| l.kind == SpendKind::Reserved)
        .count();
    let settled = lines.iter().filter(|l| l.kind == SpendKind::Call).count();
    assert_eq!(reserved, llm.calls().len() - before);
    assert_eq!(settled, reserved);
}

/// A review whose every aspect finds something, with the verifier on: the six aspects' calls
/// are answered (after about a second), then six verifier calls go out.
async fn served_then_verifying() -> (TestEnv, String, FakeLlm) {
    let finding = json!({"findings": [{"severity": "critical", "file": "src/client/retry.rs", "line": 41,
        "message": "The 429 arm of with_retry loops forever: attempt is never compared with max_attempts."}]});
    let llm = FakeLlm::start(Behaviour {
        total: Duration::from_secs(2),
        reply: finding.to_string(),
        ..Behaviour::new(Wire::OpenAi)
    })
    .await;
    let env = TestEnv::with_config("[review]\nverify = true\n");
    let fx = fixture(&env);
    (env, fx, llm)
}

/// Waits until the loopback LLM received `n` calls.
async fn received(llm: &FakeLlm, n: usize) {
    for _ in 0..600 {
        if llm.calls().len() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the LLM received {} calls, not {n}", llm.calls().len());
}

/// Failed before it was fixed (a run's spend was written at its end only: killed after its six
/// calls were served, it had spent and recorded nothing, so kills walked past the cap): each
/// call's usage is written as it ends, and a call in flight stays counted at its estimate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_after_its_calls_were_served_leaves_them_counted() {
    let (env, fx, llm) = served_then_verifying().await;
    let mut child = review(&env, &fx, &llm)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Six aspects answered, and each has sent its verifier call.
    received(&llm, 12).await;
    child.start_kill().expect("SIGKILL");
    let _ = child.wait().await;
    let aspects = sent(&llm, 0) - llm.calls()[6..].iter().map(|c| c.input_tokens).sum::<u64>();
    let day = spent_today(&env);
    assert!(
        day.input_tokens >= aspects,
        "{} counted after the kill; the six served calls alone sent {aspects}",
        day.input_tokens
    );
    let lines = spend_lines(&env);
    let settled = lines.iter().filter(|l| l.kind == SpendKind::Call).count();
    assert_eq!(settled, 6, "{lines:?}");
    // The verifier calls in flight: reserved, never settled, counted at their estimate.
    let open = lines
        .iter()
        .filter(|l| l.kind == SpendKind::Reserved)
        .count()
        - settled;
    assert_eq!(open, 6, "{lines:?}");
}

/// Failed before it was fixed (a cancelled run recorded nothing): Ctrl-C after the six calls
/// were served leaves their usage, and the cancelled verifier calls at their estimate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cancelled_after_its_calls_were_served_records_them() {
    let (env, fx, llm) = served_then_verifying().await;
    let child = review(&env, &fx, &llm)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id().expect("pid");
    received(&llm, 12).await;
    let int = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill -INT");
    assert!(int.success());
    let out = child.wait_with_output().await.expect("wait");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("cancelled"), "{}", stderr(&out));
    let aspects = sent(&llm, 0) - llm.calls()[6..].iter().map(|c| c.input_tokens).sum::<u64>();
    let day = spent_today(&env);
    assert!(
        day.input_tokens >= aspects,
        "{} counted, the six served calls sent {aspects}: {:?}",
        day.input_tokens,
        spend_lines(&env)
    );
    let lines = spend_lines(&env);
    let settled = lines.iter().filter(|l| l.kind == SpendKind::Call).count();
    assert_eq!(settled, 12, "every call settled as it ended: {lines:?}");
}
