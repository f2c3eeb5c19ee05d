//! `pr-shepherd event` as GitHub Actions runs it: a webhook payload (see
//! [`payload`](super::fake_github::payload)) against the loopback GitHub, reviewing with the
//! stand-in LLM.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::json;
use wiremock::MockServer;

use super::env::TestEnv;
use super::fake_github::{FakeGitHub, payload};
use super::llm::StandInLlm;

/// The Actions token the event runs get (`GITHUB_TOKEN`).
pub const TOKEN: &str = "ghs_ActionsLoopbackToken0123456789";

/// `pr-shepherd event` for the delivery `name` (`GITHUB_EVENT_NAME`) with the payload at
/// `payload`, then `extra` flags.
pub async fn event(
    env: &TestEnv,
    gh: &MockServer,
    llm: &StandInLlm,
    name: &str,
    payload: &Path,
    extra: &[&str],
) -> Output {
    env.bin_async()
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", gh.uri())
        .env("GITHUB_EVENT_NAME", name)
        .env("GITHUB_EVENT_PATH", payload)
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .arg("event")
        .args(llm.args())
        .args(extra)
        .output()
        .await
        .unwrap()
}

/// The payload `file` whose `key` object ("comment" or "review") is `body` by someone with
/// `association`, with database id `id` (the payload's own when `None`).
pub fn authored_payload(
    dir: &Path,
    file: &str,
    key: &str,
    id: Option<u64>,
    body: &str,
    association: &str,
) -> PathBuf {
    payload(dir, file, |v| {
        if let Some(id) = id {
            v[key]["id"] = json!(id);
        }
        v[key]["body"] = json!(body);
        v[key]["author_association"] = json!(association);
    })
}

/// An `issue_comment` (created) payload: see [`authored_payload`].
pub fn comment_payload(dir: &Path, id: Option<u64>, body: &str, association: &str) -> PathBuf {
    let file = "issue_comment/created.payload.json";
    authored_payload(dir, file, "comment", id, body, association)
}

/// A maintainer's (MEMBER) conversation comment `body` on the fake's PR, and its
/// `issue_comment` payload: (database id, payload path).
pub fn member_comment(fake: &FakeGitHub, dir: &Path, body: &str) -> (u64, PathBuf) {
    let id = fake.add_comment("hubot", "MEMBER", body, "2024-06-02T00:00:00Z");
    (id, comment_payload(dir, Some(id), body, "MEMBER"))
}
