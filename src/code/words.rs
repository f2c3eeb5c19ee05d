//! The changed words of a modified line, as GitHub and delta mark them: in a hunk's change block
//! (removed lines, then added lines) the i-th removed line is paired with the i-th added line,
//! and when the two are alike enough the parts that differ are given on each side.
//!
//! - Tokens: a run of word characters (alphanumeric or `_`), a run of whitespace, or any other
//!   single character — so `foo(bar)` → `foo(baz)` marks `bar`/`baz`, not the whole call. The
//!   token sequences are diffed with `similar` (Myers).
//! - Alike enough ([`changed_words`]): at least one word token in common, and the changed bytes
//!   of both sides under [`MAX_CHANGE_RATIO`] of both lines' bytes; past it, marking words is
//!   noise (the whole line changed) and the pair is shown as plain removed/added lines.
//! - Off for long lines: either side over [`MAX_WORD_DIFF_CHARS`] characters is not marked
//!   (minified or generated text; a word diff there costs time and helps nobody).
//! - Ranges are byte ranges into the line's text as given (tabs intact), always on `char`
//!   boundaries, sorted and disjoint; a trailing `\r` is never part of a diff (it is ignored, so a
//!   CRLF line against an LF line compares equal).

use std::ops::Range;

use similar::{Algorithm, DiffTag, capture_diff_slices};

use super::patch::{Hunk, LineKind, ParsedPatch};

/// Lines longer than this (characters, either side) get no word marks.
pub const MAX_WORD_DIFF_CHARS: usize = 500;

/// A pair is marked only while the changed bytes of both sides are under this share of both
/// lines' bytes (GitHub and delta stop marking about there: more is a rewritten line).
pub const MAX_CHANGE_RATIO: f64 = 0.6;

/// The changed parts of a removed line and of the added line paired with it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WordMarks {
    /// Byte ranges of the removed line's text that are not in the added line.
    pub old: Vec<Range<usize>>,
    /// Byte ranges of the added line's text that are not in the removed line.
    pub new: Vec<Range<usize>>,
}

/// One paired removed/added line of a change block, by index into [`ParsedPatch::lines`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordPair {
    pub removed: usize,
    pub added: usize,
    pub marks: WordMarks,
}

/// A hunk's change block: consecutive removed lines, then the added lines right after them
/// (either may be empty, not both), as indexes into [`ParsedPatch::lines`] (`\ No newline`
/// markers between them are skipped).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangeBlock {
    pub removed: Vec<usize>,
    pub added: Vec<usize>,
}

/// The change blocks of `hunk` in `patch`, in order.
pub fn change_blocks(patch: &ParsedPatch, hunk: &Hunk) -> Vec<ChangeBlock> {
    let mut out = Vec::new();
    let mut cur = ChangeBlock::default();
    for idx in hunk.lines.clone() {
        let Some(line) = patch.lines.get(idx) else {
            break;
        };
        match line.kind {
            LineKind::Removed => {
                if !cur.added.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                cur.removed.push(idx);
            }
            LineKind::Added => cur.added.push(idx),
            LineKind::NoNewline => {}
            LineKind::Context => {
                if !cur.removed.is_empty() || !cur.added.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.removed.is_empty() || !cur.added.is_empty() {
        out.push(cur);
    }
    out
}

/// The word-marked pairs of one change block: the i-th removed line with the i-th added line,
/// for those pairs [`changed_words`] finds alike enough.
pub fn block_pairs(patch: &ParsedPatch, block: &ChangeBlock) -> Vec<WordPair> {
    block
        .removed
        .iter()
        .zip(&block.added)
        .filter_map(|(&r, &a)| {
            let (old, new) = (patch.lines.get(r)?, patch.lines.get(a)?);
            let marks = changed_words(&old.text, &new.text)?;
            Some(WordPair {
                removed: r,
                added: a,
                marks,
            })
        })
        .collect()
}

/// Every word-marked pair of `patch`, hunk by hunk.
pub fn patch_pairs(patch: &ParsedPatch) -> Vec<WordPair> {
    patch
        .hunks
        .iter()
        .flat_map(|h| change_blocks(patch, h))
        .flat_map(|b| block_pairs(patch, &b))
        .collect()
}

/// The unified view's marks: for each line of `patch` (index into [`ParsedPatch::lines`]) that
/// is half of a marked pair, its changed ranges (a removed line's `old`, an added line's `new`).
pub fn marks_by_line(patch: &ParsedPatch) -> std::collections::HashMap<usize, Vec<Range<usize>>> {
    let mut out = std::collections::HashMap::new();
    for pair in patch_pairs(patch) {
        out.insert(pair.removed, pair.marks.old);
        out.insert(pair.added, pair.marks.new);
    }
    out
}

/// Whether `c` continues a word token.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` cut into tokens (see the module's doc), each a slice of it.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut class = None;
    for (i, c) in text.char_indices() {
        let this = if is_word(c) {
            Some(0)
        } else if c.is_whitespace() {
            Some(1)
        } else {
            None
        };
        // Punctuation is one token per character; word and space runs are one token each.
        if i > start && (this.is_none() || this != class) {
            out.push(&text[start..i]);
            start = i;
        }
        class = this;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The byte ranges of `toks[range]` in the text the tokens were cut from.
fn span(offsets: &[usize], range: Range<usize>) -> Range<usize> {
    let at = |i: usize| offsets.get(i).copied().unwrap_or(0);
    at(range.start)..at(range.end)
}

fn push(ranges: &mut Vec<Range<usize>>, r: Range<usize>) {
    if r.is_empty() {
        return;
    }
    match ranges.last_mut() {
        Some(last) if last.end == r.start => last.end = r.end,
        _ => ranges.push(r),
    }
}

/// The changed parts of `old` (a removed line) and `new` (the added line paired with it), or
/// `None` when the pair is not worth marking: a line over [`MAX_WORD_DIFF_CHARS`], no word in
/// common, or a change ratio of [`MAX_CHANGE_RATIO`] or more. Two equal lines (after a trailing
/// `\r`) give empty marks.
pub fn changed_words(old: &str, new: &str) -> Option<WordMarks> {
    let old = old.strip_suffix('\r').unwrap_or(old);
    let new = new.strip_suffix('\r').unwrap_or(new);
    if old.chars().count() > MAX_WORD_DIFF_CHARS || new.chars().count() > MAX_WORD_DIFF_CHARS {
        return None;
    }
    if old == new {
        return Some(WordMarks::default());
    }
    let (a, b) = (tokens(old), tokens(new));
    // offsets[i]: where token i starts; offsets[len]: the text's end.
    let offsets = |toks: &[&str]| -> Vec<usize> {
        let mut at = 0;
        let mut v = Vec::with_capacity(toks.len() + 1);
        for t in toks {
            v.push(at);
            at += t.len();
        }
        v.push(at);
        v
    };
    let (oa, ob) = (offsets(&a), offsets(&b));
    let mut marks = WordMarks::default();
    let mut common_word = false;
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (tag, ro, rn) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                common_word |= a
                    .get(ro)
                    .is_some_and(|t| t.iter().any(|t| t.chars().any(is_word)));
            }
            DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                push(&mut marks.old, span(&oa, ro));
                push(&mut marks.new, span(&ob, rn));
            }
        }
    }
    let changed: usize = marks.old.iter().chain(&marks.new).map(|r| r.len()).sum();
    let total = old.len() + new.len();
    let ratio = changed as f64 / total.max(1) as f64;
    (common_word && ratio < MAX_CHANGE_RATIO).then_some(marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cut<'a>(text: &'a str, ranges: &[Range<usize>]) -> Vec<&'a str> {
        ranges.iter().map(|r| &text[r.clone()]).collect()
    }

    /// The text outside `ranges`.
    fn rest(text: &str, ranges: &[Range<usize>]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for r in ranges {
            out.push_str(&text[at..r.start]);
            at = r.end;
        }
        out.push_str(&text[at..]);
        out
    }

    // Guards the tokenizer: an argument changed inside a call marks the argument only.
    #[test]
    fn a_changed_argument_marks_only_the_argument() {
        let (old, new) = ("    let x = foo(bar, 1);", "    let x = foo(baz, 1);");
        let m = changed_words(old, new).unwrap();
        assert_eq!(cut(old, &m.old), ["bar"]);
        assert_eq!(cut(new, &m.new), ["baz"]);
    }

    // Guards tabs and byte ranges over multi-byte text: ranges slice the text as given.
    #[test]
    fn tabs_and_wide_characters_stay_intact() {
        let (old, new) = ("\t\tname: \"zażółć\",", "\t\tname: \"gęślą\",");
        let m = changed_words(old, new).unwrap();
        assert_eq!(cut(old, &m.old), ["zażółć"]);
        assert_eq!(cut(new, &m.new), ["gęślą"]);
        assert!(old.starts_with("\t\t") && m.old[0].start == 9);
    }

    // Guards the insertion case: only the added words are marked, the old side has none.
    #[test]
    fn an_inserted_word_marks_only_the_new_side() {
        let m = changed_words("log_line(\"{entry}\");", "log_line(\"entry: {entry}\");").unwrap();
        assert!(m.old.is_empty(), "{m:?}");
        assert_eq!(
            cut("log_line(\"entry: {entry}\");", &m.new),
            ["entry: "],
            "{m:?}"
        );
    }

    // Guards the similarity rule: a rewritten line, or lines with no word in common, are not
    // marked; equal lines (CRLF against LF) give empty marks.
    #[test]
    fn unlike_lines_are_not_paired() {
        assert_eq!(changed_words("return a + b;", "}"), None);
        assert_eq!(
            changed_words("let total = 3;", "log_line(\"{}\", value.unwrap());"),
            None
        );
        assert_eq!(changed_words("", "x"), None);
        assert_eq!(
            changed_words("same line\r", "same line"),
            Some(WordMarks::default())
        );
        assert_eq!(changed_words("THREE\r", "three"), None, "no word in common");
    }

    // Guards the length limit: past it, no marks whatever the likeness.
    #[test]
    fn long_lines_get_no_marks() {
        let long = "a ".repeat(MAX_WORD_DIFF_CHARS / 2 + 1);
        assert_eq!(changed_words(&long, &format!("{long}b")), None);
        let ok = "a ".repeat(MAX_WORD_DIFF_CHARS / 2 - 2);
        assert!(changed_words(&ok, &format!("{ok}b")).is_some());
    }

    // Guards block pairing: the i-th removed with the i-th added, only alike pairs, context
    // and `\ No newline` markers split or skip as they should.
    #[test]
    fn blocks_pair_in_order_and_only_alike_lines() {
        let p = crate::code::patch::parse(
            "@@ -1,5 +1,5 @@\n a\n-let x = 1;\n-let y = 2;\n+let x = 10;\n+}\n b\n-end\n\\ No newline at end of file\n+end.\n\\ No newline at end of file",
        );
        let blocks = change_blocks(&p, &p.hunks[0]);
        assert_eq!(
            blocks,
            [
                ChangeBlock {
                    removed: vec![1, 2],
                    added: vec![3, 4]
                },
                ChangeBlock {
                    removed: vec![6],
                    added: vec![8]
                },
            ]
        );
        let pairs = patch_pairs(&p);
        assert_eq!(
            pairs
                .iter()
                .map(|w| (w.removed, w.added))
                .collect::<Vec<_>>(),
            [(1, 3), (6, 8)]
        );
        assert_eq!(cut("let x = 10;", &pairs[0].marks.new), ["10"]);
        let by_line = marks_by_line(&p);
        assert_eq!(by_line.len(), 4);
        assert_eq!(cut("let x = 10;", &by_line[&3]), ["10"]);
        assert_eq!(cut("let x = 1;", &by_line[&1]), ["1"]);
        assert!(!by_line.contains_key(&2) && !by_line.contains_key(&4));
        // An added-only block pairs nothing.
        let p = crate::code::patch::parse("@@ -1,1 +1,2 @@\n a\n+b");
        assert_eq!(change_blocks(&p, &p.hunks[0]).len(), 1);
        assert!(patch_pairs(&p).is_empty());
    }

    fn line() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("foo"),
                Just("bar"),
                Just(" "),
                Just("\t"),
                Just("("),
                Just(")"),
                Just("żółw"),
                Just("x1"),
                Just(","),
                Just("\r"),
            ],
            0..20,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        // Ranges are in bounds, on char boundaries, sorted, disjoint, and what is left of both
        // sides once the ranges are cut is the same text.
        #[test]
        fn marks_are_well_formed_and_the_rest_is_equal(old in line(), new in line()) {
            if let Some(m) = changed_words(&old, &new) {
                for (text, ranges) in [(&old, &m.old), (&new, &m.new)] {
                    let mut end = 0;
                    for r in ranges {
                        prop_assert!(r.start >= end && r.start < r.end && r.end <= text.len());
                        prop_assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
                        end = r.end;
                    }
                }
                let strip = |s: &str| s.strip_suffix('\r').unwrap_or(s).to_owned();
                prop_assert_eq!(rest(&strip(&old), &m.old), rest(&strip(&new), &m.new));
            }
        }
    }
}
