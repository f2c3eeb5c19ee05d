//! Progress lines for long headless work (`review` per aspect, `record` per page, `inbox` per PR
//! counted): on stderr, only when stderr is a terminal and `--quiet` was not given. Standard
//! output is never touched, so pipes stay clean.
//!
//! A [`Progress`] is cheap to clone and can be shared across tasks. A disabled one does nothing
//! (not even format its message), so callers need not check first.
//!
//! ```
//! use pr_shepherd::progress::Progress;
//! let p = Progress::stderr(false); // on a terminal: enabled; in a pipe or under a test: silent
//! p.step(2, Some(6), "security: done, 1 finding(s) in 3.2 s");
//! p.line("review finished in 9.1 s");
//! ```

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

/// Where progress lines go.
type Sink = Arc<Mutex<Box<dyn Write + Send>>>;

/// A progress reporter: a sink, or nothing.
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Sink>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

/// Whether progress is shown: never with `--quiet`, else only when stderr is a terminal.
pub fn wanted(quiet: bool, stderr_is_terminal: bool) -> bool {
    !quiet && stderr_is_terminal
}

impl Progress {
    /// Progress on stderr when it is a terminal and `quiet` is false; otherwise silent.
    pub fn stderr(quiet: bool) -> Progress {
        if wanted(quiet, std::io::stderr().is_terminal()) {
            Progress::to(Box::new(std::io::stderr()))
        } else {
            Progress::off()
        }
    }

    /// A reporter that shows nothing.
    pub fn off() -> Progress {
        Progress { sink: None }
    }

    /// A reporter writing to `sink` (tests; a caller that has decided on its own).
    pub fn to(sink: Box<dyn Write + Send>) -> Progress {
        Progress {
            sink: Some(Arc::new(Mutex::new(sink))),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.sink.is_some()
    }

    /// One line. The text is made one line and stripped of control characters first: it may
    /// carry names from GitHub or an LLM's error text.
    pub fn line(&self, text: &str) {
        let Some(sink) = &self.sink else { return };
        let text = crate::sanitize::one_line(text);
        if let Ok(mut w) = sink.lock() {
            // Progress is best effort: a closed stderr must not fail the command.
            let _ = writeln!(w, "{text}").and_then(|()| w.flush());
        }
    }

    /// One step of a known (`total`) or open-ended amount of work: `[done/total] text`, or
    /// `[done] text`.
    pub fn step(&self, done: usize, total: Option<usize>, text: &str) {
        if !self.is_enabled() {
            return;
        }
        match total {
            Some(t) => self.line(&format!("[{done}/{t}] {text}")),
            None => self.line(&format!("[{done}] {text}")),
        }
    }

    /// A counter over this reporter for work whose steps finish in any order (aspects running
    /// concurrently, PRs of an inbox).
    pub fn counter(&self, total: Option<usize>) -> Counter {
        Counter {
            progress: self.clone(),
            total,
            done: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        }
    }
}

/// Counts finished steps and prints each as `[n/total] text`.
#[derive(Clone, Debug)]
pub struct Counter {
    progress: Progress,
    total: Option<usize>,
    done: Arc<std::sync::atomic::AtomicUsize>,
}

impl Counter {
    /// One more step finished.
    pub fn tick(&self, text: &str) {
        let n = self
            .done
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .saturating_add(1);
        self.progress.step(n, self.total, text);
    }

    /// A line outside the count (a summary, a warning that belongs to the progress).
    pub fn note(&self, text: &str) {
        self.progress.line(text);
    }

    pub fn done(&self) -> usize {
        self.done.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared buffer to read back what was written.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Buf {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn shown_only_on_a_terminal_and_never_when_quiet() {
        assert!(wanted(false, true));
        assert!(!wanted(true, true));
        assert!(!wanted(false, false));
        assert!(!wanted(true, false));
    }

    #[test]
    fn counts_steps_and_sanitizes() {
        let buf = Buf::default();
        let p = Progress::to(Box::new(buf.clone()));
        let c = p.counter(Some(3));
        c.tick("tests: done");
        c.tick("perf: failed: \u{1b}[31mboom\nsecond line");
        c.note("finished");
        p.step(7, None, "page");
        assert_eq!(c.done(), 2);
        let text = buf.text();
        assert!(
            text.starts_with("[1/3] tests: done\n[2/3] perf: failed: "),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(text.ends_with("finished\n[7] page\n"), "{text:?}");
        assert_eq!(text.lines().count(), 4, "{text:?}");
    }

    #[test]
    fn off_writes_nothing() {
        let p = Progress::off();
        assert!(!p.is_enabled());
        p.line("x");
        p.counter(None).tick("y");
    }
}
