//! A whole triage session in the real binary, in tmux, against one loopback GitHub (the inbox's
//! repository, its PRs served as the PR screens fetch and write them) and a stand-in model.

use std::path::Path;

use crate::support;

use super::e2e::{
    REPORT_EXIT, Tmux, assert_no_note_over_the_panes, console, inbox_row, quote, row_pr,
    status_line,
};
use support::env::TestEnv;
use support::fake_inbox::{FakeInbox, queue};

/// The PR screen of `acme/widgets#n` is drawn (its footer last).
fn pr_screen(s: &str, n: u64) -> bool {
    s.contains(&format!("acme/widgets#{n}")) && s.contains("? help") && !s.contains("Enter open  ]")
}

/// The inbox is drawn and every count is in.
fn inbox_counted(s: &str) -> bool {
    s.contains("4 open PRs") && s.contains("Enter open  ]") && !s.contains("counting")
}

/// The row of `acme/widgets#n` in the inbox (its tab is the repository's: the row says `#n`).
fn row(s: &str, n: u64) -> String {
    inbox_row(s, n).unwrap_or_default().to_owned()
}

/// The PR of the selected inbox row (`▶`).
fn selected_pr(s: &str) -> Option<u64> {
    s.lines().filter(|l| l.starts_with("│▶")).find_map(row_pr)
}

/// One console process, live, a whole session: the inbox of four PRs, three of them opened one
/// after another (each with its own items), a reply and a posted review on the third that show
/// after the refetch, a rate-limited refresh whose wait stays in the status line, the inbox
/// recounted, a search left with `Esc`, and quitting while a slow review runs: asked, `n`
/// stays, `y` quits with exit 0 and the terminal restored.
#[test]
fn a_whole_triage_session_in_tmux() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use wiremock::ResponseTemplate;

    let env = TestEnv::new();
    let Some(tmux) = Tmux::new(&env, "walk") else {
        return;
    };
    let Ok(rt) = tokio::runtime::Runtime::new() else {
        panic!("no runtime");
    };
    let (server, fake) = rt.block_on(FakeInbox::start(queue(4)));
    let screens = rt.block_on(fake.serve_prs(&server));
    // Every review answers at once but PR 3's (its diff adds `g3();`), which runs on.
    let llm = rt.block_on(support::llm::StandInLlm::answering_slowly_when(
        vec![serde_json::json!({
            "severity": "important", "file": "src/f0.rs", "line": 2,
            "message": "Handle the error of g"
        })],
        "g3();",
        std::time::Duration::from_secs(120),
    ));
    std::fs::write(
        env.config(),
        format!("[review]\nllm = \"openai\"\nllm_url = \"{}\"\n", llm.url()),
    )
    .unwrap();
    let script = format!(
        "OPENAI_API_KEY=sk-test-0123456789 GH_TOKEN=ghp_e2eLoopbackToken {} --api-url {} acme/widgets{REPORT_EXIT}",
        console(&env, &[]),
        quote(Path::new(&server.uri())),
    );
    tmux.start(120, 35, &script);

    // The inbox of the live repository, every row counted.
    let inbox = tmux.wait_for("the live inbox, counted", inbox_counted);
    for n in 1..=4 {
        assert!(row(&inbox, n).contains("6 new"), "{inbox}");
    }

    // Three different PRs opened one after another, each with its own items.
    let mut opened = Vec::new();
    for k in 0..3 {
        let screen = tmux.wait_for("a selected row", |s| {
            inbox_counted(s) && selected_pr(s).is_some_and(|n| !opened.contains(&n))
        });
        let n = selected_pr(&screen).unwrap_or_default();
        tmux.keys(&["Enter"]);
        let pr = tmux.wait_for("the PR screen", |s| {
            pr_screen(s, n) && s.contains("comment 0")
        });
        assert!(pr.contains(&format!("Change number {n}")), "{pr}");
        let own = format!("pull/{n}#discussion_r{n}000000");
        assert!(pr.contains(&own), "not its own items:\n{pr}");
        for m in (1..=4).filter(|&m| m != n) {
            assert!(!pr.contains(&format!("Change number {m}")), "{pr}");
        }
        // Its first item stays on screen for the dwell, and counts as seen.
        tmux.wait_for("the first item read", |s| s.contains("✓ 1 seen now"));
        opened.push(n);
        if k < 2 {
            tmux.keys(&["q"]);
            tmux.wait_for("the inbox again", inbox_counted);
            tmux.keys(&["j"]);
        }
    }
    let live = opened[2];

    // On the third: a reply to its second thread, and a posted Shepherd review; both show
    // after the refetch that follows the session's own writes.
    tmux.keys(&["j"]);
    tmux.wait_for("the second item read", |s| s.contains("✓ 2 seen now"));
    tmux.keys(&["c"]);
    tmux.keys(&["-l", "Walked reply: fixed in the next push."]);
    tmux.keys(&["C-s"]);
    tmux.wait_for("the reply question", |s| s.contains("Post this reply?"));
    tmux.keys(&["y"]);
    // The reply as GitHub has it now (its author and date come from the refetch).
    tmux.wait_for("the reply on its thread, refetched", |s| {
        s.contains("replied:")
            && s.contains("@shepherd-bot (team) · 2025-11-16")
            && s.contains("Walked reply: fixed in the next push.")
    });
    tmux.keys(&["r"]);
    tmux.wait_for("the review", |s| s.contains("review finished"));
    tmux.keys(&["p"]);
    tmux.wait_for("the post question", |s| s.contains("Post the review?"));
    tmux.keys(&["y"]);
    let s = tmux.wait_for("the posted review on the PR screen", |s| {
        s.contains("Conversation (4)")
    });
    assert!(s.contains("@shepherd-bot  ## PR Shepherd Review"), "{s}");
    assert_eq!(screens.comments().len(), 1);
    assert_eq!(screens.replies().len(), 1);
    tmux.keys(&["v"]);
    tmux.wait_for("the review pane closed", |s| {
        pr_screen(s, live) && !s.contains("exactly as it will be posted")
    });

    // The refresh key, rate-limited once: the wait shows in the status line, never over the
    // panes, and the refetch then goes through.
    let limited = AtomicBool::new(true);
    fake.set_fault(Box::new(move |_, seen| {
        (seen.kind == "pr" && limited.swap(false, Ordering::SeqCst)).then(|| {
            ResponseTemplate::new(403)
                .insert_header("retry-after", "2")
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-reset", "1893456000")
                .set_body_string(r#"{"message": "API rate limit exceeded for user ID 1."}"#)
        })
    }));
    tmux.keys(&["C-r"]);
    let waiting = tmux.wait_for("the rate-limit wait in the status line", |s| {
        status_line(s).contains("rate limit")
    });
    assert!(waiting.contains("resets at"), "{waiting}");
    assert_no_note_over_the_panes(&waiting);
    let refreshed = tmux.wait_for("the refetch", |s| s.contains("refreshed:"));
    assert_no_note_over_the_panes(&refreshed);
    assert!(refreshed.contains("Conversation (4)"), "{refreshed}");

    // Back to the inbox: the rows are recounted. The PR just read has its two threads
    // seen (its own reply and review are not new); each other one opened, its first item.
    tmux.keys(&["q"]);
    let inbox = tmux.wait_for("the inbox, recounted", |s| {
        inbox_counted(s) && row(s, live).contains("4 new")
    });
    for n in 1..=4 {
        let unseen = match n {
            _ if n == live => "4 new",
            _ if opened.contains(&n) => "5 new",
            _ => "6 new",
        };
        assert!(
            row(&inbox, n).contains(unseen),
            "#{n} not {unseen}:\n{inbox}"
        );
    }
    assert!(
        row(&inbox, live).contains("current"),
        "Shepherd's review: {inbox}"
    );

    // A search, then Esc: the search is gone, the console stays.
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "number 1"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("the search applied", |s| {
        s.contains("search `number 1`") && inbox_row(s, 2).is_none()
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the search left, every row back", |s| {
        inbox_counted(s)
            && !s.contains("search `")
            && row(s, 1).contains("needs-label")
            && (2..=4).all(|n| row(s, n).contains("allowed"))
    });

    // A review on another PR with the slow model; quitting asks first, naming it: `n` stays,
    // `q` `y` quits.
    let slow = opened[1];
    select(&tmux, slow);
    tmux.keys(&["Enter"]);
    tmux.wait_for("the slow PR's screen", |s| pr_screen(s, slow));
    tmux.keys(&["r"]);
    tmux.wait_for("the review running", |s| s.contains("0/6 done"));
    tmux.keys(&["q"]);
    tmux.wait_for("the inbox, the review going on in its row", |s| {
        inbox_counted(s) && row(s, slow).contains("[review")
    });
    tmux.keys(&["q"]);
    let ask = tmux.wait_for("the quit question", |s| s.contains("Quit?"));
    assert!(
        ask.contains(&format!("review running on acme/widgets#{slow}")),
        "{ask}"
    );
    tmux.keys(&["n"]);
    tmux.wait_for("the inbox still there, the review still running", |s| {
        inbox_counted(s) && !s.contains("Quit?") && row(s, slow).contains("[review")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the quit question again", |s| s.contains("Quit?"));
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("the shell again", |s| s.contains("CONSOLE-EXITED:"));
    assert!(screen.contains("CONSOLE-EXITED:0"), "{screen}");
    tmux.assert_terminal_restored();
    drop(rt);
}

/// Moves the inbox's selection to the row of `acme/widgets#n`.
fn select(tmux: &Tmux<'_>, n: u64) {
    let s = tmux.wait_for("the inbox", inbox_counted);
    let order: Vec<u64> = s.lines().filter_map(row_pr).collect();
    let from = selected_pr(&s).and_then(|p| order.iter().position(|&x| x == p));
    let to = order.iter().position(|&x| x == n);
    let (Some(from), Some(to)) = (from, to) else {
        panic!("no row for #{n} or no selection:\n{s}");
    };
    let key = if to > from { "j" } else { "k" };
    for _ in 0..from.abs_diff(to) {
        tmux.keys(&[key]);
    }
    tmux.wait_for("the row selected", |s| selected_pr(s) == Some(n));
}
