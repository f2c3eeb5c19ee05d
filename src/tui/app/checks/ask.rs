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
