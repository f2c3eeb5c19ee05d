//! The inbox's default sections live ("who is waiting on me": Needs my review, Mine, Involved)
//! against the loopback GitHub: exact rows per section with the you/team split, a PR in two
//! sections fetched once, the 150-PR inbox within the request budget, configured sections
//! winning, a failing search kept to its own section, and the bundled fixtures offline.

use crate::support;

use std::collections::BTreeSet;
use std::process::Output;

use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_inbox::{FakeInbox, IPr, VIEWER, VIEWER_TEAM, queue};
use support::stderr;
use wiremock::MockServer;

const TOKEN: &str = "ghp_SectionsLoopbackToken0123456789ab";

const NEEDS: &str = "review-requested:@me";
const MINE: &str = "author:@me";
const INVOLVED: &str = "involves:@me -author:@me";

async fn inbox(env: &TestEnv, server: &MockServer, format: &str) -> Output {
    env.bin_async()
        .env("GH_TOKEN", TOKEN)
        .arg("--api-url")
        .arg(server.uri())
        .args(["inbox", "--format", format, "--quiet"])
        .output()
        .await
        .unwrap()
}

fn doc_of(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `inbox --format json` through `cmd` lists the bundled fixtures and asks GitHub nothing.
async fn assert_bundled_and_silent(
    mut cmd: tokio::process::Command,
    server: &MockServer,
    fake: &FakeInbox,
) {
    let o = cmd
        .arg("--api-url")
        .arg(server.uri())
        .args(["inbox", "--format", "json", "--quiet"])
        .output()
        .await
        .unwrap();
    let doc = doc_of(&o);
    assert_eq!(doc["source"], "bundled fixtures");
    assert_eq!(fake.requests(), 0);
}

/// Section title → the numbers of its rows, in order.
fn sections(doc: &Value) -> Vec<(String, Vec<u64>)> {
    doc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let title = s["source"].as_str().unwrap().to_owned();
            let nums = s["prs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["number"].as_u64().unwrap())
                .collect();
            (title, nums)
        })
        .collect()
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// The PR numbers the batched item fetch asked for, each time it asked (`number_I` of every
/// `InboxPullRequests` request).
fn fetched(fake: &FakeInbox) -> Vec<u64> {
    fake.seen()
        .iter()
        .filter(|s| s.kind == "prs")
        .flat_map(|s| {
            s.variables
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| k.starts_with("number_"))
                .filter_map(|(_, v)| v.as_u64())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The first fetch of each PR (its first page); a later round of the same PR (more threads)
/// carries cursors. The numbers fetched on a first round, each listed once.
fn first_rounds(fake: &FakeInbox) -> Vec<u64> {
    fake.seen()
        .iter()
        .filter(|s| s.kind == "prs")
        .flat_map(|s| {
            let v = &s.variables;
            (0..)
                .map_while(|i| {
                    let n = v.get(format!("number_{i}"))?.as_u64()?;
                    let first = v
                        .get(format!("withMeta_{i}"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    Some((n, first))
                })
                .filter(|(_, first)| *first)
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Twelve PRs with the dashboard's data: #5 and #10 request the viewer by name, #1, #6 and #11
/// the viewer's team; #3 and #8 are the viewer's own; #4, #10 and #12 involve the viewer.
async fn twelve() -> (MockServer, FakeInbox) {
    let prs: Vec<IPr> = queue(12)
        .into_iter()
        .map(|mut p| {
            if matches!(p.number, 3 | 8) {
                p.author = VIEWER.to_owned();
            }
            p
        })
        .collect();
    let (server, fake) = FakeInbox::start(prs).await;
    fake.with_dashboard();
    fake.answer_searches(
        &server,
        &[
            (NEEDS, vec![1, 5, 6, 10, 11]),
            (MINE, vec![3, 8]),
            (INVOLVED, vec![4, 10, 12]),
        ],
    )
    .await;
    (server, fake)
}

#[tokio::test]
async fn the_default_sections_list_who_is_waiting_on_me_with_the_you_and_team_split() {
    let (server, fake) = twelve().await;
    let env = TestEnv::new();
    let doc = doc_of(&inbox(&env, &server, "json").await);
    let got: Vec<(String, Vec<u64>)> = sections(&doc)
        .into_iter()
        .map(|(t, n)| (t, sorted(n)))
        .collect();
    assert_eq!(
        got,
        vec![
            ("Needs my review".to_owned(), vec![1, 5, 6, 10, 11]),
            ("Mine".to_owned(), vec![3, 8]),
            ("Involved".to_owned(), vec![4, 10, 12]),
        ]
    );
    for s in doc["sections"].as_array().unwrap() {
        assert_eq!(s["complete"], true, "{}", s["source"]);
        for pr in s["prs"].as_array().unwrap() {
            assert_eq!(pr["section"], s["source"], "each row names its section");
        }
    }
    let needs = &doc["sections"][0]["prs"];
    let split: BTreeSet<(u64, String, Option<String>)> = needs
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["number"].as_u64().unwrap(),
                p["reviewRequested"].as_str().unwrap().to_owned(),
                p["reviewRequestedTeam"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let team = Some(VIEWER_TEAM.to_owned());
    assert_eq!(
        split,
        BTreeSet::from([
            (1, "team".to_owned(), team.clone()),
            (5, "you".to_owned(), None),
            (6, "team".to_owned(), team.clone()),
            (10, "you".to_owned(), None),
            (11, "team".to_owned(), team),
        ])
    );
    for pr in doc["sections"][1]["prs"].as_array().unwrap() {
        assert_eq!(pr["author"], VIEWER);
    }
    // The searches sent are the three sections', open PRs only.
    let queries: BTreeSet<String> = fake
        .seen()
        .iter()
        .filter(|s| s.kind == "search")
        .map(|s| s.variables["query"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        queries,
        BTreeSet::from([
            format!("{NEEDS} is:pr is:open"),
            format!("{MINE} is:pr is:open"),
            format!("{INVOLVED} is:pr is:open"),
        ])
    );
    assert_eq!(fake.seen().iter().filter(|s| s.kind == "teams").count(), 1);

    // Markdown: every row names its section and who the review is requested from.
    let o = inbox(&env, &server, "md").await;
    assert!(o.status.success(), "{}", stderr(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    for title in ["Needs my review", "Mine", "Involved"] {
        assert!(md.contains(&format!("# Inbox: {title}\n")), "{md}");
    }
    let line = |n: u64, section: &str| {
        md.lines()
            .find(|l| l.contains(&format!("#{n}**")) && l.contains(&format!("· in {section} ")))
            .unwrap_or_else(|| panic!("no row #{n} in {section}:\n{md}"))
            .to_owned()
    };
    assert!(line(5, "Needs my review").contains("review requested: you"));
    assert!(line(6, "Needs my review").contains(&format!("review requested: team {VIEWER_TEAM}")));
    assert!(!line(3, "Mine").contains("review requested"));
    line(10, "Involved");
}

#[tokio::test]
async fn a_pr_in_two_sections_is_fetched_once() {
    let (server, fake) = twelve().await;
    let env = TestEnv::new();
    let doc = doc_of(&inbox(&env, &server, "json").await);
    let rows = |i: usize| doc["sections"][i]["prs"].as_array().unwrap().clone();
    let in_needs = rows(0).into_iter().find(|p| p["number"] == 10).unwrap();
    let in_involved = rows(2).into_iter().find(|p| p["number"] == 10).unwrap();
    // The same row in both, but for the section it names.
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("section");
        v
    };
    assert_eq!(strip(in_needs), strip(in_involved));
    let firsts = first_rounds(&fake);
    assert_eq!(
        sorted(firsts.clone()),
        vec![1, 3, 4, 5, 6, 8, 10, 11, 12],
        "each listed PR fetched once: {firsts:?}"
    );
    assert_eq!(fetched(&fake).iter().filter(|n| **n == 10).count(), 1);
}

#[tokio::test]
async fn the_150_pr_inbox_of_the_default_sections_stays_within_the_request_budget() {
    let (server, fake) = FakeInbox::start(queue(150)).await;
    fake.with_dashboard();
    let needs: Vec<u64> = (1..=150).filter(|n| n % 5 <= 1).collect();
    let mine: Vec<u64> = (1..=150).filter(|n| n % 5 == 2).collect();
    let involved: Vec<u64> = (1..=150).filter(|n| n % 5 >= 2).collect();
    fake.answer_searches(
        &server,
        &[(NEEDS, needs.clone()), (MINE, mine), (INVOLVED, involved)],
    )
    .await;
    let env = TestEnv::new();
    let doc = doc_of(&inbox(&env, &server, "json").await);
    let got = sections(&doc);
    assert_eq!(got[0].1.len(), 60);
    assert_eq!(got[1].1.len(), 30);
    assert_eq!(got[2].1.len(), 90);
    for s in doc["sections"].as_array().unwrap() {
        assert_eq!(s["complete"], true, "{}", s["source"]);
    }
    assert_eq!(
        sorted(first_rounds(&fake)),
        (1..=150).collect::<Vec<u64>>(),
        "every PR fetched once, though 30 are in two sections"
    );
    // The viewer, 3 search pages (Involved's 90 fit one), its teams, 15 batches of 10 PRs and
    // the further rounds of #7 (40 threads fit the first) and #9 (a thread of 130 comments).
    let kinds = |k: &str| fake.seen().iter().filter(|s| s.kind == k).count();
    eprintln!(
        "default sections, 150 PRs: {} requests ({} search, {} prs, {} thread, {} teams, {} viewer)",
        fake.requests(),
        kinds("search"),
        kinds("prs"),
        kinds("thread"),
        kinds("teams"),
        kinds("viewer"),
    );
    assert!(fake.requests() <= 30, "{} requests", fake.requests());
}

#[tokio::test]
async fn configured_sections_win_over_the_default_sections() {
    let (server, fake) = twelve().await;
    let env = TestEnv::with_config(
        "[[inbox.sections]]\ntitle = \"Widgets\"\nquery = \"repo:acme/widgets\"\n",
    );
    let doc = doc_of(&inbox(&env, &server, "json").await);
    assert_eq!(doc["source"], "Widgets");
    assert_eq!(doc["prs"].as_array().unwrap().len(), 12);
    let searched: Vec<String> = fake
        .seen()
        .iter()
        .filter(|s| s.kind == "search")
        .map(|s| s.variables["query"].as_str().unwrap().to_owned())
        .collect();
    assert!(searched.iter().all(|q| !q.contains("@me")), "{searched:?}");
}

#[tokio::test]
async fn a_failing_search_is_its_own_sections_problem_and_the_others_still_list() {
    let (server, fake) = twelve().await;
    fake.set_fault(Box::new(|_, seen| {
        let q = seen.variables["query"].as_str().unwrap_or("");
        (seen.kind == "search" && q.starts_with("involves:")).then(|| {
            wiremock::ResponseTemplate::new(200).set_body_json(json!({
                "data": null,
                "errors": [{"type": "INVALID", "path": ["search"],
                    "message": "The search `involves:` is not available right now."}]
            }))
        })
    }));
    let env = TestEnv::new();
    let doc = doc_of(&inbox(&env, &server, "json").await);
    let got: Vec<(String, Vec<u64>)> = sections(&doc)
        .into_iter()
        .map(|(t, n)| (t, sorted(n)))
        .collect();
    assert_eq!(
        got[0],
        ("Needs my review".to_owned(), vec![1, 5, 6, 10, 11])
    );
    assert_eq!(got[1], ("Mine".to_owned(), vec![3, 8]));
    assert_eq!(got[2], ("Involved".to_owned(), vec![]));
    let involved = &doc["sections"][2];
    assert_eq!(involved["complete"], false);
    let problem = involved["problems"][0].as_str().unwrap();
    assert!(problem.contains("not available right now"), "{problem}");
    assert_eq!(doc["sections"][0]["complete"], true);
}

#[tokio::test]
async fn without_credentials_the_inbox_is_the_bundled_fixtures_and_asks_nothing() {
    let (server, fake) = twelve().await;
    let env = TestEnv::new();
    assert_bundled_and_silent(env.bin_async(), &server, &fake).await;
}

/// A logged-in `gh` alone does not make the inbox without an argument live: `cargo run` on a
/// machine with `gh` still opens the demo.
#[cfg(unix)]
#[tokio::test]
async fn a_logged_in_gh_alone_keeps_the_bundled_fixtures() {
    use std::os::unix::fs::PermissionsExt;
    let (server, fake) = twelve().await;
    let env = TestEnv::new();
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(&gh, format!("#!/bin/sh\necho {TOKEN}\n")).unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = env.bin_async();
    cmd.env("PATH", path);
    assert_bundled_and_silent(cmd, &server, &fake).await;
}
