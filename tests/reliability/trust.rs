//! Nothing forged, nothing duplicated, nothing lost — with real processes of the binary against
//! the loopback GitHub (`support::fake_github`, with a slow comment listing and a held reply
//! answer) and the demo fixture:
//!
//! - concurrent `review --post` runs leave one Shepherd comment, whether they share a state dir
//!   (they take turns on the PR's lock) or not (a second comment made at the same time is
//!   removed again); the console's post, through the client it holds, takes the same lock;
//! - a `thread reply` killed after its request reached GitHub, run again, leaves one reply;
//! - concurrent offline `thread reply` runs keep every entry, and `state show` lists them; an
//!   outbox in the format earlier releases wrote is still read and appended to;
//! - only the team and the `[review] agent_logins` accounts mark a finding addressed, and the
//!   review says who did.

use crate::support;

use std::process::Output;
use std::time::Duration;

use pr_shepherd::ledger::Ledger;
use serde_json::{Value, json};
use support::env::TestEnv;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref};
use support::llm::StandInLlm;
use support::{Live, all_output, demo_coords, stderr, stdout, stdout_json};

const TOKEN: &str = "ghp_ForgedLoopbackToken0123456789abcdef";

/// How long the fake takes to list a PR's comments: long enough that runs started together all
/// look before any of them has created anything.
const SLOW_LISTING: Duration = Duration::from_secs(1);

/// How long the fake holds back the answer to a reply it has stored: longer than the test takes
/// to kill the waiting client.
const HELD_ANSWER: Duration = Duration::from_secs(120);

/// How often, and how many times at most, a test looks for what a running process did.
const POLL: Duration = Duration::from_millis(50);
const POLLS: usize = 1200;

fn review_post(
    env: &TestEnv,
    gh: &wiremock::MockServer,
    llm: &StandInLlm,
) -> impl Future<Output = Output> {
    let args = ["review", &pr_ref(NUMBER), "--post", "--format", "json"].map(str::to_owned);
    let (env_vars, uri, llm_args) = (env.vars(), gh.uri(), llm.args());
    let mut c = tokio::process::Command::new(support::env::BIN);
    c.env_clear()
        .envs(env_vars)
        .env("GH_TOKEN", TOKEN)
        .env("GITHUB_API_URL", uri)
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args(args)
        .args(llm_args)
        .kill_on_drop(true);
    async move { c.output().await.expect("run pr-shepherd") }
}

/// `state show TARGET` (`--format json` when `json`), which must exit 0.
fn state_show(env: &TestEnv, target: &str, json: bool) -> Output {
    let mut c = env.bin();
    c.args(["state", "show", target]);
    if json {
        c.args(["--format", "json"]);
    }
    let o = c.output().expect("state show");
    assert_eq!(o.status.code(), Some(0), "{}", all_output(&o));
    o
}

fn count(fake: &FakeGitHub, kind: &str) -> usize {
    fake.seen().iter().filter(|s| s.kind == kind).count()
}

/// The posted actions and comment ids of `outs`, each of which must have exited 0.
fn posted(outs: &[Output]) -> (Vec<String>, Vec<String>) {
    outs.iter()
        .map(|o| {
            assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
            let v = stdout_json(o);
            (
                v["posted"]["action"].as_str().unwrap_or("").to_owned(),
                v["posted"]["commentId"].as_str().unwrap_or("").to_owned(),
            )
        })
        .unzip()
}

/// Failed before: three runs listed the comments at once, each found none and each created one,
/// leaving three Shepherd comments (later runs update only the newest, so the others stayed).
#[tokio::test]
async fn three_concurrent_posts_leave_one_shepherd_comment() {
    let live = Live::start(FakePr::with_labels(&[])).await;
    *live.fake.state.list_delay.lock().unwrap() = Some(SLOW_LISTING);
    let runs = (0..3).map(|_| review_post(&live.env, &live.gh, &live.llm));
    let outs = futures::future::join_all(runs).await;
    let (mut actions, ids) = posted(&outs);
    let own = live.fake.own_reviews();
    assert_eq!(own.len(), 1, "one Shepherd comment: {own:?}");
    actions.sort();
    assert_eq!(actions, ["created", "updated", "updated"]);
    let one = own[0].0.to_string();
    assert!(ids.iter().all(|id| *id == one), "{ids:?} vs {one}");
    // They took turns on the PR's lock: the later ones looked after the first had created it,
    // so no second comment was ever made.
    assert_eq!(count(&live.fake, "create-comment"), 1);
    assert_eq!(count(&live.fake, "delete-comment"), 0);
}

/// Failed before (three comments): runs that share no state dir (other machines) cannot take
/// turns; each looks again after creating, and the newer comments give way to the oldest.
#[tokio::test]
async fn concurrent_posts_without_a_shared_state_dir_still_leave_one_comment() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(vec![support::llm::magic_number()]).await;
    *fake.state.list_delay.lock().unwrap() = Some(SLOW_LISTING);
    let envs = [TestEnv::new(), TestEnv::new(), TestEnv::new()];
    let outs = futures::future::join_all(envs.iter().map(|e| review_post(e, &gh, &llm))).await;
    let (_, ids) = posted(&outs);
    let own = fake.own_reviews();
    assert_eq!(own.len(), 1, "one Shepherd comment: {own:?}");
    let one = own[0].0.to_string();
    assert!(ids.iter().all(|id| *id == one), "{ids:?} vs {one}");
    let (made, removed) = (
        count(&fake, "create-comment"),
        count(&fake, "delete-comment"),
    );
    assert_eq!(made - removed, 1, "{made} made, {removed} removed");
    // Only ever this account's own, freshly made comments were removed.
    assert!(
        fake.seen()
            .iter()
            .filter(|s| s.kind == "delete-comment")
            .all(|s| {
                s.path
                    .rsplit('/')
                    .next()
                    .is_some_and(|db| db != one && db.parse::<u64>().is_ok())
            })
    );
}

const THREAD: &str = "PRRT_kwDOA00001";

fn thread_reply(env: &TestEnv, gh: &wiremock::MockServer, body: &str) -> tokio::process::Command {
    let mut c = env.bin_async();
    c.env("GH_TOKEN", TOKEN)
        .args(["--api-url", &gh.uri()])
        .args(["thread", "reply", &pr_ref(NUMBER), THREAD, "--body", body])
        .args(["--format", "json"])
        .kill_on_drop(true);
    c
}

/// Failed before: the second run did not know the first had sent the reply, and sent it again
/// (two identical replies).
#[tokio::test]
async fn a_reply_killed_before_its_answer_is_not_sent_again() {
    let (gh, fake) = FakeGitHub::start(FakePr::generate(3, 2, 1, 1, 1)).await;
    let env = TestEnv::new();
    let body = "Fixed in the next push.";
    *fake.state.reply_hold.lock().unwrap() = Some(HELD_ANSWER);
    let mut first = thread_reply(&env, &gh, body).spawn().expect("spawn");
    let mut arrived = false;
    for _ in 0..POLLS {
        if !fake.thread_replies(THREAD).is_empty() {
            arrived = true;
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    assert!(arrived, "the reply never reached the fake");
    // GitHub has stored it; its answer is held. The process dies now.
    first.kill().await.expect("kill");
    *fake.state.reply_hold.lock().unwrap() = None;

    let again = thread_reply(&env, &gh, body).output().await.expect("run");
    assert_eq!(again.status.code(), Some(0), "{}", all_output(&again));
    let replies = fake.thread_replies(THREAD);
    assert_eq!(replies.len(), 1, "one reply: {replies:?}");
    assert_eq!(count(&fake, "reply"), 1, "the mutation went out once");
    let v = stdout_json(&again);
    assert_eq!(v["commentId"], Value::String(replies[0].id.clone()));
    assert_eq!(v["postedEarlier"], true);
    assert_eq!(v["attempts"], 0);
    // Nothing is left pending, and a new reply with the same words later is a new reply.
    let state = state_show(&env, &pr_ref(NUMBER), true);
    assert_eq!(stdout_json(&state)["replyIntents"], json!([]));
    let later = thread_reply(&env, &gh, body).output().await.expect("run");
    assert_eq!(later.status.code(), Some(0), "{}", all_output(&later));
    assert_eq!(fake.thread_replies(THREAD).len(), 2);
}

/// A reply whose answer was lost and whose run then stopped is settled by the next run: it
/// looks, does not find it (the request never got through), and sends it.
#[tokio::test]
async fn a_reply_that_never_arrived_is_sent_by_the_next_run() {
    let (gh, fake) = FakeGitHub::start(FakePr::generate(3, 2, 1, 1, 1)).await;
    let env = TestEnv::new();
    // Every reply request fails before GitHub stores anything.
    fake.set_fault(Box::new(|_, s| {
        (s.kind == "reply")
            .then(|| wiremock::ResponseTemplate::new(502).set_body_json(json!({"message": "x"})))
    }));
    let failed = thread_reply(&env, &gh, "Done.")
        .output()
        .await
        .expect("run");
    assert_eq!(failed.status.code(), Some(1), "{}", all_output(&failed));
    let state = state_show(&env, &pr_ref(NUMBER), false);
    assert!(
        stdout(&state).contains("1 live reply(ies) whose outcome is not known"),
        "{}",
        stdout(&state)
    );
    fake.set_fault(Box::new(|_, _| None));
    let again = thread_reply(&env, &gh, "Done.")
        .output()
        .await
        .expect("run");
    let v = stdout_json(&again);
    assert_eq!(v["postedEarlier"], false);
    assert_eq!(fake.thread_replies(THREAD).len(), 1);
}

fn demo_path() -> String {
    format!("{}/assets/fixtures/demo.json", env!("CARGO_MANIFEST_DIR"))
}

const JITTER: &str = "PRRT_kwDOKq3xZs5hQ1bB";

/// Failed before: each run read the outbox, added its entry and wrote it back, so runs at the
/// same time overwrote each other's entries (each said "written to the outbox" and exited 0).
#[tokio::test]
async fn eight_concurrent_offline_replies_are_all_kept_and_listed() {
    let env = TestEnv::new();
    let demo = demo_path();
    let bodies: Vec<String> = (1..=8).map(|i| format!("Reply number {i}.")).collect();
    let runs = bodies.iter().map(|b| {
        let mut c = env.bin_async();
        c.args(["thread", "reply", &demo, JITTER, "--body", b]);
        async move { c.output().await.expect("run") }
    });
    for o in futures::future::join_all(runs).await {
        assert_eq!(o.status.code(), Some(0), "{}", all_output(&o));
        assert!(
            stdout(&o).contains("written to the outbox"),
            "{}",
            stdout(&o)
        );
    }
    let kept = Ledger::new(env.state())
        .thread_outbox(&demo_coords())
        .expect("outbox")
        .actions;
    let mut got: Vec<&str> = kept.iter().filter_map(|a| a.body.as_deref()).collect();
    got.sort();
    assert_eq!(
        got,
        bodies.iter().map(String::as_str).collect::<Vec<_>>(),
        "{kept:?}"
    );
    let mut ids: Vec<&str> = kept.iter().map(|a| a.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 8, "each entry its own id");

    let shown = state_show(&env, &demo, true);
    let listed = stdout_json(&shown)["threadOutbox"].clone();
    assert_eq!(listed.as_array().map(Vec::len), Some(8), "{listed:#}");
    assert!(
        listed
            .as_array()
            .into_iter()
            .flatten()
            .all(|a| a["threadId"] == JITTER)
    );
    let md = state_show(&env, &demo, false);
    let md = stdout(&md);
    assert!(
        md.contains("8 offline thread actions in the outbox"),
        "{md}"
    );
    for b in &bodies {
        assert!(md.contains(b.as_str()), "{b} not listed: {md}");
    }
}

/// An outbox written by the release before the lock (its exact bytes) is read, listed and
/// appended to, its entries kept in order.
#[test]
fn a_thread_outbox_from_the_earlier_release_is_still_read() {
    let env = TestEnv::new();
    let ledger = Ledger::new(env.state());
    let path = ledger
        .thread_outbox_path(&demo_coords())
        .expect("the outbox's place");
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder");
    std::fs::write(
        &path,
        format!(
            "{{\n  \"actions\": [\n    {{\n      \"id\": \"outbox-thread-1\",\n      \"kind\": \"reply\",\n      \"threadId\": \"{JITTER}\",\n      \"body\": \"Written by the earlier release.\",\n      \"at\": 1764500000\n    }},\n    {{\n      \"id\": \"outbox-thread-2\",\n      \"kind\": \"resolve\",\n      \"threadId\": \"{JITTER}\",\n      \"at\": 1764500060\n    }}\n  ]\n}}"
        ),
    )
    .expect("write");
    let demo = demo_path();
    let o = env
        .bin()
        .args(["thread", "unresolve", &demo, JITTER])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", all_output(&o));
    let shown = state_show(&env, &demo, true);
    let listed = stdout_json(&shown)["threadOutbox"].clone();
    let summary: Vec<(&str, &str)> = listed
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            (
                a["id"].as_str().unwrap_or(""),
                a["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("outbox-thread-1", "reply"),
            ("outbox-thread-2", "resolve"),
            ("outbox-thread-3", "unresolve")
        ]
    );
    assert_eq!(listed[0]["body"], "Written by the earlier release.");
}

/// The finding the stand-in LLM reports, and its id as the first review posted it.
async fn first_review(env: &TestEnv, gh: &wiremock::MockServer, llm: &StandInLlm) -> String {
    let out = review_post(env, gh, llm).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = stdout_json(&out);
    v["findings"][0]["id"]
        .as_str()
        .expect("a finding id")
        .to_owned()
}

/// Failed before: a drive-by account's marker reply (association NONE) marked the finding
/// addressed, and so did one hidden in a quote; it stayed "treated as addressed" from then on.
#[tokio::test]
async fn only_trusted_authors_mark_a_finding_addressed_and_the_review_says_who() {
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let llm = StandInLlm::answering(vec![support::llm::magic_number()]).await;
    let agent = "copilot-swe-agent[bot]";
    // The earlier reviews are read from the PR itself: any state dir and config see them.
    let env = TestEnv::new();
    let id = first_review(&env, &gh, &llm).await;
    let marker = |text: &str| format!("{text}\n\n— AI Coding Agent");
    let at = "2030-01-01T00:00:00Z";
    fake.add_comment("mallory", "NONE", &marker(&format!("Fixed {id}.")), at);
    fake.add_comment(
        "dependabot[bot]",
        "NONE",
        &marker(&format!("Fixed {id}.")),
        at,
    );
    fake.add_comment(
        "maya",
        "MEMBER",
        &format!("> Fixed {id}.\n>\n> — AI Coding Agent\n\nDid it, though?"),
        at,
    );
    fake.add_comment(
        "maya",
        "MEMBER",
        &format!("```\nFixed {id}.\n— AI Coding Agent\n```"),
        at,
    );
    let out = review_post(&env, &gh, &llm).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = stdout_json(&out);
    assert_eq!(v["mode"], "incremental");
    assert_eq!(v["counts"]["addressed"], 0, "{:#}", v["addressed"]);
    assert_eq!(v["counts"]["unchanged"], 6);

    // The agent's own reply counts once `[review] agent_logins` names it, and the review says
    // it was the agent.
    fake.add_comment(
        agent,
        "NONE",
        &marker(&format!("Fixed {id} by naming it.")),
        at,
    );
    let out = review_post(&env, &gh, &llm).await;
    assert_eq!(
        stdout_json(&out)["counts"]["addressed"],
        0,
        "not listed yet"
    );
    let env = TestEnv::with_config(format!("[review]\nagent_logins = [\"{agent}\"]\n"));
    let out = review_post(&env, &gh, &llm).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = stdout_json(&out);
    assert_eq!(v["counts"]["addressed"], 1, "{:#}", v["addressed"]);
    let by = &v["addressed"][0]["by"];
    assert_eq!(
        (by["by"].as_str(), by["author"].as_str()),
        (Some("reply"), Some(agent))
    );
    assert_eq!(by["trust"], "agent");
    let body = v["body"].as_str().unwrap_or("");
    assert!(
        body.contains(&format!(
            "a reply by `{agent}` (agent login) marked as addressing it"
        )),
        "{body}"
    );
    // The posted comment says so too.
    let posted = fake.own_reviews();
    assert_eq!(posted.len(), 1);
    assert!(
        posted[0].1.contains(&format!("`{agent}` (agent login)")),
        "{}",
        posted[0].1
    );
}

/// The console posts through `publish::upsert` with a `GitHubComments` store it builds itself
/// from the client `commands::live::client` made: the client's state dir is where that post
/// takes the PR's lock, so a console post waits its turn like `review --post` does.
#[tokio::test]
async fn a_post_through_the_client_the_console_holds_takes_the_prs_lock() {
    use pr_shepherd::ledger::Lock;
    use pr_shepherd::publish::{GitHubComments, PostError, upsert_within};
    let (gh, fake) = FakeGitHub::start(FakePr::with_labels(&[])).await;
    let env = TestEnv::new();
    let client = support::github_client::loopback_github(&gh.uri(), TOKEN, Default::default())
        .expect("client")
        .with_state_dir(env.state());
    let pr = pr_shepherd::pr::PrCoords {
        host: None,
        owner: support::fake_github::OWNER.into(),
        repo: support::fake_github::REPO.into(),
        number: NUMBER,
    };
    let store = GitHubComments {
        gh: &client,
        pr: pr.clone(),
        own_login: "monalisa".into(),
    };
    let body = "## PR Shepherd Review\n\nfrom the console";
    let held = Ledger::new(env.state())
        .lock(&pr, Lock::Post, Duration::ZERO)
        .expect("free");
    let busy = upsert_within(&store, body, 1, Duration::from_millis(50)).await;
    assert!(
        matches!(&busy, Err(PostError::Ledger(_))) && format!("{busy:?}").contains("Busy"),
        "{busy:?}"
    );
    assert_eq!(
        fake.requests(),
        0,
        "nothing looked at while another run posts"
    );
    drop(held);
    let posted = upsert_within(&store, body, 1, Duration::ZERO)
        .await
        .expect("posted");
    assert_eq!(fake.own_reviews().len(), 1);
    assert_eq!(posted.comment_id, fake.own_reviews()[0].0.to_string());
}
