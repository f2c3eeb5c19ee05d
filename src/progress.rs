//! Progress lines for long headless work (`review` per aspect, `record` per page, `inbox` per PR
//! counted): on stderr, only when stderr is a terminal and `--quiet` was not given. Standard
//! output is never touched, so pipes stay clean.
//!
//! A [`Progress`] is cheap to clone and can be shared across tasks. A disabled one does nothing
//! (not even format its message), so callers need not check first.
//!
//! **Notes** — one-line messages for the person at the terminal that are not a command's output
//! (a GitHub retry, a rate-limit wait with its reset time, an LLM provider's retry) — go through
//! [`note`]. While the console runs it owns the terminal: it installs a sink with
//! [`capture_notes`], and every note (and every progress line meant for stderr) goes to its
//! status line and message log instead of being painted over the screen. The sink is
//! process-wide by nature, like the terminal it protects: one console at a time holds it, and
//! dropping the returned [`NoteCapture`] gives stderr back.
//!
//! ```
//! use pr_shepherd::progress::Progress;
//! let p = Progress::stderr(false); // on a terminal: enabled; in a pipe or under a test: silent
//! p.step(2, Some(6), "security: done, 1 finding in 3.2 s");
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
    /// The sink is stderr: while the console captures notes, lines go to it instead.
    stderr: bool,
}

/// What the console installs to receive notes (already one line and sanitized).
pub type NoteFn = Arc<dyn Fn(&str) + Send + Sync>;

/// The installed note sink and the capture that installed it.
static NOTE_SINK: Mutex<Option<(u64, NoteFn)>> = Mutex::new(None);
static NEXT_CAPTURE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Holds the note sink; dropping it gives notes back to stderr (unless a newer capture replaced
/// it, which then keeps its own).
#[must_use = "notes go back to stderr when the capture is dropped"]
pub struct NoteCapture {
    id: u64,
}

impl Drop for NoteCapture {
    fn drop(&mut self) {
        if let Ok(mut g) = NOTE_SINK.lock()
            && g.as_ref().is_some_and(|(id, _)| *id == self.id)
        {
            *g = None;
        }
    }
}

/// Sends every note (and every progress line bound for stderr) to `sink` until the returned
/// capture is dropped.
pub fn capture_notes(sink: impl Fn(&str) + Send + Sync + 'static) -> NoteCapture {
    let id = NEXT_CAPTURE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Ok(mut g) = NOTE_SINK.lock() {
        *g = Some((id, Arc::new(sink)));
    }
    NoteCapture { id }
}

fn captured() -> Option<NoteFn> {
    NOTE_SINK
        .lock()
        .ok()
        .and_then(|g| g.as_ref().map(|(_, f)| f.clone()))
}

/// A note for the person at the terminal: to the console's status line and message log while it
/// runs, else to stderr. Made one line and stripped of control characters first (it may quote a
/// server's error text).
pub fn note(text: &str) {
    let text = crate::sanitize::one_line(text);
    match captured() {
        Some(sink) => sink(&text),
        None => {
            // Best effort, like progress: a closed stderr must not fail the command.
            let _ = writeln!(std::io::stderr().lock(), "{text}");
        }
    }
}

/// A note only the console shows (its status line and message log); elsewhere nothing, for
/// notes that headless commands report in their own way (the debug log, an error at the end).
pub fn console_note(text: &str) {
    if let Some(sink) = captured() {
        sink(&crate::sanitize::one_line(text));
    }
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
            Progress {
                stderr: true,
                ..Progress::to(Box::new(std::io::stderr()))
            }
        } else {
            Progress::off()
        }
    }

    /// A reporter that shows nothing.
    pub fn off() -> Progress {
        Progress::default()
    }

    /// A reporter writing to `sink` (tests; a caller that has decided on its own).
    pub fn to(sink: Box<dyn Write + Send>) -> Progress {
        Progress {
            sink: Some(Arc::new(Mutex::new(sink))),
            stderr: false,
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
        if self.stderr
            && let Some(console) = captured()
        {
            console(&text);
            return;
        }
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
    fn a_capture_takes_notes_until_dropped() {
        let got = Arc::new(Mutex::new(Vec::<String>::new()));
        let g2 = got.clone();
        let capture = capture_notes(move |t| g2.lock().unwrap().push(t.to_owned()));
        note("note: retrying in 1.0s\n(attempt 2/4) \u{1b}[2J");
        console_note("llm: retrying");
        let p = Progress {
            stderr: true,
            ..Progress::to(Box::new(Buf::default()))
        };
        p.line("[1/6] security: done");
        drop(capture);
        console_note("after: nowhere");
        let got = got.lock().unwrap().clone();
        // Other tests may note while this one captures: look for ours.
        assert!(
            got.iter()
                .any(|t| t.starts_with("note: retrying in 1.0s") && !t.contains('\u{1b}')),
            "{got:?}"
        );
        assert!(got.iter().any(|t| t == "llm: retrying"), "{got:?}");
        assert!(got.iter().any(|t| t == "[1/6] security: done"), "{got:?}");
        assert!(!got.iter().any(|t| t.contains("after")), "{got:?}");
        assert!(got.iter().all(|t| !t.contains('\n')), "{got:?}");
    }

    #[test]
    fn off_writes_nothing() {
        let p = Progress::off();
        assert!(!p.is_enabled());
        p.line("x");
        p.counter(None).tick("y");
    }
}
