//! A loopback GitHub for tests and the fetch measurement: a wiremock responder that serves one
//! PR in GitHub's real answer shapes (GraphQL `data`/`errors`, `pageInfo` cursors, `__typename`
//! authors, REST `pulls/{n}/files` with `Link` pagination, `x-ratelimit-*` headers), paging by
//! the request's own variables, with injectable faults. Like GitHub, it refuses a comment body
//! over 65,536 characters (REST 422 "body is too long", GraphQL "Body is too long").
//!
//! Shapes follow the real samples copied from ../shared/github (cli/cli `gh pr view` fixtures,
//! triagebot REST recordings) and GitHub's schema.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::request_log::{self, RequestLog};

pub const OWNER: &str = "octo-org";
pub const REPO: &str = "hello-world";
pub const NUMBER: u64 = 42;
/// A number that is an issue, not a PR.
pub const ISSUE_NUMBER: u64 = 7;
/// GitHub's limit on a comment body, in characters; the fake refuses longer bodies as GitHub does.
pub const BODY_LIMIT: usize = 65_536;

/// GitHub's REST answer to a comment body over the limit (422 Validation Failed).
pub fn body_too_long_rest() -> ResponseTemplate {
    ResponseTemplate::new(422).set_body_json(json!({
        "message": "Validation Failed",
        "errors": [{
            "resource": "IssueComment",
            "code": "custom",
            "field": "body",
            "message": "body is too long (maximum is 65536 characters)",
        }],
        "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
        "status": "422",
    }))
}

fn too_long(text: &str) -> bool {
    text.chars().count() > BODY_LIMIT
}

/// `OWNER/REPO#number`: a PR (or issue) of the fake's repository, as the CLI takes it.
pub fn pr_ref(number: u64) -> String {
    format!("{OWNER}/{REPO}#{number}")
}

/// The fake PR's folder in the state dir `state`.
pub fn pr_state_dir(state: &std::path::Path) -> std::path::PathBuf {
    let pr = pr_shepherd::pr::PrCoords {
        host: None,
        owner: OWNER.into(),
        repo: REPO.into(),
        number: NUMBER,
    };
    pr_shepherd::ledger::Ledger::new(state)
        .pr_dir_to_read(&pr)
        .expect("valid coordinates")
}

/// How many seen markers the state dir `state` holds for the fake PR.
pub fn seen_markers(state: &std::path::Path) -> usize {
    std::fs::read_dir(pr_state_dir(state).join("seen"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[derive(Debug, Clone)]
pub struct FComment {
    pub id: String,
    pub login: String,
    pub bot: bool,
    pub association: &'static str,
    pub body: String,
    pub created: String,
    pub edited: Option<String>,
    pub minimized: Option<&'static str>,
}

#[derive(Debug, Clone)]
pub struct FThread {
    pub id: String,
    pub path: String,
    pub line: Option<u32>,
    pub original_line: u32,
    pub outdated: bool,
    pub resolved: bool,
    pub comments: Vec<FComment>,
}

#[derive(Debug, Clone)]
pub struct FReview {
    pub comment: FComment,
    pub state: &'static str,
}

#[derive(Debug, Clone, Default)]
pub struct FakePr {
    pub labels: Vec<String>,
    pub threads: Vec<FThread>,
    pub comments: Vec<FComment>,
    pub reviews: Vec<FReview>,
    pub files: usize,
}

fn ts(i: usize) -> String {
    let base =
        chrono::DateTime::<chrono::Utc>::from_timestamp(1_717_000_000, 0).unwrap_or_default();
    (base + chrono::Duration::seconds(i as i64 * 37))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn fcomment(id: String, i: usize, body: String) -> FComment {
    let logins = ["monalisa", "hubot", "octocat", "mona-lisa", "dependabot"];
    let login = logins[i % logins.len()].to_owned();
    FComment {
        bot: login == "dependabot",
        association: ["MEMBER", "NONE", "OWNER", "CONTRIBUTOR", "NONE"][i % 5],
        login,
        id,
        body,
        created: ts(i),
        edited: (i % 11 == 3).then(|| ts(i + 5)),
        minimized: None,
    }
}

impl FakePr {
    /// A small PR (two files) carrying `labels`.
    pub fn with_labels(labels: &[&str]) -> FakePr {
        FakePr {
            labels: labels.iter().map(|s| s.to_string()).collect(),
            files: 2,
            ..FakePr::default()
        }
    }

    /// `threads` threads of 2 comments except thread 7 with `big` comments; `comments`
    /// conversation comments; `reviews` reviews (some minimized, some empty); `files` files.
    pub fn generate(
        threads: usize,
        big: usize,
        comments: usize,
        reviews: usize,
        files: usize,
    ) -> FakePr {
        let mut n = 0usize;
        let mut next = || {
            n += 1;
            n
        };
        let threads = (0..threads)
            .map(|t| {
                let count = if t == 7 { big } else { 2 };
                let mut cs: Vec<FComment> = (0..count)
                    .map(|c| {
                        let i = next();
                        fcomment(
                            format!("PRRC_kwDOA{t:04}x{c:04}"),
                            i,
                            format!("Thread {t} comment {c}: is this right?"),
                        )
                    })
                    .collect();
                if t == 3 {
                    cs[0].minimized = Some("outdated");
                }
                FThread {
                    id: format!("PRRT_kwDOA{t:05}"),
                    path: format!("src/mod{}.rs", t % 40),
                    line: (t % 5 != 0).then_some(10 + t as u32),
                    original_line: 10 + t as u32,
                    outdated: t % 5 == 0,
                    resolved: t % 4 == 0,
                    comments: cs,
                }
            })
            .collect();
        let comments = (0..comments)
            .map(|c| {
                let i = next();
                let mut fc = fcomment(
                    format!("IC_kwDOA{c:05}"),
                    i,
                    format!("Conversation comment {c}"),
                );
                if c == 2 {
                    fc.minimized = Some("spam");
                }
                fc
            })
            .collect();
        let reviews = (0..reviews)
            .map(|r| {
                let i = next();
                let body = if r % 3 == 0 {
                    String::new()
                } else {
                    format!("Review {r}")
                };
                let mut fc = fcomment(format!("PRR_kwDOA{r:05}"), i, body);
                if r == 1 || r == 4 {
                    fc.minimized = Some("OFF_TOPIC");
                }
                FReview {
                    comment: fc,
                    state: ["COMMENTED", "APPROVED", "CHANGES_REQUESTED", "DISMISSED"][r % 4],
                }
            })
            .collect();
        FakePr {
            labels: vec!["shepherd".to_owned(), "bug".to_owned()],
            threads,
            comments,
            reviews,
            files,
        }
    }
}

/// What the fake saw: one entry per request.
#[derive(Debug, Clone)]
pub struct Seen {
    /// "pr", "thread", "viewer", "mutation", "files", or "other".
    pub kind: &'static str,
    pub variables: Value,
    pub authorization: Option<String>,
    pub path: String,
}

/// Decides a fault for request number `n` (0-based, over all requests) of a given kind; `None`
/// serves normally.
pub type FaultFn = request_log::Fault<Seen>;

pub struct State {
    pub pr: FakePr,
    /// The server's root URL (for `Link` headers).
    pub api_base: Mutex<String>,
    /// Every request, and the fault to answer with.
    pub log: RequestLog<Seen>,
    /// Errors added to every `pr` answer (partial data) when set.
    pub partial_reviews_error: Mutex<bool>,
    /// Ids of comments, reviews and threads that every `pr` answer gives as `null` nodes, each
    /// with an error at its path beside the data (a partial answer, as GitHub gives when a node
    /// cannot be resolved).
    pub null_nodes: Mutex<Vec<String>>,
    /// Conversation comments beyond `pr.comments` (seeded by tests or created through REST),
    /// with their database ids; they appear in GraphQL answers and REST lists alike.
    pub extra_comments: Mutex<Vec<(u64, FComment)>>,
    /// The PR author's (login, authorAssociation).
    pub author: Mutex<(String, String)>,
    /// Logins that `GET /orgs/{org}/members/{login}` answers 204 for.
    pub org_members: Mutex<Vec<String>>,
    /// The next this-many comment creations are stored, then answered 502 (a lost answer).
    pub fail_creates_after_store: Mutex<u32>,
    /// The login of the credentials (GraphQL `viewer`, author of created comments).
    pub viewer: Mutex<String>,
    /// Thread comments beyond `pr.threads` (thread id, comment): seeded by tests or created by
    /// `addPullRequestReviewThreadReply`.
    pub thread_replies: Mutex<Vec<(String, FComment)>>,
    /// Bodies edited since (comment id, new body, editedAt).
    pub edits: Mutex<Vec<(String, String, String)>>,
    /// Threads resolved or unresolved since (thread id, isResolved).
    pub resolutions: Mutex<Vec<(String, bool)>>,
    /// When set, the PR is locked: replies are refused with GitHub's reason.
    pub locked: Mutex<bool>,
    /// The next this-many replies are stored, then answered 502 (a lost answer).
    pub fail_replies_after_store: Mutex<u32>,
    /// The PR's `state` (OPEN, CLOSED or MERGED).
    pub pr_state: Mutex<String>,
    /// The PR's head commit (`headRefOid`).
    pub head_sha: Mutex<String>,
    /// When set, every REST listing of the PR's comments is answered this much later (a slow
    /// listing, so that concurrent posts overlap).
    pub list_delay: Mutex<Option<std::time::Duration>>,
    /// When set, a thread reply is stored at once and its answer held back this long (a client
    /// killed meanwhile sent the reply but never learnt so).
    pub reply_hold: Mutex<Option<std::time::Duration>>,
    /// Patches that replace the generated one, by file path (`None`: no patch, as GitHub sends
    /// for a binary or too-large file), e.g. one file's patch changed by a force-push.
    pub patches: Mutex<std::collections::HashMap<String, Option<String>>>,
    /// The viewer's viewed state by path (`VIEWED`, `DISMISSED`; absent: `UNVIEWED`), changed
    /// by `markFileAsViewed` / `unmarkFileAsViewed`.
    pub viewed: Mutex<std::collections::HashMap<String, String>>,
    /// When set, this connection ("comments" or "files") answers every page after the first with
    /// the cursor it was asked for (`hasNextPage` true, the same `endCursor`; REST: a `Link` to
    /// the same page), as a GitHub that keeps returning one page would.
    pub repeat_cursor: Mutex<Option<&'static str>>,
    /// Pull request reviews submitted through REST, with their line comments (fake_reviews.rs).
    pub reviews_posted: Mutex<Vec<super::fake_reviews::PostedReview>>,
    /// The next this-many review creations are stored, then answered 502 (a lost answer).
    pub fail_reviews_after_store: Mutex<u32>,
    /// The head commit's `statusCheckRollup` as `HeadChecks` answers it (`null`: no checks).
    pub checks: Mutex<Value>,
    /// The PR's dashboard fields (`additions`, `reviewDecision`, `reviewRequests`, `commits`, …,
    /// as `fake_inbox::dashboard` writes them), merged into its listed node and answered to
    /// `RecordDashboard`; `None`: the fields of a PR without any.
    pub dashboard: Mutex<Option<Value>>,
    /// The viewer's teams (`org/slug`), answered to `ViewerTeams`.
    pub viewer_teams: Mutex<Vec<String>>,
}

/// Database ids of `pr.comments` start here (index order).
pub const FIRST_COMMENT_DB_ID: u64 = 1000;
/// Database ids of comments added later start here.
pub const FIRST_EXTRA_DB_ID: u64 = 5000;

#[derive(Clone)]
pub struct FakeGitHub {
    pub state: Arc<State>,
}

struct Responder(Arc<State>);

impl FakeGitHub {
    pub fn new(pr: FakePr) -> FakeGitHub {
        FakeGitHub {
            state: Arc::new(State {
                pr,
                api_base: Mutex::new(String::new()),
                log: RequestLog::default(),
                partial_reviews_error: Mutex::new(false),
                null_nodes: Mutex::new(Vec::new()),
                extra_comments: Mutex::new(Vec::new()),
                author: Mutex::new(("octocat".to_owned(), "CONTRIBUTOR".to_owned())),
                org_members: Mutex::new(Vec::new()),
                fail_creates_after_store: Mutex::new(0),
                viewer: Mutex::new("monalisa".to_owned()),
                thread_replies: Mutex::new(Vec::new()),
                edits: Mutex::new(Vec::new()),
                resolutions: Mutex::new(Vec::new()),
                locked: Mutex::new(false),
                fail_replies_after_store: Mutex::new(0),
                pr_state: Mutex::new("OPEN".to_owned()),
                head_sha: Mutex::new("6dcb09b5b57875f334f61aebed695e2e4193db5e".to_owned()),
                list_delay: Mutex::new(None),
                reply_hold: Mutex::new(None),
                patches: Mutex::new(std::collections::HashMap::new()),
                viewed: Mutex::new(std::collections::HashMap::new()),
                repeat_cursor: Mutex::new(None),
                reviews_posted: Mutex::new(Vec::new()),
                fail_reviews_after_store: Mutex::new(0),
                checks: Mutex::new(Value::Null),
                dashboard: Mutex::new(None),
                viewer_teams: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Mounts the REST base at `api_prefix` ("" or "/api/v3") and GraphQL at `graphql_path`.
    pub async fn mount(&self, server: &MockServer, api_prefix: &str, graphql_path: &str) {
        *self.state.api_base.lock().unwrap() = server.uri();
        Mock::given(method("POST"))
            .and(path(graphql_path))
            .respond_with(Responder(self.state.clone()))
            .mount(server)
            .await;
        Mock::given(method("GET"))
            .and(path_regex(format!(
                r"^{api_prefix}/repos/[^/]+/[^/]+/pulls/\d+/files$"
            )))
            .respond_with(Responder(self.state.clone()))
            .mount(server)
            .await;
    }

    /// Replaces file `path`'s patch (`None`: GitHub sends none, as for a binary file).
    pub fn set_patch(&self, path: &str, patch: Option<&str>) {
        self.state
            .patches
            .lock()
            .unwrap()
            .insert(path.to_owned(), patch.map(str::to_owned));
    }

    /// A force-push that rebases every commit: a new head (every SHA rewritten); file patches
    /// stay as they are unless `set_patch` changes them. Like GitHub, a file marked viewed whose
    /// patch changed becomes `DISMISSED`.
    pub fn force_push(&self, head_sha: &str, changed: &[(&str, &str)]) {
        *self.state.head_sha.lock().unwrap() = head_sha.to_owned();
        for (path, patch) in changed {
            self.set_patch(path, Some(patch));
            let mut viewed = self.state.viewed.lock().unwrap();
            if viewed.get(*path).is_some_and(|v| v == "VIEWED") {
                viewed.insert((*path).to_owned(), "DISMISSED".to_owned());
            }
        }
    }

    /// The viewer's viewed state of `path` as the fake keeps it.
    pub fn viewed_state(&self, path: &str) -> String {
        self.state
            .viewed
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .unwrap_or_else(|| "UNVIEWED".to_owned())
    }

    /// Adds a conversation comment (database id from [`FIRST_EXTRA_DB_ID`]); returns its id.
    pub fn add_comment(
        &self,
        login: &str,
        association: &'static str,
        body: &str,
        created: &str,
    ) -> u64 {
        let mut extra = self.state.extra_comments.lock().unwrap();
        let db = FIRST_EXTRA_DB_ID + extra.len() as u64;
        extra.push((
            db,
            FComment {
                id: format!("IC_kwDOX{db:08}"),
                login: login.to_owned(),
                bot: login.ends_with("[bot]"),
                association,
                body: body.to_owned(),
                created: created.to_owned(),
                edited: None,
                minimized: None,
            },
        ));
        db
    }

    /// The added conversation comments (database id, comment), in creation order.
    pub fn extra_comments(&self) -> Vec<(u64, FComment)> {
        self.state.extra_comments.lock().unwrap().clone()
    }

    /// Adds a reply to thread `thread` by `login` (as another reviewer would); returns its id.
    pub fn add_thread_reply(&self, thread: &str, login: &str, body: &str) -> String {
        let mut replies = self.state.thread_replies.lock().unwrap();
        let n = replies.len();
        let id = format!("PRRC_kwDOR{:08}", n + 1);
        replies.push((
            thread.to_owned(),
            FComment {
                id: id.clone(),
                login: login.to_owned(),
                bot: false,
                association: "MEMBER",
                body: body.to_owned(),
                created: ts(100_000 + n),
                edited: None,
                minimized: None,
            },
        ));
        id
    }

    /// Edits the body of a conversation or thread comment by id.
    pub fn edit_body(&self, id: &str, body: &str) {
        self.state.edits.lock().unwrap().push((
            id.to_owned(),
            body.to_owned(),
            "2026-11-30T05:00:00Z".to_owned(),
        ));
    }

    /// The replies in thread `thread` beyond the PR's own comments, in order.
    pub fn thread_replies(&self, thread: &str) -> Vec<FComment> {
        self.state
            .thread_replies
            .lock()
            .unwrap()
            .iter()
            .filter(|(t, _)| t == thread)
            .map(|(_, c)| c.clone())
            .collect()
    }

    /// Whether thread `thread` is resolved now.
    pub fn is_resolved(&self, thread: &str) -> bool {
        resolved_now(&self.state, thread)
    }

    pub fn set_author(&self, login: &str, association: &str) {
        *self.state.author.lock().unwrap() = (login.to_owned(), association.to_owned());
    }

    /// Mounts the REST issue-comment endpoints (list, create, update) and the org membership
    /// check under `api_prefix`.
    pub async fn mount_rest(&self, server: &MockServer, api_prefix: &str) {
        for (m, re) in [
            ("GET", r"/repos/[^/]+/[^/]+/issues/\d+/comments$"),
            ("POST", r"/repos/[^/]+/[^/]+/issues/\d+/comments$"),
            ("PATCH", r"/repos/[^/]+/[^/]+/issues/comments/\d+$"),
            ("DELETE", r"/repos/[^/]+/[^/]+/issues/comments/\d+$"),
            ("GET", r"/orgs/[^/]+/members/[^/]+$"),
            ("GET", r"/repos/[^/]+/[^/]+/pulls$"),
        ] {
            Mock::given(method(m))
                .and(path_regex(format!("^{api_prefix}{re}")))
                .respond_with(RestResponder(self.state.clone()))
                .mount(server)
                .await;
        }
    }

    /// A server with github.com's layout (REST at the root, GraphQL at /graphql).
    pub async fn start(pr: FakePr) -> (MockServer, FakeGitHub) {
        let server = MockServer::start().await;
        let fake = FakeGitHub::new(pr);
        fake.mount(&server, "", "/graphql").await;
        fake.mount_rest(&server, "").await;
        fake.mount_reviews(&server, "").await;
        (server, fake)
    }

    pub fn set_fault(&self, f: FaultFn) {
        self.state.log.set_fault(f);
    }

    /// The head commit's check contexts (GraphQL `CheckRun` / `StatusContext` nodes).
    pub fn set_checks(&self, nodes: Vec<Value>) {
        *self.state.checks.lock().unwrap() =
            json!({"contexts": {"totalCount": nodes.len(), "nodes": nodes}});
    }

    /// The PR's dashboard fields (see [`State::dashboard`]) and the viewer's teams.
    pub fn set_dashboard(&self, fields: Value, viewer_teams: &[&str]) {
        *self.state.dashboard.lock().unwrap() = Some(fields);
        *self.state.viewer_teams.lock().unwrap() =
            viewer_teams.iter().map(|t| (*t).to_owned()).collect();
    }

    pub fn requests(&self) -> usize {
        self.state.log.requests()
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.log.seen()
    }

    /// Shepherd's reviews: added comments by the credentials' own login (`viewer`) that start
    /// with the review heading, as (database id, body).
    pub fn own_reviews(&self) -> Vec<(u64, String)> {
        let viewer = self.state.viewer.lock().unwrap().clone();
        self.extra_comments()
            .into_iter()
            .filter(|(_, c)| c.login == viewer && c.body.starts_with("## PR Shepherd Review"))
            .map(|(id, c)| (id, c.body))
            .collect()
    }
}

fn rate_headers(t: ResponseTemplate, resource: &str, remaining: usize) -> ResponseTemplate {
    t.insert_header("x-ratelimit-limit", "5000")
        .insert_header("x-ratelimit-remaining", remaining.to_string().as_str())
        .insert_header("x-ratelimit-reset", "1893456000")
        .insert_header("x-ratelimit-used", (5000 - remaining).to_string().as_str())
        .insert_header("x-ratelimit-resource", resource)
        .insert_header("x-github-media-type", "github.v3; format=json")
}

impl Respond for Responder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let st = &self.0;
        let authorization = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let is_files = req.url.path().ends_with("/files");
        let body: Value = if is_files {
            Value::Null
        } else {
            req.body_json().unwrap_or(Value::Null)
        };
        let query = body.get("query").and_then(Value::as_str).unwrap_or("");
        let kind = if is_files {
            "files"
        } else if query.contains("query PullRequestFiles") {
            "pr-files"
        } else if query.contains("mutation FileViewed") {
            "file-viewed"
        } else if query.contains("mutation FileUnviewed") {
            "file-unviewed"
        } else if query.contains("query PullRequest") {
            "pr"
        } else if query.contains("query ThreadComments") {
            "thread"
        } else if query.contains("query ThreadTails") {
            "tail"
        } else if query.contains("query HeadChecks") {
            "checks"
        } else if query.contains("query RecordDashboard") {
            "record-dashboard"
        } else if query.contains("query ViewerTeams") {
            "viewer-teams"
        } else if query.contains("query FileTexts") {
            "file-texts"
        } else if query.contains("query Viewer") {
            "viewer"
        } else if query.contains("query InboxRepoPulls") {
            "open-pulls"
        } else if query.contains("mutation ThreadReply") {
            "reply"
        } else if query.contains("mutation ThreadResolve") {
            "resolve"
        } else if query.contains("mutation ThreadUnresolve") {
            "unresolve"
        } else if query.trim_start().starts_with("mutation") {
            "mutation"
        } else {
            "other"
        };
        let variables = if is_files {
            json!({"page": page_of(req)})
        } else {
            body.get("variables").cloned().unwrap_or(Value::Null)
        };
        let seen = Seen {
            kind,
            variables,
            authorization,
            path: req.url.path().to_owned(),
        };
        let (n, fault) = st.log.record(&seen);
        if let Some(t) = fault {
            return t;
        }
        let remaining = 5000usize.saturating_sub(n + 1);
        match kind {
            "files" => rate_headers(files(st, req), "core", remaining),
            "pr-files" => rate_headers(
                ResponseTemplate::new(200).set_body_json(pr_files_answer(st, &seen.variables)),
                "graphql",
                remaining,
            ),
            "file-viewed" | "file-unviewed" => ResponseTemplate::new(200)
                .set_body_json(viewed_answer(st, &seen.variables, kind == "file-viewed")),
            "pr" => rate_headers(
                ResponseTemplate::new(200).set_body_json(pr_answer(st, &seen.variables)),
                "graphql",
                remaining,
            ),
            "thread" => rate_headers(
                ResponseTemplate::new(200).set_body_json(thread_answer(st, &seen.variables)),
                "graphql",
                remaining,
            ),
            "tail" => rate_headers(
                ResponseTemplate::new(200).set_body_json(tail_answer(st, &seen.variables)),
                "graphql",
                remaining,
            ),
            "open-pulls" => rate_headers(
                ResponseTemplate::new(200).set_body_json(open_pulls_answer(st, &seen.variables)),
                "graphql",
                remaining,
            ),
            "mutation" => ResponseTemplate::new(200).set_body_json(mutation_answer(
                st,
                query,
                &seen.variables,
            )),
            "viewer" => ResponseTemplate::new(200).set_body_json(
                json!({"data": {"viewer": {"login": st.viewer.lock().unwrap().clone()}}}),
            ),
            "checks" => rate_headers(
                ResponseTemplate::new(200).set_body_json(checks_answer(st, &seen.variables)),
                "graphql",
                remaining,
            ),
            "record-dashboard" => ResponseTemplate::new(200).set_body_json(json!({
                "data": {"rateLimit": rate_limit(), "repository": {"pullRequest": listed_node(st)}}
            })),
            "viewer-teams" => {
                let teams: Vec<Value> = st
                    .viewer_teams
                    .lock()
                    .unwrap()
                    .iter()
                    .map(|t| json!({"combinedSlug": t}))
                    .collect();
                ResponseTemplate::new(200).set_body_json(json!({"data": {"viewer": {
                    "organizations": {"nodes": [{"teams": {"nodes": teams}}]}
                }}}))
            }
            "file-texts" => rate_headers(
                ResponseTemplate::new(200).set_body_json(file_texts_answer(&seen.variables)),
                "graphql",
                remaining,
            ),
            "reply" => reply_answer(st, &seen.variables),
            "resolve" | "unresolve" => resolve_answer(st, &seen.variables, kind == "resolve"),
            _ => ResponseTemplate::new(400)
                .set_body_json(json!({"message": "Problems parsing JSON"})),
        }
    }
}

/// GraphQL `FileTexts` (`record`'s batched `object(expression:)`): each `fN` a blob whose text
/// names its expression; `src/mod7.rs` is binary and `src/mod8.rs` 2 MiB at every commit.
fn file_texts_answer(v: &Value) -> Value {
    let mut repo = serde_json::Map::new();
    for i in 0.. {
        let Some(expr) = v[format!("f{i}")].as_str() else {
            break;
        };
        let path = expr.split_once(':').map_or("", |(_, p)| p);
        let blob = match path {
            "src/mod7.rs" => json!({"__typename": "Blob", "oid": format!("oid-{expr}"),
                "byteSize": 10, "isBinary": true, "isTruncated": false, "text": null}),
            "src/mod8.rs" => json!({"__typename": "Blob", "oid": format!("oid-{expr}"),
                "byteSize": 2_097_152, "isBinary": false, "isTruncated": true, "text": null}),
            _ => json!({"__typename": "Blob", "oid": format!("oid-{expr}"),
                "byteSize": expr.len() + 4, "isBinary": false, "isTruncated": false,
                "text": format!("// {expr}\n")}),
        };
        repo.insert(format!("f{i}"), blob);
    }
    json!({"data": {"rateLimit": rate_limit(), "repository": repo}})
}

fn page_of(req: &Request) -> usize {
    req.url
        .query_pairs()
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(1)
}

/// The path of generated file `i`.
pub fn file_path(i: usize) -> String {
    format!("src/mod{i}.rs")
}

/// The patch of generated file `i` (unless replaced with `set_patch`).
fn patch_of(st: &State, i: usize) -> Option<String> {
    match st.patches.lock().unwrap().get(&file_path(i)) {
        Some(p) => p.clone(),
        None => Some(format!(
            "@@ -1,3 +1,5 @@\n fn f{i}() {{\n-    old();\n+    new();\n+    more();\n+    again();\n }}"
        )),
    }
}

/// GraphQL `PullRequestFiles`: 100 files a page, with the viewer's viewed state.
fn pr_files_answer(st: &State, v: &Value) -> Value {
    if v["owner"] != OWNER || v["repo"] != REPO || v["number"] != NUMBER {
        return json!({
            "data": {"rateLimit": rate_limit(), "repository": {"pullRequest": null}},
            "errors": [{"type": "NOT_FOUND", "path": ["repository", "pullRequest"],
                "message": "Could not resolve to a PullRequest."}]
        });
    }
    let total = st.pr.files;
    let start = offset(&v["after"]);
    let end = total.min(start + 100);
    let viewed = st.viewed.lock().unwrap();
    let nodes: Vec<Value> = (start..end)
        .map(|i| {
            let path = file_path(i);
            let state = viewed
                .get(&path)
                .cloned()
                .unwrap_or_else(|| "UNVIEWED".to_owned());
            json!({
                "path": path,
                "changeType": if i % 10 == 9 { "RENAMED" } else { "MODIFIED" },
                "additions": 3,
                "deletions": 1,
                "viewerViewedState": state,
            })
        })
        .collect();
    json!({"data": {"rateLimit": rate_limit(), "repository": {"pullRequest": {
        "id": "PR_kwDOAfake0042",
        "changedFiles": total,
        "files": {
            "pageInfo": {"hasNextPage": end < total, "endCursor": if end > start { Value::String(cursor(end)) } else { Value::Null }},
            "nodes": nodes,
        }
    }}}})
}

/// `markFileAsViewed` / `unmarkFileAsViewed`: GitHub refuses a path the PR does not change.
fn viewed_answer(st: &State, v: &Value, viewed: bool) -> Value {
    let field = if viewed {
        "markFileAsViewed"
    } else {
        "unmarkFileAsViewed"
    };
    let path = v["path"].as_str().unwrap_or("");
    let known = (0..st.pr.files).any(|i| file_path(i) == path);
    if v["pullRequestId"] != "PR_kwDOAfake0042" || !known {
        return json!({"data": {field: null}, "errors": [{
            "type": "NOT_FOUND", "path": [field],
            "message": format!("Could not resolve file for path '{path}'."),
        }]});
    }
    let mut map = st.viewed.lock().unwrap();
    if viewed {
        map.insert(path.to_owned(), "VIEWED".to_owned());
    } else {
        map.remove(path);
    }
    json!({"data": {field: {"clientMutationId": null}}})
}

fn files(st: &State, req: &Request) -> ResponseTemplate {
    let page = page_of(req);
    let per = 100usize;
    let total = st.pr.files;
    let start = (page - 1) * per;
    let list: Vec<Value> = (start..total.min(start + per))
        .map(|i| {
            let name = file_path(i);
            json!({
                "sha": format!("{:040x}", i + 1),
                "filename": name,
                "status": if i % 10 == 9 { "renamed" } else { "modified" },
                "additions": 3,
                "deletions": 1,
                "changes": 4,
                "blob_url": format!("https://github.com/{OWNER}/{REPO}/blob/abc/{name}"),
                "raw_url": format!("https://github.com/{OWNER}/{REPO}/raw/abc/{name}"),
                "contents_url": format!("https://api.github.com/repos/{OWNER}/{REPO}/contents/{name}?ref=abc"),
                "patch": patch_of(st, i),
                "previous_filename": if i % 10 == 9 { Value::String(format!("src/old{i}.rs")) } else { Value::Null },
            })
        })
        .map(|mut v| {
            if v["previous_filename"].is_null() {
                v.as_object_mut().unwrap().remove("previous_filename");
            }
            if v["patch"].is_null() {
                // GitHub leaves `patch` out for binary and too-large files.
                v.as_object_mut().unwrap().remove("patch");
            }
            v
        })
        .collect();
    let pages = total.div_ceil(per).max(1);
    let root = st.api_base.lock().unwrap().clone();
    let mut t = ResponseTemplate::new(200).set_body_json(list);
    if page > 1 && *st.repeat_cursor.lock().unwrap() == Some("files") {
        let path = req.url.path();
        let same = format!("<{root}{path}?per_page=100&page={page}>; rel=\"next\"");
        return t.insert_header("link", same.as_str());
    }
    if page < pages {
        let path = req.url.path();
        let next = format!(
            "<{root}{path}?per_page=100&page={}>; rel=\"next\", <{root}{path}?per_page=100&page={pages}>; rel=\"last\"",
            page + 1
        );
        t = t.insert_header("link", next.as_str());
    }
    t
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

fn actor(c: &FComment) -> Value {
    json!({"__typename": if c.bot { "Bot" } else { "User" }, "login": c.login})
}

/// The database id in an item's HTML URL: a node id ending in `:db<digits>` names it (for tests
/// that answer a review or a review comment by database id); others use the id's length.
fn db_part(id: &str) -> String {
    id.rsplit_once(":db")
        .map_or_else(|| id.len().to_string(), |(_, d)| d.to_owned())
}

fn comment_json(c: &FComment, thread: bool) -> Value {
    let mut v = json!({
        "id": c.id,
        "author": actor(c),
        "authorAssociation": c.association,
        "createdAt": c.created,
        "lastEditedAt": c.edited,
        "url": format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#{}", if thread { format!("discussion_r{}", db_part(&c.id)) } else { format!("issuecomment-{}", c.id.len()) }),
        "body": c.body,
        "isMinimized": c.minimized.is_some(),
        "minimizedReason": c.minimized,
    });
    if thread {
        v["diffHunk"] = json!("@@ -10,6 +10,8 @@ fn main() {\n     let x = 1;\n+    let y = 2;");
    }
    v
}

fn page<T>(all: &[T], after: &Value, f: impl Fn(&T) -> Value) -> Value {
    let start = offset(after).min(all.len());
    let end = (start + 100).min(all.len());
    json!({
        "pageInfo": {"hasNextPage": end < all.len(), "endCursor": if end > start { Value::String(cursor(end)) } else { Value::Null }},
        "nodes": all[start..end].iter().map(f).collect::<Vec<_>>(),
    })
}

/// A thread's comments as they are now: the PR's, then added replies, with edits applied.
fn thread_comments_now(st: &State, t: &FThread) -> Vec<FComment> {
    let mut all = t.comments.clone();
    for (thread, c) in st.thread_replies.lock().unwrap().iter() {
        if *thread == t.id {
            all.push(c.clone());
        }
    }
    apply_edits(st, &mut all);
    all
}

fn apply_edits(st: &State, comments: &mut [FComment]) {
    for (id, body, at) in st.edits.lock().unwrap().iter() {
        for c in comments.iter_mut().filter(|c| c.id == *id) {
            c.body = body.clone();
            c.edited = Some(at.clone());
        }
    }
}

fn resolved_now(st: &State, thread: &str) -> bool {
    let base = st.pr.threads.iter().any(|t| t.id == thread && t.resolved);
    st.resolutions
        .lock()
        .unwrap()
        .iter()
        .rev()
        .find(|(t, _)| t == thread)
        .map_or(base, |(_, r)| *r)
}

fn thread_json(st: &State, t: &FThread) -> Value {
    json!({
        "id": t.id,
        "isResolved": resolved_now(st, &t.id),
        "isOutdated": t.outdated,
        "path": t.path,
        "line": t.line,
        "originalLine": t.original_line,
        "comments": page(&thread_comments_now(st, t), &Value::Null, |c| comment_json(c, true)),
    })
}

/// `addPullRequestReviewThreadReply`: stored as the viewer's reply, in GitHub's payload shape.
fn reply_answer(st: &State, v: &Value) -> ResponseTemplate {
    let thread = v["threadId"].as_str().unwrap_or("");
    let body = v["body"].as_str().unwrap_or("");
    if *st.locked.lock().unwrap() {
        return ResponseTemplate::new(200).set_body_json(json!({
            "data": {"addPullRequestReviewThreadReply": null},
            "errors": [{"type": "UNPROCESSABLE", "path": ["addPullRequestReviewThreadReply"],
                        "locations": [{"line": 3, "column": 3}],
                        "message": "Unable to create comment because issue is locked."}],
        }));
    }
    if !st.pr.threads.iter().any(|t| t.id == thread) {
        return ResponseTemplate::new(200).set_body_json(json!({
            "data": {"addPullRequestReviewThreadReply": null},
            "errors": [{"type": "NOT_FOUND", "path": ["addPullRequestReviewThreadReply"],
                        "message": format!("Could not resolve to a node with the global id of '{thread}'")}],
        }));
    }
    if body.trim().is_empty() {
        return ResponseTemplate::new(200).set_body_json(json!({
            "data": {"addPullRequestReviewThreadReply": null},
            "errors": [{"type": "UNPROCESSABLE", "message": "Body can't be blank"}],
        }));
    }
    if too_long(body) {
        return ResponseTemplate::new(200).set_body_json(json!({
            "data": {"addPullRequestReviewThreadReply": null},
            "errors": [{"type": "UNPROCESSABLE", "path": ["addPullRequestReviewThreadReply"],
                        "locations": [{"line": 2, "column": 3}], "message": "Body is too long"}],
        }));
    }
    let mut replies = st.thread_replies.lock().unwrap();
    let c = FComment {
        id: format!("PRRC_kwDOR{:08}", replies.len() + 1),
        login: st.viewer.lock().unwrap().clone(),
        bot: false,
        association: "MEMBER",
        body: body.to_owned(),
        created: ts(100_000 + replies.len()),
        edited: None,
        minimized: None,
    };
    replies.push((thread.to_owned(), c.clone()));
    let mut fail = st.fail_replies_after_store.lock().unwrap();
    if *fail > 0 {
        *fail -= 1;
        return ResponseTemplate::new(502).set_body_json(json!({"message": "Server Error"}));
    }
    let mut comment = comment_json(&c, true);
    comment["author"] = json!({"__typename": "User", "login": c.login});
    let answer = ResponseTemplate::new(200)
        .set_body_json(json!({"data": {"addPullRequestReviewThreadReply": {"comment": comment}}}));
    match *st.reply_hold.lock().unwrap() {
        Some(hold) => answer.set_delay(hold),
        None => answer,
    }
}

/// `resolveReviewThread` / `unresolveReviewThread`.
fn resolve_answer(st: &State, v: &Value, resolve: bool) -> ResponseTemplate {
    let thread = v["threadId"].as_str().unwrap_or("");
    let field = if resolve {
        "resolveReviewThread"
    } else {
        "unresolveReviewThread"
    };
    if !st.pr.threads.iter().any(|t| t.id == thread) {
        return ResponseTemplate::new(200).set_body_json(json!({
            "data": {field: null},
            "errors": [{"type": "NOT_FOUND", "path": [field],
                        "message": format!("Could not resolve to a node with the global id of '{thread}'")}],
        }));
    }
    st.resolutions
        .lock()
        .unwrap()
        .push((thread.to_owned(), resolve));
    ResponseTemplate::new(200)
        .set_body_json(json!({"data": {field: {"thread": {"id": thread, "isResolved": resolve}}}}))
}

fn rate_limit() -> Value {
    json!({"cost": 1, "remaining": 4990, "resetAt": "2030-01-01T00:00:00Z"})
}

/// Replaces the nodes named in [`State::null_nodes`] with `null`, each with GitHub's error at
/// its path (`repository.pullRequest.comments.nodes.3`).
fn null_nodes(st: &State, p: &mut Value, errors: &mut Vec<Value>) {
    let ids = st.null_nodes.lock().unwrap().clone();
    if ids.is_empty() {
        return;
    }
    let mut null_in = |nodes: &mut Value, path: Vec<Value>| {
        for (i, node) in nodes.as_array_mut().into_iter().flatten().enumerate() {
            let id = node["id"].as_str().unwrap_or("").to_owned();
            if ids.contains(&id) {
                *node = Value::Null;
                let mut at = path.clone();
                at.extend([json!("nodes"), json!(i)]);
                errors.push(json!({
                    "type": "FORBIDDEN",
                    "path": at,
                    "locations": [{"line": 41, "column": 9}],
                    "message": "Resource not accessible by integration",
                }));
            }
        }
    };
    let base = || vec![json!("repository"), json!("pullRequest")];
    for conn in ["comments", "reviews", "reviewThreads"] {
        if !p[conn].is_null() {
            let mut path = base();
            path.push(json!(conn));
            null_in(&mut p[conn]["nodes"], path);
        }
    }
    if let Some(threads) = p["reviewThreads"]["nodes"].as_array_mut() {
        for (t, thread) in threads.iter_mut().enumerate() {
            if thread.is_null() {
                continue;
            }
            let mut path = base();
            path.extend([
                json!("reviewThreads"),
                json!("nodes"),
                json!(t),
                json!("comments"),
            ]);
            null_in(&mut thread["comments"]["nodes"], path);
        }
    }
}

fn pr_answer(st: &State, v: &Value) -> Value {
    let pr = &st.pr;
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    if v["owner"] != OWNER || v["repo"] != REPO {
        return json!({
            "data": {"rateLimit": rate_limit(), "repository": null},
            "errors": [{
                "type": "NOT_FOUND",
                "path": ["repository"],
                "locations": [{"line": 22, "column": 3}],
                "message": format!("Could not resolve to a Repository with the name '{}/{}'.", v["owner"].as_str().unwrap_or(""), v["repo"].as_str().unwrap_or("")),
            }]
        });
    }
    let number = v["number"].as_u64().unwrap_or(0);
    if number != NUMBER {
        let mut repo = json!({"pullRequest": null});
        if flag("withMeta") {
            repo["issueOrPullRequest"] = if number == ISSUE_NUMBER {
                json!({"__typename": "Issue"})
            } else {
                Value::Null
            };
        }
        return json!({
            "data": {"rateLimit": rate_limit(), "repository": repo},
            "errors": [{
                "type": "NOT_FOUND",
                "path": ["repository", "pullRequest"],
                "locations": [{"line": 27, "column": 5}],
                "message": format!("Could not resolve to a PullRequest with the number of {number}."),
            }]
        });
    }
    let mut p = json!({"id": "PR_kwDOA0000042", "number": NUMBER});
    if flag("withMeta") {
        let m = p.as_object_mut().unwrap();
        m.insert("title".into(), json!("Add the frobnicator"));
        m.insert("body".into(), json!("This adds it.\n\nCloses #7."));
        m.insert(
            "url".into(),
            json!(format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}")),
        );
        m.insert("isDraft".into(), json!(false));
        m.insert("state".into(), json!(*st.pr_state.lock().unwrap()));
        m.insert("baseRefName".into(), json!("main"));
        m.insert("headRefName".into(), json!("frob"));
        m.insert(
            "baseRefOid".into(),
            json!("9fceb02d0ae598e95dc970b74767f19372d61af8"),
        );
        m.insert("headRefOid".into(), json!(*st.head_sha.lock().unwrap()));
        let (login, association) = st.author.lock().unwrap().clone();
        m.insert(
            "author".into(),
            json!({"__typename": "User", "login": login}),
        );
        m.insert("authorAssociation".into(), json!(association));
    }
    if flag("withLabels") {
        p["labels"] = page(&pr.labels, &v["labelsAfter"], |l| json!({"name": l}));
    }
    if flag("withThreads") {
        let mut threads = pr.threads.clone();
        threads.extend(super::fake_reviews::posted_threads(st));
        p["reviewThreads"] = page(&threads, &v["threadsAfter"], |t| thread_json(st, t));
    }
    if flag("withComments") {
        let mut comments = pr.comments.clone();
        apply_edits(st, &mut comments);
        let mut all: Vec<Value> = comments.iter().map(|c| comment_json(c, false)).collect();
        for (db, c) in st.extra_comments.lock().unwrap().iter() {
            let mut j = comment_json(c, false);
            j["url"] = json!(format!(
                "https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#issuecomment-{db}"
            ));
            all.push(j);
        }
        p["comments"] = page(&all, &v["commentsAfter"], Value::clone);
        if *st.repeat_cursor.lock().unwrap() == Some("comments") && !v["commentsAfter"].is_null() {
            p["comments"]["pageInfo"] =
                json!({"hasNextPage": true, "endCursor": v["commentsAfter"]});
        }
    }
    let mut errors = Vec::new();
    if flag("withReviews") {
        if *st.partial_reviews_error.lock().unwrap() {
            p["reviews"] = Value::Null;
            errors.push(json!({
                "type": "SERVICE_UNAVAILABLE",
                "path": ["repository", "pullRequest", "reviews"],
                "locations": [{"line": 80, "column": 7}],
                "message": "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug.",
            }));
        } else {
            p["reviews"] = page(&pr.reviews, &v["reviewsAfter"], |r| {
                let mut c = comment_json(&r.comment, false);
                c["state"] = json!(r.state);
                c["submittedAt"] = json!(r.comment.created);
                c["url"] = json!(format!(
                    "https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#pullrequestreview-{}",
                    db_part(&r.comment.id)
                ));
                c
            });
        }
    }
    null_nodes(st, &mut p, &mut errors);
    let mut repo = json!({"pullRequest": p});
    if flag("withMeta") {
        repo["issueOrPullRequest"] = json!({"__typename": "PullRequest"});
    }
    let mut out = json!({"data": {"rateLimit": rate_limit(), "repository": repo}});
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    out
}

/// `InboxRepoPulls`: the fake's one open PR (as `watch` and the inbox list it).
fn open_pulls_answer(st: &State, v: &Value) -> Value {
    if v["owner"] != OWNER || v["repo"] != REPO {
        return json!({
            "data": {"rateLimit": rate_limit(), "repository": null},
            "errors": [{"type": "NOT_FOUND", "path": ["repository"],
                "message": format!("Could not resolve to a Repository with the name '{}/{}'.", v["owner"].as_str().unwrap_or(""), v["repo"].as_str().unwrap_or(""))}]
        });
    }
    json!({"data": {"rateLimit": rate_limit(), "repository": {"pullRequests": {
        "pageInfo": {"hasNextPage": false, "endCursor": cursor(1)},
        "nodes": [listed_node(st)],
    }}}})
}

/// The PR as the inbox lists it (`InboxListedPr`), with its dashboard fields when set.
fn listed_node(st: &State) -> Value {
    let (login, association) = st.author.lock().unwrap().clone();
    let mut node = json!({
        "number": NUMBER,
        "title": "Add the frobnicator",
        "url": format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}"),
        "isDraft": false,
        "state": "OPEN",
        "headRefOid": "6dcb09b5b57875f334f61aebed695e2e4193db5e",
        "updatedAt": ts(0),
        "author": {"__typename": "User", "login": login},
        "authorAssociation": association,
        "repository": {"name": REPO, "owner": {"login": OWNER}},
        "labels": {"nodes": st.pr.labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>()},
    });
    if let (Some(m), Some(Value::Object(d))) =
        (node.as_object_mut(), st.dashboard.lock().unwrap().clone())
    {
        m.extend(d);
    }
    node
}

/// `HeadChecks`: the head commit's rollup; another commit is not found.
fn checks_answer(st: &State, v: &Value) -> Value {
    if v["sha"] != *st.head_sha.lock().unwrap() {
        return json!({"data": {"rateLimit": rate_limit(), "repository": {"object": null}},
            "errors": [{"type": "NOT_FOUND", "path": ["repository", "object"],
                "message": "Could not resolve to a Commit."}]});
    }
    json!({"data": {"rateLimit": rate_limit(), "repository": {"object": {
        "__typename": "Commit",
        "statusCheckRollup": st.checks.lock().unwrap().clone(),
    }}}})
}

/// Comment mutations (`addComment`, `updateIssueComment`, `addPullRequestReviewThreadReply`):
/// a body over [`BODY_LIMIT`] is refused the way GitHub's GraphQL API does (the field is null, an
/// UNPROCESSABLE error says "Body is too long"); `addComment` on the PR stores a conversation
/// comment.
fn mutation_answer(st: &State, query: &str, v: &Value) -> Value {
    let field = [
        "addPullRequestReviewThreadReply",
        "updateIssueComment",
        "addComment",
    ]
    .into_iter()
    .find(|f| query.contains(f))
    .unwrap_or("unknownMutation");
    let input = v.get("input").unwrap_or(v);
    let body = input.get("body").and_then(Value::as_str).unwrap_or("");
    if too_long(body) {
        return json!({
            "data": {field: null},
            "errors": [{
                "type": "UNPROCESSABLE",
                "path": [field],
                "locations": [{"line": 2, "column": 3}],
                "message": "Body is too long",
            }]
        });
    }
    match field {
        "addComment" => {
            let mut extra = st.extra_comments.lock().unwrap();
            let db = FIRST_EXTRA_DB_ID + extra.len() as u64;
            let id = format!("IC_kwDOX{db:08}");
            extra.push((
                db,
                FComment {
                    id: id.clone(),
                    login: st.viewer.lock().unwrap().clone(),
                    bot: false,
                    association: "MEMBER",
                    body: body.to_owned(),
                    created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    edited: None,
                    minimized: None,
                },
            ));
            let url = format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#issuecomment-{db}");
            json!({"data": {"addComment": {"commentEdge": {"node": {"id": id, "url": url}}}}})
        }
        "addPullRequestReviewThreadReply" => json!({"data": {field: {"comment": {
            "id": "PRRC_kwDOReply0001",
            "url": format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#discussion_r1"),
        }}}}),
        _ => {
            json!({"data": {field: {"issueComment": {"id": input.get("id").cloned().unwrap_or(Value::Null)}}}})
        }
    }
}

fn thread_answer(st: &State, v: &Value) -> Value {
    // One aliased `tI: node(id: $idI)` per thread of the batch.
    let mut data = serde_json::Map::new();
    data.insert("rateLimit".into(), rate_limit());
    let mut errors = Vec::new();
    for i in 0.. {
        let Some(id) = v.get(format!("id{i}")).and_then(Value::as_str) else {
            break;
        };
        let after = v.get(format!("after{i}")).cloned().unwrap_or(Value::Null);
        match st.pr.threads.iter().find(|t| t.id == id) {
            Some(t) => {
                data.insert(
                    format!("t{i}"),
                    json!({
                        "__typename": "PullRequestReviewThread",
                        "comments": page(&thread_comments_now(st, t), &after, |c| comment_json(c, true)),
                    }),
                );
            }
            None => {
                data.insert(format!("t{i}"), Value::Null);
                errors.push(json!({
                    "type": "NOT_FOUND", "path": [format!("t{i}")],
                    "message": format!("Could not resolve to a node with the global id of '{id}'")
                }));
            }
        }
    }
    let mut out = json!({"data": data});
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    out
}

/// `ThreadTails`: the last 100 comments of each aliased thread, with their count.
fn tail_answer(st: &State, v: &Value) -> Value {
    let mut data = serde_json::Map::new();
    data.insert("rateLimit".into(), rate_limit());
    for i in 0.. {
        let Some(id) = v.get(format!("id{i}")).and_then(Value::as_str) else {
            break;
        };
        let value = match st.pr.threads.iter().find(|t| t.id == id) {
            Some(t) => {
                let all = thread_comments_now(st, t);
                let from = all.len().saturating_sub(100);
                json!({
                    "__typename": "PullRequestReviewThread",
                    "comments": {
                        "totalCount": all.len(),
                        "pageInfo": {"hasNextPage": false, "endCursor": cursor(all.len())},
                        "nodes": all[from..].iter().map(|c| comment_json(c, true)).collect::<Vec<_>>(),
                    },
                })
            }
            None => Value::Null,
        };
        data.insert(format!("t{i}"), value);
    }
    json!({"data": data})
}

/// The REST side: issue comments (list / create / update) and org membership.
struct RestResponder(Arc<State>);

fn rest_comment(db: u64, c: &FComment) -> Value {
    json!({
        "id": db,
        "node_id": c.id,
        "url": format!("https://api.github.com/repos/{OWNER}/{REPO}/issues/comments/{db}"),
        "html_url": format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#issuecomment-{db}"),
        "issue_url": format!("https://api.github.com/repos/{OWNER}/{REPO}/issues/{NUMBER}"),
        "body": c.body,
        "user": {"login": c.login, "id": 1, "type": if c.bot { "Bot" } else { "User" }},
        "author_association": c.association,
        "created_at": c.created,
        "updated_at": c.edited.clone().unwrap_or_else(|| c.created.clone()),
    })
}

impl Respond for RestResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let st = &self.0;
        let p = req.url.path().to_owned();
        let m = req.method.to_string();
        let kind = if p.contains("/orgs/") {
            "org-member"
        } else if p.ends_with("/pulls") {
            "open-pulls"
        } else if m == "GET" {
            "list-comments"
        } else if m == "POST" {
            "create-comment"
        } else if m == "DELETE" {
            "delete-comment"
        } else {
            "update-comment"
        };
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let seen = Seen {
            kind,
            variables: body.clone(),
            authorization: req
                .headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            path: p.clone(),
        };
        if let (_, Some(t)) = st.log.record(&seen) {
            return t;
        }
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        match kind {
            "open-pulls" => rate_headers(
                ResponseTemplate::new(200).set_body_json(json!([{
                    "number": NUMBER,
                    "state": "open",
                    "draft": false,
                    "head": {"sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"},
                    "user": {"login": st.author.lock().unwrap().0.clone()},
                }])),
                "core",
                4000,
            ),
            "org-member" => {
                let login = p.rsplit('/').next().unwrap_or("");
                if st.org_members.lock().unwrap().iter().any(|l| l == login) {
                    ResponseTemplate::new(204)
                } else {
                    ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                }
            }
            "list-comments" => {
                let mut all: Vec<Value> = st
                    .pr
                    .comments
                    .iter()
                    .enumerate()
                    .map(|(i, c)| rest_comment(FIRST_COMMENT_DB_ID + i as u64, c))
                    .collect();
                for (db, c) in st.extra_comments.lock().unwrap().iter() {
                    all.push(rest_comment(*db, c));
                }
                // Pages of 30 unless per_page says otherwise, with GitHub's Link header.
                let per = req
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "per_page")
                    .and_then(|(_, v)| v.parse::<usize>().ok())
                    .unwrap_or(30)
                    .clamp(1, 100);
                let page = page_of(req);
                let start = ((page - 1) * per).min(all.len());
                let end = (start + per).min(all.len());
                let mut t = ResponseTemplate::new(200).set_body_json(&all[start..end]);
                if end < all.len() {
                    let root = st.api_base.lock().unwrap().clone();
                    let link =
                        format!("<{root}{p}?per_page={per}&page={}>; rel=\"next\"", page + 1);
                    t = t.insert_header("link", link.as_str());
                }
                if let Some(d) = *st.list_delay.lock().unwrap() {
                    t = t.set_delay(d);
                }
                rate_headers(t, "core", 4000)
            }
            "delete-comment" => {
                let db: u64 = p
                    .rsplit('/')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let viewer = st.viewer.lock().unwrap().clone();
                let mut extra = st.extra_comments.lock().unwrap();
                match extra.iter().position(|(id, _)| *id == db) {
                    Some(i) if extra[i].1.login == viewer => {
                        extra.remove(i);
                        ResponseTemplate::new(204)
                    }
                    Some(_) => ResponseTemplate::new(403)
                        .set_body_json(json!({"message": "Must have admin rights to Repository."})),
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            }
            "create-comment" => {
                let Some(text) = body.get("body").and_then(Value::as_str) else {
                    return ResponseTemplate::new(422)
                        .set_body_json(json!({"message": "Validation Failed"}));
                };
                if too_long(text) {
                    return body_too_long_rest();
                }
                let mut extra = st.extra_comments.lock().unwrap();
                let db = FIRST_EXTRA_DB_ID + extra.len() as u64;
                let c = FComment {
                    id: format!("IC_kwDOX{db:08}"),
                    login: st.viewer.lock().unwrap().clone(),
                    bot: false,
                    association: "MEMBER",
                    body: text.to_owned(),
                    created: now,
                    edited: None,
                    minimized: None,
                };
                let answer = rest_comment(db, &c);
                extra.push((db, c));
                let mut fail = st.fail_creates_after_store.lock().unwrap();
                if *fail > 0 {
                    *fail -= 1;
                    return ResponseTemplate::new(502)
                        .set_body_json(json!({"message": "Server Error"}));
                }
                ResponseTemplate::new(201).set_body_json(answer)
            }
            _ => {
                let db: u64 = p
                    .rsplit('/')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let Some(text) = body.get("body").and_then(Value::as_str) else {
                    return ResponseTemplate::new(422)
                        .set_body_json(json!({"message": "Validation Failed"}));
                };
                if too_long(text) {
                    return body_too_long_rest();
                }
                let viewer = st.viewer.lock().unwrap().clone();
                let mut extra = st.extra_comments.lock().unwrap();
                match extra.iter_mut().find(|(id, _)| *id == db) {
                    // GitHub lets only the author (or an admin) edit; the fake is strict.
                    Some((_, c)) if c.login == viewer => {
                        c.body = text.to_owned();
                        c.edited = Some(now);
                        ResponseTemplate::new(200).set_body_json(rest_comment(db, c))
                    }
                    Some(_) => ResponseTemplate::new(403)
                        .set_body_json(json!({"message": "Must have admin rights to Repository."})),
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            }
        }
    }
}

/// A real webhook payload from tests/fixtures/webhooks, pointed at the fake's PR in an
/// organization, patched by the test, written into `dir`.
pub fn payload(
    dir: &std::path::Path,
    file: &str,
    patch: impl FnOnce(&mut Value),
) -> std::path::PathBuf {
    let text = std::fs::read_to_string(format!("tests/fixtures/webhooks/{file}")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["repository"]["full_name"] = json!(format!("{OWNER}/{REPO}"));
    v["repository"]["owner"]["login"] = json!(OWNER);
    v["repository"]["owner"]["type"] = json!("Organization");
    if v.get("pull_request").is_some() {
        v["pull_request"]["number"] = json!(NUMBER);
    }
    if v.get("issue").is_some() {
        v["issue"]["number"] = json!(NUMBER);
        v["issue"]["pull_request"] = json!({"url": "https://api.github.com/repos/x/y/pulls/42"});
    }
    patch(&mut v);
    let p = dir.join(file.replace('/', "-"));
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

/// A loopback "GitHub" whose answer never ends: every request gets `200`, chunked transfer
/// encoding (no `Content-Length` to refuse up front) and a JSON-looking body that goes on,
/// 64 KiB a chunk, until `max_bytes` or until the client hangs up. Returns its root URL and
/// how many body bytes it managed to send, counted as it goes.
pub async fn endless_answer_server(
    max_bytes: usize,
) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let root = format!("http://{}", listener.local_addr().unwrap());
    let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                // The request's head (and whatever of its body came with it) is read and ignored.
                let mut buf = vec![0u8; 64 * 1024];
                let _ = sock.read(&mut buf).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let piece = format!("{:x}\r\n{}\r\n", 64 * 1024, "x".repeat(64 * 1024));
                let _ = sock.write_all(b"6\r\n{\"a\":\"\r\n").await;
                let mut total = 0usize;
                while total < max_bytes {
                    if sock.write_all(piece.as_bytes()).await.is_err() {
                        return;
                    }
                    total += 64 * 1024;
                    counter.store(total, std::sync::atomic::Ordering::SeqCst);
                }
                let _ = sock.write_all(b"2\r\n\"}\r\n0\r\n\r\n").await;
            });
        }
    });
    (root, sent)
}

/// The head commit of [`checks_loopback`]'s PR.
pub const CHECKS_SHA: &str = "e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e";

/// A loopback GitHub with checks at acme/rivet#482's head ([`CHECKS_CHECKS_SHA`], the demo's): a
/// failing Actions job (`test`, workflow run 9001) with one annotation and a 201-line log, a
/// passing one, a pending commit status; the PR itself; and the failed jobs' re-run endpoint.
pub async fn checks_loopback() -> MockServer {
    let server = MockServer::start().await;
    let repo = "/repos/acme/rivet";
    Mock::given(method("GET"))
        .and(path(format!("{repo}/pulls/482")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"number": 482, "head": {"sha": CHECKS_SHA, "ref": "topic"}})),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{repo}/commits/{CHECKS_SHA}/check-runs")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "total_count": 2,
            "check_runs": [
                {"id": 31002, "name": "test", "status": "completed", "conclusion": "failure",
                 "started_at": "2026-11-20T09:15:00Z", "completed_at": "2026-11-20T09:16:05Z",
                 "html_url": "https://github.com/acme/rivet/actions/runs/9001/job/31002",
                 "details_url": "https://github.com/acme/rivet/actions/runs/9001/job/31002",
                 "head_sha": CHECKS_SHA, "output": {"title": null, "summary": null, "annotations_count": 1},
                 "app": {"slug": "github-actions"}},
                {"id": 31001, "name": "build", "status": "completed", "conclusion": "success",
                 "started_at": "2026-11-20T09:15:00Z", "completed_at": "2026-11-20T09:15:42Z",
                 "html_url": "https://github.com/acme/rivet/actions/runs/9001/job/31001",
                 "head_sha": CHECKS_SHA, "output": {"annotations_count": 0}, "app": {"slug": "github-actions"}}
            ]
        })))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{repo}/commits/{CHECKS_SHA}/status")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "state": "pending", "sha": CHECKS_SHA, "total_count": 1,
            "statuses": [{"context": "ci/docs", "state": "pending", "target_url": null,
                          "created_at": "2026-11-20T09:15:00Z", "updated_at": "2026-11-20T09:15:00Z"}]
        })))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{repo}/check-runs/31002/annotations")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            {"path": "src/lib.rs", "start_line": 7, "end_line": 7, "annotation_level": "failure",
             "title": "tests::adds", "message": "assertion failed: 2 + 2 == 5", "raw_details": null}
        ])))
        .mount(&server)
        .await;
    let log: String = (0..200)
        .map(|i| format!("2026-11-20T09:16:0{}.0000000Z step line {i}\n", i % 10))
        .collect::<String>()
        + "2026-11-20T09:16:05.0000000Z \u{1b}[31merror\u{1b}[0m: test failed\n";
    Mock::given(method("GET"))
        .and(path(format!("{repo}/actions/jobs/31002/logs")))
        .respond_with(ResponseTemplate::new(200).set_body_string(log))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(format!("{repo}/actions/runs/9001/rerun-failed-jobs")))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({})))
        .mount(&server)
        .await;
    server
}
