//! `pr-shepherd items`: the triaged listing as Markdown (for people) or JSON (for agents).
//! The JSON shape is documented in `docs/json-output.md`.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde::Serialize;

use std::collections::{HashMap, HashSet};

use crate::ledger::KeptText;
use crate::pr::{Comment, Item, Origin, Snapshot, Status, time};
use crate::sanitize::sanitize;
use crate::triage::{Changes, DiffLine, Freshness, Triaged, changes, counts, line_diff};

/// What the listing says about seen markers, decided before it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkerPlan {
    /// Markers for new and edited items are written once the listing has been delivered.
    Write,
    /// `--peek`: nothing is written.
    Peek,
    /// Markers cannot or must not be written; the reason is shown.
    NotSaved(String),
}

#[derive(Debug, Clone)]
pub struct ListingOptions {
    /// Show unchanged items in full (Markdown); JSON always has every item.
    pub all: bool,
    pub markers: MarkerPlan,
    /// Marker files that could not be read (their items count as new).
    pub marker_problems: Vec<String>,
    /// The kept texts of edited items (what they were when last seen), by id.
    pub kept: HashMap<String, KeptText>,
    /// The ids of Shepherd's own review comments (as `review::inputs::prior` recognises them for the
    /// identity): listed as such, not as new, their hidden metadata left out of Markdown.
    pub own: HashSet<String>,
}

impl ListingOptions {
    /// Whether the item is Shepherd's own review.
    fn is_own(&self, item: &Item) -> bool {
        self.own.contains(item.id())
    }

    /// New, edited and unchanged items other than Shepherd's own reviews, and the own reviews.
    fn counts(&self, snapshot: &Snapshot, triaged: &[Triaged]) -> (usize, usize, usize, usize) {
        let (mut n, mut e, mut u) = counts(triaged);
        let mut own = 0;
        for t in triaged {
            if snapshot.items.get(t.index).is_some_and(|i| self.is_own(i)) {
                own += 1;
                match t.freshness {
                    Freshness::New => n -= 1,
                    Freshness::Edited => e -= 1,
                    Freshness::Unchanged => u -= 1,
                }
            }
        }
        (n, e, u, own)
    }

    /// What changed in an item since it was last seen (`None` unless it is edited).
    fn changes(&self, item: &Item, t: &Triaged) -> Option<Changes> {
        changes(item, t.freshness, self.kept.get(item.id()))
    }
}

/// The first badge of Shepherd's own review, in place of its freshness.
pub const SHEPHERD_BADGE: &str = "SHEPHERD";

/// The badges of an item, in display order (freshness first).
pub fn badges(item: &Item, freshness: Freshness) -> Vec<String> {
    let mut out = vec![freshness.as_str().to_uppercase()];
    let s = item.status();
    if s.outdated {
        out.push("OUTDATED".to_owned());
    }
    if s.resolved {
        out.push("RESOLVED".to_owned());
    }
    if s.minimized {
        out.push(match &s.minimized_reason {
            Some(r) => format!("MINIMIZED({})", r.to_lowercase()),
            None => "MINIMIZED".to_owned(),
        });
    }
    out
}

fn source_line(snapshot: &Snapshot) -> String {
    match &snapshot.origin {
        Origin::Live => "live".to_owned(),
        Origin::Fixture { path, step, steps } => {
            format!("fixture {} (step {step} of {steps})", path.display())
        }
    }
}

/// The PR's state as the listing says it: `open`, `closed` or `merged` (GitHub's OPEN, CLOSED,
/// MERGED; anything else is `unknown`).
fn pr_state(pr: &crate::pr::PrMeta) -> &'static str {
    match pr.state.to_ascii_uppercase().as_str() {
        "OPEN" => "open",
        "CLOSED" => "closed",
        "MERGED" => "merged",
        _ => "unknown",
    }
}

fn ts(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn seen_text(seen_at: Option<i64>) -> Option<String> {
    seen_at
        .and_then(|s| DateTime::<Utc>::from_timestamp(s, 0))
        .map(ts)
}

fn quote(out: &mut String, body: &str) {
    let body = sanitize(body);
    if body.trim().is_empty() {
        out.push_str("> _(empty body)_\n");
        return;
    }
    for line in body.lines() {
        if line.is_empty() {
            out.push_str(">\n");
        } else {
            let _ = writeln!(out, "> {line}");
        }
    }
}

fn comment_header(c: &Comment) -> String {
    let mut h = format!(
        "**@{}** ({}) · {}",
        sanitize(&c.author.login),
        c.author.association.as_str(),
        ts(c.created_at)
    );
    if let Some(e) = c.last_edited_at {
        let _ = write!(h, " · edited {}", ts(e));
    }
    if c.minimized {
        let _ = write!(
            h,
            " · minimized ({})",
            sanitize(c.minimized_reason.as_deref().unwrap_or("no reason"))
        );
    }
    h
}

/// A line diff of a body as last seen against now, as a fenced `diff` block.
fn diff_markdown(out: &mut String, before: &str, after: &str) {
    let (before, after) = (sanitize(before), sanitize(after));
    // A fence longer than any run of backticks in the text, so none inside can close it.
    let fence = "`".repeat(
        longest_backtick_run(&before)
            .max(longest_backtick_run(&after))
            .max(2)
            + 1,
    );
    let _ = writeln!(out, "_Changed since the last look:_\n\n{fence}diff");
    for l in line_diff(&before, &after) {
        let (sign, text) = match l {
            DiffLine::Same(t) => (' ', t),
            DiffLine::Removed(t) => ('-', t),
            DiffLine::Added(t) => ('+', t),
        };
        let _ = writeln!(out, "{sign}{text}");
    }
    let _ = writeln!(out, "{fence}\n");
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn item_markdown(out: &mut String, item: &Item, t: &Triaged, changes: Option<&Changes>, own: bool) {
    let mut badges = badges(item, t.freshness);
    if own {
        badges[0] = SHEPHERD_BADGE.to_owned();
    }
    let badges = badges
        .iter()
        .map(|b| format!("`{b}`"))
        .collect::<Vec<_>>()
        .join(" ");
    let what = match item {
        Item::Thread(th) => format!(
            "Thread on {} ({} comment{})",
            sanitize(&item.location().unwrap_or_default()),
            th.comments.len(),
            if th.comments.len() == 1 { "" } else { "s" }
        ),
        Item::Comment(_) => "Comment".to_owned(),
        Item::Review(r) => format!("Review {}", r.state.as_str()),
    };
    let _ = writeln!(out, "### {what} — @{} {badges}\n", sanitize(item.login()));
    let mut facts = vec![format!("id `{}`", sanitize(item.id()))];
    if let Some(a) = item.author() {
        facts.push(a.association.as_str().to_owned());
    }
    if let Some(c) = item.created_at() {
        facts.push(ts(c));
    }
    if t.freshness == Freshness::Edited
        && let Some(s) = seen_text(t.seen_at)
    {
        facts.push(format!("first seen {s}"));
    }
    let _ = writeln!(out, "{} · <{}>\n", facts.join(" · "), sanitize(item.url()));
    match item {
        Item::Thread(th) => {
            for (i, c) in th.comments.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                let is_new = changes.is_some_and(|ch| ch.is_new_comment(&c.id));
                let _ = writeln!(
                    out,
                    "{}{}\n",
                    comment_header(c),
                    if is_new { " · **NEW**" } else { "" }
                );
                match changes.and_then(|ch| ch.previous_comment_body(&c.id)) {
                    Some(before) => diff_markdown(out, before, &c.body),
                    None => quote(out, &c.body),
                }
            }
        }
        Item::Comment(c) if own => {
            // Shepherd's own review: its text, without the hidden metadata that follows it.
            quote(
                out,
                crate::review::results::outcome::visible(&c.body).trim_end(),
            );
        }
        Item::Comment(c) => {
            if let Some(e) = c.last_edited_at {
                let _ = writeln!(out, "_edited {}_\n", ts(e));
            }
            match changes.and_then(|ch| ch.previous_body.as_deref()) {
                Some(before) => diff_markdown(out, before, &c.body),
                None => quote(out, &c.body),
            }
        }
        Item::Review(r) => {
            if let Some(e) = r.last_edited_at {
                let _ = writeln!(out, "_edited {}_\n", ts(e));
            }
            match changes.and_then(|ch| ch.previous_body.as_deref()) {
                Some(before) => diff_markdown(out, before, &r.body),
                None => quote(out, &r.body),
            }
        }
    }
    out.push('\n');
}

/// The Markdown listing: sections New, Edited since first look, Unchanged. (The whole text;
/// `items` streams it with [`write_markdown`].)
pub fn markdown(snapshot: &Snapshot, triaged: &[Triaged], opts: &ListingOptions) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_markdown(&mut out, snapshot, triaged, opts);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the Markdown listing to `out` as it is rendered, an item at a time through one
/// reused buffer: memory does not grow with the listing, however many items there are.
pub fn write_markdown<W: std::io::Write>(
    out: &mut W,
    snapshot: &Snapshot,
    triaged: &[Triaged],
    opts: &ListingOptions,
) -> std::io::Result<()> {
    /// The buffer is handed to `out` whenever it holds this much.
    const CHUNK: usize = 64 << 10;
    let mut buf = String::with_capacity(2 * CHUNK);
    let flush = |buf: &mut String, out: &mut W, at_least: usize| {
        if buf.len() >= at_least {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
        Ok::<(), std::io::Error>(())
    };
    let pr = &snapshot.pr;
    let _ = writeln!(
        buf,
        "# {}/{}#{}: {}{}\n",
        pr.owner,
        pr.repo,
        pr.number,
        sanitize(&pr.title),
        match pr_state(pr) {
            "merged" => " (merged)",
            "closed" => " (closed)",
            _ => "",
        }
    );
    let short = pr.head_sha.get(..12).unwrap_or(&pr.head_sha);
    let _ = writeln!(
        buf,
        "@{} · head `{}` · {} · <{}>\n",
        sanitize(&pr.author.login),
        sanitize(short),
        source_line(snapshot),
        sanitize(&pr.url)
    );
    let (n, e, u, own) = opts.counts(snapshot, triaged);
    let _ = writeln!(
        buf,
        "{}: {n} new, {e} edited, {u} unchanged{}.\n",
        crate::output::plural::count(triaged.len(), "item"),
        if own == 0 {
            String::new()
        } else {
            format!(", {}", crate::output::plural::count(own, "Shepherd review"))
        }
    );
    for reason in &snapshot.incomplete {
        let _ = writeln!(
            buf,
            "> **INCOMPLETE:** {} — the listing may be missing items; no seen markers are written.\n",
            sanitize(reason)
        );
    }
    for note in &snapshot.notes {
        let _ = writeln!(out, "> **Note:** {}\n", sanitize(note));
    }
    match &opts.markers {
        MarkerPlan::Write => {}
        MarkerPlan::Peek => buf.push_str("_Peek: no seen markers are written._\n\n"),
        MarkerPlan::NotSaved(why) => {
            let _ = writeln!(
                buf,
                "> **Seen markers will not be saved:** {}\n",
                sanitize(why)
            );
        }
    }
    for p in &opts.marker_problems {
        let _ = writeln!(
            buf,
            "> Ignored an unusable seen marker (its item counts as new): {}\n",
            sanitize(p)
        );
        flush(&mut buf, out, CHUNK)?;
    }
    let is_own = |t: &Triaged| snapshot.items.get(t.index).is_some_and(|i| opts.is_own(i));
    let section = |buf: &mut String, out: &mut W, title: &str, f: Option<Freshness>| {
        // `None`: Shepherd's own reviews, whatever their freshness; the others by freshness.
        let wanted = |t: &&Triaged| match f {
            None => is_own(t),
            Some(f) => t.freshness == f && !is_own(t),
        };
        let count = triaged.iter().filter(wanted).count();
        if f.is_none() && count == 0 {
            return Ok(());
        }
        let _ = writeln!(buf, "## {title} ({count})\n");
        if count == 0 {
            buf.push_str("_None._\n\n");
        }
        for t in triaged.iter().filter(wanted) {
            if let Some(item) = snapshot.items.get(t.index) {
                item_markdown(buf, item, t, opts.changes(item, t).as_ref(), f.is_none());
                flush(buf, out, CHUNK)?;
            }
        }
        Ok::<(), std::io::Error>(())
    };
    section(&mut buf, out, "New", Some(Freshness::New))?;
    section(
        &mut buf,
        out,
        "Edited since first look",
        Some(Freshness::Edited),
    )?;
    section(&mut buf, out, "Shepherd's own review", None)?;
    if opts.all {
        section(&mut buf, out, "Unchanged", Some(Freshness::Unchanged))?;
    } else {
        let _ = writeln!(
            buf,
            "## Unchanged ({u})\n\n{}",
            if u == 0 {
                "_None._\n"
            } else {
                "_Seen before and not changed since; `--all` shows them._\n"
            }
        );
    }
    flush(&mut buf, out, 0)
}

/// One thread comment in the JSON listing.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CommentOut<'a> {
    id: &'a str,
    author: &'a str,
    author_association: &'static str,
    author_is_bot: bool,
    #[serde(serialize_with = "time::serialize")]
    created_at: DateTime<Utc>,
    #[serde(serialize_with = "time::serialize_opt")]
    last_edited_at: Option<DateTime<Utc>>,
    url: &'a str,
    body: &'a str,
    minimized: bool,
    minimized_reason: Option<&'a str>,
}

impl<'a> From<&'a Comment> for CommentOut<'a> {
    fn from(c: &'a Comment) -> Self {
        CommentOut {
            id: &c.id,
            author: &c.author.login,
            author_association: c.author.association.as_str(),
            author_is_bot: c.author.bot,
            created_at: c.created_at,
            last_edited_at: c.last_edited_at,
            url: &c.url,
            body: &c.body,
            minimized: c.minimized,
            minimized_reason: c.minimized_reason.as_deref(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemOut<'a> {
    id: &'a str,
    kind: &'static str,
    author: &'a str,
    author_association: Option<&'static str>,
    author_is_bot: bool,
    url: &'a str,
    #[serde(serialize_with = "time::serialize_opt")]
    created_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "time::serialize_opt")]
    last_edited_at: Option<DateTime<Utc>>,
    status: Status,
    freshness: &'static str,
    /// Shepherd's own review (counted in `counts.shepherd`, not as new, edited or unchanged).
    shepherd: bool,
    seen_at: Option<i64>,
    body_hash: &'a str,
    path: Option<&'a str>,
    line: Option<u32>,
    original_line: Option<u32>,
    /// The side `line` counts in (threads, when GitHub said it).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_side: Option<crate::pr::DiffSide>,
    diff_hunk: Option<&'a str>,
    review_state: Option<&'static str>,
    body: &'a str,
    comments: CommentsOut<'a>,
    changes: Option<ChangesOut>,
}

/// `changes` of an edited item: the documented pair, plus the edited thread comments.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangesOut {
    previous_body: Option<String>,
    new_comments: Vec<String>,
    edited_comments: Vec<EditedOut>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EditedOut {
    id: String,
    previous_body: Option<String>,
}

impl From<Changes> for ChangesOut {
    fn from(c: Changes) -> Self {
        ChangesOut {
            previous_body: c.previous_body,
            new_comments: c.new_comments,
            edited_comments: c
                .edited_comments
                .into_iter()
                .map(|e| EditedOut {
                    id: e.id,
                    previous_body: e.previous_body,
                })
                .collect(),
        }
    }
}

/// A thread's comments, serialized straight from the snapshot (no list built per item).
struct CommentsOut<'a>(&'a [Comment]);

impl Serialize for CommentsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(CommentOut::from))
    }
}

fn item_out<'a>(item: &'a Item, t: &'a Triaged, opts: &ListingOptions) -> ItemOut<'a> {
    let (path, line, original_line, diff_side, diff_hunk, comments) = match item {
        Item::Thread(th) => (
            Some(th.path.as_str()),
            th.line,
            th.original_line,
            th.side,
            Some(th.diff_hunk.as_str()),
            CommentsOut(&th.comments),
        ),
        _ => (None, None, None, None, None, CommentsOut(&[])),
    };
    let author = item.author();
    ItemOut {
        id: item.id(),
        kind: item.kind().as_str(),
        author: item.login(),
        author_association: author.map(|a| a.association.as_str()),
        author_is_bot: author.is_some_and(|a| a.bot),
        url: item.url(),
        created_at: item.created_at(),
        last_edited_at: item.last_edited_at(),
        status: item.status(),
        freshness: t.freshness.as_str(),
        shepherd: opts.is_own(item),
        seen_at: t.seen_at,
        body_hash: &t.body_hash,
        path,
        line,
        original_line,
        diff_side,
        diff_hunk,
        review_state: item.review_state().map(|s| s.as_str()),
        body: item.body(),
        comments,
        changes: opts.changes(item, t).map(ChangesOut::from),
    }
}

/// The JSON listing (serialize it): every item, whatever its freshness, in snapshot order.
/// Borrowing structs rather than a `serde_json::Value` tree keep a 10,000-item listing cheap.
#[derive(Serialize)]
pub struct JsonListing<'a> {
    #[serde(flatten)]
    head: JsonHead<'a>,
    items: Vec<ItemOut<'a>>,
}

/// Everything in the listing but its items.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonHead<'a> {
    pr: PrOut<'a>,
    source: SourceOut,
    complete: bool,
    incomplete: &'a [String],
    /// What the fetch settled on its own (a thread cut at its bound, items sent twice).
    notes: &'a [String],
    counts: CountsOut,
    markers: MarkersOut<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PrOut<'a> {
    owner: &'a str,
    repo: &'a str,
    number: u64,
    title: &'a str,
    /// `open`, `closed` or `merged`.
    state: &'static str,
    draft: bool,
    url: &'a str,
    author: &'a str,
    head_sha: &'a str,
    base_sha: &'a str,
    labels: &'a [String],
}

#[derive(Serialize)]
struct SourceOut {
    kind: &'static str,
    step: Option<usize>,
    steps: Option<usize>,
}

#[derive(Serialize)]
struct CountsOut {
    total: usize,
    new: usize,
    edited: usize,
    unchanged: usize,
    shepherd: usize,
}

#[derive(Serialize)]
struct MarkersOut<'a> {
    write: bool,
    reason: Option<&'a str>,
    problems: &'a [String],
}

/// The JSON listing of every item, in snapshot order.
pub fn json<'a>(
    snapshot: &'a Snapshot,
    triaged: &'a [Triaged],
    opts: &'a ListingOptions,
) -> JsonListing<'a> {
    JsonListing {
        head: json_head(snapshot, triaged, opts),
        items: triaged
            .iter()
            .filter_map(|t| snapshot.items.get(t.index).map(|i| item_out(i, t, opts)))
            .collect(),
    }
}

fn json_head<'a>(
    snapshot: &'a Snapshot,
    triaged: &'a [Triaged],
    opts: &'a ListingOptions,
) -> JsonHead<'a> {
    let pr = &snapshot.pr;
    let (new, edited, unchanged, shepherd) = opts.counts(snapshot, triaged);
    let (kind, step, steps) = match &snapshot.origin {
        Origin::Fixture { step, steps, .. } => ("fixture", Some(*step), Some(*steps)),
        Origin::Live => ("live", None, None),
    };
    let (write, reason) = match &opts.markers {
        MarkerPlan::Write => (true, None),
        MarkerPlan::Peek => (false, Some("peek")),
        MarkerPlan::NotSaved(why) => (false, Some(why.as_str())),
    };
    JsonHead {
        pr: PrOut {
            owner: &pr.owner,
            repo: &pr.repo,
            number: pr.number,
            title: &pr.title,
            state: pr_state(pr),
            draft: pr.draft,
            url: &pr.url,
            author: &pr.author.login,
            head_sha: &pr.head_sha,
            base_sha: &pr.base_sha,
            labels: &pr.labels,
        },
        source: SourceOut { kind, step, steps },
        complete: snapshot.is_complete(),
        incomplete: &snapshot.incomplete,
        notes: &snapshot.notes,
        counts: CountsOut {
            total: triaged.len(),
            new,
            edited,
            unchanged,
            shepherd,
        },
        markers: MarkersOut {
            write,
            reason,
            problems: &opts.marker_problems,
        },
    }
}

/// Writes the JSON listing followed by a newline: byte for byte what
/// `serde_json::to_writer_pretty(out, &json(..))` writes, but with the items rendered on several
/// threads, a batch at a time (so memory stays bounded however many items there are).
pub fn write_json<W: std::io::Write>(
    out: &mut W,
    snapshot: &Snapshot,
    triaged: &[Triaged],
    opts: &ListingOptions,
) -> std::io::Result<()> {
    let head = serde_json::to_vec_pretty(&json_head(snapshot, triaged, opts))?;
    // A pretty object ends with "\n}"; the items go in as its last member.
    let open = head.strip_suffix(b"\n}").ok_or_else(|| {
        std::io::Error::other("the listing's head did not render as a JSON object")
    })?;
    out.write_all(open)?;
    out.write_all(b",\n  \"items\": [")?;
    // A batch at a time, one buffer per thread, reused: memory stays bounded and the buffers'
    // pages are touched once (fresh pages are costly), however many items there are.
    const PER_THREAD: usize = 256;
    let threads = crate::par::cores();
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); threads];
    let batch_len = PER_THREAD * threads;
    for (b, batch) in triaged.chunks(batch_len).enumerate() {
        let first = b * batch_len;
        let done = crate::par::for_chunks_with(batch, &mut buffers, 64, |start, part, buf| {
            buf.clear();
            render_items(snapshot, opts, part, first + start, buf)
        });
        let done = done.ok_or_else(|| std::io::Error::other("a rendering thread failed"))?;
        for (rendered, buf) in done.into_iter().zip(&buffers) {
            rendered?;
            out.write_all(buf)?;
        }
    }
    out.write_all(if triaged.is_empty() {
        b"]\n}\n"
    } else {
        b"\n  ]\n}\n"
    })
}

/// Renders items as members of the listing's `items` array (each preceded by its separator),
/// indented as they sit in the whole document. `first` is the index of `part[0]` in the array.
fn render_items(
    snapshot: &Snapshot,
    opts: &ListingOptions,
    part: &[Triaged],
    first: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<()> {
    for (i, t) in part.iter().enumerate() {
        let Some(item) = snapshot.items.get(t.index) else {
            continue;
        };
        buf.extend_from_slice(if first + i == 0 {
            b"\n    "
        } else {
            b",\n    "
        });
        let mut ser = serde_json::Serializer::with_formatter(&mut *buf, NestedPretty::at_depth(2));
        item_out(item, t, opts).serialize(&mut ser)?;
    }
    Ok(())
}

/// serde_json's pretty layout (two-space indent) for a value that sits `depth` levels deep in
/// a larger document, so parts of one document can be rendered apart and joined.
struct NestedPretty {
    depth: usize,
    has_value: bool,
}

impl NestedPretty {
    fn at_depth(depth: usize) -> Self {
        NestedPretty {
            depth,
            has_value: false,
        }
    }

    fn newline<W: ?Sized + std::io::Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        w.write_all(if comma { b",\n" } else { b"\n" })?;
        self.indent(w)
    }

    fn indent<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        const SPACES: &[u8] = &[b' '; 64];
        let mut left = 2 * self.depth;
        while left > 0 {
            let n = left.min(SPACES.len());
            w.write_all(&SPACES[..n])?;
            left -= n;
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, c: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(c)
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, c: &[u8]) -> std::io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            w.write_all(b"\n")?;
            self.indent(w)?;
        }
        w.write_all(c)
    }
}

impl serde_json::ser::Formatter for NestedPretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, !first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, !first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use crate::ledger::Marker;
    use crate::source::synth::{SynthSpec, synth};
    use crate::source::{DEMO_FIXTURE, Fixture};
    use crate::triage::triage;

    fn opts(markers: MarkerPlan) -> ListingOptions {
        ListingOptions {
            all: false,
            markers,
            marker_problems: vec!["seen/x.json: corrupt".to_owned()],
            kept: HashMap::new(),
            own: HashSet::new(),
        }
    }

    /// The parallel writer must produce exactly serde_json's pretty rendering.
    fn assert_same_as_serde(snapshot: &Snapshot, triaged: &[Triaged], opts: &ListingOptions) {
        let mut expected = serde_json::to_vec_pretty(&json(snapshot, triaged, opts)).unwrap();
        expected.push(b'\n');
        let mut got = Vec::new();
        write_json(&mut got, snapshot, triaged, opts).unwrap();
        if got != expected {
            let at = got
                .iter()
                .zip(&expected)
                .take_while(|(a, b)| a == b)
                .count();
            let from = at.saturating_sub(80);
            panic!(
                "differs at byte {at}:\n got: {:?}\nwant: {:?}",
                String::from_utf8_lossy(&got[from..(at + 80).min(got.len())]),
                String::from_utf8_lossy(&expected[from..(at + 80).min(expected.len())]),
            );
        }
    }

    #[test]
    fn json_writer_matches_serde_on_the_demo_with_every_freshness() {
        let f = Fixture::parse(DEMO_FIXTURE, std::path::Path::new("demo.json")).unwrap();
        let snapshot = f.snapshot_at(f.steps.len()).unwrap();
        // Some items seen with their current hash, some with an old one, the rest new.
        let mut markers = HashMap::new();
        for (i, item) in snapshot.items.iter().enumerate() {
            let hash = match i % 3 {
                0 => continue,
                1 => item.body_hash(),
                _ => "0000000000000000".to_owned(),
            };
            let id = item.id().to_owned();
            markers.insert(
                id.clone(),
                Marker {
                    id,
                    seen_at: 1_700_000_000,
                    body_hash: hash,
                    extra: serde_json::Map::new(),
                },
            );
        }
        let triaged = triage(&snapshot, &markers);
        assert_same_as_serde(&snapshot, &triaged, &opts(MarkerPlan::Write));
        assert_same_as_serde(&snapshot, &triaged, &opts(MarkerPlan::Peek));
        assert_same_as_serde(
            &snapshot,
            &triaged,
            &opts(MarkerPlan::NotSaved("read-only".into())),
        );
    }

    #[test]
    fn json_writer_matches_serde_when_empty_and_across_threads_and_batches() {
        let f = Fixture::parse(DEMO_FIXTURE, std::path::Path::new("demo.json")).unwrap();
        let mut empty = f.snapshot_at(0).unwrap();
        empty.items.clear();
        empty.incomplete.push("reviews: HTTP 502".to_owned());
        assert_same_as_serde(&empty, &[], &opts(MarkerPlan::Write));

        let big = synth(SynthSpec {
            threads: 1_500,
            comments: 2_000,
            reviews: 700,
            replies: 2,
            seed: 7,
        });
        let snapshot = big.snapshot_at(0).unwrap();
        let triaged = triage(&snapshot, &HashMap::new());
        assert_eq!(triaged.len(), 4_200);
        assert_same_as_serde(&snapshot, &triaged, &opts(MarkerPlan::Write));
    }
}
