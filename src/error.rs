//! The one error type at the CLI edge, with a distinct exit code per kind.

use thiserror::Error;

use crate::ledger::LedgerError;
use crate::pr::RefError;
use crate::source::FixtureError;

#[derive(Debug, Error)]
pub enum CliError {
    /// Bad input or usage: exit code 2.
    #[error("{0}")]
    Usage(String),
    /// A runtime failure (disk, network, terminal): exit code 1.
    #[error("{0}")]
    Runtime(String),
    /// The review was printed but is incomplete (an aspect failed or timed out): exit code 3.
    #[error("{0}")]
    Incomplete(String),
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Runtime(_) => 1,
            CliError::Incomplete(_) => 3,
        }
    }

    pub fn usage(msg: impl Into<String>) -> CliError {
        CliError::Usage(msg.into())
    }

    pub fn runtime(msg: impl Into<String>) -> CliError {
        CliError::Runtime(msg.into())
    }
}

impl From<RefError> for CliError {
    fn from(e: RefError) -> Self {
        CliError::Usage(e.to_string())
    }
}

impl From<FixtureError> for CliError {
    fn from(e: FixtureError) -> Self {
        match &e {
            FixtureError::Io { source, .. }
                if source.kind() != std::io::ErrorKind::NotFound
                    && source.kind() != std::io::ErrorKind::InvalidData =>
            {
                CliError::Runtime(e.to_string())
            }
            FixtureError::Write { .. } => CliError::Runtime(e.to_string()),
            _ => CliError::Usage(e.to_string()),
        }
    }
}

impl From<LedgerError> for CliError {
    fn from(e: LedgerError) -> Self {
        match e {
            LedgerError::BadName(r) => CliError::Usage(r.to_string()),
            other => CliError::Runtime(other.to_string()),
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
        if e.is_bad_reference() {
            CliError::Usage(e.to_string())
        } else {
            CliError::Runtime(e.to_string())
        }
    }
}
