//! Handing things to the desktop: the browser opener and the clipboard (OSC 52). A URL from a
//! PR is untrusted: only URLs that parse as http(s) are opened or copied
//! (see [`web_url`]), and what is shown is sanitized.

use std::io::Write;
use std::path::PathBuf;

use crate::sanitize::one_line;

/// Opens a web URL in the browser (`interactive: false`: says what it would have done).
pub fn open(url: &str, interactive: bool) -> String {
    let url = match web_url(url) {
        Ok(u) => u,
        Err(why) => return format!("not opening {why}"),
    };
    if !interactive {
        return format!("open: {url}");
    }
    let Some(opener) = opener() else {
        return format!("no browser opener found; URL: {url}");
    };
    let mut cmd = std::process::Command::new(&opener);
    // The opener keeps the desktop session's variables, never a token or an API key.
    for k in crate::childenv::secret_names() {
        cmd.env_remove(k);
    }
    let spawned = cmd
        .arg(&url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        Ok(mut child) => {
            // Reap it in the background so no zombie is left.
            std::thread::spawn(move || child.wait());
            format!("opened {url}")
        }
        Err(e) => format!("cannot run {}: {e}; URL: {url}", opener.display()),
    }
}

/// Copies a web URL to the clipboard with OSC 52 (`interactive: false`: says what it would have
/// done). Only a URL that [`web_url`] accepts is copied, in its parsed (ASCII) form: nothing from
/// a crafted URL reaches the terminal inside the escape sequence or beside it.
pub fn copy(url: &str, interactive: bool) -> String {
    let url = match web_url(url) {
        Ok(u) => u,
        Err(why) => return format!("not copying {why}"),
    };
    if !interactive {
        return format!("copied (OSC 52): {url}");
    }
    let seq = osc52(&url);
    let mut out = std::io::stdout().lock();
    match out.write_all(seq.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => format!("copied to the clipboard (OSC 52): {url}"),
        Err(e) => format!("cannot copy ({e}); URL: {url}"),
    }
}

/// The longest URL handed to the desktop (a PR's own URLs are far shorter).
pub const MAX_URL_CHARS: usize = 2048;

/// A URL from a PR, checked before it is opened or copied: it must be free of controls,
/// whitespace and invisible characters (what [`crate::sanitize`] would make visible), at most
/// [`MAX_URL_CHARS`] long, and parse as an `http`/`https` URL with a host. `Ok` is the parsed
/// URL's ASCII serialization; `Err` says why not (sanitized, shortened), to follow "not opening"
/// or "not copying".
pub fn web_url(url: &str) -> Result<String, String> {
    let shown = || {
        let one = one_line(url);
        if one.chars().count() > 80 {
            format!("{}…", one.chars().take(80).collect::<String>())
        } else {
            one
        }
    };
    if url.is_empty() {
        return Err("an empty URL".to_owned());
    }
    if url.chars().count() > MAX_URL_CHARS {
        return Err(format!(
            "a URL longer than {MAX_URL_CHARS} characters: {}",
            shown()
        ));
    }
    if url
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || crate::sanitize::is_hazard(c))
    {
        return Err(format!(
            "a URL with control, space or invisible characters: {}",
            shown()
        ));
    }
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| format!("a URL that does not parse ({e}): {}", shown()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("a non-web URL: {}", shown()));
    }
    Ok(parsed.as_str().to_owned())
}

/// Only http(s) URLs without spaces or controls are handed to an opener (a URL from the PR is
/// untrusted: it must not become an option or a local path for the opener). See [`web_url`].
pub fn is_web_url(url: &str) -> bool {
    web_url(url).is_ok()
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
    // Read here, not in `commands::Context`: finding a program on PATH is the process's own
    // lookup (as spawning one would do), made at the moment the opener is needed.
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
        assert!(!is_web_url("https://"));
        assert!(!is_web_url("javascript:alert(1)"));
        assert_eq!(
            open("file:///etc/passwd", false),
            "not opening a non-web URL: file:///etc/passwd"
        );
    }

    /// Failed before it was fixed: `y` copied any URL, and a crafted one put raw ESC/BEL on the
    /// notice line; now only parsed http(s) URLs are copied, and every notice is clean.
    #[test]
    fn only_web_urls_are_copied_and_notices_are_clean() {
        let crafted = [
            "https://x/\u{1b}]52;c;cHduZWQ=\u{7}",
            "https://x/\u{1b}[2J\u{9b}1m",
            "\u{1b}]0;title\u{7}https://github.com/o/r/pull/1",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "https://x/\u{202e}fdp.exe",
            "https://x/\u{e0041}",
            "",
        ];
        for url in crafted {
            for notice in [copy(url, false), open(url, false)] {
                assert!(
                    notice.starts_with("not copying") || notice.starts_with("not opening"),
                    "{notice}"
                );
                assert!(
                    !notice.chars().any(crate::sanitize::is_hazard),
                    "{notice:?}"
                );
            }
        }
        assert_eq!(
            copy("https://github.com/o/r/pull/1#discussion_r1", false),
            "copied (OSC 52): https://github.com/o/r/pull/1#discussion_r1"
        );
        // What is copied is the parsed URL: ASCII only, whatever the PR wrote.
        assert_eq!(
            web_url("https://例え.jp/ü").as_deref(),
            Ok("https://xn--r8jz45g.jp/%C3%BC")
        );
        let long = format!("https://x/{}", "a".repeat(MAX_URL_CHARS));
        assert!(copy(&long, false).len() < 300);
    }
}
