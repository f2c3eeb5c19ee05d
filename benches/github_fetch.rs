//! Requests and wall time of a complete live fetch of a big PR (260 threads, one with 130
//! comments; 230 conversation comments; 120 reviews; 40 files) against the loopback GitHub.
//!
//! `cargo bench --bench github_fetch` — figures in docs/perf.md ("Live GitHub fetch").

#[path = "../tests/support/fake_github.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod fake_github;
#[path = "../tests/support/fake_reviews.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod fake_reviews;
#[path = "../tests/support/github_client.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod github_client;
#[path = "../tests/support/request_log.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod request_log;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO};
use github_client::loopback_github;
use pr_shepherd::pr::PrCoords;
use pr_shepherd::source::github::FetchOptions;

fn bench(c: &mut Criterion) {
    let Ok(rt) = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::generate(260, 130, 230, 120, 40)));
    let coords = PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number: NUMBER,
    };
    let Some(gh) = loopback_github(&server.uri(), "bench-token", FetchOptions::default()) else {
        return;
    };

    // One pass first, to report the request count beside the timing.
    let before = fake.requests();
    let started = std::time::Instant::now();
    let snap = rt.block_on(gh.fetch_snapshot(&coords));
    let took = started.elapsed();
    if let Ok(s) = &snap {
        eprintln!(
            "github_fetch: {} items, {} files, complete={}, {} requests, {:.1} ms (first pass)",
            s.items.len(),
            s.pr.files.len(),
            s.is_complete(),
            fake.requests() - before,
            took.as_secs_f64() * 1e3
        );
    }

    let mut group = c.benchmark_group("github_fetch");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("pr_260t_130c_230ic_120r_40f", |b| {
        b.iter(|| {
            rt.block_on(gh.fetch_snapshot(&coords))
                .map(|s| s.items.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
