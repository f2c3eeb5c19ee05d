//! End to end: the diff's `o` in the real binary in tmux. `$EDITOR` is a script named `vi` (so
//! the console passes `+LINE FILE`) that records its arguments and copies the file it got, with
//! its mode; the console suspends for it and comes back; the copy is gone once the console
//! exits.

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use super::e2e::{REPORT_EXIT, Tmux, console, quote};
use super::file_in_editor::{MOD_HEAD, fixture_with_contents};
use support::env::TestEnv;

/// Waits until `path` exists (the editor script wrote it).
fn wait_file(tmux: &Tmux<'_>, path: &Path) -> String {
    let t0 = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            return s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{} was not written; screen:\n{:?}",
            path.display(),
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn o_opens_the_head_version_read_only_at_the_cursors_line_and_comes_back() {
    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "editor") else {
        return;
    };
    let fixture = fixture_with_contents(&env, |_| {});
    let out = env.root().join("editor-saw");
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let editor = bin.join("vi");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nout={}\n: > \"$out/args.tmp\"\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$out/args.tmp\"; last=\"$a\"; done\n\
             cp \"$last\" \"$out/copy\"\nls -l \"$last\" > \"$out/mode\"\nls -ld \"$(dirname \"$last\")\" > \"$out/dirmode\"\n\
             mv \"$out/args.tmp\" \"$out/args\"\n",
            quote(&out)
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let script = format!(
        "EDITOR={} {}{REPORT_EXIT}",
        quote(&editor),
        console(&env, &[&fixture])
    );
    tmux.start(100, 30, &script);
    tmux.wait_for("the PR screen", |s| {
        s.contains("acme/rivet#482") && s.contains("Tab detail")
    });
    tmux.keys(&["F"]);
    tmux.wait_for("the files", |s| s.contains("src/client/mod.rs"));
    tmux.keys(&["j"]);
    // Enter opens the diff once the files are read: again until it did.
    let t0 = Instant::now();
    loop {
        tmux.keys(&["Enter"]);
        std::thread::sleep(Duration::from_millis(300));
        if tmux.capture().is_ok_and(|s| s.contains("@@ -1,5 +1,7 @@")) {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{:?}",
            tmux.capture()
        );
    }
    // The cursor to `+pub use retry::{with_retry, RetryPolicy};`: new line 5.
    tmux.keys(&["j", "j", "j", "j"]);
    tmux.wait_for("the cursor on the added use", |s| {
        s.lines()
            .any(|l| l.contains('▶') && l.contains("+pub use retry::"))
    });
    tmux.keys(&["o"]);
    let args = wait_file(&tmux, &out.join("args"));
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args.len(), 2, "{args:?}");
    assert_eq!(args[0], "+5", "the cursor's new line: {args:?}");
    let opened = Path::new(args[1]);
    assert_eq!(opened.file_name().unwrap(), "mod.rs");
    assert_eq!(
        std::fs::read_to_string(out.join("copy")).unwrap(),
        MOD_HEAD,
        "the head version, from the fixture's fileContents"
    );
    let mode = std::fs::read_to_string(out.join("mode")).unwrap();
    assert!(mode.starts_with("-r--------"), "read-only: {mode}");
    let dirmode = std::fs::read_to_string(out.join("dirmode")).unwrap();
    assert!(dirmode.starts_with("drwx------"), "private: {dirmode}");

    // The console is back, on the diff, saying what was opened.
    let screen = tmux.wait_for("the console back", |s| {
        s.contains("opened the head version of src/client/mod.rs")
    });
    assert!(screen.contains("@@ -1,5 +1,7 @@"), "{screen}");
    assert_eq!(tmux.alternate_on(), "1", "the console has the screen again");
    assert!(opened.exists(), "the copy stays while the console runs");

    tmux.keys(&["Q"]);
    tmux.wait_for("the console's exit", |s| s.contains("CONSOLE-EXITED:0"));
    tmux.assert_terminal_restored();
    assert!(
        !opened.exists(),
        "the copy is removed when the console exits"
    );
}
