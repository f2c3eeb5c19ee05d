//! Pure data: what the inbox's dashboard says of a PR besides its items — its checks at the
//! head commit, GitHub's review decision, whose review is requested, its size — and the check
//! runs themselves (state, duration, annotations, the failing job's log tail) for the checks
//! screen and `pr-shepherd checks`.
//!
//! The same structs are the fixture format's `dashboard` (`docs/fixture-format.md`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use unicode_width::UnicodeWidthStr;

/// One check at the head commit, reduced to what a maintainer decides on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckState {
    Failing,
    Pending,
    Passing,
    /// Neutral, skipped or stale: neither red nor green.
    Neutral,
}

impl CheckState {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckState::Failing => "failing",
            CheckState::Pending => "pending",
            CheckState::Passing => "passing",
            CheckState::Neutral => "neutral",
        }
    }

    /// A check run's state from GitHub's `status` and `conclusion` (REST's lowercase or
    /// GraphQL's uppercase words, and GraphQL's `CheckRunState`).
    pub fn of_check_run(status: &str, conclusion: Option<&str>) -> CheckState {
        let status = status.to_ascii_lowercase();
        if !matches!(status.as_str(), "completed" | "") {
            // queued, in_progress, waiting, requested, pending: not done yet.
            return match status.as_str() {
                "failure" | "timed_out" | "cancelled" | "action_required" | "startup_failure" => {
                    CheckState::Failing
                }
                "success" => CheckState::Passing,
                "neutral" | "skipped" | "stale" => CheckState::Neutral,
                _ => CheckState::Pending,
            };
        }
        match conclusion.map(str::to_ascii_lowercase).as_deref() {
            Some("success") => CheckState::Passing,
            Some("neutral" | "skipped" | "stale") => CheckState::Neutral,
            Some(_) => CheckState::Failing,
            None => CheckState::Pending,
        }
    }

    /// A commit status's state (`error`, `failure`, `pending`, `expected`, `success`).
    pub fn of_status(state: &str) -> CheckState {
        match state.to_ascii_lowercase().as_str() {
            "success" => CheckState::Passing,
            "error" | "failure" => CheckState::Failing,
            _ => CheckState::Pending,
        }
    }
}

/// How many checks at the head are in each state. All zero: the PR has no checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChecksSummary {
    pub passing: u32,
    pub failing: u32,
    pub pending: u32,
    #[serde(default)]
    pub neutral: u32,
}

impl ChecksSummary {
    pub fn add(&mut self, state: CheckState, n: u32) {
        let slot = match state {
            CheckState::Failing => &mut self.failing,
            CheckState::Pending => &mut self.pending,
            CheckState::Passing => &mut self.passing,
            CheckState::Neutral => &mut self.neutral,
        };
        *slot = slot.saturating_add(n);
    }

    pub fn of_runs(runs: &[CheckRun]) -> ChecksSummary {
        let mut s = ChecksSummary::default();
        for r in runs {
            s.add(r.state, 1);
        }
        s
    }

    pub fn total(&self) -> u32 {
        self.passing
            .saturating_add(self.failing)
            .saturating_add(self.pending)
            .saturating_add(self.neutral)
    }

    /// The state of the whole: failing if any fails, else pending if any is pending, else
    /// passing; `None` without checks.
    pub fn overall(&self) -> Option<CheckState> {
        if self.total() == 0 {
            None
        } else if self.failing > 0 {
            Some(CheckState::Failing)
        } else if self.pending > 0 {
            Some(CheckState::Pending)
        } else if self.passing > 0 {
            Some(CheckState::Passing)
        } else {
            Some(CheckState::Neutral)
        }
    }

    /// `✓3`, `✗1 ✓2`, `…1 ✓2`, `none`: the inbox cell.
    pub fn cell(&self) -> String {
        if self.total() == 0 {
            return "none".to_owned();
        }
        self.parts().join(" ")
    }

    /// The inbox cell in at most `cells` display cells: the whole [`cell`](Self::cell) when it
    /// fits, else the passing count goes, then the pending one. The first count (the failing
    /// one, when any fails) always stays, even past `cells`: it is never hidden to fit.
    pub fn cell_within(&self, cells: usize) -> String {
        let parts = self.parts();
        for keep in (2..=parts.len()).rev() {
            let text = parts[..keep].join(" ");
            if text.width() <= cells {
                return text;
            }
        }
        parts.first().cloned().unwrap_or_else(|| "none".to_owned())
    }

    /// The counts as the cell shows them, most urgent first: `✗` failing, `…` pending, `✓`
    /// passing; `○` neutral only when there is nothing else.
    fn parts(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if self.failing > 0 {
            parts.push(format!("✗{}", self.failing));
        }
        if self.pending > 0 {
            parts.push(format!("…{}", self.pending));
        }
        if self.passing > 0 {
            parts.push(format!("✓{}", self.passing));
        }
        if self.neutral > 0 && parts.is_empty() {
            parts.push(format!("○{}", self.neutral));
        }
        parts
    }
}

/// GitHub's `reviewDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewDecision {
    ChangesRequested,
    ReviewRequired,
    Approved,
}

impl ReviewDecision {
    /// GitHub's word (`APPROVED`, `CHANGES_REQUESTED`, `REVIEW_REQUIRED`).
    pub fn parse(s: &str) -> Option<ReviewDecision> {
        match s.to_ascii_uppercase().as_str() {
            "APPROVED" => Some(ReviewDecision::Approved),
            "CHANGES_REQUESTED" => Some(ReviewDecision::ChangesRequested),
            "REVIEW_REQUIRED" => Some(ReviewDecision::ReviewRequired),
            _ => None,
        }
    }

    /// The JSON word: `approved`, `changes-requested`, `review-required`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewDecision::Approved => "approved",
            ReviewDecision::ChangesRequested => "changes-requested",
            ReviewDecision::ReviewRequired => "review-required",
        }
    }

    /// The inbox cell.
    pub fn cell(self) -> &'static str {
        match self {
            ReviewDecision::Approved => "approved",
            ReviewDecision::ChangesRequested => "changes",
            ReviewDecision::ReviewRequired => "required",
        }
    }
}

/// A requested reviewer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Reviewer {
    User {
        login: String,
    },
    /// `org/slug` (GraphQL's `combinedSlug`).
    Team {
        slug: String,
    },
}

/// Whether your review is requested on a PR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewRequested {
    /// From you, by name.
    You,
    /// From a team you are in (and not from you by name).
    Team,
    None,
}

impl ReviewRequested {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewRequested::You => "you",
            ReviewRequested::Team => "team",
            ReviewRequested::None => "none",
        }
    }

    /// Of the requested reviewers, for `me` (a login) in `my_teams` (`org/slug`, any case).
    pub fn of(reviewers: &[Reviewer], me: &str, my_teams: &[String]) -> ReviewRequested {
        let mut out = ReviewRequested::None;
        for r in reviewers {
            match r {
                Reviewer::User { login } if login.eq_ignore_ascii_case(me) => {
                    return ReviewRequested::You;
                }
                Reviewer::Team { slug }
                    if my_teams.iter().any(|t| t.eq_ignore_ascii_case(slug)) =>
                {
                    out = ReviewRequested::Team;
                }
                _ => {}
            }
        }
        out
    }

    /// The team (`org/slug`) through which your review is requested, when it is requested from
    /// a team you are in and not from you by name (the first such team).
    pub fn team_of(reviewers: &[Reviewer], me: &str, my_teams: &[String]) -> Option<String> {
        if ReviewRequested::of(reviewers, me, my_teams) != ReviewRequested::Team {
            return None;
        }
        reviewers.iter().find_map(|r| match r {
            Reviewer::Team { slug } if my_teams.iter().any(|t| t.eq_ignore_ascii_case(slug)) => {
                Some(slug.clone())
            }
            _ => None,
        })
    }
}

/// What the dashboard knows of a PR besides its items. Every field is optional: a source that
/// does not know it says nothing rather than a zero.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dash {
    /// The checks at the head commit, counted by state (`None`: not known here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<ChecksSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_decision: Option<ReviewDecision>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review_requests: Vec<Reviewer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<u64>,
    /// Auto-merge is armed, with this method (`merge`, `squash`, `rebase`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_merge: Option<String>,
    /// The PR waits in its base branch's merge queue.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub queued: bool,
    /// The teams (`org/slug`) of the identity the fixture was recorded for; live, the viewer's
    /// teams are asked once per inbox.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub viewer_teams: Vec<String>,
    /// The check runs and statuses at the head commit, in full (fixtures; live, the checks
    /// screen and `pr-shepherd checks` fetch them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check_runs: Vec<CheckRun>,
}

impl Dash {
    pub fn is_empty(&self) -> bool {
        self == &Dash::default()
    }

    /// The summary: the recorded one, else counted from the runs, else none.
    pub fn summary(&self) -> Option<ChecksSummary> {
        self.checks.or_else(|| {
            (!self.check_runs.is_empty()).then(|| ChecksSummary::of_runs(&self.check_runs))
        })
    }

    /// `+a −d`, with the files when known; `None` when the size is not known.
    pub fn size_cell(&self) -> Option<String> {
        let (a, d) = (self.additions?, self.deletions?);
        Some(match self.changed_files {
            Some(f) => format!("+{a} −{d} {f}f"),
            None => format!("+{a} −{d}"),
        })
    }
}

/// Where a check comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// A check run (Actions or any app).
    #[default]
    Run,
    /// A commit status.
    Status,
}

/// An annotation of a check run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotation {
    pub path: String,
    #[serde(default)]
    pub start_line: u32,
    #[serde(default)]
    pub end_line: u32,
    /// `notice`, `warning` or `failure`.
    pub level: String,
    #[serde(default)]
    pub title: String,
    pub message: String,
}

impl Annotation {
    /// The id it is marked seen by: the check's name, where, and what it says (a re-run that
    /// says the same thing at the same place is the same annotation).
    pub fn id(&self, check: &str) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [
            check,
            &self.path,
            &self.start_line.to_string(),
            &self.level,
            &self.title,
            &self.message,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        let hex: String = h
            .finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("annotation:{hex}")
    }
}

/// One check run or commit status at the head commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckRun {
    pub name: String,
    #[serde(default)]
    pub kind: CheckKind,
    pub state: CheckState,
    /// GitHub's own words (`completed`/`failure`, …), as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The check run's id (annotations, the job's log: an Actions job's id is its check run's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The Actions workflow run it belongs to (re-run failed jobs), when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_run_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<Annotation>,
    /// The last lines of the failing job's log, sanitized and bounded when fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_tail: Option<String>,
}

impl CheckRun {
    /// How long it ran (to `now` while it runs), in seconds.
    pub fn duration_secs(&self, now: DateTime<Utc>) -> Option<i64> {
        let start = self.started_at?;
        let end = self.completed_at.unwrap_or(now);
        Some((end - start).num_seconds().max(0))
    }
}

/// `1m 05s`, `42s`, `2h 03m`, `11d 10h` (a check pending for days reads in days, not as
/// `274h 37m`).
pub fn duration_text(secs: i64) -> String {
    let secs = secs.max(0);
    if secs < 60 {
        format!("{secs}s")
    } else if secs < 3600 {
        format!("{}m {:02}s", secs / 60, secs % 60)
    } else if secs < 2 * 86_400 {
        format!("{}h {:02}m", secs / 3600, (secs % 3600) / 60)
    } else {
        format!("{}d {}h", secs / 86_400, (secs % 86_400) / 3600)
    }
}

/// How many lines of a failing job's log are kept, and at most how many characters.
pub const LOG_TAIL_LINES: usize = 40;
pub const LOG_TAIL_CHARS: usize = 8_000;

/// The tail of a job's log: its last [`LOG_TAIL_LINES`] lines, at most [`LOG_TAIL_CHARS`]
/// characters (the newest kept), each line without Actions' timestamp prefix.
pub fn log_tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.len().saturating_sub(LOG_TAIL_LINES);
    let mut out: Vec<String> = lines[start..]
        .iter()
        .map(|l| strip_ansi(strip_timestamp(l)))
        .collect();
    let mut total: usize = out.iter().map(|l| l.chars().count() + 1).sum();
    while total > LOG_TAIL_CHARS && out.len() > 1 {
        let first = out.remove(0);
        total -= first.chars().count() + 1;
    }
    if total > LOG_TAIL_CHARS
        && let Some(last) = out.last_mut()
    {
        let n = last.chars().count();
        *last = last
            .chars()
            .skip(n.saturating_sub(LOG_TAIL_CHARS))
            .collect();
    }
    out.join("\n")
}

/// A log line without its colour codes (CSI sequences `ESC [ … letter`), which Actions logs
/// are full of; any other control character is left for the sanitizer to show.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for n in chars.by_ref() {
                if n.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// `2026-12-01T10:00:00.1234567Z rest` → `rest`.
fn strip_timestamp(line: &str) -> &str {
    match line.split_once(' ') {
        Some((ts, rest))
            if ts.len() >= 20
                && ts.ends_with('Z')
                && ts.as_bytes().get(4) == Some(&b'-')
                && ts.as_bytes().get(10) == Some(&b'T') =>
        {
            rest
        }
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_runs_state_reads_status_and_conclusion() {
        assert_eq!(
            CheckState::of_check_run("completed", Some("success")),
            CheckState::Passing
        );
        assert_eq!(
            CheckState::of_check_run("COMPLETED", Some("FAILURE")),
            CheckState::Failing
        );
        assert_eq!(
            CheckState::of_check_run("completed", Some("timed_out")),
            CheckState::Failing
        );
        assert_eq!(
            CheckState::of_check_run("completed", Some("skipped")),
            CheckState::Neutral
        );
        assert_eq!(
            CheckState::of_check_run("in_progress", None),
            CheckState::Pending
        );
        assert_eq!(
            CheckState::of_check_run("QUEUED", None),
            CheckState::Pending
        );
        // GraphQL's CheckRunState words.
        assert_eq!(
            CheckState::of_check_run("FAILURE", None),
            CheckState::Failing
        );
        assert_eq!(
            CheckState::of_check_run("SUCCESS", None),
            CheckState::Passing
        );
        assert_eq!(CheckState::of_status("error"), CheckState::Failing);
        assert_eq!(CheckState::of_status("EXPECTED"), CheckState::Pending);
    }

    #[test]
    fn the_summary_cell_puts_failures_first_and_says_none_without_checks() {
        let mut s = ChecksSummary::default();
        assert_eq!(s.cell(), "none");
        assert_eq!(s.overall(), None);
        s.add(CheckState::Passing, 3);
        assert_eq!(s.cell(), "✓3");
        s.add(CheckState::Failing, 1);
        s.add(CheckState::Pending, 2);
        assert_eq!(s.cell(), "✗1 …2 ✓3");
        assert_eq!(s.overall(), Some(CheckState::Failing));
    }

    #[test]
    fn a_short_summary_cell_drops_the_passing_count_then_the_pending_never_the_failing() {
        let s = ChecksSummary {
            failing: 12,
            pending: 30,
            passing: 1180,
            neutral: 0,
        };
        assert_eq!(s.cell_within(20), "✗12 …30 ✓1180");
        assert_eq!(s.cell_within(13), "✗12 …30 ✓1180");
        assert_eq!(s.cell_within(12), "✗12 …30");
        assert_eq!(s.cell_within(6), "✗12");
        assert_eq!(s.cell_within(1), "✗12", "the failing count is never hidden");
        let passing = ChecksSummary {
            passing: 118,
            pending: 4,
            ..ChecksSummary::default()
        };
        assert_eq!(passing.cell_within(6), "…4");
        assert_eq!(ChecksSummary::default().cell_within(2), "none");
    }

    #[test]
    fn a_request_by_name_beats_a_teams() {
        let rs = vec![
            Reviewer::Team {
                slug: "acme/core".into(),
            },
            Reviewer::User {
                login: "Maint".into(),
            },
        ];
        let teams = vec!["ACME/core".to_owned()];
        assert_eq!(
            ReviewRequested::of(&rs, "maint", &teams),
            ReviewRequested::You
        );
        assert_eq!(
            ReviewRequested::of(&rs, "other", &teams),
            ReviewRequested::Team
        );
        assert_eq!(
            ReviewRequested::of(&rs, "other", &[]),
            ReviewRequested::None
        );
        assert_eq!(ReviewRequested::team_of(&rs, "maint", &teams), None);
        assert_eq!(ReviewRequested::team_of(&rs, "other", &[]), None);
        assert_eq!(
            ReviewRequested::team_of(&rs, "other", &teams).as_deref(),
            Some("acme/core")
        );
    }

    #[test]
    fn a_log_tail_is_its_last_lines_without_timestamps_and_bounded() {
        let log: String = (0..100)
            .map(|i| format!("2026-12-01T10:00:00.1234567Z line {i}\n"))
            .collect();
        let tail = log_tail(&log);
        assert_eq!(tail.lines().count(), LOG_TAIL_LINES);
        assert!(tail.starts_with("line 60"));
        assert!(tail.ends_with("line 99"));
        assert_eq!(log_tail("\u{1b}[31merror\u{1b}[0m: boom"), "error: boom");
        let huge = "x".repeat(100_000);
        assert_eq!(log_tail(&huge).chars().count(), LOG_TAIL_CHARS);
    }

    #[test]
    fn an_annotations_id_is_stable_and_names_its_check() {
        let a = Annotation {
            path: "src/lib.rs".into(),
            start_line: 3,
            end_line: 3,
            level: "failure".into(),
            title: "clippy".into(),
            message: "unused variable".into(),
        };
        assert_eq!(a.id("lint"), a.clone().id("lint"));
        assert_ne!(a.id("lint"), a.id("test"));
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration_text(42), "42s");
        assert_eq!(duration_text(65), "1m 05s");
        assert_eq!(duration_text(7380), "2h 03m");
        assert_eq!(duration_text(47 * 3600 + 59 * 60), "47h 59m");
        assert_eq!(duration_text(274 * 3600 + 37 * 60), "11d 10h");
    }
}
