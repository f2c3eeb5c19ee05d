//! `pr-shepherd checkout PR [--repo DIR] [--dir DIR]`: the PR's head (`refs/pull/N/head`, which
//! GitHub keeps on the base repository for fork PRs too) in a git worktree beside the
//! repository, detached at the head GitHub names. A worktree with changes is never touched; the
//! repository's own working tree never is.

use std::path::Path;
use std::process::Command;

use super::Context;
use crate::cli::{CheckoutArgs, Format};
use crate::error::CliError;
use crate::policy::merge::{same_commit, short};
use crate::sanitize::one_line;

use crate::code::worktree_dir;

/// `git -C dir args…` without a shell, a terminal prompt or the environment's secrets: its
/// output, or why it failed in words.
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

/// The remote of the repository at `repo` that is `owner/repo` on GitHub (its URL names them),
/// else `origin`.
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
        "the repository has no remote for {owner}/{name} (and no `origin`)"
    ))
}

pub(super) async fn run(ctx: &Context, args: CheckoutArgs) -> Result<(), CliError> {
    let repo = args
        .repo
        .clone()
        .or_else(|| ctx.config.config.code.checkout.clone())
        .ok_or_else(|| {
            CliError::usage(
                "give --repo DIR (a clone of the repository), or set `checkout` under [code] in the config",
            )
        })?;
    let shown = |p: &Path| one_line(&p.display().to_string());
    git(&repo, &["rev-parse", "--git-dir"])
        .map_err(|_| CliError::usage(format!("{} is not a git repository", shown(&repo))))?;
    let snapshot = super::load_snapshot(ctx, ctx.resolve(Some(&args.pr))?, None).await?;
    let pr = &snapshot.pr;
    let head = pr.head_sha.clone();
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| worktree_dir(&repo, pr.number));
    let remote = remote_for(&repo, &pr.owner, &pr.repo).map_err(CliError::runtime)?;
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
            return Err(CliError::usage(format!(
                "{} exists and is not a git worktree: give another --dir",
                shown(&dir)
            )));
        }
        let changes = git(&dir, &["status", "--porcelain"]).map_err(CliError::runtime)?;
        if !changes.is_empty() {
            return Err(CliError::runtime(format!(
                "{} has changes of its own ({} paths): not touched; commit or stash them first",
                shown(&dir),
                changes.lines().count()
            )));
        }
    }
    let refspec = format!("refs/pull/{}/head", pr.number);
    git(&repo, &["fetch", "--no-tags", &remote, &refspec]).map_err(|e| {
        CliError::runtime(format!(
            "fetching {refspec} from `{}` failed: {e}",
            one_line(&remote)
        ))
    })?;
    let fetched = git(&repo, &["rev-parse", "FETCH_HEAD"]).map_err(CliError::runtime)?;
    if !same_commit(&fetched, &head) {
        return Err(CliError::runtime(format!(
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
            git(&dir, &["checkout", "--detach", &fetched]).map_err(CliError::runtime)?;
            format!(
                "moved from {} to the PR's head {}",
                short(&at),
                short(&head)
            )
        }
    } else {
        let d = dir.to_string_lossy().into_owned();
        git(&repo, &["worktree", "add", "--detach", &d, &fetched])
            .map_err(|e| CliError::runtime(format!("the worktree could not be made: {e}")))?;
        format!("checked out the PR's head {}", short(&head))
    };
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&serde_json::json!({
            "pr": format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
            "head": head,
            "dir": dir.display().to_string(),
            "repo": repo.display().to_string(),
            "said": said,
        }))
        .unwrap_or_default(),
        Format::Md => format!(
            "{}/{}#{}: {said} in {} (a worktree of {}); the diff's `o` opens files there\n",
            one_line(&pr.owner),
            one_line(&pr.repo),
            pr.number,
            shown(&dir),
            shown(&repo)
        ),
    };
    super::emit_in(args.format, &text)
}
