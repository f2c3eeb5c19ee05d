//! The offline fixture: a versioned JSON file with a PR snapshot, optional later steps of its
//! history, and recorded LLM answers. Documented in `docs/fixture-format.md`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::jsonpos::{self, Seg};
use crate::pr::{
    BaseFile, ChangedFile, Comment, Item, LlmRecordings, Origin, PrCoords, PrMeta, Snapshot,
    validate_owner, validate_repo,
};

/// The format tag every fixture carries.
pub const FIXTURE_FORMAT: &str = "pr-shepherd/fixture@1";

/// A fixture file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fixture {
    pub format: String,
    /// Provenance: when and from where the fixture was recorded. Free-form, informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<serde_json::Value>,
    pub pr: PrMeta,
    pub items: Vec<Item>,
    /// Later moments of the PR's history; step K is the snapshot after applying the first K.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// Recorded LLM answers, replayed by the `replay` backend.
    #[serde(default, skip_serializing_if = "LlmRecordings::is_empty")]
    pub llm: LlmRecordings,
    /// Files of the base branch (the repository's review guidance: `AGENTS.md`, …), as recorded
    /// at the base commit; a review reads its guidance from these, never from the head.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_files: Vec<BaseFile>,
    /// Files' texts at commits (the head's, the base's), for the diff's context on demand
    /// offline ([`Fixture::file_at`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_contents: Vec<FileContent>,
    /// What the inbox's dashboard shows of the PR: checks (in full), review decision and
    /// requests, size (`docs/fixture-format.md`).
    #[serde(default, skip_serializing_if = "crate::pr::Dash::is_empty")]
    pub dashboard: crate::pr::Dash,
    #[serde(skip)]
    pub source_path: PathBuf,
}

/// A file's text at a commit (`fileContents`): what GitHub's `object(expression: "SHA:PATH")`
/// answers live.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileContent {
    /// The commit (a full or abbreviated SHA, hex).
    pub sha: String,
    /// The path in the repository at that commit.
    pub path: String,
    pub text: String,
}

/// One moment in the PR's history: a set of changes that happened together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    pub changes: Vec<Change>,
}

/// One change to the PR.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Change {
    /// The body of a comment (conversation or thread comment) or review summary changed.
    #[serde(rename_all = "camelCase")]
    Edit {
        id: String,
        body: String,
        edited_at: DateTime<Utc>,
    },
    /// A new comment at the end of a thread.
    #[serde(rename_all = "camelCase")]
    Reply { thread: String, comment: Comment },
    #[serde(rename_all = "camelCase")]
    Resolve { thread: String },
    #[serde(rename_all = "camelCase")]
    Unresolve { thread: String },
    /// A thread's line went away from the diff.
    #[serde(rename_all = "camelCase")]
    Outdate { thread: String },
    /// A comment, thread (its first comment) or review summary was hidden.
    #[serde(rename_all = "camelCase")]
    Minimize { id: String, reason: String },
    #[serde(rename_all = "camelCase")]
    Unminimize { id: String },
    /// New commits: the head moves, the changed files may change, threads may go outdated.
    #[serde(rename_all = "camelCase")]
    Push {
        head_sha: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_sha: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        files: Option<Vec<ChangedFile>>,
        /// Files whose patch (and counts) changed, by path, applied after `files`; a path not
        /// yet in the list is added as a modified file.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        patches: Vec<PatchChange>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        outdate: Vec<String>,
    },
    /// A new item: a conversation comment, a review, or a new thread.
    #[serde(rename_all = "camelCase")]
    Add { item: Item },
    #[serde(rename_all = "camelCase")]
    Labels {
        #[serde(default)]
        add: Vec<String>,
        #[serde(default)]
        remove: Vec<String>,
    },
}

/// One file's new patch in a `push` step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatchChange {
    pub path: String,
    /// The new patch; absent for a file that now has none (binary, too large).
    #[serde(default)]
    pub patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u32>,
}

/// A `push` step's new patch for one file. Like GitHub, a file marked viewed whose patch
/// changed becomes "dismissed" (changed since you marked it viewed).
fn apply_patch_change(files: &mut Vec<ChangedFile>, c: &PatchChange) {
    let idx = match files.iter().position(|f| f.path == c.path) {
        Some(i) => i,
        None => {
            files.push(ChangedFile::new(&c.path, None));
            files.len() - 1
        }
    };
    let Some(f) = files.get_mut(idx) else {
        return;
    };
    if f.patch != c.patch && f.viewed == crate::pr::ViewedState::Viewed {
        f.viewed = crate::pr::ViewedState::Dismissed;
    }
    f.patch = c.patch.clone();
    if let Some(a) = c.additions {
        f.additions = a;
    }
    if let Some(d) = c.deletions {
        f.deletions = d;
    }
}

/// The `--step` values a fixture of `steps` steps takes, in words.
fn step_range(steps: usize) -> String {
    match steps {
        0 => "it takes only 0, the initial snapshot".to_owned(),
        1 => "0 is the initial snapshot, 1 its step".to_owned(),
        n => format!("0 is the initial snapshot, 1 to {n} its steps"),
    }
}

#[derive(Debug, Error)]
pub enum FixtureError {
    #[error("cannot read fixture `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    // The message is bounded and keeps no value serde quotes (`crate::infile::content_message`):
    // an error about a file's content names the position, not the content.
    #[error("invalid fixture `{}`{}: at `{}`: {}", path.display(), position(*line, *column), crate::infile::bounded(json_path), crate::infile::content_message(message))]
    Invalid {
        path: PathBuf,
        json_path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("fixture `{}` has {} after its initial snapshot; --step {step} is out of range ({})", path.display(), crate::plural::count(*steps, "step"), step_range(*steps))]
    StepOutOfRange {
        path: PathBuf,
        step: usize,
        steps: usize,
    },
    #[error("cannot write fixture `{}`: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn position(line: usize, column: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}:{column}")
    }
}

/// The rest of an open fixture file as a buffered reader, at most one byte past the size limit
/// (so a file that grew past it fails to parse and is then refused by the whole read).
pub(super) fn file_rest(file: std::fs::File) -> impl std::io::Read {
    use std::io::Read as _;
    std::io::BufReader::with_capacity(256 << 10, file.take(crate::infile::FIXTURE_LIMIT + 1))
}

/// The recorded base-branch files that are at commit `base` (a file recorded without a commit is
/// at the fixture's own base, `fixture_base`), each with its commit named.
pub fn base_files_at(files: &[BaseFile], fixture_base: &str, base: &str) -> Vec<BaseFile> {
    files
        .iter()
        .filter(|f| f.is_at(base, fixture_base))
        .map(|f| BaseFile {
            commit: Some(base.to_owned()),
            ..f.clone()
        })
        .collect()
}

/// A semantic problem found after parsing, with the JSON path it concerns.
struct Problem {
    path: Vec<Seg>,
    message: String,
}

fn key(k: &str) -> Seg {
    Seg::Key(k.to_owned())
}

/// Fixture files from this size up are parsed as a stream from the file rather than from its
/// bytes read into memory, which would otherwise sit beside everything they parse into (a
/// 50,000-item fixture is 56 MB): memory matters more than the parse's speed there. Smaller
/// ones (a 10,000-item PR is 11 MB) are read whole, the faster way.
pub(super) const STREAM_FROM: u64 = 24 << 20;

impl Fixture {
    /// Reads, parses and validates a fixture, including every step of its history.
    pub fn load(path: &Path) -> Result<Fixture, FixtureError> {
        let io = |source| FixtureError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = crate::infile::open(path, crate::infile::FIXTURE_LIMIT).map_err(io)?;
        let size = file.metadata().map_or(0, |m| m.len());
        if size >= STREAM_FROM {
            return Fixture::parse_stream(file_rest(file), size, path);
        }
        drop(file);
        Fixture::load_whole(path)
    }

    /// [`Fixture::load`] from the file's bytes read into memory.
    fn load_whole(path: &Path) -> Result<Fixture, FixtureError> {
        let io = |source| FixtureError::Io {
            path: path.to_path_buf(),
            source,
        };
        let buf =
            super::filebuf::FileBytes::read(path, crate::infile::FIXTURE_LIMIT).map_err(io)?;
        Fixture::parse(buf.text().map_err(io)?, path)
    }

    /// Parses and validates a fixture streamed from `reader` (the content of `path`), without
    /// holding its text (see `fixture_stream`). Anything wrong with it is diagnosed by reading the file again, whole,
    /// so the error says exactly what and where, as [`Fixture::parse`] does.
    pub(super) fn parse_stream(
        reader: impl std::io::Read,
        size: u64,
        path: &Path,
    ) -> Result<Fixture, FixtureError> {
        // A thread's comments are held without room to spare (a long list of them is kept).
        let tidy = |item: &mut Item| {
            if let Item::Thread(t) = item {
                t.comments.shrink_to_fit();
            }
        };
        let parsed = super::fixture_stream::split_items::<Item>(reader, size, tidy)
            .and_then(|(rest, items)| {
                let mut f = serde_json::from_slice::<Fixture>(&rest).ok()?;
                f.items = items;
                Some(f)
            })
            .filter(|f| f.format == FIXTURE_FORMAT)
            .map(|mut f| {
                f.source_path = path.to_path_buf();
                f
            })
            .filter(|f| f.validate().is_empty());
        match parsed {
            Some(f) => Ok(f),
            None => Err(match Fixture::load_whole(path) {
                Err(e) => e,
                // Read again, it is fine: it changed in between.
                Ok(_) => FixtureError::Io {
                    path: path.to_path_buf(),
                    source: std::io::Error::other("the file changed while it was read"),
                },
            }),
        }
    }

    /// Parses and validates fixture text; `path` is used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Fixture, FixtureError> {
        let invalid = |json_path: String, line: usize, column: usize, message: String| {
            FixtureError::Invalid {
                path: path.to_path_buf(),
                json_path,
                line,
                column,
                message,
            }
        };

        // Fast path: one pass without path tracking. Only a file that fails (or has another
        // format tag) is looked at again, to say exactly what and where.
        let mut fixture = match serde_json::from_str::<Fixture>(text) {
            Ok(f) if f.format == FIXTURE_FORMAT => f,
            _ => return Err(diagnose(text, path)),
        };
        fixture.source_path = path.to_path_buf();

        if let Some(p) = fixture.validate().into_iter().next() {
            let (line, column) = jsonpos::locate(text, &p.path).unwrap_or((0, 0));
            return Err(invalid(jsonpos::render(&p.path), line, column, p.message));
        }
        Ok(fixture)
    }

    /// The check `fixture check` makes of a file (ids unique across items and thread comments,
    /// owner, repo and number valid, every step applicable), made of this fixture as it is:
    /// `record` runs it before writing, so it never writes a fixture that `fixture check` then
    /// refuses. The error names the JSON path (no line: there is no file yet).
    pub fn check(&self) -> Result<(), FixtureError> {
        match self.validate().into_iter().next() {
            None => Ok(()),
            Some(p) => Err(FixtureError::Invalid {
                path: self.source_path.clone(),
                json_path: jsonpos::render(&p.path),
                line: 0,
                column: 0,
                message: p.message,
            }),
        }
    }

    /// All semantic problems, in document order.
    fn validate(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if let Err(e) = validate_owner(&self.pr.owner) {
            problems.push(Problem {
                path: vec![key("pr"), key("owner")],
                message: first_line(&e.to_string()),
            });
        }
        if let Err(e) = validate_repo(&self.pr.repo) {
            problems.push(Problem {
                path: vec![key("pr"), key("repo")],
                message: first_line(&e.to_string()),
            });
        }
        if self.pr.number == 0 {
            problems.push(Problem {
                path: vec![key("pr"), key("number")],
                message: "a pull request number starts at 1".to_owned(),
            });
        }
        check_file_contents(&self.file_contents, &mut problems);
        let mut ids = HashSet::with_capacity(self.items.len() * 2);
        for (i, item) in self.items.iter().enumerate() {
            let base = vec![key("items"), Seg::Index(i)];
            check_item(item, &base, &mut ids, &mut problems);
        }
        if self.steps.is_empty() {
            return problems;
        }
        // Apply every step on a scratch copy, so a bad step is refused at load time.
        let mut items = self.items.clone();
        let mut pr = self.pr.clone();
        for (s, step) in self.steps.iter().enumerate() {
            for (c, change) in step.changes.iter().enumerate() {
                let base = vec![key("steps"), Seg::Index(s), key("changes"), Seg::Index(c)];
                if let Change::Add { item } = change {
                    let mut item_base = base.clone();
                    item_base.push(key("item"));
                    check_item(item, &item_base, &mut ids, &mut problems);
                }
                if let Change::Reply { comment, .. } = change
                    && !ids.insert(&comment.id)
                {
                    problems.push(Problem {
                        path: [base.clone(), vec![key("comment"), key("id")]].concat(),
                        message: format!("duplicate id `{}`", comment.id),
                    });
                }
                if let Err((field, message)) = apply(&mut pr, &mut items, change) {
                    let mut path = base;
                    path.push(key(field));
                    problems.push(Problem { path, message });
                }
            }
        }
        problems
    }

    /// The recorded text of `path` at commit `sha` (`fileContents`; a recorded SHA may be
    /// abbreviated), if the fixture has it.
    pub fn file_at(&self, sha: &str, path: &str) -> Option<&str> {
        self.file_contents
            .iter()
            .find(|f| f.path == path && same_commit(&f.sha, sha))
            .map(|f| f.text.as_str())
    }

    /// The PR as of step `step` (0 = the initial snapshot).
    pub fn snapshot_at(&self, step: usize) -> Result<Snapshot, FixtureError> {
        if step > self.steps.len() {
            return Err(FixtureError::StepOutOfRange {
                path: self.source_path.clone(),
                step,
                steps: self.steps.len(),
            });
        }
        let mut pr = self.pr.clone();
        let mut items = self.items.clone();
        for change in self.steps[..step].iter().flat_map(|s| &s.changes) {
            // Validated at load time; a failure here would be a bug, reported not panicked.
            apply(&mut pr, &mut items, change).map_err(|(field, message)| {
                FixtureError::Invalid {
                    path: self.source_path.clone(),
                    json_path: format!("steps.{field}"),
                    line: 0,
                    column: 0,
                    message,
                }
            })?;
        }
        Ok(Snapshot {
            pr,
            items,
            incomplete: Vec::new(),
            notes: Vec::new(),
            origin: Origin::Fixture {
                path: self.source_path.clone(),
                step,
                steps: self.steps.len(),
            },
        })
    }

    /// Like [`Fixture::snapshot_at`], but moves the data out instead of copying it.
    pub fn into_snapshot_at(self, step: usize) -> Result<Snapshot, FixtureError> {
        if step == 0 {
            let steps = self.steps.len();
            return Ok(Snapshot {
                pr: self.pr,
                items: self.items,
                incomplete: Vec::new(),
                notes: Vec::new(),
                origin: Origin::Fixture {
                    path: self.source_path,
                    step: 0,
                    steps,
                },
            });
        }
        self.snapshot_at(step)
    }

    /// A fixture holding just this snapshot (what `record` writes).
    pub fn from_snapshot(snapshot: &Snapshot, recorded: Option<serde_json::Value>) -> Fixture {
        Fixture {
            format: FIXTURE_FORMAT.to_owned(),
            recorded,
            pr: snapshot.pr.clone(),
            items: snapshot.items.clone(),
            steps: Vec::new(),
            llm: LlmRecordings::default(),
            base_files: Vec::new(),
            file_contents: Vec::new(),
            dashboard: crate::pr::Dash::default(),
            source_path: PathBuf::new(),
        }
    }

    pub fn to_json_pretty(&self) -> String {
        // Serialising plain data structs with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Writes the fixture atomically (a temporary file [`TEMP_PREFIX`]`XXXXXX` beside it, then
    /// rename). First removes the stale temporary files of that pattern a killed earlier write
    /// left in the same folder (see [`crate::outfile::sweep_stale_temps`]).
    pub fn write(&self, path: &Path) -> Result<(), FixtureError> {
        let mut text = self.to_json_pretty();
        text.push('\n');
        crate::outfile::write_replacing(path, text.as_bytes(), TEMP_PREFIX).map_err(|source| {
            FixtureError::Write {
                path: path.to_path_buf(),
                source,
            }
        })
    }
}

/// The name prefix of the temporary file a fixture is written to before it is renamed into place
/// (`record --out`, `fixture synth --out`): distinct from any other tool's, since it lands in the
/// user's own folder, where only this pattern is ever swept.
pub const TEMP_PREFIX: &str = ".pr-shepherd-tmp-";

/// The PR coordinates in fixture text (the top-level `pr` object's host, owner, repo and
/// number), read without parsing the rest, so work that needs only them can start while the
/// whole file is parsed. Stops at `pr`, which `record` and `synth` write before the items.
/// `None` when they cannot be read this way; the full parse then says what is wrong.
pub fn peek_coords(text: &str) -> Option<PrCoords> {
    use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};

    #[derive(Deserialize)]
    struct Coords {
        #[serde(default)]
        host: Option<String>,
        owner: String,
        repo: String,
        number: u64,
    }

    /// Walks the top-level object until `pr`, keeps its coordinates, then stops the parse
    /// (by failing it: serde has no other way to leave a map early).
    struct UntilPr<'a>(&'a mut Option<PrCoords>);

    impl<'de> Visitor<'de> for UntilPr<'_> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a fixture object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "pr" {
                    let c: Coords = map.next_value()?;
                    *self.0 = Some(PrCoords {
                        host: c.host,
                        owner: c.owner,
                        repo: c.repo,
                        number: c.number,
                    });
                    return Err(A::Error::custom("stop: the coordinates are read"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let _stopped = serde::Deserializer::deserialize_map(&mut de, UntilPr(&mut found));
    found
}

/// Explains why `text` is not a fixture: not JSON, not an object, another format tag, or the
/// JSON path and position of the first value that does not fit.
fn diagnose(text: &str, path: &Path) -> FixtureError {
    let invalid =
        |json_path: String, line: usize, column: usize, message: String| FixtureError::Invalid {
            path: path.to_path_buf(),
            json_path,
            line,
            column,
            message,
        };
    // The format tag first, so a file of another kind gets the right message rather than
    // a complaint about its first unexpected field.
    if !text.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    {
        return invalid(
            ".".to_owned(),
            1,
            1,
            format!("expected a JSON object with \"format\": \"{FIXTURE_FORMAT}\""),
        );
    }
    #[derive(Deserialize)]
    struct Tag {
        format: Option<serde_json::Value>,
    }
    let tag: Tag = match serde_json::from_str(text).map_err(|e| {
        let msg = if e.is_syntax() || e.is_eof() {
            format!("not valid JSON: {e}")
        } else {
            format!("expected a JSON object with \"format\": \"{FIXTURE_FORMAT}\" ({e})")
        };
        invalid(".".to_owned(), e.line(), e.column(), strip_position(&msg))
    }) {
        Ok(t) => t,
        Err(e) => return e,
    };
    match tag.format {
        Some(serde_json::Value::String(f)) if f == FIXTURE_FORMAT => {}
        other => {
            let (line, column) = jsonpos::locate(text, &[key("format")]).unwrap_or((1, 1));
            let found = match other {
                None => "no \"format\" field".to_owned(),
                Some(v) => format!("format {v}"),
            };
            return invalid(
                "format".to_owned(),
                line,
                column,
                format!("{found}; expected \"{FIXTURE_FORMAT}\""),
            );
        }
    }

    let de = &mut serde_json::Deserializer::from_str(text);
    let e = match serde_path_to_error::deserialize::<_, Fixture>(de) {
        Ok(_) => {
            return invalid(
                ".".to_owned(),
                0,
                0,
                "the fixture parses only with path tracking (please report this)".to_owned(),
            );
        }
        Err(e) => e,
    };
    let mut json_path = e.path().to_string();
    let inner = e.into_inner();
    let mut message = strip_position(&inner.to_string());
    // An error inside an item carries the rest of its path in the message.
    if let Some((_, rest)) = message.split_once(crate::pr::INNER_PATH_MARK)
        && let Some((sub, msg)) = rest.split_once(crate::pr::INNER_PATH_MARK)
    {
        if !sub.is_empty() && sub != "." {
            json_path = if sub.starts_with('[') {
                format!("{json_path}{sub}")
            } else {
                format!("{json_path}.{sub}")
            };
        }
        message = msg.to_owned();
    }
    // Prefer the position of the value the path names; serde's own position is where
    // it noticed the problem, often the end of the enclosing object.
    let (line, column) = jsonpos::parse_path(&json_path)
        .and_then(|p| jsonpos::locate(text, &p))
        .unwrap_or((inner.line(), inner.column()));
    invalid(json_path, line, column, message)
}

/// Whether two SHAs name the same commit: equal, or one a prefix (of at least 7 digits) of the
/// other.
fn same_commit(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 7 && long.len() >= short.len() && long[..short.len()].eq_ignore_ascii_case(short)
}

/// `fileContents`: each a SHA of 7 to 40 hex digits, a relative path, at most once per commit.
fn check_file_contents(files: &[FileContent], problems: &mut Vec<Problem>) {
    let mut seen = HashSet::new();
    for (i, f) in files.iter().enumerate() {
        let at = |k: &str| vec![key("fileContents"), Seg::Index(i), key(k)];
        if !(7..=40).contains(&f.sha.len()) || !f.sha.chars().all(|c| c.is_ascii_hexdigit()) {
            problems.push(Problem {
                path: at("sha"),
                message: "a commit SHA is 7 to 40 hex digits".to_owned(),
            });
        }
        if f.path.is_empty() || f.path.starts_with('/') || f.path.split('/').any(|p| p == "..") {
            problems.push(Problem {
                path: at("path"),
                message: "a path in the repository: relative, not empty, no `..`".to_owned(),
            });
        } else if !seen.insert((f.sha.to_ascii_lowercase(), f.path.as_str())) {
            problems.push(Problem {
                path: at("path"),
                message: format!("`{}` is recorded twice at this commit", f.path),
            });
        }
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_owned()
}

/// serde_json appends " at line L column C"; the error carries those separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

fn check_item<'a>(
    item: &'a Item,
    base: &[Seg],
    ids: &mut HashSet<&'a str>,
    problems: &mut Vec<Problem>,
) {
    let at = |rest: &[Seg]| [base, rest].concat();
    if item.id().is_empty() {
        problems.push(Problem {
            path: at(&[key("id")]),
            message: "empty id".to_owned(),
        });
    } else if !ids.insert(item.id()) {
        problems.push(Problem {
            path: at(&[key("id")]),
            message: format!("duplicate id `{}`", item.id()),
        });
    }
    if let Item::Thread(t) = item {
        if t.comments.is_empty() {
            problems.push(Problem {
                path: at(&[key("comments")]),
                message: "a thread needs at least one comment".to_owned(),
            });
        }
        for (j, c) in t.comments.iter().enumerate() {
            if !ids.insert(&c.id) {
                problems.push(Problem {
                    path: at(&[key("comments"), Seg::Index(j), key("id")]),
                    message: format!("duplicate id `{}`", c.id),
                });
            }
        }
    }
}

/// Applies one change. Errors name the field of the change that is wrong.
fn apply(
    pr: &mut PrMeta,
    items: &mut Vec<Item>,
    change: &Change,
) -> Result<(), (&'static str, String)> {
    fn thread_mut<'a>(
        items: &'a mut [Item],
        id: &str,
    ) -> Result<&'a mut crate::pr::Thread, (&'static str, String)> {
        items
            .iter_mut()
            .find_map(|i| match i {
                Item::Thread(t) if t.id == id => Some(t),
                _ => None,
            })
            .ok_or_else(|| ("thread", format!("no review thread with id `{id}`")))
    }
    match change {
        Change::Edit {
            id,
            body,
            edited_at,
        } => {
            let (b, e) = text_mut(items, id)
                .ok_or_else(|| ("id", format!("no comment or review with id `{id}` to edit")))?;
            *b = body.clone();
            *e = Some(*edited_at);
        }
        Change::Reply { thread, comment } => {
            thread_mut(items, thread)?.comments.push(comment.clone());
        }
        Change::Resolve { thread } => thread_mut(items, thread)?.resolved = true,
        Change::Unresolve { thread } => thread_mut(items, thread)?.resolved = false,
        Change::Outdate { thread } => {
            let t = thread_mut(items, thread)?;
            t.outdated = true;
            t.line = None;
        }
        Change::Minimize { id, reason } => {
            let (m, r) = minimize_mut(items, id).ok_or_else(|| {
                (
                    "id",
                    format!("no item or comment with id `{id}` to minimize"),
                )
            })?;
            *m = true;
            *r = Some(reason.clone());
        }
        Change::Unminimize { id } => {
            let (m, r) = minimize_mut(items, id).ok_or_else(|| {
                (
                    "id",
                    format!("no item or comment with id `{id}` to unminimize"),
                )
            })?;
            *m = false;
            *r = None;
        }
        Change::Push {
            head_sha,
            base_sha,
            files,
            patches,
            outdate,
        } => {
            pr.head_sha = head_sha.clone();
            if let Some(b) = base_sha {
                pr.base_sha = b.clone();
            }
            if let Some(f) = files {
                pr.files = f.clone();
            }
            for c in patches {
                apply_patch_change(&mut pr.files, c);
            }
            for id in outdate {
                let t = thread_mut(items, id).map_err(|(_, m)| ("outdate", m))?;
                t.outdated = true;
                t.line = None;
            }
        }
        Change::Add { item } => items.push(item.clone()),
        Change::Labels { add, remove } => {
            pr.labels.retain(|l| !remove.contains(l));
            for l in add {
                if !pr.labels.contains(l) {
                    pr.labels.push(l.clone());
                }
            }
        }
    }
    Ok(())
}

type TextRef<'a> = (&'a mut String, &'a mut Option<DateTime<Utc>>);

fn text_mut<'a>(items: &'a mut [Item], id: &str) -> Option<TextRef<'a>> {
    items.iter_mut().find_map(|i| match i {
        Item::Comment(c) if c.id == id => Some((&mut c.body, &mut c.last_edited_at)),
        Item::Review(r) if r.id == id => Some((&mut r.body, &mut r.last_edited_at)),
        Item::Thread(t) => t
            .comments
            .iter_mut()
            .find(|c| c.id == id)
            .map(|c| (&mut c.body, &mut c.last_edited_at)),
        _ => None,
    })
}

fn minimize_mut<'a>(
    items: &'a mut [Item],
    id: &str,
) -> Option<(&'a mut bool, &'a mut Option<String>)> {
    items.iter_mut().find_map(|i| match i {
        Item::Comment(c) if c.id == id => Some((&mut c.minimized, &mut c.minimized_reason)),
        Item::Review(r) if r.id == id => Some((&mut r.minimized, &mut r.minimized_reason)),
        Item::Thread(t) => {
            let c = if t.id == id {
                t.comments.first_mut()
            } else {
                t.comments.iter_mut().find(|c| c.id == id)
            };
            c.map(|c| (&mut c.minimized, &mut c.minimized_reason))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{
  "format": "pr-shepherd/fixture@1",
  "pr": {
    "owner": "o", "repo": "r", "number": 1, "title": "t",
    "author": {"login": "a", "association": "MEMBER"},
    "baseRef": "main", "headRef": "x", "baseSha": "b", "headSha": "h",
    "url": "https://github.com/o/r/pull/1"
  },
  "items": [
    {"kind": "comment", "id": "IC_1", "author": {"login": "a", "association": "NONE"},
     "createdAt": "2026-01-01T00:00:00Z", "url": "u", "body": "hi"},
    {"kind": "thread", "id": "PRRT_1", "path": "a.rs", "line": 3, "comments": [
      {"id": "PRRC_1", "author": {"login": "b", "association": "OWNER"},
       "createdAt": "2026-01-01T00:00:00Z", "url": "u", "body": "why"}]},
    {"kind": "review", "id": "PRR_1", "author": {"login": "b", "association": "OWNER"},
     "state": "APPROVED", "createdAt": "2026-01-01T00:00:00Z", "url": "u"}
  ],
  "steps": [
    {"changes": [{"op": "reply", "thread": "PRRT_1", "comment":
      {"id": "PRRC_2", "author": {"login": "a", "association": "NONE"},
       "createdAt": "2026-01-02T00:00:00Z", "url": "u", "body": "because"}}]},
    {"changes": [{"op": "minimize", "id": "PRR_1", "reason": "outdated"},
                 {"op": "resolve", "thread": "PRRT_1"}]}
  ]
}"#;

    fn parse(text: &str) -> Result<Fixture, FixtureError> {
        Fixture::parse(text, Path::new("t.json"))
    }

    fn invalid(text: &str) -> (String, usize, usize, String) {
        match parse(text) {
            Err(FixtureError::Invalid {
                json_path,
                line,
                column,
                message,
                ..
            }) => (json_path, line, column, message),
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn good_fixture_and_steps() {
        let f = parse(GOOD).unwrap();
        assert_eq!(f.items.len(), 3);
        let s0 = f.snapshot_at(0).unwrap();
        let s2 = f.snapshot_at(2).unwrap();
        let Item::Thread(t) = &s2.items[1] else {
            panic!("thread")
        };
        assert_eq!(t.comments.len(), 2);
        assert!(t.resolved);
        assert!(s2.items[2].status().minimized);
        assert!(!s0.items[2].status().minimized);
        let err = f.snapshot_at(9).unwrap_err();
        assert!(matches!(err, FixtureError::StepOutOfRange { steps: 2, .. }));
        // In words that are true for 2 steps: 3 snapshots, 0 the initial one.
        let said = err.to_string();
        assert!(
            said.contains("has 2 steps after its initial snapshot; --step 9 is out of range (0 is the initial snapshot, 1 to 2 its steps)"),
            "{said}"
        );
    }

    /// GOOD with `fileContents` set to `files` (JSON).
    fn with_files(files: &str) -> String {
        GOOD.replacen(
            "\"items\": [",
            &format!("\"fileContents\": {files},\n  \"items\": ["),
            1,
        )
    }

    // Guards `fileContents`: read back by commit (full or abbreviated) and path; `fixture check`
    // refuses a bad SHA, a bad path and a file recorded twice at a commit, naming where.
    #[test]
    fn file_contents_are_found_by_commit_and_path_and_checked() {
        let sha = "5f0c6a1d9e2b7c4a8f3e6d1b0a9c8e7f6d5c4b3a";
        let f = parse(&with_files(&format!(
            r#"[{{"sha": "{sha}", "path": "src/a.rs", "text": "fn a() {{}}\n"}},
                {{"sha": "0123abcd", "path": "src/a.rs", "text": "old\n"}}]"#
        )))
        .unwrap();
        assert_eq!(f.file_at(sha, "src/a.rs"), Some("fn a() {}\n"));
        assert_eq!(f.file_at(&sha[..7], "src/a.rs"), Some("fn a() {}\n"));
        assert_eq!(f.file_at("0123abcd99", "src/a.rs"), Some("old\n"));
        assert_eq!(f.file_at(sha, "src/b.rs"), None);
        assert_eq!(
            f.file_at("5f0c", "src/a.rs"),
            None,
            "too short to name a commit"
        );
        let back = parse(&f.to_json_pretty()).unwrap();
        assert_eq!(back.file_contents, f.file_contents);
        for (files, path, says) in [
            (
                r#"[{"sha": "xyz", "path": "a", "text": ""}]"#,
                "fileContents[0].sha",
                "hex",
            ),
            (
                r#"[{"sha": "0123abcd", "path": "/etc/passwd", "text": ""}]"#,
                "fileContents[0].path",
                "relative",
            ),
            (
                r#"[{"sha": "0123abcd", "path": "a/../b", "text": ""}]"#,
                "fileContents[0].path",
                "..",
            ),
            (
                r#"[{"sha": "0123abcd", "path": "a", "text": ""}, {"sha": "0123ABCD", "path": "a", "text": "x"}]"#,
                "fileContents[1].path",
                "twice",
            ),
        ] {
            let (at, _, _, msg) = invalid(&with_files(files));
            assert_eq!(at, path, "{files}: {msg}");
            assert!(msg.contains(says), "{files}: {msg}");
        }
    }

    #[test]
    fn not_json() {
        let (path, line, col, msg) =
            invalid("{\n  \"format\": \"pr-shepherd/fixture@1\",\n  oops\n}");
        assert_eq!(path, ".");
        assert_eq!((line, col), (3, 3));
        assert!(msg.contains("not valid JSON"), "{msg}");
        let (_, _, _, msg) = invalid("");
        assert!(msg.contains("not valid JSON"), "{msg}");
        let (_, _, _, msg) = invalid("[1, 2]");
        assert!(msg.contains("expected a JSON object"), "{msg}");
    }

    #[test]
    fn wrong_format_tag() {
        let (path, line, col, msg) = invalid(&GOOD.replace("fixture@1", "fixture@9"));
        assert_eq!(path, "format");
        assert_eq!((line, col), (2, 13));
        assert!(msg.contains("expected \"pr-shepherd/fixture@1\""), "{msg}");
        let (path, _, _, msg) = invalid("{\"pr\": {}}");
        assert_eq!(path, "format");
        assert!(msg.contains("no \"format\" field"), "{msg}");
    }

    /// Failed before: the error quoted the offending value (`invalid type: string "…"`) and a
    /// wrong format tag whole, so a file given by mistake printed what it held.
    #[test]
    fn errors_name_the_place_not_the_value() {
        let secret = format!("ghp_FixtureToken{}", "x".repeat(900_000));
        let e = parse(&GOOD.replace(r#""line": 3"#, &format!(r#""line": "{secret}""#)))
            .unwrap_err()
            .to_string();
        assert!(
            !e.contains("ghp_FixtureToken") && e.len() < 600,
            "{}",
            &e[..600.min(e.len())]
        );
        assert!(
            e.contains("items[1].line") && e.contains("invalid type: string"),
            "{e}"
        );
        let e = parse(&GOOD.replace("pr-shepherd/fixture@1", &secret))
            .unwrap_err()
            .to_string();
        assert!(e.len() < 600, "{} bytes", e.len());
    }

    #[test]
    fn missing_field_and_wrong_type() {
        let (path, line, _, msg) =
            invalid(&GOOD.replace(r#""url": "u", "body": "why""#, r#""url": "u""#));
        assert_eq!(path, "items[1].comments[0]");
        assert_eq!(line, 13);
        // The value named by the path, not where serde noticed the problem.
        assert!(msg.contains("missing field `body`"), "{msg}");
        let (path, line, _, msg) = invalid(&GOOD.replace(r#""line": 3"#, r#""line": "three""#));
        assert_eq!(path, "items[1].line");
        assert_eq!(line, 12);
        assert!(msg.contains("invalid type"), "{msg}");
        let (path, _, _, msg) =
            invalid(&GOOD.replace(r#""state": "APPROVED""#, r#""state": "LGTM""#));
        assert_eq!(path, "items[2].state");
        let (path, line, col, msg2) =
            invalid(&GOOD.replace(r#""kind": "review""#, r#""kind": "note""#));
        assert_eq!((path.as_str(), line, col), ("items[2].kind", 15, 14));
        assert!(msg2.contains("unknown variant `note`"), "{msg2}");
        assert!(msg.contains("unknown variant `LGTM`"), "{msg}");
    }

    #[test]
    fn duplicate_ids() {
        let (path, line, col, msg) =
            invalid(&GOOD.replace("\"PRR_1\", \"author\"", "\"IC_1\", \"author\""));
        assert_eq!(path, "items[2].id");
        assert_eq!((line, col), (15, 30));
        assert!(msg.contains("duplicate id `IC_1`"), "{msg}");
        let (path, _, _, msg) = invalid(&GOOD.replace("\"PRRC_2\"", "\"PRRC_1\""));
        assert_eq!(path, "steps[0].changes[0].comment.id");
        assert!(msg.contains("duplicate id `PRRC_1`"), "{msg}");
    }

    #[test]
    fn step_with_unknown_id() {
        let (path, line, col, msg) =
            invalid(&GOOD.replace(r#""thread": "PRRT_1"}"#, r#""thread": "PRRT_404"}"#));
        assert_eq!(path, "steps[1].changes[1].thread");
        assert_eq!((line, col), (23, 46));
        assert!(msg.contains("PRRT_404"), "{msg}");
        let (path, _, _, _) =
            invalid(&GOOD.replace(r#""id": "PRR_1", "reason""#, r#""id": "nope", "reason""#));
        assert_eq!(path, "steps[1].changes[0].id");
    }

    #[test]
    fn hostile_names_and_empty_threads() {
        let (path, _, _, _) = invalid(&GOOD.replace(r#""owner": "o""#, r#""owner": "../..""#));
        assert_eq!(path, "pr.owner");
        let (path, _, _, _) = invalid(&GOOD.replace(r#""repo": "r""#, r#""repo": "..""#));
        assert_eq!(path, "pr.repo");
        let (path, _, _, msg) = invalid(&GOOD.replace(
            r#""path": "a.rs", "line": 3, "comments": ["#,
            r#""path": "a.rs", "line": 3, "comments": [], "x": ["#,
        ));
        assert_eq!(path, "items[1].comments");
        assert!(msg.contains("at least one comment"), "{msg}");
    }

    #[test]
    fn error_message_names_file_path_and_position() {
        let err = parse(&GOOD.replace(r#""line": 3"#, r#""line": -3"#)).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("invalid fixture `t.json`:12:64:"),
            "{text}"
        );
        assert!(text.contains("at `items[1].line`"), "{text}");
    }

    #[test]
    fn demo_fixture_is_valid_and_complete() {
        let f = Fixture::parse(crate::source::DEMO_FIXTURE, Path::new("demo")).unwrap();
        assert!(f.items.len() >= 14);
        assert!(f.steps.len() >= 2);
        let statuses: Vec<_> = f.items.iter().map(Item::status).collect();
        assert!(statuses.iter().any(|s| s.outdated && s.resolved));
        assert!(statuses.iter().any(|s| s.outdated && !s.resolved));
        assert!(statuses.iter().any(|s| s.resolved && !s.outdated));
        for reason in [
            "spam",
            "off-topic",
            "outdated",
            "resolved",
            "duplicate",
            "abuse",
        ] {
            assert!(
                statuses
                    .iter()
                    .any(|s| s.minimized_reason.as_deref() == Some(reason)),
                "{reason}"
            );
        }
        let states: Vec<_> = f.items.iter().filter_map(Item::review_state).collect();
        for st in [
            crate::pr::ReviewState::Approved,
            crate::pr::ReviewState::ChangesRequested,
            crate::pr::ReviewState::Commented,
            crate::pr::ReviewState::Dismissed,
        ] {
            assert!(states.contains(&st), "{st:?}");
        }
        // An already-minimized review summary and an empty-body review.
        assert!(
            f.items
                .iter()
                .any(|i| matches!(i, Item::Review(r) if r.minimized))
        );
        assert!(
            f.items
                .iter()
                .any(|i| matches!(i, Item::Review(r) if r.body.is_empty()))
        );
        let changes: Vec<_> = f.steps.iter().flat_map(|s| &s.changes).collect();
        assert!(changes.iter().any(|c| matches!(c, Change::Edit { .. })));
        assert!(changes.iter().any(|c| matches!(c, Change::Reply { .. })));
    }
}
