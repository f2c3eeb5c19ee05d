//! The diff's context on demand (`e`, `E`): the file's lines around the hunks, read from the
//! file at the PR's head and base when first asked (offline: the fixture's `fileContents`),
//! drawn as context in both layouts; they are not lines of the diff, and the console says so
//! when a comment is asked on one.

use crate::support;

use pr_shepherd::tui::harness::Harness;
use support::console::demo_harness;

/// The demo's Python client (`F j j Enter`): one hunk, old lines 12–23, in a 32-line file.
fn python_diff(h: &mut Harness) {
    h.draw();
    h.press("F j j Enter");
    assert_eq!(h.app.diff_path(), Some("bindings/python/rivet/client.py"));
}

fn diff(h: &Harness) -> &pr_shepherd::tui::app::DiffScreen {
    h.app.diff_screen().expect("the diff on top")
}

/// Guards `e` in the unified layout at 120×35: the 11 lines above the hunk and the 9 below it
/// (the whole file here) are drawn dim with both numbers and no sign; before `e` none is.
#[test]
fn e_shows_the_lines_around_the_hunk_unified() {
    let (mut h, _d) = demo_harness(120, 35);
    python_diff(&mut h);
    let before = h.screen();
    assert!(
        !before.contains("from .errors import RivetError"),
        "{before}"
    );
    assert!(
        !h.effects
            .iter()
            .any(|e| format!("{e:?}").contains("Contents"))
    );
    h.press("e");
    assert_eq!(
        h.effects
            .iter()
            .filter(|e| format!("{e:?}").contains("Contents"))
            .count(),
        1,
        "the texts asked once"
    );
    let screen = h.screen();
    insta::assert_snapshot!("diff_context_unified_120x35", screen);
    // Line 7 of both files, no sign, both numbers.
    let l = screen
        .lines()
        .find(|l| l.contains("from .errors import RivetError"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(l.contains("    7     7  from .errors"), "{l}");
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.contains("more lines of the file shown")),
        "{:?}",
        h.app.notice()
    );
}

/// Guards the narrow screen and `E`: at 80×24 the whole file is shown (its last line too),
/// and `E` again goes back to the hunks only.
#[test]
fn shift_e_shows_the_whole_file_and_again_the_hunks_only_at_80x24() {
    let (mut h, _d) = demo_harness(80, 24);
    python_diff(&mut h);
    h.press("E");
    insta::assert_snapshot!("diff_context_whole_unified_80x24", h.screen());
    h.press("G");
    let screen = h.screen();
    assert!(
        screen.contains("return f\"Client({self._base_url!r})\""),
        "{screen}"
    );
    assert!(!screen.contains("hidden"), "{screen}");
    h.press("E");
    assert_eq!(h.app.notice(), Some("the hunks only"));
    h.press("g");
    let screen = h.screen();
    assert!(
        screen.contains("⋯ 11 lines hidden (e shows 11 more)"),
        "{screen}"
    );
    assert!(!screen.contains("from .errors"), "{screen}");
}

/// Guards the split layout at 200×50: expanded lines on both halves with their own numbers,
/// dim, no sign.
#[test]
fn expanded_lines_side_by_side_at_200x50() {
    let (mut h, _d) = demo_harness(200, 50);
    python_diff(&mut h);
    assert!(h.app.diff_split());
    h.press("E");
    let screen = h.screen();
    insta::assert_snapshot!("diff_context_split_200x50", screen);
    // The file's end, where the hunk's lines meet the lines below it.
    h.press("G");
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("def __enter__"))
        .unwrap_or_else(|| panic!("{screen}"));
    let (left, right) = row.split_once('│').unwrap();
    assert!(left.contains("   25      def __enter__"), "{row}");
    assert!(right.contains("   42      def __enter__"), "{row}");
    // Back to the hunks only: each gap says how much it hides, across the whole width.
    h.press("E");
    let screen = h.screen();
    assert!(
        screen.contains("   ⋯ 11 lines hidden (e shows 11 more)"),
        "{screen}"
    );
    assert!(
        screen.contains("   ⋯ 9 lines hidden (e shows 9 more)"),
        "{screen}"
    );
    assert!(!screen.contains("def __enter__"), "{screen}");
}

/// Guards the cursor on expanded lines: `k` from the hunk's first line goes onto the line above
/// it, `c`, `S` and `V` there are refused with the reason, `j` and `}` come back to the diff's
/// lines, `|` keeps the cursor on its expanded line; nothing is added to the pending review.
#[test]
fn the_cursor_walks_onto_expanded_lines_where_comments_are_refused() {
    let (mut h, _d) = demo_harness(120, 35);
    python_diff(&mut h);
    h.press("e");
    assert_eq!(diff(&h).on_expanded_line(), None);
    h.press("k");
    assert_eq!(diff(&h).on_expanded_line(), Some((11, 11)));
    assert!(
        h.screen().contains("▶    11    11  from ._native"),
        "{}",
        h.screen()
    );
    assert!(h.app.diff_selection().is_none());
    for key in ["c", "S", "V"] {
        h.press(key);
        assert_eq!(
            h.app.notice(),
            Some(
                "line 11 is not a line of the diff: GitHub takes review comments only on the diff's lines"
            ),
            "{key}"
        );
        assert_eq!(h.app.stack().last().copied(), Some("diff"));
    }
    assert!(!diff(&h).selecting());
    h.press("k k");
    assert_eq!(diff(&h).on_expanded_line(), Some((9, 9)));
    // `|` keeps the cursor on its line, both ways.
    h.press("|");
    assert!(h.app.diff_split());
    assert_eq!(diff(&h).on_expanded_line(), Some((9, 9)));
    h.press("|");
    assert_eq!(diff(&h).on_expanded_line(), Some((9, 9)));
    // `}`: the hunk below.
    h.press("}");
    assert_eq!(diff(&h).on_expanded_line(), None);
    assert_eq!(h.app.diff_selection().map(|s| s.end.line), Some(12));
    h.press("k j");
    assert_eq!(h.app.diff_selection().map(|s| s.end.line), Some(12));
    // Below the hunk: the expanded lines after it, the last line of the file.
    h.press("G");
    assert_eq!(diff(&h).on_expanded_line(), Some((32, 49)));
    h.press("c");
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.starts_with("line 49 is not"))
    );
    assert!(
        h.app.pending_review().is_none_or(|r| r.comments.is_empty()),
        "no comment made"
    );
    // `n`/`N` still go from file to file.
    h.press("n");
    assert_eq!(h.app.diff_path(), Some("web/src/components/RetryBadge.tsx"));
    h.press("N");
    assert_eq!(h.app.diff_path(), Some("bindings/python/rivet/client.py"));
}

/// Guards a file with nothing around its hunks: an added file is all in its diff; said, and
/// nothing read.
#[test]
fn an_added_file_says_the_diff_shows_all_of_it() {
    let (mut h, _d) = demo_harness(120, 35);
    h.draw();
    h.press("F Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    h.press("e");
    assert_eq!(
        h.app.notice(),
        Some("src/client/retry.rs is an added file: the diff shows all of it")
    );
    assert!(
        !h.effects
            .iter()
            .any(|e| format!("{e:?}").contains("Contents"))
    );
}

/// A loopback GitHub answering `object(expression: "SHA:PATH")` from the demo fixture's
/// `fileContents`; `src/client/mod.rs` at the head is 3 MiB.
struct Blobs(pr_shepherd::source::Fixture);

impl wiremock::Respond for Blobs {
    fn respond(&self, req: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap_or_default();
        let expr = body["variables"]["expression"].as_str().unwrap_or("");
        let (sha, path) = expr.split_once(':').unwrap_or(("", ""));
        let object = if path == "src/client/mod.rs" && sha == self.0.pr.head_sha {
            serde_json::json!({"__typename": "Blob", "oid": "big", "byteSize": 3_145_728,
                "isBinary": false, "isTruncated": true, "text": null})
        } else {
            match self.0.file_at(sha, path) {
                Some(t) => serde_json::json!({"__typename": "Blob", "oid": format!("{sha}{path}"),
                    "byteSize": t.len(), "isBinary": false, "isTruncated": false, "text": t}),
                None => serde_json::Value::Null,
            }
        };
        wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({"data": {
            "rateLimit": {"cost": 1, "remaining": 4999, "resetAt": "2026-11-23T01:00:00Z"},
            "repository": {"object": object}
        }}))
    }
}

fn contents_requests(rt: &tokio::runtime::Runtime, server: &wiremock::MockServer) -> Vec<String> {
    rt.block_on(server.received_requests())
        .unwrap_or_default()
        .iter()
        .filter_map(|r| {
            let body: serde_json::Value = serde_json::from_slice(&r.body).ok()?;
            body["query"]
                .as_str()
                .is_some_and(|q| q.contains("object(expression"))
                .then(|| {
                    body["variables"]["expression"]
                        .as_str()
                        .unwrap_or("")
                        .to_owned()
                })
        })
        .collect()
}

/// Guards the requests live: opening a diff reads no contents; `e`, `e` again and `E` read
/// each side once (the head and the base, one request each); a file over 1 MiB is refused on
/// screen, nothing expanded, and asking again reads nothing more.
#[test]
fn live_e_reads_each_side_once_and_a_large_file_is_refused_on_screen() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(wiremock::MockServer::start());
    let fixture = pr_shepherd::source::Fixture::parse(
        pr_shepherd::source::DEMO_FIXTURE,
        std::path::Path::new("assets/fixtures/demo.json"),
    )
    .unwrap();
    rt.block_on(
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(Blobs(fixture.clone()))
            .mount(&server),
    );
    let gh = support::github_client::loopback_github(
        &server.uri(),
        "ghp_contentsToken",
        support::github_client::quick_options(),
    )
    .expect("client");
    let dir = tempfile::tempdir().unwrap();
    let mut h =
        support::console::live_harness(fixture.snapshot_at(0).unwrap(), dir.path(), gh, 120, 35);
    python_diff(&mut h);
    h.press("j k");
    assert!(
        contents_requests(&rt, &server).is_empty(),
        "opening the diff reads no file"
    );
    h.press("e");
    assert!(
        h.screen().contains("from .errors import RivetError"),
        "{:?} {}",
        h.app.notice(),
        h.screen()
    );
    // The 32-line file is all shown by one `e`: again, nothing more; `E` then goes back to the
    // hunks only, and again shows it whole, from the texts kept.
    h.press("e");
    assert_eq!(h.app.notice(), Some("no more lines of the file there"));
    h.press("E");
    assert_eq!(h.app.notice(), Some("the hunks only"));
    h.press("E");
    assert!(
        h.screen().contains("from .errors import RivetError"),
        "{}",
        h.screen()
    );
    let pr = &fixture.pr;
    let mut asked = contents_requests(&rt, &server);
    asked.sort();
    let mut want = vec![
        format!("{}:bindings/python/rivet/client.py", pr.base_sha),
        format!("{}:bindings/python/rivet/client.py", pr.head_sha),
    ];
    want.sort();
    assert_eq!(asked, want, "one request per side");
    // Back to the file after another: the session's cache, no request.
    h.press("n N e");
    assert_eq!(contents_requests(&rt, &server).len(), 2);
    assert!(
        h.screen().contains("from .errors import RivetError"),
        "{}",
        h.screen()
    );
    // Over 1 MiB: said on screen, nothing shown.
    h.press("q");
    h.press("g j Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    h.press("e");
    let screen = h.screen();
    assert!(
        screen.contains("no lines of the file shown: `src/client/mod.rs` is 3.0 MiB; the console shows files up to 1 MiB"),
        "{screen}"
    );
    assert!(!screen.contains("DEFAULT_TIMEOUT_SECS"), "{screen}");
    let n = contents_requests(&rt, &server).len();
    h.press("e");
    assert_eq!(
        contents_requests(&rt, &server).len(),
        n,
        "refused once, not asked again"
    );
    assert!(h.app.notice().is_some_and(|s| s.contains("3.0 MiB")));
    assert!(!h.screen().contains("ghp_contentsToken"));
    drop(h);
    drop(rt);
}

/// A row of the file on screen: its old number, its new number, its text.
type Numbered = (Option<u32>, Option<u32>, String);

/// The numbered lines of a unified diff screen: `(old, new, text)` of each row of the file (a
/// diff line or an expanded one), read from the gutter's columns.
fn numbered_rows(screen: &str) -> Vec<Numbered> {
    screen
        .lines()
        .skip(2)
        .filter_map(|l| {
            let c: Vec<char> = l.chars().collect();
            if c.len() < 15 {
                return None;
            }
            let num = |a: usize, b: usize| -> Result<Option<u32>, ()> {
                let s: String = c[a..b].iter().collect();
                match s.trim() {
                    "" => Ok(None),
                    t => t.parse().map(Some).map_err(|_| ()),
                }
            };
            let (old, new) = (num(2, 7).ok()?, num(8, 13).ok()?);
            if old.is_none() && new.is_none() {
                return None;
            }
            Some((old, new, c[15..].iter().collect()))
        })
        .collect()
}

/// Guards the numbers and texts against git: in a real repository, a modified file (two hunks),
/// an added one and a renamed one with a change, shown whole (`E`): every line of the head file
/// appears once with its number and text, and every line of the base file (the old path for the
/// rename) likewise.
#[test]
fn expanded_lines_are_the_files_lines_for_modified_added_and_renamed_files() {
    let repo = support::gitrepo::GitRepo::new();
    let lines = |tag: &str, n: u32| -> String { (1..=n).map(|i| format!("{tag} {i}\n")).collect() };
    repo.write("src/modified.txt", lines("kept", 70));
    repo.write("src/old_name.txt", lines("moved", 50));
    let base = repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.write(
        "src/modified.txt",
        lines("kept", 70)
            .replace("kept 30\n", "changed 30\n")
            .replace("kept 55\n", "kept 55\nadded after 55\n"),
    );
    repo.write("src/added.txt", lines("new", 5));
    repo.git(&["mv", "src/old_name.txt", "src/new_name.txt"]);
    repo.write(
        "src/new_name.txt",
        lines("moved", 50).replace("moved 25\n", "MOVED 25\n"),
    );
    let head = repo.commit("topic");
    let files = repo.pr_files(&base, &head);
    let show = |sha: &str, path: &str| repo.git(&["show", &format!("{sha}:{path}")]);
    let mut contents = Vec::new();
    for f in &files {
        let path = f["path"].as_str().unwrap();
        let old = f["previousPath"].as_str().unwrap_or(path);
        if f["status"] != "added" {
            contents.push(serde_json::json!({"sha": base, "path": old, "text": show(&base, old)}));
        }
        contents.push(serde_json::json!({"sha": head, "path": path, "text": show(&head, path)}));
    }
    let mut fx: serde_json::Value =
        serde_json::from_str(pr_shepherd::source::DEMO_FIXTURE).unwrap();
    fx["pr"]["files"] = serde_json::Value::Array(files.clone());
    fx["pr"]["baseSha"] = base.clone().into();
    fx["pr"]["headSha"] = head.clone().into();
    fx["fileContents"] = contents.into();
    fx["items"] = serde_json::json!([]);
    fx.as_object_mut().unwrap().remove("steps");
    let fixture =
        pr_shepherd::source::Fixture::parse(&fx.to_string(), std::path::Path::new("git.json"))
            .unwrap();
    let (mut h, _d) =
        support::console::harness_with(fixture.snapshot_at(0).unwrap(), Some(fixture), 120, 100);
    h.draw();
    h.press("F Enter");
    let mut checked = Vec::new();
    for _ in 0..files.len() {
        let path = h.app.diff_path().unwrap().to_owned();
        let f = files.iter().find(|f| f["path"] == path.as_str()).unwrap();
        let old = f["previousPath"].as_str().unwrap_or(&path).to_owned();
        h.press("E");
        let rows = numbered_rows(&h.screen());
        let want = |text: &str| -> Vec<(u32, String)> {
            text.lines()
                .zip(1..)
                .map(|(l, n)| (n, l.to_owned()))
                .collect()
        };
        let got = |pick: fn(&Numbered) -> Option<u32>| {
            let mut v: Vec<(u32, String)> = rows
                .iter()
                .filter_map(|r| pick(r).map(|n| (n, r.2.clone())))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            got(|r| r.1),
            want(&show(&head, &path)),
            "{path} at the head:\n{}",
            h.screen()
        );
        let base_text = if f["status"] == "added" {
            String::new()
        } else {
            show(&base, &old)
        };
        assert_eq!(
            got(|r| r.0),
            want(&base_text),
            "{old} at the base:\n{}",
            h.screen()
        );
        checked.push(f["status"].as_str().unwrap().to_owned());
        h.press("n");
    }
    checked.sort();
    assert_eq!(checked, ["added", "modified", "renamed"]);
}

/// Guards the feature in the real binary in a real terminal (tmux, 120×40, offline on the demo
/// fixture): `e` in the Python client's diff shows the file's lines above the hunk (read through
/// the real effect runner from the fixture's `fileContents`), `k` goes onto one, `c` there is
/// refused with the reason; the console quits cleanly.
#[test]
fn tmux_e_in_the_real_binary_shows_the_files_lines_and_refuses_a_comment_on_them() {
    use super::e2e::{REPORT_EXIT, Tmux, console};
    let env = support::env::TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "context") else {
        return;
    };
    let demo = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/fixtures/demo.json"
    ));
    tmux.start(120, 40, &(console(&env, &[demo]) + REPORT_EXIT));
    tmux.wait_for("the console", |s| {
        s.contains("acme/rivet#482") && s.contains("Tab detail")
    });
    tmux.keys(&["F"]);
    tmux.wait_for("the files", |s| {
        s.contains("bindings/python/rivet/client.py")
    });
    tmux.keys(&["j"]);
    tmux.keys(&["j"]);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the diff", |s| s.contains("@@ -12,12 +12,29 @@"));
    assert!(
        !screen.contains("from .errors import RivetError"),
        "{screen}"
    );
    tmux.keys(&["e"]);
    tmux.wait_for("the lines above the hunk", |s| {
        s.contains("from .errors import RivetError") && s.contains("more lines of the file shown")
    });
    tmux.keys(&["k"]);
    tmux.wait_for("the cursor on line 11", |s| {
        s.contains("▶    11    11  from ._native")
    });
    tmux.keys(&["c"]);
    tmux.wait_for("the refusal", |s| {
        s.contains("line 11 is not a line of the diff: GitHub takes review comments only")
    });
    tmux.keys(&["Q"]);
    let screen = tmux.wait_for("the shell again", |s| {
        if s.contains("Quit?") || s.contains("quit?") {
            tmux.keys(&["y"]);
        }
        s.contains("CONSOLE-EXITED:")
    });
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    tmux.assert_terminal_restored();
}

/// Guards the files whose lines are not shown: a collapsed (generated) file asks for `Enter`
/// first, a binary one has no lines; each said, nothing read.
#[test]
fn collapsed_and_binary_files_say_why_nothing_expands() {
    let f = pr_shepherd::source::Fixture::parse(
        pr_shepherd::source::DEMO_FIXTURE,
        std::path::Path::new("assets/fixtures/demo.json"),
    )
    .unwrap();
    let mut s = f.snapshot_at(0).unwrap();
    let mut lock =
        pr_shepherd::pr::ChangedFile::new("Cargo.lock", Some("@@ -1 +1 @@\n-a\n+b".into()));
    lock.additions = 1;
    lock.deletions = 1;
    let mut logo = pr_shepherd::pr::ChangedFile::new("logo.png", None);
    logo.status = "modified".into();
    s.pr.files = vec![lock, logo];
    let (mut h, _d) = support::console::harness_with(s, None, 120, 30);
    h.draw();
    h.press("F Enter");
    assert_eq!(h.app.diff_path(), Some("Cargo.lock"));
    h.press("e");
    assert_eq!(
        h.app.notice(),
        Some("Cargo.lock is collapsed (a generated file): Enter shows its diff first")
    );
    h.press("n e");
    assert_eq!(h.app.diff_path(), Some("logo.png"));
    assert_eq!(
        h.app.notice(),
        Some("logo.png is a binary file: no lines to show")
    );
    assert!(
        !h.effects
            .iter()
            .any(|e| format!("{e:?}").contains("Contents"))
    );
}

/// Guards long expanded lines: wrapped under their gutter (`↪`) as the diff's lines are, in
/// both layouts, never cut.
#[test]
fn a_long_expanded_line_wraps_in_both_layouts() {
    for split in [false, true] {
        let (mut h, _d) = demo_harness(80, 24);
        if split {
            h.set_diff_layout(pr_shepherd::config::DiffLayout::Split);
        }
        h.draw();
        h.press("F j Enter");
        assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
        h.press("E G");
        assert_eq!(h.app.diff_split(), split);
        let screen = h.screen();
        let at = screen
            .lines()
            .position(|l| l.contains(".timeout(std::time::"))
            .unwrap_or_else(|| panic!("{screen}"));
        // The line's end is on the continued rows (in split: on both halves).
        let rest: Vec<&str> = screen
            .lines()
            .skip(at + 1)
            .take_while(|l| l.contains('↪'))
            .collect();
        assert!(!rest.is_empty(), "split {split}:\n{screen}");
        let ends: usize = rest.iter().map(|l| l.matches("))").count()).sum();
        assert_eq!(ends, if split { 2 } else { 1 }, "split {split}:\n{screen}");
    }
}

/// Failed before: `e` and `E` pushed the outdated thread drawn above the diff (with the code it
/// was written on) up past the file's top lines, out of sight; it stays next to the first hunk.
#[test]
fn expanding_keeps_the_outdated_thread_above_the_diff_in_sight() {
    for keys in ["e", "E"] {
        let (mut h, _d) = demo_harness(120, 35);
        python_diff(&mut h);
        let before = h.screen();
        assert!(before.contains("thread @lena-fischer"), "{before}");
        h.press(keys);
        let screen = h.screen();
        assert!(
            screen.contains("from .errors import RivetError"),
            "{screen}"
        );
        let lines: Vec<&str> = screen.lines().collect();
        let note = lines
            .iter()
            .position(|l| l.contains("thread @lena-fischer"))
            .unwrap_or_else(|| panic!("{keys}: the outdated thread is out of sight:\n{screen}"));
        let hunk = lines
            .iter()
            .position(|l| l.contains("@@ -12,12 +12,29 @@"))
            .unwrap_or_else(|| panic!("{screen}"));
        assert!(note < hunk, "above the first hunk:\n{screen}");
    }
}
