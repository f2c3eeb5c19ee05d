//! A small real repository made with the `git` CLI in a temporary dir, so git is the oracle for
//! what a PR's patches, line numbers and sides are — before and after a force-push.
//!
//! [`GitRepo`] runs git hermetically (no user or system config, fixed author and dates) and
//! answers what GitHub's `pulls/{n}/files` would for a range ([`GitRepo::pr_files`]: one entry per
//! file of `git diff base...head`, GitHub's REST names, `patch` from the first `@@` on, absent
//! for a binary file). [`GitRepo::line_of`] is the oracle for a line's number: the 1-based line
//! of a text in a file at a commit (a RIGHT line at the head, a LEFT line at the merge base).
//!
//! [`rebased_pr`] makes the history every test here can share: a base with a file indented by
//! tabs, a CRLF file and a file to rename; a PR branch that changes them, renames with changes
//! and adds a binary; then upstream commits that shift lines, and the PR rebased onto them with
//! one commit amended — the force-push.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// A repository in a temporary dir, removed when dropped.
pub struct GitRepo {
    dir: tempfile::TempDir,
    /// Commits made so far (each commit's date is one minute after the last: stable SHAs).
    commits: std::cell::Cell<u32>,
}

impl Default for GitRepo {
    fn default() -> Self {
        GitRepo::new()
    }
}

impl GitRepo {
    /// `git init` on branch `main`.
    pub fn new() -> GitRepo {
        let repo = GitRepo {
            dir: tempfile::tempdir().expect("temporary dir for the repository"),
            commits: std::cell::Cell::new(0),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the repository with no user or system config; panics unless it succeeds.
    /// Returns its stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let date = format!("2026-11-01T10:{:02}:00Z", self.commits.get() % 60);
        let out = Command::new("git")
            .current_dir(self.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "Tomasz")
            .env("GIT_AUTHOR_EMAIL", "tomasz@example.com")
            .env("GIT_COMMITTER_NAME", "Tomasz")
            .env("GIT_COMMITTER_EMAIL", "tomasz@example.com")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .args(["-c", "core.autocrlf=false", "-c", "core.quotepath=off"])
            .args(args)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Writes `path` (made with its folders) with exactly `bytes`.
    pub fn write(&self, path: &str, bytes: impl AsRef<[u8]>) {
        let full = self.path().join(path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).expect("make the file's folder");
        }
        std::fs::write(full, bytes).expect("write the file");
    }

    /// Makes `path` (with its folders) a symlink whose link text is `target`, as a PR can.
    #[cfg(unix)]
    pub fn symlink(&self, path: &str, target: &str) {
        let full = self.path().join(path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).expect("make the link's folder");
        }
        std::os::unix::fs::symlink(target, full).expect("make the symlink");
    }

    /// Commits everything as it is (`git add -A`); returns the new commit's SHA.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.commits.set(self.commits.get() + 1);
        self.sha("HEAD")
    }

    /// `--amend` of the last commit with everything as it is; returns the new SHA.
    pub fn amend(&self) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--amend", "--no-edit"]);
        self.commits.set(self.commits.get() + 1);
        self.sha("HEAD")
    }

    /// The full SHA of a revision.
    pub fn sha(&self, rev: &str) -> String {
        self.git(&["rev-parse", rev]).trim().to_owned()
    }

    /// The merge base of two revisions (what `base...head` diffs from).
    pub fn merge_base(&self, a: &str, b: &str) -> String {
        self.git(&["merge-base", a, b]).trim().to_owned()
    }

    /// The 1-based line of `path` at `rev` whose text (without its line ending) is `text`; the
    /// one nearest after line `after` when it repeats. The oracle for a line number: a RIGHT line
    /// at the head, a LEFT line at the merge base.
    pub fn line_of(&self, rev: &str, path: &str, text: &str, after: u32) -> u32 {
        let file = self.git(&["show", &format!("{rev}:{path}")]);
        let all: Vec<u32> = file
            .split('\n')
            .enumerate()
            .filter(|(_, l)| l.strip_suffix('\r').unwrap_or(l) == text)
            .map(|(i, _)| i as u32 + 1)
            .collect();
        all.iter()
            .copied()
            .find(|&n| n > after)
            .or_else(|| all.first().copied())
            .unwrap_or_else(|| panic!("`{text}` is not in {path} at {rev}"))
    }

    /// What GitHub's `pulls/{n}/files` answers for the PR `base...head` (REST names: `filename`,
    /// `status`, `additions`, `deletions`, `previous_filename`, `patch`), in git's order.
    pub fn pr_files(&self, base: &str, head: &str) -> Vec<Value> {
        let range = format!("{base}...{head}");
        let diff = ["diff", "--no-color", "--no-ext-diff", "-M"];
        let numstat = self.git(&[&diff[..], &["--numstat", "-z", &range]].concat());
        let mut out = Vec::new();
        // `-z` numstat: `add\tdel\tpath\0`, or for a rename `add\tdel\t\0old\0new\0`.
        let mut fields = numstat.split('\0');
        while let Some(head_field) = fields.next() {
            if head_field.is_empty() {
                continue;
            }
            let mut parts = head_field.splitn(3, '\t');
            let (add, del, path) = (
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
            );
            let (old, new) = if path.is_empty() {
                let old = fields.next().unwrap_or("").to_owned();
                let new = fields.next().unwrap_or("").to_owned();
                (Some(old), new)
            } else {
                (None, path.to_owned())
            };
            let status = self.status_of(&range, &new);
            let paths: Vec<&str> = match &old {
                Some(o) => vec![o.as_str(), new.as_str()],
                None => vec![new.as_str()],
            };
            let text = self.git(&[&diff[..], &[range.as_str(), "--"], &paths[..]].concat());
            let mut entry = json!({
                "path": new,
                "status": status,
                "additions": add.parse::<u32>().unwrap_or(0),
                "deletions": del.parse::<u32>().unwrap_or(0),
            });
            if let Some(o) = old {
                entry["previousPath"] = json!(o);
            }
            if let Some(patch) = github_patch(&text) {
                entry["patch"] = json!(patch);
            }
            out.push(entry);
        }
        out
    }

    /// GitHub's word for a file's change in `range`.
    fn status_of(&self, range: &str, path: &str) -> &'static str {
        let line = self.git(&["diff", "--name-status", "-M", range, "--"]);
        let l = line
            .lines()
            .find(|l| l.split('\t').next_back() == Some(path))
            .unwrap_or("");
        match l.chars().next() {
            Some('A') => "added",
            Some('D') => "removed",
            Some('R') => "renamed",
            Some('C') => "copied",
            _ => "modified",
        }
    }
}

/// A file's `git diff` as GitHub's `patch`: from the first hunk header on, without the trailing
/// newline; `None` for a binary file (no hunks).
fn github_patch(diff: &str) -> Option<String> {
    let start = diff.find("\n@@ ").map(|i| i + 1)?;
    Some(
        diff[start..]
            .strip_suffix('\n')
            .unwrap_or(&diff[start..])
            .to_owned(),
    )
}

/// The shared story: a PR before and after a force-push that rebased it onto upstream commits
/// shifting its lines, with one commit amended.
pub struct RebasedPr {
    pub repo: GitRepo,
    /// The PR's base and head before the push (the base is the merge base).
    pub base1: String,
    pub head1: String,
    /// After the push.
    pub base2: String,
    pub head2: String,
}

impl RebasedPr {
    /// `pulls/{n}/files` before the push.
    pub fn files1(&self) -> Vec<Value> {
        self.repo.pr_files(&self.base1, &self.head1)
    }

    /// `pulls/{n}/files` after the push.
    pub fn files2(&self) -> Vec<Value> {
        self.repo.pr_files(&self.base2, &self.head2)
    }
}

/// `src/walk.rs` at the base: a walker with a stack, 40-odd lines.
pub const WALK: &str = "use std::sync::{Arc, Mutex};

pub struct Walker {
    root: String,
    threads: usize,
}

impl Walker {
    pub fn new(root: &str) -> Walker {
        Walker {
            root: root.to_owned(),
            threads: 1,
        }
    }

    pub fn run(&self) {
        let stack = vec![self.root.clone()];
        let mut seen = 0;
        for entry in stack {
            seen += 1;
            println!(\"{entry}\");
        }
        println!(\"{seen} entries\");
    }

    pub fn depth(&self) -> usize {
        let mut depth = 0;
        for part in self.root.split('/') {
            if !part.is_empty() {
                depth += 1;
            }
        }
        depth
    }

    pub fn threads(&self) -> usize {
        self.threads
    }
}
";

/// Makes the story:
/// - base (`main`): `src/walk.rs` ([`WALK`]), `src/tabs.c` indented by tabs, `crlf.txt` with CRLF
///   line endings, `src/old_name.rs`;
/// - the PR (`feature`, two commits): walk.rs gets a shared stack (`Arc::new(Mutex::new(…))`), a
///   changed loop and a new method; tabs.c and crlf.txt change a line each; old_name.rs is
///   renamed to `src/new_name.rs` with a change; `assets/logo.png` (binary) is added;
/// - upstream (`main`): a licence header of 4 lines on walk.rs and 2 on tabs.c, one line
///   changed far below in walk.rs;
/// - the force-push: `feature` rebased onto the new `main`, its last commit amended (the loop's
///   `println!` changed, the new method `root()` removed).
pub fn rebased_pr() -> RebasedPr {
    let repo = GitRepo::new();
    repo.write("src/walk.rs", WALK);
    repo.write(
        "src/tabs.c",
        "int main(void)\n{\n\tint a = 1;\n\tif (a) {\n\t\treturn a;\n\t}\n\treturn 0;\n}\n",
    );
    repo.write("crlf.txt", "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n");
    repo.write(
        "src/old_name.rs",
        "pub fn name() -> &'static str {\n    \"old\"\n}\n\npub fn keep() {}\n",
    );
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    // First PR commit: the shared stack, tabs, CRLF, the rename, the binary.
    repo.write(
        "src/walk.rs",
        WALK.replace(
            "        let stack = vec![self.root.clone()];\n",
            "        let stack = Arc::new(Mutex::new(vec![]));\n        stack.lock().unwrap().push(self.root.clone());\n",
        )
        .replace(
            "        for entry in stack {\n",
            "        for entry in stack.lock().unwrap().drain(..) {\n",
        ),
    );
    repo.write(
        "src/tabs.c",
        "int main(void)\n{\n\tint a = 2;\n\tif (a) {\n\t\treturn a;\n\t}\n\treturn 0;\n}\n",
    );
    repo.write("crlf.txt", "one\r\ntwo\r\nTHREE\r\nfour\r\nfive\r\n");
    repo.git(&["mv", "src/old_name.rs", "src/new_name.rs"]);
    repo.write(
        "src/new_name.rs",
        "pub fn name() -> &'static str {\n    \"new\"\n}\n\npub fn keep() {}\n",
    );
    repo.write(
        "assets/logo.png",
        [0x89u8, b'P', b'N', b'G', 0, 1, 2, 0, 255],
    );
    repo.commit("walk: share the stack");
    // Second PR commit: the loop body and a new method.
    let second = WALK
        .replace(
            "        let stack = vec![self.root.clone()];\n",
            "        let stack = Arc::new(Mutex::new(vec![]));\n        stack.lock().unwrap().push(self.root.clone());\n",
        )
        .replace(
            "        for entry in stack {\n            seen += 1;\n            println!(\"{entry}\");\n",
            "        for entry in stack.lock().unwrap().drain(..) {\n            seen += 1;\n            println!(\"entry: {entry}\");\n",
        )
        .replace(
            "    pub fn threads(&self) -> usize {\n",
            "    pub fn root(&self) -> &str {\n        &self.root\n    }\n\n    pub fn threads(&self) -> usize {\n",
        );
    repo.write("src/walk.rs", &second);
    let head1 = repo.commit("walk: print entries, root()");
    let base1 = repo.merge_base("main", "feature");

    // Upstream moves on: lines shift above the PR's changes, one changes below them.
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        "src/walk.rs",
        format!("// Copyright the authors.\n// Licensed under MIT.\n\n// Walks a tree.\n{WALK}")
            .replace("        self.threads\n", "        self.threads.max(1)\n"),
    );
    repo.write(
        "src/tabs.c",
        "/* tabs */\n\nint main(void)\n{\n\tint a = 1;\n\tif (a) {\n\t\treturn a;\n\t}\n\treturn 0;\n}\n",
    );
    repo.commit("upstream: licence headers");

    // The force-push: rebased onto the new main, the last commit amended.
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["rebase", "-q", "main"]);
    let amended = repo
        .git(&["show", "HEAD:src/walk.rs"])
        .replace(
            "    pub fn root(&self) -> &str {\n        &self.root\n    }\n\n",
            "",
        )
        .replace(
            "            println!(\"entry: {entry}\");\n",
            "            println!(\"walked: {entry}\");\n",
        );
    repo.write("src/walk.rs", &amended);
    let head2 = repo.amend();
    let base2 = repo.merge_base("main", "feature");
    RebasedPr {
        repo,
        base1,
        head1,
        base2,
        head2,
    }
}

/// "GitHub" and the maintainer's clone of it, for checking out PR 482: `up` holds the PR's
/// head at `refs/pull/482/head` (as GitHub keeps it, fork PRs too) on a branch of its own;
/// `clone` (named `rivet`, in `root`) is a clone of `up` on `main`.
pub struct PrClone {
    /// Kept for as long as the clone fetches from it.
    _up: GitRepo,
    pub root: tempfile::TempDir,
    pub clone: std::path::PathBuf,
    /// The PR's head commit.
    pub head: String,
}

impl PrClone {
    pub fn new() -> PrClone {
        let up = GitRepo::new();
        up.write("src/lib.rs", "pub fn one() {}\n");
        up.commit("base");
        up.git(&["checkout", "-q", "-b", "feature"]);
        up.write("src/lib.rs", "pub fn one() {}\npub fn two() {}\n");
        let head = up.commit("the PR");
        up.git(&["update-ref", "refs/pull/482/head", &head]);
        up.git(&["checkout", "-q", "main"]);
        let root = tempfile::tempdir().expect("a dir for the clone");
        let clone = root.path().join("rivet");
        let o = Command::new("git")
            .args(["clone", "-q"])
            .arg(up.path())
            .arg(&clone)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git clone");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        PrClone {
            _up: up,
            root,
            clone,
            head,
        }
    }

    /// The demo fixture's text with this PR's head (and no history steps).
    pub fn fixture_json(&self) -> String {
        let mut v: Value = serde_json::from_str(
            &std::fs::read_to_string("assets/fixtures/demo.json").expect("the demo fixture"),
        )
        .expect("the demo parses");
        v["pr"]["headSha"] = json!(self.head);
        v["steps"] = json!([]);
        v.to_string()
    }
}
