//! The checks screen's one question: re-run the failed jobs, naming each workflow run and its
//! failing checks. Kept in the screen's state while the dialog is open, shown through the dialog
//! widget, answered by the screen.

use crate::pr::checks::RerunTarget;
use crate::sanitize::one_line;
use crate::tui::ui::Dialog;

/// What a confirmed re-run will do: on which PR, which workflow runs and their failing checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RerunAsk {
    /// `owner/repo#N`.
    pub target: String,
    pub runs: Vec<RerunTarget>,
}

impl RerunAsk {
    /// The question as the dialog widget shows it.
    pub fn dialog(&self) -> Dialog {
        let mut d = Dialog::yes_no(" Re-run the failed jobs? ")
            .line(format!("Target: {}", one_line(&self.target)));
        for t in &self.runs {
            d = d.line(format!(
                "· workflow run {}: {}",
                t.run,
                t.checks
                    .iter()
                    .map(|c| one_line(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        d.line(format!(
            "GitHub gets one request per run: {} in all.",
            self.runs.len()
        ))
        .blank()
        .line("y re-runs · any other key cancels")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::pr::{CheckKind, CheckRun, CheckState};
    use crate::tui::app::dialogs::testing::{demo_snapshot, press, screen};
    use crate::tui::app::{Action, App, ChecksLoad, ChecksScreen, Effect, InputMode};
    use crate::tui::keymap::KeyCommand;
    use crate::tui::session::Session;

    /// `W` asks; the question is the checks screen's, drawn from it; `y` re-runs.
    #[test]
    fn the_checks_screens_question_is_drawn_from_its_state_and_y_reaches_it() {
        let snap = demo_snapshot();
        let mut app = App::with_screen(
            Box::new(ChecksScreen::new(Arc::new(snap.clone()))),
            Session::default(),
        );
        let failing = CheckRun {
            name: "test".into(),
            kind: CheckKind::Run,
            state: CheckState::Failing,
            conclusion: None,
            started_at: None,
            completed_at: None,
            url: None,
            id: None,
            workflow_run_id: Some(9001),
            annotations: Vec::new(),
            log_tail: None,
        };
        app.update(Action::ChecksLoaded {
            pr: snap.pr.coords(),
            result: Ok(Box::new(ChecksLoad {
                runs: vec![failing],
                new: Default::default(),
                offline: false,
            })),
        });
        app.update(Action::Command(KeyCommand::RerunFailed));
        assert_eq!(*app.mode(), InputMode::Asked);
        let ask = app.checks_asked().cloned().expect("the re-run question");
        assert_eq!(ask.runs.len(), 1);
        assert_eq!(app.question(), Some(ask.dialog()));
        assert!(screen(&app).contains("· workflow run 9001: test"));
        let fx = press(&mut app, 'y');
        assert!(
            matches!(fx.as_slice(), [Effect::RerunFailed { runs, .. }] if runs == &[9001]),
            "{fx:?}"
        );
        assert_eq!(*app.mode(), InputMode::Normal);
        assert_eq!(app.checks_asked(), None);
    }
}
