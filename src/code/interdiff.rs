//! The interdiff: what changed between the patch you saw and the patch now, computed from patch
//! content alone. Each patch is normalized — its hunk headers lose their line numbers (a rebase
//! moves them without changing the change), lines keep their `+`/`-`/` ` prefix — and the two
//! normalized patches are diffed line by line. Two patches that differ only where a rebase put
//! their hunks are the same change: an empty interdiff.

use similar::{Algorithm, ChangeTag, capture_diff_slices_deadline};

/// One line of the interdiff: a line of the normalized patches (`+x`, `-y`, ` z`, `@@ section`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterLine {
    /// In both patches.
    Same(String),
    /// Only in the patch you saw.
    Old(String),
    /// Only in the patch now.
    New(String),
}

impl InterLine {
    pub fn text(&self) -> &str {
        match self {
            InterLine::Same(t) | InterLine::Old(t) | InterLine::New(t) => t,
        }
    }
}

/// The interdiff of two patches, with the few lines of context around each change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interdiff {
    /// Every line of both normalized patches, in order.
    pub lines: Vec<InterLine>,
}

/// Lines of context shown around a change.
pub const CONTEXT: usize = 3;

impl Interdiff {
    /// No change between the two patches.
    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(|l| matches!(l, InterLine::Same(_)))
    }

    /// (lines only in the old patch, lines only in the new one).
    pub fn counts(&self) -> (usize, usize) {
        self.lines.iter().fold((0, 0), |(o, n), l| match l {
            InterLine::Old(_) => (o + 1, n),
            InterLine::New(_) => (o, n + 1),
            InterLine::Same(_) => (o, n),
        })
    }

    /// The changed lines with [`CONTEXT`] lines around them; `None` marks a gap of lines left
    /// out.
    pub fn condensed(&self) -> Vec<Option<&InterLine>> {
        let n = self.lines.len();
        let mut keep = vec![false; n];
        for (i, l) in self.lines.iter().enumerate() {
            if !matches!(l, InterLine::Same(_)) {
                for k in keep
                    .iter_mut()
                    .take((i + CONTEXT + 1).min(n))
                    .skip(i.saturating_sub(CONTEXT))
                {
                    *k = true;
                }
            }
        }
        let mut out = Vec::new();
        let mut gap = false;
        for (i, l) in self.lines.iter().enumerate() {
            if keep[i] {
                if gap {
                    out.push(None);
                }
                gap = false;
                out.push(Some(l));
            } else {
                gap = true;
            }
        }
        out
    }

    /// As text: `  ` same, `- ` only in the patch you saw, `+ ` only in the patch now; gaps as
    /// `  …`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for l in self.condensed() {
            match l {
                None => out.push_str("  …\n"),
                Some(InterLine::Same(t)) => {
                    out.push_str("  ");
                    out.push_str(t);
                    out.push('\n');
                }
                Some(InterLine::Old(t)) => {
                    out.push_str("- ");
                    out.push_str(t);
                    out.push('\n');
                }
                Some(InterLine::New(t)) => {
                    out.push_str("+ ");
                    out.push_str(t);
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// The normalized lines of a patch: hunk headers as `@@ section` (numbers dropped), other lines
/// as they are; `\r\n` as `\n`; a trailing newline ignored.
pub fn normalized(patch: &str) -> Vec<String> {
    let patch = patch.strip_suffix('\n').unwrap_or(patch);
    if patch.is_empty() {
        return Vec::new();
    }
    patch
        .split('\n')
        .map(|l| {
            let l = l.strip_suffix('\r').unwrap_or(l);
            match l.strip_prefix("@@ -").and_then(|r| r.split_once(" @@")) {
                Some((_, section)) => format!("@@{section}"),
                None => l.to_owned(),
            }
        })
        .collect()
}

/// The interdiff of `old` (the patch you saw) and `new` (the patch now).
pub fn interdiff(old: &str, new: &str) -> Interdiff {
    let a = normalized(old);
    let b = normalized(new);
    // Bounded: a pathological pair falls back to a coarser (still correct) diff.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &a, &b, Some(deadline));
    let mut lines = Vec::with_capacity(a.len().max(b.len()));
    for op in ops {
        for change in op.iter_changes(&a, &b) {
            let text = change.value().clone();
            lines.push(match change.tag() {
                ChangeTag::Equal => InterLine::Same(text),
                ChangeTag::Delete => InterLine::Old(text),
                ChangeTag::Insert => InterLine::New(text),
            });
        }
    }
    Interdiff { lines }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SEEN: &str = "@@ -10,4 +10,5 @@ fn f() {\n a\n-b\n+B\n+C\n c";

    #[test]
    fn a_rebase_that_moved_the_hunk_is_no_change() {
        let moved = "@@ -40,4 +52,5 @@ fn f() {\n a\n-b\n+B\n+C\n c\n";
        assert!(interdiff(SEEN, moved).is_empty());
    }

    #[test]
    fn a_changed_line_is_shown_on_both_sides() {
        let now = "@@ -10,4 +10,5 @@ fn f() {\n a\n-b\n+B\n+D\n c";
        let d = interdiff(SEEN, now);
        assert_eq!(d.counts(), (1, 1));
        let text = d.render();
        assert!(text.contains("- +C\n") && text.contains("+ +D\n"), "{text}");
    }

    #[test]
    fn context_is_condensed() {
        let old: String = (0..40).map(|i| format!(" l{i}\n")).collect();
        let new = old.replace(" l20\n", "+l20\n");
        let d = interdiff(&old, &new);
        let c = d.condensed();
        assert_eq!(c.len(), 2 * CONTEXT + 2 + 1);
        assert!(c[0].is_none());
    }

    fn line() -> impl Strategy<Value = String> {
        (prop::sample::select(vec![" ", "+", "-"]), "[a-c]{0,3}")
            .prop_map(|(p, t)| format!("{p}{t}"))
    }

    fn patch() -> impl Strategy<Value = (Vec<String>, u32, u32)> {
        (prop::collection::vec(line(), 0..20), 1u32..500, 1u32..500)
    }

    fn text(lines: &[String], a: u32, c: u32) -> String {
        let mut s = format!("@@ -{a},3 +{c},4 @@ fn x()\n");
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }

    proptest! {
        #[test]
        fn a_patch_against_itself_is_empty((lines, a, c) in patch(), (a2, c2) in (1u32..900, 1u32..900)) {
            // The same change wherever a rebase put it.
            prop_assert!(interdiff(&text(&lines, a, c), &text(&lines, a2, c2)).is_empty());
        }

        #[test]
        fn both_patches_are_recovered((x, a, c) in patch(), (y, a2, c2) in patch()) {
            let (old, new) = (text(&x, a, c), text(&y, a2, c2));
            let d = interdiff(&old, &new);
            let back_old: Vec<&str> = d.lines.iter().filter(|l| !matches!(l, InterLine::New(_))).map(InterLine::text).collect();
            let back_new: Vec<&str> = d.lines.iter().filter(|l| !matches!(l, InterLine::Old(_))).map(InterLine::text).collect();
            let (na, nb) = (normalized(&old), normalized(&new));
            prop_assert_eq!(back_old, na.iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(back_new, nb.iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(d.is_empty(), normalized(&old) == normalized(&new));
        }
    }
}
