//! The six review aspects.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One reviewer's point of view. Each has its own prompt (`prompts/aspects/<name>.md`) and runs
/// as its own LLM call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Aspect {
    Correctness,
    Conventions,
    Security,
    Perf,
    Tests,
    Architecture,
}

impl Aspect {
    /// Every aspect, in the order sections appear in a review.
    pub const ALL: [Aspect; 6] = [
        Aspect::Correctness,
        Aspect::Conventions,
        Aspect::Security,
        Aspect::Perf,
        Aspect::Tests,
        Aspect::Architecture,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Aspect::Correctness => "correctness",
            Aspect::Conventions => "conventions",
            Aspect::Security => "security",
            Aspect::Perf => "perf",
            Aspect::Tests => "tests",
            Aspect::Architecture => "architecture",
        }
    }

    /// The heading used in the composed review.
    pub fn title(self) -> &'static str {
        match self {
            Aspect::Correctness => "Correctness",
            Aspect::Conventions => "Conventions",
            Aspect::Security => "Security",
            Aspect::Perf => "Performance",
            Aspect::Tests => "Tests",
            Aspect::Architecture => "Architecture",
        }
    }
}

impl fmt::Display for Aspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown aspect `{0}` (expected one of: correctness, conventions, security, perf, tests, architecture)"
)]
pub struct UnknownAspect(pub String);

impl FromStr for Aspect {
    type Err = UnknownAspect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Aspect::ALL
            .into_iter()
            .find(|a| a.as_str() == s.trim())
            .ok_or_else(|| UnknownAspect(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Aspect::ALL {
            assert_eq!(a.as_str().parse::<Aspect>(), Ok(a));
            assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{a}\""));
        }
        assert!("style".parse::<Aspect>().is_err());
    }
}
