//! What was learnt about each LLM server, kept across runs in the state dir
//! (`<state>/llm-servers.json`): the structured-output shape it answered and what it rejected on
//! the way there, so the next run asks it that way at once (`[review] structured_output = "auto"`
//! only). Keyed by the endpoint URL without user, password, query or fragment, so no secret in a
//! URL is ever written.
//!
//! Bounded: at most [`MAX_SERVERS`] servers (the most recently learnt), a file of at most
//! [`FILE_LIMIT`] bytes, and an entry counts for [`REMEMBER_DAYS`] days (a server upgraded since
//! is asked the best way again). A file that cannot be read or parsed is ignored, and the run
//! says so in a note; it is replaced the next time something is learnt. It is a cache: two runs
//! learning at once may keep only one of their entries.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::structured::{Learnt, Shape};

/// The file's name in the state dir.
pub const FILE_NAME: &str = "llm-servers.json";
/// The most servers remembered.
pub(crate) const MAX_SERVERS: usize = 32;
/// The largest file read.
pub(crate) const FILE_LIMIT: u64 = 64 << 10;
/// How long what was learnt counts.
pub(crate) const REMEMBER_DAYS: i64 = 30;
/// The format written (and the only one read).
const VERSION: u32 = 1;
/// The most rejections kept per server, and their length.
const MAX_REJECTED: usize = 4;
const MAX_REJECTED_CHARS: usize = 200;
/// The longest endpoint URL remembered.
const MAX_URL_CHARS: usize = 512;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ServersFile {
    version: u32,
    servers: Vec<ServerEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ServerEntry {
    url: String,
    structured_output: String,
    #[serde(default)]
    rejected: Vec<String>,
    learnt_at: DateTime<Utc>,
}

/// One server's entry in the state dir's server memory.
#[derive(Debug, Clone)]
pub(super) struct ServerMemory {
    path: PathBuf,
    /// The endpoint as remembered (no user, password, query or fragment).
    url: String,
}

/// `url` without what may hold a secret (user, password, query, fragment).
fn key(url: &reqwest::Url) -> String {
    let mut u = url.clone();
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

impl ServerMemory {
    /// The memory of the server at `endpoint`, in `state_dir`; `None` for a URL too long to keep.
    pub(super) fn new(state_dir: &Path, endpoint: &reqwest::Url) -> Option<ServerMemory> {
        let url = key(endpoint);
        (url.chars().count() <= MAX_URL_CHARS).then(|| ServerMemory {
            path: state_dir.join(FILE_NAME),
            url,
        })
    }

    fn read(&self) -> Result<Option<ServersFile>, String> {
        let bytes = match crate::infile::read(&self.path, FILE_LIMIT) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        let file: ServersFile = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
        if file.version != VERSION {
            return Err(format!("format version {} is not {VERSION}", file.version));
        }
        Ok(Some(file))
    }

    /// What was learnt about this server (still current at `now`), and a note when the file
    /// could not be used.
    pub(super) fn load(&self, now: DateTime<Utc>) -> (Option<Learnt>, Option<String>) {
        let file = match self.read() {
            Ok(Some(f)) => f,
            Ok(None) => return (None, None),
            Err(why) => {
                return (
                    None,
                    Some(format!(
                        "the server memory {} was ignored ({}); it is rewritten when something is learnt",
                        self.path.display(),
                        crate::sanitize::one_line(&why)
                    )),
                );
            }
        };
        let learnt = file
            .servers
            .into_iter()
            .find(|e| e.url == self.url)
            .filter(|e| now.signed_duration_since(e.learnt_at).num_days() < REMEMBER_DAYS)
            .and_then(|e| {
                Some(Learnt {
                    shape: Shape::parse(&e.structured_output)?,
                    rejected: e
                        .rejected
                        .iter()
                        .take(MAX_REJECTED)
                        .map(|r| {
                            crate::sanitize::one_line(r)
                                .chars()
                                .take(MAX_REJECTED_CHARS)
                                .collect()
                        })
                        .collect(),
                })
            });
        (learnt, None)
    }

    /// Remembers `learnt` for this server at `now` (an unusable file is replaced).
    pub(super) fn store(&self, learnt: &Learnt, now: DateTime<Utc>) -> Result<(), String> {
        let mut servers = match self.read() {
            Ok(Some(f)) => f.servers,
            Ok(None) | Err(_) => Vec::new(),
        };
        servers.retain(|e| e.url != self.url);
        servers.push(ServerEntry {
            url: self.url.clone(),
            structured_output: learnt.shape.as_str().to_owned(),
            rejected: learnt
                .rejected
                .iter()
                .take(MAX_REJECTED)
                .map(|r| r.chars().take(MAX_REJECTED_CHARS).collect())
                .collect(),
            learnt_at: now,
        });
        servers.sort_by_key(|e| std::cmp::Reverse(e.learnt_at));
        servers.truncate(MAX_SERVERS);
        let file = ServersFile {
            version: VERSION,
            servers,
        };
        let bytes = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
        crate::ledger::write_atomic(&self.path, &bytes).map_err(|e| e.to_string())
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learnt(shape: Shape) -> Learnt {
        Learnt {
            shape,
            rejected: vec!["response_format json_schema (HTTP 500)".into()],
        }
    }

    #[test]
    fn what_was_learnt_comes_back_for_the_same_server_only_and_holds_no_secret() {
        let dir = tempfile::tempdir().unwrap();
        let now = Utc::now();
        let url = reqwest::Url::parse("http://me:s3cret@127.0.0.1:8000/v1/chat/completions?key=k1")
            .unwrap();
        let m = ServerMemory::new(dir.path(), &url).unwrap();
        assert_eq!(m.load(now), (None, None));
        m.store(&learnt(Shape::JsonObjectSchema), now).unwrap();
        assert_eq!(m.load(now), (Some(learnt(Shape::JsonObjectSchema)), None));
        let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
        assert!(!text.contains("s3cret") && !text.contains("k1") && !text.contains("me:"));
        // Another server, the same memory file: nothing learnt about it.
        let other =
            ServerMemory::new(dir.path(), &"http://127.0.0.1:9/v1/x".parse().unwrap()).unwrap();
        assert_eq!(other.load(now).0, None);
        // Forgotten after REMEMBER_DAYS.
        let later = now + chrono::Duration::days(REMEMBER_DAYS);
        assert_eq!(m.load(later).0, None);
    }

    #[test]
    fn the_file_is_bounded_and_a_corrupt_one_is_ignored_with_a_note_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let now = Utc::now();
        for i in 0..(MAX_SERVERS + 5) {
            let url = format!("http://127.0.0.1:{}/v1/chat/completions", 1000 + i);
            let m = ServerMemory::new(dir.path(), &url.parse().unwrap()).unwrap();
            m.store(
                &learnt(Shape::JsonObject),
                now + chrono::Duration::seconds(i as i64),
            )
            .unwrap();
        }
        let path = dir.path().join(FILE_NAME);
        let file: ServersFile = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(file.servers.len(), MAX_SERVERS);
        // The oldest went first.
        assert!(file.servers.iter().all(|e| !e.url.contains(":1000/")));

        std::fs::write(&path, "{ not json").unwrap();
        let m = ServerMemory::new(dir.path(), &"http://127.0.0.1:1/v1/c".parse().unwrap()).unwrap();
        let (got, note) = m.load(now);
        assert_eq!(got, None);
        let note = note.unwrap();
        assert!(
            note.contains("llm-servers.json") && note.contains("ignored"),
            "{note}"
        );
        m.store(&learnt(Shape::Plain), now).unwrap();
        assert_eq!(m.load(now), (Some(learnt(Shape::Plain)), None));

        std::fs::write(&path, vec![b' '; FILE_LIMIT as usize + 1]).unwrap();
        assert!(m.load(now).1.is_some(), "a file over the limit is not read");
    }
}
