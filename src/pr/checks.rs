//! Pure: what the checks screen and `pr-shepherd checks` both decide about the checks at a PR's
//! head — the order they are listed in (failing first), which annotations are new (their ids
//! against the seen markers), which workflow runs a re-run of the failed jobs touches, and the
//! bounded tail of a job's log (sanitized by the caller: `pr` imports nothing of the crate).

use std::collections::BTreeSet;

use super::{CheckRun, CheckState, log_tail};

/// Bytes of a job's log read at most (its tail is what is kept).
pub const MAX_LOG_BYTES: usize = 4 * 1024 * 1024;

/// The checks in the order they are shown: failing, pending, passing, neutral; in the order
/// given within a state.
pub fn ordered(runs: &[CheckRun]) -> Vec<&CheckRun> {
    let mut out: Vec<&CheckRun> = runs.iter().collect();
    out.sort_by_key(|r| r.state);
    out
}

/// The seen-marker id of every annotation of `runs`, in order.
pub fn annotation_ids(runs: &[CheckRun]) -> Vec<String> {
    runs.iter()
        .flat_map(|r| r.annotations.iter().map(|a| a.id(&r.name)))
        .collect()
}

/// The ids of `ids` that were never shown before (`seen` says which were).
pub fn new_annotations<'a>(
    ids: impl IntoIterator<Item = &'a String>,
    seen: impl Fn(&str) -> bool,
) -> BTreeSet<String> {
    ids.into_iter().filter(|id| !seen(id)).cloned().collect()
}

/// One workflow run whose failed jobs a re-run would start again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RerunTarget {
    /// The Actions workflow run's id.
    pub run: u64,
    /// The names of its failing checks (as given: sanitize before showing).
    pub checks: Vec<String>,
}

/// The workflow runs with failed Actions jobs, in order, once each, with their failing checks.
pub fn rerun_targets(runs: &[CheckRun]) -> Vec<RerunTarget> {
    let mut out: Vec<RerunTarget> = Vec::new();
    for r in runs.iter().filter(|r| r.state == CheckState::Failing) {
        let Some(id) = r.workflow_run_id else {
            continue;
        };
        match out.iter_mut().find(|t| t.run == id) {
            Some(t) => t.checks.push(r.name.clone()),
            None => out.push(RerunTarget {
                run: id,
                checks: vec![r.name.clone()],
            }),
        }
    }
    out
}

/// The tail of a job's log as read (`raw`, any bytes): only its last [`MAX_LOG_BYTES`] are
/// looked at, then [`log_tail`] bounds it in lines and characters; each line goes through
/// `clean` (the caller's sanitizer).
pub fn bounded_log_tail(raw: &[u8], clean: impl Fn(&str) -> String) -> String {
    let start = raw.len().saturating_sub(MAX_LOG_BYTES);
    let text = String::from_utf8_lossy(&raw[start..]);
    log_tail(&text)
        .lines()
        .map(clean)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pr::{Annotation, CheckKind, LOG_TAIL_CHARS, LOG_TAIL_LINES};

    fn run(name: &str, state: CheckState, workflow: Option<u64>) -> CheckRun {
        CheckRun {
            name: name.into(),
            kind: CheckKind::Run,
            state,
            conclusion: None,
            started_at: None,
            completed_at: None,
            url: None,
            id: None,
            workflow_run_id: workflow,
            annotations: Vec::new(),
            log_tail: None,
        }
    }

    #[test]
    fn failing_checks_come_first_keeping_their_order() {
        let runs = vec![
            run("a", CheckState::Passing, None),
            run("b", CheckState::Failing, None),
            run("c", CheckState::Neutral, None),
            run("d", CheckState::Pending, None),
            run("e", CheckState::Failing, None),
        ];
        let names: Vec<&str> = ordered(&runs).iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["b", "e", "d", "a", "c"]);
    }

    #[test]
    fn a_rerun_names_each_workflow_run_once_with_its_failing_checks() {
        let runs = vec![
            run("lint", CheckState::Failing, Some(7)),
            run("build", CheckState::Passing, Some(7)),
            run("test", CheckState::Failing, Some(7)),
            run("docs", CheckState::Failing, Some(9)),
            run("status", CheckState::Failing, None),
        ];
        assert_eq!(
            rerun_targets(&runs),
            vec![
                RerunTarget {
                    run: 7,
                    checks: vec!["lint".into(), "test".into()]
                },
                RerunTarget {
                    run: 9,
                    checks: vec!["docs".into()]
                },
            ]
        );
    }

    #[test]
    fn an_annotation_is_new_until_its_id_is_seen() {
        let mut r = run("test", CheckState::Failing, None);
        let a = Annotation {
            path: "src/a.rs".into(),
            start_line: 3,
            end_line: 3,
            level: "failure".into(),
            title: String::new(),
            message: "boom".into(),
        };
        r.annotations = vec![a.clone(), Annotation { start_line: 4, ..a }];
        let ids = annotation_ids(std::slice::from_ref(&r));
        assert_eq!(ids.len(), 2);
        assert_eq!(new_annotations(&ids, |_| false).len(), 2);
        let first = ids[0].clone();
        let new = new_annotations(&ids, |id| id == first);
        assert_eq!(new.into_iter().collect::<Vec<_>>(), vec![ids[1].clone()]);
    }

    #[test]
    fn a_log_tail_is_bounded_and_each_line_cleaned() {
        let log: String = (0..500)
            .map(|i| format!("2026-11-20T09:16:00.0000000Z line {i} \u{7}\n"))
            .collect();
        let tail = bounded_log_tail(log.as_bytes(), |l| l.replace('\u{7}', "␇"));
        assert_eq!(tail.lines().count(), LOG_TAIL_LINES);
        assert!(tail.chars().count() <= LOG_TAIL_CHARS);
        assert!(tail.ends_with("line 499 ␇"), "{tail}");
        assert!(!tail.contains('\u{7}'));
        // Bytes that are not UTF-8 are no error.
        assert_eq!(
            bounded_log_tail(&[0xff, b'o', b'k'], str::to_owned),
            "\u{fffd}ok"
        );
    }
}
