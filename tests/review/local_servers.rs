//! What real OpenAI-compatible servers a maintainer runs locally do, reproduced on the loopback
//! model (tests/support/fake_llm.rs): a stream that ends with `[DONE]` but no finish reason
//! (llama-cpp-python interrupting a running stream for a new request), streams without `usage`,
//! a prompt larger than the server's context (llama.cpp's and OpenAI's overflow errors), and an
//! answer without end.

use crate::support;
use support::llm::review_events as review;

use std::path::Path;
use std::time::Duration;

use pr_shepherd::pr::PrMeta;
use pr_shepherd::review::llm::{LlmClient, OpenAiClient, RetryPolicy};
use pr_shepherd::review::results::compose::{first_review, json, markdown, usage_line};
use pr_shepherd::review::settings::SkipRule;
use pr_shepherd::review::{Aspect, AspectState, ReviewEvent, ReviewSettings};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use support::fake_llm::{Behaviour, ENDLESS_CAP, FakeLlm, Wire};

fn demo_pr() -> PrMeta {
    Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap().pr
}

fn client(fake: &FakeLlm, retries: u32, stream: bool) -> LlmClient {
    let retry = RetryPolicy {
        retries,
        backoff: Duration::from_millis(10),
    };
    LlmClient::OpenAi(
        OpenAiClient::new(&fake.base_url, None, "m".into(), Some(1000), retry)
            .unwrap()
            .streaming(stream),
    )
}

fn fast() -> Behaviour {
    Behaviour {
        first_byte: Duration::from_millis(100),
        total: Duration::from_millis(500),
        ..Behaviour::new(Wire::OpenAi)
    }
}

/// Only `aspect` runs (the others are skipped by rule).
fn only(aspect: Aspect) -> ReviewSettings {
    let mut s = ReviewSettings::default();
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

/// llama-cpp-python (by default) ends a running stream with `data: [DONE]` and no finish reason
/// when another request arrives. That answer is broken, not whole: it is asked again; and since
/// the server keeps doing it while requests run side by side, the run goes one call at a time
/// for the rest and says so (progress note, the run's notes and JSON).
#[tokio::test]
async fn done_without_a_finish_reason_is_asked_again_and_concurrency_is_lowered() {
    let fake = FakeLlm::start(Behaviour {
        interrupt_running: true,
        ..fast()
    })
    .await;
    let (run, events) = review(
        client(&fake, 4, true),
        demo_pr(),
        &ReviewSettings::default(),
    )
    .await;
    let calls = fake.calls();
    assert!(
        calls.iter().any(|c| c.interrupted),
        "the fake interrupted no stream: {calls:?}"
    );
    assert!(
        fake.max_in_flight() > 1,
        "the requests never ran side by side"
    );
    assert!(!run.is_incomplete(), "{:#?}", run.aspects);
    for a in &run.aspects {
        assert_eq!(a.state, AspectState::Done, "{}: {:?}", a.aspect, a.error);
    }
    let lowered = run.concurrency_lowered.as_ref().expect("lowered");
    assert_eq!(lowered.to, 1);
    assert!(lowered.from > 1);
    assert!(
        lowered.reason.contains("broke") && lowered.reason.contains("in flight"),
        "{}",
        lowered.reason
    );
    assert!(
        events.iter().any(
            |e| matches!(e, ReviewEvent::Note { text } if text.contains("concurrency lowered from"))
        ),
        "no progress note"
    );
    assert!(run.notes.iter().any(|n| n.contains("concurrency lowered")));
    let doc = json(&run, &first_review(&run), "");
    assert_eq!(doc["concurrencyLowered"]["to"], 1, "{doc:#}");
    let md = markdown(&run, &first_review(&run));
    assert!(md.contains("concurrency lowered"), "{md}");
}

/// llama-cpp-python sends no `usage` when streaming (it ignores `stream_options.include_usage`):
/// the review says "not reported by the server", in the summary and the JSON, never a blank or a
/// zero that looks measured.
#[tokio::test]
async fn a_stream_without_usage_says_not_reported_by_the_server() {
    let fake = FakeLlm::start(Behaviour {
        stream_usage: false,
        ..fast()
    })
    .await;
    let (run, _) = review(
        client(&fake, 0, true),
        demo_pr(),
        &ReviewSettings::default(),
    )
    .await;
    assert!(!run.is_incomplete(), "{:#?}", run.aspects);
    let u = run.usage();
    assert_eq!((u.calls, u.calls_without_usage), (6, 6));
    let line = usage_line(&run).unwrap();
    assert!(line.contains("not reported by the server"), "{line}");
    assert!(
        !line.contains(" 0 input tokens") && !line.contains('?'),
        "{line}"
    );
    let md = markdown(&run, &first_review(&run));
    assert!(md.contains("not reported"), "{md}");
    let doc = json(&run, &first_review(&run), "");
    assert_eq!(
        doc["usage"]["note"], "not reported by the server",
        "{doc:#}"
    );
    assert_eq!(doc["usage"]["callsWithoutUsage"], 6);
    assert!(doc["usage"]["inputTokens"].is_null());
    assert_eq!(doc["aspects"][0]["callsWithoutUsage"], 1);

    // A server that reports usage: no note.
    let fake = FakeLlm::start(fast()).await;
    let (run, _) = review(
        client(&fake, 0, true),
        demo_pr(),
        &ReviewSettings::default(),
    )
    .await;
    let doc = json(&run, &first_review(&run), "");
    assert!(doc["usage"]["note"].is_null(), "{doc:#}");
    assert!(!usage_line(&run).unwrap().contains("not reported"));
}

/// A prompt larger than the server's context is refused with llama.cpp's
/// `exceed_context_size_error` (or OpenAI's `context_length_exceeded`): that is not a refusal of
/// `prompt_cache_key` (asked again without it, once per aspect, before), and the review plans
/// the diff again with a budget that fits the context the error (or `/props`) names, instead of
/// failing.
#[tokio::test]
async fn a_prompt_over_the_context_is_chunked_again_to_fit() {
    for openai_shape in [false, true] {
        let fake = FakeLlm::start(Behaviour {
            n_ctx: Some(8_000),
            openai_overflow: openai_shape,
            ..fast()
        })
        .await;
        let pr = super::stream::big_pr(6, 2, 48);
        let (run, _) = review(client(&fake, 0, true), pr, &ReviewSettings::default()).await;
        let calls = fake.calls();
        let overflowed = calls.iter().filter(|c| c.overflowed).count();
        assert!(overflowed >= 1, "{openai_shape}: nothing overflowed");
        assert!(
            calls
                .iter()
                .all(|c| c.body.get("prompt_cache_key").is_some()),
            "{openai_shape}: the overflow was taken for a refusal of prompt_cache_key"
        );
        assert!(!run.is_incomplete(), "{openai_shape}: {:#?}", run.aspects);
        for a in &run.aspects {
            let d = a.diff.as_ref().unwrap();
            assert!(d.chunks > 1, "{openai_shape}: {}: {d:?}", a.aspect);
            assert!(d.budget_chars < 60_000);
            let note = a.note.as_deref().unwrap_or_default();
            assert!(
                note.contains("did not fit the server's context"),
                "{openai_shape}: {}: {note}",
                a.aspect
            );
        }
        // Every answered call fitted; the overflowing ones were the first few only.
        let answered = calls.iter().filter(|c| !c.overflowed).count();
        assert_eq!(
            answered,
            run.aspects
                .iter()
                .map(|a| a.diff.as_ref().unwrap().chunks)
                .sum::<usize>()
        );
        assert!(overflowed <= 6, "{openai_shape}: {overflowed} overflowed");
        // Both errors name the context size (in fields, or in the message): /props is not asked.
        assert_eq!(fake.props_asked(), 0, "{openai_shape}");
    }
}

/// A context too small even for the prompt without its diff fails the aspects with a reason
/// that says what to do, after one request each at most.
#[tokio::test]
async fn a_context_too_small_for_the_instructions_fails_saying_so() {
    let fake = FakeLlm::start(Behaviour {
        n_ctx: Some(500),
        ..fast()
    })
    .await;
    let (run, _) = review(
        client(&fake, 0, true),
        demo_pr(),
        &ReviewSettings::default(),
    )
    .await;
    assert!(run.is_incomplete());
    for a in &run.aspects {
        assert_eq!(a.state, AspectState::Failed, "{}", a.aspect);
        let why = a.error.as_deref().unwrap_or_default();
        assert!(why.contains("does not fit the server's context"), "{why}");
        assert!(why.contains("larger context"), "{why}");
    }
    assert!(fake.calls().len() <= 6, "{}", fake.calls().len());
}

/// An answer without end ("a 3 GB LLM answer") is read up to the bound and ends the call with a
/// clear error, streamed or not; the server is not asked again.
#[tokio::test]
async fn an_endless_answer_stops_at_the_bound_with_a_clear_error() {
    for stream in [true, false] {
        let fake = FakeLlm::start(Behaviour {
            endless: true,
            ..fast()
        })
        .await;
        let (run, _) = review(client(&fake, 2, stream), demo_pr(), &only(Aspect::Security)).await;
        let sec = run
            .aspects
            .iter()
            .find(|a| a.aspect == Aspect::Security)
            .unwrap();
        assert_eq!(sec.state, AspectState::Failed, "{stream}");
        let why = sec.error.as_deref().unwrap_or_default();
        assert!(why.contains("larger than 32 MiB"), "{stream}: {why}");
        assert!(why.contains("not read further"), "{stream}: {why}");
        let calls = fake.calls();
        assert_eq!(calls.len(), 1, "{stream}: asked again");
        assert!(
            calls[0].written < ENDLESS_CAP,
            "{stream}: read to the fake's own end"
        );
    }
}

/// `concurrency` above six is honoured for a chunked review: its calls (six aspects × several
/// chunks) run as many at once as the setting allows, not six.
#[tokio::test]
async fn a_chunked_review_runs_as_many_calls_at_once_as_the_concurrency_allows() {
    let fake = FakeLlm::start(fast()).await;
    let mut settings = ReviewSettings {
        concurrency: 12,
        ..ReviewSettings::default()
    };
    for a in Aspect::ALL {
        settings.diff_budgets.insert(a, 1_000);
    }
    let (run, _) = review(client(&fake, 0, true), demo_pr(), &settings).await;
    assert!(!run.is_incomplete(), "{:#?}", run.aspects);
    let calls = fake.calls().len();
    assert!(calls > 12, "not chunked enough to tell: {calls} calls");
    assert!(
        fake.max_in_flight() > 6,
        "at most {} calls ran at once with concurrency 12",
        fake.max_in_flight()
    );
    assert!(fake.max_in_flight() <= 12, "{}", fake.max_in_flight());
}
