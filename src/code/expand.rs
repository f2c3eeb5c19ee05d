//! Context on demand: the lines of a file between and around its diff's hunks, shown when the
//! reviewer asks (GitHub's expand arrows): [`STEP`] more lines above or below a hunk (`e`), or
//! the whole file (`E`).
//!
//! Outside the hunks the old and the new file hold the same lines, so each gap between hunks has
//! one fixed offset between its old and new line numbers; a gap's lines are read from the file at
//! the head (the new side) or, when there is none (a removed file), at the base. Gap `i` is the
//! one before hunk `i`; gap `hunks.len()` is the one after the last hunk, to the end of the file.
//!
//! An expanded line is **not a diff line**: GitHub accepts review comments only on lines of the
//! diff, so [`ContextLine::is_diff_line`] is false and the console refuses `c` on one, saying so.
//!
//! Pure: the file texts come from the caller (`source::github::contents`, or the fixture's file
//! contents offline). Numbers the texts do not bear out (a text shorter than the hunks say) are
//! cut to what the text has; without any text there is nothing to expand.

use super::patch::Hunk;

/// How many lines one `e` shows.
pub const STEP: u32 = 20;

/// A line of the file outside the hunks, with its number in the old and in the new file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextLine<'a> {
    pub old: u32,
    pub new: u32,
    /// Its text, without its line ending (tabs as they are).
    pub text: &'a str,
}

impl ContextLine<'_> {
    /// Always false: an expanded line is not part of the diff, and GitHub takes no comment on it.
    pub fn is_diff_line(&self) -> bool {
        false
    }
}

/// The lines between two hunks (or before the first, or after the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The gap's first line in the old file and in the new file.
    pub old_start: u32,
    pub new_start: u32,
    /// How many lines it holds.
    pub len: u32,
}

impl Gap {
    /// The `k`-th line of the gap (from 0) as old and new numbers.
    fn at(&self, k: u32) -> (u32, u32) {
        (self.old_start + k, self.new_start + k)
    }
}

/// What a gap shows: its first lines (below the hunk above it), the number of lines still
/// hidden, and its last lines (above the hunk below it). A gap shown whole is all in `top`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GapRows<'a> {
    pub top: Vec<ContextLine<'a>>,
    pub hidden: u32,
    pub bottom: Vec<ContextLine<'a>>,
}

/// A file's gaps and how much of each is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileGaps {
    /// The file's lines (at the head, else at the base), without their endings.
    lines: Vec<String>,
    /// Whether `lines` is the new file (else the old one).
    from_new: bool,
    gaps: Vec<Gap>,
    /// Per gap: lines shown at its top and at its bottom.
    shown: Vec<(u32, u32)>,
}

/// A file's text as lines without endings (a final newline ends the last line, it starts none).
fn split_lines(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

/// A hunk's first line number on one side and the one after its last (`start` names the line
/// before the hunk when its length is 0, as in `@@ -0,0 +1,3 @@`).
fn span(start: u32, len: u32) -> (u32, u32) {
    let first = if len == 0 { start + 1 } else { start.max(1) };
    (first, first + len)
}

impl FileGaps {
    /// The gaps around `hunks` (a file's parsed hunks, in order) of a file whose text is `base`
    /// at the base and `head` at the head (either absent: an added or a removed file). Nothing
    /// is shown yet.
    pub fn new(hunks: &[Hunk], base: Option<&str>, head: Option<&str>) -> FileGaps {
        let (lines, from_new) = match (head, base) {
            (Some(h), _) => (split_lines(h), true),
            (None, Some(b)) => (split_lines(b), false),
            (None, None) => (Vec::new(), true),
        };
        let total = u32::try_from(lines.len()).unwrap_or(u32::MAX);
        let mut gaps = Vec::with_capacity(hunks.len() + 1);
        let (mut old_next, mut new_next) = (1u32, 1u32);
        for h in hunks {
            let (old_first, old_after) = span(h.old_start, h.old_len);
            let (new_first, new_after) = span(h.new_start, h.new_len);
            let len = old_first
                .saturating_sub(old_next)
                .min(new_first.saturating_sub(new_next));
            gaps.push(Gap {
                old_start: old_next,
                new_start: new_next,
                len,
            });
            (old_next, new_next) = (old_after, new_after);
        }
        let next = if from_new { new_next } else { old_next };
        gaps.push(Gap {
            old_start: old_next,
            new_start: new_next,
            len: (total + 1).saturating_sub(next),
        });
        // A gap the text does not reach is cut to what it has.
        for g in &mut gaps {
            let start = if from_new { g.new_start } else { g.old_start };
            g.len = g.len.min((total + 1).saturating_sub(start));
        }
        let shown = vec![(0, 0); gaps.len()];
        FileGaps {
            lines,
            from_new,
            gaps,
            shown,
        }
    }

    /// Gap `i` is before hunk `i`; the last is after the last hunk.
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps
    }

    /// Lines of gap `gap` not shown yet.
    pub fn hidden(&self, gap: usize) -> u32 {
        match (self.gaps.get(gap), self.shown.get(gap)) {
            (Some(g), Some((top, bottom))) => g.len.saturating_sub(top + bottom),
            _ => 0,
        }
    }

    /// Shows up to `n` more lines above hunk `hunk` (the end of the gap before it); the number
    /// shown.
    pub fn expand_above(&mut self, hunk: usize, n: u32) -> u32 {
        let more = n.min(self.hidden(hunk));
        if let Some(s) = self.shown.get_mut(hunk) {
            s.1 += more;
        }
        more
    }

    /// Shows up to `n` more lines below hunk `hunk` (the start of the gap after it); the number
    /// shown.
    pub fn expand_below(&mut self, hunk: usize, n: u32) -> u32 {
        let gap = hunk + 1;
        let more = n.min(self.hidden(gap));
        if let Some(s) = self.shown.get_mut(gap) {
            s.0 += more;
        }
        more
    }

    /// Shows every line of the file (`E`); the number newly shown.
    pub fn expand_all(&mut self) -> u32 {
        let mut more = 0;
        for i in 0..self.gaps.len() {
            let h = self.hidden(i);
            if let Some(s) = self.shown.get_mut(i) {
                s.0 += h;
            }
            more += h;
        }
        more
    }

    /// Whether every line of the file is shown.
    pub fn all_shown(&self) -> bool {
        (0..self.gaps.len()).all(|i| self.hidden(i) == 0)
    }

    fn line(&self, gap: &Gap, k: u32) -> Option<ContextLine<'_>> {
        let (old, new) = gap.at(k);
        let n = if self.from_new { new } else { old };
        let text = self.lines.get(n.checked_sub(1)? as usize)?;
        Some(ContextLine {
            old,
            new,
            text: text.as_str(),
        })
    }

    /// What gap `gap` shows (before hunk `gap`; `hunks.len()`: after the last).
    pub fn rows(&self, gap: usize) -> GapRows<'_> {
        let (Some(g), Some(&(top, bottom))) = (self.gaps.get(gap), self.shown.get(gap)) else {
            return GapRows::default();
        };
        // A gap shown whole is one run of lines, in `top`.
        let (top, bottom) = if top.saturating_add(bottom) >= g.len {
            (g.len, 0)
        } else {
            (top, bottom)
        };
        GapRows {
            top: (0..top).filter_map(|k| self.line(g, k)).collect(),
            hidden: g.len - top - bottom,
            bottom: (g.len - bottom..g.len)
                .filter_map(|k| self.line(g, k))
                .collect(),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::code::patch::{LineKind, parse};
    use proptest::prelude::*;

    fn file(n: u32) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    fn nums(rows: &[ContextLine]) -> Vec<(u32, u32)> {
        rows.iter().map(|r| (r.old, r.new)).collect()
    }

    // Guards the gaps' numbers: a fixed old↔new offset per gap, from the hunk headers, and the
    // last gap to the end of the head file.
    #[test]
    fn gaps_between_hunks_have_fixed_offsets() {
        // Old: 60 lines; line 10 removed, a line added after 40.
        let p = parse(
            "@@ -9,3 +9,2 @@\n line 8\n-line 9\n line 10\n@@ -40,2 +39,3 @@\n line 39\n+new\n line 40",
        );
        let head = file(60); // texts do not matter for the numbers
        let fc = FileGaps::new(&p.hunks, None, Some(&head));
        assert_eq!(
            fc.gaps(),
            [
                Gap {
                    old_start: 1,
                    new_start: 1,
                    len: 8
                },
                Gap {
                    old_start: 12,
                    new_start: 11,
                    len: 28
                },
                Gap {
                    old_start: 42,
                    new_start: 42,
                    len: 19
                },
            ]
        );
    }

    // Guards `e` and `E`: 20 lines above or below a hunk, clamped to the gap, then everything;
    // the rows say they are not diff lines.
    #[test]
    fn expand_above_below_and_all() {
        let p = parse("@@ -30,3 +30,3 @@\n line 30\n-line 31\n+LINE 31\n line 32");
        let head = file(100).replace("line 31\n", "LINE 31\n");
        let base = file(100);
        let mut fc = FileGaps::new(&p.hunks, Some(&base), Some(&head));
        assert_eq!(fc.rows(0).hidden, 29);
        assert_eq!(fc.expand_above(0, STEP), 20);
        let r = fc.rows(0);
        assert_eq!((r.top.len(), r.hidden, r.bottom.len()), (0, 9, 20));
        assert_eq!(r.bottom[0].new, 10);
        assert_eq!(r.bottom[19].text, "line 29");
        assert!(!r.bottom[0].is_diff_line());
        assert_eq!(fc.expand_above(0, STEP), 9, "clamped to the gap");
        assert_eq!(fc.expand_above(0, STEP), 0);
        let r = fc.rows(0);
        assert_eq!(
            (r.top.len(), r.hidden, r.bottom.len()),
            (29, 0, 0),
            "whole: one run"
        );
        assert_eq!(nums(&r.top)[..2], [(1, 1), (2, 2)]);
        assert_eq!(fc.expand_below(0, STEP), 20);
        let r = fc.rows(1);
        assert_eq!(nums(&r.top)[..2], [(33, 33), (34, 34)]);
        assert_eq!(r.hidden, 48);
        assert!(!fc.all_shown());
        assert_eq!(fc.expand_all(), 48);
        assert!(fc.all_shown());
        let r = fc.rows(1);
        assert_eq!((r.top.len(), r.hidden, r.bottom.len()), (68, 0, 0));
        assert_eq!(r.top.last().map(|l| l.text), Some("line 100"));
        assert_eq!(fc.expand_below(5, STEP), 0, "no such hunk");
    }

    // Guards added and removed files and missing text: nothing to expand, nothing out of range.
    #[test]
    fn added_removed_and_textless_files() {
        let added = parse("@@ -0,0 +1,2 @@\n+a\n+b");
        let fc = FileGaps::new(&added.hunks, None, Some("a\nb\n"));
        assert!(fc.gaps().iter().all(|g| g.len == 0), "{:?}", fc.gaps());
        let removed = parse("@@ -1,2 +0,0 @@\n-a\n-b");
        let fc = FileGaps::new(&removed.hunks, Some("a\nb\n"), None);
        assert!(fc.gaps().iter().all(|g| g.len == 0), "{:?}", fc.gaps());
        let p = parse("@@ -5 +5 @@\n-x\n+y");
        let mut fc = FileGaps::new(&p.hunks, None, None);
        assert_eq!(fc.expand_all(), 0);
        // A text shorter than the hunks say: cut, never out of range.
        let mut fc = FileGaps::new(&p.hunks, None, Some("1\n2\n"));
        assert_eq!(fc.expand_all(), 2);
        assert_eq!(fc.rows(0).top.len(), 2);
    }

    /// One piece of a change: kept, removed or added lines (as small numbers, so texts repeat).
    pub(crate) fn piece() -> impl Strategy<Value = (u8, Vec<u8>)> {
        (0u8..3, proptest::collection::vec(0u8..4, 1..12))
    }

    /// The old file, the new file and `git diff -U<radius>`'s hunks between them, made from
    /// `pieces` (so the diff is known without a diff algorithm): git's numbering (an empty side's
    /// start is the line before it, as GitHub has it) and the `\ No newline` marker after a
    /// file's last line when `newline` is false.
    pub(crate) fn story(
        pieces: &[(u8, Vec<u8>)],
        radius: usize,
        newline: bool,
    ) -> (String, String, String) {
        let text = |n: &u8| format!("t{n}\tx");
        let mut entries: Vec<(char, String)> = Vec::new();
        for (kind, lines) in pieces {
            let sign = [' ', '-', '+'][usize::from(*kind)];
            entries.extend(lines.iter().map(|l| (sign, text(l))));
        }
        let file = |keep: char| -> String {
            let lines: Vec<&str> = entries
                .iter()
                .filter(|(s, _)| *s == ' ' || *s == keep)
                .map(|(_, t)| t.as_str())
                .collect();
            let mut s = lines.join("\n");
            if newline && !s.is_empty() {
                s.push('\n');
            }
            s
        };
        let (old, new) = (file('-'), file('+'));
        let last_old = entries.iter().rposition(|(s, _)| *s != '+');
        let last_new = entries.iter().rposition(|(s, _)| *s != '-');
        let changed: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].0 != ' ')
            .collect();
        let shown = |i: usize| changed.iter().any(|&c| c.abs_diff(i) <= radius);
        let mut diff = String::new();
        let (mut o, mut n) = (1u32, 1u32); // the next line of each file
        let mut i = 0;
        while i < entries.len() {
            if !shown(i) {
                o += 1;
                n += 1;
                i += 1;
                continue;
            }
            let end = (i..entries.len())
                .find(|&j| !shown(j))
                .unwrap_or(entries.len());
            let run = &entries[i..end];
            let olen = run.iter().filter(|(s, _)| *s != '+').count() as u32;
            let nlen = run.iter().filter(|(s, _)| *s != '-').count() as u32;
            let start = |next: u32, len: u32| if len == 0 { next - 1 } else { next };
            diff.push_str(&format!(
                "@@ -{},{olen} +{},{nlen} @@\n",
                start(o, olen),
                start(n, nlen)
            ));
            for (k, (sign, t)) in run.iter().enumerate() {
                diff.push_str(&format!("{sign}{t}\n"));
                let at = i + k;
                if !newline
                    && (Some(at) == last_old && *sign != '+'
                        || Some(at) == last_new && *sign != '-')
                {
                    diff.push_str("\\ No newline at end of file\n");
                }
            }
            o += olen;
            n += nlen;
            i = end;
        }
        (old, new, diff)
    }

    proptest! {
        // Fully expanded, the context rows and the diff's lines cover the head file exactly
        // once, in order (and the base file likewise), each with its own text.
        #[test]
        fn fully_expanded_covers_each_file_once_in_order(
            pieces in proptest::collection::vec(piece(), 0..8),
            radius in 0usize..4,
            newline in any::<bool>(),
        ) {
            let (old, new, diff) = story(&pieces, radius, newline);
            let p = parse(&diff);
            let base = (!old.is_empty()).then_some(old.as_str());
            let head = (!new.is_empty()).then_some(new.as_str());
            let mut fc = FileGaps::new(&p.hunks, base, head);
            fc.expand_all();
            let mut seen_new: Vec<(u32, String)> = Vec::new();
            let mut seen_old: Vec<(u32, String)> = Vec::new();
            let gap = |i: usize, seen_new: &mut Vec<(u32, String)>, seen_old: &mut Vec<(u32, String)>| {
                let r = fc.rows(i);
                assert_eq!((r.hidden, r.bottom.len()), (0, 0));
                for l in r.top {
                    seen_new.push((l.new, l.text.to_owned()));
                    seen_old.push((l.old, l.text.to_owned()));
                }
            };
            for (i, h) in p.hunks.iter().enumerate() {
                gap(i, &mut seen_new, &mut seen_old);
                for l in &p.lines[h.lines.clone()] {
                    if l.kind == LineKind::NoNewline {
                        continue;
                    }
                    if let Some(n) = l.new {
                        seen_new.push((n, l.text.clone()));
                    }
                    if let Some(o) = l.old {
                        seen_old.push((o, l.text.clone()));
                    }
                }
            }
            gap(p.hunks.len(), &mut seen_new, &mut seen_old);
            let want = |t: &str| -> Vec<(u32, String)> {
                split_lines(t).into_iter().zip(1u32..).map(|(l, n)| (n, l)).collect()
            };
            prop_assert_eq!(seen_new, want(&new));
            prop_assert_eq!(seen_old, want(&old));
        }
    }
}
