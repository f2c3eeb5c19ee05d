//! Hostile sizes and hostile text, against the fault-injecting loopback GitHub and through the
//! real binary: answers over the size limit, repeated cursors, items sent twice, a repository of
//! 5,200 open PRs, a thread past its comment bound, a 401 halfway through the pages, the
//! rate-limit wait cap, `man --dir` over a symlink, merged findings, a runaway finding in the
//! decisions log (bounded records, a torn record of any size dropped), and output of every
//! subcommand and format with control, bidi and zero-width characters in every field.

use crate::support;

use std::process::Output;
use std::time::Duration;

use pr_shepherd::inbox::live;
use pr_shepherd::pr::{Item, PrCoords};
use pr_shepherd::sanitize::is_hazard;
use pr_shepherd::source::github::batch::ListSpec;
use pr_shepherd::source::github::{FetchOptions, GitHub, GitHubError};
use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::{
    FakeGitHub, FakePr, NUMBER, OWNER, REPO, endless_answer_server, pr_ref, seen_markers,
};
use support::fake_inbox::{self, FakeInbox, IPr};
use support::github_client::loopback_github;
use support::{all_output, stdout};
use wiremock::ResponseTemplate;

const TOKEN: &str = "ghp_HostileSizesToken0123456789abcdef";

fn coords() -> PrCoords {
    PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number: NUMBER,
    }
}

fn fast() -> FetchOptions {
    FetchOptions {
        max_attempts: 3,
        backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(2),
        max_rate_limit_wait: Duration::from_secs(2),
        ..FetchOptions::default()
    }
}

fn client(uri: &str, opts: FetchOptions) -> GitHub {
    loopback_github(uri, TOKEN, opts).expect("client")
}

/// The binary against the loopback GitHub at `uri` with the state dir of `env`.
async fn live(env: &TestEnv, uri: &str, args: &[&str]) -> Output {
    live_with(env, uri, &[], args).await
}

/// [`live`] with more environment variables.
async fn live_with(env: &TestEnv, uri: &str, vars: &[(&str, &str)], args: &[&str]) -> Output {
    env.bin_async()
        .env("GH_TOKEN", TOKEN)
        .envs(vars.iter().copied())
        .arg("--api-url")
        .arg(uri)
        .args(args)
        .output()
        .await
        .expect("run pr-shepherd")
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", all_output(o)))
}

fn kinds(fake: &FakeGitHub, kind: &str) -> usize {
    fake.seen().iter().filter(|s| s.kind == kind).count()
}

// ---- answers with a size limit ---------------------------------------------------------------

#[tokio::test]
async fn an_answer_over_the_size_limit_ends_the_request_without_reading_it_whole() {
    // No Content-Length, an answer that would go on for 64 MiB: the client stops at its limit.
    let (root, sent) = endless_answer_server(64 << 20).await;
    let gh = client(
        &root,
        FetchOptions {
            max_answer_bytes: 1 << 20,
            ..fast()
        },
    );
    let err = gh
        .fetch_snapshot(&coords())
        .await
        .expect_err("an answer over the limit is an error");
    assert!(matches!(err, GitHubError::TooLarge { .. }), "{err}");
    let said = err.to_string();
    assert!(
        said.contains("GitHub's answer is larger than 1 MiB (PR_SHEPHERD_HTTP_MAX_ANSWER_MB)"),
        "{said}"
    );
    // Never retried (the same answer would come again), and not read to its end.
    assert_eq!(
        gh.requests(),
        3,
        "the PR page and the two file lists (REST patches, GraphQL viewed state), once each"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        sent.load(std::sync::atomic::Ordering::SeqCst) < 32 << 20,
        "the server could send {} bytes: the client kept reading",
        sent.load(std::sync::atomic::Ordering::SeqCst)
    );
}

#[tokio::test]
async fn an_oversized_first_page_exits_1_and_a_later_one_leaves_the_pr_incomplete() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(150, 2, 10, 10, 1)).await;
    let big = format!("{{\"data\": \"{}\"}}", "x".repeat(3 << 20));
    let first = big.clone();
    fake.set_fault(Box::new(move |_, seen| {
        (seen.kind == "pr" && seen.variables["withMeta"] == true)
            .then(|| ResponseTemplate::new(200).set_body_string(first.clone()))
    }));
    let env = TestEnv::new();
    let one_mib = [("PR_SHEPHERD_HTTP_MAX_ANSWER_MB", "1")];
    let o = live_with(&env, &server.uri(), &one_mib, &["items", &pr_ref(NUMBER)]).await;
    let all = all_output(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("larger than 1 MiB"), "{all}");
    assert_eq!(kinds(&fake, "pr"), 1, "not retried");

    // On a further page: that page's connections are incomplete, nothing is marked seen.
    let (server, fake) = FakeGitHub::start(FakePr::generate(150, 2, 10, 10, 1)).await;
    fake.set_fault(Box::new(move |_, seen| {
        (seen.kind == "pr" && seen.variables["withMeta"] == false)
            .then(|| ResponseTemplate::new(200).set_body_string(big.clone()))
    }));
    let env = TestEnv::new();
    let args = ["items", &pr_ref(NUMBER), "--format", "json"];
    let o = live_with(&env, &server.uri(), &one_mib, &args).await;
    let doc = json_of(&o);
    assert_eq!(doc["complete"], false, "{}", all_output(&o));
    let reasons = doc["incomplete"].to_string();
    assert!(reasons.contains("larger than 1 MiB"), "{reasons}");
    assert_eq!(seen_markers(&env.state()), 0);
    assert_eq!(
        kinds(&fake, "pr"),
        2,
        "the oversized page was not asked again"
    );
}

// ---- repeated cursors ------------------------------------------------------------------------

#[tokio::test]
async fn a_repeated_cursor_stops_the_connection_and_lists_each_item_once() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(3, 2, 250, 3, 2)).await;
    *fake.state.repeat_cursor.lock().unwrap() = Some("comments");
    let gh = client(&server.uri(), fast());
    let snap = gh.fetch_snapshot(&coords()).await.unwrap();
    let reasons = snap.incomplete.join("; ");
    assert!(
        reasons.contains(
            "conversation comments after the first 200: GitHub returned the same page twice"
        ),
        "{reasons}"
    );
    let comments = snap
        .items
        .iter()
        .filter(|i| matches!(i, Item::Comment(_)))
        .count();
    assert_eq!(
        comments, 200,
        "two pages, each once (not the second one 49 times more)"
    );
    // The second page handed back the cursor it was asked with: stopped there.
    assert_eq!(kinds(&fake, "pr"), 2, "{:#?}", fake.seen());
}

#[tokio::test]
async fn a_rest_page_that_links_to_itself_stops_with_the_same_message() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(2, 2, 2, 2, 250)).await;
    *fake.state.repeat_cursor.lock().unwrap() = Some("files");
    let gh = client(&server.uri(), fast());
    let snap = gh.fetch_snapshot(&coords()).await.unwrap();
    let reasons = snap.incomplete.join("; ");
    assert!(reasons.contains("changed files"), "{reasons}");
    assert!(
        reasons.contains("GitHub returned the same page twice"),
        "{reasons}"
    );
    assert_eq!(kinds(&fake, "files"), 2);
}

#[tokio::test]
async fn a_pr_list_whose_cursor_repeats_exits_1_saying_so() {
    let (server, fake) = FakeInbox::start((1..=250).map(IPr::bare).collect()).await;
    fake.repeat_list_cursor();
    let env = TestEnv::new();
    let o = live(
        &env,
        &server.uri(),
        &[
            "inbox",
            &format!("{}/{}", fake_inbox::OWNER, fake_inbox::REPO),
        ],
    )
    .await;
    let all = all_output(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("GitHub returned the same page twice"), "{all}");
    let lists = fake.seen().iter().filter(|s| s.kind == "list").count();
    assert_eq!(lists, 2, "the first page, then the repeated one");
}

// ---- duplicate node ids ----------------------------------------------------------------------

#[tokio::test]
async fn an_item_sent_twice_is_listed_once_and_not_edited_on_the_next_run() {
    let mut pr = FakePr::generate(2, 2, 150, 2, 1);
    // Comment 120 (on the second page) comes back with the id of comment 10 and another body.
    let mut twin = pr.comments[10].clone();
    twin.body = "a second body for the same id".into();
    pr.comments[120] = twin;
    let (server, _fake) = FakeGitHub::start(pr).await;
    let env = TestEnv::new();
    let args = ["items", &pr_ref(NUMBER), "--format", "json"];
    let first = live(&env, &server.uri(), &args).await;
    let doc = json_of(&first);
    assert_eq!(doc["complete"], true, "{}", all_output(&first));
    let ids: Vec<&str> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["id"].as_str())
        .collect();
    let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique.len(), "every id once");
    assert_eq!(doc["counts"]["total"], 2 + 149 + 2);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("GitHub sent 1 item or comment a second time (IC_kwDOA00010)"),
        "{notes}"
    );
    let kept = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "IC_kwDOA00010")
        .unwrap();
    assert_eq!(
        kept["body"], "Conversation comment 10",
        "the first one sent"
    );

    // The next run: nothing new, nothing edited (before, the twin flipped it to EDITED).
    let again = json_of(&live(&env, &server.uri(), &args).await);
    assert_eq!(again["counts"]["new"], 0);
    assert_eq!(again["counts"]["edited"], 0, "{}", again["counts"]);

    // `record` writes a fixture `fixture check` accepts.
    let out = env.root().join("recorded.json");
    let rec = live(
        &env,
        &server.uri(),
        &[
            "record",
            &pr_ref(NUMBER),
            "--out",
            &out.display().to_string(),
        ],
    )
    .await;
    assert!(rec.status.success(), "{}", all_output(&rec));
    let check = env
        .bin()
        .args(["fixture", "check"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", all_output(&check));
}

// ---- a repository of 5,200 open PRs ----------------------------------------------------------

#[tokio::test]
async fn a_repository_of_5200_open_prs_is_listed_whole() {
    let (server, fake) = FakeInbox::start((1..=5_200).map(IPr::bare).collect()).await;
    let gh = client(&server.uri(), fast());
    let spec = [ListSpec::Repo {
        owner: fake_inbox::OWNER.into(),
        repo: fake_inbox::REPO.into(),
    }];
    let rows = live::list(&gh, &spec, fake_inbox::VIEWER, &Default::default())
        .await
        .expect("listed");
    assert_eq!(rows.len(), 5_200);
    let mut numbers: Vec<u64> = rows.iter().map(|r| r.listed.coords.number).collect();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!(numbers.len(), 5_200);
    assert_eq!(fake.requests(), 52, "100 a page");
}

#[tokio::test]
async fn the_inbox_of_5200_open_prs_lists_and_counts_them_all() {
    let (server, _fake) = FakeInbox::start((1..=5_200).map(IPr::bare).collect()).await;
    let env = TestEnv::new();
    let o = live(
        &env,
        &server.uri(),
        &[
            "inbox",
            &format!("{}/{}", fake_inbox::OWNER, fake_inbox::REPO),
            "--format",
            "json",
            "--quiet",
        ],
    )
    .await;
    assert!(o.status.success(), "{}", all_output(&o));
    let doc = json_of(&o);
    let rows = doc["prs"].as_array().expect("prs");
    assert_eq!(rows.len(), 5_200);
    assert_eq!(doc["complete"], true);
}

// ---- a thread past its comment bound ---------------------------------------------------------

#[tokio::test]
async fn a_thread_past_its_bound_is_cut_named_and_the_rest_is_marked_seen() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(8, 5_250, 3, 2, 1)).await;
    let env = TestEnv::new();
    let args = ["items", &pr_ref(NUMBER), "--format", "json"];
    let o = live(&env, &server.uri(), &args).await;
    let doc = json_of(&o);
    assert!(o.status.success(), "{}", all_output(&o));
    assert_eq!(doc["complete"], true, "{}", doc["incomplete"]);
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("review thread PRRT_kwDOA00007 (src/mod7.rs) has 5250 comments, more than the 5100 read page by page: its first 5100 and its last 100 are shown, the 50 in between are not"),
        "{notes}"
    );
    let big = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "PRRT_kwDOA00007")
        .unwrap();
    let comments = big["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 5_200);
    assert_eq!(
        comments[5_199]["id"], "PRRC_kwDOA0007x5249",
        "the last comment is there"
    );
    let total = doc["counts"]["total"].as_u64().unwrap() as usize;
    assert_eq!(seen_markers(&env.state()), total, "every item marked seen");

    // The Markdown listing says it too.
    let md = live(&env, &server.uri(), &["items", &pr_ref(NUMBER), "--peek"]).await;
    assert!(
        stdout(&md).contains("> **Note:** review thread PRRT_kwDOA00007"),
        "{}",
        &stdout(&md)[..1500.min(stdout(&md).len())]
    );

    // Nothing changed: nothing new. A reply at the end of the cut thread: it is edited.
    let again = json_of(&live(&env, &server.uri(), &args).await);
    assert_eq!(
        (
            again["counts"]["new"].as_u64(),
            again["counts"]["edited"].as_u64()
        ),
        (Some(0), Some(0))
    );
    fake.add_thread_reply("PRRT_kwDOA00007", "octocat", "One more thing.");
    let after = json_of(&live(&env, &server.uri(), &args).await);
    assert_eq!(after["counts"]["edited"], 1, "{}", after["counts"]);
}

// ---- a 401 halfway -----------------------------------------------------------------------------

fn unauthorized() -> ResponseTemplate {
    ResponseTemplate::new(401).set_body_json(json!({"message": "Bad credentials"}))
}

#[tokio::test]
async fn a_401_on_a_later_page_exits_1_like_on_the_first() {
    for later in ["pr", "thread"] {
        let (server, fake) = FakeGitHub::start(FakePr::generate(150, 130, 10, 10, 1)).await;
        fake.set_fault(Box::new(move |_, seen| {
            let hit = match later {
                "pr" => seen.kind == "pr" && seen.variables["withMeta"] == false,
                _ => seen.kind == "thread",
            };
            hit.then(unauthorized)
        }));
        let env = TestEnv::new();
        let o = live(&env, &server.uri(), &["items", &pr_ref(NUMBER)]).await;
        let all = all_output(&o);
        assert_eq!(o.status.code(), Some(1), "{later}: {all}");
        assert!(all.contains("401") && all.contains("GH_TOKEN"), "{all}");
        assert!(!all.contains(TOKEN), "{all}");
        assert_eq!(seen_markers(&env.state()), 0);
    }
}

#[tokio::test]
async fn a_401_while_the_inbox_counts_exits_1() {
    let mut prs: Vec<IPr> = (1..=12).map(IPr::ordinary).collect();
    prs[0].threads = vec![2; 150];
    let (server, fake) = FakeInbox::start(prs).await;
    fake.set_fault(Box::new(|_, seen| {
        (seen.kind == "prs" && seen.variables["withMeta_0"] == false).then(unauthorized)
    }));
    let env = TestEnv::new();
    let o = live(
        &env,
        &server.uri(),
        &[
            "inbox",
            &format!("{}/{}", fake_inbox::OWNER, fake_inbox::REPO),
            "--format",
            "json",
        ],
    )
    .await;
    let all = all_output(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("401"), "{all}");
}

// ---- the rate-limit wait cap -----------------------------------------------------------------

#[tokio::test]
async fn a_reply_still_rate_limited_after_three_waits_says_the_wait_cap() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(2, 2, 2, 2, 1)).await;
    fake.set_fault(Box::new(|_, seen| {
        (seen.kind == "reply").then(|| {
            ResponseTemplate::new(403)
                .insert_header("retry-after", "0")
                .set_body_json(json!({"message": "You have exceeded a secondary rate limit."}))
        })
    }));
    let env = TestEnv::new();
    let o = live(
        &env,
        &server.uri(),
        &[
            "thread",
            "reply",
            &pr_ref(NUMBER),
            "PRRT_kwDOA00001",
            "--body",
            "Thanks.",
        ],
    )
    .await;
    let all = all_output(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(
        all.contains("it was still limited after 3 waits, the most one request waits"),
        "{all}"
    );
    assert!(!all.contains("would exceed the bound"), "{all}");
    assert_eq!(kinds(&fake, "reply"), 4);
}

// ---- man --dir over a symlink ----------------------------------------------------------------

#[cfg(unix)]
#[test]
fn man_dir_replaces_a_symlink_at_a_pages_path_and_never_writes_through_it() {
    let env = TestEnv::new();
    let dir = env.root().join("man");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = env.root().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("pr-shepherd-items.1")).unwrap();
    let o = env
        .bin()
        .arg("man")
        .arg("--dir")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", all_output(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let page = dir.join("pr-shepherd-items.1");
    assert!(
        std::fs::symlink_metadata(&page)
            .unwrap()
            .file_type()
            .is_file()
    );
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .contains("pr\\-shepherd\\-items")
    );
    assert!(dir.join("pr-shepherd.1").is_file());
    let stray: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".pr-shepherd-tmp-")
        })
        .collect();
    assert!(stray.is_empty(), "no temporary file left");
}

// ---- merged findings -------------------------------------------------------------------------

#[test]
fn findings_that_differ_only_in_numbers_are_merged_and_counted() {
    let env = TestEnv::new();
    let fixture = support::demo_with(&env, |v| {
        let finding = |n: u32| {
            json!({"severity": "important", "file": "src/client/retry.rs", "line": 41,
                   "message": format!("The buffer of {n} bytes overflows on a long header.")})
        };
        let reply = json!({"findings": [finding(16), finding(32), finding(64)]});
        v["llm"]["answers"][0]["reply"] = json!(format!("```json\n{reply}\n```"));
    });
    let run = |format: &str| {
        env.bin()
            .arg("review")
            .arg(&fixture)
            .args(["--format", format])
            .output()
            .unwrap()
    };
    let doc = json_of(&run("json"));
    let correctness = doc["aspects"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["aspect"] == "correctness"))
        .cloned()
        .unwrap_or_else(|| panic!("no correctness aspect: {doc:#}"));
    assert_eq!(correctness["merged"], 2, "{correctness:#}");
    assert_eq!(correctness["findings"].as_array().map(Vec::len), Some(1));
    let md = stdout(&run("md"));
    assert!(
        md.contains("2 more findings had the id of one listed here (the same file and message, numbers aside) and were merged into it."),
        "{md}"
    );
}

// ---- a runaway finding in the decisions log --------------------------------------------------

/// The repository's decisions log in `env`'s state dir.
fn decisions_log(env: &TestEnv) -> std::path::PathBuf {
    env.state().join("repos/acme/rivet/decisions.jsonl")
}

#[test]
fn a_runaway_finding_keeps_the_decisions_log_small_and_a_torn_record_of_any_size_is_dropped() {
    let env = TestEnv::new();
    // 1.7 MB of distinct words in one finding's message, as a runaway model writes it.
    let huge: String = (0..200_000).map(|i| format!("w{i}ord ")).collect();
    let fixture = support::demo_with(&env, |v| {
        let reply = json!({"findings": [{"severity": "important", "file": "src/client/retry.rs",
            "line": 3, "message": format!("Runaway {huge}")}]});
        v["llm"]["answers"][0]["reply"] = json!(reply.to_string());
    });
    let f = fixture.display().to_string();
    let run = |args: &[&str]| -> Output {
        let o = env.bin().args(args).output().unwrap();
        assert!(
            matches!(o.status.code(), Some(0 | 3)),
            "{args:?}: {}",
            all_output(&o).chars().take(2000).collect::<String>()
        );
        o
    };
    let doc = json_of(&run(&["review", &f, "--format", "json"]));
    let ids: Vec<String> = doc["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x["id"].as_str().map(str::to_owned))
        .collect();
    let runaway = doc["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|x| {
            x["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("Runaway"))
        })
        .and_then(|x| x["id"].as_str())
        .unwrap_or_else(|| panic!("no runaway finding"))
        .to_owned();
    run(&["finding", "dismiss", &f, &runaway, "--reason", "noise"]);
    // What the record keeps is bounded, and says it was cut.
    let log = decisions_log(&env);
    let text = std::fs::read_to_string(&log).unwrap();
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 64 * 1024, "a record of {longest} bytes");
    let dismissed: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|d| d["kind"] == "dismissed")
        .unwrap();
    assert_eq!(dismissed["cut"], json!(["message", "terms"]), "{dismissed}");

    // A writer killed in the middle of a record as large as one was before the bound (3.4 MB,
    // no newline within the last MiB): the next run's append drops it, reading goes on.
    let torn = format!(
        "{{\"at\":1,\"pr\":482,\"finding\":\"{runaway}\",\"aspect\":\"correctness\",\"kind\":\"dismissed\",\"message\":\"{}",
        "w".repeat(3_400_000)
    );
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, torn.as_bytes()).unwrap();
    drop(file);
    run(&["stats", "acme/rivet", "--format", "json"]);
    run(&["review", &f, "--format", "json"]);
    run(&["stats", "acme/rivet", "--format", "json"]);
    run(&["review", &f]);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("wwwwwwww"), "the torn record is gone");
    assert!(text.ends_with('\n'));

    // A writer killed after a whole record, before its newline: the record is kept, ended.
    let whole = format!(
        "{{\"at\":2,\"pr\":482,\"finding\":\"{}\",\"aspect\":\"security\",\"kind\":\"dismissed\",\"by\":\"maintainer\",\"reason\":\"WHOLE-BUT-UNENDED\"}}",
        ids.iter().find(|i| **i != runaway).unwrap()
    );
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, whole.as_bytes()).unwrap();
    drop(file);
    run(&["review", &f, "--format", "json"]);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.lines().any(|l| l == whole),
        "the whole record was dropped or glued"
    );
    let stats = json_of(&run(&["stats", "acme/rivet", "--format", "json"]));
    assert!(stats.to_string().contains("dismissed"), "{stats}");
}

// ---- terminal-safe output of every format ----------------------------------------------------

/// Puts `evil` into every string a fixture's reader shows: the title, body, labels and author,
/// every item's body, author, URL and path, minimized reasons, the recorded findings' messages,
/// the changed files' patches (every step's) and a file named with it, and the checks' names,
/// URLs, annotations and log tails.
fn poison(v: &mut Value, evil: &str) {
    // A patch holds one line per line: a raw line break in it would be another line.
    let line_evil = evil.replace(['\n', '\r'], " ");
    let in_patch = |p: &mut Value| {
        if let Some(text) = p.as_str() {
            *p = json!(text.replace("retry", &format!("retry{line_evil}")));
        }
    };
    v["pr"]["title"] = json!(format!("Title {evil}"));
    v["pr"]["body"] = json!(format!("Body {evil}\nline two {evil}"));
    v["pr"]["labels"] = json!([format!("label{evil}")]);
    v["pr"]["author"]["login"] = json!(format!("author{evil}"));
    v["pr"]["headRef"] = json!(format!("topic{evil}"));
    if let Some(files) = v["pr"]["files"].as_array_mut() {
        for f in files.iter_mut() {
            in_patch(&mut f["patch"]);
        }
        files.push(
            json!({"path": format!("docs/{line_evil}.md"), "status": "added",
            "additions": 1, "deletions": 0, "patch": format!("@@ -0,0 +1 @@\n+{line_evil}")}),
        );
    }
    if let Some(steps) = v["steps"].as_array_mut() {
        for step in steps {
            let changes = step.get_mut("changes").and_then(Value::as_array_mut);
            for change in changes.into_iter().flatten() {
                let patches = change.get_mut("patches").and_then(Value::as_array_mut);
                for p in patches.into_iter().flatten() {
                    in_patch(&mut p["patch"]);
                }
            }
        }
    }
    if let Some(runs) = v["dashboard"]["checkRuns"].as_array_mut() {
        for r in runs {
            r["name"] = json!(format!("{}{evil}", r["name"].as_str().unwrap_or_default()));
            if r.get("logTail").is_some() {
                r["logTail"] = json!(format!("step {evil}\nerror: {evil}"));
            }
            let annotations = r.get_mut("annotations").and_then(Value::as_array_mut);
            for a in annotations.into_iter().flatten() {
                a["message"] = json!(format!("failed {evil}"));
                a["title"] = json!(format!("title{evil}"));
                a["path"] = json!(format!("src/{line_evil}.rs"));
            }
        }
    }
    let poison_comment = |c: &mut Value, evil: &str| {
        c["body"] = json!(format!("said {evil}"));
        c["author"]["login"] = json!(format!("login{evil}"));
        c["url"] = json!(format!("https://github.com/acme/rivet/pull/482#{evil}"));
        c["minimized"] = json!(true);
        c["minimizedReason"] = json!(format!("spam{evil}"));
    };
    if let Some(items) = v["items"].as_array_mut() {
        for item in items {
            if let Some(comments) = item["comments"].as_array_mut() {
                for c in comments {
                    poison_comment(c, evil);
                }
                item["path"] = json!(format!("src/{evil}.rs"));
            } else {
                poison_comment(item, evil);
            }
        }
    }
    if let Some(answers) = v["llm"]["answers"].as_array_mut() {
        for a in answers {
            let reply = json!({"findings": [{"severity": "important", "file": "src/client/retry.rs",
                "line": 3, "message": format!("Finding {evil}"), "suggestedFix": format!("Fix {evil}")}]});
            a["reply"] = json!(reply.to_string());
        }
    }
}

/// The first raw hazard in `text`, if any.
fn first_hazard(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|(_, c)| is_hazard(*c))
}

/// Every subcommand that takes `--format md|json`, as its words (`thread reply`), read from the
/// command line's definition: a new one fails the test below until it is run there.
fn formatted_subcommands() -> std::collections::BTreeSet<String> {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, out: &mut std::collections::BTreeSet<String>) {
        for sub in cmd.get_subcommands() {
            let here = format!(
                "{path}{}{}",
                if path.is_empty() { "" } else { " " },
                sub.get_name()
            );
            if sub.get_arguments().any(|a| a.get_id() == "format") {
                out.insert(here.clone());
            }
            walk(sub, &here, out);
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(&pr_shepherd::cli::Cli::command(), "", &mut out);
    // `checkout` needs a git repository holding the PR's head at refs/pull/N/head, which no
    // poisoned fixture's made-up head is; its output is checked against a real one in
    // `cli::decide`.
    out.remove("checkout");
    out
}

/// Every output of every format on the poisoned fixture — every subcommand with `--format`, in
/// Markdown and in JSON, `diff --since-last-look` too — carries no raw hazard on stdout, and the
/// JSON ones still hold the very same text.
fn assert_every_output_is_terminal_safe(evil: &str) {
    let env = TestEnv::new();
    let fixture = support::demo_with(&env, |v| poison(v, evil));
    let f = fixture.display().to_string();
    let dir = env.root().join("inbox");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&fixture, dir.join("pr.json")).unwrap();
    let d = dir.display().to_string();
    // A command-line argument cannot hold NUL.
    let arg_evil = evil.replace('\0', "");
    let thread_id = {
        let v: Value = serde_json::from_slice(&std::fs::read(&fixture).unwrap()).unwrap();
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["kind"] == "thread")
            .and_then(|i| i["id"].as_str())
            .unwrap()
            .to_owned()
    };
    let event = env.root().join("event.json");
    std::fs::write(
        &event,
        json!({"action": format!("unknown-action{evil}"), "number": 482,
               "repository": {"full_name": "acme/rivet", "name": "rivet", "owner": {"login": "acme"}},
               "pull_request": {"number": 482, "title": evil, "body": evil}})
        .to_string(),
    )
    .unwrap();
    let event = event.display().to_string();
    let reason = format!("intended {arg_evil}");
    let body = format!("nit {arg_evil}");
    let covered = std::cell::RefCell::new(std::collections::BTreeSet::new());
    // Runs `args` (whose first `words` are the subcommand), checks its stdout, returns it.
    let run = |words: usize, args: &[&str]| -> String {
        let o = env.bin().args(args).output().unwrap();
        let out = stdout(&o);
        assert!(
            o.status.success() || o.status.code() == Some(3),
            "{args:?}: {}",
            all_output(&o)
        );
        if let Some((at, c)) = first_hazard(&out) {
            let before: Vec<char> = out[..at].chars().rev().take(60).collect();
            let around: String = before
                .into_iter()
                .rev()
                .chain(out[at..].chars().take(20))
                .collect();
            panic!(
                "{args:?} printed U+{:04X} raw at byte {at}: {around:?}",
                c as u32
            );
        }
        let json = args.windows(2).any(|w| w == ["--format", "json"]);
        if json && !out.is_empty() {
            let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            if args[0] == "items" {
                assert_eq!(
                    doc["pr"]["title"],
                    json!(format!("Title {evil}")),
                    "the same text"
                );
            }
        }
        covered
            .borrow_mut()
            .insert((args[..words].join(" "), if json { "json" } else { "md" }));
        out
    };
    run(1, &["items", &f, "--peek"]);
    run(1, &["items", &f, "--format", "json"]);
    run(1, &["items", &f, "--all"]);
    run(2, &["state", "show", &f]);
    run(2, &["state", "show", &f, "--format", "json"]);
    run(1, &["inbox", &d]);
    run(1, &["inbox", &d, "--format", "json"]);
    run(1, &["files", &f]);
    run(1, &["files", &f, "--format", "json"]);
    run(1, &["checks", &f]);
    run(1, &["checks", &f, "--format", "json"]);
    run(1, &["diff", &f]);
    run(1, &["diff", &f, "--format", "json"]);
    // The push of step 2 changes the patch the diffs above showed: an interdiff.
    run(1, &["diff", &f, "--step", "2", "--since-last-look"]);
    run(
        1,
        &[
            "diff",
            &f,
            "--step",
            "2",
            "--since-last-look",
            "--format",
            "json",
        ],
    );
    // The decisions, each in both formats (offline: into the action outbox).
    for format in ["md", "json"] {
        let fmt = ["--format", format];
        run(
            1,
            &[&["merge", &f, "--match-head", "any", "--dry-run"][..], &fmt].concat(),
        );
        run(
            1,
            &[
                &["merge", &f, "--match-head", "any", "--yes", "--past-unseen"][..],
                &fmt,
            ]
            .concat(),
        );
        for state in [
            "close",
            "reopen",
            "ready",
            "draft",
            "auto-merge-off",
            "dequeue",
        ] {
            run(2, &[&["pr", state, &f][..], &fmt].concat());
        }
        run(2, &[&["label", "add", &f, "bug"][..], &fmt].concat());
        run(2, &[&["label", "remove", &f, "bug"][..], &fmt].concat());
        run(1, &[&["assign", &f, "mia"][..], &fmt].concat());
        run(1, &[&["request-review", &f, "mia"][..], &fmt].concat());
        run(
            1,
            &[&["update-branch", &f, "--match-head", "any"][..], &fmt].concat(),
        );
    }
    run(2, &["thread", "reply", &f, &thread_id, "--body", "Thanks."]);
    run(
        2,
        &[
            "thread", "reply", &f, &thread_id, "--body", "Thanks.", "--format", "json",
        ],
    );
    run(2, &["thread", "resolve", &f, &thread_id]);
    run(2, &["thread", "unresolve", &f, &thread_id]);
    run(
        2,
        &["thread", "resolve", &f, &thread_id, "--format", "json"],
    );
    run(
        2,
        &["thread", "unresolve", &f, &thread_id, "--format", "json"],
    );
    run(1, &["review", &f]);
    let doc: Value = serde_json::from_str(&run(1, &["review", &f, "--format", "json"])).unwrap();
    let ids: Vec<String> = doc["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x["id"].as_str().map(str::to_owned))
        .collect();
    assert!(ids.len() >= 2, "{doc:#}");
    run(
        2,
        &[
            "finding", "dismiss", &f, &ids[0], "--reason", &reason, "--repo",
        ],
    );
    run(
        2,
        &[
            "finding", "dismiss", &f, &ids[1], "--reason", &reason, "--repo", "--format", "json",
        ],
    );
    run(2, &["lessons", "list", "acme/rivet"]);
    run(2, &["lessons", "list", "acme/rivet", "--format", "json"]);
    run(1, &["stats", "acme/rivet"]);
    run(1, &["stats", "acme/rivet", "--format", "json"]);
    for format in ["md", "json"] {
        let add = [
            "pending",
            "add",
            &f,
            "--path",
            "src/client/retry.rs",
            "--line",
            "3",
        ];
        run(2, &[&add[..], &["--body", &body]].concat());
        run(2, &["pending", "list", &f, "--format", format]);
        run(
            2,
            &[
                "pending", "submit", &f, "--event", "comment", "--body", &body, "--format", format,
            ],
        );
        run(
            1,
            &[
                "event",
                "--event-name",
                "pull_request",
                "--event-path",
                &event,
                "--format",
                format,
            ],
        );
    }
    // Every subcommand with --format ran in both formats.
    let want: std::collections::BTreeSet<(String, &str)> = formatted_subcommands()
        .into_iter()
        .flat_map(|c| [(c.clone(), "md"), (c, "json")])
        .collect();
    let covered = covered.into_inner();
    let missing: Vec<_> = want.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "not run on the hostile fixture: {missing:?}"
    );
}

#[test]
fn a_terminal_escape_in_every_field_reaches_no_output_raw() {
    // OSC 52 (clipboard), the alternate screen, CSI as C1, bidi overrides and isolates,
    // zero-width characters, a tag character, DEL.
    assert_every_output_is_terminal_safe(
        "\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[?1049h\u{9b}2J\u{202e}txt.exe\u{2066}\u{200b}\u{200d}\u{feff}\u{e0041}\u{7f}\u{85}",
    );
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 4,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]

    /// Whatever mix of controls, bidi, zero-width and ordinary characters the fields hold, no
    /// output of any format carries one raw.
    #[test]
    fn no_output_of_any_format_carries_a_raw_hazard(
        evil in "([\u{0}-\u{1f}\u{7f}-\u{9f}\u{200b}-\u{200f}\u{202a}-\u{202e}\u{2066}-\u{2069}\u{feff}\u{e0000}-\u{e007f}]|[a-z`*_<>])*"
    ) {
        assert_every_output_is_terminal_safe(&evil);
    }
}
