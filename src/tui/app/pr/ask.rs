//! The PR screen's questions ([`Ask`]): asked by the screen (its review desk, its thread desk,
//! `M`), kept in its state while the dialog is open, shown through the dialog widget and
//! answered by the screen. The thread screen asks the thread desk's questions with the same type.

use crate::output::plural::count_irregular as count;
use crate::publish::ThreadDo;
use crate::review::results::condense::{BodySize, COMMENT_LIMIT, thousands};
use crate::sanitize::one_line;
use crate::tui::review::PostPreview;
use crate::tui::ui::Dialog;

/// A question of the PR screen: it asks before anything irreversible, or says why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    Post(PostPreview),
    Discard,
    /// `M`: mark this many listed items seen.
    MarkAll {
        count: usize,
    },
    /// The draft is over GitHub's comment limit; `y` replaces it with the composed review,
    /// condensed to fit (`condensed` characters).
    Condense {
        draft: BodySize,
        condensed: usize,
    },
    /// Posting is not allowed (a gate, or posting unavailable): says why; any key closes.
    Refused(String),
    /// A key that cannot act on what is selected (`c` on a row that is no thread): says why;
    /// the next key only closes it, so what was typed for a composer never runs as keys.
    Cannot(String),
    /// `r`/`R` with a review here: a new one calls the model again (`findings`: the review's,
    /// when its run is known).
    Rerun {
        full: bool,
        findings: Option<usize>,
    },
    /// Reply to, resolve or unresolve a review thread.
    Thread(ThreadAsk),
    /// Post a plain conversation comment on the PR.
    Comment(CommentAsk),
}

/// What a confirmed thread action will do, naming its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadAsk {
    pub what: ThreadDo,
    pub thread_id: String,
    /// The thread in words: `src/a.rs:29 (@rajesh-k, PRRT_…) on acme/rivet#482`.
    pub target: String,
    /// Where it goes: "GitHub, as @login" or "the outbox".
    pub destination: String,
}

/// What a confirmed conversation comment will do: on which PR, how long, where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentAsk {
    /// `owner/repo#N`.
    pub target: String,
    pub body: String,
    /// Where it goes: "GitHub, as …" or "the outbox …".
    pub destination: String,
}

impl Ask {
    /// The question as the dialog widget shows it.
    pub fn dialog(&self) -> Dialog {
        match self {
            Ask::Post(p) => {
                let mut d = Dialog::yes_no(if p.incomplete.is_some() {
                    " Post an INCOMPLETE review? "
                } else {
                    " Post the review? "
                });
                if let Some(why) = &p.incomplete {
                    d = d
                        .warning(format!("Incomplete: {}.", one_line(why)))
                        .line("Findings of those aspects are missing; the review says so.")
                        .blank();
                }
                d.line(format!("Target: {}", one_line(&p.target)))
                    .line(match &p.update {
                        Some(id) => format!("Action: update comment {}", one_line(id)),
                        None => "Action: create a new comment".to_owned(),
                    })
                    .line(format!(
                        "Body: {}",
                        BodySize {
                            chars: p.chars,
                            limit: COMMENT_LIMIT,
                        }
                    ))
                    .line(format!("To: {}", one_line(&p.destination)))
                    .blank()
                    .line("y posts · any other key cancels")
            }
            Ask::Discard => Dialog::yes_no(" Discard the draft? ")
                .line("The draft is removed from the ledger; nothing is posted.")
                .blank()
                .line("y discards · any other key keeps it"),
            Ask::MarkAll { count: n } => Dialog::yes_no(" Mark items seen? ")
                .line(format!(
                    "Mark {} seen?",
                    count(*n, "listed item", "listed items")
                ))
                .line("They stop counting as new or edited until they change.")
                .blank()
                .line("y marks them · any other key cancels"),
            Ask::Condense { draft, condensed } => Dialog::yes_no(" Too long for GitHub ")
                .line(format!("The draft is {draft}:"))
                .line(format!(
                    "{} over GitHub's comment limit; GitHub would refuse it.",
                    thousands(draft.over_by())
                ))
                .line(format!(
                    "y replaces it with the review condensed to fit ({} characters);",
                    thousands(*condensed)
                ))
                .line("your edits to the draft are lost.")
                .blank()
                .line("y condenses · any other key keeps the draft"),
            Ask::Refused(why) => Dialog::refusal(" Not posting ", why),
            Ask::Cannot(why) => Dialog::refusal(" Not here ", why),
            Ask::Rerun { full, findings } => Dialog::yes_no(if *full {
                " Run a new full review? "
            } else {
                " Run a new review? "
            })
            .line(match findings {
                Some(n) => format!(
                    "This PR has a review ({}); a new one replaces it.",
                    count(*n, "finding", "findings")
                ),
                None => "This PR has a review draft; a new review replaces it.".to_owned(),
            })
            .line("It calls the model again (a real model costs money).")
            .blank()
            .line("y runs it · any other key keeps the review"),
            Ask::Thread(ask) => {
                let (title, reply) = match &ask.what {
                    ThreadDo::Reply(body) => (
                        " Post this reply? ",
                        Some(format!(
                            "Reply: {}, {}",
                            count(body.chars().count(), "character", "characters"),
                            count(body.lines().count().max(1), "line", "lines")
                        )),
                    ),
                    ThreadDo::Resolve => (" Resolve this thread? ", None),
                    ThreadDo::Unresolve => (" Unresolve this thread? ", None),
                };
                let mut d = Dialog::yes_no(title)
                    .line(format!("Thread: {}", one_line(&ask.target)))
                    .line(format!("To: {}", one_line(&ask.destination)));
                if let Some(reply) = reply {
                    d = d.line(reply);
                }
                d.blank().line("y confirms · any other key cancels")
            }
            Ask::Comment(ask) => Dialog::yes_no(" Post this comment on the conversation? ")
                .line(format!("Target: {}", one_line(&ask.target)))
                .line(format!("To: {}", one_line(&ask.destination)))
                .line(format!(
                    "Comment: {}, {} (a new comment, never an edit)",
                    count(ask.body.chars().count(), "character", "characters"),
                    count(ask.body.lines().count().max(1), "line", "lines")
                ))
                .blank()
                .line("y posts · any other key cancels (the comment is kept)"),
        }
    }

    /// A refusal: nothing to answer, any key closes it.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Ask::Refused(_) | Ask::Cannot(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Draft, SeenSet};
    use crate::tui::app::dialogs::testing::{demo_snapshot, press, screen};
    use crate::tui::app::{Action, App, InputMode};
    use crate::tui::keymap::KeyCommand;
    use crate::tui::session::Session;

    fn app(snap: crate::pr::Snapshot, gates: crate::policy::GateConfig) -> App {
        App::new(
            snap,
            SeenSet::default(),
            Session {
                gates,
                ..Session::default()
            },
        )
    }

    /// `M` asks; the question is the PR screen's, drawn from it; `y` reaches it and marks.
    #[test]
    fn the_pr_screens_question_is_drawn_from_its_state_and_y_reaches_it() {
        let mut app = app(demo_snapshot(), Default::default());
        app.update(Action::Command(KeyCommand::MarkAll));
        assert_eq!(*app.mode(), InputMode::Asked);
        let Some(ask @ Ask::MarkAll { count }) = app.pr_asked().cloned() else {
            panic!("not the PR screen's question: {:?}", app.pr_asked());
        };
        assert_eq!(app.question(), Some(ask.dialog()));
        assert!(
            screen(&app).contains(&format!("Mark {count} listed items seen?")),
            "{}",
            screen(&app)
        );
        let fx = press(&mut app, 'y');
        assert!(
            fx.iter()
                .any(|e| matches!(e.work(), Some(crate::tui::app::pr::Work::MarkSeen { .. }))),
            "{fx:?}"
        );
        assert_eq!(*app.mode(), InputMode::Normal);
        assert_eq!(
            app.pr().and_then(|p| p.asked()),
            None,
            "answered, it is gone"
        );
    }

    /// A refusal (a gate says no) is the PR screen's too, and any key, `y` included, closes it
    /// without posting.
    #[test]
    fn a_refusal_of_the_pr_screen_closes_on_any_key() {
        let mut snap = demo_snapshot();
        snap.pr.labels = vec!["keep-out".into()];
        let never = crate::policy::GateConfig {
            never_label: "keep-out".into(),
            ..Default::default()
        };
        let mut app = app(snap.clone(), never);
        app.update(Action::to(
            app.top_id(),
            Action::DraftRestored(Draft {
                body: "## PR Shepherd Review\n\nok".to_owned(),
                head_sha: snap.pr.head_sha.clone(),
                saved_at: 0,
            }),
        ));
        app.update(Action::Command(KeyCommand::Post));
        assert!(
            matches!(app.pr_asked(), Some(Ask::Refused(why)) if why.contains("keep-out")),
            "{:?}",
            app.pr_asked()
        );
        let q = app.question().expect("the refusal");
        assert_eq!(q.answers(), crate::tui::ui::Answers::AnyKey);
        assert!(screen(&app).contains("Not posting"));
        let fx = press(&mut app, 'y');
        assert!(fx.is_empty(), "{fx:?}");
        assert_eq!(*app.mode(), InputMode::Normal);
        assert!(!app.posting());
    }
}
