//! The documentation's examples stay true.

mod support;

use std::path::Path;

use support::env::TestEnv;

fn json_blocks(md: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in md.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```json") => current = Some(String::new()),
            (Some(b), "```") => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

#[test]
fn fixture_format_example_is_a_valid_fixture() {
    let md = std::fs::read_to_string("docs/fixture-format.md").expect("doc");
    let blocks = json_blocks(&md);
    let example = blocks.last().expect("an example");
    let f = pr_shepherd::source::Fixture::parse(example, Path::new("docs/fixture-format.md"))
        .expect("the documented example parses");
    assert_eq!(f.items.len(), 3);
    assert!(!f.steps.is_empty());
    assert_eq!(f.llm.answers.len(), 1);
    // Every op in the table appears in the example or the demo fixture.
    let demo = pr_shepherd::source::DEMO_FIXTURE;
    for op in [
        "edit", "reply", "resolve", "minimize", "push", "add", "labels",
    ] {
        let needle = format!("\"op\": \"{op}\"");
        assert!(example.contains(&needle) || demo.contains(&needle), "{op}");
    }
}

#[test]
fn json_output_doc_names_every_item_field() {
    let md = std::fs::read_to_string("docs/json-output.md").expect("doc");
    let env = TestEnv::new();
    let out = env
        .bin()
        .args(["items", "--format", "json", "--peek"])
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    for key in v.as_object().expect("object").keys() {
        assert!(
            md.contains(&format!("\"{key}\"")),
            "top-level `{key}` undocumented"
        );
    }
    let item = &v["items"][1];
    for key in item.as_object().expect("object").keys() {
        assert!(
            md.contains(&format!("\"{key}\"")),
            "item field `{key}` undocumented"
        );
    }
    let documented = &json_blocks(&md)[0];
    let doc_item = documented
        .find("\"bodyHash\": \"")
        .map(|i| &documented[i + 13..i + 29])
        .expect("bodyHash in doc");
    assert_eq!(
        item["bodyHash"], doc_item,
        "the doc's example hash matches the demo"
    );
}

#[test]
fn json_output_doc_names_every_inbox_field() {
    let md = std::fs::read_to_string("docs/json-output.md").expect("doc");
    let section = &md[md.find("## inbox:").expect("an inbox section")..];
    let env = TestEnv::new();
    let out = env
        .bin()
        .args(["inbox", "--format", "json"])
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut keys: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
    for pr in v["prs"].as_array().expect("prs") {
        for (k, val) in pr.as_object().expect("pr") {
            keys.push(k.clone());
            if let Some(inner) = val.as_object() {
                keys.extend(inner.keys().cloned());
            }
        }
    }
    for key in keys {
        assert!(
            section.contains(&format!("\"{key}\"")),
            "inbox field `{key}` undocumented"
        );
    }
}
