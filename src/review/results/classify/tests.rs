use chrono::{DateTime, Utc};

use super::*;
use crate::policy::Mode;
use crate::pr::{Association, Author, Origin, PrMeta, Thread};
use crate::review::inputs::prior::{
    META_VERSION, REVIEW_HEADER, ReviewMeta, finding_id, prior_reviews, render_meta,
};

const ME: &str = "shepherd-bot[bot]";

fn f(aspect: &str, file: &str, message: &str) -> MetaFinding {
    MetaFinding {
        id: finding_id(aspect, file, message),
        aspect: aspect.into(),
        severity: "important".into(),
        file: file.into(),
        line: Some(1),
        message: message.into(),
        ..MetaFinding::default()
    }
}

fn comment(id: &str, login: &str, minute: i64, body: &str) -> Comment {
    Comment {
        id: id.into(),
        author: Author {
            login: login.into(),
            association: Association::Member,
            bot: false,
        },
        created_at: DateTime::<Utc>::from_timestamp(1_764_000_000 + minute * 60, 0)
            .unwrap_or_default(),
        last_edited_at: None,
        url: format!("https://github.com/o/r/pull/1#issuecomment-{minute}"),
        body: body.into(),
        minimized: false,
        minimized_reason: None,
    }
}

fn review_body(findings: Vec<MetaFinding>, addressed: Vec<MetaFinding>, head: &str) -> String {
    let meta = ReviewMeta {
        version: META_VERSION,
        mode: Mode::Full,
        head_sha: head.into(),
        trigger_comment: None,
        trigger_kind: None,
        findings,
        addressed,
    };
    format!("{REVIEW_HEADER}\n\nbody\n\n{}", render_meta(&meta))
}

fn snapshot(items: Vec<Item>) -> Snapshot {
    Snapshot {
        pr: PrMeta {
            host: None,
            owner: "o".into(),
            repo: "r".into(),
            number: 1,
            title: "t".into(),
            body: String::new(),
            author: Author {
                login: "dev".into(),
                association: Association::Contributor,
                bot: false,
            },
            labels: vec![],
            base_ref: "main".into(),
            head_ref: "x".into(),
            base_sha: "b".into(),
            head_sha: "h".into(),
            url: "u".into(),
            draft: false,
            state: "OPEN".into(),
            files: vec![],
            changed_files: None,
        },
        items,
        incomplete: vec![],
        notes: vec![],
        origin: Origin::Live,
    }
}

fn run(snap: &Snapshot, current: &[MetaFinding], console: &[&str]) -> Classification {
    let prior = prior_reviews(snap, ME);
    let replies = addressed_by_replies(snap, DEFAULT_REPLY_MARKER, &ReplyTrust::default());
    let console: HashSet<String> = console.iter().map(|s| s.to_string()).collect();
    classify(current, &prior, &replies, &console)
}

#[test]
fn table() {
    let overflow = f(
        "correctness",
        "src/retry.rs",
        "`2u32.pow(n)` overflows at n = 32",
    );
    let loop429 = f("correctness", "src/retry.rs", "429 answers retry forever");
    let xss = f(
        "security",
        "web/Badge.tsx",
        "dangerouslySetInnerHTML renders server text",
    );
    let docs = f(
        "conventions",
        "docs/retry.md",
        "docs do not say which methods are retried",
    );
    let prior_body = review_body(
        vec![overflow.clone(), loop429.clone(), xss.clone(), docs.clone()],
        vec![],
        "old-sha",
    );
    let reply = format!(
        "Fixed {} with checked_pow.\n\n— AI Coding Agent",
        overflow.id
    );
    let not_marker = format!("{} is wrong, but I will not fix it", xss.id);
    let snap = snapshot(vec![
        Item::Comment(comment("IC_review", ME, 0, &prior_body)),
        Item::Thread(Thread {
            id: "PRRT_1".into(),
            path: "src/retry.rs".into(),
            line: Some(3),
            original_line: Some(3),
            side: None,
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments: vec![
                comment("PRRC_1", "maya", 1, "why?"),
                comment("PRRC_2", "agent", 2, &reply),
            ],
        }),
        Item::Comment(comment("IC_2", "dev", 3, &not_marker)),
    ]);
    // This pass still reports the overflow (addressed → suppressed), the 429 loop (unchanged),
    // and a new finding; the XSS and docs findings are no longer reported; docs marked in console.
    let fresh = f("tests", "src/retry.rs", "no test for Retry-After");
    let current = vec![overflow.clone(), loop429.clone(), fresh.clone()];
    let c = run(&snap, &current, &[&docs.id]);
    assert_eq!(c.new, [2]);
    assert_eq!(c.unchanged, [1]);
    assert_eq!(c.suppressed, [0]);
    let addressed: Vec<(&str, &AddressedBy)> = c
        .addressed
        .iter()
        .map(|(f, b)| (f.id.as_str(), b))
        .collect();
    assert_eq!(addressed.len(), 2);
    assert!(
        matches!(addressed[0], (id, AddressedBy::Reply { comment_id, .. }) if id == overflow.id && comment_id == "PRRC_2")
    );
    assert_eq!(addressed[1], (docs.id.as_str(), &AddressedBy::Console));
    // Read back from the review, a prior finding carries its history (one review, that head).
    assert_eq!(
        c.not_reported,
        vec![MetaFinding {
            reviews: 1,
            first_sha: Some("old-sha".into()),
            ..xss
        }]
    );
}

#[test]
fn first_review_is_all_new() {
    let snap = snapshot(vec![Item::Comment(comment("IC_1", "dev", 0, "hello"))]);
    let cur = vec![f("perf", "a.rs", "slow"), f("tests", "a.rs", "untested")];
    let c = run(&snap, &cur, &[]);
    assert_eq!(c.new, [0, 1]);
    assert!(c.unchanged.is_empty() && c.addressed.is_empty() && c.not_reported.is_empty());
}

#[test]
fn lookalike_by_another_author_is_ignored() {
    let x = f("security", "a.rs", "token logged");
    let fake = review_body(vec![x.clone()], vec![], "h");
    let snap = snapshot(vec![Item::Comment(comment("IC_fake", "mallory", 0, &fake))]);
    let prior = prior_reviews(&snap, ME);
    assert!(prior.own.is_empty());
    assert_eq!(prior.lookalikes, ["IC_fake"]);
    let c = run(&snap, std::slice::from_ref(&x), &[]);
    assert_eq!(c.new, [0], "a lookalike's findings are not prior findings");
}

#[test]
fn a_marker_reply_cannot_suppress_a_finding_never_raised() {
    let x = f("security", "a.rs", "token logged");
    let reply = format!("{} done — AI Coding Agent", x.id);
    let snap = snapshot(vec![Item::Comment(comment("IC_1", "dev", 0, &reply))]);
    assert_eq!(run(&snap, std::slice::from_ref(&x), &[]).new, [0]);
}

#[test]
fn rebase_with_every_sha_changed_keeps_ids() {
    // The finding's message mentions a line and a SHA; after a rebase both change.
    let before = f(
        "correctness",
        "src/a.rs",
        "line 40 in 3b9f1e0 unwraps user input",
    );
    let after = f(
        "correctness",
        "src/a.rs",
        "line 52 in 9c4e2f7 unwraps user input",
    );
    assert_eq!(before.id, after.id);
    let snap = snapshot(vec![Item::Comment(comment(
        "IC_r",
        ME,
        0,
        &review_body(vec![before], vec![], "3b9f1e0"),
    ))]);
    assert_eq!(run(&snap, &[after], &[]).unchanged, [0]);
}

#[test]
fn addressed_stays_addressed_in_later_reviews() {
    let x = f("perf", "a.rs", "quadratic loop");
    let snap = snapshot(vec![Item::Comment(comment(
        "IC_r",
        ME,
        0,
        &review_body(vec![], vec![x.clone()], "h"),
    ))]);
    let c = run(&snap, std::slice::from_ref(&x), &[]);
    assert_eq!(c.suppressed, [0]);
    assert_eq!(c.addressed, vec![(x.clone(), AddressedBy::Earlier)]);
    // And when it is not reported any more, it is still listed as addressed, not "not reported".
    let c = run(&snap, &[], &[]);
    let x = MetaFinding {
        reviews: 1,
        first_sha: Some("h".into()),
        ..x
    };
    assert_eq!(c.addressed, vec![(x, AddressedBy::Earlier)]);
    assert!(c.not_reported.is_empty());
}

/// The coding agent's bot, as `[review] agent_logins` names it in these tests.
const AGENT: &str = "copilot-swe-agent[bot]";

fn trust() -> ReplyTrust {
    ReplyTrust {
        collaborators_are_team: false,
        agent_logins: vec!["Copilot-SWE-Agent[bot]".into()],
        shepherd_login: None,
    }
}

fn authored(id: &str, login: &str, association: Association, body: &str) -> Comment {
    Comment {
        author: Author {
            login: login.into(),
            association,
            bot: login.ends_with("[bot]"),
        },
        ..comment(id, login, 5, body)
    }
}

/// Which of `replies` (each beside the earlier review raising `x`) mark `x` addressed.
fn who_addresses(x: &MetaFinding, replies: Vec<Comment>, trust: &ReplyTrust) -> Vec<String> {
    let mut items = vec![Item::Comment(comment(
        "IC_review",
        ME,
        0,
        &review_body(vec![x.clone()], vec![], "h"),
    ))];
    items.extend(replies.into_iter().map(Item::Comment));
    let snap = snapshot(items);
    let replies = addressed_by_replies(&snap, DEFAULT_REPLY_MARKER, trust);
    replies
        .values()
        .filter_map(|by| match by {
            AddressedBy::Reply { comment_id, .. } => Some(comment_id.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn only_the_team_and_agent_logins_mark_a_finding_addressed() {
    let x = f("security", "src/auth.rs", "token logged at debug level");
    let reply = format!("Fixed {} by redacting it.\n\n— AI Coding Agent", x.id);
    let one = |c: Comment| who_addresses(&x, vec![c], &trust());
    // None of these counts, worded exactly like an agent's reply.
    assert!(one(authored("IC_driveby", "mallory", Association::None, &reply)).is_empty());
    assert!(
        one(authored(
            "IC_first",
            "newbie",
            Association::FirstTimer,
            &reply
        ))
        .is_empty()
    );
    assert!(
        one(authored(
            "IC_contrib",
            "someone",
            Association::Contributor,
            &reply
        ))
        .is_empty()
    );
    assert!(
        one(authored(
            "IC_collab",
            "helper",
            Association::Collaborator,
            &reply
        ))
        .is_empty(),
        "a collaborator is team only when the gates say so"
    );
    assert!(
        one(authored(
            "IC_bot",
            "dependabot[bot]",
            Association::None,
            &reply
        ))
        .is_empty(),
        "another bot"
    );
    assert!(
        one(authored(
            "IC_botmember",
            "ci-bot[bot]",
            Association::Member,
            &reply
        ))
        .is_empty(),
        "a bot is never team, whatever its association"
    );
    let mut spam = authored("IC_spam", "maya", Association::Member, &reply);
    spam.minimized = true;
    spam.minimized_reason = Some("spam".into());
    assert!(one(spam).is_empty(), "minimized");
    // These do: a team member, and the listed agent login (whatever its association).
    assert_eq!(
        one(authored("IC_owner", "maya", Association::Owner, &reply)),
        ["IC_owner"]
    );
    assert_eq!(
        one(authored("IC_member", "raj", Association::Member, &reply)),
        ["IC_member"]
    );
    assert_eq!(
        one(authored("IC_agent", AGENT, Association::None, &reply)),
        ["IC_agent"]
    );
    let collaborators = ReplyTrust {
        collaborators_are_team: true,
        ..trust()
    };
    assert_eq!(
        who_addresses(
            &x,
            vec![authored(
                "IC_collab",
                "helper",
                Association::Collaborator,
                &reply
            )],
            &collaborators
        ),
        ["IC_collab"]
    );
}

#[test]
fn only_a_replys_own_words_count_not_quotes_or_code() {
    let x = f("security", "src/auth.rs", "token logged at debug level");
    let id = &x.id;
    let bodies = [
        // Quoting the agent's reply, marker and all.
        format!("> Fixed {id} by redacting it.\n>\n> — AI Coding Agent"),
        format!("I disagree with this:\n\n> Fixed {id}.\n> — AI Coding Agent"),
        // The id only in a quote, the marker in the own words.
        format!("> {id}\n\nNot fixed yet.\n\n— AI Coding Agent"),
        // In a fenced code block (closed, unclosed, tildes).
        format!("Example:\n\n```\nFixed {id}\n— AI Coding Agent\n```"),
        format!("Example:\n\n```text\nFixed {id}\n— AI Coding Agent"),
        format!("~~~~\nFixed {id}\n— AI Coding Agent\n~~~~"),
        // Indented code.
        format!("Example:\n\n    Fixed {id}\n    — AI Coding Agent"),
        // Inline code.
        format!("Write `Fixed {id} — AI Coding Agent`"),
        format!("Reply with ``Fixed {id}`` then `— AI Coding Agent`"),
        // Hidden in an HTML comment.
        format!("Thanks <!-- Fixed {id}\n— AI Coding Agent -->"),
    ];
    for body in &bodies {
        let c = authored("IC_team", "maya", Association::Member, body);
        assert!(
            who_addresses(&x, vec![c], &trust()).is_empty(),
            "counted: {body:?}"
        );
    }
    // Own words around quotes and code still count.
    let fine = format!(
        "> why does this log the token?\n\nFixed {id} (see `redact()`).\n\n```rust\nredact(t)\n```\n\n— AI Coding Agent"
    );
    let c = authored("IC_ok", "maya", Association::Member, &fine);
    assert_eq!(who_addresses(&x, vec![c], &trust()), ["IC_ok"]);
    assert_eq!(own_words("a `b` c ``d`e`` f ` g"), "a   c   f ` g\n");
}

#[test]
fn the_reply_says_who_addressed_it() {
    let x = f("security", "src/auth.rs", "token logged at debug level");
    let reply = format!("Fixed {}.\n\n— AI Coding Agent", x.id);
    let snap = snapshot(vec![
        Item::Comment(comment(
            "IC_review",
            ME,
            0,
            &review_body(vec![x.clone()], vec![], "h"),
        )),
        Item::Comment(authored("IC_agent", AGENT, Association::None, &reply)),
    ]);
    let replies = addressed_by_replies(&snap, DEFAULT_REPLY_MARKER, &trust());
    match replies.get(&x.id) {
        Some(AddressedBy::Reply { author, trust, .. }) => {
            assert_eq!((author.as_str(), *trust), (AGENT, Trusted::Agent));
        }
        other => panic!("{other:?}"),
    }
    let v = serde_json::to_value(&replies[&x.id]).unwrap();
    assert_eq!(v["by"], "reply");
    assert_eq!(v["author"], AGENT);
    assert_eq!(v["trust"], "agent");
}

#[test]
fn mentioned_ids_need_exact_shape() {
    let t = "PS-0123456789, (PS-abcdefabcd) xPS-0123456789 PS-01234 PS-0123456789a PS-ABCDEF0123";
    assert_eq!(
        mentioned_ids(t),
        ["PS-0123456789", "PS-abcdefabcd", "PS-ABCDEF0123"]
    );
}

/// A finding as a model answers it.
fn answer(aspect: crate::review::Aspect, file: &str, message: &str) -> Finding {
    Finding {
        id: crate::review::findings::finding_id(aspect, file, message),
        aspect,
        severity: crate::review::Severity::Important,
        file: file.into(),
        line: Some(3),
        message: message.into(),
        suggested_fix: None,
        outside_diff: false,
        rule: None,
        verified: None,
    }
}

/// The prior findings as the next review reads them back from a condensed (compact) comment.
fn condensed_prior(findings: Vec<MetaFinding>, chars: usize) -> PriorReviews {
    let meta = ReviewMeta {
        version: META_VERSION,
        mode: Mode::Full,
        head_sha: "old".into(),
        trigger_comment: None,
        trigger_kind: None,
        findings,
        addressed: vec![],
    };
    let body = format!(
        "{REVIEW_HEADER}\n\ncondensed\n\n{}",
        crate::review::inputs::prior::render_meta_compact(&meta, chars)
    );
    let snap = snapshot(vec![Item::Comment(comment("c1", ME, 1, &body))]);
    prior_reviews(&snap, ME)
}

const LONG: &str = "The retry loop drops the error state when the server times out, so the \
                    caller cannot tell a timeout from a refusal and retries forever.";

#[test]
fn a_finding_that_continues_a_shortened_prior_message_keeps_its_id_and_is_unchanged() {
    use crate::review::Aspect;
    let original = f("correctness", "src/a.rs", LONG);
    let other = f(
        "correctness",
        "src/a.rs",
        "Unrelated: the cache never expires entries.",
    );
    let prior = condensed_prior(vec![original.clone(), other.clone()], 30);
    let read = prior.findings();
    assert!(read.iter().all(|p| p.shortened), "{read:?}");
    assert!(read[0].message.ends_with('…') && read[0].message.chars().count() == 30);
    let seen = read[0].message.trim_end_matches('…').to_owned();

    let mut answers = vec![
        // The model repeated the shortened beginning and completed it in its own words.
        answer(
            Aspect::Correctness,
            "src/a.rs",
            &format!("{seen}ing a timeout: it must keep the state."),
        ),
        // A different problem in the same file.
        answer(
            Aspect::Correctness,
            "src/a.rs",
            "The parser accepts a negative length.",
        ),
        // The second prior, in its full original wording (same id already).
        answer(Aspect::Correctness, "./src/a.rs", &other.message),
    ];
    let ids_before: Vec<String> = answers.iter().map(|a| a.id.clone()).collect();
    assert_ne!(ids_before[0], original.id);
    assert_eq!(adopt_prior_ids(&mut answers, &read), 1);
    assert_eq!(answers[0].id, original.id, "the prior's id is kept");
    assert_eq!(answers[1].id, ids_before[1]);
    assert_eq!(answers[2].id, other.id);

    let current: Vec<MetaFinding> = answers
        .iter()
        .map(crate::review::results::aggregate::to_meta)
        .collect();
    let c = classify(&current, &prior, &HashMap::new(), &HashSet::new());
    assert_eq!(c.unchanged, vec![0, 2]);
    assert_eq!(c.new, vec![1]);
    assert!(c.not_reported.is_empty(), "{:?}", c.not_reported);
}

#[test]
fn the_full_original_wording_and_a_different_message_after_a_condensed_post() {
    use crate::review::Aspect;
    let original = f("security", "src/a.rs", LONG);
    let prior = condensed_prior(vec![original.clone()], 60);
    let read = prior.findings();

    let mut same = vec![answer(Aspect::Security, "src/a.rs", LONG)];
    adopt_prior_ids(&mut same, &read);
    assert_eq!(same[0].id, original.id);
    let c = classify(
        &same
            .iter()
            .map(crate::review::results::aggregate::to_meta)
            .collect::<Vec<_>>(),
        &prior,
        &HashMap::new(),
        &HashSet::new(),
    );
    assert_eq!((c.unchanged.len(), c.new.len()), (1, 0));

    // Same beginning but another aspect or file, or another message: new.
    let seen = read[0].message.trim_end_matches('…').to_owned();
    let mut different = vec![
        answer(Aspect::Security, "src/a.rs", "Secrets reach the log."),
        answer(Aspect::Correctness, "src/a.rs", &format!("{seen} more")),
        answer(Aspect::Security, "src/b.rs", &format!("{seen} more")),
    ];
    assert_eq!(adopt_prior_ids(&mut different, &read), 0);
    let c = classify(
        &different
            .iter()
            .map(crate::review::results::aggregate::to_meta)
            .collect::<Vec<_>>(),
        &prior,
        &HashMap::new(),
        &HashSet::new(),
    );
    assert_eq!(c.new, vec![0, 1, 2]);
    assert_eq!(c.not_reported.len(), 1);
}

#[test]
fn a_message_that_was_never_shortened_or_was_dropped_matches_only_by_id() {
    use crate::review::Aspect;
    let whole = f("correctness", "src/a.rs", "Short message.");
    let read = condensed_prior(vec![whole.clone()], 200).findings();
    assert!(!read[0].shortened);
    let mut a = vec![answer(
        Aspect::Correctness,
        "src/a.rs",
        "Short message. And more.",
    )];
    assert_eq!(adopt_prior_ids(&mut a, &read), 0);

    let dropped = condensed_prior(vec![whole], 0).findings();
    assert!(dropped[0].shortened && dropped[0].message.is_empty());
    assert_eq!(adopt_prior_ids(&mut a, &dropped), 0);
}

#[test]
fn two_findings_never_take_one_prior_id() {
    use crate::review::Aspect;
    let original = f("correctness", "src/a.rs", LONG);
    let read = condensed_prior(vec![original.clone()], 60).findings();
    let seen = read[0].message.trim_end_matches('…').to_owned();
    let mut a = vec![
        answer(Aspect::Correctness, "src/a.rs", &format!("{seen} one")),
        answer(Aspect::Correctness, "src/a.rs", &format!("{seen} two")),
    ];
    assert_eq!(adopt_prior_ids(&mut a, &read), 1);
    assert_eq!(a[0].id, original.id);
    assert_ne!(a[1].id, original.id);
}

#[test]
fn a_trusted_marker_reply_on_shepherds_inline_comment_addresses_its_finding() {
    let x = f("correctness", "src/retry.rs", "the retry never stops");
    let inline = format!(
        "**important**: the retry never stops\n\n{}",
        crate::code::pending::finding_marker(&x.id)
    );
    let thread = |root_login: &str, reply: Comment| {
        Item::Thread(Thread {
            id: "PRRT_inline".into(),
            path: "src/retry.rs".into(),
            line: Some(3),
            original_line: Some(3),
            side: None,
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments: vec![comment("PRRC_root", root_login, 1, &inline), reply],
        })
    };
    // The reply does not name the id: the thread is about the finding.
    let fixed = "Bounded the loop.\n\n— AI Coding Agent";
    let shepherd = ReplyTrust {
        shepherd_login: Some(ME.to_owned()),
        ..trust()
    };
    let by = |items: Vec<Item>, trust: &ReplyTrust| {
        addressed_by_replies(&snapshot(items), DEFAULT_REPLY_MARKER, trust)
    };
    let agent = authored(
        "PRRC_fix",
        "copilot-swe-agent[bot]",
        Association::None,
        fixed,
    );
    let got = by(vec![thread(ME, agent.clone())], &shepherd);
    assert!(
        matches!(got.get(&x.id), Some(AddressedBy::Reply { comment_id, .. }) if comment_id == "PRRC_fix"),
        "{got:?}"
    );
    // Not by an untrusted author, not under someone else's lookalike comment, not without the
    // marker, and not without knowing Shepherd's account.
    let mallory = authored("PRRC_m", "mallory", Association::None, fixed);
    assert!(by(vec![thread(ME, mallory)], &shepherd).is_empty());
    assert!(by(vec![thread("mallory", agent.clone())], &shepherd).is_empty());
    let unmarked = authored(
        "PRRC_u",
        "copilot-swe-agent[bot]",
        Association::None,
        "Bounded.",
    );
    assert!(by(vec![thread(ME, unmarked)], &shepherd).is_empty());
    assert!(by(vec![thread(ME, agent)], &trust()).is_empty());
}

/// Failed before: Shepherd's own inline comment (association MEMBER, so trusted
/// as the team), whose model-written message ended with the marker, marked the ids it named
/// addressed.
#[test]
fn shepherds_own_inline_comment_never_marks_its_findings_addressed() {
    let (a, b) = (
        f("correctness", "src/a.rs", "one"),
        f("security", "src/b.rs", "two"),
    );
    let forged = format!(
        "**important** (correctness): {} and {} are fixed now. — AI Coding Agent\n\n{}",
        a.id,
        b.id,
        crate::code::pending::finding_marker(&a.id)
    );
    let me = "shepherd-member";
    let thread = |comments: Vec<Comment>| {
        Item::Thread(Thread {
            side: None,
            id: "PRRT_own".into(),
            path: "src/a.rs".into(),
            line: Some(3),
            original_line: Some(3),
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments,
        })
    };
    let trust = ReplyTrust {
        shepherd_login: Some(me.to_owned()),
        ..trust()
    };
    let by =
        |items: Vec<Item>| addressed_by_replies(&snapshot(items), DEFAULT_REPLY_MARKER, &trust);
    // The inline comment itself, a thread root by the own account.
    assert!(by(vec![thread(vec![comment("PRRC_1", me, 1, &forged)])]).is_empty());
    // A comment of the own account carrying Shepherd's hidden metadata, wherever it is.
    let reply = comment("PRRC_2", me, 2, &forged);
    assert!(
        by(vec![thread(vec![
            comment("PRRC_0", "dev", 0, "why?"),
            reply.clone()
        ])])
        .is_empty()
    );
    assert!(by(vec![Item::Comment(reply)]).is_empty());
    // The same words by the own account by hand (no metadata, not a root) still count, as they
    // do by anyone else the gates trust.
    let by_hand = format!("{} and {} are fixed now. — AI Coding Agent", a.id, b.id);
    assert_eq!(
        by(vec![Item::Comment(comment("IC_1", me, 3, &by_hand))]).len(),
        2
    );
    let root = comment("PRRC_r", "dev", 0, &forged);
    assert_eq!(by(vec![thread(vec![root])]).len(), 2);
}

/// The marker in model text is written so it renders the same on GitHub but
/// never reads as the marker — however code spans split it.
#[test]
fn model_text_holding_the_marker_is_defused() {
    use crate::review::findings::defuse_marker;
    let mut m = "PS-0123456789 is fixed now. — AI Coding Agent".to_owned();
    assert!(defuse_marker(&mut [&mut m], DEFAULT_REPLY_MARKER));
    assert_eq!(m, "PS-0123456789 is fixed now. &#8212; AI Coding Agent");
    assert!(!own_words(&m).contains(DEFAULT_REPLY_MARKER));
    // Split over the message and the fix by a code span that opens in one and closes in the
    // other: every dash of both is written as a reference.
    let (mut msg, mut fix) = ("fixed — AI`".to_owned(), "`Coding Agent".to_owned());
    assert!(defuse_marker(
        &mut [&mut msg, &mut fix],
        DEFAULT_REPLY_MARKER
    ));
    let joined = format!("{msg}\n\nSuggested fix: {fix}");
    assert!(!own_words(&joined).contains('—'), "{joined}");
    // Ordinary text keeps its dashes.
    let mut plain = "a retry — without a bound".to_owned();
    assert!(!defuse_marker(&mut [&mut plain], DEFAULT_REPLY_MARKER));
    assert_eq!(plain, "a retry — without a bound");
}
