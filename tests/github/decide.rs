//! Deciding a live PR through the binary against a loopback GitHub that answers the merge and
//! the other decisions with GitHub's real refusals: the head you reviewed and no other, a
//! method the repository does not allow, protection, a conflict, no permission, auto-merge not
//! allowed, a merge queue, a lost answer read back, and what is so already sending nothing.

use std::process::{Command, Output};

use crate::support;
use serde_json::Value;
use support::all_output;
use support::env::TestEnv;
use support::fake_decide::FakeDecide;
use support::fake_github::{FakeGitHub, FakePr, NUMBER, pr_ref};
use wiremock::MockServer;

const TOKEN: &str = "ghp_DecideLoopbackToken0123456789abcdef";

struct Live {
    env: TestEnv,
    server: MockServer,
    decide: FakeDecide,
}

async fn live(labels: &[&str]) -> Live {
    let server = MockServer::start().await;
    let decide = FakeDecide::new();
    decide.mount(&server).await;
    let fake = FakeGitHub::new(FakePr::with_labels(labels));
    fake.mount(&server, "", "/graphql").await;
    Live {
        env: TestEnv::new(),
        server,
        decide,
    }
}

impl Live {
    fn run(&self, args: &[&str]) -> Output {
        let mut c: Command = self.env.bin();
        c.arg("--state-dir")
            .arg(self.env.state())
            .env("GH_TOKEN", TOKEN)
            .args(["--api-url", &self.server.uri()])
            .args(args);
        c.output().unwrap()
    }

    /// `items` as the maintainer's look: every item shown, the head recorded.
    fn look(&self) {
        let o = self.run(&["items", &pr_ref(NUMBER)]);
        assert!(o.status.success(), "{}", all_output(&o));
    }
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", all_output(o)))
}

fn no_token(o: &Output) {
    assert!(!all_output(o).contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_carries_the_reviewed_head_and_a_moved_head_merges_nothing() {
    let l = live(&[]).await;
    l.look();
    // The PR moved after the look: nothing is sent.
    l.decide
        .set(|s| s.head = "feedface00000000000000000000000000000001".into());
    let o = l.run(&["merge", &pr_ref(NUMBER)]);
    assert_eq!(o.status.code(), Some(1), "{}", all_output(&o));
    let t = all_output(&o);
    assert!(
        t.contains("moved since you looked") && t.contains("feedfac") && t.contains("6dcb09b"),
        "{t}"
    );
    assert_eq!(l.decide.merges(), 0);
    // Back at the reviewed head: merged with that head as `sha`.
    l.decide
        .set(|s| s.head = "6dcb09b5b57875f334f61aebed695e2e4193db5e".into());
    let o = l.run(&[
        "merge",
        &pr_ref(NUMBER),
        "--method",
        "squash",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", all_output(&o));
    let v = json(&o);
    assert_eq!(v["action"], "merge");
    assert_eq!(v["offline"], false);
    assert!(v["said"].as_str().unwrap().contains("as 9f8e7d6"), "{v}");
    let d = l.decide.get();
    assert_eq!(d.merge_bodies.len(), 1);
    assert_eq!(
        d.merge_bodies[0]["sha"],
        "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    );
    assert_eq!(d.merge_bodies[0]["merge_method"], "squash");
    // Again: read merged, nothing sent.
    let o = l.run(&["merge", &pr_ref(NUMBER)]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(
        all_output(&o).contains("merged already"),
        "{}",
        all_output(&o)
    );
    assert_eq!(l.decide.merges(), 1);
    no_token(&o);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_short_reviewed_head_merges_as_the_full_head_and_a_push_meanwhile_is_githubs_409_in_words()
 {
    let l = live(&[]).await;
    // A push lands between the read and the merge: GitHub's 409, said as a moved head.
    l.decide.set(|s| s.push_before_merge = true);
    let o = l.run(&[
        "merge",
        &pr_ref(NUMBER),
        "--match-head",
        "6dcb09b",
        "--yes",
        "--past-unseen",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", all_output(&o));
    let t = all_output(&o);
    assert!(
        t.contains("moved since you looked") && !t.contains("409"),
        "{t}"
    );
    assert_eq!(l.decide.get().state, "OPEN");
    l.decide.set(|s| {
        s.push_before_merge = false;
        s.head = "6dcb09b5b57875f334f61aebed695e2e4193db5e".into();
    });
    let o = l.run(&[
        "merge",
        &pr_ref(NUMBER),
        "--match-head",
        "6dcb09b",
        "--yes",
        "--past-unseen",
    ]);
    // Never looked: the items are unseen, waived here; the short id matches the head.
    assert!(o.status.success(), "{}", all_output(&o));
    let bodies = l.decide.get().merge_bodies;
    assert_eq!(
        bodies.last().unwrap()["sha"],
        "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn githubs_refusals_are_its_words_and_a_disallowed_method_is_never_sent() {
    let l = live(&[]).await;
    l.look();
    let pr = pr_ref(NUMBER);
    let o = l.run(&["merge", &pr, "--method", "rebase"]);
    assert_eq!(o.status.code(), Some(1));
    let t = all_output(&o);
    assert!(
        t.contains("does not allow rebase and merge") && t.contains("allows merge, squash"),
        "{t}"
    );
    assert_eq!(l.decide.merges(), 0);
    // Protection: said, with auto-merge offered; --auto arms it at the reviewed head.
    l.decide.set(|s| s.merge_state = "BLOCKED".into());
    let o = l.run(&["merge", &pr]);
    let t = all_output(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("branch protection") && t.contains("--auto"),
        "{t}"
    );
    let o = l.run(&["merge", &pr, "--auto"]);
    assert!(o.status.success(), "{}", all_output(&o));
    let d = l.decide.get();
    assert_eq!(d.auto_merge.as_deref(), Some("MERGE"));
    let vars = d.mutation_variables.last().unwrap();
    assert_eq!(vars["head"], "6dcb09b5b57875f334f61aebed695e2e4193db5e");
    assert_eq!(l.decide.merges(), 0);
    // Auto-merge not allowed by the repository: refused before sending.
    l.decide.set(|s| {
        s.auto_merge_allowed = false;
        s.auto_merge = None;
    });
    let o = l.run(&["merge", &pr, "--auto"]);
    assert_eq!(o.status.code(), Some(2), "{}", all_output(&o));
    assert!(all_output(&o).contains("does not allow auto-merge"));
    // A conflict and no permission.
    l.decide.set(|s| {
        s.merge_state = "DIRTY".into();
        s.mergeable = "CONFLICTING".into();
    });
    let t = all_output(&l.run(&["merge", &pr]));
    assert!(t.contains("conflicts with its base branch"), "{t}");
    l.decide.set(|s| {
        s.merge_state = "CLEAN".into();
        s.mergeable = "MERGEABLE".into();
        s.permission = "READ".into();
    });
    let t = all_output(&l.run(&["merge", &pr]));
    assert!(t.contains("no write permission"), "{t}");
    assert!(!t.contains("405") && !t.contains("403"), "{t}");
    assert_eq!(l.decide.merges(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lost_merge_answer_is_read_back_and_never_sent_again() {
    let l = live(&[]).await;
    l.look();
    l.decide.set(|s| s.lose_merge_answer = true);
    let o = l.run(&["merge", &pr_ref(NUMBER)]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(
        all_output(&o).contains("answer was lost"),
        "{}",
        all_output(&o)
    );
    assert_eq!(l.decide.merges(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_queue_takes_the_merge_as_an_enqueue_at_the_reviewed_head() {
    let l = live(&[]).await;
    l.look();
    l.decide.set(|s| {
        s.queue = true;
        s.merge_state = "BLOCKED".into();
    });
    let o = l.run(&["merge", &pr_ref(NUMBER)]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(
        all_output(&o).contains("merge queue at 6dcb09b (position 2)"),
        "{}",
        all_output(&o)
    );
    assert!(l.decide.get().queued);
    assert_eq!(l.decide.merges(), 0);
    let o = l.run(&["pr", "dequeue", &pr_ref(NUMBER)]);
    assert!(o.status.success(), "{}", all_output(&o));
    assert!(!l.decide.get().queued);
}

#[tokio::test(flavor = "multi_thread")]
async fn close_reopen_ready_draft_labels_assignees_and_reviewers_send_once_each() {
    let l = live(&["docs"]).await;
    let pr = pr_ref(NUMBER);
    let ok = |o: Output| {
        assert!(o.status.success(), "{}", all_output(&o));
        all_output(&o)
    };
    ok(l.run(&["pr", "close", &pr]));
    assert_eq!(l.decide.get().state, "CLOSED");
    let t = ok(l.run(&["pr", "close", &pr]));
    assert!(t.contains("closed already"), "{t}");
    ok(l.run(&["pr", "reopen", &pr]));
    ok(l.run(&["pr", "draft", &pr]));
    assert!(l.decide.get().draft);
    ok(l.run(&["pr", "ready", &pr]));
    assert!(!l.decide.get().draft);
    // Labels: the repository's spelling; one already there is not sent; an unknown one is exit 2.
    let t = ok(l.run(&["label", "add", &pr, "BUG", "docs"]));
    assert!(
        t.contains("labelled bug") && t.contains("docs already on it"),
        "{t}"
    );
    assert_eq!(l.decide.get().labels, vec!["bug".to_owned()]);
    let o = l.run(&["label", "add", &pr, "nonexistent"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(all_output(&o).contains("has no label `nonexistent`"));
    ok(l.run(&["label", "remove", &pr, "docs"]));
    ok(l.run(&["assign", &pr, "@mia"]));
    assert_eq!(l.decide.get().assignees, vec!["mia".to_owned()]);
    let o = l.run(&["assign", &pr, "nobody-here"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        all_output(&o).contains("cannot be assigned"),
        "{}",
        all_output(&o)
    );
    ok(l.run(&["request-review", &pr, "mia"]));
    let o = l.run(&["request-review", &pr, "outsider"]);
    assert_eq!(o.status.code(), Some(1));
    let t = all_output(&o);
    assert!(
        t.contains("Reviews may only be requested from collaborators") && !t.contains("422"),
        "{t}"
    );
    let calls = l.decide.get().calls;
    assert_eq!(
        calls.iter().filter(|c| c.starts_with("PATCH")).count(),
        2,
        "{calls:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn update_branch_goes_only_at_the_reviewed_head() {
    let l = live(&[]).await;
    l.look();
    l.decide
        .set(|s| s.head = "feedface00000000000000000000000000000001".into());
    let o = l.run(&["update-branch", &pr_ref(NUMBER)]);
    assert_eq!(o.status.code(), Some(1), "{}", all_output(&o));
    assert!(all_output(&o).contains("moved since you looked"));
    let o = l.run(&[
        "update-branch",
        &pr_ref(NUMBER),
        "--match-head",
        "any",
        "--rebase",
    ]);
    assert!(o.status.success(), "{}", all_output(&o));
    let vars = l.decide.get().mutation_variables.last().cloned().unwrap();
    assert_eq!(vars["method"], "REBASE");
    assert_eq!(vars["head"], "feedface00000000000000000000000000000001");
}
