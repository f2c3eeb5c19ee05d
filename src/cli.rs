//! Command-line definitions (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const AFTER_HELP: &str = "\
PR is OWNER/REPO#N, a PR URL (https://github.com/OWNER/REPO/pull/N, or an Enterprise host), or the
path of a fixture file. Subcommands without PR use the bundled demo fixture; the console without
an argument opens the inbox (the config's [[inbox.sections]]; else, with credentials, the default
sections Needs my review, Mine, Involved; else the bundled fixtures).

State (seen markers) lives in --state-dir, else $PR_SHEPHERD_STATE_DIR, else the platform state dir.

In the console nothing else writes to the terminal: notes (retries, rate-limit waits) go to the
status line and the message log (!), the debug log to debug.log in the state dir; Ctrl-L redraws.
In the draft editor and the reply composer Ctrl-o edits the text in $VISUAL, else $EDITOR.

Exit codes: 0 success, 1 runtime failure, 2 bad input or usage, 3 review incomplete (an aspect
failed or timed out; the review is still printed) or a merge refused because it would go past
items never shown or unsent work (`merge --yes --past-unseen` waives it).";

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

    /// Debug log on stderr (while the console runs on the terminal: debug.log in the state dir):
    /// -v for pr-shepherd's debug lines, -vv for trace. RUST_LOG (a tracing filter, e.g.
    /// `debug`) wins. Tokens and keys are redacted.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// The bundled demo PRs by their names (acme/rivet#482, #471, #497, or `demo`) even with
    /// GitHub credentials in the environment; without credentials they always are.
    #[arg(long, global = true)]
    pub demo: bool,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// What the console opens (without a subcommand): a PR (OWNER/REPO#N, a PR URL, a fixture
    /// file) opens the PR screen; OWNER/REPO or a directory of fixtures opens the inbox. Default:
    /// the inbox of the config's [[inbox.sections]]; else, with credentials, the default sections
    /// (Needs my review, Mine, Involved); else the bundled fixtures.
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
--peek, or when the snapshot is incomplete, none are written.

Piped into a pager or `head`: a listing that fits in the pipe is delivered whole the moment the
pipe takes it, so `items | head` marks every new and edited item seen even though `head` showed a
few lines (a listing larger than the pipe marks nothing when the reader leaves early). Use
`--peek` to look without marking. When standard output is not a terminal, the number of items
marked is said on stderr (unless --quiet).")]
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
    /// Reply to, resolve or unresolve a review thread (live: as the credentials' own account;
    /// fixtures: into the outbox in the state dir).
    #[command(subcommand, after_help = THREAD_AFTER_HELP)]
    Thread(ThreadCommand),
    /// Merge a PR at the head you reviewed, never another, and never past an item you were not
    /// shown without --past-unseen; --dry-run says what it would do and go past.
    #[command(after_help = MERGE_AFTER_HELP)]
    Merge(MergeArgs),
    /// Close, reopen, mark ready for review or convert to draft; arm or disarm auto-merge; take
    /// a PR out of the merge queue.
    #[command(subcommand)]
    Pr(PrCommand),
    /// Add or remove labels (names as the repository spells them; an unknown one is refused).
    #[command(subcommand)]
    Label(LabelCommand),
    /// Assign people to a PR (--remove unassigns them).
    Assign(AssignArgs),
    /// Request a review from people (LOGIN) and teams (ORG/TEAM).
    RequestReview(RequestReviewArgs),
    /// Bring the base branch into the PR's branch (a merge commit, or --rebase), only at the
    /// head you reviewed.
    UpdateBranch(UpdateBranchArgs),
    /// The PR's head in a git worktree beside the repository of `[code] checkout` (or --repo),
    /// fork PRs too; never touches a working tree with changes.
    Checkout(CheckoutArgs),
    /// Where the config file is, the effective settings, or a commented default file.
    #[command(subcommand, after_help = CONFIG_AFTER_HELP)]
    Config(ConfigCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to standard output.
    #[command(after_help = COMPLETIONS_AFTER_HELP)]
    Completions(CompletionsArgs),
    /// Print the man page (roff) to standard output, or write one page per subcommand to a folder.
    #[command(after_help = MAN_AFTER_HELP)]
    Man(ManArgs),
    /// The open PRs of repositories, a search or a fixture directory, each with its new and
    /// edited items, Shepherd's review state and its gate decision. Marks nothing seen.
    #[command(after_help = INBOX_AFTER_HELP)]
    Inbox(InboxArgs),
    /// The files a PR changes: change type, +/- counts, your viewed state, the threads and the
    /// latest Shepherd findings on each, and whether its patch changed since your last look.
    /// Marks nothing seen.
    #[command(after_help = FILES_AFTER_HELP)]
    Files(FilesArgs),
    /// The checks at a PR's head commit: each check run and commit status with its state and
    /// duration; for a failing one its annotations (new ones marked, then seen) and the tail of
    /// the failing job's log. --rerun-failed re-runs the failed Actions jobs (with --yes).
    #[command(after_help = CHECKS_AFTER_HELP)]
    Checks(ChecksArgs),
    /// The patch of the named files (all without PATH), or with --since-last-look what changed
    /// in each since the patch you last saw (the interdiff, by content: it survives a rebase).
    /// A patch that was printed is recorded as seen.
    #[command(after_help = DIFF_AFTER_HELP)]
    Diff(DiffArgs),
    /// Mark files viewed or not viewed (live: GitHub's markFileAsViewed / unmarkFileAsViewed as
    /// the credentials' account; fixtures: into the outbox in the state dir).
    #[command(subcommand)]
    File(FileCommand),
    /// Dismiss a finding with a reason: it is never proposed again on that PR (also reworded);
    /// with --repo it becomes a lesson for the whole repository.
    #[command(subcommand, after_help = FINDING_AFTER_HELP)]
    Finding(FindingCommand),
    /// List or drop a repository's lessons (findings dismissed with --repo, given to the aspects
    /// of every later review of that repository).
    #[command(subcommand)]
    Lessons(LessonsCommand),
    /// Precision from the maintainer's decisions: per aspect, proposed, kept rate, addressed
    /// rate, held back and tokens per kept finding.
    #[command(after_help = STATS_AFTER_HELP)]
    Stats(StatsArgs),
    /// The pending review: line comments and suggestions on the diff, Shepherd's findings as
    /// drafts, submitted as one GitHub review (comment or request changes; approving is only
    /// ever the maintainer's confirmed choice in the console).
    #[command(subcommand, after_help = PENDING_AFTER_HELP)]
    Pending(PendingCommand),
    /// Ask the model a question about lines of a file's diff: the lines, their hunk and the file
    /// around them go with it as fenced data; the answer is streamed to standard output, its
    /// tokens and cost to stderr (counted in the repository's spend log and daily budget).
    #[command(after_help = ASK_AFTER_HELP)]
    Ask(AskArgs),
}

const ASK_AFTER_HELP: &str = "\
--lines A-B (or one line, A) are line numbers on --side: right, the new file (added and context
lines, the default), or left, the old file (removed and context lines); both ends must be lines of
the file's diff, in one hunk, as for a review comment (otherwise exit 2, naming the diff's lines).
The file around them (at most 100 lines on either side) is read at the head (right) or the base
(left): live from GitHub, offline from the fixture's `fileContents` (without them it is left out,
and the prompt says so). The backend is `[review]`'s, with the same flags as `review`; a fixture's
`replay` backend answers with the answer recorded for `ask` in `llm.answers`. The call is reserved
and settled in the state dir's spend log like a review's calls: `[review] max_input_tokens` and
`max_cost` cap it, the daily caps count it, and a refused call is never made (exit 1). The answer is
the model's text, shown terminal-safe; it takes no action.";

const FINDING_AFTER_HELP: &str = "\
ID is a finding's id (PS-…) as a review lists it (its Markdown, --format json, the console). The
finding is looked up in the PR's review runs in the state dir, else in Shepherd's reviews on the
PR. The dismissal is recorded in the state dir (repos/<owner>/<repo>/decisions.jsonl) with the
finding's fingerprint — aspect, file, line window and key terms — so a reworded repetition of the
same point on the same code is held back too, on every later review of the PR, and the review
says how many were held back and why. --repo also makes it a lesson: given (fenced, as data) to
the aspects of every later review of the repository; `pr-shepherd lessons list|drop` manages them.";

const STATS_AFTER_HELP: &str = "\
Counts distinct findings (a PR's finding id) from the decisions in the state dir: proposed (by an
aspect), kept or edited (posted from the console), dropped (removed from the draft), dismissed,
posted, addressed (posted, then a trusted marker reply or no longer reported after a push), held
back by the verifier, by dismissals or as already raised by another reviewer. Kept rate = kept ÷
proposed (the maintainer's precision); addressed rate = addressed ÷ posted; tokens per kept
finding from the runs' spend. Without OWNER/REPO: every repository in the state dir. --since
YYYY-MM-DD (UTC) counts decisions from that day on.";

#[derive(Debug, Subcommand)]
pub enum FindingCommand {
    /// Dismiss a finding on a PR, with the reason.
    Dismiss {
        /// OWNER/REPO#N, a PR URL, or a fixture path.
        #[arg(value_name = "PR")]
        pr: String,
        /// The finding's id (PS-…).
        #[arg(value_name = "ID")]
        id: String,
        /// Why it is dismissed (kept with the dismissal, and given to later reviews).
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// Also a lesson for the whole repository.
        #[arg(long)]
        repo: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
    },
}

#[derive(Debug, Subcommand)]
pub enum LessonsCommand {
    /// The repository's lessons.
    List {
        /// OWNER/REPO, or a PR (OWNER/REPO#N, a PR URL, a fixture path) of the repository.
        #[arg(value_name = "OWNER/REPO")]
        repo: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
    },
    /// Drop a lesson (by its id, L-…, or the id of the finding it was made from).
    Drop {
        /// OWNER/REPO, or a PR of the repository.
        #[arg(value_name = "OWNER/REPO")]
        repo: String,
        /// The lesson's id (L-…) or its finding's id (PS-…).
        #[arg(value_name = "ID")]
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// OWNER/REPO, or a PR of the repository (default: every repository in the state dir).
    #[arg(value_name = "OWNER/REPO")]
    pub repo: Option<String>,
    /// Count decisions made on or after this UTC day (YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

const FILES_AFTER_HELP: &str = "\
`since your last look` is new (not in the PR when you last looked at its code), changed (its patch
changed since it was last shown to you), unchanged (the patch you were shown, wherever a rebase
moved it) or never-seen. GitHub's 3,000-file limit and files without a patch (binary, too large)
are said, never dropped. JSON: docs/json-output.md.";

const DIFF_AFTER_HELP: &str = "\
A file's patch is recorded as seen only after the output was written and flushed without error;
with --since-last-look, unchanged files are named and not printed, changed ones print their
interdiff (lines only in the patch you saw as `- `, only in the patch now as `+ `), new and
never-seen ones their whole patch. Exit 2 for a PATH the PR does not change. JSON:
docs/json-output.md.";

/// `files PR`.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// For a fixture with history: the PR as of step K (0 = the initial snapshot, the default).
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

const CHECKS_AFTER_HELP: &str = "\
An annotation shown once (in Markdown or JSON) is not new the next time: it is marked seen with
the same markers as the PR's items. Offline, a fixture's `dashboard.checkRuns` are the checks.
--rerun-failed lists the workflow runs whose failed jobs would be re-run and asks for --yes;
with --yes it sends one request per workflow run (POST …/actions/runs/{id}/rerun-failed-jobs).";

/// `checks PR`.
#[derive(Debug, Args)]
pub struct ChecksArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// Re-run the failed jobs of the failing Actions workflow runs (asks for --yes first).
    #[arg(long)]
    pub rerun_failed: bool,
    /// Confirms --rerun-failed.
    #[arg(long, requires = "rerun_failed")]
    pub yes: bool,
}

/// `diff PR [PATH…]`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// Files to show (paths as `files` lists them). Default: every file.
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// Show what changed since your last look: interdiffs of changed files, new files whole,
    /// unchanged ones only named.
    #[arg(long)]
    pub since_last_look: bool,
    /// For a fixture with history: the PR as of step K (0 = the initial snapshot, the default).
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum FileCommand {
    /// Mark files viewed (GitHub's "Viewed" checkbox).
    Viewed(FileMarkArgs),
    /// Mark files not viewed.
    Unviewed(FileMarkArgs),
}

#[derive(Debug, Args)]
pub struct FileMarkArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The files (paths as `files` lists them).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// For a fixture with history: the PR as of step K (0 = the initial snapshot, the default).
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
}

const CONFIG_AFTER_HELP: &str = "\
The config file is --config PATH, else config.toml in the platform config dir
($XDG_CONFIG_HOME/pr-shepherd, default ~/.config/pr-shepherd, on Linux). Every key, its type,
default and an example: docs/config.md.";

const COMPLETIONS_AFTER_HELP: &str = "\
Install (the file names are what each shell looks for):
  bash  pr-shepherd completions bash > ~/.local/share/bash-completion/completions/pr-shepherd
  zsh   pr-shepherd completions zsh > ~/.zfunc/_pr-shepherd   (with fpath+=(~/.zfunc) before compinit)
  fish  pr-shepherd completions fish > ~/.config/fish/completions/pr-shepherd.fish
  elvish, powershell: source the output from the shell's startup file.";

const MAN_AFTER_HELP: &str = "\
Install: pr-shepherd man > ~/.local/share/man/man1/pr-shepherd.1 (then `man pr-shepherd`), or
pr-shepherd man --dir ~/.local/share/man/man1 for a page per subcommand as well.";

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the path of the config file in use (--config, else the platform config dir).
    Path,
    /// Print the effective configuration as TOML: every setting with its default, and which
    /// values came from the file.
    Show,
    /// Write a commented default config file (every key, commented out). Refuses to overwrite an
    /// existing file (exit 2).
    Init,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write pr-shepherd.1 and a page per subcommand (pr-shepherd-items.1, …) into DIR instead of
    /// printing the one page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

const THREAD_AFTER_HELP: &str = "\
THREAD_ID is a review thread's node id (PRRT_…), as `items` lists it. Live, the reply is posted with
GraphQL addPullRequestReviewThreadReply (resolveReviewThread / unresolveReviewThread) as the account
of the credentials; a retry after a lost answer looks at the thread first, so a reply never goes out
twice; your own reply is recorded as seen. Offline (a fixture), the action is appended to
<state>/<owner>-<repo>/<pr>/outbox/threads.json.

Exit codes: 2 for an unknown or non-thread id, an empty reply or one over GitHub's 65,536-character
limit (nothing is sent); 1 when GitHub refuses (a locked PR: its reason) or cannot be reached.";

#[derive(Debug, Subcommand)]
pub enum ThreadCommand {
    /// Reply to a review thread.
    Reply {
        #[command(flatten)]
        target: ThreadTarget,
        /// The reply's text.
        #[arg(
            long,
            value_name = "TEXT",
            conflicts_with = "body_file",
            required_unless_present = "body_file"
        )]
        body: Option<String>,
        /// Read the reply's text from FILE (`-` for standard input).
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
    },
    /// Mark a review thread resolved.
    Resolve {
        #[command(flatten)]
        target: ThreadTarget,
    },
    /// Mark a review thread unresolved.
    Unresolve {
        #[command(flatten)]
        target: ThreadTarget,
    },
}

const MERGE_AFTER_HELP: &str = "\
The merge carries the head it must be at (GitHub's expectedHeadOid / the REST sha): --match-head
SHA, else the head your last look recorded (the console, `items`), `any` to waive the check. If
the PR moved since, nothing merges (exit 1) and the message says how many commits came.

Before merging, it reads the PR afresh and says what the merge goes past, with counts: items never
shown to you (or edited since), your unsent work (a pending review, drafts), unresolved threads,
changes requested, failing or pending checks, Shepherd's open critical and important findings.
Items never shown and unsent work stop the merge (exit 3) unless --yes --past-unseen; the rest is
said and does not. --dry-run prints the same (JSON: --format json) and merges nothing.

Where protection refuses a merge now (required checks or reviews, a branch behind its base),
--auto arms GitHub's auto-merge at the same head instead; where the base branch has a merge queue,
the merge is an enqueue. A fixture records the merge in the state dir's outbox: never sent.";

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// merge, squash or rebase (default: the config's [merge] method when the repository allows
    /// it, else the first it allows).
    #[arg(long, value_name = "METHOD")]
    pub method: Option<String>,
    /// The head the PR must be at: a commit id, or `any` (default: the head of your last look).
    #[arg(long, value_name = "SHA|any")]
    pub match_head: Option<String>,
    /// The commit's headline (default: GitHub's, for squash the title with (#N)).
    #[arg(long, value_name = "TEXT")]
    pub headline: Option<String>,
    /// The commit's body (default: GitHub's, for squash the commits' messages).
    #[arg(long, value_name = "TEXT")]
    pub body: Option<String>,
    /// Say what the merge would do and go past; merge nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Arm auto-merge instead: GitHub merges at this head once protection allows.
    #[arg(long)]
    pub auto: bool,
    /// Confirm a merge past what was never shown or is unsent (with --past-unseen).
    #[arg(long)]
    pub yes: bool,
    /// Merge even past items never shown to you and unsent work (with --yes).
    #[arg(long)]
    pub past_unseen: bool,
    /// For a fixture with history: the PR as of step K.
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum PrCommand {
    /// Close the PR (with --comment, the comment is posted first).
    Close(PrStateArgs),
    /// Reopen a closed PR (with --comment, posted first).
    Reopen(PrStateArgs),
    /// Mark a draft PR ready for review.
    Ready(PrStateArgs),
    /// Convert the PR to a draft.
    Draft(PrStateArgs),
    /// Disarm auto-merge.
    AutoMergeOff(PrStateArgs),
    /// Take the PR out of the merge queue.
    Dequeue(PrStateArgs),
}

#[derive(Debug, Args)]
pub struct PrStateArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// A conversation comment posted first (close and reopen).
    #[arg(long, value_name = "TEXT")]
    pub comment: Option<String>,
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum LabelCommand {
    /// Add labels (a label already on the PR stays one label).
    Add(LabelArgs),
    /// Remove labels (one not on the PR is said, not an error).
    Remove(LabelArgs),
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    #[arg(value_name = "PR")]
    pub pr: String,
    /// Label names.
    #[arg(value_name = "NAME", required = true)]
    pub names: Vec<String>,
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct AssignArgs {
    #[arg(value_name = "PR")]
    pub pr: String,
    /// Logins (with or without @).
    #[arg(value_name = "LOGIN", required = true)]
    pub logins: Vec<String>,
    /// Unassign them instead.
    #[arg(long)]
    pub remove: bool,
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct RequestReviewArgs {
    #[arg(value_name = "PR")]
    pub pr: String,
    /// LOGIN or ORG/TEAM (with or without @).
    #[arg(value_name = "REVIEWER", required = true)]
    pub reviewers: Vec<String>,
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct UpdateBranchArgs {
    #[arg(value_name = "PR")]
    pub pr: String,
    /// Rebase the PR's commits on the base instead of merging the base in.
    #[arg(long)]
    pub rebase: bool,
    /// The head the PR must be at: a commit id, or `any` (default: the head of your last look).
    #[arg(long, value_name = "SHA|any")]
    pub match_head: Option<String>,
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CheckoutArgs {
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The git repository to fetch into (default: `[code] checkout` in the config).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Where the worktree goes (default: beside the repository, `<repo>-pr-N`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

/// The PR and thread every `thread` command names.
#[derive(Debug, Args)]
pub struct ThreadTarget {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The review thread's node id (PRRT_…).
    #[arg(value_name = "THREAD_ID")]
    pub thread_id: String,
    /// For a fixture with history: the PR as of step K (0 = the initial snapshot, the default).
    #[arg(long, value_name = "K")]
    pub step: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

const INBOX_AFTER_HELP: &str = "\
Without an argument: the config's [[inbox.sections]] (each a GitHub search); else, with
credentials, the default sections (Needs my review, Mine, Involved); else the bundled fixtures. Counts are those `items` would list (same gate, same seen markers); the inbox never
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
    /// is implied, and a search for closed or merged PRs (is:closed, is:merged) is refused.
    #[arg(long, value_name = "QUERY", conflicts_with = "targets")]
    pub query: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// The account whose `## PR Shepherd Review` comments are Shepherd's (default: offline
    /// `pr-shepherd`, live the identity of the credentials).
    #[arg(long, value_name = "LOGIN")]
    pub identity: Option<String>,
    /// No progress on stderr (it is shown, per PR counted, only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

const EVENT_AFTER_HELP: &str = "\
pull_request opened / synchronize / reopened / ready_for_review: an incremental review when the
gates allow (team PRs; community PRs with the `shepherd` label; never with `pause-shepherd` or
`no-shepherd`; label names from the config's [gates]). labeled / unlabeled: the gates are evaluated
again (no second review of the same head); adding `fix-ci` or `address-review` is recognized, but
write actions are not available in this version, so nothing is done. issue_comment created,
pull_request_review submitted or pull_request_review_comment created with `@pr-shepherd /review
[all]` (mentions from [automation]) from an OWNER, MEMBER or COLLABORATOR, at most
max_trigger_chars long: a review of the timeline through that trigger, updating the one Shepherd
comment (also on a closed or merged PR, which automatic events leave alone). Anything else: no
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
    /// Post an incomplete review (an aspect failed or timed out) also over a complete review
    /// posted earlier. Without it that review is printed, not posted (exit 3).
    #[arg(long, conflicts_with = "dry_run")]
    pub post_incomplete: bool,
    /// The account whose `## PR Shepherd Review` comments are Shepherd's (default: the identity of
    /// the credentials; with Actions' GITHUB_TOKEN that is `github-actions[bot]`).
    #[arg(long, env = "PR_SHEPHERD_IDENTITY", value_name = "LOGIN")]
    pub identity: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    #[command(flatten)]
    pub llm: LlmOptions,
    /// No progress on stderr (it is shown, per aspect, only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
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
    /// How many aspects run at once (default 6; 1 to 64).
    #[arg(long, value_name = "N", value_parser = concurrency())]
    pub concurrency: Option<usize>,
    /// Overall wall-clock limit in seconds (default 900); every model call ends within it.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Per-aspect limit in seconds (default 900).
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
new `@pr-shepherd /review` trigger (in a comment, a review or an inline review comment) when the gates allow, writes the seen markers, and remembers the
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
    /// With --post: post an incomplete review (an aspect failed or timed out) also over a
    /// complete review posted earlier. Without it that review is printed, not posted.
    #[arg(long, requires = "post")]
    pub post_incomplete: bool,
    /// The account whose `## PR Shepherd Review` comments are Shepherd's (default: the identity of
    /// the credentials).
    #[arg(long, env = "PR_SHEPHERD_IDENTITY", value_name = "LOGIN")]
    pub identity: Option<String>,
    /// Stop after N ticks (default: until Ctrl-C).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    #[command(flatten)]
    pub llm: LlmOptions,
    /// No progress on stderr (it is shown, per aspect, only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// OWNER/REPO#N or a PR URL.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The fixture file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// No progress on stderr (it is shown, per page, only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

const REVIEW_AFTER_HELP: &str = "\
Backends: anthropic (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), openai (OPENAI_API_KEY,
OPENAI_BASE_URL; also Ollama, vLLM, llama.cpp, OpenRouter via --llm-url), command (--llm-command:
prompt on stdin, answer on stdout), replay (the fixture's recorded answers; the default for
fixtures). Without --llm a live PR uses anthropic when ANTHROPIC_API_KEY is set, else openai.

Progress (a line per aspect) goes to stderr when it is a terminal, unless --quiet. Each run is stored in the state dir as
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
    /// List without writing any seen markers (the way to look through a pipe or pager).
    #[arg(long)]
    pub peek: bool,
    /// Say nothing on stderr about the markers written (said when stdout is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
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
    /// Forget what was seen on a PR (its items surface as new again). The unposted review draft,
    /// the outbox and the run history stay; --all removes them too.
    Clear {
        /// OWNER/REPO#N, a PR URL, or a fixture path. Default: the bundled demo fixture.
        #[arg(value_name = "PR")]
        pr: Option<String>,
        /// Remove everything remembered about the PR: seen markers, the unposted draft, the
        /// outbox, the run history. Asks first when a draft exists (see --yes).
        #[arg(long)]
        all: bool,
        /// With --all: remove an unposted draft without asking (for scripts; without a terminal
        /// and without --yes, a draft makes --all refuse with exit 2).
        #[arg(long, requires = "all")]
        yes: bool,
    },
    /// Remove the seen markers (and kept texts) of items the PR no longer has, saying how many.
    /// The PR is read first (a fixture's latest step, or GitHub); a marker of an item it still
    /// has is never removed, and nothing is removed when it cannot be read completely.
    Prune {
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

/// The most items of one kind `fixture synth` makes (a larger count is refused, exit 2).
pub const MAX_SYNTH_COUNT: u64 = 1_000_000;

fn synth_count() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_SYNTH_COUNT)
}

/// The most aspects that run at once (`--concurrency`); the config's `[review] concurrency` has
/// the same range (see `crate::review::settings::MAX_CONCURRENCY`).
fn concurrency() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64)
}

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Number of review threads (at most 1,000,000).
    #[arg(long, default_value_t = 100, value_parser = synth_count())]
    pub threads: usize,
    /// Number of conversation comments (at most 1,000,000).
    #[arg(long, default_value_t = 100, value_parser = synth_count())]
    pub comments: usize,
    /// Number of review summaries (at most 1,000,000).
    #[arg(long, default_value_t = 20, value_parser = synth_count())]
    pub reviews: usize,
    /// Comments per thread (the first plus replies; 1 to 1,000).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
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
    /// With --post: also the findings on lines of the diff as inline comments of one review
    /// (event comment), each carrying its finding id; one already on the PR is not posted again.
    #[arg(long, requires = "post")]
    pub inline: bool,
    /// With --post: post an incomplete review (an aspect failed or timed out) also over a
    /// complete review posted earlier. Without it that review is printed, not posted (exit 3).
    #[arg(long, requires = "post")]
    pub post_incomplete: bool,
    /// Offline: the account whose earlier `## PR Shepherd Review` comments count as Shepherd's
    /// (live, it is the account of the credentials).
    #[arg(long, value_name = "LOGIN", default_value = crate::pr::DEFAULT_IDENTITY)]
    pub identity: String,
    /// Answer the trigger ID: a conversation comment, review summary or inline review comment
    /// (its node id, or its database id when that names one item). The review sees the PR
    /// timeline through it inclusive, in the mode it asks for (`/review` or `/review all`); it
    /// must be a valid trigger (a mention of `[automation] mentions`) from an OWNER, MEMBER or
    /// COLLABORATOR.
    #[arg(long, value_name = "ID")]
    pub trigger_comment: Option<String>,
    #[command(flatten)]
    pub llm: LlmOptions,
    /// No progress on stderr (it is shown, per aspect, only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

const PENDING_AFTER_HELP: &str = "\
The pending review is kept in the state dir (<pr>/pending.json) until it is submitted. `add`
checks the place against GitHub's rules at the PR's head (the line in the diff on that side; a
range needs --start-line before --line); a suggestion is a ```suggestion block. `submit` sends
one review with every kept comment in one request at the PR's current head, never twice (a retry
finds the first by a hidden key); a comment whose line left the diff is named, and --fold moves
it into the review's body. Each comment remembers the head and the lines it was written on: after
a push it moves with its lines (said when submitted), is outdated when they changed (posted at
their new place only once kept: `keep`, or `submit --keep-outdated`) or gone when they left the
diff; `list` shows which. Comments not posted stay pending. Offline (fixtures) the exact request
goes to <pr>/outbox/reviews.json (`state show` lists it). There is no approve here: approving is
only the console's, confirmed.";

#[derive(Debug, Subcommand)]
pub enum PendingCommand {
    /// Add a line comment or a suggestion to the pending review.
    Add(PendingAddArgs),
    /// List the pending review's comments with their place.
    List {
        /// OWNER/REPO#N, a PR URL, or a fixture path.
        #[arg(value_name = "PR")]
        pr: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
    },
    /// Remove a comment (a finding's draft is marked dropped).
    Drop {
        /// OWNER/REPO#N, a PR URL, or a fixture path.
        #[arg(value_name = "PR")]
        pr: String,
        /// The comment's id (`c1`, … as `pending list` shows it).
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Keep a comment: a finding's draft, or an outdated comment as it is at its new place.
    Keep {
        /// OWNER/REPO#N, a PR URL, or a fixture path.
        #[arg(value_name = "PR")]
        pr: String,
        /// The comment's id (`c1`, … as `pending list` shows it).
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Submit the pending review as one GitHub review.
    Submit(PendingSubmitArgs),
}

#[derive(Debug, Args)]
pub struct AskArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The changed file.
    #[arg(long, value_name = "P")]
    pub path: String,
    /// The lines, `A-B` or `A`, numbered on --side.
    #[arg(long, value_name = "A-B")]
    pub lines: String,
    /// right (the new file, default) or left (the old file: removed lines).
    #[arg(long, value_name = "SIDE", default_value = "right", value_parser = ["right", "left", "RIGHT", "LEFT"])]
    pub side: String,
    /// The question.
    #[arg(value_name = "QUESTION")]
    pub question: String,
    #[command(flatten)]
    pub llm: LlmOptions,
}

#[derive(Debug, Args)]
pub struct PendingAddArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// The changed file.
    #[arg(long, value_name = "P")]
    pub path: String,
    /// The line (the last line of a range).
    #[arg(long, value_name = "N")]
    pub line: u32,
    /// The first line of a range (before --line, on the same side).
    #[arg(long, value_name = "M")]
    pub start_line: Option<u32>,
    /// RIGHT (the new file, default) or LEFT (the old file: removed lines).
    #[arg(long, value_name = "SIDE", default_value = "RIGHT", value_parser = ["RIGHT", "LEFT", "right", "left"])]
    pub side: String,
    /// The comment's text.
    #[arg(
        long,
        value_name = "T",
        conflicts_with = "suggestion",
        required_unless_present = "suggestion"
    )]
    pub body: Option<String>,
    /// The suggested replacement of the line(s): posted as a ```suggestion block.
    #[arg(long, value_name = "T")]
    pub suggestion: Option<String>,
}

#[derive(Debug, Args)]
pub struct PendingSubmitArgs {
    /// OWNER/REPO#N, a PR URL, or a fixture path.
    #[arg(value_name = "PR")]
    pub pr: String,
    /// How the review is submitted (no approve: that is only the console's, confirmed).
    #[arg(long, value_name = "EVENT", value_parser = ["comment", "request-changes"])]
    pub event: String,
    /// The review's body (default: the pending review's own body).
    #[arg(long, value_name = "T")]
    pub body: Option<String>,
    /// Move comments whose line left the diff, or whose lines changed since they were written
    /// (outdated, not kept), into the review's body instead of refusing.
    #[arg(long)]
    pub fold: bool,
    /// Keep every outdated comment as it is at its new place (as `pending keep` does each).
    #[arg(long)]
    pub keep_outdated: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
}

/// The subcommand `word` was most likely meant to be (a typo of one or two letters, or a
/// transposition: `itmes` → `items`), or `None`.
pub fn closest_subcommand(word: &str) -> Option<String> {
    use clap::CommandFactory;
    let word = word.to_lowercase();
    let cmd = Cli::command();
    cmd.get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| (typo_distance(&word, c.get_name()), c.get_name().to_owned()))
        .filter(|(d, name)| *d <= 2 && *d < name.chars().count())
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// Edit distance counting a swap of two neighbouring letters as one edit (optimal string
/// alignment).
fn typo_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod typo_tests {
    use super::*;

    #[test]
    fn a_mistyped_subcommand_is_named() {
        assert_eq!(closest_subcommand("itmes").as_deref(), Some("items"));
        assert_eq!(closest_subcommand("reveiw").as_deref(), Some("review"));
        assert_eq!(closest_subcommand("Inbx").as_deref(), Some("inbox"));
        assert_eq!(closest_subcommand("zzzzzzzz"), None);
    }

    #[test]
    fn a_swap_is_one_edit() {
        assert_eq!(typo_distance("itmes", "items"), 1);
        assert_eq!(typo_distance("", "ab"), 2);
        assert_eq!(typo_distance("same", "same"), 0);
    }
}
