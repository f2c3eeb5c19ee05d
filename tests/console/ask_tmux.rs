//! `a` in the diff, in the real binary in tmux, against a loopback OpenAI-compatible model
//! (`support::fake_llm`, streamed) named in the test's config: the question typed over the
//! diff, the request carrying the selected lines and the question, the answer in the pane with
//! the model and its tokens, then `c` and `Esc`: the answer is a comment of the pending review on
//! the same lines, as `pr-shepherd pending list` reads it from the state dir. Nothing is posted.

use crate::support;

use std::path::Path;
use std::time::Duration;

use support::env::TestEnv;
use support::fake_llm::{Behaviour, FakeLlm, Wire};

use super::e2e::{REPORT_EXIT, Tmux, console};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/fixtures/demo.json");
const ANSWER: &str = "The policy is cloned because with_retry takes it by value.";
const QUESTION: &str = "Why is the policy cloned here?";

#[test]
fn a_question_about_selected_lines_streams_its_answer_and_c_makes_it_a_pending_comment_in_tmux() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let fake = rt.block_on(FakeLlm::start(Behaviour {
        first_byte: Duration::from_millis(5),
        total: Duration::from_millis(300),
        reply: ANSWER.to_owned(),
        ..Behaviour::new(Wire::OpenAi)
    }));
    let env = TestEnv::with_config(format!(
        "[review]\nllm = \"openai\"\nllm_url = \"{}\"\nmodel = \"loopback-model\"\n",
        fake.base_url
    ));
    let Some(tmux) = Tmux::new(&env, "ask") else {
        return;
    };
    tmux.start(120, 32, &(console(&env, &[Path::new(DEMO)]) + REPORT_EXIT));
    tmux.wait_for("the console", |s| {
        s.contains("acme/rivet#482") && s.contains("Tab detail")
    });
    tmux.keys(&["F"]);
    tmux.wait_for("the files", |s| s.contains("5 files"));
    tmux.keys(&["g", "Enter"]);
    tmux.wait_for("the diff", |s| {
        s.contains("src/client/retry.rs · added · +57")
    });
    tmux.keys(&["j", "j", "V", "j", "j", "a"]);
    tmux.wait_for("the question's prompt", |s| {
        s.contains("Ask the model about src/client/retry.rs:3–5 (new side)")
    });
    tmux.keys(&["-l", QUESTION]);
    tmux.wait_for("the question typed", |s| s.contains(QUESTION));
    tmux.keys(&["Enter"]);
    let pane = tmux.wait_for("the answer, complete", |s| {
        s.contains("loopback-model ·") && s.contains("tokens in")
    });
    assert!(pane.contains("The policy is cloned because"), "{pane}");
    assert!(pane.contains("ask the model"), "{pane}");
    let calls = fake.calls();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].streamed);
    let user = calls[0].body["messages"][1]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(user.contains(QUESTION), "{user}");
    assert!(user.contains("lines 3-5 on the right (new) side"), "{user}");
    assert!(
        user.contains("+use crate::client::{Error, Response};"),
        "{user}"
    );
    assert!(
        pane.contains(&format!(
            "{} tokens in, {} out",
            calls[0].input_tokens, calls[0].output_tokens
        )),
        "{pane}"
    );
    // `c`: back in the diff, the composer under the same lines, with the answer; `Esc` adds it.
    tmux.keys(&["c"]);
    tmux.wait_for("the composer", |s| {
        s.contains("Comment on src/client/retry.rs:3-5") && s.contains("with_retry takes it")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the comment under its lines", |s| s.contains("pending c1"));
    let out = env
        .bin()
        .args(["pending", "list", "acme/rivet#482", "--format", "json"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{listed}");
    assert!(listed.contains(ANSWER), "{listed}");
    assert!(
        listed.contains("\"startLine\": 3") || listed.contains("\"start_line\": 3"),
        "{listed}"
    );
    tmux.keys(&["q", "q"]);
    tmux.wait_for("the PR screen", |s| s.contains("Tab detail"));
    // The comment is unsent: quitting asks first.
    tmux.keys(&["Q"]);
    let asked = tmux.wait_for("the quit question", |s| {
        s.contains("Quit?") || s.contains("CONSOLE-EXITED:")
    });
    if asked.contains("Quit?") {
        tmux.keys(&["y"]);
    }
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    tmux.assert_terminal_restored();
}
