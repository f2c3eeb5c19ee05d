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

#[derive(Debug, Clone)]
pub struct PrScreen {
    pub list: ItemList,
    pub marks: Marks,
    pub desk: ReviewDesk,
    /// Replying to, resolving and unresolving threads.
    pub threads: ThreadDesk,
}

impl PrScreen {
    pub fn new(snapshot: Snapshot, seen: SeenSet, marks_blocked: Option<String>) -> PrScreen {
        let desk = ReviewDesk::new(&snapshot.pr);
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
        if review_pane && self.desk.pane_command(cmd, self.pane_size()) {
            return;
        }
        if self.desk.command(cmd, &self.list.snapshot, ctx)
            || self.threads.command(cmd, &self.list, ctx)
            || self.list.command(cmd, ctx)
        {
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
            KeyCommand::Help => *ctx.mode = InputMode::Help,
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
                self.marks.mark(&self.list, &idxs, ctx, true);
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
            KeyCommand::Quit => *ctx.quit = true,
            KeyCommand::Back => self.back(ctx),
            // Answered by the list or the desk above.
            _ => {}
        }
    }

    /// `Esc`: unwinds one level (zoom, focus, pane, search), then quits.
    fn back(&mut self, ctx: &mut Ctx<'_>) {
        let list = &mut self.list;
        if list.zoom {
            list.zoom = false;
        } else if list.focus == Focus::Detail {
            list.focus = Focus::List;
        } else if self.desk.pane != Pane::Item {
            self.desk.pane = Pane::Item;
        } else if list.search.is_some() {
            list.search = None;
        } else {
            *ctx.quit = true;
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
                let StepData { snapshot, seen } = *data;
                self.list.replace(snapshot, seen.markers);
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
