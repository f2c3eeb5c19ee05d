//! The `files` and `diff` printers (Markdown and JSON, docs/json-output.md), and the rows they
//! share with the console: each changed file with its viewed state, the threads and the latest
//! Shepherd findings on it, and what it is since your last look.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::code::{Interdiff, SinceLastLook};
use crate::ledger::{CodeLook, GoneFile};
use crate::pr::{ChangedFile, Item, NoPatch, OutboxComment, Snapshot, ViewedState, files_cut_note};
use crate::review::inputs::prior::{MetaFinding, prior_reviews};
use crate::sanitize::{one_line, sanitize};

/// One finding of the latest Shepherd review, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingMark {
    pub id: String,
    pub file: String,
    pub line: Option<u32>,
    pub severity: String,
    pub message: String,
    /// The finding as the review remembered it (what a dismissal records).
    pub meta: MetaFinding,
}

impl From<MetaFinding> for FindingMark {
    fn from(f: MetaFinding) -> FindingMark {
        let meta = f.clone();
        FindingMark {
            meta,
            id: f.id,
            file: f.file.trim_start_matches("./").to_owned(),
            line: f.line,
            // One severity vocabulary everywhere a finding shows: a model's "major" or "nit"
            // reads as the contract's word, as the review pane and the pending review say it.
            severity: crate::review::findings::Severity::read(&f.severity)
                .map_or(f.severity, |(s, _)| s.as_str().to_owned()),
            message: f.message,
        }
    }
}

/// The findings of the latest Shepherd review on the PR (by `identity`, or the offline outbox
/// comment when there is one: it is the newest).
pub fn latest_findings(
    snapshot: &Snapshot,
    identity: &str,
    outbox: Option<OutboxComment>,
) -> Vec<FindingMark> {
    let mut prior = prior_reviews(snapshot, identity);
    prior.add_outbox(outbox);
    prior
        .latest()
        .and_then(|r| r.meta.as_ref())
        .map(|m| m.findings.iter().cloned().map(FindingMark::from).collect())
        .unwrap_or_default()
}

/// One changed file as `files` lists it.
#[derive(Debug, Clone)]
pub struct FileRow<'a> {
    pub file: &'a ChangedFile,
    pub since: SinceLastLook,
    /// The patch last shown, moved by a rebase (same change, other line numbers).
    pub moved: bool,
    pub threads: usize,
    pub findings: usize,
}

/// The rows of every changed file, in the PR's order.
pub fn rows<'a>(
    snapshot: &'a Snapshot,
    look: &CodeLook,
    findings: &[FindingMark],
) -> Vec<FileRow<'a>> {
    let mut threads: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for i in &snapshot.items {
        if let Item::Thread(t) = i {
            *threads.entry(t.path.as_str()).or_default() += 1;
        }
    }
    let mut per_file: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for f in findings {
        *per_file.entry(f.file.as_str()).or_default() += 1;
    }
    snapshot
        .pr
        .files
        .iter()
        .map(|file| FileRow {
            file,
            since: look.since(file),
            moved: look.lines_moved(file),
            threads: threads.get(file.path.as_str()).copied().unwrap_or(0),
            findings: per_file.get(file.path.as_str()).copied().unwrap_or(0),
        })
        .collect()
}

/// What GitHub dismissed only because a rebase moved the file's lines: the patch you last saw,
/// unchanged but for its hunk line numbers.
pub const DISMISSED_MOVED: &str =
    "dismissed by GitHub (lines moved, code unchanged since your last look)";

/// The viewed state as said to the maintainer: GitHub's word, or [`DISMISSED_MOVED`] when a
/// viewed file was dismissed only because its lines moved (`moved`).
pub fn viewed_words(viewed: ViewedState, moved: bool) -> &'static str {
    match viewed {
        ViewedState::Dismissed if moved => DISMISSED_MOVED,
        v => v.as_str(),
    }
}

/// `no longer in this PR`: a file the PR had at your last look and has not now.
pub const NO_LONGER: &str = "no longer in this PR";

/// The files the PR had at your last look and has not now; none when the file list is not
/// whole (GitHub's limit, a failed fetch): a file missing from it is not known to be gone.
pub fn gone(snapshot: &Snapshot, look: &CodeLook) -> Vec<GoneFile> {
    if !notes(snapshot).is_empty() {
        return Vec::new();
    }
    look.gone(&snapshot.pr.files)
}

fn gone_json(gone: &[GoneFile]) -> Value {
    gone.iter()
        .map(|g| {
            json!({
                "path": g.path,
                "seen": g.seen,
                "viewed": g.viewed,
                "said": format!("{NO_LONGER}; {}", g.sentence()),
            })
        })
        .collect()
}

fn gone_markdown(out: &mut String, gone: &[GoneFile]) {
    if gone.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## No longer in this PR\n\nIn the PR at your last look, not now (a push dropped them):\n"
    );
    for g in gone {
        let _ = writeln!(
            out,
            "- `{}`: {NO_LONGER}; {}",
            md_cell(&g.path),
            g.sentence()
        );
    }
}

/// What the file list cannot say whole: GitHub's file limit, a failed fetch.
pub fn notes(snapshot: &Snapshot) -> Vec<String> {
    let mut out: Vec<String> = files_cut_note(snapshot.pr.files.len(), snapshot.pr.changed_files)
        .into_iter()
        .collect();
    out.extend(
        snapshot
            .incomplete
            .iter()
            .filter(|w| w.contains("changed files"))
            .cloned(),
    );
    out
}

fn pr_json(snapshot: &Snapshot) -> Value {
    let pr = &snapshot.pr;
    json!({
        "owner": pr.owner,
        "repo": pr.repo,
        "number": pr.number,
        "headSha": pr.head_sha,
        "url": pr.url,
    })
}

fn no_patch_json(file: &ChangedFile) -> Value {
    file.no_patch()
        .map_or(Value::Null, |w| Value::String(w.as_str().to_owned()))
}

/// `files --format json`.
pub fn files_json(snapshot: &Snapshot, rows: &[FileRow<'_>], gone: &[GoneFile]) -> Value {
    let files: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "path": r.file.path,
                "previousPath": r.file.previous_path,
                "changeType": r.file.change_type().as_str(),
                "additions": r.file.additions,
                "deletions": r.file.deletions,
                "viewed": r.file.viewed.as_str(),
                "linesMovedOnly": r.moved,
                "viewedSaid": viewed_words(r.file.viewed, r.moved),
                "threads": r.threads,
                "findings": r.findings,
                "changedSinceLastLook": r.since.as_str(),
                "noPatch": no_patch_json(r.file),
            })
        })
        .collect();
    let changed = rows.iter().filter(|r| r.since.needs_look()).count();
    json!({
        "pr": pr_json(snapshot),
        "changedFiles": snapshot.pr.changed_files,
        "listed": rows.len(),
        "changedSinceLastLook": changed,
        "notes": notes(snapshot),
        "files": files,
        "noLongerInPr": gone_json(gone),
    })
}

/// `files` as Markdown: one table row per file.
pub fn files_markdown(snapshot: &Snapshot, rows: &[FileRow<'_>], gone: &[GoneFile]) -> String {
    let pr = &snapshot.pr;
    let mut out = String::new();
    let changed = rows.iter().filter(|r| r.since.needs_look()).count();
    let viewed = rows
        .iter()
        .filter(|r| r.file.viewed == crate::pr::ViewedState::Viewed)
        .count();
    let gone_count = if gone.is_empty() {
        String::new()
    } else {
        format!(", {} {NO_LONGER}", gone.len())
    };
    let _ = writeln!(
        out,
        "# {}/{}#{}: {} files ({} viewed, {} changed since your last look{gone_count})\n",
        sanitize(&pr.owner),
        sanitize(&pr.repo),
        pr.number,
        rows.len(),
        viewed,
        changed
    );
    for n in notes(snapshot) {
        let _ = writeln!(out, "> **Note:** {}\n", one_line(&n));
    }
    if rows.is_empty() {
        out.push_str("No changed files.\n");
        gone_markdown(&mut out, gone);
        return out;
    }
    out.push_str("| file | change | +/- | viewed | threads | findings | since your last look |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for r in rows {
        let name = match &r.file.previous_path {
            Some(p) => format!("`{}` (from `{}`)", md_cell(&r.file.path), md_cell(p)),
            None => format!("`{}`", md_cell(&r.file.path)),
        };
        let change = match r.file.no_patch() {
            Some(w) if w != NoPatch::NoTextChange => {
                format!("{} ({})", r.file.change_type().as_str(), w.as_str())
            }
            _ => r.file.change_type().as_str().to_owned(),
        };
        let _ = writeln!(
            out,
            "| {name} | {change} | +{} -{} | {} | {} | {} | {} |",
            r.file.additions,
            r.file.deletions,
            viewed_words(r.file.viewed, r.moved),
            r.threads,
            r.findings,
            r.since.as_str()
        );
    }
    gone_markdown(&mut out, gone);
    out
}

fn md_cell(text: &str) -> String {
    one_line(text).replace('|', "\\|").replace('`', "'")
}

/// What `diff` shows of one file.
#[derive(Debug, Clone)]
pub enum Shown {
    /// The whole patch.
    Patch,
    /// The interdiff from the patch you saw (`--since-last-look` on a changed file).
    Interdiff(Interdiff),
    /// Changed, but the patch you saw was not kept (over the size bound): the whole patch.
    PatchNoInterdiff,
    /// Unchanged since your last look (`--since-last-look`): not printed.
    Unchanged,
}

/// One file of a `diff`.
#[derive(Debug, Clone)]
pub struct DiffEntry<'a> {
    pub file: &'a ChangedFile,
    pub since: SinceLastLook,
    /// The patch last shown, moved by a rebase (same change, other line numbers).
    pub moved: bool,
    pub shown: Shown,
}

impl DiffEntry<'_> {
    /// Whether printing this entry shows the file's current patch (or names why there is none):
    /// then it is recorded as seen.
    pub fn shows_current(&self) -> bool {
        !matches!(self.shown, Shown::Unchanged)
    }
}

fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// `diff` as Markdown: each file's patch (or interdiff) in a fence long enough for its content.
pub fn diff_markdown(
    snapshot: &Snapshot,
    entries: &[DiffEntry<'_>],
    gone: &[GoneFile],
    since: bool,
) -> String {
    let pr = &snapshot.pr;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}/{}#{}: {}\n",
        sanitize(&pr.owner),
        sanitize(&pr.repo),
        pr.number,
        if since {
            "what changed in the code since your last look"
        } else {
            "diff"
        }
    );
    for n in notes(snapshot) {
        let _ = writeln!(out, "> **Note:** {}\n", one_line(&n));
    }
    for e in entries {
        let f = e.file;
        let title = match &f.previous_path {
            Some(p) => format!("{} (renamed from {})", one_line(&f.path), one_line(p)),
            None => one_line(&f.path),
        };
        let _ = writeln!(
            out,
            "## {title}\n\n{} · +{} -{} · {} · since your last look: {}\n",
            f.change_type().as_str(),
            f.additions,
            f.deletions,
            viewed_words(f.viewed, e.moved),
            e.since.as_str()
        );
        let body = match (&e.shown, &f.patch) {
            (Shown::Unchanged, _) => {
                out.push_str(if e.moved {
                    "_Unchanged since your last look (a rebase moved its lines)._\n\n"
                } else {
                    "_Unchanged since your last look._\n\n"
                });
                continue;
            }
            (_, None) => {
                let why = f.no_patch().map_or("no patch", NoPatch::sentence);
                let _ = writeln!(out, "_No patch: {why}._\n");
                continue;
            }
            (Shown::Interdiff(d), Some(_)) => {
                let (old, new) = d.counts();
                let _ = writeln!(
                    out,
                    "_Interdiff: {} only in the patch you saw (`- `), {new} only in the patch now (`+ `)._\n",
                    crate::output::plural::count(old, "line")
                );
                d.render()
            }
            (Shown::PatchNoInterdiff, Some(p)) => {
                out.push_str(
                    "_Changed; the patch you saw was too large to keep, so here is the whole patch now._\n\n",
                );
                p.clone()
            }
            (Shown::Patch, Some(p)) => p.clone(),
        };
        let body = sanitize(&body);
        let fence = fence_for(&body);
        let _ = writeln!(
            out,
            "{fence}diff\n{}\n{fence}\n",
            body.trim_end_matches('\n')
        );
    }
    if entries.is_empty() && gone.is_empty() {
        out.push_str("No files to show.\n");
    }
    gone_markdown(&mut out, gone);
    out
}

/// `diff --format json`.
pub fn diff_json(
    snapshot: &Snapshot,
    entries: &[DiffEntry<'_>],
    gone: &[GoneFile],
    since: bool,
) -> Value {
    let files: Vec<Value> = entries
        .iter()
        .map(|e| {
            let f = e.file;
            let (patch, interdiff) = match &e.shown {
                Shown::Unchanged => (Value::Null, Value::Null),
                Shown::Patch | Shown::PatchNoInterdiff => (json!(f.patch), Value::Null),
                Shown::Interdiff(d) => {
                    let (old, new) = d.counts();
                    (
                        json!(f.patch),
                        json!({"onlyBefore": old, "onlyNow": new, "text": d.render()}),
                    )
                }
            };
            json!({
                "path": f.path,
                "previousPath": f.previous_path,
                "changeType": f.change_type().as_str(),
                "additions": f.additions,
                "deletions": f.deletions,
                "viewed": f.viewed.as_str(),
                "linesMovedOnly": e.moved,
                "viewedSaid": viewed_words(f.viewed, e.moved),
                "changedSinceLastLook": e.since.as_str(),
                "shown": match e.shown {
                    Shown::Unchanged => "nothing",
                    Shown::Interdiff(_) => "interdiff",
                    Shown::Patch | Shown::PatchNoInterdiff => "patch",
                },
                "patch": patch,
                "noPatch": no_patch_json(f),
                "interdiff": interdiff,
            })
        })
        .collect();
    json!({
        "pr": pr_json(snapshot),
        "sinceLastLook": since,
        "notes": notes(snapshot),
        "files": files,
        "noLongerInPr": gone_json(gone),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_mark_speaks_the_consoles_severity_words() {
        let mark = |severity: &str| {
            FindingMark::from(MetaFinding {
                severity: severity.to_owned(),
                ..MetaFinding::default()
            })
            .severity
        };
        assert_eq!(mark("major"), "important");
        assert_eq!(mark("nit"), "suggestion");
        assert_eq!(mark("Critical"), "critical");
        assert_eq!(mark("odd"), "odd");
    }

    #[test]
    fn a_fence_outgrows_the_backticks_inside() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("+```rust"), "````");
    }
}
