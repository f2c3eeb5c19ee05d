//! The one error type at the CLI edge: what went wrong (with its source error, when there is
//! one), the hints that say what to do about it, and a kind that picks the exit code.
//!
//! The message and the hints are kept apart (as jj's command errors do) so that a caller can
//! tell them apart; `Display` writes them as one line, the message first, then each hint after
//! `; ` — the text the CLI has always printed.

use std::error::Error as StdError;
use std::fmt;

use crate::ledger::LedgerError;
use crate::pr::RefError;
use crate::sanitize::sanitize;
use crate::source::FixtureError;

/// What kind of failure, and so which exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input or usage: exit code 2.
    Usage,
    /// A runtime failure (disk, network, terminal): exit code 1.
    Runtime,
    /// The review was printed but is incomplete (an aspect failed or timed out): exit code 3.
    Incomplete,
    /// A decision that would go past what was never shown (or unsent work) without the explicit
    /// waiver: nothing was done, exit code 3.
    PastUnseen,
}

impl ErrorKind {
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Usage => 2,
            ErrorKind::Runtime => 1,
            ErrorKind::Incomplete | ErrorKind::PastUnseen => 3,
        }
    }
}

/// An error at the CLI edge.
#[derive(Debug)]
pub struct CliError {
    kind: ErrorKind,
    /// What went wrong, in words (the source error's own text when it came from one).
    message: String,
    /// The error this one was made from, kept for `Error::source`.
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
    /// What the user can do about it.
    hints: Vec<String>,
}

impl CliError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> CliError {
        CliError {
            kind,
            message: message.into(),
            source: None,
            hints: Vec::new(),
        }
    }

    /// An error of `kind` made from a source error, whose text becomes the message.
    pub fn from_source(kind: ErrorKind, source: impl StdError + Send + Sync + 'static) -> CliError {
        CliError {
            kind,
            message: source.to_string(),
            source: Some(Box::new(source)),
            hints: Vec::new(),
        }
    }

    /// Bad input or usage (exit 2).
    pub fn usage(msg: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::Usage, msg)
    }

    /// A runtime failure (exit 1).
    pub fn runtime(msg: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::Runtime, msg)
    }

    /// The review was printed but is incomplete (exit 3).
    pub fn incomplete(msg: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::Incomplete, msg)
    }

    /// Nothing was done: it would go past what was never shown or is unsent (exit 3).
    pub fn past_unseen(msg: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::PastUnseen, msg)
    }

    /// Adds a hint: what the user can do about it.
    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hints.push(hint.into());
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    pub fn exit_code(&self) -> i32 {
        self.kind.exit_code()
    }

    /// What went wrong, without the hints.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn hints(&self) -> &[String] {
        &self.hints
    }
}

/// The message and hints as written to the terminal: a message that quotes input (a fixture's
/// value, a JSON path, a config key, GitHub's or a provider's error text) goes through the same
/// sanitizer as the console, so no escape sequence, C0/C1 control or bidi override in it reaches
/// the terminal raw.
impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&sanitize(&self.message))?;
        for hint in &self.hints {
            write!(f, "; {}", sanitize(hint))?;
        }
        Ok(())
    }
}

impl StdError for CliError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl From<RefError> for CliError {
    fn from(e: RefError) -> Self {
        CliError::from_source(ErrorKind::Usage, e)
    }
}

impl From<FixtureError> for CliError {
    fn from(e: FixtureError) -> Self {
        let kind = match &e {
            FixtureError::Io { source, .. }
                if !matches!(
                    source.kind(),
                    std::io::ErrorKind::NotFound
                        | std::io::ErrorKind::InvalidData
                        | std::io::ErrorKind::InvalidInput
                ) =>
            {
                ErrorKind::Runtime
            }
            FixtureError::Write { .. } => ErrorKind::Runtime,
            _ => ErrorKind::Usage,
        };
        CliError::from_source(kind, e)
    }
}

impl From<LedgerError> for CliError {
    fn from(e: LedgerError) -> Self {
        match e {
            LedgerError::BadName(r) => r.into(),
            other => CliError::from_source(ErrorKind::Runtime, other),
        }
    }
}

impl From<crate::source::TargetError> for CliError {
    fn from(e: crate::source::TargetError) -> Self {
        match e {
            crate::source::TargetError::Ref(r) => r.into(),
            crate::source::TargetError::Fixture(f) => f.into(),
        }
    }
}

impl From<crate::source::github::GitHubError> for CliError {
    fn from(e: crate::source::github::GitHubError) -> Self {
        let kind = if e.is_bad_reference() {
            ErrorKind::Usage
        } else {
            ErrorKind::Runtime
        };
        CliError::from_source(kind, e)
    }
}

impl From<crate::config::ConfigError> for CliError {
    fn from(e: crate::config::ConfigError) -> Self {
        CliError::from_source(ErrorKind::Usage, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_stay_apart_and_display_as_before() {
        let e = CliError::usage("the console needs a terminal")
            .with_hint("for a plain listing use `pr-shepherd items [PR]`");
        assert_eq!(e.message(), "the console needs a terminal");
        assert_eq!(
            e.hints(),
            ["for a plain listing use `pr-shepherd items [PR]`"]
        );
        assert_eq!(
            e.to_string(),
            "the console needs a terminal; for a plain listing use `pr-shepherd items [PR]`"
        );
        assert_eq!(e.exit_code(), 2);
    }

    /// Failed before it was fixed: a message quoting input printed its escape sequences raw.
    #[test]
    fn quoted_input_is_sanitized_when_displayed() {
        let e = CliError::usage("unknown kind `\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}`")
            .with_hint("see \u{9b}31m");
        let shown = e.to_string();
        assert!(!shown.chars().any(crate::sanitize::is_hazard), "{shown:?}");
        assert!(shown.contains("␛]0;pwned␇␛[2J⟨U+202E⟩"), "{shown}");
        assert!(shown.contains("⟨U+009B⟩31m"), "{shown}");
    }

    #[test]
    fn a_source_error_is_kept() {
        let e: CliError = RefError::Invalid("bad".into()).into();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.source().is_some());
        assert_eq!(e.message(), RefError::Invalid("bad".into()).to_string());
        assert_eq!(CliError::runtime("x").exit_code(), 1);
        assert_eq!(CliError::incomplete("x").exit_code(), 3);
    }
}
