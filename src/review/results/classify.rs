//! New / unchanged / addressed (pure), against the earlier Shepherd reviews on the PR.
//!
//! - **addressed**: a prior finding that a later comment or thread reply mentions by id and that
//!   ends with the reply marker (default `— AI Coding Agent`), or that the maintainer marked
//!   addressed in the console, or that an earlier review already treated as addressed. It is not
//!   raised again, and is listed under "Treated as addressed", saying who addressed it. A marker
//!   reply counts only from an author the gates trust ([`ReplyTrust`]: the team, or an account
//!   in `[review] agent_logins`), never when it is minimized, and only by its own words: the id
//!   and the marker inside a `>` quote, a code block, inline code or an HTML comment are
//!   someone else's words or no words at all, and count for nothing.
//! - **unchanged**: a prior finding still reported and not addressed: raised again, marked so.
//! - **new**: everything else.
//! - Prior findings neither addressed nor reported again are **no longer reported**: listed,
//!   never silently dropped.
//!
//! A finding's id is a hash of its aspect, file and normalized message, so "the same finding"
//! means the same wording. A review condensed to fit GitHub's comment limit keeps only the
//! beginning of each message in its metadata (marked `shortened`), and the next review's model
//! sees only that beginning. [`adopt_prior_ids`] bridges the gap when the answer comes in: a
//! finding whose aspect and file match a shortened prior finding and whose normalized message
//! starts with that prior's normalized beginning (its last, possibly cut, word left out) **is**
//! that prior finding and takes its id — so ids stay stable across reviews and it classifies as
//! unchanged. Each prior finding is taken at most once; an exact id match comes first, then the
//! longest matching beginning; two candidates with equally long beginnings match neither. A
//! prior finding whose message was dropped altogether (nothing to compare) matches only by id.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::pr::is_review_body;
use crate::pr::{Comment, Item, Snapshot};
use crate::review::findings::Finding;
use crate::review::inputs::prior::{MetaFinding, PriorReviews, normalize_message};
pub(crate) use crate::review::inputs::prior::{ReplyTrust, Trusted};

pub(crate) use crate::review::findings::DEFAULT_REPLY_MARKER;

/// Why a finding counts as addressed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "camelCase")]
pub enum AddressedBy {
    /// A marker reply: the comment's node id, URL and author, and why the author is trusted.
    #[serde(rename_all = "camelCase")]
    Reply {
        comment_id: String,
        url: String,
        author: String,
        trust: Trusted,
    },
    /// The maintainer marked it in the console.
    Console,
    /// An earlier review already treated it as addressed.
    Earlier,
}

/// Finding ids (`PS-` + 10 hex) mentioned in a text.
pub fn mentioned_ids(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(pos) = text[i..].find("PS-") {
        let start = i + pos;
        let end = start + 13;
        let boundary_before = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        let boundary_after = bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric());
        if end <= bytes.len()
            && boundary_before
            && boundary_after
            && bytes[start + 3..end].iter().all(|b| b.is_ascii_hexdigit())
        {
            out.push(&text[start..end]);
        }
        i = start + 3;
    }
    out
}

/// A comment's own words: its text without `>` quotes, fenced and indented code blocks, inline
/// code and HTML comments (an unclosed fence or comment runs to the end, as it renders).
pub fn own_words(body: &str) -> String {
    let mut kept = String::new();
    let mut fence: Option<(char, usize)> = None;
    for line in body.lines() {
        let t = line.trim_start();
        let run = |c: char| t.chars().take_while(|x| *x == c).count();
        if let Some((c, n)) = fence {
            if run(c) >= n && t.trim_start_matches(c).trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if let Some(c) = t.chars().next().filter(|c| *c == '`' || *c == '~')
            && run(c) >= 3
        {
            fence = Some((c, run(c)));
            continue;
        }
        if t.starts_with('>') || line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    without_spans(&without_html_comments(&kept))
}

fn without_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start + 4..].find("-->") {
            Some(end) => rest = &rest[start + 4 + end + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Inline code spans (a run of backticks up to the next run of the same length) as one space;
/// a run without its match is literal text.
fn without_spans(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let open = rest[start..].bytes().take_while(|b| *b == b'`').count();
        let after = &rest[start + open..];
        let mut close = None;
        let mut i = 0;
        while let Some(at) = after[i..].find('`') {
            let at = i + at;
            let n = after[at..].bytes().take_while(|b| *b == b'`').count();
            if n == open {
                close = Some(at);
                break;
            }
            i = at + n;
        }
        match close {
            Some(at) => {
                out.push(' ');
                rest = &after[at + open..];
            }
            None => {
                out.push_str(&rest[start..start + open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `c` is Shepherd's own writing, whose words may be the model's and so never count as a
/// marker reply: a Shepherd review body (the summary), or — by the credentials' own identity
/// (`trust.shepherd_login`) — a thread's first comment (an inline comment Shepherd posted) or a
/// comment carrying Shepherd's hidden metadata (`<!-- pr-shepherd:…`). The own account's other
/// comments (a reply written by hand, or by a coding agent sharing the account) still count.
fn is_shepherds_writing(c: &Comment, trust: &ReplyTrust, thread_root: bool) -> bool {
    if is_review_body(&c.body) {
        return true;
    }
    let own = trust
        .shepherd_login
        .as_deref()
        .is_some_and(|l| !l.is_empty() && c.author.login.eq_ignore_ascii_case(l));
    own && (thread_root || c.body.contains(HIDDEN_METADATA_PREFIX))
}

/// What every hidden marker Shepherd writes into a comment starts with (the review's metadata,
/// a finding id on an inline comment, a submitted review's key).
const HIDDEN_METADATA_PREFIX: &str = "<!-- pr-shepherd:";

/// Finds marker replies: every conversation comment and thread comment (not Shepherd's own
/// writing: [`is_shepherds_writing`]) whose own words ([`own_words`]) end with `marker` marks
/// the finding ids its own words mention as addressed — when its author is one `trust` trusts
/// and it is not minimized.
pub fn addressed_by_replies(
    snapshot: &Snapshot,
    marker: &str,
    trust: &ReplyTrust,
) -> HashMap<String, AddressedBy> {
    let mut out = HashMap::new();
    let mut consider = |c: &Comment, thread_root: bool| {
        if c.minimized || is_shepherds_writing(c, trust, thread_root) {
            return;
        }
        let Some(trusted) = trust.trusts(&c.author) else {
            return;
        };
        let own = own_words(&c.body);
        if !own.trim_end().ends_with(marker) {
            return;
        }
        for id in mentioned_ids(&own) {
            out.entry(id.to_owned())
                .or_insert_with(|| AddressedBy::Reply {
                    comment_id: c.id.clone(),
                    url: c.url.clone(),
                    author: c.author.login.clone(),
                    trust: trusted,
                });
        }
    };
    for item in &snapshot.items {
        match item {
            Item::Comment(c) => consider(c, false),
            Item::Thread(t) => {
                for (i, c) in t.comments.iter().enumerate() {
                    consider(c, i == 0);
                }
            }
            Item::Review(_) => {}
        }
    }
    for (id, by) in addressed_in_inline_threads(snapshot, marker, trust) {
        out.entry(id).or_insert(by);
    }
    out
}

/// Marker replies in threads on Shepherd's inline comments: a thread whose first comment is
/// Shepherd's own (by `trust.shepherd_login`) and carries a finding id in its hidden metadata
/// is about that finding, so a later reply there that the trust rule accepts and whose own words
/// end with `marker` addresses it, whether it names the id or not.
fn addressed_in_inline_threads(
    snapshot: &Snapshot,
    marker: &str,
    trust: &ReplyTrust,
) -> Vec<(String, AddressedBy)> {
    let Some(own) = trust.shepherd_login.as_deref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in &snapshot.items {
        let Item::Thread(t) = item else { continue };
        let Some((root, replies)) = t.comments.split_first() else {
            continue;
        };
        if !root.author.login.eq_ignore_ascii_case(own) {
            continue;
        }
        let Some(id) = crate::code::pending::marked_finding(&root.body) else {
            continue;
        };
        let found = replies.iter().find_map(|c| {
            if c.minimized
                || is_shepherds_writing(c, trust, false)
                || !own_words(&c.body).trim_end().ends_with(marker)
            {
                return None;
            }
            let trusted = trust.trusts(&c.author)?;
            Some(AddressedBy::Reply {
                comment_id: c.id.clone(),
                url: c.url.clone(),
                author: c.author.login.clone(),
                trust: trusted,
            })
        });
        if let Some(by) = found {
            out.push((id.to_owned(), by));
        }
    }
    out
}

/// Gives each of `findings` (one model answer) the id of the shortened prior finding it
/// continues, if any (see the module docs). Returns how many ids were adopted.
pub fn adopt_prior_ids(findings: &mut [Finding], prior: &[MetaFinding]) -> usize {
    fn same_file(a: &str, b: &str) -> bool {
        a.trim().trim_start_matches("./") == b.trim().trim_start_matches("./")
    }
    // The words of each shortened prior's beginning, without the last (perhaps cut) one.
    let beginnings: Vec<Option<Vec<String>>> = prior
        .iter()
        .map(|p| {
            if !p.shortened {
                return None;
            }
            let mut words: Vec<String> = normalize_message(p.message.trim_end_matches('…'))
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect();
            words.pop();
            (!words.is_empty()).then_some(words)
        })
        .collect();
    let mut taken: HashSet<usize> = prior
        .iter()
        .enumerate()
        .filter(|(_, p)| findings.iter().any(|f| f.id == p.id))
        .map(|(i, _)| i)
        .collect();
    let mut adopted = 0;
    for f in findings.iter_mut() {
        if prior.iter().any(|p| p.id == f.id) {
            continue;
        }
        let words: Vec<String> = normalize_message(&f.message)
            .split(' ')
            .map(str::to_owned)
            .collect();
        let mut best: Option<(usize, usize)> = None;
        let mut tied = false;
        for (i, p) in prior.iter().enumerate() {
            let Some(Some(begin)) = beginnings.get(i) else {
                continue;
            };
            if taken.contains(&i)
                || p.aspect != f.aspect.as_str()
                || !same_file(&p.file, &f.file)
                || !words.starts_with(begin)
            {
                continue;
            }
            match best {
                Some((_, len)) if len > begin.len() => {}
                Some((_, len)) if len == begin.len() => tied = true,
                _ => {
                    best = Some((i, begin.len()));
                    tied = false;
                }
            }
        }
        if let (Some((i, _)), false) = (best, tied)
            && let Some(p) = prior.get(i)
        {
            f.id = p.id.clone();
            taken.insert(i);
            adopted += 1;
        }
    }
    adopted
}

/// The classification of one review pass. Indices point into the current findings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classification {
    pub new: Vec<usize>,
    pub unchanged: Vec<usize>,
    /// Prior (or current) findings treated as addressed, with why; not raised again.
    pub addressed: Vec<(MetaFinding, AddressedBy)>,
    /// Current findings not raised because their id is addressed.
    pub suppressed: Vec<usize>,
    /// Prior findings neither addressed nor reported again.
    pub not_reported: Vec<MetaFinding>,
}

/// Classifies the current findings (given as `MetaFinding`s with their stable ids) against the
/// prior reviews. `console_addressed` holds ids the maintainer marked addressed.
pub fn classify(
    current: &[MetaFinding],
    prior: &PriorReviews,
    replies: &HashMap<String, AddressedBy>,
    console_addressed: &HashSet<String>,
) -> Classification {
    let prior_findings = prior.findings();
    let earlier_addressed = prior.addressed();
    let why = |id: &str| -> Option<AddressedBy> {
        if console_addressed.contains(id) {
            Some(AddressedBy::Console)
        } else if let Some(r) = replies.get(id) {
            Some(r.clone())
        } else if earlier_addressed.iter().any(|f| f.id == id) {
            Some(AddressedBy::Earlier)
        } else {
            None
        }
    };
    let mut out = Classification::default();
    let mut seen_addressed = HashSet::new();
    // Only ids that Shepherd raised before can be addressed; a marker reply naming an id never
    // raised cannot suppress a new finding.
    let known = |id: &str| {
        prior_findings.iter().any(|f| f.id == id) || earlier_addressed.iter().any(|f| f.id == id)
    };
    for (i, f) in current.iter().enumerate() {
        match why(&f.id).filter(|_| known(&f.id) || console_addressed.contains(&f.id)) {
            Some(by) => {
                out.suppressed.push(i);
                if seen_addressed.insert(f.id.clone()) {
                    out.addressed.push((f.clone(), by));
                }
            }
            None if prior_findings.iter().any(|p| p.id == f.id) => out.unchanged.push(i),
            None => out.new.push(i),
        }
    }
    let current_ids: HashSet<&str> = current.iter().map(|f| f.id.as_str()).collect();
    for p in prior_findings.iter().chain(&earlier_addressed) {
        if current_ids.contains(p.id.as_str()) || seen_addressed.contains(&p.id) {
            continue;
        }
        match why(&p.id) {
            Some(by) => {
                seen_addressed.insert(p.id.clone());
                out.addressed.push((p.clone(), by));
            }
            None => out.not_reported.push(p.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests;
