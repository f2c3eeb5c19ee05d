//! `pr-shepherd items`.

use std::io::Write;

use super::Context;
use crate::cli::{Format, ItemsArgs};
use crate::error::CliError;
use crate::output::items::{ListingOptions, MarkerPlan, markdown, write_json};
use crate::source;
use crate::triage::{edited_pairs, kept_texts, marks, triage};

pub(super) async fn run(ctx: &Context, args: ItemsArgs) -> Result<(), CliError> {
    let ledger = ctx.ledger();
    // The markers are read while the fixture is parsed (they need only the PR's coordinates).
    let (target, early) = source::resolve_overlapped(args.pr.as_deref(), |coords| {
        ledger.as_ref().ok().map(|l| l.load_seen(coords))
    })?;
    let snapshot = super::load_snapshot(ctx, target, args.step).await?;
    let coords = snapshot.pr.coords();
    let ledger = ledger?;
    let seen = match early {
        Some((early_coords, Some(seen))) if early_coords == coords => seen?,
        _ => ledger.load_seen(&coords)?,
    };
    let triaged = triage(&snapshot, &seen.markers);
    // What the edited items looked like when last seen (a missing kept text shows no diff).
    let kept = ledger
        .load_kept(&coords, edited_pairs(&snapshot, &triaged, &seen.markers))
        .unwrap_or_default();

    let markers = if args.peek {
        MarkerPlan::Peek
    } else if !snapshot.is_complete() {
        MarkerPlan::NotSaved("the snapshot is incomplete".to_owned())
    } else {
        match ledger.check_writable(&coords) {
            Ok(()) => MarkerPlan::Write,
            Err(e) => MarkerPlan::NotSaved(e.to_string()),
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
    };
    // Deliver first; only a listing that was written and flushed without error marks anything.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let delivered = match args.format {
        Format::Md => out.write_all(markdown(&snapshot, &triaged, &opts).as_bytes()),
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
            // The texts first: one whose marker is then not written is ignored on reading.
            if let Err(e) = ledger.keep_texts(&coords, &kept_texts(&snapshot, &triaged)) {
                eprintln!("warning: the texts of seen items were not kept: {e}");
            }
            if let Err(e) = ledger.mark_seen(&coords, &marks(&snapshot, &triaged), now) {
                eprintln!("warning: seen markers were not saved: {e}");
            }
        }
        MarkerPlan::NotSaved(why) => eprintln!("warning: seen markers were not saved: {why}"),
        MarkerPlan::Peek => {}
    }
    Ok(())
}
