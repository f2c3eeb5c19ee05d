//! What the diff does while one of its modes is on: the composer under the lines
//! (`composer.rs`), the finding pane (`finding_pane.rs`) and the search (`search.rs`) — the
//! glue between their own state and the diff's cursor, files and pending review.

use ratatui::text::{Line, Span};

use super::composer::Composer;
use super::diff::DiffScreen;
use super::finding_pane::PaneKey;
use super::search::DiffSearch;
use super::work::Work;
use crate::code::patch::{LineAddr, LineSelection};
use crate::output::files::FindingMark;
use crate::sanitize::one_line;
use crate::tui::app::screen::Ctx;
use crate::tui::keymap::KeyCommand;
use crate::tui::theme::Theme;

impl DiffScreen {
    /// The search prompt's text changed, was accepted or cancelled: the cursor goes to the
    /// first match in this file from where the prompt opened (accepted with none here: the
    /// next match in the PR); cancelled, back where it was and no search.
    pub(super) fn search_step(&mut self, step: crate::tui::app::SearchStep<'_>, ctx: &mut Ctx<'_>) {
        use crate::tui::app::SearchStep;
        let query = match step {
            SearchStep::Cancelled { .. } => {
                self.search = None;
                self.move_to(self.search_from);
                return ctx.say("not searched");
            }
            SearchStep::Changed { query, .. } | SearchStep::Accepted(query) => query,
        };
        let found = DiffSearch::new(query, &self.snapshot.pr.files);
        let here = found.in_file_from((self.index, self.search_from));
        match here {
            Some(k) => {
                if let Some(&(_, line)) = found.matches.get(k) {
                    self.move_to(line);
                }
            }
            None => self.move_to(self.search_from),
        }
        let said = found.said(here);
        let accepted = matches!(step, SearchStep::Accepted(_));
        if query.is_empty() {
            self.search = None;
            return;
        }
        self.search = Some(found);
        if accepted && here.is_none() {
            // None in this file: the next one in the PR.
            return self.go_to_match(true, ctx);
        }
        ctx.say(if accepted {
            format!("{said} · n/N next/previous match · Esc ends the search")
        } else {
            said
        });
    }

    /// `n`/`N` while a search is on: the next or previous match, in another file if it is there.
    pub(super) fn go_to_match(&mut self, forward: bool, ctx: &mut Ctx<'_>) {
        let Some(s) = &self.search else { return };
        let Some(k) = s.step((self.index, self.cursor), forward) else {
            return ctx.say(s.said(None));
        };
        let Some(&(file, line)) = s.matches.get(k) else {
            return;
        };
        let mut said = s.said(Some(k));
        if file != self.index {
            self.switch_to(file);
            if let Some(f) = self.file() {
                said.push_str(&format!(" · {}", one_line(&f.path)));
            }
        }
        if self.collapsed.take().is_some() {
            self.build();
        }
        self.move_to(line);
        ctx.say(said);
    }

    /// The prompt line: a dismissal's reason, or the search's query with its count.
    pub(super) fn prompt_line(&self, query: &str, theme: &Theme) -> Line<'static> {
        let mut spans = Vec::new();
        match &self.dismissing {
            Some((id, lesson)) => {
                spans.push(Span::styled(
                    format!(
                        "{} {}, reason: {}",
                        if *lesson {
                            "lesson for the repository from"
                        } else {
                            "dismiss"
                        },
                        one_line(id),
                        one_line(query)
                    ),
                    theme.header,
                ));
                spans.push(Span::styled("█", theme.key));
                spans.push(Span::styled("  Enter dismiss · Esc cancel", theme.dim));
            }
            None => {
                let here = self
                    .search
                    .as_ref()
                    .and_then(|s| s.index_of((self.index, self.cursor)).map(|k| (k, s)));
                let count = match (&self.search, here) {
                    (_, Some((k, s))) => format!("{} of {}", k + 1, s.matches.len()),
                    (Some(s), None) => format!("{} matches", s.matches.len()),
                    (None, _) => "search the PR's patches".to_owned(),
                };
                spans.push(Span::styled(format!("/{}", one_line(query)), theme.header));
                spans.push(Span::styled("█", theme.key));
                spans.push(Span::styled(
                    format!("  {count} · Enter search · Esc cancel"),
                    theme.dim,
                ));
            }
        }
        Line::from(spans)
    }
    /// The findings a note may be of: the latest posted review's, then the latest run's.
    pub(super) fn known_findings(&self) -> Vec<FindingMark> {
        self.load
            .findings
            .iter()
            .chain(&self.load.drafted)
            .cloned()
            .collect()
    }

    /// A key while the finding pane is open: its own keys act on the note it shows.
    pub(super) fn pane_command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) {
        let Some(pane) = &self.pane else { return };
        let half = (self.height / 2).max(1);
        let known = self.known_findings();
        let key = pane.key(cmd, self.pending.as_deref(), &known, half);
        let change = |change| Work::ChangePending {
            snapshot: Box::new((*self.snapshot).clone()),
            change,
        };
        use super::work::PendingChange;
        use PaneKey;
        match key {
            PaneKey::Close => self.pane = None,
            PaneKey::Scroll(to) => {
                if let Some(p) = self.pane.as_mut() {
                    p.scroll = to.min(self.pane_max);
                }
            }
            PaneKey::Keep(id) => ctx.work(change(PendingChange::Keep { id })),
            PaneKey::Drop(id) => ctx.work(change(PendingChange::Drop { id })),
            PaneKey::Edit(id) => {
                let Some(c) = self.pending.as_ref().and_then(|r| r.get(&id)) else {
                    return ctx.say(format!("{} is no longer pending", one_line(&id)));
                };
                let sel = LineSelection {
                    path: c.path.clone(),
                    start: c.start_line.map(|line| LineAddr { side: c.side, line }),
                    end: LineAddr {
                        side: c.side,
                        line: c.line,
                    },
                    text: Vec::new(),
                };
                let body = c.body.clone();
                self.pane = None;
                self.open_composer(super::composer::Composer::editing(id, sel, &body), ctx);
            }
            PaneKey::Dismiss(id, lesson) => {
                self.dismissing = Some((id, lesson));
                *ctx.mode = crate::tui::app::InputMode::Search {
                    query: String::new(),
                    before: 0,
                };
                ctx.say(if lesson {
                    "the lesson for the repository (why this is not a problem here): Enter records it, Esc cancels"
                } else {
                    "why dismiss it? Enter records the reason, Esc cancels"
                });
            }
            PaneKey::Say(s) => ctx.say(s),
        }
    }
    /// The selection's last patch line (the cursor's, with no selection): the composer opens
    /// under it.
    pub(super) fn selection_bottom(&self) -> usize {
        self.anchor.map_or(self.cursor, |a| a.max(self.cursor))
    }

    /// The composer under the selected lines (they stay selected while it is open).
    pub(super) fn open_composer(&mut self, c: Composer, ctx: &mut Ctx<'_>) {
        Composer::open(&mut self.composer, c, ctx);
    }
}
