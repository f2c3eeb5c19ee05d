//! A review that always fits GitHub's comment limit (pure, deterministic).
//!
//! GitHub refuses a comment body over [`COMMENT_LIMIT`] characters (REST 422 "body is too long",
//! GraphQL "Body is too long"). [`fit`] composes the review and, only when it is too long,
//! condenses it:
//!
//! 1. the hidden metadata is budgeted first: the full form when it is small, else the compact
//!    form ([`render_meta_compact`]) with messages cut shorter and shorter — every finding keeps its
//!    id, aspect, severity, file and line, so the next review classifies all of them;
//! 2. the header, mode line, summary table and every critical and important finding stay whole;
//!    then, in order and only as far as needed: the suggested fixes of suggestions are dropped,
//!    unchanged findings are collapsed to one line each inside `<details>`, the rest of the
//!    suggestions are listed one line each, and as a last resort suggestions are left out by
//!    count ("N more suggestions — run `pr-shepherd review … --format md` for the full list");
//!    then "Treated as addressed", "Not assessed", "No longer reported" and the unclassified
//!    findings are given by count only, with the same hint ([`Layout::lists_by_count`]);
//! 3. only if that is still too long (hundreds of important findings) do important findings go
//!    the same way — what stays longest is new findings, then critical ones, then important
//!    ones: the unchanged important findings go by count, then the critical findings lose
//!    their suggested fixes, then unchanged and then new critical findings shorten to one line
//!    each (still named), then the new important findings go by count, and only at the very end
//!    is the text cut, critical findings first in line to stay.
//!
//! The condensed review says so near its top and says what was left out. The full review stays
//! in the run file and in `--format md|json`.
//!
//! [`BodySize`] is the check any other body (a thread reply, an edited draft) can use.

use std::collections::HashMap;
use std::fmt;

use super::aggregate::Aggregate;
use super::compose::{Detail, Layout, markdown, markdown_with, sorted};
use crate::review::findings::{Finding, Severity};
use crate::review::inputs::prior::{render_meta, render_meta_compact};
use crate::review::run::ReviewRun;

/// GitHub's limit on a comment body (issue comments, review comments, replies), in characters.
pub(crate) const COMMENT_LIMIT: usize = 65_536;

/// Message lengths tried, in order, for the compact metadata (0 = no messages).
const META_MESSAGE_CHARS: [usize; 5] = [200, 100, 60, 30, 0];

/// A body's size against the comment limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodySize {
    /// Characters (Unicode scalar values), as GitHub counts them.
    pub chars: usize,
    pub limit: usize,
}

impl BodySize {
    /// The size of `body` against [`COMMENT_LIMIT`].
    pub fn of(body: &str) -> BodySize {
        BodySize {
            chars: body.chars().count(),
            limit: COMMENT_LIMIT,
        }
    }

    /// Whether GitHub accepts a body this long.
    pub fn fits(&self) -> bool {
        self.chars <= self.limit
    }

    /// How many characters too long (0 when it fits).
    pub fn over_by(&self) -> usize {
        self.chars.saturating_sub(self.limit)
    }
}

impl fmt::Display for BodySize {
    /// `12,345 / 65,536 characters`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} / {} characters",
            thousands(self.chars),
            thousands(self.limit)
        )
    }
}

/// `65536` → `65,536` (kept in `chunk`, a leaf, so `prompt` can say sizes without a circle).
pub use crate::review::inputs::chunk::thousands;

/// The review as it will be posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    pub body: String,
    /// Whether anything was left out to fit.
    pub condensed: bool,
    /// The body's length in characters.
    pub chars: usize,
    /// The full (uncondensed) review's length in characters.
    pub full_chars: usize,
}

/// The review of `run`, condensed only if it does not fit GitHub's comment limit.
pub fn fit(run: &ReviewRun, agg: &Aggregate) -> Fitted {
    fit_within(run, agg, COMMENT_LIMIT)
}

/// [`fit`] against any limit (tests use small ones).
pub(crate) fn fit_within(run: &ReviewRun, agg: &Aggregate, limit: usize) -> Fitted {
    let full = markdown(run, agg);
    let chars = full.chars().count();
    if chars <= limit {
        return Fitted {
            body: full,
            condensed: false,
            chars,
            full_chars: chars,
        };
    }
    let body = condense(run, agg, limit);
    Fitted {
        chars: body.chars().count(),
        body,
        condensed: true,
        full_chars: chars,
    }
}

/// The metadata block, budgeted first: the richest form within what the text leaves when every
/// suggestion is left out (at most a quarter of the limit, at least a sixteenth), else the
/// smallest form — which still keeps every finding.
fn budget_meta(run: &ReviewRun, agg: &Aggregate, limit: usize) -> String {
    let meta = agg.meta(&run.head_sha);
    let mut essential = HashMap::new();
    for step in STEPS.iter().take_while(|s| s.0 != Group::Important) {
        apply(run, agg, &mut essential, *step);
    }
    let text = render(run, agg, &essential, false, "").chars().count();
    let budget = limit.saturating_sub(text).clamp(limit / 16, limit / 4);
    let full = render_meta(&meta);
    if full.chars().count() <= budget {
        return full;
    }
    let mut last = full;
    for chars in META_MESSAGE_CHARS {
        last = render_meta_compact(&meta, chars);
        if last.chars().count() <= budget {
            break;
        }
    }
    last
}

/// Which raised findings a step acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Suggestions,
    UnchangedNotCritical,
    Important,
}

/// One step of the ladder: set `detail` for every finding of `group` (where it shows more).
#[derive(Debug, Clone, Copy)]
struct Step(Group, Detail);

/// The ladder, in order; the last step of each severity is "hidden, by count".
const STEPS: [Step; 6] = [
    Step(Group::Suggestions, Detail::NoFix),
    Step(Group::UnchangedNotCritical, Detail::OneLine),
    Step(Group::Suggestions, Detail::OneLine),
    Step(Group::Suggestions, Detail::Hidden),
    Step(Group::Important, Detail::NoFix),
    Step(Group::Important, Detail::OneLine),
];

/// The raised findings of one severity, in the order they are left out by count: unchanged
/// before new; within each, the last of every aspect's list first, taking turns between aspects
/// so that every aspect keeps its first ones.
fn hide_order<'a>(run: &'a ReviewRun, agg: &Aggregate, sev: Severity) -> Vec<&'a Finding> {
    let mut ranked: Vec<(bool, usize, usize, &Finding)> = Vec::new();
    for (ai, a) in run.aspects.iter().enumerate() {
        let list: Vec<&Finding> = sorted(&a.findings)
            .into_iter()
            .filter(|f| f.severity == sev && agg.class_of_id(&f.id).is_some())
            .collect();
        let n = list.len();
        for (i, f) in list.into_iter().enumerate() {
            let new = agg.class_of_id(&f.id) == Some("new");
            // 1 for the last of the list, n for the first.
            ranked.push((new, n - i, ai, f));
        }
    }
    // Unchanged (false) first; then the last of every list (place from the end 1) before the
    // ones before them, aspects taking turns in their order.
    ranked.sort_by_key(|x| (x.0, x.1, x.2));
    ranked.into_iter().map(|(_, _, _, f)| f).collect()
}

fn in_group(agg: &Aggregate, f: &Finding, g: Group) -> bool {
    match g {
        Group::Suggestions => f.severity == Severity::Suggestion,
        Group::Important => f.severity == Severity::Important,
        Group::UnchangedNotCritical => {
            f.severity != Severity::Critical && agg.class_of_id(&f.id) == Some("unchanged")
        }
    }
}

fn rank(d: Detail) -> u8 {
    match d {
        Detail::Full => 0,
        Detail::NoFix => 1,
        Detail::OneLine => 2,
        Detail::Hidden => 3,
    }
}

/// Applies one step: a finding only ever shows less.
fn apply(run: &ReviewRun, agg: &Aggregate, detail: &mut HashMap<String, Detail>, step: Step) {
    let Step(group, d) = step;
    for f in run.findings().filter(|f| in_group(agg, f, group)) {
        let cur = detail.entry(f.id.clone()).or_default();
        if rank(d) > rank(*cur) {
            *cur = d;
        }
    }
}

fn plural(n: usize, sev: Severity) -> String {
    format!("{n} {}", super::compose::severity_noun(sev, n))
}

/// What a layout leaves out, in words, for the note at the top.
fn left_out(
    run: &ReviewRun,
    agg: &Aggregate,
    detail: &HashMap<String, Detail>,
    lists: bool,
) -> Vec<String> {
    // Per severity: fixes dropped, collapsed (unchanged), one line, hidden.
    let mut counts = [[0usize; 4]; 3];
    let mut seen = std::collections::HashSet::new();
    for f in run.findings() {
        let Some(class) = agg.class_of_id(&f.id) else {
            continue;
        };
        let Some(c) = Severity::ALL
            .iter()
            .position(|s| *s == f.severity)
            .and_then(|i| counts.get_mut(i))
        else {
            continue;
        };
        if !seen.insert(&f.id) {
            continue;
        }
        let d = detail.get(&f.id).copied().unwrap_or_default();
        if d != Detail::Full && f.suggested_fix.is_some() {
            c[0] += 1;
        }
        match d {
            Detail::Full | Detail::NoFix => {}
            Detail::OneLine if class == "unchanged" => c[1] += 1,
            Detail::OneLine => c[2] += 1,
            Detail::Hidden => c[3] += 1,
        }
    }
    let mut out = Vec::new();
    for (sev, c) in Severity::ALL.iter().zip(counts).rev() {
        if c[0] > 0 {
            out.push(format!("the suggested fixes of {}", plural(c[0], *sev)));
        }
        if c[1] > 0 {
            out.push(format!(
                "{} unchanged since the last review, collapsed to one line each",
                plural(c[1], *sev)
            ));
        }
        if c[2] > 0 {
            out.push(format!("{} shortened to one line each", plural(c[2], *sev)));
        }
        if c[3] > 0 {
            out.push(format!("{} listed only by count", plural(c[3], *sev)));
        }
    }
    if lists && has_lists(run, agg) {
        out.push(
            "the entries of \"Treated as addressed\", \"Not assessed\", \"No longer reported\" \
             and unclassified findings (counts only)"
                .to_owned(),
        );
    }
    out
}

/// Whether the review has any list that [`Layout::lists_by_count`] shortens.
fn has_lists(run: &ReviewRun, agg: &Aggregate) -> bool {
    let c = &agg.classification;
    let incremental = agg.mode == crate::policy::Mode::Incremental;
    (incremental
        && !(c.addressed.is_empty() && c.not_reported.is_empty() && agg.not_assessed.is_empty()))
        || run.aspects.iter().any(|a| !a.rejected.is_empty())
}

fn note(run: &ReviewRun, parts: &[String], cut: Option<usize>) -> String {
    let mut left = parts.join("; ");
    if let Some(n) = cut {
        if !left.is_empty() {
            left.push_str("; ");
        }
        left.push_str(&format!(
            "the end of the text ({} characters)",
            thousands(n)
        ));
    }
    // Only the hidden metadata can have been shortened when nothing of the text was.
    let what = if left.is_empty() {
        "Nothing of the text is left out; only the hidden metadata is in its compact form (every \
         finding keeps its id, aspect, severity, file and line)."
            .to_owned()
    } else {
        format!("Left out: {left}.")
    };
    format!(
        "**Condensed to fit GitHub's {}-character comment limit.** {what} Every finding is kept \
         in the hidden metadata; `pr-shepherd review {} --format md` prints the full review.",
        thousands(COMMENT_LIMIT),
        run.pr
    )
}

/// The review rendered with `detail` (and the note that says what it leaves out).
fn render(
    run: &ReviewRun,
    agg: &Aggregate,
    detail: &HashMap<String, Detail>,
    lists: bool,
    meta: &str,
) -> String {
    let layout = Layout {
        detail: detail.clone(),
        condensed_note: Some(note(run, &left_out(run, agg, detail, lists), None)),
        meta: Some(meta.to_owned()),
        lists_by_count: lists,
    };
    markdown_with(run, agg, &layout)
}

fn fits(body: &str, limit: usize) -> bool {
    body.chars().count() <= limit
}

/// The smallest `k` for which hiding the first `k` of `order` fits, if any does.
fn hide_by_count(
    run: &ReviewRun,
    agg: &Aggregate,
    base: &HashMap<String, Detail>,
    lists: bool,
    order: &[&Finding],
    meta: &str,
    limit: usize,
) -> Result<String, HashMap<String, Detail>> {
    let with = |k: usize| {
        let mut d = base.clone();
        for f in order.iter().take(k) {
            d.insert(f.id.clone(), Detail::Hidden);
        }
        d
    };
    let all = with(order.len());
    if !fits(&render(run, agg, &all, lists, meta), limit) {
        return Err(all);
    }
    // Hiding more never makes the body longer: the smallest k that fits, by bisection.
    let (mut lo, mut hi) = (0usize, order.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(&render(run, agg, &with(mid), lists, meta), limit) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    // The first hidden finding adds the "N more" line, so bisection may land one short.
    loop {
        let body = render(run, agg, &with(lo), lists, meta);
        if fits(&body, limit) || lo >= order.len() {
            return Ok(body);
        }
        lo += 1;
    }
}

fn condense(run: &ReviewRun, agg: &Aggregate, limit: usize) -> String {
    let meta = budget_meta(run, agg, limit);
    let mut detail: HashMap<String, Detail> = HashMap::new();
    let mut lists = false;
    for step in STEPS {
        if step.0 == Group::Important && !lists {
            // Before any important finding shows less: the lists of earlier findings (and the
            // unclassified ones) go to counts.
            lists = true;
            if has_lists(run, agg) {
                let body = render(run, agg, &detail, lists, &meta);
                if fits(&body, limit) {
                    return body;
                }
            }
        }
        if step.1 == Detail::Hidden {
            let order = hide_order(run, agg, Severity::Suggestion);
            match hide_by_count(run, agg, &detail, lists, &order, &meta, limit) {
                Ok(body) => return body,
                Err(all) => detail = all,
            }
            continue;
        }
        apply(run, agg, &mut detail, step);
        let body = render(run, agg, &detail, lists, &meta);
        if fits(&body, limit) {
            return body;
        }
    }
    // What stays longest: new findings, then critical ones, then important ones. So first the
    // unchanged important findings go by count, then the critical findings lose their
    // suggested fixes, then unchanged and new critical findings shorten to one line (still
    // named); only then do new important findings go by count, and last the text is cut.
    let (new_important, unchanged_important): (Vec<&Finding>, Vec<&Finding>) =
        hide_order(run, agg, Severity::Important)
            .into_iter()
            .partition(|f| agg.class_of_id(&f.id) == Some("new"));
    match hide_by_count(run, agg, &detail, lists, &unchanged_important, &meta, limit) {
        Ok(body) => return body,
        Err(all) => detail = all,
    }
    for (critical, d) in [
        (CriticalGroup::All, Detail::NoFix),
        (CriticalGroup::Unchanged, Detail::OneLine),
        (CriticalGroup::All, Detail::OneLine),
    ] {
        for f in run.findings().filter(|f| f.severity == Severity::Critical) {
            if critical == CriticalGroup::Unchanged && agg.class_of_id(&f.id) == Some("new") {
                continue;
            }
            let cur = detail.entry(f.id.clone()).or_default();
            if rank(d) > rank(*cur) {
                *cur = d;
            }
        }
        let body = render(run, agg, &detail, lists, &meta);
        if fits(&body, limit) {
            return body;
        }
    }
    match hide_by_count(run, agg, &detail, lists, &new_important, &meta, limit) {
        Ok(body) => body,
        Err(all) => cut_text(run, agg, &all, lists, &meta, limit),
    }
}

/// Which critical findings a late step of [`condense`] acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CriticalGroup {
    All,
    Unchanged,
}

/// The last resort: the text cut at a line so that the note and the metadata fit.
fn cut_text(
    run: &ReviewRun,
    agg: &Aggregate,
    detail: &HashMap<String, Detail>,
    lists: bool,
    meta: &str,
    limit: usize,
) -> String {
    let parts = left_out(run, agg, detail, lists);
    let layout = Layout {
        detail: detail.clone(),
        condensed_note: Some(note(run, &parts, Some(0))),
        meta: Some(String::new()),
        lists_by_count: lists,
    };
    let text = markdown_with(run, agg, &layout);
    let text = text.trim_end();
    let total = text.chars().count();
    // The note grows by at most the digits of the cut count; leave room for it and the ending.
    let ending = "\n\n> … cut here to fit.\n\n";
    let reserve = meta.chars().count() + ending.chars().count() + 2 + 24;
    let keep = limit.saturating_sub(reserve);
    let mut cut_at = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    if let Some(nl) = text[..cut_at].rfind('\n') {
        cut_at = nl;
    }
    let kept = &text[..cut_at];
    let cut = total - kept.chars().count();
    let old_note = note(run, &parts, Some(0));
    let new_note = note(run, &parts, Some(cut));
    let kept = kept.replacen(&old_note, &new_note, 1);
    let mut body = format!("{kept}{ending}{meta}\n");
    if !fits(&body, limit) {
        // Only a metadata block near the limit by itself gets here: keep the header and it.
        body = format!(
            "{}\n\n> {new_note}\n\n{meta}\n",
            crate::review::inputs::prior::REVIEW_HEADER
        );
    }
    body
}

#[cfg(test)]
mod tests;
