//! One file's text at a commit, for the diff's context on demand (`e`/`E`): read only when asked,
//! bounded, and cached by blob id so the same blob is read once.
//!
//! - Live: one GraphQL request, `object(expression: "SHA:PATH") { ... on Blob { oid byteSize
//!   isBinary isTruncated text } }` (`queries/file_contents.graphql`), through the client's
//!   retries and rate-limit waits, as `base_files.rs` reads the review's guidance.
//! - Refused: a file over [`MAX_SHOWN_FILE_BYTES`] ("… is 3.2 MiB; the console shows files up to
//!   1 MiB"), a binary file, a text GitHub cut short, a path that is not a file at that commit.
//! - [`BlobCache`]: texts by blob id (`oid`), at most [`DEFAULT_CACHE_BYTES`] in all (the oldest
//!   go first), and which blob — or which refusal — each `(commit, path)` was, so a second read
//!   of it makes no request ([`cached_file_at`]).
//! - Offline: the fixture's `fileContents` (`Fixture::file_at`) through [`offline_file`], which
//!   applies the same limits; its blob id is `sha256:<hex of the text>` (no git object there).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sha2::Digest;
use thiserror::Error;

use super::base_files::repository_of;
use super::{GitHub, GitHubError};
use crate::pr::PrCoords;

/// `object(expression: "SHA:PATH")` as a Blob.
pub const FILE_CONTENTS_QUERY: &str = include_str!("queries/file_contents.graphql");

/// The largest file shown (bytes).
pub const MAX_SHOWN_FILE_BYTES: u64 = 1 << 20;

/// What a [`BlobCache`] holds at most by default (bytes of text).
pub const DEFAULT_CACHE_BYTES: usize = 32 << 20;

/// A file's text at a commit, with the id of its blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    /// The blob id (a git object id live; `sha256:…` offline).
    pub oid: String,
    pub text: Arc<str>,
}

/// Why a file's text is not shown, apart from a failed request. Kept by the cache, so asking
/// again makes no request either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    TooLarge {
        bytes: u64,
    },
    Binary,
    /// GitHub's answer has only part of the text.
    Truncated,
    /// No file at that path at that commit (or a folder).
    Missing,
}

#[derive(Debug, Error)]
pub enum ContentsError {
    #[error("`{path}` is {}; the console shows files up to 1 MiB", mib(*bytes))]
    TooLarge { path: String, bytes: u64 },
    #[error("`{path}` is a binary file; the console shows text files only")]
    Binary { path: String },
    #[error("GitHub gave only part of `{path}`; the console shows whole files only")]
    Truncated { path: String },
    #[error("`{path}` is not a file at commit {}", short(commit))]
    Missing { path: String, commit: String },
    /// Offline: the fixture records no text of the file at that commit (it may well be one).
    #[error("the fixture records no text of `{path}` at commit {}", short(commit))]
    NotRecorded { path: String, commit: String },
    #[error(transparent)]
    GitHub(#[from] GitHubError),
}

impl ContentsError {
    fn of(refusal: &Refusal, path: &str, commit: &str) -> ContentsError {
        let path = crate::sanitize::one_line(path);
        match refusal {
            Refusal::TooLarge { bytes } => ContentsError::TooLarge {
                path,
                bytes: *bytes,
            },
            Refusal::Binary => ContentsError::Binary { path },
            Refusal::Truncated => ContentsError::Truncated { path },
            Refusal::Missing => ContentsError::Missing {
                path,
                commit: commit.to_owned(),
            },
        }
    }
}

/// `bytes` in MiB with one decimal (`3.2 MiB`).
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// What a blob answer says: its text, or why not.
fn blob(v: &Value) -> Result<FileText, Refusal> {
    if v.get("__typename").and_then(Value::as_str) != Some("Blob") {
        return Err(Refusal::Missing);
    }
    let bytes = v.get("byteSize").and_then(Value::as_u64).unwrap_or(0);
    if bytes > MAX_SHOWN_FILE_BYTES {
        return Err(Refusal::TooLarge { bytes });
    }
    if v.get("isBinary").and_then(Value::as_bool) == Some(true) {
        return Err(Refusal::Binary);
    }
    if v.get("isTruncated").and_then(Value::as_bool) == Some(true) {
        return Err(Refusal::Truncated);
    }
    let (Some(oid), Some(text)) = (
        v.get("oid").and_then(Value::as_str),
        v.get("text").and_then(Value::as_str),
    ) else {
        // A blob without text is one GitHub took for binary.
        return Err(Refusal::Binary);
    };
    if text.len() as u64 > MAX_SHOWN_FILE_BYTES {
        return Err(Refusal::TooLarge {
            bytes: text.len() as u64,
        });
    }
    Ok(FileText {
        oid: oid.to_owned(),
        text: Arc::from(text),
    })
}

/// Reads `path` at `commit` in one request (no cache): its text, a refusal, or the request's
/// failure.
pub async fn read_file_at(
    gh: &GitHub,
    coords: &PrCoords,
    commit: &str,
    path: &str,
) -> Result<Result<FileText, Refusal>, GitHubError> {
    if commit.trim().is_empty() {
        return Err(GitHubError::Graphql(
            "the commit to read the file at is not known".to_owned(),
        ));
    }
    let what = format!(
        "{coords}: `{}` at {}",
        crate::sanitize::one_line(path),
        short(commit)
    );
    let reply = gh
        .graphql(
            FILE_CONTENTS_QUERY,
            json!({
                "owner": coords.owner,
                "repo": coords.repo,
                "expression": format!("{commit}:{path}"),
            }),
            &what,
        )
        .await?;
    let repo = repository_of(&reply, &what)?;
    Ok(blob(&repo["object"]))
}

/// How many files one request of [`read_files_at`] reads (GraphQL aliases): a 300-file PR's
/// two sides are 24 requests, not 600, and one answer stays a few MiB at most in practice.
pub const FILES_PER_REQUEST: usize = 25;

/// The query reading `n` files at once (`$f0…`: `SHA:PATH` expressions, answered as `f0…`).
pub fn files_query(n: usize) -> String {
    let mut vars = vec!["$owner: String!".to_owned(), "$repo: String!".to_owned()];
    let mut sel = String::new();
    for i in 0..n {
        vars.push(format!("$f{i}: String!"));
        sel.push_str(&format!(
            "    f{i}: object(expression: $f{i}) {{ __typename ... on Blob {{ oid byteSize isBinary isTruncated text }} }}\n"
        ));
    }
    format!(
        "query FileTexts({}) {{\n  rateLimit {{\n    cost\n    remaining\n    resetAt\n  }}\n  repository(owner: $owner, name: $repo) {{\n{sel}  }}\n}}\n",
        vars.join(", ")
    )
}

/// Reads each `(commit, path)` of `wanted`, [`FILES_PER_REQUEST`] a request (no cache): per
/// file, in order, its text or why it is not kept (over 1 MiB, binary, missing); a failed
/// request fails the whole.
pub async fn read_files_at(
    gh: &GitHub,
    coords: &PrCoords,
    wanted: &[(String, String)],
) -> Result<Vec<Result<FileText, Refusal>>, GitHubError> {
    let mut out = Vec::with_capacity(wanted.len());
    for chunk in wanted.chunks(FILES_PER_REQUEST) {
        let mut vars = serde_json::Map::new();
        vars.insert("owner".into(), json!(coords.owner));
        vars.insert("repo".into(), json!(coords.repo));
        for (i, (commit, path)) in chunk.iter().enumerate() {
            vars.insert(format!("f{i}"), json!(format!("{commit}:{path}")));
        }
        let what = format!("{coords}: {} files' texts", chunk.len());
        let reply = gh
            .graphql(&files_query(chunk.len()), Value::Object(vars), &what)
            .await?;
        let repo = repository_of(&reply, &what)?;
        out.extend((0..chunk.len()).map(|i| blob(&repo[format!("f{i}")])));
    }
    Ok(out)
}

/// A fixture's recorded text of a file (`Fixture::file_at`) as the console takes it: the same
/// size limit as live, a `sha256:` blob id.
pub fn offline_file(
    recorded: Option<&str>,
    commit: &str,
    path: &str,
) -> Result<FileText, ContentsError> {
    let Some(text) = recorded else {
        return Err(ContentsError::NotRecorded {
            path: crate::sanitize::one_line(path),
            commit: commit.to_owned(),
        });
    };
    if text.len() as u64 > MAX_SHOWN_FILE_BYTES {
        let bytes = text.len() as u64;
        return Err(ContentsError::of(
            &Refusal::TooLarge { bytes },
            path,
            commit,
        ));
    }
    Ok(FileText {
        oid: format!("sha256:{:x}", sha2::Sha256::digest(text.as_bytes())),
        text: Arc::from(text),
    })
}

/// Texts by blob id, bounded in bytes, and what each `(commit, path)` read was.
#[derive(Debug)]
pub struct BlobCache {
    max_bytes: usize,
    bytes: usize,
    blobs: HashMap<String, Arc<str>>,
    /// Blob ids, oldest first (the first to go when over the bound).
    order: VecDeque<String>,
    /// `(commit, path)` → its blob id, or why it is not shown.
    at: HashMap<(String, String), Result<String, Refusal>>,
}

impl Default for BlobCache {
    fn default() -> Self {
        BlobCache::new(DEFAULT_CACHE_BYTES)
    }
}

impl BlobCache {
    /// A cache of at most `max_bytes` of text.
    pub fn new(max_bytes: usize) -> BlobCache {
        BlobCache {
            max_bytes,
            bytes: 0,
            blobs: HashMap::new(),
            order: VecDeque::new(),
            at: HashMap::new(),
        }
    }

    /// Bytes of text held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The text of blob `oid`, if held.
    pub fn blob(&self, oid: &str) -> Option<Arc<str>> {
        self.blobs.get(oid).cloned()
    }

    /// What reading `path` at `commit` gave before, if it is still known: the text, or the
    /// refusal. `None`: it must be read.
    pub fn get(&self, commit: &str, path: &str) -> Option<Result<FileText, ContentsError>> {
        match self.at.get(&(commit.to_owned(), path.to_owned()))? {
            Ok(oid) => Some(Ok(FileText {
                oid: oid.clone(),
                text: self.blob(oid)?,
            })),
            Err(r) => Some(Err(ContentsError::of(r, path, commit))),
        }
    }

    /// Keeps what reading `path` at `commit` gave. A blob already held is not held twice; past
    /// the bound the oldest blobs go (their `(commit, path)` are read again when asked).
    pub fn insert(&mut self, commit: &str, path: &str, read: &Result<FileText, Refusal>) {
        let key = (commit.to_owned(), path.to_owned());
        let file = match read {
            Err(r) => {
                self.at.insert(key, Err(r.clone()));
                return;
            }
            Ok(f) => f,
        };
        self.at.insert(key, Ok(file.oid.clone()));
        if self.blobs.contains_key(&file.oid) || file.text.len() > self.max_bytes {
            return;
        }
        while self.bytes + file.text.len() > self.max_bytes {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(t) = self.blobs.remove(&old) {
                self.bytes -= t.len();
            }
        }
        self.bytes += file.text.len();
        self.blobs.insert(file.oid.clone(), Arc::clone(&file.text));
        self.order.push_back(file.oid.clone());
        // Forget the places of blobs no longer held.
        let blobs = &self.blobs;
        self.at
            .retain(|_, v| v.as_ref().map_or(true, |oid| blobs.contains_key(oid)));
    }
}

/// `path` at `commit` from `cache`, else read from GitHub (one request) and kept there. The
/// lock is never held across the request.
pub async fn cached_file_at(
    gh: &GitHub,
    cache: &Mutex<BlobCache>,
    coords: &PrCoords,
    commit: &str,
    path: &str,
) -> Result<FileText, ContentsError> {
    let lock = || {
        cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(known) = lock().get(commit, path) {
        return known;
    }
    let read = read_file_at(gh, coords, commit, path).await?;
    lock().insert(commit, path, &read);
    read.map_err(|r| ContentsError::of(&r, path, commit))
}

/// `path` at `commit` of the PR at `coords` as the console shows it: live through `gh` (cached
/// by blob id in `cache`, [`cached_file_at`]), else offline from `fixture`'s recorded file
/// contents ([`offline_file`]; no request to save there).
pub async fn file_for_console(
    gh: Option<&GitHub>,
    fixture: Option<&crate::source::Fixture>,
    cache: &Mutex<BlobCache>,
    coords: &PrCoords,
    commit: &str,
    path: &str,
) -> Result<FileText, ContentsError> {
    match gh {
        Some(gh) => cached_file_at(gh, cache, coords, commit, path).await,
        None => offline_file(fixture.and_then(|f| f.file_at(commit, path)), commit, path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(oid: &str, t: &str) -> Result<FileText, Refusal> {
        Ok(FileText {
            oid: oid.to_owned(),
            text: Arc::from(t),
        })
    }

    // Guards the answer's reading: over 1 MiB, binary, truncated, not a blob are refused.
    #[test]
    fn a_blob_answer_is_text_or_a_refusal() {
        let ok = json!({"__typename": "Blob", "oid": "ab", "byteSize": 2, "isBinary": false,
            "isTruncated": false, "text": "hi"});
        assert_eq!(blob(&ok), text("ab", "hi"));
        let big = json!({"__typename": "Blob", "oid": "ab", "byteSize": 3_355_443,
            "isBinary": false, "isTruncated": true, "text": null});
        assert_eq!(blob(&big), Err(Refusal::TooLarge { bytes: 3_355_443 }));
        assert_eq!(
            ContentsError::of(&Refusal::TooLarge { bytes: 3_355_443 }, "a.json", "c").to_string(),
            "`a.json` is 3.2 MiB; the console shows files up to 1 MiB"
        );
        let bin = json!({"__typename": "Blob", "oid": "ab", "byteSize": 9, "isBinary": true,
            "isTruncated": false, "text": null});
        assert_eq!(blob(&bin), Err(Refusal::Binary));
        let cut = json!({"__typename": "Blob", "oid": "ab", "byteSize": 9, "isBinary": false,
            "isTruncated": true, "text": "par"});
        assert_eq!(blob(&cut), Err(Refusal::Truncated));
        assert_eq!(blob(&json!({"__typename": "Tree"})), Err(Refusal::Missing));
        assert_eq!(blob(&Value::Null), Err(Refusal::Missing));
    }

    // Guards the batched query: one alias per file, each with its own variable.
    #[test]
    fn the_batched_query_names_each_file() {
        let q = files_query(3);
        assert!(q.starts_with("query FileTexts($owner: String!, $repo: String!, $f0: String!"));
        assert!(q.contains("f2: object(expression: $f2) { __typename ... on Blob"));
        assert!(!q.contains("$f3"));
    }

    // Guards the cache: a blob by id once, places known, refusals kept, the byte bound.
    #[test]
    fn the_cache_keeps_blobs_once_within_its_bound() {
        let mut c = BlobCache::new(10);
        c.insert("h1", "a.rs", &text("x", "123456"));
        c.insert("h2", "a.rs", &text("x", "123456"));
        assert_eq!(c.bytes(), 6, "one blob, two places");
        assert_eq!(
            c.get("h2", "a.rs").unwrap().unwrap().text.as_ref(),
            "123456"
        );
        c.insert("h1", "big.bin", &Err(Refusal::Binary));
        assert!(matches!(
            c.get("h1", "big.bin"),
            Some(Err(ContentsError::Binary { .. }))
        ));
        assert!(c.get("h1", "b.rs").is_none());
        c.insert("h1", "b.rs", &text("y", "abcde"));
        assert_eq!(c.bytes(), 5, "the oldest went");
        assert!(c.get("h1", "a.rs").is_none() && c.blob("x").is_none());
        assert!(c.get("h1", "b.rs").is_some());
        c.insert("h1", "huge", &text("z", "0123456789ab"));
        assert!(c.get("h1", "huge").is_none(), "over the bound: never held");
        assert!(c.get("h1", "b.rs").is_some(), "and nothing evicted for it");
    }

    // Guards the offline path: the same limit, a content id, a missing file said so.
    #[test]
    fn offline_files_follow_the_same_rules() {
        let f = offline_file(Some("x\n"), "c0ffee", "a.rs").unwrap();
        assert!(f.oid.starts_with("sha256:") && f.text.as_ref() == "x\n");
        let big = "x".repeat(MAX_SHOWN_FILE_BYTES as usize + 1);
        assert!(matches!(
            offline_file(Some(&big), "c", "a"),
            Err(ContentsError::TooLarge { .. })
        ));
        assert!(
            offline_file(None, "c0ffee0123456789", "a.rs")
                .unwrap_err()
                .to_string()
                .contains("the fixture records no text of `a.rs` at commit c0ffee012345"),
            "what is not recorded is not said to be no file"
        );
    }
}
