//! A question to the model about lines of the diff (`a` in the diff view): the
//! question typed in a prompt over the diff ([`Question`], the house editor), then the answer
//! pane ([`AskScreen`]) above the diff, which asks once it is opened ([`Work::Ask`]) and shows
//! the question, the lines asked about and the answer as it streams in — word-wrapped,
//! scrollable, sanitized — with the backend's model, the tokens and the cost on its status line.
//!
//! - **The answer is data**: the model's text is shown through [`crate::sanitize`] and
//!   [`crate::tui::markdown`], never read for keys or actions; only the maintainer's keys act.
//! - **`c`** (once the answer is complete) goes back to the diff, whose composer opens under the
//!   same lines with the answer as its text ([`Screen::comment_to_write`]), for the maintainer to
//!   edit; `Esc` puts it in the pending review. Nothing is posted.
//! - **Leaving** (`Esc`/`q`) while the answer streams cancels the call; its reservation in the
//!   spend log is settled (`review::engine::ask`).

mod work;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui_textarea::TextArea;

pub use work::{Cancel, Done, Failed, Spent, Work};

use super::action::{Action, Drawn};
use super::dialogs::InputMode;
use super::screen::{Ctx, Handled, Screen, View};
use crate::code::{LineSelection, Side, parse};
use crate::pr::Snapshot;
use crate::review::engine::ask::{AroundSelection, AskRequest};
use crate::sanitize::{one_line, sanitize};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::{bordered, fit, fit_hints, key_hint, wrap};

/// The most selected lines the pane shows under the question (the model is given them all).
const SHOWN_LINES: usize = 6;

/// `src/a.rs:12–14 (new side)`.
pub fn place(sel: &LineSelection) -> String {
    let side = match sel.end.side {
        Side::Right => "new",
        Side::Left => "old",
    };
    let lines = match sel.start {
        Some(s) => format!("{}–{}", s.line, sel.end.line),
        None => sel.end.line.to_string(),
    };
    format!("{}:{lines} ({side} side)", one_line(&sel.path))
}

/// The question being typed, in a prompt over the diff (the diff keeps it while
/// [`InputMode::Reply`] is open and hands it the prompt's keys, [`Question::dialog`]).
#[derive(Debug, Clone)]
pub struct Question {
    snapshot: Arc<Snapshot>,
    sel: LineSelection,
    editor: TextArea<'static>,
}

impl Question {
    /// The prompt for a question about `sel` of the PR in `snapshot`; `Err`: why these lines
    /// cannot be asked about (not lines of one hunk of the diff), in words.
    pub fn new(snapshot: Arc<Snapshot>, sel: LineSelection) -> Result<Question, String> {
        let patch = snapshot
            .pr
            .files
            .iter()
            .find(|f| f.path == sel.path)
            .and_then(|f| f.patch.as_deref())
            .map(parse)
            .unwrap_or_default();
        AskRequest::select(
            &snapshot.pr,
            &sel.path,
            &patch,
            sel.end.side,
            (sel.start.map_or(sel.end.line, |s| s.line), sel.end.line),
            AroundSelection::Unavailable(String::new()),
            "?",
        )
        .map_err(|e| format!("not asked: {}", one_line(&e.to_string())))?;
        Ok(Question {
            snapshot,
            sel,
            editor: crate::tui::editor::area(""),
        })
    }

    /// Opens the prompt for `sel` in `slot` (the diff's), or says why not.
    pub fn open(
        slot: &mut Option<Question>,
        snapshot: Arc<Snapshot>,
        sel: LineSelection,
        ctx: &mut Ctx<'_>,
    ) {
        match Question::new(snapshot, sel) {
            Ok(q) => {
                *slot = Some(q);
                *ctx.mode = InputMode::Reply;
            }
            Err(why) => ctx.say(why),
        }
    }

    /// The prompt's input (`InputMode::Reply`'s actions): `Enter` or `ctrl-s` sends — the
    /// prompt closes and the answer pane opens above the screen asking —, `Esc` closes it
    /// unasked, other keys edit (`alt-Enter` a new line). True when the pane was opened.
    pub fn dialog(slot: &mut Option<Question>, action: Action, ctx: &mut Ctx<'_>) -> bool {
        let Some(q) = slot.as_mut() else {
            return false;
        };
        match action {
            Action::ReplyClose => {
                *slot = None;
                *ctx.mode = InputMode::Normal;
                ctx.say("not asked");
                false
            }
            Action::ReplyKey(ev) if is_send(&ev) => {
                let text = q.editor.lines().join("\n");
                if text.trim().is_empty() {
                    ctx.say("type a question first (Esc: not asked)");
                    return false;
                }
                let Some(q) = slot.take() else { return false };
                *ctx.mode = InputMode::Normal;
                ctx.open(Box::new(AskScreen::new(q.snapshot, q.sel, text)));
                true
            }
            Action::ReplyKey(ev) if ev.code == KeyCode::Enter => {
                // alt-Enter (or shift-Enter where the terminal tells it): a new line.
                q.editor.insert_newline();
                false
            }
            Action::ReplyKey(ev) => {
                crate::tui::editor::input(&mut q.editor, ev);
                false
            }
            _ => false,
        }
    }

    /// The prompt, over the bottom of `area`.
    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let h = 5.min(area.height);
        let rect = Rect {
            y: area.y + area.height - h,
            height: h,
            ..area
        };
        let block = bordered(
            format!(
                " Ask the model about {} · Enter ask · Esc cancel ",
                place(&self.sel)
            ),
            true,
            theme,
        );
        let inner = block.inner(rect);
        frame.render_widget(Clear, rect);
        frame.render_widget(block, rect);
        frame.render_widget(&self.editor, inner);
    }
}

/// `Enter` (without alt or shift) or `ctrl-s`.
fn is_send(ev: &KeyEvent) -> bool {
    match ev.code {
        KeyCode::Enter => !ev
            .modifiers
            .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT),
        KeyCode::Char('s') => ev.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

/// Where the call is.
#[derive(Debug, Clone, PartialEq)]
enum State {
    Asking,
    Answered(Spent),
    Failed(Failed),
}

/// The answer pane: one question about one selection, and its answer.
#[derive(Debug)]
pub struct AskScreen {
    snapshot: Arc<Snapshot>,
    sel: LineSelection,
    question: String,
    cancel: Cancel,
    /// The backend's model, once the call is about to be made.
    model: Option<String>,
    /// Why the file around the selection was not given, when it was not.
    no_file: Option<String>,
    /// The answer so far, as the model wrote it (untrusted: sanitized when drawn).
    answer: String,
    state: State,
    scroll: usize,
    max_scroll: usize,
    half: usize,
    /// `c` was pressed on the complete answer: the diff below writes a comment with it.
    to_comment: bool,
}

/// The pane's keys for `?` (and its footer's first hints).
const KEYS: &[(KeyCommand, &str)] = &[
    (KeyCommand::Down, "scroll the answer down"),
    (KeyCommand::Up, "scroll the answer up"),
    (KeyCommand::PageDown, "half a page down"),
    (KeyCommand::PageUp, "half a page up"),
    (KeyCommand::Top, "the answer's top"),
    (KeyCommand::Bottom, "the answer's end"),
    (
        KeyCommand::Reply,
        "comment: the answer as a comment under the same lines in the diff (once complete)",
    ),
];

impl AskScreen {
    /// The pane for `question` about `sel` of the PR in `snapshot`; it asks once it is opened.
    pub fn new(snapshot: Arc<Snapshot>, sel: LineSelection, question: String) -> AskScreen {
        AskScreen {
            snapshot,
            sel,
            question,
            cancel: Cancel::default(),
            model: None,
            no_file: None,
            answer: String::new(),
            state: State::Asking,
            scroll: 0,
            max_scroll: 0,
            half: 1,
            to_comment: false,
        }
    }

    /// The answer so far, as the model wrote it.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// The answer is complete.
    pub fn answered(&self) -> bool {
        matches!(self.state, State::Answered(_))
    }

    /// The call is on its way (not complete, failed or cancelled).
    pub fn asking(&self) -> bool {
        self.state == State::Asking
    }

    /// Why there is no answer, when there is none.
    pub fn failed(&self) -> Option<&Failed> {
        match &self.state {
            State::Failed(f) => Some(f),
            _ => None,
        }
    }

    /// `c`: the answer, in the pending review's composer on the same lines.
    fn comment(&mut self, ctx: &mut Ctx<'_>) {
        match &self.state {
            State::Answered(_) if !self.answer.trim().is_empty() => {
                // Back to the diff, whose composer opens under the lines with the answer.
                self.to_comment = true;
                ctx.leave();
            }
            State::Answered(_) => ctx.say("the answer is empty: nothing to comment with"),
            State::Asking => ctx.say("the answer is still coming: c once it is complete"),
            State::Failed(_) => ctx.say("no answer to comment with"),
        }
    }

    fn status(&self, theme: &Theme) -> Line<'static> {
        let model = self
            .model
            .as_deref()
            .map_or_else(String::new, |m| format!("{} · ", one_line(m)));
        let count = |n: Option<u64>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
        match &self.state {
            State::Asking if self.model.is_none() => Line::styled("asking…", theme.dim),
            State::Asking => Line::styled(
                format!(
                    "{model}answering… {} so far · tokens and cost at the end",
                    crate::output::plural::count(self.answer.chars().count(), "character")
                ),
                theme.dim,
            ),
            State::Answered(s) => {
                let cost = match s.cost {
                    Some(c) => format!("about ${c:.4}"),
                    None => "no cost: [review] prices not set".to_owned(),
                };
                let mut text = format!(
                    "{model}{} tokens in, {} out · {cost}",
                    count(s.input),
                    count(s.output)
                );
                if let Some(why) = &s.unrecorded {
                    text.push_str(&format!(" · not in the spend log: {why}"));
                }
                Line::styled(text, theme.header)
            }
            State::Failed(f) if f.cancelled => {
                Line::styled(format!("{model}cancelled"), theme.notice)
            }
            State::Failed(f) => Line::styled(format!("{model}{}", one_line(&f.why)), theme.notice),
        }
    }

    /// The question, the lines asked about and whether the file around them was given.
    fn head(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        let mut asked = Vec::new();
        wrap(
            Line::from(vec![
                Span::styled("Q: ", theme.key),
                Span::styled(one_line(&self.question), theme.text),
            ]),
            width,
            &mut asked,
        );
        out.extend(asked.into_iter().take(3));
        out.push(Line::styled(
            format!(
                "on {} · {}",
                place(&self.sel),
                crate::output::plural::count(self.sel.text.len(), "line")
            ),
            theme.location,
        ));
        for l in self.sel.text.iter().take(SHOWN_LINES) {
            out.push(fit(
                // The code's indentation kept, as the diff shows it (tabs as four spaces).
                Line::styled(
                    format!(
                        "  │ {}",
                        sanitize(l)
                            .replace('\t', "    ")
                            .replace('\n', " ")
                            .trim_end()
                    ),
                    theme.dim,
                ),
                width,
            ));
        }
        if self.sel.text.len() > SHOWN_LINES {
            out.push(Line::styled(
                format!("  │ … {} more", self.sel.text.len() - SHOWN_LINES),
                theme.dim,
            ));
        }
        if let Some(why) = &self.no_file {
            let mut said = Vec::new();
            wrap(
                Line::styled(
                    format!("the file around the lines was not given: {}", one_line(why)),
                    theme.dim,
                ),
                width,
                &mut said,
            );
            out.extend(said.into_iter().take(2));
        }
        out
    }
}

impl Screen for AskScreen {
    fn comment_to_write(&self) -> Option<(LineSelection, String)> {
        self.to_comment
            .then(|| (self.sel.clone(), self.answer.clone()))
    }

    fn name(&self) -> &'static str {
        "answer"
    }

    fn at_stake(&self) -> Vec<String> {
        if self.asking() {
            vec!["a question to the model is being answered: quitting cuts it off".to_owned()]
        } else {
            Vec::new()
        }
    }

    fn opened(&mut self, ctx: &mut Ctx<'_>) {
        ctx.work(Work::Ask {
            snapshot: Box::new((*self.snapshot).clone()),
            sel: self.sel.clone(),
            question: self.question.clone(),
            cancel: self.cancel.clone(),
        });
    }

    fn command(&mut self, cmd: KeyCommand, ctx: &mut Ctx<'_>) -> Handled {
        let (at, max, half) = (self.scroll, self.max_scroll, self.half);
        let to = match cmd {
            KeyCommand::Down => Some(at + 1),
            KeyCommand::Up => Some(at.saturating_sub(1)),
            KeyCommand::PageDown => Some(at + half),
            KeyCommand::PageUp => Some(at.saturating_sub(half)),
            KeyCommand::Top => Some(0),
            KeyCommand::Bottom => Some(max),
            _ => None,
        };
        if let Some(to) = to {
            self.scroll = to.min(max);
            return Handled::Consumed;
        }
        if cmd == KeyCommand::Reply {
            self.comment(ctx);
            return Handled::Consumed;
        }
        // `?`, `q` and `Esc` are the router's (leaving cancels a call on its way: `left`).
        Handled::NotConsumed
    }

    fn left(&mut self, ctx: &mut Ctx<'_>) {
        if self.asking() {
            self.cancel.cancel();
            self.state = State::Failed(Failed {
                why: "cancelled".to_owned(),
                cancelled: true,
            });
            ctx.say("the question to the model was cancelled");
        }
    }

    fn event(&mut self, action: Action, _ctx: &mut Ctx<'_>) -> Option<Action> {
        let done = match &action {
            Action::Done(done) => done.take::<Done>(),
            _ => None,
        };
        let Some(done) = done else {
            return Some(action);
        };
        if !self.asking() {
            // Cancelled: what the call still sends is not shown.
            return None;
        }
        match done {
            Done::Began { model, no_file } => {
                self.model = Some(model);
                self.no_file = no_file;
            }
            Done::Restarted => self.answer.clear(),
            Done::Text(t) => self.answer.push_str(&t),
            Done::Finished(Ok(spent)) => self.state = State::Answered(spent),
            Done::Finished(Err(f)) => self.state = State::Failed(f),
        }
        None
    }

    fn drawn(&mut self, d: Drawn, _ctx: &mut Ctx<'_>) {
        self.max_scroll = d.detail_lines.saturating_sub(usize::from(d.detail_height));
        self.scroll = self.scroll.min(self.max_scroll);
        self.half = usize::from(d.detail_height / 2).max(1);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View<'_>) -> Drawn {
        let theme = view.theme;
        let inner = super::screen::framed(frame, area, &self.snapshot, "ask the model", theme);
        let width = usize::from(inner.width);
        let head = self.head(width, theme);
        let [head_area, body, status_area, foot_area] = Layout::vertical([
            Constraint::Length(u16::try_from(head.len() + 1).unwrap_or(u16::MAX)),
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(inner);
        frame.render_widget(Paragraph::new(head), head_area);
        let lines = if self.answer.is_empty() {
            vec![Line::styled(
                match &self.state {
                    State::Asking => "waiting for the answer…",
                    _ => "no answer",
                },
                theme.dim,
            )]
        } else {
            crate::tui::markdown::render(&sanitize(&self.answer), width, theme)
        };
        let total = lines.len();
        let height = usize::from(body.height);
        let scroll = self.scroll.min(total.saturating_sub(height));
        let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).take(height).collect();
        frame.render_widget(Paragraph::new(shown), body);
        frame.render_widget(Paragraph::new(fit(self.status(theme), width)), status_area);
        let foot = match (view.mode, view.notice) {
            (InputMode::Normal, Some(n)) => Line::styled(one_line(n), theme.notice),
            _ => {
                let mut spans = Vec::new();
                for (c, what) in [
                    (KeyCommand::Down, "scroll"),
                    (KeyCommand::PageDown, "page"),
                    (KeyCommand::Reply, "comment"),
                    (KeyCommand::Help, "help"),
                    (
                        KeyCommand::Quit,
                        if self.asking() { "cancel" } else { "back" },
                    ),
                ] {
                    key_hint(view.keymap, c, what, theme, &mut spans);
                }
                fit_hints(Line::from(spans), view.keymap, width)
            }
        };
        frame.render_widget(Paragraph::new(foot), foot_area);
        Drawn {
            detail_height: body.height,
            detail_lines: total,
            detail_area: body,
            ..Drawn::default()
        }
    }

    fn help(&self, keymap: &Keymap) -> Vec<(String, String)> {
        super::screen::key_help(
            keymap,
            KEYS,
            "back to the diff (while the answer comes: cancels the call)",
        )
    }
}
