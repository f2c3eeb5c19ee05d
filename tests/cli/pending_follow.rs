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

/// Where `git diff -U0 A B -- path` says each line of `path` at A is at B: `Some(line)` for a
/// line no hunk touches, `None` for one a hunk removes or changes. The oracle for following.
fn git_says(
    git: &support::gitrepo::GitRepo,
    a: &str,
    b: &str,
    path: &str,
    line: u32,
) -> Option<u32> {
    let diff = git.git(&["diff", "-U0", "--no-color", "-M", a, b, "--", path]);
    let mut shift: i64 = 0;
    for h in diff.lines().filter(|l| l.starts_with("@@ -")) {
        // `@@ -a[,b] +c[,d] @@`
        let mut ranges = h[3..].split(' ');
        let range = |r: Option<&str>| -> (u32, u32) {
            let r = r.unwrap_or("").trim_start_matches(['-', '+']);
            match r.split_once(',') {
                Some((s, n)) => (s.parse().unwrap_or(0), n.parse().unwrap_or(0)),
                None => (r.parse().unwrap_or(0), 1),
            }
        };
        let (old_start, old_len) = range(ranges.next());
        let (_, new_len) = range(ranges.next());
        if old_len > 0 && (old_start..old_start + old_len).contains(&line) {
            return None;
        }
        // A hunk of no old lines adds its lines after `old_start`.
        if line >= old_start + old_len.max(1) {
            shift += i64::from(new_len) - i64::from(old_len);
        }
    }
    Some((i64::from(line) + shift) as u32)
}

/// The lines of `patch` (GitHub's `patch`) on `side`: what a comment can be on.
fn diff_lines(patch: &str, side: &str) -> Vec<u32> {
    use pr_shepherd::code::LineKind;
    let parsed = pr_shepherd::code::parse(patch);
    parsed
        .lines
        .iter()
        .filter_map(|l| match (side, l.kind) {
            ("LEFT", LineKind::Context | LineKind::Removed) => l.old,
            ("RIGHT", LineKind::Context | LineKind::Added) => l.new,
            _ => None,
        })
        .collect()
}

const TABLE: &str = "src/table.rs";
const UTIL: &str = "src/util.rs";
const ROW: &str = "    0x00, 0x00, 0x00, 0x00,";
const CHECK: &str = "    debug_assert!(xs.len() < 1 << 20);";

/// `src/table.rs`: a table of 50 identical rows, `header` lines above it.
fn table(header: &[&str]) -> String {
    let mut s: String = header.iter().map(|l| format!("{l}\n")).collect();
    s.push_str("pub static TABLE: [u8; 200] = [\n");
    for _ in 0..50 {
        s.push_str(ROW);
        s.push('\n');
    }
    s.push_str("];\n");
    s
}

const UTIL_BASE: &str = "pub fn total(xs: &[u32]) -> u32 {
    let mut sum = 0;
    for x in xs {
        sum += x;
    }
    sum
}

pub fn count(xs: &[u32]) -> usize {
    xs.len()
}
";

/// A PR adds a table of identical rows and a line that has a copy elsewhere in its file; then
/// upstream adds lines above the PR's, and the force-push rebases onto them, adds a header of 5
/// lines above the table and removes the line (its copy stays).
fn repeated_lines_pr() -> RebasedPr {
    let repo = support::gitrepo::GitRepo::new();
    repo.write(UTIL, UTIL_BASE);
    repo.write("README.md", "readme\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(TABLE, table(&[]));
    let util1 = UTIL_BASE
        .replace(
            "    let mut sum = 0;\n",
            &format!("    let mut sum = 0;\n{CHECK}\n"),
        )
        .replace(
            "    xs.len()\n",
            &format!("{CHECK}\n    xs.iter().count()\n"),
        );
    repo.write(UTIL, &util1);
    let head1 = repo.commit("a table; checks");
    let base1 = repo.merge_base("main", "feature");
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        UTIL,
        format!("// Utilities.\n// Small ones.\n\n{UTIL_BASE}"),
    );
    repo.commit("upstream: a header");
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["rebase", "-q", "main"]);
    repo.write(
        TABLE,
        table(&[
            "// The table.",
            "//",
            "// Each row is",
            "// four bytes.",
            "",
        ]),
    );
    let util2 = repo
        .git(&["show", &format!("HEAD:{UTIL}")])
        .replacen(&format!("{CHECK}\n"), "", 1);
    repo.write(UTIL, &util2);
    let head2 = repo.amend();
    let base2 = repo.merge_base("main", "feature");
    RebasedPr {
        repo,
        base1,
        head1,
        base2,
        head2,
    }
}

/// Guards following against git: 50 comments on a table of identical rows with 5 lines added
/// above it, a comment on a line the push removed while a copy of it stays, a comment on that
/// copy and one on a removed line of the old side, across a rebase onto lines added upstream —
/// once from the patches alone, once with the files' texts recorded. Every comment is where
/// `git diff -U0` between the two heads (the two bases for the old side) says its line is, and
/// a line git says changed or went away is never moved.
#[test]
fn repeated_lines_go_where_git_says_and_a_removed_line_never_goes_to_its_copy() {
    let story = repeated_lines_pr();
    let git = &story.repo;
    let (h1, h2, b1, b2) = (&story.head1, &story.head2, &story.base1, &story.base2);
    assert_ne!(b1, b2, "rebased");
    let check1 = git.line_of(h1, UTIL, CHECK, 0);
    let copy1 = git.line_of(h1, UTIL, CHECK, check1);
    assert_ne!(check1, copy1);
    let len_base1 = git.line_of(b1, UTIL, "    xs.len()", 0);
    for texts in [false, true] {
        let env = TestEnv::new();
        let recorded = |heads: &[(&String, &String)]| -> Value {
            let mut v = Vec::new();
            for (sha, path) in heads {
                v.push(json!({"sha": sha, "path": path, "text": git.git(&["show", &format!("{sha}:{path}")])}));
            }
            Value::Array(v)
        };
        let contents = if texts {
            recorded(&[
                (h1, &TABLE.to_owned()),
                (h2, &TABLE.to_owned()),
                (h1, &UTIL.to_owned()),
                (h2, &UTIL.to_owned()),
                (b1, &UTIL.to_owned()),
                (b2, &UTIL.to_owned()),
            ])
        } else {
            json!([])
        };
        let fixture_at = |head: u8| {
            let mut fx = at(&env, &story, head);
            let mut v: Value = serde_json::from_slice(&std::fs::read(&fx).unwrap()).unwrap();
            v["fileContents"] = contents.clone();
            fx = env.root().join("fixture.json");
            std::fs::write(&fx, serde_json::to_vec(&v).unwrap()).unwrap();
            fx
        };
        let fixture = fixture_at(1);
        let f = fixture.to_str().unwrap_or("").to_owned();
        // c1..c50 on the rows (lines 2..51), c51 on the line the push removes, c52 on its copy,
        // c53 on the old side's removed `xs.len()`.
        let mut asked: Vec<(&str, &str, u32)> = (2..=51).map(|l| (TABLE, "RIGHT", l)).collect();
        asked.push((UTIL, "RIGHT", check1));
        asked.push((UTIL, "RIGHT", copy1));
        asked.push((UTIL, "LEFT", len_base1));
        for (path, side, line) in &asked {
            ok(&add(
                &env,
                &fixture,
                path,
                *line,
                &["--side", side, "--body", "Why?"],
            ));
        }
        fixture_at(2);
        let out = run(&env, &["pending", "list", &f, "--format", "json"]);
        ok(&out);
        let list = stdout_json(&out);
        let files2 = story.files2();
        let patch2 = |p: &str| -> String {
            files2
                .iter()
                .find(|x| x["path"] == p)
                .and_then(|x| x["patch"].as_str())
                .unwrap_or("")
                .to_owned()
        };
        let mut moved = 0;
        for (i, (path, side, line)) in asked.iter().enumerate() {
            let id = format!("c{}", i + 1);
            let c = comment(&list, &id);
            let state = c["followed"]["state"].as_str().unwrap_or("");
            let (a, b) = if *side == "LEFT" { (b1, b2) } else { (h1, h2) };
            let now = git_says(git, a, b, path, *line)
                .filter(|l| diff_lines(&patch2(path), side).contains(l));
            match now {
                Some(l) => {
                    assert_eq!(
                        (c["line"].as_u64(), c["side"].as_str(), state),
                        (
                            Some(u64::from(l)),
                            Some(*side),
                            if l == *line { "" } else { "moved" }
                        ),
                        "texts {texts}: {id} at {path}:{line} ({side}): git says :{l}\n{c}"
                    );
                    moved += 1;
                }
                None => assert!(
                    state == "gone" || state == "outdated",
                    "texts {texts}: {id} at {path}:{line}: git says its line changed or left the diff\n{c}"
                ),
            }
        }
        assert_eq!(
            moved, 52,
            "texts {texts}: the rows, the copy and the old side's line"
        );
        assert_eq!(comment(&list, "c51")["followed"]["state"], "gone");
        let md = stdout(&run(&env, &["pending", "list", &f]));
        assert!(md.contains("moved src/table.rs:6 → :11"), "{md}");
        assert!(
            md.contains(&format!(
                "gone: its lines (src/util.rs:{check1} at {}",
                &h1[..7]
            )),
            "{md}"
        );
    }
}
