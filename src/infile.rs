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

// ---- what an error may say about a file's content ---------------------------------------------
//
// An error about what a file holds names the file and the position (line and column), never the
// content: a file given by mistake (`--theme /proc/self/environ`, a credentials file as the
// config) would otherwise print its secrets, and a huge value would be echoed whole. Parsers'
// own texts quote the offending line (TOML) or value (serde's `invalid type: string "…"`); the
// helpers below keep their words and drop what they quote.

/// The most characters of a message about a file's content.
pub const MESSAGE_CHARS: usize = 400;
/// The most characters of a name (an unknown key, a theme name) quoted in an error.
pub const NAME_CHARS: usize = 64;

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(1, |l| l.chars().count() + 1);
    (line, column)
}

/// `text` cut to `max` characters, with `…` when it was cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// A name from a file or a flag (a key, a theme name), fit to quote: sanitized, on one line,
/// and at most [`NAME_CHARS`] characters (a longer one is cut, with its length said).
pub fn short_name(name: &str) -> String {
    let clean = crate::sanitize::one_line(name);
    let n = clean.chars().count();
    if n <= NAME_CHARS {
        clean
    } else {
        format!("{} ({n} characters)", cut(&clean, NAME_CHARS))
    }
}

/// A path from a file or a flag, fit to quote: sanitized, at most 200 characters.
pub fn short_path(path: &Path) -> String {
    let clean = crate::sanitize::one_line(&path.display().to_string());
    let n = clean.chars().count();
    if n <= 200 {
        clean
    } else {
        format!("{} ({n} characters)", cut(&clean, 200))
    }
}

/// A parser's message about a file's content (serde's or a format crate's), fit to print: one
/// line, sanitized, at most [`MESSAGE_CHARS`] characters, and without the value it quotes:
/// `invalid type: string "…", expected usize` → `invalid type: string, expected usize`;
/// `unknown variant `…`, expected one of …` → `unknown variant, expected one of …`. An unknown
/// or missing key stays named (cut to [`NAME_CHARS`]): it is what the user has to find.
pub fn content_message(message: &str) -> String {
    let m = message.trim();
    bounded(&drop_quoted_value(m).unwrap_or_else(|| m.to_owned()))
}

/// A message that may quote a name from a file (the program's own check of a value: `` `x` is
/// not a mention``), fit to print: one line, sanitized, every `` `quoted` `` part cut to
/// [`NAME_CHARS`] characters and the whole to [`MESSAGE_CHARS`].
pub fn bounded(message: &str) -> String {
    let line = crate::sanitize::one_line(message);
    let mut out = String::with_capacity(line.len().min(MESSAGE_CHARS * 4));
    for (i, part) in line.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd parts are inside backticks.
        if i % 2 == 1 {
            out.push_str(&cut(part, NAME_CHARS));
        } else {
            out.push_str(part);
        }
        if out.len() > MESSAGE_CHARS * 4 {
            break;
        }
    }
    cut(&out, MESSAGE_CHARS)
}

/// serde's standard messages with the quoted value left out (`None`: not one of them).
fn drop_quoted_value(m: &str) -> Option<String> {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = m.strip_prefix(prefix) {
            // `string "…"` (Debug-escaped), `integer `5``, `character `c``, `sequence`, …
            let (kind, after) = match rest.find(['"', '`']) {
                Some(i) if rest[..i].find(',').is_none_or(|c| c > i) => {
                    let close = closing_quote(&rest[i..])?;
                    (rest[..i].trim_end(), &rest[i + close..])
                }
                _ => return None,
            };
            return Some(format!("{prefix}{kind}{after}"));
        }
    }
    for (prefix, what) in [
        ("unknown variant `", "unknown variant"),
        ("unknown field `", "unknown field"),
        ("missing field `", "missing field"),
        ("duplicate field `", "duplicate field"),
    ] {
        if let Some(rest) = m.strip_prefix(prefix) {
            // The expected list that follows holds only the program's own names.
            let end = rest
                .rfind("`, expected")
                .or_else(|| rest.rfind("`, there are no"))
                .or_else(|| rest.strip_suffix('`').map(str::len))?;
            let name = &rest[..end];
            let after = &rest[end + 1..];
            return Some(if what == "unknown variant" {
                format!("{what}{after}")
            } else {
                format!("{what} `{}`{after}", short_name(name))
            });
        }
    }
    None
}

/// The byte index just past the quote that closes the one `quoted` starts with (`"` with
/// backslash escapes, or a backtick).
fn closing_quote(quoted: &str) -> Option<usize> {
    let mut chars = quoted.char_indices();
    let (_, open) = chars.next()?;
    let mut escaped = false;
    for (i, c) in chars {
        if open == '"' && !escaped && c == '\\' {
            escaped = true;
            continue;
        }
        if c == open && !escaped {
            return Some(i + c.len_utf8());
        }
        escaped = false;
    }
    None
}

/// A TOML file that does not parse: where (line and column) and what, never the text. toml's own
/// error quotes the offending line under a caret, which can be the whole (huge, or hostile) file.
pub fn toml_syntax_error(text: &str, e: &toml::de::Error) -> String {
    format!("syntax error{}", toml_at(text, e))
}

/// A value the program refused, from a TOML file: at which line and column when the parser knows,
/// and what is wrong — never the value itself (see [`content_message`]).
pub fn toml_value_error(text: &str, e: &toml::de::Error) -> String {
    toml_at(text, e).trim_start().to_owned()
}

/// ` at line L, column C: what` (the position when the error has a span).
fn toml_at(text: &str, e: &toml::de::Error) -> String {
    let what = content_message(e.message());
    let Some(span) = e.span() else {
        return format!(": {what}");
    };
    let (line, column) = position(text, span.start);
    format!(" at line {line}, column {column}: {what}")
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

    /// Failed before it was fixed (the readers read `/dev/zero` until memory ran out).
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

    #[test]
    fn content_messages_drop_the_values_they_quote() {
        let secret = "ghp_secret, expected \\\"x\\\" `y`";
        for (m, want) in [
            (
                format!("invalid type: string \"{secret}\", expected usize"),
                "invalid type: string, expected usize".to_owned(),
            ),
            (
                "invalid value: integer `-3`, expected u32".to_owned(),
                "invalid value: integer, expected u32".to_owned(),
            ),
            (
                "invalid type: sequence, expected a string".to_owned(),
                "invalid type: sequence, expected a string".to_owned(),
            ),
            (
                format!("unknown variant `{secret}`, expected one of `openai`, `command`"),
                "unknown variant, expected one of `openai`, `command`".to_owned(),
            ),
            (
                "unknown field `colour`, expected one of `theme`, `keys`".to_owned(),
                "unknown field `colour`, expected one of `theme`, `keys`".to_owned(),
            ),
            (
                "missing field `query`".to_owned(),
                "missing field `query`".to_owned(),
            ),
        ] {
            let got = content_message(&m);
            assert_eq!(got, want, "{m}");
            assert!(!got.contains("secret"), "{got}");
        }
        let long = format!("unknown field `{}`, expected `a`", "k".repeat(10_000));
        assert!(content_message(&long).chars().count() < 200);
        assert!(content_message(&"x\n\u{1b}".repeat(10_000)).chars().count() <= MESSAGE_CHARS + 1);
        let own = format!(
            "`{}` is not a mention like `@pr-shepherd`",
            "m".repeat(5000)
        );
        let b = bounded(&own);
        assert!(
            b.chars().count() < 120 && b.ends_with("is not a mention like `@pr-shepherd`"),
            "{b}"
        );
        assert_eq!(short_name("solarized"), "solarized");
        assert!(short_name(&"a".repeat(900_000)).ends_with("… (900000 characters)"));
    }

    #[test]
    fn positions_are_lines_and_columns_in_characters() {
        assert_eq!(position("a\nbé c", 6), (2, 4));
        assert_eq!(position("abc", 99), (1, 4));
        assert_eq!(position("é", 1), (1, 1));
    }
}
