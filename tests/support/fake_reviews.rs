//! The loopback GitHub's pull request reviews (REST `GET`/`POST /repos/{o}/{r}/pulls/{n}/reviews`,
//! and `DELETE /repos/{o}/{r}/pulls/comments/{id}` for one of their comments)
//! with GitHub's rules for their line comments: the path must be a changed file with a patch,
//! the `side` must be `LEFT` or `RIGHT`, the line must be a line of the diff on that side, and a
//! multi-line comment needs `start_line < line` with `start_side` the same side; otherwise the
//! whole review is refused (422, as GitHub answers: `Unprocessable Entity`, "Line could not be
//! resolved") and nothing is stored. `commit_id` must be the PR's head. A stored review keeps
//! its comments, and each comment becomes a review thread in the GraphQL answers (the
//! credentials' login as its author), so a re-review sees what was posted on the lines.
//!
//! The answer shape is the recorded REST review (`rest/get_pull_request_review.json` in
//! ../shared/github).

use std::sync::Arc;

use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::fake_github::{
    FComment, FThread, FakeGitHub, NUMBER, OWNER, REPO, Seen, State, file_path,
};

/// A review stored by the fake.
#[derive(Debug, Clone)]
pub struct PostedReview {
    pub id: u64,
    pub login: String,
    pub body: String,
    pub event: String,
    pub commit_id: String,
    pub comments: Vec<PostedComment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostedComment {
    pub id: u64,
    pub path: String,
    pub side: String,
    pub line: u32,
    pub start_line: Option<u32>,
    pub body: String,
}

/// Database ids of stored reviews start here; their comments' at ten times it.
pub const FIRST_REVIEW_ID: u64 = 80;

/// The line numbers a unified patch shows on each side (an independent count, not the
/// crate's parser: the fake checks the client).
fn lines_of(patch: &str) -> (Vec<u32>, Vec<u32>) {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let (mut old, mut new) = (0u32, 0u32);
    for l in patch.lines() {
        if let Some(rest) = l.strip_prefix("@@ -") {
            let mut parts = rest.split(' ');
            let o = parts.next().unwrap_or("1");
            let n = parts.next().unwrap_or("+1").trim_start_matches('+');
            old = o
                .split(',')
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(1);
            new = n
                .split(',')
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(1);
        } else if l.starts_with('+') {
            right.push(new);
            new += 1;
        } else if l.starts_with('-') {
            left.push(old);
            old += 1;
        } else if l.starts_with('\\') {
        } else {
            left.push(old);
            right.push(new);
            old += 1;
            new += 1;
        }
    }
    (left, right)
}

/// The PR's patch of `path` as the fake serves it now.
fn patch_now(st: &State, path: &str) -> Option<String> {
    if let Some(p) = st.patches.lock().unwrap().get(path) {
        return p.clone();
    }
    (0..st.pr.files)
        .find(|i| file_path(*i) == path)
        .map(|i| {
            format!(
                "@@ -1,3 +1,5 @@\n fn f{i}() {{\n-    old();\n+    new();\n+    more();\n+    again();\n }}"
            )
        })
}

/// Why GitHub would refuse comment `c`, if it would.
fn refusal(st: &State, c: &Value) -> Option<String> {
    let path = c["path"].as_str()?;
    let Some(patch) = patch_now(st, path) else {
        return Some(format!("Path could not be resolved: {path}"));
    };
    let side = c.get("side").and_then(Value::as_str).unwrap_or("RIGHT");
    let (left, right) = lines_of(&patch);
    let on = match side {
        "LEFT" => &left,
        "RIGHT" => &right,
        _ => return Some(format!("side must be LEFT or RIGHT, not {side}")),
    };
    let line = c["line"].as_u64().map(|l| l as u32);
    let Some(line) = line.filter(|l| on.contains(l)) else {
        return Some("Line could not be resolved".to_owned());
    };
    if let Some(start) = c.get("start_line").and_then(Value::as_u64) {
        let start = start as u32;
        let start_side = c.get("start_side").and_then(Value::as_str).unwrap_or(side);
        if start >= line {
            return Some("start_line must precede line".to_owned());
        }
        if start_side != side || !on.contains(&start) {
            return Some("Start line could not be resolved".to_owned());
        }
    }
    None
}

fn review_json(r: &PostedReview) -> Value {
    let state = match r.event.as_str() {
        "APPROVE" => "APPROVED",
        "REQUEST_CHANGES" => "CHANGES_REQUESTED",
        _ => "COMMENTED",
    };
    json!({
        "id": r.id,
        "node_id": format!("PRR_kwDOX{:08}", r.id),
        "user": {"login": r.login, "id": 1, "type": "User", "site_admin": false},
        "body": r.body,
        "state": state,
        "html_url": format!("https://github.com/{OWNER}/{REPO}/pull/{NUMBER}#pullrequestreview-{}", r.id),
        "pull_request_url": format!("https://api.github.com/repos/{OWNER}/{REPO}/pulls/{NUMBER}"),
        "submitted_at": "2026-12-01T12:00:00Z",
        "commit_id": r.commit_id,
        "author_association": "MEMBER",
    })
}

fn unprocessable(why: &str) -> ResponseTemplate {
    ResponseTemplate::new(422).set_body_json(json!({
        "message": "Unprocessable Entity",
        "errors": [why],
        "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
        "status": "422",
    }))
}

struct ReviewsResponder(Arc<State>);

impl Respond for ReviewsResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let st = &self.0;
        let p = req.url.path().to_owned();
        let get = req.method == wiremock::http::Method::GET;
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let seen = Seen {
            kind: if get { "list-reviews" } else { "create-review" },
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
        if get {
            let all: Vec<Value> = st
                .reviews_posted
                .lock()
                .unwrap()
                .iter()
                .map(review_json)
                .collect();
            return ResponseTemplate::new(200).set_body_json(all);
        }
        let event = body["event"].as_str().unwrap_or("");
        if !["COMMENT", "REQUEST_CHANGES", "APPROVE"].contains(&event) {
            return unprocessable("event must be COMMENT, REQUEST_CHANGES or APPROVE");
        }
        if body["commit_id"].as_str() != Some(st.head_sha.lock().unwrap().as_str()) {
            return unprocessable("commit_sha is not part of the pull request");
        }
        let comments = body["comments"].as_array().cloned().unwrap_or_default();
        for c in &comments {
            if let Some(why) = refusal(st, c) {
                return unprocessable(&why);
            }
        }
        let text = body["body"].as_str().unwrap_or("").to_owned();
        if event == "REQUEST_CHANGES" && text.trim().is_empty() {
            return unprocessable("Body is required for REQUEST_CHANGES");
        }
        let mut all = st.reviews_posted.lock().unwrap();
        let id = FIRST_REVIEW_ID + all.len() as u64;
        let r = PostedReview {
            id,
            login: st.viewer.lock().unwrap().clone(),
            body: text,
            event: event.to_owned(),
            commit_id: body["commit_id"].as_str().unwrap_or("").to_owned(),
            comments: comments
                .iter()
                .enumerate()
                .map(|(i, c)| PostedComment {
                    id: id * 10 + i as u64,
                    path: c["path"].as_str().unwrap_or("").to_owned(),
                    side: c["side"].as_str().unwrap_or("RIGHT").to_owned(),
                    line: c["line"].as_u64().unwrap_or(0) as u32,
                    start_line: c
                        .get("start_line")
                        .and_then(Value::as_u64)
                        .map(|l| l as u32),
                    body: c["body"].as_str().unwrap_or("").to_owned(),
                })
                .collect(),
        };
        let answer = review_json(&r);
        all.push(r);
        let mut fail = st.fail_reviews_after_store.lock().unwrap();
        if *fail > 0 {
            *fail -= 1;
            return ResponseTemplate::new(502).set_body_json(json!({"message": "Server Error"}));
        }
        ResponseTemplate::new(200).set_body_json(answer)
    }
}

/// `DELETE /repos/{o}/{r}/pulls/comments/{id}`: removes a stored review's comment (and so its
/// thread); 404 when there is none by that id.
struct DeleteCommentResponder(Arc<State>);

impl Respond for DeleteCommentResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let st = &self.0;
        let p = req.url.path().to_owned();
        let seen = Seen {
            kind: "delete-review-comment",
            variables: Value::Null,
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
        let id: Option<u64> = p.rsplit('/').next().and_then(|x| x.parse().ok());
        let mut all = st.reviews_posted.lock().unwrap();
        let mut found = false;
        for r in all.iter_mut() {
            let n = r.comments.len();
            r.comments.retain(|c| Some(c.id) != id);
            found |= r.comments.len() != n;
        }
        if found {
            ResponseTemplate::new(204)
        } else {
            ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
        }
    }
}

/// The review threads the stored reviews' comments make (for the GraphQL answers).
pub fn posted_threads(st: &State) -> Vec<FThread> {
    st.reviews_posted
        .lock()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r.comments.iter().map(move |c| FThread {
                id: format!("PRRT_posted{}", c.id),
                path: c.path.clone(),
                line: Some(c.line),
                original_line: c.line,
                outdated: false,
                resolved: false,
                comments: vec![FComment {
                    id: format!("PRRC_posted:db{}", c.id),
                    login: r.login.clone(),
                    bot: false,
                    association: "MEMBER",
                    body: c.body.clone(),
                    created: "2026-12-01T12:00:00Z".to_owned(),
                    edited: None,
                    minimized: None,
                }],
            })
        })
        .collect()
}

impl FakeGitHub {
    /// Mounts the PR's reviews endpoint (list and create) under `api_prefix`.
    pub async fn mount_reviews(&self, server: &MockServer, api_prefix: &str) {
        for m in ["GET", "POST"] {
            Mock::given(method(m))
                .and(path_regex(format!(
                    r"^{api_prefix}/repos/[^/]+/[^/]+/pulls/\d+/reviews$"
                )))
                .respond_with(ReviewsResponder(self.state.clone()))
                .mount(server)
                .await;
        }
        Mock::given(method("DELETE"))
            .and(path_regex(format!(
                r"^{api_prefix}/repos/[^/]+/[^/]+/pulls/comments/\d+$"
            )))
            .respond_with(DeleteCommentResponder(self.state.clone()))
            .mount(server)
            .await;
    }

    /// The reviews stored so far, oldest first.
    pub fn reviews(&self) -> Vec<PostedReview> {
        self.state.reviews_posted.lock().unwrap().clone()
    }

    /// The next `n` review creations are stored, then answered 502 (a lost answer).
    pub fn fail_reviews_after_store(&self, n: u32) {
        *self.state.fail_reviews_after_store.lock().unwrap() = n;
    }
}
