//! The console's review (pure state): per-aspect progress of a run, the composed review and its
//! draft, and what a post will do. The effect runner ([`super::EffectRunner`]) does the I/O: it
//! prepares and runs the review in a background task, saves drafts, and posts.

use std::collections::HashSet;
use std::time::Duration;

use ratatui_textarea::TextArea;

use crate::policy::Mode;
use crate::review::inputs::prior::PriorReviews;
use crate::review::results::aggregate::{Aggregate, AggregateRequest, aggregate};
use crate::review::results::condense::{self, BodySize};
use crate::review::{Aspect, ReviewEvent, ReviewRun};
use crate::sanitize::{one_line, sanitize};

/// One aspect as the console shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AspectView {
    Queued,
    Running(Duration),
    Done { findings: usize },
    Failed(String),
    TimedOut(Duration),
    Skipped(String),
    Cancelled,
}

impl AspectView {
    /// "queued", "running 12s", "done · 2 findings", "failed: why", …
    pub fn describe(&self) -> String {
        match self {
            AspectView::Queued => "queued".to_owned(),
            AspectView::Running(d) => format!("running {}s", d.as_secs()),
            AspectView::Done { findings: 0 } => "done · no findings".to_owned(),
            AspectView::Done { findings: 1 } => "done · 1 finding".to_owned(),
            AspectView::Done { findings } => format!("done · {findings} findings"),
            AspectView::Failed(why) => format!("failed: {}", one_line(why)),
            AspectView::TimedOut(d) => format!("timed out after {}s", d.as_secs()),
            AspectView::Skipped(why) => format!("skipped: {}", one_line(why)),
            AspectView::Cancelled => "cancelled".to_owned(),
        }
    }
}

/// A review run as the console follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunView {
    /// Which run (a newer run makes events of older ones stale).
    pub seq: u64,
    pub full: bool,
    /// Set once the run was prepared: the mode and why.
    pub mode: Option<(Mode, String)>,
    pub aspects: Vec<(Aspect, AspectView)>,
    /// About how many tokens of answer each aspect has streamed so far.
    pub tokens: std::collections::BTreeMap<Aspect, u64>,
    pub finished: bool,
    /// Why the run could not start.
    pub error: Option<String>,
    /// Why the budget stopped the run before its next call, when it did.
    pub stopped: Option<String>,
}

impl RunView {
    pub fn new(seq: u64, full: bool) -> RunView {
        RunView {
            seq,
            full,
            mode: None,
            aspects: Aspect::ALL
                .into_iter()
                .map(|a| (a, AspectView::Queued))
                .collect(),
            tokens: std::collections::BTreeMap::new(),
            finished: false,
            error: None,
            stopped: None,
        }
    }

    /// One aspect's line in the aspects panel: its state, and while it runs the tokens of answer
    /// streamed so far ("running 3s · ~120 tokens").
    pub fn describe(&self, aspect: Aspect, view: &AspectView) -> String {
        match (view, self.tokens.get(&aspect)) {
            (AspectView::Running(_), Some(n)) => format!("{} · ~{n} tokens", view.describe()),
            _ => view.describe(),
        }
    }

    pub fn running(&self) -> bool {
        !self.finished && self.error.is_none()
    }

    /// Applies one progress event (`Finished` only marks the run finished).
    pub fn apply(&mut self, ev: &ReviewEvent) {
        let (aspect, view) = match ev {
            ReviewEvent::Queued { aspect } => (*aspect, AspectView::Queued),
            ReviewEvent::Running { aspect, elapsed } => (*aspect, AspectView::Running(*elapsed)),
            ReviewEvent::Done {
                aspect, findings, ..
            } => (
                *aspect,
                AspectView::Done {
                    findings: *findings,
                },
            ),
            ReviewEvent::Failed { aspect, why } => (*aspect, AspectView::Failed(why.clone())),
            ReviewEvent::TimedOut { aspect, after } => (*aspect, AspectView::TimedOut(*after)),
            ReviewEvent::Skipped { aspect, reason } => {
                (*aspect, AspectView::Skipped(reason.clone()))
            }
            ReviewEvent::Cancelled { aspect } => (*aspect, AspectView::Cancelled),
            ReviewEvent::Streaming { aspect, tokens } => {
                self.tokens.insert(*aspect, *tokens);
                return;
            }
            ReviewEvent::Finished(run) => {
                self.finished = true;
                self.stopped = run.context.budget_stop().map(str::to_owned);
                return;
            }
            // A remark on the whole run: the finished review's footer states it.
            ReviewEvent::Note { .. } => return,
        };
        if let Some(slot) = self.aspects.iter_mut().find(|(a, _)| *a == aspect) {
            // A late tick never overwrites a final state.
            if matches!(view, AspectView::Running(_))
                && !matches!(slot.1, AspectView::Queued | AspectView::Running(_))
            {
                return;
            }
            slot.1 = view;
        }
    }

    /// The header line: `review: 4/6 done · security running 12s · perf failed`.
    pub fn progress(&self) -> String {
        if let Some(e) = &self.error {
            return format!("review not started: {}", one_line(e));
        }
        let done = self
            .aspects
            .iter()
            .filter(|(_, v)| matches!(v, AspectView::Done { .. }))
            .count();
        let mode = match &self.mode {
            Some((Mode::Full, _)) => " (full)",
            Some((Mode::Incremental, _)) => " (incremental)",
            None => "",
        };
        let head = if self.finished {
            "review finished"
        } else {
            "review"
        };
        let mut parts = vec![format!("{head}{mode}: {done}/{} done", self.aspects.len())];
        let queued = self
            .aspects
            .iter()
            .filter(|(_, v)| *v == AspectView::Queued)
            .count();
        for (a, v) in &self.aspects {
            let s = match v {
                AspectView::Queued | AspectView::Done { .. } => continue,
                AspectView::Running(d) => format!("{a} running {}s", d.as_secs()),
                AspectView::Failed(_) => format!("{a} failed"),
                AspectView::TimedOut(_) => format!("{a} timed out"),
                AspectView::Skipped(_) => format!("{a} skipped"),
                AspectView::Cancelled => format!("{a} cancelled"),
            };
            parts.push(s);
        }
        if queued > 0 && !self.finished {
            parts.push(format!("{queued} queued"));
        }
        if let Some(why) = &self.stopped {
            parts.push(format!(
                "stopped by the budget: {} (incomplete, not postable)",
                one_line(why)
            ));
        }
        parts.join(" · ")
    }
}

/// A finished run, classified and composed.
#[derive(Debug, Clone)]
pub struct Composed {
    pub run: ReviewRun,
    pub prior: PriorReviews,
    pub request: AggregateRequest,
    pub agg: Aggregate,
    /// The body as it will be posted (sanitized: nothing hidden reaches the screen or the PR),
    /// condensed when the full review is over GitHub's comment limit.
    pub body: String,
    /// Whether `body` was condensed to fit, and the full review's length in characters.
    pub condensed: bool,
    pub full_chars: usize,
}

/// The review as it will be posted: (sanitized body, condensed, full length in characters).
///
/// `sanitize` makes every hidden character visible (`⟨U+200B⟩`: 1 character → 8), so the body is
/// fitted against what is actually posted: while the sanitized body is over the limit, it is
/// condensed again against a limit smaller in proportion.
fn fitted_body(run: &ReviewRun, agg: &Aggregate) -> (String, bool, usize) {
    let mut limit = condense::COMMENT_LIMIT;
    let mut tries = 0;
    loop {
        let f = condense::fit_within(run, agg, limit);
        let body = sanitize(&f.body).into_owned();
        let size = BodySize::of(&body);
        tries += 1;
        if size.fits() || tries >= 16 || limit == 0 {
            return (body, f.condensed, f.full_chars);
        }
        // Shrink in proportion to the overshoot, and by at least 1% each time.
        let scaled = limit.saturating_mul(size.limit) / size.chars.max(1);
        limit = scaled.min(limit.saturating_sub(limit / 100 + 1));
    }
}

impl Composed {
    pub fn new(
        run: ReviewRun,
        snapshot: &crate::pr::Snapshot,
        prior: PriorReviews,
        request: AggregateRequest,
    ) -> Composed {
        let agg = aggregate(&run, snapshot, &prior, &request);
        let (body, condensed, full_chars) = fitted_body(&run, &agg);
        Composed {
            run,
            prior,
            request,
            agg,
            body,
            condensed,
            full_chars,
        }
    }

    /// A run the review flow concluded ([`crate::review::flow::Concluded`]): classified there;
    /// the body fitted as the console shows and posts it (sanitized).
    pub fn concluded(c: crate::review::flow::Concluded) -> Composed {
        let (body, condensed, full_chars) = fitted_body(&c.run, &c.agg);
        Composed {
            run: c.run,
            prior: c.prior,
            request: c.request,
            agg: c.agg,
            body,
            condensed,
            full_chars,
        }
    }

    /// Toggles "addressed" on a finding and recomposes. Returns whether the body changed.
    pub fn toggle_addressed(&mut self, id: &str, snapshot: &crate::pr::Snapshot) -> bool {
        let set: &mut HashSet<String> = &mut self.request.console_addressed;
        if !set.remove(id) {
            set.insert(id.to_owned());
        }
        let before = std::mem::take(&mut self.body);
        self.agg = aggregate(&self.run, snapshot, &self.prior, &self.request);
        (self.body, self.condensed, self.full_chars) = fitted_body(&self.run, &self.agg);
        before != self.body
    }

    /// Holds finding `id` back as dismissed by the maintainer (`reason`; `lesson`: for the whole
    /// repository) and recomposes: it leaves the posted body and is listed as held back.
    pub fn dismiss(
        &mut self,
        id: &str,
        reason: &str,
        lesson: bool,
        snapshot: &crate::pr::Snapshot,
    ) {
        use crate::review::{HeldBack, HoldReason};
        for a in &mut self.run.aspects {
            let Some(i) = a.findings.iter().position(|f| f.id == id) else {
                continue;
            };
            let finding = a.findings.remove(i);
            a.held_back.push(HeldBack {
                finding,
                held_back: HoldReason::Dismissed {
                    dismissed: id.to_owned(),
                    matched: "id".to_owned(),
                    reason: reason.to_owned(),
                    lesson,
                },
            });
        }
        self.agg = aggregate(&self.run, snapshot, &self.prior, &self.request);
        (self.body, self.condensed, self.full_chars) = fitted_body(&self.run, &self.agg);
    }

    /// The held-back findings, for the review pane: `PS-… aspect file:line — why`.
    pub fn held_back_rows(&self) -> Vec<String> {
        self.run
            .held_back()
            .map(|h| {
                let f = &h.finding;
                let at = f.line.map_or(String::new(), |l| format!(":{l}"));
                format!(
                    "{} {} {}{at} — {}",
                    f.id,
                    f.aspect,
                    one_line(&f.file),
                    h.held_back.said()
                )
            })
            .collect()
    }

    /// The size of the body as a draft holds it (lines joined, no final newline).
    pub fn draft_size(&self) -> BodySize {
        BodySize::of(&self.body.lines().collect::<Vec<_>>().join("\n"))
    }

    /// The findings of the run, for the pane's cursor: (id, label). The label leads with what
    /// the finding says and ends with its id (`PS-…`), so a narrow pane cuts the id, never the
    /// message. In the posted review's order ([`crate::review::results::compose::posted_order`]).
    pub fn finding_rows(&self) -> Vec<(String, String)> {
        self.finding_views()
            .into_iter()
            .map(|(id, _, label)| (id, label))
            .collect()
    }

    /// [`Self::finding_rows`] with each finding's severity (the pane colours by it).
    pub fn finding_views(&self) -> Vec<(String, crate::review::findings::Severity, String)> {
        crate::review::results::compose::posted_order(&self.run, &self.agg)
            .into_iter()
            .map(|f| {
                let class = self.agg.class_of_id(&f.id).unwrap_or("addressed");
                let at = f.line.map_or(String::new(), |l| format!(":{l}"));
                (
                    f.id.clone(),
                    f.severity,
                    format!(
                        "{} [{class}] {} — {} {}{at} · {}",
                        f.severity.as_str(),
                        one_line(&f.message),
                        f.aspect,
                        one_line(&f.file),
                        f.id,
                    ),
                )
            })
            .collect()
    }
}

/// The text that will be posted, editable. Autosaved to the ledger on every change.
#[derive(Debug, Clone)]
pub struct DraftView {
    pub editor: TextArea<'static>,
    pub head_sha: String,
    /// `Some(saved_at)` when it was restored from the ledger at start-up.
    pub restored: Option<i64>,
    /// Changed by hand (or restored: it may hold hand edits).
    pub edited: bool,
}

impl DraftView {
    pub fn new(body: &str, head_sha: &str, restored: Option<i64>) -> DraftView {
        DraftView {
            editor: super::editor::area(&sanitize(body)),
            head_sha: head_sha.to_owned(),
            restored,
            edited: restored.is_some(),
        }
    }

    pub fn body(&self) -> String {
        self.editor.lines().join("\n")
    }

    /// Puts the cursor on the first line of text below the `## PR Shepherd Review` header line
    /// (blank lines passed over), so typing never lands above or inside it. A body of the header
    /// alone gets an empty line to type on.
    pub fn cursor_below_header(&mut self) {
        use ratatui_textarea::CursorMove;
        let header = self
            .editor
            .lines()
            .iter()
            .position(|l| l.trim_start().starts_with(crate::pr::REVIEW_HEADER));
        let Some(row) = header else {
            return;
        };
        if row + 1 >= self.editor.lines().len() {
            self.editor
                .move_cursor(CursorMove::Jump(u16::try_from(row).unwrap_or(u16::MAX), 0));
            self.editor.move_cursor(CursorMove::End);
            self.editor.insert_newline();
        } else {
            let lines = self.editor.lines();
            let text = (row + 1..lines.len())
                .find(|&i| !lines[i].trim().is_empty())
                .unwrap_or(row + 1);
            self.editor
                .move_cursor(CursorMove::Jump(u16::try_from(text).unwrap_or(u16::MAX), 0));
        }
    }

    /// The draft's size against GitHub's comment limit.
    pub fn size(&self) -> BodySize {
        BodySize::of(&self.body())
    }
}

/// The review pane's size line: the draft against GitHub's limit, whether it was condensed, and
/// what `p` does when it is over. True when it is over.
pub fn size_line(draft: &DraftView, composed: Option<&Composed>) -> (String, bool) {
    let size = draft.size();
    if !size.fits() {
        let offer = match composed {
            Some(c) if c.draft_size().fits() => "p offers to condense it",
            _ => "shorten it (e)",
        };
        return (
            format!(
                "Size: {size} — {} over GitHub's limit: {offer}",
                condense::thousands(size.over_by())
            ),
            true,
        );
    }
    let condensed = composed.filter(|c| c.condensed && !draft.edited).map(|c| {
        format!(
            " · condensed from {} to fit (--format md prints the full review)",
            condense::thousands(c.full_chars)
        )
    });
    (
        format!("Size: {size}{}", condensed.unwrap_or_default()),
        false,
    )
}

/// What ran and what did not, for the review pane and the post confirmation: `None` when every
/// aspect finished; else "2 of 6 aspects ran · security failed: why · tests skipped: why", and
/// whether the review is incomplete (an aspect failed or timed out, the budget stopped it, or it
/// was cancelled) rather than only narrowed (skipped aspects).
pub fn run_status(run: &ReviewRun) -> Option<(String, bool)> {
    use crate::review::run::AspectState;
    let total = run.aspects.len();
    let done = run
        .aspects
        .iter()
        .filter(|a| a.state == AspectState::Done)
        .count();
    let budget = run.context.budget_stop();
    if done == total && budget.is_none() && !run.cancelled {
        return None;
    }
    let mut parts = vec![format!("{done} of {total} aspects ran")];
    for a in run.aspects.iter().filter(|a| a.state != AspectState::Done) {
        let state = a.state.as_str().replace('_', " ");
        parts.push(match &a.error {
            Some(why) => format!("{} {state}: {}", a.aspect, short(why)),
            None => format!("{} {state}", a.aspect),
        });
    }
    if let Some(why) = budget {
        parts.push(format!("stopped by the budget: {}", short(why)));
    }
    Some((parts.join(" · "), run.is_incomplete() || run.cancelled))
}

/// One line of at most 160 characters, sanitized.
fn short(text: &str) -> String {
    let one = one_line(text);
    if one.chars().count() > 160 {
        format!("{}…", one.chars().take(159).collect::<String>())
    } else {
        one
    }
}

/// What a confirmed post will do, shown in the confirmation dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostPreview {
    /// `owner/repo#N`.
    pub target: String,
    /// `Some(id)`: update that comment; `None`: create one.
    pub update: Option<String>,
    /// The body's length in characters.
    pub chars: usize,
    /// Where it goes, e.g. "the outbox /state/o-r/1/outbox/comment.json".
    pub destination: String,
    /// What did not run, when the review is incomplete ([`run_status`]): the dialog warns.
    pub incomplete: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_counts_and_names_states() {
        let mut v = RunView::new(1, false);
        v.mode = Some((Mode::Full, String::new()));
        for a in [
            Aspect::Correctness,
            Aspect::Conventions,
            Aspect::Tests,
            Aspect::Architecture,
        ] {
            v.apply(&ReviewEvent::Done {
                aspect: a,
                findings: 1,
                elapsed: Duration::ZERO,
            });
        }
        v.apply(&ReviewEvent::Running {
            aspect: Aspect::Security,
            elapsed: Duration::from_secs(12),
        });
        v.apply(&ReviewEvent::Failed {
            aspect: Aspect::Perf,
            why: "x".into(),
        });
        assert_eq!(
            v.progress(),
            "review (full): 4/6 done · security running 12s · perf failed"
        );
        // A late tick does not undo a final state.
        v.apply(&ReviewEvent::Running {
            aspect: Aspect::Perf,
            elapsed: Duration::from_secs(1),
        });
        assert_eq!(v.aspects[3].1, AspectView::Failed("x".into()));
        assert!(v.running());
        // Streamed tokens show beside a running aspect, and only while it runs.
        v.apply(&ReviewEvent::Streaming {
            aspect: Aspect::Security,
            tokens: 120,
        });
        let sec = v.aspects[2].1.clone();
        assert_eq!(
            v.describe(Aspect::Security, &sec),
            "running 12s · ~120 tokens"
        );
        v.apply(&ReviewEvent::Done {
            aspect: Aspect::Security,
            findings: 0,
            elapsed: Duration::ZERO,
        });
        let sec = v.aspects[2].1.clone();
        assert_eq!(v.describe(Aspect::Security, &sec), "done · no findings");
    }

    /// A finished run of acme/rivet#482 at `abc` with these aspects.
    fn run_of(aspects: Vec<crate::review::AspectOutcome>) -> ReviewRun {
        ReviewRun {
            run_id: "r".into(),
            pr: "acme/rivet#482".into(),
            head_sha: "abc".into(),
            backend: "replay".into(),
            model: "m".into(),
            started_at: chrono::DateTime::from_timestamp(0, 0).unwrap_or_default(),
            elapsed_ms: 0,
            cancelled: false,
            prices: None,
            aspects,
            notes: Vec::new(),
            concurrency_lowered: None,
            context: Default::default(),
        }
    }

    fn demo_snapshot() -> crate::pr::Snapshot {
        crate::source::Fixture::parse(crate::source::DEMO_FIXTURE, std::path::Path::new("demo"))
            .and_then(|f| f.into_snapshot_at(0))
            .unwrap_or_else(|e| panic!("demo: {e}"))
    }

    fn finding(message: &str, line: u32) -> crate::review::findings::Finding {
        use crate::review::findings::{Finding, Severity, finding_id};
        Finding {
            id: finding_id(Aspect::Correctness, "src/client/retry.rs", message),
            aspect: Aspect::Correctness,
            severity: Severity::Important,
            file: "src/client/retry.rs".into(),
            line: Some(line),
            message: message.into(),
            suggested_fix: None,
            outside_diff: false,
            rule: None,
            verified: None,
        }
    }

    #[test]
    fn a_finding_dismissed_in_the_picker_leaves_the_body_and_is_listed_as_held_back() {
        let mut aspect = crate::review::AspectOutcome::new(
            Aspect::Correctness,
            crate::review::AspectState::Done,
            None,
        );
        aspect.findings = vec![
            finding("The retry loop never stops on 429.", 41),
            finding("No jitter in the backoff.", 29),
        ];
        let (gone, kept) = (aspect.findings[0].clone(), aspect.findings[1].clone());
        let snapshot = demo_snapshot();
        let mut c = Composed::new(
            run_of(vec![aspect]),
            &snapshot,
            PriorReviews::default(),
            AggregateRequest::default(),
        );
        assert!(c.body.contains(&gone.message));
        c.dismiss(
            &gone.id,
            "bounded by the caller's deadline",
            false,
            &snapshot,
        );
        assert!(!c.body.contains(&gone.message), "{}", c.body);
        assert!(c.body.contains(&kept.message));
        assert!(
            c.body
                .contains("**Held back:** 1 — 1 dismissed by the maintainer")
        );
        assert_eq!(c.finding_rows().len(), 1);
        assert_eq!(
            c.held_back_rows(),
            vec![format!(
                "{} correctness src/client/retry.rs:41 — dismissed: bounded by the caller's deadline",
                gone.id
            )]
        );
    }

    #[test]
    fn the_mode_line_says_when_the_budget_stopped_the_run() {
        let mut v = RunView::new(1, false);
        let mut run = run_of(vec![]);
        run.context.budget = Some(crate::review::run::BudgetReport {
            max_input_tokens: Some(10),
            stopped: Some("the next call would send ~1,200 input tokens".into()),
            ..Default::default()
        });
        v.apply(&ReviewEvent::Finished(Box::new(run)));
        assert!(
            v.progress().ends_with(
                "stopped by the budget: the next call would send ~1,200 input tokens \
                 (incomplete, not postable)"
            ),
            "{}",
            v.progress()
        );
    }

    #[test]
    fn size_line_says_when_the_review_was_condensed() {
        let run = run_of(vec![]);
        let agg = Aggregate::first(&run);
        let mut c = Composed {
            run,
            prior: PriorReviews::default(),
            request: AggregateRequest::default(),
            agg,
            body: "## PR Shepherd Review\n\nshort\n".into(),
            condensed: true,
            full_chars: 457_205,
        };
        let mut d = DraftView::new(&c.body, "abc", None);
        assert_eq!(
            size_line(&d, Some(&c)),
            (
                "Size: 28 / 65,536 characters · condensed from 457,205 to fit (--format md prints \
                 the full review)"
                    .to_owned(),
                false
            )
        );
        // Edited: the size is the draft's own, nothing is claimed about condensing.
        d.edited = true;
        assert_eq!(size_line(&d, Some(&c)).0, "Size: 28 / 65,536 characters");
        c.condensed = false;
        d.edited = false;
        assert_eq!(size_line(&d, None).0, "Size: 28 / 65,536 characters");
    }

    #[test]
    fn a_condensed_body_full_of_zero_width_characters_still_fits_once_sanitized() {
        use crate::review::findings::{Finding, Severity, finding_id};
        use crate::review::{AspectOutcome, AspectState};
        let hidden = "\u{200b}x".repeat(1500);
        let findings: Vec<Finding> = (0..60u8)
            .map(|i| {
                let message = format!("Hidden {} {hidden}", char::from(b'a' + i % 26));
                let severity = if i < 4 {
                    Severity::Critical
                } else {
                    Severity::Suggestion
                };
                Finding {
                    id: finding_id(Aspect::Security, &format!("f{i}.rs"), &message),
                    aspect: Aspect::Security,
                    severity,
                    file: format!("f{i}.rs"),
                    line: Some(1),
                    message,
                    suggested_fix: None,
                    outside_diff: false,
                    rule: None,
                    verified: None,
                }
            })
            .collect();
        let aspect = AspectOutcome {
            aspect: Aspect::Security,
            state: AspectState::Done,
            error: None,
            findings,
            rejected: vec![],
            raw_reply: None,
            elapsed_ms: 1,
            tokens: crate::review::llm::TokenUsage::default(),
            calls: 1,
            calls_without_usage: 0,
            diff: None,
            note: None,
            merged: 0,
            held_back: Vec::new(),
            verification: None,
        };
        let run = run_of(vec![aspect]);
        let snapshot = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo"),
        )
        .and_then(|f| f.into_snapshot_at(0))
        .unwrap_or_else(|e| panic!("demo: {e}"));
        // The raw review fits or nearly fits; sanitized, each hidden character is 8 characters.
        let raw = condense::fit(&run, &Aggregate::first(&run));
        assert!(sanitize(&raw.body).chars().count() > condense::COMMENT_LIMIT);
        let c = Composed::new(
            run,
            &snapshot,
            PriorReviews::default(),
            AggregateRequest::default(),
        );
        assert!(c.condensed);
        assert!(BodySize::of(&c.body).fits(), "{}", BodySize::of(&c.body));
        assert!(c.draft_size().fits());
        assert!(c.body.contains("⟨U+200B⟩"));
    }
}
