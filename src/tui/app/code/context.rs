//! The diff's context on demand (`e`, `E`): the file's texts once read, the gaps between the
//! hunks ([`FileGaps`]) and how much of each is shown, as rows both layouts draw.
//!
//! The texts are read when first asked (a `code::Work::Contents`, never when the diff opens) and
//! kept for the file while it is shown; a refusal (over 1 MiB, binary, missing) is kept too, so
//! asking again says it again without reading. An expanded line is not a line of the diff: the
//! cursor can stand on it, but no comment, suggestion or selection is made there.

use std::sync::Arc;

use ratatui::text::{Line, Span};

use super::note::clean;
use crate::code::expand::{FileGaps, STEP};
use crate::code::patch::ParsedPatch;
use crate::tui::theme::Theme;

/// One expanded line: its gap, its numbers in the old and the new file, its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CtxRow {
    pub gap: usize,
    pub old: u32,
    pub new: u32,
    pub text: String,
}

/// A row of a gap as drawn: an expanded line, or how many lines are still hidden there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum GapRow {
    Line(CtxRow),
    Hidden { count: u32 },
}

/// What the reviewer asked to see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// [`STEP`] more lines above and below hunk `.0` (`e` on one of its lines).
    AroundHunk(usize),
    /// [`STEP`] more lines at both ends of gap `.0` (`e` on an expanded line).
    InGap(usize),
    /// The whole file, or (when it is all shown) the hunks only again (`E`).
    All,
}

/// The file's texts, as far as they are known.
#[derive(Debug, Clone, Default)]
pub(super) enum Texts {
    /// Not asked for.
    #[default]
    Unread,
    /// Being read; `.0` is applied when they arrive.
    Reading(Want),
    /// Read: the texts (base, head) and the gaps made of them.
    Read {
        base: Option<Arc<str>>,
        head: Option<Arc<str>>,
        gaps: Box<FileGaps>,
    },
    /// Not shown, and why (said again when asked again).
    Refused(String),
}

impl Texts {
    /// The gaps, once the texts are read.
    pub fn gaps(&self) -> Option<&FileGaps> {
        match self {
            Texts::Read { gaps, .. } => Some(gaps),
            _ => None,
        }
    }

    /// The texts arrived: the gaps of `parsed` made of them, nothing shown yet.
    pub fn read(parsed: &ParsedPatch, base: Option<Arc<str>>, head: Option<Arc<str>>) -> Texts {
        let gaps = FileGaps::new(&parsed.hunks, base.as_deref(), head.as_deref());
        Texts::Read {
            base,
            head,
            gaps: Box::new(gaps),
        }
    }

    /// Applies `want` to the gaps read: the lines newly shown (none: nothing more to show), or
    /// for `E` on a file shown whole, back to the hunks only (`Err(())`).
    pub fn apply(&mut self, parsed: &ParsedPatch, want: Want) -> Result<u32, ()> {
        let Texts::Read { base, head, gaps } = self else {
            return Ok(0);
        };
        match want {
            Want::AroundHunk(h) => Ok(gaps.expand_above(h, STEP) + gaps.expand_below(h, STEP)),
            Want::InGap(g) => {
                let below = match g.checked_sub(1) {
                    Some(h) => gaps.expand_below(h, STEP),
                    None => 0,
                };
                Ok(below + gaps.expand_above(g, STEP))
            }
            Want::All if gaps.all_shown() && gaps.gaps().iter().any(|g| g.len > 0) => {
                **gaps = FileGaps::new(&parsed.hunks, base.as_deref(), head.as_deref());
                Err(())
            }
            Want::All => Ok(gaps.expand_all()),
        }
    }
}

/// The rows of gap `g` as shown: its first lines, how many are hidden (when any), its last.
pub(super) fn gap_rows(gaps: &FileGaps, g: usize) -> Vec<GapRow> {
    let r = gaps.rows(g);
    let row = |l: &crate::code::expand::ContextLine| {
        GapRow::Line(CtxRow {
            gap: g,
            old: l.old,
            new: l.new,
            text: l.text.to_owned(),
        })
    };
    let mut out: Vec<GapRow> = r.top.iter().map(row).collect();
    if r.hidden > 0 {
        out.push(GapRow::Hidden { count: r.hidden });
    }
    out.extend(r.bottom.iter().map(row));
    out
}

/// `base` (rows with a hunk header at each `hunk_of(row) == Some(h)`) with each gap's rows put
/// before the header of the hunk after it, and the last gap's at the end.
pub(super) fn interleave<R: Clone>(
    base: &[R],
    gaps: Option<&FileGaps>,
    hunk_of: impl Fn(&R) -> Option<usize>,
    to_row: impl Fn(GapRow) -> R,
) -> Vec<R> {
    let Some(gaps) = gaps else {
        return base.to_vec();
    };
    let n = gaps.gaps().len();
    let mut out = Vec::with_capacity(base.len());
    for r in base {
        if let Some(h) = hunk_of(r).filter(|&h| h + 1 < n) {
            out.extend(gap_rows(gaps, h).into_iter().map(&to_row));
        }
        out.push(r.clone());
    }
    if let Some(last) = n.checked_sub(1) {
        out.extend(gap_rows(gaps, last).into_iter().map(&to_row));
    }
    out
}

/// `⋯ 37 lines hidden (e shows 20 more)`, `key` the keys of `e`.
pub(super) fn hidden_line(count: u32, key: &str, indent: usize, theme: &Theme) -> Line<'static> {
    let more = if key.is_empty() {
        String::new()
    } else {
        format!(" ({key} shows {} more)", STEP.min(count))
    };
    Line::styled(
        format!(
            "{}⋯ {} hidden{more}",
            " ".repeat(indent),
            crate::output::plural::count(count as usize, "line")
        ),
        theme.dim,
    )
}

/// The spans of an expanded line's text: as a context line, dim, without a sign.
pub(super) fn text_spans(text: &str, theme: &Theme) -> Vec<Span<'static>> {
    vec![Span::styled(format!(" {}", clean(text)), theme.dim)]
}

/// `line 12 is not a line of the diff: …`, said when a comment is asked on an expanded line.
pub(super) fn not_a_diff_line(line: u32) -> String {
    format!(
        "line {line} is not a line of the diff: GitHub takes review comments only on the diff's lines"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::parse;

    fn file(n: u32) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    // Guards the rows of the gaps: hidden counts where a gap is partly shown, the lines in
    // order before the next hunk's header, the last gap at the end.
    #[test]
    fn gaps_go_before_their_hunks_header() {
        let p = parse("@@ -30,3 +30,3 @@\n line 30\n-line 31\n+LINE 31\n line 32");
        let head = file(100).replace("line 31\n", "LINE 31\n");
        let mut t = Texts::read(&p, Some(Arc::from(file(100))), Some(Arc::from(head)));
        assert_eq!(t.apply(&p, Want::AroundHunk(0)), Ok(40));
        let gaps = t.gaps().unwrap();
        // Base rows: the header, then the four lines.
        let base: Vec<i64> = vec![-1, 0, 1, 2, 3];
        let rows = interleave(
            &base,
            Some(gaps),
            |r| (*r < 0).then_some(0),
            |g| match g {
                GapRow::Line(l) => 1000 + i64::from(l.new),
                GapRow::Hidden { count } => -(10_000 + i64::from(count)),
            },
        );
        assert_eq!(rows.len(), 5 + 2 + 40);
        assert_eq!(rows[0], -10_009, "9 hidden above");
        assert_eq!(rows[1], 1010);
        assert_eq!(rows[20], 1029);
        assert_eq!(rows[21], -1, "then the header");
        assert_eq!(rows[26], 1033);
        assert_eq!(rows[46], -10_048, "48 hidden below");
        assert_eq!(t.apply(&p, Want::All), Ok(57));
        assert_eq!(t.apply(&p, Want::All), Err(()), "again: the hunks only");
        assert_eq!(
            gap_rows(t.gaps().unwrap(), 0),
            vec![GapRow::Hidden { count: 29 }]
        );
        assert_eq!(t.apply(&p, Want::InGap(1)), Ok(40));
    }
}
