//! Streamed, cached, chunked reviews against a loopback model with provider-style cache
//! accounting (tests/support/fake_llm.rs): the warm-first fan-out, cache usage, cut streams,
//! refused cache fields, and chunked large PRs.

use crate::support;
use support::llm::review_events as review;

use std::path::Path;
use std::time::Duration;

use pr_shepherd::pr::{ChangedFile, PrMeta};
use pr_shepherd::review::llm::{AnthropicClient, LlmClient, OpenAiClient, RetryPolicy};
use pr_shepherd::review::{AspectState, ReviewEvent, ReviewSettings};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use support::fake_llm::{Behaviour, FakeLlm, Wire};

fn demo_pr() -> PrMeta {
    Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap().pr
}

fn client(fake: &FakeLlm, retries: u32) -> LlmClient {
    let retry = RetryPolicy {
        retries,
        backoff: Duration::from_millis(10),
    };
    match fake.behaviour().wire {
        Wire::Anthropic => LlmClient::Anthropic(
            AnthropicClient::new(&fake.base_url, None, "m".into(), 1000, retry)
                .unwrap()
                .streaming(true),
        ),
        Wire::OpenAi => LlmClient::OpenAi(
            OpenAiClient::new(&fake.base_url, None, "m".into(), Some(1000), retry)
                .unwrap()
                .streaming(true),
        ),
    }
}

fn fast(wire: Wire) -> Behaviour {
    Behaviour {
        first_byte: Duration::from_millis(150),
        total: Duration::from_millis(400),
        ..Behaviour::new(wire)
    }
}

#[tokio::test]
async fn calls_two_to_six_start_after_the_first_answer_began_and_read_the_cache() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start(fast(wire)).await;
        let (run, events) = review(client(&fake, 0), demo_pr(), &ReviewSettings::default()).await;
        assert!(!run.is_incomplete(), "{wire:?}: {run:?}");
        let calls = fake.calls();
        assert_eq!(calls.len(), 6, "{wire:?}");
        let first_began = calls[0].began.unwrap();
        for c in &calls[1..] {
            assert!(
                c.received >= first_began,
                "{wire:?}: a call started before the first answer began"
            );
            assert!(c.cache_read > 0, "{wire:?}: no cache read: {c:?}");
        }
        assert!(calls.iter().all(|c| c.streamed));
        // Usage is parsed into the run.
        let u = run.usage();
        assert_eq!(u.calls, 6);
        let read: u64 = calls.iter().map(|c| c.cache_read).sum();
        assert_eq!(u.tokens.cache_read, Some(read), "{wire:?}");
        assert_eq!(
            u.tokens.input,
            Some(calls.iter().map(|c| c.input_tokens).sum())
        );
        assert_eq!(
            u.tokens.output,
            Some(calls.iter().map(|c| c.output_tokens).sum()),
            "{wire:?}"
        );
        match wire {
            Wire::Anthropic => {
                let written: u64 = calls.iter().map(|c| c.cache_write).sum();
                assert!(written > 0);
                assert_eq!(u.tokens.cache_write, Some(written));
                let body = &calls[0].body;
                assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
                assert_eq!(
                    body["messages"][0]["content"][0]["cache_control"]["type"],
                    "ephemeral"
                );
                assert!(
                    body["messages"][0]["content"][2]
                        .get("cache_control")
                        .is_none()
                );
            }
            Wire::OpenAi => {
                assert_eq!(u.tokens.cache_write, None, "OpenAI does not report writes");
                let keys: Vec<&serde_json::Value> =
                    calls.iter().map(|c| &c.body["prompt_cache_key"]).collect();
                assert!(keys[0].as_str().unwrap().starts_with("pr-shepherd-"));
                assert!(keys.iter().all(|k| *k == keys[0]));
                assert_eq!(calls[0].body["stream_options"]["include_usage"], true);
            }
        }
        // Progress per aspect: streamed tokens were reported.
        assert!(
            events
                .iter()
                .any(|e| matches!(e, ReviewEvent::Streaming { .. })),
            "{wire:?}"
        );
        let json = pr_shepherd::review::results::compose::json(
            &run,
            &pr_shepherd::review::results::compose::first_review(&run),
            "",
        );
        assert_eq!(json["usage"]["calls"], 6);
        assert!(json["aspects"][1]["cacheReadTokens"].as_u64().unwrap() > 0);
        assert!(json["usage"].get("estimatedCost").is_none());
    }
}

#[tokio::test]
async fn a_stream_cut_mid_answer_is_retried_like_a_5xx() {
    let fake = FakeLlm::start(Behaviour {
        cut_first: 2,
        ..fast(Wire::Anthropic)
    })
    .await;
    let (run, _) = review(client(&fake, 2), demo_pr(), &ReviewSettings::default()).await;
    assert!(!run.is_incomplete(), "{run:?}");
    let calls = fake.calls();
    assert_eq!(calls.iter().filter(|c| c.cut).count(), 2);
    assert_eq!(calls.len(), 8);
    assert_eq!(run.usage().calls, 6, "retries are inside a call");

    // Without retries left, the aspect fails with a clear reason.
    let fake = FakeLlm::start(Behaviour {
        cut_first: 1,
        ..fast(Wire::OpenAi)
    })
    .await;
    let (run, _) = review(client(&fake, 0), demo_pr(), &ReviewSettings::default()).await;
    let failed: Vec<_> = run
        .aspects
        .iter()
        .filter(|a| a.state == AspectState::Failed)
        .collect();
    assert_eq!(failed.len(), 1);
    let why = failed[0].error.as_deref().unwrap();
    assert!(why.contains("stopped mid-answer"), "{why}");
}

#[tokio::test]
async fn a_provider_that_refuses_cache_fields_gets_them_no_more() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start(Behaviour {
            reject_cache_fields: true,
            ..fast(wire)
        })
        .await;
        let (run, _) = review(client(&fake, 0), demo_pr(), &ReviewSettings::default()).await;
        assert!(!run.is_incomplete(), "{wire:?}: {run:?}");
        let calls = fake.calls();
        // Only the first call was refused; it was sent again without, and so were the rest.
        assert_eq!(calls.iter().filter(|c| c.refused).count(), 1, "{wire:?}");
        assert_eq!(calls.len(), 7);
    }
}

/// A PR of `files` files, each `hunks` hunks of `lines` lines of 80 characters.
pub fn big_pr(files: usize, hunks: usize, lines: usize) -> PrMeta {
    let mut pr = demo_pr();
    pr.files = (0..files)
        .map(|i| {
            let mut patch = String::new();
            for h in 0..hunks {
                patch.push_str(&format!(
                    "@@ -{0},{lines} +{0},{lines} @@ fn f{h}()\n",
                    h * 100 + 1
                ));
                for l in 0..lines {
                    patch.push_str(&format!(
                        "+    let v{l} = compute_{i}_{h}_{l}(input); // {}\n",
                        "x".repeat(30)
                    ));
                }
            }
            ChangedFile {
                path: format!("src/module_{i}.rs"),
                patch: Some(patch),
                viewed: Default::default(),
                no_patch: None,
                additions: (hunks * lines) as u32,
                deletions: 0,
                ..pr.files[0].clone()
            }
        })
        .collect();
    pr
}

#[tokio::test]
async fn a_large_pr_is_reviewed_in_chunks_within_the_concurrency_bound() {
    let fake = FakeLlm::start(fast(Wire::Anthropic)).await;
    let pr = big_pr(12, 3, 40);
    let settings = ReviewSettings {
        diff_budget_chars: 20_000,
        concurrency: 4,
        ..Default::default()
    };
    let (run, _) = review(client(&fake, 0), pr.clone(), &settings).await;
    assert!(!run.is_incomplete(), "{run:?}");
    let chunks = run.aspects[0].diff.as_ref().unwrap().chunks;
    assert!(chunks >= 3, "{chunks}");
    for a in &run.aspects {
        let d = a.diff.as_ref().unwrap();
        assert!(d.omitted.is_empty() && d.truncated.is_empty());
        assert_eq!(a.calls as usize, chunks);
    }
    let calls = fake.calls();
    assert_eq!(calls.len(), 6 * chunks);
    // Every changed file was shown in some call.
    for f in &pr.files {
        let header = format!("diff --git a/{}", f.path);
        assert!(calls.iter().any(|c| c.body.to_string().contains(&header)));
    }
    // Never more than `concurrency` calls at once.
    let mut marks: Vec<(std::time::Instant, i32)> = Vec::new();
    for c in &calls {
        marks.push((c.received, 1));
        marks.push((c.received + Duration::from_millis(400), -1));
    }
    marks.sort();
    let mut open = 0;
    for (_, d) in marks {
        open += d;
        assert!(open <= 4, "{open} calls at once");
    }
    // The six aspects read each chunk from the cache after the first warmed it.
    let read: u64 = calls.iter().map(|c| c.cache_read).sum();
    let input: u64 = calls.iter().map(|c| c.input_tokens).sum();
    assert!(read * 2 > input, "read {read} of {input}");
}

#[tokio::test]
async fn calls_two_to_six_wait_for_the_first_event_not_the_headers() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        // Headers at once, the first event after a prefill pause: the cache is written then.
        let fake = FakeLlm::start(Behaviour {
            first_byte: Duration::from_millis(10),
            prefill: Duration::from_millis(300),
            total: Duration::from_millis(400),
            ..Behaviour::new(wire)
        })
        .await;
        let (run, _) = review(client(&fake, 0), demo_pr(), &ReviewSettings::default()).await;
        assert!(!run.is_incomplete(), "{wire:?}: {run:?}");
        let calls = fake.calls();
        assert_eq!(calls.len(), 6, "{wire:?}");
        let first_event = calls[0].began.unwrap();
        for c in &calls[1..] {
            assert!(
                c.received >= first_event,
                "{wire:?}: a call started before the first event of the first answer"
            );
            assert!(c.cache_read > 0, "{wire:?}: no cache read: {c:?}");
        }
    }
}
