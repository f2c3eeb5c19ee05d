//! Where a file's lines went between two versions of it, the way git says it: the old version's
//! lines matched to the new one's by a minimal line diff (Myers', git's default), never by
//! looking for a line's text elsewhere. A line the diff keeps is where the diff puts it; a line
//! the diff removes or replaces is changed, or gone when nothing took its place.
//!
//! Repeated lines (a table of identical rows, a `}` that closes many blocks) are where a line
//! diff has a choice: the same edit can often be told in several minimal ways, and git picks one
//! by its own tie-breaking. A line is kept only where every minimal diff keeps it: two diffs, one
//! preferring the earliest match and one the latest (the same diff of the reversed versions),
//! must agree, and no diff as short may leave the pair out ([`LineMap::carry`]); otherwise it is
//! [`Carried::Ambiguous`], never moved to one of its copies by a guess.
//!
//! A version is known whole (a file's text at a commit) or in part (the lines a patch shows: the
//! rest [`Line::Unknown`]). Built from two patches on one base, an unknown line is the base line
//! it is, so the two versions agree about the lines neither patch shows.
//!
//! Pure: no I/O. The diff has a time budget ([`BUDGET`]); one that runs over it is only an
//! approximation, and everything it would say is [`Carried::Ambiguous`].

use std::collections::BTreeMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

use super::patch::{LineKind, ParsedPatch, Side};

/// How long one direction of a file's diff may take before it is only an approximation.
pub const BUDGET: Duration = Duration::from_millis(750);

/// One line of a version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Line {
    /// Its text (without its line ending) and whether a newline ends it: git tells the last line
    /// `x` of a file from `x\n`.
    Text { text: String, eol: bool },
    /// A line no patch shows: the base's line `Some(n)` when both versions are on one base (the
    /// same line as the same base line of the other), else `None` (nothing known of it: the diff
    /// matches it to no line, so that unknown lines never outweigh the known ones).
    Unknown(Option<u32>),
}

impl Line {
    fn text(text: &str, eol: bool) -> Line {
        Line::Text {
            text: text.to_owned(),
            eol,
        }
    }
}

/// A version of one side of a file: its lines from line 1, known or not, as far as anything is
/// known of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Version {
    lines: Vec<Line>,
}

impl Version {
    /// A whole file's text: its lines as git splits them (a `\r` before the newline is part of
    /// the line).
    pub fn of_text(text: &str) -> Version {
        let mut lines: Vec<Line> = text.split('\n').map(|l| Line::text(l, true)).collect();
        match lines.last_mut() {
            // The empty rest after the final newline is no line.
            Some(Line::Text { text, .. }) if text.is_empty() => {
                lines.pop();
            }
            Some(Line::Text { eol, .. }) => *eol = false,
            _ => {}
        }
        Version { lines }
    }

    /// The lines `lines` from line `first` on, nothing known of the lines before them (a
    /// comment's own lines and the few around them it remembers).
    pub fn window(first: u32, lines: &[String]) -> Version {
        let before = first.saturating_sub(1) as usize;
        let mut out = vec![Line::Unknown(None); before];
        out.extend(lines.iter().map(|l| Line::text(l, true)));
        Version { lines: out }
    }

    /// What `patch` shows of its `side` (the old file on the left, the new on the right), the
    /// lines between its hunks unknown.
    pub fn of_patch(patch: &ParsedPatch, side: Side) -> Version {
        let known = shown(patch, side);
        let last = known.keys().next_back().copied().unwrap_or(0);
        let lines = (1..=last)
            .map(|n| match known.get(&n) {
                Some((t, eol)) => Line::text(t, *eol),
                None => Line::Unknown(None),
            })
            .collect();
        Version { lines }
    }

    /// The same lines, each as if a newline ended it: for comparing with lines whose ending is
    /// not known (a comment's remembered lines).
    pub fn each_line_ended(mut self) -> Version {
        for l in &mut self.lines {
            if let Line::Text { eol, .. } = l {
                *eol = true;
            }
        }
        self
    }

    /// How many lines it has (as far as anything is known).
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The text of line `n` (1-based), when it is known.
    pub fn text(&self, n: u32) -> Option<&str> {
        match self.lines.get((n as usize).checked_sub(1)?)? {
            Line::Text { text, .. } => Some(text),
            Line::Unknown(_) => None,
        }
    }
}

/// The lines `patch` shows on `side`: number → (text, whether a newline ends it).
fn shown(patch: &ParsedPatch, side: Side) -> BTreeMap<u32, (String, bool)> {
    let mut out: BTreeMap<u32, (String, bool)> = BTreeMap::new();
    let mut last: Option<u32> = None;
    for hunk in &patch.hunks {
        for l in patch.lines.get(hunk.lines.clone()).unwrap_or_default() {
            let n = match (l.kind, side) {
                (LineKind::NoNewline, _) => {
                    // Says it of the line before it, on the sides that line is on.
                    if let Some(n) = last.take()
                        && let Some(e) = out.get_mut(&n)
                    {
                        e.1 = false;
                    }
                    continue;
                }
                (LineKind::Context, Side::Left) | (LineKind::Removed, Side::Left) => l.old,
                (LineKind::Context, Side::Right) | (LineKind::Added, Side::Right) => l.new,
                _ => None,
            };
            last = n;
            if let Some(n) = n {
                out.insert(n, (l.text.clone(), true));
            }
        }
    }
    out
}

/// The line after a hunk's range `start,len` (a range of no lines starts after `start`).
fn after(start: u32, len: u32) -> u32 {
    if len == 0 { start + 1 } else { start + len }
}

/// For the new side of `patch`: (first new line after the hunk, first old line after it), hunk
/// by hunk, so a new line between hunks is the old line at the same distance from the last.
fn gaps(patch: &ParsedPatch) -> Vec<(u32, u32)> {
    patch
        .hunks
        .iter()
        .map(|h| (after(h.new_start, h.new_len), after(h.old_start, h.old_len)))
        .collect()
}

/// The base line that new line `n` of `patch` is, when no hunk shows it.
fn base_line(gaps: &[(u32, u32)], n: u32) -> u32 {
    gaps.iter()
        .rev()
        .find(|(new_after, _)| *new_after <= n)
        .map_or(n, |(new_after, old_after)| n - new_after + old_after)
}

/// The fewest lines of the old file both patches must show, alike, to be taken for patches on
/// one base.
const SHARED_BASE_LINES: usize = 3;

/// Whether two patches are on one base as far as they show: they show some of the same lines of
/// their old file ([`SHARED_BASE_LINES`] at least) and no line of it differently. A base named
/// alike that is not the same file (a base branch whose tip stayed while the merge base moved)
/// shows as lines that disagree, or as no line shown by both: then the two are not taken for one.
pub fn agree_on_base(old: &ParsedPatch, new: &ParsedPatch) -> bool {
    let a = shown(old, Side::Left);
    let mut shared = 0;
    for (n, l) in shown(new, Side::Left) {
        match a.get(&n) {
            Some(m) if *m == l => shared += 1,
            Some(_) => return false,
            None => {}
        }
    }
    shared >= SHARED_BASE_LINES
}

/// The versions of `side` that two patches on the same base show (`old`'s, `new`'s): the base is
/// known as far as either shows it, and a line neither shows is its base line in both, so the
/// two agree about everything between their hunks.
pub fn on_one_base(old: &ParsedPatch, new: &ParsedPatch, side: Side) -> (Version, Version) {
    let mut base = shown(old, Side::Left);
    for (n, l) in shown(new, Side::Left) {
        base.entry(n).or_insert(l);
    }
    let base_end = [old, new]
        .iter()
        .filter_map(|p| p.hunks.last().map(|h| after(h.old_start, h.old_len) - 1))
        .chain(base.keys().next_back().copied())
        .max()
        .unwrap_or(0);
    let base_at = |m: u32| match base.get(&m) {
        Some((t, eol)) => Line::text(t, *eol),
        None => Line::Unknown(Some(m)),
    };
    if side == Side::Left {
        let v = Version {
            lines: (1..=base_end).map(base_at).collect(),
        };
        return (v.clone(), v);
    }
    let head = |p: &ParsedPatch| {
        let known = shown(p, Side::Right);
        let gaps = gaps(p);
        let (new_after, old_after) = gaps.last().copied().unwrap_or((1, 1));
        // As far as the base is known, and every line the patch shows.
        let end = (base_end + 1)
            .saturating_sub(old_after)
            .saturating_add(new_after)
            .saturating_sub(1)
            .max(known.keys().next_back().copied().unwrap_or(0));
        let lines = (1..=end)
            .map(|n| match known.get(&n) {
                Some((t, eol)) => Line::text(t, *eol),
                None => base_at(base_line(&gaps, n)),
            })
            .collect();
        Version { lines }
    };
    (head(old), head(new))
}

/// A line as the diff compares it: a line of which nothing is known is equal to no other line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Tok<'a> {
    Text(&'a str, bool),
    Base(u32),
    /// Unknown: which version (0 old, 1 new) and where, so it is equal to itself only.
    Nothing(u8, usize),
}

/// The tokens of `v`'s lines, the version's unknown lines marked `which`.
fn toks(v: &Version, which: u8) -> Vec<Tok<'_>> {
    v.lines
        .iter()
        .enumerate()
        .map(|(i, l)| match l {
            Line::Text { text, eol } => Tok::Text(text, *eol),
            Line::Unknown(Some(m)) => Tok::Base(*m),
            Line::Unknown(None) => Tok::Nothing(which, i),
        })
        .collect()
}

/// What the diff did to one old line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fate {
    /// Kept as new line (0-based).
    Kept(u32),
    /// Removed, the new lines in its place (0-based; none: it went away).
    Changed(Range<u32>),
}

/// Where each line of an old version is in a new one (see the module's documentation).
#[derive(Debug, Clone)]
pub struct LineMap {
    /// Each old line's fate in the diff preferring early matches, and in the one preferring late.
    early: Vec<Fate>,
    late: Vec<Fate>,
    /// The diff ran over its budget: only an approximation.
    rough: bool,
    /// How many lines the diff keeps: the length of every minimal diff's common lines.
    kept: usize,
    old: Version,
    new: Version,
}

/// An old line as [`LineMap::certain`] compares it: its token and where it is.
#[derive(Debug, Clone, Copy)]
struct Cell<'a> {
    tok: Tok<'a>,
    at: usize,
}

/// A new line that may be any old line with its text but one: the pair `not` (old, new) is
/// never made, so that a diff of these is the shortest diff without that pair.
#[derive(Debug, Clone, Copy)]
struct Unpaired<'a> {
    cell: Cell<'a>,
    not: (usize, usize),
}

impl<'a> PartialEq<Cell<'a>> for Unpaired<'a> {
    fn eq(&self, old: &Cell<'a>) -> bool {
        self.cell.tok == old.tok && (old.at, self.cell.at) != self.not
    }
}

/// Counts the lines a diff keeps.
struct KeptCount(usize);

impl similar::algorithms::DiffHook for KeptCount {
    type Error = std::convert::Infallible;

    fn equal(&mut self, _old: usize, _new: usize, len: usize) -> Result<(), Self::Error> {
        self.0 += len;
        Ok(())
    }
}

/// Where a comment's lines are in the new version (1-based lines, `first <= last`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// The same lines, still together, now `first..=last`.
    Same { first: u32, last: u32 },
    /// Changed (replaced, partly removed, or with lines added among them): what is in their
    /// place now.
    Changed { first: u32, last: u32 },
    /// Minimal diffs disagree about where they went (repeated lines): the place the diff
    /// preferring early matches gives.
    Ambiguous { first: u32, last: u32 },
    /// Removed, with nothing in their place.
    Removed,
}

/// Each old line's fate in `ops` (a diff of versions of `old_len` and `new_len` lines).
fn fates(ops: &[DiffOp], old_len: usize) -> Vec<Fate> {
    let mut out = vec![Fate::Changed(0..0); old_len];
    for op in ops {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    if let Some(f) = out.get_mut(old_index + k) {
                        *f = Fate::Kept((new_index + k) as u32);
                    }
                }
            }
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => {
                for f in out.iter_mut().skip(old_index).take(old_len) {
                    *f = Fate::Changed(new_index as u32..new_index as u32);
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let r = new_index as u32..(new_index + new_len) as u32;
                for f in out.iter_mut().skip(old_index).take(old_len) {
                    *f = Fate::Changed(r.clone());
                }
            }
            DiffOp::Insert { .. } => {}
        }
    }
    out
}

impl LineMap {
    /// The diff of `old` to `new`, both ways.
    pub fn new(old: &Version, new: &Version) -> LineMap {
        let (a, b) = (toks(old, 0), toks(new, 1));
        let started = Instant::now();
        let ops = capture_diff_slices_deadline(Algorithm::Myers, &a, &b, Some(started + BUDGET));
        let early = fates(&ops, old.len());
        let rough_early = started.elapsed() >= BUDGET;
        // The same diff of the reversed versions prefers the latest match; turned back.
        let (mut a, mut b) = (a, b);
        a.reverse();
        b.reverse();
        let started = Instant::now();
        let ops = capture_diff_slices_deadline(Algorithm::Myers, &a, &b, Some(started + BUDGET));
        let rough = rough_early || started.elapsed() >= BUDGET;
        let (n, m) = (old.len() as u32, new.len() as u32);
        let mut late = fates(&ops, old.len());
        late.reverse();
        for f in &mut late {
            *f = match f {
                Fate::Kept(j) => Fate::Kept(m - 1 - *j),
                Fate::Changed(r) => Fate::Changed(m - r.end..m - r.start),
            };
        }
        debug_assert_eq!(late.len() as u32, n);
        LineMap {
            kept: early.iter().filter(|f| matches!(f, Fate::Kept(_))).count(),
            early,
            late,
            rough,
            new: new.clone(),
            old: old.clone(),
        }
    }

    /// Whether every minimal diff keeps old line `i` as new line `j` (0-based): no diff that
    /// does not pair them is as short (`x x` made `x x x`: which `x` is new? `a b` made `b a`:
    /// which one moved?).
    fn certain(&self, i: usize, j: usize) -> bool {
        let (a, b) = (toks(&self.old, 0), toks(&self.new, 1));
        let old: Vec<Cell<'_>> = a
            .iter()
            .zip(0..)
            .map(|(&tok, at)| Cell { tok, at })
            .collect();
        let new: Vec<Unpaired<'_>> = b
            .iter()
            .zip(0..)
            .map(|(&tok, at)| Unpaired {
                cell: Cell { tok, at },
                not: (i, j),
            })
            .collect();
        let mut kept = KeptCount(0);
        let started = Instant::now();
        let _ = similar::algorithms::myers::diff_deadline(
            &mut kept,
            &old[..],
            0..old.len(),
            &new[..],
            0..new.len(),
            Some(started + BUDGET),
        );
        started.elapsed() < BUDGET && kept.0 < self.kept
    }

    /// Whether old line `n` (1-based), a known one, is kept by either diff.
    pub fn keeps(&self, n: u32) -> bool {
        let i = (n as usize).wrapping_sub(1);
        self.old.text(n).is_some()
            && [&self.early, &self.late]
                .iter()
                .any(|f| matches!(f.get(i), Some(Fate::Kept(_))))
    }

    /// Where old lines `first..=last` (1-based) are now; `None` when the old version does not
    /// know them all.
    pub fn carry(&self, first: u32, last: u32) -> Option<Carried> {
        if first == 0 || first > last {
            return None;
        }
        let range = (first - 1) as usize..last as usize;
        if range.clone().any(|i| self.old.text(i as u32 + 1).is_none()) {
            return None;
        }
        let early = self.early.get(range.clone())?;
        let late = self.late.get(range.clone())?;
        let ambiguous = self.rough
            || early.iter().zip(late).any(|pair| match pair {
                (Fate::Changed(_), Fate::Changed(_)) => false,
                (a, b) => a != b,
            })
            || early
                .iter()
                .zip(range)
                .any(|(f, i)| matches!(f, Fate::Kept(j) if !self.certain(i, *j as usize)));
        let place = |fates: &[Fate]| -> Option<(u32, u32)> {
            let mut lo = u32::MAX;
            let mut hi = 0;
            for f in fates {
                let r = match f {
                    Fate::Kept(j) => *j..*j + 1,
                    Fate::Changed(r) => r.clone(),
                };
                if !r.is_empty() {
                    lo = lo.min(r.start);
                    hi = hi.max(r.end);
                }
            }
            (lo < hi).then(|| (lo + 1, hi))
        };
        if ambiguous {
            return Some(match place(early).or_else(|| place(late)) {
                Some((first, last)) => Carried::Ambiguous { first, last },
                None => Carried::Removed,
            });
        }
        let kept: Option<Vec<u32>> = early
            .iter()
            .map(|f| match f {
                Fate::Kept(j) => Some(*j),
                Fate::Changed(_) => None,
            })
            .collect();
        if let Some(kept) = kept
            && kept.windows(2).all(|w| w[1] == w[0] + 1)
            && let (Some(a), Some(b)) = (kept.first(), kept.last())
        {
            return Some(Carried::Same {
                first: a + 1,
                last: b + 1,
            });
        }
        Some(match place(early) {
            Some((first, last)) => Carried::Changed { first, last },
            None => Carried::Removed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::parse;
    use proptest::prelude::*;

    fn v(lines: &[&str]) -> Version {
        Version {
            lines: lines.iter().map(|l| Line::text(l, true)).collect(),
        }
    }

    #[test]
    fn a_text_is_split_as_git_splits_it() {
        let t = Version::of_text("a\r\nb\n\nc");
        assert_eq!(t.len(), 4);
        assert_eq!(t.text(1), Some("a\r"));
        assert_eq!(t.text(3), Some(""));
        assert_eq!(t.lines[3], Line::text("c", false));
        assert_eq!(Version::of_text("a\n").len(), 1);
        assert!(Version::of_text("").is_empty());
    }

    #[test]
    fn identical_rows_move_with_a_header_added_above_them() {
        let row = "0x00, 0x00, 0x00, 0x00,";
        let mut old = vec!["static T: [u8; 200] = ["];
        old.extend(std::iter::repeat_n(row, 50));
        old.push("];");
        let mut new = vec!["// 1", "// 2", "// 3", "// 4", "// 5"];
        new.extend(old.iter().copied());
        let map = LineMap::new(&v(&old), &v(&new));
        for n in 2..=51 {
            assert_eq!(
                map.carry(n, n),
                Some(Carried::Same {
                    first: n + 5,
                    last: n + 5
                })
            );
        }
        assert_eq!(map.carry(3, 6), Some(Carried::Same { first: 8, last: 11 }));
    }

    #[test]
    fn a_removed_line_is_not_moved_to_its_copy() {
        let old = v(&[
            "fn f() {",
            "    x += 1;",
            "    y();",
            "}",
            "fn g() {",
            "    x += 1;",
            "}",
        ]);
        let new = v(&["fn f() {", "    y();", "}", "fn g() {", "    x += 1;", "}"]);
        let map = LineMap::new(&old, &new);
        assert_eq!(map.carry(2, 2), Some(Carried::Removed));
        assert_eq!(map.carry(6, 6), Some(Carried::Same { first: 5, last: 5 }));
        assert_eq!(
            map.carry(1, 3),
            Some(Carried::Changed { first: 1, last: 2 })
        );
    }

    #[test]
    fn a_row_added_among_identical_rows_leaves_them_ambiguous() {
        let old = v(&["[", "0,", "0,", "0,", "]"]);
        let new = v(&["[", "0,", "0,", "0,", "0,", "]"]);
        let map = LineMap::new(&old, &new);
        for n in 2..=4 {
            assert!(
                matches!(map.carry(n, n), Some(Carried::Ambiguous { .. })),
                "{n}: {:?}",
                map.carry(n, n)
            );
        }
        assert_eq!(map.carry(1, 1), Some(Carried::Same { first: 1, last: 1 }));
        assert_eq!(map.carry(5, 5), Some(Carried::Same { first: 6, last: 6 }));
    }

    #[test]
    fn a_line_a_copy_of_it_was_added_next_to_is_ambiguous_whatever_both_diffs_say() {
        // Nothing known above `break`: both diffs match the lines below first, and agree that
        // the old `break` is the second one; a line could as well have been added after it.
        let w = |l: &[&str]| l.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let old = Version::window(16, &w(&["break", "a", "b"]));
        let new = Version::window(15, &w(&["}", "break", "break", "a", "b"]));
        let map = LineMap::new(&old, &new);
        assert!(
            matches!(map.carry(16, 16), Some(Carried::Ambiguous { .. })),
            "{:?}",
            map.carry(16, 16)
        );
        assert_eq!(
            map.carry(17, 18),
            Some(Carried::Same {
                first: 18,
                last: 19
            })
        );
        // Removed: likewise, which copy went is not certain; neither is kept by a guess.
        let map = LineMap::new(&new, &old);
        for n in [16, 17] {
            assert!(
                !matches!(map.carry(n, n), Some(Carried::Same { .. })),
                "{n}: {:?}",
                map.carry(n, n)
            );
        }
        assert!(matches!(map.carry(15, 15), Some(Carried::Changed { .. })));
    }

    #[test]
    fn a_changed_line_is_what_took_its_place_and_a_line_at_the_end_knows_its_newline() {
        let map = LineMap::new(&v(&["a", "b", "c"]), &v(&["a", "B", "B2", "c"]));
        assert_eq!(
            map.carry(2, 2),
            Some(Carried::Changed { first: 2, last: 3 })
        );
        assert_eq!(
            map.carry(1, 3),
            Some(Carried::Changed { first: 1, last: 4 })
        );
        // Lines added among a range's lines: changed, though each of them is kept.
        let map = LineMap::new(&v(&["a", "b", "c"]), &v(&["a", "x", "b", "c"]));
        assert_eq!(
            map.carry(1, 2),
            Some(Carried::Changed { first: 1, last: 3 })
        );
        assert_eq!(map.carry(2, 3), Some(Carried::Same { first: 3, last: 4 }));
        // `c` without its newline, then with one and a line after it: git says changed.
        let map = LineMap::new(&Version::of_text("a\nc"), &Version::of_text("a\nc\nd\n"));
        assert_eq!(
            map.carry(2, 2),
            Some(Carried::Changed { first: 2, last: 3 })
        );
    }

    #[test]
    fn unknown_lines_are_never_carried() {
        let map = LineMap::new(&Version::window(3, &["x".to_owned()]), &v(&["x"]));
        assert_eq!(map.carry(1, 1), None);
        assert_eq!(map.carry(3, 3), Some(Carried::Same { first: 1, last: 1 }));
        assert_eq!(map.carry(3, 4), None);
    }

    #[test]
    fn unknown_lines_never_outweigh_the_lines_known() {
        // Seven known lines below 11 unknown ones; then a longer hunk above them and unknown
        // lines below: the known lines are matched, not the unknown ones to each other.
        let mut old: Vec<String> = vec!["a".to_owned()];
        old.extend((1..=7).map(|i| format!("k{i}")));
        let old = Version::window(12, &old);
        let mut new = Version::window(3, &(1..=9).map(|i| format!("n{i}")).collect::<Vec<_>>());
        new.lines
            .extend((1..=7).map(|i| Line::text(&format!("k{i}"), true)));
        new.lines
            .extend(std::iter::repeat_n(Line::Unknown(None), 10));
        new.lines.push(Line::text("z", true));
        let map = LineMap::new(&old, &new);
        assert_eq!(
            map.carry(13, 13),
            Some(Carried::Same {
                first: 12,
                last: 12
            })
        );
    }

    #[test]
    fn two_patches_on_one_base_agree_about_the_lines_between_their_hunks() {
        // Base: l1..l20. Old head: l5 changed. New head: l5 as it was, l15 changed, a line
        // added after l2.
        let old = parse("@@ -4,3 +4,3 @@\n l4\n-l5\n+L5\n l6");
        let new =
            parse("@@ -2,2 +2,3 @@\n l2\n+new\n l3\n@@ -14,3 +15,3 @@\n l14\n-l15\n+L15\n l16");
        let (a, b) = on_one_base(&old, &new, Side::Right);
        // The old head's line 6 is base line 6, the new head's line 7.
        assert_eq!(a.text(6), Some("l6"));
        assert_eq!(b.text(7), Some("l6"), "from the old patch");
        assert_eq!(b.text(8), None, "no patch shows it");
        assert_eq!(b.lines[7], Line::Unknown(Some(7)));
        assert_eq!(
            a.lines[14],
            Line::text("l15", true),
            "from the new patch's old side"
        );
        assert_eq!(a.len(), 16);
        assert_eq!(b.len(), 17);
        let map = LineMap::new(&a, &b);
        assert_eq!(
            map.carry(5, 5),
            Some(Carried::Changed { first: 6, last: 6 })
        );
        assert_eq!(map.carry(6, 6), Some(Carried::Same { first: 7, last: 7 }));
        assert!(!agree_on_base(&old, &new), "no base line shown by both");
        let near = parse("@@ -3,4 +3,4 @@\n l3\n l4\n l5\n-l6\n+L6");
        assert!(
            agree_on_base(&old, &near),
            "lines 4 to 6 shown alike by both"
        );
        let moved = parse("@@ -5,3 +5,3 @@\n l4\n-l5\n+L5\n l6");
        assert!(
            !agree_on_base(&old, &moved),
            "its old lines moved: another base"
        );
        assert!(
            !agree_on_base(&old, &parse("@@ -30 +30 @@\n-x\n+y")),
            "nothing shared"
        );
        // The old side on one base is the same file.
        let (l, r) = on_one_base(&old, &new, Side::Left);
        assert_eq!(l, r);
        // A patch alone: what it shows, nothing between.
        let shown = Version::of_patch(&new, Side::Right);
        assert_eq!(shown.text(3), Some("new"));
        assert_eq!(shown.text(5), None);
        assert_eq!(shown.len(), 17);
        // `\ No newline` belongs to the line before it.
        let p = parse("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a");
        assert_eq!(
            Version::of_patch(&p, Side::Left).lines[0],
            Line::text("a", false)
        );
        assert_eq!(
            Version::of_patch(&p, Side::Right).lines[0],
            Line::text("a", true)
        );
    }

    /// Brute force on small versions: `f[i][j]` = LCS(a[..i], b[..j]) and `g[i][j]` =
    /// LCS(a[i..], b[j..]).
    fn lcs_tables(a: &[u8], b: &[u8]) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let (n, m) = (a.len(), b.len());
        let mut f = vec![vec![0; m + 1]; n + 1];
        for i in 0..n {
            for j in 0..m {
                f[i + 1][j + 1] = if a[i] == b[j] {
                    f[i][j] + 1
                } else {
                    f[i][j + 1].max(f[i + 1][j])
                };
            }
        }
        let mut g = vec![vec![0; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                g[i][j] = if a[i] == b[j] {
                    g[i + 1][j + 1] + 1
                } else {
                    g[i + 1][j].max(g[i][j + 1])
                };
            }
        }
        (f, g)
    }

    fn edited() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
        // Few distinct lines, so that lines repeat; the new version by edits of the old.
        (
            proptest::collection::vec(0u8..4, 0..14),
            proptest::collection::vec((0usize..16, 0u8..3, 0u8..5), 0..6),
        )
            .prop_map(|(old, edits)| {
                let mut new = old.clone();
                for (at, what, line) in edits {
                    let at = at.min(new.len());
                    match what {
                        0 => new.insert(at, line),
                        1 if at < new.len() => {
                            new.remove(at);
                        }
                        _ if at < new.len() => new[at] = line,
                        _ => new.push(line),
                    }
                }
                (old, new)
            })
    }

    /// A base of numbered lines (some repeated) and a head made from it by edits.
    fn base_and_heads() -> impl Strategy<Value = (Vec<String>, Vec<String>, Vec<String>)> {
        let edits = || proptest::collection::vec((0usize..40, 0u8..3, 0u8..4), 0..5);
        (proptest::collection::vec(0u8..6, 0..36), edits(), edits()).prop_map(|(base, e1, e2)| {
            let base: Vec<String> = base.iter().map(|b| format!("b{b}")).collect();
            let apply = |edits: Vec<(usize, u8, u8)>| {
                let mut v = base.clone();
                for (at, what, line) in edits {
                    let at = at.min(v.len());
                    match what {
                        0 => v.insert(at, format!("n{line}")),
                        1 if at < v.len() => {
                            v.remove(at);
                        }
                        _ if at < v.len() => v[at] = format!("c{line}"),
                        _ => v.push(format!("n{line}")),
                    }
                }
                v
            };
            (base.clone(), apply(e1), apply(e2))
        })
    }

    /// `lines` as a file's text, each ended by a newline.
    fn file(lines: &[String]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// A unified patch of `a` to `b` with three lines of context, hunks only (GitHub's `patch`).
    fn patch_of(a: &[String], b: &[String]) -> ParsedPatch {
        let (a, b) = (file(a), file(b));
        let diff = similar::TextDiff::from_lines(&a, &b);
        let text = diff.unified_diff().context_radius(3).to_string();
        parse(text.trim_end_matches('\n'))
    }

    proptest! {
        // Guards the mapping against a line-level oracle: every minimal diff of the two versions
        // (all longest common subsequences, by brute force). A line every one of them keeps at
        // one place is carried there, never called ambiguous, and a line carried unchanged is
        // one of those; a line no minimal diff keeps is never kept.
        #[test]
        fn carrying_agrees_with_every_minimal_diff((old, new) in edited()) {
            let text = |x: &[u8]| -> Vec<String> { x.iter().map(|b| format!("line {b}")).collect() };
            let (a, b) = (text(&old), text(&new));
            let va = Version { lines: a.iter().map(|l| Line::text(l, true)).collect() };
            let vb = Version { lines: b.iter().map(|l| Line::text(l, true)).collect() };
            let map = LineMap::new(&va, &vb);
            let (f, g) = lcs_tables(&old, &new);
            let total = f[old.len()][new.len()];
            for i in 0..old.len() {
                // Minimal diffs keeping line i as new line j, and whether one drops it.
                let kept_at: Vec<usize> = (0..new.len())
                    .filter(|&j| old[i] == new[j] && f[i][j] + 1 + g[i + 1][j + 1] == total)
                    .collect();
                let dropped = (0..=new.len()).any(|j| f[i][j] + g[i + 1][j] == total);
                let n = i as u32 + 1;
                let got = map.carry(n, n);
                if kept_at.len() == 1 && !dropped {
                    let j = kept_at[0] as u32 + 1;
                    prop_assert_eq!(got, Some(Carried::Same { first: j, last: j }), "line {}", n);
                }
                if let Some(Carried::Same { first, .. }) = got {
                    prop_assert!(kept_at.len() == 1 && !dropped, "line {} → {}: not certain", n, first);
                    prop_assert!(kept_at.contains(&(first as usize - 1)), "line {} → {}", n, first);
                    prop_assert_eq!(&a[i], &b[first as usize - 1]);
                }
                if kept_at.is_empty() {
                    prop_assert!(
                        matches!(got, Some(Carried::Changed { .. } | Carried::Removed)),
                        "line {}: {:?}", n, got
                    );
                }
            }
        }
    }

    proptest! {
        // Guards the versions two patches on one base show: every line they know is the head's
        // line there, and every unknown one is the base line it says, in both heads.
        #[test]
        fn two_patches_on_one_base_know_only_true_lines((base, h1, h2) in base_and_heads()) {
            let (p1, p2) = (patch_of(&base, &h1), patch_of(&base, &h2));
            for side in [Side::Left, Side::Right] {
                let (a, b) = on_one_base(&p1, &p2, side);
                let (t1, t2) = match side {
                    Side::Left => (&base, &base),
                    Side::Right => (&h1, &h2),
                };
                for (v, t) in [(&a, t1), (&b, t2)] {
                    prop_assert!(v.len() <= t.len(), "{} lines of {}", v.len(), t.len());
                    for (i, l) in v.lines.iter().enumerate() {
                        match l {
                            Line::Text { text, .. } => prop_assert_eq!(text, &t[i]),
                            Line::Unknown(Some(m)) => {
                                prop_assert_eq!(&base[*m as usize - 1], &t[i]);
                            }
                            Line::Unknown(None) => prop_assert!(false, "no base line at {}", i + 1),
                        }
                    }
                }
            }
        }
    }
}
