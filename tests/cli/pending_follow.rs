//! The pending review across a real force-push: a repository made with git (tabs, CRLF, a
//! rename with changes, a binary, then a rebase onto upstream commits that shift lines and an
//! amend), its `pulls/{n}/files` before and after, and git as the oracle for every line number
//! and side. Comments and findings' drafts follow their lines; nothing is posted on a line it
//! was not written on without saying so; nothing folded is lost.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::gitrepo::{RebasedPr, rebased_pr};
use support::llm::StandInLlm;
use support::{stderr, stdout, stdout_json};

/// The demo fixture with the story's PR at `head` (1: before the push, 2: after), written at
/// the same place each time (the PR as it is now).
fn at(env: &TestEnv, story: &RebasedPr, head: u8) -> PathBuf {
    let (files, base, sha) = match head {
        1 => (story.files1(), &story.base1, &story.head1),
        _ => (story.files2(), &story.base2, &story.head2),
    };
    support::demo_with(env, |v| {
        v["pr"]["files"] = Value::Array(files);
        v["pr"]["baseSha"] = json!(base);
        v["pr"]["headSha"] = json!(sha);
        v["steps"] = json!([]);
    })
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.bin().args(args).output().expect("run pr-shepherd")
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(o), stderr(o));
}

/// `pending add FIXTURE --path P --line N` and `more`.
fn add(env: &TestEnv, fixture: &Path, path: &str, line: u32, more: &[&str]) -> Output {
    let f = fixture.to_str().unwrap_or("");
    let line = line.to_string();
    let mut args = vec!["pending", "add", f, "--path", path, "--line", &line];
    args.extend_from_slice(more);
    run(env, &args)
}

const WALK: &str = "src/walk.rs";
const STACK: &str = "        let stack = Arc::new(Mutex::new(vec![]));";
const PUSH: &str = "        stack.lock().unwrap().push(self.root.clone());";
const PRINT_H1: &str = "            println!(\"entry: {entry}\");";
const PRINT_H2: &str = "            println!(\"walked: {entry}\");";
const ROOT: &str = "        &self.root";
const OLD_STACK: &str = "        let stack = vec![self.root.clone()];";

/// The comment `id` of a `pending list --format json`.
fn comment<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["comments"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no {id} in {list}"))
}

#[test]
fn pending_comments_follow_their_lines_across_a_real_rebase_and_force_push() {
    let story = rebased_pr();
    let git = &story.repo;
    // The files as GitHub lists them: the rename with its old path, the binary without a
    // patch, the CRLF file's line endings and the tabs kept in its patch.
    let files = story.files1();
    let file = |p: &str| {
        files
            .iter()
            .find(|f| f["path"] == p)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(file("src/new_name.rs")["status"], "renamed");
    assert_eq!(file("src/new_name.rs")["previousPath"], "src/old_name.rs");
    assert_eq!(file("assets/logo.png")["status"], "added");
    assert!(file("assets/logo.png").get("patch").is_none());
    assert!(
        file("crlf.txt")["patch"]
            .as_str()
            .is_some_and(|p| p.contains("+THREE\r\n"))
    );
    assert!(
        file("src/tabs.c")["patch"]
            .as_str()
            .is_some_and(|p| p.contains("+\tint a = 2;"))
    );
    let env = TestEnv::new();
    let fixture = at(&env, &story, 1);
    let f = fixture.to_str().unwrap_or("").to_owned();
    let (h1, h2, b1, b2) = (&story.head1, &story.head2, &story.base1, &story.base2);
    // Git says where each line is at the first head (RIGHT) and at its merge base (LEFT).
    let stack1 = git.line_of(h1, WALK, STACK, 0);
    let push1 = git.line_of(h1, WALK, PUSH, 0);
    let print1 = git.line_of(h1, WALK, PRINT_H1, 0);
    let root1 = git.line_of(h1, WALK, ROOT, 0);
    let old1 = git.line_of(b1, WALK, OLD_STACK, 0);
    let tab1 = git.line_of(h1, "src/tabs.c", "\tint a = 2;", 0);
    let crlf1 = git.line_of(h1, "crlf.txt", "THREE", 0);
    let renamed1 = git.line_of(h1, "src/new_name.rs", "    \"new\"", 0);
    let start = stack1.to_string();
    for (path, line, more) in [
        (
            WALK,
            push1,
            vec!["--start-line", &start, "--body", "Why a mutex?"],
        ),
        (WALK, print1, vec!["--body", "Say what it is."]),
        (WALK, root1, vec!["--body", "Return a Path?"]),
        (
            WALK,
            old1,
            vec!["--side", "LEFT", "--body", "Was a Vec enough?"],
        ),
        ("src/tabs.c", tab1, vec!["--body", "Why 2?"]),
        ("crlf.txt", crlf1, vec!["--body", "Shouting?"]),
        ("src/new_name.rs", renamed1, vec!["--body", "Good name."]),
    ] {
        ok(&add(&env, &fixture, path, line, &more));
    }
    // Two hunks of walk.rs in one range: refused at add time with GitHub's reason.
    let out = add(
        &env,
        &fixture,
        WALK,
        root1,
        &["--start-line", &stack1.to_string(), "--body", "x"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("same hunk as the line"),
        "{}",
        stderr(&out)
    );

    // The force-push: rebased onto upstream (4 lines above walk.rs's changes, 2 above
    // tabs.c's), the last commit amended.
    at(&env, &story, 2);
    let out = run(&env, &["pending", "list", &f, "--format", "json"]);
    ok(&out);
    let list = stdout_json(&out);
    let place = |id: &str| {
        let c = comment(&list, id);
        (
            c["side"].as_str().unwrap_or("").to_owned(),
            c["startLine"].as_u64().map(|l| l as u32),
            c["line"].as_u64().unwrap_or(0) as u32,
            c["followed"]["state"].as_str().unwrap_or("").to_owned(),
        )
    };
    let right = |s: Option<u32>, l, state: &str| ("RIGHT".to_owned(), s, l, state.to_owned());
    let stack2 = git.line_of(h2, WALK, STACK, 0);
    let push2 = git.line_of(h2, WALK, PUSH, 0);
    assert_ne!(push2, push1, "upstream shifted the lines");
    assert_eq!(place("c1"), right(Some(stack2), push2, "moved"));
    assert_eq!(
        place("c2"),
        right(None, git.line_of(h2, WALK, PRINT_H2, 0), "outdated")
    );
    assert_eq!(
        comment(&list, "c2")["followed"]["was"],
        json!([format!("+{PRINT_H1}")])
    );
    assert_eq!(
        comment(&list, "c2")["followed"]["now"],
        json!([format!("+{PRINT_H2}")])
    );
    assert_eq!(place("c3").3, "gone");
    assert_eq!(
        place("c4"),
        (
            "LEFT".to_owned(),
            None,
            git.line_of(b2, WALK, OLD_STACK, 0),
            "moved".to_owned()
        )
    );
    assert_eq!(
        place("c5"),
        right(
            None,
            git.line_of(h2, "src/tabs.c", "\tint a = 2;", 0),
            "moved"
        )
    );
    assert_eq!(
        place("c6"),
        right(None, crlf1, ""),
        "the CRLF file did not move"
    );
    assert_eq!(
        place("c7"),
        right(None, renamed1, ""),
        "nor the renamed one"
    );
    assert_eq!(comment(&list, "c1")["written"]["headSha"], h2.as_str());
    let md = stdout(&run(&env, &["pending", "list", &f]));
    assert!(
        md.contains(&format!(
            "moved src/walk.rs:{stack1}-{push1} → :{stack2}-{push2}"
        )),
        "{md}"
    );
    assert!(
        md.contains("**outdated**")
            && md.contains("walked: {entry}")
            && md.contains("entry: {entry}"),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "gone: its lines (src/walk.rs:{root1} at {})",
            &h1[..7]
        )),
        "{md}"
    );

    // Nothing goes while a comment's lines are gone or changed and not kept.
    let submit = |more: &[&str]| {
        let mut args = vec!["pending", "submit", f.as_str(), "--event", "comment"];
        args.extend_from_slice(more);
        run(&env, &args)
    };
    let out = submit(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("c3 at src/walk.rs:{root1}")),
        "{}",
        stderr(&out)
    );
    ok(&run(&env, &["pending", "drop", &f, "c3"]));
    let out = submit(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("c2 at src/walk.rs:") && stderr(&out).contains("outdated"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("walked: {entry}"), "{}", stderr(&out));
    // Kept with the explicit flag: posted where its lines are now, and said.
    let out = submit(&["--keep-outdated", "--format", "json"]);
    ok(&out);
    let done = stdout_json(&out);
    let said: Vec<String> = done["moved"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        said.contains(&format!(
            "c1 moved src/walk.rs:{stack1}-{push1} → :{stack2}-{push2}"
        )),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|s| s.starts_with("c2 outdated") && s.contains("kept at")),
        "{said:?}"
    );
    let outbox: Value = serde_json::from_slice(
        &std::fs::read(done["location"].as_str().unwrap_or("")).unwrap_or_default(),
    )
    .unwrap_or(Value::Null);
    let req = &outbox[0]["body"];
    assert_eq!(req["commit_id"], h2.as_str());
    let sent: Vec<(String, String, Option<u64>, u64)> = req["comments"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    (
                        c["path"].as_str().unwrap_or("").to_owned(),
                        c["side"].as_str().unwrap_or("").to_owned(),
                        c["start_line"].as_u64(),
                        c["line"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let w = |p: &str, side: &str, s: Option<u32>, l: u32| {
        (
            p.to_owned(),
            side.to_owned(),
            s.map(u64::from),
            u64::from(l),
        )
    };
    assert_eq!(
        sent,
        vec![
            w(WALK, "RIGHT", Some(stack2), push2),
            w(WALK, "RIGHT", None, git.line_of(h2, WALK, PRINT_H2, 0)),
            w(WALK, "LEFT", None, git.line_of(b2, WALK, OLD_STACK, 0)),
            w(
                "src/tabs.c",
                "RIGHT",
                None,
                git.line_of(h2, "src/tabs.c", "\tint a = 2;", 0)
            ),
            w("crlf.txt", "RIGHT", None, crlf1),
            w("src/new_name.rs", "RIGHT", None, renamed1),
        ],
        "every comment on the line git has for its text at the new head"
    );
}

#[tokio::test]
async fn findings_drafts_follow_their_lines_and_an_outdated_one_is_kept_only_when_asked() {
    let story = rebased_pr();
    let git = &story.repo;
    let (h1, h2) = (&story.head1, &story.head2);
    let env = TestEnv::new();
    let fixture = at(&env, &story, 1);
    let f = fixture.to_str().unwrap_or("").to_owned();
    let stack1 = git.line_of(h1, WALK, STACK, 0);
    let print1 = git.line_of(h1, WALK, PRINT_H1, 0);
    let llm = StandInLlm::answering(vec![
        json!({"severity": "important", "file": WALK, "line": stack1, "message": "A lock per entry is slow"}),
        json!({"severity": "suggestion", "file": WALK, "line": print1, "message": "Print the path"}),
    ])
    .await;
    let url = llm.url();
    let out = env
        .bin()
        .args(["review", &f, "--llm", "openai", "--llm-url", &url])
        .output()
        .expect("run a review");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The drafts are proposed at the first head and kept there with a comment of the maintainer's.
    ok(&add(
        &env,
        &fixture,
        "crlf.txt",
        git.line_of(h1, "crlf.txt", "THREE", 0),
        &["--body", "Shouting?"],
    ));
    at(&env, &story, 2);
    let out = run(&env, &["pending", "list", &f, "--format", "json"]);
    ok(&out);
    let list = stdout_json(&out);
    let drafts: Vec<&Value> = list["comments"]
        .as_array()
        .map(|cs| cs.iter().filter(|c| c["kind"] == "finding").collect())
        .unwrap_or_default();
    assert!(!drafts.is_empty(), "{list}");
    let stack2 = git.line_of(h2, WALK, STACK, 0);
    let print2 = git.line_of(h2, WALK, PRINT_H2, 0);
    let (mut moved, mut outdated) = (Vec::new(), Vec::new());
    for d in &drafts {
        match d["followed"]["state"].as_str() {
            Some("moved") => {
                assert_eq!(d["line"], stack2, "{d}");
                moved.push(d["id"].as_str().unwrap_or("").to_owned());
            }
            Some("outdated") => {
                assert_eq!(d["line"], print2, "{d}");
                outdated.push(d["id"].as_str().unwrap_or("").to_owned());
            }
            other => panic!("{other:?}: {d}"),
        }
    }
    assert!(!moved.is_empty() && !outdated.is_empty(), "{list}");
    // Kept: a moved draft as any draft; an outdated one with `pending keep`, at its new place.
    ok(&run(&env, &["pending", "keep", &f, &moved[0]]));
    let out = run(&env, &["pending", "keep", &f, &outdated[0]]);
    ok(&out);
    assert!(
        stdout(&out).contains(&format!("at src/walk.rs:{print2}")),
        "{}",
        stdout(&out)
    );
    let out = run(
        &env,
        &[
            "pending", "submit", &f, "--event", "comment", "--format", "json",
        ],
    );
    ok(&out);
    let done = stdout_json(&out);
    assert_eq!(done["comments"], 3, "{done}");
    // The drafts not decided stay pending.
    let left = done["stillPending"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(left, drafts.len() - 2, "{done}");
    let out = run(&env, &["pending", "list", &f, "--format", "json"]);
    ok(&out);
    let after = stdout_json(&out);
    assert_eq!(
        after["comments"].as_array().map(Vec::len),
        Some(drafts.len() - 2),
        "{after}"
    );
}
