//! Living with the installed binary: completions, the man page, `config path|show|init`, and
//! progress on stderr only on a terminal (issue 16).

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use support::env::{BIN, TestEnv};
use support::fake_github::{FakeGitHub, FakePr, NUMBER, OWNER, REPO};
use support::{stderr as err, stdout as out};

fn run_ok(c: &mut Command) -> Output {
    let o = c.output().expect("run pr-shepherd");
    assert!(o.status.success(), "{}\n{}", out(&o), err(&o));
    o
}

fn have(program: &str) -> bool {
    // The caller's PATH: whether the machine has the program, not the test environment.
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The script written to a file, then checked by `shell -n` (parse only, nothing runs).
fn parses(shell: &str, flag: &[&str], script: &str, dir: &Path) {
    let file = dir.join(format!("completion.{shell}"));
    std::fs::write(&file, script).unwrap();
    let o = Command::new(shell).args(flag).arg(&file).output().unwrap();
    assert!(
        o.status.success(),
        "{shell} refuses the completion script: {}",
        err(&o)
    );
}

#[test]
fn completions_parse_in_their_shells() {
    let env = TestEnv::new();
    for (shell, program, flag) in [
        ("bash", "bash", &["-n"][..]),
        ("zsh", "zsh", &["-n"][..]),
        ("fish", "fish", &["--no-execute"][..]),
    ] {
        let o = run_ok(env.bin().args(["completions", shell]));
        let script = out(&o);
        assert!(script.contains("pr-shepherd"), "{shell}");
        for sub in [
            "items", "review", "record", "event", "watch", "config", "man",
        ] {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
        if have(program) {
            parses(program, flag, &script, env.root());
        } else if program == "bash" {
            panic!("bash is needed to check the bash completions");
        } else {
            eprintln!("note: {program} is not installed; its completions were not parsed");
        }
    }
    // bash: sourcing it registers the completion function.
    let o = run_ok(env.bin().args(["completions", "bash"]));
    let file = env.root().join("c.bash");
    std::fs::write(&file, out(&o)).unwrap();
    let o = Command::new("bash")
        .args(["-c", "source \"$1\" && complete -p pr-shepherd", "x"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("pr-shepherd"), "{}", out(&o));
    // An unknown shell is a usage error.
    let o = env.bin().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_page_is_valid_roff_with_every_subcommand() {
    let env = TestEnv::new();
    let o = run_ok(env.bin().arg("man"));
    let page = out(&o);
    assert!(
        page.contains(".TH pr-shepherd 1"),
        "{}",
        &page[..page.len().min(300)]
    );
    for sub in [
        "ITEMS",
        "STATE SHOW",
        "STATE CLEAR",
        "FIXTURE SYNTH",
        "FIXTURE CHECK",
        "REVIEW",
        "RECORD",
        "EVENT",
        "WATCH",
        "CONFIG PATH",
        "CONFIG SHOW",
        "CONFIG INIT",
        "COMPLETIONS",
        "MAN",
    ] {
        assert!(
            page.contains(&format!(".SH \"PR-SHEPHERD {sub}\"")),
            "no section for {sub}"
        );
    }
    if have("groff") {
        let file = env.root().join("pr-shepherd.1");
        std::fs::write(&file, &page).unwrap();
        // -ww: every warning; -z: no output. Any warning means the roff is not clean.
        let o = Command::new("groff")
            .args(["-man", "-ww", "-z"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(o.status.success() && o.stderr.is_empty(), "{}", err(&o));
        // And it renders to text naming the subcommands.
        // -P-c: bold as overstrike (`X\bX`), never colour escapes; the overstrike is undone below.
        let o = Command::new("groff")
            .args(["-man", "-Tutf8", "-P-c"])
            .arg(&file)
            .output()
            .unwrap();
        let mut text = String::new();
        let mut chars = out(&o).chars().collect::<Vec<_>>().into_iter().peekable();
        while let Some(c) = chars.next() {
            if chars.peek() == Some(&'\u{8}') {
                chars.next();
            } else {
                text.push(c);
            }
        }
        assert!(text.contains("PR-SHEPHERD WATCH"), "{text}");
    } else {
        eprintln!("note: groff is not installed; the man page was only checked for its sections");
    }
    // One page per subcommand into a folder.
    let dir = env.root().join("man1");
    run_ok(env.bin().arg("man").arg("--dir").arg(&dir));
    for f in [
        "pr-shepherd.1",
        "pr-shepherd-review.1",
        "pr-shepherd-state-show.1",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
}

#[test]
fn config_path_honours_the_flag_and_xdg() {
    let env = TestEnv::new();
    // The test environment starts with an empty config file; without one, `path` says so.
    std::fs::remove_file(env.config()).unwrap();
    let o = run_ok(env.bin().args(["config", "path"]));
    assert_eq!(out(&o).trim(), env.config().display().to_string());
    assert!(err(&o).contains("does not exist"), "{}", err(&o));
    if cfg!(target_os = "linux") {
        // XDG_CONFIG_HOME is honoured: the test environment sets it, and another one moves it.
        let xdg = env.root().join("other-xdg");
        let o = run_ok(
            env.bin()
                .env("XDG_CONFIG_HOME", &xdg)
                .args(["config", "path"]),
        );
        assert_eq!(
            out(&o).trim(),
            xdg.join("pr-shepherd/config.toml").display().to_string()
        );
        // Without it: ~/.config.
        let o = run_ok(
            env.bin()
                .env_remove("XDG_CONFIG_HOME")
                .args(["config", "path"]),
        );
        assert_eq!(
            out(&o).trim(),
            env.home()
                .join(".config/pr-shepherd/config.toml")
                .display()
                .to_string()
        );
    }
    // --config wins, and need not exist yet (so that `config init` can write it).
    let mine = env.root().join("elsewhere.toml");
    let o = run_ok(
        env.bin()
            .arg("--config")
            .arg(&mine)
            .args(["config", "path"]),
    );
    assert_eq!(out(&o).trim(), mine.display().to_string());
    run_ok(
        env.bin()
            .arg("--config")
            .arg(&mine)
            .args(["config", "init"]),
    );
    assert!(mine.is_file());
}

#[test]
fn config_init_then_show_round_trips_and_init_refuses_to_overwrite() {
    let env = TestEnv::new();
    std::fs::remove_file(env.config()).unwrap();
    let o = run_ok(env.bin().args(["config", "init"]));
    let path = std::path::PathBuf::from(out(&o).trim());
    assert_eq!(path, env.config());
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("# concurrency = 6"), "{written}");

    // A second init refuses, exit 2, and leaves the file alone.
    let o = env.bin().args(["config", "init"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("already exists"), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);

    // show: the init file sets nothing, so every value is a default.
    let o = run_ok(env.bin().args(["config", "show"]));
    let shown = out(&o);
    assert!(!shown.contains("  # file"), "{shown}");
    let v: toml::Table = toml::from_str(&shown).expect("config show is TOML");
    assert_eq!(v["review"]["concurrency"].as_integer(), Some(6));
    assert_eq!(v["theme"].as_str(), Some("dark"));

    // A file with settings: they are marked, and the output is itself a valid config file that
    // shows the same values again.
    std::fs::write(
        &path,
        "theme = \"light\"\n[review]\nllm = \"command\"\ncommand = [\"agent\", \"--print\"]\n",
    )
    .unwrap();
    let o = run_ok(env.bin().args(["config", "show"]));
    let shown = out(&o);
    assert!(shown.contains("theme = \"light\"  # file"), "{shown}");
    assert!(
        shown.contains("command = [\"agent\", \"--print\"]  # file"),
        "{shown}"
    );
    let again_path = env.root().join("again.toml");
    std::fs::write(&again_path, &shown).unwrap();
    let o = run_ok(
        env.bin()
            .arg("--config")
            .arg(&again_path)
            .args(["config", "show"]),
    );
    let a: toml::Table = toml::from_str(&shown).unwrap();
    let b: toml::Table = toml::from_str(&out(&o)).unwrap();
    assert_eq!(a, b);

    // A bad key is refused naming it (exit 2).
    std::fs::write(&path, "[review]\nllm_command = \"x\"\n").unwrap();
    let o = env.bin().args(["config", "show"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("llm_command"), "{}", err(&o));
}

/// Runs `args` with stderr on a pseudo-terminal (util-linux `script`) and stdout to a file.
/// Returns (stdout file, terminal transcript), or None without `script`.
fn on_a_terminal(
    env: &TestEnv,
    envs: &[(&str, &str)],
    args: &[String],
) -> Option<(String, String)> {
    if !have("script") {
        eprintln!("note: `script` is not installed; the terminal case was not run");
        return None;
    }
    let stdout_file = env.root().join("stdout.txt");
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let mut cmd = quote(BIN);
    for a in args {
        cmd.push(' ');
        cmd.push_str(&quote(a));
    }
    cmd.push_str(" > ");
    cmd.push_str(&quote(&stdout_file.display().to_string()));
    let o = env
        .command("script")
        .envs(envs.iter().copied())
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}\n{}", out(&o), err(&o));
    Some((std::fs::read_to_string(&stdout_file).unwrap(), out(&o)))
}

#[test]
fn review_progress_only_on_a_terminal_and_never_on_stdout() {
    let env = TestEnv::new();
    let state = env.root().join("st").display().to_string();
    let args: Vec<String> = ["--state-dir", &state, "review"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // Not a terminal: no progress at all.
    let o = run_ok(env.bin().args(&args));
    assert!(!err(&o).contains("[1/6]"), "{}", err(&o));
    assert!(!out(&o).contains("[1/6]"));
    assert!(out(&o).contains("## PR Shepherd Review"));
    let piped = out(&o);

    // A terminal: a line per aspect on stderr; stdout is the same review, no progress in it.
    if let Some((stdout, tty)) = on_a_terminal(&env, &[], &args) {
        for n in 1..=6 {
            assert!(tty.contains(&format!("[{n}/6] ")), "{tty}");
        }
        assert!(tty.contains("review finished in"), "{tty}");
        assert!(!stdout.contains("[1/6]"), "{stdout}");
        assert!(stdout.contains("## PR Shepherd Review"));
        assert_eq!(stdout.lines().count(), piped.lines().count());
        // --quiet: none even on a terminal.
        let mut quiet = args.clone();
        quiet.push("--quiet".into());
        let (_, tty) = on_a_terminal(&env, &[], &quiet).unwrap();
        assert!(!tty.contains("[1/6]"), "{tty}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn record_progress_per_page_only_on_a_terminal() {
    // Enough items for several pages of each kind.
    let (server, _fake) = FakeGitHub::start(FakePr::generate(120, 105, 30, 12, 5)).await;
    let env = std::sync::Arc::new(TestEnv::new());
    let fixture = env.root().join("pr.json").display().to_string();
    let args: Vec<String> = vec![
        "--api-url".into(),
        server.uri(),
        "record".into(),
        format!("{OWNER}/{REPO}#{NUMBER}"),
        "--out".into(),
        fixture,
    ];
    let token = "ghp_InstallCliTestToken000000000000000";
    // Not a terminal: no progress; stdout stays empty (record writes a file).
    let o = env
        .bin_async()
        .env("GH_TOKEN", token)
        .args(&args)
        .output()
        .await
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(!err(&o).contains("fetched"), "{}", err(&o));
    assert!(out(&o).is_empty(), "{}", out(&o));

    // A terminal: a line per page on stderr. (Blocking: the fake server runs on this runtime.)
    let on_tty = env.clone();
    let tty =
        tokio::task::spawn_blocking(move || on_a_terminal(&on_tty, &[("GH_TOKEN", token)], &args))
            .await
            .unwrap();
    if let Some((stdout, tty)) = tty {
        assert!(stdout.is_empty(), "{stdout}");
        let pages = tty.lines().filter(|l| l.contains("] fetched ")).count();
        assert!(pages >= 3, "one line per page: {tty}");
        assert!(tty.contains("[1] fetched "), "{tty}");
        assert!(tty.contains("changed files (page 1)"), "{tty}");
        assert!(!tty.contains("ghp_"), "{tty}");
    }
}

/// `event` and `watch` review too (issue 16): a progress line per aspect on a terminal, none when
/// stderr is not a terminal, none with `--quiet` (or `-q`) even on one; stdout never has it.
#[tokio::test(flavor = "multi_thread")]
async fn event_and_watch_progress_only_on_a_terminal_and_never_with_quiet() {
    use support::fake_github::payload;
    use support::llm::{StandInLlm, magic_number};

    let (server, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    fake.set_author("octocat", "MEMBER");
    let llm = StandInLlm::answering(vec![magic_number()]).await;
    let scratch = TestEnv::new();
    let opened = payload(scratch.root(), "pull_request/opened.payload.json", |_| {});
    let api = server.uri();
    let repo = format!("{OWNER}/{REPO}");
    let with_llm = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["--api-url", &api]
            .iter()
            .chain(args)
            .map(|s| s.to_string())
            .collect();
        v.extend(llm.args());
        v
    };
    let event = with_llm(&[
        "event",
        "--event-name",
        "pull_request",
        "--event-path",
        &opened.display().to_string(),
        "--dry-run",
    ]);
    let watch = with_llm(&[
        "watch",
        &repo,
        "--ticks",
        "1",
        "--interval",
        "0s",
        "--debounce",
        "0s",
    ]);
    let envs = [
        ("GH_TOKEN", "ghp_InstallCliTestToken000000000000000"),
        ("OPENAI_API_KEY", "sk-test-0123456789"),
    ];
    for args in [event, watch] {
        let cmd = &args[2];
        // Not a terminal: no progress, with or without the flag (which parses).
        for quiet in [None, Some("--quiet"), Some("-q")] {
            let env = TestEnv::new();
            let o = env
                .bin_async()
                .envs(envs)
                .args(&args)
                .args(quiet)
                .output()
                .await
                .unwrap();
            assert!(o.status.success(), "{cmd} {quiet:?}: {}", err(&o));
            assert!(!err(&o).contains("[1/6]"), "{cmd}: {}", err(&o));
            assert!(out(&o).contains("## PR Shepherd Review"), "{cmd}");
        }
        // A terminal: a line per aspect on stderr, none on stdout; --quiet: none at all. (Each
        // run in a fresh state dir, so watch reviews the head again; blocking: the fake servers
        // run on this runtime.)
        let on_tty = |quiet: bool| {
            let mut args = args.clone();
            if quiet {
                args.push("--quiet".into());
            }
            tokio::task::spawn_blocking(move || on_a_terminal(&TestEnv::new(), &envs, &args))
        };
        if let Some((stdout, tty)) = on_tty(false).await.unwrap() {
            for n in 1..=6 {
                assert!(tty.contains(&format!("[{n}/6] ")), "{cmd}: {tty}");
            }
            assert!(!stdout.contains("[1/6]"), "{cmd}: {stdout}");
            assert!(stdout.contains("## PR Shepherd Review"), "{cmd}");
            let (stdout, tty) = on_tty(true).await.unwrap().expect("script ran before");
            assert!(!tty.contains("[1/6]"), "{cmd} --quiet: {tty}");
            assert!(stdout.contains("## PR Shepherd Review"), "{cmd}");
        }
    }
}

#[test]
fn readme_names_every_subcommand_and_the_install_step() {
    use clap::CommandFactory;
    let readme = std::fs::read_to_string("README.md").unwrap();
    let usage = readme
        .split("## Usage")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("a usage block");
    let cli = pr_shepherd::cli::Cli::command();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        assert!(
            usage.contains(&format!("pr-shepherd {name}")),
            "the README's usage block lacks `{name}`"
        );
    }
    assert!(readme.contains("cargo install --locked --path ."));
    assert!(readme.contains("docs/config.md"));
    // The two commands for a fresh machine come first.
    let two = readme.find("cargo run --release").unwrap();
    assert!(two < readme.find("## Install").unwrap());
}

/// The project has no public home yet: no made-up URL (a `YOUR-ORG` placeholder leads nowhere)
/// in the crate metadata, the README or the docs. Failed before issue 16 was finished.
#[test]
fn no_placeholder_url_stands_in_for_a_home() {
    let mut files = vec![std::path::PathBuf::from("Cargo.toml"), "README.md".into()];
    for e in std::fs::read_dir("docs").unwrap().flatten() {
        files.push(e.path());
    }
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(
            !text.contains("YOUR-ORG"),
            "{} gives a placeholder URL",
            f.display()
        );
    }
    let manifest: toml::Table = std::fs::read_to_string("Cargo.toml")
        .unwrap()
        .parse()
        .unwrap();
    let package = manifest["package"].as_table().unwrap();
    for key in ["repository", "homepage"] {
        if let Some(url) = package.get(key).and_then(|v| v.as_str()) {
            assert!(!url.contains("YOUR"), "{key} = {url}");
        }
    }
    assert!(package.contains_key("readme") && package.contains_key("keywords"));
}
