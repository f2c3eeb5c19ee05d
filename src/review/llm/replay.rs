//! The `replay` backend: answers recorded in the fixture (`llm.answers`), per aspect and step.
//! Offline and deterministic; the default for fixtures.

use super::{Completion, LlmError, aspect_of};
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

    /// The answer recorded for `aspect` at the latest step not after the current one.
    pub fn complete(&self, aspect: Aspect) -> Result<Completion, LlmError> {
        let found = self
            .answers
            .iter()
            .filter(|a| aspect_of(&a.aspect) == Some(aspect) && a.step <= self.step)
            .max_by_key(|a| a.step)
            .ok_or_else(|| {
                LlmError::Replay(format!(
                    "the fixture has no recorded answer for {aspect} at step {} or earlier",
                    self.step
                ))
            })?;
        Ok(Completion {
            text: found.reply.clone(),
            input_tokens: found.input_tokens,
            output_tokens: found.output_tokens,
            note: (found.step != self.step)
                .then(|| format!("replayed the answer recorded for step {}", found.step)),
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
        let c = r.complete(Aspect::Perf).unwrap();
        assert_eq!(c.text, "a");
        assert!(c.note.unwrap().contains("step 0"));
        assert_eq!(
            ReplayClient::new(answers.clone(), 2)
                .complete(Aspect::Perf)
                .unwrap()
                .text,
            "b"
        );
        assert!(r.complete(Aspect::Tests).is_err());
        assert!(r.complete(Aspect::Security).is_err());
    }
}
