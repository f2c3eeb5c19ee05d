//! One review thread, whole: every comment (sanitized, wrapped), with reply, resolve and
//! unresolve through the PR screen's own [`ThreadDesk`] (the same composer, questions and
//! effects). Opened from the diff with `Enter` on the thread's line.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::ask::Ask;
use super::list::ItemList;
use super::threads::ThreadDesk;
use crate::pr::{Item, PrCoords, Snapshot, without_markers};
use crate::sanitize::{one_line, sanitize};
use crate::tui::app::action::{Action, Drawn};
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::screen::{Asking, Ctx, Handled, Screen, View};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::ui::{Dialog, fit, key_hint};

/// A thread of the PR, shown whole above the diff it was opened from.
#[derive(Debug)]
pub struct ThreadScreen {
    /// The PR's items with the thread selected: what the thread desk acts on.
    list: ItemList,
    threads: ThreadDesk,
    /// The thread desk's question, while its dialog is open.
    ask: Asking<Ask>,
    thread_id: String,
    scroll: u16,
    height: u16,
}

impl ThreadScreen {
    /// Thread `thread_id` of `snapshot`'s PR; `identity` is the session's own account.
    pub fn new(snapshot: &Snapshot, thread_id: &str, identity: &str) -> ThreadScreen {
        let mut list = ItemList::new(snapshot.clone(), HashMap::new(), identity);
        if let Some(row) = (0..list.rows.len()).find(|&r| {
            list.select(r);
            list.selected_item().is_some_and(|i| i.id() == thread_id)
        }) {
            list.select(row);
        }
        ThreadScreen {
            list,
            threads: ThreadDesk::default(),
            ask: Asking::default(),
            thread_id: thread_id.to_owned(),
            scroll: 0,
            height: 0,
        }
    }

    fn thread(&self) -> Option<&crate::pr::Thread> {
        match self.list.snapshot.find(&self.thread_id) {
            Some(Item::Thread(t)) => Some(t),
            _ => None,
        }
    }

    fn coords(&self) -> PrCoords {
        self.list.snapshot.pr.coords()
    }

    fn lines(&self, view: &View<'_>) -> Vec<Line<'static>> {
        let theme = view.theme;
        let Some(t) = self.thread() else {
            return vec![Line::styled(
                "the thread is no longer on this PR",
                theme.dim,
            )];
        };
        let item = Item::Thread(t.clone());
        let mut state = Vec::new();
        if t.resolved {
            state.push("resolved");
        }
        if t.outdated {
            state.push("outdated");
        }
        let mut out = vec![Line::from(vec![
            Span::styled(
                one_line(&item.location().unwrap_or_default()),
                theme.location,
            ),
            Span::styled(
                format!(
                    " · {} comment{}{}",
                    t.comments.len(),
                    if t.comments.len() == 1 { "" } else { "s" },
                    if state.is_empty() {
                        String::new()
                    } else {
                        format!(" · {}", state.join(", "))
                    }
                ),
                theme.dim,
            ),
        ])];
        for c in &t.comments {
            out.push(Line::default());
            out.push(Line::styled(
                format!("@{}", one_line(&c.author.login)),
                theme.author,
            ));
            for l in sanitize(&without_markers(&c.body)).lines() {
                out.push(Line::styled(l.replace('\t', "    "), theme.text));
            }
        }
        out
    }
}

impl Screen for ThreadScreen {
    fn name(&self) -> &'static str {
        "thread"
    }

    /// The PR's only while a reply or resolve of this screen is on its way: its answer comes
    /// here (and a thread screen left is never taken for the PR screen).
    fn subject(&self) -> Option<PrCoords> {
        self.threads.acting.then(|| self.coords())
    }

    fn at_stake(&self) -> Vec<String> {
        match &self.threads.reply {
            Some(r) if !r.body().trim().is_empty() => {
                vec![format!("an unsent reply to {}", r.target)]
            }
            _ => Vec::new(),
        }
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        if self.threads.command(cmd, &self.list, &mut self.ask, ctx) {
            return Handled::Consumed;
        }
        let half = (self.height / 2).max(1);
        self.scroll = match cmd {
            KeyCommand::Down => self.scroll.saturating_add(1),
            KeyCommand::Up => self.scroll.saturating_sub(1),
            KeyCommand::PageDown => self.scroll.saturating_add(half),
            KeyCommand::PageUp => self.scroll.saturating_sub(half),
            KeyCommand::Top => 0,
            _ => return Handled::NotConsumed,
        };
        Handled::Consumed
    }

    fn dialog(&mut self, action: Action, ctx: &mut Ctx<'_>) {
        match action {
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
            Some(Ask::Thread(ask)) => self.threads.confirmed(ask, yes, &self.list, ctx),
            // `w` here writes a conversation comment, as on the PR screen.
            Some(Ask::Comment(ask)) => self.threads.comment_confirmed(ask, yes, &self.list, ctx),
            _ => {}
        }
    }

    /// A reply, resolve or comment of this screen is on its way: the screen is kept when left,
    /// so its answer still reaches it (the saved reply is forgotten once sent, never sent twice).
    fn busy(&self) -> bool {
        self.threads.acting || self.threads.commenting
    }

    fn activity(&self) -> Option<String> {
        self.busy().then(|| "a thread write on its way".to_owned())
    }

    fn event(&mut self, action: Action, ctx: &mut Ctx<'_>) -> Option<Action> {
        match action {
            Action::Done(done) => match done.take::<super::Done>() {
                Some(super::Done::ThreadActed {
                    thread_id,
                    kind,
                    result,
                }) if self.threads.acting => {
                    self.threads
                        .acted(thread_id, kind, result, &mut self.list, ctx);
                    None
                }
                Some(super::Done::Commented(result)) if self.threads.commenting => {
                    self.threads.commented(result, &mut self.list, ctx);
                    None
                }
                _ => Some(Action::Done(done)),
            },
            Action::ExternallyEdited {
                target: crate::tui::app::action::EditTarget::Reply,
                result,
            } if self.threads.reply.is_some() => {
                self.threads.externally_edited(result, &self.list, ctx);
                None
            }
            other => Some(other),
        }
    }

    fn drawn(&mut self, d: Drawn, _ctx: &mut Ctx<'_>) {
        self.height = d.detail_height;
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let theme = view.theme;
        let [body, foot] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
        let composing = *view.mode == InputMode::Reply && self.threads.reply.is_some();
        let (thread_area, composer) = if composing {
            let [a, b] =
                Layout::vertical([Constraint::Percentage(55), Constraint::Min(3)]).areas(body);
            (a, Some(b))
        } else {
            (body, None)
        };
        frame.render_widget(
            Paragraph::new(self.lines(view))
                .wrap(Wrap { trim: false })
                .scroll((self.scroll, 0)),
            thread_area,
        );
        if let (Some(c), Some(r)) = (composer, &self.threads.reply) {
            let block = Block::default()
                .borders(Borders::ALL)
                .title(format!(
                    " Reply to {} · autosaved · ctrl-s send · {} $EDITOR · ctrl-z undo · Esc close ",
                    one_line(&r.target),
                    crate::tui::editor::EXTERNAL_KEY
                ))
                .border_style(theme.border_focus);
            let inner = block.inner(c);
            frame.render_widget(block, c);
            frame.render_widget(&r.editor, inner);
        }
        let footer = match (view.mode, view.notice) {
            (InputMode::Normal, Some(n)) => Line::styled(one_line(n), theme.notice),
            _ => {
                let mut spans = Vec::new();
                for (c, what) in [
                    (KeyCommand::Reply, "reply"),
                    (KeyCommand::Resolve, "resolve"),
                    (KeyCommand::Unresolve, "unresolve"),
                    (KeyCommand::Help, "help"),
                    (KeyCommand::Quit, "back"),
                ] {
                    key_hint(view.keymap, c, what, theme, &mut spans);
                }
                Line::from(spans)
            }
        };
        frame.render_widget(Paragraph::new(fit(footer, usize::from(area.width))), foot);
        Drawn {
            detail_height: thread_area.height,
            detail_area: thread_area,
            ..Drawn::default()
        }
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        let k = |c| keymap.keys_label(c);
        vec![
            (
                format!("{}/{}", k(KeyCommand::Down), k(KeyCommand::Up)),
                "scroll".to_owned(),
            ),
            (
                k(KeyCommand::Reply),
                "reply (composer: ctrl-s sends, asks first)".to_owned(),
            ),
            (k(KeyCommand::Resolve), "resolve (asks first)".to_owned()),
            (
                k(KeyCommand::Unresolve),
                "unresolve (asks first)".to_owned(),
            ),
            (k(KeyCommand::Quit), "back to the diff".to_owned()),
        ]
    }
}
