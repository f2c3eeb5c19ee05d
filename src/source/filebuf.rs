//! A file's bytes read into memory in two steps: a prefix (to find the PR's coordinates early),
//! then the rest.
//!
//! Large files go into an anonymous memory map advised for transparent huge pages (Linux): on a
//! VM, faulting in an 11 MB buffer 4 KiB at a time costs more than the read itself (measured in
//! docs/perf.md). Anything smaller, anywhere else, or when the map cannot be made, is a `Vec`.

use std::fs::File;
use std::io::Read;

/// Files from this size up are read into a huge-page buffer.
#[cfg(target_os = "linux")]
const HUGE_FROM: u64 = 4 << 20;

pub(super) struct FileBytes {
    storage: Storage,
    len: usize,
}

enum Storage {
    Heap(Vec<u8>),
    #[cfg(target_os = "linux")]
    Mapped(memmap2::MmapMut),
}

impl FileBytes {
    /// An empty buffer sized for `file` as it is now.
    pub(super) fn for_file(file: &File) -> FileBytes {
        FileBytes::for_size(file.metadata().map_or(0, |m| m.len()))
    }

    /// The whole of `path`, read at once: a regular file of at most `limit` bytes (see
    /// `crate::infile`).
    pub(super) fn read(path: &std::path::Path, limit: u64) -> std::io::Result<FileBytes> {
        let mut file = crate::infile::open(path, limit)?;
        let mut buf = FileBytes::for_file(&file);
        buf.read_rest(&mut file, limit)?;
        Ok(buf)
    }

    /// Reads the rest of the file, refusing it once the whole passes `limit` bytes.
    pub(super) fn read_rest(&mut self, file: &mut File, limit: u64) -> std::io::Result<()> {
        let room = limit.saturating_add(1).saturating_sub(self.len as u64);
        self.read_from(file, Some(room))?;
        if self.len as u64 > limit {
            return Err(crate::infile::grew_past(limit));
        }
        Ok(())
    }

    /// The bytes as text; invalid UTF-8 is an `InvalidData` error, as `read_to_string` gives.
    pub(super) fn text(&self) -> std::io::Result<&str> {
        std::str::from_utf8(self.bytes()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )
        })
    }

    /// An empty buffer for a file of (about) `size` bytes.
    pub(super) fn for_size(size: u64) -> FileBytes {
        #[cfg(target_os = "linux")]
        if size >= HUGE_FROM
            && let Some(map) = usize::try_from(size)
                .ok()
                .and_then(|n| n.checked_add(1))
                .and_then(|n| memmap2::MmapOptions::new().len(n).map_anon().ok())
        {
            // Advice only: without huge pages the map still works, a page at a time.
            let _ = map.advise(memmap2::Advice::HugePage);
            return FileBytes {
                storage: Storage::Mapped(map),
                len: 0,
            };
        }
        let capacity = usize::try_from(size).unwrap_or(0).saturating_add(1);
        FileBytes {
            storage: Storage::Heap(Vec::with_capacity(capacity)),
            len: 0,
        }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Storage::Mapped(m) => m.get(..self.len).unwrap_or_default(),
        }
    }

    /// Reads until end of file, or until `limit` more bytes have been read.
    pub(super) fn read_from(&mut self, file: &mut File, limit: Option<u64>) -> std::io::Result<()> {
        match &mut self.storage {
            Storage::Heap(v) => {
                match limit {
                    Some(l) => file.take(l).read_to_end(v)?,
                    None => file.read_to_end(v)?,
                };
                self.len = v.len();
                Ok(())
            }
            #[cfg(target_os = "linux")]
            Storage::Mapped(m) => {
                let cap = m.len();
                let stop = limit
                    .and_then(|l| usize::try_from(l).ok())
                    .map_or(cap, |l| self.len.saturating_add(l).min(cap));
                while self.len < stop {
                    let Some(room) = m.get_mut(self.len..stop) else {
                        break;
                    };
                    match file.read(room) {
                        Ok(0) => return Ok(()),
                        Ok(n) => self.len += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                if self.len == cap {
                    // The file grew while it was read: go on in a Vec.
                    let mut v = self.bytes().to_vec();
                    file.read_to_end(&mut v)?;
                    self.len = v.len();
                    self.storage = Storage::Heap(v);
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(content: &[u8], size_hint: u64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, content).unwrap();
        let mut file = File::open(&path).unwrap();
        let mut buf = FileBytes::for_size(size_hint);
        buf.read_from(&mut file, Some(10)).unwrap();
        assert_eq!(buf.bytes(), &content[..content.len().min(10)]);
        buf.read_from(&mut file, None).unwrap();
        assert_eq!(buf.bytes(), content);
        assert_eq!(FileBytes::read(&path, u64::MAX).unwrap().bytes(), content);
    }

    #[test]
    fn reads_a_prefix_then_the_rest() {
        let big: Vec<u8> = (0..(5u32 << 20)).map(|i| (i % 251) as u8).collect();
        check(&big, big.len() as u64);
        check(b"small file", 10);
        check(b"", 0);
        // The file is larger than announced (it grew): nothing is lost.
        check(&big, 4 << 20);
        check(b"grew after the size was read", 3);
        let empty = FileBytes::for_size(0);
        assert!(empty.text().is_ok_and(str::is_empty));
    }

    #[test]
    fn invalid_utf8_is_invalid_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"{\xff}").unwrap();
        let err = FileBytes::read(&path, u64::MAX)
            .unwrap()
            .text()
            .map(str::len)
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    }
}
