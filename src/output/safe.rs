//! The last step of every output on its way to stdout: one pass that makes it terminal-safe,
//! whatever each renderer did or forgot, so that no field of any output format can carry an
//! escape sequence, a C1 control, a bidi override or an invisible character to the terminal.
//!
//! - [`Kind::Text`] (Markdown, plain text): every hazard becomes its visible stand-in
//!   ([`crate::sanitize::sanitize`]: `␛`, `⟨U+202E⟩`…).
//! - [`Kind::Json`]: every hazard becomes a `\u` escape ([`crate::sanitize::escape_json`]), so
//!   the document holds the same text and parses to the same values.
//!
//! [`safe`] does it to a whole text; [`SafeWriter`] to a stream (the `items` listing, which is
//! written a batch at a time), with the same result.

use std::borrow::Cow;
use std::io::Write;

use crate::sanitize::{escape_json, sanitize};

/// What an output is, for the pass it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Markdown or plain text for people.
    Text,
    /// A JSON document (serde_json's output).
    Json,
}

/// `text` made terminal-safe as `kind`. Borrows when there is nothing to change.
pub fn safe(text: &str, kind: Kind) -> Cow<'_, str> {
    match kind {
        Kind::Text => sanitize(text),
        Kind::Json => escape_json(text),
    }
}

/// A writer that passes everything through [`safe`] on its way to `inner`. Output cut inside a
/// UTF-8 character is held until the rest arrives; bytes that are not UTF-8 (no renderer writes
/// any) are written as U+FFFD.
pub struct SafeWriter<W: Write> {
    inner: W,
    kind: Kind,
    /// The start of a character whose other bytes have not been written yet (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> SafeWriter<W> {
    pub fn new(inner: W, kind: Kind) -> SafeWriter<W> {
        SafeWriter {
            inner,
            kind,
            pending: Vec::new(),
        }
    }

    fn pass(&mut self, text: &str) -> std::io::Result<()> {
        self.inner.write_all(safe(text, self.kind).as_bytes())
    }
}

impl<W: Write> Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Fast path: nothing held back and nothing that could be a hazard (printable ASCII,
        // newlines and tabs).
        let plain = |b: &u8| (0x20..0x7f).contains(b) || *b == b'\n' || *b == b'\t';
        if self.pending.is_empty() && buf.iter().all(plain) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(buf);
        let mut rest: &[u8] = &bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.pass(text)?;
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // Whole characters only: `from_utf8` checked them.
                    self.pass(std::str::from_utf8(good).unwrap_or_default())?;
                    match e.error_len() {
                        // The end of the buffer is the start of a character: keep it.
                        None => {
                            self.pending = bad.to_vec();
                            break;
                        }
                        Some(n) => {
                            self.inner.write_all("\u{fffd}".as_bytes())?;
                            rest = &bad[n..];
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for SafeWriter<W> {
    fn drop(&mut self) {
        // A character left unfinished at the end is not text: say so, never drop it silently.
        if !self.pending.is_empty() {
            let _ = self.inner.write_all("\u{fffd}".as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::is_hazard;

    fn through(kind: Kind, pieces: &[&[u8]]) -> String {
        let mut w = SafeWriter::new(Vec::new(), kind);
        for p in pieces {
            w.write_all(p).unwrap();
        }
        w.flush().unwrap();
        let out = std::mem::take(&mut w.inner);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_stream_cut_anywhere_comes_out_as_the_whole_text_does() {
        let text = "a\u{1b}]52;c;eA==\u{7}b\u{202e}c\u{200b}d ü 漢 😀 \u{e0041}\r\n";
        for kind in [Kind::Text, Kind::Json] {
            let whole = safe(text, kind).into_owned();
            let bytes = text.as_bytes();
            for cut in 0..=bytes.len() {
                let (a, b) = bytes.split_at(cut);
                assert_eq!(through(kind, &[a, b]), whole, "{kind:?} cut at {cut}");
            }
            assert!(!whole.chars().any(is_hazard), "{whole}");
        }
    }

    #[test]
    fn json_through_the_writer_is_the_same_document() {
        let v = serde_json::json!({"reason": "spam\u{1b}]52;c;eA==\u{7}\u{9b}2J\u{202e}\u{2066}\u{200d}"});
        let json = serde_json::to_string_pretty(&v).unwrap();
        let out = through(Kind::Json, &[json.as_bytes()]);
        assert!(!out.chars().any(is_hazard), "{out}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
    }

    #[test]
    fn bytes_that_are_not_utf8_become_a_replacement_character() {
        assert_eq!(through(Kind::Text, &[b"a\xffb"]), "a\u{fffd}b");
        // A character cut off at the very end.
        let mut out = Vec::new();
        let mut w = SafeWriter::new(&mut out, Kind::Text);
        w.write_all("x\u{e9}".as_bytes().split_last().unwrap().1)
            .unwrap();
        drop(w);
        assert_eq!(String::from_utf8(out).unwrap(), "x\u{fffd}");
    }
}
