//! How the console's inbox is loaded and how a PR is opened from it: the effect runner's side of
//! `Effect::LoadInbox`, `Effect::OpenPr` and `Effect::Recount`. Counting never writes to the
//! state dir (see `crate::inbox`); opening a PR reads its markers and draft as the console does.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::app::{Action, OpenedPr};
use super::effects::EffectRunner;
use crate::inbox::{self, Opener};
use crate::policy::GateConfig;
use crate::pr::Snapshot;
use crate::source::Fixture;
use crate::source::github::GitHub;
use crate::source::github::batch::ListSpec;

/// Where one inbox tab's rows come from.
#[derive(Debug, Clone)]
pub enum TabSource {
    Bundled,
    Dir(PathBuf),
    Live(Vec<ListSpec>),
}

/// The inbox behind a console session (empty when it opened on one PR).
#[derive(Default)]
pub struct InboxLink {
    pub tabs: Vec<TabSource>,
    /// The login whose Shepherd reviews count.
    pub own: String,
    /// The client for live tabs and live PRs.
    pub gh: Option<Arc<GitHub>>,
    /// The fixture of the PR opened from the inbox (history steps, replayed reviews).
    pub opened: Mutex<Option<Fixture>>,
    /// The gates' labels and who counts as team (`[gates]`), as `event` and `watch` read them.
    pub gates: GateConfig,
    /// Per tab, the rows already listed before the console opened (a repository or search named
    /// on the command line is listed first, so a bad one ends with exit 2 before any screen);
    /// the first load counts them instead of listing again.
    pub prelisted: Mutex<Vec<Option<Vec<inbox::Row>>>>,
}

impl EffectRunner {
    /// The fixture of the PR on the PR screen: the one opened from the inbox, else the session's.
    pub fn current_fixture(&self) -> Option<Fixture> {
        self.inbox
            .opened
            .lock()
            .ok()
            .and_then(|g| g.clone())
            .or_else(|| self.fixture.clone())
    }

    /// Loads the PR chosen in the inbox: its snapshot (a fixture's initial one, or live), its
    /// markers and any saved draft.
    pub async fn open_pr(&self, opener: &Opener) -> Result<Box<OpenedPr>, String> {
        let (snapshot, fixture) = match opener {
            Opener::Live(coords) => {
                let gh = self
                    .inbox
                    .gh
                    .as_ref()
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
        let mut opened = self.opened_pr(snapshot)?;
        if let Some(f) = &fixture {
            opened.ahead = super::app::later_versions(f, 0);
        }
        if let Ok(mut g) = self.inbox.opened.lock() {
            *g = fixture;
        }
        Ok(opened)
    }

    fn opened_pr(&self, snapshot: Snapshot) -> Result<Box<OpenedPr>, String> {
        let coords = snapshot.pr.coords();
        let mut seen = self.ledger.load_seen(&coords).map_err(|e| e.to_string())?;
        // Kept texts beside the markers: edited items show what changed, as on a direct open.
        self.ledger.attach_kept(&coords, &snapshot, &mut seen);
        // An unreadable draft is said once the PR is open, as on a direct open; it never keeps
        // the PR from opening.
        let saved = super::saved_drafts(&self.ledger, &coords);
        let marks = if snapshot.is_complete() {
            self.ledger
                .check_writable(&coords)
                .map_err(|e| e.to_string())
        } else {
            Err("the snapshot is incomplete".to_owned())
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
    pub fn recount(&self, snapshot: &Snapshot) -> Action {
        let outbox = match self.inbox.gh {
            Some(_) => None,
            None => self.ledger.outbox(&snapshot.pr.coords()).ok().flatten(),
        };
        let (items, shepherd) = inbox::assess(snapshot, &self.ledger, &self.inbox.own, outbox);
        Action::InboxRecounted {
            coords: snapshot.pr.coords(),
            items,
            shepherd,
        }
    }

    /// Loads every tab: the list first, then (live) the counts batch by batch, each step as an
    /// action handed to `send` as soon as it is known.
    pub async fn load_inbox(&self, mut send: impl FnMut(Action)) {
        let cfg = &self.inbox.gates;
        let own = self.inbox.own.as_str();
        for (tab, src) in self.inbox.tabs.iter().enumerate() {
            match src {
                TabSource::Bundled => {
                    let i = inbox::bundled(&self.ledger, own, cfg);
                    send(Action::InboxListed {
                        tab,
                        result: Ok((i.rows, i.problems)),
                    });
                }
                TabSource::Dir(dir) => {
                    let result = inbox::from_dir(dir, &self.ledger, own, cfg)
                        .map(|i| (i.rows, i.problems))
                        .map_err(|e| e.to_string());
                    send(Action::InboxListed { tab, result });
                }
                TabSource::Live(specs) => {
                    let Some(gh) = self.inbox.gh.as_ref() else {
                        send(Action::InboxListed {
                            tab,
                            result: Err("no GitHub client".to_owned()),
                        });
                        continue;
                    };
                    let prelisted = self
                        .inbox
                        .prelisted
                        .lock()
                        .ok()
                        .and_then(|mut p| p.get_mut(tab).and_then(Option::take));
                    let listed = match prelisted {
                        Some(rows) => Ok(rows),
                        None => inbox::live::list(gh, specs, cfg).await,
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
                    inbox::live::count(gh, &rows, &self.ledger, own, cfg, |_, row| {
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

    /// [`EffectRunner::load_inbox`] synchronously, as a list of actions (tests, harness). Must
    /// not be called from inside a tokio runtime.
    pub fn load_inbox_blocking(&self) -> Vec<Action> {
        let mut out = Vec::new();
        match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(self.load_inbox(|a| out.push(a))),
            Err(e) => out.push(Action::Notice(format!("cannot start the runtime: {e}"))),
        }
        out
    }
}
