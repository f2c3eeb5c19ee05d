//! Structured output and whole answers for the HTTP backends, kept apart from the wire code so
//! that request shaping can change without touching transport, streaming or usage accounting.
//!
//! - **Shaping a request** ([`shape_openai`], [`shape_anthropic`]): the findings contract
//!   ([`contract_schema`]) goes out as OpenAI `response_format` json_schema (strict), or as an
//!   Anthropic tool whose `input_schema` is the contract, forced with `tool_choice`.
//! - **Reading the findings** ([`anthropic_tool_input`], [`ToolInputStream`]): the forced tool's
//!   `input` is the findings object; it is handed on as JSON text, so [`parse_reply`] checks it
//!   exactly like a text answer.
//! - **Falling back** ([`ask`]): a server that rejects the shape (a 4xx whose text names the
//!   parameter) is asked again one rung lower — OpenAI: json_schema → json_object → plain text;
//!   Anthropic: forced tool → plain text — and the rung is remembered for the rest of the run
//!   ([`ShapeMemory`] is shared by every clone of a client). Every aspect asked below the first
//!   rung says so in its note.
//! - **Cut answers** ([`ask`]): an answer cut at the token limit is asked again once with
//!   [`larger_max_tokens`]; cut again, the call fails with [`LlmError::Cut`].
//!
//! [`parse_reply`]: crate::review::findings::parse_reply

use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::{Completion, LlmError};
use crate::review::findings::{CONTRACT_NAME, contract_schema};
pub use crate::review::settings::StructuredOutput;

/// The most `max_tokens` a cut answer is asked again with.
pub(crate) const MAX_TOKENS_CAP: u32 = 16_384;

/// `max_tokens` for asking again after a cut at `used`: double, at most [`MAX_TOKENS_CAP`] (never
/// less than `used`; equal means there is no room to ask again).
pub(crate) fn larger_max_tokens(used: u32) -> u32 {
    used.saturating_mul(2).min(MAX_TOKENS_CAP.max(used))
}

/// How a request asks for the findings object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// OpenAI `response_format: {"type": "json_schema", "json_schema": {…, "strict": true}}`.
    JsonSchema,
    /// `response_format: {"type": "json_object", "schema": {…}}`: JSON mode with the contract, the
    /// way llama-cpp-python (and llama.cpp's server) take a schema there.
    JsonObjectSchema,
    /// OpenAI `response_format: {"type": "json_object"}`.
    JsonObject,
    /// Anthropic: the contract as a tool, forced with `tool_choice`.
    Tool,
    /// No structured output: the prompt's contract and the tolerant parser.
    Plain,
}

impl Shape {
    pub fn describe(self) -> &'static str {
        match self {
            Shape::JsonSchema => "response_format json_schema",
            Shape::JsonObjectSchema => "response_format json_object with the schema",
            Shape::JsonObject => "response_format json_object",
            Shape::Tool => "a forced tool call",
            Shape::Plain => "plain text",
        }
    }

    /// The shape's name where it is remembered (the state dir's server memory).
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::JsonSchema => "json_schema",
            Shape::JsonObjectSchema => "json_object_schema",
            Shape::JsonObject => "json_object",
            Shape::Tool => "tool",
            Shape::Plain => "plain",
        }
    }

    pub fn parse(name: &str) -> Option<Shape> {
        [
            Shape::JsonSchema,
            Shape::JsonObjectSchema,
            Shape::JsonObject,
            Shape::Tool,
            Shape::Plain,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }

    /// The request parameters a refusal of this shape names.
    fn parameters(self) -> &'static [&'static str] {
        match self {
            Shape::JsonSchema | Shape::JsonObjectSchema | Shape::JsonObject => {
                &["response_format", "json_schema", "json_object"]
            }
            Shape::Tool => &["tool"],
            Shape::Plain => &[],
        }
    }

    /// Whether an error answer (`status`, body `text`) is the server refusing this shape: a 4xx
    /// (not auth, not-found or rate limit) whose text names the parameter, or a 5xx that does
    /// (llama-cpp-python answers an unsupported `response_format` with HTTP 500 and its
    /// validation error). Such a 5xx is not worth another attempt: the transport does not retry
    /// it.
    pub(crate) fn refused_by(self, status: u16, text: &str) -> bool {
        let client_error =
            (400..500).contains(&status) && !matches!(status, 401 | 403 | 404 | 408 | 429);
        if !(client_error || (500..600).contains(&status)) {
            return false;
        }
        let d = text.to_ascii_lowercase();
        if super::context::is_overflow(&d) {
            return false;
        }
        self.parameters().iter().any(|n| d.contains(n))
    }

    /// Whether `err` is the server refusing this shape (see [`Shape::refused_by`]).
    fn rejected_by(self, err: &LlmError) -> bool {
        match err {
            LlmError::Status { status, detail, .. } => self.refused_by(*status, detail),
            _ => false,
        }
    }
}

/// Which wire format; each has its ladder of shapes, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

impl Wire {
    /// The shapes to try, best first, for the `[review] structured_output` setting: `auto`
    /// falls down the whole ladder; `json_schema` and `json_object` ask only that way (for
    /// Anthropic both mean the forced tool), `json_object` with the schema where the server takes
    /// it; `off` asks with plain text.
    pub(crate) fn ladder(self, setting: StructuredOutput) -> &'static [Shape] {
        use StructuredOutput as S;
        match (self, setting) {
            (_, S::Off) => &[Shape::Plain],
            (Wire::OpenAi, S::Auto) => &[
                Shape::JsonSchema,
                Shape::JsonObjectSchema,
                Shape::JsonObject,
                Shape::Plain,
            ],
            (Wire::OpenAi, S::JsonSchema) => &[Shape::JsonSchema],
            (Wire::OpenAi, S::JsonObject) => &[Shape::JsonObjectSchema, Shape::JsonObject],
            (Wire::Anthropic, S::Auto) => &[Shape::Tool, Shape::Plain],
            (Wire::Anthropic, S::JsonSchema | S::JsonObject) => &[Shape::Tool],
        }
    }
}

/// What an earlier run learnt about this server (the state dir's server memory): the shape it
/// answered, and what it rejected on the way there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Learnt {
    pub shape: Shape,
    pub rejected: Vec<String>,
}

#[derive(Debug, Default)]
struct Fallen {
    rung: usize,
    /// What was rejected on the way down, e.g. "response_format json_schema (HTTP 400)".
    rejected: Vec<String>,
    /// The rung came from the server memory (and nothing was rejected since).
    remembered: bool,
    /// The rung an answer came on first, until it is taken to be remembered.
    answered: Option<usize>,
    /// The rung the run started on.
    start: Option<usize>,
}

/// The rung of the ladder a client is on; clones share it, so a fallback holds for the run.
#[derive(Debug, Clone)]
pub(crate) struct ShapeMemory {
    ladder: &'static [Shape],
    /// `structured_output = "auto"`: a refusal falls one rung lower, and what answered is worth
    /// remembering for the server.
    auto: bool,
    setting: StructuredOutput,
    inner: Arc<Mutex<Fallen>>,
}

impl Default for ShapeMemory {
    fn default() -> Self {
        ShapeMemory::new(Wire::OpenAi, StructuredOutput::Auto, None)
    }
}

impl ShapeMemory {
    /// The ladder for `wire` and `setting`, starting where `learnt` says this server answered
    /// (for `auto` only; a shape not on the ladder is ignored).
    pub fn new(wire: Wire, setting: StructuredOutput, learnt: Option<Learnt>) -> ShapeMemory {
        let ladder = wire.ladder(setting);
        let auto = setting == StructuredOutput::Auto;
        let mut fallen = Fallen::default();
        if auto
            && let Some(l) = learnt
            && let Some(rung) = ladder.iter().position(|s| *s == l.shape)
        {
            fallen.rung = rung;
            fallen.rejected = l.rejected;
            fallen.remembered = rung > 0;
            fallen.start = Some(rung);
        }
        ShapeMemory {
            ladder,
            auto,
            setting,
            inner: Arc::new(Mutex::new(fallen)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Fallen> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn rung(&self) -> usize {
        self.lock().rung
    }

    /// Moves below `from` (unless another aspect already went lower) and returns the new rung.
    fn fall_below(&self, from: usize, why: String) -> usize {
        let mut f = self.lock();
        if f.rung <= from {
            if f.remembered {
                // What an earlier run learnt no longer holds: say only what this run saw.
                f.rejected.clear();
                f.remembered = false;
            }
            f.rung = from + 1;
            f.rejected.push(why);
        }
        f.rung
    }

    /// An answer came on `rung`.
    fn answered(&self, rung: usize) {
        let mut f = self.lock();
        if f.answered.is_none() {
            f.answered = Some(rung);
        }
    }

    /// What this run learnt about the server, once, when it is worth remembering: `auto`, and an
    /// answer came on another rung than the run started on.
    pub(crate) fn take_learnt(&self) -> Option<Learnt> {
        if !self.auto {
            return None;
        }
        let mut f = self.lock();
        let rung = f.answered.take()?;
        if f.start == Some(rung) || (f.start.is_none() && rung == 0) {
            return None;
        }
        f.start = Some(rung);
        Some(Learnt {
            shape: *self.ladder.get(rung)?,
            rejected: f.rejected.clone(),
        })
    }

    /// The note for an aspect asked on `shape`, rung `rung` of its ladder: `None` on the first.
    fn note(&self, rung: usize, shape: Shape) -> Option<String> {
        let f = self.lock();
        (rung > 0).then(|| {
            let rejected = if f.rejected.is_empty() {
                "the shapes above it".to_owned()
            } else {
                f.rejected.join(" and ")
            };
            if f.remembered {
                format!(
                    "structured output: asked with {} — the server rejected {} in an earlier run (remembered in the state dir)",
                    shape.describe(),
                    rejected
                )
            } else {
                format!(
                    "structured output: asked with {} — the server rejected {}; remembered for the rest of the run",
                    shape.describe(),
                    rejected
                )
            }
        })
    }
}

/// Adds the structured-output fields for `shape` to an OpenAI Chat Completions body.
pub(crate) fn shape_openai(body: &mut Value, shape: Shape) {
    let format = match shape {
        Shape::JsonSchema => json!({
            "type": "json_schema",
            "json_schema": {"name": CONTRACT_NAME, "strict": true, "schema": contract_schema()},
        }),
        Shape::JsonObjectSchema => json!({"type": "json_object", "schema": contract_schema()}),
        Shape::JsonObject => json!({"type": "json_object"}),
        Shape::Tool | Shape::Plain => return,
    };
    if let Some(obj) = body.as_object_mut() {
        obj.insert("response_format".into(), format);
    }
}

/// Adds the findings tool, forced, to an Anthropic Messages body for `shape`.
pub(crate) fn shape_anthropic(body: &mut Value, shape: Shape) {
    if shape != Shape::Tool {
        return;
    }
    if let Some(obj) = body.as_object_mut() {
        obj.insert(
            "tools".into(),
            json!([{
                "name": CONTRACT_NAME,
                "description": "Report this aspect's findings about the pull request (an empty list when there are none).",
                "input_schema": contract_schema(),
            }]),
        );
        obj.insert(
            "tool_choice".into(),
            json!({"type": "tool", "name": CONTRACT_NAME}),
        );
    }
}

/// The findings object of a (non-streamed) Anthropic answer's forced tool call, as JSON text.
pub(crate) fn anthropic_tool_input(answer: &Value) -> Option<String> {
    answer
        .get("content")?
        .as_array()?
        .iter()
        .find(|b| {
            b.get("type").and_then(Value::as_str) == Some("tool_use")
                && b.get("name").and_then(Value::as_str) == Some(CONTRACT_NAME)
        })
        .and_then(|b| b.get("input"))
        .map(Value::to_string)
}

/// The hook for a **streamed** Anthropic answer (SSE): the forced tool's input arrives as
/// `content_block_start` (a `tool_use` block named [`CONTRACT_NAME`], `input: {}`) followed by
/// `content_block_delta` events whose `delta` is `{"type": "input_json_delta", "partial_json": …}`.
/// Feed every event's JSON to [`ToolInputStream::on_event`]; [`ToolInputStream::finish`] gives the
/// same JSON text [`anthropic_tool_input`] gives for the whole answer.
#[derive(Debug, Default)]
pub(crate) struct ToolInputStream {
    index: Option<u64>,
    json: String,
}

impl ToolInputStream {
    pub(crate) fn on_event(&mut self, event: &Value) {
        let index = event.get("index").and_then(Value::as_u64);
        match event.get("type").and_then(Value::as_str) {
            Some("content_block_start") => {
                let block = event.get("content_block");
                let is_ours = block.and_then(|b| b.get("type")).and_then(Value::as_str)
                    == Some("tool_use")
                    && block.and_then(|b| b.get("name")).and_then(Value::as_str)
                        == Some(CONTRACT_NAME);
                if is_ours && self.index.is_none() {
                    self.index = index;
                }
            }
            Some("content_block_delta") if index.is_some() && index == self.index => {
                let delta = event.get("delta");
                if delta.and_then(|d| d.get("type")).and_then(Value::as_str)
                    == Some("input_json_delta")
                    && let Some(part) = delta
                        .and_then(|d| d.get("partial_json"))
                        .and_then(Value::as_str)
                {
                    self.json.push_str(part);
                }
            }
            _ => {}
        }
    }

    /// The tool input's JSON text, or `None` when no findings tool block was streamed.
    pub fn finish(self) -> Option<String> {
        self.index?;
        Some(if self.json.trim().is_empty() {
            "{}".to_owned()
        } else {
            self.json
        })
    }
}

fn join(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// Asks for one answer on the best shape the server takes, and asks again when it was cut.
///
/// `send(shape, max_tokens)` makes one request (its own transport retries included) and returns
/// the completion with `truncated` set when the provider said the answer hit the token limit.
/// `max_tokens` is the configured limit (`None`: the provider's default).
pub async fn ask<F, Fut>(
    provider: &'static str,
    memory: &ShapeMemory,
    max_tokens: Option<u32>,
    mut send: F,
) -> Result<Completion, LlmError>
where
    F: FnMut(Shape, Option<u32>) -> Fut,
    Fut: Future<Output = Result<Completion, LlmError>>,
{
    let ladder = memory.ladder;
    let last = ladder.len() - 1;
    let mut rung = memory.rung().min(last);
    let first = loop {
        let shape = ladder[rung];
        match send(shape, max_tokens).await {
            Err(e) if rung < last && memory.auto && shape.rejected_by(&e) => {
                let status = match &e {
                    LlmError::Status { status, .. } => *status,
                    _ => 0,
                };
                let why = format!("{} (HTTP {status})", shape.describe());
                tracing::debug!(provider, "falling back from {why}");
                rung = memory.fall_below(rung, why).min(last);
            }
            Err(e) if rung < last && shape.rejected_by(&e) => {
                // `json_object` as set: with the schema where the server takes it.
                rung = memory
                    .fall_below(rung, format!("{} (refused)", shape.describe()))
                    .min(last);
            }
            Err(e) if shape.rejected_by(&e) && !memory.auto => {
                return Err(LlmError::Protocol {
                    provider,
                    detail: format!(
                        "the server refused {} (`structured_output = \"{}\"`; \"auto\" falls back to what it takes): {e}",
                        shape.describe(),
                        memory.setting.as_str()
                    ),
                });
            }
            other => break other?,
        }
    };
    memory.answered(rung);
    let shape = ladder[rung];
    let shape_note = memory.note(rung, shape);
    if !first.truncated {
        return Ok(Completion {
            note: join(first.note, shape_note),
            ..first
        });
    }
    let used = max_tokens
        .or_else(|| first.tokens.output.and_then(|n| u32::try_from(n).ok()))
        .unwrap_or(4096);
    let larger = larger_max_tokens(used);
    if larger <= used {
        return Err(LlmError::Cut {
            provider,
            detail: format!(
                "cut at max_tokens {used}, which is already the cap for asking again ({MAX_TOKENS_CAP})"
            ),
        });
    }
    let second = send(shape, Some(larger)).await?;
    if second.truncated {
        return Err(LlmError::Cut {
            provider,
            detail: format!("cut at max_tokens {used}, and again when asked with {larger}"),
        });
    }
    let cut_note = format!(
        "the first answer was cut at max_tokens {used}; asked again with max_tokens {larger}"
    );
    let mut tokens = first.tokens;
    tokens.add(&second.tokens);
    Ok(Completion {
        tokens,
        note: join(join(second.note.clone(), shape_note), Some(cut_note)),
        ..second
    })
}

#[cfg(test)]
mod tests {
    use super::super::TokenUsage;
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn status(code: u16, detail: &str) -> LlmError {
        LlmError::Status {
            provider: "openai",
            status: code,
            attempts: 1,
            detail: detail.into(),
        }
    }

    fn done(text: &str) -> Completion {
        Completion {
            text: text.into(),
            tokens: TokenUsage {
                input: Some(10),
                output: Some(5),
                ..TokenUsage::default()
            },
            ..Completion::default()
        }
    }

    #[test]
    fn rejections_must_name_the_parameter() {
        let e = status(400, "Unrecognized request argument: response_format");
        assert!(Shape::JsonSchema.rejected_by(&e));
        assert!(!Shape::Tool.rejected_by(&e));
        assert!(!Shape::JsonSchema.rejected_by(&status(400, "bad model")));
        assert!(!Shape::JsonSchema.rejected_by(&status(429, "response_format")));
        // llama-cpp-python refuses json_schema with a 500 naming it; a 5xx naming nothing is a
        // fault (retried by the transport), not a refusal.
        assert!(Shape::JsonSchema.rejected_by(&status(
            500,
            "response_format.type Input should be 'text' or 'json_object'"
        )));
        assert!(!Shape::JsonSchema.rejected_by(&status(503, "overloaded")));
        assert!(Shape::JsonObjectSchema.rejected_by(&status(400, "response_format.schema: extra")));
        // A context overflow is not a refusal, whatever else it names.
        assert!(!Shape::JsonSchema.rejected_by(&status(
            400,
            "exceed_context_size_error (with response_format json_schema)"
        )));
        assert!(Shape::Tool.rejected_by(&status(400, "tools: Extra inputs are not permitted")));
        assert!(!Shape::Plain.rejected_by(&status(400, "response_format")));
    }

    #[test]
    fn bodies_get_the_contract() {
        let mut b = json!({"model": "m"});
        shape_openai(&mut b, Shape::JsonSchema);
        assert_eq!(b["response_format"]["json_schema"]["strict"], true);
        assert_eq!(
            b["response_format"]["json_schema"]["schema"],
            contract_schema()
        );
        shape_openai(&mut b, Shape::JsonObjectSchema);
        assert_eq!(
            b["response_format"],
            json!({"type": "json_object", "schema": contract_schema()})
        );
        shape_openai(&mut b, Shape::JsonObject);
        assert_eq!(b["response_format"], json!({"type": "json_object"}));
        let mut p = json!({"model": "m"});
        shape_openai(&mut p, Shape::Plain);
        assert_eq!(p, json!({"model": "m"}));
        let mut a = json!({"model": "m"});
        shape_anthropic(&mut a, Shape::Tool);
        assert_eq!(a["tools"][0]["input_schema"], contract_schema());
        assert_eq!(
            a["tool_choice"],
            json!({"type": "tool", "name": CONTRACT_NAME})
        );
        let mut plain = json!({"model": "m"});
        shape_anthropic(&mut plain, Shape::Plain);
        assert_eq!(plain, json!({"model": "m"}));
    }

    #[test]
    fn tool_input_is_read_whole_and_streamed() {
        let input = json!({"findings": [{"severity": "important", "file": "a", "line": null,
            "message": "m", "suggestedFix": null}]});
        let answer = json!({"content": [
            {"type": "text", "text": "Reporting."},
            {"type": "tool_use", "id": "t1", "name": CONTRACT_NAME, "input": input},
        ]});
        let whole = anthropic_tool_input(&answer).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&whole).unwrap(), input);
        assert_eq!(anthropic_tool_input(&json!({"content": []})), None);

        let text = input.to_string();
        let (a, b) = text.split_at(text.len() / 2);
        let mut s = ToolInputStream::default();
        for ev in [
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": CONTRACT_NAME, "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": a}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": b}}),
            json!({"type": "content_block_stop", "index": 1}),
        ] {
            s.on_event(&ev);
        }
        assert_eq!(s.finish().as_deref(), Some(text.as_str()));
        assert_eq!(ToolInputStream::default().finish(), None);
    }

    #[test]
    fn larger_max_tokens_is_bounded() {
        assert_eq!(larger_max_tokens(1000), 2000);
        assert_eq!(larger_max_tokens(12_000), MAX_TOKENS_CAP);
        assert_eq!(larger_max_tokens(MAX_TOKENS_CAP), MAX_TOKENS_CAP);
        assert_eq!(larger_max_tokens(40_000), 40_000);
    }

    #[tokio::test]
    async fn falls_down_the_ladder_once_per_run_and_says_so() {
        let memory = ShapeMemory::new(Wire::OpenAi, StructuredOutput::Auto, None);
        let calls = AtomicUsize::new(0);
        let send = |shape: Shape, _| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                match shape {
                    Shape::JsonSchema => {
                        Err(status(400, "response_format.json_schema unsupported"))
                    }
                    Shape::JsonObjectSchema | Shape::JsonObject => {
                        Err(status(422, "json_object is not supported"))
                    }
                    _ => Ok(done("{}")),
                }
            }
        };
        let c = ask("openai", &memory, Some(100), send).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 4);
        let note = c.note.unwrap();
        assert!(note.contains("asked with plain text"), "{note}");
        assert!(
            note.contains("json_schema (HTTP 400) and response_format json_object with the schema (HTTP 422) and response_format json_object (HTTP 422)"),
            "{note}"
        );
        // Remembered: the next aspect goes straight to plain text and says why.
        let c = ask("openai", &memory, Some(100), send).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 5);
        assert!(
            c.note
                .unwrap()
                .contains("remembered for the rest of the run")
        );
        // Other errors are not a reason to fall back.
        let fresh = ShapeMemory::new(Wire::Anthropic, StructuredOutput::Auto, None);
        let r = ask("anthropic", &fresh, Some(100), |_, _| async {
            Err::<Completion, _>(status(400, "max_tokens too large"))
        })
        .await;
        assert!(matches!(r, Err(LlmError::Status { .. })));
        assert_eq!(fresh.rung(), 0);
    }

    #[tokio::test]
    async fn a_remembered_shape_starts_the_ladder_and_a_new_one_is_learnt_once() {
        let learnt = Learnt {
            shape: Shape::JsonObjectSchema,
            rejected: vec!["response_format json_schema (HTTP 500)".into()],
        };
        let memory = ShapeMemory::new(Wire::OpenAi, StructuredOutput::Auto, Some(learnt.clone()));
        let asked = Mutex::new(Vec::new());
        let c = ask("openai", &memory, Some(100), |shape, _| {
            asked.lock().unwrap().push(shape);
            async { Ok(done("{}")) }
        })
        .await
        .unwrap();
        assert_eq!(*asked.lock().unwrap(), [Shape::JsonObjectSchema]);
        let note = c.note.unwrap();
        assert!(
            note.contains("in an earlier run (remembered in the state dir)"),
            "{note}"
        );
        assert_eq!(memory.take_learnt(), None, "nothing new to remember");

        // Not `auto`: what is remembered does not count, and nothing is learnt.
        let pinned = ShapeMemory::new(Wire::OpenAi, StructuredOutput::JsonSchema, Some(learnt));
        assert_eq!(pinned.rung(), 0);
        let fresh = ShapeMemory::new(Wire::OpenAi, StructuredOutput::Auto, None);
        let r = ask("openai", &fresh, Some(100), |shape, _| async move {
            match shape {
                Shape::JsonSchema => Err(status(500, "response_format: json_schema")),
                _ => Ok(done("{}")),
            }
        })
        .await;
        assert!(r.is_ok());
        assert_eq!(
            fresh.take_learnt(),
            Some(Learnt {
                shape: Shape::JsonObjectSchema,
                rejected: vec!["response_format json_schema (HTTP 500)".into()],
            })
        );
        assert_eq!(fresh.take_learnt(), None, "once");
    }

    #[tokio::test]
    async fn a_cut_answer_is_asked_again_once_with_more_tokens() {
        let memory = ShapeMemory::new(Wire::Anthropic, StructuredOutput::Auto, None);
        let asked = Mutex::new(Vec::new());
        let c = ask("anthropic", &memory, Some(1000), |_, n| {
            asked.lock().unwrap().push(n);
            let cut = n == Some(1000);
            async move {
                Ok(Completion {
                    truncated: cut,
                    ..done("{}")
                })
            }
        })
        .await
        .unwrap();
        assert_eq!(*asked.lock().unwrap(), [Some(1000), Some(2000)]);
        assert_eq!((c.tokens.input, c.tokens.output), (Some(20), Some(10)));
        assert!(
            c.note
                .unwrap()
                .contains("cut at max_tokens 1000; asked again with max_tokens 2000")
        );

        let always_cut = |_, _| async {
            Ok(Completion {
                truncated: true,
                ..done("{\"findings\": [")
            })
        };
        let e = ask("openai", &memory, Some(1000), always_cut)
            .await
            .unwrap_err();
        assert!(matches!(e, LlmError::Cut { .. }));
        assert!(
            e.to_string()
                .contains("cut at max_tokens 1000, and again when asked with 2000"),
            "{e}"
        );
        let e = ask("openai", &memory, Some(MAX_TOKENS_CAP), always_cut)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("already the cap"), "{e}");
    }
}
