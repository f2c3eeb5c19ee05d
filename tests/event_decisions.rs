//! Event mode decisions over GitHub's real webhook payloads (tests/fixtures/webhooks).

use pr_shepherd::policy::Mode;
use pr_shepherd::policy::event::{EventDecision, decide};
use serde_json::Value;

fn payload(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("tests/fixtures/webhooks/{path}")).expect("payload");
    serde_json::from_str(&text).expect("json")
}

fn kind(d: &EventDecision) -> &'static str {
    match d {
        EventDecision::Review { .. } => "review",
        EventDecision::Regate { .. } => "regate",
        EventDecision::NoAction { .. } => "none",
    }
}

#[test]
fn every_real_payload_has_a_decision() {
    let table = [
        ("pull_request", "pull_request/opened.payload.json", "review"),
        (
            "pull_request",
            "pull_request/opened.with-null-body.json",
            "review",
        ),
        (
            "pull_request",
            "pull_request/synchronize.payload.json",
            "review",
        ),
        (
            "pull_request",
            "pull_request/reopened.payload.json",
            "review",
        ),
        (
            "pull_request",
            "pull_request/ready_for_review.payload.json",
            "review",
        ),
        (
            "pull_request",
            "pull_request/labeled.payload.json",
            "regate",
        ),
        (
            "pull_request",
            "pull_request/unlabeled.payload.json",
            "regate",
        ),
        ("pull_request", "pull_request/closed.payload.json", "none"),
        (
            "issue_comment",
            "issue_comment/created.payload.json",
            "none",
        ),
        ("issue_comment", "issue_comment/edited.payload.json", "none"),
        (
            "issue_comment",
            "issue_comment/deleted.payload.json",
            "none",
        ),
        (
            "pull_request_review",
            "pull_request_review/submitted.payload.json",
            "none",
        ),
        (
            "pull_request_review",
            "pull_request_review/dismissed.payload.json",
            "none",
        ),
        (
            "pull_request_review_comment",
            "pull_request_review_comment/created.payload.json",
            "none",
        ),
        (
            "pull_request_review_comment",
            "pull_request_review_comment/edited.payload.json",
            "none",
        ),
        (
            "pull_request_review_thread",
            "pull_request_review_thread/resolved.payload.json",
            "none",
        ),
        (
            "pull_request_review_thread",
            "pull_request_review_thread/unresolved.payload.json",
            "none",
        ),
    ];
    for (event, file, want) in table {
        let d = decide(event, &payload(file)).expect(file);
        assert_eq!(kind(&d), want, "{file}: {d:?}");
        match d {
            EventDecision::Review {
                owner,
                repo,
                number,
                mode,
                trigger_comment,
                ..
            } => {
                assert_eq!(
                    (owner.as_str(), repo.as_str(), number),
                    ("Codertocat", "Hello-World", 2)
                );
                assert_eq!(mode, Mode::Incremental);
                assert_eq!(trigger_comment, None);
            }
            EventDecision::NoAction { reason } => assert!(!reason.is_empty()),
            EventDecision::Regate { reason, .. } => assert!(reason.contains("bug")),
        }
    }
    let plain = decide(
        "issue_comment",
        &payload("issue_comment/created.payload.json"),
    )
    .expect("ok");
    assert!(
        matches!(plain, EventDecision::NoAction { reason } if reason.contains("not a pull request"))
    );
}

fn comment_on_pr(body: &str, association: &str, user_type: &str) -> Value {
    let mut p = payload("issue_comment/created.payload.json");
    p["issue"]["pull_request"] =
        serde_json::json!({"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"});
    p["comment"]["body"] = Value::String(body.to_owned());
    p["comment"]["author_association"] = Value::String(association.to_owned());
    p["comment"]["user"]["type"] = Value::String(user_type.to_owned());
    p
}

#[test]
fn comment_triggers_on_a_pr() {
    let d = decide(
        "issue_comment",
        &comment_on_pr("@pr-shepherd /review all", "MEMBER", "User"),
    )
    .expect("ok");
    match d {
        EventDecision::Review {
            mode,
            trigger_comment,
            number,
            reason,
            ..
        } => {
            assert_eq!(mode, Mode::Full);
            assert_eq!(trigger_comment, Some(492700400));
            assert_eq!(number, 1);
            assert!(
                !reason.contains("ignore"),
                "the body never travels: {reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    let inc = decide(
        "issue_comment",
        &comment_on_pr("@pr-shepherd /review", "COLLABORATOR", "User"),
    )
    .expect("ok");
    assert!(matches!(
        inc,
        EventDecision::Review {
            mode: Mode::Incremental,
            ..
        }
    ));
    for (body, assoc, ty) in [
        ("@pr-shepherd /review", "CONTRIBUTOR", "User"),
        ("@pr-shepherd /review", "NONE", "User"),
        ("@pr-shepherd /review", "MEMBER", "Bot"),
        ("@pr-shepherd /reviews", "OWNER", "User"),
        ("nice work", "OWNER", "User"),
    ] {
        let d = decide("issue_comment", &comment_on_pr(body, assoc, ty)).expect("ok");
        assert_eq!(kind(&d), "none", "{body} {assoc} {ty}");
    }
    let mut edited = comment_on_pr("@pr-shepherd /review", "OWNER", "User");
    edited["action"] = Value::String("edited".into());
    assert_eq!(kind(&decide("issue_comment", &edited).expect("ok")), "none");
}

#[test]
fn drafts_unknown_events_and_malformed_payloads() {
    let mut draft = payload("pull_request/opened.payload.json");
    draft["pull_request"]["draft"] = Value::Bool(true);
    assert_eq!(kind(&decide("pull_request", &draft).expect("ok")), "none");
    assert_eq!(
        kind(&decide("push", &serde_json::json!({})).expect("ok")),
        "none"
    );
    assert!(decide("pull_request", &serde_json::json!({"action": "opened"})).is_err());
    assert!(decide("", &serde_json::json!({})).is_err());
}
