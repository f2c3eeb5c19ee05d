//! The file the diff's `o` hands to the editor (performed as the diff's own work, `work.rs`).
//!
//! - The new side: with `[code] checkout = PATH` naming a clone whose `HEAD` (`git -C PATH
//!   rev-parse HEAD`, no shell, the environment less its secrets) is the PR's head, the real
//!   file there — the language server works; otherwise (no checkout, another `HEAD`, not a
//!   repository: said) the head version, read as the context on demand reads it
//!   (`contents::file_for_console`: live by blob, offline from the fixture's `fileContents`),
//!   as a read-only copy in the console's private scratch folder (`tui::scratch`).
//! - A PR chooses its symlinks, so the checkout's file is handed over only when no part of its
//!   path is a symlink and it is a regular file inside the checkout, outside its `.git`. A file
//!   that is itself a symlink opens as the read-only copy of its blob (the link text: the head
//!   version as read above, else the link as the checkout has it); a symlinked folder on the way,
//!   or a path into `.git`, falls back to the read-only copy, and the notice says why. A symlink
//!   is never followed.
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
    // A symlink's text as the checkout has it: its blob when the head version cannot be read.
    let mut link_text = None;
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
                Ok(InCheckout::Link(text)) => {
                    checkout_said = Some(format!(
                        "{path} is a symlink in the checkout {}, never followed: its link text",
                        one_line(&dir.display().to_string())
                    ));
                    link_text = Some(text);
                    break;
                }
                Ok(InCheckout::File(file)) => {
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
    let read = crate::source::github::contents::file_for_console(
        gh,
        fixture.as_ref(),
        io.blobs,
        &ask.pr,
        &ask.commit,
        &ask.path,
    )
    .await;
    let text: std::sync::Arc<str> = match (read, link_text) {
        (Ok(t), _) => t.text,
        (Err(_), Some(link)) => std::sync::Arc::from(link),
        (Err(e), None) => {
            let why = checkout_said.map(|w| format!(" — {w}")).unwrap_or_default();
            return Err(format!(
                "cannot open {path} in the editor: {}{why}",
                one_line(&e.to_string())
            ));
        }
    };
    let file = io
        .scratch
        .write_copy(&ask.path, &text)
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

/// What `path` is in a checkout at the PR's head.
#[derive(Debug, Clone, PartialEq, Eq)]
enum InCheckout {
    /// A regular file inside the checkout, outside its `.git`, reached through no symlink.
    File(PathBuf),
    /// A symlink: its link text (what its blob holds), never followed.
    Link(String),
}

/// `path` in the clone at `dir` when its `HEAD` is `head`; `Err`: why not, in words.
async fn in_checkout(dir: &Path, head: &str, path: &str) -> Result<InCheckout, String> {
    let shown = one_line(&dir.display().to_string());
    let rel = Path::new(path);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(format!("the path {} is not a plain path", one_line(path)));
    }
    if rel.components().any(|c| is_git_dir(c.as_os_str())) {
        return Err(format!(
            "the path {} is inside a .git folder, never opened from the checkout",
            one_line(path)
        ));
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
    let root = std::fs::canonicalize(dir)
        .map_err(|e| format!("the checkout {shown} cannot be read: {e}"))?;
    match walk_checkout(&root, rel) {
        // Named as the configuration names the checkout.
        Ok(InCheckout::File(_)) => Ok(InCheckout::File(dir.join(rel))),
        Ok(link) => Ok(link),
        Err(why) => Err(format!("the checkout {shown} {why}")),
    }
}

/// Whether a path component names a `.git` folder (any case: some file systems ignore it).
fn is_git_dir(c: &std::ffi::OsStr) -> bool {
    c.to_str().is_some_and(|c| c.eq_ignore_ascii_case(".git"))
}

/// `rel` (plain components only) under the canonical checkout `root`, one component at a time
/// and never through a symlink: a regular file, or the link text of a symlink as its last
/// component; `Err`: what the checkout has instead, in words (after "the checkout X").
fn walk_checkout(root: &Path, rel: &Path) -> Result<InCheckout, String> {
    let shown = one_line(&rel.display().to_string());
    let parts: Vec<_> = rel.components().collect();
    let mut at = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        at.push(part.as_os_str());
        let last = i + 1 == parts.len();
        let meta = std::fs::symlink_metadata(&at).map_err(|_| format!("has no file {shown}"))?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            if !last {
                let folder: PathBuf = parts[..=i].iter().collect();
                return Err(format!(
                    "has a symlink at {}, never followed",
                    one_line(&folder.display().to_string())
                ));
            }
            let link = std::fs::read_link(&at).map_err(|_| format!("has no file {shown}"))?;
            return Ok(InCheckout::Link(link_text(&link)));
        }
        if !last && !kind.is_dir() {
            return Err(format!("has no file {shown}"));
        }
        if last && !kind.is_file() {
            return Err(format!("has no file {shown}"));
        }
    }
    // Reached through no symlink, so still inside; said again of the resolved path all the same.
    let real = std::fs::canonicalize(&at).map_err(|_| format!("has no file {shown}"))?;
    if !real.starts_with(root) || real.starts_with(root.join(".git")) {
        return Err(format!("leads outside its files with {shown}"));
    }
    Ok(InCheckout::File(real))
}

/// A symlink's target as git keeps it in the link's blob: its bytes, as text.
fn link_text(link: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        String::from_utf8_lossy(link.as_os_str().as_bytes()).into_owned()
    }
    #[cfg(not(unix))]
    {
        link.to_string_lossy().into_owned()
    }
}
