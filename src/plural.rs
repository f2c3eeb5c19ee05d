//! The one way headless output counts things: `1 review`, `2 reviews`, `no items` — never
//! `review(s)`, `1 reviews` or `1 files`.
//!
//! ```
//! use pr_shepherd::plural::{count, count_irregular};
//! assert_eq!(count(1, "review"), "1 review");
//! assert_eq!(count(3, "file"), "3 files");
//! assert_eq!(count(2, "PR"), "2 PRs");
//! assert_eq!(count_irregular(2, "dismissal on this PR", "dismissals on this PR"), "2 dismissals on this PR");
//! ```

/// `n` and the noun, the noun made plural (an `s`, or `es` after s, x, z, ch and sh) unless `n`
/// is 1.
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {}", noun_for(n, noun))
}

/// `n` and `one` or `many`, for nouns (or phrases) whose plural is not a plain `s`.
pub fn count_irregular(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The noun alone, singular for 1 and plural otherwise (for `3 of 4 files`).
pub fn noun_for(n: usize, noun: &str) -> String {
    if n == 1 {
        return noun.to_owned();
    }
    let lower = noun.to_ascii_lowercase();
    let es = ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| lower.ends_with(e))
        && !noun.chars().all(|c| c.is_ascii_uppercase());
    format!("{noun}{}", if es { "es" } else { "s" })
}

/// `n` and the noun, or `no <nouns>` for zero (for lines where a bare `0` reads as a defect).
pub fn count_or_no(n: usize, noun: &str) -> String {
    if n == 0 {
        format!("no {}", noun_for(0, noun))
    } else {
        count(n, noun)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(0, "finding"), "0 findings");
        assert_eq!(count(1, "finding"), "1 finding");
        assert_eq!(count(2, "finding"), "2 findings");
        assert_eq!(count(1, "PR"), "1 PR");
        assert_eq!(count(5, "PR"), "5 PRs");
        assert_eq!(count(2, "patch"), "2 patches");
        assert_eq!(count(2, "pass"), "2 passes");
        assert_eq!(count(2, "fix"), "2 fixes");
        assert_eq!(count_or_no(0, "item"), "no items");
        assert_eq!(count_or_no(1, "item"), "1 item");
        assert_eq!(count_irregular(1, "reply", "replies"), "1 reply");
        assert_eq!(count_irregular(3, "reply", "replies"), "3 replies");
        assert_eq!(noun_for(1, "step"), "step");
    }
}
