//! The inbox's effects: loading its tabs (the list first, then — live — the counts one PR at a
//! time), opening a PR chosen in it, and recounting a row after its PR screen was left. Counting
//! never writes to the state dir (see `crate::inbox`); opening a PR reads its markers and drafts
//! as the console does on a direct open.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use super::ledger::{offline_post, saved_drafts};
use crate::inbox::{self, Opener};
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot};
use crate::source::Fixture;
use crate::source::github::batch::ListSpec;
use crate::tui::app::{Action, OpenedPr, later_versions};
use crate::tui::session::Session;

/// Where one inbox tab's rows come from.
#[derive(Debug, Clone)]
pub enum TabSource {
    Bundled,
    Dir(PathBuf),
    /// Repositories or searches on GitHub (the session's client).
    Live(Vec<ListSpec>),
    /// A configured section that cannot be listed at all (no usable credentials): the tab says
    /// why, the console opens all the same.
    Unavailable(String),
}

/// The inbox behind a console session (empty when it opened on one PR).
#[derive(Default)]
pub struct InboxLink {
    pub tabs: Vec<TabSource>,
    /// The fixtures of the PRs opened from the inbox, by PR (history steps, replayed reviews):
    /// a session opens any number of them, and each keeps its own.
    pub opened: Mutex<HashMap<PrCoords, Fixture>>,
    /// Per tab, the rows already listed before the console opened (a repository or search named
    /// on the command line is listed first, so a bad one ends with exit 2 before any screen);
    /// the first load counts them instead of listing again.
    pub prelisted: Mutex<Vec<Option<Vec<inbox::Row>>>>,
}

impl InboxLink {
    /// The fixture of `pr`, if it was opened from the inbox.
    pub fn opened_fixture(&self, pr: &PrCoords) -> Option<Fixture> {
        self.opened.lock().ok().and_then(|g| g.get(pr).cloned())
    }
}

/// Loads the PR chosen in the inbox: its snapshot (a fixture's initial one, or live), its
/// markers and any saved drafts. The fixture is kept for its history steps.
pub async fn open_pr(
    link: &InboxLink,
    ledger: &Ledger,
    session: &Session,
    opener: &Opener,
) -> Result<Box<OpenedPr>, String> {
    let (snapshot, fixture) = match opener {
        Opener::Live(coords) => {
            let gh = session
                .remote
                .github()
                .ok_or_else(|| "no GitHub client for a live PR".to_owned())?;
            let s = gh.fetch_snapshot(coords).await.map_err(|e| e.to_string())?;
            (s, None)
        }
        fixture => {
            let f = fixture
                .fixture()
                .ok_or_else(|| "no fixture".to_owned())?
                .map_err(|e| e.to_string())?;
            (f.snapshot_at(0).map_err(|e| e.to_string())?, Some(f))
        }
    };
    let mut opened = opened_pr(ledger, snapshot)?;
    if let Some(f) = &fixture {
        opened.ahead = later_versions(f, 0);
    }
    if let (Some(f), Ok(mut g)) = (fixture, link.opened.lock()) {
        g.insert(opened.snapshot.pr.coords(), f);
    }
    Ok(opened)
}

fn opened_pr(ledger: &Ledger, snapshot: Snapshot) -> Result<Box<OpenedPr>, String> {
    let coords = snapshot.pr.coords();
    let mut seen = ledger.load_seen(&coords).map_err(|e| e.to_string())?;
    // Kept texts beside the markers: edited items show what changed, as on a direct open.
    ledger.attach_kept(&coords, &snapshot, &mut seen);
    // An unreadable draft is said once the PR is open, as on a direct open; it never keeps the
    // PR from opening.
    let saved = saved_drafts(ledger, &coords);
    let marks = if snapshot.is_complete() {
        ledger.check_writable(&coords).map_err(|e| e.to_string())
    } else {
        Err(format!(
            "the snapshot is incomplete ({})",
            snapshot.incomplete.join("; ")
        ))
    };
    Ok(Box::new(OpenedPr {
        snapshot,
        seen,
        saved,
        marks,
        ahead: Default::default(),
    }))
}

/// The row of `snapshot`'s PR recounted from the ledger (nothing written).
pub fn recount(ledger: &Ledger, session: &Session, snapshot: &Snapshot) -> Action {
    let outbox = offline_post(ledger, &session.remote, &snapshot.pr.coords())
        .ok()
        .flatten();
    let (items, shepherd) = inbox::assess(snapshot, ledger, session.identity(), outbox);
    Action::InboxRecounted {
        coords: snapshot.pr.coords(),
        items,
        shepherd,
        files_changed: inbox::files_changed(snapshot, ledger),
    }
}

/// Loads every tab: the list first, then (live) the counts one PR at a time, each step as an
/// action handed to `send` as soon as it is known. A PR listed by an earlier tab of the same
/// load is not fetched again: its counted row is reused (the default sections overlap).
pub async fn load(
    link: &InboxLink,
    ledger: &Ledger,
    session: &Session,
    send: &mut impl FnMut(Action),
) {
    let cfg = &session.gates;
    let own = session.identity();
    let mut counted: HashMap<PrCoords, inbox::Row> = HashMap::new();
    for (tab, src) in link.tabs.iter().enumerate() {
        match src {
            TabSource::Bundled => {
                let i = inbox::bundled(ledger, own, cfg);
                send(Action::InboxListed {
                    tab,
                    result: Ok((i.rows, i.problems)),
                });
            }
            TabSource::Dir(dir) => {
                let result = inbox::from_dir(dir, ledger, own, cfg)
                    .map(|i| (i.rows, i.problems))
                    .map_err(|e| e.to_string());
                send(Action::InboxListed { tab, result });
            }
            TabSource::Unavailable(why) => send(Action::InboxListed {
                tab,
                result: Err(why.clone()),
            }),
            TabSource::Live(specs) => {
                let Some(gh) = session.remote.github() else {
                    send(Action::InboxListed {
                        tab,
                        result: Err("no GitHub client".to_owned()),
                    });
                    continue;
                };
                let prelisted = link
                    .prelisted
                    .lock()
                    .ok()
                    .and_then(|mut p| p.get_mut(tab).and_then(Option::take));
                let listed = match prelisted {
                    Some(rows) => Ok(rows),
                    None => inbox::live::list(gh, specs, own, cfg).await,
                };
                let rows = match listed {
                    Ok(rows) => rows,
                    Err(e) => {
                        send(Action::InboxListed {
                            tab,
                            result: Err(e.to_string()),
                        });
                        continue;
                    }
                };
                send(Action::InboxListed {
                    tab,
                    result: Ok((rows.clone(), Vec::new())),
                });
                let (known, fresh): (Vec<inbox::Row>, Vec<inbox::Row>) = rows
                    .into_iter()
                    .partition(|r| counted.contains_key(&r.listed.coords));
                let known: Vec<inbox::Row> = known
                    .iter()
                    .filter_map(|r| counted.get(&r.listed.coords).cloned())
                    .collect();
                if !known.is_empty() {
                    send(Action::InboxCounted {
                        tab,
                        rows: known,
                        finished: false,
                    });
                }
                inbox::live::count(gh, &fresh, ledger, own, cfg, |_, row| {
                    counted.insert(row.listed.coords.clone(), row.clone());
                    send(Action::InboxCounted {
                        tab,
                        rows: vec![row],
                        finished: false,
                    })
                })
                .await;
                send(Action::InboxCounted {
                    tab,
                    rows: Vec::new(),
                    finished: true,
                });
            }
        }
    }
}
