//! The ledger against the disk: `items --format json` of the release binary on a 10,000-item PR
//! (first look; after 1,000 edits; after 10,000 edits), each run beside its floor on the same
//! disk in the same round, and the binary's peak memory at 50,000 items.
//!
//! The floor is what any program must pay for the same work: `json.load` of the same fixture in
//! Python, then creating (first look) or replacing (edits) the same number of small files by
//! rename (`mkstemp` in the folder, write, close, `rename`), timed inside the Python process
//! (its start-up is not counted; the binary's is). The binary and its floor run alternately,
//! the order swapped every round, because this disk's speed drifts for minutes at a time (new
//! files are slow for a while after many were deleted). Without `python3` the floor is not
//! measured and the table says so.
//!
//! `cargo bench --bench disk` prints the table recorded in docs/perf.md ("The ledger on disk").
//! `DISK_BENCH_ROUNDS=N` sets the rounds (default 5).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pr_shepherd::pr::Item;
use pr_shepherd::source::Fixture;
use pr_shepherd::source::synth::{SynthSpec, synth};

const BIN: &str = env!("CARGO_BIN_EXE_pr-shepherd");

/// GNU time, for the peak RSS of the binary alone (see benches/inbox.rs for why not rusage).
const GNU_TIME: &str = "/usr/bin/time";

/// The floor, in Python: `json.load` of the fixture, then `n` small files created or replaced
/// by rename in `dir`. Prints its own elapsed seconds.
const FLOOR_PY: &str = r#"
import json, os, sys, tempfile, time
mode, fixture, d, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
start = time.perf_counter()
with open(fixture, "rb") as f:
    json.load(f)
if mode != "none":
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
        os.write(fd, b'{"id":"IC_kwDOfloor%08d","seenAt":1732000000,"bodyHash":"%016x"}' % (i, i))
        os.close(fd)
        os.rename(tmp, os.path.join(d, "%064x.json" % i))
print(time.perf_counter() - start)
"#;

struct Bench {
    root: tempfile::TempDir,
    config: PathBuf,
    floor: Option<PathBuf>,
}

impl Bench {
    fn new() -> Option<Bench> {
        let root = tempfile::tempdir().ok()?;
        let config = root.path().join("config.toml");
        std::fs::write(&config, "").ok()?;
        let script = root.path().join("floor.py");
        std::fs::write(&script, FLOOR_PY).ok()?;
        let python = Command::new("python3")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        Some(Bench {
            root,
            config,
            floor: python.then_some(script),
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// `items FIXTURE --format json` into /dev/null with state dir `state`: wall time, and the
    /// peak RSS in KiB when GNU time is there.
    fn items(&self, fixture: &Path, state: &Path) -> Option<(Duration, Option<u64>)> {
        let rss = self.path("rss");
        let timed = Path::new(GNU_TIME).exists();
        let mut cmd = if timed {
            let mut c = Command::new(GNU_TIME);
            c.args(["-f", "%M", "-o"]).arg(&rss).arg(BIN);
            c
        } else {
            Command::new(BIN)
        };
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path())
            .arg("--config")
            .arg(&self.config)
            .arg("--state-dir")
            .arg(state)
            .arg("items")
            .arg(fixture)
            .args(["--format", "json"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let out = cmd.output().ok()?;
        let took = started.elapsed();
        if !out.status.success() {
            eprintln!(
                "the binary failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return None;
        }
        let kib = std::fs::read_to_string(&rss)
            .ok()
            .and_then(|t| t.lines().last()?.trim().parse().ok());
        Some((took, kib))
    }

    /// The floor's own time: `json.load(fixture)`, then `n` files created or replaced in `dir`.
    fn floor(&self, mode: &str, fixture: &Path, dir: &Path, n: usize) -> Option<Duration> {
        let script = self.floor.as_ref()?;
        let out = Command::new("python3")
            .arg(script)
            .arg(mode)
            .arg(fixture)
            .arg(dir)
            .arg(n.to_string())
            .output()
            .ok()?;
        let secs: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
        Some(Duration::from_secs_f64(secs))
    }
}

/// 5,000 threads of 3 comments, 4,000 conversation comments, 1,000 review summaries: 10,000
/// items (the fixture of docs/perf.md's `items` section).
fn ten_thousand() -> Fixture {
    synth(SynthSpec {
        threads: 5_000,
        comments: 4_000,
        reviews: 1_000,
        replies: 3,
        seed: 1,
    })
}

/// `f` with the body of every `every`-th item edited (a thread's first comment).
fn edited(mut f: Fixture, every: usize) -> Fixture {
    for item in f.items.iter_mut().step_by(every.max(1)) {
        let body = match item {
            Item::Thread(t) => t.comments.first_mut().map(|c| &mut c.body),
            Item::Comment(c) => Some(&mut c.body),
            Item::Review(r) => Some(&mut r.body),
        };
        if let Some(b) = body {
            b.push_str("\n\nEdited: a second thought.");
        }
    }
    f
}

fn files_below(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.flatten()
            .map(|e| {
                if e.path().is_dir() {
                    files_below(&e.path())
                } else {
                    1
                }
            })
            .sum()
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// One scenario's rounds: (binary, floor) per round.
struct Rows {
    name: &'static str,
    files: String,
    pairs: Vec<(Duration, Option<Duration>)>,
}

impl Rows {
    fn print(&self) {
        let bin: Vec<f64> = self.pairs.iter().map(|(b, _)| ms(*b)).collect();
        let floor: Vec<f64> = self.pairs.iter().filter_map(|(_, f)| f.map(ms)).collect();
        let ratios: Vec<f64> = self
            .pairs
            .iter()
            .filter_map(|(b, f)| f.map(|f| ms(*b) / ms(f)))
            .collect();
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (lo, hi) = ratios
            .iter()
            .fold((f64::INFINITY, 0f64), |(l, h), r| (l.min(*r), h.max(*r)));
        println!(
            "| {} | {} | {:.0} ms ({}) | {} | {} |",
            self.name,
            self.files,
            median(bin.clone()),
            list(&bin),
            if floor.is_empty() {
                "not measured (no python3)".to_owned()
            } else {
                format!("{:.0} ms ({})", median(floor.clone()), list(&floor))
            },
            if ratios.is_empty() {
                "—".to_owned()
            } else {
                format!("{:.2}× ({lo:.2}–{hi:.2})", median(ratios))
            },
        );
    }
}

/// Runs the binary and its floor one after the other, the binary first in even rounds and the
/// floor first in odd ones (the disk's speed drifts: neither always gets the quieter slot).
fn alternately<B, F>(round: usize, bin: impl FnOnce() -> B, floor: impl FnOnce() -> F) -> (B, F) {
    if round.is_multiple_of(2) {
        let b = bin();
        (b, floor())
    } else {
        let f = floor();
        (bin(), f)
    }
}

fn main() {
    // `cargo bench -- <filter>` and `cargo test --benches` pass arguments; run only for a real
    // bench run (or with no filter).
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let Some(b) = Bench::new() else {
        eprintln!("no temporary dir");
        return;
    };
    let rounds: usize = std::env::var("DISK_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let base = ten_thousand();
    let n = base.items.len();
    let fixtures = [
        ("base", base.clone()),
        ("edits-1k", edited(base.clone(), 10)),
        ("edits-10k", edited(base, 1)),
    ];
    for (name, f) in &fixtures {
        if let Err(e) = f.write(&b.path(&format!("{name}.json"))) {
            eprintln!("cannot write the fixture: {e}");
            return;
        }
    }
    let fixture = |name: &str| b.path(&format!("{name}.json"));
    eprintln!("disk bench: {rounds} rounds, {n} items, binary {BIN}");

    // First look: a fresh state dir, every item new.
    let mut first = Rows {
        name: "first look",
        files: String::new(),
        pairs: Vec::new(),
    };
    for r in 0..rounds {
        let state = b.path(&format!("first-{r}"));
        let floor_dir = b.path(&format!("first-floor-{r}"));
        let (bin, floor) = alternately(
            r,
            || b.items(&fixture("base"), &state),
            || b.floor("create", &fixture("base"), &floor_dir, n),
        );
        let Some((bin, _)) = bin else { return };
        first.files = format!("{} files", files_below(&state));
        first.pairs.push((bin, floor));
        let _ = std::fs::remove_dir_all(&state);
        let _ = std::fs::remove_dir_all(&floor_dir);
    }

    // After edits: a state dir with every item seen (and its index built, as on any later day),
    // then the edited PR; the floor replaces as many files among 10,000.
    let mut edits = Vec::new();
    for (name, label, changed) in [
        ("edits-1k", "after 1,000 edits", n / 10),
        ("edits-10k", "after 10,000 edits", n),
    ] {
        let mut rows = Rows {
            name: label,
            files: format!("{changed} markers rewritten, 1 log appended"),
            pairs: Vec::new(),
        };
        for r in 0..rounds {
            let state = b.path(&format!("{name}-{r}"));
            let floor_dir = b.path(&format!("{name}-floor-{r}"));
            // Not timed: the first look, the settle time the index needs, the run that builds
            // it; the floor's 10,000 files.
            if b.items(&fixture("base"), &state).is_none() {
                return;
            }
            let _ = b.floor("create", &fixture("base"), &floor_dir, n);
            std::thread::sleep(Duration::from_millis(3_100));
            if b.items(&fixture("base"), &state).is_none() {
                return;
            }
            let (bin, floor) = alternately(
                r,
                || b.items(&fixture(name), &state),
                || b.floor("replace", &fixture(name), &floor_dir, changed),
            );
            let Some((bin, _)) = bin else { return };
            rows.pairs.push((bin, floor));
            let _ = std::fs::remove_dir_all(&state);
            let _ = std::fs::remove_dir_all(&floor_dir);
        }
        edits.push(rows);
    }

    println!(
        "\n| run ({n} items) | written | binary: median (each round) | floor: median (each round) | binary / floor: median (range) |"
    );
    println!("|---|---|---|---|---|");
    first.print();
    for rows in &edits {
        rows.print();
    }
    let parse_only = b
        .floor("none", &fixture("base"), &b.path("none"), 0)
        .map_or_else(|| "not measured".to_owned(), |d| format!("{:.0} ms", ms(d)));
    println!("\n`json.load` of the fixture alone (in the floor): {parse_only}");

    // Peak memory at 50,000 items: the first look, the next run, and one served by the index.
    let big = synth(SynthSpec {
        threads: 25_000,
        comments: 20_000,
        reviews: 5_000,
        replies: 3,
        seed: 1,
    });
    let big_path = b.path("big50.json");
    if let Err(e) = big.write(&big_path) {
        eprintln!("cannot write the 50,000-item fixture: {e}");
        return;
    }
    drop(big);
    let state = b.path("big50-state");
    let mib = |run: Option<(Duration, Option<u64>)>| match run {
        Some((t, Some(kib))) => {
            format!("{:.1} MiB ({:.2} s)", kib as f64 / 1024.0, t.as_secs_f64())
        }
        Some((t, None)) => format!("not measured, no {GNU_TIME} ({:.2} s)", t.as_secs_f64()),
        None => "failed".to_owned(),
    };
    let first_look = mib(b.items(&big_path, &state));
    let next = mib(b.items(&big_path, &state));
    std::thread::sleep(Duration::from_millis(3_100));
    let _ = b.items(&big_path, &state);
    let indexed = mib(b.items(&big_path, &state));
    println!("\n| 50,000 items (56 MB fixture) | peak RSS (wall) |\n|---|---|");
    println!("| first look | {first_look} |");
    println!("| the next run | {next} |");
    println!("| a later run (markers served by the index) | {indexed} |");
}
