//! Handing things to the desktop: the browser opener and the clipboard (OSC 52). A URL from a
//! PR is untrusted: only plain http(s) URLs are opened, and what is shown is sanitized.

use std::io::Write;
use std::path::PathBuf;

use crate::sanitize::one_line;

/// Opens a web URL in the browser (`interactive: false`: says what it would have done).
pub fn open(url: &str, interactive: bool) -> String {
    let shown = one_line(url);
    if !is_web_url(url) {
        return format!("not opening a non-web URL: {shown}");
    }
    if !interactive {
        return format!("open: {shown}");
    }
    let Some(opener) = opener() else {
        return format!("no browser opener found; URL: {shown}");
    };
    let mut cmd = std::process::Command::new(&opener);
    // The opener keeps the desktop session's variables, never a token or an API key.
    for k in crate::childenv::secret_names() {
        cmd.env_remove(k);
    }
    let spawned = cmd
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        Ok(mut child) => {
            // Reap it in the background so no zombie is left.
            std::thread::spawn(move || child.wait());
            format!("opened {shown}")
        }
        Err(e) => format!("cannot run {}: {e}; URL: {shown}", opener.display()),
    }
}

/// Copies `url` to the clipboard with OSC 52 (`interactive: false`: says what it would have done).
pub fn copy(url: &str, interactive: bool) -> String {
    let shown = one_line(url);
    if !interactive {
        return format!("copied (OSC 52): {shown}");
    }
    let seq = osc52(url);
    let mut out = std::io::stdout().lock();
    match out.write_all(seq.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => format!("copied to the clipboard (OSC 52): {shown}"),
        Err(e) => format!("cannot copy ({e}); URL: {shown}"),
    }
}

/// Only http(s) URLs without spaces or controls are handed to an opener (a URL from the PR is
/// untrusted: it must not become an option or a local path for the opener).
pub fn is_web_url(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || crate::sanitize::is_hazard(c))
}

/// The platform's URL opener, if it is installed.
fn opener() -> Option<PathBuf> {
    let name = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer.exe"
    } else {
        "xdg-open"
    };
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The OSC 52 "set clipboard" sequence for `text`.
pub fn osc52(text: &str) -> String {
    format!("\u{1b}]52;c;{}\u{7}", base64(text.as_bytes()))
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(T[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
        assert_eq!(osc52("hi"), "\u{1b}]52;c;aGk=\u{7}");
    }

    #[test]
    fn only_web_urls_are_opened() {
        assert!(is_web_url("https://github.com/o/r/pull/1#x"));
        assert!(!is_web_url("file:///etc/passwd"));
        assert!(!is_web_url("--help"));
        assert!(!is_web_url("https://x y"));
        assert!(!is_web_url("https://x\u{1b}]"));
        assert_eq!(
            open("file:///etc/passwd", false),
            "not opening a non-web URL: file:///etc/passwd"
        );
    }
}
