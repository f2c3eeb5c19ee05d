//! The inbox's own effects ([`Work`]) and their results ([`Done`]): loading its tabs (the list
//! first, then — live — the counts one PR at a time), opening a PR chosen in it, and recounting
//! a row after its PR screen was left. Counting never writes to the state dir (see
//! `crate::inbox`); opening a PR reads its markers and drafts as the console does on a direct
//! open (`app/opened.rs`). The screen's I/O edge: only the effect runner performs it (see
//! `app/work.rs`).

use std::collections::HashMap;

use crate::inbox::{self, Opener};
use crate::ledger::Ledger;
use crate::pr::{PrCoords, Snapshot};
use crate::tui::app::OpenedPr;
use crate::tui::app::opened::open_pr;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};
use crate::tui::inbox_link::{InboxLink, TabSource};
use crate::tui::session::Session;

/// What the inbox asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// (Re)load the inbox's lists, then their counts in the background.
    Load,
    /// Load a PR chosen in the inbox for the PR screen.
    Open(Box<Opener>),
    /// Recount the inbox row of this snapshot's PR from the ledger (after the PR screen).
    Recount { snapshot: Box<Snapshot> },
}

/// What comes back to the inbox.
#[derive(Debug, Clone)]
pub enum Done {
    /// The list for tab `tab` arrived (counts may still be loading), with what could not be
    /// listed; or why it could not be loaded.
    Listed {
        tab: usize,
        result: Result<(Vec<inbox::Row>, Vec<String>), String>,
    },
    /// Counted rows for tab `tab`; `finished` after the last batch.
    Counted {
        tab: usize,
        rows: Vec<inbox::Row>,
        finished: bool,
    },
    /// A row recounted from the ledger after its PR screen was left.
    Recounted {
        coords: PrCoords,
        items: inbox::Counts,
        shepherd: inbox::ShepherdView,
        /// Files changed since the last look at the code, where the snapshot has patches.
        files_changed: Option<usize>,
    },
    /// The PR chosen in the inbox, loaded (or why not).
    Opened(Result<Box<OpenedPr>, String>),
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        match self {
            // Ordered after the markers in flight, which it reads.
            Work::Recount { .. } => Lane::Ledger,
            Work::Load | Work::Open(_) => Lane::Fetch,
        }
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            match self {
                Work::Load => {
                    load(io.inbox, io.ledger, io.session, &mut |d| {
                        send(work::Done::new(d))
                    })
                    .await
                }
                Work::Open(opener) => {
                    let opened = open_pr(io.inbox, io.ledger, io.session, &opener).await;
                    send(work::Done::new(Done::Opened(opened)))
                }
                Work::Recount { snapshot } => {
                    send(work::Done::new(recount(io.ledger, io.session, &snapshot)))
                }
            }
        })
    }
}

/// The row of `snapshot`'s PR recounted from the ledger (nothing written).
fn recount(ledger: &Ledger, session: &Session, snapshot: &Snapshot) -> Done {
    let outbox = session
        .remote
        .offline_post(ledger, &snapshot.pr.coords())
        .ok()
        .flatten();
    let (items, shepherd) = inbox::assess(snapshot, ledger, session.identity(), outbox);
    Done::Recounted {
        coords: snapshot.pr.coords(),
        items,
        shepherd,
        files_changed: inbox::files_changed(snapshot, ledger),
    }
}

/// Loads every tab: the list first, then (live) the counts one PR at a time, each step handed
/// to `send` as soon as it is known. A PR listed by an earlier tab of the same load is not
/// fetched again: its counted row is reused (the default sections overlap).
async fn load(
    link: &InboxLink,
    ledger: &Ledger,
    session: &Session,
    send: &mut (dyn FnMut(Done) + std::marker::Send),
) {
    let cfg = &session.gates;
    let own = session.identity();
    let mut counted: HashMap<PrCoords, inbox::Row> = HashMap::new();
    for (tab, src) in link.tabs.iter().enumerate() {
        match src {
            TabSource::Bundled => {
                let i = inbox::bundled(ledger, own, cfg);
                send(Done::Listed {
                    tab,
                    result: Ok((i.rows, i.problems)),
                });
            }
            TabSource::Dir(dir) => {
                let result = inbox::from_dir(dir, ledger, own, cfg)
                    .map(|i| (i.rows, i.problems))
                    .map_err(|e| e.to_string());
                send(Done::Listed { tab, result });
            }
            TabSource::Unavailable(why) => send(Done::Listed {
                tab,
                result: Err(why.clone()),
            }),
            TabSource::Live(specs) => {
                let Some(gh) = session.remote.github() else {
                    send(Done::Listed {
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
                        send(Done::Listed {
                            tab,
                            result: Err(e.to_string()),
                        });
                        continue;
                    }
                };
                send(Done::Listed {
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
                    send(Done::Counted {
                        tab,
                        rows: known,
                        finished: false,
                    });
                }
                inbox::live::count(gh, &fresh, ledger, own, cfg, |_, row| {
                    counted.insert(row.listed.coords.clone(), row.clone());
                    send(Done::Counted {
                        tab,
                        rows: vec![row],
                        finished: false,
                    })
                })
                .await;
                send(Done::Counted {
                    tab,
                    rows: Vec::new(),
                    finished: true,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::synth::{SynthSpec, synth};
    use crate::tui::app::work::Work as _;

    /// A recount reads the markers the PR screen just wrote: it queues behind them on the
    /// ordered ledger lane; loading and opening only read, a task each.
    #[test]
    fn a_recount_waits_for_the_markers_and_reads_run_as_tasks() {
        let recount = Work::Recount {
            snapshot: Box::new(
                synth(SynthSpec {
                    threads: 1,
                    comments: 1,
                    reviews: 1,
                    replies: 0,
                    seed: 1,
                })
                .snapshot_at(0)
                .unwrap(),
            ),
        };
        assert_eq!(recount.lane(), Lane::Ledger);
        assert_eq!(Work::Load.lane(), Lane::Fetch);
        let open = Work::Open(Box::new(Opener::Bundled(0)));
        assert_eq!(open.lane(), Lane::Fetch);
    }
}
