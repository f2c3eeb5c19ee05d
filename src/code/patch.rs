//! A unified patch (GitHub's `patch` of one file) parsed into hunks and lines, each line
//! addressable as GitHub addresses review comments: a side (`LEFT` for the old file, `RIGHT` for
//! the new) and a line number on that side. A range of lines is two addresses on one side.

use serde::{Deserialize, Serialize};

/// Which file of the diff a line number counts in (GitHub's `DiffSide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Side {
    /// The file before the change: removed and context lines.
    Left,
    /// The file after the change: added and context lines.
    Right,
}

/// A line of the diff as GitHub addresses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineAddr {
    pub side: Side,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineKind {
    Context,
    Added,
    Removed,
    /// `\ No newline at end of file`: belongs to the line before it, has no number.
    NoNewline,
}

/// One line of a hunk (its text without the `+`/`-`/` ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchLine {
    pub kind: LineKind,
    /// Its number in the old file (context and removed lines).
    pub old: Option<u32>,
    /// Its number in the new file (context and added lines).
    pub new: Option<u32>,
    pub text: String,
}

impl PatchLine {
    /// Where a comment on this line goes: the new side for added and context lines, the old
    /// side for removed lines (as GitHub's web UI does).
    pub fn addr(&self) -> Option<LineAddr> {
        match (self.kind, self.old, self.new) {
            (LineKind::Removed, Some(l), _) => Some(LineAddr {
                side: Side::Left,
                line: l,
            }),
            (LineKind::Added | LineKind::Context, _, Some(l)) => Some(LineAddr {
                side: Side::Right,
                line: l,
            }),
            _ => None,
        }
    }

    /// True when the line is at `addr` (a context line is on both sides).
    pub fn is_at(&self, addr: LineAddr) -> bool {
        match addr.side {
            Side::Left => self.kind != LineKind::Added && self.old == Some(addr.line),
            Side::Right => self.kind != LineKind::Removed && self.new == Some(addr.line),
        }
    }
}

/// One `@@ -a,b +c,d @@ section` hunk: its header and the range of its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    /// The text after the second `@@` (the enclosing function, when git found one).
    pub section: String,
    /// Indexes into [`ParsedPatch::lines`].
    pub lines: std::ops::Range<usize>,
}

/// A parsed patch. Lines before the first hunk header, or a malformed header, are kept as
/// context without numbers, so nothing of the patch is dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedPatch {
    pub hunks: Vec<Hunk>,
    pub lines: Vec<PatchLine>,
}

impl ParsedPatch {
    /// The index of the line at `addr`, if the diff shows it.
    pub fn find(&self, addr: LineAddr) -> Option<usize> {
        self.lines.iter().position(|l| l.is_at(addr))
    }

    /// The hunk line `idx` belongs to.
    pub fn hunk_of(&self, idx: usize) -> Option<usize> {
        self.hunks.iter().position(|h| h.lines.contains(&idx))
    }

    /// The patch as text again, its hunks only: what [`parse`] reads back as the same hunks and
    /// lines (lines outside every hunk are left out).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for h in &self.hunks {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!(
                "@@ -{},{} +{},{} @@",
                h.old_start, h.old_len, h.new_start, h.new_len
            ));
            if !h.section.is_empty() {
                out.push(' ');
                out.push_str(&h.section);
            }
            for l in self.lines.get(h.lines.clone()).unwrap_or_default() {
                out.push('\n');
                match l.kind {
                    LineKind::Context => out.push(' '),
                    LineKind::Added => out.push('+'),
                    LineKind::Removed => out.push('-'),
                    LineKind::NoNewline => {}
                }
                out.push_str(&l.text);
            }
        }
        out
    }

    /// The indexes of the lines from `a` to `b` (both on one side, in either order), when both
    /// are in the diff: a range of lines to select.
    pub fn range(&self, a: LineAddr, b: LineAddr) -> Option<std::ops::RangeInclusive<usize>> {
        if a.side != b.side {
            return None;
        }
        let (i, j) = (self.find(a)?, self.find(b)?);
        Some(i.min(j)..=i.max(j))
    }
}

/// A line, or a range of lines on one side, chosen in the diff view for a review comment or a
/// suggestion: what the diff screen hands to the pending review. `start` is `None` for a single
/// line; otherwise `start.line < end.line` on `end.side` (GitHub's rule for multi-line comments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineSelection {
    pub path: String,
    pub start: Option<LineAddr>,
    pub end: LineAddr,
    /// The selected lines' text, without their `+`/`-`/` ` prefix (a suggestion's prefill).
    pub text: Vec<String>,
}

impl LineSelection {
    /// The selection of lines `range` of `patch` (indexes into [`ParsedPatch::lines`]) in the file
    /// `path`: `None` when a line in it has no address or the ends are on different sides.
    pub fn of(
        path: &str,
        patch: &ParsedPatch,
        range: std::ops::RangeInclusive<usize>,
    ) -> Option<Self> {
        let (first, last) = (*range.start(), *range.end());
        let a = patch.lines.get(first)?.addr()?;
        let b = patch.lines.get(last)?.addr()?;
        if a.side != b.side || a.line > b.line {
            return None;
        }
        let text = patch
            .lines
            .get(first..=last)?
            .iter()
            .filter(|l| l.kind != LineKind::NoNewline)
            .map(|l| l.text.clone())
            .collect();
        Some(LineSelection {
            path: path.to_owned(),
            start: (a.line < b.line).then_some(a),
            end: b,
            text,
        })
    }
}

/// `@@ -a[,b] +c[,d] @@ section` → (a, b, c, d, section).
fn header(line: &str) -> Option<(u32, u32, u32, u32, String)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, section) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let pair = |s: &str| -> Option<(u32, u32)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (a, b) = pair(old)?;
    let (c, d) = pair(new)?;
    Some((a, b, c, d, section.trim_start().to_owned()))
}

/// Parses GitHub's `patch` text (hunks only, no `diff --git` header).
pub fn parse(patch: &str) -> ParsedPatch {
    let mut out = ParsedPatch::default();
    let (mut old, mut new) = (0u32, 0u32);
    let mut in_hunk = false;
    for raw in patch.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some((a, b, c, d, section)) = raw.starts_with("@@").then(|| header(raw)).flatten() {
            if let Some(h) = out.hunks.last_mut() {
                h.lines.end = out.lines.len();
            }
            out.hunks.push(Hunk {
                old_start: a,
                old_len: b,
                new_start: c,
                new_len: d,
                section,
                lines: out.lines.len()..out.lines.len(),
            });
            (old, new) = (a, c);
            in_hunk = true;
            continue;
        }
        let (kind, text) = match raw.chars().next() {
            Some('+') if in_hunk => (LineKind::Added, &raw[1..]),
            Some('-') if in_hunk => (LineKind::Removed, &raw[1..]),
            Some(' ') if in_hunk => (LineKind::Context, &raw[1..]),
            Some('\\') if in_hunk => (LineKind::NoNewline, raw),
            // An empty line inside a hunk is an empty context line (some tools strip the space).
            None if in_hunk => (LineKind::Context, ""),
            _ => {
                out.lines.push(PatchLine {
                    kind: LineKind::Context,
                    old: None,
                    new: None,
                    text: raw.to_owned(),
                });
                continue;
            }
        };
        let (o, n) = match kind {
            LineKind::Context => {
                old += 1;
                new += 1;
                (Some(old - 1), Some(new - 1))
            }
            LineKind::Added => {
                new += 1;
                (None, Some(new - 1))
            }
            LineKind::Removed => {
                old += 1;
                (Some(old - 1), None)
            }
            LineKind::NoNewline => (None, None),
        };
        out.lines.push(PatchLine {
            kind,
            old: o,
            new: n,
            text: text.to_owned(),
        });
    }
    // A patch's trailing newline leaves one empty line that is not part of the diff.
    if patch.ends_with('\n')
        && out
            .lines
            .last()
            .is_some_and(|l| l.text.is_empty() && l.kind == LineKind::Context)
    {
        out.lines.pop();
        if let Some(h) = out.hunks.last_mut() {
            h.lines.end = h.lines.end.min(out.lines.len());
        }
    }
    if let Some(h) = out.hunks.last_mut() {
        h.lines.end = out.lines.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "@@ -1,3 +1,4 @@ fn main() {\n a\n-b\n+B\n+C\n c\n@@ -10,2 +11,2 @@\n x\n-y\n+z\n\\ No newline at end of file";

    #[test]
    fn a_patch_as_text_reads_back_as_the_same_hunks() {
        let p = parse(P);
        assert_eq!(parse(&p.to_text()), p);
        assert_eq!(
            p.to_text().lines().next(),
            Some("@@ -1,3 +1,4 @@ fn main() {")
        );
    }

    #[test]
    fn a_selection_is_one_side_in_order_with_its_text() {
        let p = parse(P);
        let sel = LineSelection::of("src/a.rs", &p, 2..=4).unwrap();
        assert_eq!(
            sel.start,
            Some(LineAddr {
                side: Side::Right,
                line: 2
            })
        );
        assert_eq!(
            sel.end,
            LineAddr {
                side: Side::Right,
                line: 4
            }
        );
        assert_eq!(sel.text, vec!["B", "C", "c"]);
        let one = LineSelection::of("src/a.rs", &p, 1..=1).unwrap();
        assert_eq!(
            (one.start, one.end),
            (
                None,
                LineAddr {
                    side: Side::Left,
                    line: 2
                }
            )
        );
        assert!(
            LineSelection::of("src/a.rs", &p, 1..=2).is_none(),
            "two sides"
        );
        assert!(
            LineSelection::of("src/a.rs", &p, 7..=30).is_none(),
            "past the end"
        );
    }

    #[test]
    fn lines_carry_both_numbers() {
        let p = parse(P);
        assert_eq!(p.hunks.len(), 2);
        assert_eq!(p.hunks[0].section, "fn main() {");
        assert_eq!(p.hunks[0].lines, 0..5);
        assert_eq!(p.hunks[1].lines, 5..9);
        let nums: Vec<(Option<u32>, Option<u32>)> =
            p.lines.iter().map(|l| (l.old, l.new)).collect();
        assert_eq!(
            nums,
            [
                (Some(1), Some(1)),
                (Some(2), None),
                (None, Some(2)),
                (None, Some(3)),
                (Some(3), Some(4)),
                (Some(10), Some(11)),
                (Some(11), None),
                (None, Some(12)),
                (None, None),
            ]
        );
    }

    #[test]
    fn lines_are_addressable_by_side_and_line() {
        let p = parse(P);
        let right = |line| LineAddr {
            side: Side::Right,
            line,
        };
        let left = |line| LineAddr {
            side: Side::Left,
            line,
        };
        assert_eq!(p.find(right(3)), Some(3));
        assert_eq!(p.find(left(2)), Some(1));
        assert_eq!(p.find(right(4)), p.find(left(3)));
        assert_eq!(p.find(right(99)), None);
        assert_eq!(p.lines[1].addr(), Some(left(2)));
        assert_eq!(p.range(right(4), right(2)), Some(2..=4));
        assert_eq!(p.range(right(1), left(2)), None);
        assert_eq!(p.hunk_of(6), Some(1));
    }

    #[test]
    fn nothing_is_dropped_from_odd_input() {
        let p = parse("not a hunk\n@@ broken @@\n+x");
        assert_eq!(p.lines.len(), 3);
        assert!(p.hunks.is_empty());
        assert!(parse("").lines.len() <= 1);
    }
}
