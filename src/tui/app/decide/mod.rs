//! Deciding a PR in the console ([`DecideScreen`]): merge, close or reopen, ready or draft,
//! labels, reviewers, assignees, update branch — each one key on the PR screen, one screen that
//! reads the PR as the decision needs it (GitHub's facts now, the stakes from the state dir) and
//! one confirmation. A merge carries the head the PR screen showed and no other, names the
//! method and what it goes past, and asks a second time before going past what was never shown
//! or is unsent. Offline everything goes to the action outbox: "recorded offline, not sent".
//!
//! ```text
//! PrScreen ──J/Z/T/b/B/Y/ctrl-e──▶ DecideScreen ──Enter──▶ question (──y──▶ second question) ──y──▶ done
//! ```

pub mod batch;
mod draw;
pub mod work;

use std::collections::BTreeSet;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::action::{Action, Drawn};
use super::dialogs::InputMode;
use super::screen::{Asking, Ctx, Handled, Screen, View};
use crate::policy::merge::{self, MergeMethod, MergePlan, short};
use crate::pr::Snapshot;
use crate::publish::decide::{MergeAsk, PrDo};
use crate::sanitize::one_line;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::ui::Dialog;
pub use work::{DecideRead, Done, Work};

/// What the screen decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Merge,
    CloseReopen,
    ReadyDraft,
    Labels,
    Reviewers,
    Assign,
    UpdateBranch,
    /// Marked inbox rows only: approve each (one PR is approved from its pending review).
    Approve,
    /// The PR's head in a worktree beside `[code] checkout`.
    Checkout,
}

impl Decision {
    /// The PR screen's command that opens it.
    pub fn of(cmd: KeyCommand) -> Option<Decision> {
        Some(match cmd {
            KeyCommand::Merge => Decision::Merge,
            KeyCommand::CloseReopen => Decision::CloseReopen,
            KeyCommand::ReadyDraft => Decision::ReadyDraft,
            KeyCommand::Labels => Decision::Labels,
            KeyCommand::Reviewers => Decision::Reviewers,
            KeyCommand::Assign => Decision::Assign,
            KeyCommand::UpdateBranch => Decision::UpdateBranch,
            KeyCommand::Approve => Decision::Approve,
            KeyCommand::Checkout => Decision::Checkout,
            _ => return None,
        })
    }

    fn title(self) -> &'static str {
        match self {
            Decision::Merge => "merge",
            Decision::CloseReopen => "close / reopen",
            Decision::ReadyDraft => "ready / draft",
            Decision::Labels => "labels",
            Decision::Reviewers => "request a review",
            Decision::Assign => "assign",
            Decision::UpdateBranch => "update branch",
            Decision::Approve => "approve",
            Decision::Checkout => "check out",
        }
    }

    /// The labels for the picker, the code owners for reviewers.
    pub(super) fn needs(self) -> work::Needs {
        work::Needs {
            labels: self == Decision::Labels,
            owners: self == Decision::Reviewers,
        }
    }

    /// Keys typed go into a text field (a filter, names).
    pub(super) fn types(self) -> bool {
        matches!(
            self,
            Decision::Labels | Decision::Reviewers | Decision::Assign
        )
    }
}

#[derive(Debug, Clone)]
enum Reading {
    Pending,
    Failed(String),
    Read(Box<DecideRead>),
}

/// The text being written in the house editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// The merge commit's headline and body (the first line is the headline).
    Message,
    /// The comment posted before a close or a reopen.
    Comment,
}

/// The screen's questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecideAsk {
    /// The decision, in words, before anything is sent.
    Confirm {
        title: String,
        lines: Vec<String>,
        what: PrDo,
        /// Done after `what` (the removals after the additions of labels).
        then: Option<PrDo>,
        comment: Option<String>,
        /// What needs the second yes (never shown, unsent); empty: none.
        second: Vec<String>,
    },
    /// The second yes: going past what was never shown or is unsent.
    Past { lines: Vec<String>, what: PrDo },
}

impl DecideAsk {
    pub fn dialog(&self) -> Dialog {
        match self {
            DecideAsk::Confirm {
                title,
                lines,
                second,
                ..
            } => {
                let mut d = Dialog::yes_no(format!(" {title} "));
                for l in lines {
                    d = d.line(l.clone());
                }
                d.blank().line(if second.is_empty() {
                    "y does it · any other key cancels"
                } else {
                    "y goes on (a second question follows) · any other key cancels"
                })
            }
            DecideAsk::Past { lines, .. } => past_dialog("merge", "This merge", lines),
        }
    }
}

#[derive(Debug)]
pub struct DecideScreen {
    snapshot: Arc<Snapshot>,
    what: Decision,
    read: Reading,
    /// The method chosen with m/s/r (else the config's, else the first allowed).
    method: Option<MergeMethod>,
    preferred: Option<MergeMethod>,
    /// Update branch: rebase instead of merging the base in.
    rebase: bool,
    /// The merge commit's message as written (headline, blank line, body); `None`: GitHub's.
    message: Option<String>,
    comment: String,
    /// Labels: the filter typed; reviewers and assignees: the names typed.
    typed: String,
    selected: usize,
    /// Labels to add (not on the PR) or remove (on it).
    flipped: BTreeSet<String>,
    editing: Option<(Field, ratatui_textarea::TextArea<'static>)>,
    /// What the question being built does after its first decision.
    then: Option<PrDo>,
    /// The clone a confirmed check out fetches into (asked for, not yet done).
    checkout: Option<std::path::PathBuf>,
    ask: Asking<DecideAsk>,
    sending: bool,
    /// Something was done (the screen below reads the PR again once this one is left).
    acted: bool,
}

/// Opens the decision `what` on `snapshot`'s PR above the screen asking.
pub fn open_decide(snapshot: &Snapshot, what: Decision, ctx: &mut Ctx<'_>) {
    let preferred = ctx.session.merge_method;
    ctx.open(Box::new(DecideScreen::new(
        Arc::new(snapshot.clone()),
        what,
        preferred,
    )));
}

impl DecideScreen {
    pub fn new(snapshot: Arc<Snapshot>, what: Decision, preferred: Option<MergeMethod>) -> Self {
        DecideScreen {
            snapshot,
            what,
            read: Reading::Pending,
            method: None,
            preferred,
            rebase: false,
            message: None,
            comment: String::new(),
            typed: String::new(),
            selected: 0,
            flipped: BTreeSet::new(),
            editing: None,
            then: None,
            checkout: None,
            ask: Asking::default(),
            sending: false,
            acted: false,
        }
    }

    /// What this decision reads beside the PR's facts.
    fn needs(&self) -> work::Needs {
        self.what.needs()
    }

    /// The screen's question, while its dialog is open.
    pub fn asked(&self) -> Option<&DecideAsk> {
        self.ask.get()
    }

    fn read(&self) -> Option<&DecideRead> {
        match &self.read {
            Reading::Read(r) => Some(r),
            _ => None,
        }
    }

    fn method(&self) -> MergeMethod {
        let allowed = self
            .read()
            .map(|r| r.facts.facts.allowed.clone())
            .unwrap_or_default();
        merge::choose_method(self.method, self.preferred, &allowed)
    }

    /// The merge as it stands: at the head shown, with the method chosen.
    fn plan(&self) -> Option<MergePlan> {
        let r = self.read()?;
        Some(merge::plan(
            &r.facts.facts,
            Some(&self.snapshot.pr.head_sha),
            self.method(),
            &r.stakes,
        ))
    }

    /// The labels listed: the repository's, matching the filter, the PR's first.
    fn labels(&self) -> Vec<(String, bool)> {
        let Some(r) = self.read() else {
            return Vec::new();
        };
        let on = |n: &str| {
            self.snapshot
                .pr
                .labels
                .iter()
                .any(|l| l.eq_ignore_ascii_case(n))
        };
        let f = self.typed.to_lowercase();
        let mut all: Vec<(String, bool)> = r
            .labels
            .iter()
            .chain(self.snapshot.pr.labels.iter())
            .filter(|n| n.to_lowercase().contains(&f))
            .map(|n| (n.clone(), on(n)))
            .collect();
        all.sort_by_key(|(n, on)| (!*on, n.to_lowercase()));
        all.dedup_by(|a, b| a.0.eq_ignore_ascii_case(&b.0));
        // Offline a fixture knows no repository labels but the PR's: the name typed can be
        // recorded too (never sent). Live only the repository's own are offered.
        let typed = self.typed.trim();
        if r.offline && !typed.is_empty() && !all.iter().any(|(n, _)| n.eq_ignore_ascii_case(typed))
        {
            all.push((typed.to_owned(), false));
        }
        all
    }

    fn names(&self) -> Vec<String> {
        typed_names(&self.typed)
    }

    fn key_typed(&mut self, ev: KeyEvent, ctx: &mut Ctx<'_>) {
        let KeyCode::Char(c) = ev.code else {
            if ev.code == KeyCode::Backspace {
                self.typed.pop();
                self.selected = 0;
            }
            return;
        };
        match (self.what, c) {
            (Decision::Merge, 'm' | 's' | 'r') => {
                let m = MergeMethod::parse(&c.to_string()).unwrap_or(MergeMethod::Merge);
                let allowed = self
                    .read()
                    .map(|r| r.facts.facts.allowed.clone())
                    .unwrap_or_default();
                if self.read().is_some() && !allowed.contains(&m) {
                    return ctx.say(format!("the repository does not allow {}", m.words()));
                }
                self.method = Some(m);
            }
            (Decision::Merge, 'e') => {
                let text = self
                    .message
                    .clone()
                    .unwrap_or_else(|| self.default_message());
                self.edit(Field::Message, &text, ctx);
            }
            (Decision::Merge, 'a') => self.ask_auto(ctx),
            (Decision::CloseReopen, 'e') => {
                let text = self.comment.clone();
                self.edit(Field::Comment, &text, ctx);
            }
            (Decision::UpdateBranch, 'm') => self.rebase = false,
            (Decision::UpdateBranch, 'r') => self.rebase = true,
            (Decision::Labels, ' ') => {
                if let Some((name, _)) = self.labels().get(self.selected).cloned()
                    && !self.flipped.remove(&name)
                {
                    self.flipped.insert(name);
                }
            }
            (w, c) if w.types() => {
                self.typed.push(c);
                self.selected = 0;
            }
            _ => {}
        }
    }

    /// GitHub's default message for the method (squash: the title with (#N) and the commits).
    fn default_message(&self) -> String {
        let Some(r) = self.read() else {
            return String::new();
        };
        let (h, b) = match self.method() {
            MergeMethod::Squash => &r.facts.squash_message,
            _ => &r.facts.merge_message,
        };
        if b.is_empty() {
            h.clone()
        } else {
            format!("{h}\n\n{b}")
        }
    }

    fn edit(&mut self, field: Field, text: &str, ctx: &mut Ctx<'_>) {
        self.editing = Some((
            field,
            crate::tui::editor::area(&crate::sanitize::sanitize(text)),
        ));
        *ctx.mode = InputMode::Edit;
    }

    fn edited(&mut self, text: String) {
        let Some((field, _)) = self.editing.take() else {
            return;
        };
        match field {
            Field::Message => {
                self.message = (!text.trim().is_empty()).then_some(text);
            }
            Field::Comment => self.comment = text,
        }
    }

    /// Enter: the question for the decision as it stands, or why it cannot be made.
    fn decide(&mut self, ctx: &mut Ctx<'_>) {
        if self.sending {
            return ctx.say("the decision is on its way");
        }
        let r = match &self.read {
            Reading::Pending => return ctx.say("still reading the PR"),
            Reading::Failed(e) => return ctx.say(format!("the PR could not be read: {e}")),
            Reading::Read(r) => r.clone(),
        };
        let pr = format!(
            "{}/{}#{}",
            one_line(&self.snapshot.pr.owner),
            one_line(&self.snapshot.pr.repo),
            self.snapshot.pr.number
        );
        let f = &r.facts.facts;
        let open = f.state.eq_ignore_ascii_case("OPEN");
        let dest = if r.offline {
            "To: the outbox (offline: recorded, not sent)".to_owned()
        } else {
            "To: GitHub".to_owned()
        };
        let (title, what, mut lines, comment, second) = match self.what {
            Decision::Approve => {
                return ctx.say("one PR is approved from its pending review: P, then Ctrl-a");
            }
            Decision::Checkout => {
                let Some(repo) = ctx.session.checkout.clone() else {
                    return ctx.say(
                        "set `checkout` under [code] in the config to a clone of the repository",
                    );
                };
                let dir = crate::code::worktree_dir(&repo, self.snapshot.pr.number);
                let ask = DecideAsk::Confirm {
                    title: "Check out the PR's head?".to_owned(),
                    lines: vec![
                        format!("PR: {pr}"),
                        format!("Head: {}", short(&self.snapshot.pr.head_sha)),
                        format!(
                            "Into: {} (a worktree of {}; one with changes is never touched)",
                            one_line(&dir.display().to_string()),
                            one_line(&repo.display().to_string())
                        ),
                    ],
                    what: PrDo::Close,
                    then: None,
                    comment: None,
                    second: Vec::new(),
                };
                self.checkout = Some(repo);
                return self.ask.ask(ask, ctx);
            }
            Decision::Merge => {
                let Some(plan) = self.plan() else { return };
                if !plan.blocked.is_empty() {
                    let mut why: Vec<String> =
                        plan.blocked.iter().map(merge::Blocked::words).collect();
                    if plan.only_protection() && f.auto_merge_allowed {
                        why.push("a arms auto-merge at this head instead".to_owned());
                    }
                    return ctx.say(format!("nothing to merge: {}", why.join("; ")));
                }
                let (headline, body) = self.split_message();
                let ask = MergeAsk {
                    method: plan.method,
                    head: plan.head.clone(),
                    headline,
                    body,
                };
                let what = if plan.queue {
                    PrDo::Enqueue { head: ask.head }
                } else {
                    PrDo::Merge(ask)
                };
                let mut lines = vec![
                    format!("PR: {pr}"),
                    format!(
                        "Method: {}{}",
                        plan.method.words(),
                        if plan.queue {
                            " (through the merge queue)"
                        } else {
                            ""
                        }
                    ),
                    format!("Head: {} (the head shown)", short(&plan.head)),
                ];
                let stated: Vec<&merge::Past> = plan.past.iter().filter(|p| !p.second).collect();
                if !stated.is_empty() {
                    lines.push("Goes past:".to_owned());
                    lines.extend(stated.iter().map(|p| format!("· {}", p.what)));
                }
                let second: Vec<String> = plan
                    .past
                    .iter()
                    .filter(|p| p.second)
                    .map(|p| p.what.clone())
                    .collect();
                (
                    if plan.queue {
                        "Add to the merge queue?".to_owned()
                    } else {
                        "Merge?".to_owned()
                    },
                    what,
                    lines,
                    None,
                    second,
                )
            }
            Decision::CloseReopen => {
                let what = if open { PrDo::Close } else { PrDo::Reopen };
                if f.state.eq_ignore_ascii_case("MERGED") {
                    return ctx.say("the PR is merged: it can be neither closed nor reopened");
                }
                let comment = (!self.comment.trim().is_empty()).then(|| self.comment.clone());
                let mut lines = vec![format!("PR: {pr}")];
                if let Some(c) = &comment {
                    lines.push(format!(
                        "First the comment: {}",
                        one_line(c.lines().next().unwrap_or_default())
                    ));
                }
                (
                    format!("{}?", if open { "Close" } else { "Reopen" }),
                    what,
                    lines,
                    comment,
                    Vec::new(),
                )
            }
            Decision::ReadyDraft => {
                let what = if f.draft { PrDo::Ready } else { PrDo::Draft };
                (
                    if f.draft {
                        "Mark ready for review?".to_owned()
                    } else {
                        "Convert to a draft?".to_owned()
                    },
                    what,
                    vec![format!("PR: {pr}")],
                    None,
                    Vec::new(),
                )
            }
            Decision::Labels => {
                if self.flipped.is_empty() {
                    return ctx.say("Space marks a label to add or remove; nothing marked");
                }
                let on = |n: &String| {
                    self.snapshot
                        .pr
                        .labels
                        .iter()
                        .any(|l| l.eq_ignore_ascii_case(n))
                };
                let (remove, add): (Vec<String>, Vec<String>) =
                    self.flipped.iter().cloned().partition(on);
                let mut lines = vec![format!("PR: {pr}")];
                if !add.is_empty() {
                    lines.push(format!("Add: {}", add.join(", ")));
                }
                if !remove.is_empty() {
                    lines.push(format!("Remove: {}", remove.join(", ")));
                }
                // One question for both; the additions go first.
                let (what, then) = match (add.is_empty(), remove.is_empty()) {
                    (true, _) => (PrDo::RemoveLabels(remove), None),
                    (false, true) => (PrDo::AddLabels(add), None),
                    (false, false) => (PrDo::AddLabels(add), Some(PrDo::RemoveLabels(remove))),
                };
                self.then = then;
                (
                    "Change the labels?".to_owned(),
                    what,
                    lines,
                    None,
                    Vec::new(),
                )
            }
            Decision::Reviewers | Decision::Assign => {
                let names = self.names();
                if names.is_empty() {
                    return ctx.say("type logins (or ORG/TEAM for a review), then Enter");
                }
                let what = if self.what == Decision::Assign {
                    PrDo::Assign(names)
                } else {
                    let (teams, users): (Vec<String>, Vec<String>) =
                        names.into_iter().partition(|n| n.contains('/'));
                    PrDo::RequestReview { users, teams }
                };
                (
                    format!("{}?", capitalised(&what.words())),
                    what,
                    vec![format!("PR: {pr}")],
                    None,
                    Vec::new(),
                )
            }
            Decision::UpdateBranch => {
                if !crate::policy::merge::same_commit(&self.snapshot.pr.head_sha, &f.head) {
                    return ctx.say(format!(
                        "the PR moved since you looked (its head is {} now): refresh and read it first",
                        short(&f.head)
                    ));
                }
                let what = PrDo::UpdateBranch {
                    rebase: self.rebase,
                    head: self.snapshot.pr.head_sha.clone(),
                };
                (
                    "Update the branch?".to_owned(),
                    what,
                    vec![
                        format!("PR: {pr}"),
                        format!(
                            "How: {}",
                            if self.rebase {
                                "rebase the PR's commits on the base (rewrites them)"
                            } else {
                                "merge the base into the branch"
                            }
                        ),
                        format!(
                            "Head: {} (the head shown)",
                            short(&self.snapshot.pr.head_sha)
                        ),
                    ],
                    None,
                    Vec::new(),
                )
            }
        };
        lines.push(dest);
        let ask = DecideAsk::Confirm {
            title,
            lines,
            what,
            then: self.then.take(),
            comment,
            second,
        };
        self.ask.ask(ask, ctx);
    }

    /// `a`: auto-merge at the head shown, when only protection stands in the way.
    fn ask_auto(&mut self, ctx: &mut Ctx<'_>) {
        let (Some(r), Some(plan)) = (self.read().cloned(), self.plan()) else {
            return ctx.say("still reading the PR");
        };
        if !r.facts.facts.auto_merge_allowed {
            return ctx.say("the repository does not allow auto-merge");
        }
        let others: Vec<String> = plan
            .blocked
            .iter()
            .filter(|b| !b.waits_for_protection())
            .map(merge::Blocked::words)
            .collect();
        if !others.is_empty() {
            return ctx.say(format!("no auto-merge: {}", others.join("; ")));
        }
        let (headline, body) = self.split_message();
        let what = PrDo::AutoMerge(MergeAsk {
            method: plan.method,
            head: plan.head.clone(),
            headline,
            body,
        });
        let second = plan
            .past
            .iter()
            .filter(|p| p.second)
            .map(|p| p.what.clone())
            .collect();
        let ask = DecideAsk::Confirm {
            title: "Arm auto-merge?".to_owned(),
            lines: vec![
                format!("Method: {}", plan.method.words()),
                format!(
                    "Head: {} (the head shown): GitHub merges it once protection allows, never another",
                    short(&plan.head)
                ),
            ],
            what,
            then: None,
            comment: None,
            second,
        };
        self.ask.ask(ask, ctx);
    }

    fn split_message(&self) -> (Option<String>, Option<String>) {
        let Some(m) = &self.message else {
            return (None, None);
        };
        let mut lines = m.lines();
        let headline = lines.next().map(|h| h.trim().to_owned());
        let body = lines.collect::<Vec<_>>().join("\n").trim().to_owned();
        (headline, (!body.is_empty()).then_some(body))
    }

    fn send(&mut self, what: Vec<PrDo>, comment: Option<String>, ctx: &mut Ctx<'_>) {
        self.sending = true;
        if let Some(first) = what.first() {
            ctx.say(format!("{}…", first.words()));
        }
        ctx.work(Work::Act {
            snapshot: self.snapshot.clone(),
            what,
            comment,
        });
    }
}

/// The second question, the same for one PR and for marked ones: `verb` ("merge",
/// "approve") goes past `lines` (what was never shown, what is unsent); `whose` starts the
/// warning ("This merge").
pub(super) fn past_dialog(verb: &str, whose: &str, lines: &[String]) -> Dialog {
    let mut d = Dialog::yes_no(format!(
        " {} past what you have not seen? ",
        capitalised(verb)
    ))
    .warning(format!("{whose} goes past:"));
    for l in lines {
        d = d.line(format!("· {}", one_line(l)));
    }
    d.blank().line(format!(
        "y {verb}s anyway · any other key cancels (read them first)"
    ))
}

/// Logins or names typed with spaces or commas between, an `@` before each or not.
pub(super) fn typed_names(typed: &str) -> Vec<String> {
    typed
        .split([' ', ','])
        .map(|n| n.trim().trim_start_matches('@').to_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

pub(super) fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

impl Screen for DecideScreen {
    fn name(&self) -> &'static str {
        "decide"
    }

    fn subject(&self) -> Option<crate::pr::PrCoords> {
        None
    }

    fn busy(&self) -> bool {
        self.sending
    }

    fn activity(&self) -> Option<String> {
        self.sending.then(|| format!("{}…", self.what.title()))
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
        let own = match (self.what, ev.code) {
            (w, KeyCode::Char(_) | KeyCode::Backspace) if w.types() => true,
            (Decision::Merge, KeyCode::Char('m' | 's' | 'r' | 'e' | 'a')) => true,
            (Decision::CloseReopen, KeyCode::Char('e')) => true,
            (Decision::UpdateBranch, KeyCode::Char('m' | 'r')) => true,
            _ => false,
        };
        own.then_some(Action::ScreenKey(*ev))
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        match cmd {
            KeyCommand::Toggle => self.decide(ctx),
            KeyCommand::Focus if self.what == Decision::Reviewers => {
                // Tab: the code owners not typed yet.
                let owners = self.read().map(|r| r.owners.clone()).unwrap_or_default();
                let typed = self.names();
                let more: Vec<String> = owners
                    .into_iter()
                    .filter(|o| !typed.iter().any(|t| t.eq_ignore_ascii_case(o)))
                    .collect();
                if more.is_empty() {
                    ctx.say("no code owner to add (CODEOWNERS names none of the changed files, or all are typed)");
                } else {
                    let sep = if self.typed.trim().is_empty() {
                        ""
                    } else {
                        " "
                    };
                    self.typed = format!("{}{sep}{}", self.typed.trim_end(), more.join(" "));
                }
            }
            KeyCommand::Down => {
                self.selected = (self.selected + 1).min(self.labels().len().saturating_sub(1))
            }
            KeyCommand::Up => self.selected = self.selected.saturating_sub(1),
            KeyCommand::Refresh => {
                self.read = Reading::Pending;
                ctx.work(Work::Read {
                    snapshot: self.snapshot.clone(),
                    needs: self.needs(),
                });
            }
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    fn dialog(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        match action {
            Action::EditKey(ev) => {
                if let Some((_, e)) = self.editing.as_mut() {
                    if crate::tui::editor::is_external_key(&ev) {
                        ctx.fx.push(super::effect::Effect::ExternalEdit {
                            target: super::action::EditTarget::Decide,
                            text: e.lines().join("\n"),
                        });
                        return;
                    }
                    crate::tui::editor::input(e, ev);
                }
            }
            Action::EditDone => {
                *ctx.mode = InputMode::Normal;
                let text = self
                    .editing
                    .as_ref()
                    .map(|(_, e)| e.lines().join("\n"))
                    .unwrap_or_default();
                self.edited(text);
            }
            _ => {}
        }
    }

    fn question(&self) -> Option<Dialog> {
        self.ask.get().map(DecideAsk::dialog)
    }

    fn answered(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        let Some(ask) = self.ask.take() else { return };
        if !yes {
            self.checkout = None;
            return ctx.say("nothing done");
        }
        if let Some(repo) = self.checkout.take() {
            self.sending = true;
            ctx.say("checking out…");
            return ctx.work(Work::Checkout {
                repo,
                snapshot: self.snapshot.clone(),
            });
        }
        match ask {
            DecideAsk::Confirm {
                what,
                then,
                comment,
                second,
                ..
            } => {
                if second.is_empty() {
                    self.send(std::iter::once(what).chain(then).collect(), comment, ctx);
                } else {
                    self.ask.ask(
                        DecideAsk::Past {
                            lines: second,
                            what,
                        },
                        ctx,
                    );
                }
            }
            DecideAsk::Past { what, .. } => self.send(vec![what], None, ctx),
        }
    }

    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        ctx.work(Work::Read {
            snapshot: self.snapshot.clone(),
            needs: self.needs(),
        });
    }

    fn snapshot(&self) -> Option<&Snapshot> {
        Some(&self.snapshot)
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let done = match action {
            Action::ScreenKey(ev) => {
                self.key_typed(ev, ctx);
                return None;
            }
            Action::ExternallyEdited {
                target: super::action::EditTarget::Decide,
                result,
            } => {
                *ctx.mode = InputMode::Normal;
                match result {
                    Ok(text) => self.edited(text),
                    Err(e) => {
                        self.editing = None;
                        ctx.say(format!("the editor failed: {}", one_line(&e)));
                    }
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
            Done::ReadAll(_) | Done::ActedAll(_) => {}
            Done::Read(Ok(r)) => self.read = Reading::Read(r),
            Done::Read(Err(e)) => self.read = Reading::Failed(e),
            Done::Acted(result) => {
                self.sending = false;
                match result {
                    Ok(said) => {
                        self.acted = true;
                        self.flipped.clear();
                        self.typed.clear();
                        self.comment.clear();
                        ctx.say(one_line(&said));
                        // What GitHub (or the outbox) says now.
                        ctx.work(Work::Read {
                            snapshot: self.snapshot.clone(),
                            needs: self.needs(),
                        });
                    }
                    Err(e) => ctx.say(format!("not done: {}", one_line(&e))),
                }
            }
        }
        None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        draw::draw(frame, area, self, view)
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        let mut out = vec![(
            keymap.keys_label(KeyCommand::Toggle),
            "decide (asks first)".to_owned(),
        )];
        let own: &[(&str, &str)] = match self.what {
            Decision::Merge => &[
                (
                    "m / s / r",
                    "merge commit / squash / rebase (the ones the repository allows)",
                ),
                ("e", "edit the commit's message (ctrl-o: $VISUAL/$EDITOR)"),
                (
                    "a",
                    "arm auto-merge at the head shown, when protection stands in the way",
                ),
            ],
            Decision::CloseReopen => &[("e", "write a comment posted first (optional)")],
            Decision::UpdateBranch => &[("m / r", "merge the base in / rebase on it")],
            Decision::Labels => &[
                ("type", "filter the labels"),
                ("↑/↓", "choose a label"),
                ("Space", "mark the label to add (or, on the PR, to remove)"),
            ],
            Decision::Reviewers => &[
                ("type", "logins (ORG/TEAM for a team), space between"),
                (
                    "Tab",
                    "add the code owners of the changed files (CODEOWNERS)",
                ),
            ],
            Decision::Assign => &[("type", "logins, space between")],
            Decision::ReadyDraft | Decision::Approve | Decision::Checkout => &[],
        };
        out.extend(own.iter().map(|(k, w)| ((*k).to_owned(), (*w).to_owned())));
        out.push((
            keymap.keys_label(KeyCommand::Refresh),
            "read the PR again".to_owned(),
        ));
        out.push((
            keymap.keys_label(KeyCommand::Back),
            "back to the PR (nothing done)".to_owned(),
        ));
        out
    }
}
