//! End to end: the real binary in a real terminal (tmux): without an argument it opens the
//! inbox of the bundled fixtures (inbox → Enter → the demo PR → q → inbox → q); the other tests
//! open the demo PR directly by naming its fixture file.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::env::{BIN, TestEnv};

/// A tmux server on its own socket, killed when dropped; it and its panes get the test
/// environment, nothing of the user's.
pub(crate) struct Tmux<'a> {
    socket: String,
    env: &'a TestEnv,
}

impl<'a> Tmux<'a> {
    /// A server of its own for the test `tag` (none runs until [`Tmux::start`]); `None`, with a
    /// note, when tmux is not installed.
    pub(crate) fn new(env: &'a TestEnv, tag: &str) -> Option<Tmux<'a>> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("skipping console_e2e: tmux is not installed (.ci/run installs it)");
            return None;
        }
        Some(Tmux {
            socket: format!("prs-e2e-{tag}-{}", std::process::id()),
            env,
        })
    }

    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.env
            .tmux()
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs `script` (sh) in a new detached session `e2e` of `cols`×`rows`. The server stays up
    /// when its last session ends (`exit-empty off`): a session started again after the first
    /// one's pane died then goes to the same, running server. (With the default, the server
    /// exits once the pane is gone, and a `new-session` that reaches its socket while it is
    /// still shutting down fails with "server exited unexpectedly", or its pane never shows.)
    pub(crate) fn start(&self, cols: u16, rows: u16, script: &str) {
        let (cols, rows) = (cols.to_string(), rows.to_string());
        let out = self.run(&[
            "set-option",
            "-g",
            "exit-empty",
            "off",
            ";",
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            &cols,
            "-y",
            &rows,
            "sh",
            "-c",
            script,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        self.run(&[&["send-keys", "-t", "e2e"][..], keys].concat());
    }

    /// The pane's text; when tmux cannot show it, what tmux said instead (for a timeout message).
    pub(crate) fn capture(&self) -> Result<String, String> {
        let out = self.run(&["capture-pane", "-p", "-t", "e2e"]);
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    pub(crate) fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if let Ok(s) = &screen
                && cond(s)
            {
                return s.clone();
            }
            if start.elapsed() > Duration::from_secs(30) {
                match screen {
                    Ok(s) => panic!("timed out waiting for {what}; screen:\n{s}"),
                    Err(e) => panic!("timed out waiting for {what}; no screen: {e}"),
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// tmux's `#{alternate_on}` for the pane: "1" while the console holds the alternate screen.
    pub(crate) fn alternate_on(&self) -> String {
        let out = self.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// After the console exited with a [`REPORT_EXIT`] script: raw mode and the alternate
    /// screen are off again.
    pub(crate) fn assert_terminal_restored(&self) {
        let screen = self.wait_for("stty output", |s| {
            s.lines().any(|l| l.trim().ends_with("icanon"))
        });
        assert!(
            screen.lines().any(|l| l.trim() == "icanon"),
            "raw mode was left on:\n{screen}"
        );
        assert_eq!(self.alternate_on(), "0", "alternate screen left");
    }
}

impl Drop for Tmux<'_> {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The footer (bottom row) is written last, so a capture that has it holds the whole frame.
fn first_frame_complete(s: &str) -> bool {
    s.contains("acme/rivet#482") && s.contains("▶") && s.contains("Tab detail")
}

/// The demo fixture file: naming it opens the PR screen directly (no argument opens the inbox).
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/fixtures/demo.json");

/// The inbox screen is complete once its footer is drawn.
fn inbox_complete(s: &str) -> bool {
    inbox_row(s, 482).is_some() && inbox_row(s, 497).is_some() && s.contains("Enter open  ]")
}

/// The PR an inbox row of a one-repository tab names: `│`, the two cells of the marker, then
/// `#N` and a blank.
pub(crate) fn row_pr(line: &str) -> Option<u64> {
    let rest: String = line.strip_prefix('│')?.chars().skip(2).collect();
    let digits: String = rest
        .strip_prefix('#')?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    rest.get(1 + digits.len()..)?
        .starts_with(' ')
        .then_some(())?;
    digits.parse().ok()
}

/// The inbox row of PR `n` in a one-repository tab, if on screen.
pub(crate) fn inbox_row(s: &str, n: u64) -> Option<&str> {
    s.lines().find(|l| row_pr(l) == Some(n))
}

pub(crate) fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The console on the test's state dir and (empty) config file, then `args`, as a shell command.
pub(crate) fn console(env: &TestEnv, args: &[&Path]) -> String {
    let mut cmd = format!(
        "{} --state-dir {} --config {}",
        quote(Path::new(BIN)),
        quote(&env.state()),
        quote(&env.config()),
    );
    for a in args {
        cmd.push(' ');
        cmd.push_str(&quote(a));
    }
    cmd
}

/// After the console: its exit code, then whether the terminal is back in canonical mode; the
/// pane stays open to be read.
pub(crate) const REPORT_EXIT: &str =
    "; echo CONSOLE-EXITED:$?; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon; sleep 60";

#[test]
fn console_in_tmux_shows_badges_navigates_and_restores_the_terminal() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "inbox") else {
        return;
    };
    tmux.start(100, 30, &(console(&env, &[]) + REPORT_EXIT));

    // No argument: the inbox of the bundled fixtures. Find the demo and open it.
    let screen = tmux.wait_for("the inbox", inbox_complete);
    assert!(screen.contains("18 new"), "{screen}");
    // At 100 columns the title keeps half the row.
    assert!(
        screen.contains("docs: fix the typo in the retry guide"),
        "{screen}"
    );
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "482"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("the search applied", |s| {
        s.contains("search `482`") && inbox_row(s, 497).is_none()
    });
    tmux.keys(&["Enter"]);

    let screen = tmux.wait_for("the console", first_frame_complete);
    assert!(screen.contains(" NEW "), "{screen}");
    assert!(screen.contains("Review threads (7)"), "{screen}");
    assert!(screen.contains("MINIMIZED(spam)"), "{screen}");
    let selected = |s: &str, who: &str| s.lines().any(|l| l.contains('▶') && l.contains(who));
    assert!(selected(&screen, "@maya-chen"), "{screen}");
    assert_eq!(tmux.alternate_on(), "1");
    // An item counts as seen once it stayed on screen for the dwell (`[console] dwell_ms`).
    tmux.wait_for("the first item read", |s| s.contains("✓ 1 seen now"));

    tmux.keys(&["j"]);
    tmux.wait_for("the second row selected", |s| selected(s, "@rajesh-k"));
    tmux.wait_for("the second item read", |s| s.contains("✓ 2 seen now"));
    tmux.keys(&["?"]);
    tmux.wait_for("the help overlay", |s| s.contains("Keys (config.toml"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("help closed", |s| !s.contains("Keys (config.toml"));

    // q leaves the PR for the inbox, whose row now counts the two items seen; q quits.
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the inbox again", |s| {
        s.contains("Enter open  ]") && inbox_row(s, 482).is_some_and(|l| l.contains("16 new"))
    });
    // The bundled fixtures are one repository's: named once, on the table's frame.
    assert!(screen.contains("┌ acme/rivet ─"), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    assert!(
        !screen.contains("┌ acme/rivet") && inbox_row(&screen, 482).is_none(),
        "the console is gone:\n{screen}"
    );
    tmux.assert_terminal_restored();

    // The two items that were shown are marked seen; nothing else.
    let files = std::fs::read_dir(support::demo_dir(&env.state()).join("seen"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".json"))
        })
        .count();
    assert_eq!(files, 2);
}

#[cfg(target_os = "linux")] // finds the console's pid through /proc
#[test]
fn sigterm_restores_the_terminal() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "term") else {
        return;
    };
    tmux.start(100, 30, &(console(&env, &[Path::new(DEMO)]) + REPORT_EXIT));
    tmux.wait_for("the console", first_frame_complete);
    // The console is the shell's only child.
    let out = tmux.run(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]);
    let sh: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let children = std::fs::read_to_string(format!("/proc/{sh}/task/{sh}/children")).unwrap();
    let pid: u32 = children.split_whitespace().next().unwrap().parse().unwrap();
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("interrupted by SIGTERM"), "{screen}");
    assert!(screen.contains("CONSOLE-EXITED:1"), "{screen}");
    tmux.assert_terminal_restored();
}

#[test]
fn without_a_terminal_the_console_refuses_with_exit_2() {
    let env = TestEnv::new();
    let config = env.config();
    let out = env
        .bin()
        .args(["--state-dir"])
        .arg(env.root())
        .arg("--config")
        .arg(&config)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pr-shepherd items"), "{err}");
}

#[test]
fn invalid_config_and_theme_exit_2_naming_the_problem() {
    let env = TestEnv::new();
    let config = env.root().join("config.toml");
    std::fs::write(&config, "[keys]\ndown = \"Hyper\"\n").unwrap();
    let out = env.bin().arg("--config").arg(&config).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keys.down"), "{err}");

    std::fs::write(&config, "").unwrap();
    let out = env
        .bin()
        .arg("--config")
        .arg(&config)
        .args(["--theme", "sepia"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sepia"));

    let out = env
        .bin()
        .arg("--config")
        .arg(env.root().join("missing.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn review_draft_survives_kill_9_and_is_restored() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "kill") else {
        return;
    };
    let pidfile = env.root().join("pid");
    let demo = Path::new(DEMO);
    // `exec`: the pid written is the console's own.
    let script = format!(
        "echo $$ > {}; exec {}",
        quote(&pidfile),
        console(&env, &[demo])
    );
    tmux.start(110, 34, &script);
    tmux.wait_for("the console", first_frame_complete);
    tmux.keys(&["r"]);
    tmux.wait_for("the review", |s| s.contains("review finished"));
    tmux.keys(&["e"]);
    tmux.wait_for("the editor", |s| s.contains("Editing the review"));
    tmux.keys(&["Down", "Down"]);
    tmux.keys(&["-l", "E2E typed note"]);
    let draft = support::demo_dir(&env.state()).join("draft.json");
    let t0 = Instant::now();
    while !std::fs::read_to_string(&draft).is_ok_and(|s| s.contains("E2E typed note")) {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the draft was not autosaved; screen:\n{:?}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let killed = Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    // The pane ends with the console; the server stays up (see `Tmux::start`).
    let t0 = Instant::now();
    while tmux.run(&["has-session", "-t", "e2e"]).status.success() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the pane did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Reopen: the draft is back, and says so. Tall enough for the body below the restored
    // run's findings picker (each finding wrapped whole).
    tmux.start(110, 110, &(console(&env, &[demo]) + REPORT_EXIT));
    let screen = tmux.wait_for("the restored draft", |s| {
        s.contains("acme/rivet#482") && s.contains("Restored draft") && s.contains("discard")
    });
    assert!(screen.contains("Restored draft"), "{screen}");
    // The typed note is in the body, below the findings (each wrapped whole): the pane scrolls
    // to it.
    tmux.keys(&["Tab"]);
    tmux.wait_for("the typed note, the pane scrolled", |s| {
        let found = s.contains("E2E typed note");
        if !found {
            tmux.keys(&["C-d"]);
        }
        found
    });
    // The restored draft opens the review pane: `q` closes it, `Q` quits from anywhere, asking
    // first because the draft is still unposted.
    tmux.keys(&["Q"]);
    tmux.wait_for("the quit confirmation", |s| {
        s.contains("Quit?") && s.contains("review draft of acme/rivet#482")
    });
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
}

/// `pr-shepherd OWNER/REPO` against a loopback GitHub: a repository that does not exist ends
/// with exit 2 and GitHub's reason before any screen (as `inbox` does); one that exists opens
/// the inbox with its open PRs, counted.
#[test]
fn a_live_repository_on_the_command_line_opens_its_inbox_or_exits_2() {
    use support::fake_inbox::{FakeInbox, queue};
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "live") else {
        return;
    };
    let Ok(rt) = tokio::runtime::Runtime::new() else {
        panic!("no runtime");
    };
    let (server, _fake) = rt.block_on(FakeInbox::start(queue(3)));
    let live = |repo: &str| {
        format!(
            "GH_TOKEN=ghp_e2eLoopbackToken {} --api-url {} {repo}{REPORT_EXIT}",
            console(&env, &[]),
            quote(Path::new(&server.uri())),
        )
    };

    tmux.start(120, 20, &live("acme/nothing"));
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:2"), "{screen}");
    assert!(screen.contains("acme/nothing"), "{screen}");
    assert!(
        !screen.contains("Enter open"),
        "a screen was drawn:\n{screen}"
    );
    tmux.run(&["kill-session", "-t", "e2e"]);

    tmux.start(120, 20, &live("acme/widgets"));
    let screen = tmux.wait_for("the live inbox, counted", |s| {
        s.contains("3 open PRs") && s.contains("Enter open  ]") && !s.contains("counting")
    });
    // The tab is named after the repository; its rows say `#N`.
    assert!(screen.contains("Inbox  acme/widgets\n"), "{screen}");
    assert!((1..=3).all(|n| inbox_row(&screen, n).is_some()), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
}

/// While the console runs nothing else writes to the terminal: a rate-limited count and a
/// retried one leave their notes in the status line (bottom row) and the message log (`!`),
/// never painted over the screen.
#[test]
fn rate_limit_waits_and_retries_go_to_the_status_line_not_over_the_screen() {
    use support::fake_inbox::{FakeInbox, queue};
    use wiremock::ResponseTemplate;
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "notes") else {
        return;
    };
    let Ok(rt) = tokio::runtime::Runtime::new() else {
        panic!("no runtime");
    };
    let (server, fake) = rt.block_on(FakeInbox::start(queue(3)));
    let faulted = std::sync::atomic::AtomicUsize::new(0);
    fake.set_fault(Box::new(move |_, seen| {
        if seen.kind != "prs" {
            return None;
        }
        match faulted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
            0 => Some(
                ResponseTemplate::new(429)
                    .insert_header("retry-after", "1")
                    .insert_header("x-ratelimit-remaining", "0")
                    .insert_header("x-ratelimit-reset", "1893456000")
                    .set_body_string(r#"{"message": "API rate limit exceeded"}"#),
            ),
            1 => Some(ResponseTemplate::new(502).set_body_string("bad gateway")),
            _ => None,
        }
    }));
    let script = format!(
        "PR_SHEPHERD_HTTP_BACKOFF_MS=10 GH_TOKEN=ghp_e2eLoopbackToken {} --api-url {} acme/widgets{REPORT_EXIT}",
        console(&env, &[]),
        quote(Path::new(&server.uri())),
    );
    tmux.start(100, 24, &script);
    let screen = tmux.wait_for("the live inbox, counted after the waits", |s| {
        s.contains("3 open PRs") && !s.contains("counting") && s.contains("! messages")
    });
    assert_no_note_over_the_panes(&screen);
    assert!(
        status_line(&screen).contains("note:"),
        "the latest note is on the status line:\n{screen}"
    );
    tmux.keys(&["!"]);
    let log = tmux.wait_for("the message log", |s| s.contains("Messages, newest last"));
    assert!(
        log.contains("GitHub rate limit reached") && log.contains("resets at"),
        "the wait and its reset time are in the log:\n{log}"
    );
    assert!(
        log.contains("retrying in"),
        "the retry is in the log:\n{log}"
    );
    tmux.keys(&["C-l"]);
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("the inbox again", |s| !s.contains("Messages, newest last"));
    assert!((1..=3).all(|n| inbox_row(&screen, n).is_some()), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    assert!(
        !screen.contains("note:"),
        "nothing was written to stderr after the console either:\n{screen}"
    );
}

/// The status line: the last row drawn.
pub(crate) fn status_line(screen: &str) -> &str {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
}

/// Nothing but the status line carries a note: none is painted over the panes.
pub(crate) fn assert_no_note_over_the_panes(screen: &str) {
    let rows: Vec<&str> = screen.lines().collect();
    let last = rows
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or_default();
    for (i, row) in rows.iter().enumerate().take(last) {
        assert!(
            !row.contains("note:") && !row.contains("retrying") && !row.contains("rate limit"),
            "a note was painted over row {i}:\n{screen}"
        );
    }
}

/// The PR's code in the real binary: the description, the files (one marked viewed), a diff
/// with a thread and a finding on their lines, and after the demo's force-push step exactly
/// `retry.rs` changed since your last look.
#[test]
fn the_code_in_tmux_description_files_viewed_diff_and_a_force_push() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "code") else {
        return;
    };
    tmux.start(120, 32, &(console(&env, &[Path::new(DEMO)]) + REPORT_EXIT));
    tmux.wait_for("the console", first_frame_complete);
    // A Shepherd review (the fixture's recorded answers), posted to the outbox: its findings.
    tmux.keys(&["r"]);
    tmux.wait_for("the review", |s| s.contains("review finished"));
    tmux.keys(&["p"]);
    tmux.wait_for("the post question", |s| s.contains("Post the review?"));
    tmux.keys(&["y"]);
    tmux.wait_for("posted", |s| s.contains("outbox"));
    tmux.keys(&["q"]);
    // The description.
    tmux.keys(&["i"]);
    let s = tmux.wait_for("the description", |s| s.contains("· description"));
    assert!(s.contains("tomasz/retry-backoff → main"), "{s}");
    tmux.keys(&["q"]);
    // The files: one marked viewed (offline: the outbox).
    tmux.keys(&["F"]);
    tmux.wait_for("the files", |s| {
        s.contains("5 files") && s.contains("never seen")
    });
    tmux.keys(&["t"]);
    tmux.wait_for("marked viewed", |s| {
        s.contains("marked viewed: src/client/retry.rs")
    });
    tmux.keys(&["j", "U"]);
    // Its diff: a finding and a thread under their lines.
    tmux.keys(&["g", "Enter"]);
    tmux.wait_for("the diff", |s| {
        s.contains("src/client/retry.rs · added · +57")
    });
    tmux.keys(&["]"]);
    tmux.wait_for("a finding on its line", |s| s.contains("┆ finding ("));
    tmux.keys(&["G"]);
    tmux.wait_for("a thread on its line", |s| s.contains("┆ thread @"));
    // Every other file's diff, then the force-push step of the fixture.
    tmux.keys(&["q"]);
    for _ in 0..4 {
        tmux.keys(&["j", "Enter"]);
        tmux.wait_for("a diff", |s| s.contains(" · +") && s.contains("interdiff"));
        tmux.keys(&["q"]);
    }
    tmux.wait_for("all seen", |s| s.matches("seen now").count() == 5);
    tmux.keys(&["q", ">"]);
    tmux.wait_for("step 1", |s| s.contains("step 1 of 2"));
    tmux.keys(&[">"]);
    tmux.wait_for("step 2", |s| s.contains("step 2 of 2"));
    tmux.keys(&["F"]);
    let s = tmux.wait_for("changed since your last look", |s| {
        s.contains("since your last look: 1 changed, 4 unchanged")
    });
    let row = s
        .lines()
        .find(|l| l.contains("src/client/retry.rs"))
        .unwrap_or_default();
    assert!(row.contains("changed") && !row.contains("unchanged"), "{s}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the diff", |s| s.contains("changed since your last look"));
    tmux.keys(&["I"]);
    tmux.wait_for("the interdiff", |s| s.contains("3 lines only now"));
    tmux.keys(&["Q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    tmux.assert_terminal_restored();
}

/// The pending review in the real binary: in a file's diff, three lines selected and a
/// suggestion written on them beside the code (`V` `j` `j` `S`), the pending list (`P`), submitted as a comment review
/// after its confirmation — offline, into the review outbox with the request that would be sent.
#[test]
fn a_suggestion_on_selected_lines_is_submitted_from_the_pending_review_in_tmux() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "pending") else {
        return;
    };
    tmux.start(120, 32, &(console(&env, &[Path::new(DEMO)]) + REPORT_EXIT));
    tmux.wait_for("the console", first_frame_complete);
    tmux.keys(&["F"]);
    tmux.wait_for("the files", |s| s.contains("5 files"));
    tmux.keys(&["g", "Enter"]);
    tmux.wait_for("the diff", |s| {
        s.contains("src/client/retry.rs · added · +57")
    });
    tmux.keys(&["j", "j", "V", "j", "j", "S"]);
    tmux.wait_for("the composer, prefilled", |s| s.contains("```suggestion"));
    tmux.keys(&["Escape"]);
    // Kept in the pending review, under its lines in the diff; `P` lists it.
    tmux.wait_for("the comment under its lines", |s| s.contains("pending c1"));
    tmux.keys(&["P"]);
    tmux.wait_for("the pending list", |s| {
        s.contains("1 comment, 1 to post") && s.contains("retry.rs")
    });
    // `p` opens the editor on the review's body (its title names the summary's key).
    tmux.keys(&["p"]);
    tmux.wait_for("the body's editor", |s| s.contains("Review body (comment)"));
    tmux.keys(&["Escape"]);
    // The whole dialog (a capture may catch a frame half drawn).
    let ask = tmux.wait_for("the confirmation", |s| {
        s.contains("Submit the review?") && s.contains("Line comments:")
    });
    assert!(ask.contains("Line comments: 1"), "{ask}");
    tmux.keys(&["y"]);
    tmux.wait_for("submitted", |s| {
        s.contains("submitted (comment, 1 comment)")
    });
    let outbox = walk(&env.state())
        .into_iter()
        .find(|p| p.ends_with("outbox/reviews.json"))
        .unwrap_or_else(|| panic!("no review outbox under {}", env.state().display()));
    let sent = std::fs::read_to_string(&outbox).unwrap_or_default();
    assert!(
        sent.contains("\"start_line\": 3") && sent.contains("```suggestion"),
        "{sent}"
    );
    tmux.keys(&["q", "q"]);
    tmux.wait_for("the PR screen", |s| {
        s.contains("Enter open") || s.contains("? help")
    });
    tmux.keys(&["Q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    tmux.assert_terminal_restored();
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The code of a live PR in the real binary against the loopback GitHub: its description, a file marked viewed
/// (GraphQL `markFileAsViewed`), every file's diff read, then a force-push that rewrote every SHA
/// and changed one file's patch; the refresh key (`Ctrl-r`) refetches the PR and its files say
/// exactly that file changed since your last look, its viewed mark dismissed as GitHub does.
#[test]
fn a_live_force_push_shows_the_one_changed_file_after_refresh_in_tmux() {
    use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO, file_path};
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "livecode") else {
        return;
    };
    let Ok(rt) = tokio::runtime::Runtime::new() else {
        panic!("no runtime");
    };
    let (server, fake) = rt.block_on(FakeGitHub::start(FakePr::generate(6, 2, 2, 2, 12)));
    let script = format!(
        "GH_TOKEN=ghp_e2eLoopbackToken {} --api-url {} {OWNER}/{REPO}#{NUMBER}{REPORT_EXIT}",
        console(&env, &[]),
        quote(Path::new(&server.uri())),
    );
    tmux.start(140, 36, &script);
    tmux.wait_for("the live PR", |s| s.contains("? help"));
    tmux.keys(&["i"]);
    tmux.wait_for("its description", |s| {
        s.contains("· description") && s.contains("branch") && s.contains("12 files")
    });
    tmux.keys(&["q"]);
    tmux.keys(&["F"]);
    tmux.wait_for("the files", |s| s.contains("12 files"));
    tmux.keys(&["j", "t"]);
    tmux.wait_for("marked viewed on GitHub", |s| s.contains("GitHub, as @"));
    assert_eq!(fake.viewed_state(&file_path(1)), "VIEWED");
    tmux.keys(&["g"]);
    for _ in 0..12 {
        tmux.keys(&["Enter"]);
        tmux.wait_for("a diff", |s| s.contains(" · +") && s.contains("interdiff"));
        tmux.keys(&["q", "j"]);
    }
    tmux.wait_for("every file seen", |s| s.matches("seen now").count() == 12);
    tmux.keys(&["q"]);
    fake.force_push(
        "0123456789abcdef0123456789abcdef01234567",
        &[(
            &file_path(1),
            "@@ -5,2 +5,3 @@\n fn f1() {\n-    old();\n+    fixed();\n }",
        )],
    );
    tmux.keys(&["C-r"]);
    tmux.wait_for("refetched", |s| s.contains("refreshed:"));
    tmux.keys(&["F"]);
    let s = tmux.wait_for("changed since your last look", |s| {
        s.contains("since your last look: 1 changed, 11 unchanged")
    });
    let row = s
        .lines()
        .find(|l| l.contains(&file_path(1)))
        .unwrap_or_default();
    assert!(row.contains("changed") && row.contains("dismissed"), "{s}");
    tmux.keys(&["Q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    drop(rt);
}
