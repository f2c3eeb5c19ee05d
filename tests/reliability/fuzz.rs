//! Fuzzing: arbitrary bytes and mutated JSON/TOML thrown at the
//! fixture loader, the config loader, the findings parser and the prior-review metadata parser.
//!
//! Two layers:
//! - the library, many cases: never a panic; an error has a message;
//! - the binary, fewer cases (each is a process): never a panic (exit 101), bad input exits 2
//!   (a review's unreadable model answer: 3) with a one-line reason on stderr.
//!
//! Case counts: `PR_SHEPHERD_FUZZ_CASES` (library) and `PR_SHEPHERD_FUZZ_BIN_CASES` (binary), by
//! default 256 and 12 — about five seconds in all on CI's debug build; raise them for a longer
//! local run (`PR_SHEPHERD_FUZZ_CASES=20000 cargo test --test suite reliability::fuzz::`).

use crate::support;

use std::collections::HashSet;
use std::path::Path;
use std::process::Output;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

use pr_shepherd::review::Aspect;
use pr_shepherd::review::findings::parse_reply;
use pr_shepherd::review::inputs::prior::{parse_meta, prior_reviews};
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};
use support::env::TestEnv;
use support::stderr;

fn cases(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn lib_config() -> Config {
    Config {
        cases: cases("PR_SHEPHERD_FUZZ_CASES", 256),
        failure_persistence: None,
        ..Config::default()
    }
}

fn bin_config() -> Config {
    Config {
        cases: cases("PR_SHEPHERD_FUZZ_BIN_CASES", 12),
        failure_persistence: None,
        ..Config::default()
    }
}

// ---- mutations --------------------------------------------------------------------------------

/// One edit of a JSON document: which node (an index into its nodes, modulo their number), what
/// to do there, and a value to use.
#[derive(Debug, Clone)]
struct Mutation {
    node: usize,
    op: u8,
    text: String,
    number: i64,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        any::<usize>(),
        0u8..10,
        prop_oneof![
            ".{0,12}",
            "[\u{1b}\u{7}\u{9b}\u{202e}\u{200b}\u{e0041}\u{fe0f}a-z]{0,8}",
            Just(String::new()),
            Just("x".repeat(5000)),
        ],
        prop_oneof![
            any::<i64>(),
            Just(i64::MAX),
            Just(i64::MIN),
            Just(-1),
            Just(0)
        ],
    )
        .prop_map(|(node, op, text, number)| Mutation {
            node,
            op,
            text,
            number,
        })
}

/// JSON pointers of every node, the root first.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let k = k.replace('~', "~0").replace('/', "~1");
                pointers(c, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                pointers(c, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn mutate(doc: &mut Value, m: &Mutation) {
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    let at = all[m.node % all.len()].clone();
    let Some(node) = doc.pointer_mut(&at) else {
        return;
    };
    match m.op {
        0 => *node = Value::Null,
        1 => *node = json!(m.text),
        2 => *node = json!(m.number),
        3 => *node = json!(u64::MAX),
        4 => *node = json!(1e308),
        5 => *node = json!([]),
        6 => *node = json!({}),
        7 => *node = json!(!node.as_bool().unwrap_or(false)),
        // Remove a key or an element.
        8 => match node {
            Value::Object(o) => {
                let key = o.keys().nth(m.node % o.len().max(1)).cloned();
                if let Some(k) = key {
                    o.remove(&k);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                let i = m.node % a.len();
                a.remove(i);
            }
            _ => *node = Value::Null,
        },
        // Duplicate an element, or add an unknown key.
        _ => match node {
            Value::Array(a) if !a.is_empty() => {
                let i = m.node % a.len();
                let copy = a[i].clone();
                a.push(copy);
            }
            Value::Object(o) => {
                o.insert(m.text.clone(), json!(m.number));
            }
            _ => *node = json!(m.text),
        },
    }
}

/// A whole document after the mutations, then maybe cut short or with a byte changed.
fn mutated_text(base: &Value, ms: &[Mutation], cut: Option<usize>, flip: Option<usize>) -> Vec<u8> {
    let mut doc = base.clone();
    for m in ms {
        mutate(&mut doc, m);
    }
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    if let Some(c) = cut {
        bytes.truncate(c % (bytes.len() + 1));
    }
    if let Some(f) = flip
        && !bytes.is_empty()
    {
        let i = f % bytes.len();
        bytes[i] ^= 0x5a;
    }
    bytes
}

fn demo_value() -> Value {
    serde_json::from_str(DEMO_FIXTURE).unwrap_or(Value::Null)
}

fn document() -> impl Strategy<Value = (Vec<Mutation>, Option<usize>, Option<usize>)> {
    (
        proptest::collection::vec(mutation(), 1..6),
        proptest::option::weighted(0.15, any::<usize>()),
        proptest::option::weighted(0.15, any::<usize>()),
    )
}

// ---- the library: many cases ------------------------------------------------------------------

#[test]
fn fixture_loader_never_panics() {
    let base = demo_value();
    let mut runner = TestRunner::new(lib_config());
    runner
        .run(&document(), |(ms, cut, flip)| {
            let bytes = mutated_text(&base, &ms, cut, flip);
            let text = String::from_utf8_lossy(&bytes);
            match Fixture::parse(&text, Path::new("fuzz.json")) {
                Ok(f) => {
                    // A fixture that loads must also yield every step without a panic.
                    for step in 0..=f.steps.len() {
                        let _ = f.snapshot_at(step);
                    }
                }
                Err(e) => prop_assert!(!e.to_string().trim().is_empty()),
            }
            Ok(())
        })
        .unwrap();
    runner
        .run(&proptest::collection::vec(any::<u8>(), 0..2048), |bytes| {
            let text = String::from_utf8_lossy(&bytes);
            prop_assert!(Fixture::parse(&text, Path::new("fuzz.json")).is_err());
            Ok(())
        })
        .unwrap();
}

/// A config shaped like a real one: some keys right, some mutated.
fn config_text() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        "[a-z0-9 ._*/-]{0,12}".prop_map(|s| format!("\"{s}\"")),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("18446744073709551615".to_owned()),
        Just("1e400".to_owned()),
        Just("nan".to_owned()),
        Just("[\"j\", \"Down\"]".to_owned()),
        Just("[".to_owned()),
        Just("{a = 1}".to_owned()),
        "[\u{1b}\u{7}\u{202e}a-z]{0,6}".prop_map(|s| format!("\"{s}\"")),
    ];
    let key = prop_oneof![
        Just("theme"),
        Just("[keys]\ndown"),
        Just("[keys]\nfly"),
        Just("[review]\nconcurrency"),
        Just("[review]\nllm"),
        Just("[review]\naspect_timeout_secs"),
        Just("[review]\ncommand_env"),
        Just("[review.skip.perf]\nunless_files_match"),
        Just("[review.diff_budgets]\ntests"),
        Just("colour"),
    ];
    proptest::collection::vec((key, value), 0..5).prop_map(|kv| {
        kv.into_iter()
            .map(|(k, v)| format!("{k} = {v}\n"))
            .collect::<String>()
    })
}

#[test]
fn config_loader_never_panics() {
    let mut runner = TestRunner::new(lib_config());
    runner
        .run(&config_text(), |text| {
            if let Err(e) = pr_shepherd::config::Config::parse(&text, Path::new("c.toml")) {
                prop_assert!(!e.to_string().trim().is_empty());
            }
            Ok(())
        })
        .unwrap();
    runner
        .run(&proptest::collection::vec(any::<u8>(), 0..1024), |bytes| {
            let text = String::from_utf8_lossy(&bytes);
            let _ = pr_shepherd::config::Config::parse(&text, Path::new("c.toml"));
            Ok(())
        })
        .unwrap();
}

fn a_reply() -> Value {
    json!({"findings": [
        {"severity": "important", "file": "src/client/retry.rs", "line": 12, "message": "m", "suggestedFix": "f"},
        {"severity": "suggestion", "file": "src/lib.rs", "message": "n"}
    ]})
}

#[test]
fn findings_parser_never_panics() {
    let base = a_reply();
    let files: HashSet<&str> = ["src/client/retry.rs", "src/lib.rs"].into_iter().collect();
    let mut runner = TestRunner::new(lib_config());
    runner
        .run(&document(), |(ms, cut, flip)| {
            let bytes = mutated_text(&base, &ms, cut, flip);
            let text = String::from_utf8_lossy(&bytes);
            for wrapped in [
                text.to_string(),
                format!("Here you go:\n```json\n{text}\n```\n"),
            ] {
                if let Ok(p) = parse_reply(Aspect::Security, &wrapped, &files) {
                    for f in &p.findings {
                        prop_assert!(!f.message.chars().any(pr_shepherd::sanitize::is_hazard));
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    runner
        .run(&".{0,400}", |text| {
            let _ = parse_reply(Aspect::Tests, &text, &files);
            Ok(())
        })
        .unwrap();
}

fn a_meta() -> Value {
    json!({"version": 1, "mode": "full", "headSha": "abc", "triggerComment": 7,
           "findings": [{"id": "PS-1", "aspect": "security", "severity": "important", "file": "a.rs", "line": 3, "message": "m"}],
           "addressed": []})
}

#[test]
fn metadata_parser_never_panics() {
    let base = a_meta();
    let demo = support::demo_fixture();
    let snapshot = demo.snapshot_at(0).unwrap();
    let mut runner = TestRunner::new(lib_config());
    runner
        .run(&document(), |(ms, cut, flip)| {
            let bytes = mutated_text(&base, &ms, cut, flip);
            let json = String::from_utf8_lossy(&bytes);
            let body = format!("## PR Shepherd Review\n\ntext\n<!-- pr-shepherd:meta {json} -->\n");
            let _ = parse_meta(&body);
            // And through the reader of prior reviews, on a real snapshot.
            let mut s = snapshot.clone();
            if let Some(pr_shepherd::pr::Item::Comment(c)) = s
                .items
                .iter_mut()
                .find(|i| matches!(i, pr_shepherd::pr::Item::Comment(_)))
            {
                c.body = body;
                let login = c.author.login.clone();
                let prior = prior_reviews(&s, &login);
                let _ = prior.findings();
                let _ = prior.addressed();
            }
            Ok(())
        })
        .unwrap();
    runner
        .run(&".{0,300}", |text| {
            let _ = parse_meta(&format!("<!-- pr-shepherd:meta {text}"));
            let _ = parse_meta(&text);
            Ok(())
        })
        .unwrap();
}

// ---- the binary: fewer cases ------------------------------------------------------------------

/// Never a panic; `ok` exit codes only; a failure's reason is one `error:` line.
fn check_exit(out: &Output, ok: &[i32]) -> Result<(), TestCaseError> {
    let code = out.status.code();
    let err = stderr(out);
    prop_assert!(code != Some(101), "panic:\n{err}");
    prop_assert!(
        code.is_some_and(|c| ok.contains(&c)),
        "exit {code:?}, expected one of {ok:?}:\n{err}"
    );
    if code != Some(0) {
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        prop_assert_eq!(errors.len(), 1, "one reason:\n{}", err);
        prop_assert!(
            !err.lines()
                .any(|l| l.starts_with(' ') || l.starts_with('|')),
            "a multi-line reason:\n{}",
            err
        );
    }
    Ok(())
}

#[test]
fn binary_refuses_broken_fixtures_with_exit_2() {
    let base = demo_value();
    let env = TestEnv::new();
    let path = env.root().join("fuzz.json");
    // `items --peek` of a fixture file holding `bytes`.
    let peek = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        env.bin()
            .args(["items", "--peek"])
            .arg(&path)
            .output()
            .unwrap()
    };
    let mut runner = TestRunner::new(bin_config());
    runner
        .run(&document(), |(ms, cut, flip)| {
            check_exit(&peek(&mutated_text(&base, &ms, cut, flip)), &[0, 2])
        })
        .unwrap();
    runner
        .run(&proptest::collection::vec(any::<u8>(), 0..512), |bytes| {
            check_exit(&peek(&bytes), &[2])
        })
        .unwrap();
}

#[test]
fn binary_refuses_broken_configs_with_exit_2() {
    let env = TestEnv::new();
    let mut runner = TestRunner::new(bin_config());
    runner
        .run(&config_text(), |text| {
            std::fs::write(env.config(), text).unwrap();
            let out = env.bin().args(["items", "--peek"]).output().unwrap();
            check_exit(&out, &[0, 2])
        })
        .unwrap();
    // A syntax error quotes none of the file: one line, however long the line was.
    std::fs::write(env.config(), format!("theme = {}\n", "[".repeat(100_000))).unwrap();
    let out = env.bin().args(["items", "--peek"]).output().unwrap();
    check_exit(&out, &[2]).unwrap();
    assert!(stderr(&out).len() < 1000, "{}", stderr(&out).len());
}

/// The demo with its recorded security answer replaced by `reply`.
fn demo_answering(reply: &str) -> Value {
    let mut v = demo_value();
    if let Some(answers) = v["llm"]["answers"].as_array_mut() {
        for a in answers {
            if a["aspect"] == "security" {
                a["reply"] = json!(reply);
            }
        }
    }
    v
}

#[test]
fn binary_review_of_broken_answers_and_metadata_never_panics() {
    let env = TestEnv::new();
    let path = env.root().join("fuzz.json");
    let base_reply = a_reply();
    let base_meta = a_meta();
    let mut runner = TestRunner::new(bin_config());
    runner
        .run(&document(), |(ms, cut, flip)| {
            let reply =
                String::from_utf8_lossy(&mutated_text(&base_reply, &ms, cut, flip)).into_owned();
            std::fs::write(&path, serde_json::to_vec(&demo_answering(&reply)).unwrap()).unwrap();
            let out = env.bin().arg("review").arg(&path).output().unwrap();
            // An answer that cannot be read fails its aspect: the review is incomplete (3).
            check_exit(&out, &[0, 3])
        })
        .unwrap();
    runner
        .run(&document(), |(ms, cut, flip)| {
            let meta = String::from_utf8_lossy(&mutated_text(&base_meta, &ms, cut, flip)).into_owned();
            let mut v = demo_value();
            v["items"]
                .as_array_mut()
                .unwrap()
                .push(json!({"kind": "comment", "id": "IC_fuzz", "author": {"login": "pr-shepherd", "association": "NONE"},
                             "createdAt": "2030-01-01T00:00:00Z", "url": "https://github.com/acme/rivet/pull/482#issuecomment-1",
                             "body": format!("## PR Shepherd Review\n\n<!-- pr-shepherd:meta {meta} -->\n")}));
            std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
            let out = env.bin().arg("review").arg(&path).output().unwrap();
            // Unreadable metadata is a warning: its findings count as new.
            check_exit(&out, &[0])
        })
        .unwrap();
}
