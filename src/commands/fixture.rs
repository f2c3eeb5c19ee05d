//! `pr-shepherd fixture synth|check`.

use crate::cli::FixtureCommand;
use crate::error::CliError;
use crate::source::Fixture;
use crate::source::synth::{SynthSpec, synth};

pub(super) fn run(cmd: FixtureCommand) -> Result<(), CliError> {
    match cmd {
        FixtureCommand::Synth(a) => {
            let fixture = synth(SynthSpec {
                threads: a.threads,
                comments: a.comments,
                reviews: a.reviews,
                replies: a.replies,
                seed: a.seed,
            });
            match a.out {
                Some(path) => {
                    fixture.write(&path)?;
                    crate::eprintln_clean!(
                        "wrote {} items to {}",
                        fixture.items.len(),
                        path.display()
                    );
                }
                None => super::emit_json(&(fixture.to_json_pretty() + "\n"))?,
            }
            Ok(())
        }
        FixtureCommand::Check { file } => {
            let f = Fixture::load(&file)?;
            let problems = patch_problems(&f);
            if !problems.is_empty() {
                return Err(CliError::usage(format!(
                    "{} disagrees with its own patches:\n{}",
                    file.display(),
                    problems
                        .iter()
                        .map(|p| format!("  - {p}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                )));
            }
            super::emit(&format!(
                "ok: {} — {}/{}#{}, {}, {}, {}\n",
                file.display(),
                f.pr.owner,
                f.pr.repo,
                f.pr.number,
                crate::plural::count(f.items.len(), "item"),
                crate::plural::count(f.steps.len(), "step"),
                crate::plural::count(f.llm.answers.len(), "recorded LLM answer")
            ))
        }
    }
}

/// Where a fixture's files disagree with their own patches, at every step: a hunk header whose
/// counts are not its lines', or a file's additions and deletions that are not its patch's.
fn patch_problems(f: &Fixture) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for step in 0..=f.steps.len() {
        let Ok(snap) = f.snapshot_at(step) else {
            continue;
        };
        for file in &snap.pr.files {
            let Some(patch) = file.patch.as_deref() else {
                continue;
            };
            let at = if step == 0 {
                format!("`{}`", file.path)
            } else {
                format!("`{}` (step {step})", file.path)
            };
            let (hunks, added, removed) = hunk_problems(patch);
            for h in hunks {
                let p = format!("{at}: {h}");
                if !out.contains(&p) {
                    out.push(p);
                }
            }
            if (file.additions, file.deletions) != (added, removed) {
                let p = format!(
                    "{at}: says +{} −{}, its patch adds {added} and removes {removed} lines",
                    file.additions, file.deletions
                );
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Each hunk of `patch` whose header's old and new line counts are not those of its lines, and
/// the lines the patch adds and removes. A last empty line (the patch ending in a newline) is
/// not a line of the hunk.
fn hunk_problems(patch: &str) -> (Vec<String>, u32, u32) {
    let mut problems = Vec::new();
    let (mut added, mut removed) = (0, 0);
    // (header, old and new lengths it says, old and new lines counted)
    let mut hunk: Option<(String, u32, u32, u32, u32)> = None;
    let close = |h: Option<(String, u32, u32, u32, u32)>, problems: &mut Vec<String>| {
        if let Some((header, old_len, new_len, old, new)) = h
            && (old_len, new_len) != (old, new)
        {
            problems.push(format!(
                "hunk `{header}` says {old_len} old and {new_len} new lines, it has {old} and {new}"
            ));
        }
    };
    let body = patch.strip_suffix('\n').unwrap_or(patch);
    for raw in body.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.starts_with("@@") {
            close(hunk.take(), &mut problems);
            let header = raw
                .find(" @@")
                .map_or(raw, |end| &raw[..end + 3])
                .to_owned();
            let lens = header_lengths(&header);
            match lens {
                Some((o, n)) => hunk = Some((crate::sanitize::one_line(&header), o, n, 0, 0)),
                None => problems.push(format!(
                    "`{}` is not a hunk header",
                    crate::sanitize::one_line(raw)
                )),
            }
            continue;
        }
        let Some(h) = hunk.as_mut() else { continue };
        match raw.chars().next() {
            Some('+') => {
                h.4 += 1;
                added += 1;
            }
            Some('-') => {
                h.3 += 1;
                removed += 1;
            }
            Some('\\') => {}
            _ => {
                h.3 += 1;
                h.4 += 1;
            }
        }
    }
    close(hunk.take(), &mut problems);
    (problems, added, removed)
}

/// The old and new lengths a `@@ -a,b +c,d @@` header says (a length left out is 1).
fn header_lengths(header: &str) -> Option<(u32, u32)> {
    let inner = header.strip_prefix("@@ ")?.split(" @@").next()?;
    let mut parts = inner.split(' ');
    let len = |p: Option<&str>, sign: char| -> Option<u32> {
        let range = p?.strip_prefix(sign)?;
        match range.split_once(',') {
            Some((start, len)) => {
                start.parse::<u32>().ok()?;
                len.parse().ok()
            }
            None => range.parse::<u32>().ok().map(|_| 1),
        }
    };
    Some((len(parts.next(), '-')?, len(parts.next(), '+')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hunk_header_is_checked_against_its_lines() {
        let ok = "@@ -1,3 +1,4 @@ fn f()\n a\n-b\n+B\n+C\n c";
        assert_eq!(hunk_problems(ok), (Vec::new(), 2, 1));
        assert_eq!(hunk_problems(&format!("{ok}\n")).0, Vec::<String>::new());
        let wrong = "@@ -1,9 +1,14 @@\n a\n-b\n+B\n c";
        assert_eq!(
            hunk_problems(wrong).0,
            ["hunk `@@ -1,9 +1,14 @@` says 9 old and 14 new lines, it has 3 and 3"]
        );
        let two = "@@ -1 +1 @@\n-a\n+b\n@@ -10,2 +10,2 @@\n x\n y\n\\ No newline at end of file";
        assert_eq!(hunk_problems(two), (Vec::new(), 1, 1));
        assert_eq!(header_lengths("@@ -0,0 +1,58 @@"), Some((0, 58)));
        assert_eq!(header_lengths("@@ nonsense @@"), None);
    }
}
