//! The `replay` backend: answers recorded in the fixture (`llm.answers`), per aspect and step.
//! Offline and deterministic; the default for fixtures.

use super::{Completion, LlmError, TokenUsage, aspect_of};
use crate::pr::RecordedAnswer;
use crate::review::aspect::Aspect;

#[derive(Debug, Clone)]
pub struct ReplayClient {
    answers: Vec<RecordedAnswer>,
    step: usize,
}

impl ReplayClient {
    pub fn new(answers: Vec<RecordedAnswer>, step: usize) -> ReplayClient {
        ReplayClient { answers, step }
    }

    /// The answer recorded for `aspect` at the latest step not after the current one. For a
    /// chunked review (`chunk` = `(index, count)`), an answer recorded for that chunk wins over
    /// one recorded for the whole aspect.
    pub fn complete(
        &self,
        aspect: Aspect,
        chunk: Option<(usize, usize)>,
    ) -> Result<Completion, LlmError> {
        let index = chunk.map_or(1, |(i, _)| i);
        let mine = || {
            self.answers
                .iter()
                .filter(move |a| aspect_of(&a.aspect) == Some(aspect) && a.step <= self.step)
        };
        let found = mine()
            .filter(|a| a.chunk == Some(index))
            .max_by_key(|a| a.step)
            .or_else(|| mine().filter(|a| a.chunk.is_none()).max_by_key(|a| a.step))
            .ok_or_else(|| {
                let part = chunk.map_or(String::new(), |(i, n)| format!(" (chunk {i} of {n})"));
                LlmError::Replay(format!(
                    "the fixture has no recorded answer for {aspect}{part} at step {} or earlier",
                    self.step
                ))
            })?;
        Ok(Completion {
            text: found.reply.clone(),
            tokens: TokenUsage {
                input: found.input_tokens,
                output: found.output_tokens,
                cache_read: None,
                cache_write: None,
            },
            note: (found.step != self.step)
                .then(|| format!("replayed the answer recorded for step {}", found.step)),
            truncated: false,
        })
    }
}

impl ReplayClient {
    /// The answer recorded under `name` — a call that is not an aspect's, like `ask` (the
    /// maintainer's question about selected lines) — at the latest step not after the current
    /// one.
    pub fn complete_named(&self, name: &str) -> Result<Completion, LlmError> {
        let found = self
            .answers
            .iter()
            .filter(|a| a.aspect == name && a.step <= self.step)
            .max_by_key(|a| a.step)
            .ok_or_else(|| {
                LlmError::Replay(format!(
                    "the fixture has no recorded answer for `{name}` at step {} or earlier (pass --llm openai|anthropic|command to ask a model)",
                    self.step
                ))
            })?;
        Ok(Completion {
            text: found.reply.clone(),
            tokens: TokenUsage {
                input: found.input_tokens,
                output: found.output_tokens,
                cache_read: None,
                cache_write: None,
            },
            note: None,
            truncated: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ans(aspect: &str, step: usize, reply: &str) -> RecordedAnswer {
        RecordedAnswer {
            aspect: aspect.into(),
            step,
            chunk: None,
            reply: reply.into(),
            input_tokens: Some(1),
            output_tokens: None,
        }
    }

    #[test]
    fn picks_the_latest_step_not_after_the_current() {
        let answers = vec![
            ans("perf", 0, "a"),
            ans("perf", 2, "b"),
            ans("tests", 3, "c"),
        ];
        let r = ReplayClient::new(answers.clone(), 1);
        let c = r.complete(Aspect::Perf, None).unwrap();
        assert_eq!(c.text, "a");
        assert!(c.note.unwrap().contains("step 0"));
        assert_eq!(
            ReplayClient::new(answers.clone(), 2)
                .complete(Aspect::Perf, None)
                .unwrap()
                .text,
            "b"
        );
        assert!(r.complete(Aspect::Tests, None).is_err());
        // Per-chunk recordings win for their chunk; the aspect's answer serves the others.
        let mut chunked = answers.clone();
        chunked.push(RecordedAnswer {
            chunk: Some(2),
            ..ans("perf", 0, "chunk two")
        });
        let r = ReplayClient::new(chunked, 0);
        assert_eq!(
            r.complete(Aspect::Perf, Some((2, 3))).unwrap().text,
            "chunk two"
        );
        assert_eq!(r.complete(Aspect::Perf, Some((3, 3))).unwrap().text, "a");
        let only_chunks = ReplayClient::new(
            vec![RecordedAnswer {
                chunk: Some(1),
                ..ans("perf", 0, "c1")
            }],
            0,
        );
        assert_eq!(only_chunks.complete(Aspect::Perf, None).unwrap().text, "c1");
        let err = only_chunks
            .complete(Aspect::Perf, Some((2, 2)))
            .unwrap_err();
        assert!(err.to_string().contains("chunk 2 of 2"), "{err}");
        assert!(r.complete(Aspect::Security, None).is_err());
    }
}
