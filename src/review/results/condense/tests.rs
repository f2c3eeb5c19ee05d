use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::policy::Mode;
use crate::pr::{Association, Author, Comment, Item, Origin, Snapshot};
use crate::review::aspect::Aspect;
use crate::review::findings::finding_id;
use crate::review::inputs::prior::{parse_meta, prior_reviews};
use crate::review::llm::TokenUsage;
use crate::review::results::aggregate::{AggregateRequest, aggregate};
use crate::review::run::{AspectOutcome, AspectState};

fn finding(aspect: Aspect, severity: Severity, file: &str, line: u32, msg: String) -> Finding {
    Finding {
        id: finding_id(aspect, file, &msg),
        aspect,
        severity,
        file: file.into(),
        line: Some(line),
        message: msg,
        suggested_fix: None,
        outside_diff: false,
        rule: None,
        verified: None,
    }
}

fn run_of(findings: Vec<Finding>) -> ReviewRun {
    let aspects = Aspect::ALL
        .iter()
        .map(|a| AspectOutcome {
            aspect: *a,
            state: AspectState::Done,
            error: None,
            findings: findings
                .iter()
                .filter(|f| f.aspect == *a)
                .cloned()
                .collect(),
            rejected: vec![],
            raw_reply: None,
            elapsed_ms: 1200,
            tokens: TokenUsage {
                input: Some(1000),
                output: Some(50),
                cache_read: None,
                cache_write: None,
            },
            calls: 1,
            calls_without_usage: 0,
            diff: None,
            note: None,
            merged: 0,
            held_back: vec![],
            verification: None,
        })
        .collect();
    ReviewRun {
        run_id: "20261130T040000Z-abcdef".into(),
        pr: "acme/rivet#482".into(),
        head_sha: "e5f6a7b8c9d0".into(),
        backend: "replay".into(),
        model: "recorded answers".into(),
        started_at: chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default(),
        elapsed_ms: 2500,
        cancelled: false,
        aspects,
        prices: None,
        notes: Vec::new(),
        concurrency_lowered: None,
        context: Default::default(),
    }
}

/// The issue's case: six aspects, 245 findings, long messages and fixes (≈ 285k characters).
fn big_run() -> ReviewRun {
    let mut all = Vec::new();
    for i in 0..245u32 {
        let aspect = Aspect::ALL[i as usize % 6];
        let severity = match i % 20 {
            0 => Severity::Critical,
            1..=3 => Severity::Important,
            _ => Severity::Suggestion,
        };
        // Numbers do not make ids differ (see `normalize_message`); letters do.
        let tag: String = [i / 26 % 26, i % 26]
            .iter()
            .map(|d| char::from(b'a' + *d as u8))
            .collect();
        let msg = format!(
            "Finding {tag}: the handler in module {} {}",
            i % 17,
            "does something that deserves a careful look because it may go wrong. ".repeat(8)
        );
        let mut f = finding(aspect, severity, &format!("src/mod{}.rs", i % 23), i, msg);
        f.suggested_fix = Some(format!(
            "Fix {i}: {}",
            "change the code this way and add a test for it. ".repeat(8)
        ));
        all.push(f);
    }
    run_of(all)
}

fn snapshot_with(bodies: &[(&str, String)]) -> Snapshot {
    let pr = crate::source::Fixture::parse(crate::source::DEMO_FIXTURE, std::path::Path::new("d"))
        .map(|f| f.pr)
        .unwrap_or_else(|e| panic!("demo fixture: {e}"));
    let items = bodies
        .iter()
        .enumerate()
        .map(|(i, (login, body))| {
            Item::Comment(Comment {
                id: format!("IC_{i}"),
                author: Author {
                    login: (*login).into(),
                    association: Association::Member,
                    bot: false,
                },
                created_at: chrono::DateTime::from_timestamp(1_790_000_000 + i as i64, 0)
                    .unwrap_or_default(),
                last_edited_at: None,
                url: format!("https://github.com/acme/rivet/pull/482#{i}"),
                body: body.clone(),
                minimized: false,
                minimized_reason: None,
            })
        })
        .collect();
    Snapshot {
        pr,
        items,
        incomplete: vec![],
        notes: vec![],
        origin: Origin::Live,
    }
}

fn review_after(run: &ReviewRun, comments: &[(&str, String)]) -> Aggregate {
    let snapshot = snapshot_with(comments);
    let prior = prior_reviews(&snapshot, "pr-shepherd");
    aggregate(
        run,
        &snapshot,
        &prior,
        &AggregateRequest {
            reply_marker: "— AI Coding Agent".into(),
            ..AggregateRequest::default()
        },
    )
}

fn ids_in_meta(body: &str) -> HashSet<String> {
    let meta = parse_meta(body)
        .unwrap_or_else(|e| panic!("meta: {e}"))
        .unwrap_or_else(|| panic!("no meta"));
    meta.findings.into_iter().map(|f| f.id).collect()
}

#[test]
fn body_size_counts_characters_against_the_limit() {
    let s = BodySize::of("é🆕x");
    assert_eq!(s.chars, 3);
    assert!(s.fits());
    let big = "a".repeat(COMMENT_LIMIT + 12);
    let b = BodySize::of(&big);
    assert!(!b.fits());
    assert_eq!(b.over_by(), 12);
    assert_eq!(b.to_string(), "65,548 / 65,536 characters");
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
}

#[test]
fn a_review_that_fits_is_not_touched() {
    let run = run_of(vec![finding(
        Aspect::Security,
        Severity::Suggestion,
        "a.rs",
        3,
        "Small.".into(),
    )]);
    let agg = Aggregate::first(&run);
    let f = fit(&run, &agg);
    assert!(!f.condensed);
    assert_eq!(f.body, markdown(&run, &agg));
    assert_eq!(f.chars, f.body.chars().count());
}

#[test]
fn the_issues_review_fits_keeps_critical_whole_and_says_it_was_condensed() {
    let run = big_run();
    let agg = Aggregate::first(&run);
    let full = markdown(&run, &agg);
    assert!(full.chars().count() > 250_000, "{}", full.chars().count());
    let f = fit(&run, &agg);
    assert!(f.condensed);
    assert!(f.chars <= COMMENT_LIMIT, "{}", f.chars);
    assert_eq!(f.chars, f.body.chars().count());
    assert!(
        f.body
            .starts_with(crate::review::inputs::prior::REVIEW_HEADER)
    );
    assert!(
        f.body
            .contains("**Condensed to fit GitHub's 65,536-character comment limit.**")
    );
    assert!(f.body.contains("| **Total** |"), "the summary table stays");
    for fd in run.findings() {
        if fd.severity == Severity::Critical || fd.severity == Severity::Important {
            assert!(f.body.contains(fd.message.trim()), "{} is whole", fd.id);
        }
        if fd.severity == Severity::Critical
            && let Some(fix) = &fd.suggested_fix
        {
            assert!(f.body.contains(fix.trim()), "{}'s fix is kept", fd.id);
        }
    }
    let raised: HashSet<String> = run.findings().map(|f| f.id.clone()).collect();
    assert_eq!(
        ids_in_meta(&f.body),
        raised,
        "every finding in the metadata"
    );
    // Deterministic.
    assert_eq!(fit(&run, &agg), f);
}

#[test]
fn the_ladder_goes_in_order() {
    let run = big_run();
    let agg = Aggregate::first(&run);
    let full = markdown(&run, &agg).chars().count();
    // A limit a little under the full size: only the suggestions' fixes go.
    let f = fit_within(&run, &agg, full - 1000);
    assert!(f.condensed && f.chars <= full - 1000);
    assert!(f.body.contains("the suggested fixes of"));
    assert!(!f.body.contains("shortened to one line"));
    assert!(!f.body.contains("collapsed to one line"));
    assert!(!f.body.contains("listed only by count"));
    // The issue's limit: some suggestions go by count, with how to see them.
    let f = fit(&run, &agg);
    assert!(f.body.contains(
        "more suggestions — run `pr-shepherd review acme/rivet#482 --format md` for the full list."
    ));
    // A small limit: the critical findings lose their fixes and shorten to one line, still
    // named, before anything is cut.
    let f = fit_within(&run, &agg, 20_000);
    assert!(f.chars <= 20_000, "{}", f.chars);
    assert!(!f.body.contains("cut here to fit"));
    assert!(f.body.contains("the suggested fixes of"));
    for fd in run
        .findings()
        .filter(|fd| fd.severity == Severity::Critical)
    {
        assert!(f.body.contains(&format!("`{}`", fd.id)), "{} named", fd.id);
    }
    assert_eq!(ids_in_meta(&f.body).len(), 245);
    // A tiny limit: the text is cut, the metadata still keeps every id.
    let f = fit_within(&run, &agg, 12_000);
    assert!(f.chars <= 12_000, "{}", f.chars);
    assert!(f.body.contains("cut here to fit"));
    assert_eq!(ids_in_meta(&f.body).len(), 245);
}

#[test]
fn after_a_condensed_post_the_next_review_finds_everything_unchanged() {
    let run = big_run();
    let first = fit(&run, &Aggregate::first(&run));
    assert!(first.condensed);
    let agg = review_after(&run, &[("pr-shepherd", first.body.clone())]);
    assert_eq!(agg.mode, Mode::Incremental);
    let c = &agg.classification;
    assert_eq!(c.unchanged.len(), 245);
    assert!(c.new.is_empty() && c.not_reported.is_empty() && c.addressed.is_empty());
    // Unchanged findings are collapsed inside <details>; it still fits, critical ones whole.
    let second = fit(&run, &agg);
    assert!(second.condensed && second.chars <= COMMENT_LIMIT);
    assert!(second.body.contains("<details><summary>"));
    for fd in run.findings().filter(|f| f.severity == Severity::Critical) {
        assert!(second.body.contains(fd.message.trim()));
    }

    // A marker reply addresses one finding; the third review still knows all the others and
    // carries the addressed one forward, from compact metadata both times.
    let addressed = run
        .findings()
        .find(|f| f.severity == Severity::Suggestion)
        .map(|f| f.id.clone())
        .unwrap_or_default();
    let reply = format!("{addressed} fixed.\n\n— AI Coding Agent");
    let agg = review_after(
        &run,
        &[("pr-shepherd", second.body.clone()), ("agent", reply)],
    );
    assert_eq!(agg.classification.unchanged.len(), 244);
    assert_eq!(agg.classification.addressed.len(), 1);
    let third = fit(&run, &agg);
    let agg = review_after(&run, &[("pr-shepherd", third.body.clone())]);
    assert_eq!(agg.classification.unchanged.len(), 244);
    assert_eq!(agg.classification.addressed.len(), 1, "carried forward");
    assert!(agg.classification.new.is_empty());
}

#[test]
fn an_uncondensed_post_then_a_condensed_one_classify_alike() {
    // The same findings, first posted whole (small), then grown: ids match across forms.
    let small = run_of(big_run().findings().take(10).cloned().collect());
    let first = fit(&small, &Aggregate::first(&small));
    assert!(!first.condensed);
    let run = big_run();
    let agg = review_after(&run, &[("pr-shepherd", first.body)]);
    assert_eq!(agg.classification.unchanged.len(), 10);
    assert_eq!(agg.classification.new.len(), 235);
}

fn arb_finding() -> impl Strategy<Value = Finding> {
    (
        0usize..6,
        0usize..3,
        0usize..40,
        1u32..5000,
        "[a-zA-Z0-9 <>`*_\\-]{1,40}",
        0usize..1500,
        proptest::option::of(0usize..800),
    )
        .prop_map(|(a, s, file, line, words, len, fix)| {
            let message = format!("{words} {}", "x".repeat(len));
            let mut f = finding(
                Aspect::ALL[a],
                Severity::ALL[s],
                &format!("src/dir{}/file{file}.rs", file % 7),
                line,
                message,
            );
            f.suggested_fix = fix.map(|n| "y".repeat(n));
            f
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any set of findings renders within the limit and keeps every id in the metadata.
    #[test]
    fn any_findings_fit_and_keep_every_id(findings in proptest::collection::vec(arb_finding(), 0..400)) {
        let run = run_of(findings);
        let agg = Aggregate::first(&run);
        let f = fit(&run, &agg);
        prop_assert!(f.chars <= COMMENT_LIMIT, "{} chars", f.chars);
        prop_assert!(f.body.starts_with(crate::review::inputs::prior::REVIEW_HEADER));
        let raised: HashSet<String> = run.findings().map(|f| f.id.clone()).collect();
        prop_assert_eq!(ids_in_meta(&f.body), raised);
        for fd in run.findings().filter(|fd| fd.severity == Severity::Critical) {
            // Critical findings stay named unless the text itself had to be cut, and whole
            // unless they had to be shortened to one line.
            if !f.body.contains("cut here to fit") {
                let named = format!("`{}`", fd.id);
                prop_assert!(f.body.contains(&named), "{} named", fd.id);
                let shortened = f.body.contains("critical findings shortened to one line")
                    || f.body.contains("critical finding shortened to one line")
                    || f.body.contains("critical findings unchanged since")
                    || f.body.contains("critical finding unchanged since");
                if !shortened {
                    prop_assert!(f.body.contains(fd.message.trim()));
                }
            }
        }
    }
}

#[test]
fn the_findings_history_survives_condensed_comments() {
    let mut run = big_run();
    run.head_sha = "aaaaaaa1111".into();
    let first = fit(&run, &Aggregate::first(&run));
    assert!(first.condensed);
    run.head_sha = "bbbbbbb2222".into();
    let agg = review_after(&run, &[("pr-shepherd", first.body.clone())]);
    assert_eq!(agg.classification.unchanged.len(), 245);
    for i in &agg.classification.unchanged {
        assert_eq!(agg.current[*i].history(), (2, "aaaaaaa1111"));
    }
    let second = fit(&run, &agg);
    assert!(second.condensed);
    // Compact: the first head is written once, in a table, however many findings name it.
    assert_eq!(
        second.body.matches("aaaaaaa1111").count(),
        1,
        "{}",
        second.body
    );
    run.head_sha = "ccccccc3333".into();
    let agg = review_after(&run, &[("pr-shepherd", second.body.clone())]);
    assert_eq!(agg.classification.unchanged.len(), 245);
    for i in &agg.classification.unchanged {
        assert_eq!(agg.current[*i].history(), (3, "aaaaaaa1111"));
    }
    // The condensed markdown says since when, in the full and the one-line forms.
    let third = fit(&run, &agg);
    assert!(third.condensed);
    assert!(
        third
            .body
            .contains("_(unchanged: reported in 3 reviews since aaaaaaa)_")
    );
    assert!(
        third
            .body
            .contains("_(reported in 3 reviews since aaaaaaa)_")
    );
}

#[test]
fn hiding_by_count_takes_the_last_of_each_aspects_list_first_in_turns() {
    let s = |a: Aspect, line: u32, tag: &str| {
        finding(
            a,
            Severity::Suggestion,
            "src/a.rs",
            line,
            format!("Suggestion {tag}"),
        )
    };
    let a = Aspect::ALL[0];
    let b = Aspect::ALL[1];
    let run = run_of(vec![
        s(a, 1, "a one"),
        s(a, 2, "a two"),
        s(a, 3, "a three"),
        s(b, 1, "b one"),
        s(b, 2, "b two"),
    ]);
    let agg = Aggregate::first(&run);
    let order = hide_order(&run, &agg, Severity::Suggestion);
    let first_two: Vec<&str> = order.iter().take(2).map(|f| f.message.as_str()).collect();
    assert_eq!(first_two, ["Suggestion a three", "Suggestion b two"]);
    let all: Vec<&str> = order.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        all,
        [
            "Suggestion a three",
            "Suggestion b two",
            "Suggestion a two",
            "Suggestion b one",
            "Suggestion a one"
        ]
    );
}

fn earlier(i: usize, len: usize) -> crate::review::inputs::prior::MetaFinding {
    crate::review::inputs::prior::MetaFinding {
        id: format!("PS-{i:010x}"),
        aspect: Aspect::ALL[i % 6].as_str().into(),
        severity: "suggestion".into(),
        file: format!("src/old{}.rs", i % 9),
        line: Some(u32::try_from(i).unwrap_or(1)),
        message: format!("Earlier finding {i}: {}", "z".repeat(len)),
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// A big re-review: hundreds of addressed, not-assessed and no-longer-reported entries (and
    /// unclassified findings) go to counts before the text is ever cut; within the limit, every
    /// critical finding whole.
    #[test]
    fn long_lists_of_earlier_findings_go_to_counts_and_critical_stays_whole(
        findings in proptest::collection::vec(arb_finding(), 1..60),
        addressed in 0usize..500,
        gone in 100usize..600,
        len in 100usize..400,
        rejected in 0usize..40,
    ) {
        let mut run = run_of(findings);
        if let Some(a) = run.aspects.first_mut() {
            a.rejected = (0..rejected)
                .map(|i| crate::review::findings::Rejected {
                    index: i,
                    reason: "no severity".into(),
                    raw: "{}".into(),
                    file: Some("src/x.rs".into()),
                    message: Some(format!("unclassified {i} {}", "u".repeat(len))),
                })
                .collect();
        }
        let mut agg = Aggregate::first(&run);
        agg.mode = Mode::Incremental;
        agg.classification.addressed = (0..addressed)
            .map(|i| (earlier(i, len), crate::review::results::classify::AddressedBy::Earlier))
            .collect();
        agg.classification.not_reported =
            (addressed..addressed + gone).map(|i| earlier(i, len)).collect();
        agg.not_assessed = (0..gone / 4).map(|i| earlier(100_000 + i, len)).collect();
        let f = fit(&run, &agg);
        prop_assert!(f.chars <= COMMENT_LIMIT, "{} chars", f.chars);
        prop_assert!(!f.body.contains("cut here to fit"), "cut");
        for fd in run.findings().filter(|fd| fd.severity == Severity::Critical) {
            prop_assert!(f.body.contains(fd.message.trim()), "{} whole", fd.id);
        }
        if f.condensed && f.body.contains("Listed only by count") {
            prop_assert!(f.body.contains("--format md` lists them"));
        }
    }
}

#[test]
fn a_review_whose_text_is_whole_says_only_the_metadata_was_compacted() {
    // Critical findings only: the text keeps them whole; only the metadata can shrink.
    let all: Vec<Finding> = (0..40u8)
        .map(|i| {
            let tag = char::from(b'a' + i % 26);
            let msg = format!(
                "Critical {tag}{}: {}",
                char::from(b'a' + i / 26),
                "this breaks under load and loses data on restart. ".repeat(12)
            );
            finding(Aspect::Correctness, Severity::Critical, "src/a.rs", 1, msg)
        })
        .collect();
    let run = run_of(all);
    let agg = Aggregate::first(&run);
    let full = markdown(&run, &agg);
    let f = fit_within(&run, &agg, full.chars().count() - 1);
    assert!(f.condensed);
    assert!(
        f.body.contains(
            "Nothing of the text is left out; only the hidden metadata is in its compact form"
        ),
        "{}",
        &f.body[..600]
    );
    assert!(!f.body.contains("Left out: ."), "{}", &f.body[..600]);
    // Every finding is shown in full: none is shortened to a line or counted.
    for finding in run.findings() {
        assert!(finding.message.split_whitespace().count() > 60);
        assert!(
            f.body.contains(finding.message.trim_end()),
            "{}",
            finding.id
        );
    }
    assert!(!f.body.contains("more critical"), "none is counted only");
}
