//! Pure: what a merge would go past, and whether it may go at all. The console's merge question,
//! `merge --dry-run` and the merge itself read the same [`MergePlan`]: the method, the head it
//! merges (the one the maintainer reviewed, never a later one), what is merged past with counts,
//! and why GitHub would refuse (its own states, in words).
//!
//! Two kinds of "past": what was never shown to the maintainer (items, and work of theirs not yet
//! sent) needs a second, explicit yes; the rest (unresolved threads, changes requested, checks,
//! Shepherd's open findings) is stated in the question and does not stop a merge.

use serde::{Deserialize, Serialize};

/// A way GitHub merges a PR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}

impl MergeMethod {
    pub const ALL: [MergeMethod; 3] =
        [MergeMethod::Merge, MergeMethod::Squash, MergeMethod::Rebase];

    /// The config's and the command line's word: `merge`, `squash`, `rebase`.
    pub fn as_str(self) -> &'static str {
        match self {
            MergeMethod::Merge => "merge",
            MergeMethod::Squash => "squash",
            MergeMethod::Rebase => "rebase",
        }
    }

    /// GitHub's GraphQL enum (`PullRequestMergeMethod`).
    pub fn graphql(self) -> &'static str {
        match self {
            MergeMethod::Merge => "MERGE",
            MergeMethod::Squash => "SQUASH",
            MergeMethod::Rebase => "REBASE",
        }
    }

    /// In a sentence: "a merge commit", "squash", "rebase".
    pub fn words(self) -> &'static str {
        match self {
            MergeMethod::Merge => "a merge commit",
            MergeMethod::Squash => "squash and merge",
            MergeMethod::Rebase => "rebase and merge",
        }
    }

    pub fn parse(s: &str) -> Option<MergeMethod> {
        match s.trim().to_ascii_lowercase().as_str() {
            "merge" | "merge-commit" | "m" => Some(MergeMethod::Merge),
            "squash" | "s" => Some(MergeMethod::Squash),
            "rebase" | "r" => Some(MergeMethod::Rebase),
            _ => None,
        }
    }
}

/// What GitHub says of the PR now, as far as merging needs it (read at the moment of the
/// decision; a fixture stands in with what it records).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeFacts {
    /// OPEN, CLOSED or MERGED.
    pub state: String,
    pub draft: bool,
    /// The PR's head now.
    pub head: String,
    /// The methods the repository allows, in GitHub's order (merge, squash, rebase).
    pub allowed: Vec<MergeMethod>,
    /// The repository allows auto-merge.
    pub auto_merge_allowed: bool,
    /// Auto-merge is armed, with this method.
    pub auto_merge: Option<MergeMethod>,
    /// The base branch merges through a merge queue.
    pub queue: bool,
    /// The PR is in the merge queue.
    pub queued: bool,
    /// MERGEABLE, CONFLICTING or UNKNOWN.
    pub mergeable: String,
    /// GitHub's `mergeStateStatus`: CLEAN, BEHIND, BLOCKED, DIRTY, DRAFT, HAS_HOOKS, UNKNOWN,
    /// UNSTABLE.
    pub merge_state: String,
    /// The viewer may merge (WRITE, MAINTAIN or ADMIN on the repository).
    pub can_write: bool,
    /// Commits on the PR after `reviewed` (when the head moved and GitHub could say).
    pub commits_since: Option<u32>,
}

/// What the maintainer's side holds at the moment of the decision: what was shown, what is
/// open, what is unsent. Counts; `changes_requested` names the reviewers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stakes {
    /// Items (threads, comments, review summaries) never shown, or edited since shown.
    pub unseen: usize,
    /// Review threads not resolved.
    pub unresolved: usize,
    pub changes_requested: Vec<String>,
    pub checks_failing: u32,
    pub checks_pending: u32,
    /// Shepherd's critical and important findings of the latest review not addressed or
    /// dismissed.
    pub findings_open: usize,
    /// The pending review: line comments kept, its body written, drafts undecided.
    pub pending_comments: usize,
    pub pending_body: bool,
    pub drafts_undecided: usize,
    /// Other unsent work in words ("a reply draft", "a conversation comment draft").
    pub unsent_other: Vec<String>,
}

/// One thing a merge goes past.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Past {
    /// `unseen`, `unsent`, `unresolved`, `changes-requested`, `checks-failing`,
    /// `checks-pending`, `findings`.
    pub kind: &'static str,
    pub count: usize,
    /// In words: "2 items never shown".
    pub what: String,
    /// Needs a second, explicit yes (never shown, or not sent).
    pub second: bool,
}

/// Why nothing would merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Blocked {
    /// The PR moved past the head that was reviewed.
    HeadMoved {
        reviewed: String,
        now: String,
        commits: Option<u32>,
    },
    /// Closed or merged already.
    NotOpen {
        state: String,
    },
    Draft,
    /// The method asked for is not one the repository allows.
    Method {
        asked: MergeMethod,
        allowed: Vec<MergeMethod>,
    },
    Conflicts,
    /// The base branch moved and protection wants the branch up to date.
    Behind,
    /// Branch protection (required checks or reviews) refuses it now.
    Protected,
    NoPermission,
}

impl Blocked {
    /// The reason in words, as the console and the command say it.
    pub fn words(&self) -> String {
        match self {
            Blocked::HeadMoved {
                reviewed,
                now,
                commits,
            } => format!(
                "the PR moved since you looked: its head is {} now, you reviewed {}{}; nothing was merged (read what changed first: in the console ctrl-r, then the diff's I; headless `diff --since-last-look`)",
                short(now),
                short(reviewed),
                match commits {
                    Some(1) => " (1 commit came)".to_owned(),
                    Some(n) => format!(" ({n} commits came)"),
                    None => String::new(),
                }
            ),
            Blocked::NotOpen { state } => {
                format!("the PR is {} already", state.to_ascii_lowercase())
            }
            Blocked::Draft => {
                "the PR is a draft: mark it ready for review first (T)".to_owned()
            }
            Blocked::Method { asked, allowed } => format!(
                "the repository does not allow {}; it allows {}",
                asked.words(),
                if allowed.is_empty() {
                    "no merge method".to_owned()
                } else {
                    allowed
                        .iter()
                        .map(|m| m.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            Blocked::Conflicts => {
                "the PR conflicts with its base branch: resolve the conflicts first".to_owned()
            }
            Blocked::Behind => {
                "the base branch moved and protection wants the PR up to date: update the branch first (ctrl-e)".to_owned()
            }
            Blocked::Protected => {
                "branch protection refuses it now (required checks or reviews)".to_owned()
            }
            Blocked::NoPermission => {
                "you cannot merge on this repository (no write permission)".to_owned()
            }
        }
    }

    /// Auto-merge or the merge queue would take it instead: protection, not the PR, is what
    /// stands in the way now.
    pub fn waits_for_protection(&self) -> bool {
        matches!(self, Blocked::Protected | Blocked::Behind)
    }
}

/// The first 7 characters of a commit id.
pub fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// What a merge would do: its method, the head it merges, what it goes past, and what stops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MergePlan {
    pub method: MergeMethod,
    /// The head the merge carries (`expectedHeadOid`): the reviewed one, or the PR's head when
    /// the check is waived.
    pub head: String,
    pub past: Vec<Past>,
    pub blocked: Vec<Blocked>,
    /// The base branch merges through a queue: the merge is an enqueue.
    pub queue: bool,
}

impl MergePlan {
    /// Something would need the second, explicit yes.
    pub fn needs_second(&self) -> bool {
        self.past.iter().any(|p| p.second)
    }

    /// Nothing stops it (GitHub may still refuse for reasons only it knows).
    pub fn may_merge(&self) -> bool {
        self.blocked.is_empty()
    }

    /// Auto-merge is the way when only protection stands in the way.
    pub fn only_protection(&self) -> bool {
        !self.blocked.is_empty() && self.blocked.iter().all(Blocked::waits_for_protection)
    }
}

/// The method to use: `asked` when given, else the config's `preferred` when allowed, else the
/// first the repository allows (merge when it says none, so GitHub's own refusal names it).
pub fn choose_method(
    asked: Option<MergeMethod>,
    preferred: Option<MergeMethod>,
    allowed: &[MergeMethod],
) -> MergeMethod {
    asked
        .or(preferred.filter(|m| allowed.contains(m)))
        .or(allowed.first().copied())
        .unwrap_or(MergeMethod::Merge)
}

/// The plan of a merge of the PR whose facts are `facts`, reviewed at `reviewed` (`None`: the
/// check waived), with `method`, going past `stakes`.
pub fn plan(
    facts: &MergeFacts,
    reviewed: Option<&str>,
    method: MergeMethod,
    stakes: &Stakes,
) -> MergePlan {
    let mut blocked = Vec::new();
    if !facts.state.eq_ignore_ascii_case("OPEN") {
        blocked.push(Blocked::NotOpen {
            state: facts.state.clone(),
        });
    }
    if let Some(r) = reviewed
        && !same_commit(r, &facts.head)
    {
        blocked.push(Blocked::HeadMoved {
            reviewed: r.to_owned(),
            now: facts.head.clone(),
            commits: facts.commits_since,
        });
    }
    if facts.draft {
        blocked.push(Blocked::Draft);
    }
    if !facts.allowed.contains(&method) {
        blocked.push(Blocked::Method {
            asked: method,
            allowed: facts.allowed.clone(),
        });
    }
    if !facts.can_write {
        blocked.push(Blocked::NoPermission);
    }
    if facts.mergeable.eq_ignore_ascii_case("CONFLICTING")
        || facts.merge_state.eq_ignore_ascii_case("DIRTY")
    {
        blocked.push(Blocked::Conflicts);
    } else if facts.merge_state.eq_ignore_ascii_case("BEHIND") {
        blocked.push(Blocked::Behind);
    } else if facts.merge_state.eq_ignore_ascii_case("BLOCKED") && !facts.queue {
        blocked.push(Blocked::Protected);
    }
    MergePlan {
        method,
        // The full id when the reviewed one names the head (GitHub wants the whole id).
        head: match reviewed {
            Some(r) if !same_commit(r, &facts.head) => r.to_owned(),
            _ => facts.head.clone(),
        },
        past: past(stakes),
        blocked,
        queue: facts.queue,
    }
}

/// Two commit ids name the same commit (one may be abbreviated, at least 7 characters).
pub fn same_commit(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim().to_ascii_lowercase(), b.trim().to_ascii_lowercase());
    if a.len() < 7 || b.len() < 7 {
        return a == b;
    }
    a.starts_with(&b) || b.starts_with(&a)
}

/// What a merge goes past, in the order the question names it: first what needs the second yes.
pub fn past(s: &Stakes) -> Vec<Past> {
    use crate::plural::count_irregular as count;
    let mut out = Vec::new();
    let mut push = |kind, n: usize, what: String, second| {
        if n > 0 {
            out.push(Past {
                kind,
                count: n,
                what,
                second,
            });
        }
    };
    push(
        "unseen",
        s.unseen,
        format!(
            "{} never shown to you (or edited since)",
            count(s.unseen, "item", "items")
        ),
        true,
    );
    let mut unsent = Vec::new();
    if s.pending_comments > 0 {
        unsent.push(count(
            s.pending_comments,
            "pending comment",
            "pending comments",
        ));
    }
    if s.pending_body {
        unsent.push("the pending review's body".to_owned());
    }
    if s.drafts_undecided > 0 {
        unsent.push(count(
            s.drafts_undecided,
            "finding draft undecided",
            "finding drafts undecided",
        ));
    }
    unsent.extend(s.unsent_other.iter().cloned());
    let unsent_n = s.pending_comments
        + usize::from(s.pending_body)
        + s.drafts_undecided
        + s.unsent_other.len();
    push(
        "unsent",
        unsent_n,
        format!("unsent: {}", unsent.join(", ")),
        true,
    );
    push(
        "unresolved",
        s.unresolved,
        count(s.unresolved, "unresolved thread", "unresolved threads"),
        false,
    );
    push(
        "changes-requested",
        s.changes_requested.len(),
        format!(
            "changes requested by {}",
            s.changes_requested
                .iter()
                .map(|l| format!("@{}", crate::sanitize::one_line(l)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        false,
    );
    push(
        "checks-failing",
        s.checks_failing as usize,
        count(s.checks_failing as usize, "failing check", "failing checks"),
        false,
    );
    push(
        "checks-pending",
        s.checks_pending as usize,
        count(s.checks_pending as usize, "pending check", "pending checks"),
        false,
    );
    push(
        "findings",
        s.findings_open,
        format!(
            "{} by Shepherd (critical or important, not addressed)",
            count(s.findings_open, "open finding", "open findings")
        ),
        false,
    );
    out
}

/// GitHub's default squash commit: the title with ` (#N)`, the commits' messages as the body
/// (each headline a `* ` item, its body below it).
pub fn squash_message(title: &str, number: u64, commits: &[String]) -> (String, String) {
    let headline = format!("{} (#{number})", title.trim());
    let body = commits
        .iter()
        .map(|m| format!("* {}", m.trim()))
        .collect::<Vec<_>>()
        .join("\n\n");
    (headline, body)
}

/// GitHub's default merge commit: `Merge pull request #N from OWNER:BRANCH`, the title below.
pub fn merge_message(number: u64, head_label: &str, title: &str) -> (String, String) {
    (
        format!("Merge pull request #{number} from {head_label}"),
        title.trim().to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> MergeFacts {
        MergeFacts {
            state: "OPEN".into(),
            head: "a1b2c3d4e5f6".into(),
            allowed: vec![MergeMethod::Merge, MergeMethod::Squash],
            mergeable: "MERGEABLE".into(),
            merge_state: "CLEAN".into(),
            can_write: true,
            ..MergeFacts::default()
        }
    }

    #[test]
    fn a_clean_pr_at_the_reviewed_head_merges_at_that_head() {
        let p = plan(
            &facts(),
            Some("a1b2c3d"),
            MergeMethod::Squash,
            &Stakes::default(),
        );
        assert!(p.may_merge(), "{p:?}");
        assert!(!p.needs_second());
        assert_eq!(p.head, "a1b2c3d4e5f6");
    }

    #[test]
    fn a_moved_head_blocks_and_says_how_many_commits_came() {
        let mut f = facts();
        f.head = "ffff000011112222".into();
        f.commits_since = Some(2);
        let p = plan(
            &f,
            Some("a1b2c3d4e5f6"),
            MergeMethod::Merge,
            &Stakes::default(),
        );
        assert!(!p.may_merge());
        let w = p.blocked[0].words();
        assert!(
            w.contains("ffff000") && w.contains("a1b2c3d") && w.contains("2 commits"),
            "{w}"
        );
        // Waived: the PR's head now.
        let p = plan(&f, None, MergeMethod::Merge, &Stakes::default());
        assert!(p.may_merge());
        assert_eq!(p.head, "ffff000011112222");
    }

    #[test]
    fn a_method_the_repository_does_not_allow_is_named_with_the_allowed_ones() {
        let p = plan(&facts(), None, MergeMethod::Rebase, &Stakes::default());
        assert_eq!(
            p.blocked,
            vec![Blocked::Method {
                asked: MergeMethod::Rebase,
                allowed: vec![MergeMethod::Merge, MergeMethod::Squash]
            }]
        );
        assert!(p.blocked[0].words().contains("allows merge, squash"));
    }

    #[test]
    fn githubs_states_become_reasons_and_protection_alone_offers_auto_merge() {
        for (mergeable, state, want) in [
            ("CONFLICTING", "DIRTY", Blocked::Conflicts),
            ("MERGEABLE", "BEHIND", Blocked::Behind),
            ("MERGEABLE", "BLOCKED", Blocked::Protected),
        ] {
            let mut f = facts();
            f.mergeable = mergeable.into();
            f.merge_state = state.into();
            let p = plan(&f, None, MergeMethod::Merge, &Stakes::default());
            assert_eq!(p.blocked, vec![want.clone()]);
            assert_eq!(p.only_protection(), want != Blocked::Conflicts);
        }
        let mut f = facts();
        f.can_write = false;
        f.draft = true;
        f.state = "MERGED".into();
        let p = plan(&f, None, MergeMethod::Merge, &Stakes::default());
        assert_eq!(p.blocked.len(), 3);
        assert!(!p.only_protection());
    }

    #[test]
    fn never_shown_and_unsent_need_the_second_yes_the_rest_is_stated() {
        let s = Stakes {
            unseen: 2,
            unresolved: 3,
            changes_requested: vec!["rajesh-k".into()],
            checks_failing: 1,
            checks_pending: 0,
            findings_open: 1,
            pending_comments: 1,
            pending_body: true,
            drafts_undecided: 0,
            unsent_other: vec![],
        };
        let p = past(&s);
        let kinds: Vec<_> = p.iter().map(|p| (p.kind, p.count, p.second)).collect();
        assert_eq!(
            kinds,
            vec![
                ("unseen", 2, true),
                ("unsent", 2, true),
                ("unresolved", 3, false),
                ("changes-requested", 1, false),
                ("checks-failing", 1, false),
                ("findings", 1, false),
            ]
        );
        assert_eq!(p[0].what, "2 items never shown to you (or edited since)");
        assert_eq!(
            p[1].what,
            "unsent: 1 pending comment, the pending review's body"
        );
        assert_eq!(p[3].what, "changes requested by @rajesh-k");
        let only_stated = Stakes {
            unresolved: 1,
            ..Stakes::default()
        };
        assert!(!plan(&facts(), None, MergeMethod::Merge, &only_stated).needs_second());
    }

    #[test]
    fn the_method_is_the_asked_then_the_preferred_allowed_then_the_first_allowed() {
        let allowed = [MergeMethod::Squash, MergeMethod::Rebase];
        assert_eq!(choose_method(None, None, &allowed), MergeMethod::Squash);
        assert_eq!(
            choose_method(None, Some(MergeMethod::Rebase), &allowed),
            MergeMethod::Rebase
        );
        assert_eq!(
            choose_method(None, Some(MergeMethod::Merge), &allowed),
            MergeMethod::Squash
        );
        assert_eq!(
            choose_method(Some(MergeMethod::Merge), None, &allowed),
            MergeMethod::Merge
        );
    }

    #[test]
    fn abbreviated_ids_name_the_same_commit_and_short_ones_must_be_whole() {
        assert!(same_commit("A1B2C3D", "a1b2c3d4e5"));
        assert!(!same_commit("a1b2c3", "a1b2c3d4e5"));
        assert!(!same_commit("a1b2c3e", "a1b2c3d4e5"));
    }

    #[test]
    fn githubs_default_squash_message_is_the_title_with_the_number_and_the_commits() {
        let (h, b) = squash_message(
            "Fix the parser ",
            482,
            &["one".into(), "two\n\nmore".into()],
        );
        assert_eq!(h, "Fix the parser (#482)");
        assert_eq!(b, "* one\n\n* two\n\nmore");
    }
}
