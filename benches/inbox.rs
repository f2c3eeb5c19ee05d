//! The live inbox against the loopback GitHub (tests/support/fake_inbox.rs): requests, wall time
//! and peak memory of `pr-shepherd inbox acme/widgets --format json` for 150 and 1,000 open PRs
//! (one with 40 threads, one thread of 130 comments), then criterion's timing of the in-process
//! load of 150 PRs.
//!
//! `cargo bench --bench inbox` — figures in docs/perf.md ("Inbox").

#[path = "../tests/support/fake_inbox.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod fake_inbox;
#[path = "../tests/support/github_client.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod github_client;
#[path = "../tests/support/request_log.rs"]
#[allow(dead_code)] // the bench uses part of the shared test fake
mod request_log;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use fake_inbox::{FakeInbox, OWNER, REPO, VIEWER, queue};
use github_client::loopback_github;
use pr_shepherd::inbox::live;
use pr_shepherd::ledger::Ledger;
use pr_shepherd::policy::GateConfig;
use pr_shepherd::source::github::FetchOptions;
use pr_shepherd::source::github::batch::ListSpec;

/// `/usr/bin/time -f %M -o FILE` runs the binary when it is there: the peak RSS of that process
/// alone. `getrusage(RUSAGE_CHILDREN)` in this process cannot tell it: the binary is started with
/// posix_spawn (vfork), and Linux records the parent's high-water RSS — this bench with its fake
/// GitHub, ~115 MiB — as the child's at exec.
const GNU_TIME: &str = "/usr/bin/time";

fn bench(c: &mut Criterion) {
    let Ok(rt) = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else { return };
    let config = dir.path().join("config.toml");
    if std::fs::write(&config, "").is_err() {
        return;
    }

    // The whole binary, once per size (the smaller first: the rusage peak is a running max).
    for n in [150u64, 1000] {
        let (server, fake) = rt.block_on(FakeInbox::start(queue(n)));
        let rss_file = dir.path().join(format!("rss-{n}"));
        let timed = std::path::Path::new(GNU_TIME).exists();
        let mut cmd = if timed {
            let mut c = tokio::process::Command::new(GNU_TIME);
            c.args(["-f", "%M", "-o"])
                .arg(&rss_file)
                .arg(env!("CARGO_BIN_EXE_pr-shepherd"));
            c
        } else {
            tokio::process::Command::new(env!("CARGO_BIN_EXE_pr-shepherd"))
        };
        let started = Instant::now();
        let out = rt.block_on(async {
            cmd.env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", dir.path())
                .env("PR_SHEPHERD_STATE_DIR", dir.path().join("state"))
                .env("GH_TOKEN", "bench-token")
                .arg("--api-url")
                .arg(server.uri())
                .arg("--config")
                .arg(&config)
                .args(["inbox", &format!("{OWNER}/{REPO}"), "--format", "json"])
                .output()
                .await
        });
        let took = started.elapsed();
        let ok = out.as_ref().is_ok_and(|o| o.status.success());
        let complete = out
            .as_ref()
            .ok()
            .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
            .map(|v| {
                v["complete"] == true && v["prs"].as_array().map(Vec::len) == Some(n as usize)
            });
        let rss = std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|t| t.lines().last().map(|l| format!("{} KiB", l.trim())))
            .unwrap_or_else(|| format!("not measured (no {GNU_TIME})"));
        eprintln!(
            "inbox {n} PRs (binary): ok={ok} complete={complete:?} requests={} wall={:.0} ms peak RSS={rss}",
            fake.requests(),
            took.as_secs_f64() * 1e3,
        );
    }

    // In process, 150 PRs: the listing and every count (criterion's timing).
    let (server, fake) = rt.block_on(FakeInbox::start(queue(150)));
    let Some(gh) = loopback_github(&server.uri(), "bench-token", FetchOptions::default()) else {
        return;
    };
    let ledger = Ledger::new(dir.path().join("state"));
    let specs = vec![ListSpec::Repo {
        owner: OWNER.into(),
        repo: REPO.into(),
    }];
    let cfg = GateConfig::default();
    let load = || {
        rt.block_on(live::load(
            &gh,
            "acme/widgets".into(),
            &specs,
            &ledger,
            VIEWER,
            &cfg,
            &pr_shepherd::progress::Progress::off(),
        ))
        .map(|i| i.rows.len())
    };
    let before = fake.requests();
    let t = Instant::now();
    let rows = load();
    eprintln!(
        "inbox 150 PRs (in process): rows={rows:?} requests={} wall={:.0} ms (first pass)",
        fake.requests() - before,
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut group = c.benchmark_group("inbox");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("live_150_prs", |b| b.iter(load));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
