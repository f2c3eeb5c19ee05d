//! Deciding a PR: merge (at the reviewed head, never another), auto-merge, the merge queue,
//! close, reopen, ready, draft, labels, assignees, reviewers requested, update branch — live
//! through GitHub (REST where its twin carries what must be checked, GraphQL where only GraphQL
//! has the mutation), offline into the ledger's action outbox: recorded, never sent.
//!
//! Nothing is sent twice: a merge is sent once, and when its answer is lost the PR is read back
//! (merged → said, no second request). What is already so (a closed PR closed, a label there)
//! sends nothing. Every refusal is GitHub's own reason in words, never a bare status code. The
//! PR's post lock is held while deciding, so two consoles merging the same PR make one merge:
//! the second reads it merged.

use serde_json::{Value, json};

use crate::ledger::{ActionOutbox, Ledger, LedgerError, Lock};
use crate::policy::merge::{MergeFacts, MergeMethod, short};
use crate::pr::{PrCoords, Snapshot};
use crate::sanitize::one_line;
use crate::source::github::{
    GitHub, GitHubError, GraphqlReply, PR_AUTO_MERGE_MUTATION, PR_AUTO_MERGE_OFF_MUTATION,
    PR_DECIDE_QUERY, PR_DEQUEUE_MUTATION, PR_DRAFT_MUTATION, PR_ENQUEUE_MUTATION,
    PR_READY_MUTATION, PR_UPDATE_BRANCH_MUTATION,
};

/// How long a decision waits for another run deciding the same PR.
const DECIDE_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// What to merge: the method, the head it must be at, the commit's message (GitHub's default
/// when `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeAsk {
    pub method: MergeMethod,
    /// `expectedHeadOid` / REST `sha`: nothing merges when the PR's head is another.
    pub head: String,
    pub headline: Option<String>,
    pub body: Option<String>,
}

/// A decision on a PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrDo {
    Merge(MergeAsk),
    /// Arm auto-merge: GitHub merges once protection allows, at this head only.
    AutoMerge(MergeAsk),
    AutoMergeOff,
    /// Into the base branch's merge queue, at this head only.
    Enqueue {
        head: String,
    },
    Dequeue,
    Close,
    Reopen,
    Ready,
    Draft,
    AddLabels(Vec<String>),
    RemoveLabels(Vec<String>),
    Assign(Vec<String>),
    Unassign(Vec<String>),
    /// Users by login, teams by `org/slug`.
    RequestReview {
        users: Vec<String>,
        teams: Vec<String>,
    },
    /// Bring the base branch in (a merge commit, or a rebase), only at this head.
    UpdateBranch {
        rebase: bool,
        head: String,
    },
    /// Approve at this head (a review without comments): only ever made from a console
    /// confirmation, which alone makes a [`ConsoleApproval`].
    Approve {
        head: String,
        approval: crate::publish::review::ConsoleApproval,
    },
}

impl PrDo {
    /// The outbox's and the JSON's word.
    pub fn kind(&self) -> &'static str {
        match self {
            PrDo::Merge(_) => "merge",
            PrDo::AutoMerge(_) => "auto-merge",
            PrDo::AutoMergeOff => "auto-merge-off",
            PrDo::Enqueue { .. } => "enqueue",
            PrDo::Dequeue => "dequeue",
            PrDo::Close => "close",
            PrDo::Reopen => "reopen",
            PrDo::Ready => "ready",
            PrDo::Draft => "draft",
            PrDo::AddLabels(_) => "label-add",
            PrDo::RemoveLabels(_) => "label-remove",
            PrDo::Assign(_) => "assign",
            PrDo::Unassign(_) => "unassign",
            PrDo::RequestReview { .. } => "request-review",
            PrDo::UpdateBranch { .. } => "update-branch",
            PrDo::Approve { .. } => "approve",
        }
    }

    /// What it does, in words, for questions and reports: "merge (squash) at a1b2c3d".
    pub fn words(&self) -> String {
        let names = |v: &[String], at: bool| {
            v.iter()
                .map(|n| {
                    if at {
                        format!("@{}", one_line(n))
                    } else {
                        one_line(n)
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            PrDo::Merge(m) => format!("merge ({}) at {}", m.method.as_str(), short(&m.head)),
            PrDo::AutoMerge(m) => format!(
                "arm auto-merge ({}) at {}",
                m.method.as_str(),
                short(&m.head)
            ),
            PrDo::AutoMergeOff => "disarm auto-merge".to_owned(),
            PrDo::Enqueue { head } => format!("add to the merge queue at {}", short(head)),
            PrDo::Dequeue => "take out of the merge queue".to_owned(),
            PrDo::Close => "close".to_owned(),
            PrDo::Reopen => "reopen".to_owned(),
            PrDo::Ready => "mark ready for review".to_owned(),
            PrDo::Draft => "convert to draft".to_owned(),
            PrDo::AddLabels(l) => format!("add the labels {}", names(l, false)),
            PrDo::RemoveLabels(l) => format!("remove the labels {}", names(l, false)),
            PrDo::Assign(l) => format!("assign {}", names(l, true)),
            PrDo::Unassign(l) => format!("unassign {}", names(l, true)),
            PrDo::RequestReview { users, teams } => {
                let mut all: Vec<String> =
                    users.iter().map(|u| format!("@{}", one_line(u))).collect();
                all.extend(teams.iter().map(|t| format!("@{}", one_line(t))));
                format!("request a review from {}", all.join(", "))
            }
            PrDo::UpdateBranch { rebase, head } => format!(
                "update the branch ({}) at {}",
                if *rebase { "rebase" } else { "merge" },
                short(head)
            ),
            PrDo::Approve { head, .. } => format!("approve at {}", short(head)),
        }
    }

    /// What the outbox keeps of it.
    pub fn detail(&self) -> Value {
        match self {
            PrDo::Merge(m) | PrDo::AutoMerge(m) => json!({
                "method": m.method.as_str(),
                "head": m.head,
                "headline": m.headline,
                "body": m.body,
            }),
            PrDo::Enqueue { head } => json!({ "head": head }),
            PrDo::AddLabels(n) | PrDo::RemoveLabels(n) | PrDo::Assign(n) | PrDo::Unassign(n) => {
                json!({ "names": n })
            }
            PrDo::RequestReview { users, teams } => json!({ "users": users, "teams": teams }),
            PrDo::UpdateBranch { rebase, head } => json!({ "rebase": rebase, "head": head }),
            PrDo::Approve { head, .. } => json!({ "head": head }),
            _ => json!({}),
        }
    }
}

/// What a decision did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub kind: &'static str,
    /// In words: "merged (squash) at a1b2c3d as 9f8e7d6", "recorded offline, not sent: …".
    pub said: String,
    /// Where it can be seen: the PR's URL, or the outbox file offline.
    pub location: String,
    pub offline: bool,
    /// It was so already (merged by an earlier run, a label there): nothing was sent.
    pub already: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// GitHub refused: its own reason.
    #[error("GitHub refused to {what}: {reason}")]
    Refused { what: String, reason: String },
    /// The PR's head is not the one the decision carries.
    #[error(
        "the PR moved since you looked: its head is not {} any more; nothing was done (read the new commits, then decide again)",
        short(.expected)
    )]
    Moved { expected: String },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    GitHub(#[from] GitHubError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl DecideError {
    /// Bad input (an unknown label, a login that is no one): exit 2.
    pub fn is_usage(&self) -> bool {
        matches!(self, DecideError::Invalid(_))
    }
}

/// The PR as GitHub says it now, for a decision.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LiveFacts {
    /// The PR's node id (GraphQL mutations).
    pub id: String,
    pub number: u64,
    pub title: String,
    pub facts: MergeFacts,
    /// The PR's commits, oldest first (the last 100).
    pub commits: Vec<String>,
    /// GitHub's default messages: (headline, body) for a merge commit and for squash.
    pub merge_message: (String, String),
    pub squash_message: (String, String),
    pub review_decision: Option<String>,
    /// Who requested changes in their latest review.
    pub changes_requested: Vec<String>,
    /// Failing and pending checks at the head (required ones when GitHub marks any required).
    pub checks_failing: u32,
    pub checks_pending: u32,
}

/// Reads the PR as a decision needs it; `reviewed` (the head the maintainer read) gives
/// `commits_since` when the PR moved past it.
pub async fn facts_live(
    gh: &GitHub,
    pr: &PrCoords,
    reviewed: Option<&str>,
) -> Result<LiveFacts, DecideError> {
    let reply = gh
        .graphql(
            PR_DECIDE_QUERY,
            json!({ "owner": pr.owner, "repo": pr.repo, "number": pr.number }),
            "reading the PR for a decision",
        )
        .await?;
    let repo = reply
        .data
        .as_ref()
        .and_then(|d| d.get("repository"))
        .filter(|r| !r.is_null());
    let Some(repo) = repo else {
        return Err(refused("read the PR", &reply));
    };
    let Some(p) = repo.get("pullRequest").filter(|p| !p.is_null()) else {
        return Err(DecideError::Invalid(format!(
            "no pull request {}/{}#{}",
            one_line(&pr.owner),
            one_line(&pr.repo),
            pr.number
        )));
    };
    Ok(read_facts(repo, p, reviewed))
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// [`LiveFacts`] from the `PrDecide` answer's repository and pull request.
fn read_facts(repo: &Value, p: &Value, reviewed: Option<&str>) -> LiveFacts {
    let mut allowed = Vec::new();
    for (key, m) in [
        ("mergeCommitAllowed", MergeMethod::Merge),
        ("squashMergeAllowed", MergeMethod::Squash),
        ("rebaseMergeAllowed", MergeMethod::Rebase),
    ] {
        if flag(repo, key) {
            allowed.push(m);
        }
    }
    let permission = text(repo, "viewerPermission");
    let nodes = |v: Option<&Value>| -> Vec<Value> {
        v.and_then(|c| c.get("nodes"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let commit_nodes = nodes(p.get("commits"));
    let commits: Vec<String> = commit_nodes
        .iter()
        .filter_map(|n| n.pointer("/commit/oid").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    let head = text(p, "headRefOid");
    let commits_since = reviewed.and_then(|r| {
        commits
            .iter()
            .position(|c| crate::policy::merge::same_commit(c, r))
            .map(|i| (commits.len() - 1 - i) as u32)
    });
    // The checks at the head: the last commit's rollup.
    let contexts = commit_nodes
        .last()
        .and_then(|n| n.pointer("/commit/statusCheckRollup/contexts"))
        .map(|c| nodes(Some(c)))
        .unwrap_or_default();
    let any_required = contexts.iter().any(|c| flag(c, "isRequired"));
    let (mut failing, mut pending) = (0, 0);
    for c in contexts
        .iter()
        .filter(|c| !any_required || flag(c, "isRequired"))
    {
        let (status, conclusion) =
            if c.get("__typename").and_then(Value::as_str) == Some("StatusContext") {
                let s = text(c, "state");
                (
                    if s == "PENDING" || s == "EXPECTED" {
                        "PENDING".to_owned()
                    } else {
                        "COMPLETED".to_owned()
                    },
                    s,
                )
            } else {
                (text(c, "status"), text(c, "conclusion"))
            };
        if status != "COMPLETED" {
            pending += 1;
        } else if matches!(
            conclusion.as_str(),
            "FAILURE" | "ERROR" | "TIMED_OUT" | "CANCELLED" | "ACTION_REQUIRED" | "STARTUP_FAILURE"
        ) {
            failing += 1;
        }
    }
    let changes_requested = nodes(p.get("latestOpinionatedReviews"))
        .iter()
        .filter(|r| text(r, "state") == "CHANGES_REQUESTED")
        .filter_map(|r| r.pointer("/author/login").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    let auto_merge = p
        .pointer("/autoMergeRequest/mergeMethod")
        .and_then(Value::as_str)
        .and_then(MergeMethod::parse);
    LiveFacts {
        id: text(p, "id"),
        number: p.get("number").and_then(Value::as_u64).unwrap_or_default(),
        title: text(p, "title"),
        facts: MergeFacts {
            state: text(p, "state"),
            draft: flag(p, "isDraft"),
            head,
            allowed,
            auto_merge_allowed: flag(repo, "autoMergeAllowed"),
            auto_merge,
            queue: flag(p, "isMergeQueueEnabled"),
            queued: flag(p, "isInMergeQueue"),
            mergeable: text(p, "mergeable"),
            merge_state: text(p, "mergeStateStatus"),
            can_write: matches!(permission.as_str(), "WRITE" | "MAINTAIN" | "ADMIN"),
            commits_since,
        },
        commits,
        merge_message: (text(p, "mergeHeadline"), text(p, "mergeBody")),
        squash_message: (text(p, "squashHeadline"), text(p, "squashBody")),
        review_decision: p
            .get("reviewDecision")
            .and_then(Value::as_str)
            .map(str::to_owned),
        changes_requested,
        checks_failing: failing,
        checks_pending: pending,
    }
}

/// The PR of a fixture as a decision sees it: what the fixture records, with the action outbox
/// applied (a merge recorded offline makes it merged). A fixture records no repository settings:
/// every method is offered, and the viewer may merge.
pub fn facts_offline(snapshot: &Snapshot, outbox: &ActionOutbox) -> LiveFacts {
    let pr = &snapshot.pr;
    LiveFacts {
        id: String::new(),
        number: pr.number,
        title: pr.title.clone(),
        facts: MergeFacts {
            state: outbox.state_after(&pr.state),
            draft: outbox.draft_after(pr.draft),
            head: pr.head_sha.clone(),
            allowed: MergeMethod::ALL.to_vec(),
            auto_merge_allowed: true,
            auto_merge: outbox
                .last_of(&["auto-merge", "auto-merge-off"])
                .filter(|a| a.kind == "auto-merge")
                .and_then(|a| a.detail.get("method").and_then(Value::as_str))
                .and_then(MergeMethod::parse),
            queue: false,
            queued: outbox
                .last_of(&["enqueue", "dequeue"])
                .is_some_and(|a| a.kind == "enqueue"),
            mergeable: "MERGEABLE".to_owned(),
            merge_state: "CLEAN".to_owned(),
            can_write: true,
            commits_since: None,
        },
        commits: vec![pr.head_sha.clone()],
        merge_message: crate::policy::merge::merge_message(
            pr.number,
            &format!("{}/{}", pr.owner, pr.head_ref),
            &pr.title,
        ),
        squash_message: crate::policy::merge::squash_message(&pr.title, pr.number, &[]),
        review_decision: None,
        changes_requested: Vec::new(),
        checks_failing: 0,
        checks_pending: 0,
    }
}

/// The repository's labels, as it spells them (up to 2,000).
pub async fn repo_labels(gh: &GitHub, pr: &PrCoords) -> Result<Vec<String>, GitHubError> {
    #[derive(serde::Deserialize)]
    struct Label {
        name: String,
    }
    let all: Vec<Label> = gh
        .get_all(
            &format!("/repos/{}/{}/labels?per_page=100", pr.owner, pr.repo),
            20,
            "listing the repository's labels",
        )
        .await?;
    Ok(all.into_iter().map(|l| l.name).collect())
}

/// What is so already, when `what` would change nothing (nothing is sent then).
fn already_so(facts: &LiveFacts, what: &PrDo) -> Option<String> {
    let f = &facts.facts;
    let state = f.state.to_ascii_uppercase();
    match what {
        PrDo::Merge(_) if state == "MERGED" => Some("merged already".to_owned()),
        PrDo::Close if state == "CLOSED" || state == "MERGED" => {
            Some(format!("{} already", state.to_ascii_lowercase()))
        }
        PrDo::Reopen if state == "OPEN" => Some("open already".to_owned()),
        PrDo::Ready if !f.draft => Some("ready for review already".to_owned()),
        PrDo::Draft if f.draft => Some("a draft already".to_owned()),
        PrDo::AutoMergeOff if f.auto_merge.is_none() => Some("auto-merge is not armed".to_owned()),
        PrDo::Dequeue if !f.queued => Some("not in the merge queue".to_owned()),
        PrDo::Enqueue { .. } if f.queued => Some("in the merge queue already".to_owned()),
        _ => None,
    }
}

/// Does `what` offline: one more entry in the PR's action outbox. A merge recorded before is
/// not recorded again.
pub fn act_offline(
    ledger: &Ledger,
    snapshot: &Snapshot,
    what: &PrDo,
    now: i64,
) -> Result<Decided, DecideError> {
    let pr = snapshot.pr.coords();
    let facts = facts_offline(snapshot, &ledger.action_outbox(&pr)?);
    if let Some(so) = already_so(&facts, what) {
        return Ok(Decided {
            kind: what.kind(),
            said: format!("nothing recorded: the PR is {so} (offline)"),
            location: ledger.action_outbox_path(&pr)?.display().to_string(),
            offline: true,
            already: true,
        });
    }
    if let PrDo::Approve { head, approval } = what {
        // Into the review outbox, as the pending review's approve goes: the PR shows it queued.
        let req = approval_request(head, *approval);
        let done = crate::publish::review::submit_offline(ledger, &pr, &req, now).map_err(|e| {
            DecideError::Refused {
                what: what.words(),
                reason: one_line(&e.to_string()),
            }
        })?;
        return Ok(Decided {
            kind: what.kind(),
            said: format!("recorded offline, not sent: {}", what.words()),
            location: done.location,
            offline: true,
            already: false,
        });
    }
    let (_, path, _) = ledger.push_pr_action(&pr, what.kind(), what.detail(), now)?;
    Ok(Decided {
        kind: what.kind(),
        said: format!("recorded offline, not sent: {}", what.words()),
        location: path.display().to_string(),
        offline: true,
        already: false,
    })
}

/// Does `what` on GitHub, with the PR's post lock held (in `ledger`, when given): the PR is read
/// afresh first, so what is so already sends nothing and a moved head merges nothing.
pub async fn act_live(
    gh: &GitHub,
    ledger: Option<&Ledger>,
    pr: &PrCoords,
    what: &PrDo,
) -> Result<Decided, DecideError> {
    let _turn = match ledger {
        Some(l) => Some(l.lock(pr, Lock::Post, DECIDE_WAIT)?),
        None => None,
    };
    let facts = facts_live(gh, pr, None).await?;
    let url = format!(
        "https://{}/{}/{}/pull/{}",
        pr.host.as_deref().unwrap_or("github.com"),
        pr.owner,
        pr.repo,
        pr.number
    );
    if let Some(so) = already_so(&facts, what) {
        return Ok(Decided {
            kind: what.kind(),
            said: format!("nothing sent: the PR is {so}"),
            location: url,
            offline: false,
            already: true,
        });
    }
    let expected = match what {
        PrDo::Merge(m) | PrDo::AutoMerge(m) => Some(m.head.as_str()),
        PrDo::Enqueue { head } | PrDo::UpdateBranch { head, .. } | PrDo::Approve { head, .. } => {
            Some(head.as_str())
        }
        _ => None,
    };
    if let Some(e) = expected
        && !crate::policy::merge::same_commit(e, &facts.facts.head)
    {
        return Err(DecideError::Moved {
            expected: e.to_owned(),
        });
    }
    let said = send(gh, pr, &facts, what).await?;
    Ok(Decided {
        kind: what.kind(),
        said,
        location: url,
        offline: false,
        already: false,
    })
}

/// Sends `what`; what GitHub did, in words.
async fn send(
    gh: &GitHub,
    pr: &PrCoords,
    facts: &LiveFacts,
    what: &PrDo,
) -> Result<String, DecideError> {
    let base = format!("/repos/{}/{}", pr.owner, pr.repo);
    let n = pr.number;
    let words = what.words();
    match what {
        PrDo::Merge(m) => merge(gh, pr, m).await,
        PrDo::Approve { head, approval } => {
            let req = approval_request(head, *approval);
            let viewer = gh.viewer_login().await?;
            let done = crate::publish::review::submit_live(gh, pr, &viewer, &req, 3)
                .await
                .map_err(|e| DecideError::Refused {
                    what: words.clone(),
                    reason: one_line(&e.to_string()),
                })?;
            Ok(format!(
                "approved at {}: {}",
                short(head),
                one_line(&done.location)
            ))
        }
        PrDo::AutoMerge(m) => {
            let (headline, body) = message_or_default(facts, m);
            mutate(
                gh,
                PR_AUTO_MERGE_MUTATION,
                json!({
                    "id": facts.id, "method": m.method.graphql(), "head": m.head,
                    "headline": headline, "body": body,
                }),
                "enablePullRequestAutoMerge",
                &words,
            )
            .await?;
            Ok(format!(
                "auto-merge armed ({}) at {}: GitHub merges once protection allows",
                m.method.as_str(),
                short(&m.head)
            ))
        }
        PrDo::AutoMergeOff => {
            mutate(
                gh,
                PR_AUTO_MERGE_OFF_MUTATION,
                json!({ "id": facts.id }),
                "disablePullRequestAutoMerge",
                &words,
            )
            .await?;
            Ok("auto-merge disarmed".to_owned())
        }
        PrDo::Enqueue { head } => {
            let v = mutate(
                gh,
                PR_ENQUEUE_MUTATION,
                json!({ "id": facts.id, "head": head }),
                "enqueuePullRequest",
                &words,
            )
            .await?;
            let position = v
                .pointer("/mergeQueueEntry/position")
                .and_then(Value::as_u64);
            Ok(match position {
                Some(p) => format!("added to the merge queue at {} (position {p})", short(head)),
                None => format!("added to the merge queue at {}", short(head)),
            })
        }
        PrDo::Dequeue => {
            mutate(
                gh,
                PR_DEQUEUE_MUTATION,
                json!({ "id": facts.id }),
                "dequeuePullRequest",
                &words,
            )
            .await?;
            Ok("taken out of the merge queue".to_owned())
        }
        PrDo::Close | PrDo::Reopen => {
            let state = if *what == PrDo::Close {
                "closed"
            } else {
                "open"
            };
            rest(
                gh,
                reqwest::Method::PATCH,
                &format!("{base}/pulls/{n}"),
                Some(&json!({ "state": state })),
                &words,
            )
            .await?;
            Ok(if *what == PrDo::Close {
                "closed".to_owned()
            } else {
                "reopened".to_owned()
            })
        }
        PrDo::Ready | PrDo::Draft => {
            let (doc, field) = if *what == PrDo::Ready {
                (PR_READY_MUTATION, "markPullRequestReadyForReview")
            } else {
                (PR_DRAFT_MUTATION, "convertPullRequestToDraft")
            };
            mutate(gh, doc, json!({ "id": facts.id }), field, &words).await?;
            Ok(if *what == PrDo::Ready {
                "marked ready for review".to_owned()
            } else {
                "converted to a draft".to_owned()
            })
        }
        PrDo::AddLabels(names) => {
            rest(
                gh,
                reqwest::Method::POST,
                &format!("{base}/issues/{n}/labels"),
                Some(&json!({ "labels": names })),
                &words,
            )
            .await?;
            Ok(format!("labelled {}", names.join(", ")))
        }
        PrDo::RemoveLabels(names) => {
            for name in names {
                let path = format!("{base}/issues/{n}/labels/{}", path_segment(name));
                let resp = gh
                    .rest_raw(reqwest::Method::DELETE, &path, None, &words)
                    .await?;
                // Not on the PR (any more) is what was asked for.
                if !resp.status.is_success() && resp.status != reqwest::StatusCode::NOT_FOUND {
                    return Err(DecideError::Refused {
                        what: words.clone(),
                        reason: resp.message(),
                    });
                }
            }
            Ok(format!("removed the labels {}", names.join(", ")))
        }
        PrDo::Assign(logins) | PrDo::Unassign(logins) => {
            let method = if matches!(what, PrDo::Assign(_)) {
                reqwest::Method::POST
            } else {
                reqwest::Method::DELETE
            };
            let v = rest(
                gh,
                method,
                &format!("{base}/issues/{n}/assignees"),
                Some(&json!({ "assignees": logins })),
                &words,
            )
            .await?;
            if matches!(what, PrDo::Assign(_)) {
                // GitHub leaves out, without an error, a login that cannot be assigned.
                let now: Vec<String> = v
                    .get("assignees")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|u| u.get("login").and_then(Value::as_str))
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                let missing: Vec<&String> = logins
                    .iter()
                    .filter(|l| !now.iter().any(|n| n.eq_ignore_ascii_case(l)))
                    .collect();
                if !missing.is_empty() {
                    return Err(DecideError::Refused {
                        what: words,
                        reason: format!(
                            "{} cannot be assigned on this repository (GitHub left them out)",
                            missing
                                .iter()
                                .map(|l| format!("@{}", one_line(l)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                }
                Ok(format!(
                    "assigned {}",
                    logins
                        .iter()
                        .map(|l| format!("@{l}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            } else {
                Ok(format!(
                    "unassigned {}",
                    logins
                        .iter()
                        .map(|l| format!("@{l}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
        PrDo::RequestReview { users, teams } => {
            let slugs: Vec<&str> = teams
                .iter()
                .map(|t| t.rsplit('/').next().unwrap_or(t))
                .collect();
            rest(
                gh,
                reqwest::Method::POST,
                &format!("{base}/pulls/{n}/requested_reviewers"),
                Some(&json!({ "reviewers": users, "team_reviewers": slugs })),
                &words,
            )
            .await?;
            Ok(format!(
                "review requested: {}",
                words.trim_start_matches("request a review from ")
            ))
        }
        PrDo::UpdateBranch { rebase, head } => {
            mutate(
                gh,
                PR_UPDATE_BRANCH_MUTATION,
                json!({
                    "id": facts.id, "head": head,
                    "method": if *rebase { "REBASE" } else { "MERGE" },
                }),
                "updatePullRequestBranch",
                &words,
            )
            .await?;
            Ok(format!(
                "branch updated ({}): the PR has a new head; read it before merging",
                if *rebase { "rebased" } else { "base merged in" }
            ))
        }
    }
}

/// An approval without comments or body at `head`.
fn approval_request(
    head: &str,
    approval: crate::publish::review::ConsoleApproval,
) -> crate::publish::review::ReviewRequest {
    crate::publish::review::ReviewRequest::of(
        &crate::code::pending::PendingReview::default(),
        head,
        crate::publish::review::Event::Approve(approval),
        "",
    )
}

/// The message to merge with: the one written, else GitHub's default for the method.
fn message_or_default(facts: &LiveFacts, m: &MergeAsk) -> (Option<String>, Option<String>) {
    let default = match m.method {
        MergeMethod::Squash => Some(&facts.squash_message),
        MergeMethod::Merge => Some(&facts.merge_message),
        MergeMethod::Rebase => None,
    };
    (
        m.headline
            .clone()
            .or_else(|| default.map(|d| d.0.clone()).filter(|h| !h.is_empty())),
        m.body
            .clone()
            .or_else(|| default.map(|d| d.1.clone()).filter(|b| !b.is_empty())),
    )
}

/// `PUT /pulls/N/merge` with `sha`: sent once; a lost answer is read back (merged → said).
async fn merge(gh: &GitHub, pr: &PrCoords, m: &MergeAsk) -> Result<String, DecideError> {
    let what = format!("merge ({}) at {}", m.method.as_str(), short(&m.head));
    let mut body = json!({ "sha": m.head, "merge_method": m.method.as_str() });
    if let Some(h) = &m.headline {
        body["commit_title"] = json!(h);
    }
    if let Some(b) = &m.body {
        body["commit_message"] = json!(b);
    }
    let path = format!("/repos/{}/{}/pulls/{}/merge", pr.owner, pr.repo, pr.number);
    let sent = gh
        .rest_once(reqwest::Method::PUT, &path, Some(&body), &what)
        .await;
    let resp = match sent {
        Ok(r) if r.status.is_server_error() => None,
        Ok(r) => Some(r),
        Err(GitHubError::Unavailable { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let Some(resp) = resp else {
        // The answer was lost: whether it merged is read back, never guessed or sent again.
        let now = facts_live(gh, pr, None).await?;
        if now.facts.state.eq_ignore_ascii_case("MERGED") {
            return Ok(format!(
                "merged ({}) at {} (GitHub's answer was lost; the PR reads merged)",
                m.method.as_str(),
                short(&m.head)
            ));
        }
        return Err(DecideError::Refused {
            what,
            reason: "GitHub did not answer, and the PR reads not merged; nothing was sent again"
                .to_owned(),
        });
    };
    if resp.status.is_success() {
        let sha = resp
            .json::<Value>(&what)
            .ok()
            .and_then(|v| v.get("sha").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        return Ok(if sha.is_empty() {
            format!("merged ({}) at {}", m.method.as_str(), short(&m.head))
        } else {
            format!(
                "merged ({}) at {} as {}",
                m.method.as_str(),
                short(&m.head),
                short(&sha)
            )
        });
    }
    let message = resp.message();
    if resp.status == reqwest::StatusCode::CONFLICT
        && message
            .to_ascii_lowercase()
            .contains("head branch was modified")
    {
        return Err(DecideError::Moved {
            expected: m.head.clone(),
        });
    }
    Err(DecideError::Refused {
        what,
        reason: refusal_words(resp.status.as_u16(), &message),
    })
}

/// GitHub's reason, in words a maintainer reads: its message, with what the status means when
/// the message says little.
fn refusal_words(status: u16, message: &str) -> String {
    let m = one_line(message);
    let meaning = match status {
        403 | 404 => "you may not do this on this repository",
        405 => "GitHub says it cannot be merged now",
        409 => "the PR changed meanwhile",
        422 => "GitHub did not accept what was asked",
        _ => "",
    };
    match (m.trim().is_empty(), meaning.is_empty()) {
        (true, true) => format!("GitHub refused it (HTTP {status})"),
        (true, false) => meaning.to_owned(),
        (false, true) => m,
        (false, false) if m.to_ascii_lowercase().contains("not found") => {
            format!("{m} ({meaning})")
        }
        (false, false) => m,
    }
}

/// A REST call whose refusal is GitHub's reason.
async fn rest(
    gh: &GitHub,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
    what: &str,
) -> Result<Value, DecideError> {
    let resp = gh.rest_raw(method, path, body, what).await?;
    if !resp.status.is_success() {
        return Err(DecideError::Refused {
            what: what.to_owned(),
            reason: refusal_words(resp.status.as_u16(), &resp.message()),
        });
    }
    Ok(resp.json::<Value>(what).unwrap_or(Value::Null))
}

/// A GraphQL mutation whose refusal is GitHub's reason; its payload.
async fn mutate(
    gh: &GitHub,
    doc: &str,
    variables: Value,
    field: &str,
    what: &str,
) -> Result<Value, DecideError> {
    let reply = gh.graphql(doc, variables, what).await?;
    let payload = reply
        .data
        .as_ref()
        .and_then(|d| d.get(field))
        .filter(|p| !p.is_null())
        .cloned();
    match payload {
        Some(p) if reply.errors.is_empty() => Ok(p),
        _ => Err(refused(what, &reply)),
    }
}

fn refused(what: &str, reply: &GraphqlReply) -> DecideError {
    DecideError::Refused {
        what: what.to_owned(),
        reason: if reply.errors.is_empty() {
            "GitHub's answer held no result".to_owned()
        } else {
            reply
                .errors
                .iter()
                .map(|e| e.message_line())
                .collect::<Vec<_>>()
                .join("; ")
        },
    }
}

/// `s` as one path segment: unreserved characters kept, every other byte percent-encoded.
fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_name_is_one_path_segment() {
        assert_eq!(path_segment("good first issue"), "good%20first%20issue");
        assert_eq!(path_segment("a/b?c"), "a%2Fb%3Fc");
        assert_eq!(path_segment("é"), "%C3%A9");
    }

    #[test]
    fn githubs_refusals_are_its_words_never_a_bare_status() {
        assert_eq!(
            refusal_words(405, "Pull Request is not mergeable"),
            "Pull Request is not mergeable"
        );
        assert_eq!(
            refusal_words(405, ""),
            "GitHub says it cannot be merged now"
        );
        assert!(!refusal_words(422, "").contains("422"));
        assert_eq!(refusal_words(599, ""), "GitHub refused it (HTTP 599)");
    }

    #[test]
    fn the_decide_answer_reads_methods_permission_checks_and_commits_since() {
        let repo = json!({
            "mergeCommitAllowed": false, "squashMergeAllowed": true, "rebaseMergeAllowed": true,
            "autoMergeAllowed": true, "viewerPermission": "TRIAGE",
        });
        let p = json!({
            "id": "PR_1", "number": 7, "title": "t", "state": "OPEN", "isDraft": false,
            "headRefOid": "c3c3c3c3c3", "mergeable": "MERGEABLE", "mergeStateStatus": "BLOCKED",
            "isInMergeQueue": false, "isMergeQueueEnabled": true, "reviewDecision": "CHANGES_REQUESTED",
            "autoMergeRequest": null,
            "latestOpinionatedReviews": {"nodes": [
                {"state": "CHANGES_REQUESTED", "author": {"login": "rajesh-k"}},
                {"state": "APPROVED", "author": {"login": "mia"}}
            ]},
            "commits": {"totalCount": 3, "nodes": [
                {"commit": {"oid": "a1a1a1a1a1", "statusCheckRollup": null}},
                {"commit": {"oid": "b2b2b2b2b2", "statusCheckRollup": null}},
                {"commit": {"oid": "c3c3c3c3c3", "statusCheckRollup": {"contexts": {"nodes": [
                    {"__typename": "CheckRun", "name": "ci", "status": "COMPLETED", "conclusion": "FAILURE", "isRequired": true},
                    {"__typename": "CheckRun", "name": "lint", "status": "IN_PROGRESS", "conclusion": null, "isRequired": true},
                    {"__typename": "CheckRun", "name": "extra", "status": "COMPLETED", "conclusion": "FAILURE", "isRequired": false},
                    {"__typename": "StatusContext", "context": "deploy", "state": "PENDING", "isRequired": false}
                ]}}}}
            ]}
        });
        let f = read_facts(&repo, &p, Some("a1a1a1a"));
        assert_eq!(
            f.facts.allowed,
            vec![MergeMethod::Squash, MergeMethod::Rebase]
        );
        assert!(!f.facts.can_write);
        assert!(f.facts.queue);
        assert_eq!(f.facts.commits_since, Some(2));
        // Required checks only, once any is required.
        assert_eq!((f.checks_failing, f.checks_pending), (1, 1));
        assert_eq!(f.changes_requested, vec!["rajesh-k".to_owned()]);
        // A force-push: the reviewed head is not among the commits.
        assert_eq!(
            read_facts(&repo, &p, Some("ffffffff")).facts.commits_since,
            None
        );
    }
}
