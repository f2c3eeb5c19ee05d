//! Acting on the selected review thread: the reply composer (saved on every change like the
//! review draft, so it survives a crash), resolve and unresolve. Every action asks first, naming
//! the thread; a reply that is empty or over GitHub's limit is refused before the question.
//!
//! Beside it, the same composer writes a plain conversation comment on the PR (`w`): `ctrl-s`
//! asks, naming the PR and where it goes, and the comment is posted as a new one (never an
//! edit, never the Shepherd comment) through the session's remote; kept in the composer until
//! it is posted.

use ratatui::crossterm::event::{KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

use super::ask::{Ask, CommentAsk, ThreadAsk};
use super::list::ItemList;
use crate::ledger::{QUEUED_PREFIX, ReplyDraft, ThreadAction, ThreadActionKind};
use crate::pr::{Item, Snapshot, Thread};
use crate::publish::{ThreadDo, check_reply};
use crate::sanitize::{one_line, sanitize};
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::effect::Effect;
use crate::tui::app::screen::{Asking, Ctx};
use crate::tui::keymap::KeyCommand;

/// The reply being written.
#[derive(Debug, Clone)]
pub struct ReplyView {
    pub thread_id: String,
    /// The thread in words, for the composer's title.
    pub target: String,
    pub editor: TextArea<'static>,
}

impl ReplyView {
    pub fn body(&self) -> String {
        self.editor.lines().join("\n")
    }
}

#[derive(Debug, Clone, Default)]
pub struct ThreadDesk {
    pub reply: Option<ReplyView>,
    /// A confirmed action is on its way (a second one waits for its answer).
    pub acting: bool,
    /// The conversation comment being written (kept until it is posted).
    pub comment: Option<TextArea<'static>>,
    /// The composer is on the conversation comment, not the thread reply.
    pub on_comment: bool,
    /// A confirmed conversation comment is on its way.
    pub commenting: bool,
}

/// `src/a.rs:29 (@rajesh-k, PRRT_…) on acme/rivet#482`.
fn describe(t: &Thread, snap: &Snapshot) -> String {
    let item = Item::Thread(t.clone());
    format!(
        "{} (@{}, {}) on {}/{}#{}",
        one_line(&item.location().unwrap_or_default()),
        one_line(item.login()),
        one_line(&t.id),
        snap.pr.owner,
        snap.pr.repo,
        snap.pr.number
    )
}

/// Where a thread action goes, in words: the session's remote.
fn destination(ctx: &Ctx<'_>) -> String {
    ctx.session.remote.thread_destination().to_owned()
}

impl ThreadDesk {
    /// The selected thread; otherwise a refusal says so (it takes the next key: what was
    /// typed for a reply never runs as keys).
    fn selected_thread<'l>(
        list: &'l ItemList,
        ask: &mut Asking<Ask>,
        ctx: &mut Ctx<'_>,
        verb: &str,
    ) -> Option<&'l Thread> {
        match list.selected_item() {
            Some(Item::Thread(t)) => Some(t),
            _ => {
                ask.ask(
                    Ask::Cannot(format!(
                        "the selected row is not a review thread: select one to {verb} (j/k)"
                    )),
                    ctx,
                );
                None
            }
        }
    }

    /// The composer's text area and title, when one is open on the thread reply or the comment.
    pub fn composing(&self) -> Option<(&TextArea<'static>, String)> {
        if self.on_comment {
            return self.comment.as_ref().map(|t| {
                (
                    t,
                    format!(
                        " Comment on the conversation · ctrl-s post (asks first) · {} $EDITOR · ctrl-z undo · Esc close, kept ",
                        crate::tui::editor::EXTERNAL_KEY
                    ),
                )
            });
        }
        self.reply.as_ref().map(|r| {
            (
                &r.editor,
                format!(
                    " Reply to {} · autosaved · ctrl-s send · {} $EDITOR · ctrl-z undo · Esc close ",
                    one_line(&r.target),
                    crate::tui::editor::EXTERNAL_KEY
                ),
            )
        })
    }

    fn comment_body(&self) -> String {
        self.comment
            .as_ref()
            .map(|t| t.lines().join("\n"))
            .unwrap_or_default()
    }

    /// `w`: the composer on a plain conversation comment (the one being written, else empty).
    fn open_comment(&mut self, ctx: &mut Ctx<'_>) {
        if self.commenting {
            ctx.say("a comment is on its way: wait for its answer");
            return;
        }
        self.comment
            .get_or_insert_with(|| crate::tui::editor::area(""));
        self.on_comment = true;
        *ctx.mode = InputMode::Reply;
    }

    /// Ctrl-s in the comment: checks it, then asks, naming the PR and where it goes.
    fn request_comment(&mut self, list: &ItemList, ask: &mut Asking<Ask>, ctx: &mut Ctx<'_>) {
        let body = self.comment_body();
        if let Err(why) = crate::publish::conversation::check_comment(&body) {
            ask.ask(Ask::Refused(format!("not posting: {why}")), ctx);
            return;
        }
        if self.commenting {
            ctx.say("a comment is on its way: wait for its answer");
            return;
        }
        let p = &list.snapshot.pr;
        let destination = destination(ctx);
        ask.ask(
            Ask::Comment(CommentAsk {
                target: format!("{}/{}#{}", p.owner, p.repo, p.number),
                body,
                destination,
            }),
            ctx,
        );
    }

    /// The answer to the comment's dialog.
    pub(super) fn comment_confirmed(
        &mut self,
        ask: CommentAsk,
        yes: bool,
        list: &ItemList,
        ctx: &mut Ctx<'_>,
    ) {
        if !yes {
            ctx.say("not posted; the comment is kept (w reopens it)");
            return;
        }
        self.commenting = true;
        ctx.say("comment: on its way…");
        ctx.work(super::Work::PostComment {
            pr: list.snapshot.pr.coords(),
            body: ask.body,
        });
    }

    /// The comment's post answered; true when it was posted.
    pub(super) fn commented(
        &mut self,
        result: Result<String, String>,
        list: &mut ItemList,
        ctx: &mut Ctx<'_>,
    ) -> bool {
        self.commenting = false;
        match result {
            Ok(location) => {
                let body = self.comment_body();
                self.comment = None;
                self.on_comment = false;
                // Posted (or queued): the saved comment is forgotten.
                self.save_comment(list, ctx);
                // It stands under the conversation, marked queued or sent, until read back.
                list.lay_sent(crate::ledger::Sent {
                    live: !ctx.session.remote.reads_outbox(),
                    comments: vec![(body, ctx.session.now)],
                    reviews: Vec::new(),
                });
                ctx.say(format!("commented: {}", one_line(&location)));
                true
            }
            Err(e) => {
                ctx.say(format!(
                    "not posted: {} (the comment is kept)",
                    one_line(&e)
                ));
                false
            }
        }
    }

    /// `c`, `x`, `u`, and `w` (the conversation comment). False: not a thread command.
    pub(super) fn command(
        &mut self,
        cmd: KeyCommand,
        list: &ItemList,
        ask: &mut Asking<Ask>,
        ctx: &mut Ctx<'_>,
    ) -> bool {
        if cmd == KeyCommand::Comment {
            self.open_comment(ctx);
            return true;
        }
        let what = match cmd {
            KeyCommand::Reply => None,
            KeyCommand::Resolve => Some(ThreadDo::Resolve),
            KeyCommand::Unresolve => Some(ThreadDo::Unresolve),
            _ => return false,
        };
        let verb = what.as_ref().map_or("reply to", ThreadDo::verb);
        let Some(t) = Self::selected_thread(list, ask, ctx, verb) else {
            return true;
        };
        if self.acting {
            ctx.say("a thread action is on its way: wait for its answer");
            return true;
        }
        let snap = &list.snapshot;
        match what {
            None => {
                self.on_comment = false;
                // The composer opens on the saved reply to this thread, else empty.
                if self.reply.as_ref().is_none_or(|r| r.thread_id != t.id) {
                    if self
                        .reply
                        .as_ref()
                        .is_some_and(|r| !r.body().trim().is_empty())
                    {
                        ctx.say("the unsent reply to another thread is replaced");
                    }
                    self.reply = Some(ReplyView {
                        thread_id: t.id.clone(),
                        target: describe(t, snap),
                        editor: crate::tui::editor::area(""),
                    });
                }
                *ctx.mode = InputMode::Reply;
            }
            Some(what) => {
                if (what == ThreadDo::Resolve) == t.resolved {
                    ctx.say(format!(
                        "the thread is already {}",
                        if t.resolved { "resolved" } else { "unresolved" }
                    ));
                    return true;
                }
                let destination = destination(ctx);
                ask.ask(
                    Ask::Thread(ThreadAsk {
                        what,
                        thread_id: t.id.clone(),
                        target: describe(t, snap),
                        destination,
                    }),
                    ctx,
                );
            }
        }
        true
    }

    /// A saved reply found in the ledger when the console opened.
    pub(super) fn restored(&mut self, d: ReplyDraft, list: &ItemList, ctx: &mut Ctx<'_>) {
        let Some(Item::Thread(t)) = list.snapshot.find(&d.thread_id) else {
            ctx.say(format!(
                "a saved reply to thread {} is kept, but the thread is not on this PR",
                one_line(&d.thread_id)
            ));
            return;
        };
        self.reply = Some(ReplyView {
            thread_id: t.id.clone(),
            target: describe(t, &list.snapshot),
            editor: crate::tui::editor::area(&sanitize(&d.body)),
        });
        let item = Item::Thread(t.clone());
        ctx.say(format!(
            "restored the unsent reply to {} (@{}): select that thread and press c",
            one_line(&item.location().unwrap_or_default()),
            one_line(item.login())
        ));
    }

    /// A conversation comment saved in an earlier session: `w` reopens it.
    pub(super) fn comment_restored(&mut self, d: crate::ledger::CommentDraft, ctx: &mut Ctx<'_>) {
        self.comment = Some(crate::tui::editor::area(&sanitize(&d.body)));
        ctx.say("restored the unposted conversation comment: w reopens it");
    }

    /// Every change of the conversation comment is saved at once (it survives a crash).
    fn save_comment(&self, list: &ItemList, ctx: &mut Ctx<'_>) {
        ctx.work(super::Work::SaveCommentDraft {
            pr: list.snapshot.pr.coords(),
            body: self.comment_body(),
        });
    }

    /// A key for the composer; every change is saved at once (it survives a crash).
    pub(super) fn key(
        &mut self,
        ev: KeyEvent,
        list: &ItemList,
        ask: &mut Asking<Ask>,
        ctx: &mut Ctx<'_>,
    ) {
        if self.on_comment {
            if ev.modifiers.contains(KeyModifiers::CONTROL)
                && ev.code == ratatui::crossterm::event::KeyCode::Char('s')
            {
                self.request_comment(list, ask, ctx);
            } else if crate::tui::editor::is_external_key(&ev) {
                ctx.fx.push(Effect::ExternalEdit {
                    target: crate::tui::app::action::EditTarget::Reply,
                    text: self.comment_body(),
                });
            } else if let Some(t) = self.comment.as_mut() {
                let before = t.lines().join("\n");
                crate::tui::editor::input(t, ev);
                if t.lines().join("\n") != before {
                    self.save_comment(list, ctx);
                }
            }
            return;
        }
        if ev.modifiers.contains(KeyModifiers::CONTROL)
            && ev.code == ratatui::crossterm::event::KeyCode::Char('s')
        {
            self.request_send(ask, ctx);
            return;
        }
        let Some(r) = self.reply.as_mut() else {
            *ctx.mode = InputMode::Normal;
            return;
        };
        if crate::tui::editor::is_external_key(&ev) {
            ctx.fx.push(Effect::ExternalEdit {
                target: crate::tui::app::action::EditTarget::Reply,
                text: r.body(),
            });
            return;
        }
        if crate::tui::editor::input(&mut r.editor, ev) {
            Self::save(r, list, ctx);
        }
    }

    /// The external editor's answer for the reply: the composer takes the text (undoable),
    /// saved at once.
    pub(super) fn externally_edited(
        &mut self,
        result: Result<String, String>,
        list: &ItemList,
        ctx: &mut Ctx<'_>,
    ) {
        if self.on_comment {
            match (result, self.comment.as_mut()) {
                (Ok(text), Some(t)) => {
                    crate::tui::editor::replace(t, &text);
                    self.save_comment(list, ctx);
                    ctx.say("the comment has the external editor's text; ctrl-s posts");
                }
                (Ok(_), None) => ctx.say("the comment was closed: the edited text was not kept"),
                (Err(why), _) => ctx.say(why),
            }
            return;
        }
        match (result, self.reply.as_mut()) {
            (Ok(text), Some(r)) => {
                crate::tui::editor::replace(&mut r.editor, &text);
                Self::save(r, list, ctx);
                ctx.say("the reply has the external editor's text; ctrl-s sends");
            }
            (Ok(_), None) => ctx.say("the reply was closed: the edited text was not kept"),
            (Err(why), _) => ctx.say(why),
        }
    }

    /// Every change is saved at once (it survives a crash).
    fn save(r: &ReplyView, list: &ItemList, ctx: &mut Ctx<'_>) {
        ctx.work(super::Work::SaveReplyDraft {
            pr: list.snapshot.pr.coords(),
            draft: ReplyDraft {
                thread_id: r.thread_id.clone(),
                body: r.body(),
                saved_at: ctx.session.now,
            },
        });
    }

    /// Esc in the composer: it closes; the reply is kept.
    pub(super) fn close(&mut self, ctx: &mut Ctx<'_>) {
        *ctx.mode = InputMode::Normal;
        if self.on_comment {
            if !self.comment_body().trim().is_empty() {
                ctx.say("comment kept: w reopens it, ctrl-s in it posts");
            }
            return;
        }
        if self
            .reply
            .as_ref()
            .is_some_and(|r| !r.body().trim().is_empty())
        {
            ctx.say("reply kept (saved): c reopens it, ctrl-s in it sends");
        }
    }

    /// Ctrl-s: checks the reply, then asks.
    fn request_send(&mut self, ask: &mut Asking<Ask>, ctx: &mut Ctx<'_>) {
        let Some(r) = &self.reply else { return };
        let body = r.body();
        if let Err(why) = check_reply(&body) {
            ask.ask(Ask::Refused(format!("not sending: {why}")), ctx);
            return;
        }
        if self.acting {
            ctx.say("a thread action is on its way: wait for its answer");
            return;
        }
        let destination = destination(ctx);
        ask.ask(
            Ask::Thread(ThreadAsk {
                what: ThreadDo::Reply(body),
                thread_id: r.thread_id.clone(),
                target: r.target.clone(),
                destination,
            }),
            ctx,
        );
    }

    /// The answer to a thread dialog.
    pub(super) fn confirmed(
        &mut self,
        ask: ThreadAsk,
        yes: bool,
        list: &ItemList,
        ctx: &mut Ctx<'_>,
    ) {
        if !yes {
            ctx.say(match ask.what {
                ThreadDo::Reply(_) => "not sent; the reply is kept",
                ThreadDo::Resolve => "not resolved",
                ThreadDo::Unresolve => "not unresolved",
            });
            return;
        }
        let Some(Item::Thread(t)) = list.snapshot.find(&ask.thread_id) else {
            ctx.say("the thread is no longer on this PR");
            return;
        };
        self.acting = true;
        ctx.say(format!("{}: on its way…", ask.what.verb()));
        ctx.work(super::Work::ThreadAct {
            pr: list.snapshot.pr.coords(),
            thread: Box::new(t.clone()),
            what: ask.what,
        });
    }

    /// The thread action answered.
    pub(super) fn acted(
        &mut self,
        thread_id: String,
        kind: ThreadActionKind,
        result: Result<String, String>,
        list: &mut ItemList,
        ctx: &mut Ctx<'_>,
    ) {
        self.acting = false;
        match result {
            Ok(location) => {
                // Offline the action waits in the outbox: its thread shows it queued at once.
                if ctx.session.remote.reads_outbox() {
                    let body = match kind {
                        ThreadActionKind::Reply => self.reply.as_ref().map(|r| r.body()),
                        _ => None,
                    };
                    let n = list.queued.len() + 1;
                    list.queue(vec![ThreadAction {
                        id: format!("{QUEUED_PREFIX}session-{n}"),
                        kind,
                        thread_id: thread_id.clone(),
                        body,
                        at: ctx.session.now,
                    }]);
                }
                let done = match kind {
                    ThreadActionKind::Reply => {
                        self.reply = None;
                        ctx.work(super::Work::DiscardReplyDraft {
                            pr: list.snapshot.pr.coords(),
                        });
                        "replied"
                    }
                    ThreadActionKind::Resolve => {
                        list.set_resolved(&thread_id, true);
                        "resolved"
                    }
                    ThreadActionKind::Unresolve => {
                        list.set_resolved(&thread_id, false);
                        "unresolved"
                    }
                };
                ctx.say(format!("{done}: {}", one_line(&location)));
            }
            Err(e) => ctx.say(format!(
                "not done: {}{}",
                one_line(&e),
                if kind == ThreadActionKind::Reply {
                    " (the reply is kept)"
                } else {
                    ""
                }
            )),
        }
    }
}
