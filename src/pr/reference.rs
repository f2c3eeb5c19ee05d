//! PR references: `OWNER/REPO#N`, a PR URL (github.com or an Enterprise host), or a fixture path.

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The accepted forms, shown whenever a reference is refused.
pub const ACCEPTED_FORMS: &str = "accepted forms:\n  OWNER/REPO#N                          e.g. rust-lang/rust#123\n  https://HOST/OWNER/REPO/pull/N        e.g. https://github.com/rust-lang/rust/pull/123\n                                        (any host, for GitHub Enterprise Server)\n  PATH                                  a fixture file (pr-shepherd/fixture@1 JSON)";

/// Coordinates of a PR on a GitHub host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrCoords {
    /// None for github.com; the web host for Enterprise (`github.example.com`).
    pub host: Option<String>,
    pub owner: String,
    pub repo: String,
    pub number: u64,
}

impl fmt::Display for PrCoords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}#{}", self.owner, self.repo, self.number)
    }
}

impl PrCoords {
    /// Checks owner, repo and number against GitHub's naming rules, which also guarantees that
    /// they are safe as path components of the ledger (no separators, no `.`/`..`, no NUL).
    pub fn validate(&self) -> Result<(), RefError> {
        validate_owner(&self.owner)?;
        validate_repo(&self.repo)?;
        if self.number == 0 {
            return Err(RefError::Invalid(
                "a pull request number starts at 1".to_owned(),
            ));
        }
        Ok(())
    }
}

/// A reference given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrRef {
    GitHub(PrCoords),
    Fixture(PathBuf),
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum RefError {
    #[error("`{input}` is not a pull request reference\n{ACCEPTED_FORMS}")]
    Unrecognised { input: String },
    #[error("{0}\n{ACCEPTED_FORMS}")]
    Invalid(String),
    #[error("fixture file `{0}` does not exist\n{ACCEPTED_FORMS}")]
    MissingFixture(String),
    #[error("fixture `{0}` is not a regular file (a directory or a device cannot be a fixture)")]
    NotRegularFixture(String),
}

/// GitHub user and organisation names: 1–39 ASCII letters, digits and hyphens, not starting with
/// a hyphen.
pub fn validate_owner(owner: &str) -> Result<(), RefError> {
    let ok = !owner.is_empty()
        && owner.len() <= 39
        && !owner.starts_with('-')
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(RefError::Invalid(format!(
            "`{}` is not a valid GitHub owner (1-39 letters, digits or hyphens, not starting with a hyphen)",
            printable(owner)
        )))
    }
}

/// GitHub repository names: 1–100 ASCII letters, digits, `-`, `_` and `.`, but not `.` or `..`.
pub fn validate_repo(repo: &str) -> Result<(), RefError> {
    let ok = !repo.is_empty()
        && repo.len() <= 100
        && repo != "."
        && repo != ".."
        && repo
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(RefError::Invalid(format!(
            "`{}` is not a valid GitHub repository name (1-100 letters, digits, '-', '_' or '.')",
            printable(repo)
        )))
    }
}

fn printable(s: &str) -> String {
    s.chars().flat_map(char::escape_debug).take(120).collect()
}

impl PrRef {
    /// Parses a reference. A string that is neither `OWNER/REPO#N` nor a URL is taken as a fixture
    /// path, which must exist.
    pub fn parse(input: &str) -> Result<PrRef, RefError> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Err(RefError::Unrecognised {
                input: input.to_owned(),
            });
        }
        if let Some(rest) = trimmed
            .strip_prefix("https://")
            .or_else(|| trimmed.strip_prefix("http://"))
        {
            return parse_url(input, rest).map(PrRef::GitHub);
        }
        if let Some((slug, number)) = trimmed.split_once('#') {
            // A file whose name happens to contain '#' still wins when it exists.
            if !Path::new(trimmed).is_file() {
                return parse_slug(input, slug, number).map(PrRef::GitHub);
            }
        }
        let path = Path::new(trimmed);
        if path.is_file() {
            return Ok(PrRef::Fixture(path.to_path_buf()));
        }
        let looks_like_path = trimmed.ends_with(".json")
            || trimmed.starts_with('.')
            || trimmed.starts_with('/')
            || trimmed.contains(std::path::MAIN_SEPARATOR);
        if path.exists() {
            // A directory, a device (`/dev/zero`), a FIFO: never read.
            return Err(RefError::NotRegularFixture(printable(trimmed)));
        }
        if looks_like_path && !trimmed.contains(char::is_whitespace) {
            Err(RefError::MissingFixture(printable(trimmed)))
        } else {
            Err(RefError::Unrecognised {
                input: printable(input),
            })
        }
    }
}

fn parse_number(input: &str, n: &str) -> Result<u64, RefError> {
    match n.parse::<u64>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(RefError::Invalid(format!(
            "`{}`: `{}` is not a pull request number",
            printable(input),
            printable(n)
        ))),
    }
}

fn parse_slug(input: &str, slug: &str, number: &str) -> Result<PrCoords, RefError> {
    let Some((owner, repo)) = slug.split_once('/') else {
        return Err(RefError::Unrecognised {
            input: printable(input),
        });
    };
    let coords = PrCoords {
        host: None,
        owner: owner.to_owned(),
        repo: repo.to_owned(),
        number: parse_number(input, number)?,
    };
    coords.validate()?;
    Ok(coords)
}

fn parse_url(input: &str, rest: &str) -> Result<PrCoords, RefError> {
    // Strip query and fragment: `.../pull/5/files?w=1#diff-…` is still PR 5.
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let mut parts = rest.split('/');
    let host = parts.next().unwrap_or_default().to_ascii_lowercase();
    let segs: Vec<&str> = parts.filter(|s| !s.is_empty()).collect();
    let valid_host = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'));
    if !valid_host || segs.len() < 4 || segs[2] != "pull" {
        return Err(RefError::Invalid(format!(
            "`{}` is not a pull request URL (expected https://HOST/OWNER/REPO/pull/N)",
            printable(input)
        )));
    }
    let coords = PrCoords {
        host: if host == "github.com" || host == "www.github.com" {
            None
        } else {
            Some(host)
        },
        owner: segs[0].to_owned(),
        repo: segs[1].to_owned(),
        number: parse_number(input, segs[3])?,
    };
    coords.validate()?;
    Ok(coords)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gh(owner: &str, repo: &str, number: u64, host: Option<&str>) -> PrRef {
        PrRef::GitHub(PrCoords {
            host: host.map(str::to_owned),
            owner: owner.into(),
            repo: repo.into(),
            number,
        })
    }

    #[test]
    fn slugs_and_urls() {
        assert_eq!(
            PrRef::parse("rust-lang/rust#123"),
            Ok(gh("rust-lang", "rust", 123, None))
        );
        assert_eq!(
            PrRef::parse("https://github.com/octo/hello.world/pull/7"),
            Ok(gh("octo", "hello.world", 7, None))
        );
        assert_eq!(
            PrRef::parse("https://github.com/octo/r/pull/7/files?w=1#diff-1"),
            Ok(gh("octo", "r", 7, None))
        );
        assert_eq!(
            PrRef::parse("https://GHE.Example.com/team/svc/pull/42/"),
            Ok(gh("team", "svc", 42, Some("ghe.example.com")))
        );
    }

    #[test]
    fn refused_with_accepted_forms() {
        for bad in [
            "",
            "nonsense",
            "owner/repo",
            "owner/repo#0",
            "owner/repo#-1",
            "owner/repo#abc",
            "https://github.com/owner/repo/issues/3",
            "https://github.com/owner",
            "../../etc#1",
            "owner/..#1",
            "own er/repo#1",
            "-owner/repo#1",
            "owner/re/po#1",
            "owner/repo\u{1b}[2J#1",
            "./missing-fixture.json",
        ] {
            let err = PrRef::parse(bad).expect_err(bad);
            assert!(err.to_string().contains("accepted forms"), "{bad}: {err}");
        }
    }

    #[test]
    fn existing_file_is_a_fixture() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("pr.json");
        std::fs::write(&p, "{}").expect("write");
        let s = p.to_string_lossy().to_string();
        assert_eq!(PrRef::parse(&s), Ok(PrRef::Fixture(p)));
    }

    #[test]
    fn hostile_names_never_validate() {
        for (o, r) in [
            ("..", "x"),
            ("a/b", "x"),
            ("a", ".."),
            ("a", "."),
            ("a", "x/y"),
            ("a", "x\0"),
            ("a", "x\\y"),
            ("a", ""),
        ] {
            let c = PrCoords {
                host: None,
                owner: o.into(),
                repo: r.into(),
                number: 1,
            };
            assert!(c.validate().is_err(), "{o}/{r}");
        }
    }
}
