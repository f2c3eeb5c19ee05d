//! The skip rules' glob engine: `*` (any run within a path segment), `**` (any run across
//! segments; `**/` also matches no directory at all), `?` (one character); a pattern without `/`
//! matches the file name only.
//!
//! Patterns are bounded ([`check_pattern`]: length and wildcard count) and matched as a set of
//! states over the path, so matching is at most pattern length × path length whatever the
//! pattern. Pure: no I/O, no imports from the rest of the crate.

/// The longest skip-rule pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 256;
/// The most wildcards (`*`, `**`, `?`) one skip-rule pattern may hold.
pub const MAX_PATTERN_WILDCARDS: usize = 32;

/// Refuses a skip-rule pattern that is too long or has too many wildcards, naming the limit.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    let chars = pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(format!(
            "is {chars} characters long; at most {MAX_PATTERN_CHARS} are allowed"
        ));
    }
    let wildcards = tokens(pattern)
        .iter()
        .filter(|t| !matches!(t, Tok::Lit(_) | Tok::Slash))
        .count();
    if wildcards > MAX_PATTERN_WILDCARDS {
        return Err(format!(
            "has {wildcards} wildcards; at most {MAX_PATTERN_WILDCARDS} are allowed"
        ));
    }
    Ok(())
}

/// One element of a compiled glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Lit(char),
    /// A literal `/`.
    Slash,
    /// `?`: one character other than `/`.
    One,
    /// `*`: any run without `/`.
    Star,
    /// `**`: any run, `/` included.
    DoubleStar,
    /// `**/`: zero or more whole directories.
    DirStar,
}

fn tokens(pattern: &str) -> Vec<Tok> {
    let p: Vec<char> = pattern.chars().collect();
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' if p.get(i + 1) == Some(&'*') => {
                let mut j = i;
                while p.get(j) == Some(&'*') {
                    j += 1;
                }
                if p.get(j) == Some(&'/') {
                    out.push(Tok::DirStar);
                    j += 1;
                } else {
                    out.push(Tok::DoubleStar);
                }
                i = j;
                continue;
            }
            '*' => out.push(Tok::Star),
            '?' => out.push(Tok::One),
            '/' => out.push(Tok::Slash),
            c => out.push(Tok::Lit(c)),
        }
        i += 1;
    }
    out
}

/// Matches `path` against a small glob: `*` (any run within a segment), `**` (any run including
/// `/`; `**/` also matches no directory at all), `?` (one character). A pattern without `/` is
/// matched against the file name only.
///
/// The pattern runs as a set of states over the path, one character at a time: time is at most
/// pattern length × path length whatever the pattern, so no pattern can make it exponential
/// (the old backtracking matcher took seconds on eight `**/`).
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let target = if pattern.contains('/') {
        path
    } else {
        path.rsplit('/').next().unwrap_or(path)
    };
    let toks = tokens(pattern);
    let n = toks.len();
    // live[k]: the first k tokens can match the path read so far. inside[k] (k a `**/`): it is
    // in the middle of a directory name, where it may not end until the next `/`.
    let mut live = vec![false; n + 1];
    let mut inside = vec![false; n + 1];
    let mut next = vec![false; n + 1];
    let mut next_inside = vec![false; n + 1];
    live[0] = true;
    close(&toks, &mut live);
    for c in target.chars() {
        next.iter_mut().for_each(|b| *b = false);
        next_inside.iter_mut().for_each(|b| *b = false);
        for k in 0..n {
            if inside[k] {
                if c == '/' {
                    next[k] = true;
                } else {
                    next_inside[k] = true;
                }
            }
            if !live[k] {
                continue;
            }
            match toks[k] {
                Tok::Lit(l) if l == c => next[k + 1] = true,
                Tok::Slash if c == '/' => next[k + 1] = true,
                Tok::One if c != '/' => next[k + 1] = true,
                Tok::Star if c != '/' => next[k] = true,
                Tok::DoubleStar => next[k] = true,
                // `**/`: a `/` ends one more whole directory; anything else starts one.
                Tok::DirStar if c == '/' => next[k] = true,
                Tok::DirStar => next_inside[k] = true,
                _ => {}
            }
        }
        close(&toks, &mut next);
        std::mem::swap(&mut live, &mut next);
        std::mem::swap(&mut inside, &mut next_inside);
        if !live.iter().chain(inside.iter()).any(|b| *b) {
            return false;
        }
    }
    live[n]
}

/// Adds the states reachable without reading a character: past a `*`, `**` or `**/` that
/// matches nothing.
fn close(toks: &[Tok], live: &mut [bool]) {
    for k in 0..toks.len() {
        if live[k] && matches!(toks[k], Tok::Star | Tok::DoubleStar | Tok::DirStar) {
            live[k + 1] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*.rs", "src/a/b.rs"));
        assert!(glob_match("src/*.rs", "src/b.rs"));
        assert!(!glob_match("src/*.rs", "src/a/b.rs"));
        assert!(glob_match("src/**/*.rs", "src/a/b.rs"));
        assert!(glob_match("src/**/*.rs", "src/b.rs"));
        assert!(glob_match("web/**", "web/src/x.tsx"));
        assert!(!glob_match("web/**", "docs/x.md"));
        assert!(glob_match("?.md", "a.md"));
        assert!(glob_match("a/**/b", "a/b"));
        assert!(glob_match("a/**/b", "a/x/y/b"));
        assert!(!glob_match("a/**/b", "a/xb"));
        assert!(glob_match("**/*.rs", "a.rs"));
        assert!(glob_match("**", "a/b/c"));
        assert!(!glob_match("?", ""));
        assert!(!glob_match("src/?", "src//"));
        assert!(glob_match("src/***/x", "src/a/x"));
    }

    /// The old backtracking matcher took 3.6 s on eight `**/` and did not finish in a minute on
    /// ten; this one is pattern length × path length.
    #[test]
    fn many_double_stars_match_in_linear_time() {
        let pattern = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS));
        let path = format!("{}y", "a/".repeat(400));
        let start = std::time::Instant::now();
        for _ in 0..10 {
            assert!(!glob_match(&pattern, &path));
            assert!(glob_match(&pattern, &format!("{path}/x")));
        }
        let pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
        assert!(!glob_match(pattern, &"a".repeat(2000)));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "took {:?}",
            start.elapsed()
        );
    }

    #[test]
    fn pattern_complexity_is_capped_with_a_clear_error() {
        let ok = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS));
        assert!(check_pattern(&ok).is_ok());
        let too_many = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS + 1));
        let e = check_pattern(&too_many).unwrap_err();
        assert!(
            e.contains("33 wildcards") && e.contains("at most 32"),
            "{e}"
        );
        let too_long = "a".repeat(MAX_PATTERN_CHARS + 1);
        assert!(
            check_pattern(&too_long)
                .unwrap_err()
                .contains("at most 256")
        );
    }

    proptest::proptest! {
        /// The state-set matcher agrees with a plain backtracking reference on small inputs.
        #[test]
        fn matcher_agrees_with_backtracking(p in "[ab/*?]{0,8}", t in "[ab/]{0,8}") {
            proptest::prop_assert_eq!(glob_match(&p, &t), reference(&p, &t));
        }
    }

    /// Backtracking over the same tokens: exponential, but obviously right; tests only.
    fn reference(pattern: &str, path: &str) -> bool {
        fn rec(p: &[Tok], t: &[char]) -> bool {
            match p.first() {
                None => t.is_empty(),
                Some(Tok::Lit(c)) => t.first() == Some(c) && rec(&p[1..], &t[1..]),
                Some(Tok::Slash) => t.first() == Some(&'/') && rec(&p[1..], &t[1..]),
                Some(Tok::One) => t.first().is_some_and(|c| *c != '/') && rec(&p[1..], &t[1..]),
                Some(Tok::Star) => (0..=t.len())
                    .take_while(|i| *i == 0 || t[i - 1] != '/')
                    .any(|i| rec(&p[1..], &t[i..])),
                Some(Tok::DoubleStar) => (0..=t.len()).any(|i| rec(&p[1..], &t[i..])),
                Some(Tok::DirStar) => (0..=t.len())
                    .filter(|i| *i == 0 || t[i - 1] == '/')
                    .any(|i| rec(&p[1..], &t[i..])),
            }
        }
        let target = if pattern.contains('/') {
            path
        } else {
            path.rsplit('/').next().unwrap_or(path)
        };
        let t: Vec<char> = target.chars().collect();
        rec(&tokens(pattern), &t)
    }
}
