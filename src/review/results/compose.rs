//! The aggregated review, composed from a run (pure): the `## PR Shepherd Review` Markdown here,
//! and the JSON document of `pr-shepherd review --format json` (docs/json-output.md) as serde
//! structs in `compose/document.rs`.

use std::collections::HashMap;

use serde_json::Value;

use super::aggregate::Aggregate;
use super::classify::AddressedBy;
use crate::policy::Mode;
use crate::review::findings::{Finding, Severity};
use crate::review::inputs::prior::{MetaFinding, render_meta, shorten};
use crate::review::run::{AspectOutcome, AspectState, ReviewRun};

mod document;

pub(crate) use document::ReviewDocument;

/// The marker every Shepherd review starts with.
pub use crate::review::inputs::prior::REVIEW_HEADER;

fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

fn tokens(a: &AspectOutcome) -> String {
    match (a.tokens.input, a.tokens.output) {
        (None, None) if a.calls_without_usage > 0 => "not reported".to_owned(),
        (None, None) => "–".to_owned(),
        (i, o) => format!(
            "{} / {}",
            i.map_or("?".to_owned(), |v| v.to_string()),
            o.map_or("?".to_owned(), |v| v.to_string())
        ),
    }
}

/// What the run's usage lacks, said instead of a count that would look measured: `None` when
/// every call that answered reported it; else "not reported by the server" (by the command, not
/// recorded in the fixture), for how many calls when only some did not.
pub(crate) fn usage_note(run: &ReviewRun) -> Option<String> {
    let u = run.usage();
    if u.calls_without_usage == 0 {
        return None;
    }
    let by = match run.backend.as_str() {
        "command" => "not reported by the command",
        "replay" => "not recorded in the fixture",
        _ => "not reported by the server",
    };
    Some(if u.unreported() {
        by.to_owned()
    } else {
        format!(
            "{by} for {} of {} calls (not counted)",
            u.calls_without_usage, u.calls
        )
    })
}

/// The footer's usage totals: calls, tokens (with the prompt-cache share) and, when prices are
/// configured, the estimated cost; "not reported by the server" where the server reported none.
/// `None` when the backend reported nothing and made no call.
pub fn usage_line(run: &ReviewRun) -> Option<String> {
    let u = run.usage();
    if u.calls == 0 && u.tokens.input.is_none() && u.tokens.output.is_none() {
        return None;
    }
    let calls = format!("{} call{}", u.calls, if u.calls == 1 { "" } else { "s" });
    let note = usage_note(run);
    if u.unreported() {
        return Some(format!(
            "_Usage: {calls} · tokens {}_",
            note.unwrap_or_default()
        ));
    }
    let n = |v: Option<u64>| v.map_or("?".to_owned(), |v| v.to_string());
    let mut line = format!("_Usage: {calls} · {} input tokens", n(u.tokens.input));
    if u.tokens.cache_read.is_some() || u.tokens.cache_write.is_some() {
        line.push_str(&format!(
            " ({} read from the prompt cache, {} written to it)",
            n(u.tokens.cache_read),
            n(u.tokens.cache_write)
        ));
    }
    line.push_str(&format!(" · {} output tokens", n(u.tokens.output)));
    if let Some(note) = note {
        line.push_str(&format!(" · tokens {note}"));
    }
    if let Some(cost) = run.estimated_cost() {
        line.push_str(&format!(
            " · estimated cost ${cost:.4} at the configured prices"
        ));
    }
    line.push('_');
    Some(line)
}

fn indent(text: &str) -> String {
    text.trim().replace('\n', "\n  ")
}

/// Findings of one aspect, most severe first, then by file and line.
pub fn sorted(findings: &[Finding]) -> Vec<&Finding> {
    let mut v: Vec<&Finding> = findings.iter().collect();
    v.sort_by(|a, b| {
        (a.severity, &a.file, a.line.unwrap_or(0)).cmp(&(b.severity, &b.file, b.line.unwrap_or(0)))
    });
    v
}

fn location(f: &Finding) -> String {
    match f.line {
        Some(l) => format!("`{}:{l}`", f.file),
        None => format!("`{}`", f.file),
    }
}

/// A full-mode aggregate for a run with no prior reviews (what a first review is).
pub fn first_review(run: &ReviewRun) -> Aggregate {
    Aggregate::first(run)
}

fn addressed_by(by: &AddressedBy) -> String {
    match by {
        AddressedBy::Reply {
            url, author, trust, ..
        } => format!(
            "a reply by `{}` ({}) marked as addressing it ({url})",
            crate::sanitize::one_line(author).replace('`', "'"),
            trust.said()
        ),
        AddressedBy::Console => "marked addressed by the maintainer".to_owned(),
        AddressedBy::Earlier => "treated as addressed by an earlier review".to_owned(),
    }
}

fn meta_line(f: &MetaFinding) -> String {
    let at = f.line.map_or(String::new(), |l| format!(":{l}"));
    format!(
        "- `{}` ({}, {}) `{}{at}` — {}\n",
        f.id,
        f.aspect,
        f.severity,
        f.file,
        crate::sanitize::one_line(&f.message)
    )
}

/// How much of one finding a review shows. Full unless the review was condensed to fit
/// GitHub's comment limit (see [`super::condense`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Message, note and suggested fix.
    #[default]
    Full,
    /// Message and note, without the suggested fix.
    NoFix,
    /// One line: severity, id, location and the message's first words (an unchanged finding
    /// goes into a collapsed `<details>` list).
    OneLine,
    /// Not listed; counted as "N more …" with how to see the full list.
    Hidden,
}

/// What a composed review shows: [`Layout::default`] shows everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Per finding id; absent means [`Detail::Full`].
    pub detail: HashMap<String, Detail>,
    /// Said near the top of a condensed review: that it was condensed and what was left out.
    pub condensed_note: Option<String>,
    /// The metadata block to end with; `None` writes the full form of the aggregate's metadata.
    pub meta: Option<String>,
    /// Condensing: "Treated as addressed", "Not assessed", "No longer reported" and the
    /// unclassified findings are given by count only, with the command that lists them.
    pub lists_by_count: bool,
}

impl Layout {
    fn of(&self, f: &Finding) -> Detail {
        self.detail.get(&f.id).copied().unwrap_or_default()
    }
}

/// The longest one-line rendering of a finding's message.
const ONE_LINE_CHARS: usize = 140;

/// One composition: the run, its aggregate, the layout and the text so far.
struct Writer<'a> {
    run: &'a ReviewRun,
    agg: &'a Aggregate,
    layout: &'a Layout,
    s: String,
}

/// The aggregated Markdown review, ending with its hidden metadata block.
pub fn markdown(run: &ReviewRun, agg: &Aggregate) -> String {
    markdown_with(run, agg, &Layout::default())
}

/// The review as [`markdown`], with what each finding shows chosen by `layout`.
pub(crate) fn markdown_with(run: &ReviewRun, agg: &Aggregate, layout: &Layout) -> String {
    let mut w = Writer {
        run,
        agg,
        layout,
        s: String::new(),
    };
    w.s.push_str(REVIEW_HEADER);
    w.s.push_str("\n\n");
    w.mode_line();
    w.run_line();
    w.condensed_note();
    w.findings_count();
    w.incomplete_note();
    w.summary_table();
    w.new_section();
    for a in &run.aspects {
        w.s.push('\n');
        w.section(a);
    }
    w.incremental_lists();
    w.lookalikes();
    w.context_lines();
    w.usage();
    w.s.push('\n');
    match &layout.meta {
        Some(m) => w.s.push_str(m),
        None => w.s.push_str(&render_meta(&agg.meta(&run.head_sha))),
    }
    w.s.push('\n');
    w.s
}

/// The aspects that did not finish, as "security failed", "perf timed out", "tests skipped".
fn not_done(run: &ReviewRun) -> Vec<String> {
    run.aspects
        .iter()
        .filter(|a| a.state != AspectState::Done)
        .map(|a| format!("{} {}", a.aspect, a.state.as_str().replace('_', " ")))
        .collect()
}

impl Writer<'_> {
    fn class(&self, f: &Finding) -> Option<&'static str> {
        self.agg.class_of_id(&f.id)
    }

    /// Findings raised by this review (new or unchanged, not suppressed as addressed).
    fn raised(&self) -> Vec<&Finding> {
        self.run
            .findings()
            .filter(|f| self.class(f).is_some())
            .collect()
    }

    fn mode_line(&mut self) {
        let (run, agg) = (self.run, self.agg);
        let cut = run
            .aspects
            .iter()
            .any(|a| a.diff.as_ref().is_some_and(|d| d.is_cut()));
        let scope = if cut {
            "the diff, cut to each aspect's budget (see the notes below),"
        } else {
            "the whole diff"
        };
        // Assessed means finished: a failed, timed-out or cancelled aspect assessed nothing,
        // and the line says which did not finish (the incomplete note below says more).
        let ran = run
            .aspects
            .iter()
            .filter(|a| a.state == AspectState::Done)
            .count();
        let not_done = not_done(run);
        let total = run.aspects.len();
        let assessed = if not_done.is_empty() {
            format!("{scope} was assessed by all {total} aspects")
        } else {
            format!(
                "{scope} was assessed by {ran} of {total} aspects ({})",
                not_done.join(", ")
            )
        };
        let c = &agg.classification;
        match agg.mode {
            Mode::Full => self.s.push_str(&format!(
                "**Mode:** full review — {}; {assessed}.  \n",
                agg.mode_reason,
            )),
            Mode::Incremental => self.s.push_str(&format!(
                "**Mode:** incremental review — {}; {assessed}. \
                 **{} new** · {} unchanged since the last review · {} treated as addressed · {} no \
                 longer reported.  \n",
                agg.mode_reason,
                c.new.len(),
                c.unchanged.len(),
                c.addressed.len(),
                c.not_reported.len()
            )),
        }
        if let Some(note) = &agg.override_note {
            self.s
                .push_str(&format!("**Gate overridden:** {note}.  \n"));
        }
        if let Some(why) = run.context.budget_stop() {
            let done = run
                .aspects
                .iter()
                .filter(|a| a.state == AspectState::Done)
                .count();
            self.s.push_str(&format!(
                "**Stopped by the budget:** {}. This review is partial — {done} of {} aspects \
                 finished — and is not posted.  \n{}\n",
                crate::sanitize::one_line(why),
                run.aspects.len(),
                crate::pr::PARTIAL_MARK
            ));
        }
    }

    fn run_line(&mut self) {
        let run = self.run;
        self.s.push_str(&format!(
            "**PR:** {} at `{}` · **Backend:** {} ({}) · **Run:** `{}` · **Time:** {}\n\n",
            run.pr,
            short_sha(&run.head_sha),
            run.backend,
            run.model,
            run.run_id,
            secs(run.elapsed_ms)
        ));
    }

    fn condensed_note(&mut self) {
        if let Some(note) = &self.layout.condensed_note {
            self.s.push_str(&format!("> {note}\n\n"));
        }
    }

    fn findings_count(&mut self) {
        let raised = self.raised();
        let count = |sev: Severity| raised.iter().filter(|f| f.severity == sev).count();
        let line = format!(
            "**Findings:** {} — {} critical · {} important · {} suggestion\n\n",
            raised.len(),
            count(Severity::Critical),
            count(Severity::Important),
            count(Severity::Suggestion)
        );
        self.s.push_str(&line);
        self.held_back_line();
    }

    /// How many findings were held back, and by what (never the findings themselves: they are
    /// listed in the JSON and the console).
    fn held_back_line(&mut self) {
        let run = self.run;
        let threshold = run.context.verify_threshold;
        let n = run.held_back().count();
        if n == 0 && threshold.is_none() {
            return;
        }
        let mut parts = Vec::new();
        let dismissed = document::held_by(run, "dismissal");
        if dismissed > 0 {
            parts.push(format!("{dismissed} dismissed by the maintainer"));
        }
        let verifier = document::held_by(run, "verifier");
        if verifier > 0 {
            parts.push(format!(
                "{verifier} not confirmed by the verifier (threshold {})",
                threshold.unwrap_or_default()
            ));
        }
        let raised: Vec<&crate::review::run::HeldBack> = run
            .held_back()
            .filter(|h| h.held_back.by() == "others")
            .collect();
        if !raised.is_empty() {
            let mut who: Vec<String> = raised
                .iter()
                .filter_map(|h| match &h.held_back {
                    crate::review::run::HoldReason::AlreadyRaised { login, .. } => {
                        Some(format!("@{}", crate::sanitize::one_line(login)))
                    }
                    _ => None,
                })
                .collect();
            who.sort();
            who.dedup();
            parts.push(format!(
                "{} already raised by other reviewers ({})",
                raised.len(),
                who.join(", ")
            ));
        }
        let verified = threshold.map_or(String::new(), |t| {
            format!(
                " Every finding raised here was confirmed by the verifier (confidence {t} or more, with evidence quoted from the diff)."
            )
        });
        if n == 0 {
            self.s
                .push_str(&format!("**Held back:** none.{verified}\n\n"));
        } else {
            self.s.push_str(&format!(
                "**Held back:** {n} — {}; listed by `--format json` and in the console, not here.{verified}\n\n",
                parts.join(" · ")
            ));
        }
    }

    fn incomplete_note(&mut self) {
        let run = self.run;
        let not_done = not_done(run);
        if run.is_incomplete() || run.cancelled {
            self.s.push_str(&format!(
                "{} {}. Findings of those aspects are missing; this is not a clean bill of health.\n\n",
                crate::pr::INCOMPLETE_NOTE,
                not_done.join(", ")
            ));
        } else if !not_done.is_empty() {
            self.s
                .push_str(&format!("> Not run: {}.\n\n", not_done.join(", ")));
        }
    }

    fn summary_table(&mut self) {
        let run = self.run;
        let total = self.raised().len();
        self.s
            .push_str("| Aspect | State | Findings | Time | Tokens in / out |\n");
        self.s.push_str("|---|---|---:|---:|---:|\n");
        for a in &run.aspects {
            let n = if a.state == AspectState::Done {
                findings_cell(a)
            } else {
                "–".to_owned()
            };
            self.s.push_str(&format!(
                "| {} | {} | {n} | {} | {} |\n",
                a.aspect.title(),
                a.state.as_str().replace('_', " "),
                secs(a.elapsed_ms),
                tokens(a)
            ));
        }
        let (ti, to) = run.tokens();
        let totals = if run.usage().unreported() {
            "not reported".to_owned()
        } else {
            format!("{ti} / {to}")
        };
        self.s.push_str(&format!(
            "| **Total** | | **{total}** | {} | {totals} |\n",
            secs(run.elapsed_ms)
        ));
    }

    /// Incremental reviews list what is new first, across aspects.
    fn new_section(&mut self) {
        if self.agg.mode != Mode::Incremental {
            return;
        }
        let new: Vec<&Finding> =
            sorted_refs(self.run.findings().filter(|f| self.class(f) == Some("new")));
        self.s.push_str(&format!(
            "\n### 🆕 New since the last review ({})\n\n",
            new.len()
        ));
        if new.is_empty() {
            self.s
                .push_str("Nothing new: every finding of this review was raised before.\n");
        }
        let mut hidden = Hidden::default();
        for f in new {
            match self.layout.of(f) {
                Detail::Hidden => hidden.add(f.severity),
                Detail::OneLine => self
                    .s
                    .push_str(&one_line(f, &format!(" ({})", f.aspect.title()))),
                d => {
                    self.s.push_str(&format!(
                        "- **{}** ({})",
                        f.severity.title(),
                        f.aspect.title()
                    ));
                    finding_body(&mut self.s, f, d);
                }
            }
        }
        hidden.write(&mut self.s, "new ", &self.run.pr);
    }

    fn section(&mut self, a: &AspectOutcome) {
        section_heading(&mut self.s, a);
        if a.state == AspectState::Done {
            self.section_findings(a);
        }
        if self.layout.lists_by_count && !a.rejected.is_empty() {
            self.s.push_str(&format!(
                "\n{} broke the output contract (unclassified): listed only by count here; \
                 `pr-shepherd review {} --format md` lists them.\n",
                crate::plural::count(a.rejected.len(), "finding"),
                self.run.pr
            ));
        } else {
            unclassified(&mut self.s, a);
        }
        section_notes(&mut self.s, a);
    }

    /// "reported in N reviews since abc1234" for a current finding.
    fn history_said(&self, f: &Finding) -> String {
        self.agg
            .current
            .iter()
            .find(|m| m.id == f.id)
            .map_or_else(|| "since last review".to_owned(), |m| m.history_said())
    }

    fn section_findings(&mut self, a: &AspectOutcome) {
        if a.findings.is_empty() && a.rejected.is_empty() && !a.held_back.is_empty() {
            self.s.push_str(&format!(
                "Nothing raised: {} held back (see **Held back** above).\n",
                crate::plural::count(a.held_back.len(), "finding")
            ));
        } else if a.findings.is_empty() && a.rejected.is_empty() {
            self.s.push_str(
                "No findings: this aspect ran over the diff and found nothing to report.\n",
            );
        }
        let mode = self.agg.mode;
        let mut new = 0;
        let mut addressed = 0;
        let mut collapsed = Vec::new();
        let mut hidden = Hidden::default();
        for f in sorted(&a.findings) {
            match (mode, self.class(f)) {
                (Mode::Incremental, Some("new")) => new += 1,
                (_, None) => addressed += 1,
                (_, Some(c)) => match self.layout.of(f) {
                    Detail::Hidden => hidden.add(f.severity),
                    Detail::OneLine if c == "unchanged" => {
                        collapsed.push(one_line(f, &format!(" _({})_", self.history_said(f))))
                    }
                    Detail::OneLine => self.s.push_str(&one_line(f, "")),
                    d => {
                        self.s.push_str(&format!("- **{}**", f.severity.title()));
                        if c == "unchanged" {
                            let said = self.history_said(f);
                            self.s.push_str(&format!(" _(unchanged: {said})_"));
                        }
                        finding_body(&mut self.s, f, d);
                    }
                },
            }
        }
        if !collapsed.is_empty() {
            self.s.push_str(&format!(
                "\n<details><summary>{} unchanged since the last review, one line each</summary>\n\n{}\n</details>\n\n",
                collapsed.len(),
                collapsed.concat()
            ));
        }
        hidden.write(&mut self.s, "", &self.run.pr);
        if new > 0 {
            self.s.push_str(&format!(
                "- {}: listed under New above.\n",
                crate::plural::count(new, "new finding")
            ));
        }
        if addressed > 0 {
            self.s.push_str(&format!(
                "- {} reported again but treated as addressed: listed below, not raised.\n",
                crate::plural::count(addressed, "finding")
            ));
        }
    }

    /// Incremental reviews end with what was addressed, not assessed or no longer reported.
    fn incremental_lists(&mut self) {
        let agg = self.agg;
        if agg.mode != Mode::Incremental {
            return;
        }
        let c = &agg.classification;
        if self.layout.lists_by_count {
            self.incremental_counts();
            return;
        }
        self.s.push_str(&format!(
            "\n### Treated as addressed ({})\n\n",
            c.addressed.len()
        ));
        if c.addressed.is_empty() {
            self.s.push_str("None.\n");
        }
        for (f, by) in &c.addressed {
            let line = meta_line(f);
            self.s
                .push_str(&format!("{} — {}\n", line.trim_end(), addressed_by(by)));
        }
        if !agg.not_assessed.is_empty() {
            self.s.push_str(&format!(
                "\n### Not assessed this time ({})\n\nEarlier findings of aspects that did not complete: neither confirmed nor cleared, and kept for the next review:\n\n",
                agg.not_assessed.len()
            ));
            for f in &agg.not_assessed {
                self.s.push_str(&meta_line(f));
            }
        }
        if !c.not_reported.is_empty() {
            self.s.push_str(&format!(
                "\n### No longer reported ({})\n\nRaised before, not reported by this review, and not marked addressed:\n\n",
                c.not_reported.len()
            ));
            for f in &c.not_reported {
                self.s.push_str(&meta_line(f));
            }
        }
    }

    /// [`Self::incremental_lists`] condensed: the same headings, counts only.
    fn incremental_counts(&mut self) {
        let agg = self.agg;
        let c = &agg.classification;
        let hint = format!(
            "Listed only by count to fit; `pr-shepherd review {} --format md` lists them.",
            self.run.pr
        );
        for (title, n, always) in [
            ("Treated as addressed", c.addressed.len(), true),
            ("Not assessed this time", agg.not_assessed.len(), false),
            ("No longer reported", c.not_reported.len(), false),
        ] {
            match n {
                0 if always => self.s.push_str(&format!("\n### {title} (0)\n\nNone.\n")),
                0 => {}
                n => self.s.push_str(&format!("\n### {title} ({n})\n\n{hint}\n")),
            }
        }
    }

    /// What the aspects were given besides the PR: the guidance read from the base branch, the
    /// lessons and dismissals, other reviewers' remarks.
    fn context_lines(&mut self) {
        let c = &self.run.context;
        let given: Vec<&crate::review::inputs::guidance::GuidanceRead> =
            c.guidance.iter().filter(|g| g.applied).collect();
        if !given.is_empty() {
            let commit = given[0].commit.as_str();
            let names: Vec<String> = given
                .iter()
                .map(|g| {
                    let name = crate::sanitize::one_line(&g.path).replace('`', "'");
                    match &g.note {
                        Some(n) => format!("`{name}` ({})", crate::sanitize::one_line(n)),
                        None => format!("`{name}`"),
                    }
                })
                .collect();
            self.s.push_str(&format!(
                "\n_Repository guidance read from the base branch at `{}`: {}._\n",
                short_sha(commit),
                names.join(", ")
            ));
        }
        if let Some(e) = &c.guidance_error {
            self.s
                .push_str(&format!("\n_{}._\n", crate::sanitize::one_line(e)));
        }
        let mut parts = Vec::new();
        if c.lessons > 0 {
            parts.push(crate::plural::count(c.lessons, "repository lesson"));
        }
        if c.dismissals > 0 {
            parts.push(crate::plural::count_irregular(
                c.dismissals,
                "dismissal on this PR",
                "dismissals on this PR",
            ));
        }
        if c.others > 0 {
            parts.push(crate::plural::count_irregular(
                c.others,
                "open thread or comment of other reviewers",
                "open threads and comments of other reviewers",
            ));
        }
        if !parts.is_empty() {
            self.s.push_str(&format!(
                "\n_The aspects were also given {}._\n",
                parts.join(", ")
            ));
        }
        self.s.push_str(
            &crate::review::inputs::failing::context_line(
                c.checks_error.as_deref(),
                c.failing_checks,
                c.failing_annotations,
            )
            .unwrap_or_default(),
        );
    }

    /// The footer's usage totals (see [`usage_line`]), then the run's remarks (a lowered
    /// concurrency, …).
    fn usage(&mut self) {
        if let Some(line) = usage_line(self.run) {
            self.s.push_str(&format!("\n{line}\n"));
        }
        for note in &self.run.notes {
            self.s.push_str(&format!(
                "\n_Note: {}_\n",
                crate::sanitize::one_line(note).replace('_', "\\_")
            ));
        }
    }

    fn lookalikes(&mut self) {
        if self.agg.lookalikes > 0 {
            self.s.push_str(&format!(
                "\n_{} posted by another account {} ignored._\n",
                crate::plural::count_irregular(
                    self.agg.lookalikes,
                    "comment that looks like a Shepherd review but was",
                    "comments that look like Shepherd reviews but were"
                ),
                if self.agg.lookalikes == 1 {
                    "was"
                } else {
                    "were"
                }
            ));
        }
    }
}

/// Findings left out of a condensed list, counted by severity.
#[derive(Default)]
struct Hidden([usize; 3]);

impl Hidden {
    fn add(&mut self, sev: Severity) {
        if let Some(n) = Severity::ALL
            .iter()
            .position(|s| *s == sev)
            .and_then(|i| self.0.get_mut(i))
        {
            *n += 1;
        }
    }

    fn write(&self, s: &mut String, kind: &str, pr: &str) {
        for (sev, n) in Severity::ALL.iter().zip(self.0) {
            if n == 0 {
                continue;
            }
            let what = severity_noun(*sev, n);
            s.push_str(&format!(
                "- {n} more {kind}{what} — run `pr-shepherd review {pr} --format md` for the full list.\n"
            ));
        }
    }
}

/// "suggestion", "important finding", "critical finding" for one finding, plural for `n`.
pub(crate) fn severity_noun(sev: Severity, n: usize) -> &'static str {
    match (sev, n) {
        (Severity::Suggestion, 1) => "suggestion",
        (Severity::Suggestion, _) => "suggestions",
        (Severity::Important, 1) => "important finding",
        (Severity::Important, _) => "important findings",
        (Severity::Critical, 1) => "critical finding",
        (Severity::Critical, _) => "critical findings",
    }
}

/// The run's findings in the order the posted review ([`markdown`]) shows them: in an
/// incremental review the new ones first (most severe first), then each aspect's findings in the
/// aspect order, most severe first; findings treated as addressed (and any of an aspect that did
/// not finish) last. The console lists its findings in this order.
pub(crate) fn posted_order<'a>(run: &'a ReviewRun, agg: &Aggregate) -> Vec<&'a Finding> {
    let class = |f: &Finding| agg.class_of_id(&f.id);
    let mut out: Vec<&Finding> = Vec::new();
    if agg.mode == Mode::Incremental {
        out.extend(sorted_refs(
            run.findings().filter(|f| class(f) == Some("new")),
        ));
    }
    for a in run.aspects.iter().filter(|a| a.state == AspectState::Done) {
        for f in sorted(&a.findings) {
            let listed = match (agg.mode, class(f)) {
                (Mode::Incremental, Some("new")) | (_, None) => false,
                (_, Some(_)) => true,
            };
            if listed {
                out.push(f);
            }
        }
    }
    let mut rest: Vec<&Finding> = run
        .findings()
        .filter(|f| !out.iter().any(|o| std::ptr::eq(*o, *f)))
        .collect();
    rest.sort_by_key(|f| f.severity);
    out.extend(rest);
    out
}

fn sorted_refs<'a>(it: impl Iterator<Item = &'a Finding>) -> Vec<&'a Finding> {
    let mut v: Vec<&Finding> = it.collect();
    v.sort_by(|a, b| {
        (a.severity, a.aspect, &a.file, a.line.unwrap_or(0)).cmp(&(
            b.severity,
            b.aspect,
            &b.file,
            b.line.unwrap_or(0),
        ))
    });
    v
}

fn finding_body(s: &mut String, f: &Finding, detail: Detail) {
    s.push_str(&format!(
        " `{}` {} — {}\n",
        f.id,
        location(f),
        indent(&f.message)
    ));
    if f.outside_diff {
        s.push_str("  - _Note: this file is not among the PR's changed files._\n");
    }
    if let Some(rule) = &f.rule {
        s.push_str(&format!("  - Rule: {}\n", crate::sanitize::one_line(rule)));
    }
    if detail == Detail::Full
        && let Some(v) = &f.verified
    {
        s.push_str(&format!(
            "  - Verified (confidence {}): `{}`\n",
            v.confidence,
            crate::sanitize::one_line(&v.evidence).replace('`', "'")
        ));
    }
    if detail == Detail::Full
        && let Some(fix) = &f.suggested_fix
    {
        s.push_str(&format!("  - Suggested fix: {}\n", indent(fix)));
    }
}

/// A finding on one line: severity, id, location and the message's first words.
fn one_line(f: &Finding, after_severity: &str) -> String {
    format!(
        "- **{}**{after_severity} `{}` {} — {}\n",
        f.severity.title(),
        f.id,
        location(f),
        shorten(&crate::sanitize::one_line(&f.message), ONE_LINE_CHARS)
    )
}

fn section_heading(s: &mut String, a: &AspectOutcome) {
    let title = a.aspect.title();
    // The reason can quote a provider's error text: one visible line.
    let reason = a
        .error
        .as_deref()
        .map_or_else(|| "no reason given".to_owned(), crate::sanitize::one_line);
    match a.state {
        AspectState::Done => s.push_str(&format!("### {title}\n\n")),
        AspectState::Failed => {
            s.push_str(&format!("### {title} — failed\n\n"));
            s.push_str(&format!("This aspect **failed**: {reason}."));
            if a.raw_reply.is_some() {
                s.push_str(" The model's raw reply is kept in the run record.");
            }
            s.push('\n');
        }
        AspectState::TimedOut => {
            s.push_str(&format!("### {title} — timed out\n\n"));
            s.push_str(&format!("This aspect **timed out**: {reason}.\n"));
        }
        AspectState::Skipped => {
            s.push_str(&format!("### {title} — skipped\n\n"));
            s.push_str(&format!("Skipped: {reason}.\n"));
        }
        AspectState::Cancelled => {
            s.push_str(&format!("### {title} — cancelled\n\n"));
            s.push_str("The run was cancelled before this aspect finished.\n");
        }
    }
}

/// What the review says about findings merged by id (see [`AspectOutcome::merged`]).
pub(crate) fn merged_note(merged: u32) -> String {
    format!(
        "{merged} more finding{} had the id of one listed here (the same file and message, \
         numbers aside) and {} merged into it.",
        if merged == 1 { "" } else { "s" },
        if merged == 1 { "was" } else { "were" }
    )
}

fn section_notes(s: &mut String, a: &AspectOutcome) {
    let mut notes = Vec::new();
    if let Some(cut) = a.diff.as_ref().and_then(|d| d.cut_summary()) {
        notes.push(format!("Not everything was reviewed — {cut}."));
    }
    if let Some(n) = &a.note {
        notes.push(format!("{n}."));
    }
    if a.merged > 0 {
        notes.push(merged_note(a.merged));
    }
    if !notes.is_empty() {
        s.push_str(&format!("\n_{}_\n", notes.join(" ")));
    }
}

/// The table's findings count: accepted findings, plus the unclassified ones when there are any.
fn findings_cell(a: &AspectOutcome) -> String {
    match a.rejected.len() {
        0 => a.findings.len().to_string(),
        r => format!("{} + {r} unclassified", a.findings.len()),
    }
}

/// Findings that broke the output contract are never dropped from what the maintainer sees: each
/// is listed under its aspect as unclassified, with its file and message (or, lacking a message,
/// its raw entry) and the reason it was rejected.
fn unclassified(s: &mut String, a: &AspectOutcome) {
    if a.rejected.is_empty() {
        return;
    }
    s.push_str(&format!(
        "\n{} broke the output contract; listed unclassified (no severity assigned):\n",
        crate::plural::count(a.rejected.len(), "finding")
    ));
    for r in &a.rejected {
        let at = r.file.as_deref().map_or(String::new(), |f| {
            format!(" `{}`", crate::sanitize::one_line(f).replace('`', "'"))
        });
        let what = match r.message.as_deref() {
            Some(m) => indent(m),
            None => {
                let raw: String = crate::sanitize::one_line(&r.raw)
                    .chars()
                    .take(300)
                    .collect();
                format!("raw entry `{}`", raw.replace('`', "'"))
            }
        };
        s.push_str(&format!(
            "- **Unclassified**{at} — {what}\n  - _Rejected (entry #{}): {}._\n",
            r.index + 1,
            r.reason
        ));
    }
}

/// The JSON document (see [`ReviewDocument`]) as a value, for the command to add what it
/// posted.
pub fn json(run: &ReviewRun, agg: &Aggregate, body: &str) -> Value {
    ReviewDocument::new(run, agg, body).to_value()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::review::aspect::Aspect;
    use crate::review::findings::finding_id;
    use crate::review::llm::TokenUsage;

    fn finding(
        aspect: Aspect,
        severity: Severity,
        file: &str,
        line: Option<u32>,
        msg: &str,
    ) -> Finding {
        Finding {
            id: finding_id(aspect, file, msg),
            aspect,
            severity,
            file: file.into(),
            line,
            message: msg.into(),
            suggested_fix: None,
            outside_diff: false,
            rule: None,
            verified: None,
        }
    }

    fn outcome(aspect: Aspect, state: AspectState) -> AspectOutcome {
        AspectOutcome {
            aspect,
            state,
            error: None,
            findings: vec![],
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
        }
    }

    fn sample() -> ReviewRun {
        let mut c = outcome(Aspect::Correctness, AspectState::Done);
        c.findings = vec![
            finding(
                Aspect::Correctness,
                Severity::Suggestion,
                "a.rs",
                Some(9),
                "Small thing.",
            ),
            finding(
                Aspect::Correctness,
                Severity::Critical,
                "a.rs",
                Some(3),
                "Loop never ends\non 429.",
            ),
        ];
        c.findings[1].suggested_fix = Some("Count attempts.".into());
        let conv = outcome(Aspect::Conventions, AspectState::Done);
        let mut sec = outcome(Aspect::Security, AspectState::Failed);
        sec.error = Some("unparseable reply: the reply's JSON does not parse".into());
        sec.raw_reply = Some("garbage".into());
        let mut perf = outcome(Aspect::Perf, AspectState::TimedOut);
        perf.error = Some("no answer within the per-aspect timeout (300.0 s)".into());
        perf.tokens.input = None;
        perf.tokens.output = None;
        let mut tests = outcome(Aspect::Tests, AspectState::Skipped);
        tests.error = Some("no changed file matches *.py".into());
        tests.elapsed_ms = 0;
        tests.tokens.input = None;
        tests.tokens.output = None;
        let mut arch = outcome(Aspect::Architecture, AspectState::Done);
        arch.findings = vec![finding(
            Aspect::Architecture,
            Severity::Important,
            "b.py",
            None,
            "Duplicated rule.",
        )];
        arch.findings[0].outside_diff = true;
        ReviewRun {
            run_id: "20261129T210000Z-abcdef".into(),
            pr: "acme/rivet#482".into(),
            head_sha: "e5f6a7b8c9d0".into(),
            backend: "replay".into(),
            model: "recorded answers".into(),
            started_at: "2026-11-29T21:00:00Z".parse().unwrap(),
            elapsed_ms: 2500,
            cancelled: false,
            aspects: vec![c, conv, sec, perf, tests, arch],
            prices: None,
            notes: Vec::new(),
            concurrency_lowered: None,
            context: Default::default(),
        }
    }

    /// Failed before it was fixed: a provider's error text reached the review (and the terminal)
    /// with its escape sequences raw.
    #[test]
    fn a_failed_aspects_reason_is_sanitized() {
        let mut run = sample();
        run.aspects[2].error = Some("HTTP 500: \u{1b}]0;pwned\u{7}\u{1b}[2J\nnext".into());
        let md = markdown(&run, &first_review(&run));
        assert!(!md.contains('\u{1b}') && !md.contains('\u{7}'), "{md}");
        assert!(md.contains("HTTP 500: ␛]0;pwned␇␛[2J next"), "{md}");
    }

    #[test]
    fn markdown_states_every_aspect() {
        let run = sample();
        insta::assert_snapshot!(markdown(&run, &first_review(&run)));
    }

    /// The console's order is the posted order, new findings first.
    #[test]
    fn posted_order_follows_the_markdown() {
        for (run, agg) in [incremental(), {
            let run = sample();
            let agg = first_review(&run);
            (run, agg)
        }] {
            let md = markdown(&run, &agg);
            let order = posted_order(&run, &agg);
            assert_eq!(order.len(), run.findings().count());
            let at: Vec<usize> = order
                .iter()
                .filter(|f| agg.class_of_id(&f.id).is_some())
                .map(|f| md.find(f.id.as_str()).expect("posted"))
                .collect();
            let mut sorted = at.clone();
            sorted.sort_unstable();
            assert_eq!(at, sorted);
            if agg.mode == Mode::Incremental {
                let first_new = order
                    .iter()
                    .position(|f| agg.class_of_id(&f.id) == Some("new"));
                assert_eq!(first_new, Some(0));
            }
        }
    }

    /// An incremental review: one finding unchanged, one addressed by a marker reply, one
    /// earlier finding no longer reported, the rest new.
    fn incremental() -> (ReviewRun, Aggregate) {
        use crate::pr::{Association, Author, Comment, Item, Origin, Snapshot};
        use crate::review::inputs::prior::{
            META_VERSION, MetaFinding, ReviewMeta, prior_reviews, render_meta,
        };
        use crate::review::results::aggregate::{AggregateRequest, aggregate, to_meta};
        let run = sample();
        let findings: Vec<MetaFinding> = run.findings().map(to_meta).collect();
        let gone = MetaFinding {
            id: "PS-00000000aa".into(),
            aspect: "conventions".into(),
            severity: "suggestion".into(),
            file: "a.rs".into(),
            line: None,
            message: "Name the retry constant.".into(),
            ..MetaFinding::default()
        };
        let meta = ReviewMeta {
            version: META_VERSION,
            mode: Mode::Full,
            head_sha: "old".into(),
            trigger_comment: None,
            trigger_kind: None,
            findings: vec![
                findings[0].clone(),
                findings[1].clone(),
                gone,
                MetaFinding {
                    id: "PS-00000000bb".into(),
                    aspect: "security".into(),
                    severity: "important".into(),
                    file: "a.rs".into(),
                    line: None,
                    message: "Token in logs.".into(),
                    ..MetaFinding::default()
                },
            ],
            addressed: vec![],
        };
        let author = |login: &str| Author {
            login: login.into(),
            association: Association::Member,
            bot: false,
        };
        let comment = |id: &str, login: &str, body: String| {
            Item::Comment(Comment {
                id: id.into(),
                author: author(login),
                created_at: "2026-11-28T10:00:00Z".parse().unwrap(),
                last_edited_at: None,
                url: format!("https://github.com/acme/rivet/pull/482#{id}"),
                body,
                minimized: false,
                minimized_reason: None,
            })
        };
        let snapshot = Snapshot {
            pr: crate::source::Fixture::parse(
                crate::source::DEMO_FIXTURE,
                std::path::Path::new("d"),
            )
            .unwrap()
            .pr,
            items: vec![
                comment(
                    "IC_1",
                    "pr-shepherd",
                    format!("{REVIEW_HEADER}\n\nold\n\n{}", render_meta(&meta)),
                ),
                comment(
                    "IC_2",
                    "agent",
                    format!(
                        "{} fixed by counting attempts.\n\n— AI Coding Agent",
                        findings[1].id
                    ),
                ),
            ],
            incomplete: vec![],
            notes: vec![],
            origin: Origin::Live,
        };
        let prior = prior_reviews(&snapshot, "pr-shepherd");
        let agg = aggregate(
            &run,
            &snapshot,
            &prior,
            &AggregateRequest {
                reply_marker: "— AI Coding Agent".into(),
                ..AggregateRequest::default()
            },
        );
        (run, agg)
    }

    #[test]
    fn incremental_markdown_lists_new_first_and_states_the_mode() {
        let (run, agg) = incremental();
        assert_eq!(agg.mode, Mode::Incremental);
        assert_eq!(agg.classification.unchanged.len(), 1);
        assert_eq!(agg.classification.addressed.len(), 1);
        assert_eq!(agg.classification.not_reported.len(), 1);
        let md = markdown(&run, &agg);
        let new_at = md
            .find("### 🆕 New since the last review (1)")
            .expect("new section");
        let first_aspect = md.find("### Correctness").expect("aspect section");
        assert!(new_at < first_aspect, "new findings come first");
        // The unchanged finding says since when (the earlier review's head was `old`).
        assert!(
            md.contains("_(unchanged: reported in 2 reviews since old)_"),
            "{md}"
        );
        assert!(md.contains("### Treated as addressed (1)"));
        assert!(md.contains("### No longer reported (1)"));
        // The security aspect failed: its earlier finding is not "no longer reported".
        assert!(md.contains("### Not assessed this time (1)"));
        assert_eq!(agg.not_assessed[0].id, "PS-00000000bb");
        insta::assert_snapshot!(md);
        let v = json(&run, &agg, &md);
        assert_eq!(v["mode"], "incremental");
        assert_eq!(v["counts"]["new"], 1);
        assert_eq!(
            v["findings"].as_array().map(Vec::len),
            Some(2),
            "the addressed one is not raised"
        );
        assert_eq!(v["addressed"][0]["by"]["by"], "reply");
        let history: Vec<(&str, &Value)> = v["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| (f["classification"].as_str().unwrap_or(""), &f["history"]))
            .collect();
        assert!(history.contains(&("unchanged", &json!({"reviews": 2, "firstSha": "old"}))));
        assert!(history.contains(&("new", &json!({"reviews": 1, "firstSha": run.head_sha}))));
        assert_eq!(v["notReported"][0]["id"], "PS-00000000aa");
        // The metadata carries what the next pass needs.
        let meta = crate::review::inputs::prior::parse_meta(&md)
            .unwrap()
            .unwrap();
        assert_eq!(
            meta.findings.len(),
            3,
            "raised + not assessed are carried forward"
        );
        assert_eq!(meta.addressed.len(), 1);
    }

    #[test]
    fn rejected_findings_are_listed_unclassified_and_never_no_findings() {
        let mut run = sample();
        run.aspects[1].rejected = vec![
            crate::review::findings::Rejected {
                index: 0,
                reason:
                    "unknown severity `urgent-ish` (expected critical, important or suggestion)"
                        .into(),
                raw: r#"{"severity":"urgent-ish","file":"a.rs","message":"Token logged."}"#.into(),
                file: Some("a.rs".into()),
                message: Some("Token logged.".into()),
            },
            crate::review::findings::Rejected {
                index: 1,
                reason: "not an object".into(),
                raw: r#""just text""#.into(),
                file: None,
                message: None,
            },
        ];
        let md = markdown(&run, &first_review(&run));
        let conv = &md[md.find("### Conventions").unwrap()..md.find("### Security").unwrap()];
        assert!(!conv.contains("No findings"), "{conv}");
        assert!(
            conv.contains("- **Unclassified** `a.rs` — Token logged."),
            "{conv}"
        );
        assert!(
            conv.contains("_Rejected (entry #1): unknown severity `urgent-ish`"),
            "{conv}"
        );
        assert!(
            conv.contains("- **Unclassified** — raw entry `\"just text\"`"),
            "{conv}"
        );
        assert!(
            md.contains("| Conventions | done | 0 + 2 unclassified |"),
            "{md}"
        );
        let v = json(&run, &first_review(&run), &md);
        assert_eq!(v["aspects"][1]["rejected"][0]["message"], "Token logged.");
        assert_eq!(v["aspects"][1]["rejected"][1]["reason"], "not an object");
    }

    /// The whole JSON document, to the byte, as `review --format json` prints it: a first review
    /// with every aspect state, prices, a chunked and cut diff, a note, rejected findings and a
    /// trigger; an incremental one with history, findings addressed three ways and one no longer
    /// reported.
    #[test]
    fn json_documents_keep_their_bytes() {
        let mut run = sample();
        run.prices = Some(crate::review::settings::Prices {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        });
        run.aspects[0].tokens.cache_read = Some(600);
        run.aspects[0].tokens.cache_write = Some(100);
        run.aspects[0].calls = 2;
        run.aspects[0].note = Some("chunk 1 of 2: replayed step 0".into());
        run.aspects[0].diff = Some(crate::review::inputs::prompt::DiffReport {
            budget_chars: 1000,
            total_chars: 5000,
            included_chars: 900,
            omitted: vec!["big.lock".into()],
            truncated: vec!["a.rs (kept 10 of 99 lines)".into()],
            hidden_chars_removed: 2,
            html_comments_removed: 1,
            chunks: 2,
            shortened: Vec::new(),
        });
        run.aspects[1].rejected = vec![crate::review::findings::Rejected {
            index: 0,
            reason: "not an object".into(),
            raw: r#""just text""#.into(),
            file: None,
            message: None,
        }];
        let mut agg = first_review(&run);
        agg.trigger_comment = Some(77);
        agg.trigger_kind = Some(crate::policy::TriggerKind::ReviewComment);
        let first = serde_json::to_string_pretty(&json(&run, &agg, "BODY")).unwrap();
        insta::assert_snapshot!("json_first_review", first);

        let (run, mut agg) = incremental();
        let earlier = agg.classification.addressed[0].0.clone();
        agg.classification.addressed.push((
            MetaFinding {
                id: "PS-00000000cc".into(),
                ..earlier.clone()
            },
            AddressedBy::Console,
        ));
        agg.classification.addressed.push((
            MetaFinding {
                id: "PS-00000000dd".into(),
                line: None,
                ..earlier
            },
            AddressedBy::Earlier,
        ));
        let md = markdown(&run, &agg);
        let again = serde_json::to_string_pretty(&json(&run, &agg, &md)).unwrap();
        insta::assert_snapshot!("json_incremental_review", again);
    }

    #[test]
    fn json_has_the_documented_shape() {
        let run = sample();
        let v = json(&run, &first_review(&run), "BODY");
        assert_eq!(v["body"], "BODY");
        assert_eq!(v["complete"], false);
        let states: Vec<&str> = v["aspects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["state"].as_str().unwrap())
            .collect();
        assert_eq!(
            states,
            ["done", "done", "failed", "timed_out", "skipped", "done"]
        );
        let sev: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["severity"].as_str().unwrap())
            .collect();
        assert_eq!(sev, ["critical", "important", "suggestion"]);
        for key in [
            "id",
            "aspect",
            "severity",
            "file",
            "line",
            "message",
            "suggestedFix",
        ] {
            assert!(v["findings"][0].get(key).is_some(), "{key}");
        }
        assert_eq!(v["aspects"][2]["rawReply"], "garbage");
    }
}
