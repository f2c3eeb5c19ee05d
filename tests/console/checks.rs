//! The checks screen (`K` on the PR screen): the checks at the head, failing first, a failing
//! run opened with its annotations and log tail; an annotation `NEW` the first time it is shown
//! and not the second (the seen markers headless `checks` uses); the re-run of the failed jobs
//! refused offline and, live against a loopback GitHub, asked first and then sent as exactly one
//! POST, after which the checks are read again; a log over the answer limit shows its tail, and
//! one that cannot be read says why.

use std::path::Path;
use std::time::Duration;

use crate::support;
use support::console::live_harness;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::checks::annotation_ids;
use pr_shepherd::source::github::FetchOptions;
use pr_shepherd::tui::app::{Effect, InputMode};
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::keymap::Keymap;
use support::console::{coords, demo_harness};
use support::demo_fixture;
use support::fake_github::{CHECKS_SHA, checks_loopback};
use wiremock::MockServer;

#[test]
fn the_checks_screen_lists_failing_first_and_opens_a_failing_run() {
    let (mut h, _d) = demo_harness(120, 40);
    h.draw();
    h.press("K");
    assert_eq!(h.app.stack(), vec!["PR", "checks"]);
    let list = h.screen();
    // Failing first, then pending, then passing (the fixture lists build first).
    let at = |name: &str| list.find(name).unwrap_or_else(|| panic!("{name}:\n{list}"));
    assert!(at("test (ubuntu-latest)") < at("python-bindings"), "{list}");
    assert!(
        at("python-bindings") < at("build (ubuntu-latest)"),
        "{list}"
    );
    insta::assert_snapshot!("checks_list_120x40", list);
    h.press("Enter");
    let open = h.screen();
    for want in [
        "NEW failure src/client/retry.rs:88 retry::tests::gives_up_after_max_attempts",
        "NEW warning src/client/retry.rs:41 clippy",
        "log tail:",
        "##[error]Process completed with exit code 101.",
    ] {
        assert!(open.contains(want), "{want}:\n{open}");
    }
    insta::assert_snapshot!("checks_open_120x40", open);
    // q closes the open check, then leaves the screen.
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR", "checks"]);
    h.press("q");
    assert_eq!(h.app.stack(), vec!["PR"]);
}

/// The demo's failing run's annotations, marked seen in the ledger in `dir`.
fn seen_annotations(h: &Harness, dir: &Path) -> usize {
    let ids = annotation_ids(&demo_fixture().dashboard.check_runs);
    assert_eq!(ids.len(), 2);
    let seen = Ledger::new(dir)
        .load_seen_of(&coords(h), ids.iter().map(String::as_str))
        .unwrap();
    ids.iter()
        .filter(|id| seen.markers.contains_key(id.as_str()))
        .count()
}

#[test]
fn an_annotation_is_new_the_first_time_it_is_shown_and_not_the_second() {
    let (mut h, dir) = demo_harness(120, 30);
    h.draw();
    // Listed, not opened: nothing is shown of the annotations but their count.
    h.press("K");
    assert!(
        h.screen().contains("2 annotations · 2 NEW"),
        "{}",
        h.screen()
    );
    h.press("q");
    assert_eq!(seen_annotations(&h, dir.path()), 0);
    // Opened: the frame showed them, so they are seen from now on (NEW for this visit).
    h.press("K Enter");
    assert!(h.screen().contains("NEW failure"), "{}", h.screen());
    assert_eq!(seen_annotations(&h, dir.path()), 2);
    h.press("q q");
    // The second time: not new, in the list and opened.
    h.press("K");
    assert!(h.screen().contains("2 annotations"), "{}", h.screen());
    assert!(!h.screen().contains("NEW"), "{}", h.screen());
    h.press("Enter");
    let s = h.screen();
    assert!(s.contains("failure src/client/retry.rs:88"), "{s}");
    assert!(!s.contains("NEW"), "{s}");
}

#[test]
fn offline_the_rerun_says_it_cannot_run() {
    let (mut h, _d) = demo_harness(120, 30);
    h.draw();
    h.press("K W");
    assert_eq!(h.app.mode(), &InputMode::Normal, "no confirmation offline");
    let notice = h.app.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("cannot re-run offline"), "{notice}");
    assert!(
        !h.effects
            .iter()
            .any(|e| matches!(e, Effect::RerunFailed { .. })),
        "{:?}",
        h.effects
    );
}

#[test]
fn the_checks_keys_are_in_each_help_and_can_be_rebound() {
    let (mut h, _d) = demo_harness(120, 60);
    h.draw();
    h.press("?");
    let s = h.screen();
    assert!(
        s.contains("the checks at the PR's head, failing first"),
        "{s}"
    );
    assert!(
        !s.contains("re-run the failed jobs"),
        "the checks screen's own:\n{s}"
    );
    h.press("? K ?");
    let s = h.screen();
    for want in [
        "open / close the check",
        "re-run the failed jobs of the failing workflow runs",
        "an annotation not shown before",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    h.press("? q q");
    let loaded = pr_shepherd::config::Config::parse(
        "[keys]\nchecks = \"ctrl-k\"\nrerun_failed = \"ctrl-w\"\n",
        Path::new("c.toml"),
    )
    .unwrap();
    h.keymap = Keymap::new(&loaded.keys);
    h.press("K");
    assert_eq!(h.app.stack(), vec!["PR"], "K is no longer bound");
    h.press("ctrl-k");
    assert_eq!(h.app.stack(), vec!["PR", "checks"]);
    h.press("ctrl-w");
    assert!(
        h.app
            .notice()
            .is_some_and(|n| n.contains("cannot re-run offline")),
        "{:?}",
        h.app.notice()
    );
}

fn count(rt: &tokio::runtime::Runtime, server: &MockServer, how: &str, ends: &str) -> usize {
    rt.block_on(server.received_requests())
        .unwrap_or_default()
        .iter()
        .filter(|r| r.method.as_str() == how && r.url.path().ends_with(ends))
        .count()
}

#[test]
fn live_the_rerun_asks_first_then_sends_exactly_one_post_and_reads_the_checks_again() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(checks_loopback());
    let opts = FetchOptions {
        timeout: Duration::from_secs(5),
        deadline: Duration::from_secs(30),
        ..FetchOptions::default()
    };
    let gh = support::github_client::loopback_github(&server.uri(), "ghp_consoleChecksToken", opts)
        .expect("client");
    let snapshot = demo_fixture().snapshot_at(0).unwrap();
    assert_eq!(snapshot.pr.head_sha, CHECKS_SHA);
    let dir = tempfile::tempdir().unwrap();
    let mut h = live_harness(snapshot, dir.path(), gh, 120, 30);
    h.draw();
    h.press("K");
    let s = h.screen();
    assert!(
        s.contains("3 checks at e5f6a7b: 1 failing · 1 pending · 1 passing"),
        "{s}"
    );
    assert!(!s.contains("the fixture's checks"), "{s}");
    // The log is read when the failing job is opened, not before.
    assert_eq!(count(&rt, &server, "GET", "/logs"), 0);
    h.press("Enter");
    assert_eq!(count(&rt, &server, "GET", "/logs"), 1);
    let s = h.screen();
    assert!(s.contains("NEW failure src/lib.rs:7 tests::adds"), "{s}");
    assert!(s.contains("log tail:"), "{s}");
    // The log's tail ends the open check.
    h.press("G");
    let s = h.screen();
    assert!(s.contains("error: test failed"), "{s}");
    assert!(!s.contains("[31m"), "colour codes cut:\n{s}");
    assert!(s.contains("step line 199"), "{s}");
    assert!(!s.contains("2026-11-20T09:16"), "timestamps cut:\n{s}");
    // Asked first, naming the workflow run and its failing check; any key but y cancels.
    h.press("W");
    let Some(ask) = h.app.checks_asked().cloned() else {
        panic!("not the re-run's confirmation: {:?}", h.app.mode());
    };
    assert_eq!(ask.target, "acme/rivet#482");
    assert_eq!(
        (ask.runs.len(), ask.runs[0].run, ask.runs[0].checks.clone()),
        (1, 9001, vec!["test".to_owned()])
    );
    assert!(
        h.screen().contains("workflow run 9001: test"),
        "{}",
        h.screen()
    );
    h.press("n");
    assert_eq!(h.app.notice(), Some("not re-run"));
    assert_eq!(count(&rt, &server, "POST", ""), 0);
    assert_eq!(count(&rt, &server, "GET", "/check-runs"), 1);
    h.press("W y");
    assert_eq!(count(&rt, &server, "POST", ""), 1);
    assert_eq!(
        count(
            &rt,
            &server,
            "POST",
            "/repos/acme/rivet/actions/runs/9001/rerun-failed-jobs"
        ),
        1
    );
    let notice = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        notice.contains("re-running the failed jobs of workflow run 9001 on acme/rivet#482"),
        "{notice}"
    );
    // Then the checks are read again.
    assert_eq!(count(&rt, &server, "GET", "/check-runs"), 2);
    assert!(!h.screen().contains("ghp_consoleChecksToken"));
    drop(h);
    drop(rt);
}

/// The console over `server` with answers limited to `max_answer_bytes`, the checks screen
/// opened on the failing job (its log read), scrolled to the end.
fn opened_failing_job(
    rt: &tokio::runtime::Runtime,
    server: &MockServer,
    max_answer_bytes: usize,
) -> String {
    let opts = FetchOptions {
        timeout: Duration::from_secs(5),
        deadline: Duration::from_secs(30),
        max_answer_bytes,
        ..FetchOptions::default()
    };
    let gh = support::github_client::loopback_github(&server.uri(), "ghp_consoleChecksToken", opts)
        .expect("client");
    let dir = tempfile::tempdir().unwrap();
    let mut h = live_harness(
        demo_fixture().snapshot_at(0).unwrap(),
        dir.path(),
        gh,
        120,
        30,
    );
    h.draw();
    h.press("K");
    h.press("Enter");
    assert_eq!(count(rt, server, "GET", "/logs"), 1);
    h.press("G");
    h.screen()
}

#[test]
fn live_a_log_over_the_answer_limit_shows_its_tail_and_an_unreadable_one_says_why() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(checks_loopback());
    // 2 MiB of log against a 64 KiB answer limit: only its tail is kept while it is read.
    let log = "step line of a long build\n".repeat(80_000) + "error: THE-VERY-END\n";
    rt.block_on(
        wiremock::Mock::given(wiremock::matchers::path_regex("/actions/jobs/31002/logs$"))
            .respond_with(wiremock::ResponseTemplate::new(200).set_body_string(log))
            .with_priority(1)
            .mount(&server),
    );
    let s = opened_failing_job(&rt, &server, 64 * 1024);
    assert!(s.contains("step line of a long build"), "{s}");
    assert!(s.contains("error: THE-VERY-END"), "{s}");

    // An expired log (GitHub answers 410) is said as such, not as a missing permission.
    let server = rt.block_on(checks_loopback());
    rt.block_on(
        wiremock::Mock::given(wiremock::matchers::path_regex("/actions/jobs/31002/logs$"))
            .respond_with(
                wiremock::ResponseTemplate::new(410)
                    .set_body_json(serde_json::json!({"message": "Gone"})),
            )
            .with_priority(1)
            .mount(&server),
    );
    let s = opened_failing_job(&rt, &server, 64 * 1024);
    assert!(
        s.contains("the job's log could not be read: expired or deleted"),
        "{s}"
    );
    assert!(!s.contains("no permission"), "{s}");
}
