//! The network writes of the console, and the reads that prepare them: what a post would do, the
//! post, and thread replies and resolutions. Where they go is the session's [`Remote`], decided
//! once when the console opens; [`bind`] is the one place that acts on the difference. Posting
//! goes through `publish` (`target`, `upsert` over its comment stores), thread actions through
//! `publish::threads`, exactly as the headless commands call them.

use futures::future::BoxFuture;

use crate::ledger::Ledger;
use crate::pr::{PrCoords, Thread};
use crate::publish::threads::{act_live, act_offline};
use crate::publish::{GitHubComments, Outbox, Posted, ThreadDo, record_own_reply};
use crate::tui::review::PostPreview;
use crate::tui::session::{Live, Remote};

/// How many times a post or a thread action is tried.
const ATTEMPTS: u32 = 3;

/// The remote bound to one PR: where its Shepherd comment lives and where its threads are
/// answered.
trait Place: Send + Sync {
    /// Where a post goes, in words (the confirmation dialog says it).
    fn describe(&self) -> String;
    /// The comment a post would update (`None`: it creates one).
    fn target(&self) -> BoxFuture<'_, Result<Option<String>, String>>;
    /// Posts `body` as the one Shepherd comment.
    fn upsert<'s>(&'s self, body: &'s str) -> BoxFuture<'s, Result<Posted, String>>;
    /// Replies to, resolves or unresolves `thread`: where it can be seen.
    fn act<'s>(
        &'s self,
        thread: &'s Thread,
        what: &'s ThreadDo,
    ) -> BoxFuture<'s, Result<String, String>>;
    /// Posts `body` as a new plain conversation comment (never upserted): where it can be seen.
    fn comment<'s>(&'s self, body: &'s str) -> BoxFuture<'s, Result<String, String>>;
}

/// `remote` for the PR at `pr`. Offline: the outbox in the ledger; live: GitHub as the
/// credentials' own account.
fn bind<'a>(
    remote: &'a Remote,
    ledger: &'a Ledger,
    pr: &PrCoords,
    now: i64,
) -> Box<dyn Place + 'a> {
    match remote.live() {
        None => Box::new(OutboxPlace {
            outbox: Outbox {
                ledger,
                pr: pr.clone(),
                now,
            },
        }),
        Some(live) => Box::new(GitHubPlace {
            comments: GitHubComments {
                gh: &live.gh,
                pr: pr.clone(),
                own_login: live.own_login.clone(),
            },
            live,
            ledger,
            now,
        }),
    }
}

/// What a post of `chars` characters would do, for the confirmation dialog.
pub async fn plan(
    remote: &Remote,
    ledger: &Ledger,
    pr: &PrCoords,
    chars: usize,
    now: i64,
) -> Result<PostPreview, String> {
    let place = bind(remote, ledger, pr, now);
    let update = place.target().await?;
    Ok(PostPreview {
        target: format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
        update,
        chars,
        destination: place.describe(),
        // The PR screen adds what did not run: it holds the review.
        incomplete: None,
    })
}

/// Posts `body`: asked for only after the maintainer confirmed the dialog.
pub async fn post(
    remote: &Remote,
    ledger: &Ledger,
    pr: &PrCoords,
    body: &str,
    now: i64,
) -> Result<Posted, String> {
    bind(remote, ledger, pr, now).upsert(body).await
}

/// Posts a plain conversation comment on the PR (only after the maintainer confirmed).
pub async fn comment(
    remote: &Remote,
    ledger: &Ledger,
    pr: &PrCoords,
    body: &str,
    now: i64,
) -> Result<String, String> {
    bind(remote, ledger, pr, now).comment(body).await
}

/// Replies to, resolves or unresolves a thread (only after the maintainer confirmed).
pub async fn act(
    remote: &Remote,
    ledger: &Ledger,
    pr: &PrCoords,
    thread: &Thread,
    what: &ThreadDo,
    now: i64,
) -> Result<String, String> {
    bind(remote, ledger, pr, now).act(thread, what).await
}

struct OutboxPlace<'a> {
    outbox: Outbox<'a>,
}

impl Place for OutboxPlace<'_> {
    fn describe(&self) -> String {
        let path = self
            .outbox
            .ledger
            .pr_dir(&self.outbox.pr)
            .map(|d| d.join("outbox").join("comment.json").display().to_string())
            .unwrap_or_else(|e| e.to_string());
        format!("the outbox {path}")
    }

    fn target(&self) -> BoxFuture<'_, Result<Option<String>, String>> {
        Box::pin(async move {
            crate::publish::target(&self.outbox)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn upsert<'s>(&'s self, body: &'s str) -> BoxFuture<'s, Result<Posted, String>> {
        Box::pin(async move {
            let mut p = crate::publish::upsert(&self.outbox, body, ATTEMPTS)
                .await
                .map_err(|e| e.to_string())?;
            p.location = format!("the outbox {}", p.location);
            Ok(p)
        })
    }

    fn act<'s>(
        &'s self,
        thread: &'s Thread,
        what: &'s ThreadDo,
    ) -> BoxFuture<'s, Result<String, String>> {
        let o = &self.outbox;
        let done = act_offline(o.ledger, &o.pr, thread, what, o.now)
            .map(|d| format!("the outbox {}", d.location))
            .map_err(|e| e.to_string());
        Box::pin(async move { done })
    }

    fn comment<'s>(&'s self, body: &'s str) -> BoxFuture<'s, Result<String, String>> {
        let o = &self.outbox;
        let done = crate::publish::conversation::comment_offline(o.ledger, &o.pr, body, o.now)
            .map(|path| format!("the outbox {path}"));
        Box::pin(async move { done })
    }
}

struct GitHubPlace<'a> {
    comments: GitHubComments<'a>,
    live: &'a Live,
    ledger: &'a Ledger,
    now: i64,
}

impl Place for GitHubPlace<'_> {
    fn describe(&self) -> String {
        format!("GitHub, as @{}", self.live.own_login)
    }

    fn target(&self) -> BoxFuture<'_, Result<Option<String>, String>> {
        Box::pin(async move {
            crate::publish::target(&self.comments)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn upsert<'s>(&'s self, body: &'s str) -> BoxFuture<'s, Result<Posted, String>> {
        Box::pin(async move {
            crate::publish::upsert(&self.comments, body, ATTEMPTS)
                .await
                .map_err(|e| e.to_string())
        })
    }

    /// Live, as the credentials' account; the own reply is recorded as seen.
    fn act<'s>(
        &'s self,
        thread: &'s Thread,
        what: &'s ThreadDo,
    ) -> BoxFuture<'s, Result<String, String>> {
        Box::pin(async move {
            let pr = &self.comments.pr;
            let live = self.live;
            let done = act_live(&live.gh, pr, thread, what, &live.own_login, ATTEMPTS)
                .await
                .map_err(|e| e.to_string())?;
            if let Some(reply) = &done.reply
                && let Err(e) = record_own_reply(self.ledger, pr, thread, reply, self.now)
            {
                return Ok(format!("{} (not recorded as seen: {e})", done.location));
            }
            Ok(done.location)
        })
    }

    /// Live, as the credentials' account.
    fn comment<'s>(&'s self, body: &'s str) -> BoxFuture<'s, Result<String, String>> {
        Box::pin(async move {
            crate::publish::conversation::comment_live(&self.live.gh, &self.comments.pr, body).await
        })
    }
}

/// Marks `paths` viewed (or not viewed), as headless `file viewed|unviewed` does: live through
/// GitHub's `markFileAsViewed` / `unmarkFileAsViewed`, offline into the outbox. Where it went.
pub async fn set_viewed(
    remote: &Remote,
    ledger: &Ledger,
    pr: &PrCoords,
    paths: &[String],
    keys: &std::collections::HashMap<String, String>,
    viewed: bool,
    now: i64,
) -> Result<String, String> {
    let done = match remote.live() {
        None => ledger
            .push_viewed(pr, paths, keys, viewed, now)
            .map(|(_, path)| format!("the outbox {}", path.display()))
            .map_err(|e| e.to_string()),
        Some(live) => live
            .gh
            .set_files_viewed(pr, paths, viewed)
            .await
            .map(|()| format!("GitHub, as @{}", live.own_login))
            .map_err(|(done, e)| match done {
                0 => e.to_string(),
                n => format!("{e} (the first {n} were marked)"),
            }),
    }?;
    // Noted with the last look, for a file a later push drops; the mark is made either way.
    Ok(match ledger.note_viewed(pr, paths, viewed) {
        Ok(()) => done,
        Err(e) => format!("{done} (not noted with your last look: {e})"),
    })
}
