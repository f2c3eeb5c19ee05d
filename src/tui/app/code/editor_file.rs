//! The file the diff's `o` hands to the editor (performed as the diff's own work, `work.rs`).
//!
//! - The new side: with `[code] checkout = PATH` naming a clone whose `HEAD` (`git -C PATH
//!   rev-parse HEAD`, no shell, the environment less its secrets) is the PR's head, the real
//!   file there — the language server works; otherwise (no checkout, another `HEAD`, not a
//!   repository: said) the head version, read as the context on demand reads it
//!   (`contents::file_for_console`: live by blob, offline from the fixture's `fileContents`),
//!   as a read-only copy in the console's private scratch folder (`tui::scratch`).
//! - The old side: the base version, always a read-only copy.

use std::path::{Component, Path, PathBuf};

use crate::code::patch::Side;
use crate::pr::PrCoords;
use crate::sanitize::one_line;
use crate::tui::app::work::Io;

/// Which file `o` asked for: `path` at `commit` (the PR's head on the new side, its base on the
/// old), to be opened at `line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorFile {
    pub pr: PrCoords,
    /// The path at `commit` (on the old side of a renamed file: its old path).
    pub path: String,
    pub side: Side,
    pub commit: String,
    /// The PR's head (a checkout at another commit is not the file under review).
    pub head: String,
    pub line: u32,
}

/// The file to open and what to say once it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub file: PathBuf,
    pub line: u32,
    /// Which file was opened, and why that one.
    pub said: String,
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// Prepares `ask`'s file (see the module's documentation); `Err`: why not, in words.
pub async fn prepare(io: &Io<'_>, ask: &EditorFile) -> Result<Prepared, String> {
    let path = one_line(&ask.path);
    let mut checkout_said = None;
    if ask.side == Side::Right
        && let Some(clone) = &io.session.checkout
    {
        // The clone itself, else the worktree `pr-shepherd checkout` made beside it.
        let tree = crate::code::worktree_dir(clone, ask.pr.number);
        for dir in [clone, &tree] {
            if dir == &tree && !tree.exists() {
                break;
            }
            match in_checkout(dir, &ask.head, &ask.path).await {
                Ok(file) => {
                    return Ok(Prepared {
                        file,
                        line: ask.line,
                        said: format!(
                            "opened {path} in the checkout {} (its HEAD is the PR's head) at line {}",
                            one_line(&dir.display().to_string()),
                            ask.line
                        ),
                    });
                }
                // The clone's reason is the one said: the worktree is only a second chance.
                Err(why) => {
                    checkout_said.get_or_insert(why);
                }
            }
        }
    }
    let fixture = (io.fixture_of)(&ask.pr);
    let gh = io.session.remote.github().map(|g| g.as_ref());
    let text = crate::source::github::contents::file_for_console(
        gh,
        fixture.as_ref(),
        io.blobs,
        &ask.pr,
        &ask.commit,
        &ask.path,
    )
    .await
    .map_err(|e| {
        format!(
            "cannot open {path} in the editor: {}",
            one_line(&e.to_string())
        )
    })?;
    let file = io
        .scratch
        .write_copy(&ask.path, &text.text)
        .map_err(|e| format!("cannot open {path} in the editor: {e}"))?;
    let version = match ask.side {
        Side::Right => "the head",
        Side::Left => "the base",
    };
    let mut said = format!(
        "opened {version} version of {path} ({}) at line {}, a read-only copy",
        short(&ask.commit),
        ask.line
    );
    if let Some(why) = checkout_said {
        said.push_str(&format!(" — {why}"));
    }
    Ok(Prepared {
        file,
        line: ask.line,
        said,
    })
}

/// `path` in the clone at `dir` when its `HEAD` is `head`; `Err`: why not, in words.
async fn in_checkout(dir: &Path, head: &str, path: &str) -> Result<PathBuf, String> {
    let shown = one_line(&dir.display().to_string());
    let rel = Path::new(path);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(format!("the path {} is not a plain path", one_line(path)));
    }
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(["rev-parse", "--verify", "HEAD"])
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    for k in crate::childenv::secret_names() {
        cmd.env_remove(k);
    }
    let out = cmd
        .output()
        .await
        .map_err(|e| format!("the checkout {shown} cannot be asked for its HEAD: {e}"))?;
    if !out.status.success() {
        return Err(format!("the checkout {shown} is not a git repository"));
    }
    let at = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !at.eq_ignore_ascii_case(head) {
        return Err(format!(
            "the checkout {shown} is at {}, not the PR's head {}",
            one_line(short(&at)),
            short(head)
        ));
    }
    let file = dir.join(rel);
    if !file.is_file() {
        return Err(format!(
            "the checkout {shown} has no file {}",
            one_line(path)
        ));
    }
    Ok(file)
}
