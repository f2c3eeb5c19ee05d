//! The inbox table in a real terminal (tmux, the real binary): the column headers that show at
//! 80, 120 and 200 columns (the TestBackend snapshots of `dashboard.rs` show the same tables),
//! and the default sections as the console's tabs against the loopback GitHub.

use crate::support;

use std::path::Path;

use super::e2e::{REPORT_EXIT, Tmux, console, inbox_row, quote};
use support::env::TestEnv;

/// The table's header row: the line with both `PR` and `title`, its words.
fn header(screen: &str) -> Vec<String> {
    screen
        .lines()
        .find(|l| l.contains(" PR ") && l.contains(" title "))
        .unwrap_or_default()
        .trim_matches(|c: char| c == '│' || c.is_whitespace())
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// A frame of the bundled inbox is whole once its last row and its footer are drawn.
fn table_drawn(s: &str, cols: usize) -> bool {
    inbox_row(s, 471).is_some()
        && s.contains("q quit")
        && s.lines()
            .any(|l| l.chars().count() == cols && l.contains(" PR "))
}

#[test]
fn the_inbox_table_in_tmux_shows_the_columns_that_fit_at_80_120_and_200() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "table") else {
        return;
    };
    tmux.start(80, 16, &(console(&env, &[]) + REPORT_EXIT));
    let at = |cols: usize| {
        if cols != 80 {
            let c = cols.to_string();
            tmux.run(&["resize-window", "-t", "e2e", "-x", &c, "-y", "16"]);
        }
        let screen = tmux.wait_for(&format!("the table at {cols} columns"), |s| {
            table_drawn(s, cols)
        });
        (header(&screen), screen)
    };

    // The title gives up cells before the checks or the review column goes.
    let (head, screen) = at(80);
    assert_eq!(
        head,
        ["PR", "unseen", "title", "checks", "review", "asks"],
        "{screen}"
    );
    // One repository: named once, on the table's frame; the rows by number.
    assert!(screen.contains("┌ acme/rivet ─"), "{screen}");

    let (head, screen) = at(120);
    assert_eq!(
        head,
        [
            "PR", "unseen", "title", "checks", "review", "asks", "shepherd", "gate"
        ],
        "{screen}"
    );

    let (head, screen) = at(200);
    assert_eq!(
        head,
        [
            "PR", "unseen", "title", "checks", "review", "asks", "size", "age", "shepherd", "gate",
            "author"
        ],
        "{screen}"
    );
    // Every title reads whole; the labels wait for a wider terminal.
    assert!(
        screen.contains(
            "client: retry transient failures with exponential backoff (Rust, Python bindings, dashboard badge)"
        ),
        "{screen}"
    );

    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
}

#[test]
fn the_default_sections_are_the_consoles_tabs_live_in_tmux() {
    use support::fake_inbox::{FakeInbox, queue};
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "sections") else {
        return;
    };
    let Ok(rt) = tokio::runtime::Runtime::new() else {
        panic!("no runtime");
    };
    let (server, fake) = rt.block_on(FakeInbox::start(queue(6)));
    fake.with_dashboard();
    rt.block_on(fake.answer_searches(
        &server,
        &[
            ("review-requested:@me", vec![1, 5, 6]),
            ("author:@me", vec![3]),
            ("involves:@me -author:@me", vec![2, 5]),
        ],
    ));
    let cmd = format!(
        "GH_TOKEN=ghp_e2eSectionsLoopbackToken {} --api-url {}{REPORT_EXIT}",
        console(&env, &[]),
        quote(Path::new(&server.uri())),
    );
    tmux.start(120, 16, &cmd);
    let screen = tmux.wait_for("the first section, counted", |s| {
        s.contains("3 open PRs") && s.contains("q quit") && !s.contains("counting")
    });
    for tab in ["Needs my review", "Mine", "Involved"] {
        assert!(screen.contains(tab), "{tab}:\n{screen}");
    }
    // Each section's PRs are one repository's: its rows say `#N` under a frame naming it.
    assert!(screen.contains("┌ acme/widgets ─"), "{screen}");
    for n in [1, 5, 6] {
        assert!(inbox_row(&screen, n).is_some(), "#{n}:\n{screen}");
    }
    tmux.keys(&["Tab"]);
    // The Mine tab has the one PR alone (a capture may catch a frame half drawn: wait for it
    // whole).
    let only =
        |s: &str, shown: &[u64]| (1..=6).all(|n| inbox_row(s, n).is_some() == shown.contains(&n));
    tmux.wait_for("the Mine section", |s| {
        s.contains("1 open PR") && only(s, &[3])
    });
    tmux.keys(&["Tab"]);
    tmux.wait_for("the Involved section", |s| {
        s.contains("2 open PRs") && only(s, &[2, 5])
    });
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    // #5 is in two tabs, and fetched once.
    let fetched: Vec<u64> = fake
        .seen()
        .iter()
        .filter(|s| s.kind == "prs")
        .flat_map(|s| {
            (0..)
                .map_while(|i| s.variables.get(format!("number_{i}"))?.as_u64())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        fetched.iter().filter(|n| **n == 5).count(),
        1,
        "{fetched:?}"
    );
}
