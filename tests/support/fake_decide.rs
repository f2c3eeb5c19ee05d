//! A loopback GitHub's answers to decisions on a PR, beside [`super::fake_github::FakeGitHub`]
//! (which answers the PR's reading): the `PrDecide` query, the merge (`PUT /pulls/N/merge`, with
//! GitHub's real refusals: a moved head 409, not mergeable 405, a method not allowed 405, no
//! permission 403), close and reopen (`PATCH /pulls/N`), labels, assignees, reviewers, and the
//! GraphQL mutations for ready, draft, auto-merge, the merge queue and update branch, each with
//! GitHub's own error when the repository does not allow it. Mounted at a higher priority than
//! the PR's fake, so its other requests still reach that one.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[derive(Debug, Clone)]
pub struct DecideState {
    pub state: String,
    pub draft: bool,
    pub head: String,
    pub allowed: [bool; 3],
    pub auto_merge_allowed: bool,
    pub auto_merge: Option<String>,
    pub queue: bool,
    pub queued: bool,
    pub mergeable: String,
    pub merge_state: String,
    pub permission: String,
    pub labels: Vec<String>,
    pub repo_labels: Vec<String>,
    pub assignees: Vec<String>,
    pub reviewers: Vec<String>,
    /// The merge request is applied, then answered 502 (its answer lost).
    pub lose_merge_answer: bool,
    /// A push lands between the read and the merge: the merge finds another head.
    pub push_before_merge: bool,
    /// Every request this fake answered: `METHOD path` or the GraphQL operation.
    pub calls: Vec<String>,
    pub merge_bodies: Vec<Value>,
    pub mutation_variables: Vec<Value>,
}

impl Default for DecideState {
    fn default() -> Self {
        DecideState {
            state: "OPEN".into(),
            draft: false,
            head: "6dcb09b5b57875f334f61aebed695e2e4193db5e".into(),
            allowed: [true, true, false],
            auto_merge_allowed: true,
            auto_merge: None,
            queue: false,
            queued: false,
            mergeable: "MERGEABLE".into(),
            merge_state: "CLEAN".into(),
            permission: "WRITE".into(),
            labels: vec![],
            repo_labels: vec!["bug".into(), "good first issue".into(), "docs".into()],
            assignees: vec![],
            reviewers: vec![],
            lose_merge_answer: false,
            push_before_merge: false,
            calls: vec![],
            merge_bodies: vec![],
            mutation_variables: vec![],
        }
    }
}

#[derive(Clone, Default)]
pub struct FakeDecide {
    pub st: Arc<Mutex<DecideState>>,
}

struct Answer(Arc<Mutex<DecideState>>);

fn rest_error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request",
    }))
}

fn gql_error(message: &str, kind: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "data": null,
        "errors": [{"type": kind, "message": message, "path": ["mutation"]}],
    }))
}

impl FakeDecide {
    pub fn new() -> FakeDecide {
        FakeDecide::default()
    }

    pub fn set(&self, f: impl FnOnce(&mut DecideState)) {
        f(&mut self.st.lock().unwrap());
    }

    pub fn get(&self) -> DecideState {
        self.st.lock().unwrap().clone()
    }

    /// How many merge requests reached GitHub.
    pub fn merges(&self) -> usize {
        self.get()
            .calls
            .iter()
            .filter(|c| c.ends_with("/merge"))
            .count()
    }

    pub async fn mount(&self, server: &MockServer) {
        for op in [
            "query PrDecide",
            "mutation PrReady",
            "mutation PrDraft",
            "mutation PrAutoMerge(",
            "mutation PrAutoMergeOff",
            "mutation PrEnqueue",
            "mutation PrDequeue",
            "mutation PrUpdateBranch",
        ] {
            Mock::given(method("POST"))
                .and(path("/graphql"))
                .and(body_string_contains(op))
                .respond_with(Answer(self.st.clone()))
                .with_priority(1)
                .mount(server)
                .await;
        }
        Mock::given(path_regex(
            r"^/repos/[^/]+/[^/]+/(pulls/\d+(/merge|/requested_reviewers)?|issues/\d+/(labels(/.*)?|assignees)|labels)$",
        ))
        .respond_with(Answer(self.st.clone()))
        .with_priority(1)
        .mount(server)
        .await;
    }
}

impl Respond for Answer {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut st = self.0.lock().unwrap();
        let p = req.url.path().to_owned();
        let m = req.method.to_string();
        let body: Value = req.body_json().unwrap_or(Value::Null);
        if p == "/graphql" {
            let q = body["query"].as_str().unwrap_or_default().to_owned();
            let vars = body["variables"].clone();
            let op = q
                .split_whitespace()
                .skip_while(|w| *w != "query" && *w != "mutation")
                .nth(1)
                .unwrap_or_default()
                .split('(')
                .next()
                .unwrap_or_default()
                .to_owned();
            st.calls.push(op.clone());
            return graphql(&mut st, &op, vars);
        }
        st.calls.push(format!("{m} {p}"));
        rest(&mut st, &m, &p, body)
    }
}

fn pr_json(st: &DecideState) -> Value {
    json!({
        "id": "PR_kwDOfake", "number": 1, "title": "A fake PR", "state": st.state,
        "isDraft": st.draft, "headRefOid": st.head, "mergeable": st.mergeable,
        "mergeStateStatus": st.merge_state, "isInMergeQueue": st.queued,
        "isMergeQueueEnabled": st.queue, "reviewDecision": null,
        "autoMergeRequest": st.auto_merge.as_ref().map(|m| json!({"mergeMethod": m})),
        "mergeHeadline": "Merge pull request #1 from fork/branch", "mergeBody": "A fake PR",
        "squashHeadline": "A fake PR (#1)", "squashBody": "* one commit",
        "latestOpinionatedReviews": {"nodes": []},
        "commits": {"totalCount": 1, "nodes": [{"commit": {"oid": st.head, "statusCheckRollup": null}}]},
    })
}

fn graphql(st: &mut DecideState, op: &str, vars: Value) -> ResponseTemplate {
    st.mutation_variables.push(vars.clone());
    let ok = |v: Value| ResponseTemplate::new(200).set_body_json(json!({ "data": v }));
    let moved = |st: &DecideState| {
        vars["head"]
            .as_str()
            .is_some_and(|h| !st.head.starts_with(h) && !h.starts_with(&st.head))
    };
    match op {
        "PrDecide" => ok(json!({"repository": {
            "mergeCommitAllowed": st.allowed[0], "squashMergeAllowed": st.allowed[1],
            "rebaseMergeAllowed": st.allowed[2], "autoMergeAllowed": st.auto_merge_allowed,
            "viewerPermission": st.permission, "pullRequest": pr_json(st),
        }})),
        "PrReady" => {
            st.draft = false;
            ok(
                json!({"markPullRequestReadyForReview": {"pullRequest": {"id": "PR_kwDOfake", "isDraft": false}}}),
            )
        }
        "PrDraft" => {
            st.draft = true;
            ok(
                json!({"convertPullRequestToDraft": {"pullRequest": {"id": "PR_kwDOfake", "isDraft": true}}}),
            )
        }
        "PrAutoMerge" => {
            if !st.auto_merge_allowed {
                return gql_error(
                    "Auto merge is not allowed for this repository",
                    "UNPROCESSABLE",
                );
            }
            if moved(st) {
                return gql_error("Head sha didn't match expected head sha", "UNPROCESSABLE");
            }
            st.auto_merge = vars["method"].as_str().map(str::to_owned);
            ok(
                json!({"enablePullRequestAutoMerge": {"pullRequest": {"id": "PR_kwDOfake", "autoMergeRequest": {"mergeMethod": st.auto_merge}}}}),
            )
        }
        "PrAutoMergeOff" => {
            st.auto_merge = None;
            ok(json!({"disablePullRequestAutoMerge": {"pullRequest": {"id": "PR_kwDOfake"}}}))
        }
        "PrEnqueue" => {
            if !st.queue {
                return gql_error(
                    "Pull request is not in a state that can be enqueued: the base branch has no merge queue",
                    "UNPROCESSABLE",
                );
            }
            if moved(st) {
                return gql_error("Head sha didn't match expected head sha", "UNPROCESSABLE");
            }
            st.queued = true;
            ok(json!({"enqueuePullRequest": {"mergeQueueEntry": {"id": "MQE_1", "position": 2}}}))
        }
        "PrDequeue" => {
            st.queued = false;
            ok(json!({"dequeuePullRequest": {"mergeQueueEntry": {"id": "MQE_1"}}}))
        }
        "PrUpdateBranch" => {
            if moved(st) {
                return gql_error("Head sha didn't match expected head sha", "UNPROCESSABLE");
            }
            st.head = "0ddba11c0ffee0000000000000000000000000aa".into();
            ok(
                json!({"updatePullRequestBranch": {"pullRequest": {"id": "PR_kwDOfake", "headRefOid": st.head}}}),
            )
        }
        _ => gql_error("unknown operation", "NOT_FOUND"),
    }
}

fn rest(st: &mut DecideState, m: &str, p: &str, body: Value) -> ResponseTemplate {
    let names = |v: &Value, key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    if st.permission == "READ" && m != "GET" {
        return rest_error(403, "Resource not accessible by integration");
    }
    if p.ends_with("/merge") && m == "PUT" {
        st.merge_bodies.push(body.clone());
        if st.state == "MERGED" {
            return rest_error(405, "Pull Request is not mergeable");
        }
        let method = body["merge_method"].as_str().unwrap_or("merge");
        let i = ["merge", "squash", "rebase"]
            .iter()
            .position(|x| *x == method)
            .unwrap_or(0);
        if !st.allowed[i] {
            return rest_error(405, "Merge commits are not allowed on this repository.");
        }
        if st.push_before_merge {
            st.head = "beadbead00000000000000000000000000000002".into();
        }
        let sha = body["sha"].as_str().unwrap_or_default();
        if !sha.is_empty() && !st.head.starts_with(sha) {
            return rest_error(
                409,
                "Head branch was modified. Review and try the merge again.",
            );
        }
        if st.merge_state == "BLOCKED" {
            return rest_error(
                405,
                "At least 1 approving review is required by reviewers with write access.",
            );
        }
        if st.mergeable == "CONFLICTING" {
            return rest_error(405, "Pull Request is not mergeable");
        }
        st.state = "MERGED".into();
        if st.lose_merge_answer {
            st.lose_merge_answer = false;
            return ResponseTemplate::new(502);
        }
        return ResponseTemplate::new(200).set_body_json(json!({
            "sha": "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432", "merged": true,
            "message": "Pull Request successfully merged",
        }));
    }
    if p.ends_with("/labels") && m == "GET" && !p.contains("/issues/") {
        let v: Vec<Value> = st
            .repo_labels
            .iter()
            .map(|n| json!({"name": n, "color": "ededed"}))
            .collect();
        return ResponseTemplate::new(200).set_body_json(v);
    }
    if p.ends_with("/labels") && m == "POST" {
        for n in names(&body, "labels") {
            if !st.labels.contains(&n) {
                st.labels.push(n);
            }
        }
        let v: Vec<Value> = st.labels.iter().map(|n| json!({"name": n})).collect();
        return ResponseTemplate::new(200).set_body_json(v);
    }
    if p.contains("/labels/") && m == "DELETE" {
        let name = p.rsplit('/').next().unwrap_or_default().replace("%20", " ");
        if !st.labels.contains(&name) {
            return rest_error(404, "Label does not exist");
        }
        st.labels.retain(|l| *l != name);
        return ResponseTemplate::new(200).set_body_json(json!([]));
    }
    if p.ends_with("/assignees") {
        let logins = names(&body, "assignees");
        if m == "POST" {
            for l in logins.iter().filter(|l| l.as_str() != "nobody-here") {
                if !st.assignees.contains(l) {
                    st.assignees.push(l.clone());
                }
            }
        } else {
            st.assignees.retain(|a| !logins.contains(a));
        }
        let v: Vec<Value> = st.assignees.iter().map(|l| json!({"login": l})).collect();
        return ResponseTemplate::new(201).set_body_json(json!({"assignees": v}));
    }
    if p.ends_with("/requested_reviewers") {
        let users = names(&body, "reviewers");
        if users.iter().any(|u| u == "outsider") {
            return rest_error(
                422,
                "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the fake/repo repository.",
            );
        }
        st.reviewers.extend(users);
        return ResponseTemplate::new(201).set_body_json(json!({"number": 1}));
    }
    if m == "PATCH" {
        match body["state"].as_str() {
            Some("closed") => st.state = "CLOSED".into(),
            Some("open") => st.state = "OPEN".into(),
            _ => {}
        }
        return ResponseTemplate::new(200).set_body_json(json!({"number": 1, "state": st.state}));
    }
    rest_error(404, "Not Found")
}
