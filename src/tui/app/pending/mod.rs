//! The pending review screen: the maintainer's line comments and suggestions, and Shepherd's
//! findings as drafts on their lines, until they are submitted as one GitHub review.
//!
//! - **the composer**: [`compose_line_comment`] opens this screen with a [`LineSelection`]
//!   (a line, or a range on one side) and the editor on it — a comment, or a
//!   ```` ```suggestion ```` block prefilled with the lines; `Esc` adds it (saved at once). The
//!   diff writes its comments beside the code with a composer of its own (`code/composer.rs`);
//!   both add to the same pending review;
//! - **the list**: each comment with its place, kind and state; `Enter` keeps a finding's draft,
//!   `e` edits, `d` drops a draft (or deletes an own comment); `F` folds comments whose line left
//!   the diff (or whose lines changed) into the review's body; a comment written at an earlier
//!   head shows whether its lines moved, changed (outdated: `Enter` keeps it at its new place)
//!   or left the diff;
//! - **submit**: `p` as a comment, `X` requesting changes, `ctrl-a` approving (a key no other
//!   screen uses: `A` is the PR screen's aspects) — each first opens the editor on the review's
//!   summary body (empty; `ctrl-t` swaps in the Shepherd summary, the PR's review draft, and
//!   back), then asks, with a confirmation that names it. Approving exists only here: the
//!   confirmation is the only place a [`ConsoleApproval`] is made.
//!
//! The screen is pure: it reads and saves the pending review and submits it through its own
//! effects ([`Work`], in `work.rs`: its I/O edge, performed by the effect runner), whose results
//! come back to it as [`Done`].

mod ask;
mod draw;
pub mod work;

pub use work::{Done, Work};

pub use ask::{Ask, SubmitAs, SubmitAsk};

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui_textarea::TextArea;

use super::App;
use super::action::{Action, Drawn};
use super::dialogs::InputMode;
use super::screen::{Asking, Ctx, Handled, Screen, View};
use crate::code::LineSelection;
use crate::code::pending::{PendingReview, suggestion_body};
use crate::pr::{PrCoords, Snapshot};
use crate::publish::review::{ConsoleApproval, Event, fold_into_body, lines_gone, moved, outdated};
use crate::review::results::inline::parsed_patches;
use crate::sanitize::{one_line, sanitize};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::ui::Dialog;

/// What the editor is writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PendingEdit {
    /// A new comment (or suggestion) on a selection from the diff.
    New {
        sel: LineSelection,
        suggestion: bool,
    },
    /// An existing comment, by id.
    Existing(String),
    /// The review's summary body, before the submission is asked for as `SubmitAs`.
    Body(SubmitAs),
}

/// The key that swaps the body editor's text between empty and the Shepherd summary.
pub const SWAP_SUMMARY_KEY: &str = "ctrl-t";

fn is_swap_summary_key(ev: &KeyEvent) -> bool {
    ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('t')
}

/// The editor open on a comment.
#[derive(Debug, Clone)]
pub struct Editing {
    pub target: PendingEdit,
    pub editor: TextArea<'static>,
}

impl Editing {
    pub fn text(&self) -> String {
        self.editor.lines().join("\n")
    }
}

/// The pending review of one PR.
#[derive(Debug)]
pub struct PendingScreen {
    snapshot: Snapshot,
    /// `None` until it is read from the ledger.
    review: Option<PendingReview>,
    load_asked: bool,
    selected: usize,
    /// How far the selected comment's text is scrolled (`Ctrl-d`/`Ctrl-u`), and how far it can
    /// be (from the last frame).
    comment_scroll: usize,
    comment_max: usize,
    comment_half: usize,
    editing: Option<Editing>,
    /// A composer to open once the review is read: on these lines, a suggestion or not, and
    /// the text it starts with (`None`: empty, or a suggestion's lines).
    queued: Option<(LineSelection, bool, Option<String>)>,
    submitting: bool,
    /// The last submission, in words.
    submitted: Option<String>,
    /// The Shepherd summary (the PR's review draft), read with the pending review.
    summary: Option<String>,
    /// The question this screen asked, while its dialog is open.
    ask: Asking<Ask>,
    /// How `Enter` opens a comment's diff (given by the screen that opens this one; none: said).
    open_diff: Option<OpenDiff>,
    /// The body's text before `ctrl-t` swapped the Shepherd summary in (swapped back by it).
    before_swap: Option<String>,
    /// The reviews this screen submitted, as sent (the PR screen shows them until read back).
    sent: Vec<crate::ledger::Sent>,
    /// The comments they took, shown here as sent (queued offline, or on GitHub).
    sent_comments: Vec<(crate::code::pending::PendingComment, bool)>,
}

/// How the pending review opens the diff of a file at a line of a side (`code::diff_at`, given
/// by the PR screen, so this screen need not know the code screens); `None`: the PR does not
/// change that file.
pub type OpenDiff = fn(&Snapshot, &str, crate::code::patch::Side, u32) -> Option<Box<dyn Screen>>;

/// How many of the review's findings' drafts are still to decide.
pub fn undecided(review: &PendingReview) -> usize {
    review
        .comments
        .iter()
        .filter(|c| c.state == crate::code::pending::DraftState::Proposed)
        .count()
}

/// The console entry point of the diff view: a comment (or with `suggestion` a suggestion) on
/// `sel` of the PR in `snapshot`, in the editor, over the pending review screen.
pub fn compose_line_comment(
    snapshot: &Snapshot,
    sel: LineSelection,
    suggestion: bool,
) -> Box<dyn Screen> {
    let mut s = PendingScreen::new(snapshot.clone());
    s.queued = Some((sel, suggestion, None));
    Box::new(s)
}

impl PendingScreen {
    pub fn new(snapshot: Snapshot) -> PendingScreen {
        PendingScreen {
            snapshot,
            review: None,
            load_asked: false,
            selected: 0,
            comment_scroll: 0,
            comment_max: 0,
            comment_half: 1,
            editing: None,
            queued: None,
            submitting: false,
            submitted: None,
            summary: None,
            ask: Asking::default(),
            open_diff: None,
            before_swap: None,
            sent: Vec::new(),
            sent_comments: Vec::new(),
        }
    }

    /// The comments submitted from this screen: each with whether it went to GitHub (else it
    /// is queued in the outbox).
    pub fn sent_comments(&self) -> &[(crate::code::pending::PendingComment, bool)] {
        &self.sent_comments
    }

    /// `Enter` on a comment opens its diff with `f` (see [`OpenDiff`]).
    pub fn opening_diffs(mut self, f: OpenDiff) -> PendingScreen {
        self.open_diff = Some(f);
        self
    }

    /// The selected comment's diff, the cursor on its line (a range: its last line) on its side;
    /// a line no longer in the diff is said there.
    fn open_diff_of_selected(&mut self, ctx: &mut Ctx<'_>) {
        let Some(c) = self
            .review
            .as_ref()
            .and_then(|r| r.comments.get(self.selected))
        else {
            return ctx.say("no pending comment selected");
        };
        let Some(open) = self.open_diff else {
            // The composer's review, opened from a diff: that diff is one Esc away.
            return ctx.say(
                "Esc goes back to the diff; Enter opens a comment's diff from the PR screen's P",
            );
        };
        match open(&self.snapshot, &c.path, c.side, c.line) {
            Some(diff) => ctx.open(diff),
            None => ctx.say(format!(
                "{} is no longer among the PR's changed files",
                one_line(&c.path)
            )),
        }
    }

    /// The question this screen asked, while its dialog is open.
    pub fn asked(&self) -> Option<&Ask> {
        self.ask.get()
    }

    pub fn review(&self) -> Option<&PendingReview> {
        self.review.as_ref()
    }

    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn editing(&self) -> Option<&Editing> {
        self.editing.as_ref()
    }

    pub fn submitting(&self) -> bool {
        self.submitting
    }

    pub fn submitted(&self) -> Option<&str> {
        self.submitted.as_deref()
    }

    /// The Shepherd summary a submission's body may start from.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    fn coords(&self) -> PrCoords {
        self.snapshot.pr.coords()
    }

    fn save(&self, ctx: &mut Ctx<'_>) {
        if let Some(r) = &self.review {
            ctx.work(Work::Save {
                pr: self.coords(),
                review: Box::new(r.clone()),
            });
        }
    }

    fn selected_id(&self) -> Option<String> {
        self.review
            .as_ref()?
            .comments
            .get(self.selected)
            .map(|c| c.id.clone())
    }

    fn open_editor(&mut self, target: PendingEdit, text: &str, ctx: &mut Ctx<'_>) {
        // The house editor: soft wrap and undo, as the draft editor and the reply composer have.
        self.editing = Some(Editing {
            target,
            editor: crate::tui::editor::area(&crate::sanitize::sanitize(text)),
        });
        *ctx.mode = InputMode::Edit;
    }

    fn compose(
        &mut self,
        sel: LineSelection,
        suggestion: bool,
        text: Option<String>,
        ctx: &mut Ctx<'_>,
    ) {
        let prefill = match text {
            Some(t) => t,
            None if suggestion => suggestion_body(&sel.text),
            None => String::new(),
        };
        self.open_editor(PendingEdit::New { sel, suggestion }, &prefill, ctx);
    }

    fn edit_done(&mut self, ctx: &mut Ctx<'_>) {
        *ctx.mode = InputMode::Normal;
        let (Some(e), Some(review)) = (self.editing.take(), self.review.as_mut()) else {
            return;
        };
        let text = e.text();
        let done = match e.target {
            PendingEdit::New { sel, suggestion } => {
                if text.trim().is_empty() {
                    ctx.say("empty: nothing added");
                    return;
                }
                review.add_selection(&sel, &text, suggestion).map(|id| {
                    // It remembers the lines it was written on, to follow them across a push.
                    let patches = parsed_patches(&self.snapshot);
                    review.anchor(
                        &id,
                        &crate::publish::review::diff_at(&self.snapshot, &patches),
                    );
                    let place = review.get(&id).map(|c| c.place()).unwrap_or_default();
                    self.selected = review.comments.len().saturating_sub(1);
                    format!(
                        "added {} {id} at {}",
                        if suggestion { "suggestion" } else { "comment" },
                        one_line(&place)
                    )
                })
            }
            PendingEdit::Existing(id) => review.edit(&id, &text).map(|()| format!("{id} edited")),
            PendingEdit::Body(how) => {
                if review.body != text {
                    review.body = text;
                    self.save(ctx);
                }
                return self.confirm_submit(how, ctx);
            }
        };
        match done {
            Ok(said) => {
                ctx.say(said);
                self.save(ctx);
            }
            Err(e) => ctx.say(e.to_string()),
        }
    }

    /// Submitting as `how`: what would refuse it is said first; then the editor opens on the
    /// review's body as last written (kept on disk as it is typed; `ctrl-t` swaps in the
    /// Shepherd summary), and its `Esc` asks, naming the event.
    fn ask_submit(&mut self, how: SubmitAs, ctx: &mut Ctx<'_>) {
        if self.refuse_submit(ctx) {
            return;
        }
        let body = self
            .review
            .as_ref()
            .map(|r| r.body.clone())
            .unwrap_or_default();
        self.before_swap = None;
        self.open_editor(PendingEdit::Body(how), &body, ctx);
    }

    /// The body's editor changed: the review's body is its text, saved at once (it survives a
    /// relaunch, as every draft does).
    fn body_typed(&mut self, ctx: &mut Ctx<'_>) {
        let (Some(e), Some(review)) = (self.editing.as_ref(), self.review.as_mut()) else {
            return;
        };
        if !matches!(e.target, PendingEdit::Body(_)) {
            return;
        }
        let text = e.text();
        if review.body != text {
            review.body = text;
            self.save(ctx);
        }
    }

    /// True when the pending review cannot be submitted now (said, or shown as a refusal).
    fn refuse_submit(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let Some(review) = &self.review else {
            ctx.say("the pending review is still loading");
            return true;
        };
        if self.submitting {
            ctx.say("a submission is on its way");
            return true;
        }
        let gone = lines_gone(review, &parsed_patches(&self.snapshot));
        if !gone.is_empty() {
            self.ask.ask(
                Ask::Refused(crate::publish::review::SubmitError::LinesGone(gone).to_string()),
                ctx,
            );
            return true;
        }
        // An outdated comment is posted only once kept (or folded, or dropped).
        let stale = outdated(review);
        if !stale.is_empty() {
            self.ask.ask(
                Ask::Refused(crate::publish::review::SubmitError::Outdated(stale).to_string()),
                ctx,
            );
            return true;
        }
        false
    }

    /// The body is written (and kept as the review's own): asks to submit as `how`, naming it;
    /// a comment or a request for changes that says nothing is refused (the body stays).
    fn confirm_submit(&mut self, how: SubmitAs, ctx: &mut Ctx<'_>) {
        if self.refuse_submit(ctx) {
            return;
        }
        let Some(review) = &self.review else { return };
        if crate::publish::review::says_nothing(review, how == SubmitAs::Approve, "") {
            self.ask.ask(
                Ask::Refused(crate::publish::review::SubmitError::Empty.to_string()),
                ctx,
            );
            return;
        }
        let body = review.body.clone();
        let p = &self.snapshot.pr;
        let destination = match ctx.session.remote.live() {
            Some(live) => format!("GitHub, as @{}", live.own_login),
            None => "the outbox (offline)".to_owned(),
        };
        let q = Ask::Submit(SubmitAsk {
            how,
            target: format!("{}/{}#{}", p.owner, p.repo, p.number),
            comments: review.to_post().count(),
            destination,
            undecided: undecided(review),
            moved: moved(review),
            body,
        });
        self.ask.ask(q, ctx);
    }

    fn fold(&mut self, ctx: &mut Ctx<'_>) {
        let Some(review) = self.review.as_mut() else {
            return;
        };
        let gone = lines_gone(review, &parsed_patches(&self.snapshot));
        let stale = outdated(review);
        if gone.is_empty() && stale.is_empty() {
            return ctx.say("every comment is on a line of the diff: nothing to fold");
        }
        let ids: Vec<String> = gone
            .iter()
            .chain(&stale)
            .map(|(id, _)| id.clone())
            .collect();
        fold_into_body(review, &ids);
        self.selected = self.selected.min(review.comments.len().saturating_sub(1));
        ctx.say(format!("folded {} into the review's body", ids.join(", ")));
        self.save(ctx);
    }

    /// The external editor's answer: the editor takes the text (undoable); `Esc` then adds or
    /// saves it as before.
    fn externally_edited(&mut self, result: Result<String, String>, ctx: &mut Ctx<'_>) {
        match (result, self.editing.as_mut()) {
            (Ok(text), Some(e)) => {
                crate::tui::editor::replace(&mut e.editor, &text);
                ctx.say("the editor has the external editor's text; Esc is done with it");
                self.body_typed(ctx);
            }
            (Ok(_), None) => ctx.say("the editor was closed: the edited text was not kept"),
            (Err(why), _) => ctx.say(one_line(&why)),
        }
    }

    fn act_on_selected(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) {
        let Some(id) = self.selected_id() else {
            return ctx.say("no pending comment selected");
        };
        let Some(review) = self.review.as_mut() else {
            return;
        };
        // Enter keeps what is still to decide (a finding's draft, an outdated comment) or was
        // dropped (a change of mind); on any other comment it opens the comment's diff at its
        // line.
        let to_keep = review.get(&id).is_some_and(|c| {
            matches!(
                c.state,
                crate::code::pending::DraftState::Proposed
                    | crate::code::pending::DraftState::Dropped
            )
        }) || outdated(review).iter().any(|(o, _)| *o == id);
        if cmd == KeyCommand::Toggle && !to_keep {
            // A posted one is never kept again (it would be posted twice): said, and its diff
            // still opens.
            if review
                .get(&id)
                .is_some_and(|c| c.state == crate::code::pending::DraftState::Posted)
            {
                ctx.say(one_line(
                    &crate::code::pending::PendingError::AlreadyPosted { id: id.clone() }
                        .to_string(),
                ));
            }
            return self.open_diff_of_selected(ctx);
        }
        let result = match cmd {
            KeyCommand::Toggle => review.keep(&id).map(|()| format!("{id} kept")),
            KeyCommand::Discard => review.drop_comment(&id).map(|()| {
                self.selected = self.selected.min(review.comments.len().saturating_sub(1));
                format!("{id} dropped")
            }),
            _ => return,
        };
        match result {
            Ok(said) => {
                ctx.say(said);
                self.save(ctx);
            }
            Err(e) => ctx.say(e.to_string()),
        }
    }
}

impl Screen for PendingScreen {
    fn name(&self) -> &'static str {
        "pending review"
    }

    fn subject(&self) -> Option<PrCoords> {
        Some(self.coords())
    }

    fn busy(&self) -> bool {
        self.submitting
    }

    fn activity(&self) -> Option<String> {
        self.submitting.then(|| "submitting the review".to_owned())
    }

    fn selected_row(&self) -> Option<usize> {
        Some(self.selected)
    }

    fn at_stake(&self) -> Vec<String> {
        let Some(r) = &self.review else {
            return Vec::new();
        };
        super::unsent::pending_said(
            &self.coords(),
            r.to_post().count(),
            undecided(r),
            !r.body.trim().is_empty(),
        )
        .into_iter()
        .collect()
    }

    fn sent(&self) -> Vec<crate::ledger::Sent> {
        self.sent.clone()
    }

    /// Back on top: the pending review is read again, since the diff above may have changed it
    /// (what this screen changed was saved as it was made, so nothing of it is lost).
    fn uncovered(&mut self, _left: &dyn Screen, ctx: &mut Ctx<'_>) {
        if self.review.is_some() && self.editing.is_none() && !self.submitting {
            ctx.work(Work::Load {
                snapshot: Box::new(self.snapshot.clone()),
            });
        }
    }

    fn holds_unsent(&self) -> Vec<super::unsent::Unsent> {
        match self.review {
            Some(_) => vec![super::unsent::Unsent::Pending],
            None => Vec::new(),
        }
    }

    fn key(&self, ev: &KeyEvent) -> Option<Action> {
        if ev
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        match ev.code {
            KeyCode::Char(c @ ('X' | 'F')) => Some(Action::PendingKey(c)),
            _ => None,
        }
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        let n = self.review.as_ref().map_or(0, |r| r.comments.len());
        if matches!(
            cmd,
            KeyCommand::Down | KeyCommand::Up | KeyCommand::Top | KeyCommand::Bottom
        ) {
            // Another comment: its text from the top.
            self.comment_scroll = 0;
        }
        let half = self.comment_half;
        match cmd {
            KeyCommand::PageDown => {
                self.comment_scroll = (self.comment_scroll + half).min(self.comment_max)
            }
            KeyCommand::PageUp => self.comment_scroll = self.comment_scroll.saturating_sub(half),
            KeyCommand::Down => self.selected = (self.selected + 1).min(n.saturating_sub(1)),
            KeyCommand::Up => self.selected = self.selected.saturating_sub(1),
            KeyCommand::Top => self.selected = 0,
            KeyCommand::Bottom => self.selected = n.saturating_sub(1),
            KeyCommand::Toggle | KeyCommand::Discard => self.act_on_selected(cmd, ctx),
            KeyCommand::Edit => match self
                .review
                .as_ref()
                .and_then(|r| r.comments.get(self.selected))
            {
                Some(c) => {
                    let (id, body) = (c.id.clone(), c.body.clone());
                    self.open_editor(PendingEdit::Existing(id), &body, ctx);
                }
                None => ctx.say("no pending comment selected"),
            },
            KeyCommand::Post => self.ask_submit(SubmitAs::Comment, ctx),
            // Behind a key of its own (no other screen's): approving is never one slip away.
            KeyCommand::Approve => self.ask_submit(SubmitAs::Approve, ctx),
            _ => return Handled::NotConsumed,
        }
        Handled::Consumed
    }

    fn dialog(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        match action {
            Action::EditKey(ev) => {
                if let Some(e) = self.editing.as_mut() {
                    if crate::tui::editor::is_external_key(&ev) {
                        // `$VISUAL`/`$EDITOR` on the text, as the draft editor and the reply
                        // composer have; the answer comes back to `event`.
                        ctx.fx.push(super::effect::Effect::ExternalEdit {
                            target: super::action::EditTarget::Pending,
                            text: e.text(),
                        });
                        return;
                    }
                    if matches!(e.target, PendingEdit::Body(_)) && is_swap_summary_key(&ev) {
                        // What was written ⇄ the Shepherd summary (the maintainer's choice,
                        // either way; nothing written is lost by a swap).
                        let text = match &self.summary {
                            Some(s) if e.text().trim() != sanitize(s).trim() => {
                                self.before_swap = Some(e.text());
                                sanitize(s).into_owned()
                            }
                            Some(_) => self.before_swap.take().unwrap_or_default(),
                            None => {
                                return ctx.say("no Shepherd summary: the PR has no review draft");
                            }
                        };
                        crate::tui::editor::replace(&mut e.editor, &text);
                    } else {
                        crate::tui::editor::input(&mut e.editor, ev);
                    }
                    self.body_typed(ctx);
                }
            }
            Action::EditDone => self.edit_done(ctx),
            _ => {}
        }
    }

    fn question(&self) -> Option<Dialog> {
        self.ask.get().map(Ask::dialog)
    }

    fn answered(&mut self, yes: bool, ctx: &mut Ctx<'_>) {
        let Some(Ask::Submit(ask)) = self.ask.take() else {
            return;
        };
        if !yes && ask.undecided > 0 {
            return ctx.say(format!(
                "not submitted: {} from findings still to decide (keep, edit or drop each)",
                crate::output::plural::count(ask.undecided, "draft")
            ));
        }
        if !yes {
            return ctx.say(format!("not submitted ({})", ask.how.said()));
        }
        let Some(review) = &self.review else { return };
        let event = match ask.how {
            SubmitAs::Comment => Event::Comment,
            SubmitAs::RequestChanges => Event::RequestChanges,
            // The maintainer's explicit, confirmed choice: the only place it is made.
            SubmitAs::Approve => Event::Approve(ConsoleApproval::confirmed()),
        };
        self.submitting = true;
        ctx.say(format!("submitting ({})…", ask.how.said()));
        ctx.work(Work::Submit {
            snapshot: Box::new(self.snapshot.clone()),
            review: Box::new(review.clone()),
            event,
        });
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        let done = match action {
            Action::PendingKey(c) => {
                match c {
                    'X' => self.ask_submit(SubmitAs::RequestChanges, ctx),
                    'F' => self.fold(ctx),
                    _ => {}
                }
                return None;
            }
            Action::Done(ref done) => match done.take::<Done>() {
                Some(done) => done,
                None => return Some(action),
            },
            Action::ExternallyEdited {
                target: super::action::EditTarget::Pending,
                result,
            } => {
                self.externally_edited(result, ctx);
                return None;
            }
            other => return Some(other),
        };
        match done {
            Done::Loaded {
                review: Ok(review),
                summary,
            } => {
                self.selected = self.selected.min(review.comments.len().saturating_sub(1));
                self.review = Some(*review);
                self.summary = summary;
                if let Some((sel, suggestion, text)) = self.queued.take() {
                    self.compose(sel, suggestion, text, ctx);
                }
            }
            Done::Loaded {
                review: Err(why), ..
            } => {
                ctx.say(format!(
                    "the pending review cannot be read: {}",
                    one_line(&why)
                ));
            }
            Done::Saved(Err(why)) => {
                ctx.say(format!(
                    "the pending review was not saved: {}",
                    one_line(&why)
                ));
            }
            Done::Saved(Ok(())) => {}
            Done::Submitted(result) => {
                self.submitting = false;
                match result {
                    Ok(done) => {
                        // A review an earlier try had made is found, never "submitted" again.
                        let said = format!(
                            "{} ({}, {}{}): {}",
                            if done.earlier {
                                "found, not sent again"
                            } else {
                                "submitted"
                            },
                            done.event.to_lowercase().replace('_', " "),
                            crate::output::plural::count(done.comments, "comment"),
                            if done.earlier {
                                "; made by an earlier try"
                            } else {
                                ""
                            },
                            one_line(&done.location)
                        );
                        ctx.say(said.clone());
                        self.submitted = Some(said);
                        // What was posted leaves the pending review (what was not, drafts to
                        // decide, stays, as the effect saved it) and is shown as sent.
                        if let Some(r) = self.review.as_mut() {
                            let live = !done.offline;
                            self.sent_comments
                                .extend(r.to_post().map(|c| (c.clone(), live)));
                            let posted: Vec<String> = r.to_post().map(|c| c.id.clone()).collect();
                            r.remove_posted(&posted);
                        }
                        if let Some(review) = done.sent {
                            self.sent.push(crate::ledger::Sent {
                                live: !done.offline,
                                comments: Vec::new(),
                                reviews: vec![review],
                            });
                        }
                        self.selected = 0;
                    }
                    Err(why) => ctx.say(format!("not submitted: {}", one_line(&why))),
                }
            }
        }
        None
    }

    fn drawn(&mut self, d: Drawn, ctx: &mut Ctx<'_>) {
        self.comment_max = d.detail_lines.saturating_sub(usize::from(d.detail_height));
        self.comment_scroll = self.comment_scroll.min(self.comment_max);
        self.comment_half = usize::from(d.detail_height / 2).max(1);
        if self.review.is_none() && !self.load_asked {
            self.load_asked = true;
            ctx.work(Work::Load {
                snapshot: Box::new(self.snapshot.clone()),
            });
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        draw::draw(self, frame, area, view)
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        let k = |c| keymap.keys_label(c);
        vec![
            (
                format!("{}/{}", k(KeyCommand::Down), k(KeyCommand::Up)),
                "move between the pending comments".to_owned(),
            ),
            (
                k(KeyCommand::Toggle),
                "keep the selected finding's draft, or an outdated comment at its new place; on any other comment: its diff at its line (Esc back here)"
                    .to_owned(),
            ),
            (
                format!("{}/{}", k(KeyCommand::PageDown), k(KeyCommand::PageUp)),
                "scroll the selected comment's text".to_owned(),
            ),
            (
                k(KeyCommand::Edit),
                "edit the selected comment (Esc done; a finding's draft becomes edited)".to_owned(),
            ),
            (
                k(KeyCommand::Discard),
                "drop the selected draft, or delete an own comment".to_owned(),
            ),
            (
                "F".to_owned(),
                "fold comments whose lines left the diff or changed into the review's body"
                    .to_owned(),
            ),
            (
                k(KeyCommand::Post),
                "submit as a comment (asks first)".to_owned(),
            ),
            (
                "X".to_owned(),
                "submit requesting changes (asks first)".to_owned(),
            ),
            (
                k(KeyCommand::Approve),
                "submit approving the PR (asks first, naming it)".to_owned(),
            ),
            (
                crate::tui::editor::EXTERNAL_KEY.to_owned(),
                "writing: the text in $VISUAL/$EDITOR, back in the editor when it exits".to_owned(),
            ),
            (
                SWAP_SUMMARY_KEY.to_owned(),
                "submitting: the body's editor swaps empty ⇄ the Shepherd summary; Esc then asks"
                    .to_owned(),
            ),
            (k(KeyCommand::Help), "this help".to_owned()),
            (
                format!("{}/{}", k(KeyCommand::Quit), k(KeyCommand::Back)),
                "back to the PR".to_owned(),
            ),
        ]
    }
}

impl App {
    /// Opens `screen` above the one on top (what the diff view does with
    /// [`compose_line_comment`]; tests open the composer this way).
    pub fn open_screen(&mut self, screen: Box<dyn Screen>) {
        self.kept.clear();
        let _ = self.place(screen);
    }
}
