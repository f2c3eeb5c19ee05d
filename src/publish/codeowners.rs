//! Who owns the changed files, by the repository's CODEOWNERS (GitHub's rules: one pattern and
//! its owners per line, `#` comments, the last matching line wins; a pattern is gitignore-like:
//! `/` at the start anchors it to the root, `/` at the end means a directory, a pattern without
//! `/` matches a name anywhere). Pure: the text is read by the caller.

use crate::review::glob::glob_match;

/// Where GitHub looks for the file, in its order.
pub const PLACES: [&str; 3] = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"];

/// Whether one CODEOWNERS pattern matches `path`.
pub fn matches(pattern: &str, path: &str) -> bool {
    if pattern == "*" || pattern == "/*" && !path.contains('/') {
        return true;
    }
    let dir = pattern.ends_with('/');
    let core = pattern.trim_start_matches('/').trim_end_matches('/');
    if core.is_empty() {
        return false;
    }
    let anchored = pattern.starts_with('/') || core.contains('/');
    if anchored {
        // Relative to the root: the path itself (a file), or anything below it.
        (!dir && glob_match(&format!("/{core}"), &format!("/{path}")))
            || glob_match(&format!("/{core}/**"), &format!("/{path}"))
    } else {
        // A name anywhere: the file's name, or any directory on its way.
        let segments: Vec<&str> = path.split('/').collect();
        let (dirs, file) = segments.split_at(segments.len().saturating_sub(1));
        (!dir && file.iter().any(|f| glob_match(core, f)))
            || dirs.iter().any(|d| glob_match(core, d))
    }
}

/// The owners of `paths` (each path's last matching line), each once, in the order first met:
/// `@login` and `@org/team` as written, without the `@`. Emails are left out (GitHub cannot
/// request a review from an email).
pub fn owners(text: &str, paths: &[&str]) -> Vec<String> {
    let rules: Vec<(&str, Vec<&str>)> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let pattern = words.next()?;
            Some((pattern, words.collect()))
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    for path in paths {
        let Some((_, owners)) = rules.iter().rev().find(|(p, _)| matches(p, path)) else {
            continue;
        };
        for o in owners.iter().filter_map(|o| o.strip_prefix('@')) {
            if !out.iter().any(|x| x.eq_ignore_ascii_case(o)) {
                out.push(o.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# Default owners
*       @acme/core
*.rs    @rust-lead   # Rust files
/docs/  @docs-team dev@example.com
src/client/ @maya-chen
build/ @ci-bot
";

    #[test]
    fn the_last_matching_line_owns_a_path() {
        assert_eq!(owners(FILE, &["README.md"]), vec!["acme/core"]);
        assert_eq!(owners(FILE, &["src/lib.rs"]), vec!["rust-lead"]);
        assert_eq!(owners(FILE, &["docs/guide.md"]), vec!["docs-team"]);
        assert_eq!(owners(FILE, &["src/client/retry.rs"]), vec!["maya-chen"]);
        // An unanchored directory matches anywhere; an anchored one only at the root.
        assert_eq!(owners(FILE, &["tools/build/run.sh"]), vec!["ci-bot"]);
        assert_eq!(owners(FILE, &["src/docs/x.md"]), vec!["acme/core"]);
    }

    #[test]
    fn owners_of_several_files_are_named_once_in_order() {
        assert_eq!(
            owners(
                FILE,
                &[
                    "src/lib.rs",
                    "src/client/retry.rs",
                    "src/main.rs",
                    "docs/a.md"
                ]
            ),
            vec!["rust-lead", "maya-chen", "docs-team"]
        );
        assert!(owners("", &["a"]).is_empty());
        assert!(owners("# only a comment\n", &["a"]).is_empty());
    }
}
