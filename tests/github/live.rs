//! The live GitHub source against a loopback GitHub (wiremock) answering in GitHub's shapes.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pr_shepherd::pr::{Item, Origin, PrCoords, ReviewState};
use pr_shepherd::source::github::{
    Credentials, Endpoints, FetchOptions, GitHub, GitHubError, Notice, Secret,
};
use support::fake_github::{FakeGitHub, FakePr, ISSUE_NUMBER, NUMBER, OWNER, REPO};
use support::github_client::loopback_github;
use wiremock::{MockServer, ResponseTemplate};

const TOKEN: &str = "ghp_LoopbackTestToken0123456789abcdef";

fn coords(number: u64) -> PrCoords {
    PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number,
    }
}

fn fast(notices: Option<Arc<Mutex<Vec<Notice>>>>) -> FetchOptions {
    FetchOptions {
        max_attempts: 3,
        backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_rate_limit_wait: Duration::from_secs(2),
        timeout: Duration::from_secs(5),
        deadline: Duration::from_secs(30),
        concurrency: 4,
        notify: notices.map(|n| {
            Arc::new(move |x: &Notice| n.lock().unwrap().push(x.clone()))
                as Arc<dyn Fn(&Notice) + Send + Sync>
        }),
    }
}

fn client(server: &MockServer, opts: FetchOptions) -> GitHub {
    loopback_github(&server.uri(), TOKEN, opts).expect("client")
}

#[tokio::test]
async fn big_pr_arrives_whole_in_five_requests() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(260, 130, 230, 120, 40)).await;
    let gh = client(&server, fast(None));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete(), "{:?}", snap.incomplete);
    assert_eq!(snap.origin, Origin::Live);
    let threads: Vec<_> = snap
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Thread(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(threads.len(), 260);
    let big = threads.iter().find(|t| t.id == "PRRT_kwDOA00007").unwrap();
    assert_eq!(big.comments.len(), 130);
    // In order, no duplicates across the page boundary.
    assert_eq!(big.comments[100].id, "PRRC_kwDOA0007x0100");
    assert_eq!(
        snap.items
            .iter()
            .filter(|i| matches!(i, Item::Comment(_)))
            .count(),
        230
    );
    assert_eq!(
        snap.items
            .iter()
            .filter(|i| matches!(i, Item::Review(_)))
            .count(),
        120
    );
    assert_eq!(snap.pr.files.len(), 40);
    assert_eq!(snap.pr.labels, vec!["shepherd", "bug"]);
    assert_eq!(snap.pr.head_sha, "6dcb09b5b57875f334f61aebed695e2e4193db5e");
    assert_eq!(snap.pr.base_sha, "9fceb02d0ae598e95dc970b74767f19372d61af8");
    // 3 GraphQL pages (threads/comments need 3, reviews 2, combined), 1 nested thread page,
    // 1 REST files page. The issue's budget is 8.
    assert_eq!(fake.requests(), 5, "{:#?}", fake.seen());
    assert_eq!(gh.requests(), 5);
    let kinds: Vec<_> = fake.seen().iter().map(|s| s.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "pr").count(), 3);
    // Every request carried the token.
    assert!(
        fake.seen()
            .iter()
            .all(|s| s.authorization.as_deref() == Some(&format!("Bearer {TOKEN}")))
    );
    // The continuation only asked for what still had pages.
    let third = fake
        .seen()
        .into_iter()
        .filter(|s| s.kind == "pr")
        .nth(2)
        .unwrap();
    assert_eq!(third.variables["withReviews"], false);
    assert_eq!(third.variables["withMeta"], false);
    assert_eq!(third.variables["withThreads"], true);
    assert!(gh.rate_limit().is_some_and(|r| r.limit == Some(5000)));
}

#[tokio::test]
async fn pagination_past_100_at_every_level() {
    let mut pr = FakePr::generate(101, 250, 101, 101, 250);
    pr.labels = (0..120).map(|i| format!("label-{i}")).collect();
    let (server, fake) = FakeGitHub::start(pr).await;
    let gh = client(&server, fast(None));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete(), "{:?}", snap.incomplete);
    assert_eq!(snap.pr.labels.len(), 120);
    assert_eq!(snap.pr.files.len(), 250);
    assert_eq!(snap.pr.files[249].path, "src/mod249.rs");
    assert_eq!(
        snap.pr.files[9].previous_path.as_deref(),
        Some("src/old9.rs")
    );
    assert!(snap.pr.files[0].patch.as_deref().unwrap().starts_with("@@"));
    let big = snap
        .items
        .iter()
        .find(|i| i.id() == "PRRT_kwDOA00007")
        .unwrap();
    match big {
        Item::Thread(t) => {
            assert_eq!(t.comments.len(), 250);
            let mut ids: Vec<_> = t.comments.iter().map(|c| c.id.clone()).collect();
            ids.dedup();
            assert_eq!(ids.len(), 250);
        }
        _ => panic!("not a thread"),
    }
    assert_eq!(snap.items.len(), 101 + 101 + 101);
    // 2 GraphQL pages + 2 nested thread pages + 3 file pages.
    assert_eq!(fake.requests(), 7, "{:#?}", fake.seen());
}

#[tokio::test]
async fn minimized_empty_and_bot_items_are_kept() {
    let (server, _fake) = FakeGitHub::start(FakePr::generate(10, 2, 10, 10, 1)).await;
    let gh = client(&server, fast(None));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    let review = |id: &str| match snap.find(id).unwrap() {
        Item::Review(r) => r.clone(),
        _ => panic!(),
    };
    let r1 = review("PRR_kwDOA00001");
    assert!(r1.minimized);
    assert_eq!(r1.minimized_reason.as_deref(), Some("off_topic"));
    assert_eq!(r1.state, ReviewState::Approved);
    let r0 = review("PRR_kwDOA00000");
    assert_eq!(r0.body, "", "empty-body reviews are listed");
    assert!(!r0.minimized);
    let spam = snap.find("IC_kwDOA00002").unwrap();
    assert_eq!(spam.status().minimized_reason.as_deref(), Some("spam"));
    let thread = snap.find("PRRT_kwDOA00003").unwrap();
    let s = thread.status();
    assert!(s.minimized);
    assert_eq!(s.minimized_reason.as_deref(), Some("outdated"));
    let outdated = snap.find("PRRT_kwDOA00000").unwrap();
    assert!(outdated.status().outdated && outdated.status().resolved);
    match outdated {
        Item::Thread(t) => {
            assert_eq!(t.line, None);
            assert_eq!(t.original_line, Some(10));
            assert!(t.diff_hunk.starts_with("@@"));
        }
        _ => panic!(),
    }
    assert!(
        snap.items
            .iter()
            .any(|i| i.author().is_some_and(|a| a.bot && a.login == "dependabot"))
    );
    assert!(snap.items.iter().any(|i| i.last_edited_at().is_some()));
}

#[tokio::test]
async fn graphql_errors_with_partial_data_are_never_complete() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(5, 2, 5, 5, 1)).await;
    *fake.state.partial_reviews_error.lock().unwrap() = true;
    let notices = Arc::new(Mutex::new(Vec::new()));
    let gh = client(&server, fast(Some(notices.clone())));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(!snap.is_complete());
    let text = snap.incomplete.join("\n");
    assert!(text.contains("Something went wrong"), "{text}");
    assert!(text.contains("repository.pullRequest.reviews"), "{text}");
    assert!(text.contains("reviews"), "{text}");
    assert!(!snap.items.iter().any(|i| matches!(i, Item::Review(_))));
    // The transient-looking error was retried (bounded) before being reported.
    assert_eq!(fake.seen().iter().filter(|s| s.kind == "pr").count(), 3);
    assert!(!notices.lock().unwrap().is_empty());
}

#[tokio::test]
async fn unauthorized_names_the_source_and_never_the_token() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(1, 1, 1, 1, 1)).await;
    fake.set_fault(Box::new(|_, _| {
        Some(ResponseTemplate::new(401).set_body_json(serde_json::json!({
            "message": "Bad credentials",
            "documentation_url": "https://docs.github.com/rest",
            "status": "401"
        })))
    }));
    let gh = client(&server, fast(None));
    let err = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap_err();
    assert!(matches!(err, GitHubError::Unauthorized { .. }), "{err:?}");
    let text = format!("{err} {err:?}");
    assert!(
        text.contains("GH_TOKEN") && text.contains("Bad credentials"),
        "{text}"
    );
    assert!(!text.contains(TOKEN), "the token leaked into the error");
    assert!(!text.contains("LoopbackTestToken"));
    assert!(!err.is_bad_reference());
}

#[tokio::test]
async fn rate_limit_403_waits_visibly_then_succeeds() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(3, 2, 3, 3, 1)).await;
    fake.set_fault(Box::new(|n, seen| {
        (n == 0 || (n == 1 && seen.kind == "pr")).then(|| {
            ResponseTemplate::new(403)
                .insert_header("x-ratelimit-limit", "5000")
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-reset", "1700000000")
                .insert_header("retry-after", "1")
                .set_body_json(serde_json::json!({
                    "message": "API rate limit exceeded for user ID 1.",
                    "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
                }))
        })
    }));
    let notices = Arc::new(Mutex::new(Vec::new()));
    let gh = client(&server, fast(Some(notices.clone())));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete(), "{:?}", snap.incomplete);
    let notices = notices.lock().unwrap();
    assert!(
        notices.iter().any(
            |n| matches!(n, Notice::RateLimited { wait, .. } if *wait == Duration::from_secs(1))
        ),
        "{notices:?}"
    );
    assert!(notices[0].to_string().contains("waiting 1.0s"));
}

#[tokio::test]
async fn rate_limit_beyond_the_bound_fails_with_the_reset_time() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(1, 1, 1, 1, 1)).await;
    fake.set_fault(Box::new(|_, _| {
        Some(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "3600")
                .set_body_json(
                    serde_json::json!({"message": "You have exceeded a secondary rate limit."}),
                ),
        )
    }));
    let gh = client(&server, fast(None));
    let err = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap_err();
    assert!(matches!(err, GitHubError::RateLimited { .. }), "{err:?}");
    assert!(err.to_string().contains("3600s"), "{err}");
}

#[tokio::test]
async fn bad_gateway_then_success() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(3, 2, 3, 3, 1)).await;
    fake.set_fault(Box::new(|n, _| {
        (n < 2).then(|| ResponseTemplate::new(502).set_body_string("<html>502 Bad Gateway</html>"))
    }));
    let notices = Arc::new(Mutex::new(Vec::new()));
    let gh = client(&server, fast(Some(notices.clone())));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete(), "{:?}", snap.incomplete);
    assert_eq!(fake.requests(), 4);
    assert!(
        notices
            .lock()
            .unwrap()
            .iter()
            .any(|n| n.to_string().contains("HTTP 502"))
    );
}

#[tokio::test]
async fn a_timeout_is_retried() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(3, 2, 3, 3, 1)).await;
    fake.set_fault(Box::new(|_, seen| {
        // The first GraphQL request hangs past the timeout.
        (seen.kind == "pr" && seen.variables["withMeta"] == true)
            .then(|| ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
    }));
    let mut opts = fast(None);
    opts.timeout = Duration::from_millis(300);
    let gh = client(&server, opts);
    let err = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap_err();
    assert!(err.to_string().contains("timed out"), "{err}");
    assert!(err.to_string().contains("3 attempts"), "{err}");
}

#[tokio::test]
async fn a_page_that_never_succeeds_marks_the_snapshot_incomplete() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(150, 2, 10, 10, 1)).await;
    fake.set_fault(Box::new(|_, seen| {
        (seen.kind == "pr" && seen.variables["withMeta"] == false)
            .then(|| ResponseTemplate::new(502))
    }));
    let gh = client(&server, fast(None));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(!snap.is_complete());
    let text = snap.incomplete.join("\n");
    assert!(
        text.contains("review threads after the first 100"),
        "{text}"
    );
    assert!(text.contains("HTTP 502 (3 attempts)"), "{text}");
}

#[tokio::test]
async fn not_found_issue_and_repo_are_bad_references() {
    let (server, _fake) = FakeGitHub::start(FakePr::generate(1, 1, 1, 1, 1)).await;
    let gh = client(&server, fast(None));
    let err = gh.fetch_snapshot(&coords(ISSUE_NUMBER)).await.unwrap_err();
    assert!(matches!(err, GitHubError::NotAPullRequest(_)), "{err:?}");
    assert!(err.to_string().contains("is an issue"), "{err}");
    assert!(err.is_bad_reference());
    let err = gh.fetch_snapshot(&coords(999)).await.unwrap_err();
    assert!(
        err.to_string().contains("has no pull request #999"),
        "{err}"
    );
    assert!(err.is_bad_reference());
    let mut c = coords(NUMBER);
    c.repo = "nope".into();
    let err = gh.fetch_snapshot(&c).await.unwrap_err();
    assert!(err.to_string().contains("not found"), "{err}");
    assert!(err.is_bad_reference());
}

#[tokio::test]
async fn enterprise_layout_is_reached() {
    let server = MockServer::start().await;
    let fake = FakeGitHub::new(FakePr::generate(3, 2, 3, 3, 2));
    fake.mount(&server, "/api/v3", "/api/graphql").await;
    let api = format!("{}/api/v3", server.uri());
    let endpoints = Endpoints::resolve(Some(&api), None, Some("ghe.example.com")).unwrap();
    assert_eq!(endpoints.graphql, format!("{}/api/graphql", server.uri()));
    let gh = GitHub::new(
        endpoints,
        Some("ghe.example.com".into()),
        Credentials::Token {
            token: Secret::new(TOKEN),
            source: "GH_TOKEN",
        },
        fast(None),
    )
    .unwrap();
    let mut c = coords(NUMBER);
    c.host = Some("ghe.example.com".into());
    let snap = gh.fetch_snapshot(&c).await.unwrap();
    assert!(snap.is_complete());
    assert_eq!(snap.pr.host.as_deref(), Some("ghe.example.com"));
    let paths: Vec<_> = fake.seen().into_iter().map(|s| s.path).collect();
    assert!(paths.contains(&"/api/graphql".to_owned()), "{paths:?}");
    assert!(
        paths.iter().any(|p| p.starts_with("/api/v3/repos/")),
        "{paths:?}"
    );
}

#[tokio::test]
async fn viewer_login_and_rest_helpers() {
    let (server, _fake) = FakeGitHub::start(FakePr::generate(1, 1, 1, 1, 1)).await;
    let gh = client(&server, fast(None));
    assert_eq!(gh.viewer_login().await.unwrap(), "monalisa");
    let status = gh
        .get_status("/orgs/octo-org/members/monalisa", "membership")
        .await
        .unwrap();
    assert_eq!(status.as_u16(), 404);
}

#[tokio::test]
async fn graphql_rate_limited_error_waits_until_reset() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(3, 2, 3, 3, 1)).await;
    let reset = (chrono::Utc::now().timestamp() + 1).to_string();
    fake.set_fault(Box::new(move |_, seen| {
        (seen.kind == "pr" && fake_first_pr(seen)).then(|| {
            ResponseTemplate::new(200)
                .insert_header("x-ratelimit-limit", "5000")
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-reset", reset.as_str())
                .insert_header("x-ratelimit-resource", "graphql")
                .set_body_json(serde_json::json!({
                    "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]
                }))
        })
    }));
    let notices = Arc::new(Mutex::new(Vec::new()));
    let gh = client(&server, fast(Some(notices.clone())));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete(), "{:?}", snap.incomplete);
    assert!(
        notices
            .lock()
            .unwrap()
            .iter()
            .any(|n| matches!(n, Notice::RateLimited { .. }))
    );
}

/// True for the first `pr` request only (the fault answers once).
fn fake_first_pr(seen: &support::fake_github::Seen) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering};
    static DONE: AtomicBool = AtomicBool::new(false);
    seen.variables["withMeta"] == true && !DONE.swap(true, Ordering::SeqCst)
}

#[tokio::test]
async fn github_app_mints_an_installation_token_and_uses_it() {
    use pr_shepherd::source::github::{AuthEnv, auth};
    use wiremock::Mock;
    use wiremock::matchers::{method, path};
    let (server, fake) = FakeGitHub::start(FakePr::generate(2, 1, 2, 2, 1)).await;
    Mock::given(method("POST"))
        .and(path("/app/installations/34/access_tokens"))
        .respond_with(ResponseTemplate::new(201).set_body_json(serde_json::json!({
            "token": "ghs_InstallationLoopbackToken",
            "expires_at": "2099-01-01T00:00:00Z",
            "permissions": {"pull_requests": "read", "issues": "write"},
            "repository_selection": "all"
        })))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/app"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "id": 12, "slug": "pr-shepherd", "name": "PR Shepherd"
        })))
        .mount(&server)
        .await;
    let env = AuthEnv {
        app_id: Some("12".into()),
        app_installation_id: Some("34".into()),
        // A path works as well as PEM text.
        app_private_key: Some(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/test-github-app-key.pem"
            )
            .into(),
        ),
        ..AuthEnv::default()
    };
    let endpoints = Endpoints::resolve(Some(&server.uri()), None, None).unwrap();
    let creds = auth::resolve(&env, &endpoints.api, None).await.unwrap();
    assert_eq!(creds.describe(), "GitHub App 12");
    let gh = GitHub::new(endpoints, None, creds, fast(None)).unwrap();
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete());
    assert!(
        fake.seen()
            .iter()
            .all(|s| s.authorization.as_deref() == Some("Bearer ghs_InstallationLoopbackToken")),
        "{:?}",
        fake.seen()
    );
    assert_eq!(gh.viewer_login().await.unwrap(), "pr-shepherd[bot]");
}

#[tokio::test]
async fn long_threads_continue_together_in_one_request() {
    let mut pr = FakePr::generate(30, 2, 5, 5, 1);
    for t in pr.threads.iter_mut().take(25) {
        let template = t.comments[0].clone();
        t.comments = (0..150)
            .map(|c| {
                let mut x = template.clone();
                x.id = format!("{}-{c:03}", t.id.replace("PRRT", "PRRC"));
                x
            })
            .collect();
    }
    let (server, fake) = FakeGitHub::start(pr).await;
    let gh = client(&server, fast(None));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(snap.is_complete(), "{:?}", snap.incomplete);
    for i in snap
        .items
        .iter()
        .filter(|i| matches!(i, Item::Thread(_)))
        .take(25)
    {
        if let Item::Thread(t) = i {
            assert_eq!(t.comments.len(), 150, "{}", t.id);
        }
    }
    // 25 continuations in 2 aliased requests (20 + 5), not 25.
    let nested: Vec<_> = fake
        .seen()
        .into_iter()
        .filter(|s| s.kind == "thread")
        .collect();
    assert_eq!(nested.len(), 2, "{nested:#?}");
    assert_eq!(fake.requests(), 4);
}

#[tokio::test]
async fn a_nested_comment_page_that_fails_names_its_thread() {
    let (server, fake) = FakeGitHub::start(FakePr::generate(10, 130, 5, 5, 1)).await;
    fake.set_fault(Box::new(|_, seen| {
        (seen.kind == "thread").then(|| ResponseTemplate::new(503))
    }));
    let gh = client(&server, fast(None));
    let snap = gh.fetch_snapshot(&coords(NUMBER)).await.unwrap();
    assert!(!snap.is_complete());
    let text = snap.incomplete.join("\n");
    assert!(
        text.contains(
            "comments of review thread PRRT_kwDOA00007 (src/mod7.rs) after the first 100"
        ),
        "{text}"
    );
    // Everything else still arrived.
    assert_eq!(snap.items.len(), 20);
}
