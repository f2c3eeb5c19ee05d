//! The line-comment composer beside the code: `c` and `S` in the diff (and `e` on a pending
//! comment's line, `c` from the model's answer) open an editor under the line or the selected
//! lines, the lines above it still in sight, in both layouts. `Esc` is done: the text goes into
//! the pending review on the ledger lane (read, changed and saved there, so no copy of the
//! review held elsewhere is written over) and comes back as a note under its line; an empty text
//! adds nothing. `ctrl-o` hands the text to `$VISUAL`/`$EDITOR`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};
use ratatui_textarea::TextArea;

use super::work::{PendingChange, Work};
use crate::code::patch::LineSelection;
use crate::code::pending::suggestion_body;
use crate::pr::Snapshot;
use crate::sanitize::{one_line, sanitize};
use crate::tui::app::action::{Action, EditTarget};
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::effect::Effect;
use crate::tui::app::screen::Ctx;
use crate::tui::theme::Theme;
use crate::tui::ui::bordered;

/// What the composer's text becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A new comment (a suggestion or not) on these lines.
    New {
        sel: LineSelection,
        suggestion: bool,
    },
    /// The pending comment (or finding's draft) with this id, on these lines, edited.
    Existing { id: String, sel: LineSelection },
}

impl Target {
    fn sel(&self) -> &LineSelection {
        match self {
            Target::New { sel, .. } | Target::Existing { sel, .. } => sel,
        }
    }
}

/// The composer open in the diff.
#[derive(Debug, Clone)]
pub struct Composer {
    pub target: Target,
    editor: TextArea<'static>,
}

/// The rows the composer takes under its line: a third of the body, 4 to 10 (its border
/// included), never the whole body.
pub fn rows(body: u16) -> u16 {
    (body / 3).clamp(4, 10).min(body.saturating_sub(2).max(1))
}

impl Composer {
    /// A new comment on `sel` (with `suggestion`, prefilled with the selected lines), or one
    /// starting from `text` (the model's answer), sanitized.
    pub fn new(sel: LineSelection, suggestion: bool, text: Option<&str>) -> Composer {
        let prefill = match text {
            Some(t) => sanitize(t).into_owned(),
            None if suggestion => suggestion_body(&sel.text),
            None => String::new(),
        };
        Composer {
            target: Target::New { sel, suggestion },
            editor: crate::tui::editor::area(&prefill),
        }
    }

    /// The pending comment `id` on `sel`, its text `body` in the editor.
    pub fn editing(id: String, sel: LineSelection, body: &str) -> Composer {
        Composer {
            target: Target::Existing { id, sel },
            editor: crate::tui::editor::area(&sanitize(body)),
        }
    }

    pub fn text(&self) -> String {
        self.editor.lines().join("\n")
    }

    /// The composer in `slot` takes the keys (the editor's layer).
    pub fn open(slot: &mut Option<Composer>, c: Composer, ctx: &mut Ctx<'_>) {
        *slot = Some(c);
        *ctx.mode = InputMode::Edit;
    }

    /// The editor's input: keys edit, `ctrl-o` goes to the external editor, `Esc` is done — the
    /// change is asked of the pending review (`None`: nothing to change, said).
    pub fn dialog(
        slot: &mut Option<Composer>,
        action: Action,
        snapshot: &Snapshot,
        ctx: &mut Ctx<'_>,
    ) -> bool {
        let Some(c) = slot.as_mut() else {
            return false;
        };
        match action {
            Action::EditKey(ev) if crate::tui::editor::is_external_key(&ev) => {
                ctx.fx.push(Effect::ExternalEdit {
                    target: EditTarget::Pending,
                    text: c.text(),
                });
            }
            Action::EditKey(ev) => {
                crate::tui::editor::input(&mut c.editor, ev);
            }
            Action::EditDone => {
                *ctx.mode = InputMode::Normal;
                let Some(c) = slot.take() else { return true };
                let text = c.text();
                let change = match c.target {
                    Target::New { .. } if text.trim().is_empty() => {
                        ctx.say("empty: nothing added");
                        return true;
                    }
                    Target::New { sel, suggestion } => PendingChange::Add {
                        sel,
                        text,
                        suggestion,
                    },
                    Target::Existing { id, .. } => PendingChange::Edit { id, text },
                };
                ctx.work(Work::ChangePending {
                    snapshot: Box::new(snapshot.clone()),
                    change,
                });
            }
            _ => return false,
        }
        true
    }

    /// The external editor's text: the composer takes it (undoable), `Esc` is still done.
    pub fn externally_edited(
        slot: &mut Option<Composer>,
        result: Result<String, String>,
        ctx: &mut Ctx<'_>,
    ) {
        match (result, slot.as_mut()) {
            (Ok(text), Some(c)) => {
                crate::tui::editor::replace(&mut c.editor, &text);
                ctx.say("the composer has the external editor's text; Esc adds it");
            }
            (Ok(_), None) => ctx.say("the composer was closed: the edited text was not kept"),
            (Err(why), _) => ctx.say(one_line(&why)),
        }
    }

    /// Where it writes: `path:12-14`.
    pub fn place(&self) -> String {
        let sel = self.target.sel();
        match &sel.start {
            Some(s) if s.line != sel.end.line => {
                format!("{}:{}-{}", one_line(&sel.path), s.line, sel.end.line)
            }
            _ => format!("{}:{}", one_line(&sel.path), sel.end.line),
        }
    }

    /// Its title: what it writes, where, and its keys.
    fn title(&self) -> String {
        let sel = self.target.sel();
        let lines = match &sel.start {
            Some(s) if s.line != sel.end.line => format!("{}-{}", s.line, sel.end.line),
            _ => sel.end.line.to_string(),
        };
        let what = match &self.target {
            Target::New {
                suggestion: true, ..
            } => "Suggestion".to_owned(),
            Target::New { .. } => "Comment".to_owned(),
            Target::Existing { id, .. } => format!("Editing {}", one_line(id)),
        };
        let side = match sel.end.side {
            crate::code::patch::Side::Left => " (old side)",
            crate::code::patch::Side::Right => "",
        };
        format!(
            " {what} on {}:{lines}{side} · {} $EDITOR · Esc keeps it (pending review) ",
            one_line(&sel.path),
            crate::tui::editor::EXTERNAL_KEY
        )
    }

    /// The composer in `rect` (its border and the editor).
    pub fn draw(&self, frame: &mut Frame, rect: Rect, theme: &Theme) {
        let block = bordered(self.title(), true, theme);
        let inner = block.inner(rect);
        frame.render_widget(Clear, rect);
        frame.render_widget(block, rect);
        frame.render_widget(&self.editor, inner);
    }
}

/// The footer while the composer is open: its keys.
pub fn footer(theme: &Theme) -> Line<'static> {
    use ratatui::text::Span;
    let mut spans = Vec::new();
    for (k, what) in [
        ("Esc", "keep it in the pending review"),
        (crate::tui::editor::EXTERNAL_KEY, "$EDITOR"),
        ("Enter", "new line"),
    ] {
        spans.push(Span::styled(k.to_owned(), theme.key));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    Line::from(spans)
}

/// The body with the composer under its line: the screen lines up to the end of that line's
/// row (`under_end`; at the bottom when it is not in sight), the composer, then what follows,
/// as far as the body goes. When the line is too low for the composer to fit under it, the
/// lines above it give way first: the commented line stays right above the composer.
pub fn draw_under(
    frame: &mut Frame,
    body: Rect,
    lines: Vec<Line<'static>>,
    under_end: Option<usize>,
    c: &Composer,
    theme: &Theme,
) {
    let h = rows(body.height);
    let room = usize::from(body.height.saturating_sub(h));
    let k = under_end.unwrap_or(lines.len()).min(lines.len());
    let from = k.saturating_sub(room);
    let above: Vec<Line<'static>> = lines[from..k].to_vec();
    let n_above = above.len();
    let below: Vec<Line<'static>> = lines[k..].iter().take(room - n_above).cloned().collect();
    let at = |y: usize, height: usize| Rect {
        y: body.y + u16::try_from(y).unwrap_or(u16::MAX).min(body.height),
        height: u16::try_from(height).unwrap_or(0),
        ..body
    };
    frame.render_widget(Paragraph::new(above), at(0, n_above));
    c.draw(frame, at(n_above, usize::from(h)), theme);
    let rest = usize::from(body.height).saturating_sub(n_above + usize::from(h));
    frame.render_widget(Paragraph::new(below), at(n_above + usize::from(h), rest));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::patch::{LineAddr, Side};

    fn sel(start: Option<u32>, end: u32) -> LineSelection {
        LineSelection {
            path: "src/a.rs".into(),
            start: start.map(|line| LineAddr {
                side: Side::Right,
                line,
            }),
            end: LineAddr {
                side: Side::Right,
                line: end,
            },
            text: vec!["let a = 1;".into(), "let b = 2;".into()],
        }
    }

    #[test]
    fn a_suggestion_starts_from_the_selected_lines_and_a_comment_empty() {
        let c = Composer::new(sel(Some(3), 4), true, None);
        assert!(c.text().starts_with("```suggestion"), "{}", c.text());
        assert!(c.text().contains("let b = 2;"));
        assert_eq!(Composer::new(sel(None, 4), false, None).text(), "");
    }

    #[test]
    fn the_title_names_the_lines_and_says_esc_keeps_it() {
        let c = Composer::new(sel(Some(3), 4), false, None);
        assert!(
            c.title().contains("Comment on src/a.rs:3-4"),
            "{}",
            c.title()
        );
        assert!(c.title().contains("Esc keeps it (pending review)"));
        let e = Composer::editing("c2".into(), sel(None, 4), "old");
        assert!(
            e.title().contains("Editing c2 on src/a.rs:4"),
            "{}",
            e.title()
        );
        assert_eq!(e.text(), "old");
    }

    #[test]
    fn an_answer_is_sanitized_before_the_editor() {
        let c = Composer::new(sel(None, 4), false, Some("fine\u{1b}[31m red"));
        assert!(!c.text().contains('\u{1b}'), "{:?}", c.text());
    }

    #[test]
    fn the_composer_takes_a_third_of_the_body_within_bounds() {
        assert_eq!(rows(21), 7);
        assert_eq!(rows(6), 4);
        assert_eq!(rows(60), 10);
        assert!(rows(3) < 3);
    }
}
