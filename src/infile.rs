//! Files named by settings, flags or environment variables — the config file, themes, prompt
//! files, the GitHub App key, fixtures (with their recorded answers) and event payloads — are
//! read only when they are regular files within a size limit: a device (`/dev/zero`), a FIFO, a
//! socket or a directory is refused before a byte is read (a FIFO is opened without blocking),
//! and so is a file over its limit, with the limit in the message. The read itself is bounded
//! too, so a file that grows while it is read (or a `/proc` file that claims size 0) still stops
//! at the limit.
//!
//! Refusals are `InvalidInput` I/O errors, wrapped by each caller's own error type (exit 2).

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The most bytes of a config file (`config.toml`).
pub const CONFIG_LIMIT: u64 = 1 << 20;
/// The most bytes of a theme file.
pub const THEME_LIMIT: u64 = 1 << 20;
/// The most bytes of one prompt file (playbook or aspect prompt).
pub const PROMPT_LIMIT: u64 = 1 << 20;
/// The most bytes of a GitHub App private key file.
pub const KEY_LIMIT: u64 = 64 << 10;
/// The most bytes of a thread reply read from a file or stdin (`thread --body-file`); GitHub takes
/// at most 65,536 characters anyway.
pub const REPLY_LIMIT: u64 = 1 << 20;
/// The most bytes of a webhook event payload (GitHub sends at most 25 MB).
pub const EVENT_LIMIT: u64 = 32 << 20;
/// The most bytes of a fixture file (recorded answers included): about 230,000 items.
pub const FIXTURE_LIMIT: u64 = 256 << 20;

/// `n` bytes in words: `256 MiB`, `64 KiB`, `12 bytes`.
pub fn size_words(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

fn refused(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message)
}

/// What a non-regular file is, in words.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// `Ok` when `meta` is a regular file of at most `limit` bytes.
fn check(meta: &std::fs::Metadata, limit: u64) -> std::io::Result<()> {
    if !meta.file_type().is_file() {
        return Err(refused(format!(
            "it is {}, not a regular file",
            kind_of(meta.file_type())
        )));
    }
    if meta.len() > limit {
        return Err(refused(format!(
            "it is {} bytes, over the limit of {}",
            meta.len(),
            size_words(limit)
        )));
    }
    Ok(())
}

/// Opens `path` for reading after checking it is a regular file of at most `limit` bytes (before
/// opening, so a FIFO never blocks, and again on the open file).
pub fn open(path: &Path, limit: u64) -> std::io::Result<File> {
    check(&std::fs::metadata(path)?, limit)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Swapped for a FIFO between the check and the open: still no blocking.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    check(&file.metadata()?, limit)?;
    Ok(file)
}

/// The error for a file that turned out longer than `limit` while it was read.
pub fn grew_past(limit: u64) -> std::io::Error {
    refused(format!(
        "it grew past the limit of {} while it was read",
        size_words(limit)
    ))
}

/// The whole of `path`, a regular file of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = open(path, limit)?;
    let mut out = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(grew_past(limit));
    }
    Ok(out)
}

/// [`read`] as UTF-8 text (invalid UTF-8 is an `InvalidData` error).
pub fn read_to_string(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_to_string(&p, 5).unwrap(), "hello");
        let e = read(&p, 4).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("over the limit of 4 bytes"), "{e}");
        assert!(
            read(dir.path(), 5)
                .unwrap_err()
                .to_string()
                .contains("a directory")
        );
        assert_eq!(
            read(&dir.path().join("none"), 5).unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
        assert_eq!(size_words(256 << 20), "256 MiB");
        assert_eq!(size_words(64 << 10), "64 KiB");
    }

    /// Failed before issue 15 (the readers read `/dev/zero` until memory ran out).
    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_without_reading_or_blocking() {
        let e = read(Path::new("/dev/zero"), CONFIG_LIMIT).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            let e = read(&fifo, CONFIG_LIMIT).unwrap_err();
            assert!(e.to_string().contains("a FIFO"), "{e}");
        }
    }
}
