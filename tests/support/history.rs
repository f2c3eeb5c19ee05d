//! Real history for the code tests: a small repository built with the `git` CLI in a temporary
//! folder (tabs, CRLF, a rename with changes, a binary, an added and a removed file), a PR on it,
//! and a force-push that rebases the PR onto a base that shifts its lines and drops the commit
//! that added one file. [`Repo::pr_files`] answers as GitHub's `pulls/{n}/files` does, from
//! `git diff base...head`, so git is the oracle for every line number and side the tests check.

use std::path::Path;

use super::gitrepo::GitRepo;

use pr_shepherd::pr::{ChangedFile, ViewedState};
use serde_json::Value;

/// A git repository in a temporary folder (removed with it): [`GitRepo`] runs git, this story
/// reads its answers as typed `pulls/{n}/files` entries.
pub struct Repo {
    repo: GitRepo,
}

/// One entry of GitHub's `pulls/{n}/files`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrFile {
    pub filename: String,
    pub status: String,
    pub previous_filename: Option<String>,
    pub additions: u32,
    pub deletions: u32,
    /// The hunks of the file's diff (no `diff --git` header), as GitHub sends them; `None` for a
    /// binary file.
    pub patch: Option<String>,
}

impl PrFile {
    /// As the snapshot holds it, with this viewed state.
    pub fn changed(&self, viewed: ViewedState) -> ChangedFile {
        let mut f = ChangedFile::new(&self.filename, self.patch.clone());
        f.status = self.status.clone();
        f.previous_path = self.previous_filename.clone();
        f.additions = self.additions;
        f.deletions = self.deletions;
        f.viewed = viewed;
        f
    }

    /// As a fixture's `files` entry holds it.
    pub fn fixture_json(&self, viewed: ViewedState) -> Value {
        serde_json::to_value(self.changed(viewed)).expect("a file encodes")
    }
}

impl Repo {
    /// An empty repository (git runs with no user or system config, no line-ending conversion).
    pub fn new() -> Repo {
        Repo {
            repo: GitRepo::new(),
        }
    }

    pub fn path(&self) -> &Path {
        self.repo.path()
    }

    /// Runs git in the repository; its stdout (panics on failure, with stderr).
    pub fn git(&self, args: &[&str]) -> String {
        self.repo.git(args)
    }

    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) {
        self.repo.write(path, content)
    }

    /// Commits everything in the work tree; the new commit's SHA.
    pub fn commit(&self, message: &str) -> String {
        self.repo.commit(message)
    }

    pub fn head(&self) -> String {
        self.repo.sha("HEAD")
    }

    /// The file at commit `rev`, as text.
    pub fn show(&self, rev: &str, path: &str) -> String {
        self.git(&["show", &format!("{rev}:{path}")])
    }

    /// The 1-based number of the line of `path` at `rev` that is exactly `text` (the only one).
    pub fn line_of(&self, rev: &str, path: &str, text: &str) -> u32 {
        let content = self.show(rev, path);
        let hits: Vec<usize> = content
            .split('\n')
            .enumerate()
            .filter(|(_, l)| l.strip_suffix('\r').unwrap_or(l) == text)
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(hits.len(), 1, "`{text}` in {path} at {rev}: {hits:?}");
        hits[0] as u32
    }

    /// The PR's files as GitHub lists them for a PR from `head` into a branch at `base`
    /// ([`GitRepo::pr_files`]: `git diff base...head`, renames found).
    pub fn pr_files(&self, base: &str, head: &str) -> Vec<PrFile> {
        let text = |v: &Value, k: &str| v[k].as_str().map(str::to_owned);
        let count = |v: &Value, k: &str| v[k].as_u64().and_then(|n| u32::try_from(n).ok());
        self.repo
            .pr_files(base, head)
            .iter()
            .map(|v| PrFile {
                filename: text(v, "path").expect("a path"),
                status: text(v, "status").expect("a status"),
                previous_filename: text(v, "previousPath"),
                additions: count(v, "additions").unwrap_or(0),
                deletions: count(v, "deletions").unwrap_or(0),
                patch: text(v, "patch"),
            })
            .collect()
    }
}

/// `src/walk.rs` at the base, under `top`: six functions of eight numbered lines each.
fn walk_rs(top: &[&str]) -> String {
    let mut out: Vec<String> = top.iter().map(|s| (*s).to_owned()).collect();
    out.push("//! Walks a tree.".into());
    for f in 0..6 {
        out.push(format!("pub fn step_{f}(n: u32) -> u32 {{"));
        for k in 0..8 {
            out.push(format!("    let v{k} = n + {};", f * 10 + k));
        }
        out.push("    n".into());
        out.push("}".into());
    }
    out.push("// end".into());
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// A PR's history before and after a force-push, each with its base and head.
pub struct History {
    pub repo: Repo,
    pub base1: String,
    pub head1: String,
    pub base2: String,
    pub head2: String,
}

/// The file the force-push drops from the PR.
pub const DROPPED: &str = "src/extra.rs";
/// The file whose hunks only move in the force-push.
pub const WALK: &str = "src/walk.rs";
/// The line the PR removes from `src/walk.rs`.
pub const REMOVED_LINE: &str = "    let v3 = n + 23;";
/// A context line of the PR's hunk in `src/walk.rs` (old and new numbers differ).
pub const CONTEXT_LINE: &str = "    let v2 = n + 22;";
/// A line the PR adds to `src/walk.rs`.
pub const ADDED_LINE: &str = "    let w = v0 * 2; // added";
/// The file whose changed line the force-push amends.
pub const LIB: &str = "src/lib.rs";
/// Line 10 of `src/lib.rs` at H1, and at H2 after the amend.
pub const LIB_LINE_H1: &str = "pub const A10: u32 = 100;";
pub const LIB_LINE_H2: &str = "pub const A10: u32 = 1000;";

/// `src/lib.rs`: twenty constants, line 10 as given.
fn lib_rs(line10: &str) -> String {
    (1..=20)
        .map(|i| {
            if i == 10 {
                format!("{line10}\n")
            } else {
                format!("pub const A{i}: u32 = {i};\n")
            }
        })
        .collect()
}

impl History {
    /// The PR at H1 (base B1) and, after upstream moved `src/walk.rs` down by ten lines, the
    /// same PR rebased onto B2 without the commit that added [`DROPPED`] and with line 10 of
    /// [`LIB`] amended (H2).
    pub fn build() -> History {
        let repo = Repo::new();
        repo.write(WALK, walk_rs(&[]));
        repo.write("Makefile", "all:\n\tcargo build\n\ttest:\n\tcargo test\n");
        repo.write("docs/notes.txt", "first\r\nsecond\r\nthird\r\n");
        repo.write(
            "src/old_name.rs",
            "pub fn old() -> u32 {\n    1\n}\n\npub fn same() {}\n",
        );
        repo.write("src/dead.rs", "pub fn dead() {}\n");
        repo.write(LIB, lib_rs("pub const A10: u32 = 10;"));
        let base1 = repo.commit("base");

        // The PR: one commit that edits, one that adds the file the force-push drops, one that
        // renames with a change, adds a binary and removes a file.
        repo.git(&["checkout", "-q", "-b", "pr"]);
        let walk = walk_rs(&[])
            .replace(&format!("{REMOVED_LINE}\n"), "")
            .replace(
                "    let v0 = n + 20;\n",
                &format!("    let v0 = n + 20;\n{ADDED_LINE}\n"),
            );
        repo.write(WALK, walk);
        repo.write(
            "Makefile",
            "all:\n\tcargo build --locked\n\ttest:\n\tcargo test\n",
        );
        repo.write("docs/notes.txt", "first\r\nsecond, changed\r\nthird\r\n");
        repo.write(LIB, lib_rs(LIB_LINE_H1));
        let c1 = repo.commit("walk: step 2 without v3");
        repo.write(DROPPED, "pub fn extra() -> u8 {\n\t7\n}\n");
        let c2 = repo.commit("extra");
        repo.git(&["mv", "src/old_name.rs", "src/new_name.rs"]);
        repo.write(
            "src/new_name.rs",
            "pub fn old() -> u32 {\n    2\n}\n\npub fn same() {}\n",
        );
        repo.write("assets/logo.png", [0x89, b'P', b'N', b'G', 0, 1, 2, 0, 255]);
        std::fs::remove_file(repo.path().join("src/dead.rs")).expect("remove");
        let c3 = repo.commit("rename, logo, no dead code");
        let head1 = repo.head();
        assert_ne!(c2, c3);

        // Upstream: ten lines at the top of walk.rs.
        repo.git(&["checkout", "-q", "main"]);
        let top: Vec<String> = (0..10).map(|i| format!("// licence line {i}")).collect();
        let top: Vec<&str> = top.iter().map(String::as_str).collect();
        repo.write(WALK, walk_rs(&top));
        let base2 = repo.commit("licence header");

        // The force-push: the PR rebased onto it, the commit that added extra.rs dropped, the
        // first one amended.
        repo.git(&["checkout", "-q", "-B", "pr", &base2]);
        repo.git(&["cherry-pick", &c1]);
        repo.write(LIB, lib_rs(LIB_LINE_H2));
        repo.git(&["commit", "-q", "-a", "--amend", "--no-edit"]);
        repo.git(&["cherry-pick", &c3]);
        let head2 = repo.head();
        History {
            repo,
            base1,
            head1,
            base2,
            head2,
        }
    }

    /// The PR's files at H1.
    pub fn files1(&self) -> Vec<PrFile> {
        self.repo.pr_files(&self.base1, &self.head1)
    }

    /// The PR's files at H2, after the force-push.
    pub fn files2(&self) -> Vec<PrFile> {
        self.repo.pr_files(&self.base2, &self.head2)
    }
}

/// The file `path` of `files`.
pub fn file<'a>(files: &'a [PrFile], path: &str) -> &'a PrFile {
    files
        .iter()
        .find(|f| f.filename == path)
        .unwrap_or_else(|| panic!("{path} in {files:?}"))
}
