//! The diff's search: `/` reads a query in the prompt line; every line of every file's patch
//! of the PR that holds it is a match (ASCII letters folded unless the query has a capital, as
//! smartcase is in vim and less), marked in the line where it is drawn. While a search is on,
//! `n`/`N` go to the next and previous match, from file to file ("3 of 12"); `Esc` ends it,
//! and `n`/`N` go from file to file again.

use crate::code::patch::parse;
use crate::pr::ChangedFile;

/// Where `query` is in `text`, as byte ranges: exactly when the query has a capital, else with
/// ASCII letters folded (what the search counts, and what the diff marks in a line).
pub fn ranges_in(text: &str, query: &str) -> Vec<std::ops::Range<usize>> {
    if query.is_empty() {
        return Vec::new();
    }
    let smart = query.chars().any(char::is_uppercase);
    let (hay, needle) = if smart {
        (text.to_owned(), query.to_owned())
    } else {
        (text.to_ascii_lowercase(), query.to_ascii_lowercase())
    };
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = hay[from..].find(&needle) {
        let start = from + at;
        out.push(start..start + needle.len());
        from = start + needle.len();
    }
    out
}

/// A search over the PR's patches: the query and its matches in the PR's order, as (file
/// index, patch line index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffSearch {
    pub query: String,
    pub matches: Vec<(usize, usize)>,
}

impl DiffSearch {
    /// The matches of `query` in `files`' patches (none for an empty query).
    pub fn new(query: &str, files: &[ChangedFile]) -> DiffSearch {
        let mut matches = Vec::new();
        if !query.is_empty() {
            for (f, file) in files.iter().enumerate() {
                let Some(patch) = file.patch.as_deref() else {
                    continue;
                };
                for (i, line) in parse(patch).lines.iter().enumerate() {
                    if !ranges_in(&line.text, query).is_empty() {
                        matches.push((f, i));
                    }
                }
            }
        }
        DiffSearch {
            query: query.to_owned(),
            matches,
        }
    }

    /// The match at `at` (file, line), if it is one.
    pub fn index_of(&self, at: (usize, usize)) -> Option<usize> {
        self.matches.iter().position(|m| *m == at)
    }

    /// The match after `at` (forward) or before it, around the PR's end: its index.
    pub fn step(&self, at: (usize, usize), forward: bool) -> Option<usize> {
        let n = self.matches.len();
        if n == 0 {
            return None;
        }
        let k = if forward {
            self.matches.iter().position(|m| *m > at).unwrap_or(0)
        } else {
            self.matches.iter().rposition(|m| *m < at).unwrap_or(n - 1)
        };
        Some(k)
    }

    /// The first match at or after `at` in its file, if the file has one there.
    pub fn in_file_from(&self, at: (usize, usize)) -> Option<usize> {
        self.matches
            .iter()
            .position(|m| m.0 == at.0 && m.1 >= at.1)
            .or_else(|| self.matches.iter().position(|m| m.0 == at.0))
    }

    /// "3 of 12" for match `k`; "no match" when there is none.
    pub fn said(&self, k: Option<usize>) -> String {
        let n = self.matches.len();
        let q = crate::sanitize::one_line(&self.query);
        match k {
            _ if n == 0 => format!("/{q}: no match in the PR's patches"),
            Some(k) => format!("/{q}: {} of {n}", k + 1),
            None => format!("/{q}: {n} matches"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, patch: &str) -> ChangedFile {
        ChangedFile::new(path, Some(patch.into()))
    }

    fn files() -> Vec<ChangedFile> {
        vec![
            file(
                "a.rs",
                "@@ -1,2 +1,2 @@\n-let retry = 1;\n+let Retry = 2;\n",
            ),
            file("b.rs", "@@ -0,0 +1,2 @@\n+// no\n+retry();\n"),
        ]
    }

    #[test]
    fn a_lowercase_query_matches_any_case_across_files() {
        let s = DiffSearch::new("retry", &files());
        assert_eq!(s.matches, vec![(0, 0), (0, 1), (1, 1)]);
        assert_eq!(s.said(Some(2)), "/retry: 3 of 3");
    }

    #[test]
    fn a_capital_makes_the_case_count() {
        assert_eq!(DiffSearch::new("Retry", &files()).matches, vec![(0, 1)]);
    }

    #[test]
    fn steps_go_around_the_prs_end_both_ways() {
        let s = DiffSearch::new("retry", &files());
        assert_eq!(s.step((0, 1), true), Some(2));
        assert_eq!(s.step((1, 1), true), Some(0));
        assert_eq!(s.step((0, 0), false), Some(2));
        assert_eq!(s.in_file_from((1, 0)), Some(2));
        assert_eq!(s.index_of((0, 1)), Some(1));
    }

    #[test]
    fn ranges_are_every_occurrence_in_bytes() {
        assert_eq!(ranges_in("retry Retry", "retry"), vec![0..5, 6..11]);
        assert_eq!(ranges_in("retry Retry", "Retry"), vec![6..11]);
        assert_eq!(ranges_in("é retry", "retry"), vec![3..8]);
        assert!(ranges_in("x", "").is_empty());
    }

    #[test]
    fn no_match_says_so() {
        let s = DiffSearch::new("zzz", &files());
        assert_eq!(s.step((0, 0), true), None);
        assert!(s.said(None).contains("no match"));
        assert!(DiffSearch::new("", &files()).matches.is_empty());
    }
}
