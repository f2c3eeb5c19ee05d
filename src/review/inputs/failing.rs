//! The checks that fail at the PR's head commit, as the aspects are given them: each failing
//! check's name and its annotations (where the CI said what broke), so a reviewer can look for
//! the cause in the diff. Live they are read in one GraphQL request
//! (`source::github::checks::fetch_in_one_request`); a fixture carries them in its
//! `dashboard.checkRuns` (given only while the snapshot is at the head they were recorded at).
//!
//! [`select`] (pure) decides what is given: only failing checks, their annotations most severe
//! first, every text stripped like all untrusted text and folded to one line, within
//! [`MAX_CHECKS`], [`MAX_ANNOTATIONS`], [`MAX_ANNOTATION_CHARS`] and [`MAX_CHARS`]; what the
//! bounds leave out is said. `blocks::PromptBlocks` fences the lines as data in the prefix
//! every call shares (so they count in the prompt budget like every other block). A failure to
//! read them never fails the review: it is said in the run and the review goes on without them.

use super::prompt::strip_untrusted;
use crate::pr::{Annotation, CheckKind, CheckRun, CheckState, PrMeta};

/// Failing checks named at most.
pub const MAX_CHECKS: usize = 10;
/// Annotations given at most, across every failing check.
pub const MAX_ANNOTATIONS: usize = 20;
/// Characters of one annotation (its title and message) at most; a longer one is cut and says so.
pub const MAX_ANNOTATION_CHARS: usize = 400;
/// Characters of a check's name at most.
pub const MAX_NAME_CHARS: usize = 200;
/// Characters of the whole block at most.
pub const MAX_CHARS: usize = 6_000;

/// Where a review reads the head commit's checks from.
pub enum ChecksSource<'a> {
    /// Nowhere (no checks are given).
    None,
    /// The checks a fixture recorded (`dashboard.checkRuns`) and the head they were recorded at.
    Recorded { runs: Vec<CheckRun>, head: String },
    /// GitHub, at the PR's head commit (one request).
    Live(&'a crate::source::github::GitHub),
}

/// The failing checks of one review: the prompt's lines, what they hold, what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FailingChecks {
    /// One line per failing check, each followed by its annotations' lines (indented).
    pub lines: Vec<String>,
    /// Failing checks named, and annotations given.
    pub checks: usize,
    pub annotations: usize,
    /// What the bounds left out ("3 annotations and 1 failing check"), said in the prompt.
    pub left_out: Option<String>,
    /// Why the checks could not be read, when they could not.
    pub error: Option<String>,
}

/// Reads the head commit's checks for `pr` from `source` and selects the failing ones.
pub async fn read(source: ChecksSource<'_>, pr: &PrMeta) -> FailingChecks {
    match source {
        ChecksSource::None => FailingChecks::default(),
        ChecksSource::Recorded { runs, head } if head == pr.head_sha => select(&runs, 0),
        ChecksSource::Recorded { .. } => FailingChecks::default(),
        ChecksSource::Live(gh) => {
            match crate::source::github::checks::fetch_in_one_request(
                gh,
                &pr.coords(),
                &pr.head_sha,
            )
            .await
            {
                Ok(h) => select(&h.runs, h.unread),
                Err(e) => FailingChecks {
                    error: Some(format!(
                        "the head commit's checks could not be read, the aspects were not given \
                         them: {e}"
                    )),
                    ..FailingChecks::default()
                },
            }
        }
    }
}

/// `n noun` with the noun's plural when `n` is not one.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Untrusted text made prompt-safe: stripped, on one line, within `max` characters (a cut says
/// how long it was).
fn clean(text: &str, max: usize) -> String {
    let one = crate::sanitize::one_line(&strip_untrusted(text).text);
    let total = one.chars().count();
    if total <= max {
        return one;
    }
    let kept: String = one.chars().take(max).collect();
    format!("{kept}… [cut: {total} characters]")
}

fn level_rank(level: &str) -> u8 {
    match level.to_ascii_lowercase().as_str() {
        "failure" => 0,
        "warning" => 1,
        _ => 2,
    }
}

fn check_line(run: &CheckRun) -> String {
    let kind = match run.kind {
        CheckKind::Run => "check run",
        CheckKind::Status => "commit status",
    };
    let said = run
        .conclusion
        .as_deref()
        .map(|c| format!(", {}", clean(c, 40)))
        .unwrap_or_default();
    format!("- {} ({kind}{said})", clean(&run.name, MAX_NAME_CHARS))
}

fn annotation_line(a: &Annotation) -> String {
    let place = match (a.path.trim(), a.start_line, a.end_line) {
        ("", _, _) => "(no file)".to_owned(),
        (p, 0, _) => clean(p, MAX_NAME_CHARS),
        (p, s, e) if e > s => format!("{}:{s}-{e}", clean(p, MAX_NAME_CHARS)),
        (p, s, _) => format!("{}:{s}", clean(p, MAX_NAME_CHARS)),
    };
    let text = if a.title.trim().is_empty() {
        a.message.clone()
    } else {
        format!("{}: {}", a.title, a.message)
    };
    format!(
        "  - {place} [{}] {}",
        clean(&a.level, 20),
        clean(&text, MAX_ANNOTATION_CHARS)
    )
}

/// The failing checks of `runs` as prompt lines, within the bounds. `unread`: checks at the
/// commit the source could not list (beyond its page), said with what the bounds left out.
pub fn select(runs: &[CheckRun], unread: usize) -> FailingChecks {
    let failing: Vec<&CheckRun> = runs
        .iter()
        .filter(|r| r.state == CheckState::Failing)
        .collect();
    let mut out = FailingChecks::default();
    let mut chars = 0usize;
    let (mut checks_left, mut annotations_left) = (0usize, 0usize);
    for run in &failing {
        let line = check_line(run);
        if out.checks == MAX_CHECKS || chars + line.chars().count() + 1 > MAX_CHARS {
            checks_left += 1;
            annotations_left += run.annotations.len();
            continue;
        }
        chars += line.chars().count() + 1;
        out.lines.push(line);
        out.checks += 1;
        let mut annotations: Vec<&Annotation> = run.annotations.iter().collect();
        annotations.sort_by_key(|a| level_rank(&a.level));
        for a in annotations {
            let line = annotation_line(a);
            if out.annotations == MAX_ANNOTATIONS || chars + line.chars().count() + 1 > MAX_CHARS {
                annotations_left += 1;
                continue;
            }
            chars += line.chars().count() + 1;
            out.lines.push(line);
            out.annotations += 1;
        }
    }
    let mut left = Vec::new();
    if annotations_left > 0 {
        left.push(count(annotations_left, "annotation", "annotations"));
    }
    if checks_left > 0 {
        left.push(count(checks_left, "failing check", "failing checks"));
    }
    if unread > 0 {
        left.push(format!(
            "{} at the commit beyond the first page (not read)",
            count(unread, "check", "checks")
        ));
    }
    if !left.is_empty() {
        out.left_out = Some(left.join(" and "));
    }
    out
}

/// The composed review's line on the failing checks the aspects were given (or why they were
/// not); `None` when there were none and nothing went wrong.
/// Read from the run's record: why the checks could not be read, or how many failing checks
/// and annotations were given.
pub fn context_line(
    checks_error: Option<&str>,
    failing_checks: usize,
    failing_annotations: usize,
) -> Option<String> {
    if let Some(e) = checks_error {
        return Some(format!("\n_{}._\n", crate::sanitize::one_line(e)));
    }
    if failing_checks == 0 {
        return None;
    }
    let with = match failing_annotations {
        0 => String::new(),
        n => format!(", with {}", count(n, "annotation", "annotations")),
    };
    Some(format!(
        "\n_The aspects were given the head commit's {}{with}._\n",
        count(failing_checks, "failing check", "failing checks")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, state: CheckState, annotations: Vec<Annotation>) -> CheckRun {
        CheckRun {
            name: name.into(),
            kind: CheckKind::Run,
            state,
            conclusion: Some(state.as_str().into()),
            started_at: None,
            completed_at: None,
            url: None,
            id: None,
            workflow_run_id: None,
            annotations,
            log_tail: None,
        }
    }

    fn note(level: &str, message: &str) -> Annotation {
        Annotation {
            path: "src/lib.rs".into(),
            start_line: 3,
            end_line: 5,
            level: level.into(),
            title: String::new(),
            message: message.into(),
        }
    }

    #[test]
    fn only_failing_checks_are_given_most_severe_annotation_first() {
        let runs = vec![
            run("build", CheckState::Passing, vec![note("warning", "slow")]),
            run(
                "lint",
                CheckState::Failing,
                vec![
                    note("notice", "fyi"),
                    note("failure", "unused variable `x`"),
                ],
            ),
        ];
        let f = select(&runs, 0);
        assert_eq!(
            f.lines,
            vec![
                "- lint (check run, failing)".to_owned(),
                "  - src/lib.rs:3-5 [failure] unused variable `x`".to_owned(),
                "  - src/lib.rs:3-5 [notice] fyi".to_owned(),
            ]
        );
        assert_eq!((f.checks, f.annotations, f.left_out), (1, 2, None));
        assert_eq!(select(&runs[..1], 0), FailingChecks::default());
    }

    #[test]
    fn the_bounds_hold_and_say_what_they_left_out() {
        let many: Vec<Annotation> = (0..30)
            .map(|i| note("failure", &format!("{i} {}", "x".repeat(2_000))))
            .collect();
        let runs: Vec<CheckRun> = (0..15)
            .map(|i| run(&format!("job {i}"), CheckState::Failing, many.clone()))
            .collect();
        let f = select(&runs, 4);
        let chars: usize = f.lines.iter().map(|l| l.chars().count() + 1).sum();
        assert!(chars <= MAX_CHARS, "{chars}");
        assert!(f.checks <= MAX_CHECKS && f.annotations <= MAX_ANNOTATIONS);
        assert!(
            f.lines
                .iter()
                .all(|l| l.chars().count() < MAX_ANNOTATION_CHARS + 100)
        );
        assert!(
            f.lines[1].contains("[cut: 2002 characters]"),
            "{}",
            f.lines[1]
        );
        let left = f.left_out.unwrap();
        assert!(
            left.contains(&format!("{} annotations", 15 * 30 - f.annotations)),
            "{left}"
        );
        assert!(
            left.contains(&format!("{} failing checks", 15 - f.checks)),
            "{left}"
        );
        assert!(
            left.contains("4 checks at the commit beyond the first page"),
            "{left}"
        );
    }

    #[test]
    fn recorded_checks_of_another_head_are_not_given() {
        let mut pr: PrMeta = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo"),
        )
        .unwrap()
        .pr;
        pr.head_sha = "b".repeat(40);
        let runs = vec![run("lint", CheckState::Failing, Vec::new())];
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let at = |head: &str| {
            rt.block_on(read(
                ChecksSource::Recorded {
                    runs: runs.clone(),
                    head: head.to_owned(),
                },
                &pr,
            ))
        };
        assert_eq!(at(&"b".repeat(40)).checks, 1);
        assert_eq!(at(&"a".repeat(40)), FailingChecks::default());
    }

    #[test]
    fn the_context_line_names_the_count_or_the_failure() {
        let context_line = |c: &crate::review::run::RunFacts| {
            context_line(
                c.checks_error.as_deref(),
                c.failing_checks,
                c.failing_annotations,
            )
        };
        let mut c = crate::review::run::RunFacts::default();
        assert_eq!(context_line(&c), None);
        c.failing_checks = 2;
        c.failing_annotations = 1;
        assert_eq!(
            context_line(&c).unwrap(),
            "\n_The aspects were given the head commit's 2 failing checks, with 1 annotation._\n"
        );
        c.checks_error = Some("the head commit's checks could not be read: 502".into());
        assert!(context_line(&c).unwrap().contains("could not be read: 502"));
    }
}
