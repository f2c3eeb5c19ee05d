//! The documentation's examples stay true.

use crate::support;

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

/// docs/architecture.md stays true: every top-level module is on its map, and every source path
/// it names exists.
#[test]
fn architecture_doc_names_every_module_and_only_real_paths() {
    let md = std::fs::read_to_string("docs/architecture.md").expect("doc");
    for entry in std::fs::read_dir("src").expect("src") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name");
        if matches!(name, "lib" | "main") {
            continue;
        }
        assert!(
            md.contains(name),
            "docs/architecture.md does not place `{name}`"
        );
    }
    let mut named = 0;
    for word in md.split(|c: char| c.is_whitespace() || "`(),".contains(c)) {
        let word = word.trim_end_matches(['.', ':']);
        if (word.starts_with("src/") || word.starts_with("tests/"))
            && !word.contains('<')
            && !word.contains('*')
        {
            named += 1;
            assert!(
                std::path::Path::new(word).exists(),
                "docs/architecture.md names {word}, which does not exist"
            );
        }
    }
    assert!(named >= 10, "the doc names its files ({named})");
}

/// The config tables of docs/config.md, by marker name, and the schema table each one is.
const CONFIG_TABLES: &[(&str, &str)] = &[
    ("top", ""),
    ("keys", "keys"),
    ("review", "review"),
    ("automation", "automation"),
    ("gates", "gates"),
    ("inbox", "inbox"),
    ("console", "console"),
    ("code", "code"),
    ("merge", "merge"),
];

/// The keys named in the first column of a reference table (`| `review.llm` | … |`).
fn table_keys(md: &str) -> std::collections::BTreeSet<String> {
    md.lines()
        .filter_map(|l| {
            let cell = l.strip_prefix("| `")?;
            Some(cell.split_once('`')?.0.to_owned())
        })
        .collect()
}

/// docs/config.md lists exactly the keys of the settings schema, each with the schema's type,
/// default, example and meaning: its tables are produced from the schema
/// (`pr_shepherd::config::reference_markdown`). A key of the schema missing from the page, or a
/// key on the page the schema does not have, fails here. After changing the schema, run
/// `UPDATE_DOCS=1 cargo test --test suite project::docs::` to rewrite the tables between their markers.
#[test]
fn config_reference_is_the_settings_schema() {
    let path = "docs/config.md";
    let md = std::fs::read_to_string(path).expect("doc");
    let mut expected = md.clone();
    let mut schema_keys = std::collections::BTreeSet::new();
    for (marker, table) in CONFIG_TABLES {
        let open = format!("<!-- schema:{marker} -->\n");
        let close = "<!-- /schema -->";
        let start = expected
            .find(&open)
            .unwrap_or_else(|| panic!("{path} has no `{}` marker", open.trim()))
            + open.len();
        let end = start
            + expected[start..]
                .find(close)
                .unwrap_or_else(|| panic!("{path}: `{}` is not closed", open.trim()));
        let generated = pr_shepherd::config::reference_markdown(table);
        schema_keys.extend(table_keys(&generated));
        expected.replace_range(start..end, &generated);
    }
    let documented = table_keys(&md);
    let missing: Vec<_> = schema_keys.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&schema_keys).collect();
    if std::env::var_os("UPDATE_DOCS").is_some() && expected != md {
        std::fs::write(path, &expected).expect("rewrite the doc");
        return;
    }
    assert!(
        missing.is_empty(),
        "{path} does not list {missing:?} (UPDATE_DOCS=1 cargo test --test suite project::docs:: rewrites it)"
    );
    assert!(
        extra.is_empty(),
        "{path} lists {extra:?}, which the settings schema does not have"
    );
    assert!(
        expected == md,
        "{path}'s tables differ from the settings schema (UPDATE_DOCS=1 cargo test --test suite project::docs:: rewrites them)"
    );
}

/// The complete examples of docs/config.md are valid config files.
#[test]
fn config_reference_examples_are_valid_configs() {
    let md = std::fs::read_to_string("docs/config.md").expect("doc");
    let blocks: Vec<&str> = md
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(blocks.len() >= 2);
    for b in blocks {
        if let Err(e) = pr_shepherd::config::Config::parse(b, Path::new("docs/config.md")) {
            panic!("{e}\n{b}");
        }
    }
}

/// The README and the pages of `docs/`, each with its path.
fn user_docs() -> Vec<(String, String)> {
    let mut paths = vec![std::path::PathBuf::from("README.md")];
    let mut pages: Vec<_> = std::fs::read_dir("docs")
        .expect("docs")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    paths.extend(pages);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a page");
            (p.display().to_string(), text)
        })
        .collect()
}

/// The text captures of the console are the console's own snapshots: each fenced `text` block
/// after a paragraph naming a `tests/console/snapshots/….snap` file — in the README or any page
/// of `docs/` — is that snapshot's screen, so the pictures stay true when the screens change.
#[test]
fn readme_captures_are_the_console_snapshots() {
    let mut checked = 0;
    for (page, md) in user_docs() {
        let mut named: Option<String> = None;
        let mut block: Option<String> = None;
        for line in md.lines() {
            if let Some(b) = &mut block {
                if line == "```" {
                    let path = named.take().expect("named");
                    let snap = std::fs::read_to_string(&path)
                        .unwrap_or_else(|e| panic!("{page} names {path}: {e}"));
                    let screen = snap.splitn(3, "---\n").nth(2).expect("an insta snapshot");
                    assert_eq!(
                        b.trim_end(),
                        screen.trim_end(),
                        "{page}'s capture of {path}"
                    );
                    checked += 1;
                    block = None;
                } else {
                    b.push_str(line);
                    b.push('\n');
                }
                continue;
            }
            if let Some(at) = line.find("tests/console/snapshots/") {
                let rest = &line[at..];
                let end = rest.find(".snap").expect("a .snap path") + ".snap".len();
                named = Some(rest[..end].to_owned());
            } else if line == "```text" && named.is_some() {
                block = Some(String::new());
            }
        }
    }
    assert!(checked >= 2, "the inbox and the diff are shown ({checked})");
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` gone, each
/// space a `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(md: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of a page's Markdown links, `[text](target)`, outside code blocks.
fn link_targets(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for part in line.split("](").skip(1) {
            if let Some(end) = part.find(')') {
                out.push(part[..end].to_owned());
            }
        }
    }
    out
}

/// The README is a guide, not the reference: under 250 lines, and every link it has to a file
/// of the project leads to one that exists — a page of `docs/` (at a heading it has) or a
/// screenshot. The pages of `docs/` keep their links to each other true the same way.
#[test]
fn readme_is_short_and_its_links_lead_somewhere() {
    let readme = std::fs::read_to_string("README.md").expect("README");
    let lines = readme.lines().count();
    assert!(
        lines < 250,
        "README.md has {lines} lines; the reference belongs in docs/"
    );
    let mut to_docs = 0;
    for (page, md) in user_docs() {
        let dir = Path::new(&page).parent().expect("a folder").to_path_buf();
        for target in link_targets(&md) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                Path::new(&page).to_path_buf()
            } else {
                dir.join(file)
            };
            assert!(
                path.exists(),
                "{page} links to {target}, which does not exist"
            );
            if page == "README.md" {
                assert!(
                    file.starts_with("docs/") || file.starts_with("assets/screenshots/"),
                    "the README links to {target}: only to docs/ and the screenshots"
                );
                to_docs += usize::from(file.starts_with("docs/"));
            }
            if let Some(fragment) = fragment {
                let text = std::fs::read_to_string(&path).expect("the linked page");
                assert!(
                    anchors(&text).contains(fragment),
                    "{page} links to {target}: {} has no such heading",
                    path.display()
                );
            }
        }
    }
    // Every page of docs/ is linked from the README.
    for (page, _) in user_docs().into_iter().skip(1) {
        assert!(
            readme.contains(&format!("]({page})")),
            "the README does not link to {page}"
        );
    }
    assert!(to_docs > 0);
}
