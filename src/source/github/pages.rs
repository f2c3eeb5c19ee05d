//! One pull request's `pr.graphql`-shaped pages gathered into a [`Snapshot`]: what the one-PR
//! fetch (`fetch.rs`) and the inbox's batches (`batch.rs`) share. They differ only in how they
//! send the requests; the paging rules, the incomplete-page rules and the mapping onto `pr::` are
//! here, behind a narrow interface:
//!
//! - [`PrPages`] is the whole state of one PR's fetch: which connections (labels, review
//!   threads, conversation comments, reviews) still have pages and after which cursor, what the
//!   answers brought, and what stays incomplete. Each round sends [`PrPages::variables`] (with
//!   `pr.graphql`, or aliased in the inbox's document) and hands the answer to
//!   [`PrPages::take_answer`], while [`PrPages::wants_more`] (at most [`MAX_ROUNDS`] rounds); then
//!   [`PrPages::end_rounds`].
//! - [`continue_threads`] fetches the comments of threads with more than 100: one aliased
//!   `node(id:)` per thread, up to 20 threads per `ThreadComments` request (of one PR or of
//!   many), a few requests at a time.
//! - [`PrPages::into_snapshot`] maps it all onto the snapshot model, each item once ([`dedupe`]).
//! - [`Pager`] is the one rule every paginated connection follows, here and in the PR lists and
//!   REST pages: a cursor GitHub handed out before stops the connection ("GitHub returned the
//!   same page twice").
//!
//! A thread with more comments than [`MAX_ROUNDS`] continuation pages reach is not left
//! incomplete: its last 100 comments are read too ([`thread_tails_query`]), so a new reply
//! still shows, and the snapshot's notes say which thread was cut and how many comments in the
//! middle were not read.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;

use super::client::{GraphqlError, GraphqlReply, errors_text};
use super::{GitHub, GitHubError, THREAD_COMMENTS_FRAGMENT};
use crate::pr::{
    Association, Author, ChangedFile, Comment, Item, Origin, PrCoords, PrMeta, Review, ReviewState,
    Snapshot, Thread,
};

/// Bound on `pr.graphql` continuation rounds (100 per page: 50 rounds is 5,000 of each kind).
pub(super) const MAX_ROUNDS: usize = 50;

/// What every paginated connection says when GitHub hands out a cursor it handed out before.
pub(crate) const SAME_PAGE_TWICE: &str = "GitHub returned the same page twice";

/// A cursor GitHub handed out before: following it would read a page already read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RepeatedPage;

impl std::fmt::Display for RepeatedPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(SAME_PAGE_TWICE)
    }
}

/// One paginated connection's cursors so far (a GraphQL `endCursor`, a REST `Link` URL): the
/// one place that decides where a connection goes next. A cursor seen before ends it with
/// [`RepeatedPage`], whether GitHub repeats the last one or goes round a longer circle.
#[derive(Debug, Default, Clone)]
pub(crate) struct Pager {
    seen: HashSet<String>,
}

impl Pager {
    /// After a page: `Ok(Some(cursor))` to go on, `Ok(None)` at the end (`has_next` false, or no
    /// cursor to go on with), [`RepeatedPage`] for a cursor handed out before.
    pub(crate) fn next(
        &mut self,
        has_next: bool,
        cursor: Option<&str>,
    ) -> Result<Option<String>, RepeatedPage> {
        match (has_next, cursor) {
            (true, Some(c)) if self.seen.insert(c.to_owned()) => Ok(Some(c.to_owned())),
            (true, Some(_)) => Err(RepeatedPage),
            _ => Ok(None),
        }
    }

    /// [`Pager::next`] for a GraphQL `pageInfo`.
    pub(crate) fn after(&mut self, info: &PageInfo) -> Result<Option<String>, RepeatedPage> {
        self.next(info.has_next_page, info.end_cursor.as_deref())
    }
}

/// Where a GraphQL connection's page ends (also read by the inbox's PR lists).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PageInfo {
    pub(super) has_next_page: bool,
    pub(super) end_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Conn<T> {
    #[serde(rename = "pageInfo")]
    page_info: PageInfo,
    #[serde(default = "Vec::new")]
    nodes: Vec<Option<T>>,
}

#[derive(Debug, Deserialize)]
struct GqlActor {
    #[serde(rename = "__typename", default)]
    typename: String,
    login: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlComment {
    id: String,
    author: Option<GqlActor>,
    author_association: Option<String>,
    created_at: DateTime<Utc>,
    last_edited_at: Option<DateTime<Utc>>,
    url: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    diff_hunk: Option<String>,
    #[serde(default)]
    is_minimized: bool,
    minimized_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlThread {
    id: String,
    is_resolved: bool,
    is_outdated: bool,
    path: String,
    line: Option<u32>,
    original_line: Option<u32>,
    #[serde(default)]
    diff_side: Option<crate::pr::DiffSide>,
    comments: Conn<GqlComment>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlReview {
    id: String,
    author: Option<GqlActor>,
    author_association: Option<String>,
    state: ReviewState,
    created_at: DateTime<Utc>,
    submitted_at: Option<DateTime<Utc>>,
    last_edited_at: Option<DateTime<Utc>>,
    url: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    is_minimized: bool,
    minimized_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Label {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlPr {
    title: Option<String>,
    body: Option<String>,
    url: Option<String>,
    is_draft: Option<bool>,
    state: Option<String>,
    base_ref_name: Option<String>,
    head_ref_name: Option<String>,
    base_ref_oid: Option<String>,
    head_ref_oid: Option<String>,
    author: Option<GqlActor>,
    author_association: Option<String>,
    labels: Option<Conn<Label>>,
    review_threads: Option<Conn<GqlThread>>,
    comments: Option<Conn<GqlComment>>,
    reviews: Option<Conn<GqlReview>>,
}

#[derive(Debug, Deserialize)]
struct Typename {
    #[serde(rename = "__typename")]
    typename: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRepo {
    issue_or_pull_request: Option<Typename>,
    pull_request: Option<GqlPr>,
}

#[derive(Debug, Deserialize)]
struct PrData {
    repository: Option<GqlRepo>,
}

/// One paginated connection of the PR and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Labels,
    Threads,
    Comments,
    Reviews,
}

impl Part {
    const ALL: [Part; 4] = [Part::Labels, Part::Threads, Part::Comments, Part::Reviews];

    fn name(self) -> &'static str {
        match self {
            Part::Labels => "labels",
            Part::Threads => "review threads",
            Part::Comments => "conversation comments",
            Part::Reviews => "reviews",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Part::Labels => "labels",
            Part::Threads => "reviewThreads",
            Part::Comments => "comments",
            Part::Reviews => "reviews",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One PR's fetch while its pages come in: the page plan, what was gathered, and the threads
/// whose comments continue.
pub(super) struct PrPages {
    plan: PagePlan,
    g: Gathered,
    more_comments: Vec<ThreadContinuation>,
}

impl PrPages {
    /// Nothing fetched yet: the first round asks for the PR and every connection.
    pub(super) fn new() -> PrPages {
        PrPages {
            plan: PagePlan::new(),
            g: Gathered::default(),
            more_comments: Vec::new(),
        }
    }

    /// A connection still has pages to fetch.
    pub(super) fn wants_more(&self) -> bool {
        self.plan.any_wanted()
    }

    /// The `pr.graphql` variables of the next round (`first`: the first, which also asks for the
    /// PR's own fields).
    pub(super) fn variables(&self, coords: &PrCoords, first: bool) -> serde_json::Value {
        self.plan.variables(coords, first)
    }

    /// What the next round is for, for messages and waits.
    pub(super) fn describe(&self, coords: &PrCoords, first: bool) -> String {
        self.plan.describe(coords, first)
    }

    /// A further round failed for good (`why`): every connection it was for stays incomplete.
    pub(super) fn give_up(&mut self, why: &str) {
        self.plan.give_up(&mut self.g, why);
    }

    /// Takes one `pr.graphql`-shaped answer (`data.repository.pullRequest`, errors with their
    /// path from `repository`) and moves the plan on. `Ok(false)` when a further page brought no
    /// data at all (what it was for is given up on, incomplete); an error when the first page
    /// has no pull request (not found, an issue, no access).
    pub(super) fn take_answer(
        &mut self,
        gh: &GitHub,
        coords: &PrCoords,
        reply: &GraphqlReply,
        what: &str,
        first: bool,
    ) -> Result<bool, GitHubError> {
        apply_page(
            gh,
            coords,
            &mut self.plan,
            &mut self.g,
            reply,
            what,
            first,
            &mut self.more_comments,
        )
    }

    /// After the last round: what still had pages was cut off by [`MAX_ROUNDS`].
    pub(super) fn end_rounds(&mut self) {
        self.plan.note_unfinished(&mut self.g);
    }

    /// Something else of the PR stays incomplete (`why`, said in `Snapshot::incomplete`).
    pub(super) fn note_incomplete(&mut self, why: String) {
        self.g.incomplete.push(why);
    }

    /// The snapshot of what was gathered, with the changed files `files` (the inbox passes none:
    /// it counts items only).
    pub(super) fn into_snapshot(
        self,
        coords: &PrCoords,
        files: Vec<ChangedFile>,
    ) -> Result<Snapshot, GitHubError> {
        assemble(coords, self.g, files)
    }
}

/// What the GraphQL side gathered.
#[derive(Default)]
struct Gathered {
    meta: Option<GqlPr>,
    labels: Vec<String>,
    threads: Vec<(GqlThread, Vec<GqlComment>)>,
    comments: Vec<GqlComment>,
    reviews: Vec<GqlReview>,
    incomplete: Vec<String>,
    /// Said with the listing without stopping markers (see `Snapshot::notes`).
    notes: Vec<String>,
    /// The cursors of each thread's comment pages (by thread index).
    thread_pagers: HashMap<usize, Pager>,
}

impl Gathered {
    /// The node id of thread `idx` (empty when there is none).
    fn thread_id(&self, idx: usize) -> String {
        self.threads
            .get(idx)
            .map(|(t, _)| t.id.clone())
            .unwrap_or_default()
    }

    /// Thread `idx`'s next comment page after `info`, by its [`Pager`]: the cursor to go on
    /// with, or `None` at its end (a repeated cursor leaves the thread incomplete, saying so).
    fn thread_next(&mut self, idx: usize, has_next: bool, cursor: Option<&str>) -> Option<String> {
        match self
            .thread_pagers
            .entry(idx)
            .or_default()
            .next(has_next, cursor)
        {
            Ok(next) => next,
            Err(repeated) => {
                if let Some((t, comments)) = self.threads.get(idx) {
                    let why = format!(
                        "comments of review thread {} after the first {}: {repeated}",
                        t.id,
                        comments.len()
                    );
                    self.incomplete.push(why);
                }
                None
            }
        }
    }

    /// Adds thread `idx`'s last comments (`tail`, of `total` in all) after those read page by
    /// page, each once, and notes what was cut in between.
    fn add_tail(&mut self, idx: usize, tail: Vec<GqlComment>, total: usize) {
        let Some((t, comments)) = self.threads.get_mut(idx) else {
            return;
        };
        let read = comments.len();
        let have: HashSet<String> = comments.iter().map(|c| c.id.clone()).collect();
        let tail: Vec<GqlComment> = tail.into_iter().filter(|c| !have.contains(&c.id)).collect();
        let last = tail.len();
        comments.extend(tail);
        let gap = total.saturating_sub(read + last);
        if gap > 0 {
            self.notes.push(format!(
                "review thread {} ({}) has {total} comments, more than the {read} read page by \
                 page: its first {read} and its last {last} are shown, the {gap} in between are \
                 not",
                t.id, t.path
            ));
        }
    }
}

/// The snapshot of what was gathered (the inbox passes no files: it counts items only).
fn assemble(
    coords: &PrCoords,
    mut g: Gathered,
    files: Vec<ChangedFile>,
) -> Result<Snapshot, GitHubError> {
    let meta = g
        .meta
        .take()
        .ok_or_else(|| GitHubError::Invalid(format!("{coords}: GitHub sent no pull request")))?;

    let pr = PrMeta {
        host: coords.host.clone(),
        owner: coords.owner.clone(),
        repo: coords.repo.clone(),
        number: coords.number,
        title: meta.title.unwrap_or_default(),
        body: meta.body.unwrap_or_default(),
        author: author(meta.author.as_ref(), meta.author_association.as_deref()),
        labels: std::mem::take(&mut g.labels),
        base_ref: meta.base_ref_name.unwrap_or_default(),
        head_ref: meta.head_ref_name.unwrap_or_default(),
        base_sha: meta.base_ref_oid.unwrap_or_default(),
        head_sha: meta.head_ref_oid.unwrap_or_default(),
        url: meta.url.unwrap_or_default(),
        draft: meta.is_draft.unwrap_or(false),
        state: meta.state.unwrap_or_else(|| "OPEN".to_owned()),
        files,
        changed_files: None,
    };

    let mut items = Vec::with_capacity(g.threads.len() + g.comments.len() + g.reviews.len());
    for (t, comments) in g.threads {
        // GitHub keeps a thread only while it has a comment; one without is nothing to surface.
        let Some(diff_hunk) = comments
            .first()
            .map(|c| c.diff_hunk.clone().unwrap_or_default())
        else {
            continue;
        };
        let comments: Vec<Comment> = comments.into_iter().map(comment).collect();
        items.push(Item::Thread(Thread {
            diff_hunk,
            id: t.id,
            path: t.path,
            line: t.line,
            original_line: t.original_line,
            side: t.diff_side,
            outdated: t.is_outdated,
            resolved: t.is_resolved,
            comments,
        }));
    }
    items.extend(g.comments.into_iter().map(|c| Item::Comment(comment(c))));
    items.extend(g.reviews.into_iter().map(|r| Item::Review(review(r))));
    // Oldest first, as on the PR page; the sort is stable, so equal times keep GitHub's order.
    items.sort_by_key(|i| i.created_at());

    dedupe(&mut items, &mut g.notes);
    Ok(Snapshot {
        pr,
        items,
        incomplete: g.incomplete,
        notes: g.notes,
        origin: Origin::Live,
    })
}

/// How many ids a note names before it counts the rest.
const NAMED_IDS: usize = 5;

/// Each item once: an id names one item, as `fixture check` requires of a fixture (item ids
/// and thread comment ids share one namespace). GitHub may send an item twice (pages that
/// shifted while they were read); the first is kept, in its place, and a later one with the same
/// id is dropped, as is a thread comment whose id came before. A thread left without comments is
/// nothing to surface. A note says how many were dropped, naming the first few.
pub(crate) fn dedupe(items: &mut Vec<Item>, notes: &mut Vec<String>) {
    let mut ids: HashSet<String> = HashSet::with_capacity(items.len());
    let mut dropped: Vec<String> = Vec::new();
    items.retain_mut(|item| {
        if ids.contains(item.id()) {
            dropped.push(item.id().to_owned());
            return false;
        }
        if let Item::Thread(t) = item {
            t.comments.retain(|c| {
                let fresh = ids.insert(c.id.clone());
                if !fresh {
                    dropped.push(c.id.clone());
                }
                fresh
            });
            if t.comments.is_empty() {
                return false;
            }
        }
        ids.insert(item.id().to_owned());
        true
    });
    if dropped.is_empty() {
        return;
    }
    let named: Vec<&str> = dropped.iter().take(NAMED_IDS).map(String::as_str).collect();
    let more = dropped.len().saturating_sub(NAMED_IDS);
    notes.push(format!(
        "GitHub sent {} a second time ({}{}); each is listed once, as first sent",
        crate::plural::count_irregular(dropped.len(), "item or comment", "items or comments"),
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ));
}

fn author(a: Option<&GqlActor>, association: Option<&str>) -> Author {
    let association = match association.unwrap_or("NONE") {
        "OWNER" => Association::Owner,
        "MEMBER" => Association::Member,
        "COLLABORATOR" => Association::Collaborator,
        "CONTRIBUTOR" => Association::Contributor,
        "FIRST_TIME_CONTRIBUTOR" => Association::FirstTimeContributor,
        "FIRST_TIMER" => Association::FirstTimer,
        "MANNEQUIN" => Association::Mannequin,
        _ => Association::None,
    };
    match a {
        Some(a) => Author {
            login: a.login.clone(),
            association,
            bot: a.typename == "Bot",
        },
        // A deleted account: GitHub shows it as "ghost".
        None => Author {
            login: "ghost".to_owned(),
            association,
            bot: false,
        },
    }
}

fn minimized_reason(minimized: bool, reason: Option<String>) -> Option<String> {
    if minimized {
        reason.map(|r| r.to_ascii_lowercase())
    } else {
        None
    }
}

fn comment(c: GqlComment) -> Comment {
    Comment {
        author: author(c.author.as_ref(), c.author_association.as_deref()),
        id: c.id,
        created_at: c.created_at,
        last_edited_at: c.last_edited_at,
        url: c.url,
        body: c.body,
        minimized: c.is_minimized,
        minimized_reason: minimized_reason(c.is_minimized, c.minimized_reason),
    }
}

fn review(r: GqlReview) -> Review {
    Review {
        author: author(r.author.as_ref(), r.author_association.as_deref()),
        id: r.id,
        state: r.state,
        created_at: r.submitted_at.unwrap_or(r.created_at),
        last_edited_at: r.last_edited_at,
        url: r.url,
        body: r.body,
        minimized: r.is_minimized,
        minimized_reason: minimized_reason(r.is_minimized, r.minimized_reason),
    }
}

/// Where one paginated connection of the PR stands in the fetch plan.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cursor {
    /// Its first page is wanted (the first request asks for every connection).
    First,
    /// More pages are wanted, after this cursor.
    After(String),
    /// Nothing more is wanted: every page was read, or it was given up on.
    Done,
}

impl Cursor {
    fn wanted(&self) -> bool {
        !matches!(self, Cursor::Done)
    }

    /// The `…After` variable: `null` for the first page.
    fn after(&self) -> Option<&str> {
        match self {
            Cursor::After(c) => Some(c),
            Cursor::First | Cursor::Done => None,
        }
    }
}

/// The `pr.graphql` pages still to fetch: one [`Cursor`] per [`Part`].
struct PagePlan {
    cursors: [Cursor; 4],
    pagers: [Pager; 4],
}

impl PagePlan {
    fn new() -> PagePlan {
        PagePlan {
            cursors: [Cursor::First, Cursor::First, Cursor::First, Cursor::First],
            pagers: Default::default(),
        }
    }

    fn wanted(&self, p: Part) -> bool {
        self.cursors[p.index()].wanted()
    }

    fn any_wanted(&self) -> bool {
        self.cursors.iter().any(Cursor::wanted)
    }

    /// The variables of the next request: the connections still wanted, after their cursors.
    fn variables(&self, coords: &PrCoords, first: bool) -> serde_json::Value {
        let after = |p: Part| self.cursors[p.index()].after();
        json!({
            "owner": coords.owner,
            "repo": coords.repo,
            "number": coords.number,
            "withMeta": first,
            "withLabels": self.wanted(Part::Labels),
            "labelsAfter": after(Part::Labels),
            "withThreads": self.wanted(Part::Threads),
            "threadsAfter": after(Part::Threads),
            "withComments": self.wanted(Part::Comments),
            "commentsAfter": after(Part::Comments),
            "withReviews": self.wanted(Part::Reviews),
            "reviewsAfter": after(Part::Reviews),
        })
    }

    /// What the next request is for, for messages and waits.
    fn describe(&self, coords: &PrCoords, first: bool) -> String {
        if first {
            return format!("{coords}");
        }
        let parts: Vec<&str> = Part::ALL
            .iter()
            .filter(|p| self.wanted(**p))
            .map(|p| p.name())
            .collect();
        format!("{coords}: further {}", parts.join(", "))
    }

    /// A continuation failed for good: every connection it was for stays incomplete.
    fn give_up(&mut self, g: &mut Gathered, why: &str) {
        for p in Part::ALL {
            if self.wanted(p) {
                self.cursors[p.index()] = Cursor::Done;
                g.incomplete.push(format!(
                    "{} after the first {}: {why}",
                    p.name(),
                    count(g, p)
                ));
            }
        }
    }

    /// Moves `p` on after a page: on to the next cursor, or done. A connection asked for but not
    /// delivered (nulled by an error) is done and incomplete.
    fn advance(&mut self, p: Part, page: Option<PageInfo>, g: &mut Gathered) {
        self.cursors[p.index()] = match page {
            Some(info) => match self.pagers[p.index()].after(&info) {
                Ok(Some(c)) => Cursor::After(c),
                Ok(None) => Cursor::Done,
                Err(repeated) => {
                    g.incomplete.push(format!(
                        "{} after the first {}: {repeated}",
                        p.name(),
                        count(g, p)
                    ));
                    Cursor::Done
                }
            },
            None => {
                g.incomplete.push(format!(
                    "{} after the first {}: GitHub did not deliver the {} field",
                    p.name(),
                    count(g, p),
                    p.field()
                ));
                Cursor::Done
            }
        };
    }

    /// After the last round: what still had pages was cut off by [`MAX_ROUNDS`].
    fn note_unfinished(&self, g: &mut Gathered) {
        for p in Part::ALL {
            if self.wanted(p) {
                g.incomplete.push(format!(
                    "{}: more than {MAX_ROUNDS} pages; the rest was not fetched",
                    p.name()
                ));
            }
        }
    }
}

/// A thread whose comments continue: its index in `Gathered::threads` and the cursor.
type ThreadContinuation = (usize, String);

/// Takes one `pr.graphql`-shaped answer into `g` and moves the plan on (see
/// [`PrPages::take_answer`]).
#[allow(clippy::too_many_arguments)] // the parts of one `PrPages`, borrowed apart
fn apply_page(
    gh: &GitHub,
    coords: &PrCoords,
    plan: &mut PagePlan,
    g: &mut Gathered,
    reply: &GraphqlReply,
    what: &str,
    first: bool,
    more_comments: &mut Vec<ThreadContinuation>,
) -> Result<bool, GitHubError> {
    let Some(mut pr) = page_pull_request(gh, coords, reply, what, first)? else {
        plan.give_up(
            g,
            &format!("GraphQL errors: {}", errors_text(&reply.errors)),
        );
        return Ok(false);
    };
    if !reply.errors.is_empty() {
        // A partial answer: say so, and never take it as complete.
        g.incomplete.push(format!(
            "GitHub answered with errors{}: {}",
            if first { "" } else { " on a further page" },
            errors_text(&reply.errors)
        ));
    }
    for p in Part::ALL {
        if plan.wanted(p) {
            let page = take_page(p, &mut pr, g, more_comments);
            plan.advance(p, page, g);
        }
    }
    if first {
        g.meta = Some(pr);
    }
    Ok(true)
}

/// The pull request of one `pr.graphql` answer. `Ok(None)` for a further page that brought no
/// data at all (only errors); an error when the first page has none or the PR is not there.
fn page_pull_request(
    gh: &GitHub,
    coords: &PrCoords,
    reply: &GraphqlReply,
    what: &str,
    first: bool,
) -> Result<Option<GqlPr>, GitHubError> {
    let data: PrData = match reply.data.clone() {
        Some(d) => serde_json::from_value(d).map_err(|e| {
            GitHubError::Invalid(format!("{what}: unexpected answer from GitHub: {e}"))
        })?,
        None if first => return Err(first_page_error(coords, &reply.errors, None, gh)),
        None => return Ok(None),
    };
    let repo = match data.repository {
        Some(r) => r,
        None => return Err(first_page_error(coords, &reply.errors, None, gh)),
    };
    let issue_kind = repo.issue_or_pull_request.map(|t| t.typename);
    match repo.pull_request {
        Some(pr) => Ok(Some(pr)),
        None => Err(first_page_error(coords, &reply.errors, issue_kind, gh)),
    }
}

/// Takes the page of connection `p` out of `pr` into `g` (a thread whose comments continue goes
/// to `more_comments`); returns where the connection stands, `None` when it was not delivered.
fn take_page(
    p: Part,
    pr: &mut GqlPr,
    g: &mut Gathered,
    more_comments: &mut Vec<ThreadContinuation>,
) -> Option<PageInfo> {
    match p {
        Part::Labels => pr.labels.take().map(|c| {
            g.labels
                .extend(c.nodes.into_iter().flatten().map(|l| l.name));
            c.page_info
        }),
        Part::Threads => pr.review_threads.take().map(|c| {
            for mut t in c.nodes.into_iter().flatten() {
                let comments = std::mem::take(&mut t.comments.nodes);
                let idx = g.threads.len();
                let info = &t.comments.page_info;
                let next = g
                    .thread_pagers
                    .entry(idx)
                    .or_default()
                    .after(info)
                    .ok()
                    .flatten();
                g.threads
                    .push((t, comments.into_iter().flatten().collect()));
                if let Some(cur) = next {
                    more_comments.push((idx, cur));
                }
            }
            c.page_info
        }),
        Part::Comments => pr.comments.take().map(|c| {
            g.comments.extend(c.nodes.into_iter().flatten());
            c.page_info
        }),
        Part::Reviews => pr.reviews.take().map(|c| {
            g.reviews.extend(c.nodes.into_iter().flatten());
            c.page_info
        }),
    }
}

/// Nested thread comments beyond the first 100, for every PR of `prs` together: up to
/// [`THREADS_PER_REQUEST`] threads advance in one aliased request, whichever PR they belong to,
/// and a few such requests run at a time, for up to [`MAX_ROUNDS`] rounds. A thread that fails
/// stays incomplete; one that still has pages after the last round gets its last 100 comments
/// ([`continue_tails`]). A failure of the credentials (a 401) is the error: nothing can be read.
pub(super) async fn continue_threads(
    gh: &GitHub,
    prs: &mut [(&PrCoords, &mut PrPages)],
) -> Result<(), GitHubError> {
    // (PR, thread index, thread id, cursor)
    let mut pending: Vec<(usize, usize, String, String)> = Vec::new();
    for (pi, (_, p)) in prs.iter_mut().enumerate() {
        for (idx, cursor) in std::mem::take(&mut p.more_comments) {
            let id = p.g.thread_id(idx);
            pending.push((pi, idx, id, cursor));
        }
    }
    let coords_of: Vec<&PrCoords> = prs.iter().map(|(c, _)| *c).collect();
    let coords_of = &coords_of;
    for _ in 0..MAX_ROUNDS {
        if pending.is_empty() {
            return Ok(());
        }
        let chunks: Vec<Vec<(usize, usize, String, String)>> = std::mem::take(&mut pending)
            .chunks(THREADS_PER_REQUEST)
            .map(<[_]>::to_vec)
            .collect();
        let results: Vec<_> = futures::stream::iter(chunks.into_iter().map(|chunk| async move {
            let batch: Vec<(usize, String, String)> = chunk
                .iter()
                .map(|(_, idx, id, cur)| (*idx, id.clone(), cur.clone()))
                .collect();
            // Messages name a chunk by its first PR.
            let res = match chunk.first().and_then(|c| coords_of.get(c.0)) {
                Some(coords) => thread_batch(gh, coords, &batch).await,
                None => Err(GitHubError::Invalid(NO_ANSWER.to_owned())),
            };
            (chunk, res)
        }))
        .buffer_unordered(gh.transport.opts.concurrency.max(1))
        .collect()
        .await;
        for (chunk, res) in results {
            let mut pages: Vec<Option<ThreadPage>> = match res {
                Ok(v) => v.into_iter().map(Some).collect(),
                Err(e) if e.is_credentials() => return Err(e),
                Err(e) => {
                    let why = e.to_string();
                    chunk.iter().map(|_| Some(Err(why.clone()))).collect()
                }
            };
            for (pi, batch, pages) in by_pr(&chunk, &mut pages) {
                let Some((_, p)) = prs.get_mut(pi) else {
                    continue;
                };
                for (idx, cursor) in apply_thread_pages(&mut p.g, &batch, pages) {
                    let id = p.g.thread_id(idx);
                    pending.push((pi, idx, id, cursor));
                }
            }
        }
    }
    continue_tails(gh, prs, pending).await
}

const NO_ANSWER: &str = "GitHub sent no answer for the thread";

/// One PR's share of a threads request: (PR, its (thread index, id, cursor)s, their pages).
type PrThreadPages<C> = (usize, Vec<(usize, String, C)>, Vec<ThreadPage>);

/// A chunk's threads with their pages, per PR ([`PrThreadPages`]), in the chunk's order.
fn by_pr<C: Clone>(
    chunk: &[(usize, usize, String, C)],
    pages: &mut [Option<ThreadPage>],
) -> Vec<PrThreadPages<C>> {
    let mut out: Vec<PrThreadPages<C>> = Vec::new();
    for (pos, (pi, idx, id, cur)) in chunk.iter().enumerate() {
        let page = pages
            .get_mut(pos)
            .and_then(Option::take)
            .unwrap_or_else(|| Err(NO_ANSWER.to_owned()));
        match out.iter_mut().find(|(p, _, _)| p == pi) {
            Some((_, b, p)) => {
                b.push((*idx, id.clone(), cur.clone()));
                p.push(page);
            }
            None => out.push((*pi, vec![(*idx, id.clone(), cur.clone())], vec![page])),
        }
    }
    out
}

/// The threads of `pending` (PR, thread index, id, cursor) still had pages after the last
/// round: their last 100 comments are read, [`THREADS_PER_REQUEST`] threads per request, and
/// each thread's note says what was cut. A thread whose tail cannot be read stays incomplete.
async fn continue_tails(
    gh: &GitHub,
    prs: &mut [(&PrCoords, &mut PrPages)],
    pending: Vec<(usize, usize, String, String)>,
) -> Result<(), GitHubError> {
    let tails: Vec<(usize, usize, String, ())> = pending
        .into_iter()
        .map(|(pi, idx, id, _)| (pi, idx, id, ()))
        .collect();
    for chunk in tails.chunks(THREADS_PER_REQUEST) {
        let Some(coords) = chunk.first().and_then(|c| prs.get(c.0)).map(|(c, _)| *c) else {
            continue;
        };
        let ids: Vec<&str> = chunk.iter().map(|(_, _, id, _)| id.as_str()).collect();
        let mut pages: Vec<Option<ThreadPage>> = match tail_batch(gh, coords, &ids).await {
            Ok(v) => v.into_iter().map(Some).collect(),
            Err(e) if e.is_credentials() => return Err(e),
            Err(e) => {
                let why = e.to_string();
                chunk.iter().map(|_| Some(Err(why.clone()))).collect()
            }
        };
        for (pi, batch, pages) in by_pr(chunk, &mut pages) {
            let Some((_, p)) = prs.get_mut(pi) else {
                continue;
            };
            for ((idx, _, ()), page) in batch.into_iter().zip(pages) {
                match page {
                    Ok(tail) => p.g.add_tail(idx, tail.comments, tail.total),
                    Err(why) => {
                        if let Some((t, comments)) = p.g.threads.get(idx) {
                            let why = format!(
                                "comments of review thread {} ({}) after the first {}: more than \
                                 {MAX_ROUNDS} pages, and its last comments could not be read: {why}",
                                t.id,
                                t.path,
                                comments.len()
                            );
                            p.g.incomplete.push(why);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Adds one batch's pages to their threads (or notes why a thread stays incomplete); returns
/// the threads that continue further.
fn apply_thread_pages(
    g: &mut Gathered,
    batch: &[(usize, String, String)],
    pages: Vec<ThreadPage>,
) -> Vec<ThreadContinuation> {
    let mut next_round = Vec::new();
    for ((idx, _, _), r) in batch.iter().zip(pages) {
        match r {
            Ok(page) => {
                let Some((_, comments)) = g.threads.get_mut(*idx) else {
                    continue;
                };
                comments.extend(page.comments);
                if let Some(c) = g.thread_next(*idx, page.has_next, page.cursor.as_deref()) {
                    next_round.push((*idx, c));
                }
            }
            Err(why) => {
                if let Some((t, comments)) = g.threads.get(*idx) {
                    let why = format!(
                        "comments of review thread {} ({}) after the first {}: {why}",
                        t.id,
                        t.path,
                        comments.len()
                    );
                    g.incomplete.push(why);
                }
            }
        }
    }
    next_round
}

fn count(g: &Gathered, p: Part) -> usize {
    match p {
        Part::Labels => g.labels.len(),
        Part::Threads => g.threads.len(),
        Part::Comments => g.comments.len(),
        Part::Reviews => g.reviews.len(),
    }
}

/// Why the first page has no pull request: not found, an issue, or no access.
fn first_page_error(
    coords: &PrCoords,
    errors: &[GraphqlError],
    issue_kind: Option<String>,
    gh: &GitHub,
) -> GitHubError {
    let repo_missing = errors
        .iter()
        .any(|e| e.kind() == Some("NOT_FOUND") && e.path_text() == "repository");
    if let Some(e) = errors
        .iter()
        .find(|e| matches!(e.kind(), Some("FORBIDDEN" | "INSUFFICIENT_SCOPES")))
    {
        return GitHubError::Forbidden(format!(
            "{coords}: the credentials from {} may not read it ({})",
            gh.credentials_source(),
            e.message_line()
        ));
    }
    if repo_missing {
        return GitHubError::NotFound(format!(
            "repository {}/{} not found, or the credentials from {} cannot see it",
            coords.owner,
            coords.repo,
            gh.credentials_source()
        ));
    }
    match issue_kind.as_deref() {
        Some("Issue") => GitHubError::NotAPullRequest(format!(
            "{}/{}#{} is an issue, not a pull request",
            coords.owner, coords.repo, coords.number
        )),
        _ if errors.is_empty() || errors.iter().any(|e| e.kind() == Some("NOT_FOUND")) => {
            GitHubError::NotFound(format!(
                "{}/{} has no pull request #{}",
                coords.owner, coords.repo, coords.number
            ))
        }
        _ => GitHubError::Graphql(format!("{coords}: {}", errors_text(errors))),
    }
}

/// One thread's share of a comments request: its comments, whether more follow and after
/// which cursor (a continuation), or how many it has in all (a tail).
#[derive(Debug, Default)]
struct ThreadChunk {
    comments: Vec<GqlComment>,
    has_next: bool,
    cursor: Option<String>,
    total: usize,
}

/// One thread's next page, or why that thread failed.
type ThreadPage = Result<ThreadChunk, String>;

/// Threads whose comment continuations share one request.
const THREADS_PER_REQUEST: usize = 20;

/// The operation for `n` thread continuations: `tI: node(id: $idI)` with
/// `comments(first: 100, after: $afterI)`, plus the fragment from `thread_comments.graphql`.
pub fn thread_comments_query(n: usize) -> String {
    threads_query("ThreadComments", n, true)
}

/// The operation for the last 100 comments (and the count) of `n` threads:
/// `tI: node(id: $idI)` with `comments(last: 100) { totalCount … }`.
pub fn thread_tails_query(n: usize) -> String {
    threads_query("ThreadTails", n, false)
}

fn threads_query(name: &str, n: usize, forward: bool) -> String {
    let mut vars = Vec::with_capacity(n);
    let mut sel = String::new();
    for i in 0..n {
        let (var, args, total) = if forward {
            (
                format!("$id{i}: ID!, $after{i}: String"),
                format!("first: 100, after: $after{i}"),
                "",
            )
        } else {
            (
                format!("$id{i}: ID!"),
                "last: 100".to_owned(),
                "        totalCount\n",
            )
        };
        vars.push(var);
        sel.push_str(&format!(
            "  t{i}: node(id: $id{i}) {{\n    __typename\n    ... on PullRequestReviewThread {{\n      comments({args}) {{\n{total}        ...ThreadCommentPage\n      }}\n    }}\n  }}\n"
        ));
    }
    format!(
        "query {name}({}) {{\n  rateLimit {{\n    cost\n    remaining\n    resetAt\n  }}\n{sel}}}\n\n{THREAD_COMMENTS_FRAGMENT}",
        vars.join(", ")
    )
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommentsPage {
    page_info: PageInfo,
    #[serde(default = "Vec::new")]
    nodes: Vec<Option<GqlComment>>,
    #[serde(default)]
    total_count: Option<usize>,
}

/// One page further for each thread of `batch` (thread index, id, cursor): per thread, the
/// comments and where they end, or why that thread failed. `Err` when the whole request failed.
async fn thread_batch(
    gh: &GitHub,
    coords: &PrCoords,
    batch: &[(usize, String, String)],
) -> Result<Vec<ThreadPage>, GitHubError> {
    let mut vars = serde_json::Map::new();
    for (i, (_, id, cursor)) in batch.iter().enumerate() {
        vars.insert(format!("id{i}"), json!(id));
        vars.insert(format!("after{i}"), json!(cursor));
    }
    let what = format!(
        "{coords}: further comments of {}",
        crate::plural::count(batch.len(), "review thread")
    );
    let reply = gh
        .graphql(&thread_comments_query(batch.len()), vars.into(), &what)
        .await?;
    per_thread(&reply, batch.len())
}

/// The last 100 comments of each thread of `ids`, with the count of all its comments.
async fn tail_batch(
    gh: &GitHub,
    coords: &PrCoords,
    ids: &[&str],
) -> Result<Vec<ThreadPage>, GitHubError> {
    let mut vars = serde_json::Map::new();
    for (i, id) in ids.iter().enumerate() {
        vars.insert(format!("id{i}"), json!(id));
    }
    let what = format!(
        "{coords}: the last comments of {}",
        crate::plural::count(ids.len(), "review thread")
    );
    let reply = gh
        .graphql(&thread_tails_query(ids.len()), vars.into(), &what)
        .await?;
    per_thread(&reply, ids.len())
}

/// The `t0` … `t{n-1}` answers of a threads request, each thread's own errors kept to it.
fn per_thread(reply: &GraphqlReply, n: usize) -> Result<Vec<ThreadPage>, GitHubError> {
    let Some(data) = &reply.data else {
        return Err(GitHubError::Graphql(format!(
            "GraphQL errors: {}",
            errors_text(&reply.errors)
        )));
    };
    Ok((0..n)
        .map(|i| {
            let alias = format!("t{i}");
            let errs: Vec<GraphqlError> = reply
                .errors
                .iter()
                .filter(|e| {
                    e.path.first().and_then(|p| p.as_str()) == Some(alias.as_str())
                        || e.path.is_empty()
                })
                .cloned()
                .collect();
            if !errs.is_empty() {
                return Err(format!("GraphQL errors: {}", errors_text(&errs)));
            }
            let conn = data
                .get(&alias)
                .and_then(|n| n.get("comments"))
                .filter(|c| !c.is_null())
                .ok_or_else(|| "the thread is gone".to_owned())?;
            let conn: CommentsPage = serde_json::from_value(conn.clone())
                .map_err(|e| format!("unexpected answer from GitHub: {e}"))?;
            let comments: Vec<GqlComment> = conn.nodes.into_iter().flatten().collect();
            Ok(ThreadChunk {
                total: conn.total_count.unwrap_or(comments.len()),
                has_next: conn.page_info.has_next_page,
                cursor: conn.page_info.end_cursor,
                comments,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_says_its_side() {
        let thread = |side: &str| -> GqlThread {
            serde_json::from_str(&format!(
                r#"{{"id": "PRRT_1", "isResolved": false, "isOutdated": false, "path": "a.rs",
                "line": 25, "originalLine": 25, {side}
                "comments": {{"pageInfo": {{"hasNextPage": false, "endCursor": null}}, "nodes": []}}}}"#
            ))
            .unwrap()
        };
        assert_eq!(
            thread(r#""diffSide": "LEFT","#).diff_side,
            Some(crate::pr::DiffSide::Left)
        );
        assert_eq!(
            thread(r#""diffSide": "RIGHT","#).diff_side,
            Some(crate::pr::DiffSide::Right)
        );
        assert_eq!(thread("").diff_side, None);
    }

    #[test]
    fn bot_and_ghost_authors() {
        let bot = GqlActor {
            typename: "Bot".into(),
            login: "dependabot".into(),
        };
        let a = author(Some(&bot), Some("NONE"));
        assert!(a.bot);
        let g = author(None, Some("MEMBER"));
        assert_eq!(g.login, "ghost");
        assert_eq!(g.association, Association::Member);
        assert_eq!(
            author(None, Some("SOMETHING_NEW")).association,
            Association::None
        );
    }
}
