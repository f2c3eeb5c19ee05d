//! The PR screen: one pull request's items ([`ItemList`]), marking them seen ([`Marks`]), its
//! review ([`ReviewDesk`]) and its threads ([`ThreadDesk`]). It answers the commands, dialog input
//! and results that concern one PR, draws itself (`draw.rs`, `detail.rs`, `review_pane.rs`) and
//! lists its own keys for `?`.
//!
//! ```text
//! PrScreen
//! ├── list: ItemList       list.rs      triage, rows, selection, filter, search, scroll
//! ├── marks: Marks         marks.rs     seen-marker writes in flight, blocked writes
//! ├── desk: ReviewDesk     desk.rs      review run (seq), composed review, draft, posting
//! ├── threads: ThreadDesk  threads.rs   reply composer, resolve, unresolve
//! └── ask: Asking<Ask>     ask.rs       its open question (post, discard, mark all, …)
//! ```

mod ask;
mod desk;
mod detail;
mod draw;
mod list;
mod marks;
mod review_pane;
mod thread_view;
mod threads;
mod work;

pub use ask::{Ask, CommentAsk, ThreadAsk};
pub use desk::{Pane, ReviewDesk, console_gate};
pub use list::{Counts, Filter, Focus, Group, ItemList, Row};
pub use marks::Marks;
pub use thread_view::ThreadScreen;
pub use threads::{ReplyView, ThreadDesk};
pub use work::{Done, Work};

use ratatui::Frame;
use ratatui::layout::{Position, Rect};

use super::action::{Action, Drawn, MouseKind, OpenedPr, SavedDrafts, StepData, later_versions};
use super::dialogs::InputMode;
use super::effect::Effect;
use super::screen::{Asking, Ctx, Handled, Screen, SearchStep, View};
use crate::inbox::Opener;
use crate::ledger::SeenSet;
use crate::policy::GateConfig;
use crate::pr::{Origin, PrCoords, Snapshot};
use crate::source::Fixture;
use crate::tui::keymap::{COMMANDS, KeyCommand, Keymap};
use crate::tui::ui::Dialog;
use desk::PaneSize;

#[derive(Debug, Clone)]
pub struct PrScreen {
    pub list: ItemList,
    pub marks: Marks,
    pub desk: ReviewDesk,
    /// Replying to, resolving and unresolving threads.
    pub threads: ThreadDesk,
    /// The question this screen asked, while its dialog is open.
    ask: Asking<Ask>,
    /// The refresh in flight was asked for by a key: its answer is said (a refresh after a
    /// write or on reopening stays quiet).
    loud_refresh: bool,
    /// A decision to open once the first frame showed the PR.
    decide_next: Option<super::decide::Decision>,
    /// The item whose detail is on screen and since when (the console's clock, ms): it counts
    /// as seen once it stayed `[console] dwell_ms`.
    dwell: Option<(usize, i64)>,
}

impl PrScreen {
    /// The question this screen asked, while its dialog is open.
    pub fn asked(&self) -> Option<&Ask> {
        self.ask.get()
    }

    /// The screen of `snapshot` with its markers; `marks_blocked` says why markers cannot be
    /// written, the `[gates]` decide what may be posted, and `identity` (the session's) whose
    /// Shepherd reviews are its own.
    pub fn new(
        snapshot: Snapshot,
        seen: SeenSet,
        marks_blocked: Option<String>,
        gates: &GateConfig,
        identity: &str,
    ) -> PrScreen {
        let desk = ReviewDesk::new(&snapshot.pr, gates);
        let mut list = ItemList::new(snapshot, seen.markers, identity);
        list.kept = seen.kept;
        PrScreen {
            list,
            marks: Marks::new(marks_blocked),
            desk,
            threads: ThreadDesk::default(),
            ask: Asking::default(),
            loud_refresh: false,
            decide_next: None,
            dwell: None,
        }
    }

    /// A PR chosen in the inbox, loaded: its screen, with what it kept from an earlier session
    /// brought back (its reply and draft; an unreadable one is said).
    pub fn opened(opened: OpenedPr, ctx: &mut Ctx<'_>) -> PrScreen {
        let OpenedPr {
            snapshot,
            seen,
            saved,
            marks,
            ahead,
        } = opened;
        let blocked = marks.err().or(ctx.session.marks_blocked.clone());
        let mut pr = PrScreen::new(
            snapshot,
            seen,
            blocked,
            &ctx.session.gates,
            ctx.session.identity(),
        );
        pr.list.ahead = ahead;
        pr.restore_saved(saved, ctx);
        pr
    }

    /// Opens the decision `d` over this screen once its first frame showed the PR (a decision
    /// key on an inbox row).
    pub fn decide_when_shown(&mut self, d: Option<super::decide::Decision>) {
        self.decide_next = d;
    }

    /// Records the head shown now as the one looked at (a headless merge's default).
    fn looked(&self, ctx: &mut Ctx<'_>) {
        let pr = &self.list.snapshot.pr;
        ctx.work(Work::LookedHead {
            pr: pr.coords(),
            head: pr.head_sha.clone(),
        });
    }

    /// Brings back what this PR kept from an earlier session: its unsent thread reply and its
    /// review draft; an unreadable one is said, and the console goes on.
    pub fn restore_saved(&mut self, saved: SavedDrafts, ctx: &mut Ctx<'_>) {
        // Offline, what is queued for GitHub shows on its threads, marked queued.
        if ctx.session.remote.reads_outbox() {
            match saved.queued {
                Ok(q) => self.list.queue(q),
                Err(e) => ctx.say(format!("the thread outbox is unreadable: {e}")),
            }
            // The comments and reviews queued offline stand where they belong, marked queued.
            match saved.sent {
                Ok(s) => self.list.lay_sent(s),
                Err(e) => ctx.say(format!("the outbox is unreadable: {e}")),
            }
        }
        match saved.reply {
            Ok(Some(d)) => self.threads.restored(d, &self.list, ctx),
            Ok(None) => {}
            Err(e) => ctx.say(format!("the saved reply is unreadable: {e}")),
        }
        match saved.comment {
            Ok(Some(d)) => self.threads.comment_restored(d, ctx),
            Ok(None) => {}
            Err(e) => ctx.say(format!("the saved conversation comment is unreadable: {e}")),
        }
        match saved.draft {
            Ok(Some(d)) => self
                .desk
                .restored(d, saved.run.map(|r| *r), &self.list.snapshot, ctx),
            Ok(None) => {}
            Err(e) => ctx.say(format!("the saved draft is unreadable: {e}")),
        }
    }

    /// A fixture's later steps: what an earlier step shows is the past, and its markers never
    /// replace newer ones.
    pub fn set_history(&mut self, fixture: &Fixture) {
        if let Some((step, _)) = self.list.step() {
            self.list.ahead = later_versions(fixture, step);
        }
    }

    /// Fetches this PR afresh (the refresh key, reopening it from the inbox): live from
    /// GitHub, offline its fixture step read again with the ledger's markers; the screen is
    /// refreshed in place. `loud`: say what changed even when nothing did.
    pub fn refresh(&mut self, loud: bool, ctx: &mut Ctx<'_>) {
        let pr = self.list.snapshot.pr.coords();
        self.loud_refresh = loud;
        match self.list.snapshot.origin {
            Origin::Live => ctx.work(Work::Refresh {
                opener: Box::new(Opener::Live(pr.clone())),
                pr,
            }),
            Origin::Fixture { step, .. } => ctx.work(Work::LoadStep { pr, step }),
        }
    }

    /// After the session's own write (a post, a reply, a resolve): a live PR is fetched again so
    /// the write shows (offline, the fixture did not change).
    fn refetch_after_write(&mut self, ctx: &mut Ctx<'_>) {
        if self.list.snapshot.origin == Origin::Live {
            self.refresh(false, ctx);
        }
    }

    /// The PR fetched afresh: the same screen with the new data, its selection (by item),
    /// scroll, drafts, review and reply kept.
    fn refreshed(&mut self, opened: OpenedPr, ctx: &mut Ctx<'_>) {
        let OpenedPr {
            snapshot,
            seen,
            marks,
            ahead,
            ..
        } = opened;
        if snapshot.pr.coords() != self.list.snapshot.pr.coords() {
            return;
        }
        let before = self.list.counts.clone();
        self.list.refresh(snapshot, seen.markers, seen.kept);
        self.looked(ctx);
        self.list.ahead = ahead;
        self.marks.blocked = marks.err().or(ctx.session.marks_blocked.clone());
        self.desk
            .snapshot_changed(&self.list.snapshot.pr, &ctx.session.gates);
        let c = &self.list.counts;
        let changed = c.new != before.new || c.edited != before.edited;
        // A refresh after the session's own write stays quiet: the write's notice stays.
        if std::mem::take(&mut self.loud_refresh) {
            ctx.say(if changed {
                format!("refreshed: {} new, {} edited", c.new, c.edited)
            } else {
                "refreshed: nothing new".to_owned()
            });
        }
    }

    /// Renders the selected item's comment Markdown into the list's cache, at the detail pane's
    /// width of the last frame, outside drawing (the frame reads it; a body that changed, or a new
    /// width, is rendered again here).
    fn fill_markdown(&mut self, ctx: &Ctx<'_>) {
        let (Some(theme), Some(idx)) = (&ctx.session.theme, self.list.selected_index()) else {
            return;
        };
        let area = self.list.last.detail_area;
        detail::fill_markdown(&mut self.list, idx, area, theme);
    }

    fn pane_size(&self) -> PaneSize {
        PaneSize {
            max_scroll: self.list.max_detail_scroll(),
            half_page: self.list.half_page(false),
        }
    }

    /// A command from the keymap (no dialog is open). Not consumed: `?` (the router opens this
    /// screen's help) and `q`/`Esc` with nothing left to close (the router leaves the screen).
    fn key_command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        // Two panes: the previous one is the next one.
        let cmd = if cmd == KeyCommand::FocusBack {
            KeyCommand::Focus
        } else {
            cmd
        };
        // An opened finding has the keys until it is closed.
        if self.desk.opened.is_some() {
            let size = self.pane_size();
            return self
                .desk
                .finding_command(cmd, &self.list.snapshot, size, ctx);
        }
        let review_pane = self.list.focus == Focus::Detail && self.desk.pane == Pane::Review;
        if review_pane {
            if self.desk.pane_command(cmd, self.pane_size()) {
                return Handled::Consumed;
            }
            if cmd == KeyCommand::Toggle {
                self.desk.open_finding(ctx);
                return Handled::Consumed;
            }
            // The findings have the keys: nothing acts on the list hidden behind them.
            if matches!(
                cmd,
                KeyCommand::Toggle
                    | KeyCommand::NextNew
                    | KeyCommand::PrevNew
                    | KeyCommand::NextMatch
                    | KeyCommand::PrevMatch
                    | KeyCommand::Search
                    | KeyCommand::Filter
                    | KeyCommand::MarkSeen
                    | KeyCommand::MarkAll
                    | KeyCommand::Open
                    | KeyCommand::Copy
                    | KeyCommand::Reply
                    | KeyCommand::Resolve
                    | KeyCommand::Unresolve
            ) {
                ctx.say("the findings have the keys: Tab goes back to the list");
                return Handled::Consumed;
            }
        }
        if self
            .desk
            .command(cmd, &self.list.snapshot, &mut self.ask, ctx)
        {
            return Handled::Consumed;
        }
        if self.threads.command(cmd, &self.list, &mut self.ask, ctx) {
            return Handled::Consumed;
        }
        let before = self.list.selected;
        if self.list.command(cmd, ctx) {
            // Moving in the list shows the item (and so marks it seen): the review or aspects
            // pane gives way, one key (`v`/`A`) from coming back.
            if self.list.focus == Focus::List
                && self.list.selected != before
                && self.desk.pane != Pane::Item
            {
                ctx.say(match self.desk.pane {
                    Pane::Review => "v shows the review again",
                    _ => "A shows the aspects again",
                });
                self.desk.pane = Pane::Item;
            }
            return Handled::Consumed;
        }
        match cmd {
            KeyCommand::Search => {
                *ctx.mode = InputMode::Search {
                    query: String::new(),
                    before: self.list.selected,
                }
            }
            KeyCommand::Filter => *ctx.mode = InputMode::Filter,
            KeyCommand::Open | KeyCommand::Copy => {
                match self.list.selected_item().map(|i| i.url().to_owned()) {
                    Some(url) if !url.is_empty() => ctx.fx.push(if cmd == KeyCommand::Open {
                        Effect::Open(url)
                    } else {
                        Effect::Copy(url)
                    }),
                    _ => ctx.say("no item selected"),
                }
            }
            KeyCommand::MarkSeen => match self.list.selected_index() {
                Some(i) => self.marks.mark(&self.list, &[i], ctx, true),
                None => ctx.say("no item selected"),
            },
            KeyCommand::MarkAll => {
                let idxs = self.list.listed_items();
                let count = self.marks.unmarked(&self.list, &idxs);
                if count == 0 {
                    self.marks.mark(&self.list, &idxs, ctx, true);
                } else {
                    self.ask.ask(Ask::MarkAll { count }, ctx);
                }
            }
            KeyCommand::StepForward | KeyCommand::StepBack => match self.list.step() {
                None | Some((_, 0)) => ctx.say("stepping works on fixtures with history"),
                Some((k, n)) => {
                    let target = if cmd == KeyCommand::StepForward {
                        (k < n).then_some(k + 1)
                    } else {
                        k.checked_sub(1)
                    };
                    match target {
                        Some(step) => ctx.work(Work::LoadStep {
                            pr: self.list.snapshot.pr.coords(),
                            step,
                        }),
                        None => ctx.say(format!("at step {k} of {n}")),
                    }
                }
            },
            KeyCommand::PendingReview => ctx.open(Box::new(
                super::PendingScreen::new(self.list.snapshot.clone())
                    .opening_diffs(super::code::diff_at),
            )),
            KeyCommand::Refresh => {
                self.refresh(true, ctx);
                ctx.say("refreshing…");
            }
            KeyCommand::Description => super::code::open_description(
                &self.list.snapshot,
                detail::body_lines,
                open_thread,
                ctx,
            ),
            KeyCommand::Files => {
                super::code::open_files(&self.list.snapshot, Some(open_thread), ctx)
            }
            KeyCommand::Checks => super::checks::open_checks(&self.list.snapshot, ctx),
            KeyCommand::Commits => super::commits::open_commits(&self.list.snapshot, ctx),
            KeyCommand::Merge
            | KeyCommand::CloseReopen
            | KeyCommand::ReadyDraft
            | KeyCommand::Labels
            | KeyCommand::Reviewers
            | KeyCommand::Assign
            | KeyCommand::UpdateBranch
            | KeyCommand::Checkout => {
                if let Some(d) = super::decide::Decision::of(cmd) {
                    super::decide::open_decide(&self.list.snapshot, d, ctx);
                }
            }
            KeyCommand::Quit => return self.close_view(),
            KeyCommand::Back => return self.back(),
            // Help is the router's; the rest was answered above.
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    /// A click or wheel step on the list, `row` rows below its top.
    fn mouse_list(&mut self, kind: MouseKind, row: usize) {
        let list = &mut self.list;
        match kind {
            MouseKind::Click => {
                let h = usize::from(list.last.list_height);
                let target = list.offset_for(h) + row;
                if target < list.rows.len() {
                    list.focus = Focus::List;
                    list.select(target);
                }
            }
            MouseKind::ScrollDown => list.select(list.selected + 1),
            MouseKind::ScrollUp => list.select(list.selected.saturating_sub(1)),
        }
    }

    /// A click or wheel step on the detail area: the item's detail or the review pane
    /// (findings and body) scroll; a click focuses it.
    fn mouse_detail(&mut self, kind: MouseKind) {
        let down = kind == MouseKind::ScrollDown;
        let max = self.list.max_detail_scroll();
        if let Some(s) = self.desk.opened {
            // The opened finding scrolls under the wheel.
            self.desk.opened = Some(match kind {
                MouseKind::ScrollDown => (s + 3).min(max),
                MouseKind::ScrollUp => s.saturating_sub(3),
                MouseKind::Click => s,
            });
            return;
        }
        match (kind, self.desk.pane) {
            (MouseKind::Click, _) => self.list.focus = Focus::Detail,
            (_, Pane::Review) => {
                let s = self.desk.review_scroll;
                self.desk.review_scroll = if down {
                    (s + 3).min(max)
                } else {
                    s.saturating_sub(3)
                };
            }
            (_, Pane::Aspects) => {}
            (_, Pane::Item) => {
                let s = self.list.detail_scroll;
                self.list.detail_scroll = if down {
                    (s + 3).min(max)
                } else {
                    s.saturating_sub(3)
                };
            }
        }
    }

    /// `Esc`: unwinds one level (zoom, focus, pane, search); with nothing left, the router
    /// leaves the screen.
    fn back(&mut self) -> Handled {
        if self.close_one() {
            return Handled::Consumed;
        }
        if self.list.search.is_some() {
            self.list.search = None;
            Handled::Consumed
        } else {
            Handled::NotConsumed
        }
    }

    /// `q`: closes the current view (full-width detail, detail focus, review or aspects pane);
    /// at the top level the router leaves the screen.
    fn close_view(&mut self) -> Handled {
        if self.close_one() {
            Handled::Consumed
        } else {
            Handled::NotConsumed
        }
    }

    /// Closes the innermost open view. False: none was open.
    fn close_one(&mut self) -> bool {
        let list = &mut self.list;
        if list.zoom {
            list.zoom = false;
            list.centre_commented_line = true;
        } else if list.focus == Focus::Detail {
            list.focus = Focus::List;
        } else if self.desk.pane != Pane::Item {
            self.desk.pane = Pane::Item;
        } else {
            return false;
        }
        true
    }

    /// The answer to "mark N listed items seen?".
    fn mark_all_confirmed(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        if !yes {
            ctx.say("nothing marked");
            return;
        }
        let idxs = self.list.listed_items();
        let count = self.marks.unmarked(&self.list, &idxs);
        self.marks.mark(&self.list, &idxs, ctx, true);
        let marking = |e: &Effect| matches!(e.work(), Some(Work::MarkSeen { .. }));
        if count > 0 && ctx.fx.iter().any(marking) {
            ctx.say(format!(
                "marked {} seen",
                crate::tui::ui::count(count, "listed item", "listed items")
            ));
        }
    }

    /// Results of effects and review progress for this PR; anything else is handed back. The
    /// progress line is handed back too (the inbox shows it on the PR's row).
    fn result(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        match action {
            Action::SavedFound(saved) => {
                self.restore_saved(*saved, ctx);
                return None;
            }
            Action::LaterVersions(ahead) => {
                self.list.ahead = *ahead;
                return None;
            }
            Action::Done(done) => match done.take::<Done>() {
                Some(done) => self.done(done, ctx),
                None => return Some(Action::Done(done)),
            },
            other => return self.shared_result(other, ctx),
        }
        None
    }

    /// A result of this screen's own work (see `work.rs`).
    fn done(&mut self, done: Done, ctx: &mut Ctx<'_>) {
        let snap = &self.list.snapshot;
        let gates = &ctx.session.gates;
        match done {
            Done::Marked { items, at, result } => {
                self.marks.marked(&mut self.list, items, at, result, ctx);
                return;
            }
            Done::StepLoaded(Ok(data)) => {
                let StepData {
                    snapshot,
                    seen,
                    ahead,
                } = *data;
                self.list.replace(snapshot, seen.markers);
                self.list.ahead = ahead;
                self.list.kept = seen.kept;
                self.looked(ctx);
                self.marks.reset();
                self.desk.snapshot_changed(&self.list.snapshot.pr, gates);
                if let Some((k, n)) = self.list.step() {
                    ctx.say(format!(
                        "step {k} of {n}: {} new, {} edited",
                        self.list.counts.new, self.list.counts.edited
                    ));
                }
                return;
            }
            Done::StepLoaded(Err(e)) => {
                ctx.say(format!("cannot load the step: {e}"));
                return;
            }
            Done::DraftSaved(r) => self.desk.draft_saved(r, ctx),
            Done::DraftDiscarded(r) => self.desk.draft_discarded(r, ctx),
            Done::DecisionsRecorded(r) => self.desk.decisions_recorded(r, snap, ctx),
            Done::StatsLoaded(r) => self.desk.stats_loaded(r),
            Done::Refreshed(Ok(opened)) => {
                self.refreshed(*opened, ctx);
                return;
            }
            Done::Refreshed(Err(e)) => {
                ctx.say(format!("cannot refresh the PR: {e}"));
                return;
            }
            Done::ThreadActed {
                thread_id,
                kind,
                result,
            } => {
                let done = result.is_ok();
                self.threads
                    .acted(thread_id, kind, result, &mut self.list, ctx);
                // The session's own write: fetch the PR again so it shows.
                if done {
                    self.refetch_after_write(ctx);
                }
                return;
            }
            Done::Commented(result) => {
                // The session's own write: fetch the PR again so the comment shows.
                if self.threads.commented(result, &mut self.list, ctx) {
                    self.refetch_after_write(ctx);
                }
                return;
            }
            Done::PostPlanned(plan) => {
                // Read from a partial answer, the earlier Shepherd review (what the review
                // builds on and replaces) may be what is missing: refused, saying why.
                let whole =
                    crate::publish::whole_answer(snap, "there is an earlier Shepherd review");
                let plan = match (ctx.session.remote.live(), whole) {
                    (Some(_), Err(e)) => Err(e.to_string()),
                    _ => plan,
                };
                self.desk.post_planned(plan, &mut self.ask, ctx)
            }
            Done::Posted(r) => {
                let done = r.is_ok();
                self.desk.posted(r, snap, ctx);
                // The session's own write: fetch the PR again so the post shows.
                if done {
                    self.refetch_after_write(ctx);
                }
            }
        }
        // Every review action leaves the header's progress line current.
        self.desk.refresh_progress();
    }

    /// Shared results (the review run's, the shared effects') for this PR; anything else is
    /// handed back.
    fn shared_result(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let snap = &self.list.snapshot;
        match action {
            Action::Highlighted { key, lines } => {
                self.list.highlighted(key, lines);
                return None;
            }
            Action::ReviewStarted {
                seq, mode, reason, ..
            } => self.desk.started(seq, (mode, reason)),
            Action::ReviewNotStarted { seq, why } => self.desk.not_started(seq, why, ctx),
            Action::Review { seq, event } => self.desk.event(seq, event, ctx),
            Action::ReviewConcluded { seq, concluded } => {
                self.desk.concluded(seq, *concluded, snap, ctx)
            }
            Action::DraftRestored(d) => self.desk.restored(d, None, snap, ctx),
            Action::ReplyRestored(d) => {
                self.threads.restored(d, &self.list, ctx);
                return None;
            }
            Action::ExternallyEdited {
                target: crate::tui::app::action::EditTarget::Reply,
                result,
            } => {
                self.threads.externally_edited(result, &self.list, ctx);
                return None;
            }
            Action::ExternallyEdited {
                target: crate::tui::app::action::EditTarget::Draft,
                result,
            } => self.desk.externally_edited(result, snap, ctx),
            other => return Some(other),
        }
        // Every review action leaves the header's progress line current.
        self.desk.refresh_progress();
        None
    }

    /// The search prompt while this screen is on top: incremental over the list's rows.
    fn searched(&mut self, step: SearchStep<'_>, ctx: &mut Ctx<'_>) {
        // The prompt line is asking for a dismissal's reason.
        if self.desk.dismissing.is_some() {
            self.desk.dismiss_reason(step, &self.list.snapshot, ctx);
            return;
        }
        let list = &mut self.list;
        match step {
            SearchStep::Changed { query, before } => list.incremental(query, before),
            SearchStep::Accepted(query) => {
                list.search = (!query.is_empty()).then(|| query.to_owned());
                if let Some(q) = &list.search {
                    let n = list.match_rows(q).len();
                    ctx.say(format!("{n} match(es); n/N for next/previous"));
                }
            }
            SearchStep::Cancelled { before } => list.select(before),
        }
    }
}

impl Screen for PrScreen {
    fn name(&self) -> &'static str {
        "PR"
    }

    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        self.looked(ctx);
    }

    fn subject(&self) -> Option<PrCoords> {
        Some(self.list.snapshot.pr.coords())
    }

    /// Opening another PR waits while this one is busy. It reads the header's progress line,
    /// which the gate part always fills once the screen exists.
    fn busy(&self) -> bool {
        self.desk.busy()
    }

    fn activity(&self) -> Option<String> {
        self.desk.busy().then(|| self.desk.activity())
    }

    fn at_stake(&self) -> Vec<String> {
        let pr = self.list.snapshot.pr.coords();
        let mut lost = Vec::new();
        if self.desk.run.as_ref().is_some_and(|r| r.running()) {
            lost.push(format!("the review running on {pr} is cancelled"));
        }
        if self.desk.draft.is_some() && self.desk.posted.is_none() && !self.desk.posting {
            lost.push(super::unsent::draft_said(&pr));
        }
        if self
            .threads
            .reply
            .as_ref()
            .is_some_and(|r| !r.body().trim().is_empty())
        {
            lost.push(super::unsent::reply_said(&pr));
        }
        if self
            .threads
            .comment
            .as_ref()
            .is_some_and(|t| !t.lines().join("\n").trim().is_empty())
        {
            lost.push(super::unsent::comment_said(&pr));
        }
        lost
    }

    fn holds_unsent(&self) -> Vec<super::unsent::Unsent> {
        // A draft or reply in memory (restored when it opened, or written since) is the truth;
        // without one, the state dir speaks (a reply to a thread not on the PR stays there).
        let mut held = Vec::new();
        if self.desk.draft.is_some() {
            held.push(super::unsent::Unsent::Draft);
        }
        if self.threads.reply.is_some() {
            held.push(super::unsent::Unsent::Reply);
        }
        if self.threads.comment.is_some() {
            held.push(super::unsent::Unsent::Comment);
        }
        held
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.list.selected)
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        let handled = self.key_command(cmd, ctx);
        // The next frame finds the newly selected item's Markdown rendered.
        self.fill_markdown(ctx);
        handled
    }

    fn search(&mut self, step: SearchStep<'_>, ctx: &mut Ctx<'_>) {
        self.searched(step, ctx);
    }

    /// The filter dialog, the draft editor and the reply composer.
    fn dialog(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        match action {
            Action::FilterKey(c) => {
                let close = self.list.filter_key(c);
                if close {
                    *ctx.mode = InputMode::Normal;
                }
            }
            Action::EditKey(ev) => {
                self.desk.edit_key(ev, &self.list.snapshot, ctx);
                self.desk.refresh_progress();
            }
            Action::EditDone => {
                *ctx.mode = InputMode::Normal;
                self.desk.edit_done(ctx);
                self.desk.refresh_progress();
            }
            Action::ReplyKey(ev) => self.threads.key(ev, &self.list, &mut self.ask, ctx),
            Action::ReplyClose => self.threads.close(ctx),
            _ => {}
        }
    }

    fn question(&self) -> Option<Dialog> {
        self.ask.get().map(Ask::dialog)
    }

    fn answered(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        match self.ask.take() {
            Some(Ask::MarkAll { .. }) => self.mark_all_confirmed(yes, ctx),
            Some(Ask::Thread(ask)) => self.threads.confirmed(ask, yes, &self.list, ctx),
            Some(Ask::Comment(ask)) => self.threads.comment_confirmed(ask, yes, &self.list, ctx),
            Some(c) => self.desk.confirmed(c, yes, &self.list.snapshot, ctx),
            None => {}
        }
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        self.result(action, ctx)
    }

    fn drawn(&mut self, d: Drawn, ctx: &mut Ctx<'_>) {
        self.list.drawn(d);
        if let Some(what) = self.decide_next.take() {
            super::decide::open_decide(&self.list.snapshot, what, ctx);
        }
        // The review pane scrolled to the finding cursor: that is its scroll from now on.
        if std::mem::take(&mut self.desk.follow) && self.desk.pane == Pane::Review {
            self.desk.review_scroll = d.detail_scroll;
        }
        self.fill_markdown(ctx);
        // The frame is on screen: only now may what it showed be marked seen, and only once it
        // stayed long enough to be read (skimming past with `j` marks nothing).
        match d.shown {
            Some(idx) => {
                let since = match self.dwell {
                    Some((i, t)) if i == idx => t,
                    _ => {
                        self.dwell = Some((idx, d.at_ms));
                        d.at_ms
                    }
                };
                let dwell = i64::try_from(ctx.session.dwell_ms).unwrap_or(i64::MAX);
                if d.at_ms.saturating_sub(since) >= dwell {
                    self.marks.mark(&self.list, &[idx], ctx, false);
                }
            }
            None => self.dwell = None,
        }
        self.list.request_highlight(ctx.fx);
    }

    /// The pane under the pointer answers.
    fn mouse(&mut self, kind: MouseKind, at: Position, d: &Drawn) {
        if d.list_area.contains(at) {
            self.mouse_list(kind, usize::from(at.y - d.list_area.y));
        } else if d.detail_area.contains(at) {
            self.mouse_detail(kind);
        }
    }

    /// Back from the inbox: what it shows is fetched afresh (never a stale screen).
    fn resumed(&mut self, ctx: &mut Ctx<'_>) {
        self.refresh(false, ctx);
    }

    /// Back from a screen that sent something (the pending review, submitted): it stands in its
    /// place until the PR read back shows it; sent live, the PR is fetched again.
    fn uncovered(&mut self, left: &dyn Screen, ctx: &mut Ctx<'_>) {
        // Dismissed in the diff: recorded there, held back from this review too.
        for (id, reason, lesson) in left.dismissed_here() {
            self.desk
                .held_back_elsewhere(&id, &reason, lesson, &self.list.snapshot, ctx);
        }
        let sent = left.sent();
        let live = sent.iter().any(|s| s.live);
        for s in sent {
            self.list.lay_sent(s);
        }
        if live {
            self.refetch_after_write(ctx);
        } else if left.acted() {
            // A decision was made there: what GitHub says now (offline: the fixture, as read).
            self.refresh(false, ctx);
        }
    }

    fn snapshot(&self) -> Option<&Snapshot> {
        Some(&self.list.snapshot)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        draw::draw(frame, area, self, view)
    }

    /// Every key of the keymap (the PR screen answers them all), then the dialogs' keys and how
    /// the screen is left for the inbox.
    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        if self.desk.opened.is_some() {
            return review_pane::finding_help(keymap);
        }
        let mut entries: Vec<(String, String)> = COMMANDS
            .iter()
            // The code, checks and pending review screens' keys are in their own help, the
            // inbox's sort in the inbox's.
            .filter(|(c, ..)| {
                !super::code::OWN_COMMANDS.contains(c)
                    && !super::checks::OWN_COMMANDS.contains(c)
                    && *c != KeyCommand::Sort
                    && *c != KeyCommand::MarkRow
                    && *c != KeyCommand::MarkRange
                    && *c != KeyCommand::Approve
            })
            .map(|(c, _, _, help)| (keymap.keys_label(*c), (*help).to_owned()))
            .collect();
        let more = [
            ("Ctrl-c", "quit from anywhere".to_owned()),
            ("search", "type · Backspace · Enter · Esc".to_owned()),
            ("filter", "n/e/u · r/o/m hide · a all".to_owned()),
            ("review pane", "Tab, then j/k pick a finding, Enter opens it whole".to_owned()),
            ("editor", "type · arrows · ctrl-z/ctrl-r undo/redo · ctrl-o $VISUAL/$EDITOR · Esc done (autosaved)".to_owned()),
            (
                "inbox",
                format!(
                    "{} open · {} next unseen · {} sort · {} reload · {} section · {} leaves the PR for the inbox (its review goes on), quits the inbox",
                    keymap.keys_label(KeyCommand::Toggle),
                    keymap.keys_label(KeyCommand::NextNew),
                    keymap.keys_label(KeyCommand::Sort),
                    keymap.keys_label(KeyCommand::Review),
                    keymap.keys_label(KeyCommand::Focus),
                    keymap.keys_label(KeyCommand::Quit),
                ),
            ),
            (
                "mouse",
                "click selects a row · the wheel scrolls the pane under it".to_owned(),
            ),
            ("dialogs", "y confirms, any key cancels".to_owned()),
            (
                "seen",
                "an item counts as seen once its detail stayed on screen for [console] dwell_ms"
                    .to_owned(),
            ),
        ];
        entries.extend(more.into_iter().map(|(k, d)| (k.to_owned(), d)));
        entries
    }
}

/// The thread view the code screens open a thread with (`Enter` on its line in the diff).
fn open_thread(
    snapshot: &crate::pr::Snapshot,
    thread_id: &str,
    identity: &str,
) -> Box<dyn super::screen::Screen> {
    Box::new(ThreadScreen::new(snapshot, thread_id, identity))
}
