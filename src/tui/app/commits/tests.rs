//! The commits screen: its list and a commit's files from recorded REST answers, the fixture's
//! pushes offline, a result reaching it after the maintainer went back, its frames (insta), and
//! its two requests against a loopback GitHub.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::work::{parse_commit, parse_list, pushes};
use super::*;
use crate::ledger::Ledger;
use crate::source::github::{Credentials, Endpoints, FetchOptions, GitHub, Secret};
use crate::source::{DEMO_FIXTURE, Fixture};
use crate::tui::app::{App, Asked, Effect};
use crate::tui::harness::Harness;
use crate::tui::session::{Live, Remote};

const SHA_1: &str = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const SHA_2: &str = "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn demo() -> Fixture {
    Fixture::parse(
        DEMO_FIXTURE,
        std::path::Path::new("assets/fixtures/demo.json"),
    )
    .unwrap()
}

/// `GET /repos/{o}/{r}/pulls/{n}/commits` as GitHub answers it: one author with a login, one
/// known only by the name in the commit, and a message trying to drive the terminal.
fn recorded_list() -> serde_json::Value {
    json!([
        {
            "sha": SHA_1,
            "commit": {
                "message": "Retry on 429 with jitter\n\nThe whole story: backoff doubles.",
                "author": {"name": "Mona Lisa", "date": "2026-11-20T09:15:00Z"}
            },
            "author": {"login": "monalisa"}
        },
        {
            "sha": SHA_2,
            "commit": {
                "message": "Fix \u{1b}[31mred\u{1b}[0m docs\u{202e}",
                "author": {"name": "Hubot Builder", "date": "2026-11-21T10:00:00Z"}
            },
            "author": null
        }
    ])
}

/// `GET /repos/{o}/{r}/commits/{sha}`: a patch, a rename, a binary file and one too large.
fn recorded_commit() -> serde_json::Value {
    json!({
        "sha": SHA_2,
        "commit": {"message": "Fix docs", "author": {"name": "Hubot Builder", "date": "2026-11-21T10:00:00Z"}},
        "author": null,
        "files": [
            {"filename": "docs/retry.md", "status": "modified", "additions": 1, "deletions": 1,
             "patch": "@@ -1,2 +1,2 @@\n # Retry\n-Old line\n+New \u{1b}]8;;evil\u{7}line"},
            {"filename": "docs/new.md", "previous_filename": "docs/old.md", "status": "renamed",
             "additions": 0, "deletions": 0},
            {"filename": "assets/logo.png", "status": "added", "additions": 0, "deletions": 0},
            {"filename": "data/huge.json", "status": "modified", "additions": 90000, "deletions": 3}
        ]
    })
}

#[test]
fn the_list_and_a_commit_come_from_recorded_rest_answers() {
    let commits = parse_list(recorded_list()).unwrap();
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[0].title(), "Retry on 429 with jitter");
    assert!(commits[0].message.contains("The whole story"));
    assert_eq!(commits[0].author, "monalisa", "the login first");
    assert_eq!(commits[1].author, "Hubot Builder", "else the commit's name");
    assert_eq!(
        commits[0].date.map(|d| d.to_rfc3339()).as_deref(),
        Some("2026-11-20T09:15:00+00:00")
    );
    assert!(commits.iter().all(|c| c.files.is_none()), "read on Enter");
    let files = parse_commit(recorded_commit()).unwrap();
    let by = |p: &str| files.iter().find(|f| f.path == p).unwrap();
    assert!(
        by("docs/retry.md")
            .patch
            .as_deref()
            .unwrap()
            .contains("+New")
    );
    assert_eq!(by("docs/new.md").previous.as_deref(), Some("docs/old.md"));
    assert_eq!(
        by("assets/logo.png").why_none.as_deref(),
        Some("binary file: no text diff")
    );
    assert_eq!(
        by("data/huge.json").why_none.as_deref(),
        Some("GitHub sends no patch for a file this large")
    );
    assert!(parse_list(json!({"message": "Not Found"})).is_err());
}

#[test]
fn offline_the_demo_fixture_lists_the_pushes_it_records() {
    let f = demo();
    let p = pushes(&f);
    assert_eq!(
        p.len(),
        2,
        "the opening head, then the one push step: {p:#?}"
    );
    assert_eq!(p[0].sha, f.pr.head_sha);
    assert_eq!(p[0].title(), "the head the PR opened with");
    assert_eq!(p[0].files.as_ref().map(Vec::len), Some(f.pr.files.len()));
    assert_eq!(p[1].sha, "9c4e2f7a1b3d5e6f708192a3b4c5d6e7f8091a2b");
    assert!(
        p[1].message.starts_with("Rebase and force-push"),
        "{}",
        p[1].message
    );
    assert!(p[1].date.is_some());
    let files = p[1].files.clone().unwrap_or_default();
    assert_eq!(
        files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        ["src/client/retry.rs"],
        "only the file whose patch the push changed"
    );
    assert!(files[0].patch.is_some());
}

fn listing() -> Listing {
    Listing {
        commits: parse_list(recorded_list()).unwrap(),
        offline: false,
    }
}

/// The commits screen on the stack or kept, by id.
fn commits_screen(app: &App, id: super::super::ScreenId) -> Option<&CommitsScreen> {
    app.stack
        .iter()
        .chain(&app.kept)
        .find(|s| s.id == id)
        .and_then(|s| (s.screen.as_ref() as &dyn Any).downcast_ref::<CommitsScreen>())
}

/// The screen asks for its list on opening; the maintainer goes back before it arrives: the
/// list still reaches the (kept) commits screen, and only it.
#[test]
fn a_result_arriving_after_the_maintainer_went_back_reaches_the_commits_screen() {
    let f = demo();
    let mut app = App::new(
        f.snapshot_at(0).unwrap(),
        Default::default(),
        crate::tui::session::Session::default(),
    );
    let asked: Vec<Asked> = app.update(Action::Command(KeyCommand::Commits));
    assert_eq!(app.stack(), ["PR", "commits"]);
    let list = asked
        .iter()
        .find(|a| matches!(&a.effect, Effect::Work(j) if j.as_work::<Work>().is_some()))
        .cloned()
        .expect("the list is asked for on opening");
    let Effect::Work(job) = &list.effect else {
        unreachable!()
    };
    assert_eq!(
        job.as_work::<Work>(),
        Some(&Work::List { pr: f.pr.coords() })
    );
    let id = list.by;
    app.update(Action::Command(KeyCommand::Back));
    assert_eq!(app.stack(), ["PR"]);
    assert_eq!(app.kept(), 1);
    app.update(
        list.answer(Action::Done(crate::tui::app::Done::new(Done::Listed(Ok(
            listing(),
        ))))),
    );
    let kept = commits_screen(&app, id).expect("kept");
    assert_eq!(kept.commits().len(), 2);
    assert_eq!(app.stack(), ["PR"], "nothing opened on its own");
}

/// A failing answer is said on the screen and in the notice, sanitized, never a panic.
#[test]
fn an_error_is_said_sanitized() {
    let f = demo();
    let mut app = App::new(
        f.snapshot_at(0).unwrap(),
        Default::default(),
        crate::tui::session::Session::default(),
    );
    let asked = app.update(Action::Command(KeyCommand::Commits));
    let by = asked[0].clone();
    app.update(
        by.answer(Action::Done(crate::tui::app::Done::new(Done::Listed(Err(
            "GitHub said 404 \u{1b}[2J Not Found".to_owned(),
        ))))),
    );
    let notice = app.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("cannot read the commits"), "{notice}");
    assert!(!notice.contains('\u{1b}'), "{notice:?}");
}

fn offline_harness(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let h = Harness::demo(dir.path(), w, h).unwrap();
    (h, dir)
}

#[test]
fn offline_frames_the_pushes_and_a_push_s_diff() {
    for (w, h) in [(120, 35), (80, 24)] {
        let (mut hs, _d) = offline_harness(w, h);
        hs.draw();
        hs.press("H");
        assert_eq!(hs.app.stack(), ["PR", "commits"]);
        let list = hs.screen();
        assert!(
            list.contains("offline: the pushes this fixture records"),
            "{list}"
        );
        insta::assert_snapshot!(format!("commits_offline_list_{w}x{h}"), list);
        hs.press("j Enter");
        let diff = hs.screen();
        assert!(diff.contains("src/client/retry.rs"), "{diff}");
        insta::assert_snapshot!(format!("commits_offline_diff_{w}x{h}"), diff);
        // Esc: back to the list, then to the PR.
        hs.press("Esc");
        assert_eq!(hs.app.stack(), ["PR", "commits"]);
        assert!(hs.screen().contains("▶ 9c4e2f7"), "{}", hs.screen());
        hs.press("Esc");
        assert_eq!(hs.app.stack(), ["PR"]);
    }
}

/// `j`/`k` and `n`/`N` select from file to file on the opening head's five files, the selected
/// one kept in sight; `Enter` opens the selected one's patch.
#[test]
fn next_and_previous_file_select_each_file() {
    let (mut hs, _d) = offline_harness(100, 12);
    hs.draw();
    hs.press("H Enter");
    let selected = |hs: &Harness| {
        let s = hs.screen();
        s.lines()
            .find(|l| l.contains("▶ "))
            .unwrap_or_else(|| panic!("{s}"))
            .to_owned()
    };
    assert!(
        selected(&hs).contains("src/client/retry.rs"),
        "{}",
        hs.screen()
    );
    hs.press("n");
    assert!(
        selected(&hs).contains("src/client/mod.rs"),
        "{}",
        hs.screen()
    );
    hs.press("j j j");
    assert!(selected(&hs).contains("docs/retry.md"), "{}", hs.screen());
    hs.press("j");
    assert!(selected(&hs).contains("docs/retry.md"), "the last stays");
    hs.press("N k");
    assert!(
        selected(&hs).contains("bindings/python/rivet/client.py"),
        "{}",
        hs.screen()
    );
    // The first file brings the message back into sight.
    hs.press("g");
    assert!(hs.screen().contains("commit e5f6a7b"), "{}", hs.screen());
    hs.press("G Enter");
    assert_eq!(hs.app.diff_path(), Some("docs/retry.md"));
}

fn loopback(uri: &str) -> GitHub {
    GitHub::new(
        Endpoints::resolve(Some(uri), None, None).unwrap(),
        None,
        Credentials::Token {
            token: Secret::new("ghp_commitsScreenToken"),
            source: "GH_TOKEN",
        },
        FetchOptions {
            max_attempts: 1,
            timeout: Duration::from_secs(5),
            deadline: Duration::from_secs(30),
            ..FetchOptions::default()
        },
    )
    .unwrap()
}

fn live_harness(uri: &str, dir: &std::path::Path, w: u16, h: u16) -> Harness {
    let mut hs = Harness::new(
        demo().snapshot_at(0).unwrap(),
        None,
        Ledger::new(dir),
        Theme::default_theme(),
        w,
        h,
    )
    .unwrap();
    hs.set_remote(Remote::GitHub(Live {
        gh: Arc::new(loopback(uri)),
        own_login: "monalisa".into(),
    }));
    hs
}

fn paths(rt: &tokio::runtime::Runtime, server: &MockServer) -> Vec<String> {
    rt.block_on(server.received_requests())
        .unwrap_or_default()
        .iter()
        .filter(|r| r.method.as_str() == "GET")
        .map(|r| r.url.path().to_owned())
        .collect()
}

/// Live: the list is one request to the PR's commits, `Enter` one to that commit; its files are
/// listed, those without a patch saying why, and a file's patch opens in the diff's view,
/// sanitized, in the diff's colours.
#[test]
fn live_the_two_requests_are_made_and_the_commit_s_diff_shows() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("GET"))
            .and(path("/repos/acme/rivet/pulls/482/commits"))
            .respond_with(ResponseTemplate::new(200).set_body_json(recorded_list()))
            .mount(&server),
    );
    rt.block_on(
        Mock::given(method("GET"))
            .and(path(format!("/repos/acme/rivet/commits/{SHA_2}")))
            .respond_with(ResponseTemplate::new(200).set_body_json(recorded_commit()))
            .mount(&server),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut hs = live_harness(&server.uri(), dir.path(), 120, 35);
    hs.draw();
    hs.press("H");
    assert_eq!(paths(&rt, &server), ["/repos/acme/rivet/pulls/482/commits"]);
    let list = hs.screen();
    assert!(list.contains("2 commits"), "{list}");
    assert!(list.contains("1111111 2026-11-20 monalisa"), "{list}");
    assert!(
        !list.contains('\u{1b}') && !list.contains('\u{202e}'),
        "{list:?}"
    );
    insta::assert_snapshot!("commits_live_list_120x35", list);
    hs.press("j Enter");
    assert_eq!(
        paths(&rt, &server),
        [
            "/repos/acme/rivet/pulls/482/commits".to_owned(),
            format!("/repos/acme/rivet/commits/{SHA_2}")
        ]
    );
    let shown = hs.screen();
    for want in [
        "commit 2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb  Hubot Builder",
        "▶ modified docs/retry.md  +1 -1",
        "renamed docs/old.md → docs/new.md  +0 -0  (no change of content)",
        "(binary file: no text diff)",
        "(GitHub sends no patch for a file this large)",
    ] {
        assert!(shown.contains(want), "{want}:\n{shown}");
    }
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    insta::assert_snapshot!("commits_live_diff_120x35", shown);
    // A file without a patch says why; one with a patch opens in the diff's view, sanitized,
    // numbered, in the diff's colours.
    hs.press("j j Enter");
    assert_eq!(hs.app.stack(), ["PR", "commits"]);
    assert_eq!(
        hs.app.notice(),
        Some("assets/logo.png: binary file: no text diff")
    );
    hs.press("g Enter");
    assert_eq!(hs.app.stack(), ["PR", "commits", "diff"]);
    let diff = hs.screen();
    for want in [
        "docs/retry.md · modified · +1 −1",
        "commit 2222222 · read-only",
        "    2       -Old line",
        "          2 +New ␛]8;;evil␇line",
    ] {
        assert!(diff.contains(want), "{want}:\n{diff}");
    }
    assert!(
        !diff.contains('\u{1b}') && !diff.contains('\u{7}'),
        "{diff:?}"
    );
    // `n`: the only file with a patch is the last.
    hs.press("n");
    assert_eq!(hs.app.notice(), Some("the commit's last file"));
    let buf = hs.terminal.backend().buffer();
    let theme = Theme::default_theme();
    let added = (0..buf.area.height).find_map(|y| {
        let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        row.find("2 +New").map(|_| y)
    });
    let y = added.expect("the added line");
    let x = (0..buf.area.width)
        .find(|&x| buf[(x, y)].symbol() == "+")
        .unwrap();
    assert_eq!(buf[(x, y)].fg, theme.diff_added.fg.unwrap_or_default());
    // Shown again: not read again.
    hs.press("Esc Esc Enter");
    assert_eq!(hs.app.stack(), ["PR", "commits"]);
    assert!(hs.screen().contains("▶ modified docs/retry.md"));
    assert_eq!(paths(&rt, &server).len(), 2);
}

/// Live: a commit GitHub does not find is said on the screen and in the notice; the list stays.
#[test]
fn live_a_missing_commit_is_said_and_nothing_panics() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("GET"))
            .and(path("/repos/acme/rivet/pulls/482/commits"))
            .respond_with(ResponseTemplate::new(200).set_body_json(recorded_list()))
            .mount(&server),
    );
    rt.block_on(
        Mock::given(method("GET"))
            .respond_with(
                ResponseTemplate::new(404).set_body_json(json!({"message": "No commit found"})),
            )
            .mount(&server),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut hs = live_harness(&server.uri(), dir.path(), 120, 35);
    hs.draw();
    hs.press("H Enter");
    let s = hs.screen();
    assert!(s.contains("the commit's files could not be read"), "{s}");
    assert!(
        hs.app
            .notice()
            .is_some_and(|n| n.contains("cannot read commit 1111111")),
        "{:?}",
        hs.app.notice()
    );
    hs.press("Esc");
    assert!(hs.screen().contains("2 commits"), "{}", hs.screen());
}

/// Live: the list GitHub refuses is said where the list would be.
#[test]
fn live_a_refused_list_is_said() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})))
            .mount(&server),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut hs = live_harness(&server.uri(), dir.path(), 120, 35);
    hs.draw();
    hs.press("H");
    let s = hs.screen();
    assert!(s.contains("the commits could not be read"), "{s}");
}

/// The demo's last look at the code, as the ledger in `dir` holds it.
fn last_look(dir: &std::path::Path) -> crate::ledger::CodeLook {
    Ledger::new(dir)
        .code_look(&demo().pr.coords())
        .unwrap_or_default()
}

/// The opening head's third file (`H Enter j j Enter`): the Python client, modified, so its
/// rows carry both numbers.
fn python_patch(hs: &mut Harness) {
    hs.draw();
    hs.press("H Enter j j Enter");
    assert_eq!(hs.app.stack(), ["PR", "commits", "diff"], "{}", hs.screen());
    assert_eq!(
        hs.app.diff_path(),
        Some("bindings/python/rivet/client.py"),
        "{}",
        hs.screen()
    );
}

/// Enter on a commit's file draws its patch with the diff's own view: each row with its old and
/// new numbers, the hunk's header, the commit named above. Failed before: Enter on the shown
/// commit only closed it (its patches had no numbers).
#[test]
fn a_commit_s_file_opens_in_the_diff_s_view_with_line_numbers() {
    let (mut hs, _d) = offline_harness(120, 30);
    python_patch(&mut hs);
    let s = hs.screen();
    for want in [
        "@@ -12,12 +12,29 @@ from ._native import Client as _Client",
        "   14    14  class Client:",
        "   15       -    def __init__(self, base_url: str, timeout: float = 10.0):",
        "         15 +    def __init__(",
        "e5f6a7b · offline: the PR's patch at this head · read-only",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    // Its threads are the PR head's: none is drawn on the commit's lines.
    assert!(!s.contains("thread @"), "{s}");
    // `}` jumps to the next hunk; Esc is back on the commit with the same file selected.
    hs.press("Esc");
    assert_eq!(hs.app.stack(), ["PR", "commits"]);
    assert!(
        hs.screen()
            .lines()
            .any(|l| l.contains("▶ modified bindings/python/rivet/client.py")),
        "{}",
        hs.screen()
    );
}

/// `|` shows the commit's patch side by side (old left, new right), `|` again unified.
#[test]
fn a_commit_s_patch_shows_side_by_side_with_the_bar() {
    let (mut hs, _d) = offline_harness(120, 30);
    python_patch(&mut hs);
    assert!(!hs.app.diff_split(), "auto is unified at 120 columns");
    hs.press("|");
    assert!(hs.app.diff_split(), "{}", hs.screen());
    let s = hs.screen();
    let pair = s
        .lines()
        .find(|l| l.contains("-        self._inner = _Client(base_url, timeout)"))
        .unwrap_or_else(|| panic!("{s}"));
    let (left, right) = pair.split_once('│').unwrap_or_else(|| panic!("{pair}"));
    assert!(left.contains("-        self._inner"), "{pair}");
    assert!(right.contains("+        self._inner = _Client("), "{pair}");
    hs.press("|");
    assert!(!hs.app.diff_split());
}

/// The keys that would comment, ask, mark viewed or read the PR's files say in words why they
/// do not act on a commit's patch, and nothing opens: no composer, no question, no selection.
#[test]
fn a_commit_s_patch_is_read_only_and_says_why() {
    let (mut hs, _d) = offline_harness(120, 30);
    python_patch(&mut hs);
    for (key, said) in [
        (
            "c",
            "a commit's patch takes no comment here: comment on the PR's diff (F)",
        ),
        (
            "S",
            "a commit's patch takes no comment here: comment on the PR's diff (F)",
        ),
        (
            "V",
            "a commit's patch takes no comment here: comment on the PR's diff (F)",
        ),
        ("a", "takes no question"),
        ("t", "not the PR's file"),
        ("I", "no interdiff"),
        ("e", "its hunks only"),
        ("o", "the PR's diff"),
        ("]", "no thread or finding"),
        ("Enter", "no thread"),
    ] {
        hs.press(key);
        assert_eq!(hs.app.stack(), ["PR", "commits", "diff"], "{key}");
        assert_eq!(hs.app.mode(), &crate::tui::app::InputMode::Normal, "{key}");
        let notice = hs.app.notice().unwrap_or_default().to_owned();
        assert!(notice.contains(said), "{key}: {notice}");
        assert!(hs.screen().contains(&notice), "{key}: said in the footer");
        assert!(
            !hs.app.diff_screen().is_some_and(|d| d.selecting()),
            "{key}"
        );
    }
}

/// `n`/`N` go through the commit's files (not the PR's), saying where the commit ends.
#[test]
fn n_and_shift_n_go_through_the_commit_s_files() {
    let (mut hs, _d) = offline_harness(120, 30);
    python_patch(&mut hs);
    hs.press("n");
    assert_eq!(
        hs.app.diff_path(),
        Some("web/src/components/RetryBadge.tsx")
    );
    hs.press("n n");
    assert_eq!(hs.app.diff_path(), Some("docs/retry.md"));
    assert_eq!(hs.app.notice(), Some("the commit's last file"));
    hs.press("N N N N N");
    assert_eq!(hs.app.diff_path(), Some("src/client/retry.rs"));
    assert_eq!(hs.app.notice(), Some("the commit's first file"));
    // The push's own commit has one file.
    hs.press("Esc Esc j Enter Enter");
    assert_eq!(hs.app.diff_path(), Some("src/client/retry.rs"));
    hs.press("n");
    assert_eq!(hs.app.notice(), Some("the commit's last file"));
}

/// A commit's patch is never the PR's file seen: going through every file of a commit leaves
/// the PR's last look where it was; its pending comments, findings and threads (written on the
/// PR head's lines) are not drawn on the commit's.
#[test]
fn a_commit_s_patch_moves_no_last_look_and_shows_no_pending_comment() {
    let dir = tempfile::tempdir().unwrap();
    let mut hs = Harness::demo(dir.path(), 120, 30).unwrap();
    hs.draw();
    // The PR's diff: a pending comment on line 4 of retry.rs, its patch seen.
    hs.press("F Enter j j j c");
    hs.type_text("Why an empty line here?");
    // The composer under the line: `Esc` keeps the comment, in the diff.
    hs.press("Esc q q");
    assert_eq!(hs.app.stack(), ["PR"]);
    let before = last_look(dir.path());
    assert_eq!(
        before.files.keys().cloned().collect::<Vec<_>>(),
        ["src/client/retry.rs"]
    );
    hs.press("H Enter Enter");
    assert_eq!(hs.app.diff_path(), Some("src/client/retry.rs"));
    for _ in 0..3 {
        hs.draw();
    }
    let s = hs.screen();
    assert!(
        s.contains("    4 +use crate::client::{Error, Response};"),
        "{s}"
    );
    assert!(!s.contains("pending c"), "{s}");
    assert!(!s.contains("Why an empty line"), "{s}");
    assert!(!s.contains('┆'), "no note under a line: {s}");
    hs.press("n n n n N");
    hs.draw();
    assert_eq!(
        last_look(dir.path()),
        before,
        "the PR's last look did not move"
    );
    // And back on the PR's diff, the comment is still there.
    hs.press("Esc Esc Esc F Enter");
    hs.draw();
    assert!(hs.screen().contains("Why an empty line"), "{}", hs.screen());
}

/// A commit's patch as the maintainer sees it, at 120×30 and at 80×24.
#[test]
fn a_commit_s_patch_frames() {
    for (w, h) in [(120, 30), (80, 24)] {
        let (mut hs, _d) = offline_harness(w, h);
        python_patch(&mut hs);
        insta::assert_snapshot!(format!("commits_patch_{w}x{h}"), hs.screen());
    }
}

/// The commits screen's `?` names what Enter does on a shown commit's file.
#[test]
fn the_commits_help_says_enter_opens_a_file_s_patch() {
    let (mut hs, _d) = offline_harness(120, 30);
    hs.draw();
    hs.press("H");
    let help = hs.app.help_entries();
    assert!(
        help.iter()
            .any(|(k, what)| k == "Enter" && what.contains("the diff's view")),
        "{help:?}"
    );
    // The diff of a commit's file has its own: no comment key there.
    hs.press("Enter Enter");
    let help = hs.app.help_entries();
    assert!(
        help.iter().any(|(_, w)| w.contains("read-only")),
        "{help:?}"
    );
    assert!(
        !help.iter().any(|(_, w)| w.contains("comment on the line")),
        "{help:?}"
    );
}
