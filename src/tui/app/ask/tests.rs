//! The answer pane through the harness with the default keymap (the real dispatch: `a` is
//! `mark_addressed`'s key, offered to the diff as `ask_model`): its frames streaming half-way
//! and complete, a cancel on `Esc`, `c` turning the answer into a pending comment on the same
//! lines, an answer that tries to drive the console, the offline replay backend, no backend,
//! and a loopback model (the request, the stream, the spend log, a budget that refuses).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::ledger::{Ledger, RepoId};
use crate::pr::RecordedAnswer;
use crate::review::ReviewSettings;
use crate::review::settings::BackendKind;
use crate::source::fixture::FileContent;
use crate::source::{DEMO_FIXTURE, Fixture};
use crate::tui::app::{Asked, DiffScreen, Done as AnyDone};
use crate::tui::harness::Harness;
use crate::tui::theme::Theme;

const QUESTION: &str = "Why is the policy cloned here?";

/// The bundled demo without its recorded answer to a question: each test records its own.
fn demo() -> Fixture {
    let mut f = Fixture::parse(
        DEMO_FIXTURE,
        std::path::Path::new("assets/fixtures/demo.json"),
    )
    .unwrap();
    f.llm.answers.retain(|a| a.aspect != "ask");
    f
}

/// The bundled demo answers a question offline with its recorded answer, as a review replays.
#[test]
fn the_bundled_demo_answers_a_question_with_its_recorded_answer() {
    let dir = tempfile::tempdir().unwrap();
    let demo = Fixture::parse(
        DEMO_FIXTURE,
        std::path::Path::new("assets/fixtures/demo.json"),
    )
    .unwrap();
    let mut h = harness(Some(demo), dir.path(), 120, 35);
    typed(&mut h);
    h.press("Enter");
    let s = h.screen();
    assert!(s.contains("This is the demo's recorded answer"), "{s}");
    assert!(s.contains("recorded answers"), "{s}");
}

/// The demo, with `reply` recorded as the answer to a question (`ask`) and, with `file`, the
/// head's text of the first file.
fn demo_with(reply: Option<&str>, file: bool) -> Fixture {
    let mut f = demo();
    if let Some(reply) = reply {
        f.llm.answers.push(RecordedAnswer {
            aspect: "ask".to_owned(),
            step: 0,
            chunk: None,
            reply: reply.to_owned(),
            input_tokens: Some(900),
            output_tokens: Some(40),
        });
    }
    if file {
        let head = f.pr.head_sha.clone();
        let text = (1..=57)
            .map(|n| format!("line {n} of retry.rs\n"))
            .collect();
        f.file_contents.push(FileContent {
            sha: head,
            path: "src/client/retry.rs".to_owned(),
            text,
        });
    }
    f
}

fn harness(fixture: Option<Fixture>, dir: &std::path::Path, w: u16, h: u16) -> Harness {
    let snapshot = demo().snapshot_at(0).unwrap();
    let mut h = Harness::new(snapshot, fixture, Ledger::new(dir), Theme::plain(), w, h).unwrap();
    h.draw();
    h
}

/// The first file's diff, lines 3–5 of the new side selected, `a`, the question typed.
fn typed(h: &mut Harness) {
    h.press("F Enter");
    assert_eq!(h.app.stack(), ["PR", "files", "diff"]);
    h.press("j j V j j a");
    assert_eq!(*h.app.mode(), InputMode::Reply, "{}", h.screen());
    // The selection stays in sight under the prompt.
    assert!(
        h.screen()
            .contains("selected src/client/retry.rs:3–5 (new side)"),
        "{}",
        h.screen()
    );
    h.type_text(QUESTION);
}

/// `Enter` pressed as the console maps it, without performing what it asks: the answer pane is
/// open, its call not made. The pane's one work, as it was asked.
fn send_unperformed(h: &mut Harness) -> Asked {
    let ev = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    let action = h.app.key_action(&h.keymap, &ev).unwrap();
    let fx = h.app.update(action);
    assert!(h.app.top_is::<AskScreen>(), "{:?}", h.app.stack());
    let [asked] = fx.as_slice() else {
        panic!("one work: {fx:?}");
    };
    asked.clone()
}

fn deliver(h: &mut Harness, asked: &Asked, done: Done) {
    let fx = h.app.update(asked.answer(Action::Done(AnyDone::new(done))));
    h.run_effects(fx);
    h.draw();
}

fn spent() -> Spent {
    Spent {
        input: Some(1200),
        output: Some(48),
        cost: Some(0.0042),
        unrecorded: None,
    }
}

#[test]
fn the_pane_streams_the_answer_in_and_shows_its_cost_at_the_end() {
    for (w, ht) in [(120, 35), (80, 24)] {
        let dir = tempfile::tempdir().unwrap();
        let mut h = harness(Some(demo()), dir.path(), w, ht);
        typed(&mut h);
        let prompt = h.screen();
        assert!(
            prompt.contains("Ask the model about src/client/retry.rs:3–5 (new side)"),
            "{prompt}"
        );
        assert!(prompt.contains(QUESTION), "{prompt}");
        let asked = send_unperformed(&mut h);
        let Some(Work::Ask { sel, question, .. }) = asked.effect.work::<Work>() else {
            panic!("{asked:?}");
        };
        assert_eq!(question, QUESTION);
        assert_eq!(
            (sel.start.map(|s| s.line), sel.end.line, sel.end.side),
            (Some(3), 5, Side::Right)
        );
        deliver(
            &mut h,
            &asked,
            Done::Began {
                model: "gpt-test".into(),
                no_file: Some("`src/client/retry.rs` at 7f3a9c1: not in the fixture".into()),
            },
        );
        deliver(
            &mut h,
            &asked,
            Done::Text("The policy is **cloned** because ".into()),
        );
        let half = h.screen();
        assert!(half.contains("The policy is cloned because"), "{half}");
        assert!(half.contains("gpt-test · answering…"), "{half}");
        insta::assert_snapshot!(format!("ask_streaming_{w}x{ht}"), half);
        deliver(
            &mut h,
            &asked,
            Done::Text(
                "`with_retry` takes it by value.\n\n- one\n- two: a longer point that wraps on a narrow screen, as a paragraph of an answer does"
                    .into(),
            ),
        );
        deliver(&mut h, &asked, Done::Finished(Ok(spent())));
        let whole = h.screen();
        assert!(
            whole.contains("gpt-test · 1200 tokens in, 48 out · about $0.0042"),
            "{whole}"
        );
        insta::assert_snapshot!(format!("ask_complete_{w}x{ht}"), whole);
        // Scrolls, and goes back to the diff.
        h.press("j k ctrl-d ctrl-u G g");
        h.press("Esc");
        assert_eq!(h.app.stack(), ["PR", "files", "diff"]);
        assert!(
            !h.screen().contains("selected src/client"),
            "asked: the selection ends"
        );
    }
}

/// Fails without the cancel: the call's token stays live when the pane is left.
#[test]
fn esc_while_the_answer_streams_cancels_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    typed(&mut h);
    let asked = send_unperformed(&mut h);
    let Some(Work::Ask { cancel, .. }) = asked.effect.work::<Work>() else {
        panic!("{asked:?}");
    };
    deliver(&mut h, &asked, Done::Text("half an".into()));
    assert!(!cancel.is_cancelled());
    // Quitting now would cut the call off: the quit question says so.
    assert!(
        h.app
            .at_stake()
            .iter()
            .any(|s| s.contains("a question to the model is being answered")),
        "{:?}",
        h.app.at_stake()
    );
    // No comment from half an answer.
    h.press("c");
    assert!(h.app.top_is::<AskScreen>());
    assert_eq!(
        h.app.notice(),
        Some("the answer is still coming: c once it is complete")
    );
    h.press("Esc");
    assert!(cancel.is_cancelled());
    assert_eq!(h.app.stack(), ["PR", "files", "diff"]);
    assert!(h.app.at_stake().is_empty(), "{:?}", h.app.at_stake());
    assert_eq!(
        h.app.notice(),
        Some("the question to the model was cancelled")
    );
    // What the call still sends is not shown.
    deliver(&mut h, &asked, Done::Text(" answer".into()));
    let pane = h.app.ask_pane().unwrap();
    assert_eq!(pane.answer(), "half an");
    assert!(pane.failed().is_some_and(|f| f.cancelled));
}

/// Offline: the fixture's recorded answer (replay), the file around the lines from its file
/// contents; `c` goes back to the diff, its composer under the same lines with the answer;
/// `Esc` adds it.
#[test]
fn c_turns_the_replayed_answer_into_a_pending_comment_on_the_same_lines() {
    let answer = "It is cloned because `with_retry` takes the policy by value.";
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo_with(Some(answer), true)), dir.path(), 120, 35);
    typed(&mut h);
    h.press("Enter");
    let pane = h.app.ask_pane().expect("the pane");
    assert!(pane.answered(), "{}", h.screen());
    assert_eq!(pane.answer(), answer);
    let s = h.screen();
    assert!(
        s.contains("recorded answers · 900 tokens in, 40 out"),
        "{s}"
    );
    assert!(!s.contains("was not given"), "the file was read: {s}");
    // The recorded answer asked nothing of the spend log but its line.
    let spend = Ledger::new(dir.path())
        .spend(&RepoId::of(&h.app.pr_meta().unwrap().coords()))
        .unwrap();
    assert_eq!(spend.len(), 1, "{spend:?}");
    // Back in the diff, the composer under the same lines.
    h.press("c");
    assert!(h.app.top_is::<DiffScreen>(), "{:?}", h.app.stack());
    assert_eq!(*h.app.mode(), InputMode::Edit);
    assert!(
        h.screen().contains("Comment on src/client/retry.rs:3-5"),
        "{}",
        h.screen()
    );
    h.type_text(" Fine.");
    h.press("Esc");
    let review = h.app.pending_review().expect("the pending review");
    assert_eq!(review.comments.len(), 1);
    let c = &review.comments[0];
    assert_eq!(
        (c.path.as_str(), c.start_line, c.line),
        ("src/client/retry.rs", Some(3), 5)
    );
    assert_eq!(c.side, Side::Right);
    // The answer, with what the maintainer typed (the editor opens at its start).
    assert_eq!(c.body, format!(" Fine.{answer}"));
    // Nothing was posted: the outbox holds no review.
    assert!(
        !h.effects
            .iter()
            .any(|e| format!("{e:?}").contains("Submit")),
        "{:?}",
        h.effects
    );
}

/// The answer is data: one that tells the console to post, approve or press keys only shows.
#[test]
fn an_answer_that_says_press_y_or_post_does_nothing_but_show() {
    let hostile = "Press y to post.\n\ny\n\np\n\u{1b}[2J\u{1b}]8;;https://evil\u{7}approve\u{1b}]8;;\u{7}\n\n```suggestion\nrm -rf /\n```";
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo_with(Some(hostile), false)), dir.path(), 120, 35);
    typed(&mut h);
    h.press("Enter");
    assert!(h.app.ask_pane().unwrap().answered());
    let before = h.effects.len();
    assert_eq!(*h.app.mode(), InputMode::Normal);
    let s = h.screen();
    assert!(s.contains("Press y to post."), "{s}");
    assert!(!s.contains('\u{1b}'), "{s:?}");
    // Only the maintainer's keys act; `y` and `p` here do nothing.
    h.press("y p");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert!(h.app.top_is::<AskScreen>());
    assert_eq!(h.effects.len(), before, "{:?}", &h.effects[before..]);
    assert!(h.app.pending_review().is_none());
    let outbox: Vec<_> = walk(dir.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("outbox"))
        .collect();
    assert!(outbox.is_empty(), "{outbox:?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Offline without a recorded answer, and with no fixture and no backend: the pane says what
/// to do, and the file around the lines is said to be missing.
#[test]
fn without_a_backend_the_pane_says_how_to_set_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    typed(&mut h);
    h.press("Enter");
    let f = h.app.ask_pane().unwrap().failed().cloned().expect("failed");
    assert!(
        f.why.starts_with(
            "the fixture has no recorded answer to a question (`ask` in llm.answers): set `llm`"
        ),
        "{f:?}"
    );
    assert!(
        h.screen()
            .contains("the file around the lines was not given"),
        "{}",
        h.screen()
    );
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(None, dir.path(), 120, 35);
    typed(&mut h);
    h.press("Enter");
    let f = h.app.ask_pane().unwrap().failed().cloned().expect("failed");
    assert!(f.why.starts_with("no model to ask: set `llm`"), "{f:?}");
    assert!(h.screen().contains("no model to ask"), "{}", h.screen());
    // `c` has nothing to comment with.
    h.press("c");
    assert_eq!(h.app.notice(), Some("no answer to comment with"));
}

/// An empty question asks nothing; `Esc` closes the prompt unasked.
#[test]
fn an_empty_question_asks_nothing_and_esc_closes_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    h.press("F Enter j j a");
    assert_eq!(*h.app.mode(), InputMode::Reply);
    h.press("Enter");
    assert_eq!(*h.app.mode(), InputMode::Reply);
    assert_eq!(h.app.stack(), ["PR", "files", "diff"]);
    h.press("Esc");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert_eq!(h.app.notice(), Some("not asked"));
    assert!(!h.effects.iter().any(|e| e.work::<Work>().is_some()));
}

/// A multi-threaded runtime serving a loopback OpenAI-compatible model that streams `reply`
/// (the harness performs work on runtimes of its own, outside this one).
fn loopback(reply: &str) -> (tokio::runtime::Runtime, wiremock::MockServer) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let sse = [
        serde_json::json!({"choices":[{"delta":{"content": &reply[..10]}}]}),
        serde_json::json!({"choices":[{"delta":{"content": &reply[10..]}}]}),
        serde_json::json!({"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1500,"completion_tokens":12}}),
    ]
    .iter()
    .map(|d| format!("data: {d}\n\n"))
    .collect::<String>()
        + "data: [DONE]\n\n";
    let server = rt.block_on(async {
        let server = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(
                wiremock::ResponseTemplate::new(200)
                    .insert_header("content-type", "text/event-stream")
                    .set_body_string(sse),
            )
            .mount(&server)
            .await;
        server
    });
    (rt, server)
}

fn settings(server: &wiremock::MockServer) -> ReviewSettings {
    ReviewSettings {
        llm: Some(BackendKind::Openai),
        llm_url: Some(format!("{}/v1", server.uri())),
        model: Some("loopback-model".into()),
        retries: 0,
        retry_backoff_ms: 1,
        ..ReviewSettings::default()
    }
}

#[test]
fn a_loopback_model_gets_the_lines_and_the_question_and_its_answer_is_counted() {
    let reply = "Because the closure outlives the borrow.";
    let (rt, server) = loopback(reply);
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    h.runner.review.settings = settings(&server);
    typed(&mut h);
    h.press("Enter");
    let pane = h.app.ask_pane().unwrap();
    assert!(pane.answered(), "{:?}\n{}", pane.failed(), h.screen());
    assert_eq!(pane.answer(), reply);
    let s = h.screen();
    assert!(
        s.contains("loopback-model · 1500 tokens in, 12 out · no cost: [review] prices not set"),
        "{s}"
    );
    let requests = rt.block_on(server.received_requests()).unwrap();
    assert_eq!(requests.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains(QUESTION), "{user}");
    assert!(user.contains("lines 3-5 on the right (new) side"), "{user}");
    assert!(
        user.contains("+use crate::client::{Error, Response};"),
        "{user}"
    );
    // Reserved, then settled at the usage the server reported.
    let spend = Ledger::new(dir.path())
        .spend(&RepoId::of(&h.app.pr_meta().unwrap().coords()))
        .unwrap();
    assert_eq!(spend.len(), 1, "{spend:?}");
    assert_eq!((spend[0].input_tokens, spend[0].output_tokens), (1500, 12));
}

#[test]
fn a_budget_that_refuses_is_said_and_asks_nothing() {
    let (rt, server) = loopback("never sent to anyone");
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    h.runner.review.settings = ReviewSettings {
        max_input_tokens: Some(50),
        ..settings(&server)
    };
    typed(&mut h);
    h.press("Enter");
    let f = h
        .app
        .ask_pane()
        .unwrap()
        .failed()
        .cloned()
        .expect("refused");
    assert!(
        f.why
            .contains("not asked: the run's budget of 50 input tokens"),
        "{f:?}"
    );
    assert!(
        h.screen().contains("not asked: the run's budget"),
        "{}",
        h.screen()
    );
    assert!(rt.block_on(server.received_requests()).unwrap().is_empty());
}

/// Side by side, on the old side: the lines are the old file's, and the file around them is
/// read at the base (the fixture has it there only; read at the head, it would be missing).
#[test]
fn in_the_split_view_the_old_side_is_asked_about_with_the_base_file() {
    let mut f = demo_with(Some("The agent string names the old version."), false);
    let base = f.pr.base_sha.clone();
    f.file_contents.push(FileContent {
        sha: base,
        path: "src/client/mod.rs".to_owned(),
        text: "mod http;\n\npub use http::{Client, Error, Response};\n\npub const USER_AGENT: &str = \"rivet/0.8\";\n".to_owned(),
    });
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(f), dir.path(), 200, 50);
    h.set_diff_layout(crate::config::DiffLayout::Split);
    h.press("F j Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
    h.press("G h a");
    assert_eq!(*h.app.mode(), InputMode::Reply, "{}", h.screen());
    assert!(
        h.screen()
            .contains("Ask the model about src/client/mod.rs:5 (old side)"),
        "{}",
        h.screen()
    );
    h.type_text("Why the bump?");
    let asked = send_unperformed(&mut h);
    let Some(Work::Ask { sel, .. }) = asked.effect.work::<Work>() else {
        panic!("{asked:?}");
    };
    assert_eq!((sel.end.side, sel.end.line), (Side::Left, 5));
    for a in h.runner.perform_blocking(asked) {
        let fx = h.app.update(a);
        h.run_effects(fx);
    }
    h.draw();
    let pane = h.app.ask_pane().unwrap();
    assert!(pane.answered(), "{}", h.screen());
    assert!(!h.screen().contains("was not given"), "{}", h.screen());
}

/// The pane's call, performed as the runner does, cancelled while the model is still silent:
/// it ends cancelled and its reservation is settled in the spend log (a call, no answer).
#[test]
fn a_cancelled_call_is_settled_in_the_spend_log() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(async {
        let server = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(
                wiremock::ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(30)),
            )
            .mount(&server)
            .await;
        server
    });
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    h.runner.review.settings = settings(&server);
    typed(&mut h);
    let asked = send_unperformed(&mut h);
    let Some(Work::Ask { cancel, .. }) = asked.effect.work::<Work>() else {
        panic!("{asked:?}");
    };
    let stop = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.cancel();
    });
    let started = std::time::Instant::now();
    let results = h.runner.perform_blocking(asked);
    t.join().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let last = results.last().cloned();
    let Some(Action::For { action, .. }) = last else {
        panic!("{results:?}");
    };
    let Action::Done(done) = *action else {
        panic!("{action:?}");
    };
    assert!(
        matches!(
            done.take::<Done>(),
            Some(Done::Finished(Err(Failed {
                cancelled: true,
                ..
            })))
        ),
        "{done:?}"
    );
    let spend = Ledger::new(dir.path())
        .spend(&RepoId::of(&h.app.pr_meta().unwrap().coords()))
        .unwrap();
    assert_eq!(spend.len(), 1, "{spend:?}");
    assert_eq!(spend[0].kind, crate::ledger::SpendKind::Call);
    assert_eq!(spend[0].output_tokens, 0);
}

/// Failed before (only `Esc` ended the pane's call): the pane's call, performed as the runner
/// does, against a model that stalls after its first event, ends at its overall limit (1 s;
/// the idle limit, 120 s, never strikes), saying which limit struck with its seconds, and its
/// reservation is settled in the spend log.
#[test]
fn a_stalled_model_is_given_up_at_the_overall_limit() {
    use crate::review::llm::loopback::{After, Model, Wire};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let model = rt.block_on(Model::start(Wire::OpenAi, After::Stall));
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(Some(demo()), dir.path(), 120, 35);
    h.runner.review.settings = ReviewSettings {
        llm: Some(BackendKind::Openai),
        llm_url: Some(model.url.clone()),
        model: Some("loopback-model".into()),
        retries: 0,
        overall_timeout_secs: 1.0,
        ..ReviewSettings::default()
    };
    typed(&mut h);
    let asked = send_unperformed(&mut h);
    let started = std::time::Instant::now();
    let results = h.runner.perform_blocking(asked);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let Some(Action::For { action, .. }) = results.last().cloned() else {
        panic!("{results:?}");
    };
    let Action::Done(done) = *action else {
        panic!("{action:?}");
    };
    let Some(Done::Finished(Err(failed))) = done.take::<Done>() else {
        panic!("not a failure");
    };
    assert!(!failed.cancelled);
    assert!(
        failed
            .why
            .starts_with("stopped by the overall timeout of 1 second"),
        "{failed:?}"
    );
    let spend = Ledger::new(dir.path())
        .spend(&RepoId::of(&h.app.pr_meta().unwrap().coords()))
        .unwrap();
    assert_eq!(spend.len(), 1, "{spend:?}");
    assert_eq!(spend[0].kind, crate::ledger::SpendKind::Call);
    drop(model);
}

/// `?` in the pane lists its own keys.
#[test]
fn the_panes_help_names_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(
        Some(demo_with(Some("An answer."), false)),
        dir.path(),
        120,
        35,
    );
    typed(&mut h);
    h.press("Enter ?");
    let s = h.screen();
    assert!(
        s.contains("the answer as a comment under the same lines"),
        "{s}"
    );
    assert!(s.contains("cancels the call"), "{s}");
}

/// Lines of two hunks are refused before a question is typed, as GitHub refuses a comment on
/// them.
#[test]
fn lines_of_two_hunks_are_not_asked_about() {
    let mut snapshot = demo().snapshot_at(0).unwrap();
    let patch = "@@ -1,2 +1,3 @@\n a\n+b\n c\n@@ -20,2 +21,3 @@\n x\n+y\n z\n";
    snapshot.pr.files[1].patch = Some(patch.into());
    let sel = LineSelection::of("src/client/mod.rs", &parse(patch), 1..=5).unwrap();
    let e = Question::new(Arc::new(snapshot), sel).unwrap_err();
    assert_eq!(
        e,
        "not asked: lines 2-23 of `src/client/mod.rs` are in different hunks; select lines of one hunk"
    );
}

/// The lines asked about keep their indentation in the pane, as the diff shows them.
#[test]
fn the_lines_asked_about_keep_their_indentation() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(
        Some(demo_with(Some("An answer."), false)),
        dir.path(),
        120,
        35,
    );
    h.press("F Enter");
    // Line 9 of retry.rs: `    pub max_attempts: u32,`.
    h.press("j j j j j j j j V a");
    h.type_text(QUESTION);
    h.press("Enter");
    let s = h.screen();
    assert!(s.contains("  │     pub max_attempts: u32,"), "{s}");
}
