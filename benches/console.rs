//! Console speed: frame render time on a 10,000-item PR (target ≤ 2 ms per frame) and time to
//! first frame for the bundled demo (target ≤ 150 ms). Results and how to reproduce:
//! docs/perf.md, "## Console".

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
            let cmd = if down {
                KeyCommand::Down
            } else {
                KeyCommand::Up
            };
            down = !down;
            app.update(Action::Command(cmd));
            let mut d = Drawn::default();
            let _ = term.draw(|f| d = app.draw(f, &theme, &keymap));
            black_box(d)
        })
    });
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

criterion_group!(benches, frame, first_frame);
criterion_main!(benches);
