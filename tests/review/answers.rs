//! Real models, real answers: the review engine against a loopback server that answers
//! the way real models do — prose around the JSON, no fence, trailing commas, severity synonyms,
//! answers cut at the token limit, and 400s to `response_format` / `tools` when configured so —
//! on both wire formats. Every aspect must end `done` with the intended findings.
//!
//! Hermetic: the clients are built directly against the loopback server (no config, no
//! environment, no state dir); the one test that runs the binary uses `support::env::TestEnv`.

use crate::support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pr_shepherd::pr::PrMeta;
use pr_shepherd::review::findings::{CONTRACT_NAME, contract_schema};
use pr_shepherd::review::inputs::prompt::Prompts;
use pr_shepherd::review::llm::{
    AnthropicClient, CommandClient, LlmClient, NoEvents, OpenAiClient, RetryPolicy,
    SERVER_MEMORY_FILE,
};
use pr_shepherd::review::results::compose::{first_review, markdown};
use pr_shepherd::review::{
    Aspect, AspectOutcome, AspectState, ReviewRun, ReviewSettings, Severity, run_review,
};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The configured `max_tokens` of the clients under test.
const MAX_TOKENS: u32 = 1000;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Wire {
    OpenAi,
    Anthropic,
}

/// How the request asked for the answer, as the server saw it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
enum Asked {
    JsonSchema,
    /// `response_format` json_object with a `schema` in it.
    JsonObjectSchema,
    JsonObject,
    Tool,
    Plain,
}

/// What the server supports and how it misbehaves.
#[derive(Clone, Default)]
struct Server {
    reject_json_schema: bool,
    /// Answer json_schema with HTTP 500 and a validation error naming `response_format`, as
    /// llama-cpp-python's server does.
    json_schema_500: bool,
    reject_json_object: bool,
    /// Enforce a `schema` sent inside json_object (llama-cpp-python, llama.cpp); without it the
    /// schema is ignored there, as servers ignore fields they do not know.
    json_object_schema: bool,
    /// Refuse a `schema` inside json_object (HTTP 400 naming it).
    reject_json_object_schema: bool,
    reject_tools: bool,
    /// Aspects whose answer is cut whenever `max_tokens` is at most [`MAX_TOKENS`].
    cut_first: Vec<Aspect>,
    /// Aspects whose answer is always cut.
    cut_always: Vec<Aspect>,
}

/// One request the server received.
#[derive(Clone, Debug)]
struct Seen {
    aspect: Aspect,
    asked: Asked,
    max_tokens: Option<u64>,
}

/// The findings each aspect's model means to report, as `(severity as written, file, line,
/// message)`, and the severity the tool must read.
fn intended(
    aspect: Aspect,
) -> Vec<(
    &'static str,
    &'static str,
    Option<u32>,
    &'static str,
    Severity,
)> {
    match aspect {
        Aspect::Correctness => vec![(
            "important",
            "src/client/retry.rs",
            Some(41),
            "The 429 branch never counts attempts, so a server that keeps answering 429 loops forever.",
            Severity::Important,
        )],
        Aspect::Conventions => vec![(
            "suggestion",
            "src/client/retry.rs",
            Some(12),
            "Name the magic 250 ms base delay.",
            Severity::Suggestion,
        )],
        Aspect::Security => vec![
            (
                "high",
                "src/client/retry.rs",
                Some(30),
                "The Retry-After value is trusted without a cap.",
                Severity::Important,
            ),
            (
                "Blocker",
                "bindings/python/rivet/client.py",
                Some(36),
                "The token is logged at debug level.",
                Severity::Critical,
            ),
            (
                "nit",
                "src/client/retry.rs",
                None,
                "Prefer `saturating_mul` for the delay.",
                Severity::Suggestion,
            ),
        ],
        Aspect::Perf => vec![],
        Aspect::Tests => vec![(
            "major",
            "src/client/retry.rs",
            None,
            "No test drives the 429 path.",
            Severity::Important,
        )],
        Aspect::Architecture => vec![(
            "low",
            "src/client/retry.rs",
            Some(5),
            "The retry policy could live beside the other client settings.",
            Severity::Suggestion,
        )],
    }
}

fn canonical(sev: Severity) -> &'static str {
    sev.as_str()
}

/// The findings object; `strict` writes the canonical severity and every field (what a server
/// enforcing the schema produces), else the severity as the model wrote it.
fn findings_object(aspect: Aspect, strict: bool) -> Value {
    let list: Vec<Value> = intended(aspect)
        .into_iter()
        .map(|(written, file, line, message, sev)| {
            json!({
                "severity": if strict { canonical(sev) } else { written },
                "file": file,
                "line": line,
                "message": message,
                "suggestedFix": Value::Null,
            })
        })
        .collect();
    json!({ "findings": list })
}

/// The text a model writes for `aspect` without structured output: the way models stray.
fn free_text(aspect: Aspect) -> String {
    let json = findings_object(aspect, false).to_string();
    match aspect {
        // A line of prose, then the object, no fence.
        Aspect::Correctness => format!("Here is my review of the correctness aspect:\n{json}"),
        // Trailing commas after the last field and the last entry, then prose.
        Aspect::Conventions => {
            let with_commas = json.replace("null}", "null,}").replace("}]", "},]");
            format!("{with_commas}\n\nLet me know if you want me to look at {{anything}} else.")
        }
        // Severity synonyms, pretty-printed, with prose on both sides.
        Aspect::Security => {
            let pretty =
                serde_json::to_string_pretty(&findings_object(aspect, false)).unwrap_or_default();
            format!("I found three issues.\n\n{pretty}\n\nThe first one matters most.")
        }
        // A fence with prose around it.
        Aspect::Perf => format!("Nothing stood out.\n\n```json\n{json}\n```\n"),
        // A fence without a language, trailing comma, synonym.
        Aspect::Tests => format!("```\n{}\n```", json.replace("}]}", "},]}")),
        Aspect::Architecture => format!("Review:\n{json}\nThanks!"),
    }
}

/// A mock model server.
struct Model {
    wire: Wire,
    server: Server,
    seen: Mutex<Vec<Seen>>,
}

/// A string, or the texts of an array of content blocks (Anthropic's cache-marked form).
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn prompt_text(body: &Value) -> String {
    let mut out = text_of(body.get("system"));
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push('\n');
        out.push_str(&text_of(m.get("content")));
    }
    out
}

fn aspect_in(body: &Value) -> Option<Aspect> {
    prompt_text(body)
        .lines()
        .find_map(|l| l.strip_prefix("Review aspect: "))?
        .trim()
        .parse()
        .ok()
}

impl Model {
    fn asked(&self, body: &Value) -> Asked {
        match self.wire {
            Wire::OpenAi => match body
                .pointer("/response_format/type")
                .and_then(Value::as_str)
            {
                Some("json_schema") => Asked::JsonSchema,
                Some("json_object") if body.pointer("/response_format/schema").is_some() => {
                    Asked::JsonObjectSchema
                }
                Some("json_object") => Asked::JsonObject,
                _ => Asked::Plain,
            },
            Wire::Anthropic if body.get("tools").is_some() => Asked::Tool,
            Wire::Anthropic => Asked::Plain,
        }
    }

    fn reply(
        &self,
        text: Option<String>,
        tool_input: Option<Value>,
        cut: bool,
    ) -> ResponseTemplate {
        let body = match self.wire {
            Wire::OpenAi => json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0,
                    "message": {"role": "assistant", "content": text.unwrap_or_default()},
                    "finish_reason": if cut { "length" } else { "stop" }}],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
            }),
            Wire::Anthropic => {
                let content = match tool_input {
                    Some(input) => json!([{"type": "tool_use", "id": "toolu_1",
                        "name": CONTRACT_NAME, "input": input}]),
                    None => json!([{"type": "text", "text": text.unwrap_or_default()}]),
                };
                json!({
                    "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                    "content": content,
                    "stop_reason": if cut { "max_tokens" } else if tool_input_used(&content) { "tool_use" } else { "end_turn" },
                    "usage": {"input_tokens": 1000, "output_tokens": 100}
                })
            }
        };
        ResponseTemplate::new(200).set_body_json(body)
    }
}

fn tool_input_used(content: &Value) -> bool {
    content.pointer("/0/type").and_then(Value::as_str) == Some("tool_use")
}

impl Respond for Model {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return ResponseTemplate::new(400).set_body_string("not JSON");
        };
        let Some(aspect) = aspect_in(&body) else {
            return ResponseTemplate::new(400).set_body_string("no aspect in the prompt");
        };
        let asked = self.asked(&body);
        let max_tokens = body.get("max_tokens").and_then(Value::as_u64);
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(Seen {
                aspect,
                asked,
                max_tokens,
            });
        }
        let s = &self.server;
        // The rejections real servers send.
        match asked {
            Asked::JsonSchema if s.reject_json_schema => {
                return ResponseTemplate::new(400).set_body_json(json!({"error": {
                    "message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                    "type": "invalid_request_error", "param": "response_format", "code": null}}));
            }
            Asked::JsonSchema if s.json_schema_500 => {
                // llama-cpp-python 0.3: its route re-raises the request's validation error.
                return ResponseTemplate::new(500).set_body_json(json!({"error": {
                    "message": "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]",
                    "type": "internal_server_error", "param": null, "code": null}}));
            }
            Asked::JsonObject | Asked::JsonObjectSchema if s.reject_json_object => {
                return ResponseTemplate::new(400).set_body_json(json!({"object": "error",
                    "message": "response_format is not supported by this server", "code": 400}));
            }
            Asked::JsonObjectSchema if s.reject_json_object_schema => {
                return ResponseTemplate::new(400).set_body_json(json!({"error": {
                    "message": "[{'type': 'extra_forbidden', 'loc': ('body', 'response_format', 'schema'), 'msg': 'Extra inputs are not permitted'}]",
                    "type": "BadRequestError", "code": 400}}));
            }
            Asked::Tool if s.reject_tools => {
                return ResponseTemplate::new(400).set_body_json(json!({"type": "error",
                    "error": {"type": "invalid_request_error",
                              "message": "tools: Extra inputs are not permitted"}}));
            }
            _ => {}
        }
        let cut = s.cut_always.contains(&aspect)
            || (s.cut_first.contains(&aspect) && max_tokens.unwrap_or(0) <= u64::from(MAX_TOKENS));
        if cut {
            // What a cut answer looks like: the object stops mid-way.
            let whole = findings_object(aspect, asked != Asked::Plain).to_string();
            let half: String = whole.chars().take(whole.chars().count() / 2).collect();
            return match asked {
                Asked::Tool => self.reply(None, Some(json!({})), true),
                _ => self.reply(Some(format!("Here is the review:\n{half}")), None, true),
            };
        }
        match asked {
            Asked::JsonSchema => {
                self.reply(Some(findings_object(aspect, true).to_string()), None, false)
            }
            Asked::JsonObjectSchema if s.json_object_schema => {
                self.reply(Some(findings_object(aspect, true).to_string()), None, false)
            }
            // json_object guarantees JSON, not the schema: the model's own severity words remain.
            Asked::JsonObject | Asked::JsonObjectSchema => self.reply(
                Some(findings_object(aspect, false).to_string()),
                None,
                false,
            ),
            Asked::Tool => self.reply(None, Some(findings_object(aspect, true)), false),
            Asked::Plain => self.reply(Some(free_text(aspect)), None, false),
        }
    }
}

struct Shared(Arc<Model>);

impl Respond for Shared {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        self.0.respond(req)
    }
}

async fn serve(wire: Wire, server: Server) -> (MockServer, Arc<Model>) {
    let mock = MockServer::start().await;
    let model = Arc::new(Model {
        wire,
        server,
        seen: Mutex::new(Vec::new()),
    });
    let p = match wire {
        Wire::OpenAi => "/v1/chat/completions",
        Wire::Anthropic => "/v1/messages",
    };
    Mock::given(method("POST"))
        .and(path(p))
        .respond_with(Shared(model.clone()))
        .mount(&mock)
        .await;
    (mock, model)
}

async fn start(wire: Wire, server: Server) -> (MockServer, Arc<Model>, LlmClient) {
    let (mock, model) = serve(wire, server).await;
    let retry = RetryPolicy {
        retries: 0,
        backoff: Duration::from_millis(10),
    };
    let client = match wire {
        Wire::OpenAi => LlmClient::OpenAi(
            OpenAiClient::new(
                &format!("{}/v1", mock.uri()),
                None,
                "local-model".into(),
                Some(MAX_TOKENS),
                retry,
            )
            .unwrap(),
        ),
        Wire::Anthropic => LlmClient::Anthropic(
            AnthropicClient::new(&mock.uri(), None, "m".into(), MAX_TOKENS, retry).unwrap(),
        ),
    };
    (mock, model, client)
}

fn demo_pr() -> PrMeta {
    Fixture::parse(DEMO_FIXTURE, Path::new("demo")).unwrap().pr
}

async fn review(client: LlmClient, concurrency: usize) -> ReviewRun {
    let settings = ReviewSettings {
        concurrency,
        aspect_timeout_secs: 20.0,
        overall_timeout_secs: 60.0,
        ..ReviewSettings::default()
    };
    let (tx, _rx) = mpsc::unbounded_channel();
    run_review(
        Arc::new(demo_pr()),
        &settings,
        Arc::new(client),
        Arc::new(Prompts::embedded()),
        tx,
        CancellationToken::new(),
    )
    .await
}

fn outcome(run: &ReviewRun, a: Aspect) -> &AspectOutcome {
    run.aspects.iter().find(|o| o.aspect == a).unwrap()
}

/// Every aspect is done with exactly the intended findings (message, file, line, severity).
fn assert_intended(run: &ReviewRun, label: &str) {
    for a in Aspect::ALL {
        let o = outcome(run, a);
        assert_eq!(o.state, AspectState::Done, "{label} {a}: {o:#?}");
        assert!(o.rejected.is_empty(), "{label} {a}: {:?}", o.rejected);
        let mut got: Vec<(Severity, &str, Option<u32>, &str)> = o
            .findings
            .iter()
            .map(|f| (f.severity, f.file.as_str(), f.line, f.message.as_str()))
            .collect();
        let mut want: Vec<(Severity, &str, Option<u32>, &str)> = intended(a)
            .into_iter()
            .map(|(_, file, line, msg, sev)| (sev, file, line, msg))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{label} {a}");
    }
    assert!(!run.is_incomplete(), "{label}");
}

fn seen(model: &Model) -> Vec<Seen> {
    model.seen.lock().unwrap().clone()
}

fn count(model: &Model, asked: Asked) -> usize {
    seen(model).iter().filter(|s| s.asked == asked).count()
}

#[tokio::test]
async fn structured_output_is_used_where_the_server_has_it() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let (_mock, model, client) = start(wire, Server::default()).await;
        let run = review(client, 6).await;
        assert_intended(&run, &format!("{wire:?}"));
        let want = match wire {
            Wire::OpenAi => Asked::JsonSchema,
            Wire::Anthropic => Asked::Tool,
        };
        assert_eq!(count(&model, want), 6, "{wire:?}: {:?}", seen(&model));
        assert_eq!(seen(&model).len(), 6);
        for a in &run.aspects {
            assert_eq!(a.note, None, "{wire:?} {}: nothing to remark", a.aspect);
        }
    }
}

#[tokio::test]
async fn the_request_carries_the_one_contract_schema() {
    let mock = MockServer::start().await;
    let bodies: Arc<Mutex<Vec<Value>>> = Arc::default();
    struct Capture(Arc<Mutex<Vec<Value>>>);
    impl Respond for Capture {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            if let (Ok(v), Ok(mut b)) = (serde_json::from_slice::<Value>(&req.body), self.0.lock())
            {
                b.push(v);
            }
            ResponseTemplate::new(500).set_body_string("captured")
        }
    }
    Mock::given(method("POST"))
        .respond_with(Capture(bodies.clone()))
        .mount(&mock)
        .await;
    let retry = RetryPolicy {
        retries: 0,
        backoff: Duration::from_millis(1),
    };
    let openai = OpenAiClient::new(&mock.uri(), None, "m".into(), Some(7), retry).unwrap();
    let anthropic = AnthropicClient::new(&mock.uri(), None, "m".into(), 7, retry).unwrap();
    let prompt = pr_shepherd::review::inputs::prompt::build(
        Aspect::Security,
        &demo_pr(),
        &Prompts::embedded(),
        60_000,
    );
    assert!(openai.complete(&prompt, &NoEvents).await.is_err());
    assert!(anthropic.complete(&prompt, &NoEvents).await.is_err());
    let b = bodies.lock().unwrap().clone();
    assert_eq!(b.len(), 2);
    assert_eq!(
        b[0]["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": CONTRACT_NAME, "strict": true, "schema": contract_schema()}})
    );
    assert_eq!(b[0]["max_tokens"], 7);
    assert_eq!(b[1]["tools"][0]["name"], CONTRACT_NAME);
    assert_eq!(b[1]["tools"][0]["input_schema"], contract_schema());
    assert_eq!(
        b[1]["tool_choice"],
        json!({"type": "tool", "name": CONTRACT_NAME})
    );
}

/// No structured output at all: the server answers 400 to it, and the model writes prose around
/// the JSON, skips the fence, leaves trailing commas and uses its own severity words. One answer
/// is cut at the token limit the first time.
#[tokio::test]
async fn answers_the_way_models_write_them_all_end_done_on_both_wires() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let server = Server {
            reject_json_schema: true,
            reject_json_object: true,
            reject_tools: true,
            cut_first: vec![Aspect::Architecture],
            ..Server::default()
        };
        let (_mock, model, client) = start(wire, server).await;
        // One at a time, so the fallback is learned once and remembered by the later aspects.
        let run = review(client, 1).await;
        assert_intended(&run, &format!("{wire:?}"));

        let s = seen(&model);
        match wire {
            Wire::OpenAi => {
                assert_eq!(count(&model, Asked::JsonSchema), 1, "{s:?}");
                assert_eq!(count(&model, Asked::JsonObject), 1, "{s:?}");
            }
            Wire::Anthropic => assert_eq!(count(&model, Asked::Tool), 1, "{s:?}"),
        }
        // Six plain answers plus the one asked again after the cut.
        assert_eq!(count(&model, Asked::Plain), 7, "{s:?}");
        let arch: Vec<Option<u64>> = s
            .iter()
            .filter(|x| x.aspect == Aspect::Architecture && x.asked == Asked::Plain)
            .map(|x| x.max_tokens)
            .collect();
        assert_eq!(arch, [Some(1000), Some(2000)], "{wire:?}");

        for a in &run.aspects {
            let note = a.note.as_deref().unwrap_or_default();
            assert!(
                note.contains("structured output: asked with plain text")
                    && note.contains("remembered for the rest of the run"),
                "{wire:?} {}: {note}",
                a.aspect
            );
        }
        let sec = outcome(&run, Aspect::Security)
            .note
            .clone()
            .unwrap_or_default();
        assert!(
            sec.contains("severity words mapped: `blocker` → critical (1), `high` → important (1), `nit` → suggestion (1)"),
            "{sec}"
        );
        let arch = outcome(&run, Aspect::Architecture)
            .note
            .clone()
            .unwrap_or_default();
        assert!(
            arch.contains(
                "the first answer was cut at max_tokens 1000; asked again with max_tokens 2000"
            ),
            "{arch}"
        );
        assert!(arch.contains("`low` → suggestion (1)"), "{arch}");
        // Both calls of the cut aspect are counted.
        assert_eq!(outcome(&run, Aspect::Architecture).tokens.output, Some(200));

        let md = markdown(&run, &first_review(&run));
        assert!(!md.contains("Incomplete review"), "{md}");
        assert!(md.contains("asked again with max_tokens 2000"), "{md}");
    }
}

/// A server with `json_object` but not `json_schema` (many OpenAI-compatible servers): one
/// rejection, then json_object (with the schema, which this server ignores) for the run; the
/// model's severity words are still mapped.
#[tokio::test]
async fn json_object_is_the_middle_rung() {
    let server = Server {
        reject_json_schema: true,
        ..Server::default()
    };
    let (_mock, model, client) = start(Wire::OpenAi, server).await;
    let run = review(client, 6).await;
    assert_intended(&run, "json_object");
    let s = seen(&model);
    assert_eq!(count(&model, Asked::JsonObjectSchema), 6, "{s:?}");
    assert_eq!(count(&model, Asked::Plain), 0, "{s:?}");
    // Concurrent aspects may each have tried json_schema before the first rejection was learned.
    let schema = count(&model, Asked::JsonSchema);
    assert!((1..=6).contains(&schema), "{s:?}");
    assert_eq!(s.len(), 6 + schema);
    for a in &run.aspects {
        let note = a.note.as_deref().unwrap_or_default();
        assert!(
            note.contains("asked with response_format json_object with the schema — the server rejected response_format json_schema (HTTP 400)"),
            "{}: {note}",
            a.aspect
        );
    }
}

/// llama-cpp-python's server answers json_schema with HTTP 500 (its validation error names
/// `response_format`): that is a refusal, not a fault to retry. Each aspect asks json_schema at
/// most once, then json_object with the schema, which this server enforces: every severity is
/// canonical, no mapping needed.
#[tokio::test]
async fn a_500_naming_response_format_is_a_refusal_and_not_retried() {
    let server = Server {
        json_schema_500: true,
        json_object_schema: true,
        ..Server::default()
    };
    let (mock, model) = serve(Wire::OpenAi, server).await;
    let client = LlmClient::OpenAi(
        OpenAiClient::new(
            &format!("{}/v1", mock.uri()),
            None,
            "local-model".into(),
            Some(MAX_TOKENS),
            RetryPolicy {
                retries: 2,
                backoff: Duration::from_millis(10),
            },
        )
        .unwrap(),
    );
    let run = review(client, 6).await;
    assert_intended(&run, "json_schema 500");
    let s = seen(&model);
    for a in Aspect::ALL {
        let tries = s
            .iter()
            .filter(|x| x.aspect == a && x.asked == Asked::JsonSchema)
            .count();
        assert!(tries <= 1, "{a} asked json_schema {tries} times: {s:?}");
    }
    assert_eq!(count(&model, Asked::JsonObjectSchema), 6, "{s:?}");
    assert_eq!(
        count(&model, Asked::JsonObject) + count(&model, Asked::Plain),
        0
    );
    for a in &run.aspects {
        let note = a.note.as_deref().unwrap_or_default();
        assert!(
            note.contains("asked with response_format json_object with the schema — the server rejected response_format json_schema (HTTP 500)"),
            "{}: {note}",
            a.aspect
        );
        assert!(!note.contains("severity words mapped"), "{note}");
    }
}

/// What answered is remembered per server URL in the state dir: the next run asks llama-cpp-python
/// with json_object and the schema at once (no json_schema request), and says it learnt that in
/// an earlier run. A memory file that cannot be read is ignored with a note, and replaced.
#[tokio::test]
async fn what_a_server_takes_is_remembered_for_the_next_run() {
    let state = tempfile::tempdir().unwrap();
    let server = Server {
        json_schema_500: true,
        json_object_schema: true,
        ..Server::default()
    };
    let (mock, model) = serve(Wire::OpenAi, server).await;
    let client = || {
        LlmClient::OpenAi(
            OpenAiClient::new(
                &format!("{}/v1", mock.uri()),
                None,
                "local-model".into(),
                Some(MAX_TOKENS),
                RetryPolicy::default(),
            )
            .unwrap()
            .structured(
                pr_shepherd::review::settings::StructuredOutput::Auto,
                Some(state.path()),
            ),
        )
    };
    let run = review(client(), 1).await;
    assert_intended(&run, "first run");
    assert_eq!(count(&model, Asked::JsonSchema), 1, "{:?}", seen(&model));
    let memory = state.path().join(SERVER_MEMORY_FILE);
    let text = std::fs::read_to_string(&memory).unwrap();
    assert!(text.contains("json_object_schema"), "{text}");

    let before = seen(&model).len();
    let run = review(client(), 6).await;
    assert_intended(&run, "second run");
    let second = &seen(&model)[before..];
    assert_eq!(second.len(), 6, "{second:?}");
    assert!(
        second.iter().all(|x| x.asked == Asked::JsonObjectSchema),
        "{second:?}"
    );
    let note = outcome(&run, Aspect::Security)
        .note
        .clone()
        .unwrap_or_default();
    assert!(
        note.contains("in an earlier run (remembered in the state dir)"),
        "{note}"
    );

    std::fs::write(&memory, "{ not json").unwrap();
    let run = review(client(), 6).await;
    assert_intended(&run, "corrupt memory");
    assert!(
        run.notes
            .iter()
            .any(|n| n.contains("llm-servers.json") && n.contains("ignored")),
        "{:?}",
        run.notes
    );
    let text = std::fs::read_to_string(&memory).unwrap();
    assert!(text.contains("json_object_schema"), "replaced: {text}");
}

/// The schema goes inside json_object where the server takes it, and is dropped where the server
/// refuses it there.
#[tokio::test]
async fn json_object_carries_the_schema_unless_the_server_refuses_it() {
    let server = Server {
        reject_json_schema: true,
        json_object_schema: true,
        ..Server::default()
    };
    let (_mock, model, client) = start(Wire::OpenAi, server).await;
    let run = review(client, 1).await;
    assert_intended(&run, "schema in json_object");
    assert_eq!(count(&model, Asked::JsonObjectSchema), 6);
    assert_eq!(count(&model, Asked::JsonObject), 0);

    let server = Server {
        reject_json_schema: true,
        reject_json_object_schema: true,
        ..Server::default()
    };
    let (_mock, model, client) = start(Wire::OpenAi, server).await;
    let run = review(client, 1).await;
    assert_intended(&run, "schema refused in json_object");
    assert_eq!(
        count(&model, Asked::JsonObjectSchema),
        1,
        "{:?}",
        seen(&model)
    );
    assert_eq!(count(&model, Asked::JsonObject), 6);
    let note = outcome(&run, Aspect::Tests)
        .note
        .clone()
        .unwrap_or_default();
    assert!(
        note.contains("asked with response_format json_object — the server rejected response_format json_schema (HTTP 400) and response_format json_object with the schema (HTTP 400)"),
        "{note}"
    );
}

/// `[review] structured_output` picks the shape: `off` asks with plain text at once, `json_object`
/// starts there, and `json_schema` asks only that way, so a server refusing it fails the aspect
/// with a reason that names the setting.
#[tokio::test]
async fn the_structured_output_setting_picks_the_shape() {
    use pr_shepherd::review::settings::StructuredOutput;
    let server = Server {
        reject_json_schema: true,
        json_object_schema: true,
        ..Server::default()
    };
    for (setting, asked) in [
        (StructuredOutput::Off, Asked::Plain),
        (StructuredOutput::JsonObject, Asked::JsonObjectSchema),
    ] {
        let (mock, model) = serve(Wire::OpenAi, server.clone()).await;
        let client = LlmClient::OpenAi(
            OpenAiClient::new(
                &format!("{}/v1", mock.uri()),
                None,
                "m".into(),
                Some(MAX_TOKENS),
                RetryPolicy::default(),
            )
            .unwrap()
            .structured(setting, None),
        );
        let run = review(client, 6).await;
        assert_intended(&run, setting.as_str());
        assert_eq!(count(&model, asked), 6, "{setting:?}: {:?}", seen(&model));
        assert_eq!(seen(&model).len(), 6, "{setting:?}: nothing else was asked");
        assert!(run.aspects.iter().all(|a| {
            a.note
                .as_deref()
                .is_none_or(|n| !n.contains("structured output"))
        }));
    }
    let (mock, model) = serve(Wire::OpenAi, server).await;
    let client = LlmClient::OpenAi(
        OpenAiClient::new(
            &format!("{}/v1", mock.uri()),
            None,
            "m".into(),
            Some(MAX_TOKENS),
            RetryPolicy::default(),
        )
        .unwrap()
        .structured(StructuredOutput::JsonSchema, None),
    );
    let run = review(client, 6).await;
    assert_eq!(count(&model, Asked::JsonSchema), 6);
    assert_eq!(seen(&model).len(), 6);
    for a in &run.aspects {
        assert_eq!(a.state, AspectState::Failed);
        let why = a.error.as_deref().unwrap_or_default();
        assert!(
            why.contains("the server refused response_format json_schema (`structured_output = \"json_schema\"`"),
            "{why}"
        );
    }
}

#[tokio::test]
async fn an_answer_cut_twice_fails_the_aspect_with_that_reason() {
    for (wire, structured) in [
        (Wire::OpenAi, false),
        (Wire::OpenAi, true),
        (Wire::Anthropic, false),
        (Wire::Anthropic, true),
    ] {
        let server = Server {
            reject_json_schema: !structured,
            reject_json_object: !structured,
            reject_tools: !structured,
            cut_always: vec![Aspect::Perf],
            ..Server::default()
        };
        let (_mock, model, client) = start(wire, server).await;
        let run = review(client, 6).await;
        let perf = outcome(&run, Aspect::Perf);
        assert_eq!(perf.state, AspectState::Failed, "{wire:?}");
        let error = perf.error.as_deref().unwrap_or_default();
        assert!(
            error.contains(
                "was cut at the token limit: cut at max_tokens 1000, and again when asked with 2000"
            ),
            "{wire:?}: {error}"
        );
        let asked: Vec<Option<u64>> = seen(&model)
            .iter()
            .filter(|x| x.aspect == Aspect::Perf)
            .filter(|x| !structured || matches!(x.asked, Asked::JsonSchema | Asked::Tool))
            .filter(|x| structured || x.asked == Asked::Plain)
            .map(|x| x.max_tokens)
            .collect();
        assert_eq!(asked, [Some(1000), Some(2000)], "{wire:?} {structured}");
        for a in Aspect::ALL.into_iter().filter(|a| *a != Aspect::Perf) {
            assert_eq!(outcome(&run, a).state, AspectState::Done, "{wire:?} {a}");
        }
        // The two cut answers were reported (1000 in, 100 out each): a failed aspect's tokens
        // count in the run's usage.
        assert_eq!(perf.tokens.input, Some(2000), "{wire:?} {structured}");
        assert_eq!(perf.tokens.output, Some(200), "{wire:?} {structured}");
        assert_eq!(
            run.usage().tokens.input,
            Some(6 * 1000 + 1000),
            "{wire:?} {structured}"
        );
        let md = markdown(&run, &first_review(&run));
        assert!(md.contains("### Performance — failed"), "{md}");
        assert!(md.contains("cut at the token limit"), "{md}");
    }
}

/// A finding that breaks the contract (an unknown severity word) is shown in the review under its
/// aspect as unclassified, with its message and the reason; the aspect does not say "No findings".
#[tokio::test]
async fn a_rejected_finding_is_listed_unclassified_in_the_review() {
    struct Odd;
    impl Respond for Odd {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let body: Value = serde_json::from_slice(&req.body).unwrap_or_default();
            let text = if aspect_in(&body) == Some(Aspect::Tests) {
                "Findings below.\n{\"findings\": [{\"severity\": \"urgent-ish\", \"file\": \"src/client/retry.rs\", \"message\": \"The jitter is never tested.\"},]}"
            } else {
                "{\"findings\": []}"
            };
            ResponseTemplate::new(200).set_body_json(json!({
                "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]
            }))
        }
    }
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Odd)
        .mount(&mock)
        .await;
    let client = LlmClient::OpenAi(
        OpenAiClient::new(
            &mock.uri(),
            None,
            "m".into(),
            Some(MAX_TOKENS),
            RetryPolicy::default(),
        )
        .unwrap(),
    );
    let run = review(client, 6).await;
    let tests = outcome(&run, Aspect::Tests);
    assert_eq!(tests.state, AspectState::Done);
    assert!(tests.findings.is_empty());
    assert_eq!(tests.rejected.len(), 1);
    assert_eq!(
        tests.rejected[0].message.as_deref(),
        Some("The jitter is never tested.")
    );
    let md = markdown(&run, &first_review(&run));
    let section = &md[md.find("### Tests").unwrap()..md.find("### Architecture").unwrap()];
    assert!(!section.contains("No findings"), "{section}");
    assert!(
        section.contains("- **Unclassified** `src/client/retry.rs` — The jitter is never tested."),
        "{section}"
    );
    assert!(
        section.contains("unknown severity `urgent-ish`"),
        "{section}"
    );
    assert!(md.contains("| Tests | done | 0 + 1 unclassified |"), "{md}");
}

/// The `command` backend has no structured output: a program that writes prose around the JSON,
/// trailing commas and its own severity words still gives a done aspect with the findings.
#[cfg(unix)]
#[tokio::test]
async fn a_command_backend_answering_in_prose_is_read() {
    let answer = "Sure! Here is what I found:\n{\"findings\": [{\"severity\": \"High\", \"file\": \"src/client/retry.rs\", \"line\": 41, \"message\": \"Unbounded 429 loop.\",},],}\nHope this helps.";
    let script = format!("cat >/dev/null; printf '%s' '{answer}'");
    let client =
        LlmClient::Command(CommandClient::new(vec!["sh".into(), "-c".into(), script]).unwrap());
    let run = review(client, 6).await;
    for a in &run.aspects {
        assert_eq!(a.state, AspectState::Done, "{}: {:?}", a.aspect, a.error);
        assert_eq!(a.findings.len(), 1, "{}", a.aspect);
        assert_eq!(a.findings[0].severity, Severity::Important);
        assert_eq!(
            a.note.as_deref(),
            Some("severity words mapped: `high` → important (1)")
        );
    }
}

/// End to end through the binary: a local OpenAI-compatible server without structured output
/// whose model writes prose, trailing commas and its own severity words; the review is complete.
#[tokio::test]
async fn the_cli_review_is_complete_against_a_server_without_structured_output() {
    let server = Server {
        reject_json_schema: true,
        reject_json_object: true,
        ..Server::default()
    };
    let (mock, model) = serve(Wire::OpenAi, server).await;
    let env = support::env::TestEnv::new();
    let url = format!("{}/v1", mock.uri());
    let out = env
        .bin_async()
        .args([
            "review",
            "--format",
            "json",
            "--llm",
            "openai",
            "--llm-url",
            &url,
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["complete"], true);
    for a in v["aspects"].as_array().unwrap() {
        assert_eq!(a["state"], "done", "{a}");
        assert!(
            a["note"]
                .as_str()
                .unwrap_or_default()
                .contains("structured output: asked with plain text"),
            "{a}"
        );
    }
    let total: usize = Aspect::ALL.into_iter().map(|a| intended(a).len()).sum();
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(total));
    assert!(count(&model, Asked::Plain) >= 6);
}
