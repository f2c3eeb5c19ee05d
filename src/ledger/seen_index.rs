//! A derived cache of one PR's seen markers: `<pr>/seen-index`.
//!
//! The seed's one-file-per-id markers stay the only truth; this file may be deleted at any time
//! and is rebuilt from them. Reading 10,000 markers costs an open, a read, a close and a parse
//! each (about 0.1 s); asking the file system for their metadata costs a fraction of that. So the
//! index keeps, per marker file, what the file held together with the file's *stamp* as `stat`
//! reported it when the file was read: device, inode, size, modification and change times. A
//! marker is taken from the index only while its file's stamp is exactly the recorded one;
//! anything else (a new file, a rewrite, an edit in place, a replacement by rename) is read from
//! the file again.
//!
//! Racy writes: file times come from a coarse clock, so a change made in the same clock tick as
//! the recorded one could leave every stamp field as it was. An entry is therefore recorded only
//! for a file whose times are at least [`SETTLE_SECS`] older than the moment it was read; any
//! later change to it gets a later time. A marker written moments ago is read from its file
//! until it has settled.
//!
//! Format: a header line, then one tab-separated line per marker file:
//! `stem dev ino size mtime mtime_ns ctime ctime_ns seenAt bodyHash id extra`, where `bodyHash`
//! and `id` are JSON strings (so they hold no raw tab or newline) and `extra` is the marker's
//! unknown fields as a JSON object, or empty when there are none. An index that does not parse
//! is ignored as a whole.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::Metadata;
use std::path::Path;

use super::LedgerError;
use super::marker::Marker;

/// The index's file name, beside the PR's `seen/` folder (never inside it: tools that list
/// `seen/*.json` must see markers only).
pub(super) const INDEX_FILE: &str = "seen-index";

/// The first line of an index this version writes and reads.
const HEADER: &str = "pr-shepherd/seen-index@1";

/// How much older than the read a file's times must be before its content may be cached.
/// Covers the coarsest common timestamp granularity (2 s on FAT) with room to spare.
pub(super) const SETTLE_SECS: i64 = 3;

/// What `stat` says about a marker file; equal stamps mean an unchanged file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_ns: i64,
    ctime: i64,
    ctime_ns: i64,
}

impl Stamp {
    /// The stamp of a regular file (symlinks and anything else are never cached). `None` where
    /// the platform has no inode numbers or change times: there every marker is read.
    #[cfg(unix)]
    pub(super) fn of(meta: &Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        meta.is_file().then(|| Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_ns: meta.mtime_nsec(),
            ctime: meta.ctime(),
            ctime_ns: meta.ctime_nsec(),
        })
    }

    #[cfg(not(unix))]
    pub(super) fn of(_meta: &Metadata) -> Option<Stamp> {
        None
    }

    /// Whether a file with this stamp, read at `now` (unix seconds) or later, may be cached.
    pub(super) fn settled(&self, now: i64) -> bool {
        self.mtime.max(self.ctime) <= now - SETTLE_SECS
    }
}

/// One cached marker, borrowed from the index text: its strings are decoded only when the
/// entry is used.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry<'t> {
    pub stamp: Stamp,
    seen_at: i64,
    body_hash: &'t str,
    id: &'t str,
    extra: &'t str,
}

impl Entry<'_> {
    /// The marker the entry caches; `None` when its text does not decode (the file is then
    /// read instead).
    pub(super) fn marker(&self) -> Option<Marker> {
        Some(Marker {
            id: json_string(self.id)?,
            seen_at: self.seen_at,
            body_hash: json_string(self.body_hash)?,
            extra: match self.extra {
                "" => serde_json::Map::new(),
                text => serde_json::from_str(text).ok()?,
            },
        })
    }
}

/// The index file's text; empty when it is missing or unreadable.
pub(super) fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Every entry of the index at `path` as (file stem, stamp, marker), read a line at a time (the
/// text is never held whole). A missing or malformed index has none; an entry whose strings do
/// not decode is left out (its file is read instead).
pub(super) fn read_entries(path: &Path) -> Vec<(String, Stamp, Marker)> {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut reader = std::io::BufReader::with_capacity(128 << 10, file);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.trim_end_matches('\n') != HEADER {
        return Vec::new();
    }
    let mut out = Vec::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => return out,
            Ok(_) => {}
            Err(_) => return Vec::new(),
        }
        let text = line.strip_suffix('\n').unwrap_or(&line);
        let Some((stem, entry)) = parse_line(text) else {
            return Vec::new();
        };
        if let Some(marker) = entry.marker() {
            out.push((stem.to_owned(), entry.stamp, marker));
        }
    }
}

/// An index's entries, found by marker file stem. Fastest when asked in the order the index
/// was written, which is the order the directory listed its files in (a listing's order stays
/// put while the directory is unchanged): then each lookup is one comparison.
pub(super) struct Lookup<'t> {
    in_order: Vec<(&'t str, Entry<'t>)>,
    next: usize,
    /// Once a lookup misses the order, the remaining entries by stem.
    rest: Option<HashMap<&'t str, Entry<'t>>>,
}

impl<'t> Lookup<'t> {
    /// The entries of an index's text. A malformed index has none (every marker is then read
    /// from its file, and the index is rewritten).
    pub(super) fn new(text: &'t str) -> Lookup<'t> {
        Lookup {
            in_order: parse_lines(text).unwrap_or_default(),
            next: 0,
            rest: None,
        }
    }

    /// The entry for a stem, taken out of the lookup.
    pub(super) fn take(&mut self, stem: &str) -> Option<Entry<'t>> {
        if self.rest.is_none() {
            match self.in_order.get(self.next) {
                Some((s, e)) if *s == stem => {
                    self.next += 1;
                    return Some(*e);
                }
                None => return None,
                Some(_) => {
                    let rest = self.in_order.drain(self.next..).collect();
                    self.rest = Some(rest);
                }
            }
        }
        self.rest.as_mut().and_then(|m| m.remove(stem))
    }

    /// Whether the index should be rewritten: lookups left its order, or it has entries nobody
    /// asked for (their files are gone).
    pub(super) fn stale(&self) -> bool {
        self.rest.is_some() || self.next < self.in_order.len()
    }
}

fn parse_lines(text: &str) -> Option<Vec<(&str, Entry<'_>)>> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    lines.map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<(&str, Entry<'_>)> {
    let mut f = line.split('\t');
    let stem = f.next().filter(|s| !s.is_empty())?;
    let mut unsigned = || f.next()?.parse::<u64>().ok();
    let (dev, ino, size) = (unsigned()?, unsigned()?, unsigned()?);
    let mut signed = || f.next()?.parse::<i64>().ok();
    let (mtime, mtime_ns, ctime, ctime_ns) = (signed()?, signed()?, signed()?, signed()?);
    let seen_at = signed()?;
    let stamp = Stamp {
        dev,
        ino,
        size,
        mtime,
        mtime_ns,
        ctime,
        ctime_ns,
    };
    let body_hash = f.next().filter(|t| is_string_literal(t))?;
    let id = f.next().filter(|t| is_string_literal(t))?;
    let extra = f.next().filter(|t| t.is_empty() || t.starts_with('{'))?;
    if f.next().is_some() {
        return None;
    }
    Some((
        stem,
        Entry {
            stamp,
            seen_at,
            body_hash,
            id,
            extra,
        },
    ))
}

fn is_string_literal(field: &str) -> bool {
    field.len() >= 2 && field.starts_with('"') && field.ends_with('"')
}

/// A JSON string literal; the common case (no escapes) without the general parser.
fn json_string(field: &str) -> Option<String> {
    let inner = field.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains(['\\', '"']) || inner.chars().any(char::is_control) {
        serde_json::from_str(field).ok()
    } else {
        Some(inner.to_owned())
    }
}

/// Writes the index atomically, a line at a time into the temporary file that then replaces it
/// (the text is never held whole). `entries` are (file stem, stamp, marker) of settled files.
pub(super) fn write<'a, S: AsRef<str>>(
    path: &Path,
    entries: impl Iterator<Item = (S, &'a Stamp, &'a Marker)>,
) -> Result<(), LedgerError> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(super::TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(LedgerError::io("write to", dir))?;
    let written = (|| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(64 << 10, tmp.as_file_mut());
        let mut line = String::with_capacity(256);
        writeln!(out, "{HEADER}")?;
        for (stem, s, m) in entries {
            let stem = stem.as_ref();
            // A stem with a tab or newline cannot be a line's first field; such a file is simply
            // not cached. (Marker stems are hex digests; this is a guard, not a case.)
            if stem.is_empty() || stem.contains(['\t', '\n', '\r']) {
                continue;
            }
            line.clear();
            let extra = if m.extra.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&m.extra).unwrap_or_default()
            };
            let _ = writeln!(
                line,
                "{stem}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{extra}",
                s.dev,
                s.ino,
                s.size,
                s.mtime,
                s.mtime_ns,
                s.ctime,
                s.ctime_ns,
                m.seen_at,
                serde_json::Value::from(m.body_hash.as_str()),
                serde_json::Value::from(m.id.as_str()),
            );
            out.write_all(line.as_bytes())?;
        }
        out.flush()
    })();
    written.map_err(LedgerError::io("write", path))?;
    tmp.persist(path)
        .map_err(|e| LedgerError::io("replace", path)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> Stamp {
        Stamp {
            dev: 1,
            ino: 2,
            size: 3,
            mtime: 4,
            mtime_ns: 5,
            ctime: 6,
            ctime_ns: 7,
        }
    }

    #[test]
    fn round_trips_odd_ids_and_unknown_fields() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(INDEX_FILE);
        let mut extra = serde_json::Map::new();
        extra.insert("note".into(), serde_json::json!({"by": "other\ttool"}));
        let markers = [
            Marker {
                id: "PRRT_plain".into(),
                seen_at: 10,
                body_hash: "0123456789abcdef".into(),
                extra: serde_json::Map::new(),
            },
            Marker {
                id: "tab\there \"quoted\"\nnewline \u{1b}[2J".into(),
                seen_at: -1,
                body_hash: "x\\y".into(),
                extra,
            },
        ];
        let s = stamp();
        write(
            &path,
            [("aa", &s, &markers[0]), ("bb", &s, &markers[1])].into_iter(),
        )
        .expect("write");
        let entries = read_entries(&path);
        assert_eq!(
            entries,
            vec![
                ("aa".to_owned(), s, markers[0].clone()),
                ("bb".to_owned(), s, markers[1].clone())
            ]
        );
        let text = read_text(&path);
        let mut back = Lookup::new(&text);
        assert!(back.stale(), "nothing taken yet");
        assert_eq!(
            back.take("aa").and_then(|e| e.marker()),
            Some(markers[0].clone())
        );
        let bb = back.take("bb");
        assert_eq!(bb.and_then(|e| e.marker()), Some(markers[1].clone()));
        assert_eq!(bb.map(|e| e.stamp), Some(s));
        assert!(!back.stale(), "taken in order, all of it");
        // Out of order, and with a stem it does not know: still found, and flagged.
        let mut back = Lookup::new(&text);
        assert!(back.take("cc").is_none());
        assert!(back.take("bb").is_some());
        assert!(back.take("aa").is_some());
        assert!(back.take("aa").is_none());
        assert!(back.stale());
    }

    #[test]
    fn a_malformed_index_is_ignored_as_a_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(INDEX_FILE);
        let good = "aa\t1\t2\t3\t4\t5\t6\t7\t8\t\"h\"\t\"id\"\t";
        for bad in [
            String::new(),
            "pr-shepherd/seen-index@2\n".to_owned(),
            format!("{HEADER}\n{good}\nbb\t1\t2\n"),
            format!("{HEADER}\n{good}\t\n"),
            format!("{HEADER}\n{}", good.replace("\"id\"", "id")),
            format!("{HEADER}\n{}", good.replace("\t3\t", "\t-3\t")),
        ] {
            std::fs::write(&path, &bad).expect("write");
            let text = read_text(&path);
            assert!(Lookup::new(&text).take("aa").is_none(), "accepted: {bad:?}");
            assert!(read_entries(&path).is_empty(), "accepted: {bad:?}");
        }
        std::fs::write(&path, format!("{HEADER}\n{good}\n")).expect("write");
        let text = read_text(&path);
        let id = Lookup::new(&text)
            .take("aa")
            .and_then(|e| e.marker())
            .map(|m| m.id);
        assert_eq!(id, Some("id".into()));
        let missing = read_text(&dir.path().join("missing"));
        assert!(Lookup::new(&missing).take("aa").is_none());
        // An entry whose strings do not decode is no marker (its file is read instead).
        let undecodable = format!("{HEADER}\n{}\n", good.replace("\"id\"", "\"i\\q\""));
        std::fs::write(&path, undecodable).expect("write");
        let text = read_text(&path);
        let entry = Lookup::new(&text).take("aa");
        assert!(entry.is_some_and(|e| e.marker().is_none()));
    }

    #[test]
    fn only_files_older_than_the_settle_time_are_cacheable() {
        let s = Stamp {
            mtime: 100,
            ctime: 100,
            ..stamp()
        };
        assert!(!s.settled(100));
        assert!(!s.settled(100 + SETTLE_SECS - 1));
        assert!(s.settled(100 + SETTLE_SECS));
        let later_ctime = Stamp { ctime: 200, ..s };
        assert!(!later_ctime.settled(150));
    }
}
