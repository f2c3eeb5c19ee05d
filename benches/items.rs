//! `items --format json` on a 10,000-item synthetic fixture, in process: load + validate the
//! fixture, read the seen markers, triage against them, render JSON. See docs/perf.md for the
//! whole-binary figures.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use pr_shepherd::ledger::Ledger;
use pr_shepherd::output::items::{ListingOptions, MarkerPlan, json, write_json};
use pr_shepherd::source::Fixture;
use pr_shepherd::source::synth::{SynthSpec, synth};
use pr_shepherd::triage::{marks, triage};

fn spec() -> SynthSpec {
    // 5,000 threads (3 comments each) + 4,000 comments + 1,000 reviews = 10,000 items.
    SynthSpec {
        threads: 5_000,
        comments: 4_000,
        reviews: 1_000,
        replies: 3,
        seed: 1,
    }
}

fn bench(c: &mut Criterion) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no temp dir: {e}");
            return;
        }
    };
    let path = dir.path().join("big.json");
    if let Err(e) = synth(spec()).write(&path) {
        eprintln!("cannot write the fixture: {e}");
        return;
    }
    let opts = ListingOptions {
        all: false,
        markers: MarkerPlan::Write,
        marker_problems: vec![],
        kept: Default::default(),
        own: Default::default(),
    };
    let mut group = c.benchmark_group("items_10k");
    group.sample_size(20);
    group.bench_function("load_fixture", |b| {
        b.iter(|| black_box(Fixture::load(&path).map(|f| f.items.len())))
    });
    let Ok(fixture) = Fixture::load(&path) else {
        return;
    };
    let Ok(snapshot) = fixture.snapshot_at(0) else {
        return;
    };
    group.bench_function("triage", |b| {
        b.iter(|| black_box(triage(&snapshot, &HashMap::new()).len()))
    });
    let triaged = triage(&snapshot, &HashMap::new());
    group.bench_function("render_json", |b| {
        b.iter(|| {
            black_box(
                serde_json::to_string_pretty(&json(&snapshot, &triaged, &opts))
                    .map(|s| s.len())
                    .unwrap_or_default(),
            )
        })
    });
    group.bench_function("write_json_parallel", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(20 << 20);
            black_box(write_json(&mut out, &snapshot, &triaged, &opts).map(|()| out.len()))
        })
    });
    bench_seen(&mut group, &snapshot);
    group.bench_function("end_to_end", |b| {
        b.iter(|| {
            let f = Fixture::load(&path).ok()?;
            let s = f.snapshot_at(0).ok()?;
            let t = triage(&s, &HashMap::new());
            serde_json::to_string_pretty(&json(&s, &t, &opts))
                .ok()
                .map(|s| black_box(s.len()))
        })
    });
    group.finish();
}

/// Reading the 10,000 seen markers of a PR: served by the derived index (steady state), and
/// from every file (no index; the load then rewrites it).
fn bench_seen(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    snapshot: &pr_shepherd::pr::Snapshot,
) {
    let Ok(state) = tempfile::tempdir() else {
        return;
    };
    let ledger = Ledger::new(state.path());
    let coords = snapshot.pr.coords();
    let triaged = triage(snapshot, &HashMap::new());
    if let Err(e) = ledger.mark_seen(&coords, &marks(snapshot, &triaged), 1) {
        eprintln!("cannot write markers: {e}");
        return;
    }
    // Markers are cached only once their files have settled (see ledger::seen_index).
    std::thread::sleep(std::time::Duration::from_millis(3_100));
    let Ok(index) = ledger.pr_dir(&coords).map(|d| d.join("seen-index")) else {
        return;
    };
    group.bench_function("load_seen_no_index", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(&index);
            },
            |()| black_box(ledger.load_seen(&coords).map(|s| s.markers.len())),
            criterion::BatchSize::PerIteration,
        )
    });
    group.bench_function("load_seen_indexed", |b| {
        b.iter(|| black_box(ledger.load_seen(&coords).map(|s| s.from_index)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
