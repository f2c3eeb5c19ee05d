//! The live inbox: the open PRs of repositories or a search (`source::github::batch`), each
//! counted against the ledger like the offline rows.

use std::collections::HashSet;

use super::{
    Counts, Inbox, Listed, Opener, Row, ShepherdView, SortBy, pending_row, row_of, sort_rows,
};
use crate::ledger::Ledger;
use crate::policy::GateConfig;
use crate::pr::{PrCoords, Reviewer};
use crate::progress::Progress;
use crate::source::github::batch::{self, ListSpec, OpenPr};
use crate::source::github::{GitHub, GitHubError};

/// The rows of the listed PRs, counts still to come (what the console shows first). A PR named
/// by two specs is listed once.
///
/// `own` is the login whose review requests count as "you"; its teams are asked once, only
/// when a listed PR requests a team's review.
pub async fn list(
    gh: &GitHub,
    specs: &[ListSpec],
    own: &str,
    cfg: &GateConfig,
) -> Result<Vec<Row>, GitHubError> {
    let mut listed = Vec::new();
    let mut seen: HashSet<PrCoords> = HashSet::new();
    for spec in specs {
        for pr in batch::list_open(gh, spec).await? {
            if seen.insert(pr.meta.coords()) {
                listed.push(pr);
            }
        }
    }
    let wants_teams = listed.iter().any(|p| {
        p.dash
            .review_requests
            .iter()
            .any(|r| matches!(r, Reviewer::Team { .. }))
    });
    let teams = if wants_teams {
        batch::viewer_teams(gh, own).await?
    } else {
        Vec::new()
    };
    let mut rows = Vec::with_capacity(listed.len());
    for OpenPr {
        meta,
        updated_at,
        dash,
    } in listed
    {
        let open = Opener::Live(meta.coords());
        let l = Listed::from_meta(&meta, updated_at, open).with_dash(dash, own, &teams);
        rows.push(pending_row(l, &meta, cfg));
    }
    sort_rows(&mut rows, SortBy::Updated);
    Ok(rows)
}

/// Counts every row: the PRs' items in batches, each batch's rows handed to `progress` (row
/// index, finished row) as it arrives. Nothing is written to the ledger. Returns the first
/// failure of the credentials (a 401 on any page of any PR), which no row can survive: the
/// caller fails with it, as it would on the list's first request.
pub async fn count(
    gh: &GitHub,
    rows: &[Row],
    ledger: &Ledger,
    own: &str,
    cfg: &GateConfig,
    mut progress: impl FnMut(usize, Row),
) -> Option<GitHubError> {
    let coords: Vec<PrCoords> = rows.iter().map(|r| r.listed.coords.clone()).collect();
    let mut fatal: Option<GitHubError> = None;
    batch::fetch_many(gh, coords, |done| {
        for (c, result) in done {
            if let Err(e) = &result
                && e.is_credentials()
                && fatal.is_none()
            {
                fatal = Some(GitHubError::Auth(e.to_string()));
            }
            let Some(i) = rows.iter().position(|r| r.listed.coords == c) else {
                continue;
            };
            let old = &rows[i];
            let row = match result {
                Ok(snapshot) => {
                    let listed = Listed {
                        updated_at: old.listed.updated_at,
                        dash: old.listed.dash.clone(),
                        requested: old.listed.requested,
                        ..Listed::from_meta(&snapshot.pr, None, old.listed.open.clone())
                    };
                    row_of(&snapshot, listed, ledger, own, None, cfg)
                }
                Err(e) => Row {
                    items: Counts::Failed(e.to_string()),
                    shepherd: ShepherdView::unknown(),
                    ..old.clone()
                },
            };
            progress(i, row);
        }
    })
    .await;
    fatal
}

/// A whole live inbox: listed, then counted; a progress line for the list and one per PR
/// counted (shown only when `progress` is enabled).
pub async fn load(
    gh: &GitHub,
    source: String,
    specs: &[ListSpec],
    ledger: &Ledger,
    own: &str,
    cfg: &GateConfig,
    progress: &Progress,
) -> Result<Inbox, GitHubError> {
    let mut rows = list(gh, specs, own, cfg).await?;
    progress.line(&format!("{source}: {} open PR(s) listed", rows.len()));
    let counter = progress.counter(Some(rows.len()));
    let mut counted: Vec<(usize, Row)> = Vec::with_capacity(rows.len());
    let fatal = count(gh, &rows, ledger, own, cfg, |i, r| {
        counter.tick(&progress_text(&r));
        counted.push((i, r));
    })
    .await;
    if let Some(e) = fatal {
        return Err(e);
    }
    for (i, r) in counted {
        if let Some(slot) = rows.get_mut(i) {
            *slot = r;
        }
    }
    sort_rows(&mut rows, SortBy::Attention);
    Ok(Inbox {
        source,
        rows,
        problems: Vec::new(),
    })
}

/// One PR's progress line: `owner/repo#N: 3 new, 1 edited of 12`, or why it was not counted.
fn progress_text(r: &Row) -> String {
    match &r.items {
        Counts::Counted { total, new, edited } => {
            format!("{}: {new} new, {edited} edited of {total}", r.listed.coords)
        }
        Counts::Failed(why) => format!("{}: not counted: {why}", r.listed.coords),
        Counts::Loading => format!("{}: counting", r.listed.coords),
    }
}
