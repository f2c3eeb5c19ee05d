//! The message log: every notice and note the console said this session (a retry, a rate-limit
//! wait, a refusal, a write that failed), whole and in order. The status line shows the latest
//! one on one line; `!` (the `messages` command) opens the log to read them all.

use std::collections::VecDeque;

/// How many messages the log keeps (the oldest go first).
pub const KEPT: usize = 500;

#[derive(Debug, Clone, Default)]
pub struct MessageLog {
    entries: VecDeque<String>,
    /// Messages said in all, kept or not (numbers stay stable when old ones go).
    said: usize,
}

impl MessageLog {
    /// One more message (already sanitized by whoever said it; made one line here).
    pub fn push(&mut self, text: &str) {
        if self.entries.len() == KEPT {
            self.entries.pop_front();
        }
        self.entries.push_back(crate::sanitize::one_line(text));
        self.said += 1;
    }

    /// The kept messages, oldest first, each with its number in the session (1-based).
    pub fn entries(&self) -> impl Iterator<Item = (usize, &str)> {
        let first = self.said - self.entries.len() + 1;
        self.entries
            .iter()
            .enumerate()
            .map(move |(i, t)| (first + i, t.as_str()))
    }

    pub fn len(&self) -> usize {
        self.said
    }

    pub fn is_empty(&self) -> bool {
        self.said == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_whole_and_numbers_them() {
        let mut log = MessageLog::default();
        for i in 0..KEPT + 2 {
            log.push(&format!("note {i}\nsecond line"));
        }
        let e: Vec<_> = log.entries().collect();
        assert_eq!(e.len(), KEPT);
        assert_eq!(e[0], (3, "note 2 second line"));
        assert_eq!(e.last().map(|x| x.0), Some(KEPT + 2));
        assert_eq!(log.len(), KEPT + 2);
    }
}
