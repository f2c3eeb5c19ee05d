//! The PR's head in a git worktree beside a clone of its repository: `refs/pull/N/head` (GitHub
//! keeps it on the base repository for fork PRs too) fetched from the remote that is the PR's
//! repository (else `origin`), detached at the head GitHub names. A worktree with changes is
//! never touched; the clone's own working tree never is. git runs without a shell, a terminal
//! prompt or the environment's secrets.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::code::worktree_dir;
use crate::policy::merge::{same_commit, short};
use crate::pr::PrMeta;
use crate::sanitize::one_line;

#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    /// The clone named is no git repository (bad input).
    #[error("{0} is not a git repository")]
    NotARepository(String),
    /// The worktree's place holds something else (bad input).
    #[error("{0} exists and is not a git worktree: give another --dir")]
    Occupied(String),
    #[error(
        "{dir} has changes of its own ({paths} paths): not touched; commit or stash them first"
    )]
    Changes { dir: String, paths: usize },
    #[error("{0}")]
    Git(String),
}

impl CheckoutError {
    /// Bad input (exit 2) rather than a runtime failure.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            CheckoutError::NotARepository(_) | CheckoutError::Occupied(_)
        )
    }
}

/// What a check out did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedOut {
    pub dir: PathBuf,
    /// "checked out the PR's head abc1234", "already at …", "moved from … to …".
    pub said: String,
}

/// `git -C dir args…`: its output, or why it failed in words.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir).args(args);
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null());
    for k in crate::childenv::secret_names() {
        cmd.env_remove(k);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("git could not be run: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(one_line(String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// The remote of the clone at `repo` that is `owner/name` on GitHub (its URL names them), else
/// `origin`.
fn remote_for(repo: &Path, owner: &str, name: &str) -> Result<String, String> {
    let listed = git(repo, &["remote", "-v"])?;
    let want = format!(
        "{}/{}",
        owner.to_ascii_lowercase(),
        name.to_ascii_lowercase()
    );
    for line in listed.lines() {
        let mut parts = line.split_whitespace();
        let (Some(remote), Some(url)) = (parts.next(), parts.next()) else {
            continue;
        };
        let url = url.to_ascii_lowercase();
        let url = url.trim_end_matches('/').trim_end_matches(".git");
        if url.ends_with(&format!("/{want}")) || url.ends_with(&format!(":{want}")) {
            return Ok(remote.to_owned());
        }
    }
    if listed.lines().any(|l| l.starts_with("origin")) {
        return Ok("origin".to_owned());
    }
    Err(format!(
        "the repository has no remote for {} (and no `origin`)",
        one_line(&format!("{owner}/{name}"))
    ))
}

/// Checks out `pr`'s head from the clone at `repo` into `dir` (default: beside the clone,
/// `<repo>-pr-N`).
pub fn check_out(
    repo: &Path,
    dir: Option<&Path>,
    pr: &PrMeta,
) -> Result<CheckedOut, CheckoutError> {
    let shown = |p: &Path| one_line(&p.display().to_string());
    git(repo, &["rev-parse", "--git-dir"])
        .map_err(|_| CheckoutError::NotARepository(shown(repo)))?;
    let head = pr.head_sha.clone();
    let dir = dir.map_or_else(|| worktree_dir(repo, pr.number), Path::to_path_buf);
    let remote = remote_for(repo, &pr.owner, &pr.repo).map_err(CheckoutError::Git)?;
    // An existing worktree: only a clean one is moved, and only to the PR's head.
    let existing = dir.exists() && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some());
    if existing {
        let top = git(&dir, &["rev-parse", "--show-toplevel"]).ok();
        let is_tree = top
            .as_deref()
            .and_then(|t| std::fs::canonicalize(t).ok())
            .zip(std::fs::canonicalize(&dir).ok())
            .is_some_and(|(a, b)| a == b);
        if !is_tree {
            return Err(CheckoutError::Occupied(shown(&dir)));
        }
        let changes = git(&dir, &["status", "--porcelain"]).map_err(CheckoutError::Git)?;
        if !changes.is_empty() {
            return Err(CheckoutError::Changes {
                dir: shown(&dir),
                paths: changes.lines().count(),
            });
        }
    }
    let refspec = format!("refs/pull/{}/head", pr.number);
    git(repo, &["fetch", "--no-tags", &remote, &refspec]).map_err(|e| {
        CheckoutError::Git(format!(
            "fetching {refspec} from `{}` failed: {e}",
            one_line(&remote)
        ))
    })?;
    let fetched = git(repo, &["rev-parse", "FETCH_HEAD"]).map_err(CheckoutError::Git)?;
    if !same_commit(&fetched, &head) {
        return Err(CheckoutError::Git(format!(
            "`{}` has {} at {refspec}, but the PR's head is {}: nothing checked out (the PR may have moved; try again)",
            one_line(&remote),
            short(&fetched),
            short(&head)
        )));
    }
    let said = if existing {
        let at = git(&dir, &["rev-parse", "HEAD"]).unwrap_or_default();
        if same_commit(&at, &head) {
            format!("already at the PR's head {}", short(&head))
        } else {
            git(&dir, &["checkout", "--detach", &fetched]).map_err(CheckoutError::Git)?;
            format!(
                "moved from {} to the PR's head {}",
                short(&at),
                short(&head)
            )
        }
    } else {
        let d = dir.to_string_lossy().into_owned();
        git(repo, &["worktree", "add", "--detach", &d, &fetched])
            .map_err(|e| CheckoutError::Git(format!("the worktree could not be made: {e}")))?;
        format!("checked out the PR's head {}", short(&head))
    };
    Ok(CheckedOut { dir, said })
}
