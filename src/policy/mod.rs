//! Policy (pure): who gets reviewed automatically, which comments are triggers, and what a
//! triggered review may see. Seeds 001 (gating), 002 (trigger safety) and 003 (continuation
//! cutoff, explicit invocation bypasses business gates but never safety).

pub mod check;
pub mod event;
pub mod merge;

use serde::{Deserialize, Serialize};

use crate::pr::{Association, Author, Comment, Item, PrMeta, Snapshot};

/// Gate settings; label names and who counts as team are configurable (the config file's
/// `[gates]` table).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "snake_case", deny_unknown_fields)]
pub struct GateConfig {
    /// Community PRs are reviewed automatically only with this label.
    pub opt_in_label: String,
    /// No automatic action while this label is on the PR.
    pub pause_label: String,
    /// Never review automatically and never post while this label is on the PR.
    pub never_label: String,
    /// Count COLLABORATOR as team (OWNER and MEMBER always are).
    pub collaborators_are_team: bool,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            opt_in_label: "shepherd".to_owned(),
            pause_label: "pause-shepherd".to_owned(),
            never_label: "no-shepherd".to_owned(),
            collaborators_are_team: false,
        }
    }
}

/// Team or community, from the PR author's association.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Membership {
    Team,
    Community,
    /// The association does not settle it (a private org member shows as CONTRIBUTOR or NONE):
    /// ask `GET /orgs/{org}/members/{login}`.
    Ambiguous,
}

pub fn membership(association: Association, cfg: &GateConfig) -> Membership {
    match association {
        Association::Owner | Association::Member => Membership::Team,
        Association::Collaborator if cfg.collaborators_are_team => Membership::Team,
        Association::Mannequin => Membership::Community,
        Association::FirstTimer | Association::FirstTimeContributor => Membership::Community,
        Association::Collaborator | Association::Contributor | Association::None => {
            Membership::Ambiguous
        }
    }
}

/// Whether the gates count an author as team (`Some(true)`), community (`Some(false)`), or
/// cannot tell from the association alone (`None`: headless asks the org; the console, which
/// asks no one, gates it as community). The one decision the gate and every "(team)" label read.
pub fn team_of(association: Association, cfg: &GateConfig) -> Option<bool> {
    match membership(association, cfg) {
        Membership::Team => Some(true),
        Membership::Community => Some(false),
        Membership::Ambiguous => None,
    }
}

/// The author's side in words, as the gates count it without asking the org: "team" only when
/// [`team_of`] says so, else "community" (a COLLABORATOR is "team" only with
/// `collaborators_are_team`).
pub fn side_label(association: Association, cfg: &GateConfig) -> &'static str {
    if team_of(association, cfg) == Some(true) {
        "team"
    } else {
        "community"
    }
}

/// How a review was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation {
    /// Event mode or watch: obeys every gate.
    Automatic,
    /// A maintainer's explicit action (console key, headless command): may override the
    /// community and pause gates, never `no-shepherd` for posting, never safety.
    Explicit,
    /// A maintainer's trigger comment (`@pr-shepherd /review`, in event mode, `watch` or
    /// `review --trigger-comment`): overrides the community and pause gates like an explicit
    /// action, but `no-shepherd` refuses it whole: no model is called, since a review that
    /// cannot be posted answers nobody.
    Trigger,
}

/// What the gates allow for one PR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateDecision {
    pub review: bool,
    pub post: bool,
    /// Why, in one line (shown in the console header and stated in a posted review).
    pub reason: String,
    /// Set when an explicit invocation overrode a gate; stated in the posted review.
    pub overridden: Option<String>,
}

/// Applies the gates. `team` is the settled membership (after any org check): `None` counts as
/// community, the conservative choice.
pub fn gate(pr: &PrMeta, team: Option<bool>, cfg: &GateConfig, how: Invocation) -> GateDecision {
    let has = |l: &str| pr.labels.iter().any(|x| x.eq_ignore_ascii_case(l));
    let explicit = how != Invocation::Automatic;
    if has(&cfg.never_label) && how == Invocation::Trigger {
        return GateDecision {
            review: false,
            post: false,
            reason: format!(
                "label `{}`: never reviewed on a trigger comment and never posted (no model is called)",
                cfg.never_label
            ),
            overridden: None,
        };
    }
    if has(&cfg.never_label) {
        return GateDecision {
            review: explicit,
            post: false,
            reason: format!(
                "label `{}`: never reviewed automatically and never posted",
                cfg.never_label
            ),
            overridden: explicit
                .then(|| format!("`{}` (review shown, not posted)", cfg.never_label)),
        };
    }
    if has(&cfg.pause_label) {
        return GateDecision {
            review: explicit,
            post: explicit,
            reason: format!("label `{}`: automatic actions paused", cfg.pause_label),
            overridden: explicit.then(|| format!("`{}` by explicit request", cfg.pause_label)),
        };
    }
    if team == Some(true) {
        return GateDecision {
            review: true,
            post: true,
            reason: "team PR: reviewed by default".to_owned(),
            overridden: None,
        };
    }
    if has(&cfg.opt_in_label) {
        return GateDecision {
            review: true,
            post: true,
            reason: format!("community PR with label `{}`", cfg.opt_in_label),
            overridden: None,
        };
    }
    GateDecision {
        review: explicit,
        post: explicit,
        reason: format!(
            "community PR without label `{}`: not reviewed automatically",
            cfg.opt_in_label
        ),
        overridden: explicit.then(|| "community gate by explicit request".to_owned()),
    }
}

/// The mode a review runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Reads prior Shepherd reviews; new / unchanged / addressed.
    Incremental,
    /// Ignores prior reviews and assesses everything.
    Full,
}

/// The verdict on one comment as a trigger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TriggerDecision {
    /// A valid trigger: only this mode travels on, never the body.
    Review(Mode),
    /// Not a trigger, or not one we act on, with the reason.
    Ignore(String),
}

/// The default mention that starts a trigger.
pub const MENTION: &str = "@pr-shepherd";

/// The default longest trigger, in characters: a longer text is never a trigger (seed 003).
pub const MAX_TRIGGER_CHARS: usize = 4000;

/// Automation settings (the config file's `[automation]` table): which mentions start a
/// trigger, how long a trigger may be, and the names of the write-action labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "snake_case", deny_unknown_fields)]
pub struct AutomationConfig {
    /// Mentions that start a trigger (`@name /review`), matched exactly (case-insensitively).
    pub mentions: Vec<String>,
    /// A comment, review or review comment longer than this (in characters) is never a trigger.
    pub max_trigger_chars: usize,
    /// The label that asks for the `fix-ci` write action (recognized; not available).
    pub fix_ci_label: String,
    /// The label that asks for the `address-review` write action (recognized; not available).
    pub address_review_label: String,
    /// `event` and `watch --post` publish Shepherd's own `pr-shepherd` check on the PR's head.
    pub check: bool,
    /// The lowest severity whose unaddressed findings make that check fail.
    pub check_fails_on: check::CheckFailsOn,
}

impl Default for AutomationConfig {
    fn default() -> Self {
        AutomationConfig {
            mentions: vec![MENTION.to_owned()],
            max_trigger_chars: MAX_TRIGGER_CHARS,
            fix_ci_label: "fix-ci".to_owned(),
            address_review_label: "address-review".to_owned(),
            check: false,
            check_fails_on: check::CheckFailsOn::Critical,
        }
    }
}

impl AutomationConfig {
    /// Checks the values serde cannot: `(key, message)` of the first bad one.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.mentions.is_empty() {
            return Err(("mentions", "needs at least one mention".to_owned()));
        }
        for m in &self.mentions {
            let name = m.strip_prefix('@').unwrap_or("");
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '/')
            {
                return Err((
                    "mentions",
                    format!("`{m}` is not a mention like `@pr-shepherd`"),
                ));
            }
        }
        if self.max_trigger_chars == 0 {
            return Err(("max_trigger_chars", "must be at least 1".to_owned()));
        }
        for (key, label) in [
            ("fix_ci_label", &self.fix_ci_label),
            ("address_review_label", &self.address_review_label),
        ] {
            if label.trim().is_empty() {
                return Err((key, "must not be empty".to_owned()));
            }
        }
        Ok(())
    }

    /// The mentions as said in messages: `` `@pr-shepherd /review` `` (or … ).
    fn said(&self) -> String {
        self.mentions
            .iter()
            .map(|m| format!("`{m} /review`"))
            .collect::<Vec<_>>()
            .join(" or ")
    }

    /// The write action a label names, if it is one of the write-action labels.
    pub fn write_action(&self, label: &str) -> Option<&'static str> {
        if label.eq_ignore_ascii_case(&self.fix_ci_label) {
            Some("fix-ci")
        } else if label.eq_ignore_ascii_case(&self.address_review_label) {
            Some("address-review")
        } else {
            None
        }
    }
}

/// Where a trigger was written: a conversation comment, a review summary, or an inline review
/// comment. Each has its own database id sequence, so an id is only meaningful with its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TriggerKind {
    Comment,
    Review,
    ReviewComment,
}

impl TriggerKind {
    /// The anchor that ends its HTML URL, followed by the database id.
    pub fn anchor(self) -> &'static str {
        match self {
            TriggerKind::Comment => "#issuecomment-",
            TriggerKind::Review => "#pullrequestreview-",
            TriggerKind::ReviewComment => "#discussion_r",
        }
    }

    /// In words.
    pub fn said(self) -> &'static str {
        match self {
            TriggerKind::Comment => "conversation comment",
            TriggerKind::Review => "review summary",
            TriggerKind::ReviewComment => "inline review comment",
        }
    }

    pub const ALL: [TriggerKind; 3] = [
        TriggerKind::Comment,
        TriggerKind::Review,
        TriggerKind::ReviewComment,
    ];
}

/// One trigger: its kind and database id (the idempotency key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerRef {
    pub kind: TriggerKind,
    pub id: u64,
}

/// The database id of an item of `kind`, from its HTML URL.
pub fn database_id(url: &str, kind: TriggerKind) -> Option<u64> {
    url.rsplit_once(kind.anchor())?.1.parse().ok()
}

/// Parses a text as a trigger with the default mention and size limit ([`trigger_with`]).
pub fn trigger(author: &Author, body: &str) -> TriggerDecision {
    trigger_with(&AutomationConfig::default(), author, body)
}

/// Parses a comment, review summary or review comment as a trigger. Exact forms only, outside
/// code blocks and quotes: `<mention> /review` (incremental) and `<mention> /review all` (full),
/// for any of `cfg.mentions`. Only OWNER, MEMBER and COLLABORATOR authors count; bots never do;
/// a text over `cfg.max_trigger_chars` characters never does.
pub fn trigger_with(cfg: &AutomationConfig, author: &Author, body: &str) -> TriggerDecision {
    let Some(mode) = parse_trigger_with(body, &cfg.mentions) else {
        return TriggerDecision::Ignore(format!("no {} trigger in the text", cfg.said()));
    };
    let chars = body.chars().count();
    if chars > cfg.max_trigger_chars {
        return TriggerDecision::Ignore(format!(
            "oversized trigger: {chars} characters, over the limit of {} \
             ([automation] max_trigger_chars)",
            cfg.max_trigger_chars
        ));
    }
    if author.bot || author.login.ends_with("[bot]") {
        return TriggerDecision::Ignore(format!("trigger from bot account @{}", author.login));
    }
    match author.association {
        Association::Owner | Association::Member | Association::Collaborator => {
            TriggerDecision::Review(mode)
        }
        other => TriggerDecision::Ignore(format!(
            "trigger from @{} whose association {} may not invoke reviews",
            author.login,
            other.as_str()
        )),
    }
}

/// The mode of the first exact `@pr-shepherd` trigger in `body`, if any.
pub fn parse_trigger(body: &str) -> Option<Mode> {
    parse_trigger_with(body, &[MENTION.to_owned()])
}

/// The mode of the first exact trigger in `body` for any of `mentions`, if any.
pub fn parse_trigger_with(body: &str, mentions: &[String]) -> Option<Mode> {
    let mut in_fence = false;
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || t.starts_with('>') || line.starts_with("    ") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            if !mentions.iter().any(|m| w.eq_ignore_ascii_case(m)) {
                continue;
            }
            if words.get(i + 1) != Some(&"/review") {
                continue;
            }
            return Some(match words.get(i + 2) {
                Some(&"all") => Mode::Full,
                _ => Mode::Incremental,
            });
        }
    }
    None
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CutoffError {
    #[error("trigger `{0}` is not a conversation comment, review or review comment on this PR")]
    UnknownTrigger(String),
    #[error(
        "trigger id `{0}` names more than one item on this PR (a {1} and a {2}); give its node id"
    )]
    Ambiguous(String, &'static str, &'static str),
}

/// A trigger found on the snapshot: where it is, who wrote it, when, and its text (tested by
/// [`trigger_with`], never passed on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundTrigger<'a> {
    pub kind: TriggerKind,
    pub node_id: &'a str,
    pub database_id: Option<u64>,
    pub author: &'a Author,
    pub body: &'a str,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// Every conversation comment, review summary and thread comment of the snapshot as a possible
/// trigger, in timeline order of the snapshot.
pub fn trigger_candidates(snapshot: &Snapshot) -> Vec<FoundTrigger<'_>> {
    fn of_comment(c: &Comment, kind: TriggerKind) -> FoundTrigger<'_> {
        FoundTrigger {
            kind,
            node_id: &c.id,
            database_id: database_id(&c.url, kind),
            author: &c.author,
            body: &c.body,
            created_at: c.created_at,
        }
    }
    let mut out = Vec::new();
    for item in &snapshot.items {
        match item {
            Item::Comment(c) => out.push(of_comment(c, TriggerKind::Comment)),
            Item::Thread(t) => out.extend(
                t.comments
                    .iter()
                    .map(|c| of_comment(c, TriggerKind::ReviewComment)),
            ),
            Item::Review(r) => out.push(FoundTrigger {
                kind: TriggerKind::Review,
                node_id: &r.id,
                database_id: database_id(&r.url, TriggerKind::Review),
                author: &r.author,
                body: &r.body,
                created_at: r.created_at,
            }),
        }
    }
    out
}

/// Finds trigger `id` (a node id, or a database id of any kind) on the snapshot.
pub fn find_trigger<'a>(snapshot: &'a Snapshot, id: &str) -> Result<FoundTrigger<'a>, CutoffError> {
    let id = id.trim();
    let numeric = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
    let all = trigger_candidates(snapshot);
    if let Some(t) = all.iter().find(|t| t.node_id == id) {
        return Ok(t.clone());
    }
    let by_db: Vec<&FoundTrigger> = all
        .iter()
        .filter(|t| numeric && t.database_id.is_some_and(|d| d.to_string() == id))
        .collect();
    match by_db.as_slice() {
        [] => Err(CutoffError::UnknownTrigger(id.to_owned())),
        [first, rest @ ..] => match rest.iter().find(|t| t.kind != first.kind) {
            Some(other) => Err(CutoffError::Ambiguous(
                id.to_owned(),
                first.kind.said(),
                other.kind.said(),
            )),
            None => Ok((*first).clone()),
        },
    }
}

/// Whether an item of `kind` created at `at` with database id `db` comes no later than the
/// trigger: by time, and at the same time by id within one kind (ids of different kinds are
/// different sequences, so a tie between kinds counts as before).
fn not_after(
    at: chrono::DateTime<chrono::Utc>,
    kind: TriggerKind,
    db: Option<u64>,
    trig: &FoundTrigger,
) -> bool {
    at < trig.created_at
        || (at == trig.created_at
            && !(kind == trig.kind
                && matches!((db, trig.database_id), (Some(a), Some(b)) if a > b)))
}

/// The placeholder that replaces the trigger's text in what a review may see.
pub const TRIGGER_PLACEHOLDER: &str = "[the trigger; its text is never forwarded]";

/// What a triggered review may see: the PR timeline through the trigger (a conversation comment,
/// review summary or inline review comment) inclusive. Items (and thread comments) created after
/// it, or edited after it, are left out; the trigger's own text is replaced by a placeholder (only
/// its mode travels). Pure and deterministic, so replaying the same trigger gives the same
/// snapshot.
pub fn cutoff(
    snapshot: &Snapshot,
    trigger_id: &str,
) -> Result<(Snapshot, CutoffReport), CutoffError> {
    let trig = find_trigger(snapshot, trigger_id)?;
    let edited_ok =
        |e: Option<chrono::DateTime<chrono::Utc>>| e.is_none_or(|e| e <= trig.created_at);
    let visible = |c: &Comment, kind: TriggerKind| {
        not_after(c.created_at, kind, database_id(&c.url, kind), &trig)
            && edited_ok(c.last_edited_at)
    };
    let mut report = CutoffReport::default();
    let mut items = Vec::with_capacity(snapshot.items.len());
    for item in &snapshot.items {
        match item {
            Item::Comment(c) if c.id == trig.node_id => {
                let mut c = c.clone();
                c.body = TRIGGER_PLACEHOLDER.to_owned();
                items.push(Item::Comment(c));
            }
            Item::Review(r) if r.id == trig.node_id => {
                let mut r = r.clone();
                r.body = TRIGGER_PLACEHOLDER.to_owned();
                items.push(Item::Review(r));
            }
            Item::Comment(c) => {
                if visible(c, TriggerKind::Comment) {
                    items.push(item.clone());
                } else {
                    report.excluded.push(c.id.clone());
                }
            }
            Item::Review(r) => {
                let db = database_id(&r.url, TriggerKind::Review);
                if not_after(r.created_at, TriggerKind::Review, db, &trig)
                    && edited_ok(r.last_edited_at)
                {
                    items.push(item.clone());
                } else {
                    report.excluded.push(r.id.clone());
                }
            }
            Item::Thread(t) => {
                let mut t = t.clone();
                let before = t.comments.len();
                t.comments.retain(|c| {
                    let keep = c.id == trig.node_id || visible(c, TriggerKind::ReviewComment);
                    if !keep {
                        report.excluded.push(c.id.clone());
                    }
                    keep
                });
                for c in t.comments.iter_mut().filter(|c| c.id == trig.node_id) {
                    c.body = TRIGGER_PLACEHOLDER.to_owned();
                }
                if t.comments.is_empty() {
                    report.excluded.push(t.id.clone());
                } else {
                    if t.comments.len() != before {
                        report.trimmed_threads.push(t.id.clone());
                    }
                    items.push(Item::Thread(t));
                }
            }
        }
    }
    Ok((
        Snapshot {
            pr: snapshot.pr.clone(),
            items,
            incomplete: snapshot.incomplete.clone(),
            notes: snapshot.notes.clone(),
            origin: snapshot.origin.clone(),
        },
        report,
    ))
}

/// What [`cutoff`] left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CutoffReport {
    /// Ids of items and thread comments created or edited after the trigger.
    pub excluded: Vec<String>,
    /// Threads that lost later comments but stay.
    pub trimmed_threads: Vec<String>,
}

#[cfg(test)]
mod tests;
