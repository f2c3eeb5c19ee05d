//! Policy (pure): who gets reviewed automatically, which comments are triggers, and what a
//! triggered review may see. Seeds 001 (gating), 002 (trigger safety) and 003 (continuation
//! cutoff, explicit invocation bypasses business gates but never safety).

pub mod event;

use serde::{Deserialize, Serialize};

use crate::pr::{Association, Author, Comment, Item, PrMeta, Snapshot};

/// Gate settings; label names and who counts as team are configurable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "kebab-case", deny_unknown_fields)]
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

/// How a review was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation {
    /// Event mode or watch: obeys every gate.
    Automatic,
    /// A maintainer's explicit action (console key, trigger comment, headless command): may
    /// override the community and pause gates, never `no-shepherd` for posting, never safety.
    Explicit,
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
    let explicit = how == Invocation::Explicit;
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

/// The mention that starts a trigger.
pub const MENTION: &str = "@pr-shepherd";

/// Parses a comment as a trigger. Exact forms only, outside code blocks and quotes:
/// `@pr-shepherd /review` (incremental) and `@pr-shepherd /review all` (full). Only OWNER,
/// MEMBER and COLLABORATOR authors count; bots never do.
pub fn trigger(author: &Author, body: &str) -> TriggerDecision {
    let Some(mode) = parse_trigger(body) else {
        return TriggerDecision::Ignore("no `@pr-shepherd /review` trigger in the comment".into());
    };
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

/// The mode of the first exact trigger in `body`, if any.
pub fn parse_trigger(body: &str) -> Option<Mode> {
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
            if !w.eq_ignore_ascii_case(MENTION) {
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
    #[error("trigger comment `{0}` is not a conversation comment on this PR")]
    UnknownTrigger(String),
}

/// What a triggered review may see: the PR timeline through the trigger comment inclusive.
/// Items (and thread comments) created after it, or edited after it, are left out; the trigger's
/// own body is replaced by a placeholder (only its mode travels). Pure and deterministic, so
/// replaying the same trigger gives the same snapshot.
pub fn cutoff(
    snapshot: &Snapshot,
    trigger_id: &str,
) -> Result<(Snapshot, CutoffReport), CutoffError> {
    let trigger = snapshot
        .items
        .iter()
        .find_map(|i| match i {
            Item::Comment(c) if c.id == trigger_id || is_database_id_of(trigger_id, c) => Some(c),
            _ => None,
        })
        .ok_or_else(|| CutoffError::UnknownTrigger(trigger_id.to_owned()))?;
    let at = trigger.created_at;
    let visible = |c: &Comment| c.created_at <= at && c.last_edited_at.is_none_or(|e| e <= at);
    let mut report = CutoffReport::default();
    let mut items = Vec::with_capacity(snapshot.items.len());
    for item in &snapshot.items {
        match item {
            Item::Comment(c) if c.id == trigger.id => {
                let mut c = c.clone();
                c.body = "[the trigger comment; its text is never forwarded]".to_owned();
                items.push(Item::Comment(c));
            }
            Item::Comment(c) => {
                if visible(c) {
                    items.push(item.clone());
                } else {
                    report.excluded.push(c.id.clone());
                }
            }
            Item::Review(r) => {
                if r.created_at <= at && r.last_edited_at.is_none_or(|e| e <= at) {
                    items.push(item.clone());
                } else {
                    report.excluded.push(r.id.clone());
                }
            }
            Item::Thread(t) => {
                let mut t = t.clone();
                let before = t.comments.len();
                t.comments.retain(|c| {
                    let keep = visible(c);
                    if !keep {
                        report.excluded.push(c.id.clone());
                    }
                    keep
                });
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
            origin: snapshot.origin.clone(),
        },
        report,
    ))
}

/// Webhooks and REST name comments by their numeric database id, which ends the comment's URL.
fn is_database_id_of(id: &str, c: &Comment) -> bool {
    !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_digit())
        && c.url.ends_with(&format!("#issuecomment-{id}"))
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
