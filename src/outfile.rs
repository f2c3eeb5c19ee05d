//! Files the tool writes by replacing them — a temporary file in the same folder, then a rename
//! — and the sweep of the temporary files a killed run left behind. The ledger (the state dir,
//! prefix `.tmp-`) and the fixture writer (`record --out`, `fixture synth --out`, in the user's
//! own folder, prefix `.pr-shepherd-tmp-`) each sweep only their own name pattern, and only files
//! older than [`STALE_TEMP_AFTER`] (a live write renames its file within milliseconds, and a long
//! one keeps touching it).

use std::path::Path;
use std::time::{Duration, SystemTime};

/// A temporary file of the tool's own pattern older than this is the leftover of a killed run.
pub const STALE_TEMP_AFTER: Duration = Duration::from_secs(10);

/// How many random letters or digits `tempfile` adds after the prefix.
const RANDOM_LEN: usize = 6;

/// True for `prefix` plus the six letters or digits `tempfile` adds, and nothing else (so no
/// other file is ever taken for one).
pub fn is_temp_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == RANDOM_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// Removes `path` if it is a regular file last modified [`STALE_TEMP_AFTER`] or more before
/// `now`. Errors count as "not removed".
pub fn remove_if_stale(path: &Path, now: SystemTime) -> bool {
    let stale = std::fs::symlink_metadata(path).is_ok_and(|m| {
        m.file_type().is_file()
            && m.modified()
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age >= STALE_TEMP_AFTER)
    });
    let removed = stale && std::fs::remove_file(path).is_ok();
    if removed {
        tracing::debug!(path = %path.display(), "stale temporary file removed");
    }
    removed
}

/// Removes the stale temporary files named `prefix` + six letters or digits ([`is_temp_name`])
/// in `dir` (not below it). A missing or unreadable dir removes nothing. Returns how many.
pub fn sweep_stale_temps(dir: &Path, prefix: &str, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| is_temp_name(n, prefix))
        })
        .filter(|e| remove_if_stale(&e.path(), now))
        .count()
}

/// Writes `bytes` to `path` by replacing it: a temporary file `prefix` + six letters or digits
/// in the same folder, then a rename onto `path`. Whatever was at `path` — a file, or a symlink
/// pointing anywhere — is replaced, never written through; a failed write leaves it as it was.
/// First removes the stale temporary files of `prefix` a killed earlier write left in the folder.
pub fn write_replacing(path: &Path, bytes: &[u8], prefix: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    sweep_stale_temps(dir, prefix, SystemTime::now());
    let mut tmp = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_symlink_at_the_path_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.txt");
        std::fs::write(&target, "keep me").unwrap();
        let link = dir.path().join("page.1");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_replacing(&link, b"the page", ".x-").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        assert!(
            !std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "the page");
    }

    #[test]
    fn only_the_prefix_and_six_letters_or_digits_are_a_temp_name() {
        assert!(is_temp_name(".tmp-Ab12Z9", ".tmp-"));
        assert!(is_temp_name(".pr-shepherd-tmp-000000", ".pr-shepherd-tmp-"));
        assert!(!is_temp_name(".tmp-Ab12Z9", ".pr-shepherd-tmp-"));
        assert!(!is_temp_name(".tmp-Ab12Z9x", ".tmp-"));
        assert!(!is_temp_name(".tmp-Ab-2Z9", ".tmp-"));
        assert!(!is_temp_name(".tmp-Ab12Z", ".tmp-"));
        assert!(!is_temp_name("x.tmp-Ab12Z9", ".tmp-"));
    }

    #[test]
    fn the_sweep_removes_stale_files_of_the_pattern_only() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - Duration::from_secs(120);
        let make = |name: &str, stale: bool| {
            let p = dir.path().join(name);
            let f = std::fs::File::create(&p).unwrap();
            if stale {
                f.set_modified(old).unwrap();
            }
            p
        };
        let gone = [make(".x-Ab12Z9", true), make(".x-000000", true)];
        let kept = [
            make(".x-fresh1", false),
            make(".x-Ab12Z9.json", true),
            make(".y-Ab12Z9", true),
            make("notes.txt", true),
        ];
        std::fs::create_dir(dir.path().join(".x-dir123")).unwrap();
        assert_eq!(sweep_stale_temps(dir.path(), ".x-", SystemTime::now()), 2);
        assert!(gone.iter().all(|p| !p.exists()));
        assert!(kept.iter().all(|p| p.exists()));
        assert!(
            dir.path().join(".x-dir123").is_dir(),
            "a directory is never removed"
        );
        assert_eq!(
            sweep_stale_temps(&dir.path().join("missing"), ".x-", SystemTime::now()),
            0
        );
    }
}
