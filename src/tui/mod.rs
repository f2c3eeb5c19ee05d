//! The interactive console: `pr-shepherd [PR]`.
//!
//! ```text
//! tui/
//! ├── mod.rs        Launch + run(): wires the parts below together
//! ├── session.rs    Session (now, gates, identity, remote, marks blocked), Remote
//! ├── inbox_link.rs InboxLink: the inbox behind a session (tab sources, opened fixtures)
//! ├── event.rs      AppEvent: the one event enum the loop reads
//! ├── terminal.rs   TerminalGuard, input thread, signals, event_loop
//! ├── effects/      EffectRunner (how each Effect is done, a screen's Work with the Io it
//! │                 lends) + Effects (each on its lane, results to the screen that asked)
//! │                 ledger.rs, review.rs
//! ├── remote.rs     the one place that tells the outbox from GitHub (posts, thread acts, viewed)
//! ├── desktop.rs    browser opener, OSC 52 clipboard
//! ├── app/          pure state: App (stack of screens) ::update(Action) -> Vec<Asked>; each
//! │                 screen's work.rs is its I/O edge, performed by the runner
//! ├── ui/           drawing pieces every screen uses, the dialog layer's overlays
//! ├── review.rs     review views: run progress, composed review, draft, post preview
//! ├── editor.rs     the text editor (soft wrap, undo) and $VISUAL/$EDITOR on a temp file
//! ├── editor_at.rs  the diff's `o`: the editor's program and arguments at a line, run
//! ├── scratch.rs    the run's private folder of read-only copies for the editor
//! ├── markdown.rs   comment Markdown (sanitized text, a width) → wrapped lines
//! ├── keymap.rs, theme.rs, highlight.rs   bindings, colours, syntect
//! ├── harness.rs    the same loop on a TestBackend, effects performed synchronously
//! └── screenshot.rs a drawn screen (a TestBackend's buffer) as an SVG picture
//! ```
//!
//! The console opens on one PR (a [`Snapshot`] plus an optional [`Fixture`] for `>`/`<`
//! history) or on the inbox; a live source plugs in by handing over its snapshot.
//!
//! Background work reports through the one [`AppEvent`] enum over a tokio channel: every effect
//! (marker writes, drafts, highlighting, the opener, posting, review runs) runs off the UI loop,
//! on the lane [`Effect::lane`] names, so the console never freezes on the disk or the network. A
//! review run (`r`/`R`) is a tokio task; its `ReviewEvent`s arrive as [`AppEvent::Review`] tagged
//! with the run's sequence number (a newer run makes older events stale). Quitting or starting
//! another run cancels it through its `CancellationToken`, and the console waits (bounded) for
//! every review and write before it returns.

pub mod app;
pub mod desktop;
pub mod editor;
pub mod editor_at;
pub mod effects;
pub mod event;
pub mod harness;
pub mod highlight;
pub mod inbox_link;
pub mod keymap;
pub mod markdown;
pub mod remote;
pub mod review;
pub mod scratch;
pub mod screenshot;
pub mod session;
pub mod terminal;
pub mod theme;
pub mod ui;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

use crate::ledger::{Ledger, SeenSet};
use crate::pr::Snapshot;
use crate::source::Fixture;

pub use app::{Action, App, Asked, Drawn, Effect, Lane, ScreenId};
pub use desktop::{is_web_url, osc52};
pub use effects::review::{ConsoleReview, Prepared};
pub use effects::{EffectRunner, Effects};
pub use event::AppEvent;
pub use keymap::Keymap;
pub use session::{Live, Remote, Session};
pub use terminal::TuiError;
pub use theme::Theme;

/// What the console needs to start.
pub struct Launch {
    pub ledger: Ledger,
    pub theme: Theme,
    pub keymap: Keymap,
    /// What every screen shares: the clock, the gates, where writes go, why markers cannot be
    /// written. Decided here, once.
    pub session: Session,
    /// How `r` reviews.
    pub review: ConsoleReview,
    pub start: Start,
}

/// The first screen.
pub enum Start {
    /// One PR, with its markers; a fixture for its history steps and replayed reviews.
    Pr {
        snapshot: Box<Snapshot>,
        fixture: Option<Box<Fixture>>,
        seen: SeenSet,
    },
    /// The inbox: its screen (tabs listed, counts still loading) and how to load it.
    Inbox {
        screen: Box<app::InboxScreen>,
        link: Box<inbox_link::InboxLink>,
    },
}

/// Runs the console until the user quits or a signal arrives. The terminal is restored on every
/// way out.
pub async fn run(launch: Launch) -> Result<(), TuiError> {
    let Launch {
        ledger,
        theme,
        keymap,
        session,
        review,
        start,
    } = launch;
    let (mut app, fixture, link, first) = match start {
        Start::Inbox { screen, link } => {
            let app = App::with_inbox(*screen, session.clone());
            let first = vec![Asked {
                by: app.top_id(),
                effect: Effect::Work(app::Job::new(app::inbox::Work::Load)),
            }];
            (app, None, *link, first)
        }
        Start::Pr {
            snapshot,
            fixture,
            seen,
        } => {
            let coords = snapshot.pr.coords();
            let mut app = App::new(*snapshot, seen, session.clone());
            if let Some(f) = &fixture {
                app.set_history(f);
            }
            // An unposted draft and an unsent thread reply from an earlier session come back (a
            // PR opened from the inbox gets its own when it is opened).
            let first = app.restore_saved(app::saved_drafts(&ledger, &coords));
            (app, fixture.map(|f| *f), Default::default(), first)
        }
    };
    // The debug log cannot go to the terminal the console draws on: it goes to the state dir.
    let debug_log = ledger.root().join("debug.log");
    let log_problem = crate::debuglog::to_file(&debug_log).err();
    let runner = Arc::new(EffectRunner {
        ledger,
        fixture,
        theme: theme.clone(),
        interactive: true,
        clock: None,
        review,
        session,
        inbox: link,
        blobs: Default::default(),
        scratch: Default::default(),
    });
    let (tx, mut rx) = mpsc::unbounded_channel::<AppEvent>();
    // While the console runs nothing else writes to the terminal: notes (GitHub retries and
    // rate-limit waits, LLM retries, progress lines) go to the status line and message log.
    let notes = {
        let tx = tx.clone();
        crate::progress::capture_notes(move |text| {
            let _ = tx.send(AppEvent::Action(Action::Notice(text.to_owned())));
        })
    };
    if crate::debuglog::is_on() {
        let said = match &log_problem {
            None => format!("debug log: {}", debug_log.display()),
            Some(e) => format!("debug log NOT written to {}: {e}", debug_log.display()),
        };
        app.update(Action::Notice(crate::sanitize::one_line(&said)));
    }
    // The copies `o` gave the editor are removed when the console exits, however it exits.
    let scratch = runner.scratch.clone();
    let mut effects = Effects::new(runner, tx.clone());
    effects.dispatch(first);

    // syntect's assets take a while to load: do it while the first frame is drawn.
    if theme.syntect.is_some() {
        tokio::task::spawn_blocking(highlight::warm_up);
    }
    terminal::spawn_signals(tx.clone());
    let ticker = terminal::spawn_ticker(tx.clone());

    // The guard first: if set-up fails half-way (raw mode on, alternate screen not), the early
    // return still restores what was changed.
    let guard = terminal::TerminalGuard;
    let mut term = ratatui::try_init()?;
    terminal::enable_mouse()?;
    let stop = Arc::new(AtomicBool::new(false));
    let outside = terminal::Outside {
        reader: terminal::ReaderPause::default(),
        editor: app.session().editor.clone(),
    };
    let reader = terminal::spawn_reader(tx.clone(), stop.clone(), outside.reader.clone());

    let result = terminal::event_loop(
        &mut term,
        &mut app,
        &mut effects,
        &keymap,
        &theme,
        &mut rx,
        Some(&outside),
    )
    .await;
    // No review outlives the console; a post in flight gets a bounded wait for its answer.
    close(&mut app, effects, &mut rx).await;
    scratch.clear();
    ticker.abort();
    stop.store(true, Ordering::Relaxed);
    drop(term);
    drop(guard);
    // The terminal is the shell's again: notes go to stderr.
    drop(notes);
    let _ = reader.join();
    result
}

/// After the loop: reviews end, posts in flight answer (bounded wait), and the answers that
/// landed after the loop returned are applied — a post that went through discards its draft, as
/// the loop would have, so the next start does not offer to restore a review that was posted.
/// Nothing else is started any more.
/// A post's answer (the PR screen's own result).
fn is_posted(a: &Action) -> bool {
    matches!(a, Action::Done(d) if matches!(d.take::<app::pr::Done>(), Some(app::pr::Done::Posted(_))))
}

async fn close(app: &mut App, mut effects: Effects, rx: &mut mpsc::UnboundedReceiver<AppEvent>) {
    effects.settle().await;
    while let Ok(ev) = rx.try_recv() {
        let AppEvent::Action(a) = ev else { continue };
        let posted = match &a {
            Action::For { action, .. } => is_posted(action),
            a => is_posted(a),
        };
        if posted {
            let ledger: Vec<Asked> = app
                .update(a)
                .into_iter()
                .filter(|e| matches!(e.effect.work(), Some(app::pr::Work::DiscardDraft { .. })))
                .collect();
            effects.dispatch(ledger);
        }
    }
    effects.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Mode as ReviewMode;
    use crate::review::{ReviewEvent, ReviewSettings};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    use std::time::Duration;
    use tokio_util::sync::CancellationToken;

    fn runner(dir: &std::path::Path, settings: ReviewSettings) -> (EffectRunner, Snapshot) {
        let f = Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo.json"),
        )
        .unwrap();
        let snap = f.snapshot_at(0).unwrap();
        let r = EffectRunner {
            ledger: Ledger::new(dir),
            fixture: Some(f),
            theme: Theme::plain(),
            interactive: false,
            clock: Some(0),
            review: ConsoleReview {
                settings,
                ..ConsoleReview::default()
            },
            session: Session::default(),
            inbox: Default::default(),
            blobs: Default::default(),
            scratch: Default::default(),
        };
        (r, snap)
    }

    #[tokio::test]
    async fn cancelling_a_console_run_ends_it_promptly_and_saves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let settings = ReviewSettings {
            llm: Some(crate::review::settings::BackendKind::Command),
            command: vec!["sleep".into(), "30".into()],
            ..ReviewSettings::default()
        };
        let (runner, snap) = runner(dir.path(), settings);
        let p = runner.prepare(1, false, &snap).unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let runner = Arc::new(runner);
        let r2 = runner.clone();
        let task = tokio::spawn(async move { r2.run_prepared(p, tx, stop).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
        let problem = tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the run ends soon after cancel")
            .unwrap();
        assert!(problem.is_empty(), "{problem:?}");
        let mut cancelled = 0;
        let mut finished = false;
        while let Ok(ev) = rx.try_recv() {
            match ev {
                ReviewEvent::Cancelled { .. } => cancelled += 1,
                ReviewEvent::Finished(run) => finished = run.cancelled,
                _ => {}
            }
        }
        assert_eq!(cancelled, 6);
        assert!(finished);
        assert!(!dir.path().join("acme-rivet/482/runs").exists());
    }

    #[test]
    fn replay_is_prepared_for_fixtures_and_bad_settings_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let (runner, snap) = runner(dir.path(), ReviewSettings::default());
        let acts = runner.review_blocking(3, true, &snap);
        assert!(matches!(
            acts.first(),
            Some(Action::ReviewStarted {
                seq: 3,
                mode: ReviewMode::Full,
                ..
            })
        ));
        // The run's last event, then its conclusion by the review flow: saved as concluded.
        match &acts[acts.len().saturating_sub(2)..] {
            [
                Action::Review {
                    event: ReviewEvent::Finished(_),
                    ..
                },
                Action::ReviewConcluded { seq: 3, concluded },
            ] => {
                let (runs, _) = runner
                    .ledger
                    .load_runs::<crate::review::ReviewRun>(&snap.pr.coords())
                    .unwrap();
                let json = |r: &crate::review::ReviewRun| serde_json::to_value(r).unwrap();
                assert_eq!(
                    runs.iter().map(json).collect::<Vec<_>>(),
                    vec![json(&concluded.run)]
                );
                assert!(concluded.saved.is_some() && concluded.unsaved.is_none());
            }
            other => panic!("{other:?}"),
        }
        let bad = ReviewSettings {
            concurrency: 0,
            ..ReviewSettings::default()
        };
        let (runner, snap) = super::tests::runner(dir.path(), bad);
        assert!(matches!(
            runner.review_blocking(4, false, &snap).as_slice(),
            [Action::ReviewNotStarted { seq: 4, .. }]
        ));
        // Failed before it was fixed: this hung the console at "0/6 queued" (a worker panicked);
        // now the review is not started and the pane says why, naming the setting.
        let absurd = ReviewSettings {
            concurrency: 9_223_372_036_854_775_807,
            ..ReviewSettings::default()
        };
        let (runner, snap) = super::tests::runner(dir.path(), absurd);
        match runner.review_blocking(5, false, &snap).as_slice() {
            [Action::ReviewNotStarted { seq: 5, why }] => {
                assert!(
                    why.contains("concurrency") && why.contains("1 and 64"),
                    "{why}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    fn key(c: char) -> AppEvent {
        AppEvent::Input(Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )))
    }

    /// A GitHub that accepts connections and never answers: a post to it stays in flight.
    async fn silent_github() -> Arc<crate::source::github::GitHub> {
        use crate::source::github::auth::{Credentials, Secret};
        use crate::source::github::{Endpoints, FetchOptions, GitHub};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((sock, _)) = listener.accept().await {
                held.push(sock);
            }
        });
        let endpoints = Endpoints {
            api: format!("http://{addr}"),
            graphql: format!("http://{addr}/graphql"),
        };
        let creds = Credentials::Token {
            token: Secret::new("test-token"),
            source: "test",
        };
        let opts = FetchOptions {
            max_attempts: 1,
            ..FetchOptions::default()
        };
        Arc::new(GitHub::new(endpoints, None, creds, opts).unwrap())
    }

    /// The loop keeps drawing and answering keys while a confirmed post waits for GitHub.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_loop_answers_keys_while_a_post_is_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        let (mut runner, snap) = runner(dir.path(), ReviewSettings::default());
        runner.session.remote = Remote::GitHub(Live {
            gh: silent_github().await,
            own_login: "shepherd-bot".to_owned(),
        });
        let mut app = App::new(
            snap.clone(),
            crate::ledger::SeenSet::default(),
            Session {
                now: 0,
                ..Session::default()
            },
        );
        app.update(Action::to(
            app.top_id(),
            Action::DraftRestored(crate::ledger::Draft {
                body: "## PR Shepherd Review\n\nLooks fine.".to_owned(),
                head_sha: snap.pr.head_sha.clone(),
                saved_at: 0,
            }),
        ));
        app.update(Action::to(
            app.top_id(),
            Action::Done(crate::tui::app::Done::new(app::pr::Done::PostPlanned(Ok(
                review::PostPreview {
                    target: "acme/rivet#482".to_owned(),
                    update: None,
                    chars: 10,
                    destination: "GitHub, as @shepherd-bot".to_owned(),
                    incomplete: None,
                },
            )))),
        ));
        assert_eq!(*app.mode(), app::InputMode::Asked);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut effects = Effects::new(Arc::new(runner), tx.clone());
        let fx = app.update(Action::Confirmed(true));
        assert!(matches!(
            fx.as_slice(),
            [Asked { effect, .. }] if matches!(effect.work(), Some(app::pr::Work::Post { .. }))
        ));
        assert!(app.posting());
        effects.dispatch(fx);

        let before = app.selected_row().unwrap();
        for c in ['j', 'j', 'Q'] {
            tx.send(key(c)).unwrap();
        }
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        let (keymap, theme) = (Keymap::default(), Theme::plain());
        let ended = tokio::time::timeout(
            Duration::from_secs(10),
            terminal::event_loop(
                &mut terminal,
                &mut app,
                &mut effects,
                &keymap,
                &theme,
                &mut rx,
                None,
            ),
        )
        .await;
        assert!(
            matches!(ended, Ok(Ok(()))),
            "the loop must handle keys (and quit) while the post waits"
        );
        assert_eq!(app.selected_row(), Some(before + 2));
        assert!(app.quitting());
        // The post never answered: it is still in flight, and nothing claims it was posted.
        assert!(app.posting());
        assert!(app.posted().is_none());
    }

    /// Posting to the outbox through the live effects: the answer comes back as an event.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_post_reports_back_through_the_event_channel() {
        let dir = tempfile::tempdir().unwrap();
        let (runner, snap) = runner(dir.path(), ReviewSettings::default());
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut effects = Effects::new(Arc::new(runner), tx);
        let screen = ScreenId::ROUTER;
        effects.dispatch(vec![Asked {
            by: screen,
            effect: Effect::Work(app::Job::new(app::pr::Work::Post {
                pr: snap.pr.coords(),
                body: "## PR Shepherd Review\n\nok".to_owned(),
            })),
        }]);
        let ev = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap();
        // The result, for the screen that asked.
        let AppEvent::Action(Action::For { screen: to, action }) = ev else {
            panic!("not for the screen: {ev:?}")
        };
        assert_eq!(to, screen);
        assert!(is_posted(&action));
        effects.shutdown().await;
    }

    /// A screen's work that only says its failure (a reply draft not saved) answers with
    /// `work::Said`: the runner makes it a notice for the status line, never a result addressed
    /// to a screen that may be gone (the thread view left while its reply was saved).
    #[test]
    fn a_works_said_result_is_a_notice_whoever_asked() {
        use app::work::{Done, Io, Lane, Performing, Reply, Said, Work};
        #[derive(Debug, Clone, PartialEq)]
        struct Fails;
        impl Work for Fails {
            fn lane(&self) -> Lane {
                Lane::Ledger
            }
            fn perform<'a>(self, _io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
                Box::pin(async move { send(Done::new(Said("the reply was NOT saved".into()))) })
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let (runner, _) = runner(dir.path(), ReviewSettings::default());
        let out = runner.perform_blocking(Asked {
            by: ScreenId::ROUTER,
            effect: Effect::Work(app::Job::new(Fails)),
        });
        assert!(
            matches!(out.as_slice(), [Action::Notice(n)] if n == "the reply was NOT saved"),
            "{out:?}"
        );
    }

    /// Ledger effects keep their order: a discard after a save leaves no draft behind.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ledger_effects_run_in_order_off_the_loop() {
        let dir = tempfile::tempdir().unwrap();
        let (runner, snap) = runner(dir.path(), ReviewSettings::default());
        let pr = snap.pr.coords();
        let draft = crate::ledger::Draft {
            body: "## PR Shepherd Review\n\nx".to_owned(),
            head_sha: snap.pr.head_sha.clone(),
            saved_at: 0,
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        let runner = Arc::new(runner);
        let mut effects = Effects::new(runner.clone(), tx);
        for _ in 0..20 {
            let by = ScreenId::ROUTER;
            effects.dispatch(vec![
                Asked {
                    by,
                    effect: Effect::Work(app::Job::new(app::pr::Work::SaveDraft {
                        pr: pr.clone(),
                        draft: draft.clone(),
                    })),
                },
                Asked {
                    by,
                    effect: Effect::Work(app::Job::new(app::pr::Work::DiscardDraft {
                        pr: pr.clone(),
                    })),
                },
            ]);
        }
        let mut kinds = Vec::new();
        while kinds.len() < 40 {
            let action = match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
                Ok(Some(AppEvent::Action(Action::For { action, .. }))) => *action,
                other => panic!("unexpected {other:?}"),
            };
            match action {
                Action::Done(d) => match d.take::<app::pr::Done>() {
                    Some(app::pr::Done::DraftSaved(r)) => kinds.push(r.is_ok()),
                    Some(app::pr::Done::DraftDiscarded(r)) => kinds.push(r.is_ok()),
                    other => panic!("unexpected {other:?}"),
                },
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(kinds.iter().all(|ok| *ok));
        effects.shutdown().await;
        assert!(runner.ledger.load_draft(&pr).unwrap().is_none());
    }

    /// Quitting while a post is in flight: its answer arrives after the loop returned, and still
    /// discards the draft (no "restored the unposted review draft" on the next start).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_post_that_answers_after_quitting_still_discards_its_draft() {
        let dir = tempfile::tempdir().unwrap();
        let (runner, snap) = runner(dir.path(), ReviewSettings::default());
        let pr = snap.pr.coords();
        let draft = crate::ledger::Draft {
            body: "## PR Shepherd Review\n\nLooks fine.".to_owned(),
            head_sha: snap.pr.head_sha.clone(),
            saved_at: 0,
        };
        runner.ledger.save_draft(&pr, &draft).unwrap();
        let runner = Arc::new(runner);
        let mut app = App::new(
            snap.clone(),
            crate::ledger::SeenSet::default(),
            Session {
                now: 0,
                ..Session::default()
            },
        );
        app.update(Action::to(app.top_id(), Action::DraftRestored(draft)));
        app.update(Action::to(
            app.top_id(),
            Action::Done(crate::tui::app::Done::new(app::pr::Done::PostPlanned(Ok(
                review::PostPreview {
                    target: "acme/rivet#482".to_owned(),
                    update: None,
                    chars: 10,
                    destination: "the outbox".to_owned(),
                    incomplete: None,
                },
            )))),
        ));
        assert_eq!(*app.mode(), app::InputMode::Asked);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut effects = Effects::new(runner.clone(), tx.clone());
        let fx = app.update(Action::Confirmed(true));
        assert!(matches!(
            fx.as_slice(),
            [Asked { effect, .. }] if matches!(effect.work(), Some(app::pr::Work::Post { .. }))
        ));
        effects.dispatch(fx);
        // The maintainer quit at once: the loop returned before the post answered.
        app.quit = true;
        assert!(app.posting());
        close(&mut app, effects, &mut rx).await;
        assert!(!app.posting());
        assert!(app.posted().is_some(), "the answer was applied");
        assert!(
            runner.ledger.load_draft(&pr).unwrap().is_none(),
            "a posted review leaves no draft to restore"
        );
    }
}
