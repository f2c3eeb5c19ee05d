//! `pr-shepherd watch OWNER/REPO`: poll the open PRs and review new pushes and triggers per the
//! gates. Per-PR state (last head reviewed, last trigger answered) lives in the ledger; the PR
//! itself (its own Shepherd reviews and their metadata) stays the source of truth, so a fresh
//! machine does not review a head or answer a trigger twice.
//!
//! Debounce (seed 000): a PR with activity inside the settle window is left alone — no review and
//! no seen markers; the first tick after the window reviews, prints the new and edited items
//! (the listing of `items`) and only then marks them seen.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Context;
use super::event::CheckHook;
use super::review::{
    Destination, PostChoice, ReviewSetup, apply_trigger_ref, execute_then, settle_team,
};
use crate::cli::{Format, WatchArgs};
use crate::error::{CliError, ErrorKind};
use crate::ledger::{Ledger, write_atomic};
use crate::output::items::{ListingOptions, MarkerPlan, markdown};
use crate::policy::{
    self, AutomationConfig, Invocation, Mode, TriggerDecision, TriggerKind, TriggerRef,
};
use crate::pr::{Item, PrCoords, Snapshot, validate_owner, validate_repo};
use crate::review::inputs::prior::prior_reviews;
use crate::source::github::GitHub;
use crate::source::github::batch::{ListSpec, list_open};
use crate::triage::{counts, edited_pairs, kept_texts, marks, triage};

/// What watch remembers per PR (`<state>/<owner>-<repo>/<pr>/watch.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WatchState {
    pub last_head_sha: Option<String>,
    /// The last conversation-comment trigger answered (older state files; still read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_trigger: Option<u64>,
    /// The last trigger answered, of any kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_trigger_ref: Option<TriggerRef>,
}

/// What one tick does for one PR (pure decision).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TickAction {
    /// Activity inside the settle window: nothing, and no seen markers.
    Settling { until: DateTime<Utc> },
    /// Answer this trigger (a conversation comment, review or review comment).
    Trigger(TriggerRef),
    /// Review the new head automatically.
    Review,
    /// Nothing new.
    Idle,
}

/// The newest time anything on the PR was created or edited, leaving out the own account's
/// comments (a posted review is not activity to settle on).
pub fn last_activity(snapshot: &Snapshot, own: &str) -> Option<DateTime<Utc>> {
    let mut times = Vec::new();
    for item in &snapshot.items {
        match item {
            Item::Thread(t) => {
                for c in &t.comments {
                    times.push(c.created_at);
                    times.extend(c.last_edited_at);
                }
            }
            Item::Comment(c) if c.author.login.eq_ignore_ascii_case(own) => {}
            other => {
                times.extend(other.created_at());
                times.extend(other.last_edited_at());
            }
        }
    }
    times.into_iter().max()
}

/// Decides one tick for one PR.
pub fn plan(
    state: &WatchState,
    snapshot: &Snapshot,
    own: &str,
    now: DateTime<Utc>,
    debounce: Duration,
    cfg: &AutomationConfig,
) -> TickAction {
    let window = chrono::Duration::from_std(debounce).unwrap_or(chrono::Duration::zero());
    if let Some(last) = last_activity(snapshot, own)
        && now < last + window
    {
        return TickAction::Settling {
            until: last + window,
        };
    }
    let prior = prior_reviews(snapshot, own);
    if let Some(r) = pending_trigger(state, snapshot, &prior, cfg) {
        return TickAction::Trigger(r);
    }
    let head = &snapshot.pr.head_sha;
    let reviewed_here = state.last_head_sha.as_deref() == Some(head.as_str())
        || prior
            .latest()
            .and_then(|r| r.meta.as_ref())
            .is_some_and(|m| &m.head_sha == head);
    if reviewed_here || snapshot.pr.draft {
        TickAction::Idle
    } else {
        TickAction::Review
    }
}

/// The newest valid trigger (a conversation comment, review summary or inline review comment)
/// that is newer than every trigger already answered — by the PR's own Shepherd reviews (their
/// metadata names their trigger, so a fresh machine knows) or by this machine's state.
fn pending_trigger(
    state: &WatchState,
    snapshot: &Snapshot,
    prior: &crate::review::inputs::prior::PriorReviews,
    cfg: &AutomationConfig,
) -> Option<TriggerRef> {
    let answered: Vec<TriggerRef> = prior
        .own
        .iter()
        .filter_map(|r| {
            let m = r.meta.as_ref()?;
            Some(TriggerRef {
                kind: m.trigger_kind.unwrap_or(TriggerKind::Comment),
                id: m.trigger_comment?,
            })
        })
        .chain(state.last_trigger.map(|id| TriggerRef {
            kind: TriggerKind::Comment,
            id,
        }))
        .chain(state.last_trigger_ref)
        .collect();
    let valid: Vec<(DateTime<Utc>, TriggerRef)> = policy::trigger_candidates(snapshot)
        .into_iter()
        .filter(|t| {
            matches!(
                policy::trigger_with(cfg, t.author, t.body),
                TriggerDecision::Review(_)
            )
        })
        .filter_map(|t| {
            Some((
                t.created_at,
                TriggerRef {
                    kind: t.kind,
                    id: t.database_id?,
                },
            ))
        })
        .collect();
    let key = |(at, r): &(DateTime<Utc>, TriggerRef)| (*at, r.kind, r.id);
    let last_answered = valid
        .iter()
        .filter(|(_, r)| answered.contains(r))
        .map(key)
        .max();
    valid
        .iter()
        .filter(|(_, r)| !answered.contains(r))
        .filter(|v| last_answered.is_none_or(|a| key(v) > a))
        .max_by_key(|v| key(v))
        .map(|(_, r)| *r)
}

/// The longest `--interval` or `--debounce` (30 days): a longer one is refused, never wrapped or
/// turned into "no wait".
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// `60s`, `5m`, `1h`, `250ms` or plain seconds, up to [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Option<Duration> {
    parse_any_duration(s).filter(|d| *d <= MAX_DURATION)
}

fn parse_any_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: u64 = num.parse().ok()?;
    Some(match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.checked_mul(60)?),
        "h" => Duration::from_secs(n.checked_mul(3600)?),
        _ => return None,
    })
}

fn load_state(ledger: &Ledger, pr: &PrCoords) -> WatchState {
    ledger
        .pr_dir(pr)
        .ok()
        .and_then(|d| std::fs::read(d.join("watch.json")).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn save_state(ledger: &Ledger, pr: &PrCoords, st: &WatchState) -> Result<(), CliError> {
    let dir = ledger.pr_dir(pr)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::runtime(format!("cannot create {}: {e}", dir.display())))?;
    let bytes = serde_json::to_vec_pretty(st)
        .map_err(|e| CliError::runtime(format!("cannot encode the watch state: {e}")))?;
    write_atomic(&dir.join("watch.json"), &bytes)?;
    Ok(())
}

pub(super) async fn run(ctx: &Context, args: WatchArgs) -> Result<(), CliError> {
    let (owner, repo) = args
        .repo
        .split_once('/')
        .ok_or_else(|| CliError::usage(format!("`{}` is not OWNER/REPO", args.repo)))?;
    validate_owner(owner)?;
    validate_repo(repo)?;
    let interval = parse_duration(&args.interval).ok_or_else(|| {
        CliError::usage(format!(
            "--interval `{}` is not a duration of at most 30 days (60s, 5m, 1h, 250ms)",
            args.interval
        ))
    })?;
    let debounce = parse_duration(&args.debounce).ok_or_else(|| {
        CliError::usage(format!(
            "--debounce `{}` is not a duration of at most 30 days (60s, 5m, 1h, 250ms)",
            args.debounce
        ))
    })?;
    let ledger = ctx.ledger()?;
    let probe = PrCoords {
        host: None,
        owner: owner.to_owned(),
        repo: repo.to_owned(),
        number: 1,
    };
    let gh = super::live::client(ctx, &probe).await?;
    let own = match &args.identity {
        Some(l) if !l.trim().is_empty() => l.trim().to_owned(),
        _ => gh.viewer_login().await?,
    };
    let watcher = Watcher {
        ctx,
        gh: &gh,
        ledger: &ledger,
        args: &args,
        own: &own,
        debounce,
    };
    let mut tick = 0u64;
    // PRs whose work failed (a fetch, review, post or save), each named when it happened: the
    // watch goes on, but does not end as a success (a state dir that cannot be written is a
    // disk failure, exit 1).
    let mut failed = 0usize;
    loop {
        tick += 1;
        // Ctrl-C drops the tick where it is: per-PR state and markers are written atomically
        // and only after that PR's review and post, so nothing is left half-written (a post
        // whose state was not saved is found and updated by the next run, never duplicated).
        let stop = tokio::select! {
            r = watcher.tick(owner, repo) => { failed += r?; false }
            _ = tokio::signal::ctrl_c() => true,
        };
        if stop || args.ticks.is_some_and(|n| tick >= n) {
            if stop {
                crate::eprintln_clean!("watch: stopped");
            }
            return ended(failed);
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = tokio::signal::ctrl_c() => { crate::eprintln_clean!("watch: stopped"); return ended(failed); }
        }
    }
}

/// How a watch ends: a success only when no PR's work failed.
fn ended(failed: usize) -> Result<(), CliError> {
    if failed == 0 {
        return Ok(());
    }
    Err(CliError::runtime(format!(
        "watch: the work on a PR failed {} (each is named above)",
        crate::plural::count(failed, "time")
    )))
}

/// What every tick works with: the context, one client, the ledger, the flags, the own login.
struct Watcher<'a> {
    ctx: &'a Context,
    gh: &'a GitHub,
    ledger: &'a Ledger,
    args: &'a WatchArgs,
    own: &'a str,
    debounce: Duration,
}

impl Watcher<'_> {
    /// One tick: every open PR of the repository, one after the other. Returns how many PRs
    /// failed (each is named on stderr).
    async fn tick(&self, owner: &str, repo: &str) -> Result<usize, CliError> {
        // The same listing as the inbox (open PRs only, paged completely).
        let spec = ListSpec::Repo {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
        };
        let mut failed = 0;
        for pr in list_open(self.gh, &spec).await? {
            let coords = pr.meta.coords();
            if let Err(e) = self.one_pr(&coords).await {
                crate::eprintln_clean!("watch: {coords}: {e}");
                failed += 1;
            }
        }
        Ok(failed)
    }

    /// One PR: wait while it settles; else review (when planned and the gates allow), surface
    /// the new and edited items, and remember what was done.
    async fn one_pr(&self, coords: &PrCoords) -> Result<(), CliError> {
        let snapshot = self.gh.fetch_snapshot(coords).await?;
        let mut state = load_state(self.ledger, coords);
        let planned = plan(
            &state,
            &snapshot,
            self.own,
            Utc::now(),
            self.debounce,
            self.ctx.automation(),
        );
        let (how, trigger) = match planned {
            TickAction::Settling { until } => {
                crate::eprintln_clean!(
                    "watch: {coords}: settling until {}; nothing reviewed or marked seen",
                    until.format("%H:%M:%S UTC")
                );
                return Ok(());
            }
            TickAction::Idle => (None, None),
            TickAction::Review => (Some(Invocation::Automatic), None),
            TickAction::Trigger(r) => (Some(Invocation::Trigger), Some(r)),
        };
        // A review posted from a partial answer could not know its earlier one (it may be what
        // is missing): not run at all (no model's time spent), asked again next tick.
        if how.is_some()
            && self.args.post
            && let Err(e) =
                crate::publish::whole_answer(&snapshot, "there is an earlier Shepherd review")
        {
            return Err(CliError::runtime(format!(
                "{e}; not reviewed this tick, asked again on the next"
            )));
        }
        if let Some(how) = how
            && self
                .review_if_gates_allow(coords, &snapshot, how, trigger)
                .await?
        {
            match trigger {
                Some(r) => {
                    state.last_trigger_ref = Some(r);
                    if r.kind == TriggerKind::Comment {
                        state.last_trigger = Some(r.id);
                    }
                }
                None => state.last_head_sha = Some(snapshot.pr.head_sha.clone()),
            }
        }
        // When the gates say no, nothing is remembered: they are asked again next tick, so a
        // `shepherd` label added later gets the head reviewed.
        self.surface_new_items(coords, &snapshot)?;
        save_state(self.ledger, coords, &state)
    }

    /// Reviews the new head or answers the trigger through the shared review flow, when the
    /// gates allow; `true` when a review ran (an incomplete one included).
    async fn review_if_gates_allow(
        &self,
        coords: &PrCoords,
        snapshot: &Snapshot,
        how: Invocation,
        trigger: Option<TriggerRef>,
    ) -> Result<bool, CliError> {
        let cfg = self.ctx.gates();
        let team = settle_team(self.gh, &snapshot.pr, cfg, true).await;
        let gate = policy::gate(&snapshot.pr, team, cfg, how);
        if !gate.review {
            crate::eprintln_clean!("watch: {coords}: no action: {}", gate.reason);
            return Ok(false);
        }
        let triggered = match trigger {
            Some(r) => Some(apply_trigger_ref(snapshot, r, self.ctx.automation())?),
            None => None,
        };
        let full = triggered.as_ref().is_some_and(|t| t.mode == Mode::Full);
        crate::eprintln_clean!(
            "watch: {coords}: {}",
            match trigger {
                Some(r) => format!("answering trigger {} ({})", r.id, r.kind.said()),
                None => format!("reviewing head {}", short(&snapshot.pr.head_sha)),
            }
        );
        let mut review = ReviewSetup {
            snapshot: snapshot.clone(),
            triggered,
            full,
            gate: &gate,
            post: if self.args.post {
                PostChoice::Automatic
            } else {
                PostChoice::No
            },
            destination: Destination::GitHub {
                gh: self.gh,
                own_login: self.own.to_owned(),
            },
            ledger: self.ledger,
            llm: &self.args.llm,
            format: Format::Md,
        }
        .build()?;
        review.quiet = self.args.quiet;
        review.inline = self.ctx.review_settings().inline;
        review.post_incomplete = self.args.post_incomplete;
        // Shepherd's own check on the head, with `--post` and `[automation] check`.
        let automation = self.ctx.automation();
        let result = if self.args.post && automation.check {
            let mut check = CheckHook::start(self.gh, snapshot, automation.check_fails_on).await;
            let result = execute_then(self.ctx, review, &mut check).await;
            if let Err(e) = &result {
                check.not_run(e.message()).await;
            }
            result
        } else {
            execute_then(self.ctx, review, &mut ()).await
        };
        match result {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == ErrorKind::Incomplete => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// Settled (the window is closed): new and edited items are surfaced in the output, and only
    /// once that listing was delivered are they marked seen — never suppressed unseen.
    fn surface_new_items(&self, coords: &PrCoords, snapshot: &Snapshot) -> Result<(), CliError> {
        let ids = snapshot.items.iter().map(|i| i.id());
        let seen = self.ledger.load_seen_of(coords, ids)?;
        let triaged = triage(snapshot, &seen.markers);
        let (new, edited, _) = counts(&triaged);
        if new + edited > 0 && snapshot.incomplete.is_empty() {
            let kept = self
                .ledger
                .load_kept(coords, edited_pairs(snapshot, &triaged, &seen.markers))
                .unwrap_or_default();
            let opts = ListingOptions {
                all: false,
                markers: MarkerPlan::Write,
                marker_problems: Vec::new(),
                kept,
                own: Default::default(),
            };
            super::emit(&markdown(snapshot, &triaged, &opts))?;
            self.ledger
                .keep_texts(coords, &kept_texts(snapshot, &triaged))?;
            self.ledger
                .mark_seen(coords, &marks(snapshot, &triaged), Utc::now().timestamp())?;
        }
        Ok(())
    }
}

fn short(sha: &str) -> String {
    sha.chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pr::{Author, Comment};

    fn snap(comments: Vec<(&str, &str, &str, &str, i64)>) -> Snapshot {
        let mut s = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo"),
        )
        .unwrap()
        .into_snapshot_at(0)
        .unwrap();
        s.items.clear();
        s.pr.head_sha = "head1".into();
        s.pr.draft = false;
        for (i, (login, assoc, body, _url, at)) in comments.into_iter().enumerate() {
            s.items.push(Item::Comment(Comment {
                id: format!("IC_{i}"),
                author: Author {
                    login: login.into(),
                    association: serde_json::from_value(serde_json::json!(assoc)).unwrap(),
                    bot: false,
                },
                created_at: DateTime::from_timestamp(at, 0).unwrap(),
                last_edited_at: None,
                url: format!("https://github.com/o/r/pull/1#issuecomment-{}", 100 + i),
                body: body.into(),
                minimized: false,
                minimized_reason: None,
            }));
        }
        s
    }

    fn at(t: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(t, 0).unwrap()
    }

    #[test]
    fn settling_then_review_then_idle() {
        let s = snap(vec![("alice", "NONE", "hi", "", 1_000)]);
        let st = WatchState::default();
        let d = Duration::from_secs(60);
        assert!(matches!(
            plan(&st, &s, "bot", at(1_030), d, &AutomationConfig::default()),
            TickAction::Settling { .. }
        ));
        assert_eq!(
            plan(&st, &s, "bot", at(1_060), d, &AutomationConfig::default()),
            TickAction::Review
        );
        let st = WatchState {
            last_head_sha: Some("head1".into()),
            ..WatchState::default()
        };
        assert_eq!(
            plan(&st, &s, "bot", at(2_000), d, &AutomationConfig::default()),
            TickAction::Idle
        );
        // The own account's comments are not activity.
        let s = snap(vec![("bot", "NONE", "## PR Shepherd Review\nx", "", 1_000)]);
        assert_eq!(
            plan(
                &WatchState::default(),
                &s,
                "bot",
                at(1_001),
                d,
                &AutomationConfig::default()
            ),
            TickAction::Review
        );
    }

    #[test]
    fn triggers_are_answered_once_and_only_valid_ones() {
        let s = snap(vec![
            ("alice", "MEMBER", "@pr-shepherd /review", "", 1_000),
            ("eve", "CONTRIBUTOR", "@pr-shepherd /review all", "", 1_010),
        ]);
        let st = WatchState {
            last_head_sha: Some("head1".into()),
            ..WatchState::default()
        };
        let d = Duration::ZERO;
        assert_eq!(
            plan(&st, &s, "bot", at(5_000), d, &AutomationConfig::default()),
            TickAction::Trigger(comment_ref(100))
        );
        let st = WatchState {
            last_trigger: Some(100),
            ..st
        };
        assert_eq!(
            plan(&st, &s, "bot", at(5_000), d, &AutomationConfig::default()),
            TickAction::Idle
        );
    }

    fn comment_ref(id: u64) -> TriggerRef {
        TriggerRef {
            kind: TriggerKind::Comment,
            id,
        }
    }

    /// A review summary and an inline review comment with database ids in their URLs.
    fn with_review_triggers(s: &mut Snapshot, review_body: &str, inline_body: &str) {
        let member = Author {
            login: "alice".into(),
            association: crate::pr::Association::Member,
            bot: false,
        };
        s.items.push(Item::Review(crate::pr::Review {
            id: "PRR_1".into(),
            author: member.clone(),
            state: crate::pr::ReviewState::Commented,
            created_at: at(1_100),
            last_edited_at: None,
            url: "https://github.com/o/r/pull/1#pullrequestreview-7".into(),
            body: review_body.into(),
            minimized: false,
            minimized_reason: None,
        }));
        s.items.push(Item::Thread(crate::pr::Thread {
            id: "PRRT_1".into(),
            path: "a.rs".into(),
            line: Some(1),
            original_line: Some(1),
            side: None,
            diff_hunk: String::new(),
            outdated: false,
            resolved: false,
            comments: vec![Comment {
                id: "PRRC_1".into(),
                author: member,
                created_at: at(1_200),
                last_edited_at: None,
                url: "https://github.com/o/r/pull/1#discussion_r9".into(),
                body: inline_body.into(),
                minimized: false,
                minimized_reason: None,
            }],
        }));
    }

    #[test]
    fn triggers_in_reviews_and_inline_comments_are_answered_once_each() {
        let mut s = snap(vec![("alice", "MEMBER", "@pr-shepherd /review", "", 1_000)]);
        with_review_triggers(&mut s, "@pr-shepherd /review all", "nit");
        let cfg = AutomationConfig::default();
        let d = Duration::ZERO;
        let mut st = WatchState {
            last_head_sha: Some("head1".into()),
            ..WatchState::default()
        };
        // The review summary is newer than the comment: it is the one answered.
        let review = TriggerRef {
            kind: TriggerKind::Review,
            id: 7,
        };
        assert_eq!(
            plan(&st, &s, "bot", at(5_000), d, &cfg),
            TickAction::Trigger(review)
        );
        st.last_trigger_ref = Some(review);
        assert_eq!(plan(&st, &s, "bot", at(5_000), d, &cfg), TickAction::Idle);
        // A later inline comment is a new trigger; review ids and comment ids are different
        // sequences, so 9 > 7 or not, only kind and time decide.
        let mut s2 = snap(vec![]);
        with_review_triggers(&mut s2, "lgtm", "@horton /review");
        assert_eq!(plan(&st, &s2, "bot", at(5_000), d, &cfg), TickAction::Idle);
        let horton = AutomationConfig {
            mentions: vec!["@pr-shepherd".into(), "@horton".into()],
            ..cfg.clone()
        };
        assert_eq!(
            plan(&st, &s2, "bot", at(5_000), d, &horton),
            TickAction::Trigger(TriggerRef {
                kind: TriggerKind::ReviewComment,
                id: 9
            })
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60s"), Some(Duration::from_secs(60)));
        assert_eq!(parse_duration("5m"), Some(Duration::from_secs(300)));
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
        assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("5 parsecs"), None);
        assert_eq!(parse_duration(&format!("{}h", u64::MAX)), None);
        // Failed before it was fixed: a debounce too long for chrono became "never waits".
        assert_eq!(parse_duration("720h"), Some(MAX_DURATION));
        assert_eq!(parse_duration("721h"), None);
        assert_eq!(parse_duration(&format!("{}s", u64::MAX)), None);
    }
}
