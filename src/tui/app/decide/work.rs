//! The decision screen's own effects ([`Work`]) and their results ([`Done`]), as the headless
//! commands do them: reading the PR as a decision needs it (GitHub's facts and the PR afresh,
//! or the fixture's, with the stakes from the state dir and the repository's labels), and doing
//! the decision (live through GitHub, offline into the action outbox). The screen's I/O edge:
//! only the effect runner performs it (see `app/work.rs`).

use std::collections::HashSet;
use std::sync::Arc;

use crate::policy::merge::Stakes;
use crate::pr::Snapshot;
use crate::publish::decide::{LiveFacts, PrDo, act_live, act_offline, facts_live, facts_offline};
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};

/// What the decision screen asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// Read the PR as a decision needs it, against the snapshot the screen shows (its head is
    /// the one a merge carries).
    Read {
        snapshot: Arc<Snapshot>,
        needs: Needs,
    },
    /// Check out the PR's head in a worktree beside the clone at `repo`.
    Checkout {
        repo: std::path::PathBuf,
        snapshot: Arc<Snapshot>,
    },
    /// Read each marked PR (in order) as a batch decision needs it.
    ReadAll {
        prs: Vec<crate::inbox::Opener>,
        needs: Needs,
    },
    /// Do one decision on each PR; one refused does not stop the others.
    ActAll { items: Vec<(Arc<Snapshot>, PrDo)> },
    /// Do each of `what` in turn (after the maintainer confirmed them), stopping at the first
    /// refused; `comment` is posted first.
    Act {
        snapshot: Arc<Snapshot>,
        what: Vec<PrDo>,
        comment: Option<String>,
    },
}

/// What a decision reads beside the PR's facts and stakes: the repository's labels (the label
/// picker), the code owners (reviewers). Nothing else asks for them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    pub labels: bool,
    pub owners: bool,
}

/// One marked PR read for a batch decision: the snapshot read now, and what it is.
#[derive(Debug, Clone)]
pub struct BatchRead {
    pub snapshot: Arc<Snapshot>,
    pub read: DecideRead,
}

/// What the PR is, read for a decision.
#[derive(Debug, Clone)]
pub struct DecideRead {
    pub facts: LiveFacts,
    pub stakes: Stakes,
    /// The repository's labels (offline: the PR's own; a fixture records no others).
    pub labels: Vec<String>,
    /// The code owners of the changed files (CODEOWNERS at the base), the author left out.
    pub owners: Vec<String>,
    pub offline: bool,
}

/// What comes back to the decision screen.
#[derive(Debug, Clone)]
pub enum Done {
    Read(Result<Box<DecideRead>, String>),
    /// What was done, in words, or why not.
    Acted(Result<String, String>),
    /// Each marked PR, read (or why not), in order.
    ReadAll(Vec<Result<Box<BatchRead>, String>>),
    /// Each PR's result.
    ActedAll(Vec<(crate::pr::PrCoords, Result<String, String>)>),
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        match self {
            Work::Read { .. } | Work::ReadAll { .. } => Lane::Fetch,
            Work::Act { .. } | Work::ActAll { .. } | Work::Checkout { .. } => Lane::Send,
        }
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let done = match self {
                Work::Read { snapshot, needs } => {
                    Done::Read(read(io, &snapshot, needs).await.map(Box::new))
                }
                Work::Act {
                    snapshot,
                    what,
                    comment,
                } => Done::Acted(act(io, &snapshot, &what, comment.as_deref()).await),
                Work::Checkout { repo, snapshot } => {
                    let pr = snapshot.pr.clone();
                    let done = tokio::task::spawn_blocking(move || {
                        crate::source::checkout::check_out(&repo, None, &pr)
                    })
                    .await;
                    Done::Acted(match done {
                        Ok(Ok(c)) => Ok(format!(
                            "{} in {}; the diff's o opens files there",
                            c.said,
                            crate::sanitize::one_line(&c.dir.display().to_string())
                        )),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(e) => Err(format!("the check out stopped: {e}")),
                    })
                }
                Work::ReadAll { prs, needs } => {
                    let mut out = Vec::new();
                    for opener in prs {
                        let one = async {
                            let opened = crate::tui::app::opened::open_pr(
                                io.inbox, io.ledger, io.session, &opener,
                            )
                            .await?;
                            let snapshot = Arc::new(opened.snapshot);
                            let read = read(io, &snapshot, needs).await?;
                            Ok(Box::new(BatchRead { snapshot, read }))
                        };
                        out.push(one.await);
                    }
                    Done::ReadAll(out)
                }
                Work::ActAll { items } => {
                    let mut out = Vec::new();
                    for (snapshot, what) in items {
                        let r = act(io, &snapshot, std::slice::from_ref(&what), None).await;
                        out.push((snapshot.pr.coords(), r));
                    }
                    Done::ActedAll(out)
                }
            };
            send(work::Done::new(done));
        })
    }
}

async fn read(io: &Io<'_>, shown: &Snapshot, needs: Needs) -> Result<DecideRead, String> {
    let pr = shown.pr.coords();
    let err = |e: &dyn std::fmt::Display| crate::sanitize::one_line(&e.to_string());
    match io.session.remote.github() {
        Some(gh) => {
            let facts = facts_live(gh, &pr, Some(&shown.pr.head_sha))
                .await
                .map_err(|e| err(&e))?;
            // The PR afresh: an item that came since the screen was drawn is one never shown.
            let now = gh.fetch_snapshot(&pr).await.map_err(|e| err(&e))?;
            let stakes =
                crate::publish::stakes::stakes(io.ledger, &now, &facts, None, &HashSet::new())
                    .map_err(|e| err(&e))?;
            let labels = if needs.labels {
                crate::publish::decide::repo_labels(gh, &pr)
                    .await
                    .map_err(|e| err(&e))?
            } else {
                Vec::new()
            };
            let mut text = None;
            for place in crate::publish::codeowners::PLACES
                .iter()
                .filter(|_| needs.owners)
            {
                if let Ok(Ok(f)) = crate::source::github::contents::read_file_at(
                    gh,
                    &pr,
                    &shown.pr.base_sha,
                    place,
                )
                .await
                {
                    text = Some(f.text.to_string());
                    break;
                }
            }
            Ok(DecideRead {
                facts,
                stakes,
                labels,
                owners: owners_of(shown, text.as_deref()),
                offline: false,
            })
        }
        None => {
            let outbox = io.ledger.action_outbox(&pr).map_err(|e| err(&e))?;
            let facts = facts_offline(shown, &outbox);
            let checks = (io.fixture_of)(&pr).and_then(|f| f.dashboard.summary());

            let stakes =
                crate::publish::stakes::stakes(io.ledger, shown, &facts, checks, &HashSet::new())
                    .map_err(|e| err(&e))?;
            let fixture = (io.fixture_of)(&pr);
            let text = fixture.as_ref().and_then(|f| {
                crate::publish::codeowners::PLACES
                    .iter()
                    .find_map(|p| f.file_at(&shown.pr.base_sha, p).map(str::to_owned))
            });
            Ok(DecideRead {
                owners: owners_of(shown, text.as_deref()),
                labels: outbox.names_after(&shown.pr.labels, "label-add", "label-remove"),
                facts,
                stakes,
                offline: true,
            })
        }
    }
}

/// The code owners of `shown`'s changed files by the CODEOWNERS `text`, the author left out.
fn owners_of(shown: &Snapshot, text: Option<&str>) -> Vec<String> {
    let Some(text) = text else {
        return Vec::new();
    };
    let paths: Vec<&str> = shown.pr.files.iter().map(|f| f.path.as_str()).collect();
    crate::publish::codeowners::owners(text, &paths)
        .into_iter()
        .filter(|o| !o.eq_ignore_ascii_case(&shown.pr.author.login))
        .collect()
}

async fn act(
    io: &Io<'_>,
    snapshot: &Snapshot,
    what: &[PrDo],
    comment: Option<&str>,
) -> Result<String, String> {
    let pr = snapshot.pr.coords();
    let gh = io.session.remote.github();
    if let Some(body) = comment.filter(|c| !c.trim().is_empty()) {
        match gh {
            Some(gh) => crate::publish::conversation::comment_live(gh, &pr, body).await,
            None => crate::publish::conversation::comment_offline(io.ledger, &pr, body, io.now),
        }
        .map_err(|e| format!("the comment was not posted, nothing else was done: {e}"))?;
    }
    let mut said: Vec<String> = Vec::new();
    for w in what {
        let done = match gh {
            Some(gh) => act_live(gh, Some(io.ledger), &pr, w).await,
            None => act_offline(io.ledger, snapshot, w, io.now),
        };
        match done {
            Ok(d) => said.push(d.said),
            Err(e) => {
                let e = crate::sanitize::one_line(&e.to_string());
                return Err(if said.is_empty() {
                    e
                } else {
                    format!("{e} (done before it: {})", said.join("; "))
                });
            }
        }
    }
    Ok(said.join("; "))
}
