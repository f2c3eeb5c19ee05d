//! The request log and fault hook of the loopback fakes (`fake_github`, `fake_inbox`). A bench
//! that includes a fake by path includes this file beside it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use wiremock::ResponseTemplate;

/// Decides a fault for request number `n` (0-based, over all requests) of a given kind; `None`
/// serves normally.
pub type Fault<S> = Box<dyn Fn(usize, &S) -> Option<ResponseTemplate> + Send + Sync>;

/// Every request a fake saw (as its `S`), how many, and the fault to answer with.
pub struct RequestLog<S> {
    seen: Mutex<Vec<S>>,
    count: AtomicUsize,
    fault: Mutex<Option<Fault<S>>>,
}

impl<S: Clone> Default for RequestLog<S> {
    fn default() -> Self {
        RequestLog {
            seen: Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
            fault: Mutex::new(None),
        }
    }
}

impl<S: Clone> RequestLog<S> {
    /// Logs a request: its 0-based number, and the fault's answer to it if there is one.
    pub fn record(&self, seen: &S) -> (usize, Option<ResponseTemplate>) {
        let n = self.count.fetch_add(1, Ordering::SeqCst);
        self.seen.lock().unwrap().push(seen.clone());
        (
            n,
            self.fault.lock().unwrap().as_ref().and_then(|f| f(n, seen)),
        )
    }

    pub fn set_fault(&self, f: Fault<S>) {
        *self.fault.lock().unwrap() = Some(f);
    }

    pub fn requests(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub fn seen(&self) -> Vec<S> {
        self.seen.lock().unwrap().clone()
    }
}
