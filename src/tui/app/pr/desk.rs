//! The review desk of the PR screen: the review run (`r`/`R`, its progress, the stale-run
//! sequence numbers), the composed review and its draft, and posting. Pure state; the effect
//! runner prepares and runs reviews, saves drafts and posts, and reports back as actions.

use ratatui::crossterm::event::KeyEvent;

use super::Work;
use super::ask::Ask;
use crate::ledger::Draft;
use crate::policy::{GateConfig, GateDecision, Mode as ReviewMode};
use crate::pr::{PrMeta, Snapshot};
use crate::publish::{PostAction, Posted};
use crate::review::flow::Concluded;
use crate::review::results::aggregate::AggregateRequest;
use crate::review::results::condense::thousands;
use crate::review::{ReviewEvent, ReviewRun};
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::effect::Effect;
use crate::tui::app::screen::{Asking, Ctx, Handled};
use crate::tui::app::work::Job;
use crate::tui::keymap::KeyCommand;
use crate::tui::review::{Composed, DraftView, PostPreview, RunView};

/// What the detail area shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The selected item.
    Item,
    /// Each aspect's state in the current review run.
    Aspects,
    /// The review as it will be posted, with its findings.
    Review,
}

/// The gate decision for a PR opened at the console (an explicit invocation), with the config
/// file's `[gates]`.
pub fn console_gate(pr: &PrMeta, cfg: &GateConfig) -> GateDecision {
    use crate::policy::{self, Invocation};
    let team = policy::team_of(pr.author.association, cfg);
    policy::gate(pr, team, cfg, Invocation::Explicit)
}

#[derive(Debug, Clone)]
pub struct ReviewDesk {
    /// What the gates allow for this PR (explicit invocation: the maintainer at the console).
    pub gate: GateDecision,
    pub pane: Pane,
    /// The latest review run's progress.
    pub run: Option<RunView>,
    run_seq: u64,
    /// The latest finished run, classified and composed.
    pub composed: Option<Composed>,
    /// The text that will be posted.
    pub draft: Option<DraftView>,
    pub review_scroll: usize,
    /// The finding under the cursor in the review pane.
    pub finding_sel: usize,
    /// `Enter` opened the finding under the cursor whole (its keys: dismiss, lesson, keep,
    /// jump to its line); how far it is scrolled.
    pub opened: Option<usize>,
    /// The next frame scrolls the review pane to the finding cursor (see `follow_finding`).
    pub follow: bool,
    /// What was posted this session (shown in the review pane).
    pub posted: Option<String>,
    /// A confirmed post is on its way (the loop keeps running; a second post waits).
    pub posting: bool,
    /// One line for the header: the run's progress and the gate state.
    pub progress: Option<String>,
    /// `D`/`L` asked for a reason: the finding and whether it is a repository lesson (the
    /// reason is typed in the prompt line).
    pub dismissing: Option<(String, bool)>,
    /// The reason prompt was answered empty: it stays open, saying a reason is needed.
    pub reason_missing: bool,
    /// The body of the post on its way (what was kept, edited or dropped is recorded once it
    /// is posted).
    sent: Option<String>,
    /// The precision of the PR's repository from the maintainer's decisions (one line).
    pub stats: Option<String>,
}

/// Geometry the review pane scrolls in (from the last drawn frame).
#[derive(Debug, Clone, Copy)]
pub(super) struct PaneSize {
    pub max_scroll: usize,
    pub half_page: usize,
}

impl ReviewDesk {
    /// The desk of the PR `pr`, its gate decided with the session's `[gates]`.
    pub fn new(pr: &PrMeta, gates: &GateConfig) -> ReviewDesk {
        let mut desk = ReviewDesk {
            gate: console_gate(pr, gates),
            pane: Pane::Item,
            run: None,
            run_seq: 0,
            composed: None,
            draft: None,
            review_scroll: 0,
            finding_sel: 0,
            opened: None,
            follow: false,
            posted: None,
            posting: false,
            progress: None,
            dismissing: None,
            reason_missing: false,
            sent: None,
            stats: None,
        };
        desk.refresh_progress();
        desk
    }

    /// A new snapshot of the same PR: its gates may differ.
    pub(super) fn snapshot_changed(&mut self, pr: &PrMeta, gates: &GateConfig) {
        self.gate = console_gate(pr, gates);
        self.refresh_progress();
    }

    /// A review is running or a confirmed post is on its way: work that leaving the screen
    /// must not drop (the header's progress line is always there, so it says nothing of this).
    pub fn busy(&self) -> bool {
        self.posting || self.run.as_ref().is_some_and(RunView::running)
    }

    /// What is going on, for the PR's inbox row while the screen is left: the post, else the
    /// run's progress.
    pub fn activity(&self) -> String {
        match &self.run {
            _ if self.posting => "posting the review".to_owned(),
            Some(r) => r.progress(),
            None => String::new(),
        }
    }

    /// The header's fourth line: the run's progress (if any) and the gate state.
    pub(super) fn refresh_progress(&mut self) {
        let mut parts = Vec::new();
        if let Some(r) = &self.run {
            parts.push(r.progress());
        }
        parts.push(format!("gate: {}", self.gate.reason));
        self.progress = Some(parts.join(" │ "));
    }

    /// Moves in the review pane (findings cursor, scrolling). False: not a pane command.
    pub(super) fn pane_command(&mut self, cmd: KeyCommand, size: PaneSize) -> bool {
        match cmd {
            KeyCommand::Down => {
                let n = self
                    .composed
                    .as_ref()
                    .map_or(0, |c| c.run.findings().count());
                self.finding_sel = (self.finding_sel + 1).min(n.saturating_sub(1));
                self.follow_finding();
            }
            KeyCommand::Up => {
                self.finding_sel = self.finding_sel.saturating_sub(1);
                self.follow_finding();
            }
            KeyCommand::Top => self.review_scroll = 0,
            KeyCommand::Bottom => self.review_scroll = size.max_scroll,
            KeyCommand::PageDown => {
                self.review_scroll = (self.review_scroll + size.half_page).min(size.max_scroll)
            }
            KeyCommand::PageUp => {
                self.review_scroll = self.review_scroll.saturating_sub(size.half_page)
            }
            _ => return false,
        }
        true
    }

    /// Keeps the finding cursor on screen: the next frame scrolls to it (a finding takes as many
    /// lines as its words need there) and reports where, which becomes the pane's scroll.
    fn follow_finding(&mut self) {
        self.follow = true;
    }

    /// The review commands (`r`, `R`, `A`, `v`, `e`, `p`, `d`, `x`). False: not one of them.
    pub(super) fn command(
        &mut self,
        cmd: KeyCommand,
        snap: &Snapshot,
        ask: &mut Asking<Ask>,
        ctx: &mut Ctx<'_>,
    ) -> bool {
        match cmd {
            KeyCommand::Review | KeyCommand::FullReview => {
                let full = cmd == KeyCommand::FullReview;
                match self.rerun_ask(full) {
                    // A review is here: a new one calls the model again, so it asks first.
                    Some(q) if !self.draft.as_ref().is_some_and(|d| d.edited) => ask.ask(q, ctx),
                    _ => self.start_review(full, snap, ctx),
                }
            }
            KeyCommand::Aspects => {
                if self.pane == Pane::Aspects {
                    self.pane = Pane::Item;
                } else if self.run.is_some() {
                    self.pane = Pane::Aspects;
                } else {
                    ctx.say("no review run yet: r runs one");
                }
            }
            KeyCommand::ReviewPane => {
                if self.pane == Pane::Review {
                    self.pane = Pane::Item;
                } else if self.draft.is_some() {
                    self.pane = Pane::Review;
                } else {
                    ctx.say("no review yet: r runs one");
                }
            }
            KeyCommand::Edit => {
                if self.run.as_ref().is_some_and(RunView::running) {
                    // Its result would replace the draft: edit once it is in.
                    ctx.say("a review is running: edit its result when it finished");
                } else if self.posting {
                    ctx.say("the review is being posted: edit it once the post answered");
                } else if let Some(d) = self.draft.as_mut() {
                    d.cursor_below_header();
                    self.pane = Pane::Review;
                    *ctx.mode = InputMode::Edit;
                } else {
                    ctx.say("nothing to edit: r runs a review");
                }
            }
            KeyCommand::Post => self.request_post(snap, ask, ctx),
            KeyCommand::Discard => {
                if self.draft.is_some() {
                    ask.ask(Ask::Discard, ctx);
                } else {
                    ctx.say("no draft to discard");
                }
            }
            KeyCommand::MarkAddressed => self.mark_addressed(snap, ctx),
            KeyCommand::Dismiss | KeyCommand::Lesson => {
                self.ask_dismiss(cmd == KeyCommand::Lesson, ctx)
            }
            _ => return false,
        }
        true
    }

    /// The question before a review replaces the one here (finished, or its draft restored):
    /// `None` when there is none to replace, or one is running (`r` then restarts it, said).
    fn rerun_ask(&self, full: bool) -> Option<Ask> {
        if self.run.as_ref().is_some_and(RunView::running) {
            return None;
        }
        let findings = self.composed.as_ref().map(|c| c.finding_rows().len());
        (self.draft.is_some() || findings.is_some()).then_some(Ask::Rerun { full, findings })
    }

    fn start_review(&mut self, full: bool, snap: &Snapshot, ctx: &mut Ctx<'_>) {
        if self.draft.as_ref().is_some_and(|d| d.edited) {
            ctx.say(
                "the draft may hold your edits: post (p) or discard (d) it before a new review",
            );
            return;
        }
        let replacing = self.run.as_ref().is_some_and(RunView::running);
        self.run_seq += 1;
        self.run = Some(RunView::new(self.run_seq, full));
        ctx.fx.push(Effect::StartReview {
            seq: self.run_seq,
            full,
            snapshot: Box::new(snap.clone()),
        });
        ctx.say(format!(
            "{}{} review started; A shows the aspects",
            if replacing {
                "cancelled the running review; "
            } else {
                ""
            },
            if full { "full" } else { "the" }
        ));
        self.refresh_progress();
    }

    fn draft_effect(&self, snap: &Snapshot, now: i64) -> Option<Effect> {
        let d = self.draft.as_ref()?;
        Some(Effect::Work(Job::new(Work::SaveDraft {
            pr: snap.pr.coords(),
            draft: Draft {
                body: d.body(),
                head_sha: d.head_sha.clone(),
                saved_at: now,
            },
        })))
    }

    fn request_post(&mut self, snap: &Snapshot, ask: &mut Asking<Ask>, ctx: &mut Ctx<'_>) {
        let Some(d) = &self.draft else {
            ctx.say("nothing to post: r runs a review");
            return;
        };
        if self.posting {
            ctx.say("a post is on its way: wait for its answer");
            return;
        }
        if !self.gate.post {
            ask.ask(
                Ask::Refused(format!("not posting: {}", self.gate.reason)),
                ctx,
            );
            return;
        }
        if let Some(why) = self
            .composed
            .as_ref()
            .and_then(|c| c.run.context.budget_stop())
        {
            ask.ask(
                Ask::Refused(format!(
                    "not posting: the budget stopped the review before it was whole ({why}); a \
                     partial review is never posted"
                )),
                ctx,
            );
            return;
        }
        // GitHub refuses a body over its limit: say so before the confirm box, with the count,
        // and offer the composed review condensed to fit when there is one.
        let size = d.size();
        if !size.fits() {
            let q = match &self.composed {
                Some(c) if c.draft_size().fits() => Ask::Condense {
                    draft: size,
                    condensed: c.draft_size().chars,
                },
                _ => Ask::Refused(format!(
                    "not posting: the draft is {size}, {} over GitHub's limit; shorten it (e)",
                    thousands(size.over_by())
                )),
            };
            ask.ask(q, ctx);
            return;
        }
        // The header too is checked before the confirmation box, not after `y`.
        if !crate::pr::is_review_body(&d.body()) {
            ask.ask(
                Ask::Refused(format!(
                    "not posting: the review must start with `{}` (e edits the draft; the header \
                     marks the one Shepherd comment)",
                    crate::pr::REVIEW_HEADER
                )),
                ctx,
            );
            return;
        }
        ctx.work(super::Work::PlanPost {
            pr: snap.pr.coords(),
            chars: size.chars,
        });
    }

    fn mark_addressed(&mut self, snap: &Snapshot, ctx: &mut Ctx<'_>) {
        let edited = self.draft.as_ref().is_some_and(|d| d.edited);
        let Some(c) = self.composed.as_mut() else {
            ctx.say("no findings to mark: r runs a review");
            return;
        };
        if edited {
            ctx.say(
                "the draft has edits: marking recomposes the body, so post (p) or discard (d) first",
            );
            return;
        }
        let Some((id, _)) = c.finding_rows().into_iter().nth(self.finding_sel) else {
            ctx.say("no finding selected");
            return;
        };
        if c.agg.mode == ReviewMode::Full {
            ctx.say(
                "a full review assesses everything: only findings of an earlier review can be \
                 treated as addressed",
            );
            return;
        }
        let changed = c.toggle_addressed(&id, snap);
        let marked = c.request.console_addressed.contains(&id);
        // The list follows the posted order, where an addressed finding moves: keep the cursor on it.
        if let Some(p) = c.finding_rows().iter().position(|(f, _)| *f == id) {
            self.finding_sel = p;
        }
        let body = c.body.clone();
        self.draft = Some(DraftView::new(&body, &snap.pr.head_sha, None));
        ctx.fx.extend(self.draft_effect(snap, ctx.session.now));
        ctx.say(match (marked, changed) {
            (true, true) => format!("{id} marked addressed; the review was recomposed"),
            (false, true) => format!("{id} no longer marked addressed; recomposed"),
            (_, false) => format!("{id}: no change (it was not raised by an earlier review)"),
        });
    }

    /// Run `seq` was prepared (a replaced run's answer is dropped).
    pub(super) fn started(&mut self, seq: u64, mode: (ReviewMode, String)) {
        let Some(r) = self.run.as_mut().filter(|r| r.seq == seq) else {
            return;
        };
        r.mode = Some(mode);
        self.refresh_progress();
    }

    pub(super) fn not_started(&mut self, seq: u64, why: String, ctx: &mut Ctx<'_>) {
        if let Some(r) = self.run.as_mut().filter(|r| r.seq == seq) {
            ctx.say(format!("review not started: {why}"));
            r.error = Some(why);
        }
        self.refresh_progress();
    }

    /// Progress of run `seq`; events of a replaced (older) run are dropped. A finished run is
    /// shown once the review flow concluded it ([`Self::concluded`]).
    pub(super) fn event(&mut self, seq: u64, event: ReviewEvent, ctx: &mut Ctx<'_>) {
        let Some(r) = self.run.as_mut().filter(|r| r.seq == seq) else {
            return; // a cancelled run's late events
        };
        r.apply(&event);
        if let ReviewEvent::Finished(run) = event
            && run.cancelled
        {
            ctx.say("review cancelled: nothing composed");
        }
        self.refresh_progress();
    }

    /// Run `seq` was concluded (saved, classified, composed, its decisions recorded by the
    /// review flow): the desk shows it and its draft.
    pub(super) fn concluded(
        &mut self,
        seq: u64,
        concluded: Concluded,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        if self.run.as_ref().is_none_or(|r| r.seq != seq) {
            return; // a replaced run's
        }
        let incomplete = concluded.run.is_incomplete();
        let composed = Composed::concluded(concluded);
        let n = composed.run.findings().count();
        ctx.work(Work::LoadStats {
            pr: snap.pr.coords(),
        });
        self.draft = Some(DraftView::new(&composed.body, &snap.pr.head_sha, None));
        self.composed = Some(composed);
        self.posted = None;
        self.finding_sel = 0;
        self.opened = None;
        self.review_scroll = 0;
        self.pane = Pane::Review;
        ctx.fx.extend(self.draft_effect(snap, ctx.session.now));
        ctx.say(format!(
            "review finished{}: {}",
            if incomplete { " (incomplete)" } else { "" },
            crate::tui::ui::count(n, "finding", "findings")
        ));
    }

    /// A draft found in the ledger when the console opened, with the stored run it was made
    /// from (if any): that run, composed again against the PR, gives the findings picker, and a
    /// draft that is exactly its composed body holds no hand edits (a new review may replace
    /// it). Without the run the draft is taken as edited: it may be the maintainer's work.
    pub(super) fn restored(
        &mut self,
        d: Draft,
        run: Option<ReviewRun>,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        let mut view = DraftView::new(&d.body, &d.head_sha, Some(d.saved_at));
        self.composed = run.filter(|r| !r.cancelled).map(|run| {
            let mut prior =
                crate::review::inputs::prior::prior_reviews(snap, ctx.session.identity());
            prior.reply_trust.collaborators_are_team = ctx.session.gates.collaborators_are_team;
            prior.reply_trust.shepherd_login = Some(ctx.session.identity().to_owned());
            let request = AggregateRequest {
                override_note: console_gate(&snap.pr, &ctx.session.gates).overridden,
                ..AggregateRequest::default()
            };
            Composed::new(run, snap, prior, request)
        });
        if let Some(c) = &self.composed {
            view.edited = DraftView::new(&c.body, &d.head_sha, None).body() != view.body();
        }
        self.draft = Some(view);
        self.finding_sel = 0;
        self.opened = None;
        self.review_scroll = 0;
        self.pane = Pane::Review;
        ctx.say("restored the unposted review draft");
        self.refresh_progress();
    }

    pub(super) fn draft_saved(&mut self, r: Result<(), String>, ctx: &mut Ctx<'_>) {
        if let Err(e) = r {
            ctx.say(format!("the draft was NOT saved: {e}"));
        }
    }

    pub(super) fn draft_discarded(&mut self, r: Result<bool, String>, ctx: &mut Ctx<'_>) {
        // Posting removes the saved draft quietly; only the discard flow reports.
        if self.draft.is_none() || r.is_err() {
            ctx.say(match r {
                Ok(_) => "draft discarded; nothing was posted".to_owned(),
                Err(e) => format!("the draft could not be removed: {e}"),
            });
        }
    }

    /// What a post would do: the confirmation dialog opens (unless another dialog is up).
    pub(super) fn post_planned(
        &mut self,
        plan: Result<PostPreview, String>,
        ask: &mut Asking<Ask>,
        ctx: &mut Ctx<'_>,
    ) {
        match plan {
            Ok(mut plan) => {
                if *ctx.mode == InputMode::Normal && self.draft.is_some() {
                    plan.incomplete = self
                        .composed
                        .as_ref()
                        .and_then(|c| crate::tui::review::run_status(&c.run))
                        .filter(|(_, incomplete)| *incomplete)
                        .map(|(said, _)| said);
                    ask.ask(Ask::Post(plan), ctx);
                }
            }
            Err(why) => ask.ask(Ask::Refused(why), ctx),
        }
    }

    pub(super) fn posted(&mut self, r: Result<Posted, String>, snap: &Snapshot, ctx: &mut Ctx<'_>) {
        self.posting = false;
        match r {
            Ok(p) => {
                let what = match p.action {
                    PostAction::Created => "created",
                    PostAction::Updated => "updated",
                };
                let text = format!(
                    "posted to {} ({what} comment {})",
                    crate::sanitize::one_line(&p.location),
                    p.comment_id
                );
                ctx.say(text.clone());
                self.posted = Some(text);
                if let Some(d) = self.draft.as_mut() {
                    d.edited = false;
                    d.restored = None;
                }
                ctx.work(Work::DiscardDraft {
                    pr: snap.pr.coords(),
                });
                // What the maintainer kept, edited and dropped of the composed review.
                if let (Some(c), Some(sent)) = (&self.composed, self.sent.take()) {
                    ctx.work(Work::RecordDecisions {
                        pr: snap.pr.coords(),
                        decisions: crate::review::flow::posted_decisions(
                            &c.run,
                            &c.agg,
                            &c.body,
                            &sent,
                            true,
                            snap.pr.number,
                            ctx.session.now,
                        ),
                        lesson: None,
                        said: String::new(),
                    });
                }
            }
            Err(e) => {
                self.sent = None;
                ctx.say(format!("not posted: {e} (the draft is kept)"))
            }
        }
    }

    /// A key for the draft editor; an edit is saved at once (it survives a crash).
    pub(super) fn edit_key(&mut self, ev: KeyEvent, snap: &Snapshot, ctx: &mut Ctx<'_>) {
        if crate::tui::editor::is_external_key(&ev) {
            if let Some(d) = &self.draft {
                ctx.fx.push(Effect::ExternalEdit {
                    target: crate::tui::app::action::EditTarget::Draft,
                    text: d.body(),
                });
            }
            return;
        }
        if let Some(d) = self.draft.as_mut()
            && crate::tui::editor::input(&mut d.editor, ev)
        {
            d.edited = true;
            ctx.fx.extend(self.draft_effect(snap, ctx.session.now));
        }
    }

    /// The external editor's answer for the draft: the editor takes the text (undoable), saved
    /// at once.
    pub(super) fn externally_edited(
        &mut self,
        result: Result<String, String>,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        match (result, self.draft.as_mut()) {
            (Ok(text), Some(d)) => {
                crate::tui::editor::replace(&mut d.editor, &text);
                d.edited = true;
                ctx.fx.extend(self.draft_effect(snap, ctx.session.now));
                ctx.say("the draft has the external editor's text (autosaved); p posts it");
            }
            (Ok(_), None) => ctx.say("the draft is gone: the edited text was not kept"),
            (Err(why), _) => ctx.say(why),
        }
    }

    pub(super) fn edit_done(&mut self, ctx: &mut Ctx<'_>) {
        if self.draft.as_ref().is_some_and(|d| d.edited) {
            ctx.say("draft saved; p posts it");
        }
    }

    /// The answer to a post or discard dialog.
    pub(super) fn confirmed(&mut self, c: Ask, yes: bool, snap: &Snapshot, ctx: &mut Ctx<'_>) {
        match (c, yes) {
            (Ask::Post(plan), true) => match &self.draft {
                Some(d) => {
                    self.posting = true;
                    // The answer comes back as `Posted`; the console stays usable meanwhile.
                    ctx.say(format!(
                        "posting to {}…",
                        crate::sanitize::one_line(&plan.destination)
                    ));
                    self.sent = Some(d.body());
                    ctx.work(super::Work::Post {
                        pr: snap.pr.coords(),
                        body: d.body(),
                    });
                }
                None => ctx.say("nothing to post"),
            },
            (Ask::Discard, true) => {
                self.draft = None;
                self.composed = None;
                self.posted = None;
                if self.pane == Pane::Review {
                    self.pane = Pane::Item;
                }
                if self.run.as_ref().is_some_and(RunView::running) {
                    self.run = None;
                    ctx.fx.push(Effect::CancelReview {
                        pr: snap.pr.coords(),
                    });
                }
                ctx.work(Work::DiscardDraft {
                    pr: snap.pr.coords(),
                });
            }
            (Ask::Condense { condensed, .. }, true) => {
                if let Some(c) = &self.composed {
                    self.draft = Some(DraftView::new(&c.body, &snap.pr.head_sha, None));
                    ctx.fx.extend(self.draft_effect(snap, ctx.session.now));
                    ctx.say(format!(
                        "the draft is now the review condensed to {} characters; p posts it",
                        thousands(condensed)
                    ));
                }
            }
            (Ask::Condense { .. }, false) => {
                ctx.say("draft kept; it is over GitHub's limit: e edits it")
            }
            (Ask::Post(_), false) => ctx.say("not posted"),
            (Ask::Rerun { full, .. }, true) => self.start_review(full, snap, ctx),
            (Ask::Rerun { .. }, false) => ctx.say("no new review: the review here stays"),
            (Ask::Discard, false) => ctx.say("draft kept"),
            // Thread dialogs are answered by the thread desk; M by the PR screen.
            (
                Ask::Refused(_)
                | Ask::Cannot(_)
                | Ask::MarkAll { .. }
                | Ask::Thread(_)
                | Ask::Comment(_),
                _,
            ) => {}
        }
        self.refresh_progress();
    }

    /// The finding under the cursor, as the run has it (the opened view shows it whole).
    pub fn selected_finding(&self) -> Option<&crate::review::findings::Finding> {
        let c = self.composed.as_ref()?;
        crate::review::results::compose::posted_order(&c.run, &c.agg)
            .into_iter()
            .nth(self.finding_sel)
    }

    /// `Enter` on a finding: opens it whole.
    pub(super) fn open_finding(&mut self, ctx: &mut Ctx<'_>) {
        if self.selected_finding().is_some() {
            self.opened = Some(0);
        } else {
            ctx.say("no finding selected");
        }
    }

    /// The opened finding's keys: scroll, dismiss (`D`), lesson (`L`), keep (`Enter`), jump to
    /// its line (`F`), mark addressed (`a`), back (`Esc`/`q`). `?` and the quit-all key are the
    /// router's; the rest is said to have no meaning here.
    pub(super) fn finding_command(
        &mut self,
        cmd: KeyCommand,
        snap: &Snapshot,
        size: PaneSize,
        ctx: &mut Ctx<'_>,
    ) -> Handled {
        let Some(at) = self.opened else {
            return Handled::NotConsumed;
        };
        let Some(f) = self.selected_finding().cloned() else {
            self.opened = None;
            return Handled::NotConsumed;
        };
        let (half, max) = (size.half_page.max(1), size.max_scroll);
        match cmd {
            KeyCommand::Down => self.opened = Some((at + 1).min(max)),
            KeyCommand::Up => self.opened = Some(at.saturating_sub(1)),
            KeyCommand::PageDown => self.opened = Some((at + half).min(max)),
            KeyCommand::PageUp => self.opened = Some(at.saturating_sub(half)),
            KeyCommand::Top => self.opened = Some(0),
            KeyCommand::Bottom => self.opened = Some(max),
            KeyCommand::Dismiss | KeyCommand::Lesson => {
                self.ask_dismiss(cmd == KeyCommand::Lesson, ctx)
            }
            KeyCommand::MarkAddressed => self.mark_addressed(snap, ctx),
            KeyCommand::Toggle => {
                self.opened = None;
                ctx.say(format!(
                    "{} kept: it stays in the review as it will be posted",
                    f.id
                ));
            }
            KeyCommand::Files => {
                if snap.pr.files.iter().any(|c| c.path == f.file) {
                    crate::tui::app::code::open_files_at(
                        snap,
                        &f.file,
                        f.line,
                        super::open_thread,
                        ctx,
                    );
                } else {
                    ctx.say(format!(
                        "{} is not among the PR's changed files",
                        crate::sanitize::one_line(&f.file)
                    ));
                }
            }
            KeyCommand::Back | KeyCommand::Quit => self.opened = None,
            KeyCommand::Help | KeyCommand::QuitAll | KeyCommand::Messages => {
                return Handled::NotConsumed;
            }
            _ => ctx.say("the finding has the keys: Esc goes back to the findings"),
        }
        Handled::Consumed
    }

    /// `D` (`lesson`: `L`): asks for the reason of dismissing the selected finding.
    fn ask_dismiss(&mut self, lesson: bool, ctx: &mut Ctx<'_>) {
        let Some(c) = self.composed.as_ref().filter(|_| self.pane == Pane::Review) else {
            ctx.say("no findings to dismiss: v shows the review, Tab then j/k picks one");
            return;
        };
        let Some((id, _)) = c.finding_rows().into_iter().nth(self.finding_sel) else {
            ctx.say("no finding selected");
            return;
        };
        self.dismissing = Some((id, lesson));
        self.reason_missing = false;
        *ctx.mode = InputMode::Search {
            query: String::new(),
            before: 0,
        };
    }

    /// The reason prompt's answer: the dismissal is recorded (with a lesson for `L`), and the
    /// finding leaves the review (held back, listed) unless the draft holds edits.
    pub(super) fn dismiss_reason(
        &mut self,
        step: crate::tui::app::SearchStep<'_>,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        use crate::tui::app::SearchStep;
        let reason = match step {
            SearchStep::Changed { .. } => return,
            SearchStep::Cancelled { .. } => {
                self.dismissing = None;
                self.reason_missing = false;
                ctx.say("not dismissed");
                return;
            }
            SearchStep::Accepted(q) => q.trim().to_owned(),
        };
        if reason.is_empty() {
            // The prompt stays open, saying why: what is typed next is the reason, never keys.
            self.reason_missing = true;
            *ctx.mode = InputMode::Search {
                query: String::new(),
                before: 0,
            };
            ctx.say("a dismissal needs its reason: type it, Enter dismisses, Esc cancels");
            return;
        }
        self.reason_missing = false;
        let Some((id, lesson)) = self.dismissing.take() else {
            return;
        };
        let edited = self.draft.as_ref().is_some_and(|d| d.edited);
        let Some(c) = self.composed.as_mut() else {
            return;
        };
        let Some(meta) = c
            .run
            .findings()
            .find(|f| f.id == id)
            .map(crate::review::results::aggregate::to_meta)
        else {
            return;
        };
        let (decision, lesson_made) = crate::review::results::outcome::dismissal(
            &meta,
            &reason,
            lesson,
            snap.pr.number,
            ctx.session.now,
        );
        let repo = format!("{}/{}", snap.pr.owner, snap.pr.repo);
        let said = match &lesson_made {
            Some(l) => format!(
                "{id} dismissed; lesson {} for {repo}: given to every later review of it",
                l.id
            ),
            None => format!("{id} dismissed: never proposed again on this PR, also reworded"),
        };
        ctx.work(Work::RecordDecisions {
            pr: snap.pr.coords(),
            decisions: vec![decision],
            lesson: lesson_made.map(Box::new),
            said,
        });
        // Decided: the opened finding gives way to the list.
        self.opened = None;
        if edited {
            ctx.say(format!(
                "{id} dismissed; the draft has your edits, so it is still in it: e removes it"
            ));
            return;
        }
        self.hold_back(&id, &reason, lesson, snap, ctx);
    }

    /// A finding dismissed on another screen (the diff), already recorded there: held back
    /// from the review here as a dismissal made here is (a draft with edits keeps it, said).
    pub(super) fn held_back_elsewhere(
        &mut self,
        id: &str,
        reason: &str,
        lesson: bool,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        let present = self
            .composed
            .as_ref()
            .is_some_and(|c| c.run.findings().any(|f| f.id == id));
        if !present {
            return;
        }
        if self.draft.as_ref().is_some_and(|d| d.edited) {
            ctx.say(format!(
                "{id} dismissed in the diff; the draft has your edits, so it is still in it: e removes it"
            ));
            return;
        }
        self.hold_back(id, reason, lesson, snap, ctx);
    }

    fn hold_back(
        &mut self,
        id: &str,
        reason: &str,
        lesson: bool,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        let Some(c) = self.composed.as_mut() else {
            return;
        };
        c.dismiss(id, reason, lesson, snap);
        let body = c.body.clone();
        let rows = c.finding_rows().len();
        self.finding_sel = self.finding_sel.min(rows.saturating_sub(1));
        self.draft = Some(DraftView::new(&body, &snap.pr.head_sha, None));
        ctx.fx.extend(self.draft_effect(snap, ctx.session.now));
    }

    /// Decisions were written (a dismissal, a post's): the notice, then the precision again.
    pub(super) fn decisions_recorded(
        &mut self,
        r: Result<String, String>,
        snap: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) {
        match r {
            Ok(said) if said.is_empty() => {}
            Ok(said) => ctx.say(said),
            Err(e) => ctx.say(format!("what became of the findings was NOT recorded: {e}")),
        }
        ctx.work(Work::LoadStats {
            pr: snap.pr.coords(),
        });
    }

    pub(super) fn stats_loaded(&mut self, r: Result<String, String>) {
        self.stats = Some(match r {
            Ok(line) => line,
            Err(e) => format!("precision unavailable: {e}"),
        });
    }
}
