//! The disk work of the files and diff screens: what they read once when the files are opened
//! (the last look at the code, the patches shown then, the latest findings, the offline viewed
//! marks) and recording the patches a drawn frame showed, as headless `files` and `diff` do.

use std::collections::HashMap;

use crate::code::SinceLastLook;
use crate::ledger::Ledger;
use crate::output::files::latest_findings;
use crate::pr::{ChangedFile, PrCoords, Snapshot};
use crate::tui::app::{Action, CodeLoad};
use crate::tui::session::Session;

/// Everything the files screen reads beside `snapshot`.
pub fn load(ledger: &Ledger, session: &Session, snapshot: &Snapshot) -> Action {
    Action::CodeLoaded(
        read(ledger, session, snapshot)
            .map(Box::new)
            .map_err(|e| format!("{}: {e}", snapshot.pr.coords())),
    )
}

fn read(ledger: &Ledger, session: &Session, snapshot: &Snapshot) -> Result<CodeLoad, String> {
    let coords = snapshot.pr.coords();
    let look = ledger.code_look(&coords).map_err(|e| e.to_string())?;
    let before = snapshot
        .pr
        .files
        .iter()
        .filter(|f| look.since(f) == SinceLastLook::Changed)
        .filter_map(|f| Some((f.path.clone(), ledger.last_shown_patch(&coords, &look, f)?)))
        .collect();
    let mut viewed = HashMap::new();
    let outbox = if session.remote.reads_outbox() {
        // Offline, what `file viewed` (or this screen) put in the outbox is the viewed state.
        let marks = ledger.viewed_outbox(&coords).map_err(|e| e.to_string())?;
        let mut files: Vec<ChangedFile> = snapshot.pr.files.clone();
        marks.apply(&mut files);
        for f in files {
            viewed.insert(f.path, f.viewed);
        }
        ledger.outbox(&coords).map_err(|e| e.to_string())?
    } else {
        None
    };
    let findings = latest_findings(snapshot, session.identity(), outbox);
    Ok(CodeLoad {
        pr: coords,
        look,
        before,
        findings,
        viewed,
    })
}

/// Records `files` as shown at `now`, `all` the PR's paths at this look.
pub fn record_shown(
    ledger: &Ledger,
    pr: &PrCoords,
    files: &[ChangedFile],
    all: &[String],
    now: i64,
) -> Action {
    let shown: Vec<&ChangedFile> = files.iter().collect();
    Action::ShownRecorded {
        paths: files.iter().map(|f| f.path.clone()).collect(),
        result: ledger
            .record_shown(pr, &shown, all, now)
            .map_err(|e| e.to_string()),
    }
}

/// The pending review as the diff shows it under its lines (with the latest findings proposed
/// as drafts, as the pending review screen reads it).
pub fn load_pending(ledger: &Ledger, snapshot: &Snapshot) -> Action {
    Action::DiffPendingLoaded {
        pr: snapshot.pr.coords(),
        result: crate::publish::review::load_with_drafts(ledger, snapshot)
            .map(Box::new)
            .map_err(|e| e.to_string()),
    }
}
