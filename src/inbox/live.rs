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
    let listed = list_prs(gh, specs).await?;
    let teams = teams_for(gh, &listed, own).await?;
    let mut rows = pending_rows(listed, own, &teams, cfg);
    sort_rows(&mut rows, SortBy::Updated);
    Ok(rows)
}

/// The open PRs of the specs, each once.
async fn list_prs(gh: &GitHub, specs: &[ListSpec]) -> Result<Vec<OpenPr>, GitHubError> {
    let mut listed = Vec::new();
    let mut seen: HashSet<PrCoords> = HashSet::new();
    for spec in specs {
        for pr in batch::list_open(gh, spec).await? {
            if seen.insert(pr.meta.coords()) {
                listed.push(pr);
            }
        }
    }
    Ok(listed)
}

/// The teams of `own`, asked only when some listed PR requests a team's review.
async fn teams_for<'a>(
    gh: &GitHub,
    listed: impl IntoIterator<Item = &'a OpenPr>,
    own: &str,
) -> Result<Vec<String>, GitHubError> {
    let wants_teams = listed.into_iter().any(|p| {
        p.dash
            .review_requests
            .iter()
            .any(|r| matches!(r, Reviewer::Team { .. }))
    });
    if wants_teams {
        batch::viewer_teams(gh, own).await
    } else {
        Ok(Vec::new())
    }
}

/// The listed PRs as rows, counts still to come.
fn pending_rows(listed: Vec<OpenPr>, own: &str, teams: &[String], cfg: &GateConfig) -> Vec<Row> {
    listed
        .into_iter()
        .map(
            |OpenPr {
                 meta,
                 updated_at,
                 dash,
             }| {
                let open = Opener::Live(meta.coords());
                let l = Listed::from_meta(&meta, updated_at, open).with_dash(dash, own, teams);
                pending_row(l, &meta, cfg)
            },
        )
        .collect()
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
                        requested_team: old.listed.requested_team.clone(),
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
    progress.line(&format!(
        "{source}: {} listed",
        crate::plural::count(rows.len(), "open PR")
    ));
    count_all(gh, &mut rows, ledger, own, cfg, progress).await?;
    sort_rows(&mut rows, SortBy::Attention);
    Ok(Inbox {
        source,
        rows,
        problems: Vec::new(),
    })
}

/// Counts `rows` in place, a progress line per PR; the credentials' failure is the error.
async fn count_all(
    gh: &GitHub,
    rows: &mut [Row],
    ledger: &Ledger,
    own: &str,
    cfg: &GateConfig,
    progress: &Progress,
) -> Result<(), GitHubError> {
    let counter = progress.counter(Some(rows.len()));
    let mut counted: Vec<(usize, Row)> = Vec::with_capacity(rows.len());
    let fatal = count(gh, rows, ledger, own, cfg, |i, r| {
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
    Ok(())
}

/// One section of a sectioned inbox: its title, what it lists, how its rows are ordered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: String,
    pub specs: Vec<ListSpec>,
    pub sort: SortBy,
}

impl Section {
    /// The default sections (see [`super::sections`]), as searches.
    pub fn defaults() -> Vec<Section> {
        super::sections::DEFAULT_SECTIONS
            .iter()
            .map(|s| Section {
                title: s.title.to_owned(),
                specs: vec![ListSpec::Search(s.query.to_owned())],
                sort: s.sort,
            })
            .collect()
    }
}

/// Several sections together, one inbox each, in their order: every section listed, then the
/// viewer's teams asked at most once, then every PR counted once however many sections list it
/// (its row is the same in each). A section whose search fails is that section's problem (its
/// inbox has no rows and says why); the others still list. A failure of the credentials fails
/// the whole, as on the first request.
pub async fn load_sections(
    gh: &GitHub,
    sections: &[Section],
    ledger: &Ledger,
    own: &str,
    cfg: &GateConfig,
    progress: &Progress,
) -> Result<Vec<Inbox>, GitHubError> {
    let mut listed: Vec<Result<Vec<OpenPr>, String>> = Vec::with_capacity(sections.len());
    for s in sections {
        match list_prs(gh, &s.specs).await {
            Ok(prs) => {
                progress.line(&format!(
                    "{}: {} listed",
                    s.title,
                    crate::plural::count(prs.len(), "open PR")
                ));
                listed.push(Ok(prs));
            }
            Err(e) if e.is_credentials() => return Err(e),
            Err(e) => {
                progress.line(&format!("{}: not listed: {e}", s.title));
                listed.push(Err(e.to_string()));
            }
        }
    }
    let teams = teams_for(gh, listed.iter().flatten().flatten(), own).await?;
    // Every PR once, in the order first listed.
    let mut unique: Vec<OpenPr> = Vec::new();
    let mut seen: HashSet<PrCoords> = HashSet::new();
    for pr in listed.iter().flatten().flatten() {
        if seen.insert(pr.meta.coords()) {
            unique.push(pr.clone());
        }
    }
    let mut rows = pending_rows(unique, own, &teams, cfg);
    count_all(gh, &mut rows, ledger, own, cfg, progress).await?;
    Ok(sections
        .iter()
        .zip(listed)
        .map(|(s, l)| {
            let (mut rows, problems) = match l {
                Ok(prs) => (
                    prs.iter()
                        .filter_map(|p| {
                            let c = p.meta.coords();
                            rows.iter().find(|r| r.listed.coords == c).cloned()
                        })
                        .collect::<Vec<Row>>(),
                    Vec::new(),
                ),
                Err(why) => (Vec::new(), vec![why]),
            };
            sort_rows(&mut rows, s.sort);
            Inbox {
                source: s.title.clone(),
                rows,
                problems,
            }
        })
        .collect())
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
