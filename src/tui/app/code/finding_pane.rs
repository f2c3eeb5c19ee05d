//! A finding or a pending comment read whole in the diff, and decided there: `Enter` on its
//! line opens the pane over the lower part of the diff (the line above it still in sight) with
//! the whole text, where it is and how it stands; the pending review's keys act on it there —
//! `Enter` keeps a finding's draft (or a dropped comment), `e` edits it in the composer under
//! its line, `d` drops it, `D` dismisses the finding with its reason (`L`: as a lesson for the
//! repository), recorded in the decision log every list reads. `Esc` or `q` closes the pane.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::note::About;
use crate::code::pending::{DraftState, PendingComment, PendingReview};
use crate::output::files::FindingMark;
use crate::sanitize::{one_line, sanitize};
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::{bordered, wrap};

/// The pane open on one note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingPane {
    /// A pending comment's id, or a finding's (one with no draft in the pending review).
    pub about: About,
    pub scroll: usize,
}

/// What the pane shows of its note, read from the pending review and the findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub title: String,
    pub lines: Vec<String>,
}

/// What a key in the pane asks of the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaneKey {
    Close,
    Scroll(usize),
    Keep(String),
    Drop(String),
    Edit(String),
    /// Dismiss the finding `id` (with `true`: as a lesson for the repository).
    Dismiss(String, bool),
    /// Said, nothing done.
    Say(String),
}

/// The commands the pane answers, for `?` and its title.
pub const KEYS: &[(KeyCommand, &str)] = &[
    (
        KeyCommand::Toggle,
        "keep the finding's draft (or a dropped comment)",
    ),
    (
        KeyCommand::Edit,
        "edit its text in the composer under its line",
    ),
    (KeyCommand::Discard, "drop it from the pending review"),
    (KeyCommand::Dismiss, "dismiss the finding, with its reason"),
    (
        KeyCommand::Lesson,
        "dismiss it as a lesson for the repository",
    ),
    (KeyCommand::Back, "close the pane"),
];

/// The footer's hints while the pane is open.
pub const HINTS: &[(KeyCommand, &str)] = &[
    (KeyCommand::Toggle, "keep"),
    (KeyCommand::Edit, "edit"),
    (KeyCommand::Discard, "drop"),
    (KeyCommand::Dismiss, "dismiss"),
];

impl FindingPane {
    pub fn new(about: About) -> FindingPane {
        FindingPane { about, scroll: 0 }
    }

    /// The pending comment the pane is on, if it is on one.
    pub fn comment<'a>(&self, pending: Option<&'a PendingReview>) -> Option<&'a PendingComment> {
        match &self.about {
            About::Pending(id) => pending?.get(id),
            _ => None,
        }
    }

    /// The finding the pane's note is of: a finding's own, or the one a draft was made from.
    pub fn finding<'a>(
        &self,
        pending: Option<&PendingReview>,
        findings: &'a [FindingMark],
    ) -> Option<&'a FindingMark> {
        let id = match &self.about {
            About::Finding(id) => Some(id.as_str()),
            About::Pending(_) => self.comment(pending)?.finding_id.as_deref(),
            About::Thread(_) => None,
        }?;
        findings.iter().find(|f| f.id == id)
    }

    /// The note whole: its title (what it is, how it stands, where) and its text's lines.
    pub fn shown(&self, pending: Option<&PendingReview>, findings: &[FindingMark]) -> Shown {
        let finding = self.finding(pending, findings);
        let mut lines = Vec::new();
        let title = match (self.comment(pending), finding) {
            (Some(c), f) => {
                let state = match c.state {
                    DraftState::Proposed => "to decide",
                    DraftState::Kept => "kept",
                    DraftState::Edited => "edited",
                    DraftState::Dropped => "dropped",
                    DraftState::Posted => "posted",
                };
                if let Some(f) = f {
                    // The draft's text says the finding; this says which one it is.
                    lines.push(format!(
                        "{} · {} · finding {}",
                        one_line(&f.severity),
                        one_line(&f.meta.aspect),
                        one_line(&f.id)
                    ));
                    lines.push(String::new());
                }
                lines.extend(sanitize(&c.body).lines().map(str::to_owned));
                if let Some(said) = c.follow_said() {
                    lines.push(String::new());
                    lines.push(one_line(&said));
                }
                format!(" {} · {state} · {} ", one_line(&c.id), one_line(&c.place()))
            }
            (None, Some(f)) => {
                lines.push(format!(
                    "{} · {}",
                    one_line(&f.severity),
                    one_line(&f.meta.aspect)
                ));
                lines.push(String::new());
                lines.extend(sanitize(&f.message).lines().map(str::to_owned));
                lines.push(String::new());
                lines.push(
                    "No draft of it in the pending review: D dismisses it, P lists the drafts"
                        .to_owned(),
                );
                let at = f.line.map_or(String::new(), |l| format!(":{l}"));
                format!(" finding {} · {}{at} ", one_line(&f.id), one_line(&f.file))
            }
            (None, None) => {
                lines.push("it is no longer in the pending review or the review".to_owned());
                " gone ".to_owned()
            }
        };
        Shown { title, lines }
    }

    /// What `cmd` does in the pane, for the note as it stands.
    pub fn key(
        &self,
        cmd: KeyCommand,
        pending: Option<&PendingReview>,
        findings: &[FindingMark],
        half: usize,
    ) -> PaneKey {
        let comment = self.comment(pending);
        let finding = self.finding(pending, findings).map(|f| f.id.clone());
        let id = comment.map(|c| c.id.clone());
        let posted = comment.is_some_and(|c| c.state == DraftState::Posted);
        let no_draft = || {
            PaneKey::Say("no draft of it in the pending review: only D or L decide it".to_owned())
        };
        match cmd {
            KeyCommand::Back | KeyCommand::Quit => PaneKey::Close,
            KeyCommand::Down => PaneKey::Scroll(self.scroll + 1),
            KeyCommand::Up => PaneKey::Scroll(self.scroll.saturating_sub(1)),
            KeyCommand::PageDown => PaneKey::Scroll(self.scroll + half),
            KeyCommand::PageUp => PaneKey::Scroll(self.scroll.saturating_sub(half)),
            KeyCommand::Top => PaneKey::Scroll(0),
            _ if posted && cmd != KeyCommand::Dismiss && cmd != KeyCommand::Lesson => {
                PaneKey::Say("already posted on the PR: it is never sent again".to_owned())
            }
            KeyCommand::Toggle => id.map_or_else(no_draft, PaneKey::Keep),
            KeyCommand::Discard => id.map_or_else(no_draft, PaneKey::Drop),
            // `e` is the diff's context key too: in the pane it edits.
            KeyCommand::Edit | KeyCommand::ExpandContext => id.map_or_else(no_draft, PaneKey::Edit),
            KeyCommand::Dismiss | KeyCommand::Lesson => match finding {
                Some(f) => PaneKey::Dismiss(f, cmd == KeyCommand::Lesson),
                None => PaneKey::Say(
                    "not a finding: only a finding is dismissed (d drops this comment)".to_owned(),
                ),
            },
            _ => PaneKey::Say(
                "the pane is open: Enter keep · e edit · d drop · D dismiss · Esc closes"
                    .to_owned(),
            ),
        }
    }

    /// Where the pane goes: the lower half of `body` (at least 5 rows), the line above it
    /// still in sight.
    fn rect(body: Rect) -> Rect {
        let h = (body.height / 2).max(5).min(body.height);
        Rect {
            y: body.y + body.height - h,
            height: h,
            ..body
        }
    }

    fn wrapped(shown: &Shown, width: u16, style: Style) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for l in &shown.lines {
            wrap(
                Line::from(Span::styled(l.clone(), style)),
                usize::from(width),
                &mut out,
            );
        }
        out
    }

    /// How far the text can scroll in a pane over `body`.
    pub fn max_scroll(shown: &Shown, body: Rect) -> usize {
        // Inside its border.
        let r = Self::rect(body);
        let (w, h) = (r.width.saturating_sub(2), r.height.saturating_sub(2));
        Self::wrapped(shown, w, Style::default())
            .len()
            .saturating_sub(usize::from(h))
    }

    /// The pane over the lower part of `body`, its text wrapped and scrolled.
    pub fn draw(
        &self,
        frame: &mut Frame,
        body: Rect,
        shown: &Shown,
        keymap: &Keymap,
        theme: &Theme,
    ) {
        let rect = Self::rect(body);
        let k = |c: KeyCommand| keymap.keys_label(c);
        let keys = format!(
            " {} keep · {} edit · {} drop · {} dismiss · {} close ",
            k(KeyCommand::Toggle),
            k(KeyCommand::Edit),
            k(KeyCommand::Discard),
            k(KeyCommand::Dismiss),
            k(KeyCommand::Back),
        );
        let block = bordered(shown.title.clone(), true, theme).title_bottom(keys);
        let inner = block.inner(rect);
        let out = Self::wrapped(shown, inner.width, theme.text);
        let max = out.len().saturating_sub(usize::from(inner.height));
        let visible: Vec<Line<'static>> = out
            .into_iter()
            .skip(self.scroll.min(max))
            .take(usize::from(inner.height))
            .collect();
        frame.render_widget(Clear, rect);
        frame.render_widget(block, rect);
        frame.render_widget(Paragraph::new(visible), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::inputs::prior::MetaFinding;

    fn finding() -> FindingMark {
        FindingMark::from(MetaFinding {
            id: "PS-1".into(),
            aspect: "correctness".into(),
            severity: "important".into(),
            file: "src/a.rs".into(),
            line: Some(3),
            message: "the retry never stops\nwhen the server says 429".into(),
            ..MetaFinding::default()
        })
    }

    #[test]
    fn a_finding_without_a_draft_is_shown_whole_and_only_dismissed() {
        let p = FindingPane::new(About::Finding("PS-1".into()));
        let f = [finding()];
        let s = p.shown(None, &f);
        assert!(s.title.contains("finding PS-1 · src/a.rs:3"), "{}", s.title);
        assert!(s.lines.iter().any(|l| l == "when the server says 429"));
        assert_eq!(
            p.key(KeyCommand::Dismiss, None, &f, 5),
            PaneKey::Dismiss("PS-1".into(), false)
        );
        assert_eq!(
            p.key(KeyCommand::Lesson, None, &f, 5),
            PaneKey::Dismiss("PS-1".into(), true)
        );
        assert!(matches!(
            p.key(KeyCommand::Toggle, None, &f, 5),
            PaneKey::Say(_)
        ));
        assert_eq!(p.key(KeyCommand::Back, None, &f, 5), PaneKey::Close);
    }

    #[test]
    fn a_gone_note_says_so() {
        let p = FindingPane::new(About::Pending("c9".into()));
        assert!(p.shown(None, &[]).lines[0].contains("no longer"));
        assert!(matches!(
            p.key(KeyCommand::Dismiss, None, &[], 5),
            PaneKey::Say(_)
        ));
    }
}
