//! `pr-shepherd items`.

use std::io::{IsTerminal, Write};

use super::Context;
use crate::cli::{Format, ItemsArgs};
use crate::error::CliError;
use crate::output::items::{ListingOptions, MarkerPlan, write_json, write_markdown};
use crate::pr::{Item, Snapshot};
use crate::source;
use crate::triage::{Triaged, edited_pairs, marks, triage};

pub(super) async fn run(ctx: &Context, args: ItemsArgs) -> Result<(), CliError> {
    let ledger = ctx.ledger();
    // The derived index of the markers is read while the fixture is parsed (it needs only the
    // PR's coordinates); the markers of the PR's items are looked up once its items are known.
    let (target, early) =
        source::resolve_overlapped(args.pr.as_deref(), ctx.bundled(), |coords| {
            ledger.as_ref().ok().map(|l| l.prefetch_seen(coords))
        })?;
    // Whose `## PR Shepherd Review` comments are Shepherd's own: offline the default identity,
    // live the credentials' account (as `review` and the console decide it).
    // A fixture's later versions of its items: at an earlier step a marker of one of them is
    // newer than what the step shows and is never moved back (the console's `<` rule).
    let mut ahead = crate::tui::app::Ahead::new();
    let (snapshot, own_login) = match target {
        source::Target::Live(coords) => {
            if args.step.is_some() {
                return Err(CliError::usage(
                    "--step applies to fixtures with history, not to a live PR",
                ));
            }
            let gh = super::live::client(ctx, &coords).await?;
            let snapshot = gh.fetch_snapshot(&coords).await?;
            // Without the login the own review lists as an ordinary comment: said, not hidden.
            let login = match gh.viewer_login().await {
                Ok(l) => l,
                Err(e) => {
                    crate::eprintln_clean!(
                        "note: the credentials' login is unknown ({e}); Shepherd's own review is listed as a comment"
                    );
                    String::new()
                }
            };
            (snapshot, login)
        }
        fixture => {
            if let source::Target::Fixture(f) = &fixture {
                ahead = crate::tui::app::later_versions(f, args.step.unwrap_or(0));
            }
            (
                super::load_snapshot(ctx, fixture, args.step).await?,
                crate::pr::DEFAULT_IDENTITY.to_owned(),
            )
        }
    };
    let own = if own_login.is_empty() {
        Default::default()
    } else {
        crate::review::inputs::prior::prior_reviews(&snapshot, &own_login)
            .own
            .into_iter()
            .map(|r| r.comment_id)
            .collect()
    };
    let coords = snapshot.pr.coords();
    let ledger = ledger?;
    let ids = snapshot.items.iter().map(|i| i.id());
    let seen = match early {
        Some((early_coords, Some(prefetch))) if early_coords == coords => prefetch?.finish(ids),
        _ => ledger.load_seen_of(&coords, ids)?,
    };
    let triaged = triage(&snapshot, &seen.markers);
    // What the edited items looked like when last seen (a missing kept text shows no diff).
    let kept = ledger
        .load_kept(&coords, edited_pairs(&snapshot, &triaged, &seen.markers))
        .unwrap_or_default();

    // A state dir that cannot be written to is a disk failure: the listing is still delivered,
    // then the run exits 1.
    let mut unwritable = None;
    let markers = if args.peek {
        MarkerPlan::Peek
    } else if !snapshot.is_complete() {
        MarkerPlan::NotSaved("the snapshot is incomplete".to_owned())
    } else {
        match ledger.check_writable(&coords) {
            Ok(()) => MarkerPlan::Write,
            Err(e) => {
                let why = e.to_string();
                unwritable = Some(why.clone());
                MarkerPlan::NotSaved(why)
            }
        }
    };
    let opts = ListingOptions {
        all: args.all,
        markers: markers.clone(),
        marker_problems: seen
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.path.display(), p.reason))
            .collect(),
        kept,
        own,
    };
    // Deliver first; only a listing that was written and flushed without error marks anything.
    // Terminal-safe on the way out, whatever a field holds (`output::safe`).
    let stdout = super::safe_stdout(super::kind_of(args.format));
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let delivered = match args.format {
        Format::Md => write_markdown(&mut out, &snapshot, &triaged, &opts),
        Format::Json => write_json(&mut out, &snapshot, &triaged, &opts),
    }
    .and_then(|()| out.flush());
    drop(out);
    delivered.map_err(|e| {
        CliError::runtime(format!(
            "could not deliver the listing ({e}); no seen markers were written"
        ))
    })?;

    match markers {
        MarkerPlan::Write => {
            let now = chrono::Utc::now().timestamp();
            // The texts first: one whose marker is then not written is ignored on reading. They
            // are written straight from the snapshot (no copy of every body is held).
            let newer = |id: &str| {
                seen.markers
                    .get(id)
                    .is_some_and(|m| ahead.get(id).is_some_and(|l| l.contains(&m.body_hash)))
            };
            let unkept = ledger
                .keep_items(
                    &coords,
                    to_keep(&snapshot, &triaged).filter(|(i, _)| !newer(i.id())),
                )
                .err();
            let mut items = marks(&snapshot, &triaged);
            items.retain(|(id, _)| !newer(id));
            // The markers loaded above are what each item's marker holds: none is read again.
            let report = ledger.mark_seen_loaded(&coords, &items, &seen, now)?;
            // The head read now: the one `merge` carries by default (a failure to keep it is
            // said by `merge`, which then finds no look; the listing's markers are what count).
            if let Err(e) = ledger.record_looked_head(&coords, &snapshot.pr.head_sha, now) {
                tracing::debug!("the head of {coords} read now was not recorded: {e}");
            }
            // Into a pipe, the reader may have shown less than it took (`| head`): say what
            // was marked, and how to look without marking.
            if !args.quiet && !std::io::stdout().is_terminal() {
                let marked = items.len().saturating_sub(report.failed.len());
                crate::eprintln_clean!("{}", piped_note(marked));
            }
            if !report.failed.is_empty() {
                if let Some(e) = &unkept {
                    crate::eprintln_clean!("error: the texts of seen items were not kept: {e}");
                }
                return Err(unsaved_markers(&report, items.len()));
            }
            // The markers are saved, but what changed in an item later cannot be shown.
            if let Some(e) = unkept {
                return Err(CliError::runtime(format!(
                    "the texts of seen items were not kept (a later edit shows no diff): {e}"
                )));
            }
        }
        MarkerPlan::NotSaved(why) => {
            crate::eprintln_clean!("warning: seen markers were not saved: {why}");
            if let Some(why) = unwritable {
                return Err(CliError::runtime(format!(
                    "no seen markers were saved: {why}"
                )));
            }
        }
        MarkerPlan::Peek => {}
    }
    Ok(())
}

/// The items whose texts are kept with their markers ([`marks`]' items), each with its hash.
fn to_keep<'a>(
    snapshot: &'a Snapshot,
    triaged: &'a [Triaged],
) -> impl Iterator<Item = (&'a Item, &'a str)> {
    triaged
        .iter()
        .filter(|t| t.freshness.needs_attention())
        .filter_map(|t| Some((snapshot.items.get(t.index)?, t.body_hash.as_str())))
}

/// The stderr line of a listing that went into a pipe or file.
fn piped_note(marked: usize) -> String {
    if marked == 0 {
        "note: no items were new or edited; nothing was marked seen".to_owned()
    } else {
        format!(
            "note: marked {} seen (the whole listing went into the pipe; `--peek` looks without marking)",
            crate::output::plural::count(marked, "item")
        )
    }
}

/// How many markers are named one by one on stderr before the rest are counted.
const NAMED_FAILURES: usize = 10;

/// Names (on stderr) the markers that could not be saved and why; the error for exit 1.
fn unsaved_markers(report: &crate::ledger::MarkReport, tried: usize) -> CliError {
    for f in report.failed.iter().take(NAMED_FAILURES) {
        crate::eprintln_clean!("error: seen marker for `{}` not saved: {}", f.id, f.error);
    }
    if report.failed.len() > NAMED_FAILURES {
        crate::eprintln_clean!(
            "error: … and {} more seen markers not saved",
            report.failed.len() - NAMED_FAILURES
        );
    }
    let first = report
        .failed
        .first()
        .map(|f| f.error.to_string())
        .unwrap_or_default();
    CliError::runtime(format!(
        "{} of {tried} seen markers could not be saved: {first}",
        report.failed.len(),
    ))
    .with_hint("their items will surface as new again; free space in the state dir and run again")
}
