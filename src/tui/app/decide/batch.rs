//! One decision on the inbox's marked PRs ([`BatchScreen`]): each PR is read as the decision
//! needs it, the list says per PR what would be done (a merge: method, head, what it goes past,
//! what stops it), one confirmation names each PR (a second one each PR whose merge goes past
//! items never shown), and the result comes back per PR: one refused does not stop the others,
//! and says why.
//!
//! ```text
//! InboxScreen ──Space/V marks, then J/Z/T/b/B/Y/ctrl-e──▶ BatchScreen ──Enter──▶ question ──y──▶ results per PR
//! ```

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::work::{BatchRead, Work};
use super::{Decision, Done};
use crate::inbox::Opener;
use crate::policy::merge::{self, short};
use crate::pr::PrCoords;
use crate::publish::decide::{MergeAsk, PrDo};
use crate::sanitize::one_line;
use crate::tui::app::action::{Action, Drawn};
use crate::tui::app::screen::{Asking, Ctx, Handled, Screen, View};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::ui::{Dialog, bordered, fit};

/// A marked PR: who it is, how it opens, the head the inbox showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    pub coords: PrCoords,
    pub open: Opener,
    pub head: String,
}

#[derive(Debug, Clone)]
enum State {
    Reading,
    Read(Result<Box<BatchRead>, String>),
    Done(Result<String, String>),
}

/// The batch's questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchAsk {
    Confirm {
        lines: Vec<String>,
        second: Vec<String>,
    },
    Past {
        lines: Vec<String>,
    },
}

#[derive(Debug)]
pub struct BatchScreen {
    what: Decision,
    prs: Vec<(Marked, State)>,
    /// Names typed (labels to add, reviewers, assignees).
    typed: String,
    ask: Asking<BatchAsk>,
    sending: bool,
    acted: bool,
    preferred: Option<merge::MergeMethod>,
}

impl BatchScreen {
    pub fn new(what: Decision, marked: Vec<Marked>, preferred: Option<merge::MergeMethod>) -> Self {
        BatchScreen {
            what,
            prs: marked.into_iter().map(|m| (m, State::Reading)).collect(),
            typed: String::new(),
            ask: Asking::default(),
            sending: false,
            acted: false,
            preferred,
        }
    }

    pub fn asked(&self) -> Option<&BatchAsk> {
        self.ask.get()
    }

    fn names(&self) -> Vec<String> {
        super::typed_names(&self.typed)
    }

    fn types(&self) -> bool {
        self.what.types()
    }

    /// What would be done to one PR read as `r`, in words, or why nothing.
    fn plan_of(&self, m: &Marked, r: &BatchRead) -> Result<(PrDo, Vec<String>), String> {
        let f = &r.read.facts.facts;
        let open = f.state.eq_ignore_ascii_case("OPEN");
        let names = self.names();
        Ok(match self.what {
            Decision::Merge => {
                let method = merge::choose_method(None, self.preferred, &f.allowed);
                let plan = merge::plan(f, Some(&m.head), method, &r.read.stakes);
                if !plan.blocked.is_empty() {
                    let why: Vec<String> = plan.blocked.iter().map(merge::Blocked::words).collect();
                    return Err(why.join("; "));
                }
                let second = plan
                    .past
                    .iter()
                    .filter(|p| p.second)
                    .map(|p| p.what.clone())
                    .collect();
                let ask = MergeAsk {
                    method,
                    head: plan.head.clone(),
                    headline: None,
                    body: None,
                };
                (
                    if plan.queue {
                        PrDo::Enqueue { head: ask.head }
                    } else {
                        PrDo::Merge(ask)
                    },
                    second,
                )
            }
            Decision::CloseReopen if f.state.eq_ignore_ascii_case("MERGED") => {
                return Err("merged: neither closed nor reopened".to_owned());
            }
            Decision::CloseReopen => (if open { PrDo::Close } else { PrDo::Reopen }, Vec::new()),
            Decision::ReadyDraft => (if f.draft { PrDo::Ready } else { PrDo::Draft }, Vec::new()),
            Decision::Labels | Decision::Reviewers | Decision::Assign if names.is_empty() => {
                return Err("type the names first".to_owned());
            }
            Decision::Labels => {
                let known = |n: &String| {
                    r.read.offline || r.read.labels.iter().any(|l| l.eq_ignore_ascii_case(n))
                };
                if let Some(unknown) = names.iter().find(|n| !known(n)) {
                    return Err(format!(
                        "the repository has no label `{}`",
                        one_line(unknown)
                    ));
                }
                (PrDo::AddLabels(names), Vec::new())
            }
            Decision::Reviewers => {
                let (teams, users): (Vec<String>, Vec<String>) =
                    names.into_iter().partition(|n| n.contains('/'));
                (PrDo::RequestReview { users, teams }, Vec::new())
            }
            Decision::Assign => (PrDo::Assign(names), Vec::new()),
            Decision::Checkout => {
                return Err("checked out one at a time: open the PR, then ctrl-g".to_owned());
            }
            Decision::Approve => {
                if !open {
                    return Err(format!("{}: not approved", f.state.to_ascii_lowercase()));
                }
                if !merge::same_commit(&m.head, &f.head) {
                    return Err(format!(
                        "moved since the inbox showed it (its head is {} now)",
                        short(&f.head)
                    ));
                }
                // An approval goes past what was never shown as a merge would.
                let second = merge::past(&r.read.stakes)
                    .into_iter()
                    .filter(|p| p.second)
                    .map(|p| p.what)
                    .collect();
                (
                    PrDo::Approve {
                        head: m.head.clone(),
                        // Sent only after this screen's confirmation was answered `y`.
                        approval: crate::publish::review::ConsoleApproval::confirmed(),
                    },
                    second,
                )
            }
            Decision::UpdateBranch => {
                if !merge::same_commit(&m.head, &f.head) {
                    return Err(format!(
                        "moved since the inbox showed it (its head is {} now)",
                        short(&f.head)
                    ));
                }
                (
                    PrDo::UpdateBranch {
                        rebase: false,
                        head: m.head.clone(),
                    },
                    Vec::new(),
                )
            }
        })
    }

    fn decide(&mut self, ctx: &mut Ctx<'_>) {
        if self.sending {
            return ctx.say("the decisions are on their way");
        }
        if self.prs.iter().any(|(_, s)| matches!(s, State::Reading)) {
            return ctx.say("still reading the marked PRs");
        }
        let mut lines = Vec::new();
        let mut second = Vec::new();
        let mut any = false;
        for (m, s) in &self.prs {
            let State::Read(Ok(r)) = s else {
                lines.push(format!("{}: skipped (not read)", m.coords));
                continue;
            };
            match self.plan_of(m, r) {
                Ok((what, past)) => {
                    any = true;
                    lines.push(format!("{}: {}", m.coords, what.words()));
                    second.extend(past.into_iter().map(|p| format!("{}: {p}", m.coords)));
                }
                Err(why) => lines.push(format!("{}: skipped: {why}", m.coords)),
            }
        }
        if !any {
            return ctx.say("nothing to do on any marked PR");
        }
        self.ask.ask(BatchAsk::Confirm { lines, second }, ctx);
    }

    fn send(&mut self, ctx: &mut Ctx<'_>) {
        let mut items = Vec::new();
        for (m, s) in &self.prs {
            if let State::Read(Ok(r)) = s
                && let Ok((what, _)) = self.plan_of(m, r)
            {
                items.push((r.snapshot.clone(), what));
            }
        }
        self.sending = true;
        ctx.say(format!("deciding {} PRs…", items.len()));
        ctx.work(Work::ActAll { items });
    }
}

impl Screen for BatchScreen {
    fn name(&self) -> &'static str {
        "batch"
    }

    fn busy(&self) -> bool {
        self.sending
    }

    fn acted(&self) -> bool {
        self.acted
    }

    fn key(&self, ev: &KeyEvent) -> Option<Action> {
        if ev
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        (self.types() && matches!(ev.code, KeyCode::Char(_) | KeyCode::Backspace))
            .then_some(Action::ScreenKey(*ev))
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        match cmd {
            KeyCommand::Toggle => self.decide(ctx),
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    fn question(&self) -> Option<Dialog> {
        self.ask.get().map(|a| match a {
            BatchAsk::Confirm { lines, second } => {
                let mut d = Dialog::yes_no(format!(
                    " {} on {} PRs? ",
                    self.what.title(),
                    self.prs.len()
                ));
                for l in lines {
                    d = d.line(one_line(l));
                }
                d.blank().line(if second.is_empty() {
                    "y does it, PR by PR · any other key cancels"
                } else {
                    "y goes on (a second question follows) · any other key cancels"
                })
            }
            BatchAsk::Past { lines } => {
                let verb = if self.what == Decision::Approve {
                    "approve"
                } else {
                    "merge"
                };
                super::past_dialog(verb, &format!("To {verb} these PRs"), lines)
            }
        })
    }

    fn answered(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        let Some(ask) = self.ask.take() else { return };
        if !yes {
            return ctx.say("nothing done");
        }
        match ask {
            BatchAsk::Confirm { second, .. } if !second.is_empty() => {
                self.ask.ask(BatchAsk::Past { lines: second }, ctx)
            }
            _ => self.send(ctx),
        }
    }

    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        ctx.work(Work::ReadAll {
            needs: self.what.needs(),
            prs: self.prs.iter().map(|(m, _)| m.open.clone()).collect(),
        });
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let done = match action {
            Action::ScreenKey(ev) => {
                match ev.code {
                    KeyCode::Char(c) => self.typed.push(c),
                    KeyCode::Backspace => {
                        self.typed.pop();
                    }
                    _ => {}
                }
                return None;
            }
            Action::Done(ref d) => match d.take::<Done>() {
                Some(done) => done,
                None => return Some(action),
            },
            other => return Some(other),
        };
        match done {
            Done::ReadAll(all) => {
                for (i, r) in all.into_iter().enumerate() {
                    if let Some((_, s)) = self.prs.get_mut(i) {
                        *s = State::Read(r);
                    }
                }
            }
            Done::ActedAll(results) => {
                self.sending = false;
                self.acted = true;
                let ok = results.iter().filter(|r| r.1.is_ok()).count();
                for (coords, r) in results {
                    if let Some((_, s)) = self.prs.iter_mut().find(|(m, _)| m.coords == coords) {
                        *s = State::Done(r);
                    }
                }
                ctx.say(format!(
                    "{ok} of {} done; each PR's result is listed",
                    self.prs.len()
                ));
            }
            _ => {}
        }
        None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let theme = view.theme;
        let [body, foot] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
        let block = bordered(
            format!(" {} · {} marked PRs ", self.what.title(), self.prs.len()),
            true,
            theme,
        );
        let inner = block.inner(body);
        frame.render_widget(block, body);
        let width = usize::from(inner.width);
        let mut lines: Vec<Line<'static>> = Vec::new();
        if self.types() {
            lines.push(Line::raw(format!(
                "{} {}▏",
                match self.what {
                    Decision::Labels => "Labels to add:",
                    Decision::Reviewers => "Reviewers:",
                    _ => "Assign:",
                },
                one_line(&self.typed)
            )));
            lines.push(Line::raw(""));
        }
        for (m, s) in &self.prs {
            let text = match s {
                State::Reading => format!("{}: reading…", m.coords),
                State::Read(Err(e)) => format!("{}: could not be read: {}", m.coords, one_line(e)),
                State::Read(Ok(r)) => match self.plan_of(m, r) {
                    Ok((what, past)) => {
                        let mut t = format!("{}: {}", m.coords, what.words());
                        if let PrDo::Merge(_) | PrDo::Enqueue { .. } = what {
                            let plan = merge::plan(
                                &r.read.facts.facts,
                                Some(&m.head),
                                merge::choose_method(
                                    None,
                                    self.preferred,
                                    &r.read.facts.facts.allowed,
                                ),
                                &r.read.stakes,
                            );
                            let stated: Vec<String> = plan
                                .past
                                .iter()
                                .filter(|p| !p.second)
                                .map(|p| p.what.clone())
                                .collect();
                            if !stated.is_empty() {
                                t.push_str(&format!(" · past: {}", stated.join(", ")));
                            }
                        }
                        if !past.is_empty() {
                            t.push_str(&format!(" · ⚠ {}", past.join(", ")));
                        }
                        t
                    }
                    Err(why) => format!("{}: skipped: {why}", m.coords),
                },
                State::Done(Ok(said)) => format!("{}: ✓ {}", m.coords, one_line(said)),
                State::Done(Err(e)) => format!("{}: ✗ {}", m.coords, one_line(e)),
            };
            lines.push(fit(Line::raw(text), width));
        }
        frame.render_widget(Paragraph::new(lines), inner);
        let keys = if self.types() {
            "type names · Enter decide (asks first) · Esc back"
        } else {
            "Enter decide (asks first, naming each PR) · Esc back"
        };
        let foot_line = match (view.mode, view.notice) {
            (crate::tui::app::dialogs::InputMode::Normal, Some(n)) => {
                Line::styled(one_line(n), theme.notice)
            }
            _ => Line::styled(keys.to_owned(), theme.dim),
        };
        frame.render_widget(
            Paragraph::new(fit(foot_line, usize::from(foot.width))),
            foot,
        );
        Drawn {
            list_area: inner,
            ..Drawn::default()
        }
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        vec![
            (
                keymap.keys_label(KeyCommand::Toggle),
                "decide on every marked PR (asks first, naming each)".to_owned(),
            ),
            (
                keymap.keys_label(KeyCommand::Back),
                "back to the inbox (nothing done)".to_owned(),
            ),
        ]
    }
}
