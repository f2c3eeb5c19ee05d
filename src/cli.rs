//! Command-line definitions (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const AFTER_HELP: &str = "\
PR is OWNER/REPO#N, a PR URL (https://github.com/OWNER/REPO/pull/N, or an Enterprise host), or the
path of a fixture file. Subcommands without PR use the bundled demo fixture; the console without
an argument opens the inbox (the config's [[inbox.sections]], else the bundled fixtures).

State (seen markers) lives in --state-dir, else $PR_SHEPHERD_STATE_DIR, else the platform state dir.

Exit codes: 0 success, 1 runtime failure, 2 bad input or usage, 3 review incomplete (an aspect
failed or timed out; the review is still printed).";

/// Review GitHub pull requests from the terminal: every review thread, comment and review summary
/// surfaced at least once, with badges.
#[derive(Debug, Parser)]
#[command(name = "pr-shepherd", version, after_help = AFTER_HELP)]
pub struct Cli {
    /// Where seen markers and other per-PR state live (overrides $PR_SHEPHERD_STATE_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,

    /// Console theme: dark (default), light, high-contrast, a name in <config dir>/themes, or a
    /// .toml path. Overrides `theme` in the config file. NO_COLOR turns colours off.
    #[arg(long, global = true, value_name = "NAME")]
    pub theme: Option<String>,

    /// Config file to use instead of <platform config dir>/pr-shepherd/config.toml.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// GitHub REST API base (default https://api.github.com; an Enterprise PR URL implies
    /// https://HOST/api/v3).
    #[arg(long, global = true, env = "GITHUB_API_URL", value_name = "URL")]
    pub api_url: Option<String>,

    /// GitHub GraphQL endpoint (default: the REST base + /graphql; https://HOST/api/graphql for
    /// an Enterprise REST base ending in /api/v3).
    #[arg(long, global = true, env = "GITHUB_GRAPHQL_URL", value_name = "URL")]
    pub graphql_url: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// What the console opens (without a subcommand): a PR (OWNER/REPO#N, a PR URL, a fixture
    /// file) opens the PR screen; OWNER/REPO or a directory of fixtures opens the inbox. Default:
    /// the inbox of the config's [[inbox.sections]], else of the bundled fixtures.
    #[arg(value_name = "PR|OWNER/REPO|DIR")]
    pub pr: Option<String>,

    /// Open the console's inbox on a GitHub search (`is:pr is:open` is implied).
    #[arg(long, value_name = "QUERY", conflicts_with = "pr")]
    pub query: Option<String>,
}

#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per process; boxing buys nothing
pub enum Command {
    /// List every review thread, conversation comment and review summary with its badges, then
    /// mark the new and edited ones seen.
    #[command(after_help = "\
Markdown (default) has three sections: New, Edited since first look, and Unchanged (counted only,
unless --all). JSON (--format json, see docs/json-output.md) always holds every item.

Seen markers are written only after the listing has been written and flushed without error; with
--peek, or when the snapshot is incomplete, none are written.")]
    Items(ItemsArgs),
    /// Inspect or clear the state remembered for a PR.
    #[command(subcommand)]
    State(StateCommand),
    /// Work with fixture files.
    #[command(subcommand)]
    Fixture(FixtureCommand),
    /// Run the six aspect reviewers on an LLM and print the aggregated review.
    #[command(after_help = REVIEW_AFTER_HELP)]
    Review(ReviewArgs),
    /// Fetch a live PR completely and write it as a fixture file (replay it with `items FILE`).
    Record(RecordArgs),
    /// GitHub Actions: decide on the current event (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH) and
    /// review and post when the gates allow. See docs/github-actions.md.
    #[command(after_help = EVENT_AFTER_HELP)]
    Event(EventArgs),
    /// Poll a repository's open PRs and review new pushes and triggers per the gates.
    Watch(WatchArgs),
    /// The open PRs of repositories, a search or a fixture directory, each with its new and
    /// edited items, Shepherd's review state and its gate decision. Marks nothing seen.
    #[command(after_help = INBOX_AFTER_HELP)]
    Inbox(InboxArgs),
}

const INBOX_AFTER_HELP: &str = "\
Without an argument: the config's [[inbox.sections]] (each a GitHub search), else the bundled
fixtures. Counts are those `items` would list (same gate, same seen markers); the inbox never
marks anything seen and writes nothing to the state dir. Markdown lists the PRs that need
attention first (unseen items; a missing or stale Shepherd review where the gates allow one).
JSON: docs/json-output.md. Exit 2 for an unknown repository, a query GitHub rejects or a
directory without fixtures.";

#[derive(Debug, Args)]
pub struct InboxArgs {
    /// OWNER/REPO (one or more), or one directory of fixture files.
    #[arg(value_name = "OWNER/REPO|DIR")]
    pub targets: Vec<String>,
    /// A GitHub search (e.g. 'org:acme is:pr is:open review-requested:@me'); `is:pr is:open`
    /// is implied.
    #[arg(long, value_name = "QUERY", conflicts_with = "targets")]
    pub query: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// The account whose `## PR Shepherd Review` comments are Shepherd's (default: offline
    /// `pr-shepherd`, live the identity of the credentials).
    #[arg(long, value_name = "LOGIN")]
    pub identity: Option<String>,
}

const EVENT_AFTER_HELP: &str = "\
pull_request opened / synchronize / reopened / ready_for_review: an incremental review when the
gates allow (team PRs; community PRs with the `shepherd` label; never with `pause-shepherd` or
`no-shepherd`). labeled / unlabeled: the gates are evaluated again (no second review of the same
head). issue_comment with `@pr-shepherd /review [all]` from an OWNER, MEMBER or COLLABORATOR: a
review of the timeline through that comment, updating the one Shepherd comment. Anything else: no
action, with the reason. The decision and its reason always go to stderr (and into the JSON with
--format json). Credentials: GH_TOKEN or GITHUB_TOKEN (or a GitHub App).";

#[derive(Debug, Args)]
pub struct EventArgs {
    /// The webhook event name (default: $GITHUB_EVENT_NAME).
    #[arg(long, env = "GITHUB_EVENT_NAME", value_name = "NAME")]
    pub event_name: Option<String>,
    /// The webhook payload file (default: $GITHUB_EVENT_PATH).
    #[arg(long, env = "GITHUB_EVENT_PATH", value_name = "FILE")]
    pub event_path: Option<PathBuf>,
    /// Print the decision and the review; post nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The account whose `## PR Shepherd Review` comments are Shepherd's (default: the identity of
    /// the credentials; with Actions' GITHUB_TOKEN that is `github-actions[bot]`).
    #[arg(long, env = "PR_SHEPHERD_IDENTITY", value_name = "LOGIN")]
    pub identity: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    #[command(flatten)]
    pub llm: LlmOptions,
}

/// The LLM options of every command that reviews (`review`, `event`, `watch`), flattened into
/// each: they override the config file's `[review]` table (see `LlmOptions::overrides`).
#[derive(Debug, Clone, Args)]
pub struct LlmOptions {
    /// LLM backend (replay: a fixture's recorded answers).
    #[arg(long, value_name = "BACKEND", value_parser = ["anthropic", "openai", "command", "replay"])]
    pub llm: Option<String>,
    /// Base URL of the LLM API (overrides ANTHROPIC_BASE_URL / OPENAI_BASE_URL).
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// Model name.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Program for --llm command, with its arguments separated by spaces (no shell quoting).
    #[arg(long, value_name = "PROGRAM")]
    pub llm_command: Option<String>,
    /// How many aspects run at once (default 6).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Overall wall-clock limit in seconds (default 300).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Per-aspect limit in seconds (default 300).
    #[arg(long, value_name = "SECS")]
    pub aspect_timeout: Option<f64>,
    /// Read the playbook and aspect prompts from DIR (missing files fall back to the built-in ones).
    #[arg(long, value_name = "DIR")]
    pub prompts_dir: Option<PathBuf>,
    /// The literal marker that ends a reply addressing a finding.
    #[arg(long, value_name = "TEXT", default_value = "— AI Coding Agent")]
    pub reply_marker: String,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Each tick lists the open PRs (the listing of `inbox OWNER/REPO`) and, per PR: waits while it is still settling
(activity within --debounce: no review and no seen markers), then reviews a new head or answers a
new `@pr-shepherd /review` trigger when the gates allow, writes the seen markers, and remembers the
head and trigger in the state dir (<owner>-<repo>/<pr>/watch.json). Ctrl-C stops between steps.")]
pub struct WatchArgs {
    /// The repository, OWNER/REPO.
    #[arg(value_name = "OWNER/REPO")]
    pub repo: String,
    /// Time between ticks (`60s`, `5m`, `1h`, or seconds).
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    pub interval: String,
    /// A PR with activity more recent than this is left to settle (`60s`, `0s` = never waits).
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    pub debounce: String,
    /// Post the reviews (without it they are printed only).
    #[arg(long)]
    pub post: bool,
    /// The account whose `## PR Shepherd Review` comments are Shepherd's (default: the identity of
    /// the credentials).
    #[arg(long, env = "PR_SHEPHERD_IDENTITY", value_name = "LOGIN")]
    pub identity: Option<String>,
    /// Stop after N ticks (default: until Ctrl-C).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    #[command(flatten)]
    pub llm: LlmOptions,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// OWNER/REPO#N or a PR URL.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The fixture file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

const REVIEW_AFTER_HELP: &str = "\
Backends: anthropic (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), openai (OPENAI_API_KEY,
OPENAI_BASE_URL; also Ollama, vLLM, llama.cpp, OpenRouter via --llm-url), command (--llm-command:
prompt on stdin, answer on stdout), replay (the fixture's recorded answers; the default for
fixtures). Without --llm a live PR uses anthropic when ANTHROPIC_API_KEY is set, else openai.

Progress goes to stderr when it is a terminal. Each run is stored in the state dir as
<owner>-<repo>/<pr>/runs/<run-id>.json. Exit code 3 when any aspect failed or timed out (the
review is still printed). JSON: docs/json-output.md.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Md,
    Json,
}

#[derive(Debug, Args)]
pub struct ItemsArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path. Default: the bundled demo fixture.
    #[arg(value_name = "PR")]
    pub pr: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// Show unchanged items in full too (Markdown).
    #[arg(long)]
    pub all: bool,
    /// List without writing any seen markers.
    #[arg(long)]
    pub peek: bool,
    /// For a fixture with history: list the PR as of step K (0 = the initial snapshot).
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum StateCommand {
    /// Show the seen markers of a PR: counts, and each marker's id, first-seen time and hash.
    Show {
        /// OWNER/REPO#N, a PR URL, or a fixture path. Default: the bundled demo fixture.
        #[arg(value_name = "PR")]
        pr: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
    },
    /// Remove everything remembered about a PR (its items surface as new again).
    Clear {
        /// OWNER/REPO#N, a PR URL, or a fixture path. Default: the bundled demo fixture.
        #[arg(value_name = "PR")]
        pr: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum FixtureCommand {
    /// Generate a large synthetic fixture (for benchmarks and stress tests).
    Synth(SynthArgs),
    /// Validate a fixture file and every step of its history.
    Check {
        /// The fixture file.
        file: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Number of review threads.
    #[arg(long, default_value_t = 100)]
    pub threads: usize,
    /// Number of conversation comments.
    #[arg(long, default_value_t = 100)]
    pub comments: usize,
    /// Number of review summaries.
    #[arg(long, default_value_t = 20)]
    pub reviews: usize,
    /// Comments per thread (the first plus replies).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub replies: u32,
    /// Seed for the generator (same seed, same fixture).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path. Default: the bundled demo fixture.
    #[arg(value_name = "PR")]
    pub pr: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// For a fixture with history: review the PR as of step K (0 = the initial snapshot).
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    /// Full review: ignore earlier Shepherd reviews on the PR and assess everything (the default
    /// is incremental once a review exists: new / unchanged / addressed).
    #[arg(long)]
    pub all: bool,
    /// Post the review: update the one Shepherd comment on the PR, or create it. Offline
    /// (fixtures) it goes to the outbox in the state dir. Never approves, merges or pushes.
    #[arg(long)]
    pub post: bool,
    /// Offline: the account whose earlier `## PR Shepherd Review` comments count as Shepherd's
    /// (live, it is the account of the credentials).
    #[arg(long, value_name = "LOGIN", default_value = "pr-shepherd")]
    pub identity: String,
    /// Answer the trigger comment ID (database id or node id): the review sees the PR timeline
    /// through that comment inclusive, in the mode it asks for (`/review` or `/review all`); it
    /// must be a valid trigger from an OWNER, MEMBER or COLLABORATOR.
    #[arg(long, value_name = "ID")]
    pub trigger_comment: Option<String>,
    #[command(flatten)]
    pub llm: LlmOptions,
}
