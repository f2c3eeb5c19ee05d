//! Shared test helpers: the hermetic environment (`env`) every test that runs the binary uses,
//! the loopback GitHub (`fake_github`), the stand-in LLM (`llm`), and small output and demo
//! helpers, the usual live set-up ([`Live`]) and `event` runs (`webhook`). Each test file uses
//! part of them.

pub mod console;
pub mod env;
pub mod fake_decide;
pub mod fake_github;
pub mod fake_inbox;
pub mod fake_llm;
pub mod fake_reviews;
pub mod github_client;
pub mod gitrepo;
pub mod history;
pub mod llm;
pub mod request_log;
pub mod webhook;
// Shepherd's own check on the head: check runs and commit statuses.
pub mod fake_check_runs;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use pr_shepherd::pr::PrCoords;
use pr_shepherd::source::{DEMO_FIXTURE, Fixture};

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// stdout, then stderr: for assertions about everything a run printed.
pub fn all_output(o: &Output) -> String {
    format!("{}\n{}", stdout(o), stderr(o))
}

/// The bundled demo fixture.
pub fn demo_fixture() -> Fixture {
    Fixture::parse(DEMO_FIXTURE, Path::new("assets/fixtures/demo.json")).expect("the demo parses")
}

/// The demo fixture with `edit` applied, written into the test's scratch space.
pub fn demo_with(
    env: &env::TestEnv,
    edit: impl FnOnce(&mut serde_json::Value),
) -> std::path::PathBuf {
    let mut v: serde_json::Value =
        serde_json::from_str(pr_shepherd::source::DEMO_FIXTURE).expect("the demo is JSON");
    edit(&mut v);
    let path = env.root().join("fixture.json");
    std::fs::write(&path, serde_json::to_vec(&v).expect("encode")).expect("write fixture");
    path
}

/// The demo PR: acme/rivet#482.
pub fn demo_coords() -> PrCoords {
    PrCoords {
        host: None,
        owner: "acme".into(),
        repo: "rivet".into(),
        number: 482,
    }
}

/// The PR's folder in the state dir `state`, as the ledger names it (tests never build it).
pub fn pr_dir(state: &Path, pr: &PrCoords) -> std::path::PathBuf {
    pr_shepherd::ledger::Ledger::new(state)
        .pr_dir_to_read(pr)
        .expect("valid coordinates")
}

/// The demo PR's folder in the state dir `state`.
pub fn demo_dir(state: &Path) -> std::path::PathBuf {
    pr_dir(state, &demo_coords())
}

/// `o`, after asserting that the run exited 0 (else the panic shows its stderr).
pub fn exited_0(o: Output) -> Output {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o
}

/// Every file under `dir` with its bytes, and every dir (`path/`, empty): a dir's whole content.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.insert(format!("{}/", p.display()), Vec::new());
                stack.push(p);
            } else {
                out.insert(
                    p.display().to_string(),
                    std::fs::read(&p).unwrap_or_default(),
                );
            }
        }
    }
    out
}

/// stdout parsed as JSON; on failure the panic shows both streams.
pub fn stdout_json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(o), stderr(o)))
}

/// The binary against a live (loopback) GitHub at `github` with `token`, reviewing with `llm`.
pub async fn live_run(
    env: &env::TestEnv,
    github: &str,
    token: &str,
    llm: &llm::StandInLlm,
    args: &[&str],
) -> Output {
    env.bin_async()
        .env("GH_TOKEN", token)
        .env("GITHUB_API_URL", github)
        .env("OPENAI_API_KEY", "sk-test-0123456789")
        .args(args)
        .args(llm.args())
        .output()
        .await
        .expect("run pr-shepherd")
}

/// The usual live set-up: a fake GitHub holding a PR, a stand-in LLM that finds
/// [`llm::magic_number`], and a fresh [`env::TestEnv`].
pub struct Live {
    pub gh: wiremock::MockServer,
    pub fake: fake_github::FakeGitHub,
    pub llm: llm::StandInLlm,
    pub env: env::TestEnv,
}

impl Live {
    pub async fn start(pr: fake_github::FakePr) -> Live {
        let (gh, fake) = fake_github::FakeGitHub::start(pr).await;
        let llm = llm::StandInLlm::answering(vec![llm::magic_number()]).await;
        Live {
            gh,
            fake,
            llm,
            env: env::TestEnv::new(),
        }
    }
}
