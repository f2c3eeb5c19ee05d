//! The kept-text log of one PR: `<pr>/seen-text.log`, one JSON record a line, only ever appended
//! to, and replaced whole when it is compacted.
//!
//! ```text
//! # pr-shepherd/seen-text@1                       a comment line (written by compaction)
//! {"id":"IC_1","bodyHash":"3f9a…","body":"…","comments":[]}
//! {"id":"PRRT_2","bodyHash":"77c0…","body":null,"comments":[{"id":"PRRC_3","body":"…"}]}
//! ```
//!
//! A record is the JSON of a `KeptText` (the shape the per-item files of earlier releases held),
//! `id` and `bodyHash` first, with no raw newline in it (JSON escapes them). Lines that do not
//! start with `{` are comments. The latest record of an id is its text; earlier ones are dead.
//!
//! **Writers** hold an exclusive lock on the log file (`File::lock`: advisory, released when the
//! holder dies, even by kill -9) for the whole append, so records of concurrent runs never
//! interleave; after locking, a writer checks that the file it locked is still the one at the
//! path (a compaction may have replaced it meanwhile) and opens it again if not. Each write
//! starts with a newline and holds whole records only.
//!
//! **A torn tail** (a run killed in the middle of a write) is a partial last line. The next
//! write's leading newline ends it, so it never glues onto a later record; a reader takes only
//! lines that parse whole, so the partial record is skipped. An append counts (its records are
//! acknowledged) only once every byte of it was written; the bytes of an unacknowledged append
//! are at worst skipped, and an acknowledged record is never touched by a later torn one.
//!
//! **Bounded**: when an append takes the log past a power of two (1 MiB and up), the writer
//! counts the live bytes (latest valid record per id) and, when the dead ones are as many,
//! compacts: the live records are copied to a temporary file that replaces the log by rename
//! (readers see the old log or the new one, whole). So the log stays under 4× its live records
//! (plus 1 MiB), and its live records are bounded per item like the kept texts themselves.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::de::IgnoredAny;

/// The log's file name inside the PR's folder.
pub(super) const LOG_FILE: &str = "seen-text.log";

/// The first line of a compacted log (a comment; records are lines that start with `{`).
const HEADER: &[u8] = b"# pr-shepherd/seen-text@1\n";

/// Below this size the log is never compacted.
const COMPACT_FROM: u64 = 1 << 20;

/// A write is issued once this many bytes of whole records are buffered.
const WRITE_CHUNK: usize = 1 << 20;

/// An open, locked log for appending. The lock goes with the file handle.
pub(super) struct LogWriter {
    file: File,
    /// The log's length when it was locked.
    start: u64,
    /// The log's length after what was written so far.
    len: u64,
    buf: Vec<u8>,
    records: usize,
}

impl LogWriter {
    /// Opens (or creates) the log at `path` for appending and takes its lock.
    pub(super) fn open(path: &Path) -> std::io::Result<LogWriter> {
        loop {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .open(path)?;
            file.lock()?;
            // Replaced by a compaction between the open and the lock: the lock is on a file
            // nobody reads any more. Take the new one.
            if !same_file(&file, path)? {
                continue;
            }
            let len = file.metadata()?.len();
            return Ok(LogWriter {
                file,
                start: len,
                len,
                buf: Vec::with_capacity(64 << 10),
                records: 0,
            });
        }
    }

    /// Appends one record: `render` writes its JSON (one line, no raw newline) to the buffer.
    pub(super) fn record(
        &mut self,
        render: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> std::io::Result<()> {
        if self.buf.is_empty() {
            self.buf.push(b'\n');
        }
        let mark = self.buf.len();
        if let Err(e) = render(&mut self.buf) {
            self.buf.truncate(mark);
            return Err(std::io::Error::other(e));
        }
        self.buf.push(b'\n');
        self.records += 1;
        if self.buf.len() >= WRITE_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.len() > 1 {
            self.file.write_all(&self.buf)?;
            self.len += self.buf.len() as u64;
        }
        self.buf.clear();
        Ok(())
    }

    /// Writes what is buffered; every record is then acknowledged. Compacts the log when this
    /// append took it past a power of two and half of it is dead (see the module docs); a
    /// compaction that fails costs space, not records, and is not an error. Returns how many
    /// records were appended.
    pub(super) fn finish(mut self, path: &Path) -> std::io::Result<usize> {
        self.flush()?;
        if self.start > 0 && crossed_power_of_two(self.start, self.len) {
            let _ = compact_locked(&self.file, path, self.len, None, &|_| true, false);
        }
        Ok(self.records)
    }
}

/// Whether `file` (open) is the file at `path` now.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let (open, named) = (file.metadata()?, std::fs::metadata(path));
    Ok(named.is_ok_and(|n| n.dev() == open.dev() && n.ino() == open.ino()))
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> std::io::Result<bool> {
    Ok(path.exists())
}

/// Whether growing from `from` to `to` bytes passes a power of two of at least 1 MiB.
fn crossed_power_of_two(from: u64, to: u64) -> bool {
    to >= COMPACT_FROM && (from == 0 || to.ilog2() > from.ilog2())
}

/// The `id` and `bodyHash` at the start of a record line, read without parsing the rest.
/// `None` when the line does not start that way (it is then parsed whole).
fn record_key(line: &[u8]) -> Option<(String, String)> {
    let rest = line.strip_prefix(b"{\"id\":")?;
    let (id, rest) = json_string(rest)?;
    let rest = rest.strip_prefix(b",\"bodyHash\":")?;
    let (hash, _) = json_string(rest)?;
    Some((id, hash))
}

/// A JSON string at the start of `text`, and what follows it.
fn json_string(text: &[u8]) -> Option<(String, &[u8])> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    let mut escaped = false;
    while let Some(&b) = text.get(i) {
        match b {
            b'"' => {
                let token = &text[..=i];
                let s = if escaped {
                    serde_json::from_slice(token).ok()?
                } else {
                    String::from_utf8(token[1..i].to_vec()).ok()?
                };
                return Some((s, &text[i + 1..]));
            }
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ => i += 1,
        }
    }
    None
}

/// Each line of the log (without its newline) with its offset, in order.
fn lines(file: &File, mut each: impl FnMut(u64, &[u8])) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(256 << 10, file);
    reader.seek(SeekFrom::Start(0))?;
    let mut line = Vec::new();
    let mut at = 0u64;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(());
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if text.first() == Some(&b'{') {
            each(at, text);
        }
        at += n as u64;
    }
}

/// The (id, hash) of a record line that parses whole; `None` for a torn or foreign line.
fn valid_key(line: &[u8]) -> Option<(String, String)> {
    serde_json::from_slice::<IgnoredAny>(line).ok()?;
    record_key(line).or_else(|| {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        Some((
            v.get("id")?.as_str()?.to_owned(),
            v.get("bodyHash")?.as_str()?.to_owned(),
        ))
    })
}

/// The latest record that parses as `T` for each wanted (id, hash) in the log at `path`: one
/// pass, only wanted records parsed. A missing log has none.
pub(super) fn read_wanted<T: serde::de::DeserializeOwned>(
    path: &Path,
    wanted: &HashMap<&str, &str>,
) -> std::io::Result<HashMap<String, T>> {
    let mut out = HashMap::new();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    lines(&file, |_, line| {
        let key = match record_key(line) {
            Some(k) => Some(k),
            None => valid_key(line),
        };
        let Some((id, hash)) = key else {
            return;
        };
        if wanted.get(id.as_str()) == Some(&hash.as_str())
            && let Ok(text) = serde_json::from_slice::<T>(line)
        {
            out.insert(id, text);
        }
    })?;
    Ok(out)
}

/// What a compaction did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Compacted {
    /// Live records written to the new log.
    pub kept: usize,
    /// Ids whose records were dropped because `keep` refused them.
    pub dropped: usize,
}

/// Compacts the log at `path` under its lock: the latest valid record of every id `keep`
/// accepts, then the old per-item files of `legacy_dir` (earlier releases) for ids the log does
/// not have, which are removed once the new log is in place. With `force` it is rewritten even
/// when little of it is dead.
pub(super) fn compact(
    path: &Path,
    legacy_dir: Option<&Path>,
    keep: &dyn Fn(&str) -> bool,
) -> std::io::Result<Compacted> {
    let writer = LogWriter::open(path)?;
    compact_locked(&writer.file, path, writer.len, legacy_dir, keep, true)
}

fn compact_locked(
    file: &File,
    path: &Path,
    len: u64,
    legacy_dir: Option<&Path>,
    keep: &dyn Fn(&str) -> bool,
    force: bool,
) -> std::io::Result<Compacted> {
    // The latest valid record of each id: (offset, length), and the ids in first-seen order.
    let mut latest: HashMap<String, (u64, usize)> = HashMap::new();
    lines(file, |at, line| {
        if let Some((id, _)) = valid_key(line) {
            latest.insert(id, (at, line.len()));
        }
    })?;
    let live: u64 = latest.values().map(|(_, n)| *n as u64 + 1).sum();
    if !force && live * 2 > len {
        return Ok(Compacted::default());
    }
    let before = latest.len();
    latest.retain(|id, _| keep(id));
    let mut report = Compacted {
        kept: latest.len(),
        dropped: before - latest.len(),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(super::TEMP_PREFIX)
        .tempfile_in(dir)?;
    {
        let mut out = std::io::BufWriter::with_capacity(256 << 10, tmp.as_file_mut());
        out.write_all(HEADER)?;
        if let Some(legacy) = legacy_dir {
            for (id, bytes) in legacy_records(legacy) {
                if latest.contains_key(&id) {
                    continue; // the log's record is newer
                }
                if keep(&id) {
                    out.write_all(&bytes)?;
                    out.write_all(b"\n")?;
                    report.kept += 1;
                } else {
                    report.dropped += 1;
                }
            }
        }
        let mut ranges: Vec<(u64, usize)> = latest.into_values().collect();
        ranges.sort_unstable();
        let mut source = file;
        let mut record = Vec::new();
        for (at, n) in ranges {
            record.resize(n, 0);
            source.seek(SeekFrom::Start(at))?;
            source.read_exact(&mut record)?;
            out.write_all(&record)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    if let Some(legacy) = legacy_dir {
        // Everything worth keeping of it is in the log now.
        let _ = std::fs::remove_dir_all(legacy);
    }
    Ok(report)
}

/// The records of the per-item files of earlier releases (`<stem>.json`, one compact JSON
/// object each), with their ids: only those that parse and are named after their id.
fn legacy_records(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".json")?;
            let bytes = std::fs::read(e.path()).ok()?;
            let (id, _) = valid_key(&bytes)?;
            (crate::pr::sha256_hex(id.as_bytes()) == stem && !bytes.contains(&b'\n'))
                .then_some((id, bytes))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Rec {
        id: String,
        body_hash: String,
        body: Option<String>,
    }

    fn rec(id: &str, hash: &str, body: &str) -> Rec {
        Rec {
            id: id.into(),
            body_hash: hash.into(),
            body: Some(body.into()),
        }
    }

    fn append(path: &Path, recs: &[Rec]) -> usize {
        let mut w = LogWriter::open(path).unwrap();
        for r in recs {
            w.record(|buf| serde_json::to_writer(buf, r)).unwrap();
        }
        w.finish(path).unwrap()
    }

    fn read(path: &Path, wanted: &[(&str, &str)]) -> HashMap<String, Rec> {
        let wanted: HashMap<&str, &str> = wanted.iter().copied().collect();
        read_wanted(path, &wanted).unwrap()
    }

    #[test]
    fn the_latest_record_of_the_wanted_hash_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOG_FILE);
        assert!(read(&path, &[("a", "1")]).is_empty(), "no log, no texts");
        assert_eq!(
            append(&path, &[rec("a", "1", "one"), rec("b", "1", "bee")]),
            2
        );
        assert_eq!(append(&path, &[rec("a", "2", "two\nlines \"quoted\"")]), 1);
        let got = read(&path, &[("a", "2"), ("b", "1")]);
        assert_eq!(got["a"].body.as_deref(), Some("two\nlines \"quoted\""));
        assert_eq!(got["b"].body.as_deref(), Some("bee"));
        // The older text of `a` is still there for a marker that still has its hash.
        assert_eq!(read(&path, &[("a", "1")])["a"].body.as_deref(), Some("one"));
        assert!(read(&path, &[("a", "3"), ("c", "1")]).is_empty());
        // Ids that need escaping are found too.
        append(&path, &[rec("tab\there \"q\" \u{1b}", "h", "x")]);
        assert_eq!(read(&path, &[("tab\there \"q\" \u{1b}", "h")]).len(), 1);
    }

    /// Failed before: a run killed in the middle of writing its texts left a partial line that
    /// the next run's first record was glued to, and that record (acknowledged) was lost.
    #[test]
    fn a_torn_tail_loses_no_acknowledged_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOG_FILE);
        append(&path, &[rec("a", "1", "kept before the crash")]);
        // kill -9 in the middle of an append: part of a record, no newline.
        let whole = serde_json::to_string(&rec("b", "1", "never acknowledged")).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&whole.as_bytes()[..whole.len() / 2]).unwrap();
        drop(f);
        // A torn tail that ends like a whole object still does not parse.
        append(&path, &[rec("c", "1", "after the crash")]);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(br#"{"id":"a","bodyHash":"1","body":{"x":1}"#)
            .unwrap();
        drop(f);
        append(&path, &[rec("d", "1", "after the second crash")]);
        let got = read(&path, &[("a", "1"), ("b", "1"), ("c", "1"), ("d", "1")]);
        let mut ids: Vec<&str> = got.keys().map(String::as_str).collect();
        ids.sort();
        assert_eq!(ids, ["a", "c", "d"]);
        assert_eq!(got["a"].body.as_deref(), Some("kept before the crash"));
        // Compaction keeps them and drops the torn bytes.
        let c = compact(&path, None, &|_| true).unwrap();
        assert_eq!(c.kept, 3);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("never acknowledged"), "{text}");
        assert_eq!(read(&path, &[("a", "1"), ("c", "1"), ("d", "1")]).len(), 3);
    }

    #[test]
    fn an_append_that_doubles_the_log_with_dead_records_compacts_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOG_FILE);
        let body = "x".repeat(1000);
        let recs = |hash: &str| -> Vec<Rec> {
            (0..700)
                .map(|i| rec(&format!("item-{i}"), hash, &body))
                .collect()
        };
        append(&path, &recs("1"));
        let first = std::fs::metadata(&path).unwrap().len();
        assert!(first < COMPACT_FROM && first > COMPACT_FROM / 2, "{first}");
        // Every item edited: the log would pass 1 MiB with half of it dead.
        append(&path, &recs("2"));
        let after = std::fs::metadata(&path).unwrap().len();
        assert!(after < first + 100, "not compacted: {first} → {after}");
        let wanted: Vec<(String, &str)> = (0..700).map(|i| (format!("item-{i}"), "2")).collect();
        let wanted: Vec<(&str, &str)> = wanted.iter().map(|(a, b)| (a.as_str(), *b)).collect();
        assert_eq!(read(&path, &wanted).len(), 700);
        // New items only (nothing dead): never rewritten.
        let more: Vec<Rec> = (0..1500)
            .map(|i| rec(&format!("new-{i}"), "1", &body))
            .collect();
        let ino = |p: &Path| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                std::fs::metadata(p).unwrap().ino()
            }
            #[cfg(not(unix))]
            {
                let _ = p;
                0
            }
        };
        let before = ino(&path);
        append(&path, &more);
        assert_eq!(
            ino(&path),
            before,
            "a log without dead records is left as it is"
        );
    }

    #[test]
    fn compaction_absorbs_the_files_of_earlier_releases_and_drops_what_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOG_FILE);
        let legacy = dir.path().join("seen-text");
        std::fs::create_dir(&legacy).unwrap();
        for r in [
            rec("old", "1", "from a file"),
            rec("both", "1", "older file"),
        ] {
            let name = format!("{}.json", crate::pr::sha256_hex(r.id.as_bytes()));
            std::fs::write(legacy.join(name), serde_json::to_vec(&r).unwrap()).unwrap();
        }
        std::fs::write(
            legacy.join("misnamed.json"),
            serde_json::to_vec(&rec("x", "1", "")).unwrap(),
        )
        .unwrap();
        append(
            &path,
            &[rec("both", "2", "newer log"), rec("gone", "1", "pruned")],
        );
        let c = compact(&path, Some(&legacy), &|id| id != "gone").unwrap();
        assert_eq!(
            c,
            Compacted {
                kept: 2,
                dropped: 1
            }
        );
        assert!(!legacy.exists());
        let got = read(&path, &[("old", "1"), ("both", "2"), ("gone", "1")]);
        assert_eq!(got.len(), 2);
        assert_eq!(got["old"].body.as_deref(), Some("from a file"));
        assert!(std::fs::read(&path).unwrap().starts_with(HEADER));
    }

    /// Failed before: two processes writing texts at once; every record of both survives, and a
    /// compaction in the middle loses none.
    #[test]
    fn concurrent_appends_and_compactions_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOG_FILE);
        let body = "y".repeat(3000);
        std::thread::scope(|s| {
            for t in 0..4 {
                let (path, body) = (&path, &body);
                s.spawn(move || {
                    for round in 0..20 {
                        let recs: Vec<Rec> = (0..10)
                            .map(|i| rec(&format!("t{t}-{i}"), &round.to_string(), body))
                            .collect();
                        append(path, &recs);
                        if round % 7 == 3 {
                            compact(path, None, &|_| true).unwrap();
                        }
                    }
                });
            }
        });
        let wanted: Vec<(String, String)> = (0..4)
            .flat_map(|t| (0..10).map(move |i| (format!("t{t}-{i}"), "19".to_owned())))
            .collect();
        let wanted: Vec<(&str, &str)> = wanted
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(read(&path, &wanted).len(), 40);
    }

    #[test]
    fn crossing_powers_of_two() {
        assert!(!crossed_power_of_two(100, 1000));
        assert!(crossed_power_of_two(1000, COMPACT_FROM));
        assert!(!crossed_power_of_two(COMPACT_FROM, COMPACT_FROM + 10));
        assert!(crossed_power_of_two(COMPACT_FROM + 10, 2 * COMPACT_FROM));
    }
}
