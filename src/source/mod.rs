//! Where snapshots come from: fixture files (offline replay) and live GitHub.

pub mod checkout;
mod filebuf;
pub mod fixture;
mod fixture_stream;
pub mod github;
mod jsonpos;
pub mod synth;

use std::path::Path;

pub use fixture::{FIXTURE_FORMAT, Fixture, FixtureError, base_files_at};

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

/// The fixtures bundled with the binary: (name shown, text). Embedded, so an installed binary
/// has them too. The first is the demo; the inbox without sections shows them all, and while
/// [`Bundled::ByName`] holds, their `OWNER/REPO#N` (and `demo`) name them.
pub const BUNDLED: &[(&str, &str)] = &[
    ("assets/fixtures/demo.json", DEMO_FIXTURE),
    (
        "assets/fixtures/community.json",
        include_str!("../../assets/fixtures/community.json"),
    ),
    (
        "assets/fixtures/history.json",
        include_str!("../../assets/fixtures/history.json"),
    ),
];

/// Whether the bundled PRs' names (`acme/rivet#482`, its URL, `demo`) name the bundled
/// fixtures: yes without GitHub credentials in the environment, or with `--demo`; with
/// credentials they are GitHub's (`demo` is the demo either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bundled {
    ByName,
    GitHubFirst,
}

/// The index in [`BUNDLED`] of the bundled fixture whose PR has these coordinates.
pub fn bundled_index(coords: &PrCoords) -> Option<usize> {
    BUNDLED
        .iter()
        .position(|(_, text)| fixture::peek_coords(text).is_some_and(|c| c == *coords))
}

/// The bundled fixture at `index` in [`BUNDLED`], parsed.
pub fn bundled_fixture(index: usize) -> Result<Fixture, FixtureError> {
    let (name, text) = BUNDLED.get(index).copied().unwrap_or(BUNDLED[0]);
    let shown = if index == 0 {
        DEMO_PATH.to_owned()
    } else {
        format!("{name} (bundled)")
    };
    Fixture::parse(text, Path::new(&shown))
}

/// The bundled fixture a PR argument names, if any: `demo` (unless a file of that name is
/// there), or, with [`Bundled::ByName`], a bundled PR's `OWNER/REPO#N` or URL.
fn bundled_named(s: &str, bundled: Bundled) -> Option<usize> {
    let trimmed = s.trim();
    if trimmed.eq_ignore_ascii_case("demo") && !Path::new(trimmed).exists() {
        return Some(0);
    }
    if bundled != Bundled::ByName {
        return None;
    }
    match PrRef::parse(trimmed) {
        Ok(PrRef::GitHub(coords)) => bundled_index(&coords),
        _ => None,
    }
}

/// Resolves a PR argument; `None` is the bundled demo. Fixtures are loaded and validated here.
/// `bundled` says whether the bundled PRs' names are theirs (see [`Bundled`]).
pub fn resolve(pr: Option<&str>, bundled: Bundled) -> Result<Target, TargetError> {
    match pr {
        None => Ok(Target::Fixture(Box::new(bundled_fixture(0)?))),
        Some(s) => {
            if let Some(i) = bundled_named(s, bundled) {
                return Ok(Target::Fixture(Box::new(bundled_fixture(i)?)));
            }
            match PrRef::parse(s)? {
                PrRef::Fixture(path) => Ok(Target::Fixture(Box::new(Fixture::load(&path)?))),
                PrRef::GitHub(coords) => Ok(Target::Live(coords)),
            }
        }
    }
}

/// Like [`resolve`], and also runs `early` with the PR's coordinates on another thread while a
/// fixture is read and parsed, so work that needs only the coordinates (reading the PR's seen
/// markers) overlaps the parse. Returns the coordinates `early` ran with and its result, or
/// `None` when it did not run (a live PR, or coordinates that could not be read ahead of the
/// parse). The coordinates come from a partial read: the caller must check they are the
/// snapshot's.
pub fn resolve_overlapped<T: Send>(
    pr: Option<&str>,
    bundled: Bundled,
    early: impl FnOnce(&PrCoords) -> T + Send,
) -> Result<(Target, Option<(PrCoords, T)>), TargetError> {
    // A bundled PR other than the demo is parsed whole (it is small); the demo by name goes the
    // way of no argument, its markers read ahead.
    let pr = match pr.and_then(|s| bundled_named(s, bundled)) {
        Some(0) => None,
        Some(i) => return Ok((Target::Fixture(Box::new(bundled_fixture(i)?)), None)),
        None => pr,
    };
    match pr {
        None => {
            let coords = fixture::peek_coords(DEMO_FIXTURE);
            std::thread::scope(|scope| {
                let ahead = coords.map(|c| scope.spawn(move || run_early(c, early)));
                let parsed = Fixture::parse(DEMO_FIXTURE, Path::new(DEMO_PATH));
                finish(parsed, ahead.and_then(|h| h.join().ok()))
            })
        }
        Some(s) => match PrRef::parse(s)? {
            PrRef::GitHub(coords) => Ok((Target::Live(coords), None)),
            PrRef::Fixture(path) => read_overlapped(&path, early),
        },
    }
}

/// How much of a fixture file is read before its coordinates are looked for: `record` and
/// `synth` write `pr` near the top, ahead of the items.
const PEEK_BYTES: u64 = 64 * 1024;

fn read_overlapped<T: Send>(
    path: &Path,
    early: impl FnOnce(&PrCoords) -> T + Send,
) -> Result<(Target, Option<(PrCoords, T)>), TargetError> {
    let io = |source: std::io::Error| FixtureError::Io {
        path: path.to_path_buf(),
        source,
    };
    // A regular file within the fixture limit, refused before it is read (a 3 GB file took 36 s
    // and 6 GB of memory to be refused after reading).
    let mut file = crate::infile::open(path, crate::infile::FIXTURE_LIMIT).map_err(io)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let stream = size >= fixture::STREAM_FROM;
    let mut buf = filebuf::FileBytes::for_size(if stream { PEEK_BYTES } else { size });
    buf.read_from(&mut file, Some(PEEK_BYTES)).map_err(io)?;
    let bytes = buf.bytes();
    let prefix = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        // Cut inside a character: look at the whole ones.
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    let coords = fixture::peek_coords(prefix);
    std::thread::scope(|scope| {
        // The markers are read while the rest of the file is read and parsed.
        let ahead = coords.map(|c| scope.spawn(move || run_early(c, early)));
        let parsed = if stream {
            // A large file: parsed from the prefix read and the rest of the file as it is read
            // (see `fixture::STREAM_FROM`).
            let rest = fixture::file_rest(file);
            Fixture::parse_stream(std::io::Read::chain(buf.bytes(), rest), size, path)
        } else {
            buf.read_rest(&mut file, crate::infile::FIXTURE_LIMIT)
                .map_err(io)?;
            Fixture::parse(buf.text().map_err(io)?, path)
        };
        // A thread that panicked only loses the head start: the caller does the work itself.
        finish(parsed, ahead.and_then(|h| h.join().ok()))
    })
}

fn run_early<T>(coords: PrCoords, early: impl FnOnce(&PrCoords) -> T) -> (PrCoords, T) {
    let value = early(&coords);
    (coords, value)
}

fn finish<T>(
    parsed: Result<Fixture, FixtureError>,
    ahead: Option<(PrCoords, T)>,
) -> Result<(Target, Option<(PrCoords, T)>), TargetError> {
    Ok((Target::Fixture(Box::new(parsed?)), ahead))
}

impl Target {
    pub fn coords(&self) -> PrCoords {
        match self {
            Target::Fixture(f) => f.pr.coords(),
            Target::Live(c) => c.clone(),
        }
    }
}
