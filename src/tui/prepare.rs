//! Preparing a console review run (`r`/`R`): settings, backend, prompts, earlier reviews, mode.
//! One function, [`prepare`], so that switching the console to the shared review flow of the
//! headless commands is a local change here.

use std::sync::Arc;

use super::app::Action;
use crate::ledger::Ledger;
use crate::policy::Mode as ReviewMode;
use crate::pr::{Origin, PrMeta, Snapshot};
use crate::review::ReviewSettings;
use crate::review::llm::{LlmClient, ReplaySource};
use crate::review::prior::{MetaFinding, prior_reviews};
use crate::review::prompt::Prompts;
use crate::source::Fixture;

/// What a console review needs beyond the snapshot.
#[derive(Debug, Clone)]
pub struct ReviewContext {
    pub settings: ReviewSettings,
    /// Offline: the login whose `## PR Shepherd Review` comments count as Shepherd's own.
    pub identity: String,
    /// The literal marker that ends a reply addressing a finding.
    pub reply_marker: String,
}

impl Default for ReviewContext {
    fn default() -> Self {
        ReviewContext {
            settings: ReviewSettings::default(),
            identity: "pr-shepherd".to_owned(),
            reply_marker: crate::review::classify::DEFAULT_REPLY_MARKER.to_owned(),
        }
    }
}

/// A prepared review run: everything the background task needs.
pub struct Prepared {
    pub seq: u64,
    pub settings: ReviewSettings,
    pub client: Arc<LlmClient>,
    pub prompts: Arc<Prompts>,
    pub pr: Arc<PrMeta>,
    pub prior_findings: Vec<MetaFinding>,
    /// `Action::ReviewStarted` for the app.
    pub started: Action,
}

/// Prepares run `seq` exactly like `pr-shepherd review`: replay with the fixture's recorded
/// answers at the snapshot's step for fixtures (unless the settings name a backend), else the
/// settings; earlier reviews from the PR (plus the outbox offline) decide incremental or full.
pub fn prepare(
    review: &ReviewContext,
    fixture: Option<&Fixture>,
    ledger: &Ledger,
    seq: u64,
    full: bool,
    snapshot: &Snapshot,
) -> Result<Prepared, String> {
    let step = match snapshot.origin {
        Origin::Fixture { step, .. } => step,
        Origin::Live => 0,
    };
    let replay = fixture.map(|f| ReplaySource {
        answers: f.llm.answers.clone(),
        step,
    });
    let settings = review.settings.clone();
    settings.validate().map_err(|e| e.to_string())?;
    let client = LlmClient::from_settings(&settings, replay).map_err(|e| e.to_string())?;
    let prompts = Prompts::load(settings.prompts_dir.as_deref());
    let coords = snapshot.pr.coords();
    let mut prior = prior_reviews(snapshot, &review.identity);
    if fixture.is_some() {
        prior.add_outbox(ledger.outbox(&coords).map_err(|e| e.to_string())?);
    }
    let (mode, reason) = crate::review::aggregate::choose_mode(&prior, full);
    let prior_findings = match mode {
        ReviewMode::Incremental => prior.findings(),
        ReviewMode::Full => Vec::new(),
    };
    Ok(Prepared {
        seq,
        settings,
        client: Arc::new(client),
        prompts: Arc::new(prompts),
        pr: Arc::new(snapshot.pr.clone()),
        prior_findings,
        started: Action::ReviewStarted {
            seq,
            mode,
            reason,
            prior: Box::new(prior),
            reply_marker: review.reply_marker.clone(),
        },
    })
}
