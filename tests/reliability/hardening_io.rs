//! Hardening (issue 15), the second half: escape sequences in error messages, absurd numbers,
//! special and huge files, a full disk, temporary files of killed runs — each end to end through
//! the binary, in the shared hermetic [`TestEnv`]. (Copy and open are unit-tested in
//! `src/tui/desktop.rs`.)

use crate::support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::env::TestEnv;
use support::{demo_with, stderr, stdout};

/// Runs `cmd`, killing it after `secs` (a file read without end must fail the test, not hang it).
fn output_within(mut cmd: Command, secs: u64) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = Vec::new();
    let mut err = Vec::new();
    if let Some(mut s) = child.stdout.take() {
        s.read_to_end(&mut out).expect("stdout");
    }
    if let Some(mut s) = child.stderr.take() {
        s.read_to_end(&mut err).expect("stderr");
    }
    Output {
        status: child.wait().expect("status"),
        stdout: out,
        stderr: err,
    }
}

/// The demo PR's folder in the state dir `state`.
fn demo_dir(state: &Path) -> PathBuf {
    let c = support::demo_coords();
    state
        .join(format!("{}-{}", c.owner, c.repo))
        .join(c.number.to_string())
}

/// No raw terminal control (C0 but newline and tab, DEL, C1, bidi controls) in `text`.
fn clean(text: &str) -> bool {
    !text.chars().any(pr_shepherd::sanitize::is_hazard)
}

/// A change to the demo fixture.
type Edit = Box<dyn Fn(&mut serde_json::Value)>;

const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}";

// ---- class 1: escape sequences in error messages ---------------------------------------------

/// Failed before issue 15: fixture errors quoting an unknown value, a duplicate id or a JSON key
/// printed it raw (under tmux a crafted fixture set the title and cleared the screen). An unknown
/// value is now left out of the message altogether; a duplicate id is quoted, sanitized.
#[test]
fn fixture_errors_quote_input_sanitized() {
    let env = TestEnv::new();
    let cases: Vec<Edit> = vec![
        Box::new(|v| v["items"][0]["kind"] = HOSTILE.into()),
        Box::new(|v| {
            let id = v["items"][0]["id"].clone();
            v["items"][1]["id"] = id;
            v["items"][0]["id"] = format!("dup{HOSTILE}").into();
            v["items"][1]["id"] = format!("dup{HOSTILE}").into();
        }),
    ];
    for (i, edit) in cases.iter().enumerate() {
        let fixture = demo_with(&env, |v| edit(v));
        for args in [vec!["items"], vec!["fixture", "check"], vec!["review"]] {
            let o = env.bin().args(&args).arg(&fixture).output().expect("run");
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "case {i} {args:?}: {err}");
            assert!(clean(&err), "case {i} {args:?}: raw control in {err:?}");
            if i == 0 {
                // A wrong value is named by its place, not quoted (file contents stay out of
                // errors).
                assert!(
                    !err.contains("pwned") && err.contains("items[0].kind"),
                    "case {i} {args:?}: {err}"
                );
            } else {
                assert!(
                    err.contains('␛'),
                    "case {i} {args:?}: the ESC is shown: {err}"
                );
            }
        }
    }
}

/// Failed before issue 15: a config key and a flag value quoted in errors came out raw.
#[test]
fn config_and_flag_errors_quote_input_sanitized() {
    // TOML escapes: the key holds a raw ESC and BEL once parsed.
    let env = TestEnv::with_config("[keys]\n\"\\u001b]0;pwned\\u0007\\u001b[2J\" = \"x\"\n");
    let o = env.bin().arg("items").output().expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(clean(&stderr(&o)), "{:?}", stderr(&o));
    assert!(stderr(&o).contains("keys.␛]0;pwned␇"), "{}", stderr(&o));

    std::fs::write(env.config(), "").expect("config");
    let o = env
        .bin()
        .args(["watch", "o/r", "--interval"])
        .arg(HOSTILE)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(clean(&stderr(&o)), "{:?}", stderr(&o));
}

// ---- class 2: absurd numbers -----------------------------------------------------------------

/// Failed before issue 15: `concurrency = 9223372036854775807` panicked in the async runtime
/// (exit 101), and the console hung at "0/6 queued".
#[test]
fn absurd_numbers_in_the_config_are_refused_naming_the_key() {
    let env = TestEnv::with_config("[review]\nconcurrency = 9223372036854775807\n");
    // review, items and the console (no terminal here: it stops before the terminal check).
    for args in [vec!["review"], vec!["items"], vec![]] {
        let o = output_within(
            {
                let mut c = env.bin();
                c.args(&args);
                c
            },
            30,
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("review.concurrency"), "{args:?}: {err}");
        assert!(err.contains("between 1 and 64"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    for table in [
        "retries = 4294967295",
        "retry_backoff_ms = 18446744073709551615",
        "max_output_tokens = 0",
        "overall_timeout_secs = 1e300",
        "diff_budget_chars = 18446744073709551615",
    ] {
        std::fs::write(env.config(), format!("[review]\n{table}\n")).expect("config");
        let o = env.bin().arg("review").output().expect("run");
        let key = table.split(' ').next().unwrap_or_default();
        assert_eq!(o.status.code(), Some(2), "{table}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("review.{key}")),
            "{table}: {}",
            stderr(&o)
        );
    }
}

/// Failed before issue 15: `--concurrency` near u64::MAX panicked (exit 101).
#[test]
fn absurd_numbers_on_the_command_line_are_refused_naming_the_flag() {
    let env = TestEnv::new();
    for n in ["18446744073709551615", "9223372036854775807", "0", "65"] {
        let o = output_within(
            {
                let mut c = env.bin();
                c.args(["review", "--concurrency", n]);
                c
            },
            30,
        );
        assert_eq!(o.status.code(), Some(2), "{n}: {}", stderr(&o));
        assert!(stderr(&o).contains("--concurrency"), "{n}: {}", stderr(&o));
    }
    for (flag, v) in [("--timeout", "1e300"), ("--aspect-timeout", "-1")] {
        let o = env
            .bin()
            .args(["review", &format!("{flag}={v}")])
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains(flag), "{flag}: {}", stderr(&o));
    }
    for args in [
        vec!["fixture", "synth", "--threads", "18446744073709551615"],
        vec!["fixture", "synth", "--replies", "4294967295"],
        vec!["watch", "o/r", "--debounce", "18446744073709551615h"],
        vec!["watch", "o/r", "--interval", "99999999999999s"],
    ] {
        let o = output_within(
            {
                let mut c = env.bin();
                c.args(&args);
                c
            },
            30,
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    // In range still works.
    let o = env
        .bin()
        .args(["review", "--concurrency", "64"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// ---- class 4: special and huge files ---------------------------------------------------------

/// Failed before issue 15 (hung reading without end): files named by settings or flags must be
/// regular files within their limit.
#[cfg(unix)]
#[test]
fn special_files_named_by_settings_and_flags_are_refused() {
    let env = TestEnv::new();
    let zero = Path::new("/dev/zero");
    let prompts = env.root().join("prompts");
    std::fs::create_dir_all(prompts.join("aspects")).expect("prompts dir");
    std::os::unix::fs::symlink(zero, prompts.join("aspects/perf.md")).expect("symlink");
    let event_args = [
        "event",
        "--event-name",
        "pull_request",
        "--event-path",
        "/dev/zero",
    ];
    let runs: Vec<(Vec<String>, Option<&str>)> = vec![
        (vec!["--theme".into(), "/dev/zero".into()], None),
        (vec![], Some("theme = \"/dev/zero\"\n")),
        (
            vec!["--config".into(), "/dev/zero".into(), "items".into()],
            None,
        ),
        (vec!["items".into(), "/dev/zero".into()], None),
        (
            vec!["fixture".into(), "check".into(), "/dev/zero".into()],
            None,
        ),
        (
            vec![
                "review".into(),
                "--prompts-dir".into(),
                prompts.display().to_string(),
            ],
            None,
        ),
        (event_args.iter().map(|s| (*s).to_owned()).collect(), None),
        (vec!["items".into(), env.root().display().to_string()], None),
    ];
    for (args, config) in runs {
        std::fs::write(env.config(), config.unwrap_or("")).expect("config");
        let o = output_within(
            {
                let mut c = env.bin();
                c.args(&args);
                c
            },
            20,
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
}

/// Failed before issue 15: a 3 GB fixture took 36 s and 6 GB of memory before it was refused.
/// A sparse file over the limit costs no disk and is refused before it is read.
#[test]
fn an_oversize_fixture_is_refused_up_front_with_the_limit() {
    let env = TestEnv::new();
    let big = env.root().join("big.json");
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(pr_shepherd::infile::FIXTURE_LIMIT + 1)
        .expect("sparse file");
    drop(f);
    let start = Instant::now();
    for args in [vec!["items"], vec!["fixture", "check"], vec!["review"]] {
        let o = output_within(
            {
                let mut c = env.bin();
                c.args(&args).arg(&big);
                c
            },
            20,
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("over the limit of 256 MiB"), "{args:?}: {err}");
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

// ---- class 7: a full disk is not success -----------------------------------------------------

/// A tmpfs mounted at `dir` (root only), unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Failed before issue 15: on a full state dir `items` saved 16 of 18 markers and exited 0.
/// Needs a small tmpfs (root); skipped, saying so, where it cannot be mounted. The logic is
/// also covered in-process (`ledger::seen::tests::each_marker_that_cannot_be_saved_is_named`).
#[test]
fn a_full_state_dir_is_not_success() {
    let env = TestEnv::new();
    let state = env.root().join("full");
    // 64 KiB: sixteen 4 KiB pages, one per marker file, for the demo's 18 items.
    let Some(_mount) = Tmpfs::mount(&state, "64k") else {
        eprintln!("SKIPPED a_full_state_dir_is_not_success: cannot mount a tmpfs (needs root)");
        return;
    };
    let o = env
        .bin()
        .arg("--state-dir")
        .arg(&state)
        .arg("items")
        .output()
        .expect("run");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(stdout(&o).contains("## New (18)"), "the listing is printed");
    assert!(clean(&err), "{err:?}");
    assert!(err.contains("seen markers could not be saved"), "{err}");
    assert!(err.contains("No space left"), "{err}");
    assert!(
        err.contains("seen marker for `"),
        "names the markers: {err}"
    );
    // Whatever was saved is whole; no temporary file is left behind.
    let seen = demo_dir(&state);
    let mut whole = 0;
    for e in std::fs::read_dir(seen.join("seen"))
        .expect("seen dir")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with(".tmp"), "left over: {name}");
        let bytes = std::fs::read(e.path()).expect("read marker");
        serde_json::from_slice::<serde_json::Value>(&bytes).expect("a whole marker");
        whole += 1;
    }
    assert!(whole < 18, "the disk was not full: {whole} markers");
}

/// A state dir whose `runs` folder cannot be made: a file stands in its place, which fails for
/// root too (unlike a read-only mode).
fn block_runs_folder(state: &Path) -> PathBuf {
    let pr = demo_dir(state);
    std::fs::create_dir_all(&pr).expect("pr dir");
    let runs = pr.join("runs");
    std::fs::write(&runs, "not a folder").expect("block runs/");
    runs
}

/// Failed before: a review whose run file could not be saved warned and exited 0. The review is
/// still printed (nothing is lost), the failure is named, and the run exits 1.
#[test]
fn a_review_whose_run_cannot_be_saved_is_not_success() {
    let env = TestEnv::new();
    block_runs_folder(&env.state());
    for format in ["md", "json"] {
        let o = env
            .bin()
            .args(["review", "--format", format])
            .output()
            .expect("run");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{format}: {err}");
        assert!(
            stdout(&o).contains("## PR Shepherd Review"),
            "{format}: the review is printed: {}",
            stdout(&o)
        );
        assert!(err.contains("its run was not saved"), "{format}: {err}");
        assert!(err.contains("runs"), "names the file: {err}");
        assert!(clean(&err), "{err:?}");
    }
}

// ---- class 8: killed runs leave temp files ---------------------------------------------------

/// Failed before issue 15: `.tmp-*` files a `kill -9` left in `seen/` stayed forever.
#[test]
fn a_later_run_removes_stale_temporary_files_of_its_own_only() {
    let env = TestEnv::new();
    let o = env.bin().arg("items").output().expect("first run");
    assert!(o.status.success(), "{}", stderr(&o));
    let seen = demo_dir(&env.state()).join("seen");
    let old = std::time::SystemTime::now() - Duration::from_secs(120);
    let touch = |name: &str, stale: bool| {
        let p = seen.join(name);
        let f = std::fs::File::create(&p).expect("create");
        if stale {
            f.set_modified(old).expect("age it");
        }
        p
    };
    let leftovers = [touch(".tmp-Ab12Z9", true), touch(".tmp-000000", true)];
    let kept = [
        touch(".tmp-fresh1", false),
        touch("mine.txt", true),
        touch(".tmp-notours", true),
    ];
    let o = env.bin().arg("items").output().expect("second run");
    assert!(o.status.success(), "{}", stderr(&o));
    for p in &leftovers {
        assert!(!p.exists(), "{} is left", p.display());
    }
    for p in &kept {
        assert!(p.exists(), "{} was removed", p.display());
    }
}

/// Failed before: a `record --out` or `fixture synth --out` killed mid-write left its temporary
/// file beside the target for good. A later write into the same folder removes the stale ones of
/// its own pattern (`.pr-shepherd-tmp-XXXXXX`, 10 s old) and nothing else — not even the
/// ledger's `.tmp-XXXXXX` pattern, which is not this writer's in the user's folder.
#[test]
fn a_later_fixture_write_removes_its_own_stale_temporary_files_only() {
    let env = TestEnv::new();
    let dir = env.root().join("out");
    std::fs::create_dir_all(&dir).expect("out dir");
    let old = std::time::SystemTime::now() - Duration::from_secs(120);
    let touch = |name: &str, stale: bool| {
        let p = dir.join(name);
        let f = std::fs::File::create(&p).expect("create");
        if stale {
            f.set_modified(old).expect("age it");
        }
        p
    };
    let leftovers = [
        touch(".pr-shepherd-tmp-Ab12Z9", true),
        touch(".pr-shepherd-tmp-000000", true),
    ];
    let kept = [
        touch(".pr-shepherd-tmp-fresh1", false),
        touch(".pr-shepherd-tmp-toolong", true),
        touch(".tmp-Ab12Z9", true),
        touch(".tmpAb12Z9", true),
        touch("notes.txt", true),
    ];
    let out = dir.join("synth.json");
    let o = env
        .bin()
        .args(["fixture", "synth", "--threads", "2", "--out"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.is_file());
    for p in &leftovers {
        assert!(!p.exists(), "{} is left", p.display());
    }
    for p in &kept {
        assert!(p.exists(), "{} was removed", p.display());
    }
    // The write's own temporary file was renamed into place: no new one is left.
    let temps: Vec<String> = std::fs::read_dir(&dir)
        .expect("read out dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".pr-shepherd-tmp-"))
        .collect();
    assert_eq!(temps.len(), 2, "{temps:?}");
}
