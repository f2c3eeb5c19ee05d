//! The pending review screen's questions ([`Ask`]): submitting (as a comment, requesting
//! changes, or approving, named), or why it cannot be submitted now. Kept in the screen's state
//! while the dialog is open, shown through the dialog widget, answered by the screen.

use crate::output::plural::{count, count_irregular};
use crate::sanitize::one_line;
use crate::tui::ui::Dialog;

/// A question of the pending review screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// Submit the pending review (comment, request changes, or approve: named).
    Submit(SubmitAsk),
    /// It cannot be submitted now: says why; any key closes.
    Refused(String),
}

/// How the maintainer chose to submit the pending review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmitAs {
    Comment,
    RequestChanges,
    Approve,
}

impl SubmitAs {
    /// "comment", "request changes", "approve".
    pub fn said(self) -> &'static str {
        match self {
            SubmitAs::Comment => "comment",
            SubmitAs::RequestChanges => "request changes",
            SubmitAs::Approve => "approve",
        }
    }
}

/// What a confirmed submission will do, naming its event, target and destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmitAsk {
    pub how: SubmitAs,
    /// `owner/repo#N`.
    pub target: String,
    pub comments: usize,
    /// Where it goes: "GitHub, as @login" or "the outbox".
    pub destination: String,
    /// Findings' drafts still to decide: they stay out of the review (and stay pending).
    pub undecided: usize,
    /// The comments that go where their lines moved, said (`c2 moved src/x.rs:10 → :14`).
    pub moved: Vec<String>,
    /// The review's summary body, as written in the editor before the question (may be empty).
    pub body: String,
}

impl Ask {
    /// The question as the dialog widget shows it.
    pub fn dialog(&self) -> Dialog {
        let ask = match self {
            Ask::Refused(why) => return Dialog::refusal(" Not posting ", why),
            Ask::Submit(ask) => ask,
        };
        let mut d = Dialog::yes_no(match ask.how {
            SubmitAs::Approve => " APPROVE this pull request? ",
            SubmitAs::RequestChanges => " Request changes? ",
            SubmitAs::Comment => " Submit the review? ",
        })
        .line(format!("Submit as: {}", ask.how.said()))
        .line(format!("Target: {}", one_line(&ask.target)))
        .line(format!("Line comments: {}", ask.comments))
        .line(match ask.body.trim().chars().count() {
            0 => "Body: none".to_owned(),
            n => format!("Body: {}", count(n, "character")),
        })
        .line(format!("To: {}", one_line(&ask.destination)));
        // Comments that go where their lines moved since they were written, said.
        for m in &ask.moved {
            d = d.line(format!("· {}", one_line(m)));
        }
        // Undecided drafts are named: kept out of this review, or decided first.
        if ask.undecided > 0 {
            d = d.line(format!(
                "Undecided: {} from findings, left out of this review",
                count_irregular(ask.undecided, "draft", "drafts")
            ));
        }
        let verb = match ask.how {
            SubmitAs::Approve => "approves the PR".to_owned(),
            _ => format!("submits ({})", ask.how.said()),
        };
        d.blank().line(if ask.undecided > 0 {
            format!("y {verb} without them · any other key goes back to decide them")
        } else {
            format!("y {verb} · any other key cancels")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Side;
    use crate::code::pending::{CommentKind, PendingReview};
    use crate::review::results::inline::parsed_patches;
    use crate::tui::app::dialogs::testing::{demo_snapshot, press, screen};
    use crate::tui::app::{Action, App, InputMode, PendingScreen};
    use crate::tui::keymap::KeyCommand;
    use crate::tui::session::Session;

    /// The pending review screen on the demo PR with one comment at (`path`, `line`).
    fn pending_with_a_comment(path: &str, line: u32) -> App {
        let snap = demo_snapshot();
        let mut app = App::with_screen(
            Box::new(PendingScreen::new(snap.clone())),
            Session::default(),
        );
        let mut review = PendingReview::default();
        review
            .add(
                path,
                Side::Right,
                None,
                line,
                "Rename this.",
                CommentKind::Comment,
                None,
            )
            .expect("a comment");
        let loaded = crate::tui::app::pending::Done::Loaded {
            review: Ok(Box::new(review)),
            summary: None,
        };
        app.update(Action::to(
            app.top_id(),
            Action::Done(crate::tui::app::Done::new(loaded)),
        ));
        app
    }

    /// `p`, the body written, asks; the question is the screen's, drawn from it, and `y`
    /// submits.
    #[test]
    fn the_pending_screens_question_is_drawn_from_its_state_and_y_reaches_it() {
        let snap = demo_snapshot();
        let patches = parsed_patches(&snap);
        let (path, line) = patches
            .iter()
            .find_map(|(p, patch)| {
                let addr = patch.lines.iter().find_map(|l| l.addr())?;
                (addr.side == Side::Right).then(|| (p.clone(), addr.line))
            })
            .expect("a line in the demo's diff");
        let mut app = pending_with_a_comment(&path, line);
        app.update(Action::Command(KeyCommand::Post));
        assert_eq!(*app.mode(), InputMode::Edit, "the body's editor first");
        app.update(Action::EditDone);
        assert_eq!(*app.mode(), InputMode::Asked);
        let Some(ask) = app.pending_asked().cloned() else {
            panic!("no question of the pending screen: {:?}", app.mode());
        };
        assert!(
            matches!(&ask, Ask::Submit(s) if (s.how, s.comments) == (SubmitAs::Comment, 1)),
            "{ask:?}"
        );
        assert_eq!(app.question(), Some(ask.dialog()));
        assert!(
            screen(&app).contains("Submit the review?"),
            "{}",
            screen(&app)
        );
        let fx = press(&mut app, 'y');
        assert!(
            matches!(
                fx.as_slice(),
                [e] if matches!(e.work(), Some(crate::tui::app::pending::Work::Submit { .. }))
            ),
            "{fx:?}"
        );
        assert_eq!(*app.mode(), InputMode::Normal);
        assert_eq!(app.pending().and_then(|p| p.asked()), None);
    }

    /// A comment whose line is not in the diff: refused, and any key closes the refusal.
    #[test]
    fn a_refusal_of_the_pending_screen_closes_on_any_key() {
        let mut app = pending_with_a_comment("no/such/file.rs", 1);
        app.update(Action::Command(KeyCommand::Post));
        assert!(
            matches!(app.pending_asked(), Some(Ask::Refused(_))),
            "{:?}",
            app.pending_asked()
        );
        assert!(screen(&app).contains("any key closes"));
        let fx = press(&mut app, 'y');
        assert!(fx.is_empty(), "{fx:?}");
        assert_eq!(*app.mode(), InputMode::Normal);
    }
}
