//! Earlier Shepherd reviews, read from the PR itself (never from SHA ranges), so recovery
//! survives rebases, force pushes and a fresh machine.
//!
//! A posted review is one conversation comment that starts with [`REVIEW_HEADER`] and carries a
//! hidden metadata block `<!-- pr-shepherd:meta {json} -->` with its mode, head SHA, trigger and
//! findings.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::policy::Mode;
pub use crate::pr::REVIEW_HEADER;
use crate::pr::{Item, OutboxComment, Snapshot, is_review_body};

pub(crate) const META_OPEN: &str = "<!-- pr-shepherd:meta ";
const META_CLOSE: &str = " -->";
/// The metadata format version written by this build.
pub(crate) const META_VERSION: u32 = 1;

/// One finding as remembered in a posted review.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetaFinding {
    pub id: String,
    pub aspect: String,
    pub severity: String,
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
    /// The message was shortened (or dropped) to fit GitHub's comment limit (compact metadata):
    /// `message` is only its beginning. See [`crate::review::results::classify::adopt_prior_ids`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shortened: bool,
    /// Findings history: how many Shepherd reviews (the one carrying it included) reported it.
    /// Left out when 1, so the hidden metadata stays compact; read back as 1.
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub reviews: u32,
    /// The head SHA of the first Shepherd review that raised it. Left out when it is the head of
    /// the review carrying it; read back as that head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_sha: Option<String>,
}

fn at_most_one(n: &u32) -> bool {
    *n <= 1
}

impl MetaFinding {
    /// The findings history as `(reviews, first head SHA)`, once filled ([`ReviewMeta::fill_history`]).
    pub fn history(&self) -> (u32, &str) {
        (self.reviews.max(1), self.first_sha.as_deref().unwrap_or(""))
    }

    /// "reported in N reviews since abc1234" (the markdown and the prompts say it this way).
    pub(crate) fn history_said(&self) -> String {
        let (n, sha) = self.history();
        format!(
            "reported in {n} review{} since {}",
            if n == 1 { "" } else { "s" },
            sha.get(..7).unwrap_or(sha)
        )
    }
}

/// The hidden metadata of a posted review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewMeta {
    pub version: u32,
    pub mode: Mode,
    pub head_sha: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_comment: Option<u64>,
    /// Where the trigger was written; absent for a conversation comment (and without a trigger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_kind: Option<crate::policy::TriggerKind>,
    /// Findings raised (new or unchanged) by this review.
    #[serde(default)]
    pub findings: Vec<MetaFinding>,
    /// Findings treated as addressed so far (carried forward so they are never raised again).
    #[serde(default)]
    pub addressed: Vec<MetaFinding>,
}

impl ReviewMeta {
    /// Fills the compact history of every finding read back: absent counts are 1, an absent
    /// first SHA is this review's head.
    pub(crate) fn fill_history(&mut self) {
        let head = self.head_sha.clone();
        for f in self.findings.iter_mut().chain(self.addressed.iter_mut()) {
            f.reviews = f.reviews.max(1);
            if f.first_sha.is_none() {
                f.first_sha = Some(head.clone());
            }
        }
    }

    /// The inverse of [`ReviewMeta::fill_history`] before writing: what reading back fills in is
    /// left out.
    pub(crate) fn compact_history(&mut self) {
        let head = self.head_sha.clone();
        for f in self.findings.iter_mut().chain(self.addressed.iter_mut()) {
            if f.first_sha.as_deref() == Some(head.as_str()) {
                f.first_sha = None;
            }
            if f.reviews <= 1 {
                f.reviews = 0;
            }
        }
    }
}

/// Normalizes a finding message for its id: case, whitespace, punctuation and numbers (line
/// numbers, sizes, SHAs) do not change which finding it is.
pub(crate) fn normalize_message(message: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for token in message
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
    {
        let is_sha = token.len() >= 7
            && token.bytes().all(|b| b.is_ascii_hexdigit())
            && token.bytes().any(|b| b.is_ascii_digit());
        if is_sha {
            out.push("#".to_owned());
            continue;
        }
        let mut word = String::with_capacity(token.len());
        let mut last_num = false;
        for c in token.chars() {
            if c.is_ascii_digit() {
                if !last_num {
                    word.push('#');
                }
                last_num = true;
            } else {
                last_num = false;
                word.extend(c.to_lowercase());
            }
        }
        out.push(word);
    }
    out.join(" ")
}

/// The stable id of a finding: `PS-` and 10 hex characters of SHA-256 over the aspect, the file
/// and the normalized message. No SHA or line number goes in, so a rebase or a line shift keeps it.
pub fn finding_id(aspect: &str, file: &str, message: &str) -> String {
    let mut h = Sha256::new();
    h.update(aspect.trim().to_lowercase().as_bytes());
    h.update([0]);
    h.update(file.trim().trim_start_matches("./").as_bytes());
    h.update([0]);
    h.update(normalize_message(message).as_bytes());
    let hex = format!("{:x}", h.finalize());
    format!("PS-{}", &hex[..10])
}

/// The metadata block to append to a review body. `<` and `>` inside strings are escaped, so no
/// finding text can close the HTML comment early.
pub(crate) fn render_meta(meta: &ReviewMeta) -> String {
    let mut meta = meta.clone();
    meta.compact_history();
    let json = serde_json::to_string(&meta)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e");
    format!("{META_OPEN}{json}{META_CLOSE}")
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetaError {
    #[error("the review's metadata block is not closed")]
    Unclosed,
    #[error("the review's metadata is not readable: {0}")]
    Invalid(String),
}

/// The metadata format version of a compact block (see [`render_meta_compact`]).
pub(crate) const META_VERSION_COMPACT: u32 = 2;

/// The metadata block in its compact form, for a review condensed to fit GitHub's comment
/// limit: every finding keeps its id, aspect, severity, file and line (what the next review
/// needs to classify it and to list it); messages are cut to `message_chars` characters (0 drops
/// them). Files are written once, in a table; a finding is
/// `[id without "PS-", aspect index or name, severity letter, file index, line or 0, message?,
/// 1 when the message was shortened?]`; a finding without a message had it dropped.
/// [`parse_meta`] reads both forms.
pub(crate) fn render_meta_compact(meta: &ReviewMeta, message_chars: usize) -> String {
    let mut files: Vec<String> = Vec::new();
    let mut encode = |f: &MetaFinding| -> Vec<serde_json::Value> {
        let file = match files.iter().position(|x| *x == f.file) {
            Some(i) => i,
            None => {
                files.push(f.file.clone());
                files.len() - 1
            }
        };
        let aspect = match crate::review::Aspect::ALL
            .iter()
            .position(|a| a.as_str() == f.aspect)
        {
            Some(i) => serde_json::Value::from(i),
            None => serde_json::Value::from(f.aspect.clone()),
        };
        let severity = match f.severity.as_str() {
            "critical" => "c".to_owned(),
            "important" => "i".to_owned(),
            "suggestion" => "s".to_owned(),
            other => other.to_owned(),
        };
        let mut v = vec![
            serde_json::Value::from(f.id.strip_prefix("PS-").unwrap_or(&f.id)),
            aspect,
            serde_json::Value::from(severity),
            serde_json::Value::from(file),
            serde_json::Value::from(f.line.unwrap_or(0)),
        ];
        let whole = crate::sanitize::one_line(&f.message);
        let message = shorten(&whole, message_chars);
        if !message.is_empty() {
            let cut = message != whole;
            v.push(serde_json::Value::from(message));
            if cut || f.shortened {
                v.push(serde_json::Value::from(1));
            }
        }
        v
    };
    let findings: Vec<_> = meta.findings.iter().map(&mut encode).collect();
    let addressed: Vec<_> = meta.addressed.iter().map(&mut encode).collect();
    // The findings history, only where it says more than "first raised here": `[id without
    // "PS-", reviews, index into shas]`, each head SHA written once.
    let mut shas: Vec<String> = Vec::new();
    let mut history: Vec<serde_json::Value> = Vec::new();
    for f in &meta.findings {
        let first = f
            .first_sha
            .as_deref()
            .filter(|s| !s.is_empty() && *s != meta.head_sha);
        if f.reviews <= 1 && first.is_none() {
            continue;
        }
        let first = first.unwrap_or(&meta.head_sha);
        let at = match shas.iter().position(|x| x == first) {
            Some(i) => i,
            None => {
                shas.push(first.to_owned());
                shas.len() - 1
            }
        };
        history.push(serde_json::json!([
            f.id.strip_prefix("PS-").unwrap_or(&f.id),
            f.reviews.max(1),
            at
        ]));
    }
    let mut compact =
        serde_json::json!({"files": files, "findings": findings, "addressed": addressed});
    if !history.is_empty() {
        compact["shas"] = serde_json::json!(shas);
        compact["history"] = serde_json::json!(history);
    }
    let mut wire = serde_json::json!({
        "version": META_VERSION_COMPACT,
        "mode": meta.mode,
        "headSha": meta.head_sha,
        "triggerComment": meta.trigger_comment,
        "compact": compact,
    });
    if let Some(k) = meta
        .trigger_kind
        .filter(|k| *k != crate::policy::TriggerKind::Comment)
    {
        wire["triggerKind"] = serde_json::json!(k);
    }
    let json = serde_json::to_string(&wire)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e");
    format!("{META_OPEN}{json}{META_CLOSE}")
}

/// `text` cut to `max` characters, ending with `…` when cut; empty for `max == 0`.
pub fn shorten(text: &str, max: usize) -> String {
    if max == 0 {
        return String::new();
    }
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The metadata as written: the full form, or the compact one (`compact`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireMeta {
    version: u32,
    mode: Mode,
    head_sha: String,
    #[serde(default)]
    trigger_comment: Option<u64>,
    #[serde(default)]
    trigger_kind: Option<crate::policy::TriggerKind>,
    #[serde(default)]
    findings: Vec<MetaFinding>,
    #[serde(default)]
    addressed: Vec<MetaFinding>,
    #[serde(default)]
    compact: Option<CompactWire>,
}

#[derive(Deserialize)]
struct CompactWire {
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    findings: Vec<Vec<serde_json::Value>>,
    #[serde(default)]
    addressed: Vec<Vec<serde_json::Value>>,
    /// Head SHAs the history points into.
    #[serde(default)]
    shas: Vec<String>,
    /// `[id without "PS-", reviews, index into shas]`.
    #[serde(default)]
    history: Vec<(String, u32, usize)>,
}

fn decode_compact(files: &[String], v: &[serde_json::Value]) -> Result<MetaFinding, MetaError> {
    let bad = || MetaError::Invalid(format!("a compact finding is malformed: {v:?}"));
    let id = v.first().and_then(|x| x.as_str()).ok_or_else(bad)?;
    let aspect = match v.get(1).ok_or_else(bad)? {
        serde_json::Value::String(s) => s.clone(),
        n => n
            .as_u64()
            .and_then(|i| crate::review::Aspect::ALL.get(usize::try_from(i).ok()?))
            .map(|a| a.as_str().to_owned())
            .ok_or_else(bad)?,
    };
    let severity = match v.get(2).and_then(|x| x.as_str()).ok_or_else(bad)? {
        "c" => "critical".to_owned(),
        "i" => "important".to_owned(),
        "s" => "suggestion".to_owned(),
        other => other.to_owned(),
    };
    let file = v
        .get(3)
        .and_then(|x| x.as_u64())
        .and_then(|i| files.get(usize::try_from(i).ok()?))
        .ok_or_else(bad)?
        .clone();
    let line = v
        .get(4)
        .and_then(|x| x.as_u64())
        .and_then(|l| u32::try_from(l).ok())
        .filter(|l| *l > 0);
    let message = v
        .get(5)
        .and_then(|x| x.as_str())
        .unwrap_or_default()
        .to_owned();
    // Marked (this build), dropped, or (compact blocks written before the mark) ending in `…`.
    let shortened = v.get(6).and_then(serde_json::Value::as_u64) == Some(1)
        || message.is_empty()
        || message.ends_with('…');
    Ok(MetaFinding {
        id: if id.starts_with("PS-") {
            id.to_owned()
        } else {
            format!("PS-{id}")
        },
        aspect,
        severity,
        file,
        line,
        message,
        shortened,
        ..MetaFinding::default()
    })
}

impl TryFrom<WireMeta> for ReviewMeta {
    type Error = MetaError;

    fn try_from(w: WireMeta) -> Result<ReviewMeta, MetaError> {
        let mut meta = ReviewMeta {
            version: w.version,
            mode: w.mode,
            head_sha: w.head_sha,
            trigger_comment: w.trigger_comment,
            trigger_kind: w.trigger_kind,
            findings: w.findings,
            addressed: w.addressed,
        };
        if let Some(c) = w.compact {
            for v in &c.findings {
                meta.findings.push(decode_compact(&c.files, v)?);
            }
            for v in &c.addressed {
                meta.addressed.push(decode_compact(&c.files, v)?);
            }
            for (id, reviews, at) in &c.history {
                let sha = c.shas.get(*at).ok_or_else(|| {
                    MetaError::Invalid(format!("a compact history entry is malformed: {id}"))
                })?;
                let id = format!("PS-{}", id.trim_start_matches("PS-"));
                for f in meta.findings.iter_mut().filter(|f| f.id == id) {
                    f.reviews = *reviews;
                    f.first_sha = Some(sha.clone());
                }
            }
        }
        Ok(meta)
    }
}

/// Reads the metadata block of a review body (full or compact form); `Ok(None)` when there is
/// none.
pub fn parse_meta(body: &str) -> Result<Option<ReviewMeta>, MetaError> {
    let Some(start) = body.rfind(META_OPEN) else {
        return Ok(None);
    };
    let rest = &body[start + META_OPEN.len()..];
    let end = rest.find(META_CLOSE).ok_or(MetaError::Unclosed)?;
    let wire: WireMeta =
        serde_json::from_str(&rest[..end]).map_err(|e| MetaError::Invalid(e.to_string()))?;
    let mut meta = ReviewMeta::try_from(wire)?;
    meta.fill_history();
    Ok(Some(meta))
}

/// An earlier Shepherd review found on the PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorReview {
    /// GitHub node id of the comment.
    pub comment_id: String,
    pub url: String,
    pub created_at: DateTime<Utc>,
    pub meta: Option<ReviewMeta>,
    /// Why the metadata could not be read, when it could not.
    pub meta_error: Option<MetaError>,
}

/// What the PR says about earlier Shepherd reviews.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriorReviews {
    /// Reviews by `own_login`, oldest first. Only these are read, and only these are updated.
    pub own: Vec<PriorReview>,
    /// Comments that look like Shepherd reviews but were posted by someone else: ignored, and
    /// never edited. Their node ids.
    pub lookalikes: Vec<String>,
    /// Whose marker replies may mark these reviews' findings addressed
    /// (`review::results::classify::addressed_by_replies`). [`crate::review::flow::prepare`] fills it from
    /// the settings, so every front end's review carries it to the classification.
    pub reply_trust: ReplyTrust,
}

/// Who may mark an earlier finding addressed with a marker reply: the team as the gates decide
/// it (OWNER and MEMBER; COLLABORATOR with `[gates] collaborators_are_team`; never a bot), and
/// the accounts named in `[review] agent_logins` (the coding agent's bot). Nobody else — a
/// drive-by account, another bot — however the reply is worded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplyTrust {
    /// `[gates] collaborators_are_team`.
    pub collaborators_are_team: bool,
    /// `[review] agent_logins`, compared case-insensitively (GitHub logins are).
    pub agent_logins: Vec<String>,
    /// Shepherd's own account: a trusted marker reply in a thread whose first comment is this
    /// account's inline comment carrying a finding id (hidden metadata) addresses that finding.
    pub shepherd_login: Option<String>,
}

/// Why a marker reply's author is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trusted {
    /// A team member, as the gates decide it.
    Team,
    /// An account named in `[review] agent_logins`.
    Agent,
}

impl Trusted {
    /// How the review says it.
    pub fn said(self) -> &'static str {
        match self {
            Trusted::Team => "team",
            Trusted::Agent => "agent login",
        }
    }
}

impl ReplyTrust {
    /// Whether a marker reply by `author` may mark a finding addressed, and why.
    pub(crate) fn trusts(&self, author: &crate::pr::Author) -> Option<Trusted> {
        if self
            .agent_logins
            .iter()
            .any(|l| l.eq_ignore_ascii_case(&author.login))
        {
            return Some(Trusted::Agent);
        }
        let gates = crate::policy::GateConfig {
            collaborators_are_team: self.collaborators_are_team,
            ..crate::policy::GateConfig::default()
        };
        let bot = author.bot || author.login.ends_with("[bot]");
        let team = crate::policy::membership(author.association, &gates)
            == crate::policy::Membership::Team;
        (team && !bot).then_some(Trusted::Team)
    }
}

impl PriorReviews {
    /// The newest own review, the one a post updates.
    pub fn latest(&self) -> Option<&PriorReview> {
        self.own.last()
    }

    /// Every finding raised before (later reviews win for the same id).
    pub fn findings(&self) -> Vec<MetaFinding> {
        merge(
            self.own
                .iter()
                .filter_map(|r| r.meta.as_ref())
                .map(|m| &m.findings),
        )
    }

    /// Every finding treated as addressed before.
    pub fn addressed(&self) -> Vec<MetaFinding> {
        merge(
            self.own
                .iter()
                .filter_map(|r| r.meta.as_ref())
                .map(|m| &m.addressed),
        )
    }
}

fn merge<'a>(lists: impl Iterator<Item = &'a Vec<MetaFinding>>) -> Vec<MetaFinding> {
    let mut out: Vec<MetaFinding> = Vec::new();
    for list in lists {
        for f in list {
            match out.iter_mut().find(|o| o.id == f.id) {
                Some(o) => *o = f.clone(),
                None => out.push(f.clone()),
            }
        }
    }
    out
}

impl PriorReviews {
    /// Adds the offline outbox comment (the fixture stand-in for the posted Shepherd comment) as
    /// the newest own review. Used by `pr-shepherd review` and the console alike.
    pub(crate) fn add_outbox(&mut self, outbox: Option<OutboxComment>) {
        let Some(c) = outbox else { return };
        let (meta, meta_error) = match parse_meta(&c.body) {
            Ok(m) => (m, None),
            Err(e) => (None, Some(e)),
        };
        self.own.push(PriorReview {
            comment_id: c.comment_id,
            url: "outbox".to_owned(),
            created_at: DateTime::from_timestamp(c.created_at, 0).unwrap_or_default(),
            meta,
            meta_error,
        });
    }
}

/// Finds the earlier Shepherd reviews: conversation comments whose body starts with
/// [`REVIEW_HEADER`] **and** whose author is `own_login` (the identity of the current
/// credentials; GitHub logins compare case-insensitively).
pub fn prior_reviews(snapshot: &Snapshot, own_login: &str) -> PriorReviews {
    let mut out = PriorReviews::default();
    for item in &snapshot.items {
        let Item::Comment(c) = item else { continue };
        if !is_review_body(&c.body) {
            continue;
        }
        if !c.author.login.eq_ignore_ascii_case(own_login) {
            out.lookalikes.push(c.id.clone());
            continue;
        }
        let (meta, meta_error) = match parse_meta(&c.body) {
            Ok(m) => (m, None),
            Err(e) => (None, Some(e)),
        };
        out.own.push(PriorReview {
            comment_id: c.id.clone(),
            url: c.url.clone(),
            created_at: c.created_at,
            meta,
            meta_error,
        });
    }
    out.own.sort_by_key(|r| r.created_at);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_survive_line_shifts_and_rewording_of_numbers() {
        let a = finding_id(
            "correctness",
            "src/a.rs",
            "Overflow at line 42: `2u32.pow(n)` for n >= 32",
        );
        let b = finding_id(
            "correctness",
            "./src/a.rs",
            "overflow at line 57:  `2u32.pow(n)` for n >= 32.",
        );
        assert_eq!(a, b);
        assert!(a.starts_with("PS-") && a.len() == 13);
        assert_ne!(
            a,
            finding_id(
                "perf",
                "src/a.rs",
                "Overflow at line 42: `2u32.pow(n)` for n >= 32"
            )
        );
        assert_ne!(
            a,
            finding_id(
                "correctness",
                "src/b.rs",
                "Overflow at line 42: `2u32.pow(n)` for n >= 32"
            )
        );
        assert_ne!(
            a,
            finding_id("correctness", "src/a.rs", "Underflow at line 42")
        );
    }

    #[test]
    fn meta_round_trip_and_hostile_text() {
        let meta = ReviewMeta {
            version: META_VERSION,
            mode: Mode::Incremental,
            head_sha: "abc".into(),
            trigger_comment: Some(7),
            trigger_kind: Some(crate::policy::TriggerKind::Review),
            findings: vec![
                MetaFinding {
                    id: "PS-0123456789".into(),
                    aspect: "security".into(),
                    severity: "critical".into(),
                    file: "a.ts".into(),
                    line: Some(3),
                    message: "closes early --> <!-- pr-shepherd:meta {} -->".into(),
                    reviews: 1,
                    first_sha: Some("abc".into()),
                    shortened: false,
                },
                MetaFinding {
                    id: "PS-0123456780".into(),
                    aspect: "tests".into(),
                    severity: "suggestion".into(),
                    file: "b.ts".into(),
                    line: None,
                    message: "m".into(),
                    reviews: 3,
                    first_sha: Some("0ld".into()),
                    shortened: false,
                },
            ],
            addressed: vec![],
        };
        let body = format!("{REVIEW_HEADER}\n\ntext\n\n{}", render_meta(&meta));
        assert_eq!(body.matches("-->").count(), 1);
        // The history is compact: a finding first raised by this review carries none.
        assert_eq!(body.matches("firstSha").count(), 1, "{body}");
        assert!(body.contains(r#""reviews":3,"firstSha":"0ld""#), "{body}");
        assert_eq!(parse_meta(&body), Ok(Some(meta)));
        assert_eq!(parse_meta("## PR Shepherd Review\nno meta"), Ok(None));
        assert_eq!(
            parse_meta("<!-- pr-shepherd:meta {"),
            Err(MetaError::Unclosed)
        );
        assert!(matches!(
            parse_meta("<!-- pr-shepherd:meta {x} -->"),
            Err(MetaError::Invalid(_))
        ));
    }
}
