//! `pr-shepherd review` end to end: the bundled demo on recorded answers, the JSON document,
//! exit code 3, the ledger run file, and the openai backend against a loopback server.

use crate::support;

use std::process::Output;

use support::env::TestEnv;
use support::llm::StandInLlm;
use support::{stderr, stdout};

async fn review(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Output {
    env.bin_async()
        .arg("review")
        .args(args)
        .envs(vars.iter().copied())
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn demo_review_replays_recorded_answers() {
    let env = TestEnv::new();
    let out = review(&env, &[], &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.starts_with("## PR Shepherd Review\n"));
    assert!(md.contains("**Mode:** full review"));
    for title in [
        "### Correctness",
        "### Conventions",
        "### Security",
        "### Performance",
        "### Tests",
        "### Architecture",
    ] {
        assert!(md.contains(title), "{title}");
    }
    assert!(md.contains("dangerouslySetInnerHTML"));
    assert!(md.contains("| Correctness | done |"));
    // The run is in the ledger.
    let runs: Vec<_> = std::fs::read_dir(support::demo_dir(&env.state()).join("runs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(runs.len(), 1);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(runs[0].path()).unwrap()).unwrap();
    assert_eq!(record["format"], "pr-shepherd/run@1");
    assert_eq!(record["aspects"].as_array().unwrap().len(), 6);
    assert_eq!(record["aspects"][0]["inputTokens"], 4812);
}

#[tokio::test]
async fn json_output_has_the_documented_shape() {
    let env = TestEnv::new();
    let out = review(&env, &["--format", "json"], &[]).await;
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let aspects = v["aspects"].as_array().unwrap();
    assert_eq!(aspects.len(), 6);
    for a in aspects {
        assert_eq!(a["state"], "done");
        assert!(a.get("error").is_some() && a["findings"].is_array());
    }
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 18);
    assert_eq!(findings[0]["severity"], "critical");
    for f in findings {
        for key in [
            "id",
            "aspect",
            "severity",
            "file",
            "line",
            "message",
            "suggestedFix",
        ] {
            assert!(f.get(key).is_some(), "{key}");
        }
        assert!(f["id"].as_str().unwrap().starts_with("PS-"));
    }
    assert!(
        v["body"]
            .as_str()
            .unwrap()
            .starts_with("## PR Shepherd Review")
    );
}

#[tokio::test]
async fn a_re_review_keeps_ids_of_unchanged_findings() {
    let env = TestEnv::new();
    let first: serde_json::Value =
        serde_json::from_str(&stdout(&review(&env, &["--format", "json"], &[]).await)).unwrap();
    let second: serde_json::Value = serde_json::from_str(&stdout(
        &review(&env, &["--format", "json", "--step", "2"], &[]).await,
    ))
    .unwrap();
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (a, b) = (ids(&first), ids(&second));
    let kept = b.iter().filter(|id| a.contains(id)).count();
    assert!(kept >= 14, "most findings carry over: {kept}");
    assert!(
        b.iter().any(|id| !a.contains(id)),
        "step 2 has a new finding"
    );
    assert!(
        a.iter().any(|id| !b.contains(id)),
        "step 2 dropped a finding"
    );
    assert_eq!(
        second["headSha"],
        "9c4e2f7a1b3d5e6f708192a3b4c5d6e7f8091a2b"
    );
    // Step 1 has no recording of its own: the step-0 answers replay and the output says so.
    let step1 = stdout(&review(&env, &["--step", "1"], &[]).await);
    assert!(step1.contains("replayed the answer recorded for step 0"));
}

#[tokio::test]
async fn an_unparseable_answer_prints_the_review_and_exits_3() {
    let env = TestEnv::new();
    let mut fixture: serde_json::Value =
        serde_json::from_str(pr_shepherd::source::DEMO_FIXTURE).unwrap();
    fixture["llm"]["answers"][2]["reply"] = "Sorry, I can't help with that.".into();
    let path = env.root().join("garbled.json");
    std::fs::write(&path, fixture.to_string()).unwrap();
    let out = review(&env, &[path.to_str().unwrap()], &[]).await;
    assert_eq!(out.status.code(), Some(3));
    let md = stdout(&out);
    assert!(md.contains("### Security — failed"));
    assert!(md.contains("**Incomplete review:** security failed"));
    assert!(md.contains("### Correctness\n"));
    assert!(stderr(&out).contains("incomplete"));
    let json = review(&env, &[path.to_str().unwrap(), "--format", "json"], &[]).await;
    assert_eq!(json.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["aspects"][2]["state"], "failed");
    assert_eq!(
        v["aspects"][2]["rawReply"],
        "Sorry, I can't help with that."
    );
}

#[tokio::test]
async fn openai_backend_through_the_cli() {
    let llm = StandInLlm::answering(Vec::new()).await;
    let env = TestEnv::new();
    let url = llm.url();
    let out = review(
        &env,
        &[
            "--llm",
            "openai",
            "--llm-url",
            &url,
            "--model",
            "qwen2.5-coder",
        ],
        &[("OPENAI_API_KEY", "sk-cli-SECRET-0123456789")],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("**Backend:** openai (qwen2.5-coder)"));
    assert_eq!(md.matches("No findings: this aspect ran").count(), 6);
    let requests = llm.requests().await;
    assert_eq!(requests.len(), 6);
    for r in requests {
        let body = String::from_utf8_lossy(&r.body);
        assert!(!body.contains("sk-cli-SECRET"));
        assert!(body.contains("\"model\":\"qwen2.5-coder\""));
        assert_eq!(
            r.headers.get("authorization").unwrap(),
            "Bearer sk-cli-SECRET-0123456789"
        );
    }
}

#[tokio::test]
async fn bad_backend_settings_are_usage_errors() {
    let env = TestEnv::new();
    let out = review(&env, &["--llm", "command"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    let out = review(&env, &["--llm", "anthropic"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("ANTHROPIC_API_KEY"));
    let out = review(&env, &["--concurrency", "0"], &[]).await;
    assert_eq!(out.status.code(), Some(2));
}

/// The offline flow: a first review posted to the outbox, then an incremental review
/// after the rebase reads it back, and a second post updates the same comment.
#[tokio::test]
async fn posted_review_makes_the_next_one_incremental() {
    let env = TestEnv::new();
    let first = review(&env, &["--post", "--format", "json"], &[]).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["mode"], "full");
    assert_eq!(v["posted"]["action"], "created");
    let outbox = support::demo_dir(&env.state()).join("outbox/comment.json");
    let posted: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&outbox).unwrap()).unwrap();
    assert!(
        posted["body"]
            .as_str()
            .unwrap()
            .contains("<!-- pr-shepherd:meta ")
    );

    let second = review(&env, &["--step", "2", "--post", "--format", "json"], &[]).await;
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let v: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(v["mode"], "incremental");
    assert_eq!(v["posted"]["action"], "updated");
    let classes: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["classification"].as_str().unwrap())
        .collect();
    assert!(
        classes.contains(&"new") && classes.contains(&"unchanged"),
        "{classes:?}"
    );
    assert!(v["counts"]["unchanged"].as_u64().unwrap() > 0);
    assert!(!v["notReported"].as_array().unwrap().is_empty());
    let body = v["body"].as_str().unwrap();
    assert!(body.contains("**Mode:** incremental review"));
    let posted: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&outbox).unwrap()).unwrap();
    assert_eq!(posted["revisions"], 2, "one comment, updated");

    // --all ignores the earlier review and says so.
    let full = review(&env, &["--step", "2", "--all"], &[]).await;
    assert!(stdout(&full).contains("**Mode:** full review — requested"));

    // A review that is not posted to a no-shepherd PR says why (exit 1, review still printed).
    let fixture = env.root().join("no.json");
    std::fs::write(
        &fixture,
        pr_shepherd::source::DEMO_FIXTURE.replacen("\"shepherd\"", "\"no-shepherd\"", 1),
    )
    .unwrap();
    let out = review(&env, &[fixture.to_str().unwrap(), "--post"], &[]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("## PR Shepherd Review"));
    assert!(stderr(&out).contains("no-shepherd"));
}

/// The config file's `[review]` table reaches the headless review, from `--config PATH` or
/// from the default place (in the test environment, never the user's); a bad key is an error
/// naming it.
#[tokio::test]
async fn review_reads_the_config_table() {
    let env = TestEnv::new();
    let cfg = env.root().join("elsewhere.toml");
    std::fs::write(
        &cfg,
        "[review]\nskip = { tests = { unless_files_match = [\"*.java\"] } }\n",
    )
    .unwrap();
    let out = review(&env, &["--config", cfg.to_str().unwrap()], &[]).await;
    let md = stdout(&out);
    assert!(md.contains("### Tests — skipped"), "{md}\n{}", stderr(&out));
    // Without --config: the test environment's (empty) config, then the same table written there.
    let out = review(&env, &[], &[]).await;
    assert!(!stdout(&out).contains("### Tests — skipped"));
    std::fs::copy(&cfg, env.config()).unwrap();
    let out = review(&env, &[], &[]).await;
    assert!(
        stdout(&out).contains("### Tests — skipped"),
        "{}",
        stderr(&out)
    );

    std::fs::write(&cfg, "[review]\nconcurency = 3\n").unwrap();
    let out = review(&env, &["--config", cfg.to_str().unwrap()], &[]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("concurency"));
}

/// The LLM options are one set of flags, shared by every command that reviews.
#[test]
fn every_reviewing_command_takes_the_same_llm_flags() {
    let flags = [
        "--llm ",
        "--llm-url",
        "--model",
        "--llm-command",
        "--concurrency",
        "--timeout",
        "--aspect-timeout",
        "--prompts-dir",
        "--reply-marker",
    ];
    let env = TestEnv::new();
    for cmd in ["review", "event", "watch"] {
        let o = env.bin().args([cmd, "--help"]).output().unwrap();
        assert!(o.status.success(), "{cmd}");
        let help = stdout(&o);
        for flag in flags {
            assert!(help.contains(flag), "{cmd} --help lacks {flag}:\n{help}");
        }
        assert!(help.contains("replay"), "{cmd}: the backends are listed");
    }
}

/// `review --timeout 2` against a `command` program that trickles a character every half second
/// forever (in each of the six aspects): the review ends in about two seconds (exit 3, every
/// aspect timed out, naming the overall limit with its seconds), no program is left running,
/// and every call is settled in the spend log.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn review_timeout_ends_trickling_programs_and_leaves_none_running() {
    let env = TestEnv::new();
    let pids = env.root().join("pids");
    let program = crate::support::llm::trickling_program(env.root(), &pids);
    let started = std::time::Instant::now();
    let mut run = env.bin_async();
    run.args(["review", "--llm", "command", "--llm-command", &program])
        .args(["--timeout", "2", "--format", "json"])
        .kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(30), run.output())
        .await
        .expect("review still running after 30 s")
        .unwrap();
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let aspects = v["aspects"].as_array().expect("aspects");
    assert_eq!(aspects.len(), 6);
    for a in aspects {
        assert_eq!(a["state"], "timed_out", "{a}");
        let e = a["error"].as_str().unwrap_or("");
        assert!(
            e.starts_with("no answer within the overall timeout of 2 seconds (--timeout"),
            "{e}"
        );
    }
    let started: Vec<u32> = std::fs::read_to_string(&pids)
        .expect("the programs ran")
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(started.len(), 6, "{started:?}");
    for _ in 0..100 {
        if started
            .iter()
            .all(|p| !crate::support::llm::process_running(*p))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let left: Vec<&u32> = started
        .iter()
        .filter(|p| crate::support::llm::process_running(**p))
        .collect();
    assert!(left.is_empty(), "still running: {left:?}");
    let spend = std::fs::read_to_string(env.state().join("repos/acme/rivet/spend.jsonl"))
        .unwrap_or_default();
    let calls = spend
        .lines()
        .filter(|l| l.contains(r#""kind":"call""#))
        .count();
    assert_eq!(calls, 6, "{spend}");
}
