//! Untrusted text (PR bodies, comments, diffs, model output) on its way to a terminal.
//!
//! Escape sequences, other C0/C1 controls, bidi overrides, zero-width and other invisible
//! characters (tag characters, variation selectors, fillers: see [`is_invisible`]) never reach
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
        _ => is_invisible(c),
    }
}

/// Characters that render as nothing (Unicode's default-ignorable code points and their kin) and
/// so can carry or hide text nobody sees: tag characters (U+E0000–U+E007F, which can spell a
/// whole hidden instruction), variation selectors, the combining grapheme joiner, Hangul fillers,
/// invisible operators and deprecated format controls, interlinear annotation marks and the line
/// and paragraph separators (which some terminals treat as line breaks).
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{34f}'                         // combining grapheme joiner
        | '\u{115f}' | '\u{1160}'         // Hangul choseong / jungseong fillers
        | '\u{17b4}' | '\u{17b5}'         // Khmer inherent vowels
        | '\u{180b}'..='\u{180f}'         // Mongolian variation selectors, vowel separator
        | '\u{200b}'..='\u{200f}'         // zero-width space/joiners, LRM/RLM
        | '\u{2028}' | '\u{2029}'         // line and paragraph separators
        | '\u{202a}'..='\u{202e}'         // bidi embeddings and overrides
        | '\u{2060}'..='\u{206f}'         // word joiner, invisible operators, isolates, deprecated
        | '\u{3164}' | '\u{ffa0}'         // Hangul filler, halfwidth Hangul filler
        | '\u{fe00}'..='\u{fe0f}'         // variation selectors
        | '\u{feff}'                       // zero-width no-break space (BOM)
        | '\u{fff0}'..='\u{fffb}'         // unassigned specials, interlinear annotation
        | '\u{1bca0}'..='\u{1bca3}'       // shorthand format controls
        | '\u{1d173}'..='\u{1d17a}'       // musical symbol format controls
        | '\u{e0000}'..='\u{e0fff}' // tag characters, variation selectors supplement, reserved
    )
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

/// JSON text (as serde_json writes it) with every hazard written as a `\u` escape: C1
/// controls, DEL, bidi, zero-width and the other invisible characters of [`is_hazard`] become
/// `\u202e`, `\u200b`, `\udb40\udc01` (a surrogate pair above U+FFFF)… The document is the
/// same JSON, holding the same text, and nothing in it can drive a terminal or hide text.
///
/// serde_json already escapes C0 controls inside strings and writes nothing but ASCII outside
/// them, so every character this replaces sits inside a string, where an escape is valid.
/// Borrows when there is nothing to replace.
pub fn escape_json(json: &str) -> Cow<'_, str> {
    if !json.chars().any(is_hazard) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 32);
    push_json_escaped(json, &mut out);
    Cow::Owned(out)
}

/// [`escape_json`] appending to `out`.
pub fn push_json_escaped(json: &str, out: &mut String) {
    use std::fmt::Write as _;
    for c in json.chars() {
        if is_hazard(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
}

/// `eprintln!` for every line that may quote input (a fixture's value, a config key, a path,
/// GitHub's or a model provider's error text): the whole line goes through [`sanitize`] first,
/// so no quoted escape sequence reaches the terminal raw. `main` prints the final error the
/// same way (through `CliError`'s `Display`).
#[macro_export]
macro_rules! eprintln_clean {
    ($($arg:tt)*) => {
        ::std::eprintln!("{}", $crate::sanitize::sanitize(&::std::format!($($arg)*)))
    };
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
    fn invisible_unicode_becomes_visible() {
        // "hi" in tag characters, a variation selector, the combining grapheme joiner, Hangul
        // fillers, an invisible operator, the variation selectors supplement, a line separator.
        let hidden = "a\u{e0001}\u{e0068}\u{e0069}\u{e007f}b\u{fe0f}c\u{34f}d\u{3164}\u{115f}\u{ffa0}e\u{2062}f\u{e0100}g\u{2028}h\u{180b}";
        let s = sanitize(hidden);
        assert_eq!(
            s,
            "a⟨U+E0001⟩⟨U+E0068⟩⟨U+E0069⟩⟨U+E007F⟩b⟨U+FE0F⟩c⟨U+034F⟩d⟨U+3164⟩⟨U+115F⟩⟨U+FFA0⟩e⟨U+2062⟩f⟨U+E0100⟩g⟨U+2028⟩h⟨U+180B⟩"
        );
        assert!(!s.chars().any(is_hazard));
        for c in hidden.chars().filter(|c| !c.is_ascii_alphabetic()) {
            assert!(is_hazard(c), "U+{:04X} passes", c as u32);
        }
        // Visible text that merely looks unusual is left alone.
        for ok in ["漢字", "한글", "ü", "😀", "→", "\u{a0}"] {
            assert!(matches!(sanitize(ok), Cow::Borrowed(_)), "{ok}");
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitize("plain ü 漢字"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_escapes_hazards_and_keeps_the_text() {
        let text = "a\u{9b}b\u{202e}c\u{200b}d\u{7f}e\u{e0041}f\u{1b}g\n\"ü漢😀";
        let json = serde_json::to_string(&text).unwrap();
        let safe = escape_json(&json);
        assert!(!safe.chars().any(is_hazard), "{safe}");
        assert!(
            safe.contains("\\u009b") && safe.contains("\\u202e"),
            "{safe}"
        );
        assert!(safe.contains("\\udb40\\udc41"), "{safe}");
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, text);
        // Visible text stays as it is.
        assert!(matches!(escape_json("{\"a\":\"ü漢😀\"}"), Cow::Borrowed(_)));
    }

    proptest::proptest! {
        /// Any text, serialized and escaped: still JSON, the same text, and no hazard left.
        #[test]
        fn escaped_json_is_the_same_text_without_hazards(
            text in "(.|[\u{0}-\u{9f}]|[\u{200b}-\u{200f}]|[\u{202a}-\u{202e}]|[\u{2066}-\u{2069}]|\u{feff}|[\u{e0000}-\u{e007f}])*"
        ) {
            let json = serde_json::to_string_pretty(&serde_json::json!({"k": text, "l": [text.clone()]})).unwrap();
            let safe = escape_json(&json);
            proptest::prop_assert!(!safe.chars().any(is_hazard));
            let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
            proptest::prop_assert_eq!(back["k"].as_str(), Some(text.as_str()));
        }
    }

    #[test]
    fn one_line_folds() {
        assert_eq!(one_line("a\n\n  b\tc"), "a b c");
    }
}
