//! A loopback GitHub with many open PRs, for the inbox: the repository listing
//! (`InboxRepoPulls`), the search (`InboxSearch`), the batched `InboxPullRequests` document
//! (answered alias by alias from its `_N` variables, paging each connection by its cursor), the
//! `ThreadComments` continuations and `Viewer`, in GitHub's answer shapes, with injectable
//! faults and a request log.

use std::sync::Arc;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::request_log::{self, RequestLog};

pub const OWNER: &str = "acme";
pub const REPO: &str = "widgets";
/// The login of the credentials (`viewer`), whose Shepherd reviews count.
pub const VIEWER: &str = "shepherd-bot";

/// One fake PR. Every id is unique across the repository.
#[derive(Debug, Clone)]
pub struct IPr {
    pub number: u64,
    pub author: String,
    pub association: &'static str,
    pub labels: Vec<String>,
    pub draft: bool,
    pub head: String,
    /// Comments per thread.
    pub threads: Vec<usize>,
    pub comments: usize,
    pub reviews: usize,
    /// A Shepherd review by [`VIEWER`] made at this head, if any.
    pub shepherd_at: Option<String>,
}

/// The head SHA of PR `n`.
pub fn head(n: u64) -> String {
    format!("{n:040x}")
}

impl IPr {
    /// An ordinary PR: 2 threads of 2 comments, 3 conversation comments, 1 review.
    pub fn ordinary(n: u64) -> IPr {
        IPr {
            number: n,
            author: format!("dev{}", n % 17),
            association: if n.is_multiple_of(2) {
                "MEMBER"
            } else {
                "CONTRIBUTOR"
            },
            labels: if n.is_multiple_of(3) {
                vec!["shepherd".into()]
            } else {
                vec!["bug".into()]
            },
            draft: n % 10 == 5,
            head: head(n),
            threads: vec![2, 2],
            comments: 3,
            reviews: 1,
            shepherd_at: None,
        }
    }

    /// A PR with no items at all (a cheap row for very large queues).
    pub fn bare(n: u64) -> IPr {
        IPr {
            threads: Vec::new(),
            comments: 0,
            reviews: 0,
            ..IPr::ordinary(n)
        }
    }

    /// The total items `items` would list for this PR.
    pub fn items(&self) -> usize {
        self.threads.len() + self.comments + self.reviews + usize::from(self.shepherd_at.is_some())
    }
}

/// `count` ordinary PRs (#1..=count) with, when there are enough: #7 with 40 threads, #9 with
/// one thread of 130 comments, #11 reviewed by Shepherd at its head, #13 at an older head.
pub fn queue(count: u64) -> Vec<IPr> {
    (1..=count)
        .map(|n| {
            let mut p = IPr::ordinary(n);
            match n {
                7 => p.threads = vec![3; 40],
                9 => p.threads = vec![130, 2],
                11 => p.shepherd_at = Some(head(11)),
                13 => p.shepherd_at = Some("0ld0ld0ld0ld".into()),
                _ => {}
            }
            p
        })
        .collect()
}

#[derive(Debug, Clone)]
pub struct Seen {
    /// "list", "search", "prs", "thread", "viewer", "teams", "other".
    pub kind: &'static str,
    pub variables: Value,
}

/// Decides a fault for request number `n` (0-based, over all requests) of a given kind; `None`
/// serves normally.
pub type FaultFn = request_log::Fault<Seen>;

pub struct State {
    pub prs: Vec<IPr>,
    /// Every request, and the fault to answer with.
    pub log: RequestLog<Seen>,
    /// When set, every list page after the first answers with the cursor it was asked for
    /// (`hasNextPage` true, the same `endCursor`).
    pub repeat_list_cursor: std::sync::atomic::AtomicBool,
    /// When set, the PRs carry the dashboard's data ([`dashboard`]): check suites and statuses,
    /// review decisions, review requests (some from [`VIEWER_TEAM`]). Unset, they have none
    /// (no rollup, no decision, no request), as a repository without CI or rules answers.
    pub dashboard: std::sync::atomic::AtomicBool,
}

#[derive(Clone)]
pub struct FakeInbox {
    pub state: Arc<State>,
}

struct Responder(Arc<State>);

impl FakeInbox {
    /// A server with github.com's layout (GraphQL at /graphql).
    pub async fn start(prs: Vec<IPr>) -> (MockServer, FakeInbox) {
        let server = MockServer::start().await;
        let fake = FakeInbox {
            state: Arc::new(State {
                prs,
                log: RequestLog::default(),
                repeat_list_cursor: std::sync::atomic::AtomicBool::new(false),
                dashboard: std::sync::atomic::AtomicBool::new(false),
            }),
        };
        Mock::given(method("POST"))
            .and(path("/graphql"))
            .respond_with(Responder(fake.state.clone()))
            .mount(&server)
            .await;
        (server, fake)
    }

    pub fn set_fault(&self, f: FaultFn) {
        self.state.log.set_fault(f);
    }

    /// Makes the list repeat its cursor from the second page on (see [`State`]).
    pub fn repeat_list_cursor(&self) {
        self.state
            .repeat_list_cursor
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Gives the PRs the dashboard's data (see [`State::dashboard`]).
    pub fn with_dashboard(&self) {
        self.state
            .dashboard
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn requests(&self) -> usize {
        self.state.log.requests()
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.log.seen()
    }
}

fn ts(i: usize) -> String {
    let base =
        chrono::DateTime::<chrono::Utc>::from_timestamp(1_763_000_000, 0).unwrap_or_default();
    (base + chrono::Duration::seconds(i as i64 * 61))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn cursor(offset: usize) -> String {
    format!("Y3Vyc29yOnYyOpHO{offset:08}")
}

fn offset(c: &Value) -> usize {
    c.as_str()
        .and_then(|s| s.strip_prefix("Y3Vyc29yOnYyOpHO"))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn page(all: &[Value], after: &Value) -> Value {
    let start = offset(after).min(all.len());
    let end = (start + 100).min(all.len());
    json!({
        "pageInfo": {"hasNextPage": end < all.len(), "endCursor": if end > start { Value::String(cursor(end)) } else { Value::Null }},
        "nodes": all[start..end].to_vec(),
    })
}

fn rate_limit() -> Value {
    json!({"cost": 1, "remaining": 4990, "resetAt": "2030-01-01T00:00:00Z"})
}

fn actor(login: &str) -> Value {
    json!({"__typename": if login.ends_with("[bot]") { "Bot" } else { "User" }, "login": login})
}

fn comment(id: String, login: &str, assoc: &str, i: usize, url: String, body: String) -> Value {
    json!({
        "id": id,
        "author": actor(login),
        "authorAssociation": assoc,
        "createdAt": ts(i),
        "lastEditedAt": null,
        "url": url,
        "body": body,
        "isMinimized": false,
        "minimizedReason": null,
    })
}

fn pr_url(n: u64) -> String {
    format!("https://github.com/{OWNER}/{REPO}/pull/{n}")
}

fn thread_comments(p: &IPr, t: usize) -> Vec<Value> {
    (0..p.threads[t])
        .map(|c| {
            let mut v = comment(
                format!("PRRC_{}_{t}_{c}", p.number),
                if c % 2 == 0 { "reviewer" } else { &p.author },
                "MEMBER",
                t * 200 + c,
                format!("{}#discussion_r{}{t:03}{c:03}", pr_url(p.number), p.number),
                format!("thread {t} comment {c}"),
            );
            v["diffHunk"] = json!("@@ -1,3 +1,4 @@\n fn f() {\n+    g();\n }");
            v
        })
        .collect()
}

fn thread_json(p: &IPr, t: usize) -> Value {
    let all = thread_comments(p, t);
    json!({
        "id": format!("PRRT_{}_{t}", p.number),
        "isResolved": false,
        "isOutdated": false,
        "path": format!("src/f{t}.rs"),
        "line": 3,
        "originalLine": 3,
        "comments": page(&all, &Value::Null),
    })
}

fn conversation(p: &IPr) -> Vec<Value> {
    let mut all: Vec<Value> = (0..p.comments)
        .map(|c| {
            comment(
                format!("IC_{}_{c}", p.number),
                &p.author,
                p.association,
                1000 + c,
                format!("{}#issuecomment-{}{c:03}", pr_url(p.number), p.number),
                format!("comment {c}"),
            )
        })
        .collect();
    if let Some(at) = &p.shepherd_at {
        let meta =
            json!({"version": 1, "mode": "full", "headSha": at, "findings": [], "addressed": []});
        all.push(comment(
            format!("IC_{}_shepherd", p.number),
            VIEWER,
            "NONE",
            2000,
            format!("{}#issuecomment-9{:05}", pr_url(p.number), p.number),
            format!("## PR Shepherd Review\n\nNothing found.\n\n<!-- pr-shepherd:meta {meta} -->"),
        ));
    }
    all
}

fn reviews(p: &IPr) -> Vec<Value> {
    (0..p.reviews)
        .map(|r| {
            let mut v = comment(
                format!("PRR_{}_{r}", p.number),
                "reviewer",
                "MEMBER",
                3000 + r,
                format!("{}#pullrequestreview-{}{r:03}", pr_url(p.number), p.number),
                format!("review {r}"),
            );
            v["state"] = json!("COMMENTED");
            v["submittedAt"] = v["createdAt"].clone();
            v
        })
        .collect()
}

/// The team of [`VIEWER`] (`ViewerTeams`); `acme/other` is requested too, and is not theirs.
pub const VIEWER_TEAM: &str = "acme/core";

/// The dashboard's fields of PR `n` in GitHub's answer shape, cycling through every case:
/// checks by `n % 6` (none; 3 passing; 1 failing check run + 2 passing + 1 passing status;
/// 2 pending runs + 1 pending status; 1 erroring status; 1 skipped + 1 neutral), decision by
/// `n % 4` (approved, changes requested, review required, none), requests by `n % 5` (the
/// viewer; [`VIEWER_TEAM`]; `acme/other`; another user; none), size `+3n −(n % 7)`,
/// `1 + n % 5` files.
pub fn dashboard(n: u64) -> Value {
    let counts = |runs: &[(&str, u32)], statuses: &[(&str, u32)]| {
        let c = |xs: &[(&str, u32)]| {
            xs.iter()
                .map(|(s, k)| json!({"state": s, "count": k}))
                .collect::<Vec<_>>()
        };
        json!({"contexts": {"checkRunCountsByState": c(runs), "statusContextCountsByState": c(statuses)}})
    };
    let rollup = match n % 6 {
        0 => Value::Null,
        1 => counts(&[("SUCCESS", 3)], &[]),
        2 => counts(&[("FAILURE", 1), ("SUCCESS", 2)], &[("SUCCESS", 1)]),
        3 => counts(&[("IN_PROGRESS", 1), ("QUEUED", 1)], &[("PENDING", 1)]),
        4 => counts(&[], &[("ERROR", 1)]),
        _ => counts(&[("SKIPPED", 1), ("NEUTRAL", 1)], &[]),
    };
    let decision = match n % 4 {
        0 => json!("APPROVED"),
        1 => json!("CHANGES_REQUESTED"),
        2 => json!("REVIEW_REQUIRED"),
        _ => Value::Null,
    };
    let requests = match n % 5 {
        0 => vec![json!({"requestedReviewer": actor(VIEWER)})],
        1 => {
            vec![json!({"requestedReviewer": {"__typename": "Team", "combinedSlug": VIEWER_TEAM}})]
        }
        2 => {
            vec![json!({"requestedReviewer": {"__typename": "Team", "combinedSlug": "acme/other"}})]
        }
        3 => vec![json!({"requestedReviewer": actor("someone-else")})],
        _ => Vec::new(),
    };
    json!({
        "additions": 3 * n,
        "deletions": n % 7,
        "changedFiles": 1 + n % 5,
        "reviewDecision": decision,
        "reviewRequests": {"nodes": requests},
        "commits": {"nodes": [{"commit": {"statusCheckRollup": rollup}}]},
        "autoMergeRequest": if n % 7 == 2 { json!({"mergeMethod": "SQUASH"}) } else { Value::Null },
        "isInMergeQueue": n % 7 == 3,
    })
}

fn listed(st: &State, p: &IPr) -> Value {
    let mut v = listed_node(p);
    let dash = if st.dashboard.load(std::sync::atomic::Ordering::SeqCst) {
        dashboard(p.number)
    } else {
        json!({
            "additions": 0, "deletions": 0, "changedFiles": 0, "reviewDecision": null,
            "reviewRequests": {"nodes": []},
            "commits": {"nodes": [{"commit": {"statusCheckRollup": null}}]},
        })
    };
    if let (Some(m), Value::Object(d)) = (v.as_object_mut(), dash) {
        m.extend(d);
    }
    v
}

fn listed_node(p: &IPr) -> Value {
    json!({
        "__typename": "PullRequest",
        "number": p.number,
        "title": format!("Change number {}", p.number),
        "url": pr_url(p.number),
        "isDraft": p.draft,
        "state": "OPEN",
        "headRefOid": p.head,
        "updatedAt": ts(p.number as usize),
        "author": actor(&p.author),
        "authorAssociation": p.association,
        "repository": {"name": REPO, "owner": {"login": OWNER}},
        "labels": {"nodes": p.labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>()},
    })
}

fn list_answer(st: &State, v: &Value) -> Value {
    if v["owner"] != OWNER || v["repo"] != REPO {
        return json!({
            "data": {"rateLimit": rate_limit(), "repository": null},
            "errors": [{"type": "NOT_FOUND", "path": ["repository"],
                "message": format!("Could not resolve to a Repository with the name '{}/{}'.", v["owner"].as_str().unwrap_or(""), v["repo"].as_str().unwrap_or(""))}]
        });
    }
    // Only the page asked for is built: a repository of thousands of PRs stays cheap.
    let start = offset(&v["after"]).min(st.prs.len());
    let end = (start + 100).min(st.prs.len());
    let nodes: Vec<Value> = st.prs[start..end].iter().map(|p| listed(st, p)).collect();
    let mut conn = json!({
        "pageInfo": {"hasNextPage": end < st.prs.len(), "endCursor": if end > start { Value::String(cursor(end)) } else { Value::Null }},
        "nodes": nodes,
    });
    if st
        .repeat_list_cursor
        .load(std::sync::atomic::Ordering::SeqCst)
        && !v["after"].is_null()
    {
        conn["pageInfo"] = json!({"hasNextPage": true, "endCursor": v["after"]});
    }
    json!({"data": {"rateLimit": rate_limit(), "repository": {"pullRequests": conn}}})
}

fn search_answer(st: &State, v: &Value) -> Value {
    let q = v["query"].as_str().unwrap_or("");
    if q.contains("bogus:") {
        return json!({
            "data": null,
            "errors": [{"type": "INVALID", "path": ["search"],
                "message": "The search qualifier `bogus:` is not recognized."}]
        });
    }
    let all: Vec<Value> = if q.contains(&format!("repo:{OWNER}/{REPO}")) {
        st.prs.iter().map(|p| listed(st, p)).collect()
    } else {
        Vec::new()
    };
    let mut conn = page(&all, &v["after"]);
    conn["issueCount"] = json!(all.len());
    json!({"data": {"rateLimit": rate_limit(), "search": conn}})
}

fn prs_answer(st: &State, v: &Value) -> Value {
    let mut data = serde_json::Map::new();
    data.insert("rateLimit".into(), rate_limit());
    let mut errors = Vec::new();
    for i in 0.. {
        let Some(number) = v.get(format!("number_{i}")).and_then(Value::as_u64) else {
            break;
        };
        let flag = |k: &str| {
            v.get(format!("{k}_{i}"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let after = |k: &str| v.get(format!("{k}_{i}")).cloned().unwrap_or(Value::Null);
        let alias = format!("p{i}");
        let Some(p) = st.prs.iter().find(|p| p.number == number) else {
            data.insert(alias.clone(), json!({"pullRequest": null}));
            errors.push(json!({"type": "NOT_FOUND", "path": [alias, "pullRequest"],
                "message": format!("Could not resolve to a PullRequest with the number of {number}.")}));
            continue;
        };
        let mut pr = json!({"id": format!("PR_{number}"), "number": number});
        if flag("withMeta") {
            let m = pr.as_object_mut().unwrap();
            m.insert("title".into(), json!(format!("Change number {number}")));
            m.insert("url".into(), json!(pr_url(number)));
            m.insert("isDraft".into(), json!(p.draft));
            m.insert("state".into(), json!("OPEN"));
            m.insert("baseRefName".into(), json!("main"));
            m.insert("headRefName".into(), json!(format!("topic-{number}")));
            m.insert("baseRefOid".into(), json!(head(0)));
            m.insert("headRefOid".into(), json!(p.head));
            m.insert("author".into(), actor(&p.author));
            m.insert("authorAssociation".into(), json!(p.association));
        }
        if flag("withLabels") {
            let all: Vec<Value> = p.labels.iter().map(|l| json!({"name": l})).collect();
            pr["labels"] = page(&all, &after("labelsAfter"));
        }
        if flag("withThreads") {
            let all: Vec<Value> = (0..p.threads.len()).map(|t| thread_json(p, t)).collect();
            pr["reviewThreads"] = page(&all, &after("threadsAfter"));
        }
        if flag("withComments") {
            pr["comments"] = page(&conversation(p), &after("commentsAfter"));
        }
        if flag("withReviews") {
            pr["reviews"] = page(&reviews(p), &after("reviewsAfter"));
        }
        let mut repo = json!({"pullRequest": pr});
        if flag("withMeta") {
            repo["issueOrPullRequest"] = json!({"__typename": "PullRequest"});
        }
        data.insert(alias, repo);
    }
    let mut out = json!({"data": data});
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    out
}

fn thread_answer(st: &State, v: &Value) -> Value {
    let mut data = serde_json::Map::new();
    data.insert("rateLimit".into(), rate_limit());
    for i in 0.. {
        let Some(id) = v.get(format!("id{i}")).and_then(Value::as_str) else {
            break;
        };
        let after = v.get(format!("after{i}")).cloned().unwrap_or(Value::Null);
        let found = id.strip_prefix("PRRT_").and_then(|rest| {
            let (n, t) = rest.split_once('_')?;
            let n: u64 = n.parse().ok()?;
            let t: usize = t.parse().ok()?;
            let p = st.prs.iter().find(|p| p.number == n)?;
            (t < p.threads.len()).then_some((p, t))
        });
        let value = match found {
            Some((p, t)) => json!({
                "__typename": "PullRequestReviewThread",
                "comments": page(&thread_comments(p, t), &after),
            }),
            None => Value::Null,
        };
        data.insert(format!("t{i}"), value);
    }
    json!({"data": data})
}

impl Respond for Responder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let st = &self.0;
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let query = body.get("query").and_then(Value::as_str).unwrap_or("");
        let kind = if query.contains("query InboxRepoPulls") {
            "list"
        } else if query.contains("query InboxSearch") {
            "search"
        } else if query.contains("query InboxPullRequests") {
            "prs"
        } else if query.contains("query ThreadComments") {
            "thread"
        } else if query.contains("query ViewerTeams") {
            "teams"
        } else if query.contains("query Viewer") {
            "viewer"
        } else {
            "other"
        };
        let seen = Seen {
            kind,
            variables: body.get("variables").cloned().unwrap_or(Value::Null),
        };
        if let (_, Some(t)) = st.log.record(&seen) {
            return t;
        }
        let answer = match kind {
            "list" => list_answer(st, &seen.variables),
            "search" => search_answer(st, &seen.variables),
            "prs" => prs_answer(st, &seen.variables),
            "thread" => thread_answer(st, &seen.variables),
            "viewer" => json!({"data": {"viewer": {"login": VIEWER}}}),
            "teams" if seen.variables["login"] == VIEWER => json!({"data": {"viewer": {
                "organizations": {"nodes": [
                    {"teams": {"nodes": [{"combinedSlug": VIEWER_TEAM}]}},
                    {"teams": {"nodes": []}},
                ]}
            }}}),
            "teams" => json!({"data": {"viewer": {"organizations": {"nodes": []}}}}),
            _ => {
                return ResponseTemplate::new(400)
                    .set_body_json(json!({"message": "Problems parsing JSON"}));
            }
        };
        graphql_ok(answer)
    }
}

// A whole session on one loopback GitHub: the inbox above, and each of its PRs also served as
// the PR screen fetches and writes it (the `PullRequest` document, its changed files, thread
// replies, the Shepherd comment over REST), from the same [`IPr`] — so an item read on a PR
// screen is the item the inbox counts. What the session writes shows in both.

/// What the session wrote: thread replies and conversation comments, in GitHub's answer shapes.
#[derive(Default)]
struct Written {
    /// (thread id, comment node).
    replies: Vec<(String, Value)>,
    /// (PR number, database id, comment node).
    comments: Vec<(u64, u64, Value)>,
}

/// The PR screens' side of a [`FakeInbox`] (see [`FakeInbox::serve_prs`]).
#[derive(Clone)]
pub struct PrScreens {
    state: Arc<State>,
    written: Arc<std::sync::Mutex<Written>>,
}

/// The requests [`PrScreens`] answers: the one-PR documents, the inbox's batches (to add what was
/// written), and the REST paths of a PR's files and comments.
struct PrScreenRequests;

/// The `kind` of a PR screen's GraphQL query (`None`: the inbox's own).
fn screen_kind(query: &str) -> Option<&'static str> {
    if query.contains("query PullRequestFiles") {
        Some("pr-files")
    } else if query.contains("query PullRequest(") {
        Some("pr")
    } else if query.contains("mutation ThreadReply") {
        Some("reply")
    } else if query.contains("query InboxPullRequests") {
        Some("prs")
    } else {
        None
    }
}

fn rest_kind(req: &Request) -> Option<&'static str> {
    let p = req.url.path();
    let base = format!("/repos/{OWNER}/{REPO}/");
    let rest = p.strip_prefix(&base)?;
    let m = req.method.as_str();
    if m == "GET" && rest.starts_with("pulls/") && rest.ends_with("/files") {
        Some("files")
    } else if rest.starts_with("issues/") && rest.ends_with("/comments") {
        match m {
            "GET" => Some("comments"),
            "POST" => Some("comment-create"),
            _ => None,
        }
    } else if m == "PATCH" && rest.starts_with("issues/comments/") {
        Some("comment-update")
    } else {
        None
    }
}

impl wiremock::Match for PrScreenRequests {
    fn matches(&self, req: &Request) -> bool {
        if req.url.path() == "/graphql" {
            let body: Value = req.body_json().unwrap_or(Value::Null);
            return screen_kind(body["query"].as_str().unwrap_or("")).is_some();
        }
        rest_kind(req).is_some()
    }
}

/// The number in `/repos/o/r/{pulls,issues}/N/...`.
fn path_number(req: &Request) -> u64 {
    req.url
        .path()
        .split('/')
        .nth(5)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The two files every PR changes: `src/f0.rs` and `src/f1.rs`, the paths of its threads.
fn screen_files(number: u64) -> Vec<(String, String)> {
    (0..2)
        .map(|t| {
            (
                format!("src/f{t}.rs"),
                format!("@@ -1,2 +1,3 @@\n fn f() {{\n+    g{number}();\n }}"),
            )
        })
        .collect()
}

fn rest_comment_json(number: u64, db: u64, node: &Value) -> Value {
    json!({
        "id": db,
        "node_id": node["id"],
        "html_url": format!("{}#issuecomment-{db}", pr_url(number)),
        "body": node["body"],
        "user": {"login": node["author"]["login"], "type": node["author"]["__typename"]},
        "author_association": node["authorAssociation"],
        "created_at": node["createdAt"],
        "updated_at": node["createdAt"],
    })
}

impl PrScreens {
    /// Every reply the session sent, as (thread id, body).
    pub fn replies(&self) -> Vec<(String, String)> {
        let w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        w.replies
            .iter()
            .map(|(t, c)| (t.clone(), c["body"].as_str().unwrap_or("").to_owned()))
            .collect()
    }

    /// Every conversation comment the session posted or updated, as (PR number, body).
    pub fn comments(&self) -> Vec<(u64, String)> {
        let w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        w.comments
            .iter()
            .map(|(n, _, c)| (*n, c["body"].as_str().unwrap_or("").to_owned()))
            .collect()
    }

    /// Adds what was written to the PR answer `repo` (`{"pullRequest": …}`) of PR `number`:
    /// replies at the end of their threads, comments at the end of the conversation (first
    /// pages only: the session's PRs are small).
    fn add_written(&self, number: u64, repo: &mut Value) {
        let w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        let pr = &mut repo["pullRequest"];
        if let Some(threads) = pr["reviewThreads"]["nodes"].as_array_mut() {
            for t in threads {
                let id = t["id"].as_str().unwrap_or("").to_owned();
                if let Some(nodes) = t["comments"]["nodes"].as_array_mut() {
                    nodes.extend(
                        w.replies
                            .iter()
                            .filter(|(thread, _)| *thread == id)
                            .map(|(_, c)| c.clone()),
                    );
                }
            }
        }
        if let Some(nodes) = pr["comments"]["nodes"].as_array_mut() {
            nodes.extend(
                w.comments
                    .iter()
                    .filter(|(n, _, _)| *n == number)
                    .map(|(_, _, c)| c.clone()),
            );
        }
    }

    /// `PullRequest`: the batch's answer for one PR, renamed from alias `p0` to `repository`,
    /// with the description the batch does not ask for.
    fn pr_document(&self, v: &Value) -> Value {
        let mut vars = serde_json::Map::new();
        if let Some(m) = v.as_object() {
            for (k, x) in m {
                vars.insert(format!("{k}_0"), x.clone());
            }
        }
        let number = v["number"].as_u64().unwrap_or(0);
        let mut answer = prs_answer(&self.state, &Value::Object(vars));
        let mut repo = answer["data"]["p0"].take();
        if v["owner"] != OWNER || v["repo"] != REPO {
            return json!({
                "data": {"rateLimit": rate_limit(), "repository": null},
                "errors": [{"type": "NOT_FOUND", "path": ["repository"],
                    "message": "Could not resolve to a Repository."}]
            });
        }
        if v["withMeta"].as_bool().unwrap_or(false) && repo["pullRequest"].is_object() {
            repo["pullRequest"]["body"] = json!(format!("The change of PR {number}."));
        }
        self.add_written(number, &mut repo);
        let mut out = json!({"data": {"rateLimit": rate_limit(), "repository": repo}});
        if let Some(errors) = answer["errors"].as_array_mut() {
            for e in errors.iter_mut() {
                if let Some(first) = e["path"].get_mut(0) {
                    *first = json!("repository");
                }
            }
            out["errors"] = Value::Array(errors.clone());
        }
        out
    }

    /// `InboxPullRequests` with what was written added to each alias.
    fn batch(&self, v: &Value) -> Value {
        let mut answer = prs_answer(&self.state, v);
        for i in 0.. {
            let Some(number) = v.get(format!("number_{i}")).and_then(Value::as_u64) else {
                break;
            };
            let repo = &mut answer["data"][format!("p{i}")];
            if repo.is_object() {
                self.add_written(number, repo);
            }
        }
        answer
    }

    fn pr_files(&self, v: &Value) -> Value {
        let number = v["number"].as_u64().unwrap_or(0);
        if !self.state.prs.iter().any(|p| p.number == number) {
            return json!({
                "data": {"rateLimit": rate_limit(), "repository": {"pullRequest": null}},
                "errors": [{"type": "NOT_FOUND", "path": ["repository", "pullRequest"],
                    "message": "Could not resolve to a PullRequest."}]
            });
        }
        let nodes: Vec<Value> = screen_files(number)
            .into_iter()
            .map(|(path, _)| {
                json!({"path": path, "changeType": "MODIFIED", "additions": 1, "deletions": 0,
                    "viewerViewedState": "UNVIEWED"})
            })
            .collect();
        json!({"data": {"rateLimit": rate_limit(), "repository": {"pullRequest": {
            "id": format!("PR_{number}"),
            "changedFiles": nodes.len(),
            "files": {"pageInfo": {"hasNextPage": false, "endCursor": cursor(nodes.len())}, "nodes": nodes},
        }}}})
    }

    fn reply(&self, v: &Value) -> Value {
        let thread = v["threadId"].as_str().unwrap_or("");
        let number = thread
            .strip_prefix("PRRT_")
            .and_then(|rest| rest.split_once('_'))
            .and_then(|(n, t)| Some((n.parse::<u64>().ok()?, t.parse::<usize>().ok()?)))
            .filter(|(n, t)| {
                self.state
                    .prs
                    .iter()
                    .any(|p| p.number == *n && *t < p.threads.len())
            })
            .map(|(n, _)| n);
        let Some(number) = number else {
            return json!({
                "data": {"addPullRequestReviewThreadReply": null},
                "errors": [{"type": "NOT_FOUND", "path": ["addPullRequestReviewThreadReply"],
                    "message": format!("Could not resolve to a node with the global id of '{thread}'")}],
            });
        };
        let mut w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        let k = w.replies.len();
        let mut c = comment(
            format!("PRRC_reply_{k}"),
            VIEWER,
            "MEMBER",
            5000 + k,
            format!("{}#discussion_r9{k:05}", pr_url(number)),
            v["body"].as_str().unwrap_or("").to_owned(),
        );
        c["diffHunk"] = json!("@@ -1,2 +1,3 @@\n fn f() {\n+    g();\n }");
        w.replies.push((thread.to_owned(), c.clone()));
        json!({"data": {"addPullRequestReviewThreadReply": {"comment": c}}})
    }

    fn rest(&self, kind: &str, req: &Request) -> ResponseTemplate {
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let text = body["body"].as_str().unwrap_or("").to_owned();
        let mut w = self.written.lock().unwrap_or_else(|e| e.into_inner());
        match kind {
            "files" => {
                let files: Vec<Value> = screen_files(path_number(req))
                    .into_iter()
                    .map(|(path, patch)| {
                        json!({"sha": head(1), "filename": path, "status": "modified",
                            "additions": 1, "deletions": 0, "changes": 1, "patch": patch})
                    })
                    .collect();
                ResponseTemplate::new(200).set_body_json(files)
            }
            "comments" => {
                let number = path_number(req);
                let Some(p) = self.state.prs.iter().find(|p| p.number == number) else {
                    return ResponseTemplate::new(404)
                        .set_body_json(json!({"message": "Not Found"}));
                };
                let mut all: Vec<Value> = conversation(p)
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        rest_comment_json(number, 1_000_000 + number * 1000 + i as u64, c)
                    })
                    .collect();
                all.extend(
                    w.comments
                        .iter()
                        .filter(|(n, _, _)| *n == number)
                        .map(|(n, db, c)| rest_comment_json(*n, *db, c)),
                );
                ResponseTemplate::new(200).set_body_json(all)
            }
            "comment-create" => {
                let number = path_number(req);
                if !self.state.prs.iter().any(|p| p.number == number) {
                    return ResponseTemplate::new(404)
                        .set_body_json(json!({"message": "Not Found"}));
                }
                let db = 7000 + w.comments.len() as u64;
                let node = comment(
                    format!("IC_posted_{db}"),
                    VIEWER,
                    "MEMBER",
                    6000 + w.comments.len(),
                    format!("{}#issuecomment-{db}", pr_url(number)),
                    text,
                );
                w.comments.push((number, db, node.clone()));
                ResponseTemplate::new(201).set_body_json(rest_comment_json(number, db, &node))
            }
            _ => {
                let db: u64 = req
                    .url
                    .path()
                    .rsplit('/')
                    .next()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0);
                match w.comments.iter_mut().find(|(_, d, _)| *d == db) {
                    Some((n, _, node)) => {
                        node["body"] = json!(text);
                        ResponseTemplate::new(200).set_body_json(rest_comment_json(*n, db, node))
                    }
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            }
        }
    }
}

impl Respond for PrScreens {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let kind = if req.url.path() == "/graphql" {
            screen_kind(body["query"].as_str().unwrap_or(""))
        } else {
            rest_kind(req)
        }
        .unwrap_or("other");
        let seen = Seen {
            kind,
            variables: body.get("variables").cloned().unwrap_or(Value::Null),
        };
        if let (_, Some(t)) = self.state.log.record(&seen) {
            return t;
        }
        let answer = match kind {
            "pr" => self.pr_document(&seen.variables),
            "prs" => self.batch(&seen.variables),
            "pr-files" => self.pr_files(&seen.variables),
            "reply" => self.reply(&seen.variables),
            _ => return self.rest(kind, req),
        };
        graphql_ok(answer)
    }
}

impl FakeInbox {
    /// Serves each of the inbox's PRs on `server` as a PR screen fetches it (the `PullRequest`
    /// document, `PullRequestFiles`, REST `pulls/N/files` with `src/f0.rs` and `src/f1.rs`) and
    /// writes to it (`ThreadReply`, the REST issue comments the Shepherd comment is posted
    /// through); what was written is in every later answer, the inbox's counts included. These
    /// requests are logged (kinds "pr", "pr-files", "files", "reply", "comments",
    /// "comment-create", "comment-update") and faulted like the inbox's own.
    pub async fn serve_prs(&self, server: &MockServer) -> PrScreens {
        let screens = PrScreens {
            state: self.state.clone(),
            written: Arc::default(),
        };
        Mock::given(PrScreenRequests)
            .respond_with(screens.clone())
            .with_priority(1)
            .mount(server)
            .await;
        screens
    }
}

/// A GraphQL answer with GitHub's rate-limit headers.
fn graphql_ok(answer: Value) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_json(answer)
        .insert_header("x-ratelimit-limit", "5000")
        .insert_header("x-ratelimit-remaining", "4000")
        .insert_header("x-ratelimit-reset", "1893456000")
        .insert_header("x-ratelimit-resource", "graphql")
}

/// Searches answered by their query: each key a search's text as configured (the client adds
/// `is:pr is:open`), answered with the PRs of those numbers in that order, paged by 100 — e.g.
/// the default sections' `review-requested:@me`, `author:@me`, `involves:@me -author:@me`.
/// A search no key starts is answered as before (the repository's PRs for `repo:acme/widgets`,
/// none otherwise). Requests are logged (kind "search") and the fault hook applies, as for every
/// request of the fake.
pub struct SearchAnswers(Vec<(String, Vec<u64>)>);

/// The numbers answering `query`: the longest key the query is, or starts with, plus a space.
fn search_key<'a>(answers: &'a [(String, Vec<u64>)], query: &str) -> Option<&'a Vec<u64>> {
    answers
        .iter()
        .filter(|(k, _)| query == k || query.starts_with(&format!("{k} ")))
        .max_by_key(|(k, _)| k.len())
        .map(|(_, n)| n)
}

fn search_query(req: &Request) -> Option<String> {
    let body: Value = req.body_json().ok()?;
    let query = body.get("query").and_then(Value::as_str)?;
    if !query.contains("query InboxSearch") {
        return None;
    }
    body.pointer("/variables/query")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

struct SearchMatch(Arc<SearchAnswers>);

impl wiremock::Match for SearchMatch {
    fn matches(&self, req: &Request) -> bool {
        search_query(req).is_some_and(|q| search_key(&self.0.0, &q).is_some())
    }
}

struct SearchResponder(Arc<State>, Arc<SearchAnswers>);

impl Respond for SearchResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let st = &self.0;
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let seen = Seen {
            kind: "search",
            variables: body.get("variables").cloned().unwrap_or(Value::Null),
        };
        if let (_, Some(t)) = st.log.record(&seen) {
            return t;
        }
        let q = seen.variables["query"].as_str().unwrap_or("");
        let numbers = search_key(&self.1.0, q).cloned().unwrap_or_default();
        let all: Vec<Value> = numbers
            .iter()
            .filter_map(|n| st.prs.iter().find(|p| p.number == *n))
            .map(|p| listed(st, p))
            .collect();
        let mut conn = page(&all, &seen.variables["after"]);
        conn["issueCount"] = json!(all.len());
        graphql_ok(json!({"data": {"rateLimit": rate_limit(), "search": conn}}))
    }
}

impl FakeInbox {
    /// Answers the searches of `answers` (query text, PR numbers) on `server`, ahead of the
    /// fake's other answers (see [`SearchAnswers`]).
    pub async fn answer_searches(&self, server: &MockServer, answers: &[(&str, Vec<u64>)]) {
        let answers = Arc::new(SearchAnswers(
            answers
                .iter()
                .map(|(k, n)| ((*k).to_owned(), n.clone()))
                .collect(),
        ));
        Mock::given(method("POST"))
            .and(path("/graphql"))
            .and(SearchMatch(answers.clone()))
            .respond_with(SearchResponder(self.state.clone(), answers))
            .with_priority(1)
            .mount(server)
            .await;
    }
}
