//! The console's private scratch space: read-only copies of files the diff's `o` hands to the
//! user's editor (the head version when no checkout is at the PR's head, the base version
//! always).
//!
//! One directory per console run, made when first needed, readable by the user only (0700),
//! removed when the console exits ([`Scratch::clear`], and when the last handle goes). Each
//! copy gets a folder of its own (0700) so two files with the same base name, or the two
//! versions of one file, never meet, and keeps the file's base name, so the editor picks the
//! right syntax; the copy itself is read-only (0400): it is not the file under review.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The scratch directory of one console run (cloning shares it).
#[derive(Debug, Clone, Default)]
pub struct Scratch(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    root: Mutex<Option<tempfile::TempDir>>,
    next: AtomicU64,
}

/// Why a copy could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScratchError {
    #[error("the file's path has no name to give the copy")]
    NoName,
    #[error("cannot write the private copy: {0}")]
    Io(#[from] std::io::Error),
}

impl Scratch {
    /// Writes `text` to a new read-only file named after `path`'s base name, in a folder of its
    /// own under the private scratch directory; its path.
    pub fn write_copy(&self, path: &str, text: &str) -> Result<PathBuf, ScratchError> {
        let name = Path::new(path)
            .file_name()
            .filter(|n| !n.is_empty())
            .ok_or(ScratchError::NoName)?
            .to_owned();
        let dir = self.new_dir()?;
        let file = dir.join(name);
        write_read_only(&file, text.as_bytes())?;
        Ok(file)
    }

    /// A new private folder under the root (made first, private, if it is not there yet).
    fn new_dir(&self) -> std::io::Result<PathBuf> {
        let root = {
            let mut root = self
                .0
                .root
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if root.is_none() {
                let made = tempfile::Builder::new()
                    .prefix("pr-shepherd-files-")
                    .tempdir()?;
                private_dir(made.path())?;
                *root = Some(made);
            }
            match root.as_ref() {
                Some(r) => r.path().to_owned(),
                None => return Err(std::io::Error::other("no scratch directory")),
            }
        };
        let n = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        let dir = root.join(n.to_string());
        make_private_dir(&dir)?;
        Ok(dir)
    }

    /// Removes the scratch directory and everything in it (the console is closing).
    pub fn clear(&self) {
        let taken = self
            .0
            .root
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        drop(taken);
    }

    /// The scratch directory, once made (tests).
    pub fn root(&self) -> Option<PathBuf> {
        self.0
            .root
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map(|d| d.path().to_owned())
    }
}

#[cfg(unix)]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn private_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir(dir)
}

/// A new file (never an existing one) holding `bytes`, then read-only.
fn write_read_only(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(file)?;
    f.write_all(bytes)?;
    f.flush()?;
    let mut perms = f.metadata()?.permissions();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        perms.set_mode(0o400);
    }
    #[cfg(not(unix))]
    perms.set_readonly(true);
    std::fs::set_permissions(file, perms)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Guards the copies: named after the base name, read-only, in private folders of their own
    // (the same name twice never meets), all gone when cleared.
    #[test]
    fn copies_are_private_read_only_and_removed() {
        let s = Scratch::default();
        let a = s.write_copy("src/lib/retry.rs", "one\n").unwrap();
        let b = s.write_copy("other/retry.rs", "two\n").unwrap();
        assert_ne!(a, b);
        assert_eq!(a.file_name().unwrap(), "retry.rs");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "two\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&a), 0o400);
            assert_eq!(mode(a.parent().unwrap()), 0o700);
            assert_eq!(mode(&s.root().unwrap()), 0o700);
        }
        assert!(matches!(s.write_copy("", "x"), Err(ScratchError::NoName)));
        let root = s.root().unwrap();
        s.clone().clear();
        assert!(!root.exists() && !a.exists());
    }
}
