//! The answer pane's own effect ([`Work::Ask`]) and its results ([`Done`]): the file around the
//! selection read (at the head for the new side, at the base for the old; live through the
//! session's blob cache, offline from the fixture's file contents), then one question to the
//! backend through [`crate::review::engine::ask`] — fenced prompt, budget reserved and settled in
//! the spend log, streamed — each piece of the answer sent back as it arrives. The pane's I/O
//! edge: only the effect runner performs it (see `app/work.rs`).

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::code::{LineSelection, Side, parse};
use crate::pr::{Origin, Snapshot};
use crate::review::engine::ask::{self, AroundSelection, AskDelta, AskError, AskRequest};
use crate::review::llm::{LlmError, ReplaySource};
use crate::sanitize::one_line;
use crate::source::github::contents::file_for_console;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};

/// The pane's hold on its call: cancelling it drops the call (its reservation is settled).
/// Not part of what is asked: two works asking the same are equal whatever their tokens.
#[derive(Debug, Clone, Default)]
pub struct Cancel(CancellationToken);

impl Cancel {
    pub fn cancel(&self) {
        self.0.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

/// What the answer pane asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// Ask the model `question` about `sel` of the PR in `snapshot`.
    Ask {
        snapshot: Box<Snapshot>,
        sel: LineSelection,
        question: String,
        cancel: Cancel,
    },
}

/// What the call cost and who answered, once it is complete.
#[derive(Debug, Clone, PartialEq)]
pub struct Spent {
    pub input: Option<u64>,
    pub output: Option<u64>,
    /// At `[review] prices`; `None` when no prices are set or the usage is unknown.
    pub cost: Option<f64>,
    /// Why the call is not in the spend log, when it is not.
    pub unrecorded: Option<String>,
}

/// What comes back to the answer pane, in this order: `Began` once, `Text` as the answer
/// arrives, `Finished` once.
#[derive(Debug, Clone, PartialEq)]
pub enum Done {
    /// The call is about to be made: the backend's model, and why the file around the
    /// selection is not given (`None`: it is).
    Began {
        model: String,
        no_file: Option<String>,
    },
    /// An attempt broke off and is asked again: what was shown is replaced by what follows.
    Restarted,
    /// More of the answer (the model's text, untrusted: the pane sanitizes it).
    Text(String),
    /// The answer is complete (what it cost), or why there is none (`cancelled`: the
    /// maintainer's doing).
    Finished(Result<Spent, Failed>),
}

/// Why there is no (complete) answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    pub why: String,
    pub cancelled: bool,
}

impl Failed {
    fn of(e: &AskError, io: &Io<'_>) -> Failed {
        let why = match e {
            // The console has no `--llm`: say what sets a backend here.
            AskError::Setup(_) if io.review.llm.is_none() => {
                "no model to ask: set `llm` in the [review] table of config.toml (openai, anthropic or command), or OPENAI_API_KEY or ANTHROPIC_API_KEY".to_owned()
            }
            // Offline, the fixture's recorded answers stand in for the model.
            AskError::Llm(LlmError::Replay(_)) => {
                "the fixture has no recorded answer to a question (`ask` in llm.answers): set `llm` in the [review] table of config.toml to ask a model".to_owned()
            }
            e => e.to_string(),
        };
        Failed {
            why: one_line(&why),
            cancelled: matches!(e, AskError::Cancelled),
        }
    }
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        Lane::Fetch
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let Work::Ask {
                snapshot,
                sel,
                question,
                cancel,
            } = self;
            let done = asked(&snapshot, &sel, &question, &cancel.0, io, send).await;
            send(work::Done::new(Done::Finished(
                done.map_err(|e| Failed::of(&e, io)),
            )));
        })
    }
}

/// The file `sel` is in, on its side: the head's, or the base's under its old name.
async fn around(snapshot: &Snapshot, sel: &LineSelection, io: &Io<'_>) -> AroundSelection {
    let pr = &snapshot.pr;
    let (commit, path) = match sel.end.side {
        Side::Right => (pr.head_sha.as_str(), sel.path.as_str()),
        Side::Left => {
            let old = pr
                .files
                .iter()
                .find(|f| f.path == sel.path)
                .and_then(|f| f.previous_path.as_deref())
                .unwrap_or(&sel.path);
            (pr.base_sha.as_str(), old)
        }
    };
    let coords = pr.coords();
    let fixture = (io.fixture_of)(&coords);
    let gh = io.session.remote.github().map(Arc::as_ref);
    match file_for_console(gh, fixture.as_ref(), io.blobs, &coords, commit, path).await {
        Ok(t) => AroundSelection::Text(t.text.to_string()),
        Err(e) => AroundSelection::Unavailable(e.to_string()),
    }
}

/// The question asked: each piece of the answer sent as it comes; what it cost, or why not.
async fn asked(
    snapshot: &Snapshot,
    sel: &LineSelection,
    question: &str,
    cancel: &CancellationToken,
    io: &Io<'_>,
    send: Reply<'_>,
) -> Result<Spent, AskError> {
    let pr = &snapshot.pr;
    let patch = pr
        .files
        .iter()
        .find(|f| f.path == sel.path)
        .and_then(|f| f.patch.as_deref())
        .map(parse)
        .unwrap_or_default();
    let side = sel.end.side;
    let range = (sel.start.map_or(sel.end.line, |s| s.line), sel.end.line);
    // Checked before the file is read: a mistake costs no request.
    AskRequest::select(
        pr,
        &sel.path,
        &patch,
        side,
        range,
        AroundSelection::Unavailable(String::new()),
        question,
    )?;
    let file = around(snapshot, sel, io).await;
    let no_file = match &file {
        AroundSelection::Text(_) => None,
        AroundSelection::Unavailable(why) => Some(one_line(why)),
    };
    let req = AskRequest::select(pr, &sel.path, &patch, side, range, file, question)?;
    // As a review picks its backend: a fixture's recorded answers are replayed unless the
    // settings name a backend (`review::flow::inputs`).
    let step = match snapshot.origin {
        Origin::Fixture { step, .. } => step,
        Origin::Live => 0,
    };
    let replay = (io.fixture_of)(&pr.coords()).map(|f| ReplaySource {
        answers: f.llm.answers.clone(),
        step,
    });
    let client = ask::client(io.review, io.llm_env, replay)?;
    send(work::Done::new(Done::Began {
        model: client.model(),
        no_file,
    }));
    let budget = Arc::new(ask::budget(io.review, Some(io.ledger), pr));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let call = ask::ask(&req, io.review, &client, budget.clone(), tx, cancel.clone());
    tokio::pin!(call);
    let mut relay = |d: AskDelta| {
        send(work::Done::new(match d {
            AskDelta::Began => Done::Restarted,
            AskDelta::Text(t) => Done::Text(t),
        }))
    };
    let done = loop {
        tokio::select! {
            r = &mut call => break r,
            Some(d) = rx.recv() => relay(d),
        }
    };
    while let Ok(d) = rx.try_recv() {
        relay(d);
    }
    let answer = done?;
    Ok(Spent {
        input: answer.usage.input,
        output: answer.usage.output,
        cost: answer.cost,
        unrecorded: budget.unrecorded().map(|w| one_line(&w)),
    })
}
