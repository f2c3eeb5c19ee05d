//! Pure data: a pull request snapshot and the items on it.
//!
//! The same structs are the offline fixture format (`docs/fixture-format.md`), so a recorded live
//! PR and a hand-written fixture go through exactly the same code.

mod base;
pub mod checks;
mod dash;
mod files;
mod fingerprint;
mod recorded;
mod reference;
mod shepherd;
pub mod time;

pub use base::BaseFile;
pub use dash::{
    Annotation, CheckKind, CheckRun, CheckState, ChecksSummary, Dash, LOG_TAIL_CHARS,
    LOG_TAIL_LINES, ReviewDecision, ReviewRequested, Reviewer, duration_text, log_tail,
};
pub use files::{ChangeType, ChangedFile, GITHUB_FILE_LIMIT, NoPatch, ViewedState, files_cut_note};
pub use fingerprint::{
    Fingerprint, LINE_WINDOW, MIN_SHARED, covered_by, key_terms, lines_near, similar_terms,
};
pub use recorded::{LlmRecordings, RecordedAnswer};
pub use reference::{ACCEPTED_FORMS, PrCoords, PrRef, RefError, validate_owner, validate_repo};
pub use shepherd::{
    DEFAULT_IDENTITY, INCOMPLETE_NOTE, MARKER_OPEN, OutboxComment, PARTIAL_MARK, REVIEW_HEADER,
    is_incomplete, is_partial, is_review_body, without_markers,
};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A GitHub account as it appears on an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    pub login: String,
    /// GitHub's `authorAssociation` of this account with the repository.
    pub association: Association,
    /// True for GitHub Apps and other bot accounts (`__typename: Bot`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub bot: bool,
}

/// GitHub's `CommentAuthorAssociation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Association {
    Owner,
    Member,
    Collaborator,
    Contributor,
    FirstTimeContributor,
    FirstTimer,
    Mannequin,
    None,
}

impl Association {
    pub fn as_str(self) -> &'static str {
        match self {
            Association::Owner => "OWNER",
            Association::Member => "MEMBER",
            Association::Collaborator => "COLLABORATOR",
            Association::Contributor => "CONTRIBUTOR",
            Association::FirstTimeContributor => "FIRST_TIME_CONTRIBUTOR",
            Association::FirstTimer => "FIRST_TIMER",
            Association::Mannequin => "MANNEQUIN",
            Association::None => "NONE",
        }
    }
}

/// GitHub's `PullRequestReviewState` (PENDING reviews are never fetched: they are private drafts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewState {
    Commented,
    Approved,
    ChangesRequested,
    Dismissed,
    Pending,
}

impl ReviewState {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewState::Commented => "COMMENTED",
            ReviewState::Approved => "APPROVED",
            ReviewState::ChangesRequested => "CHANGES_REQUESTED",
            ReviewState::Dismissed => "DISMISSED",
            ReviewState::Pending => "PENDING",
        }
    }
}

/// One comment: a conversation (issue) comment, or one comment of a review thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    /// GitHub node id (`IC_…` for conversation comments, `PRRC_…` inside threads).
    pub id: String,
    pub author: Author,
    #[serde(
        serialize_with = "time::serialize",
        deserialize_with = "time::deserialize"
    )]
    pub created_at: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "time::serialize_opt",
        deserialize_with = "time::deserialize_opt"
    )]
    pub last_edited_at: Option<DateTime<Utc>>,
    pub url: String,
    pub body: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub minimized: bool,
    /// GitHub's lowercase reason: abuse, off-topic, outdated, resolved, duplicate, spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimized_reason: Option<String>,
}

/// A review thread on a diff line, with every comment in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    /// GitHub node id (`PRRT_…`).
    pub id: String,
    pub path: String,
    /// The line in the current diff; GitHub sets it to null once the thread is outdated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The line the thread was first made on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_line: Option<u32>,
    /// Which file of the diff `line` and `original_line` count in (GitHub's `diffSide`): the old
    /// file for a thread on a removed line or on the old side of a context line. `None` (an old
    /// record, a fixture that does not say): the new file, as GitHub's default.
    #[serde(default, rename = "diffSide", skip_serializing_if = "Option::is_none")]
    pub side: Option<DiffSide>,
    /// The diff hunk the thread points at (GitHub's `diffHunk` of its first comment).
    #[serde(default)]
    pub diff_hunk: String,
    #[serde(default)]
    pub outdated: bool,
    #[serde(default)]
    pub resolved: bool,
    pub comments: Vec<Comment>,
}

/// Which file of a diff a review thread's line numbers count in (GitHub's `DiffSide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum DiffSide {
    /// The file before the change (removed and context lines).
    Left,
    /// The file after the change (added and context lines).
    Right,
}

/// A review summary: the body a reviewer submitted with their verdict (may be empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// GitHub node id (`PRR_…`).
    pub id: String,
    pub author: Author,
    pub state: ReviewState,
    #[serde(
        serialize_with = "time::serialize",
        deserialize_with = "time::deserialize"
    )]
    pub created_at: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "time::serialize_opt",
        deserialize_with = "time::deserialize_opt"
    )]
    pub last_edited_at: Option<DateTime<Utc>>,
    pub url: String,
    #[serde(default)]
    pub body: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub minimized: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimized_reason: Option<String>,
}

/// Everything the visibility gate surfaces.
///
/// Serialized with an internal `kind` tag. Deserialization is hand-written (below) so that an
/// error inside an item keeps its exact JSON path, which serde's derived internally tagged enums
/// lose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Item {
    Thread(Thread),
    Comment(Comment),
    Review(Review),
}

/// Separates an inner JSON path from the message in errors raised inside an [`Item`]; the fixture
/// loader splits it off to report the full path.
pub const INNER_PATH_MARK: char = '\u{1f}';

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ItemVisitor)
    }
}

fn kind_error<E: serde::de::Error>(what: &str) -> E {
    E::custom(format!(
        "{INNER_PATH_MARK}kind{INNER_PATH_MARK}{what}, expected one of `thread`, `comment`, `review`"
    ))
}

struct ItemVisitor;

impl<'de> serde::de::Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an item object with a `kind` of thread, comment or review")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
        use serde::de::Error;
        use serde::de::value::MapAccessDeserializer;
        let Some(first) = map.next_key::<String>()? else {
            return Err(A::Error::missing_field("kind"));
        };
        if first == "kind" {
            // Fast path (how this crate writes items): the tag comes first, so the rest of the
            // map streams straight into the variant's struct and errors keep their exact path.
            let kind: String = map.next_value()?;
            let rest = MapAccessDeserializer::new(map);
            return match kind.as_str() {
                "thread" => Thread::deserialize(rest).map(Item::Thread),
                "comment" => Comment::deserialize(rest).map(Item::Comment),
                "review" => Review::deserialize(rest).map(Item::Review),
                other => Err(kind_error(&format!("unknown variant `{other}`"))),
            };
        }
        // Slow path: the tag comes later. Buffer the object, then deserialize the variant with
        // its own path tracking, which the fixture loader splices onto the outer path.
        let mut obj = serde_json::Map::new();
        obj.insert(first, map.next_value()?);
        while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
            obj.insert(k, v);
        }
        fn inner<T: serde::de::DeserializeOwned, E: Error>(
            v: serde_json::Map<String, serde_json::Value>,
        ) -> Result<T, E> {
            serde_path_to_error::deserialize(serde_json::Value::Object(v)).map_err(|e| {
                let path = e.path().to_string();
                E::custom(format!(
                    "{INNER_PATH_MARK}{path}{INNER_PATH_MARK}{}",
                    e.into_inner()
                ))
            })
        }
        match obj.get("kind") {
            Some(serde_json::Value::String(k)) => match k.as_str() {
                "thread" => inner(obj).map(Item::Thread),
                "comment" => inner(obj).map(Item::Comment),
                "review" => inner(obj).map(Item::Review),
                other => Err(kind_error(&format!("unknown variant `{other}`"))),
            },
            Some(other) => Err(kind_error(&format!("invalid type: {other}"))),
            None => Err(A::Error::missing_field("kind")),
        }
    }
}

/// GitHub's flags on an item, as the gate sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub outdated: bool,
    pub resolved: bool,
    pub minimized: bool,
    pub minimized_reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Thread,
    Comment,
    Review,
}

impl ItemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Thread => "thread",
            ItemKind::Comment => "comment",
            ItemKind::Review => "review",
        }
    }
}

impl Thread {
    /// The comment that opened the thread. Fixture validation and the live fetch both refuse a
    /// thread without comments, so this is always present for a loaded snapshot.
    pub fn first(&self) -> Option<&Comment> {
        self.comments.first()
    }

    /// The text whose hash decides "edited" for a thread: every comment, in order, with its
    /// author, so a new reply or an edit anywhere in the thread re-surfaces it. A queued stand-in
    /// ([`is_queued`]: the maintainer's own words, not on GitHub yet) is no change to see: the
    /// thread is seen the same with it and without it, wherever it is counted.
    pub fn transcript(&self) -> String {
        let mut out = String::new();
        self.transcript_pieces(|piece| out.push_str(piece));
        out
    }

    /// The transcript in pieces, so it can be hashed without being built.
    fn transcript_pieces(&self, mut emit: impl FnMut(&str)) {
        let real = self.comments.iter().filter(|c| !is_queued(&c.id));
        for (i, c) in real.enumerate() {
            if i > 0 {
                emit("\n\n---\n\n");
            }
            emit("@");
            emit(&c.author.login);
            emit(":\n");
            emit(&c.body);
        }
    }
}

impl Item {
    pub fn id(&self) -> &str {
        match self {
            Item::Thread(t) => &t.id,
            Item::Comment(c) => &c.id,
            Item::Review(r) => &r.id,
        }
    }

    pub fn kind(&self) -> ItemKind {
        match self {
            Item::Thread(_) => ItemKind::Thread,
            Item::Comment(_) => ItemKind::Comment,
            Item::Review(_) => ItemKind::Review,
        }
    }

    /// The author of the item (for a thread, of its first comment).
    pub fn author(&self) -> Option<&Author> {
        match self {
            Item::Thread(t) => t.first().map(|c| &c.author),
            Item::Comment(c) => Some(&c.author),
            Item::Review(r) => Some(&r.author),
        }
    }

    pub fn login(&self) -> &str {
        self.author().map_or("ghost", |a| a.login.as_str())
    }

    pub fn url(&self) -> &str {
        match self {
            Item::Thread(t) => t.first().map_or("", |c| c.url.as_str()),
            Item::Comment(c) => &c.url,
            Item::Review(r) => &r.url,
        }
    }

    /// The item's own text (for a thread, its first comment).
    pub fn body(&self) -> &str {
        match self {
            Item::Thread(t) => t.first().map_or("", |c| c.body.as_str()),
            Item::Comment(c) => &c.body,
            Item::Review(r) => &r.body,
        }
    }

    pub fn created_at(&self) -> Option<DateTime<Utc>> {
        match self {
            Item::Thread(t) => t.first().map(|c| c.created_at),
            Item::Comment(c) => Some(c.created_at),
            Item::Review(r) => Some(r.created_at),
        }
    }

    /// The latest edit anywhere in the item (for a thread, any of its comments).
    pub fn last_edited_at(&self) -> Option<DateTime<Utc>> {
        match self {
            Item::Thread(t) => t.comments.iter().filter_map(|c| c.last_edited_at).max(),
            Item::Comment(c) => c.last_edited_at,
            Item::Review(r) => r.last_edited_at,
        }
    }

    /// The latest activity: creation of the newest comment or the newest edit.
    pub fn last_activity_at(&self) -> Option<DateTime<Utc>> {
        let created = match self {
            Item::Thread(t) => t.comments.iter().map(|c| c.created_at).max(),
            _ => self.created_at(),
        };
        created.max(self.last_edited_at())
    }

    pub fn status(&self) -> Status {
        match self {
            Item::Thread(t) => {
                let first = t.first();
                Status {
                    outdated: t.outdated,
                    resolved: t.resolved,
                    // A thread counts as minimized when its first comment is.
                    minimized: first.is_some_and(|c| c.minimized),
                    minimized_reason: first.and_then(|c| c.minimized_reason.clone()),
                }
            }
            Item::Comment(c) => Status {
                minimized: c.minimized,
                minimized_reason: c.minimized_reason.clone(),
                ..Status::default()
            },
            Item::Review(r) => Status {
                minimized: r.minimized,
                minimized_reason: r.minimized_reason.clone(),
                ..Status::default()
            },
        }
    }

    /// The text that `bodyHash` covers: a thread's whole transcript, else the body.
    pub fn hash_text(&self) -> String {
        match self {
            Item::Thread(t) => t.transcript(),
            _ => self.body().to_owned(),
        }
    }

    /// First 16 hex characters of the SHA-256 of [`Item::hash_text`].
    pub fn body_hash(&self) -> String {
        let mut hasher = Sha256::new();
        match self {
            Item::Thread(t) => t.transcript_pieces(|piece| hasher.update(piece.as_bytes())),
            _ => hasher.update(self.body().as_bytes()),
        }
        hex_prefix16(&hasher.finalize())
    }

    pub fn review_state(&self) -> Option<ReviewState> {
        match self {
            Item::Review(r) => Some(r.state),
            _ => None,
        }
    }

    /// `path:line` for threads (`path` alone when GitHub no longer has a line).
    pub fn location(&self) -> Option<String> {
        match self {
            Item::Thread(t) => Some(match (t.line.or(t.original_line), t.side) {
                // A line of the old file (a removed line, or a context line counted there).
                (Some(l), Some(DiffSide::Left)) => format!("{}:{l} (old side)", t.path),
                (Some(l), _) => format!("{}:{l}", t.path),
                (None, _) => t.path.clone(),
            }),
            _ => None,
        }
    }
}

/// What the maintainer sent that is not on GitHub yet (queued offline, or sent and not read back)
/// stands among the items under an id that starts with this: what draws it says so, and it is
/// never news to its own author.
pub const QUEUED_PREFIX: &str = "outbox-thread-";

/// Whether `id` (an item's or a comment's) is a queued stand-in (see [`QUEUED_PREFIX`]).
pub fn is_queued(id: &str) -> bool {
    id.starts_with(QUEUED_PREFIX)
}

/// The seed's hash rule: the first 16 hex characters of SHA-256 of the text.
pub fn body_hash(text: &str) -> String {
    hex_prefix16(&Sha256::digest(text.as_bytes()))
}

/// Lowercase hex of the first 8 bytes of a digest (16 characters).
fn hex_prefix16(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(16);
    for b in digest.iter().take(8) {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

/// Full lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// The pull request itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrMeta {
    /// API host for GitHub Enterprise; absent for github.com.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub owner: String,
    pub repo: String,
    pub number: u64,
    pub title: String,
    #[serde(default)]
    pub body: String,
    pub author: Author,
    #[serde(default)]
    pub labels: Vec<String>,
    pub base_ref: String,
    pub head_ref: String,
    pub base_sha: String,
    pub head_sha: String,
    pub url: String,
    #[serde(default)]
    pub draft: bool,
    /// OPEN, CLOSED or MERGED.
    #[serde(default = "default_pr_state")]
    pub state: String,
    #[serde(default)]
    pub files: Vec<ChangedFile>,
    /// How many files GitHub says the PR changes (`changedFiles`), when known: more than
    /// `files` holds when GitHub's 3,000-file limit cut the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<u32>,
}

fn default_pr_state() -> String {
    "OPEN".to_owned()
}

impl PrMeta {
    pub fn coords(&self) -> PrCoords {
        PrCoords {
            host: self.host.clone(),
            owner: self.owner.clone(),
            repo: self.repo.clone(),
            number: self.number,
        }
    }
}

/// Where a snapshot came from, for the header and the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Live,
    Fixture {
        path: std::path::PathBuf,
        step: usize,
        steps: usize,
    },
}

/// A PR as fetched at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub pr: PrMeta,
    pub items: Vec<Item>,
    /// Reasons the snapshot is known to be incomplete (a page that failed for good). While this
    /// is non-empty, no seen markers may be written for the pass.
    pub incomplete: Vec<String>,
    /// What the fetch settled on its own and says with the listing, without losing an item: a
    /// review thread cut at its comment bound (which thread, what was left out), items GitHub
    /// sent twice and that are listed once. Unlike [`Snapshot::incomplete`], seen markers are
    /// still written: every item is there, and each item's text is what was shown.
    pub notes: Vec<String>,
    pub origin: Origin,
}

impl Snapshot {
    pub fn is_complete(&self) -> bool {
        self.incomplete.is_empty()
    }

    pub fn find(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id() == id)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(id: &str, login: &str, body: &str) -> Comment {
        Comment {
            id: id.into(),
            author: Author {
                login: login.into(),
                association: Association::Member,
                bot: false,
            },
            created_at: DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
            last_edited_at: None,
            url: format!("https://github.com/o/r/pull/1#{id}"),
            body: body.into(),
            minimized: false,
            minimized_reason: None,
        }
    }

    #[test]
    fn hash_is_first_16_hex_of_sha256() {
        // sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
        assert_eq!(body_hash("hello"), "2cf24dba5fb0a30e");
        assert_eq!(body_hash(""), "e3b0c44298fc1c14");
    }

    #[test]
    fn thread_hash_covers_every_comment() {
        let mut t = Thread {
            id: "PRRT_1".into(),
            path: "src/a.rs".into(),
            line: Some(3),
            original_line: Some(3),
            side: None,
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments: vec![comment("PRRC_1", "ann", "why?")],
        };
        let before = Item::Thread(t.clone()).body_hash();
        t.comments.push(comment("PRRC_2", "bob", "because"));
        let after = Item::Thread(t.clone()).body_hash();
        assert_ne!(before, after);
        // Hashed in pieces, it is still the seed's rule over the whole transcript.
        assert_eq!(t.transcript(), "@ann:\nwhy?\n\n---\n\n@bob:\nbecause");
        assert_eq!(after, body_hash(&t.transcript()));
        assert_eq!(
            Item::Comment(comment("IC_1", "ann", "hello")).body_hash(),
            "2cf24dba5fb0a30e"
        );
        assert_eq!(Item::Thread(t.clone()).body(), "why?");
        t.comments[1].body = "because!".into();
        assert_ne!(Item::Thread(t).body_hash(), after);
    }

    #[test]
    fn thread_minimized_follows_first_comment() {
        let mut first = comment("PRRC_1", "ann", "spam");
        first.minimized = true;
        first.minimized_reason = Some("spam".into());
        let t = Thread {
            id: "PRRT_1".into(),
            path: "a".into(),
            line: None,
            original_line: Some(9),
            side: None,
            diff_hunk: String::new(),
            outdated: true,
            resolved: true,
            comments: vec![first, comment("PRRC_2", "bob", "ok")],
        };
        let item = Item::Thread(t);
        let s = item.status();
        assert!(s.minimized && s.outdated && s.resolved);
        assert_eq!(s.minimized_reason.as_deref(), Some("spam"));
        assert_eq!(item.location().as_deref(), Some("a:9"));
        let Item::Thread(mut left) = item else {
            unreachable!()
        };
        left.side = Some(DiffSide::Left);
        assert_eq!(
            Item::Thread(left).location().as_deref(),
            Some("a:9 (old side)")
        );
    }
}
