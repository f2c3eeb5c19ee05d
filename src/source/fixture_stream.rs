//! A large fixture parsed as it is read: the elements of its top-level `items` array are parsed
//! one at a time from a buffer of a few chunks, and everything else in the document (with
//! `"items": []`) is kept as a small JSON text that is parsed the ordinary way afterwards. So
//! the file's bytes are never held whole beside what they parse into, and each item is parsed
//! by the same fast slice parser as a small fixture (serde_json's reader-based parser takes
//! twice as long on a 56 MB file).
//!
//! Only valid JSON of the expected shape takes this path to the end; anything else (an element
//! that is not an object, a truncated file, unbalanced brackets) gives `None`, and the caller
//! reads the file again whole to say exactly what is wrong and where. A top-level `items` key
//! written with escapes is not recognized: its array then stays in the rest of the document and
//! is parsed from there (correct, just without the saving).

use std::io::Read;

use serde::de::DeserializeOwned;

/// How much is read at a time.
const CHUNK: usize = 1 << 20;

/// The document without the elements of its top-level `items` array, and those elements parsed
/// as `T` (each passed to `tidy` once parsed), in order. `size` is the document's length, if
/// known, to size the list of items once rather than by doubling. `None` when the text is not
/// valid JSON of that shape (or cannot be read).
pub(super) fn split_items<T: DeserializeOwned>(
    mut reader: impl Read,
    size: u64,
    tidy: fn(&mut T),
) -> Option<(Vec<u8>, Vec<T>)> {
    let mut s = Splitter {
        size,
        tidy: Some(tidy),
        ..Splitter::default()
    };
    let mut buf: Vec<u8> = Vec::with_capacity(2 * CHUNK);
    // Bytes of `buf` before this were scanned.
    let mut pos = 0;
    loop {
        let have = buf.len();
        buf.resize(have + CHUNK, 0);
        let n = loop {
            match reader.read(&mut buf[have..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        };
        buf.truncate(have + n);
        if n == 0 {
            return s.done().then_some((s.skeleton, s.items));
        }
        while pos < buf.len() {
            let b = buf[pos];
            s.step(b, pos, &buf)?;
            pos += 1;
        }
        // Keep only the item being read, if any.
        let keep = s.element_start.unwrap_or(pos);
        s.consumed += keep as u64;
        buf.drain(..keep);
        pos -= keep;
        if let Some(start) = s.element_start.as_mut() {
            *start -= keep;
        }
    }
}

/// Where the scan is between the elements of the items array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Between {
    /// Just after `[`: an element or `]`.
    Open,
    /// After an element: `,` or `]`.
    Element,
    /// After a comma: an element.
    Comma,
}

struct Splitter<T> {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The bytes of the current string at depth 1, while it is short enough to be `items`.
    key: Vec<u8>,
    /// The last token at depth 1 was the string `"items"`; then, that and a colon.
    after_items_key: bool,
    after_items_colon: bool,
    /// Inside the top-level `items` array, between elements (or in one: `element_start`).
    in_items: Option<Between>,
    /// Where the element being read starts in the buffer.
    element_start: Option<usize>,
    skeleton: Vec<u8>,
    items: Vec<T>,
    /// The document's length (0: unknown), and how many of its bytes were dropped from the
    /// buffer so far: an estimate of how many items there are in all.
    size: u64,
    consumed: u64,
    tidy: Option<fn(&mut T)>,
}

impl<T> Default for Splitter<T> {
    fn default() -> Self {
        Splitter {
            depth: 0,
            in_string: false,
            escaped: false,
            key: Vec::new(),
            after_items_key: false,
            after_items_colon: false,
            in_items: None,
            element_start: None,
            skeleton: Vec::with_capacity(64 << 10),
            items: Vec::new(),
            size: 0,
            consumed: 0,
            tidy: None,
        }
    }
}

/// JSON's whitespace (not all of ASCII's).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<T: DeserializeOwned> Splitter<T> {
    /// Takes byte `b`, at `at` in `buf`. `None` when the text cannot be of the expected shape.
    fn step(&mut self, b: u8, at: usize, buf: &[u8]) -> Option<()> {
        if self.in_items.is_none() {
            self.skeleton.push(b);
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
                if self.depth == 1 {
                    self.key.push(0); // an escape: never `items`
                }
            } else if b == b'"' {
                self.in_string = false;
                if self.depth == 1 && self.in_items.is_none() {
                    self.after_items_key = self.key == b"items";
                }
            } else if self.depth == 1 && self.key.len() <= 5 {
                self.key.push(b);
            }
            return Some(());
        }
        if is_space(b) {
            return Some(());
        }
        // Between the elements of the items array: an object starts one, a comma separates
        // two, the bracket ends the array. Anything else is not the expected shape.
        if let Some(between) = self.in_items
            && self.element_start.is_none()
        {
            match (between, b) {
                (Between::Open | Between::Comma, b'{') => self.element_start = Some(at),
                (Between::Element, b',') => {
                    self.in_items = Some(Between::Comma);
                    return Some(());
                }
                (Between::Open | Between::Element, b']') => {
                    self.depth -= 1;
                    self.in_items = None;
                    self.skeleton.push(b']');
                    return Some(());
                }
                _ => return None,
            }
        }
        let depth_1_token = self.depth == 1 && self.in_items.is_none();
        match b {
            b'"' => {
                self.in_string = true;
                self.key.clear();
            }
            b'{' | b'[' => {
                if depth_1_token && b == b'[' && self.after_items_colon {
                    self.in_items = Some(Between::Open);
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                self.depth = self.depth.checked_sub(1)?;
                if self.depth == 2
                    && let Some(start) = self.element_start.filter(|_| b == b'}')
                {
                    self.element_start = None;
                    self.in_items = Some(Between::Element);
                    let mut item = serde_json::from_slice(buf.get(start..=at)?).ok()?;
                    if let Some(tidy) = self.tidy {
                        tidy(&mut item);
                    }
                    self.reserve((self.consumed + at as u64).max(1));
                    self.items.push(item);
                }
            }
            _ => {}
        }
        if depth_1_token && b != b'"' {
            self.after_items_colon = b == b':' && self.after_items_key;
            self.after_items_key = false;
        }
        Some(())
    }

    /// Makes room for one more item: when the list is full, for as many as the items so far
    /// say the document holds (`read` of its bytes read), plus 2 %, so a large list is
    /// allocated about once instead of doubling (which held the old and the new list at once).
    fn reserve(&mut self, read: u64) {
        let len = self.items.len();
        if len < self.items.capacity() {
            return;
        }
        let estimate = (len as u128 * u128::from(self.size) / u128::from(read)) as usize;
        let want = estimate
            .saturating_add(estimate / 50)
            .max(len.saturating_add(len.min(1024)))
            .max(16);
        self.items.reserve_exact(want.saturating_sub(len));
    }

    /// Whether the whole document was read: balanced, and not in a string or the items array.
    fn done(&self) -> bool {
        self.depth == 0 && !self.in_string && self.in_items.is_none() && !self.skeleton.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct It {
        id: String,
    }

    fn split(text: &str, chunked: usize) -> Option<(String, Vec<String>)> {
        // A reader that hands out `chunked` bytes at a time, to cut elements across reads.
        struct Slow<'a>(&'a [u8], usize);
        impl Read for Slow<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let (skeleton, items) =
            split_items::<It>(Slow(text.as_bytes(), chunked), text.len() as u64, |_| {})?;
        Some((
            String::from_utf8(skeleton).ok()?,
            items.into_iter().map(|i| i.id).collect(),
        ))
    }

    #[test]
    fn the_items_are_parsed_apart_and_the_rest_is_kept() {
        let text = r#"{"format":"f","pr":{"items":[1],"title":"a \"items\": [ ]"},
            "items" : [ {"id":"a","x":{"y":[1,{"z":"}"}]}}, {"id":"b\"]"} ],
            "steps":[{"changes":[{"op":"add","item":{"id":"c"}}]}],"llm":{}}"#;
        for chunk in [1, 2, 7, 4096] {
            let (skeleton, ids) = split(text, chunk).expect("splits");
            assert_eq!(ids, ["a", "b\"]"], "chunk {chunk}");
            let v: serde_json::Value = serde_json::from_str(&skeleton).expect("skeleton is JSON");
            assert_eq!(v["items"], serde_json::json!([]));
            assert_eq!(
                v["pr"]["items"],
                serde_json::json!([1]),
                "a nested items stays"
            );
            assert_eq!(v["steps"][0]["changes"][0]["item"]["id"], "c");
            assert_eq!(v["pr"]["title"], "a \"items\": [ ]");
        }
        // An empty array, and no array at all.
        assert_eq!(split(r#"{"items":[]}"#, 3).map(|s| s.1.len()), Some(0));
        let (skeleton, ids) = split(r#"{"format":"f"}"#, 3).expect("splits");
        assert!(ids.is_empty());
        assert_eq!(skeleton, r#"{"format":"f"}"#);
        // An escaped key is not recognized: the array stays in the rest, whole.
        let (skeleton, ids) = split(r#"{"\u0069tems":[{"id":"a"}]}"#, 3).expect("splits");
        assert!(ids.is_empty());
        assert!(skeleton.contains(r#"{"id":"a"}"#));
    }

    /// The streamed parse gives the very fixture the whole-text parse gives, and a broken file
    /// the very same error (found by reading it again whole).
    #[test]
    fn a_streamed_fixture_is_the_fixture_and_a_broken_one_the_same_error() {
        use crate::source::Fixture;
        use crate::source::synth::{SynthSpec, synth};
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.json");
        let big = synth(SynthSpec {
            threads: 300,
            comments: 200,
            reviews: 50,
            replies: 2,
            seed: 3,
        });
        big.write(&path).expect("write");
        let demo = dir.path().join("demo.json");
        std::fs::write(&demo, crate::source::DEMO_FIXTURE).expect("write");
        for p in [&path, &demo] {
            let text = std::fs::read_to_string(p).expect("read");
            let whole = Fixture::parse(&text, p).expect("parses");
            let file = std::fs::File::open(p).expect("open");
            let streamed =
                Fixture::parse_stream(std::io::BufReader::new(file), text.len() as u64, p)
                    .expect("streams");
            assert_eq!(streamed, whole);
            assert!(!streamed.items.is_empty());
        }
        let text = std::fs::read_to_string(&path).expect("read");
        for broken in [
            text[..text.len() / 2].to_owned(),
            text.replacen("\"kind\": \"thread\"", "\"kind\": \"nonsense\"", 1),
            text.replacen("\"items\": [", "\"items\": [ 7,", 1),
        ] {
            std::fs::write(&path, &broken).expect("write");
            let want = Fixture::parse(&broken, &path)
                .expect_err("broken")
                .to_string();
            let file = std::fs::File::open(&path).expect("open");
            let got = Fixture::parse_stream(std::io::BufReader::new(file), 0, &path)
                .expect_err("broken")
                .to_string();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn text_of_another_shape_is_refused() {
        for bad in [
            r#"{"items":[{"id":"a"}"#,
            r#"{"items":[{"id":"a"},]"#,
            r#"{"items":[{"id":"a"},]}"#,
            r#"{"items":[,{"id":"a"}]}"#,
            r#"{"items":[{"id":"a"}{"id":"b"}]}"#,
            "{\"items\":[\u{c}{\"id\":\"a\"}]}",
            r#"{"items":[{"id":1}]}"#,
            r#"{"items":["a"]}"#,
            r#"{"items":[{"id":"a"}]"#,
            r#"{"items":[{"id":"a"}]}}"#,
            r#"{"items":[{"id":"a}]}"#,
            "",
        ] {
            assert!(split(bad, 2).is_none(), "accepted {bad:?}");
        }
    }
}
