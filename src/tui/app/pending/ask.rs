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
