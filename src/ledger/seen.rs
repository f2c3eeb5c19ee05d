//! Seen markers: one file per item id, named by the SHA-256 of the id.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError, write_atomic};
use crate::pr::{PrCoords, sha256_hex};

/// A marker's JSON body. The schema is open: fields this version does not know are kept and
/// written back unchanged when the marker is rewritten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Marker {
    pub id: String,
    /// Unix seconds when the item was first surfaced.
    pub seen_at: i64,
    /// First 16 hex chars of SHA-256 of the body (a thread's whole transcript).
    pub body_hash: String,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// A marker file that could not be used; the item counts as unseen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerProblem {
    pub path: PathBuf,
    pub reason: String,
}

/// The markers of one PR, keyed by item id.
#[derive(Debug, Clone, Default)]
pub struct SeenSet {
    pub markers: HashMap<String, Marker>,
    pub problems: Vec<MarkerProblem>,
}

/// Reads one marker file whose name (without `.json`) is `stem`.
fn read_marker(path: &std::path::Path, stem: &str) -> Result<Marker, MarkerProblem> {
    std::fs::read(path)
        .map_err(|e| format!("unreadable: {e}"))
        .and_then(|bytes| {
            serde_json::from_slice::<Marker>(&bytes).map_err(|e| format!("corrupt: {e}"))
        })
        .and_then(|m| {
            if sha256_hex(m.id.as_bytes()) == stem {
                Ok(m)
            } else {
                Err(format!(
                    "its id `{}` does not match its file name",
                    m.id.escape_debug()
                ))
            }
        })
        .map_err(|reason| MarkerProblem {
            path: path.to_path_buf(),
            reason,
        })
}

/// The marker file name for an id.
pub fn marker_file_name(id: &str) -> String {
    format!("{}.json", sha256_hex(id.as_bytes()))
}

impl Ledger {
    /// Reads every marker of the PR. Missing dir → empty set. Unreadable, corrupt or misnamed
    /// markers are reported in `problems` and otherwise ignored (the item re-surfaces).
    pub fn load_seen(&self, pr: &PrCoords) -> Result<SeenSet, LedgerError> {
        let dir = self.seen_dir(pr)?;
        let mut set = SeenSet::default();
        let entries = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(set),
            Err(e) => {
                set.problems.push(MarkerProblem {
                    path: dir,
                    reason: format!("cannot list markers: {e}"),
                });
                return Ok(set);
            }
        };
        let paths: Vec<(PathBuf, String)> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                // Temporary files (".tmp-…") and anything else that is not a marker.
                let stem = name.strip_suffix(".json")?;
                (!name.starts_with('.')).then(|| (entry.path(), stem.to_owned()))
            })
            .collect();
        // Reading 10,000 small files is syscall-bound: spread it over a few threads.
        let threads = std::thread::available_parallelism()
            .map_or(2, |n| n.get() * 2)
            .clamp(1, 8);
        let chunk = paths.len().div_ceil(threads).max(256);
        let results: Vec<Result<Marker, MarkerProblem>> = std::thread::scope(|scope| {
            let handles: Vec<_> = paths
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|(path, stem)| read_marker(path, stem))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| {
                    h.join().unwrap_or_else(|_| {
                        vec![Err(MarkerProblem {
                            path: PathBuf::new(),
                            reason: "a marker reader thread failed".to_owned(),
                        })]
                    })
                })
                .collect()
        });
        for r in results {
            match r {
                Ok(m) => {
                    set.markers.insert(m.id.clone(), m);
                }
                Err(p) => set.problems.push(p),
            }
        }
        Ok(set)
    }

    /// Records that these items (id, current body hash) were surfaced at `now`. A new marker
    /// gets `seenAt = now`; an existing one keeps its original `seenAt` and unknown fields and
    /// takes the new hash. Returns how many marker files were written.
    pub fn mark_seen(
        &self,
        pr: &PrCoords,
        items: &[(&str, &str)],
        now: i64,
    ) -> Result<usize, LedgerError> {
        let dir = self.seen_dir(pr)?;
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        let mut written = 0;
        for (id, hash) in items {
            let path = dir.join(marker_file_name(id));
            let previous = std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Marker>(&b).ok())
                .filter(|m| m.id == *id);
            let marker = match previous {
                Some(m) if m.body_hash == *hash => continue, // nothing to change
                Some(mut m) => {
                    m.body_hash = (*hash).to_owned();
                    m
                }
                None => Marker {
                    id: (*id).to_owned(),
                    seen_at: now,
                    body_hash: (*hash).to_owned(),
                    extra: serde_json::Map::new(),
                },
            };
            let bytes = serde_json::to_vec(&marker).unwrap_or_default();
            write_atomic(&path, &bytes)?;
            written += 1;
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coords() -> PrCoords {
        PrCoords {
            host: None,
            owner: "octo".into(),
            repo: "demo".into(),
            number: 7,
        }
    }

    #[test]
    fn layout_and_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        ledger
            .mark_seen(
                &coords(),
                &[("IC_kwDOSGizTs8AAAABSsxwqg", "3f9a1c2b7e4d5a6f")],
                1_732_000_000,
            )
            .expect("mark");
        let expected = dir
            .path()
            .join("octo-demo/7/seen")
            .join(format!("{}.json", sha256_hex(b"IC_kwDOSGizTs8AAAABSsxwqg")));
        let body: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&expected).expect("marker exists"))
                .expect("json");
        assert_eq!(
            body,
            serde_json::json!({"id": "IC_kwDOSGizTs8AAAABSsxwqg", "seenAt": 1_732_000_000, "bodyHash": "3f9a1c2b7e4d5a6f"})
        );
    }

    #[test]
    fn rewrite_keeps_seen_at_and_unknown_fields() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let path = ledger
            .seen_dir(&coords())
            .expect("dir")
            .join(marker_file_name("X"));
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(
            &path,
            r#"{"id":"X","seenAt":5,"bodyHash":"aaaa","note":{"by":"other tool"},"tags":[1]}"#,
        )
        .expect("write");
        assert_eq!(
            ledger
                .mark_seen(&coords(), &[("X", "bbbb")], 99)
                .expect("mark"),
            1
        );
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        assert_eq!(v["seenAt"], 5);
        assert_eq!(v["bodyHash"], "bbbb");
        assert_eq!(v["note"]["by"], "other tool");
        assert_eq!(v["tags"][0], 1);
        // Same hash again: nothing rewritten.
        assert_eq!(
            ledger
                .mark_seen(&coords(), &[("X", "bbbb")], 100)
                .expect("mark"),
            0
        );
    }

    #[test]
    fn corrupt_and_misnamed_markers_are_reported_not_fatal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        ledger
            .mark_seen(&coords(), &[("A", "1111")], 1)
            .expect("mark");
        let seen = ledger.seen_dir(&coords()).expect("dir");
        std::fs::write(seen.join(marker_file_name("B")), "{not json").expect("write");
        std::fs::write(
            seen.join(marker_file_name("C")),
            r#"{"id":"D","seenAt":1,"bodyHash":"x"}"#,
        )
        .expect("write");
        std::fs::write(seen.join(".tmp-abc"), "partial").expect("write");
        let set = ledger.load_seen(&coords()).expect("load");
        assert_eq!(set.markers.len(), 1);
        assert!(set.markers.contains_key("A"));
        assert_eq!(set.problems.len(), 2, "{:?}", set.problems);
    }

    #[test]
    fn missing_dir_is_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let set = Ledger::new(dir.path()).load_seen(&coords()).expect("load");
        assert!(set.markers.is_empty() && set.problems.is_empty());
    }

    #[test]
    fn clear_removes_the_pr_dir() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        ledger
            .mark_seen(&coords(), &[("A", "1"), ("B", "2")], 1)
            .expect("mark");
        assert_eq!(ledger.clear(&coords()).expect("clear"), 2);
        assert!(
            ledger
                .load_seen(&coords())
                .expect("load")
                .markers
                .is_empty()
        );
        assert_eq!(ledger.clear(&coords()).expect("clear"), 0);
    }
}
