//! A slow local model is not a failed one: the time limit counts silence (`[review]
//! idle_timeout`), not the length of an answer, on the loopback model (tests/support/fake_llm.rs).
//! A stream that keeps producing tokens finishes however long it takes; one that goes silent
//! fails after the idle timeout, not the per-aspect limit; and at a server that serves one
//! request at a time, the first silence makes the run go one call at a time, and every aspect
//! finishes.

use crate::support;
use support::llm::review_events as review;

use std::path::Path;
use std::time::{Duration, Instant};

use pr_shepherd::pr::PrMeta;
use pr_shepherd::review::llm::{LlmClient, LlmEnv};
use pr_shepherd::review::settings::{BackendKind, SkipRule};
use pr_shepherd::review::{Aspect, AspectState, ReviewSettings};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use support::fake_llm::{Behaviour, FakeLlm, Wire};

fn demo_pr() -> PrMeta {
    Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap().pr
}

/// Streamed from `fake`, the idle timeout `idle` seconds, a per-aspect ceiling far above it.
fn settings(fake: &FakeLlm, idle: f64, retries: u32) -> ReviewSettings {
    ReviewSettings {
        llm: Some(BackendKind::Openai),
        llm_url: Some(fake.base_url.clone()),
        model: Some("m".into()),
        stream: true,
        retries,
        retry_backoff_ms: 10,
        aspect_timeout_secs: 30.0,
        overall_timeout_secs: 60.0,
        idle_timeout: idle,
        ..ReviewSettings::default()
    }
}

/// The backend `settings` ask for, as a review builds it.
fn client(settings: &ReviewSettings) -> LlmClient {
    LlmClient::from_settings(settings, &LlmEnv::from_vars(|_| None), None).unwrap()
}

/// Only `aspect` runs (the others are skipped by rule).
fn only(aspect: Aspect, mut s: ReviewSettings) -> ReviewSettings {
    for a in Aspect::ALL.into_iter().filter(|a| *a != aspect) {
        s.skip.insert(
            a,
            SkipRule {
                always: true,
                ..SkipRule::default()
            },
        );
    }
    s
}

/// A stream of 2.5 s whose events come every ~0.3 s: three times the idle timeout in all,
/// never silent that long.
#[tokio::test]
async fn a_stream_still_producing_tokens_is_not_timed_out_however_long_it_takes() {
    let fake = FakeLlm::start(Behaviour {
        first_byte: Duration::from_millis(100),
        total: Duration::from_millis(2500),
        ..Behaviour::new(Wire::OpenAi)
    })
    .await;
    let s = only(Aspect::Security, settings(&fake, 0.8, 0));
    let started = Instant::now();
    let (run, _) = review(client(&s), demo_pr(), &s).await;
    let took = started.elapsed();
    let a = run
        .aspects
        .iter()
        .find(|a| a.aspect == Aspect::Security)
        .unwrap();
    assert_eq!(a.state, AspectState::Done, "{:?}", a.error);
    assert!(took > Duration::from_secs(2), "{took:?}");
    assert!(run.concurrency_lowered.is_none(), "{run:?}");
}

/// Failed before: nothing stopped the silent answer but the per-aspect limit (here 30 s; by
/// default minutes), and the aspect was "timed out" with no word of the silence.
#[tokio::test]
async fn an_answer_that_goes_silent_fails_after_the_idle_timeout() {
    let fake = FakeLlm::start(Behaviour {
        first_byte: Duration::from_millis(50),
        // Headers, then nothing for 20 s.
        prefill: Duration::from_secs(20),
        ..Behaviour::new(Wire::OpenAi)
    })
    .await;
    let s = only(Aspect::Security, settings(&fake, 0.5, 0));
    let started = Instant::now();
    let (run, _) = review(client(&s), demo_pr(), &s).await;
    let took = started.elapsed();
    let a = run
        .aspects
        .iter()
        .find(|a| a.aspect == Aspect::Security)
        .unwrap();
    assert_eq!(a.state, AspectState::Failed, "{a:?}");
    let e = a.error.as_deref().unwrap_or("");
    assert!(
        e.contains("sent nothing for 0.5 s") && e.contains("idle_timeout"),
        "{e}"
    );
    assert!(took < Duration::from_secs(4), "{took:?}");
}

/// Like llama.cpp's server with one slot: headers at once, then each request waits for the one
/// before it. Failed before: every request waited its turn side by side, each aspect's clock
/// running, and the run never learnt the server serves one at a time. Now the first request that
/// sends nothing for the idle timeout is given up and asked again one at a time (its wait then in
/// the run's own queue), the run says it lowered its concurrency, and all six finish.
#[tokio::test]
async fn at_a_server_that_serves_one_at_a_time_the_first_silence_lowers_concurrency_and_all_finish()
{
    let fake = FakeLlm::start(Behaviour {
        first_byte: Duration::from_millis(50),
        total: Duration::from_millis(500),
        one_at_a_time: true,
        ..Behaviour::new(Wire::OpenAi)
    })
    .await;
    let s = settings(&fake, 0.8, 2);
    let (run, _) = review(client(&s), demo_pr(), &s).await;
    for a in &run.aspects {
        assert_eq!(a.state, AspectState::Done, "{}: {:?}", a.aspect, a.error);
    }
    assert_eq!(run.aspects.len(), 6);
    let lowered = run.concurrency_lowered.as_ref().expect("lowered");
    assert_eq!(lowered.to, 1);
    assert!(lowered.from > 1);
    assert!(
        lowered.reason.contains("sent nothing for 0.8 s"),
        "{}",
        lowered.reason
    );
    assert!(fake.abandoned() >= 1, "no queued request was given up");
    assert_eq!(fake.max_in_flight(), 1, "the fake served one at a time");
}
