//! Untrusted text (PR bodies, comments, diffs, model output) on its way to a terminal.
//!
//! Escape sequences, other C0/C1 controls, bidi overrides and zero-width characters never reach
//! the terminal as such: each is replaced by a visible stand-in, so a hostile comment can neither
//! drive the terminal nor hide or reorder what the maintainer reads.

use std::borrow::Cow;

/// True for characters that must not reach a terminal raw. Newline and tab are allowed.
pub fn is_hazard(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidi embeddings, overrides and isolates; marks.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' => {
            true
        }
        // Zero-width and invisible formatting characters.
        '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{180e}' | '\u{ad}' => {
            true
        }
        _ => false,
    }
}

/// The visible stand-in for a hazard: `␛` for ESC, control pictures for C0, `⟨U+XXXX⟩` else.
pub fn visible(c: char) -> String {
    match c {
        '\u{1b}' => "␛".to_owned(),
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32)
            .map_or_else(|| format!("⟨U+{:04X}⟩", c as u32), |p| p.to_string()),
        '\u{7f}' => "␡".to_owned(),
        _ => format!("⟨U+{:04X}⟩", c as u32),
    }
}

/// Replaces every hazard with its visible stand-in. Borrows when there is nothing to replace.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hazard) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c == '\r' {
            // CRLF is an ordinary line end; a lone CR could overwrite the line on screen.
            continue;
        }
        if is_hazard(c) {
            out.push_str(&visible(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Sanitizes and folds onto one line (newlines and tabs become spaces), for list rows.
pub fn one_line(text: &str) -> String {
    sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_become_visible() {
        let s = sanitize("a\u{1b}[2Jb\u{7}c\u{9b}d\u{202e}e\u{200b}f\r\ng\th");
        assert_eq!(s, "a␛[2Jb␇c⟨U+009B⟩d⟨U+202E⟩e⟨U+200B⟩f\ng\th");
        assert!(!s.chars().any(is_hazard));
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitize("plain ü 漢字"), Cow::Borrowed(_)));
    }

    #[test]
    fn one_line_folds() {
        assert_eq!(one_line("a\n\n  b\tc"), "a b c");
    }
}
