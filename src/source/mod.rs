//! Where snapshots come from: fixture files (offline replay) and live GitHub.

pub mod fixture;
pub mod github;
mod jsonpos;
pub mod synth;

use std::path::Path;

pub use fixture::{FIXTURE_FORMAT, Fixture, FixtureError};

use crate::pr::{PrCoords, PrRef, RefError};

/// The bundled demo fixture, embedded so an installed binary works anywhere.
pub const DEMO_FIXTURE: &str = include_str!("../../assets/fixtures/demo.json");

/// The path shown for the bundled demo.
pub const DEMO_PATH: &str = "assets/fixtures/demo.json (bundled demo)";

/// What a PR argument names, once resolved.
#[derive(Debug, Clone)]
pub enum Target {
    Fixture(Box<Fixture>),
    Live(PrCoords),
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error(transparent)]
    Ref(#[from] RefError),
    #[error(transparent)]
    Fixture(#[from] FixtureError),
}

/// Resolves a PR argument; `None` is the bundled demo. Fixtures are loaded and validated here.
pub fn resolve(pr: Option<&str>) -> Result<Target, TargetError> {
    match pr {
        None => Ok(Target::Fixture(Box::new(Fixture::parse(
            DEMO_FIXTURE,
            Path::new(DEMO_PATH),
        )?))),
        Some(s) => match PrRef::parse(s)? {
            PrRef::Fixture(path) => Ok(Target::Fixture(Box::new(Fixture::load(&path)?))),
            PrRef::GitHub(coords) => Ok(Target::Live(coords)),
        },
    }
}

impl Target {
    pub fn coords(&self) -> PrCoords {
        match self {
            Target::Fixture(f) => f.pr.coords(),
            Target::Live(c) => c.clone(),
        }
    }
}
