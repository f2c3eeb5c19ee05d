//! The debug log: off by default, on with `RUST_LOG` (any `tracing` filter, e.g. `debug`,
//! `pr_shepherd=trace`) or `-v` (`pr_shepherd=debug`; `-vv`: `pr_shepherd=trace`), written to
//! stderr, one line per event.
//!
//! What it says: each GitHub request (method, path, status, time, attempt), retries and
//! rate-limit waits, each LLM call (aspect, backend, outcome, time, tokens) and each write to the
//! state dir. What it never says: a token or a key. Every line passes through [`redact`] before it
//! is written — the values of this process's secret variables (`crate::childenv`) and anything
//! shaped like a GitHub token, an API key or a bearer credential become `[redacted]`, also in
//! lines from dependencies (reqwest, hyper, rustls) at trace level — and then through the
//! terminal sanitizer.
//!
//! The console draws on the terminal: while it runs with stderr on that terminal, the log goes to
//! `debug.log` in the state dir instead (created private, appended to; the console's message log
//! says where). Lines logged before the console knows the state dir are held (a bounded number)
//! and written there first; when the console never starts, [`release`] gives them to stderr.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// Secret values shorter than this are not searched for (they would redact ordinary words).
const MIN_SECRET_LEN: usize = 6;

/// The most lines held while the log has nowhere to go yet; later ones are counted, not kept.
const MAX_HELD: usize = 2000;

/// Where log lines go.
enum Target {
    Stderr,
    /// The console will own the terminal: held until [`to_file`] or [`release`].
    Held {
        lines: Vec<String>,
        dropped: usize,
    },
    File(std::fs::File),
}

static TARGET: Mutex<Target> = Mutex::new(Target::Stderr);
/// A log was asked for and installed.
static ON: AtomicBool = AtomicBool::new(false);

/// Whether a debug log is being written (`RUST_LOG` or `-v`).
pub fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// From now on the log goes to `path` (created with owner-only permissions, appended to), the
/// held lines first. Nothing happens when no log was asked for.
pub fn to_file(path: &std::path::Path) -> std::io::Result<()> {
    if !is_on() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut open = std::fs::OpenOptions::new();
    open.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let mut file = open.open(path)?;
    let mut target = TARGET
        .lock()
        .map_err(|_| std::io::Error::other("log lock poisoned"))?;
    if let Target::Held { lines, dropped } = &*target {
        for l in lines {
            file.write_all(l.as_bytes())?;
        }
        if *dropped > 0 {
            writeln!(file, "({dropped} earlier log lines were not kept)")?;
        }
    }
    *target = Target::File(file);
    Ok(())
}

/// Held lines go to stderr, and so does the log from now on (the console did not start, or has
/// given the terminal back without a file).
pub fn release() {
    let Ok(mut target) = TARGET.lock() else {
        return;
    };
    if let Target::Held { lines, .. } = &*target {
        let mut err = std::io::stderr().lock();
        for l in lines {
            let _ = err.write_all(l.as_bytes());
        }
        *target = Target::Stderr;
    }
}

fn write_line(clean: &str) {
    let Ok(mut target) = TARGET.lock() else {
        return;
    };
    // A log line that cannot be written is dropped: logging never fails the command.
    match &mut *target {
        Target::Stderr => {
            let _ = std::io::stderr().lock().write_all(clean.as_bytes());
        }
        Target::Held { lines, dropped } => {
            if lines.len() < MAX_HELD {
                lines.push(clean.to_owned());
            } else {
                *dropped += 1;
            }
        }
        Target::File(f) => {
            let _ = f.write_all(clean.as_bytes());
        }
    }
}

/// The filter asked for: `RUST_LOG` when set (and valid), else `-v`/`-vv`, else none (no log).
pub fn filter(rust_log: Option<&str>, verbose: u8) -> Result<Option<EnvFilter>, String> {
    if let Some(spec) = rust_log.map(str::trim).filter(|s| !s.is_empty()) {
        return EnvFilter::try_new(spec).map(Some).map_err(|e| {
            format!(
                "RUST_LOG `{}` is not a log filter: {e}",
                crate::sanitize::one_line(spec)
            )
        });
    }
    Ok(match verbose {
        0 => None,
        1 => Some(EnvFilter::new("pr_shepherd=debug")),
        _ => Some(EnvFilter::new("pr_shepherd=trace")),
    })
}

/// Installs the log for this process, when one is asked for. `terminal_is_busy`: the console
/// will own the terminal and stderr is that terminal, so lines are held until the console sends
/// them to a file ([`to_file`]). A bad `RUST_LOG` is said once on stderr and leaves the log off.
pub fn init(verbose: u8, terminal_is_busy: bool) {
    // Read here, not in `commands::Context`: the log is installed before the context exists
    // (its errors are logged too), and it is process-wide by nature.
    let rust_log = std::env::var("RUST_LOG").ok();
    let filter = match filter(rust_log.as_deref(), verbose) {
        Ok(Some(f)) => f,
        Ok(None) => return,
        Err(e) => {
            crate::eprintln_clean!("warning: {e}; no debug log");
            return;
        }
    };
    if terminal_is_busy && let Ok(mut t) = TARGET.lock() {
        *t = Target::Held {
            lines: Vec::new(),
            dropped: 0,
        };
    }
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(RedactingStderr::from_env())
        .try_init();
    ON.store(installed.is_ok(), Ordering::Relaxed);
}

/// Makes one [`RedactedLine`] per event.
#[derive(Clone)]
pub struct RedactingStderr {
    secrets: Arc<Vec<String>>,
}

impl RedactingStderr {
    /// Redacts the values of this process's secret variables (and token shapes).
    pub fn from_env() -> RedactingStderr {
        RedactingStderr::with_secrets(
            std::env::vars_os()
                .filter(|(k, _)| k.to_str().is_some_and(crate::childenv::is_secret_name))
                .filter_map(|(_, v)| v.into_string().ok())
                .collect(),
        )
    }

    pub fn with_secrets(secrets: Vec<String>) -> RedactingStderr {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .flat_map(|s| {
                // A PEM key is matched line by line too: a log line may hold a piece of it.
                let mut parts = vec![s.trim().to_owned()];
                parts.extend(s.lines().map(|l| l.trim().to_owned()));
                parts
            })
            .filter(|s| s.len() >= MIN_SECRET_LEN)
            .collect();
        // Longest first, so a secret that contains another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        RedactingStderr {
            secrets: Arc::new(secrets),
        }
    }
}

impl<'a> MakeWriter<'a> for RedactingStderr {
    type Writer = RedactedLine;

    fn make_writer(&'a self) -> RedactedLine {
        RedactedLine {
            buf: Vec::new(),
            secrets: self.secrets.clone(),
        }
    }
}

/// Collects one formatted event; redacts, sanitizes and writes it (to stderr, held, or the file)
/// when dropped.
pub struct RedactedLine {
    buf: Vec<u8>,
    secrets: Arc<Vec<String>>,
}

impl Write for RedactedLine {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedLine {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.buf);
        let clean = redact(&text, &self.secrets);
        let clean = crate::sanitize::sanitize(&clean);
        write_line(&clean);
    }
}

/// Prefixes of GitHub's token formats.
const TOKEN_PREFIXES: &[&str] = &[
    "github_pat_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "sk-ant-",
    "sk-",
];

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `text` with every known secret value, every token-shaped word (`ghp_…`, `github_pat_…`,
/// `sk-…`, 8 or more characters after the prefix) and every `Bearer …`/`token …`/`Basic …`
/// credential (8 or more characters, digits among them) replaced by `[redacted]`.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for s in secrets {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), "[redacted]");
        }
    }
    redact_shapes(&out)
}

fn redact_shapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        // At a word start: a token prefix, or a credential scheme followed by a value.
        let at_word_start = out.chars().last().is_none_or(|c| !is_token_char(c));
        if at_word_start {
            if let Some(skip) = token_len(rest) {
                out.push_str("[redacted]");
                rest = &rest[skip..];
                continue;
            }
            if let Some((scheme, skip)) = credential(rest) {
                out.push_str(scheme);
                out.push_str("[redacted]");
                rest = &rest[skip..];
                continue;
            }
        }
        let Some(c) = rest.chars().next() else {
            break;
        };
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The length of a token-shaped word at the start of `s`.
fn token_len(s: &str) -> Option<usize> {
    let prefix = TOKEN_PREFIXES.iter().find(|p| s.starts_with(**p))?;
    let body = s[prefix.len()..]
        .char_indices()
        .find(|(_, c)| !is_token_char(*c))
        .map_or(s.len() - prefix.len(), |(i, _)| i);
    (body >= 8).then_some(prefix.len() + body)
}

/// `Bearer VALUE` / `token VALUE` (any case) at the start of `s`: the scheme with its space,
/// and how much to skip.
fn credential(s: &str) -> Option<(&str, usize)> {
    for scheme in ["bearer ", "token ", "basic "] {
        let Some(head) = s.get(..scheme.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(scheme) {
            continue;
        }
        let value = &s[scheme.len()..];
        let len = value
            .char_indices()
            .find(|(_, c)| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ')' | '}'))
            .map_or(value.len(), |(i, _)| i);
        // Credentials are long and hold digits; "token limit exceeded" is prose.
        if len >= 8 && value[..len].bytes().any(|b| b.is_ascii_digit()) {
            return Some((head, scheme.len() + len));
        }
    }
    None
}

/// The path and query of a URL, for log lines (no scheme, host or credentials).
pub fn url_path(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_token_shapes_are_redacted() {
        let secrets = RedactingStderr::with_secrets(vec![
            "my-very-own-secret".into(),
            "abc".into(),
            "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----".into(),
        ])
        .secrets;
        let line = "token my-very-own-secret; ghp_0123456789abcdef; github_pat_11ABCDEFG_xyz; \
                    sk-ant-api03-XYZXYZXYZ; Authorization: Bearer eyJhbGciOi.J9; pem MIIEvQIBADANBgkqhkiG9w0BAQEFAASC; abc stays";
        let out = redact(line, &secrets);
        for leak in [
            "my-very-own-secret",
            "0123456789abcdef",
            "11ABCDEFG",
            "XYZXYZXYZ",
            "eyJhbGciOi",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
        ] {
            assert!(!out.contains(leak), "{leak} in {out}");
        }
        assert!(
            out.contains("abc stays"),
            "short values are left alone: {out}"
        );
        assert!(out.contains("Bearer [redacted]"), "{out}");
    }

    #[test]
    fn ordinary_words_are_left_alone() {
        let line = "GET /repos/o/r/pulls/1 status=200 ms=12 task-runner ghp_x sk-1";
        assert_eq!(redact(line, &[]), line);
        let prose = "a tokenizer and the token verification; bearer instrument";
        assert_eq!(redact(prose, &[]), prose);
    }

    #[test]
    fn filters() {
        assert!(filter(None, 0).unwrap().is_none());
        assert!(filter(Some("  "), 0).unwrap().is_none());
        assert!(filter(None, 1).unwrap().is_some());
        assert!(filter(Some("debug"), 0).unwrap().is_some());
        assert!(filter(Some("pr_shepherd=notalevel"), 0).is_err());
    }

    #[test]
    fn url_paths() {
        assert_eq!(
            url_path("https://api.github.com/repos/o/r?per_page=100"),
            "/repos/o/r?per_page=100"
        );
        assert_eq!(url_path("http://127.0.0.1:9"), "/");
        assert_eq!(url_path("/graphql"), "/graphql");
    }
}
