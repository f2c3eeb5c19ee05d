//! `pr-shepherd files PR`, `pr-shepherd diff PR [PATH…] [--since-last-look]` and
//! `pr-shepherd file viewed|unviewed PR PATH…`: the PR's code, headless.

use super::Context;
use crate::cli::{DiffArgs, FileCommand, FileMarkArgs, FilesArgs, Format};
use crate::code::{SinceLastLook, interdiff};
use crate::error::CliError;
use crate::ledger::{CodeLook, Ledger};
use crate::output::files::{
    DiffEntry, FindingMark, Shown, diff_json, diff_markdown, files_json, files_markdown, gone,
    latest_findings, rows,
};
use crate::pr::{ChangedFile, DEFAULT_IDENTITY, Snapshot};
use crate::sanitize::one_line;
use crate::source::Target;

/// The PR as a command sees it: the snapshot (offline viewed marks applied), whether it is
/// live, the last look at its code and the latest Shepherd findings.
struct Loaded {
    snapshot: Snapshot,
    live: bool,
    ledger: Ledger,
    look: CodeLook,
}

async fn load(ctx: &Context, pr: &str, step: Option<usize>) -> Result<Loaded, CliError> {
    let target = ctx.resolve(Some(pr))?;
    let live = matches!(target, Target::Live(_));
    let mut snapshot = super::load_snapshot(ctx, target, step).await?;
    let coords = snapshot.pr.coords();
    let ledger = ctx.ledger()?;
    if !live {
        // Offline, what `file viewed` put in the outbox is the viewed state.
        ledger.viewed_outbox(&coords)?.apply(&mut snapshot.pr.files);
    }
    let look = ledger.code_look(&coords)?;
    Ok(Loaded {
        snapshot,
        live,
        ledger,
        look,
    })
}

async fn findings(ctx: &Context, l: &Loaded) -> Result<Vec<FindingMark>, CliError> {
    let coords = l.snapshot.pr.coords();
    if l.live {
        let gh = super::live::client(ctx, &coords).await?;
        let me = gh.viewer_login().await?;
        Ok(latest_findings(&l.snapshot, &me, None))
    } else {
        let outbox = l.ledger.outbox(&coords)?;
        Ok(latest_findings(&l.snapshot, DEFAULT_IDENTITY, outbox))
    }
}

pub(super) async fn files(ctx: &Context, args: FilesArgs) -> Result<(), CliError> {
    let l = load(ctx, &args.pr, args.step).await?;
    let marks = findings(ctx, &l).await?;
    let rows = rows(&l.snapshot, &l.look, &marks);
    let gone = gone(&l.snapshot, &l.look);
    let text = match args.format {
        Format::Md => files_markdown(&l.snapshot, &rows, &gone),
        Format::Json => json_text(&files_json(&l.snapshot, &rows, &gone)),
    };
    super::emit_in(args.format, &text)
}

fn json_text(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// The files `paths` name (all when empty), in the PR's order; an unknown path is exit 2 (one
/// the PR had at your last look says so).
fn chosen<'s>(
    snapshot: &'s Snapshot,
    look: &CodeLook,
    paths: &[String],
) -> Result<Vec<&'s ChangedFile>, CliError> {
    let files = &snapshot.pr.files;
    if paths.is_empty() {
        return Ok(files.iter().collect());
    }
    if let Some(unknown) = paths.iter().find(|p| !files.iter().any(|f| &f.path == *p)) {
        let pr = &snapshot.pr;
        let gone = look
            .gone(files)
            .into_iter()
            .find(|g| g.path == *unknown)
            .map_or(String::new(), |g| {
                format!(
                    " ({}: it was at your last look; {})",
                    crate::output::files::NO_LONGER,
                    g.sentence()
                )
            });
        return Err(CliError::usage(format!(
            "{}/{}#{} does not change `{}`{gone}; `pr-shepherd files` lists its files",
            pr.owner,
            pr.repo,
            pr.number,
            one_line(unknown)
        )));
    }
    Ok(files.iter().filter(|f| paths.contains(&f.path)).collect())
}

pub(super) async fn diff(ctx: &Context, args: DiffArgs) -> Result<(), CliError> {
    let l = load(ctx, &args.pr, args.step).await?;
    let coords = l.snapshot.pr.coords();
    let chosen = chosen(&l.snapshot, &l.look, &args.paths)?;
    let entries: Vec<DiffEntry<'_>> = chosen
        .into_iter()
        .map(|file| {
            let since = l.look.since(file);
            let shown = if !args.since_last_look {
                Shown::Patch
            } else {
                match since {
                    SinceLastLook::Unchanged => Shown::Unchanged,
                    SinceLastLook::Changed => {
                        match (
                            l.ledger.last_shown_patch(&coords, &l.look, file),
                            &file.patch,
                        ) {
                            (Some(before), Some(now)) => Shown::Interdiff(interdiff(&before, now)),
                            _ => Shown::PatchNoInterdiff,
                        }
                    }
                    SinceLastLook::New | SinceLastLook::NeverSeen => Shown::Patch,
                }
            };
            DiffEntry {
                file,
                since,
                moved: l.look.lines_moved(file),
                shown,
            }
        })
        .collect();
    // What the last look had and the PR has not now: said with what changed since.
    let gone = if args.since_last_look && args.paths.is_empty() {
        gone(&l.snapshot, &l.look)
    } else {
        Vec::new()
    };
    let text = match args.format {
        Format::Md => diff_markdown(&l.snapshot, &entries, &gone, args.since_last_look),
        Format::Json => json_text(&diff_json(
            &l.snapshot,
            &entries,
            &gone,
            args.since_last_look,
        )),
    };
    // Deliver first (terminal-safe, as every output: a patch is the PR author's text); only
    // what was written and flushed is recorded as seen.
    super::write_safe(&text, super::kind_of(args.format)).map_err(|e| {
        CliError::runtime(format!(
            "could not write the diff ({e}); nothing was recorded as seen"
        ))
    })?;
    let shown: Vec<&ChangedFile> = entries
        .iter()
        .filter(|e| e.shows_current())
        .map(|e| e.file)
        .collect();
    let all: Vec<String> = l.snapshot.pr.files.iter().map(|f| f.path.clone()).collect();
    let now = chrono::Utc::now().timestamp();
    l.ledger
        .record_shown(&coords, &shown, &all, now)
        .map_err(|e| {
            CliError::runtime(format!(
                "the diff was printed, but not recorded as seen: {e}"
            ))
        })?;
    Ok(())
}

pub(super) async fn file(ctx: &Context, cmd: FileCommand) -> Result<(), CliError> {
    let (args, viewed): (FileMarkArgs, bool) = match cmd {
        FileCommand::Viewed(a) => (a, true),
        FileCommand::Unviewed(a) => (a, false),
    };
    let l = load(ctx, &args.pr, args.step).await?;
    let coords = l.snapshot.pr.coords();
    let files = chosen(&l.snapshot, &l.look, &args.paths)?;
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let word = if viewed { "viewed" } else { "not viewed" };
    if l.live {
        let gh = super::live::client(ctx, &coords).await?;
        gh.set_files_viewed(&coords, &paths, viewed)
            .await
            .map_err(|(done, e)| {
                let before = if done == 0 {
                    "nothing was marked".to_owned()
                } else {
                    format!("the first {done} were marked {word}")
                };
                CliError::runtime(format!(
                    "{coords}: marking `{}` {word} failed ({before}): {e}",
                    paths.get(done).map_or(String::new(), |p| one_line(p))
                ))
            })?;
        note_viewed(&l.ledger, &coords, &paths, viewed);
        super::emit(&format!(
            "Marked {} {word} on {coords}: {}\n",
            crate::plural::count(paths.len(), "file"),
            list(&paths)
        ))
    } else {
        let now = chrono::Utc::now().timestamp();
        let keys = files
            .iter()
            .map(|f| (f.path.clone(), crate::code::look::patch_key(f)))
            .collect();
        let (_, path) = l.ledger.push_viewed(&coords, &paths, &keys, viewed, now)?;
        note_viewed(&l.ledger, &coords, &paths, viewed);
        super::emit(&format!(
            "Offline (a fixture): {} marked {word} in the outbox {}: {}\n",
            crate::plural::count(paths.len(), "file"),
            path.display(),
            list(&paths)
        ))
    }
}

/// The marks, noted with the last look (for a file a later push drops); the mark itself is
/// made, so a failure to note it is only said.
fn note_viewed(ledger: &Ledger, coords: &crate::pr::PrCoords, paths: &[String], viewed: bool) {
    if let Err(e) = ledger.note_viewed(coords, paths, viewed) {
        crate::progress::note(&format!(
            "the viewed marks were made, but not noted with your last look: {e}"
        ));
    }
}

fn list(paths: &[String]) -> String {
    paths
        .iter()
        .map(|p| format!("`{}`", one_line(p)))
        .collect::<Vec<_>>()
        .join(", ")
}
