//! Review engine latency: with a loopback mock LLM answering every call after 300 ms, six
//! concurrent aspects should finish in about one call's time (target ≤ 1.2× a single call).
//!
//! `cargo bench --bench review` — figures in docs/perf.md ("## Review engine").

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use pr_shepherd::review::inputs::prompt::{self, Prompts};
use pr_shepherd::review::llm::{LlmClient, OpenAiClient, RetryPolicy};
use pr_shepherd::review::{Aspect, ReviewSettings, run_review};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use tokio_util::sync::CancellationToken;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const LATENCY: Duration = Duration::from_millis(300);

fn bench(c: &mut Criterion) {
    let Ok(rt) = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let Ok(fixture) = Fixture::parse(DEMO_FIXTURE, Path::new("demo")) else {
        return;
    };
    let pr = Arc::new(fixture.pr);
    let server = rt.block_on(async {
        let server = MockServer::start().await;
        let answer = serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": "{\"findings\": [{\"severity\": \"important\", \"file\": \"src/client/retry.rs\", \"line\": 41, \"message\": \"429 loop never stops.\"}]}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 4800, "completion_tokens": 60}
        });
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(answer).set_delay(LATENCY))
            .mount(&server)
            .await;
        server
    });
    let Ok(openai) = OpenAiClient::new(
        &format!("{}/v1", server.uri()),
        Some("bench-key".into()),
        "bench".into(),
        None,
        RetryPolicy::default(),
    ) else {
        return;
    };
    let client = Arc::new(LlmClient::OpenAi(openai));
    let prompts = Arc::new(Prompts::embedded());
    let settings = ReviewSettings::default();

    let mut g = c.benchmark_group("review_engine");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("single_call_300ms", |b| {
        let p = prompt::build(Aspect::Correctness, &pr, &prompts, 60_000);
        b.iter(|| rt.block_on(client.complete(&p)))
    });
    g.bench_function("six_aspects_300ms", |b| {
        b.iter(|| {
            rt.block_on(async {
                let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
                let run = run_review(
                    pr.clone(),
                    &settings,
                    client.clone(),
                    prompts.clone(),
                    tx,
                    CancellationToken::new(),
                )
                .await;
                assert!(!run.is_incomplete());
                run
            })
        })
    });
    g.bench_function("prompt_build_demo", |b| {
        b.iter(|| prompt::build(Aspect::Security, &pr, &prompts, 60_000))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
