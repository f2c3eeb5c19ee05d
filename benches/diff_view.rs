//! The diff view on a 300-file, 50,000-line PR: the first frame of a file's diff (opening it
//! from the files screen: parsing that one file's patch, laying out its rows with threads and
//! findings, drawing; highlighting runs off the draw path) and a scroll keystroke (one line
//! down plus the frame). Goals: first frame ≤ 150 ms, keystroke ≤ 16 ms. The same side by side
//! at 200×50 (`diff_layout = "split"`), and the unified keystroke on a file whose every
//! removed/added pair has changed words marked (goal: marks add ≤ 20 %); a whole expanded
//! 10,000-line file's first frame after its texts arrived (goal: ≤ 50 ms). Results and how to
//! reproduce: docs/perf.md, "## Console: the diff view".

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use pr_shepherd::config::DiffLayout;
use pr_shepherd::pr::{ChangedFile, Snapshot};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use pr_shepherd::tui::app::{Action, App, CodeLoad, Done, Drawn, code};
use pr_shepherd::tui::keymap::KeyCommand;
use pr_shepherd::tui::{Keymap, Session, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const NOW: i64 = 1_795_392_000;
const FILES: usize = 300;
const LINES: usize = 50_000;

/// A patch of `n` lines in hunks of 40 (context, removed, added).
fn patch(n: usize, seed: usize) -> String {
    let mut out = String::new();
    let mut line = 1;
    let mut done = 0;
    while done < n {
        let len = 40.min(n - done);
        out.push_str(&format!("@@ -{line},{len} +{line},{len} @@ fn f{seed}()\n"));
        for k in 0..len {
            match k % 4 {
                0 => out.push_str(&format!("-    let old_{k} = compute({seed}, {k});\n")),
                1 => out.push_str(&format!("+    let new_{k} = compute({seed}, {k}) + 1;\n")),
                _ => out.push_str(&format!("     call_{k}(&mut state, \"{seed}\");\n")),
            }
        }
        done += len;
        line += len + 10;
    }
    out
}

fn big_snapshot() -> Snapshot {
    let f = Fixture::parse(DEMO_FIXTURE, Path::new("demo.json")).unwrap_or_else(|e| panic!("{e}"));
    let mut s = f.snapshot_at(0).unwrap_or_else(|e| panic!("{e}"));
    let per = LINES / FILES;
    s.pr.files = (0..FILES)
        .map(|i| {
            let n = if i == 0 {
                LINES - per * (FILES - 1)
            } else {
                per
            };
            let mut file =
                ChangedFile::new(&format!("src/module_{i}/file_{i}.rs"), Some(patch(n, i)));
            file.additions = (n / 4) as u32;
            file.deletions = (n / 4) as u32;
            file
        })
        .collect();
    let total: usize =
        s.pr.files
            .iter()
            .map(|f| f.patch.as_deref().map_or(0, |p| p.lines().count()))
            .sum();
    assert!(total >= LINES, "{total}");
    s
}

/// The console with the big PR's files screen open and loaded.
fn files_open(snapshot: Snapshot) -> App {
    files_open_as(snapshot, DiffLayout::Auto)
}

/// [`files_open`] with the diff's layout `layout`.
fn files_open_as(snapshot: Snapshot, layout: DiffLayout) -> App {
    let coords = snapshot.pr.coords();
    let mut app = App::new(
        snapshot,
        Default::default(),
        Session {
            now: NOW,
            diff_layout: layout,
            ..Session::default()
        },
    );
    app.update(Action::Command(KeyCommand::Files));
    let loaded = code::Done::Loaded(Ok(Box::new(CodeLoad::empty(coords))));
    // The files screen on top asked for it: its answer goes there.
    app.update(Action::to(app.top_id(), Action::Done(Done::new(loaded))));
    app
}

fn frame(term: &mut Terminal<TestBackend>, app: &App, theme: &Theme, keymap: &Keymap) -> Drawn {
    let mut d = Drawn::default();
    let _ = term.draw(|f| d = app.draw(f, theme, keymap));
    d
}

fn diff_view(c: &mut Criterion) {
    let theme = Theme::default_theme();
    let keymap = Keymap::default();
    let mut app = files_open(big_snapshot());
    let Ok(mut term) = Terminal::new(TestBackend::new(120, 40));
    // The first file is the largest (166 + the remainder lines); open the middle one.
    for _ in 0..FILES / 2 {
        app.update(Action::Command(KeyCommand::Down));
    }

    c.bench_function("diff_view/first_frame_300_files_50k_lines_120x40", |b| {
        b.iter(|| {
            app.update(Action::Command(KeyCommand::Toggle));
            let d = frame(&mut term, &app, &theme, &keymap);
            app.update(Action::Command(KeyCommand::Quit));
            black_box(d)
        })
    });

    // Scrolling: one line down (alternating direction after the half) plus the frame.
    app.update(Action::Command(KeyCommand::Toggle));
    let d = frame(&mut term, &app, &theme, &keymap);
    app.update(Action::Drawn(Drawn { shown: None, ..d }));
    let mut step = 0usize;
    c.bench_function("diff_view/scroll_keystroke_120x40", |b| {
        b.iter(|| {
            let cmd = if (step / 100).is_multiple_of(2) {
                KeyCommand::Down
            } else {
                KeyCommand::Up
            };
            step += 1;
            app.update(Action::Command(cmd));
            black_box(frame(&mut term, &app, &theme, &keymap))
        })
    });
}

/// Side by side at 200×50: the first frame and a keystroke, as above.
fn split_view(c: &mut Criterion) {
    let theme = Theme::default_theme();
    let keymap = Keymap::default();
    let mut app = files_open_as(big_snapshot(), DiffLayout::Split);
    let Ok(mut term) = Terminal::new(TestBackend::new(200, 50));
    for _ in 0..FILES / 2 {
        app.update(Action::Command(KeyCommand::Down));
    }
    c.bench_function(
        "diff_view/split_first_frame_300_files_50k_lines_200x50",
        |b| {
            b.iter(|| {
                app.update(Action::Command(KeyCommand::Toggle));
                let d = frame(&mut term, &app, &theme, &keymap);
                app.update(Action::Command(KeyCommand::Quit));
                black_box(d)
            })
        },
    );
    app.update(Action::Command(KeyCommand::Toggle));
    let d = frame(&mut term, &app, &theme, &keymap);
    app.update(Action::Drawn(Drawn { shown: None, ..d }));
    let mut step = 0usize;
    c.bench_function("diff_view/split_scroll_keystroke_200x50", |b| {
        b.iter(|| {
            let cmd = if (step / 100).is_multiple_of(2) {
                KeyCommand::Down
            } else {
                KeyCommand::Up
            };
            step += 1;
            app.update(Action::Command(cmd));
            black_box(frame(&mut term, &app, &theme, &keymap))
        })
    });
}

/// A patch of `n` lines where every removed line has an added line beside it: hunks of 40, pairs
/// and context. `marked`: the added line is alike (each pair gets word marks); else it is as long
/// but shares no word with it (no marks): the same drawing without the marks, the baseline.
fn paired_patch(n: usize, seed: usize, marked: bool) -> String {
    let mut out = String::new();
    let mut line = 1;
    let mut done = 0;
    while done < n {
        let len = 40.min(n - done);
        out.push_str(&format!("@@ -{line},{len} +{line},{len} @@ fn f{seed}()\n"));
        for k in 0..len {
            match k % 4 {
                0 => out.push_str(&format!(
                    "-    let value_{k} = compute({seed}, {k}, old);\n"
                )),
                1 => {
                    let added =
                        format!("    let value_{} = compute({seed}, {}, new);", k - 1, k - 1);
                    if marked {
                        out.push_str(&format!("+{added}\n"));
                    } else {
                        out.push_str(&format!("+    {}\n", "x".repeat(added.len() - 4)));
                    }
                }
                _ => out.push_str(&format!("     call_{k}(&mut state, \"{seed}\");\n")),
            }
        }
        done += len;
        line += len + 10;
    }
    out
}

/// The unified keystroke at 120×40 on files whose pairs all carry word marks, and in the same
/// run on files of the same shape whose pairs carry none (what the marks add).
fn word_marks(c: &mut Criterion) {
    for marked in [true, false] {
        marks_keystroke(c, marked);
    }
}

fn marks_keystroke(c: &mut Criterion, marked: bool) {
    let theme = Theme::default_theme();
    let keymap = Keymap::default();
    let mut s = big_snapshot();
    for (i, f) in s.pr.files.iter_mut().enumerate() {
        let n = f.patch.as_deref().map_or(0, |p| p.lines().count());
        let patch = paired_patch(n, i, marked);
        let marks = pr_shepherd::code::words::marks_by_line(&pr_shepherd::code::parse(&patch));
        assert_eq!(
            marks.is_empty(),
            !marked,
            "the baseline has no marks, the other all"
        );
        f.patch = Some(patch);
    }
    let mut app = files_open(s);
    let Ok(mut term) = Terminal::new(TestBackend::new(120, 40));
    for _ in 0..FILES / 2 {
        app.update(Action::Command(KeyCommand::Down));
    }
    app.update(Action::Command(KeyCommand::Toggle));
    let d = frame(&mut term, &app, &theme, &keymap);
    app.update(Action::Drawn(Drawn { shown: None, ..d }));
    let mut step = 0usize;
    let name = if marked {
        "diff_view/word_marks_scroll_keystroke_120x40"
    } else {
        "diff_view/no_marks_scroll_keystroke_120x40"
    };
    c.bench_function(name, |b| {
        b.iter(|| {
            let cmd = if (step / 100).is_multiple_of(2) {
                KeyCommand::Down
            } else {
                KeyCommand::Up
            };
            step += 1;
            app.update(Action::Command(cmd));
            black_box(frame(&mut term, &app, &theme, &keymap))
        })
    });
}

/// The lines of the expanded file.
const EXPANDED_LINES: usize = 10_000;

/// A 10,000-line file (base and head) and its patch: a changed line every 500 lines, three
/// lines of context around each (20 hunks, 19 gaps between them plus the ends).
fn big_file() -> (String, String, String) {
    let line = |i: usize| format!("    let value_{i} = compute(state, {i}); // line {i}");
    let mut base = String::new();
    let mut head = String::new();
    let mut patch = String::new();
    for i in 1..=EXPANDED_LINES {
        base.push_str(&line(i));
        base.push('\n');
        if i % 500 == 250 {
            head.push_str(&format!("{} + 1;\n", line(i)));
        } else {
            head.push_str(&line(i));
            head.push('\n');
        }
    }
    for c in (250..EXPANDED_LINES).step_by(500) {
        patch.push_str(&format!("@@ -{},7 +{},7 @@ fn f()\n", c - 3, c - 3));
        for i in c - 3..=c + 3 {
            if i == c {
                patch.push_str(&format!("-{}\n+{} + 1;\n", line(i), line(i)));
            } else {
                patch.push_str(&format!(" {}\n", line(i)));
            }
        }
    }
    (base, head, patch)
}

/// A whole expanded 10,000-line file (`E`), the first frame after its texts arrived: the texts
/// delivered to the diff that asked for them (laying out the file's rows), then one frame, side
/// by side at 200×50 and unified at 120×40. Goal: ≤ 50 ms.
fn expanded_file(c: &mut Criterion) {
    let theme = Theme::default_theme();
    let keymap = Keymap::default();
    let (base, head, patch) = big_file();
    let (base, head): (std::sync::Arc<str>, std::sync::Arc<str>) = (base.into(), head.into());
    for (name, layout, w, h) in [
        (
            "diff_view/expanded_10k_line_file_first_frame_split_200x50",
            DiffLayout::Split,
            200,
            50,
        ),
        (
            "diff_view/expanded_10k_line_file_first_frame_unified_120x40",
            DiffLayout::Unified,
            120,
            40,
        ),
    ] {
        let mut s = big_snapshot();
        let mut file = ChangedFile::new("src/big.rs", Some(patch.clone()));
        file.additions = 20;
        file.deletions = 20;
        s.pr.files = vec![file];
        let mut app = files_open_as(s, layout);
        let Ok(mut term) = Terminal::new(TestBackend::new(w, h));
        c.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut spent = std::time::Duration::ZERO;
                for _ in 0..iters {
                    app.update(Action::Command(KeyCommand::Toggle));
                    let d = frame(&mut term, &app, &theme, &keymap);
                    app.update(Action::Drawn(Drawn { shown: None, ..d }));
                    // `E` asks for the texts; they arrive, and the first frame shows them.
                    app.update(Action::Command(KeyCommand::ExpandFile));
                    let read = code::Done::Contents {
                        path: "src/big.rs".to_owned(),
                        head: Some(Ok(std::sync::Arc::clone(&head))),
                        base: Some(Ok(std::sync::Arc::clone(&base))),
                    };
                    let start = std::time::Instant::now();
                    app.update(Action::to(app.top_id(), Action::Done(Done::new(read))));
                    black_box(frame(&mut term, &app, &theme, &keymap));
                    spent += start.elapsed();
                    app.update(Action::Command(KeyCommand::Quit));
                }
                spent
            })
        });
    }
}

criterion_group!(benches, diff_view, split_view, word_marks, expanded_file);
criterion_main!(benches);
