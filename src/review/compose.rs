//! The aggregated review, composed from a run (pure): the `## PR Shepherd Review` Markdown and
//! the JSON document of `pr-shepherd review --format json` (docs/json-output.md).

use serde_json::{Value, json};

use super::aspect::Aspect;
use super::findings::{Finding, Severity};
use super::runner::{AspectOutcome, AspectState, ReviewRun};

/// The marker every Shepherd review starts with.
pub use super::prior::REVIEW_HEADER;

fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

fn tokens(a: &AspectOutcome) -> String {
    match (a.input_tokens, a.output_tokens) {
        (None, None) => "–".to_owned(),
        (i, o) => format!(
            "{} / {}",
            i.map_or("?".to_owned(), |v| v.to_string()),
            o.map_or("?".to_owned(), |v| v.to_string())
        ),
    }
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

/// The aggregated Markdown review.
pub fn markdown(run: &ReviewRun) -> String {
    let mut s = String::new();
    s.push_str(REVIEW_HEADER);
    s.push_str("\n\n");
    let ran = run
        .aspects
        .iter()
        .filter(|a| a.state != AspectState::Skipped)
        .count();
    let cut = run
        .aspects
        .iter()
        .any(|a| a.diff.as_ref().is_some_and(|d| d.is_cut()));
    let scope = if cut {
        "the diff, cut to each aspect's budget (see the notes below),"
    } else {
        "the whole diff"
    };
    s.push_str(&format!(
        "**Mode:** full review — {scope} was assessed by {ran} of {} aspects.  \n",
        run.aspects.len()
    ));
    s.push_str(&format!(
        "**PR:** {} at `{}` · **Backend:** {} ({}) · **Run:** `{}` · **Time:** {}\n\n",
        run.pr,
        short_sha(&run.head_sha),
        run.backend,
        run.model,
        run.run_id,
        secs(run.elapsed_ms)
    ));
    let total = run.findings().count();
    s.push_str(&format!(
        "**Findings:** {total} — {} critical · {} important · {} suggestion\n\n",
        run.count(Severity::Critical),
        run.count(Severity::Important),
        run.count(Severity::Suggestion)
    ));

    let not_done: Vec<String> = run
        .aspects
        .iter()
        .filter(|a| a.state != AspectState::Done)
        .map(|a| format!("{} {}", a.aspect, a.state.as_str().replace('_', " ")))
        .collect();
    if run.is_incomplete() || run.cancelled {
        s.push_str(&format!(
            "> **Incomplete review:** {}. Findings of those aspects are missing; this is not a clean bill of health.\n\n",
            not_done.join(", ")
        ));
    } else if !not_done.is_empty() {
        s.push_str(&format!("> Not run: {}.\n\n", not_done.join(", ")));
    }

    s.push_str("| Aspect | State | Findings | Time | Tokens in / out |\n");
    s.push_str("|---|---|---:|---:|---:|\n");
    for a in &run.aspects {
        let n = if a.state == AspectState::Done {
            a.findings.len().to_string()
        } else {
            "–".to_owned()
        };
        s.push_str(&format!(
            "| {} | {} | {n} | {} | {} |\n",
            a.aspect.title(),
            a.state.as_str().replace('_', " "),
            secs(a.elapsed_ms),
            tokens(a)
        ));
    }
    let (ti, to) = run.tokens();
    s.push_str(&format!(
        "| **Total** | | **{total}** | {} | {ti} / {to} |\n",
        secs(run.elapsed_ms)
    ));

    for a in &run.aspects {
        s.push('\n');
        section(&mut s, a);
    }
    s
}

fn section(s: &mut String, a: &AspectOutcome) {
    let title = a.aspect.title();
    let reason = a.error.as_deref().unwrap_or("no reason given");
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
    if a.state == AspectState::Done {
        if a.findings.is_empty() {
            s.push_str("No findings: this aspect ran over the diff and found nothing to report.\n");
        }
        for f in sorted(&a.findings) {
            s.push_str(&format!(
                "- **{}** `{}` {} — {}\n",
                f.severity.title(),
                f.id,
                location(f),
                indent(&f.message)
            ));
            if f.outside_diff {
                s.push_str("  - _Note: this file is not among the PR's changed files._\n");
            }
            if let Some(fix) = &f.suggested_fix {
                s.push_str(&format!("  - Suggested fix: {}\n", indent(fix)));
            }
        }
    }
    if !a.rejected.is_empty() {
        s.push_str(&format!(
            "\n{} finding(s) broke the output contract and were rejected:\n",
            a.rejected.len()
        ));
        for r in &a.rejected {
            s.push_str(&format!("- #{}: {}\n", r.index + 1, r.reason));
        }
    }
    let mut notes = Vec::new();
    if let Some(cut) = a.diff.as_ref().and_then(|d| d.cut_summary()) {
        notes.push(format!("Not everything was reviewed — {cut}."));
    }
    if let Some(n) = &a.note {
        notes.push(format!("{n}."));
    }
    if !notes.is_empty() {
        s.push_str(&format!("\n_{}_\n", notes.join(" ")));
    }
}

fn finding_json(f: &Finding) -> Value {
    json!({
        "id": f.id,
        "aspect": f.aspect,
        "severity": f.severity,
        "file": f.file,
        "line": f.line,
        "message": f.message,
        "suggestedFix": f.suggested_fix,
        "outsideDiff": f.outside_diff,
    })
}

/// The JSON document: aspects with their state and findings, every finding flat, and the body.
pub fn json(run: &ReviewRun, body: &str) -> Value {
    let aspects: Vec<Value> = run
        .aspects
        .iter()
        .map(|a| {
            json!({
                "aspect": a.aspect,
                "state": a.state,
                "error": a.error,
                "findings": sorted(&a.findings).into_iter().map(finding_json).collect::<Vec<_>>(),
                "rejected": a.rejected,
                "rawReply": a.raw_reply,
                "elapsedMs": a.elapsed_ms,
                "inputTokens": a.input_tokens,
                "outputTokens": a.output_tokens,
                "diff": a.diff,
                "note": a.note,
            })
        })
        .collect();
    let mut all: Vec<&Finding> = run.findings().collect();
    all.sort_by_key(|f| {
        (
            f.severity,
            Aspect::ALL.iter().position(|a| *a == f.aspect),
            f.file.clone(),
            f.line,
        )
    });
    json!({
        "runId": run.run_id,
        "pr": run.pr,
        "headSha": run.head_sha,
        "mode": "full",
        "backend": run.backend,
        "model": run.model,
        "startedAt": run.started_at,
        "elapsedMs": run.elapsed_ms,
        "complete": !run.is_incomplete() && !run.cancelled,
        "aspects": aspects,
        "findings": all.into_iter().map(finding_json).collect::<Vec<_>>(),
        "body": body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::findings::finding_id;

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
            input_tokens: Some(1000),
            output_tokens: Some(50),
            diff: None,
            note: None,
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
        perf.input_tokens = None;
        perf.output_tokens = None;
        let mut tests = outcome(Aspect::Tests, AspectState::Skipped);
        tests.error = Some("no changed file matches *.py".into());
        tests.elapsed_ms = 0;
        tests.input_tokens = None;
        tests.output_tokens = None;
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
        }
    }

    #[test]
    fn markdown_states_every_aspect() {
        insta::assert_snapshot!(markdown(&sample()));
    }

    #[test]
    fn json_has_the_documented_shape() {
        let run = sample();
        let v = json(&run, "BODY");
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
