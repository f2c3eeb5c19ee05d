//! The PR screen: one pull request's items ([`ItemList`]), marking them seen ([`Marks`]) and
//! its review ([`ReviewDesk`]). It answers the commands and events that concern one PR; the
//! router in `app/mod.rs` hands them over when this screen is on top.

use super::desk::Pane;
use super::desk::{PaneSize, ReviewDesk};
use super::list::{Focus, ItemList};
use super::marks::Marks;
use super::threads::ThreadDesk;
use super::{Action, Ctx, Effect, InputMode, StepData};
use crate::ledger::SeenSet;
use crate::pr::Snapshot;
use crate::tui::keymap::KeyCommand;
use crate::tui::review::Confirm;

#[derive(Debug, Clone)]
pub struct PrScreen {
    pub list: ItemList,
    pub marks: Marks,
    pub desk: ReviewDesk,
    /// Replying to, resolving and unresolving threads.
    pub threads: ThreadDesk,
}

impl PrScreen {
    pub fn new(
        snapshot: Snapshot,
        seen: SeenSet,
        marks_blocked: Option<String>,
        gates: crate::policy::GateConfig,
    ) -> PrScreen {
        let desk = ReviewDesk::new(&snapshot.pr, gates);
        let mut list = ItemList::new(snapshot, seen.markers);
        list.kept = seen.kept;
        PrScreen {
            list,
            marks: Marks::new(marks_blocked),
            desk,
            threads: ThreadDesk::default(),
        }
    }

    fn pane_size(&self) -> PaneSize {
        PaneSize {
            height: self.list.last.detail_height,
            max_scroll: self.list.max_detail_scroll(),
            half_page: self.list.half_page(false),
        }
    }

    /// A command from the keymap (no dialog is open).
    pub(super) fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) {
        let review_pane = self.list.focus == Focus::Detail && self.desk.pane == Pane::Review;
        if review_pane {
            if self.desk.pane_command(cmd, self.pane_size()) {
                return;
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
                return;
            }
        }
        if self.desk.command(cmd, &self.list.snapshot, ctx) {
            return;
        }
        if self.threads.command(cmd, &self.list, ctx) {
            return;
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
            return;
        }
        match cmd {
            KeyCommand::Search => {
                *ctx.mode = InputMode::Search {
                    query: String::new(),
                    before: self.list.selected,
                }
            }
            KeyCommand::Filter => *ctx.mode = InputMode::Filter,
            KeyCommand::Help => *ctx.mode = InputMode::Help, // the router resets its scroll
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
                    *ctx.mode = InputMode::Confirm(Confirm::MarkAll { count });
                }
            }
            KeyCommand::StepForward | KeyCommand::StepBack => match self.list.step() {
                None => ctx.say("stepping works on fixtures with history"),
                Some((k, n)) => {
                    let target = if cmd == KeyCommand::StepForward {
                        (k < n).then_some(k + 1)
                    } else {
                        k.checked_sub(1)
                    };
                    match target {
                        Some(t) => ctx.fx.push(Effect::LoadStep(t)),
                        None => ctx.say(format!("at step {k} of {n}")),
                    }
                }
            },
            KeyCommand::Quit => self.close_view(ctx),
            KeyCommand::QuitAll => *ctx.quit = true,
            KeyCommand::Back => self.back(ctx),
            // Answered by the list or the desk above.
            _ => {}
        }
    }

    /// A click or wheel step on the list, `row` rows below its top.
    pub(super) fn mouse_list(&mut self, kind: super::MouseKind, row: usize) {
        use super::MouseKind;
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
    pub(super) fn mouse_detail(&mut self, kind: super::MouseKind) {
        use super::MouseKind;
        let down = kind == MouseKind::ScrollDown;
        let max = self.list.max_detail_scroll();
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

    /// `Esc`: unwinds one level (zoom, focus, pane, search), then leaves the screen.
    fn back(&mut self, ctx: &mut Ctx<'_>) {
        if self.close_one() {
            return;
        }
        if self.list.search.is_some() {
            self.list.search = None;
        } else {
            ctx.leave = true;
        }
    }

    /// `q`: closes the current view (full-width detail, detail focus, review or aspects pane);
    /// at the top level it leaves the screen.
    fn close_view(&mut self, ctx: &mut Ctx<'_>) {
        if !self.close_one() {
            ctx.leave = true;
        }
    }

    /// Closes the innermost open view. False: none was open.
    fn close_one(&mut self) -> bool {
        let list = &mut self.list;
        if list.zoom {
            list.zoom = false;
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
    pub(super) fn mark_all_confirmed(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        if !yes {
            ctx.say("nothing marked");
            return;
        }
        let idxs = self.list.listed_items();
        let count = self.marks.unmarked(&self.list, &idxs);
        self.marks.mark(&self.list, &idxs, ctx, true);
        if count > 0 && ctx.fx.iter().any(|e| matches!(e, Effect::MarkSeen { .. })) {
            ctx.say(format!("marked {count} listed item(s) seen"));
        }
    }

    /// Results of effects and review progress for this PR.
    pub(super) fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        let snap = &self.list.snapshot;
        match action {
            Action::Drawn(d) => {
                self.list.drawn(d);
                // The frame is on screen: only now may what it showed be marked seen.
                if let Some(idx) = d.shown {
                    self.marks.mark(&self.list, &[idx], ctx, false);
                }
                self.list.request_highlight(ctx.fx);
                return;
            }
            Action::Marked { items, at, result } => {
                self.marks.marked(&mut self.list, items, at, result, ctx);
                return;
            }
            Action::StepLoaded(Ok(data)) => {
                let StepData {
                    snapshot,
                    seen,
                    ahead,
                } = *data;
                self.list.replace(snapshot, seen.markers);
                self.list.ahead = ahead;
                self.list.kept = seen.kept;
                self.marks.reset();
                self.desk.snapshot_changed(&self.list.snapshot.pr);
                if let Some((k, n)) = self.list.step() {
                    ctx.say(format!(
                        "step {k} of {n}: {} new, {} edited",
                        self.list.counts.new, self.list.counts.edited
                    ));
                }
                return;
            }
            Action::StepLoaded(Err(e)) => {
                ctx.say(format!("cannot load the step: {e}"));
                return;
            }
            Action::Highlighted { key, lines } => {
                self.list.highlighted(key, lines);
                return;
            }
            Action::ReviewProgress(p) => {
                self.desk.progress = p;
                return;
            }
            Action::ReviewStarted {
                seq,
                mode,
                reason,
                prior,
                reply_marker,
            } => self
                .desk
                .started(seq, (mode, reason), *prior, reply_marker, &snap.pr),
            Action::ReviewNotStarted { seq, why } => self.desk.not_started(seq, why, ctx),
            Action::Review { seq, event } => self.desk.event(seq, event, snap, ctx),
            Action::DraftRestored(d) => self.desk.restored(d, ctx),
            Action::ReplyRestored(d) => {
                self.threads.restored(d, &self.list, ctx);
                return;
            }
            Action::ThreadActed {
                thread_id,
                kind,
                result,
            } => {
                self.threads
                    .acted(thread_id, kind, result, &mut self.list, ctx);
                return;
            }
            Action::DraftSaved(r) => self.desk.draft_saved(r, ctx),
            Action::DraftDiscarded(r) => self.desk.draft_discarded(r, ctx),
            Action::PostPlanned(plan) => self.desk.post_planned(plan, ctx),
            Action::Posted(r) => self.desk.posted(r, snap, ctx),
            // The router answers the rest.
            _ => return,
        }
        // Every review action leaves the header's progress line current.
        self.desk.refresh_progress();
    }
}
