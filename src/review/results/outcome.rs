//! What became of each finding (pure): the decisions a run, a composed review and a post make,
//! for the ledger's per-repository log (`ledger::decisions`) and `pr-shepherd stats`.
//!
//! - a run: every finding an aspect reported is **proposed**; a held-back one is also **held
//!   back** (by the verifier, a dismissal or another reviewer);
//! - a composed review: an earlier finding is **addressed** when a trusted marker reply or the
//!   maintainer marked it, or when it is no longer reported by an aspect that ran over a new head
//!   (a push since the review that reported it);
//! - a post: each raised finding is **posted**; from the console also **kept** (its text as
//!   composed), **edited** (its id still there, its text changed) or **dropped** (removed from the
//!   draft).

use super::aggregate::Aggregate;
use super::classify::AddressedBy;
use super::screening::fingerprint;
use crate::ledger::{Decision, DecisionKind};
use crate::review::inputs::prior::{META_OPEN, PriorReviews};
use crate::review::run::ReviewRun;

/// The decisions a finished run makes: proposed, held back.
pub fn run_decisions(run: &ReviewRun, pr: u64, at: i64) -> Vec<Decision> {
    let mut out = Vec::new();
    for a in &run.aspects {
        let n = a.findings.len() + a.held_back.len();
        if n == 0 {
            continue;
        }
        let tokens = a.tokens.input.unwrap_or(0) + a.tokens.output.unwrap_or(0);
        let share = tokens / n as u64;
        let mut proposed = |id: &str| {
            let mut d = Decision::new(at, pr, id, a.aspect.as_str(), DecisionKind::Proposed);
            d.run = Some(run.run_id.clone());
            d.tokens = Some(share);
            out.push(d);
        };
        for f in &a.findings {
            proposed(&f.id);
        }
        for h in &a.held_back {
            proposed(&h.finding.id);
        }
        for h in &a.held_back {
            let mut d = Decision::new(
                at,
                pr,
                &h.finding.id,
                a.aspect.as_str(),
                DecisionKind::HeldBack,
            );
            d.run = Some(run.run_id.clone());
            d.by = Some(h.held_back.by().to_owned());
            d.reason = Some(h.held_back.said());
            out.push(d);
        }
    }
    out
}

/// The maintainer's dismissal of finding `f` on PR `pr`, with `reason`: the decision (with the
/// finding's fingerprint, so a reworded repetition is held back too) and, for the whole
/// repository (`lesson`), the lesson. The one place both the console and `finding dismiss` make
/// them.
pub fn dismissal(
    f: &crate::review::inputs::prior::MetaFinding,
    reason: &str,
    lesson: bool,
    pr: u64,
    at: i64,
) -> (Decision, Option<crate::ledger::Lesson>) {
    let mut d = Decision::new(at, pr, &f.id, &f.aspect, DecisionKind::Dismissed);
    d.by = Some("maintainer".into());
    d.reason = Some(reason.to_owned());
    d.fingerprint = Some(crate::pr::Fingerprint::of(
        &f.aspect, &f.file, f.line, &f.message,
    ));
    d.message = Some(f.message.clone());
    d.lesson = lesson;
    let lesson = lesson.then(|| crate::ledger::Lesson {
        id: crate::ledger::lesson_id(&f.id),
        aspect: f.aspect.clone(),
        file: f.file.clone(),
        message: f.message.clone(),
        reason: reason.to_owned(),
        pr,
        finding: f.id.clone(),
        at,
    });
    (d, lesson)
}

/// The decisions a composed review makes: earlier findings addressed (by a reply, the
/// maintainer, or a push after which they are no longer reported).
pub fn addressed_decisions(
    run: &ReviewRun,
    agg: &Aggregate,
    prior: &PriorReviews,
    pr: u64,
    at: i64,
) -> Vec<Decision> {
    let mut out = Vec::new();
    for (f, by) in &agg.classification.addressed {
        let by = match by {
            AddressedBy::Reply { author, .. } => format!("reply:{author}"),
            AddressedBy::Console => "maintainer".to_owned(),
            // Recorded when that earlier review decided it.
            AddressedBy::Earlier => continue,
        };
        let mut d = Decision::new(at, pr, &f.id, &f.aspect, DecisionKind::Addressed);
        d.run = Some(run.run_id.clone());
        d.by = Some(by);
        out.push(d);
    }
    let last_head = prior
        .own
        .iter()
        .rev()
        .find_map(|r| r.meta.as_ref().map(|m| m.head_sha.clone()));
    let pushed = last_head.is_some_and(|h| !h.is_empty() && h != run.head_sha);
    if pushed {
        let held: Vec<&str> = run.held_back().map(|h| h.finding.id.as_str()).collect();
        for f in &agg.classification.not_reported {
            if held.contains(&f.id.as_str()) {
                continue;
            }
            let mut d = Decision::new(at, pr, &f.id, &f.aspect, DecisionKind::Addressed);
            d.run = Some(run.run_id.clone());
            d.by = Some("push".to_owned());
            out.push(d);
        }
    }
    out
}

/// The visible part of a review body: everything before its hidden metadata.
pub fn visible(body: &str) -> &str {
    body.rfind(META_OPEN).map_or(body, |i| &body[..i])
}

/// A finding's lines in a body: the line with its id and the indented lines under it.
fn block<'a>(body: &'a str, id: &str) -> Option<Vec<&'a str>> {
    let lines: Vec<&str> = body.lines().collect();
    let start = lines.iter().position(|l| l.contains(id))?;
    let mut out = vec![lines[start].trim_end()];
    out.extend(
        lines[start + 1..]
            .iter()
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.trim_end()),
    );
    Some(out)
}

/// The decisions a post makes: every raised finding of the composed review is posted; posted by
/// the maintainer (`composed` is what the console offered, `posted` what was sent), each is also
/// kept, edited or dropped.
pub fn post_decisions(
    run: &ReviewRun,
    agg: &Aggregate,
    composed: &str,
    posted: &str,
    by_maintainer: bool,
    pr: u64,
    at: i64,
) -> Vec<Decision> {
    let (offered, sent) = (visible(composed), visible(posted));
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in run.findings().filter(|f| agg.class_of_id(&f.id).is_some()) {
        if !seen.insert(f.id.as_str()) {
            continue;
        }
        let decision = |kind: DecisionKind, by: &str| {
            let mut d = Decision::new(at, pr, &f.id, f.aspect.as_str(), kind);
            d.run = Some(run.run_id.clone());
            d.by = Some(by.to_owned());
            d.via = Some(crate::ledger::VIA_COMMENT.to_owned());
            d
        };
        if !by_maintainer {
            out.push(decision(DecisionKind::Posted, "headless"));
            continue;
        }
        match (block(offered, &f.id), block(sent, &f.id)) {
            (Some(_), None) => {
                let mut d = decision(DecisionKind::Dropped, "maintainer");
                d.fingerprint = Some(fingerprint(f));
                out.push(d);
            }
            // Not shown in what was offered (condensed to a count): posted in the metadata.
            (None, None) => out.push(decision(DecisionKind::Posted, "maintainer")),
            (Some(a), Some(b)) => {
                out.push(decision(DecisionKind::Posted, "maintainer"));
                let kind = if a == b {
                    DecisionKind::Kept
                } else {
                    DecisionKind::Edited
                };
                out.push(decision(kind, "maintainer"));
            }
            (None, Some(_)) => {
                out.push(decision(DecisionKind::Posted, "maintainer"));
                out.push(decision(DecisionKind::Kept, "maintainer"));
            }
        }
    }
    out
}

/// What was decided of a finding on a PR, by any of its decisions; a finding with none is still
/// to decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// On the PR: posted (kept or edited first, or addressed since).
    Posted,
    /// Dismissed by the maintainer, or made a lesson.
    Dismissed,
    /// Dropped from a draft before posting.
    Dropped,
}

/// The findings of PR `pr` that are decided for the pending review, by id: posted before
/// dismissed before dropped (what is on the PR stays on it whatever was said of it after). What
/// the Shepherd comment decided of a finding (posted in it, dropped from it) does not decide
/// its draft in the pending review: neither sends the other. A dismissal, a lesson and an
/// addressed finding decide both.
pub fn settled(decisions: &[Decision], pr: u64) -> std::collections::BTreeMap<String, Settled> {
    let rank = |s: Settled| match s {
        Settled::Posted => 2,
        Settled::Dismissed => 1,
        Settled::Dropped => 0,
    };
    let mut out = std::collections::BTreeMap::new();
    let by_comment = |d: &Decision| d.via.as_deref() == Some(crate::ledger::VIA_COMMENT);
    for d in decisions.iter().filter(|d| d.pr == pr && !by_comment(d)) {
        let s = match d.kind {
            DecisionKind::Posted
            | DecisionKind::Kept
            | DecisionKind::Edited
            | DecisionKind::Addressed => Settled::Posted,
            DecisionKind::Dismissed => Settled::Dismissed,
            DecisionKind::Dropped => Settled::Dropped,
            DecisionKind::Proposed | DecisionKind::HeldBack => continue,
        };
        let e = out.entry(d.finding.clone()).or_insert(s);
        if rank(s) > rank(*e) {
            *e = s;
        }
    }
    out
}

/// The decisions a submitted pending review makes of its findings' drafts: a kept one is
/// posted and kept, an edited one posted and edited, a dropped one dropped; an undecided one
/// makes none (it is proposed again). The aspect is the one `run` gives the finding.
pub fn pending_decisions(
    review: &crate::code::pending::PendingReview,
    run: Option<&ReviewRun>,
    pr: u64,
    at: i64,
) -> Vec<Decision> {
    use crate::code::pending::DraftState;
    let mut out = Vec::new();
    for c in &review.comments {
        let Some(id) = c.finding_id.as_deref() else {
            continue;
        };
        let aspect = run
            .and_then(|r| r.findings().find(|f| f.id == id))
            .map_or("", |f| f.aspect.as_str());
        let kinds: &[DecisionKind] = match c.state {
            DraftState::Kept => &[DecisionKind::Posted, DecisionKind::Kept],
            DraftState::Edited => &[DecisionKind::Posted, DecisionKind::Edited],
            DraftState::Dropped => &[DecisionKind::Dropped],
            DraftState::Proposed | DraftState::Posted => &[],
        };
        for kind in kinds {
            let mut d = Decision::new(at, pr, id, aspect, *kind);
            d.run = run.map(|r| r.run_id.clone());
            d.by = Some("maintainer".to_owned());
            d.via = Some(crate::ledger::VIA_REVIEW.to_owned());
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::aspect::Aspect;
    use crate::review::findings::{Finding, Severity, finding_id};
    use crate::review::run::{AspectOutcome, AspectState, HeldBack, HoldReason, RunFacts};

    fn finding(message: &str) -> Finding {
        Finding {
            id: finding_id(Aspect::Perf, "src/a.rs", message),
            aspect: Aspect::Perf,
            severity: Severity::Suggestion,
            file: "src/a.rs".into(),
            line: Some(3),
            message: message.into(),
            suggested_fix: None,
            outside_diff: false,
            rule: None,
            verified: None,
        }
    }

    fn run(findings: Vec<Finding>, held: Vec<HeldBack>) -> ReviewRun {
        let mut a = AspectOutcome::new(Aspect::Perf, AspectState::Done, None);
        a.findings = findings;
        a.held_back = held;
        a.tokens.input = Some(900);
        a.tokens.output = Some(100);
        ReviewRun {
            run_id: "r1".into(),
            pr: "acme/rivet#1".into(),
            head_sha: "h2".into(),
            backend: "replay".into(),
            model: "m".into(),
            started_at: "2026-12-01T10:00:00Z".parse().unwrap(),
            elapsed_ms: 1,
            cancelled: false,
            aspects: vec![a],
            prices: None,
            notes: Vec::new(),
            concurrency_lowered: None,
            context: RunFacts::default(),
        }
    }

    #[test]
    fn a_run_proposes_everything_and_says_what_was_held_back() {
        let held = HeldBack {
            finding: finding("Loop allocates."),
            held_back: HoldReason::AlreadyRaised {
                login: "coderabbitai[bot]".into(),
                url: "u".into(),
                thread: "PRRT_1".into(),
            },
        };
        let r = run(vec![finding("Slow.")], vec![held]);
        let d = run_decisions(&r, 1, 5);
        let kinds: Vec<DecisionKind> = d.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                DecisionKind::Proposed,
                DecisionKind::Proposed,
                DecisionKind::HeldBack
            ]
        );
        assert_eq!(d[0].tokens, Some(500));
        assert_eq!(d[2].by.as_deref(), Some("others"));
        assert_eq!(
            d[2].reason.as_deref(),
            Some("already raised by @coderabbitai[bot]")
        );
    }

    #[test]
    fn a_finding_is_settled_by_its_strongest_decision_on_its_pr() {
        use DecisionKind::*;
        let d = |pr, id: &str, kind| Decision::new(1, pr, id, "perf", kind);
        let all = [
            d(1, "A", Proposed),
            d(1, "B", Dropped),
            d(1, "B", Posted),
            d(1, "C", Dismissed),
            d(1, "D", Dropped),
            d(1, "E", HeldBack),
            d(1, "F", Edited),
            d(2, "G", Dismissed),
        ];
        let s = settled(&all, 1);
        assert_eq!(s.get("A"), None);
        assert_eq!(s.get("B"), Some(&Settled::Posted));
        assert_eq!(s.get("C"), Some(&Settled::Dismissed));
        assert_eq!(s.get("D"), Some(&Settled::Dropped));
        assert_eq!(s.get("E"), None);
        assert_eq!(s.get("F"), Some(&Settled::Posted));
        assert_eq!(s.get("G"), None, "another PR's");
    }

    #[test]
    fn what_the_shepherd_comment_decided_leaves_the_pending_reviews_drafts_undecided() {
        use DecisionKind::*;
        let via = |pr, id: &str, kind, via: &str| {
            let mut d = Decision::new(1, pr, id, "perf", kind);
            d.via = Some(via.to_owned());
            d
        };
        let all = [
            via(1, "A", Posted, crate::ledger::VIA_COMMENT),
            via(1, "A", Kept, crate::ledger::VIA_COMMENT),
            via(1, "B", Dropped, crate::ledger::VIA_COMMENT),
            via(1, "C", Posted, crate::ledger::VIA_REVIEW),
            via(1, "D", Dropped, crate::ledger::VIA_REVIEW),
            Decision::new(1, 1, "E", "perf", Dismissed),
        ];
        let s = settled(&all, 1);
        assert_eq!(
            s.get("A"),
            None,
            "posted in the comment, undecided in the review"
        );
        assert_eq!(
            s.get("B"),
            None,
            "dropped from the comment, undecided in the review"
        );
        assert_eq!(s.get("C"), Some(&Settled::Posted));
        assert_eq!(s.get("D"), Some(&Settled::Dropped));
        assert_eq!(
            s.get("E"),
            Some(&Settled::Dismissed),
            "a dismissal decides both"
        );
    }

    #[test]
    fn a_submitted_pending_review_decides_its_drafts_but_not_the_undecided_ones() {
        use crate::code::{LineAddr, Side};
        let (a, b, c, u) = (
            finding("One."),
            finding("Two."),
            finding("Three."),
            finding("Four."),
        );
        let r = run(vec![a.clone(), b.clone(), c.clone(), u.clone()], Vec::new());
        let mut p = crate::code::pending::PendingReview::default();
        let at = LineAddr {
            side: Side::Right,
            line: 3,
        };
        let ids: Vec<String> = [&a, &b, &c, &u]
            .iter()
            .map(|f| {
                p.propose_finding(&f.id, "src/a.rs", at, &f.message)
                    .unwrap()
            })
            .collect();
        p.keep(&ids[0]).unwrap();
        p.edit(&ids[1], "Two, better.").unwrap();
        p.drop_comment(&ids[2]).unwrap();
        let d = pending_decisions(&p, Some(&r), 1, 5);
        let of = |id: &str| -> Vec<DecisionKind> {
            d.iter()
                .filter(|x| x.finding == id)
                .map(|x| x.kind)
                .collect()
        };
        assert_eq!(of(&a.id), [DecisionKind::Posted, DecisionKind::Kept]);
        assert_eq!(of(&b.id), [DecisionKind::Posted, DecisionKind::Edited]);
        assert_eq!(of(&c.id), [DecisionKind::Dropped]);
        assert!(of(&u.id).is_empty());
        assert!(
            d.iter()
                .all(|x| x.aspect == "perf" && x.run.as_deref() == Some("r1"))
        );
    }

    #[test]
    fn a_console_post_keeps_edits_and_drops() {
        let (a, b, c) = (
            finding("Slow one."),
            finding("Slow two."),
            finding("Slow three."),
        );
        let r = run(vec![a.clone(), b.clone(), c.clone()], Vec::new());
        let agg = crate::review::results::compose::first_review(&r);
        let composed = crate::review::results::compose::markdown(&r, &agg);
        let edited = composed
            .replace("Slow two.", "Slow two, and here is why.")
            .lines()
            .filter(|l| !l.contains(&c.id) || l.contains(META_OPEN))
            .collect::<Vec<_>>()
            .join("\n");
        let d = post_decisions(&r, &agg, &composed, &edited, true, 1, 5);
        let of = |id: &str| -> Vec<DecisionKind> {
            d.iter()
                .filter(|x| x.finding == id)
                .map(|x| x.kind)
                .collect()
        };
        assert_eq!(of(&a.id), [DecisionKind::Posted, DecisionKind::Kept]);
        assert_eq!(of(&b.id), [DecisionKind::Posted, DecisionKind::Edited]);
        assert_eq!(of(&c.id), [DecisionKind::Dropped]);
        // Headless: posted, no maintainer decision.
        let h = post_decisions(&r, &agg, &composed, &composed, false, 1, 5);
        assert!(h.iter().all(|x| x.kind == DecisionKind::Posted));
        assert_eq!(h.len(), 3);
    }
}
