//! Recorded LLM answers: pure data carried by an offline fixture and replayed by the `replay`
//! review backend. They live here, below both `source` (which reads fixtures) and `review`
//! (which replays them), so neither imports the other.

use serde::{Deserialize, Serialize};

/// Recorded LLM answers per aspect and step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmRecordings {
    #[serde(default)]
    pub answers: Vec<RecordedAnswer>,
}

impl LlmRecordings {
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedAnswer {
    pub aspect: String,
    /// The fixture step the answer belongs to (0 = the initial snapshot).
    #[serde(default)]
    pub step: usize,
    /// The chunk (1-based) the answer is for, when the aspect's diff is reviewed in chunks;
    /// without it the answer serves every chunk of the aspect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<usize>,
    /// The model's reply, verbatim.
    pub reply: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
}
