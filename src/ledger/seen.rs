//! Seen markers: one file per item id, named by the SHA-256 of the id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::marker::Marker;
use super::seen_index::{self, Stamp};
use super::{Ledger, LedgerError, write_atomic_via};
use crate::pr::{PrCoords, sha256_hex};

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
    /// How many of `markers` came from the derived index rather than their files.
    pub from_index: usize,
    /// The kept texts of edited items ([`Ledger::attach_kept`]), by id; empty until attached.
    pub kept: HashMap<String, super::KeptText>,
}

/// The markers of a PR read ahead from its derived index ([`Ledger::prefetch_seen`]): the
/// entries whose files still have the recorded stamp.
#[derive(Debug)]
pub struct SeenPrefetch {
    seen_dir: PathBuf,
    index_path: PathBuf,
    /// The markers of the index entries whose file is unchanged, by id: the map the loaded set
    /// is built in (one map of every marker, not two).
    markers: HashMap<String, Marker>,
    /// Their files' stamps, by file name (SHA-256 of the id), sorted: what the index is
    /// rewritten with.
    stamps: Vec<(Digest, Stamp)>,
    /// How many entries the index had.
    indexed: usize,
    /// Whether a stale index may be rewritten.
    write_index: bool,
}

/// How many marker files are read (on several threads) before their markers join the set.
const READ_BATCH: usize = 4096;

/// A SHA-256 digest: a marker's file name, as bytes.
type Digest = [u8; 32];

fn digest(id: &str) -> Digest {
    use sha2::Digest as _;
    sha2::Sha256::digest(id.as_bytes()).into()
}

/// A marker file's stem (64 lowercase hex digits) as a digest.
fn stem_digest(stem: &str) -> Option<Digest> {
    let bytes = stem.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        out[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

fn digest_hex(d: &Digest) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(64);
    for b in d {
        let _ = write!(s, "{b:02x}");
    }
    s
}

impl SeenPrefetch {
    fn read(pr_dir: &Path, write_index: bool) -> SeenPrefetch {
        let seen_dir = pr_dir.join("seen");
        let index_path = pr_dir.join(seen_index::INDEX_FILE);
        let entries = seen_index::read_entries(&index_path);
        let indexed = entries.len();
        // One stat per entry is what a cached load costs: spread it over the cores.
        let unchanged = crate::par::map_chunks(&entries, 1024, |_, part| {
            part.iter()
                .map(|(stem, stamp, _)| {
                    let path = seen_dir.join(format!("{stem}.json"));
                    std::fs::symlink_metadata(path)
                        .ok()
                        .and_then(|m| Stamp::of(&m))
                        .is_some_and(|s| s == *stamp)
                })
                .collect::<Vec<_>>()
        });
        let mut markers = HashMap::with_capacity(entries.len());
        let mut stamps = Vec::with_capacity(entries.len());
        for ((stem, stamp, marker), unchanged) in
            entries.into_iter().zip(unchanged.into_iter().flatten())
        {
            if let Some(d) = stem_digest(&stem).filter(|_| unchanged) {
                stamps.push((d, stamp));
                markers.insert(marker.id.clone(), marker);
            }
        }
        stamps.sort_unstable_by_key(|(d, _)| *d);
        SeenPrefetch {
            seen_dir,
            index_path,
            markers,
            stamps,
            indexed,
            write_index,
        }
    }

    /// The markers of these items: from the index where their files are unchanged, else read
    /// from their files (a missing file is an unseen item; an unusable one is a problem and
    /// its item counts as unseen).
    pub fn finish<'a>(self, ids: impl IntoIterator<Item = &'a str>) -> SeenSet {
        self.finish_at(ids, chrono::Utc::now().timestamp())
    }

    /// [`SeenPrefetch::finish`] at `now` (unix seconds), which decides which files have
    /// settled enough to be cached.
    fn finish_at<'a>(mut self, ids: impl IntoIterator<Item = &'a str>, now: i64) -> SeenSet {
        let mut set = SeenSet::default();
        match std::fs::metadata(&self.seen_dir) {
            Ok(m) if m.is_dir() => {}
            // Nothing marked yet.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return set,
            Ok(_) => {
                set.problems.push(MarkerProblem {
                    path: self.seen_dir.clone(),
                    reason: "not a folder".to_owned(),
                });
                return set;
            }
            Err(e) => {
                set.problems.push(MarkerProblem {
                    path: self.seen_dir.clone(),
                    reason: format!("cannot list markers: {e}"),
                });
                return set;
            }
        }
        let mut asked = std::collections::HashSet::new();
        // The ids with a marker whose file may be cached, with its stamp, for the index.
        let mut cacheable: Vec<(&str, Stamp)> = Vec::new();
        let mut to_read: Vec<(&str, Digest)> = Vec::new();
        let mut markers = std::mem::take(&mut self.markers);
        for id in ids {
            if !asked.insert(id) {
                continue;
            }
            let d = digest(id);
            let stamp = self
                .stamps
                .binary_search_by_key(&d, |(k, _)| *k)
                .ok()
                .and_then(|i| self.stamps.get(i))
                .map(|(_, s)| *s);
            match stamp.filter(|_| markers.get(id).is_some_and(|m| m.id == id)) {
                Some(stamp) => {
                    set.from_index += 1;
                    cacheable.push((id, stamp));
                }
                None => {
                    markers.remove(id);
                    to_read.push((id, d));
                }
            }
        }
        // Markers of items not asked about are not the set's (and go from the index).
        let mut refresh = set.from_index < self.indexed;
        if markers.len() > set.from_index {
            markers.retain(|id, _| asked.contains(id.as_str()));
        }
        drop(asked);
        self.stamps = Vec::new();
        let seen_dir = &self.seen_dir;
        let threads = (crate::par::cores() * 2).clamp(1, 8);
        // A batch at a time, so what the threads read is in the set before more is read.
        let (mut done, mut found) = (0usize, 0usize);
        for batch in to_read.chunks(READ_BATCH) {
            // Only the files that exist give a result.
            let read = crate::par::map_chunks_on(threads, batch, 256, |start, part| {
                part.iter()
                    .enumerate()
                    .filter_map(|(i, (id, d))| {
                        let path = seen_dir.join(format!("{}.json", digest_hex(d)));
                        read_wanted_marker(&path, id)
                            .transpose()
                            .map(|r| (start + i, r))
                    })
                    .collect::<Vec<_>>()
            });
            let hits: usize = read.iter().map(Vec::len).sum();
            // Room for as many more as the batches so far say there are (one table, grown
            // about once, rather than doubling with the old one held beside the new).
            (done, found) = (done + batch.len(), found + hits);
            let left = to_read.len() - done;
            markers.reserve(hits + left * found / done.max(1));
            for (i, result) in read.into_iter().flatten() {
                match result {
                    Ok((m, stamp)) => {
                        // Only a file that has settled may be cached (see `seen_index`).
                        if let (Some(stamp), Some((id, _))) =
                            (stamp.filter(|s| s.settled(now)), batch.get(i))
                        {
                            refresh = true;
                            cacheable.push((id, stamp));
                        }
                        markers.insert(m.id.clone(), m);
                    }
                    Err(p) => set.problems.push(p),
                }
            }
        }
        set.markers = markers;
        if refresh && self.write_index {
            let markers = &set.markers;
            // A cache: failing to write it costs speed next time, nothing else.
            let _ = seen_index::write(
                &self.index_path,
                cacheable.iter().filter_map(|(id, stamp)| {
                    Some((digest_hex(&digest(id)), stamp, markers.get(*id)?))
                }),
            );
        }
        set
    }
}

/// The marker of `id` in the file at `path` with the file's stamp: `Ok(None)` when there is no
/// file, a problem when it cannot be used. One open, one `fstat`, one read.
fn read_wanted_marker(
    path: &Path,
    id: &str,
) -> Result<Option<(Marker, Option<Stamp>)>, MarkerProblem> {
    use std::io::Read;
    let problem = |reason: String| MarkerProblem {
        path: path.to_path_buf(),
        reason,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(problem(format!("unreadable: {e}"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| problem(format!("unreadable: {e}")))?;
    if !meta.is_file() {
        return Err(problem("not a regular file".to_owned()));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(1 << 16) as usize + 1);
    file.read_to_end(&mut bytes)
        .map_err(|e| problem(format!("unreadable: {e}")))?;
    let marker =
        serde_json::from_slice::<Marker>(&bytes).map_err(|e| problem(format!("corrupt: {e}")))?;
    if marker.id != id {
        return Err(problem(format!(
            "its id `{}` does not match its file name",
            marker.id.escape_debug()
        )));
    }
    Ok(Some((marker, Stamp::of(&meta))))
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

/// Reads marker files (path, stem), several threads at a time once there are many (reading
/// thousands of small files is syscall-bound, so twice as many threads as cores). One result
/// per file, in order.
fn read_markers(files: &[(PathBuf, String)]) -> Vec<Result<Marker, MarkerProblem>> {
    let threads = (crate::par::cores() * 2).clamp(1, 8);
    crate::par::map_chunks_on(threads, files, 256, |_, part| {
        part.iter()
            .map(|(path, stem)| read_marker(path, stem))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

impl Ledger {
    /// Reads every marker of the PR. Missing dir → empty set. Unreadable, corrupt or misnamed
    /// markers are reported in `problems` and otherwise ignored (the item re-surfaces).
    ///
    /// Markers whose files are unchanged since an earlier read come from the PR's derived index
    /// (see `seen_index`); the rest are read from their files, and the index is refreshed when
    /// that taught it something.
    pub fn load_seen(&self, pr: &PrCoords) -> Result<SeenSet, LedgerError> {
        self.load_seen_with(pr, self.now(), true)
    }

    /// [`Ledger::load_seen`] that writes nothing, not even the derived index: the same markers,
    /// for readers that must leave the state dir untouched (the inbox counts every PR's items
    /// without a trace).
    pub fn peek_seen(&self, pr: &PrCoords) -> Result<SeenSet, LedgerError> {
        self.load_seen_with(pr, self.now(), false)
    }

    /// The markers of these items only (the PR's current item ids): each one's file is looked
    /// up by name, so markers of items the PR no longer has cost nothing, however many there
    /// are (`state prune` removes them). The derived index serves the markers whose files are
    /// unchanged, and is refreshed when this taught it something.
    pub fn load_seen_of<'a>(
        &self,
        pr: &PrCoords,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<SeenSet, LedgerError> {
        Ok(self.prefetch_seen(pr)?.finish_at(ids, self.now()))
    }

    /// [`Ledger::load_seen_of`] that writes nothing, not even the derived index, and reads a
    /// folder of the old layout where it is (the inbox counts every PR's items without a trace).
    pub fn peek_seen_of<'a>(
        &self,
        pr: &PrCoords,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<SeenSet, LedgerError> {
        let dir = self.pr_dir_to_read(pr)?;
        Ok(SeenPrefetch::read(&dir, false).finish_at(ids, self.now()))
    }

    /// The first half of [`Ledger::load_seen_of`], which needs no item ids: the derived index
    /// is read and each entry's file checked (one `stat` each), so it can run while the
    /// snapshot is still being parsed. [`SeenPrefetch::finish`] does the rest.
    pub fn prefetch_seen(&self, pr: &PrCoords) -> Result<SeenPrefetch, LedgerError> {
        let dir = self.pr_dir(pr)?;
        // Leftovers of killed runs go (markers' temporary files are made in the PR's folder).
        self.sweep_temps(pr);
        Ok(SeenPrefetch::read(&dir, true))
    }

    /// Removes the markers of items that are not in `keep` (the PR's current item ids), and
    /// their kept texts. A marker is removed only when its file name is exactly a marker's name
    /// (`<sha256-hex>.json`) that no id in `keep` has: never a marker of a kept item, never a
    /// file of another kind. Returns (markers removed, kept texts dropped).
    pub fn prune_seen<'a>(
        &self,
        pr: &PrCoords,
        keep: impl IntoIterator<Item = &'a str>,
    ) -> Result<(usize, usize), LedgerError> {
        let keep: std::collections::HashSet<&str> = keep.into_iter().collect();
        let stems: std::collections::HashSet<String> =
            keep.iter().map(|id| sha256_hex(id.as_bytes())).collect();
        let dir = self.seen_dir(pr)?;
        let mut removed = 0;
        match std::fs::read_dir(&dir) {
            Ok(entries) => {
                let now = std::time::SystemTime::now();
                for entry in entries.flatten() {
                    let Ok(name) = entry.file_name().into_string() else {
                        continue;
                    };
                    if super::is_own_temp(&name) {
                        crate::outfile::remove_if_stale(&entry.path(), now);
                        continue;
                    }
                    let Some(stem) = name.strip_suffix(".json") else {
                        continue;
                    };
                    let is_marker_name = stem.len() == 64
                        && stem.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
                    if !is_marker_name || stems.contains(stem) {
                        continue;
                    }
                    match std::fs::remove_file(entry.path()) {
                        Ok(()) => removed += 1,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(LedgerError::io("remove", &entry.path())(e)),
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LedgerError::io("list", &dir)(e)),
        }
        let dropped = self.prune_kept(pr, &|id| keep.contains(id))?;
        Ok((removed, dropped))
    }

    /// [`Ledger::load_seen`] with the current time given (unix seconds), which decides which
    /// files have settled enough to be cached.
    #[cfg(test)]
    pub(super) fn load_seen_at(&self, pr: &PrCoords, now: i64) -> Result<SeenSet, LedgerError> {
        self.load_seen_with(pr, now, true)
    }

    /// The markers; `write_index` says whether a stale derived index may be refreshed.
    fn load_seen_with(
        &self,
        pr: &PrCoords,
        now: i64,
        write_index: bool,
    ) -> Result<SeenSet, LedgerError> {
        // A reader that writes nothing reads a folder of the old layout where it is.
        let pr_dir = if write_index {
            self.pr_dir(pr)?
        } else {
            self.pr_dir_to_read(pr)?
        };
        let dir = pr_dir.join("seen");
        let index_path = pr_dir.join(seen_index::INDEX_FILE);
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
        let index_text = seen_index::read_text(&index_path);
        // One slot per marker file, in listing order (the order the index is written in):
        // its stem, its stamp if it may be cached, and its marker once known.
        let mut slots: Vec<(String, Option<Stamp>, Option<Marker>)> = Vec::new();
        // The files to read, and the slot each one fills.
        let mut to_read: Vec<(PathBuf, String)> = Vec::new();
        let mut to_read_slots: Vec<usize> = Vec::new();
        let mut index = seen_index::Lookup::new(&index_text);
        // The ledger's own temporary files, perhaps left by a killed run.
        let mut temps: Vec<PathBuf> = Vec::new();
        let files: Vec<(std::fs::DirEntry, String)> = entries
            .flatten()
            .filter_map(|entry| {
                let mut name = entry.file_name().into_string().ok()?;
                if super::is_own_temp(&name) {
                    temps.push(entry.path());
                    return None;
                }
                // Anything else that is not a marker.
                if name.starts_with('.') || !name.ends_with(".json") {
                    return None;
                }
                name.truncate(name.len() - ".json".len());
                Some((entry, name))
            })
            .collect();
        // One stat per file is most of what a cached load costs: spread it over the cores.
        let stamps = crate::par::map_chunks(&files, 1024, |_, part| {
            part.iter()
                .map(|(entry, _)| entry.metadata().ok().and_then(|m| Stamp::of(&m)))
                .collect::<Vec<_>>()
        });
        for ((entry, name), stamp) in files.into_iter().zip(stamps.into_iter().flatten()) {
            let cached = index
                .take(&name)
                .filter(|c| Some(c.stamp) == stamp)
                .and_then(|c| c.marker());
            if cached.is_some() {
                set.from_index += 1;
            } else {
                to_read_slots.push(slots.len());
                to_read.push((entry.path(), name.clone()));
            }
            slots.push((name, stamp, cached));
        }
        let mut refresh = index.stale();
        for (result, slot) in read_markers(&to_read).into_iter().zip(to_read_slots) {
            let Some((_, slot_stamp, marker)) = slots.get_mut(slot) else {
                continue;
            };
            match result {
                Ok(m) => {
                    // Only a file that has settled may be cached (see `seen_index`).
                    *slot_stamp = slot_stamp.filter(|s| s.settled(now));
                    refresh |= slot_stamp.is_some();
                    *marker = Some(m);
                }
                Err(p) => set.problems.push(p),
            }
        }
        if refresh && write_index {
            // A cache: failing to write it costs speed next time, nothing else.
            let _ = seen_index::write(
                &index_path,
                slots.iter().filter_map(|(stem, stamp, marker)| {
                    Some((stem.as_str(), stamp.as_ref()?, marker.as_ref()?))
                }),
            );
        }
        set.markers = slots
            .into_iter()
            .filter_map(|(_, _, marker)| marker)
            .map(|m| (m.id.clone(), m))
            .collect();
        // Leftovers of killed runs go (only stale ones: a live run may be writing one now), but
        // not for a reader that must write nothing.
        if write_index {
            let wall = std::time::SystemTime::now();
            for t in &temps {
                crate::outfile::remove_if_stale(t, wall);
            }
            self.sweep_temps(pr);
        }
        Ok(set)
    }

    /// Loads the kept texts of the snapshot's edited items (a marker with another hash) into
    /// `seen.kept`, so a view can show what changed. Unreadable texts are left out.
    pub fn attach_kept(&self, pr: &PrCoords, snapshot: &crate::pr::Snapshot, seen: &mut SeenSet) {
        let markers = &seen.markers;
        let edited: Vec<(String, String)> =
            crate::par::map_chunks(&snapshot.items, 512, |_, part| {
                part.iter()
                    .filter_map(|item| {
                        let m = markers.get(item.id())?;
                        (m.body_hash != item.body_hash())
                            .then(|| (item.id().to_owned(), m.body_hash.clone()))
                    })
                    .collect::<Vec<_>>()
            })
            .into_iter()
            .flatten()
            .collect();
        let wanted = edited.iter().map(|(a, b)| (a.as_str(), b.as_str()));
        if let Ok(kept) = self.load_kept(pr, wanted) {
            seen.kept = kept;
        }
    }

    /// The marker of one item, if it has a usable one (read from its file).
    pub fn load_marker(&self, pr: &PrCoords, id: &str) -> Result<Option<Marker>, LedgerError> {
        let path = self.seen_dir(pr)?.join(marker_file_name(id));
        Ok(std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Marker>(&b).ok())
            .filter(|m| m.id == id))
    }

    /// Records that these items (id, current body hash) were surfaced at `now`. A new marker
    /// gets `seenAt = now`; an existing one keeps its original `seenAt` and unknown fields and
    /// takes the new hash. Returns how many marker files were written; when any could not be
    /// (a full disk, say), every one is still tried and the first failure is the error — see
    /// [`Ledger::mark_seen_each`] for which ones and why.
    pub fn mark_seen(
        &self,
        pr: &PrCoords,
        items: &[(&str, &str)],
        now: i64,
    ) -> Result<usize, LedgerError> {
        let report = self.mark_seen_each(pr, items, now)?;
        match report.failed.into_iter().next() {
            Some(f) => Err(f.error),
            None => Ok(report.written),
        }
    }

    /// [`Ledger::mark_seen`], saying marker by marker which could not be saved and why. Each
    /// marker is written whole or not at all (`write_atomic`): a failed write leaves the old
    /// marker, or none, never a part of one. `Err` only when the PR's seen folder is unusable.
    pub fn mark_seen_each(
        &self,
        pr: &PrCoords,
        items: &[(&str, &str)],
        now: i64,
    ) -> Result<MarkReport, LedgerError> {
        let pr_dir = self.pr_dir(pr)?;
        let write = |path: &Path, bytes: &[u8]| write_atomic_via(&pr_dir, path, bytes);
        self.mark_seen_with(pr, items, now, &marker_in_file, &write)
    }

    /// [`Ledger::mark_seen_each`] for markers just loaded: what each item's marker held comes
    /// from `seen` (loaded by [`Ledger::load_seen_of`] for these items), so no marker file is
    /// read again; an item without a marker there gets a new one. Under a race with another
    /// run marking the same item, the last writer's marker wins (seed 000).
    pub fn mark_seen_loaded(
        &self,
        pr: &PrCoords,
        items: &[(&str, &str)],
        seen: &SeenSet,
        now: i64,
    ) -> Result<MarkReport, LedgerError> {
        let known = |id: &str, _: &Path| seen.markers.get(id).cloned();
        let pr_dir = self.pr_dir(pr)?;
        let write = |path: &Path, bytes: &[u8]| write_atomic_via(&pr_dir, path, bytes);
        self.mark_seen_with(pr, items, now, &known, &write)
    }

    /// Marks `items`, taking each one's previous marker from `previous` (given the id and the
    /// marker's path) and writing with `write` (tests inject failures). The folder is created
    /// once; the files are written on several threads (each write waits on the file system).
    fn mark_seen_with(
        &self,
        pr: &PrCoords,
        items: &[(&str, &str)],
        now: i64,
        previous: &(dyn Fn(&str, &Path) -> Option<Marker> + Sync),
        write: &MarkerWriter<'_>,
    ) -> Result<MarkReport, LedgerError> {
        let dir = self.seen_dir(pr)?;
        std::fs::create_dir_all(&dir).map_err(LedgerError::io("create", &dir))?;
        let mark = |id: &str, hash: &str| -> Option<Result<(), MarkFailure>> {
            let path = dir.join(marker_file_name(id));
            let marker = match previous(id, &path) {
                Some(m) if m.body_hash == hash => return None, // nothing to change
                Some(mut m) => {
                    m.body_hash = hash.to_owned();
                    m
                }
                None => Marker {
                    id: id.to_owned(),
                    seen_at: now,
                    body_hash: hash.to_owned(),
                    extra: serde_json::Map::new(),
                },
            };
            let bytes = serde_json::to_vec(&marker).unwrap_or_default();
            Some(write(&path, &bytes).map_err(|error| MarkFailure {
                id: id.to_owned(),
                error,
            }))
        };
        let threads = (crate::par::cores() * 2).clamp(1, 8);
        let done = crate::par::map_chunks_on(threads, items, 256, |_, part| {
            part.iter()
                .filter_map(|(id, hash)| mark(id, hash))
                .collect::<Vec<_>>()
        });
        let mut report = MarkReport::default();
        for result in done.into_iter().flatten() {
            match result {
                Ok(()) => report.written += 1,
                Err(f) => report.failed.push(f),
            }
        }
        Ok(report)
    }
}

/// Writes one marker's bytes to its path (atomically; tests inject failures).
type MarkerWriter<'a> = dyn Fn(&Path, &[u8]) -> Result<(), LedgerError> + Sync + 'a;

/// The marker in the file at `path`, if it is `id`'s and readable (what the file-based
/// [`Ledger::mark_seen`] starts from).
fn marker_in_file(id: &str, path: &Path) -> Option<Marker> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Marker>(&b).ok())
        .filter(|m| m.id == id)
}

/// What [`Ledger::mark_seen_each`] did.
#[derive(Debug, Default)]
pub struct MarkReport {
    /// Marker files written.
    pub written: usize,
    /// The markers that could not be saved, each with why.
    pub failed: Vec<MarkFailure>,
}

/// One marker that could not be saved.
#[derive(Debug)]
pub struct MarkFailure {
    /// The item's id.
    pub id: String,
    pub error: LedgerError,
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
            .join("prs/octo/demo/7/seen")
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

    /// Loads as if `secs` had passed, so the markers just written count as settled.
    fn load_later(ledger: &Ledger, secs: i64) -> SeenSet {
        ledger
            .load_seen_at(&coords(), chrono::Utc::now().timestamp() + secs)
            .expect("load")
    }

    fn hashes(set: &SeenSet) -> Vec<(String, String)> {
        let mut v: Vec<_> = set
            .markers
            .values()
            .map(|m| (m.id.clone(), m.body_hash.clone()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn settled_markers_come_from_the_index_until_their_files_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let items: Vec<(String, String)> = (0..300)
            .map(|i| (format!("IC_{i}"), format!("{i:016x}")))
            .collect();
        let pairs: Vec<(&str, &str)> = items
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        ledger.mark_seen(&coords(), &pairs, 1).expect("mark");
        let index = ledger
            .pr_dir(&coords())
            .expect("dir")
            .join(seen_index::INDEX_FILE);

        // Just written: not settled, so read from the files and not cached.
        let fresh = ledger.load_seen(&coords()).expect("load");
        assert_eq!((fresh.markers.len(), fresh.from_index), (300, 0));
        assert!(!index.exists(), "unsettled markers must not be cached");

        // Settled: the first load builds the index, the next one is served by it.
        let first = load_later(&ledger, 10);
        assert_eq!((first.markers.len(), first.from_index), (300, 0));
        assert!(index.exists());
        let second = load_later(&ledger, 10);
        assert_eq!(second.from_index, 300);
        assert_eq!(hashes(&second), hashes(&fresh));

        // Replaced by rename (what every writer does), removed, edited in place, added: each
        // is seen at once, and only those files are read.
        let seen = ledger.seen_dir(&coords()).expect("dir");
        ledger
            .mark_seen(&coords(), &[("IC_1", "aaaaaaaaaaaaaaaa")], 2)
            .expect("mark");
        std::fs::remove_file(seen.join(marker_file_name("IC_2"))).expect("rm");
        std::fs::write(
            seen.join(marker_file_name("IC_3")),
            r#"{"id":"IC_3","seenAt":1,"bodyHash":"in place, longer"}"#,
        )
        .expect("write in place");
        ledger
            .mark_seen(&coords(), &[("IC_new", "bbbbbbbbbbbbbbbb")], 3)
            .expect("mark");
        let third = load_later(&ledger, 10);
        assert_eq!(third.markers.len(), 300);
        assert_eq!(third.markers["IC_1"].body_hash, "aaaaaaaaaaaaaaaa");
        assert!(!third.markers.contains_key("IC_2"));
        assert_eq!(third.markers["IC_3"].body_hash, "in place, longer");
        assert_eq!(third.markers["IC_new"].seen_at, 3);
        assert_eq!(third.from_index, 297);
        let fourth = load_later(&ledger, 10);
        assert_eq!(fourth.from_index, 300);
        assert_eq!(hashes(&fourth), hashes(&third));

        // A broken index is ignored; a deleted one is rebuilt.
        std::fs::write(&index, "garbage").expect("write");
        let fifth = load_later(&ledger, 10);
        assert_eq!((fifth.from_index, hashes(&fifth)), (0, hashes(&third)));
        std::fs::remove_file(&index).expect("rm");
        assert_eq!(load_later(&ledger, 10).from_index, 0);
        assert_eq!(load_later(&ledger, 10).from_index, 300);
    }

    #[test]
    fn an_indexed_marker_that_turns_corrupt_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        ledger
            .mark_seen(&coords(), &[("A", "1111"), ("B", "2222")], 1)
            .expect("mark");
        assert_eq!(load_later(&ledger, 10).from_index, 0);
        assert_eq!(load_later(&ledger, 10).from_index, 2);
        let seen = ledger.seen_dir(&coords()).expect("dir");
        std::fs::write(seen.join(marker_file_name("B")), "{not json").expect("write");
        let set = load_later(&ledger, 10);
        assert_eq!(set.markers.len(), 1);
        assert_eq!(set.problems.len(), 1, "{:?}", set.problems);
    }

    /// Failed before it was fixed: a marker that could not be written stopped the rest and the
    /// caller could not say which; now every marker is tried and each failure is named.
    #[test]
    fn each_marker_that_cannot_be_saved_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let items = [("A", "1"), ("B", "2"), ("C", "3"), ("D", "4")];
        let full_disk = |path: &std::path::Path, bytes: &[u8]| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == marker_file_name("B") || name == marker_file_name("D") {
                Err(LedgerError::io("write", path)(
                    std::io::Error::from_raw_os_error(28),
                ))
            } else {
                crate::ledger::write_atomic(path, bytes)
            }
        };
        let report = ledger
            .mark_seen_with(&coords(), &items, 1, &marker_in_file, &full_disk)
            .expect("the folder is usable");
        assert_eq!(report.written, 2);
        let failed: Vec<&str> = report.failed.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(failed, ["B", "D"]);
        assert!(report.failed[0].error.to_string().contains("No space left"));
        let set = ledger.load_seen(&coords()).expect("load");
        assert_eq!(set.markers.len(), 2);
        assert!(set.problems.is_empty(), "{:?}", set.problems);
        // The plain form tries every marker too and fails with the first failure.
        let dir2 = tempfile::tempdir().expect("tempdir");
        let l2 = Ledger::new(dir2.path());
        std::fs::create_dir_all(l2.seen_dir(&coords()).unwrap()).unwrap();
        std::fs::create_dir(l2.seen_dir(&coords()).unwrap().join(marker_file_name("A"))).unwrap();
        assert!(l2.mark_seen(&coords(), &items, 1).is_err());
        assert_eq!(l2.load_seen(&coords()).unwrap().markers.len(), 3);
    }

    /// Failed before it was fixed: temporary files of a killed run stayed in `seen/` forever.
    #[test]
    fn stale_temporary_files_of_killed_runs_are_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        ledger.mark_seen(&coords(), &[("A", "1")], 1).expect("mark");
        let seen = ledger.seen_dir(&coords()).unwrap();
        let pr_dir = ledger.pr_dir(&coords()).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let make = |path: std::path::PathBuf, stale: bool| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let f = std::fs::File::create(&path).unwrap();
            if stale {
                f.set_modified(old).unwrap();
            }
            path
        };
        let stale = [
            make(seen.join(".tmp-a1B2c3"), true),
            make(pr_dir.join(".tmp-zzzzzz"), true),
            make(pr_dir.join("runs").join(".tmp-000000"), true),
        ];
        let kept = [
            make(seen.join(".tmp-fresh1"), false), // a live run may be writing it
            make(seen.join(".tmp-a1B2c3.json"), true), // not the tool's pattern
            make(seen.join(".tmp-abc"), true),     // not the tool's pattern
            make(seen.join("notes.tmp-abcdef"), true), // not the tool's pattern
            make(pr_dir.join("runs").join("keep.txt"), true),
        ];
        let set = ledger.load_seen(&coords()).expect("load");
        assert_eq!(set.markers.len(), 1);
        for p in &stale {
            assert!(!p.exists(), "{} is left", p.display());
        }
        for p in &kept {
            assert!(p.exists(), "{} was removed", p.display());
        }
        assert!(super::super::is_own_temp(".tmp-Ab12Z9"));
        assert!(!super::super::is_own_temp(".tmp-Ab12Z9x"));
        assert!(!super::super::is_own_temp(".tmp-Ab-2Z9"));
    }

    /// Failed before: every marker of the PR was read (and the index held them all), whatever
    /// the PR still had; with a million stale markers an 18-item PR took seconds and gigabytes.
    /// Only the asked-for items' markers are read now: a stale corrupt one is not even seen,
    /// and the index keeps the PR's items only.
    #[test]
    fn only_the_markers_of_the_asked_items_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let current: Vec<String> = (0..50).map(|i| format!("IC_now_{i}")).collect();
        let stale: Vec<String> = (0..400).map(|i| format!("IC_gone_{i}")).collect();
        let pairs: Vec<(&str, &str)> = current
            .iter()
            .chain(&stale)
            .map(|id| (id.as_str(), "1111111111111111"))
            .collect();
        ledger.mark_seen(&coords(), &pairs, 1).expect("mark");
        let seen = ledger.seen_dir(&coords()).expect("dir");
        std::fs::write(seen.join(marker_file_name("IC_gone_0")), "{not json").expect("corrupt");
        let later = chrono::Utc::now().timestamp() + 10;
        let ids = || {
            current
                .iter()
                .map(String::as_str)
                .chain(["IC_never_marked"])
        };
        let load = || {
            ledger
                .prefetch_seen(&coords())
                .expect("prefetch")
                .finish_at(ids(), later)
        };
        let first = load();
        assert_eq!((first.markers.len(), first.from_index), (50, 0));
        assert!(first.problems.is_empty(), "{:?}", first.problems);
        let index = ledger
            .pr_dir(&coords())
            .unwrap()
            .join(seen_index::INDEX_FILE);
        assert_eq!(
            seen_index::read_entries(&index).len(),
            50,
            "the index holds the PR's items"
        );
        let second = load();
        assert_eq!((second.markers.len(), second.from_index), (50, 50));
        // A corrupt marker of an asked item is still reported.
        std::fs::write(seen.join(marker_file_name("IC_now_3")), "{not json").expect("corrupt");
        let third = load();
        assert_eq!(third.markers.len(), 49);
        assert_eq!(third.problems.len(), 1, "{:?}", third.problems);
        // The full listing (state show) still sees everything, both corrupt markers included.
        let all = ledger.load_seen(&coords()).expect("load");
        assert_eq!((all.markers.len(), all.problems.len()), (448, 2));
    }

    /// Failed before: marking re-read every marker it was about to write, though the run had
    /// just loaded it. Marking after a load starts from what was loaded: `seenAt` and unknown
    /// fields are kept even when the file is gone by then, and an unchanged hash writes nothing.
    #[test]
    fn marking_after_a_load_reads_no_marker_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let path = ledger
            .seen_dir(&coords())
            .unwrap()
            .join(marker_file_name("X"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"id":"X","seenAt":5,"bodyHash":"aaaa","note":"kept"}"#,
        )
        .unwrap();
        let loaded = ledger
            .load_seen_of(&coords(), ["X", "Y", "Z"])
            .expect("load");
        std::fs::remove_file(&path).unwrap();
        let report = ledger
            .mark_seen_loaded(&coords(), &[("X", "bbbb"), ("Y", "cccc")], &loaded, 99)
            .expect("mark");
        assert_eq!((report.written, report.failed.len()), (2, 0));
        let after = ledger.load_seen_of(&coords(), ["X", "Y"]).expect("load");
        assert_eq!(after.markers["X"].seen_at, 5);
        assert_eq!(after.markers["X"].extra["note"], "kept");
        assert_eq!(after.markers["X"].body_hash, "bbbb");
        assert_eq!(after.markers["Y"].seen_at, 99);
        let unchanged = ledger
            .mark_seen_loaded(&coords(), &[("X", "bbbb")], &after, 100)
            .expect("mark");
        assert_eq!(unchanged.written, 0);
    }

    /// `state prune`: markers of items not kept go, the kept ones and every other file stay.
    #[test]
    fn pruning_removes_only_markers_of_items_not_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        let pairs = [("A", "1"), ("B", "2"), ("C", "3"), ("D", "4")];
        ledger.mark_seen(&coords(), &pairs, 1).expect("mark");
        let seen = ledger.seen_dir(&coords()).unwrap();
        let others = ["notes.json", "README", "abc.json"];
        for f in others {
            std::fs::write(seen.join(f), "not a marker").unwrap();
        }
        assert_eq!(
            ledger
                .prune_seen(&coords(), ["A", "C", "E"])
                .expect("prune"),
            (2, 0)
        );
        let left = ledger.load_seen(&coords()).expect("load");
        let mut ids: Vec<&str> = left.markers.keys().map(String::as_str).collect();
        ids.sort();
        assert_eq!(ids, ["A", "C"]);
        assert!(others.iter().all(|f| seen.join(f).exists()));
        assert_eq!(
            ledger.prune_seen(&coords(), ["A", "C"]).expect("prune"),
            (0, 0)
        );
    }

    proptest::proptest! {
        /// Whatever the PR holds and whatever else was marked, pruning keeps every marker of an
        /// item the PR has and no other marker.
        #[test]
        fn pruning_never_removes_a_marker_of_a_kept_item(
            marked in proptest::collection::btree_set("[A-Za-z0-9_]{1,12}", 0..40),
            kept in proptest::collection::btree_set("[A-Za-z0-9_]{1,12}", 0..40),
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let ledger = Ledger::new(dir.path());
            let pairs: Vec<(&str, &str)> = marked.iter().map(|id| (id.as_str(), "h")).collect();
            ledger.mark_seen(&coords(), &pairs, 1).expect("mark");
            let (removed, _) = ledger
                .prune_seen(&coords(), kept.iter().map(String::as_str))
                .expect("prune");
            let left: std::collections::BTreeSet<String> =
                ledger.load_seen(&coords()).expect("load").markers.into_keys().collect();
            let expected: std::collections::BTreeSet<String> =
                marked.intersection(&kept).cloned().collect();
            proptest::prop_assert_eq!(removed, marked.len() - expected.len());
            proptest::prop_assert_eq!(left, expected);
        }
    }

    #[test]
    fn missing_dir_is_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let set = Ledger::new(dir.path()).load_seen(&coords()).expect("load");
        assert!(set.markers.is_empty() && set.problems.is_empty());
    }

    #[test]
    fn forget_seen_keeps_the_draft_and_the_outbox() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = Ledger::new(dir.path());
        ledger
            .mark_seen(&coords(), &[("A", "1"), ("B", "2")], 1)
            .expect("mark");
        let draft = crate::ledger::Draft {
            body: "## PR Shepherd Review".to_owned(),
            head_sha: "abc".to_owned(),
            saved_at: 1,
        };
        ledger.save_draft(&coords(), &draft).expect("draft");
        assert_eq!(ledger.forget_seen(&coords()).expect("forget"), 2);
        assert!(
            ledger
                .load_seen(&coords())
                .expect("load")
                .markers
                .is_empty()
        );
        assert!(ledger.load_draft(&coords()).expect("draft").is_some());
        assert!(ledger.has_draft(&coords()).expect("has"));
        assert_eq!(ledger.forget_seen(&coords()).expect("forget"), 0);
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
