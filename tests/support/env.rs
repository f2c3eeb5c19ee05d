//! The one hermetic environment for every test that runs the binary (or anything else).
//!
//! A [`TestEnv`] owns a temporary dir holding a HOME, the four XDG dirs, a state dir and an empty
//! config file in the platform config dir. Commands made by it start from a cleared environment
//! (`env_clear()`) and get only PATH (to find `sh`, `kill`, tmux and the like) plus the variables
//! below, so nothing of the user's own — config file, themes, `GH_TOKEN`/`GITHUB_TOKEN`, API
//! keys, `GITHUB_API_URL`, `OPENAI_BASE_URL`/`ANTHROPIC_BASE_URL`, `PR_SHEPHERD_STATE_DIR`,
//! `NO_COLOR`, a logged-in `gh` (its config lives under HOME) — can change an answer. A test adds
//! what it needs with `.env(..)` and flags, so what a test depends on is written in the test.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_pr-shepherd");

/// A temporary user: HOME, XDG dirs, state dir and an empty config, removed when dropped.
pub struct TestEnv {
    dir: tempfile::TempDir,
}

impl Default for TestEnv {
    fn default() -> Self {
        TestEnv::new()
    }
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = tempfile::tempdir().expect("temporary dir for the test environment");
        let env = TestEnv { dir };
        for d in [
            env.home(),
            env.xdg("config"),
            env.xdg("state"),
            env.xdg("data"),
            env.xdg("cache"),
            env.state(),
            env.config_dir(),
        ] {
            std::fs::create_dir_all(&d).expect("test environment dir");
        }
        std::fs::write(env.config(), "").expect("empty config file");
        env
    }

    /// A fresh environment whose config file holds `text`.
    pub fn with_config(text: impl AsRef<[u8]>) -> TestEnv {
        let env = TestEnv::new();
        std::fs::write(env.config(), text).expect("config");
        env
    }

    /// Scratch space for the test's own files (fixtures, payloads, scripts).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    fn xdg(&self, which: &str) -> PathBuf {
        self.root().join("xdg").join(which)
    }

    /// The state dir (`PR_SHEPHERD_STATE_DIR` of every command; `--state-dir` still wins).
    pub fn state(&self) -> PathBuf {
        self.root().join("state")
    }

    /// Where the binary looks for `config.toml` when no `--config` is given.
    pub fn config_dir(&self) -> PathBuf {
        if cfg!(target_os = "macos") {
            self.home()
                .join("Library/Application Support/dev.pr-shepherd.pr-shepherd")
        } else {
            self.xdg("config").join("pr-shepherd")
        }
    }

    /// The config file read by default: empty unless the test writes it.
    pub fn config(&self) -> PathBuf {
        self.config_dir().join("config.toml")
    }

    /// The whole environment a command gets.
    pub fn vars(&self) -> Vec<(&'static str, OsString)> {
        let mut vars = vec![
            (
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            ),
            ("HOME", self.home().into()),
            ("XDG_CONFIG_HOME", self.xdg("config").into()),
            ("XDG_STATE_HOME", self.xdg("state").into()),
            ("XDG_DATA_HOME", self.xdg("data").into()),
            ("XDG_CACHE_HOME", self.xdg("cache").into()),
            ("PR_SHEPHERD_STATE_DIR", self.state().into()),
            // Retries of the GitHub client without real waiting.
            ("PR_SHEPHERD_HTTP_BACKOFF_MS", "1".into()),
            ("PR_SHEPHERD_HTTP_ATTEMPTS", "2".into()),
        ];
        // Coverage runs (cargo llvm-cov) need their profile path; it changes no answer.
        if let Some(p) = std::env::var_os("LLVM_PROFILE_FILE") {
            vars.push(("LLVM_PROFILE_FILE", p));
        }
        vars
    }

    /// `program` with a cleared environment plus [`TestEnv::vars`].
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env_clear().envs(self.vars());
        c
    }

    /// The binary, hermetic.
    pub fn bin(&self) -> Command {
        self.command(BIN)
    }

    /// The binary, hermetic, for async tests.
    pub fn bin_async(&self) -> tokio::process::Command {
        tokio::process::Command::from(self.bin())
    }

    /// tmux (a server started by it passes this environment to its panes), with the TERM it needs.
    pub fn tmux(&self) -> Command {
        let mut c = self.command("tmux");
        c.env("TERM", "xterm-256color");
        c
    }
}
