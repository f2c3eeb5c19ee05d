//! Event mode decisions over GitHub's real webhook payloads (tests/fixtures/webhooks).

use pr_shepherd::policy::event::{EventDecision, decide, decide_with};
use pr_shepherd::policy::{AutomationConfig, Mode, TriggerKind};
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
        EventDecision::WriteActionLabel { .. } => "write",
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
            EventDecision::WriteActionLabel { .. } => panic!("{file}: no write-action label"),
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

/// A real `pull_request_review` (submitted) or `pull_request_review_comment` (created) payload
/// with `body`, by an author of `association` and `user_type`.
fn review_payload(event: &str, body: &str, association: &str, user_type: &str) -> Value {
    let (file, field) = match event {
        "pull_request_review" => ("pull_request_review/submitted.payload.json", "review"),
        _ => (
            "pull_request_review_comment/created.payload.json",
            "comment",
        ),
    };
    let mut p = payload(file);
    p[field]["body"] = Value::String(body.to_owned());
    p[field]["author_association"] = Value::String(association.to_owned());
    p[field]["user"]["type"] = Value::String(user_type.to_owned());
    p
}

#[test]
fn triggers_in_review_summaries_and_inline_review_comments() {
    for (event, kind, id) in [
        ("pull_request_review", TriggerKind::Review, 237895671),
        (
            "pull_request_review_comment",
            TriggerKind::ReviewComment,
            284312630,
        ),
    ] {
        let d = decide(
            event,
            &review_payload(
                event,
                "Looks odd.\n\n@pr-shepherd /review all",
                "OWNER",
                "User",
            ),
        )
        .expect("ok");
        match d {
            EventDecision::Review {
                number,
                mode,
                trigger_comment,
                trigger_kind,
                ref reason,
                ..
            } => {
                assert_eq!(number, 2);
                assert_eq!(mode, Mode::Full);
                assert_eq!(trigger_comment, Some(id));
                assert_eq!(trigger_kind, Some(kind));
                assert!(!reason.contains("Looks odd"), "the body never travels");
            }
            other => panic!("{event}: {other:?}"),
        }
        let v = serde_json::to_value(&d).expect("json");
        assert_eq!(v["triggerKind"], serde_json::to_value(kind).expect("kind"));
        // The same association, bot and exact-mention rules as conversation comments.
        for (body, assoc, ty) in [
            ("@pr-shepherd /review", "CONTRIBUTOR", "User"),
            ("@pr-shepherd /review", "MEMBER", "Bot"),
            ("> @pr-shepherd /review", "MEMBER", "User"),
            ("@pr-shepherd review", "MEMBER", "User"),
            ("", "MEMBER", "User"),
        ] {
            let d = decide(event, &review_payload(event, body, assoc, ty)).expect("ok");
            assert_eq!(kind_of(&d), "none", "{event}: {body} {assoc} {ty}");
        }
    }
    // A review with a null body (the real payload) is no trigger.
    let d = decide(
        "pull_request_review",
        &payload("pull_request_review/submitted.payload.json"),
    )
    .expect("ok");
    assert_eq!(kind_of(&d), "none");
    // Only submitted reviews and created review comments.
    let mut dismissed = review_payload(
        "pull_request_review",
        "@pr-shepherd /review",
        "OWNER",
        "User",
    );
    dismissed["action"] = Value::String("dismissed".into());
    assert_eq!(
        kind_of(&decide("pull_request_review", &dismissed).expect("ok")),
        "none"
    );
    let mut edited = review_payload(
        "pull_request_review_comment",
        "@pr-shepherd /review",
        "OWNER",
        "User",
    );
    edited["action"] = Value::String("edited".into());
    assert_eq!(
        kind_of(&decide("pull_request_review_comment", &edited).expect("ok")),
        "none"
    );
}

fn kind_of(d: &EventDecision) -> &'static str {
    kind(d)
}

#[test]
fn mentions_come_from_the_config() {
    let horton = review_payload("pull_request_review", "@horton /review", "MEMBER", "User");
    assert_eq!(
        kind(&decide("pull_request_review", &horton).expect("ok")),
        "none"
    );
    let cfg = AutomationConfig {
        mentions: vec!["@pr-shepherd".into(), "@horton".into()],
        ..AutomationConfig::default()
    };
    assert_eq!(
        kind(&decide_with("pull_request_review", &horton, &cfg).expect("ok")),
        "review"
    );
    let shepherd = comment_on_pr("@pr-shepherd /review", "MEMBER", "User");
    assert_eq!(
        kind(&decide_with("issue_comment", &shepherd, &cfg).expect("ok")),
        "review"
    );
    // Exact mentions only: a longer name or an unlisted one is not a trigger.
    for body in ["@hortonx /review", "@horton-bot /review", "horton /review"] {
        let p = comment_on_pr(body, "MEMBER", "User");
        assert_eq!(
            kind(&decide_with("issue_comment", &p, &cfg).expect("ok")),
            "none",
            "{body}"
        );
    }
}

#[test]
fn oversized_triggers_are_ignored_with_the_reason() {
    let long = format!("@pr-shepherd /review\n{}", "x".repeat(20_000));
    for (event, p) in [
        ("issue_comment", comment_on_pr(&long, "MEMBER", "User")),
        (
            "pull_request_review",
            review_payload("pull_request_review", &long, "MEMBER", "User"),
        ),
        (
            "pull_request_review_comment",
            review_payload("pull_request_review_comment", &long, "MEMBER", "User"),
        ),
    ] {
        match decide(event, &p).expect("ok") {
            EventDecision::NoAction { reason } => {
                assert!(
                    reason.contains("oversized") && reason.contains("4000"),
                    "{reason}"
                )
            }
            other => panic!("{event}: {other:?}"),
        }
    }
    // At the limit it is still a trigger; the limit is configurable.
    let at_limit = format!("@pr-shepherd /review {}", "x".repeat(4000 - 21));
    assert_eq!(at_limit.chars().count(), 4000);
    let p = comment_on_pr(&at_limit, "MEMBER", "User");
    assert_eq!(kind(&decide("issue_comment", &p).expect("ok")), "review");
    let small = AutomationConfig {
        max_trigger_chars: 100,
        ..AutomationConfig::default()
    };
    assert_eq!(
        kind(&decide_with("issue_comment", &p, &small).expect("ok")),
        "none"
    );
}

#[test]
fn write_action_labels_are_recognized_and_do_nothing() {
    for (label, action) in [("fix-ci", "fix-ci"), ("address-review", "address-review")] {
        let mut p = payload("pull_request/labeled.payload.json");
        p["label"]["name"] = Value::String(label.to_owned());
        let d = decide("pull_request", &p).expect("ok");
        match &d {
            EventDecision::WriteActionLabel {
                label: l,
                write_action,
                available,
                reason,
                number,
                ..
            } => {
                assert_eq!((l.as_str(), write_action.as_str()), (label, action));
                assert!(!available);
                assert_eq!(*number, 2);
                assert!(
                    reason.contains("write actions are not available in this version"),
                    "{reason}"
                );
            }
            other => panic!("{label}: {other:?}"),
        }
        let v = serde_json::to_value(&d).expect("json");
        assert_eq!(v["action"], "writeActionLabel");
        assert_eq!(v["writeAction"], action);
        // Removing it is an ordinary label event.
        p["action"] = Value::String("unlabeled".into());
        assert_eq!(kind(&decide("pull_request", &p).expect("ok")), "regate");
    }
    // Names from the config.
    let cfg = AutomationConfig {
        fix_ci_label: "ci-fix-please".into(),
        ..AutomationConfig::default()
    };
    let mut p = payload("pull_request/labeled.payload.json");
    p["label"]["name"] = Value::String("ci-fix-please".into());
    assert_eq!(
        kind(&decide_with("pull_request", &p, &cfg).expect("ok")),
        "write"
    );
    p["label"]["name"] = Value::String("fix-ci".into());
    assert_eq!(
        kind(&decide_with("pull_request", &p, &cfg).expect("ok")),
        "regate"
    );
}
