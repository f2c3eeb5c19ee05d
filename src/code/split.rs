//! A parsed patch as the rows of a side-by-side view, as GitHub's split diff shows it: the old
//! file on the left, the new on the right; a context line on both sides of one row; in a change
//! block the i-th removed line beside the i-th added line (the pairing of [`super::words`]: such
//! a row carries the word marks when the two lines are alike), the shorter side padded with empty
//! cells. A `\ No newline at end of file` marker is no row: it marks the cell of the line it
//! follows.
//!
//! Every cell knows its side and line (GitHub's `LEFT`/`RIGHT` and line number), so a comment
//! goes on the side the cursor is on.

use super::patch::{LineAddr, LineKind, ParsedPatch, Side};
use super::words::{WordMarks, changed_words};

/// One side of a row: a line of the old file (left) or of the new file (right).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub side: Side,
    /// Its number in the file of its side.
    pub line: u32,
    /// `Context`, `Removed` (left only) or `Added` (right only).
    pub kind: LineKind,
    /// The line in [`ParsedPatch::lines`] (its text: [`Cell::text`]).
    pub idx: usize,
    /// The line has no newline at the end of the file (a `\ No newline` marker followed it).
    pub no_newline: bool,
}

impl Cell {
    /// Where a comment on this cell goes.
    pub fn addr(&self) -> LineAddr {
        LineAddr {
            side: self.side,
            line: self.line,
        }
    }

    /// The line's text (without its `+`/`-`/` ` prefix; tabs as they are).
    pub fn text<'p>(&self, patch: &'p ParsedPatch) -> &'p str {
        patch.lines.get(self.idx).map_or("", |l| l.text.as_str())
    }
}

/// One row of the split view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitRow {
    /// The hunk it belongs to (index into [`ParsedPatch::hunks`]).
    pub hunk: usize,
    pub left: Option<Cell>,
    pub right: Option<Cell>,
    /// The changed words of a removed line beside the added line paired with it, when the two
    /// are alike enough ([`changed_words`]).
    pub marks: Option<WordMarks>,
}

impl SplitRow {
    /// The cell on `side`, if the row has one there (a padded side has none).
    pub fn cell(&self, side: Side) -> Option<&Cell> {
        match side {
            Side::Left => self.left.as_ref(),
            Side::Right => self.right.as_ref(),
        }
    }

    /// The line a comment on `side` of this row goes to.
    pub fn addr(&self, side: Side) -> Option<LineAddr> {
        self.cell(side).map(Cell::addr)
    }
}

/// The row holding line `idx` of the patch (index into [`ParsedPatch::lines`]) and the side it
/// is on there (a context line: `Right`, as the unified view addresses it): where the cursor goes
/// when the layout changes from unified to split. A `\ No newline` marker has no row.
pub fn row_of(rows: &[SplitRow], idx: usize) -> Option<(usize, Side)> {
    rows.iter().enumerate().find_map(|(i, r)| {
        if r.right.as_ref().is_some_and(|c| c.idx == idx) {
            Some((i, Side::Right))
        } else if r.left.as_ref().is_some_and(|c| c.idx == idx) {
            Some((i, Side::Left))
        } else {
            None
        }
    })
}

/// The rows of every hunk of `patch`, in order (lines before the first hunk, which have no
/// numbers, are not rows).
pub fn split_rows(patch: &ParsedPatch) -> Vec<SplitRow> {
    (0..patch.hunks.len())
        .flat_map(|h| hunk_rows(patch, h))
        .collect()
}

fn cell(patch: &ParsedPatch, idx: usize, side: Side) -> Option<Cell> {
    let l = patch.lines.get(idx)?;
    let line = match side {
        Side::Left => l.old?,
        Side::Right => l.new?,
    };
    Some(Cell {
        side,
        line,
        kind: l.kind,
        idx,
        no_newline: false,
    })
}

/// A change block being gathered: its removed cells, then its added cells.
#[derive(Default)]
struct Block {
    removed: Vec<Cell>,
    added: Vec<Cell>,
}

impl Block {
    fn flush(&mut self, patch: &ParsedPatch, hunk: usize, out: &mut Vec<SplitRow>) {
        let (removed, added) = (
            std::mem::take(&mut self.removed),
            std::mem::take(&mut self.added),
        );
        let n = removed.len().max(added.len());
        let mut removed = removed.into_iter();
        let mut added = added.into_iter();
        for _ in 0..n {
            let (left, right) = (removed.next(), added.next());
            let marks = match (&left, &right) {
                (Some(l), Some(r)) => changed_words(l.text(patch), r.text(patch)),
                _ => None,
            };
            out.push(SplitRow {
                hunk,
                left,
                right,
                marks,
            });
        }
    }
}

/// The rows of hunk `hunk` of `patch` (none when there is no such hunk).
pub fn hunk_rows(patch: &ParsedPatch, hunk: usize) -> Vec<SplitRow> {
    let Some(h) = patch.hunks.get(hunk) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(h.lines.len());
    let mut block = Block::default();
    // The kind of the last numbered line, for the `\ No newline` marker after it.
    let mut last = None;
    for idx in h.lines.clone() {
        let Some(line) = patch.lines.get(idx) else {
            break;
        };
        match line.kind {
            LineKind::Removed => {
                if !block.added.is_empty() {
                    block.flush(patch, hunk, &mut out);
                }
                block.removed.extend(cell(patch, idx, Side::Left));
            }
            LineKind::Added => block.added.extend(cell(patch, idx, Side::Right)),
            LineKind::Context => {
                block.flush(patch, hunk, &mut out);
                let (left, right) = (cell(patch, idx, Side::Left), cell(patch, idx, Side::Right));
                if left.is_some() || right.is_some() {
                    out.push(SplitRow {
                        hunk,
                        left,
                        right,
                        marks: None,
                    });
                }
            }
            LineKind::NoNewline => {
                let marked = match last {
                    Some(LineKind::Removed) => block.removed.last_mut(),
                    Some(LineKind::Added) => block.added.last_mut(),
                    Some(LineKind::Context) => {
                        if let Some(row) = out.last_mut()
                            && let Some(l) = row.left.as_mut()
                        {
                            l.no_newline = true;
                        }
                        out.last_mut().and_then(|r| r.right.as_mut())
                    }
                    _ => None,
                };
                if let Some(c) = marked {
                    c.no_newline = true;
                }
                continue;
            }
        }
        last = Some(line.kind);
    }
    block.flush(patch, hunk, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::parse;

    fn nums(rows: &[SplitRow]) -> Vec<(Option<u32>, Option<u32>)> {
        rows.iter()
            .map(|r| {
                (
                    r.left.as_ref().map(|c| c.line),
                    r.right.as_ref().map(|c| c.line),
                )
            })
            .collect()
    }

    // Guards the row layout: context on both sides, removed beside added in order, the shorter
    // side padded, numbers from the hunk header.
    #[test]
    fn context_pairs_and_padding() {
        let p = parse("@@ -3,6 +3,5 @@ fn f() {\n a\n-b\n-c\n-d\n+B\n+C\n e\n-f\n+F\n+G\n g");
        let rows = split_rows(&p);
        assert_eq!(
            nums(&rows),
            [
                (Some(3), Some(3)),
                (Some(4), Some(4)),
                (Some(5), Some(5)),
                (Some(6), None),
                (Some(7), Some(6)),
                (Some(8), Some(7)),
                (None, Some(8)),
                (Some(9), Some(9)),
            ]
        );
        let r = &rows[1];
        assert_eq!(r.left.as_ref().unwrap().text(&p), "b");
        assert_eq!(r.right.as_ref().unwrap().text(&p), "B");
        assert_eq!(r.left.as_ref().unwrap().kind, LineKind::Removed);
        assert_eq!(rows[0].left.as_ref().unwrap().kind, LineKind::Context);
        assert_eq!(
            rows[3].addr(Side::Left),
            Some(LineAddr {
                side: Side::Left,
                line: 6
            })
        );
        assert_eq!(rows[3].addr(Side::Right), None, "padded");
        // From a unified line to its row and side, and back through the cell's index.
        assert_eq!(row_of(&rows, 0), Some((0, Side::Right)), "context");
        assert_eq!(
            row_of(&rows, 3),
            Some((3, Side::Left)),
            "the third removed line"
        );
        assert_eq!(
            row_of(&rows, 5),
            Some((2, Side::Right)),
            "the second added line"
        );
        assert_eq!(rows[2].cell(Side::Right).map(|c| c.idx), Some(5));
        assert_eq!(row_of(&rows, 99), None);
    }

    // Guards the word marks on a row: an alike pair carries them, an unlike pair does not.
    #[test]
    fn alike_pairs_carry_word_marks() {
        let p = parse("@@ -1,2 +1,2 @@\n-let a = 1;\n-}\n+let a = 2;\n+    return value;");
        let rows = split_rows(&p);
        let m = rows[0].marks.as_ref().unwrap();
        let cut = |t: &'static str, r: &[std::ops::Range<usize>]| -> Vec<&'static str> {
            r.iter().map(|r| &t[r.clone()]).collect()
        };
        assert_eq!(cut("let a = 1;", &m.old), ["1"]);
        assert_eq!(cut("let a = 2;", &m.new), ["2"]);
        assert_eq!(rows[1].marks, None);
    }

    // Guards `\ No newline`: no row of its own, it marks the cell it follows, on its side only.
    #[test]
    fn no_newline_marks_its_cell() {
        let p = parse(
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file",
        );
        let rows = split_rows(&p);
        assert_eq!(
            nums(&rows),
            [(Some(1), Some(1)), (Some(2), Some(2)), (None, Some(3))]
        );
        assert!(rows[1].left.as_ref().unwrap().no_newline);
        assert!(!rows[1].right.as_ref().unwrap().no_newline);
        assert!(rows[2].right.as_ref().unwrap().no_newline);
        let p = parse("@@ -1 +1 @@\n same\n\\ No newline at end of file");
        let rows = split_rows(&p);
        assert!(rows[0].left.as_ref().unwrap().no_newline);
        assert!(rows[0].right.as_ref().unwrap().no_newline);
    }

    proptest::proptest! {
        // On any diff: each side's cells are that side's numbered lines of the patch, once, in
        // order; every row has a cell; a context row is one line on both sides; word marks only
        // on a removed/added pair.
        #[test]
        fn rows_hold_every_line_once_in_order(
            pieces in proptest::collection::vec(crate::code::expand::tests::piece(), 0..8),
            radius in 0usize..4,
            newline in proptest::prelude::any::<bool>(),
        ) {
            let (_, _, diff) = crate::code::expand::tests::story(&pieces, radius, newline);
            let p = parse(&diff);
            let rows = split_rows(&p);
            for side in [Side::Left, Side::Right] {
                let cells: Vec<(usize, u32)> = rows
                    .iter()
                    .filter_map(|r| r.cell(side).map(|c| (c.idx, c.line)))
                    .collect();
                let want: Vec<(usize, u32)> = p
                    .lines
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| match side {
                        Side::Left => l.old.map(|n| (i, n)),
                        Side::Right => l.new.map(|n| (i, n)),
                    })
                    .collect();
                proptest::prop_assert_eq!(cells, want);
            }
            for r in &rows {
                proptest::prop_assert!(r.left.is_some() || r.right.is_some());
                if let (Some(l), Some(rc)) = (&r.left, &r.right) {
                    if l.kind == LineKind::Context || rc.kind == LineKind::Context {
                        proptest::prop_assert_eq!(l.idx, rc.idx);
                    } else {
                        proptest::prop_assert_eq!((l.kind, rc.kind), (LineKind::Removed, LineKind::Added));
                    }
                } else {
                    proptest::prop_assert!(r.marks.is_none());
                }
            }
        }
    }

    // Guards hunks: each row names its hunk; lines before the first hunk are not rows.
    #[test]
    fn rows_name_their_hunk() {
        let p = parse("junk\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9,2 @@\n x\n+y");
        let rows = split_rows(&p);
        assert_eq!(rows.iter().map(|r| r.hunk).collect::<Vec<_>>(), [0, 1, 1]);
        assert!(hunk_rows(&p, 7).is_empty());
    }
}
