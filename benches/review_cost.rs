//! What a six-aspect review costs and how long it takes, against a loopback model that accounts
//! prompt-cache tokens the way the providers document (tests/support/fake_llm.rs): every answer
//! takes 1 s (first byte after 200 ms when streamed).
//!
//! Billed-equivalent input = uncached + 1.25 × cache write + 0.1 × cache read (Anthropic's
//! multipliers), as a ratio of the same calls' input billed without a cache. Wall time is the
//! whole run; "one call" is a single cold call of the same backend.
//!
//! `cargo bench --bench review_cost` prints the table recorded in docs/perf.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/support/fake_llm.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod fake_llm;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fake_llm::{Behaviour, FakeLlm, Wire};
use pr_shepherd::pr::{ChangedFile, PrMeta};
use pr_shepherd::review::inputs::prompt::{self, Prompts};
use pr_shepherd::review::llm::{AnthropicClient, LlmClient, OpenAiClient, RetryPolicy};
use pr_shepherd::review::{Aspect, ReviewSettings, run_review};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use tokio_util::sync::CancellationToken;

fn demo() -> PrMeta {
    Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap().pr
}

/// A file of `hunks` hunks, about `chars` characters of patch.
fn file(i: usize, hunks: usize, chars: usize, template: &ChangedFile) -> ChangedFile {
    let per_hunk = chars / hunks;
    let mut patch = String::new();
    let mut lines = 0;
    for h in 0..hunks {
        let start = patch.len();
        patch.push_str(&format!(
            "@@ -{0},40 +{0},44 @@ impl Handler{h} {{\n",
            h * 200 + 1
        ));
        let mut l = 0;
        while patch.len() - start < per_hunk {
            let sign = if l % 5 == 0 { '-' } else { '+' };
            patch.push_str(&format!(
                "{sign}        let value_{l} = self.lookup_{i}_{h}(&request.key_{l}).await?; // step {l}\n"
            ));
            l += 1;
            lines += 1;
        }
    }
    ChangedFile {
        path: format!("src/handlers/module_{i:02}.rs"),
        patch: Some(patch),
        viewed: Default::default(),
        no_patch: None,
        additions: lines,
        deletions: lines / 5,
        ..template.clone()
    }
}

/// 40 files, ~1,250 characters each (~14,000 tokens per prompt with the playbook).
fn forty_files() -> PrMeta {
    let mut pr = demo();
    let t = pr.files[0].clone();
    pr.files = (0..40).map(|i| file(i, 2, 1_250, &t)).collect();
    pr
}

/// ~370,000 characters: 60 files of ~4,630 and one of 92,000 in nine hunks.
fn large() -> PrMeta {
    let mut pr = demo();
    let t = pr.files[0].clone();
    let mut files: Vec<ChangedFile> = (0..60).map(|i| file(i, 3, 4_630, &t)).collect();
    files.insert(30, file(99, 9, 92_000, &t));
    pr.files = files;
    pr
}

fn client(fake: &FakeLlm, stream: bool) -> LlmClient {
    let retry = RetryPolicy {
        retries: 0,
        backoff: Duration::from_millis(10),
    };
    match fake.behaviour().wire {
        Wire::Anthropic => LlmClient::Anthropic(
            AnthropicClient::new(&fake.base_url, None, "m".into(), 1000, retry)
                .unwrap()
                .streaming(stream),
        ),
        Wire::OpenAi => LlmClient::OpenAi(
            OpenAiClient::new(&fake.base_url, None, "m".into(), Some(1000), retry)
                .unwrap()
                .streaming(stream),
        ),
    }
}

struct Row {
    pr: &'static str,
    backend: String,
    diff_chars: usize,
    calls: usize,
    input: u64,
    read: u64,
    write: u64,
    wall: Duration,
    one: Duration,
}

async fn measure(
    name: &'static str,
    pr: &PrMeta,
    wire: Wire,
    stream: bool,
    concurrency: usize,
) -> Row {
    let behaviour = || Behaviour {
        first_byte: Duration::from_millis(200),
        total: Duration::from_secs(1),
        ..Behaviour::new(wire)
    };
    // One cold call.
    let single = FakeLlm::start(behaviour()).await;
    let p = prompt::build(Aspect::Correctness, pr, &Prompts::embedded(), 60_000);
    let t = Instant::now();
    client(&single, stream).complete(&p).await.unwrap();
    let one = t.elapsed();
    // The whole run, against a cold cache (a provider of its own: nothing cached, no calls yet).
    let fake = FakeLlm::start(behaviour()).await;
    let c = client(&fake, stream);
    let settings = ReviewSettings {
        concurrency,
        ..Default::default()
    };
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let t = Instant::now();
    let run = run_review(
        Arc::new(pr.clone()),
        &settings,
        Arc::new(c),
        Arc::new(Prompts::embedded()),
        tx,
        CancellationToken::new(),
    )
    .await;
    let wall = t.elapsed();
    assert!(!run.is_incomplete(), "{run:?}");
    let calls = fake.calls();
    Row {
        pr: name,
        backend: format!(
            "{} {}",
            match wire {
                Wire::Anthropic => "anthropic",
                Wire::OpenAi => "openai",
            },
            if stream { "streamed" } else { "not streamed" }
        ) + &if concurrency == 6 {
            String::new()
        } else {
            format!(", concurrency {concurrency}")
        },
        diff_chars: pr
            .files
            .iter()
            .map(|f| f.patch.as_deref().map_or(0, str::len))
            .sum(),
        calls: calls.len(),
        input: calls.iter().map(|c| c.input_tokens).sum(),
        read: calls.iter().map(|c| c.cache_read).sum(),
        write: calls.iter().map(|c| c.cache_write).sum(),
        wall,
        one,
    }
}

fn main() {
    // `cargo test --all-targets` runs benches as tests: nothing to measure then.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let prs: [(&'static str, PrMeta); 3] = [
        ("demo", demo()),
        ("40 files", forty_files()),
        ("370k chars", large()),
    ];
    let mut rows = Vec::new();
    for (name, pr) in &prs {
        for (wire, stream) in [
            (Wire::Anthropic, true),
            (Wire::OpenAi, true),
            (Wire::Anthropic, false),
        ] {
            rows.push(rt.block_on(measure(name, pr, wire, stream, 6)));
        }
    }
    // The large PR's 42 calls at once instead of six at a time.
    rows.push(rt.block_on(measure(prs[2].0, &prs[2].1, Wire::Anthropic, true, 42)));
    println!(
        "| PR | diff chars | backend | calls | input tokens | cache read | cache write | billed-equivalent / uncached | wall | one call | wall / one call |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let uncached = r.input.saturating_sub(r.read + r.write) as f64;
        let billed = uncached + 1.25 * r.write as f64 + 0.1 * r.read as f64;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.3} | {:.2} s | {:.2} s | {:.2}× |",
            r.pr,
            r.diff_chars,
            r.backend,
            r.calls,
            r.input,
            r.read,
            r.write,
            billed / r.input.max(1) as f64,
            r.wall.as_secs_f64(),
            r.one.as_secs_f64(),
            r.wall.as_secs_f64() / r.one.as_secs_f64()
        );
    }
}
