//! The inbox: the open PRs of a triage session, each with what is unseen in it, the
//! state of Shepherd's own review and the gate decision, computed exactly as `items`, `event`
//! and `watch` compute them — and without leaving a trace: nothing is marked seen and no file of
//! the state dir is written (markers are read with [`Ledger::peek_seen_of`]).
//!
//! - this file: the rows and how one PR becomes one row (counts, gate, Shepherd state), the
//!   attention order, the offline sources (a directory of fixtures, the bundled fixtures);
//! - `render.rs`: the Markdown and JSON of `pr-shepherd inbox`;
//! - `live.rs`: the live sources (repositories, a search) over the batched GitHub fetch;
//! - `sections.rs`: the default sections ("who is waiting on me") shown live when none are
//!   configured.
pub mod columns;
pub mod live;
pub mod render;
pub mod sections;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::ledger::Ledger;
use crate::policy::{self, GateConfig, Invocation, Membership};
use crate::pr::{OutboxComment, PrCoords, PrMeta, Snapshot};
use crate::review::inputs::prior::prior_reviews;
use crate::source::{Fixture, FixtureError};
use crate::triage::{counts, triage};

/// The fixtures shown by `pr-shepherd` / `pr-shepherd inbox` without an argument and without
/// configured sections (see [`crate::source::BUNDLED`]).
pub use crate::source::BUNDLED;

/// Offline, the account whose `## PR Shepherd Review` comments are Shepherd's (as `review`).
pub use crate::pr::DEFAULT_IDENTITY;

/// How a row's PR is opened in the PR screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opener {
    /// A fixture file.
    File(PathBuf),
    /// One of [`BUNDLED`], by index.
    Bundled(usize),
    /// A live PR.
    Live(PrCoords),
}

impl Opener {
    /// The fixture behind this opener, parsed (`None` for a live PR).
    pub fn fixture(&self) -> Option<Result<Fixture, FixtureError>> {
        match self {
            Opener::File(p) => Some(Fixture::load(p)),
            Opener::Bundled(i) => {
                let (name, text) = BUNDLED.get(*i).copied().unwrap_or(BUNDLED[0]);
                Some(Fixture::parse(text, Path::new(name)))
            }
            Opener::Live(_) => None,
        }
    }
}

/// What the list itself says about a PR (known before its items are counted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub coords: PrCoords,
    pub title: String,
    pub author: crate::pr::Author,
    pub url: String,
    pub draft: bool,
    pub labels: Vec<String>,
    pub head_sha: String,
    pub updated_at: Option<DateTime<Utc>>,
    pub open: Opener,
    /// Checks, review decision and requests, size: what the list query or the fixture says.
    pub dash: crate::pr::Dash,
    /// Whether your review is requested, read off `dash` for the inbox's identity.
    pub requested: crate::pr::ReviewRequested,
    /// The team (`org/slug`) your review is requested through, when [`Listed::requested`] is
    /// `Team`.
    pub requested_team: Option<String>,
}

impl Listed {
    pub fn from_meta(pr: &PrMeta, updated_at: Option<DateTime<Utc>>, open: Opener) -> Listed {
        Listed {
            coords: pr.coords(),
            title: pr.title.clone(),
            author: pr.author.clone(),
            url: pr.url.clone(),
            draft: pr.draft,
            labels: pr.labels.clone(),
            head_sha: pr.head_sha.clone(),
            updated_at,
            open,
            dash: crate::pr::Dash::default(),
            requested: crate::pr::ReviewRequested::None,
            requested_team: None,
        }
    }

    /// With the dashboard's data, your review request read for `own` and `teams`.
    pub fn with_dash(mut self, dash: crate::pr::Dash, own: &str, teams: &[String]) -> Listed {
        self.requested = crate::pr::ReviewRequested::of(&dash.review_requests, own, teams);
        self.requested_team =
            crate::pr::ReviewRequested::team_of(&dash.review_requests, own, teams);
        self.dash = dash;
        self
    }
}

/// The item counts of a PR, as `items` would list them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counts {
    /// Not counted yet (the console fills counts in the background).
    Loading,
    Counted {
        total: usize,
        new: usize,
        edited: usize,
    },
    /// Could not be counted (a page failed for good, the fixture step is bad…): never a zero.
    Failed(String),
}

impl Counts {
    /// New plus edited, when counted.
    pub fn unseen(&self) -> Option<usize> {
        match self {
            Counts::Counted { new, edited, .. } => Some(new + edited),
            _ => None,
        }
    }
}

/// `gate.review`: the decision `event`/`watch` take for this PR, named by what decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GateReview {
    /// `no-shepherd`: never reviewed automatically, never posted.
    Refused,
    /// `pause-shepherd`: automatic actions paused.
    Paused,
    /// A community PR without the opt-in label.
    NeedsLabel,
    Allowed,
}

impl GateReview {
    pub fn as_str(self) -> &'static str {
        match self {
            GateReview::Refused => "refused",
            GateReview::Paused => "paused",
            GateReview::NeedsLabel => "needs-label",
            GateReview::Allowed => "allowed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateView {
    pub review: GateReview,
    pub reason: String,
}

/// `shepherd.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShepherdState {
    /// The credentials' own Shepherd review was made at the current head.
    Current,
    /// It exists, for an older head (or its head cannot be read).
    Stale,
    None,
    /// The PR's comments could not all be read, so it cannot be told.
    Unknown,
}

impl ShepherdState {
    pub fn as_str(self) -> &'static str {
        match self {
            ShepherdState::Current => "current",
            ShepherdState::Stale => "stale",
            ShepherdState::None => "none",
            ShepherdState::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShepherdView {
    pub state: ShepherdState,
    pub reviewed_sha: Option<String>,
    /// The database id of the comment (from its URL), when it has one.
    pub comment_id: Option<u64>,
}

impl ShepherdView {
    pub fn unknown() -> ShepherdView {
        ShepherdView {
            state: ShepherdState::Unknown,
            reviewed_sha: None,
            comment_id: None,
        }
    }
}

/// One PR of the inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub listed: Listed,
    /// The author's association makes it a team PR (the gates' rule).
    pub team: bool,
    pub gate: GateView,
    pub items: Counts,
    pub shepherd: ShepherdView,
    /// How many files are new or changed since your last look at the PR's code; `None` when
    /// the PR's files are not known here (the live inbox does not fetch patches) or nothing of
    /// its code was looked at yet.
    pub files_changed: Option<usize>,
}

/// What the inbox shows: its rows, and what could not be listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbox {
    /// What was listed: `acme/widgets`, the query, a directory, "bundled fixtures".
    pub source: String,
    pub rows: Vec<Row>,
    /// Entries that could not be listed at all (a fixture that does not parse), with why.
    pub problems: Vec<String>,
}

impl Inbox {
    /// False when any PR's counts are missing or anything could not be listed.
    pub fn complete(&self) -> bool {
        self.problems.is_empty()
            && self
                .rows
                .iter()
                .all(|r| matches!(r.items, Counts::Counted { .. }))
    }
}

/// Team or not, and the gate decision of an automatic review (`event`, `watch`), from the PR's
/// labels and its author's association. An association that does not settle membership counts
/// as community (the inbox does not ask the organization, see docs/console.md).
pub fn gate_of(pr: &PrMeta, cfg: &GateConfig) -> (bool, GateView) {
    let team = policy::membership(pr.author.association, cfg) == Membership::Team;
    let decision = policy::gate(pr, Some(team), cfg, Invocation::Automatic);
    let has = |l: &str| pr.labels.iter().any(|x| x.eq_ignore_ascii_case(l));
    // The decision is the policy's; only its name is read off the labels it looked at, in the
    // policy's own precedence.
    let review = if decision.review {
        GateReview::Allowed
    } else if has(&cfg.never_label) {
        GateReview::Refused
    } else if has(&cfg.pause_label) {
        GateReview::Paused
    } else {
        GateReview::NeedsLabel
    };
    (
        team,
        GateView {
            review,
            reason: decision.reason,
        },
    )
}

/// A row with its counts still to come.
pub fn pending_row(listed: Listed, meta: &PrMeta, cfg: &GateConfig) -> Row {
    let (team, gate) = gate_of(meta, cfg);
    Row {
        listed,
        team,
        gate,
        items: Counts::Loading,
        shepherd: ShepherdView::unknown(),
        files_changed: None,
    }
}

/// The counts and Shepherd state of one snapshot, read against the ledger without writing to
/// it. `outbox` is the offline stand-in for the posted Shepherd comment.
pub fn assess(
    snapshot: &Snapshot,
    ledger: &Ledger,
    own: &str,
    outbox: Option<OutboxComment>,
) -> (Counts, ShepherdView) {
    if !snapshot.is_complete() {
        return (
            Counts::Failed(format!("incomplete: {}", snapshot.incomplete.join("; "))),
            ShepherdView::unknown(),
        );
    }
    let mut prior = prior_reviews(snapshot, own);
    // Shepherd's own review comments are the maintainer's own work: never new or edited (as
    // `items` lists them).
    let own_ids: std::collections::HashSet<&str> =
        prior.own.iter().map(|r| r.comment_id.as_str()).collect();
    let ids = snapshot.items.iter().map(|i| i.id());
    let counts = match ledger.peek_seen_of(&snapshot.pr.coords(), ids) {
        Ok(seen) => {
            let mut triaged = triage(snapshot, &seen.markers);
            triaged.retain(|t| {
                snapshot
                    .items
                    .get(t.index)
                    .is_none_or(|i| !own_ids.contains(i.id()))
            });
            let (new, edited, _) = counts(&triaged);
            Counts::Counted {
                total: snapshot.items.len(),
                new,
                edited,
            }
        }
        Err(e) => Counts::Failed(format!("seen markers: {e}")),
    };
    prior.add_outbox(outbox);
    let shepherd = match prior.latest() {
        None => ShepherdView {
            state: ShepherdState::None,
            reviewed_sha: None,
            comment_id: None,
        },
        Some(r) => {
            let sha = r.meta.as_ref().map(|m| m.head_sha.clone());
            ShepherdView {
                state: if sha.as_deref() == Some(snapshot.pr.head_sha.as_str()) {
                    ShepherdState::Current
                } else {
                    ShepherdState::Stale
                },
                reviewed_sha: sha,
                comment_id: r
                    .url
                    .rsplit_once("#issuecomment-")
                    .and_then(|(_, id)| id.parse().ok()),
            }
        }
    };
    (counts, shepherd)
}

/// The whole row of a snapshot.
pub fn row_of(
    snapshot: &Snapshot,
    listed: Listed,
    ledger: &Ledger,
    own: &str,
    outbox: Option<OutboxComment>,
    cfg: &GateConfig,
) -> Row {
    let mut row = pending_row(listed, &snapshot.pr, cfg);
    let (items, shepherd) = assess(snapshot, ledger, own, outbox);
    row.items = items;
    row.shepherd = shepherd;
    row.files_changed = files_changed(snapshot, ledger);
    row
}

/// [`Row::files_changed`] of a snapshot, read from the ledger without writing.
pub fn files_changed(snapshot: &Snapshot, ledger: &Ledger) -> Option<usize> {
    if snapshot.pr.files.is_empty() {
        return None;
    }
    let look = ledger.code_look(&snapshot.pr.coords()).ok()?;
    (!look.files.is_empty()).then(|| look.changed_count(&snapshot.pr.files))
}

/// The newest activity on a snapshot (creation or edit of any item).
pub fn last_activity(snapshot: &Snapshot) -> Option<DateTime<Utc>> {
    snapshot
        .items
        .iter()
        .filter_map(crate::pr::Item::last_activity_at)
        .max()
}

/// Whether a row needs the maintainer: unseen items, counts that failed, or a missing or stale
/// Shepherd review where the gates allow one.
pub fn needs_attention(row: &Row) -> bool {
    match &row.items {
        Counts::Failed(_) => return true,
        Counts::Counted { new, edited, .. } if new + edited > 0 => return true,
        _ => {}
    }
    row.gate.review == GateReview::Allowed
        && matches!(
            row.shepherd.state,
            ShepherdState::None | ShepherdState::Stale
        )
}

/// How the rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Those that need attention first (then most recently updated).
    #[default]
    Attention,
    /// Most recently updated first.
    Updated,
    /// Most unseen (new + edited) items first.
    Unseen,
}

impl SortBy {
    pub fn next(self) -> SortBy {
        match self {
            SortBy::Attention => SortBy::Updated,
            SortBy::Updated => SortBy::Unseen,
            SortBy::Unseen => SortBy::Attention,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SortBy::Attention => "attention",
            SortBy::Updated => "updated",
            SortBy::Unseen => "unseen",
        }
    }
}

/// Sorts rows (stable; ties by repository and number so the order is reproducible).
pub fn sort_rows(rows: &mut [Row], by: SortBy) {
    let tie = |a: &Row, b: &Row| {
        (
            &a.listed.coords.owner,
            &a.listed.coords.repo,
            a.listed.coords.number,
        )
            .cmp(&(
                &b.listed.coords.owner,
                &b.listed.coords.repo,
                b.listed.coords.number,
            ))
    };
    let updated = |a: &Row, b: &Row| b.listed.updated_at.cmp(&a.listed.updated_at);
    let unseen = |r: &Row| r.items.unseen().unwrap_or(0);
    rows.sort_by(|a, b| match by {
        SortBy::Attention => needs_attention(b)
            .cmp(&needs_attention(a))
            .then_with(|| updated(a, b))
            .then_with(|| tie(a, b)),
        SortBy::Updated => updated(a, b).then_with(|| tie(a, b)),
        SortBy::Unseen => unseen(b)
            .cmp(&unseen(a))
            .then_with(|| updated(a, b))
            .then_with(|| tie(a, b)),
    });
}

/// Whether a fixture's PR is open (the inbox never lists closed or merged ones).
fn is_open(pr: &PrMeta) -> bool {
    pr.state.eq_ignore_ascii_case("OPEN")
}

/// The row of one parsed fixture at its initial snapshot (what `items FILE` lists), or `None`
/// for a closed or merged PR.
fn fixture_row(
    fixture: Fixture,
    open: Opener,
    ledger: &Ledger,
    own: &str,
    cfg: &GateConfig,
) -> Result<Option<Row>, String> {
    if !is_open(&fixture.pr) {
        return Ok(None);
    }
    let dash = fixture.dashboard.clone();
    let snapshot = fixture.into_snapshot_at(0).map_err(|e| e.to_string())?;
    let teams = dash.viewer_teams.clone();
    let listed = Listed::from_meta(&snapshot.pr, last_activity(&snapshot), open)
        .with_dash(dash, own, &teams);
    let outbox = ledger.outbox(&snapshot.pr.coords()).ok().flatten();
    Ok(Some(row_of(&snapshot, listed, ledger, own, outbox, cfg)))
}

/// Why a directory cannot be an inbox.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("cannot read the directory `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{}` holds no fixture (no *.json file)", path.display())]
    Empty { path: PathBuf },
}

/// Every fixture (`*.json`) in `dir`, in name order; one that does not load is listed in
/// `problems` with its error, the others still show.
pub fn from_dir(
    dir: &Path,
    ledger: &Ledger,
    own: &str,
    cfg: &GateConfig,
) -> Result<Inbox, DirError> {
    let io = |source| DirError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(DirError::Empty {
            path: dir.to_path_buf(),
        });
    }
    let mut inbox = Inbox {
        source: dir.display().to_string(),
        rows: Vec::new(),
        problems: Vec::new(),
    };
    for path in files {
        let row = Fixture::load(&path)
            .map_err(|e| e.to_string())
            .and_then(|f| fixture_row(f, Opener::File(path.clone()), ledger, own, cfg));
        match row {
            Ok(Some(row)) => inbox.rows.push(row),
            Ok(None) => {}
            Err(e) => inbox.problems.push(e),
        }
    }
    sort_rows(&mut inbox.rows, SortBy::Attention);
    Ok(inbox)
}

/// The bundled fixtures (see [`BUNDLED`]).
pub fn bundled(ledger: &Ledger, own: &str, cfg: &GateConfig) -> Inbox {
    let mut inbox = Inbox {
        source: "bundled fixtures".to_owned(),
        rows: Vec::new(),
        problems: Vec::new(),
    };
    for (i, (name, text)) in BUNDLED.iter().enumerate() {
        let row = Fixture::parse(text, Path::new(name))
            .map_err(|e| e.to_string())
            .and_then(|f| fixture_row(f, Opener::Bundled(i), ledger, own, cfg));
        match row {
            Ok(Some(row)) => inbox.rows.push(row),
            Ok(None) => {}
            Err(e) => inbox.problems.push(e),
        }
    }
    sort_rows(&mut inbox.rows, SortBy::Attention);
    inbox
}

/// Recounts one row from the ledger (after the PR screen was left): offline from its fixture,
/// live from `snapshot` when given. Rows that cannot be recounted keep their counts.
pub fn recount_offline(row: &mut Row, ledger: &Ledger, own: &str, cfg: &GateConfig) {
    let Some(Ok(fixture)) = row.listed.open.fixture() else {
        return;
    };
    if let Ok(Some(fresh)) = fixture_row(fixture, row.listed.open.clone(), ledger, own, cfg) {
        *row = fresh;
    }
}

#[cfg(test)]
mod tests;
