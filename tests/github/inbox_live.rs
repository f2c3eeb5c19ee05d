//! The live inbox against the loopback GitHub: the request budget (150 open PRs, one with 40
//! threads, one thread of 130 comments, in ≤ 30 requests), exact counts, Shepherd states,
//! faults, bad input, and a state dir left untouched.

use crate::support;

use std::collections::BTreeMap;
use std::process::Output;

use pr_shepherd::inbox::{Counts, ShepherdState, live};
use pr_shepherd::ledger::Ledger;
use pr_shepherd::policy::GateConfig;
use pr_shepherd::source::github::batch::{ListSpec, inbox_prs_query};
use pr_shepherd::source::github::{FetchOptions, GitHub};
use serde_json::Value;
use support::env::TestEnv;
use support::fake_inbox::{FakeInbox, IPr, OWNER, REPO, VIEWER, head, queue};
use support::github_client::loopback_github;
use support::{stderr, tree};
use wiremock::ResponseTemplate;

const TOKEN: &str = "ghp_InboxLoopbackToken0123456789abcdef";

fn client(uri: &str) -> GitHub {
    let opts = FetchOptions {
        backoff: std::time::Duration::from_millis(1),
        max_backoff: std::time::Duration::from_millis(2),
        ..FetchOptions::default()
    };
    loopback_github(uri, TOKEN, opts).expect("client")
}

fn repo_spec() -> Vec<ListSpec> {
    vec![ListSpec::Repo {
        owner: OWNER.into(),
        repo: REPO.into(),
    }]
}

async fn cli(env: &TestEnv, uri: &str, args: &[&str]) -> Output {
    env.bin_async()
        .env("GH_TOKEN", TOKEN)
        .env("PR_SHEPHERD_HTTP_BACKOFF_MS", "1")
        .env("PR_SHEPHERD_HTTP_ATTEMPTS", "2")
        .arg("--api-url")
        .arg(uri)
        .arg("inbox")
        .args(args)
        .output()
        .await
        .unwrap()
}

/// Each fake PR's items, and how many of them are new before anything was seen: all but the
/// viewer's own Shepherd review, which is never new to its author.
fn expected_counts(prs: &[support::fake_inbox::IPr]) -> BTreeMap<u64, (usize, usize)> {
    prs.iter()
        .map(|p| {
            let own = usize::from(p.shepherd_at.is_some());
            (p.number, (p.items(), p.items() - own))
        })
        .collect()
}

/// Every row counted, as many items as the fake PR has, all new but Shepherd's own review.
fn assert_counted_as_expected(
    rows: &[pr_shepherd::inbox::Row],
    expected: &BTreeMap<u64, (usize, usize)>,
) {
    for r in rows {
        let n = r.listed.coords.number;
        let (total, new) = expected[&n];
        assert_eq!(
            r.items,
            Counts::Counted {
                total,
                new,
                edited: 0
            },
            "#{n}"
        );
    }
}

/// The inbox of the fake's repository as JSON, which must succeed: the run and its document.
async fn json_listing(env: &TestEnv, uri: &str) -> (Output, Value) {
    let o = cli(env, uri, &[&format!("{OWNER}/{REPO}"), "--format", "json"]).await;
    assert!(o.status.success(), "{}", stderr(&o));
    let doc = serde_json::from_slice(&o.stdout).unwrap();
    (o, doc)
}

/// The inbox of the fake's repository as Markdown (`--quiet`), which must succeed.
async fn markdown(env: &TestEnv, uri: &str) -> String {
    let md = cli(env, uri, &[&format!("{OWNER}/{REPO}"), "--quiet"]).await;
    assert!(md.status.success(), "{}", stderr(&md));
    String::from_utf8_lossy(&md.stdout).into_owned()
}

#[tokio::test]
async fn a_queue_of_150_prs_in_at_most_30_requests_with_exact_counts() {
    let prs = queue(150);
    let expected = expected_counts(&prs);
    let (server, fake) = FakeInbox::start(prs).await;
    let gh = client(&server.uri());
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path().join("state"));
    // Progress (what a terminal would show): a line for the list, then one per PR counted.
    let progress_file = dir.path().join("progress.txt");
    let progress = pr_shepherd::progress::Progress::to(Box::new(
        std::fs::File::create(&progress_file).unwrap(),
    ));
    let inbox = live::load(
        &gh,
        "acme/widgets".into(),
        &repo_spec(),
        &ledger,
        VIEWER,
        &GateConfig::default(),
        &progress,
    )
    .await
    .unwrap();
    let lines = std::fs::read_to_string(&progress_file).unwrap();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 151, "{lines:?}");
    assert_eq!(lines[0], "acme/widgets: 150 open PRs listed");
    assert!(
        lines[150].starts_with("[150/150] acme/widgets#"),
        "{}",
        lines[150]
    );
    assert!(lines[1..].iter().all(|l| l.contains(" new, ")), "{lines:?}");
    let kinds: Vec<&str> = fake.seen().iter().map(|s| s.kind).collect();
    eprintln!("150 PRs: {} requests: {kinds:?}", fake.requests());
    assert!(
        fake.requests() <= 30,
        "{} requests: {kinds:?}",
        fake.requests()
    );
    assert_eq!(gh.requests(), fake.requests());
    assert_eq!(inbox.rows.len(), 150);
    assert!(
        inbox.complete(),
        "{:?}",
        inbox
            .rows
            .iter()
            .find(|r| !matches!(r.items, Counts::Counted { .. }))
    );
    assert_counted_as_expected(&inbox.rows, &expected);
    let row = |n: u64| {
        inbox
            .rows
            .iter()
            .find(|r| r.listed.coords.number == n)
            .unwrap()
    };
    assert_eq!(row(7).items.unseen(), Some(44));
    // #9: a thread of 130 comments is one item, paged to its end (the fake would say otherwise
    // through an incomplete snapshot).
    assert_eq!(row(11).shepherd.state, ShepherdState::Current);
    assert_eq!(row(11).shepherd.comment_id, Some(900_011));
    assert_eq!(row(13).shepherd.state, ShepherdState::Stale);
    assert_eq!(row(12).shepherd.state, ShepherdState::None);
    // The thread continuation came in one request for the whole queue.
    assert_eq!(
        kinds.iter().filter(|k| **k == "thread").count(),
        1,
        "{kinds:?}"
    );
    assert_eq!(kinds.iter().filter(|k| **k == "list").count(), 2);
    // Markers written by `items` for one PR make its counts drop, the others stay.
    drop(inbox);
}

#[tokio::test]
async fn the_binary_lists_the_queue_as_json_and_leaves_the_state_dir_alone() {
    let (server, fake) = FakeInbox::start(queue(25)).await;
    let env = TestEnv::new();
    std::fs::create_dir_all(env.state().join("acme-widgets").join("3").join("seen")).unwrap();
    std::fs::write(env.state().join("keep.txt"), "x").unwrap();
    let before = tree(&env.state());
    let (o, doc) = json_listing(&env, &server.uri()).await;
    assert_eq!(doc["source"], "acme/widgets");
    assert_eq!(doc["complete"], true);
    assert_eq!(doc["prs"].as_array().unwrap().len(), 25);
    let p11 = doc["prs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["number"] == 11)
        .unwrap();
    assert_eq!(p11["shepherd"]["state"], "current");
    assert_eq!(p11["shepherd"]["reviewedSha"], head(11));
    assert_eq!(p11["team"], false);
    assert_eq!(p11["gate"]["review"], "needs-label");
    let p12 = doc["prs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["number"] == 12)
        .unwrap();
    assert_eq!(p12["team"], true);
    assert_eq!(p12["gate"]["review"], "allowed");
    assert_eq!(
        tree(&env.state()),
        before,
        "the inbox wrote to the state dir"
    );
    assert!(!String::from_utf8_lossy(&o.stdout).contains(TOKEN));
    assert!(!stderr(&o).contains(TOKEN));
    // stderr is a pipe here: no progress lines (a terminal gets one per PR counted).
    assert!(!stderr(&o).contains("[1/25]"), "{}", stderr(&o));
    assert!(fake.requests() <= 6, "{}", fake.requests());
    let text = markdown(&env, &server.uri()).await;
    assert!(text.contains("## Needs attention"), "{text}");
    assert!(text.contains("acme/widgets#13"), "{text}");
}

#[tokio::test]
async fn a_search_lists_the_same_prs() {
    let (server, _fake) = FakeInbox::start(queue(12)).await;
    let env = TestEnv::new();
    let o = cli(
        &env,
        &server.uri(),
        &[
            "--query",
            "repo:acme/widgets review-requested:@me",
            "--format",
            "json",
        ],
    )
    .await;
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["prs"].as_array().unwrap().len(), 12);
    assert_eq!(doc["complete"], true);
}

#[tokio::test]
async fn unknown_repository_and_rejected_query_exit_2_with_githubs_reason() {
    let (server, _fake) = FakeInbox::start(queue(3)).await;
    let env = TestEnv::new();
    let o = cli(&env, &server.uri(), &["acme/nothing"]).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("acme/nothing"), "{}", stderr(&o));
    let o = cli(&env, &server.uri(), &["--query", "bogus:thing"]).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not recognized"), "{}", stderr(&o));
}

#[tokio::test]
async fn a_repository_without_open_prs_says_so() {
    let (server, _fake) = FakeInbox::start(Vec::new()).await;
    let env = TestEnv::new();
    let o = cli(&env, &server.uri(), &[&format!("{OWNER}/{REPO}")]).await;
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("No open pull requests"));
}

#[tokio::test]
async fn a_batch_that_keeps_failing_is_shown_incomplete_never_as_zero() {
    let (server, fake) = FakeInbox::start(queue(25)).await;
    // The batch holding #11 answers 502 every time; a transient 503 elsewhere is retried.
    let flaky = std::sync::atomic::AtomicBool::new(true);
    fake.set_fault(Box::new(move |_, seen| {
        if seen.kind != "prs" {
            return None;
        }
        let has = |n: u64| (0..10).any(|i| seen.variables[format!("number_{i}")] == n);
        if has(11) {
            return Some(ResponseTemplate::new(502));
        }
        if has(1) && flaky.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return Some(ResponseTemplate::new(503));
        }
        None
    }));
    let env = TestEnv::new();
    let (_, doc) = json_listing(&env, &server.uri()).await;
    assert_eq!(doc["complete"], false);
    let mut failed = Vec::new();
    for p in doc["prs"].as_array().unwrap() {
        let n = p["number"].as_u64().unwrap();
        if p["items"].is_null() {
            failed.push(n);
            assert!(p["itemsError"].as_str().unwrap().contains("502"), "{p}");
            assert_eq!(p["shepherd"]["state"], "unknown");
        } else {
            assert!(p["items"]["total"].as_u64().unwrap() > 0, "#{n}: {p}");
        }
    }
    // Exactly the batch of #11 (ten PRs) failed; the others, the retried one included, counted.
    assert_eq!(failed.len(), 10, "{failed:?}");
    assert!(failed.contains(&11));
    assert!(!failed.contains(&1));
    let text = markdown(&env, &server.uri()).await;
    assert!(text.contains("INCOMPLETE"), "{text}");
    assert!(text.contains("items unknown"), "{text}");
}

#[test]
fn the_generated_batch_document_is_well_formed() {
    let q = inbox_prs_query(3);
    assert!(q.contains("p2: repository(owner: $owner_2"));
    assert!(q.contains("fragment ThreadFields"));
    let _ = IPr::ordinary(1);
}

/// The console's live inbox (what `pr-shepherd OWNER/REPO` runs in the background): the list
/// arrives first with every row still to count, the counts follow one PR at a time with the
/// tab's progress on screen, keys are answered in between, and the rows end counted exactly as
/// the headless inbox counts them.
#[tokio::test(flavor = "multi_thread")]
async fn the_console_shows_the_live_list_first_then_fills_in_counts() {
    use pr_shepherd::tui::app::InboxScreen;
    use pr_shepherd::tui::app::{Job, inbox};
    use pr_shepherd::tui::inbox_link::{InboxLink, TabSource};
    use pr_shepherd::tui::keymap::KeyCommand;
    use pr_shepherd::tui::{
        Action, App, ConsoleReview, EffectRunner, Keymap, Live, Remote, Session, Theme,
    };
    use ratatui::{Terminal, backend::TestBackend};

    let prs = queue(25);
    let expected = expected_counts(&prs);
    let (server, _fake) = FakeInbox::start(prs).await;
    let dir = tempfile::tempdir().unwrap();
    let runner = EffectRunner {
        ledger: Ledger::new(dir.path().join("state")),
        fixture: None,
        theme: Theme::plain(),
        interactive: false,
        clock: None,
        review: ConsoleReview::default(),
        session: Session {
            remote: Remote::GitHub(Live {
                gh: std::sync::Arc::new(client(&server.uri())),
                own_login: VIEWER.to_owned(),
            }),
            ..Session::default()
        },
        inbox: InboxLink {
            tabs: vec![TabSource::Live(repo_spec())],
            ..Default::default()
        },
        blobs: Default::default(),
        scratch: Default::default(),
    };
    let mut actions = Vec::new();
    runner
        .perform_work(Job::new(inbox::Work::Load), &mut |a| actions.push(a))
        .await;
    // The list first, every row still to count; then one action per PR counted; then the end.
    let first = actions.first().and_then(|a| match a {
        Action::Done(d) => d.take::<inbox::Done>(),
        _ => None,
    });
    let Some(inbox::Done::Listed {
        result: Ok((listed, _)),
        ..
    }) = &first
    else {
        panic!("the list did not come first: {:?}", actions.first());
    };
    assert_eq!(listed.len(), 25);
    assert!(listed.iter().all(|r| r.items == Counts::Loading));
    assert_eq!(actions.len(), 1 + 25 + 1);

    let mut app = App::with_inbox(
        InboxScreen::loading(["acme/widgets".to_owned()]),
        Session {
            now: 1_795_392_000,
            gates: GateConfig::default(),
            ..Session::default()
        },
    );
    let mut rest = actions.into_iter();
    for a in rest.by_ref().take(11) {
        app.update(Action::to(app.top_id(), a));
    }
    let mut term = Terminal::new(TestBackend::new(120, 20)).unwrap();
    let (theme, keymap) = (Theme::plain(), Keymap::default());
    term.draw(|f| {
        app.draw(f, &theme, &keymap);
    })
    .unwrap();
    let screen = format!("{:?}", term.backend().buffer());
    assert!(screen.contains("counting 10/25"), "{screen}");
    // Responsive while counting: a key moves the selection.
    app.update(Action::Command(KeyCommand::Down));
    assert_eq!(app.selected_row(), Some(1));
    for a in rest {
        app.update(Action::to(app.top_id(), a));
    }
    assert_eq!(app.inbox_loading(0), None);
    assert_counted_as_expected(app.inbox_rows(0), &expected);
}
