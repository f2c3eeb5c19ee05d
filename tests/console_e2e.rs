//! End to end: the real binary in a real terminal (tmux): without an argument it opens the
//! inbox of the bundled fixtures (inbox → Enter → the demo PR → q → inbox → q); the other tests
//! open the demo PR directly by naming its fixture file.

mod support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::env::{BIN, TestEnv};

/// A tmux server on its own socket, killed when dropped; it and its panes get the test
/// environment, nothing of the user's.
struct Tmux<'a> {
    socket: String,
    env: &'a TestEnv,
}

impl Tmux<'_> {
    fn run(&self, args: &[&str]) -> Output {
        self.env
            .tmux()
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if cond(&screen) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
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
    s.contains("acme/rivet#482") && s.contains("acme/rivet#497") && s.contains("Enter open  ]")
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn console_in_tmux_shows_badges_navigates_and_restores_the_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipping console_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let env = TestEnv::new();
    let state = env.root().join("state");
    let config = env.root().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let bin = Path::new(BIN);
    let script = format!(
        "{} --state-dir {} --config {}; echo CONSOLE-EXITED:$?; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon; sleep 60",
        quote(bin),
        quote(&state),
        quote(&config),
    );
    let tmux = Tmux {
        socket: format!("prs-e2e-{}", std::process::id()),
        env: &env,
    };
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "100",
        "-y",
        "30",
        "sh",
        "-c",
        &script,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // No argument: the inbox of the bundled fixtures. Find the demo and open it.
    let screen = tmux.wait_for("the inbox", inbox_complete);
    assert!(screen.contains("18 new"), "{screen}");
    assert!(screen.contains("needs-label"), "{screen}");
    tmux.run(&["send-keys", "-t", "e2e", "/"]);
    tmux.run(&["send-keys", "-t", "e2e", "-l", "482"]);
    tmux.run(&["send-keys", "-t", "e2e", "Enter"]);
    tmux.wait_for("the search applied", |s| {
        s.contains("search `482`") && !s.contains("acme/rivet#497")
    });
    tmux.run(&["send-keys", "-t", "e2e", "Enter"]);

    let screen = tmux.wait_for("the console", first_frame_complete);
    assert!(screen.contains(" NEW "), "{screen}");
    assert!(screen.contains("Review threads (7)"), "{screen}");
    assert!(screen.contains("MINIMIZED(spam)"), "{screen}");
    let selected = |s: &str, who: &str| s.lines().any(|l| l.contains('▶') && l.contains(who));
    assert!(selected(&screen, "@maya-chen"), "{screen}");
    let alt = tmux.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "1");

    tmux.run(&["send-keys", "-t", "e2e", "j"]);
    tmux.wait_for("the second row selected", |s| selected(s, "@rajesh-k"));
    tmux.run(&["send-keys", "-t", "e2e", "?"]);
    tmux.wait_for("the help overlay", |s| s.contains("Keys (config.toml"));
    tmux.run(&["send-keys", "-t", "e2e", "Escape"]);
    tmux.wait_for("help closed", |s| !s.contains("Keys (config.toml"));

    // q leaves the PR for the inbox, whose row now counts the two items seen; q quits.
    tmux.run(&["send-keys", "-t", "e2e", "q"]);
    let screen = tmux.wait_for("the inbox again", |s| {
        s.contains("Enter open  ]")
            && s.lines()
                .any(|l| l.contains("acme/rivet#482") && l.contains("16 new"))
    });
    assert!(screen.contains("acme/rivet#482"), "{screen}");
    tmux.run(&["send-keys", "-t", "e2e", "q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    assert!(
        !screen.contains("acme/rivet#482"),
        "the console is gone:\n{screen}"
    );
    let screen = tmux.wait_for("stty output", |s| {
        s.lines().any(|l| l.trim().ends_with("icanon"))
    });
    assert!(
        screen.lines().any(|l| l.trim() == "icanon"),
        "raw mode was left on:\n{screen}"
    );
    let alt = tmux.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
    assert_eq!(
        String::from_utf8_lossy(&alt.stdout).trim(),
        "0",
        "alternate screen left"
    );

    // The two items that were shown are marked seen; nothing else.
    let files = std::fs::read_dir(state.join("acme-rivet/482/seen"))
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
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipping console_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let env = TestEnv::new();
    let config = env.root().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let bin = Path::new(BIN);
    let script = format!(
        "{} --state-dir {} --config {} {}; echo CONSOLE-EXITED:$?; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon; sleep 60",
        quote(bin),
        quote(env.root()),
        quote(&config),
        quote(Path::new(DEMO)),
    );
    let tmux = Tmux {
        socket: format!("prs-e2e-term-{}", std::process::id()),
        env: &env,
    };
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "100",
        "-y",
        "30",
        "sh",
        "-c",
        &script,
    ]);
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
    let screen = tmux.wait_for("stty output", |s| {
        s.lines().any(|l| l.trim().ends_with("icanon"))
    });
    assert!(
        screen.lines().any(|l| l.trim() == "icanon"),
        "raw mode was left on:\n{screen}"
    );
    let alt = tmux.run(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "0");
}

#[test]
fn without_a_terminal_the_console_refuses_with_exit_2() {
    let env = TestEnv::new();
    let config = env.root().join("config.toml");
    std::fs::write(&config, "").unwrap();
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
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipping console_e2e: tmux is not installed (.ci/run installs it)");
        return;
    }
    let env = TestEnv::new();
    let state = env.root().join("state");
    let config = env.root().join("config.toml");
    let pidfile = env.root().join("pid");
    std::fs::write(&config, "").unwrap();
    let bin = Path::new(BIN);
    let tmux = Tmux {
        socket: format!("prs-e2e-kill-{}", std::process::id()),
        env: &env,
    };
    let start = |script: &str| {
        let out = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            "110",
            "-y",
            "34",
            "sh",
            "-c",
            script,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // `exec`: the pid written is the console's own.
    start(&format!(
        "echo $$ > {}; exec {} --state-dir {} --config {} {}",
        quote(&pidfile),
        quote(bin),
        quote(&state),
        quote(&config),
        quote(Path::new(DEMO)),
    ));
    tmux.wait_for("the console", first_frame_complete);
    tmux.run(&["send-keys", "-t", "e2e", "r"]);
    tmux.wait_for("the review", |s| s.contains("review finished"));
    tmux.run(&["send-keys", "-t", "e2e", "e"]);
    tmux.wait_for("the editor", |s| s.contains("Editing the review"));
    tmux.run(&["send-keys", "-t", "e2e", "Down", "Down"]);
    tmux.run(&["send-keys", "-t", "e2e", "-l", "E2E typed note"]);
    let draft = state.join("acme-rivet/482/draft.json");
    let t0 = Instant::now();
    while !std::fs::read_to_string(&draft).is_ok_and(|s| s.contains("E2E typed note")) {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the draft was not autosaved; screen:\n{}",
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
    let t0 = Instant::now();
    while tmux.run(&["has-session", "-t", "e2e"]).status.success() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the pane did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Reopen: the draft is back, and says so.
    start(&format!(
        "{} --state-dir {} --config {} {}; echo CONSOLE-EXITED:$?; sleep 60",
        quote(bin),
        quote(&state),
        quote(&config),
        quote(Path::new(DEMO)),
    ));
    let screen = tmux.wait_for("the restored draft", |s| {
        s.contains("acme/rivet#482") && s.contains("Restored draft") && s.contains("discard")
    });
    assert!(screen.contains("E2E typed note"), "{screen}");
    // The restored draft opens the review pane: `q` closes it, `Q` quits from anywhere.
    tmux.run(&["send-keys", "-t", "e2e", "Q"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
}
