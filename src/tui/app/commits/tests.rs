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

/// `n`/`N` move from file to file on the opening head's five files.
#[test]
fn next_and_previous_file_scroll_to_each_file() {
    let (mut hs, _d) = offline_harness(100, 20);
    hs.draw();
    hs.press("H Enter");
    let top = hs.screen();
    hs.press("n");
    let first = hs.screen();
    assert_ne!(top, first);
    let line_of = |s: &str| s.lines().nth(1).unwrap_or_default().to_owned();
    assert!(line_of(&first).contains("src/client/retry.rs"), "{first}");
    hs.press("n");
    assert!(
        line_of(&hs.screen()).contains("src/client/mod.rs"),
        "{}",
        hs.screen()
    );
    hs.press("N");
    assert!(
        line_of(&hs.screen()).contains("src/client/retry.rs"),
        "{}",
        hs.screen()
    );
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

/// Live: the list is one request to the PR's commits, `Enter` one to that commit; its patch
/// shows in the diff's colours, sanitized, and the files without one say why.
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
    let diff = hs.screen();
    for want in [
        "commit 2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb  Hubot Builder",
        "modified docs/retry.md  +1 -1",
        "-Old line",
        "renamed docs/old.md → docs/new.md",
        "(binary file: no text diff)",
        "(GitHub sends no patch for a file this large)",
    ] {
        assert!(diff.contains(want), "{want}:\n{diff}");
    }
    assert!(
        !diff.contains('\u{1b}') && !diff.contains('\u{7}'),
        "{diff:?}"
    );
    insta::assert_snapshot!("commits_live_diff_120x35", diff);
    // The diff's colours: an added line in the theme's `diff_added`.
    let buf = hs.terminal.backend().buffer();
    let theme = Theme::default_theme();
    let added = (0..buf.area.height).find_map(|y| {
        let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        row.find("│+New").map(|_| y)
    });
    let y = added.expect("the added line");
    let x = (0..buf.area.width)
        .find(|&x| buf[(x, y)].symbol() == "+")
        .unwrap();
    assert_eq!(buf[(x, y)].fg, theme.diff_added.fg.unwrap_or_default());
    // Shown again: not read again.
    hs.press("Esc Enter");
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
