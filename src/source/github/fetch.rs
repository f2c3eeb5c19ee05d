//! The fetch plan and the mapping of GitHub's answers onto the snapshot model.
//!
//! Round trips: one `pr.graphql` request brings the PR, its labels and the first 100 threads
//! (each with its first 100 comments), conversation comments and reviews, while the changed
//! files are fetched over REST at the same time. Each further `pr.graphql` request advances every
//! connection that still has pages at once (the others are switched off with `@include`).
//! Threads with more than 100 comments continue with a generated `ThreadComments` operation: one
//! aliased `node(id:)` per thread (up to 20 per request, a few requests at a time). A PR of 260
//! threads (one with 130 comments), 230 comments, 120 reviews and 40 files takes 5 requests.

use chrono::{DateTime, Utc};
use futures::StreamExt;
use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::client::{GraphqlError, GraphqlReply, RawResponse, http_error};
use super::{GitHub, GitHubError, PR_QUERY, THREAD_COMMENTS_FRAGMENT};
use crate::pr::{
    Association, Author, ChangedFile, Comment, Item, Origin, PrCoords, PrMeta, Review, ReviewState,
    Snapshot, Thread,
};

/// Bound on `pr.graphql` continuation rounds (100 per page: 50 rounds is 5,000 of each kind).
pub(super) const MAX_ROUNDS: usize = 50;
/// GitHub serves at most 3,000 files (30 pages of 100).
const MAX_FILE_PAGES: usize = 30;

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
pub(super) struct GqlComment {
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

/// What the GraphQL side gathered.
#[derive(Default)]
pub(super) struct Gathered {
    meta: Option<GqlPr>,
    labels: Vec<String>,
    threads: Vec<(GqlThread, Vec<GqlComment>)>,
    comments: Vec<GqlComment>,
    reviews: Vec<GqlReview>,
    incomplete: Vec<String>,
}

impl Gathered {
    /// The node id of thread `idx` (empty when there is none).
    pub(super) fn thread_id(&self, idx: usize) -> String {
        self.threads
            .get(idx)
            .map(|(t, _)| t.id.clone())
            .unwrap_or_default()
    }

    /// Thread `idx` still had comment pages after the last round: it stays incomplete.
    pub(super) fn thread_unfinished(&mut self, idx: usize) {
        if let Some((t, comments)) = self.threads.get(idx) {
            let why = format!(
                "comments of review thread {} after the first {}: more than {MAX_ROUNDS} pages",
                t.id,
                comments.len()
            );
            self.incomplete.push(why);
        }
    }
}

pub(super) async fn fetch_snapshot(
    gh: &GitHub,
    coords: &PrCoords,
) -> Result<Snapshot, GitHubError> {
    // A GitHub App mints its installation token here, once, rather than in each of the
    // concurrent requests below (a no-op for a plain token).
    gh.transport.creds.bearer().await?;
    let (graph, files) = futures::join!(fetch_graph(gh, coords), fetch_files(gh, coords));
    let mut g = graph?;
    let (files, files_incomplete) = match files {
        Ok(f) => (f, None),
        Err(e @ (GitHubError::Unauthorized { .. } | GitHubError::NoCredentials { .. })) => {
            return Err(e);
        }
        Err(e) => (Vec::new(), Some(format!("changed files: {e}"))),
    };
    g.incomplete.extend(files_incomplete);
    assemble(coords, g, files)
}

/// The snapshot of what was gathered (the inbox passes no files: it counts items only).
pub(super) fn assemble(
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
            outdated: t.is_outdated,
            resolved: t.is_resolved,
            comments,
        }));
    }
    items.extend(g.comments.into_iter().map(|c| Item::Comment(comment(c))));
    items.extend(g.reviews.into_iter().map(|r| Item::Review(review(r))));
    // Oldest first, as on the PR page; the sort is stable, so equal times keep GitHub's order.
    items.sort_by_key(|i| i.created_at());

    Ok(Snapshot {
        pr,
        items,
        incomplete: g.incomplete,
        origin: Origin::Live,
    })
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

pub(super) fn errors_text(errors: &[GraphqlError]) -> String {
    errors
        .iter()
        .take(3)
        .map(|e| {
            let p = e.path_text();
            if p.is_empty() {
                e.message_line()
            } else {
                format!("{} (at {p})", e.message_line())
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
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
pub(super) struct PagePlan {
    cursors: [Cursor; 4],
}

impl PagePlan {
    pub(super) fn new() -> PagePlan {
        PagePlan {
            cursors: [Cursor::First, Cursor::First, Cursor::First, Cursor::First],
        }
    }

    fn wanted(&self, p: Part) -> bool {
        self.cursors[p.index()].wanted()
    }

    pub(super) fn any_wanted(&self) -> bool {
        self.cursors.iter().any(Cursor::wanted)
    }

    /// The variables of the next request: the connections still wanted, after their cursors.
    pub(super) fn variables(&self, coords: &PrCoords, first: bool) -> serde_json::Value {
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
    pub(super) fn describe(&self, coords: &PrCoords, first: bool) -> String {
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
    pub(super) fn give_up(&mut self, g: &mut Gathered, why: &str) {
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
            Some(PageInfo {
                has_next_page: true,
                end_cursor: Some(c),
            }) => Cursor::After(c),
            Some(_) => Cursor::Done,
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
    pub(super) fn note_unfinished(&self, g: &mut Gathered) {
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
pub(super) type ThreadContinuation = (usize, String);

/// Pages of the GraphQL side, then nested thread comments.
async fn fetch_graph(gh: &GitHub, coords: &PrCoords) -> Result<Gathered, GitHubError> {
    let mut g = Gathered::default();
    let more_comments = fetch_pages(gh, coords, &mut g).await?;
    fetch_thread_comments(gh, coords, &mut g, more_comments).await;
    Ok(g)
}

/// The `pr.graphql` rounds: the first brings the PR and the first page of every connection; each
/// further round advances every connection that still has pages. Returns the threads whose
/// comments continue. Only a failure of the first request is an error; a later one leaves what
/// it was for incomplete.
async fn fetch_pages(
    gh: &GitHub,
    coords: &PrCoords,
    g: &mut Gathered,
) -> Result<Vec<ThreadContinuation>, GitHubError> {
    let mut plan = PagePlan::new();
    let mut more_comments = Vec::new();
    for round in 0..MAX_ROUNDS {
        if !plan.any_wanted() {
            break;
        }
        let first = round == 0;
        let what = plan.describe(coords, first);
        let reply = match gh
            .graphql(PR_QUERY, plan.variables(coords, first), &what)
            .await
        {
            Ok(r) => r,
            Err(e) if first => return Err(e),
            Err(e) => {
                plan.give_up(g, &e.to_string());
                break;
            }
        };
        if !apply_page(
            gh,
            coords,
            &mut plan,
            g,
            &reply,
            &what,
            first,
            &mut more_comments,
        )? {
            break;
        }
    }
    plan.note_unfinished(g);
    Ok(more_comments)
}

/// Takes one `pr.graphql`-shaped answer into `g` and moves the plan on. `Ok(false)` when a
/// further page brought no data at all (what it was for is given up on, incomplete); an error
/// when the first page has no pull request. Shared by the one-PR fetch and the inbox's batches.
#[allow(clippy::too_many_arguments)] // the state of one fetch, passed apart to stay borrowable
pub(super) fn apply_page(
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
                if t.comments.page_info.has_next_page
                    && let Some(cur) = t.comments.page_info.end_cursor.clone()
                {
                    more_comments.push((g.threads.len(), cur));
                }
                g.threads
                    .push((t, comments.into_iter().flatten().collect()));
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

/// Nested thread comments beyond the first 100: up to [`THREADS_PER_REQUEST`] threads advance
/// together in one aliased request, and a few such requests run at a time, for up to
/// [`MAX_ROUNDS`] rounds. A thread that fails or runs out of rounds stays incomplete.
async fn fetch_thread_comments(
    gh: &GitHub,
    coords: &PrCoords,
    g: &mut Gathered,
    mut pending: Vec<ThreadContinuation>,
) {
    for _ in 0..MAX_ROUNDS {
        if pending.is_empty() {
            break;
        }
        let batches = thread_batches(g, std::mem::take(&mut pending));
        let results: Vec<_> = futures::stream::iter(batches.into_iter().map(|batch| async move {
            let res = thread_batch(gh, coords, &batch).await;
            (batch, res)
        }))
        .buffer_unordered(gh.transport.opts.concurrency.max(1))
        .collect()
        .await;
        for (batch, res) in results {
            pending.extend(apply_thread_pages(g, &batch, res));
        }
    }
    for (idx, _) in pending {
        if let Some((t, comments)) = g.threads.get(idx) {
            g.incomplete.push(format!(
                "comments of review thread {} after the first {}: more than {MAX_ROUNDS} pages",
                t.id,
                comments.len()
            ));
        }
    }
}

/// The continuations as (thread index, thread id, cursor), [`THREADS_PER_REQUEST`] per batch.
pub(super) fn thread_batches(
    g: &Gathered,
    pending: Vec<ThreadContinuation>,
) -> Vec<Vec<(usize, String, String)>> {
    let work: Vec<(usize, String, String)> = pending
        .into_iter()
        .map(|(idx, cursor)| {
            let id = g
                .threads
                .get(idx)
                .map(|(t, _)| t.id.clone())
                .unwrap_or_default();
            (idx, id, cursor)
        })
        .collect();
    work.chunks(THREADS_PER_REQUEST)
        .map(<[_]>::to_vec)
        .collect()
}

/// Adds one batch's pages to their threads (or notes why a thread stays incomplete); returns
/// the threads that continue further.
pub(super) fn apply_thread_pages(
    g: &mut Gathered,
    batch: &[(usize, String, String)],
    res: Result<Vec<ThreadPage>, String>,
) -> Vec<ThreadContinuation> {
    let per_thread: Vec<ThreadPage> = match res {
        Ok(v) => v,
        Err(why) => batch.iter().map(|_| Err(why.clone())).collect(),
    };
    let mut next_round = Vec::new();
    for ((idx, _, _), r) in batch.iter().zip(per_thread) {
        let Some((t, comments)) = g.threads.get_mut(*idx) else {
            continue;
        };
        match r {
            Ok((more, next)) => {
                comments.extend(more);
                if let Some(c) = next {
                    next_round.push((*idx, c));
                }
            }
            Err(why) => g.incomplete.push(format!(
                "comments of review thread {} ({}) after the first {}: {why}",
                t.id,
                t.path,
                comments.len()
            )),
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

/// One thread's next page: its comments and the cursor after them, or why it failed.
pub(super) type ThreadPage = Result<(Vec<GqlComment>, Option<String>), String>;

/// Threads whose comment continuations share one request.
pub(super) const THREADS_PER_REQUEST: usize = 20;

/// The operation for `n` thread continuations: `tI: node(id: $idI)` with
/// `comments(first: 100, after: $afterI)`, plus the fragment from `thread_comments.graphql`.
pub fn thread_comments_query(n: usize) -> String {
    let mut vars = Vec::with_capacity(n);
    let mut sel = String::new();
    for i in 0..n {
        vars.push(format!("$id{i}: ID!, $after{i}: String"));
        sel.push_str(&format!(
            "  t{i}: node(id: $id{i}) {{\n    __typename\n    ... on PullRequestReviewThread {{\n      comments(first: 100, after: $after{i}) {{\n        ...ThreadCommentPage\n      }}\n    }}\n  }}\n"
        ));
    }
    format!(
        "query ThreadComments({}) {{\n  rateLimit {{\n    cost\n    remaining\n    resetAt\n  }}\n{sel}}}\n\n{THREAD_COMMENTS_FRAGMENT}",
        vars.join(", ")
    )
}

/// One page further for each thread of `batch` (thread index, id, cursor): per thread, the
/// comments and the next cursor, or why that thread failed. `Err` when the whole request failed.
pub(super) async fn thread_batch(
    gh: &GitHub,
    coords: &PrCoords,
    batch: &[(usize, String, String)],
) -> Result<Vec<ThreadPage>, String> {
    let mut vars = serde_json::Map::new();
    for (i, (_, id, cursor)) in batch.iter().enumerate() {
        vars.insert(format!("id{i}"), json!(id));
        vars.insert(format!("after{i}"), json!(cursor));
    }
    let what = format!(
        "{coords}: further comments of {} review thread(s)",
        batch.len()
    );
    let reply = gh
        .graphql(&thread_comments_query(batch.len()), vars.into(), &what)
        .await
        .map_err(|e| e.to_string())?;
    let Some(data) = reply.data else {
        return Err(format!("GraphQL errors: {}", errors_text(&reply.errors)));
    };
    Ok((0..batch.len())
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
            let conn: Conn<GqlComment> = serde_json::from_value(conn.clone())
                .map_err(|e| format!("unexpected answer from GitHub: {e}"))?;
            let next = match conn.page_info {
                PageInfo {
                    has_next_page: true,
                    end_cursor: Some(c),
                } => Some(c),
                _ => None,
            };
            Ok((conn.nodes.into_iter().flatten().collect(), next))
        })
        .collect())
}

/// REST `pulls/{n}/files`, following `Link: rel="next"` on the same API base.
async fn fetch_files(gh: &GitHub, coords: &PrCoords) -> Result<Vec<ChangedFile>, GitHubError> {
    #[derive(Deserialize)]
    struct RestFile {
        filename: String,
        #[serde(default)]
        status: Option<String>,
        #[serde(default)]
        additions: u32,
        #[serde(default)]
        deletions: u32,
        #[serde(default)]
        previous_filename: Option<String>,
        #[serde(default)]
        patch: Option<String>,
    }
    let what = format!("{coords}: changed files");
    let path = format!(
        "/repos/{}/{}/pulls/{}/files?per_page=100",
        coords.owner, coords.repo, coords.number
    );
    let files: Vec<RestFile> = gh.get_all(&path, MAX_FILE_PAGES, &what).await?;
    Ok(files
        .into_iter()
        .map(|f| ChangedFile {
            path: f.filename,
            status: f.status.unwrap_or_else(|| "modified".to_owned()),
            additions: f.additions,
            deletions: f.deletions,
            previous_path: f.previous_filename,
            patch: f.patch,
        })
        .collect())
}

/// Every page of a REST list, following `Link: rel="next"` on the same API base only.
pub(super) async fn get_all<T: serde::de::DeserializeOwned>(
    gh: &GitHub,
    path: &str,
    max_pages: usize,
    what: &str,
) -> Result<Vec<T>, GitHubError> {
    let mut url = gh.endpoints().rest(path);
    let mut out = Vec::new();
    for page in 1..=max_pages {
        let what = format!("{what} (page {page})");
        let resp: RawResponse = gh.transport.send(Method::GET, &url, None, &what).await?;
        if !resp.status.is_success() {
            return Err(http_error(&resp, &what));
        }
        let batch: Vec<T> = resp.json(&what)?;
        out.extend(batch);
        gh.page_done(&what);
        match next_link(&resp) {
            // Never send the credentials anywhere but this API.
            Some(next) if next.starts_with(&gh.endpoints().api) => url = next,
            Some(next) => {
                return Err(GitHubError::Invalid(format!(
                    "{what}: the next page is on another host ({}); not followed",
                    crate::sanitize::one_line(&next)
                )));
            }
            None => return Ok(out),
        }
    }
    Err(GitHubError::Invalid(format!(
        "{what}: more than {max_pages} pages; the rest was not fetched"
    )))
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(resp: &RawResponse) -> Option<String> {
    let link = resp.headers.get("link")?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim() == "rel=\"next\"")
            .then(|| {
                url.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_link_header() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            "link",
            reqwest::header::HeaderValue::from_static(
                "<https://api.github.com/repositories/1/pulls/2/files?per_page=100&page=2>; rel=\"next\", <https://api.github.com/repositories/1/pulls/2/files?per_page=100&page=3>; rel=\"last\"",
            ),
        );
        let resp = RawResponse {
            status: reqwest::StatusCode::OK,
            headers,
            body: Vec::new(),
        };
        assert_eq!(
            next_link(&resp).as_deref(),
            Some("https://api.github.com/repositories/1/pulls/2/files?per_page=100&page=2")
        );
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
