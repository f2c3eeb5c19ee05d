//! Shepherd's own check on the PR's head (pure): how a finished (or failed) review becomes the
//! `pr-shepherd` check's conclusion, title and summary, and how that maps onto a commit status
//! where the token cannot write check runs.
//!
//! The rule: `failure` only when the review ran whole and leaves unaddressed findings at or
//! above `[automation] check_fails_on`; `neutral` whenever the review could not run or is
//! incomplete (the model down, a rate limit, an aspect failed, the budget stopped it) — an
//! infrastructure problem never turns a PR red; `success` otherwise.

use serde::{Deserialize, Serialize};

/// The check's name on GitHub (what a branch rule requires).
pub const CHECK_NAME: &str = "pr-shepherd";

/// The most characters GitHub takes in a commit status's description.
pub const STATUS_DESCRIPTION_CHARS: usize = 140;

/// The most characters of a check's title kept (GitHub shows one line).
const TITLE_CHARS: usize = 200;

/// The most characters of a reason (an error message) quoted in a summary.
const REASON_CHARS: usize = 1_000;

/// `[automation] check_fails_on`: the lowest severity whose unaddressed findings fail the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckFailsOn {
    #[default]
    Critical,
    Important,
    Suggestion,
    /// The check never fails on findings (success or neutral only).
    Never,
}

impl CheckFailsOn {
    /// Every value, by its config name (the schema row lists these).
    pub const NAMES: [&'static str; 4] = ["critical", "important", "suggestion", "never"];

    pub fn as_str(self) -> &'static str {
        match self {
            CheckFailsOn::Critical => "critical",
            CheckFailsOn::Important => "important",
            CheckFailsOn::Suggestion => "suggestion",
            CheckFailsOn::Never => "never",
        }
    }
}

/// Unaddressed findings (new or unchanged since the last review) by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SeverityCounts {
    pub critical: usize,
    pub important: usize,
    pub suggestion: usize,
}

impl SeverityCounts {
    /// Counts one finding of `severity` (`critical`, `important` or `suggestion`; any other
    /// word counts as a suggestion, the lowest).
    pub fn add(&mut self, severity: &str) {
        match severity {
            "critical" => self.critical += 1,
            "important" => self.important += 1,
            _ => self.suggestion += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.critical + self.important + self.suggestion
    }

    /// How many are at or above `threshold` (0 for `never`).
    pub fn at_or_above(&self, threshold: CheckFailsOn) -> usize {
        match threshold {
            CheckFailsOn::Critical => self.critical,
            CheckFailsOn::Important => self.critical + self.important,
            CheckFailsOn::Suggestion => self.total(),
            CheckFailsOn::Never => 0,
        }
    }

    /// `1 critical, 2 important` (the non-zero ones, most severe first), or `none`.
    pub fn words(&self) -> String {
        let parts: Vec<String> = [
            (self.critical, "critical"),
            (self.important, "important"),
            (self.suggestion, "suggestion"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, s)| {
            if s == "suggestion" && n != 1 {
                format!("{n} suggestions")
            } else {
                format!("{n} {s}")
            }
        })
        .collect();
        if parts.is_empty() {
            "none".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// How the review ended, as the check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewEnd {
    /// Every aspect ran to its end.
    Reviewed { unaddressed: SeverityCounts },
    /// The review ran but is not whole: these aspects failed or timed out (`security failed`),
    /// or the budget stopped it.
    Incomplete {
        unaddressed: SeverityCounts,
        failed: Vec<String>,
        budget_stop: Option<String>,
    },
    /// The review could not run at all (why, one line).
    NotRun { why: String },
}

/// A check run's conclusion (the ones Shepherd uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    Success,
    Failure,
    Neutral,
}

impl Conclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Neutral => "neutral",
        }
    }

    /// The commit status state that stands for it where only statuses can be written. Statuses
    /// have no neutral: a review that could not run is `success` (it must not turn the PR red,
    /// and a required status must not wait forever), and its description says it was not
    /// reviewed.
    pub fn status_state(self) -> &'static str {
        match self {
            Conclusion::Success | Conclusion::Neutral => "success",
            Conclusion::Failure => "failure",
        }
    }
}

/// What the finished check says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub conclusion: Conclusion,
    /// One line: why this conclusion.
    pub title: String,
    /// Markdown: the counts by severity, the failed aspects, the link to the comment.
    pub summary: String,
}

/// The check for a review that ended as `end`, failing on `fails_on`; `comment` is the posted
/// Shepherd comment's URL, and `not_posted` why it was not posted (when it was meant to be).
pub fn check_report(
    end: &ReviewEnd,
    fails_on: CheckFailsOn,
    comment: Option<&str>,
    not_posted: Option<&str>,
) -> CheckReport {
    let threshold = match fails_on {
        CheckFailsOn::Never => {
            "the check never fails on findings (`[automation] check_fails_on = \"never\"`)"
                .to_owned()
        }
        t => format!(
            "it fails on unaddressed findings at or above `{}` (`[automation] check_fails_on`)",
            t.as_str()
        ),
    };
    let (conclusion, title, mut lines) = match end {
        ReviewEnd::Reviewed { unaddressed } => {
            let over = unaddressed.at_or_above(fails_on);
            if over > 0 {
                (
                    Conclusion::Failure,
                    format!(
                        "{over} unaddressed finding{} at or above {}",
                        plural(over),
                        fails_on.as_str()
                    ),
                    vec![format!(
                        "**Failure**: the review leaves {over} unaddressed finding{} at or above \
                         `{}`; {threshold}.",
                        plural(over),
                        fails_on.as_str()
                    )],
                )
            } else {
                (
                    Conclusion::Success,
                    match unaddressed.total() {
                        0 => "No unaddressed findings".to_owned(),
                        _ => format!("No blocking findings ({})", unaddressed.words()),
                    },
                    vec![format!("**Success**: {threshold}, and none remain.")],
                )
            }
        }
        ReviewEnd::Incomplete {
            failed,
            budget_stop,
            ..
        } => {
            let mut why: Vec<String> = failed.iter().map(|f| one_line(f, 100)).collect();
            if let Some(b) = budget_stop {
                why.push(format!("stopped by the budget: {}", one_line(b, 200)));
            }
            let why = if why.is_empty() {
                "some aspects did not finish".to_owned()
            } else {
                why.join(", ")
            };
            (
                Conclusion::Neutral,
                format!("Review incomplete: {why}"),
                vec![format!(
                    "**Neutral**: the review is incomplete ({why}), so it cannot vouch for the \
                     PR either way — an infrastructure problem never turns a PR red. Run it \
                     again (a retry updates this check)."
                )],
            )
        }
        ReviewEnd::NotRun { why } => (
            Conclusion::Neutral,
            format!("Not reviewed: {}", one_line(why, 150)),
            vec![format!(
                "**Neutral**: the review could not run: {}. An infrastructure problem never \
                 turns a PR red; run it again (a retry updates this check).",
                one_line(why, REASON_CHARS)
            )],
        ),
    };
    if let ReviewEnd::Reviewed { unaddressed } | ReviewEnd::Incomplete { unaddressed, .. } = end {
        lines.push(String::new());
        lines.push("| severity | unaddressed |".to_owned());
        lines.push("|---|---|".to_owned());
        for (name, n) in [
            ("critical", unaddressed.critical),
            ("important", unaddressed.important),
            ("suggestion", unaddressed.suggestion),
        ] {
            lines.push(format!("| {name} | {n} |"));
        }
        if matches!(end, ReviewEnd::Incomplete { .. }) && unaddressed.total() > 0 {
            lines.push(String::new());
            lines.push(
                "These are the findings of the aspects that did run; the check stays neutral \
                 until a whole review has run."
                    .to_owned(),
            );
        }
    }
    lines.push(String::new());
    match (comment, not_posted) {
        (Some(url), _) => lines.push(format!("The review: [PR Shepherd Review]({url})")),
        (None, Some(why)) => lines.push(format!(
            "The review comment was not posted: {}",
            one_line(why, REASON_CHARS)
        )),
        (None, None) => lines.push("No review comment was posted.".to_owned()),
    }
    CheckReport {
        conclusion,
        title: one_line(&title, TITLE_CHARS),
        summary: lines.join("\n"),
    }
}

/// The description of the commit status that stands in for the check: the title, marked as
/// not reviewed when neutral, ending with `note` (why a status, not a check), within GitHub's
/// 140 characters.
pub fn status_description(report: &CheckReport, note: &str) -> String {
    let head = match report.conclusion {
        Conclusion::Neutral if !report.title.starts_with("Not reviewed") => {
            format!("Not reviewed whole: {}", report.title)
        }
        _ => report.title.clone(),
    };
    fit_description(&head, note)
}

/// `head` then ` — note`, `head` cut (with `…`) so the whole fits
/// [`STATUS_DESCRIPTION_CHARS`]; the note is kept whole when it fits alone.
pub fn fit_description(head: &str, note: &str) -> String {
    let tail = if note.is_empty() {
        String::new()
    } else {
        format!(" — {note}")
    };
    let room = STATUS_DESCRIPTION_CHARS.saturating_sub(tail.chars().count());
    if room == 0 {
        return one_line(note, STATUS_DESCRIPTION_CHARS);
    }
    format!("{}{tail}", one_line(head, room))
}

/// `text` on one line (whitespace runs, newlines included, become one space), at most `max`
/// characters (cut with `…`).
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(critical: usize, important: usize, suggestion: usize) -> SeverityCounts {
        SeverityCounts {
            critical,
            important,
            suggestion,
        }
    }

    #[test]
    fn an_unaddressed_critical_finding_fails_the_check_and_the_summary_links_the_comment() {
        let end = ReviewEnd::Reviewed {
            unaddressed: counts(1, 0, 2),
        };
        let r = check_report(&end, CheckFailsOn::Critical, Some("https://c/1"), None);
        assert_eq!(r.conclusion, Conclusion::Failure);
        assert_eq!(r.title, "1 unaddressed finding at or above critical");
        assert!(r.summary.contains("| critical | 1 |"), "{}", r.summary);
        assert!(r.summary.contains("| suggestion | 2 |"), "{}", r.summary);
        assert!(r.summary.contains("(https://c/1)"), "{}", r.summary);
    }

    #[test]
    fn the_threshold_decides_which_severities_fail() {
        let end = ReviewEnd::Reviewed {
            unaddressed: counts(0, 2, 1),
        };
        let at = |t| check_report(&end, t, None, None).conclusion;
        assert_eq!(at(CheckFailsOn::Critical), Conclusion::Success);
        assert_eq!(at(CheckFailsOn::Important), Conclusion::Failure);
        assert_eq!(at(CheckFailsOn::Suggestion), Conclusion::Failure);
        assert_eq!(at(CheckFailsOn::Never), Conclusion::Success);
        let r = check_report(&end, CheckFailsOn::Important, None, None);
        assert_eq!(r.title, "2 unaddressed findings at or above important");
        let r = check_report(&end, CheckFailsOn::Critical, None, None);
        assert_eq!(r.title, "No blocking findings (2 important, 1 suggestion)");
        let clean = ReviewEnd::Reviewed {
            unaddressed: SeverityCounts::default(),
        };
        let r = check_report(&clean, CheckFailsOn::Suggestion, None, None);
        assert_eq!(
            (r.conclusion, r.title.as_str()),
            (Conclusion::Success, "No unaddressed findings")
        );
        assert!(r.summary.contains("No review comment was posted"));
    }

    #[test]
    fn a_review_that_could_not_run_or_is_incomplete_is_neutral_never_failure() {
        let down = ReviewEnd::NotRun {
            why: "the model is unreachable:\nconnection refused".to_owned(),
        };
        let r = check_report(&down, CheckFailsOn::Suggestion, None, None);
        assert_eq!(r.conclusion, Conclusion::Neutral);
        assert_eq!(
            r.title,
            "Not reviewed: the model is unreachable: connection refused"
        );
        // Critical findings of the aspects that ran do not turn an incomplete review red.
        let partial = ReviewEnd::Incomplete {
            unaddressed: counts(3, 0, 0),
            failed: vec!["security failed".into(), "perf timed out".into()],
            budget_stop: None,
        };
        let r = check_report(&partial, CheckFailsOn::Critical, Some("u"), None);
        assert_eq!(r.conclusion, Conclusion::Neutral);
        assert_eq!(
            r.title,
            "Review incomplete: security failed, perf timed out"
        );
        assert!(r.summary.contains("| critical | 3 |"), "{}", r.summary);
        assert!(r.summary.contains("aspects that did run"), "{}", r.summary);
        let budget = ReviewEnd::Incomplete {
            unaddressed: SeverityCounts::default(),
            failed: Vec::new(),
            budget_stop: Some("max_input_tokens".into()),
        };
        let r = check_report(&budget, CheckFailsOn::Critical, None, Some("partial"));
        assert_eq!(r.conclusion, Conclusion::Neutral);
        assert!(r.title.contains("stopped by the budget"), "{}", r.title);
        assert!(
            r.summary.contains("was not posted: partial"),
            "{}",
            r.summary
        );
    }

    #[test]
    fn a_commit_status_has_no_neutral_so_not_reviewed_is_success_and_says_so() {
        assert_eq!(Conclusion::Failure.status_state(), "failure");
        assert_eq!(Conclusion::Success.status_state(), "success");
        assert_eq!(Conclusion::Neutral.status_state(), "success");
        let partial = check_report(
            &ReviewEnd::Incomplete {
                unaddressed: SeverityCounts::default(),
                failed: vec!["tests failed".into()],
                budget_stop: None,
            },
            CheckFailsOn::Critical,
            None,
            None,
        );
        let d = status_description(&partial, "a commit status: no checks:write");
        assert!(
            d.starts_with("Not reviewed whole: Review incomplete"),
            "{d}"
        );
        assert!(d.ends_with(" — a commit status: no checks:write"), "{d}");
        let long = CheckReport {
            conclusion: Conclusion::Neutral,
            title: format!("Not reviewed: {}", "x".repeat(500)),
            summary: String::new(),
        };
        let d = status_description(&long, "note");
        assert_eq!(d.chars().count(), STATUS_DESCRIPTION_CHARS, "{d}");
        assert!(d.ends_with("… — note"), "{d}");
    }

    #[test]
    fn the_names_are_the_config_values() {
        for (name, v) in CheckFailsOn::NAMES.iter().zip([
            CheckFailsOn::Critical,
            CheckFailsOn::Important,
            CheckFailsOn::Suggestion,
            CheckFailsOn::Never,
        ]) {
            assert_eq!(v.as_str(), *name);
            let parsed: CheckFailsOn = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(parsed, v);
        }
        assert_eq!(CheckFailsOn::NAMES, crate::schema::CHECK_FAILS_ON);
        assert_eq!(CheckFailsOn::default(), CheckFailsOn::Critical);
        assert_eq!(counts(1, 0, 2).words(), "1 critical, 2 suggestions");
        assert_eq!(SeverityCounts::default().words(), "none");
    }
}
