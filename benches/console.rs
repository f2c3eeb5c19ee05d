//! Console speed: frame render time on a 10,000-item PR (target ≤ 2 ms per frame), time to
//! first frame for the bundled demo (target ≤ 150 ms), and one keystroke plus the frame on a PR
//! whose selected item is a long Markdown comment, its Markdown cached or rendered every frame.
//! Results and how to reproduce: docs/perf.md, "## Console" and "## Console: comment Markdown".

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::source::synth::{SynthSpec, synth};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use pr_shepherd::tui::app::{Action, App, Drawn};
use pr_shepherd::tui::keymap::KeyCommand;
use pr_shepherd::tui::{Keymap, Session, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const NOW: i64 = 1_795_392_000;

fn big_app() -> App {
    let f = synth(SynthSpec {
        threads: 4_000,
        comments: 4_000,
        reviews: 2_000,
        replies: 3,
        seed: 1,
    });
    let mut app = App::new(
        f.snapshot_at(0).unwrap_or_else(|e| panic!("{e}")),
        Default::default(),
        Session {
            now: NOW,
            ..Session::default()
        },
    );
    assert_eq!(app.row_count(), 10_000 + 3);
    app.update(Action::Drawn(Drawn {
        shown: None,
        list_height: 14,
        detail_height: 20,
        detail_lines: 0,
        detail_scroll: 0,
        ..Drawn::default()
    }));
    // Somewhere in the middle of the list.
    for _ in 0..700 {
        app.update(Action::Command(KeyCommand::PageDown));
    }
    app
}

fn frame(c: &mut Criterion) {
    let theme = Theme::default_theme();
    let keymap = Keymap::default();
    let mut app = big_app();
    let Ok(mut term) = Terminal::new(TestBackend::new(120, 40));

    c.bench_function("console/frame_10k_items_120x40", |b| {
        b.iter(|| {
            let mut d = Drawn::default();
            let _ = term.draw(|f| d = black_box(&app).draw(f, &theme, &keymap));
            black_box(d)
        })
    });

    // Scrolling: one row down (alternating direction) plus the frame, as a held j key does.
    let mut down = true;
    c.bench_function("console/scroll_step_10k_items_120x40", |b| {
        b.iter(|| {
            black_box(keystroke(
                &mut app, &mut term, &theme, &keymap, &mut down, false,
            ))
        })
    });
}

/// One `j` or `k` (alternating with `down`) and the frame; `report`: then the after-frame report,
/// as the console loop sends it.
fn keystroke(
    app: &mut App,
    term: &mut Terminal<TestBackend>,
    theme: &Theme,
    keymap: &Keymap,
    down: &mut bool,
    report: bool,
) -> Drawn {
    let cmd = if *down {
        KeyCommand::Down
    } else {
        KeyCommand::Up
    };
    *down = !*down;
    app.update(Action::Command(cmd));
    let mut d = Drawn::default();
    let _ = term.draw(|f| d = app.draw(f, theme, keymap));
    if report {
        app.update(Action::Drawn(d));
    }
    d
}

fn first_frame(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let keymap = Keymap::default();
    c.bench_function("console/first_frame_demo", |b| {
        b.iter(|| {
            // Everything the binary does after parsing arguments, except entering raw mode:
            // theme, fixture, ledger read, triage, layout and the first draw.
            let theme = Theme::default_theme();
            let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json"))
                .unwrap_or_else(|e| panic!("{e}"));
            let snapshot = f.snapshot_at(0).unwrap_or_else(|e| panic!("{e}"));
            let seen = Ledger::new(dir.path())
                .load_seen(&snapshot.pr.coords())
                .unwrap_or_else(|e| panic!("{e}"));
            let app = App::new(
                snapshot,
                seen,
                Session {
                    now: NOW,
                    ..Session::default()
                },
            );
            let Ok(mut term) = Terminal::new(TestBackend::new(120, 40));
            let mut d = Drawn::default();
            let _ = term.draw(|fr| d = app.draw(fr, &theme, &keymap));
            black_box(d)
        })
    });
}

/// A long Markdown comment: headings, tables, code blocks, lists, quotes and links, 24 sections
/// (about 27,000 characters).
fn long_markdown() -> String {
    let mut body = String::from("## Benchmarks and notes\n\n");
    for i in 0..24 {
        body.push_str(&format!(
            "### Section {i}\n\nThe **pool** now retries _transient_ failures with `backoff` \
             ([design](https://example.com/design/{i})), and keeps the caller's deadline.\n\n\
             | bench | before | after | change |\n|---|---:|---:|---:|\n\
             | acquire (uncontended) | 210 ns | 190 ns | -9 % |\n\
             | acquire (8 threads) | 4.1 µs | 2.3 µs | -44 % |\n\
             | release | 80 ns | 82 ns | +2 % |\n\n\
             ```rust\nfn acquire(&self) -> Result<Conn, Error> {{\n    let deadline = Instant::now() + self.timeout;\n    \
             loop {{\n        if let Some(c) = self.idle.pop() {{ return Ok(c); }}\n        \
             self.wait_until(deadline)?;\n    }}\n}}\n```\n\n\
             - one point about the change\n- another, longer point that wraps across the detail \
             pane's width at 120 columns\n  1. nested\n  2. nested again\n\n\
             > quoted reviewer text for section {i}\n\n"
        ));
    }
    body
}

/// The demo PR with one item: a long Markdown conversation comment, selected, the detail pane
/// focused; `cached`: the session has the theme, so the Markdown is rendered into the cache after
/// a frame (else every frame renders it, as before the cache).
fn markdown_app(theme: &Theme, cached: bool) -> App {
    use pr_shepherd::pr::{Association, Author, Comment, Item};
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap_or_else(|e| panic!("{e}"));
    let mut snapshot = f.snapshot_at(0).unwrap_or_else(|e| panic!("{e}"));
    snapshot.items = vec![Item::Comment(Comment {
        id: "IC_long".to_owned(),
        author: Author {
            login: "tomasz-w".to_owned(),
            association: Association::Contributor,
            bot: false,
        },
        created_at: chrono::DateTime::from_timestamp(NOW - 3_600, 0).unwrap_or_default(),
        last_edited_at: None,
        url: "https://github.com/acme/rivet/pull/482#issuecomment-1".to_owned(),
        body: long_markdown(),
        minimized: false,
        minimized_reason: None,
    })];
    let mut app = App::new(
        snapshot,
        Default::default(),
        Session {
            now: NOW,
            theme: cached.then(|| theme.clone()),
            ..Session::default()
        },
    );
    app.update(Action::Command(KeyCommand::Focus));
    app
}

/// One `j`/`k` in the detail pane of a long Markdown comment, the frame, and the after-frame
/// report (as the console loop does), with and without the Markdown cache.
fn markdown_keystroke(c: &mut Criterion) {
    let theme = Theme::default_theme();
    let keymap = Keymap::default();
    for (name, cached) in [
        ("console/markdown_keystroke_cached_120x40", true),
        ("console/markdown_keystroke_uncached_120x40", false),
    ] {
        let mut app = markdown_app(&theme, cached);
        let Ok(mut term) = Terminal::new(TestBackend::new(120, 40));
        let mut d = Drawn::default();
        let _ = term.draw(|f| d = app.draw(f, &theme, &keymap));
        app.update(Action::Drawn(d));
        let mut down = true;
        c.bench_function(name, |b| {
            b.iter(|| {
                black_box(keystroke(
                    &mut app, &mut term, &theme, &keymap, &mut down, true,
                ))
            })
        });
    }
}

criterion_group!(benches, frame, first_frame, markdown_keystroke);
criterion_main!(benches);
