//! The settings schema: every key of `config.toml` in one table — its type, its default, its
//! allowed values or range, an example and what it means.
//!
//! One table, read by everything that speaks about a setting: the range checks of
//! `review::settings::ReviewSettings::validate` (the ranges are this module's constants and the
//! messages come from [`Setting::check_int`] / [`Setting::check_seconds`]), `config show` (what an
//! unset key means), `config init` (each key's comment and example) and the key tables of
//! `docs/config.md` ([`markdown_table`]; `tests/project/docs.rs` fails when the page and this table
//! differ). The values of the defaults come from the program's own `Default` impls (serialized by
//! `crate::config::default_value`), so no default is typed twice; a test in `crate::config` fails
//! when a field of the config structs has no row here, or a row no field.
//!
//! Pure data and formatting: no I/O, no imports from the rest of the crate but `keys`.

use crate::keys::COMMANDS;

/// The theme used when neither `--theme` nor the config names one.
pub const DEFAULT_THEME: &str = "dark";
/// The themes built into the binary (`themes/*.toml`).
pub const BUILTIN_THEMES: &[&str] = &["dark", "light", "high-contrast"];
/// The model asked of the Anthropic backend when `[review] model` is not set.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// The model asked of the OpenAI backend when `[review] model` is not set.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";
/// The LLM backends, by their config names.
pub const BACKENDS: &[&str] = &["anthropic", "openai", "command", "replay"];
/// The diff screen's layouts (`[console] diff_layout`, `config::DiffLayout`).
pub const DIFF_LAYOUTS: &[&str] = &["auto", "unified", "split"];
/// The ways the HTTP backends may ask for the findings object (`[review] structured_output`).
pub const STRUCTURED_OUTPUTS: &[&str] = &["auto", "json_schema", "json_object", "off"];
/// The aspects, by their config names (the keys of `[review.diff_budgets]` and
/// `[review.skip.<aspect>]`).
pub const ASPECTS: &[&str] = &[
    "correctness",
    "conventions",
    "security",
    "perf",
    "tests",
    "architecture",
];

/// The most aspects that run at once (there are six; more is refused as a mistake).
pub const MAX_CONCURRENCY: usize = 64;
/// The most seconds a timeout may be (about 115 days).
pub const MAX_TIMEOUT_SECS: f64 = 1e7;
/// The most extra attempts after a failed LLM call.
pub const MAX_RETRIES: u32 = 10;
/// The longest first backoff before an LLM retry (one minute).
pub const MAX_RETRY_BACKOFF_MS: u64 = 60_000;
/// The largest answer length that may be asked of a provider.
pub const MAX_OUTPUT_TOKENS: u32 = 1_000_000;
/// The most calls (chunks) one aspect may be allowed.
pub const MAX_CALLS_PER_ASPECT: usize = 10_000;
/// The largest diff budget per aspect (characters).
pub const MAX_DIFF_BUDGET_CHARS: usize = 100_000_000;
/// The largest guidance budget (characters).
pub const MAX_GUIDANCE_BUDGET_CHARS: usize = 1_000_000;
/// The largest token budget a run or a day may be given.
pub const MAX_TOKEN_BUDGET: u64 = 1_000_000_000_000;

/// A setting's TOML type, as the reference names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    String,
    /// A string naming a file or folder.
    Path,
    Integer,
    /// An integer number of milliseconds.
    Milliseconds,
    /// A float number of seconds.
    Seconds,
    /// A float number (an amount in USD).
    Float,
    Boolean,
    Strings,
    /// Console keys: an array of key names, or one.
    Keys,
    Table,
    Tables,
}

impl Type {
    /// The type in words, as the reference's "type" column says it.
    pub fn label(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Path => "string (path)",
            Type::Integer => "integer",
            Type::Milliseconds => "integer (milliseconds)",
            Type::Seconds => "float (seconds)",
            Type::Float => "float",
            Type::Boolean => "boolean",
            Type::Strings => "array of strings",
            Type::Keys => "array of strings (or one string)",
            Type::Table => "table",
            Type::Tables => "array of tables",
        }
    }
}

/// What applies when a key is not in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    /// The program's default value (its `Default` impl; see `crate::config::default_value`).
    Value,
    /// No value: the text says what the program does then. `{anthropic_model}` and
    /// `{openai_model}` stand for the default model names.
    NotSet(&'static str),
}

/// `merge.method`'s values.
pub const MERGE_METHODS: &[&str] = &["merge", "squash", "rebase"];

/// What values a setting accepts, beyond its type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Allowed {
    /// Any value of the type (the description may say more).
    Any,
    /// An integer from `min` to `max`, both included.
    Int { min: u64, max: u64 },
    /// A number of seconds above 0 and at most `max`.
    Seconds { max: f64 },
    /// One of these names, or (`or`) what the words say.
    OneOf {
        values: &'static [&'static str],
        or: Option<&'static str>,
    },
}

/// The values `[automation] check_fails_on` takes (`policy::check::CheckFailsOn::NAMES`).
pub const CHECK_FAILS_ON: [&str; 4] = ["critical", "important", "suggestion", "never"];

/// The names `[inbox] columns` takes, in the table's default order (`inbox::columns::ALL`).
pub const INBOX_COLUMNS: &[&str] = &[
    "pr",
    "unseen",
    "title",
    "checks",
    "review",
    "requested",
    "size",
    "updated",
    "shepherd",
    "gate",
    "author",
    "labels",
];

/// One key of `config.toml`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// The dotted key: `theme`, `review.concurrency`; `<aspect>` and `<command>` stand for a map
    /// key (`review.skip.<aspect>.always`, `keys.<command>`).
    pub key: &'static str,
    pub ty: Type,
    pub default: Default,
    pub allowed: Allowed,
    /// The command-line flag that overrides it, if any.
    pub flag: Option<&'static str>,
    /// An example value, as inline TOML (a valid value of the key).
    pub example: &'static str,
    /// What it does, in one sentence (lower case, no final full stop).
    pub description: &'static str,
}

/// Every key of `config.toml`, in the order `config show` and `config init` list them. A new
/// setting is one row here plus its field (see docs/architecture.md, "A new setting").
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: "theme",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::OneOf {
            values: BUILTIN_THEMES,
            or: Some("a name in `<config dir>/themes/NAME.toml`, or a path to a `.toml` file"),
        },
        flag: Some("--theme"),
        example: "\"light\"",
        description: "console theme",
    },
    Setting {
        key: "keys.<command>",
        ty: Type::Keys,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[\"j\", \"Down\"]",
        description: "keys of a console command, replacing its defaults (names as in the `?` overlay); a key bound to two commands is refused",
    },
    Setting {
        key: "review.llm",
        ty: Type::String,
        default: Default::NotSet(
            "`replay` for fixtures, else `anthropic` when `ANTHROPIC_API_KEY` is set, else `openai`",
        ),
        allowed: Allowed::OneOf {
            values: BACKENDS,
            or: None,
        },
        flag: Some("--llm"),
        example: "\"openai\"",
        description: "the LLM backend",
    },
    Setting {
        key: "review.llm_url",
        ty: Type::String,
        default: Default::NotSet(
            "`ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the provider's own",
        ),
        allowed: Allowed::Any,
        flag: Some("--llm-url"),
        example: "\"http://localhost:11434/v1\"",
        description: "base URL of the LLM API",
    },
    Setting {
        key: "review.model",
        ty: Type::String,
        default: Default::NotSet("`{anthropic_model}` (anthropic), `{openai_model}` (openai)"),
        allowed: Allowed::Any,
        flag: Some("--model"),
        example: "\"qwen2.5-coder:14b\"",
        description: "model name",
    },
    Setting {
        key: "review.command",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: Some("--llm-command"),
        example: "[\"my-agent\", \"--print\"]",
        description: "for `llm = \"command\"`: the program and its arguments (no shell); the prompt on stdin, the answer on stdout; killed on timeout or cancel",
    },
    Setting {
        key: "review.command_env",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[\"MY_AGENT_CONFIG\"]",
        description: "for `llm = \"command\"`: environment variables the program gets besides `PATH`, `HOME`, `TMPDIR`, `TZ` and the locale; nothing else reaches it, tokens and API keys included, unless named here (names only: letters, digits and `_`)",
    },
    Setting {
        key: "review.concurrency",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 1,
            max: MAX_CONCURRENCY as u64,
        },
        flag: Some("--concurrency"),
        example: "2",
        description: "how many aspects run at once",
    },
    Setting {
        key: "review.aspect_timeout_secs",
        ty: Type::Seconds,
        default: Default::Value,
        allowed: Allowed::Seconds {
            max: MAX_TIMEOUT_SECS,
        },
        flag: Some("--aspect-timeout"),
        example: "120.0",
        description: "wall-clock limit per aspect, retries included (also of an `ask`, when shorter than the overall one); a call still running then is ended, however much is still arriving",
    },
    Setting {
        key: "review.overall_timeout_secs",
        ty: Type::Seconds,
        default: Default::Value,
        allowed: Allowed::Seconds {
            max: MAX_TIMEOUT_SECS,
        },
        flag: Some("--timeout"),
        example: "600.0",
        description: "wall-clock limit for the whole review, and for an `ask` (the CLI's or the console's) from its call's start; a call still running then is ended, however much is still arriving",
    },
    Setting {
        key: "review.idle_timeout",
        ty: Type::Seconds,
        default: Default::Value,
        allowed: Allowed::Seconds {
            max: MAX_TIMEOUT_SECS,
        },
        flag: None,
        example: "300.0",
        description: "the longest silence inside an answer that has begun: for the HTTP backends, from the first byte (a streamed answer's headers, a whole answer's first byte of body) no byte for this long gives that attempt up, retried like a cut stream, and the first such silence makes the run go one call at a time; for `command`, from the program's first byte (stdout or stderr) no byte on either for this long ends the call and the program's process group. Before the first byte only the per-aspect and overall limits count, so a request queued by a server that serves one at a time is not cut for waiting; a stream still producing tokens is never cut for silence, only at those limits",
    },
    Setting {
        key: "review.retries",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 0,
            max: MAX_RETRIES as u64,
        },
        flag: None,
        example: "4",
        description: "extra attempts after an HTTP 429 / 5xx or a connection failure",
    },
    Setting {
        key: "review.retry_backoff_ms",
        ty: Type::Milliseconds,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 0,
            max: MAX_RETRY_BACKOFF_MS,
        },
        flag: None,
        example: "1000",
        description: "backoff before retry n is `retry_backoff_ms × 2^n`; a `Retry-After` header wins, up to 30 s",
    },
    Setting {
        key: "review.max_output_tokens",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 1,
            max: MAX_OUTPUT_TOKENS as u64,
        },
        flag: None,
        example: "8192",
        description: "answer length limit sent to the provider",
    },
    Setting {
        key: "review.diff_budget_chars",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 0,
            max: MAX_DIFF_BUDGET_CHARS as u64,
        },
        flag: None,
        example: "30000",
        description: "characters of diff one call may carry; a larger diff is reviewed in chunks of at most this size (whole files, then hunks, then lines; at least 1,000 per chunk), each its own call",
    },
    Setting {
        key: "review.max_calls_per_aspect",
        ty: Type::Integer,
        default: Default::NotSet("no cap"),
        allowed: Allowed::Int {
            min: 1,
            max: MAX_CALLS_PER_ASPECT as u64,
        },
        flag: None,
        example: "8",
        description: "the most calls (chunks) one aspect may make; what the rest would have shown is named as omitted or truncated",
    },
    Setting {
        key: "review.stream",
        ty: Type::Boolean,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "false",
        description: "stream answers from the HTTP backends (live progress; the other aspects start as soon as the first answer begins, so they read the prompt cache)",
    },
    Setting {
        key: "review.structured_output",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::OneOf {
            values: STRUCTURED_OUTPUTS,
            or: None,
        },
        flag: None,
        example: "\"json_object\"",
        description: "how the HTTP backends ask for the findings object. `auto`: the best the server takes — openai: `response_format` json_schema, else json_object with the schema inside (a `schema` key beside `type`, as llama-cpp-python takes it), else json_object, else plain text; anthropic: the forced tool, else plain text. A refusal (a 4xx, or a 5xx, naming the parameter) falls one rung lower for the rest of the run, and what answered is remembered per server URL in the state dir (`llm-servers.json`: at most 32 servers, for 30 days; a corrupt file is ignored with a note) so the next run asks that way at once. `json_schema`: only json_schema (anthropic: the tool); a refusal fails the aspect. `json_object`: only json_object, with the schema where the server takes it (anthropic: the tool). `off`: no structured output (the prompt's contract and the tolerant parser). See docs/local-models.md",
    },
    Setting {
        key: "review.prices",
        ty: Type::Table,
        default: Default::NotSet("no estimate (there are no built-in prices)"),
        allowed: Allowed::Any,
        flag: None,
        example: "{ input = 3.0, output = 15.0, cache_read = 0.3, cache_write = 3.75 }",
        description: "USD per million tokens, for an estimated cost in the footer and `usage.estimatedCost`; all four keys required, none negative",
    },
    Setting {
        key: "review.prompts_dir",
        ty: Type::Path,
        default: Default::NotSet("the built-in prompts only"),
        allowed: Allowed::Any,
        flag: Some("--prompts-dir"),
        example: "\"/home/me/pr-shepherd-prompts\"",
        description: "read `reviewing-pull-requests.md` and `aspects/<aspect>.md` from this folder (a missing file falls back to the built-in one; a file that is not a regular file of at most 1 MiB of UTF-8 is refused)",
    },
    Setting {
        key: "review.agent_logins",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[\"copilot-swe-agent[bot]\"]",
        description: "accounts besides the team whose replies ending with the reply marker (`— AI Coding Agent`) mark the findings they name addressed: the coding agent's bot, for one. Logins (letters, digits, `-`; a bot's ends in `[bot]`), compared case-insensitively, at most 100. The team is who the gates count as team (OWNER and MEMBER, COLLABORATOR with `gates.collaborators_are_team`; never a bot); nobody else's reply counts, and a minimized reply or one whose id or marker is only inside a quote, code or an HTML comment counts for no one",
    },
    Setting {
        key: "review.guidance",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[\"docs/REVIEWING.md\"]",
        description: "paths on the PR's base branch read as the repository's review guidance, besides `AGENTS.md`, `CLAUDE.md`, `.github/copilot-instructions.md` and `.github/instructions/*.instructions.md` (applied when a changed file matches their `applyTo`); always from the base commit, never from the PR's head; relative, at most 20",
    },
    Setting {
        key: "review.guidance_budget_chars",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 0,
            max: MAX_GUIDANCE_BUDGET_CHARS as u64,
        },
        flag: None,
        example: "8000",
        description: "characters of guidance given to the aspects, all files together, in the prompt prefix every call shares (a file over the rest is cut at a line, and said so); 0 reads none",
    },
    Setting {
        key: "review.inline",
        ty: Type::Boolean,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "true",
        description: "automatic runs (`event`, `watch`) that post the summary also post the findings on lines of the diff as inline comments of one review (event comment), each carrying its finding id in hidden metadata: a finding already on its line is not posted again, one not on a diff line stays in the summary; `review --post --inline` asks for it explicitly. Never approves",
    },
    Setting {
        key: "review.verify",
        ty: Type::Boolean,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "true",
        description: "after the aspects, one more call per aspect and chunk scores each finding 0-100 and quotes the diff line that is its evidence; a finding below `verify_threshold`, or whose quote is not a line of the diff, is held back (listed in the JSON and the console, counted in the posted review, never posted); its calls count in the usage, the cost and the budget",
    },
    Setting {
        key: "review.verify_threshold",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int { min: 0, max: 100 },
        flag: None,
        example: "80",
        description: "the verifier's score a finding needs to be posted",
    },
    Setting {
        key: "review.max_input_tokens",
        ty: Type::Integer,
        default: Default::NotSet("no cap"),
        allowed: Allowed::Int {
            min: 1,
            max: MAX_TOKEN_BUDGET,
        },
        flag: None,
        example: "200000",
        description: "the most input tokens one run may send: the run stops before a call that would exceed it (its input counted as characters / 4), says so, exits 3 and posts nothing",
    },
    Setting {
        key: "review.max_cost",
        ty: Type::Float,
        default: Default::NotSet("no cap"),
        allowed: Allowed::Any,
        flag: None,
        example: "0.50",
        description: "the most one run may cost (USD at `[review.prices]`, which it needs; the next call's input is counted at the input price): the run stops before a call that would exceed it, exits 3 and posts nothing",
    },
    Setting {
        key: "review.daily_max_input_tokens",
        ty: Type::Integer,
        default: Default::NotSet("no cap"),
        allowed: Allowed::Int {
            min: 1,
            max: MAX_TOKEN_BUDGET,
        },
        flag: None,
        example: "2000000",
        description: "the most input tokens the runs of one repository may send in a UTC day, counted in the state dir (`repos/<owner>/<repo>/spend.jsonl`): each call is reserved there at its estimate before it is made, under the repository's lock, so runs at the same time share the cap, and settled with its real usage when it ends (a killed run's reservation stays counted)",
    },
    Setting {
        key: "review.daily_max_cost",
        ty: Type::Float,
        default: Default::NotSet("no cap"),
        allowed: Allowed::Any,
        flag: None,
        example: "5.0",
        description: "the most the runs of one repository may cost in a UTC day (USD at `[review.prices]`, which it needs), counted in the state dir like `daily_max_input_tokens`",
    },
    Setting {
        key: "automation.mentions",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[\"@pr-shepherd\", \"@horton\"]",
        description: "mentions that start a trigger (`@name /review`), matched exactly (case-insensitively) outside code blocks and quotes; at least one, each `@name`",
    },
    Setting {
        key: "automation.max_trigger_chars",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "2000",
        description: "a comment, review or review comment longer than this (in characters) is never a trigger; the decision says it was oversized (at least 1)",
    },
    Setting {
        key: "automation.fix_ci_label",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "\"ci-fix-please\"",
        description: "adding this label is recognized as the `fix-ci` write action; write actions are not available in this version, so nothing is done",
    },
    Setting {
        key: "automation.address_review_label",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "\"address-it\"",
        description: "adding this label is recognized as the `address-review` write action; nothing is done",
    },
    Setting {
        key: "automation.check",
        ty: Type::Boolean,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "true",
        description: "`event` and `watch --post` publish Shepherd's own check run, `pr-shepherd`, on the PR's head commit: `in_progress` while reviewing, then `success`, `failure` (unaddressed findings at or above `check_fails_on`) or `neutral` (the review could not run or is incomplete), its summary linking the Shepherd comment; a retry on the same head updates the same check. A token that cannot write check runs (a fork's `GITHUB_TOKEN`, a personal token) gets a commit status `pr-shepherd` instead, and the output says so. Needs `checks: write` (or `statuses: write`) in the workflow; see docs/github-actions.md",
    },
    Setting {
        key: "automation.check_fails_on",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::OneOf {
            values: &CHECK_FAILS_ON,
            or: None,
        },
        flag: None,
        example: "\"important\"",
        description: "the lowest severity whose unaddressed findings (new or unchanged since the last review) make the `pr-shepherd` check fail; `never`: it never fails on findings",
    },
    Setting {
        key: "gates.opt_in_label",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "\"review-me\"",
        description: "community PRs are reviewed automatically only with this label",
    },
    Setting {
        key: "gates.pause_label",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "\"hold\"",
        description: "no automatic action while this label is on the PR",
    },
    Setting {
        key: "gates.never_label",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "\"no-bots\"",
        description: "never reviewed automatically and never posted while this label is on the PR",
    },
    Setting {
        key: "gates.collaborators_are_team",
        ty: Type::Boolean,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "true",
        description: "count COLLABORATOR authors as team (OWNER and MEMBER always are; others are asked of the org)",
    },
    Setting {
        key: "inbox.columns",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::OneOf {
            values: INBOX_COLUMNS,
            or: Some("any of them, in the order given"),
        },
        flag: None,
        example: "[\"pr\", \"unseen\", \"title\", \"checks\", \"review\", \"requested\", \"author\"]",
        description: "the console inbox's table columns, in order (the title is always shown; each column is dropped, least needed first, when the terminal is too narrow); empty: every column",
    },
    Setting {
        key: "inbox.sections",
        ty: Type::Tables,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[{ title = \"Mine\", query = \"org:acme is:pr is:open author:@me\" }]",
        description: "the inbox's tabs without an argument: each a `title` (shown on the tab) and a `query` in GitHub search syntax (`is:pr` and `is:open` are added when missing; only open PRs are listed); neither may be empty; empty: with credentials, the default sections (Needs my review, Mine, Involved), else the bundled fixtures",
    },
    Setting {
        key: "inbox.refresh",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 0,
            max: 86_400,
        },
        flag: None,
        example: "120",
        description: "seconds between the console inbox's reloads of its lists and counts, keeping selection, scroll and drafts (like gh-dash); 0: only on the refresh key",
    },
    Setting {
        key: "console.dwell_ms",
        ty: Type::Integer,
        default: Default::Value,
        allowed: Allowed::Int {
            min: 0,
            max: 10_000,
        },
        flag: None,
        example: "1000",
        description: "milliseconds an item's detail must stay on screen before it counts as seen, so skimming past with `j` marks nothing (`m` marks at once); 0: as soon as it is drawn",
    },
    Setting {
        key: "console.diff_layout",
        ty: Type::String,
        default: Default::Value,
        allowed: Allowed::OneOf {
            values: DIFF_LAYOUTS,
            or: None,
        },
        flag: None,
        example: "\"split\"",
        description: "the diff screen's layout: `unified` (one column), `split` (side by side: the old file on the left, the new on the right), or `auto`: split from 160 columns, unified below",
    },
    Setting {
        key: "console.editor_line_arg",
        ty: Type::String,
        default: Default::NotSet(
            "the editor's own way: `+LINE FILE` for vi, vim, nvim, emacs, nano, micro, helix (`hx`) and kakoune (`kak`), `--goto FILE:LINE` for VS Code, `FILE:LINE` for subl and zed; any other editor gets the file alone",
        ),
        allowed: Allowed::Any,
        flag: None,
        example: "\"--line {line} {file}\"",
        description: "the arguments that open a file at a line in `$VISUAL`/`$EDITOR` (the diff's `o`), after the editor's own: split into words as a shell would (quotes kept, nothing expanded, no shell run), then `{line}` and `{file}` filled in; without `{file}` the file goes last; must say `{line}`. When set, used for every editor",
    },
    Setting {
        key: "code.checkout",
        ty: Type::Path,
        default: Default::NotSet(
            "the head version of a file is written to a private read-only temporary file",
        ),
        allowed: Allowed::Any,
        flag: None,
        example: "\"/home/me/src/widgets\"",
        description: "a clone of the repository (an absolute path): when its `HEAD` is the PR's head commit, the diff's `o` opens the real file there, so the editor's language server works",
    },
    Setting {
        key: "merge.method",
        ty: Type::String,
        default: Default::NotSet("the first method the repository allows (merge, squash, rebase)"),
        allowed: Allowed::OneOf {
            values: MERGE_METHODS,
            or: None,
        },
        flag: Some("--method"),
        example: "\"squash\"",
        description: "how the console's merge and `pr-shepherd merge` merge when the repository allows it; a method it does not allow falls back to the first it allows",
    },
    Setting {
        key: "review.diff_budgets.<aspect>",
        ty: Type::Integer,
        default: Default::NotSet("`diff_budget_chars`"),
        allowed: Allowed::Int {
            min: 0,
            max: MAX_DIFF_BUDGET_CHARS as u64,
        },
        flag: None,
        example: "30000",
        description: "per-aspect override of `diff_budget_chars`",
    },
    Setting {
        key: "review.skip.<aspect>.always",
        ty: Type::Boolean,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "true",
        description: "never run this aspect",
    },
    Setting {
        key: "review.skip.<aspect>.unless_files_match",
        ty: Type::Strings,
        default: Default::Value,
        allowed: Allowed::Any,
        flag: None,
        example: "[\"src/**\", \"*.rs\"]",
        description: "skip the aspect unless a changed file matches one of these globs (`*` within a path segment, `**` across, `**/` also no directory, `?` one character; a pattern without `/` matches the file name); empty: never skip. At most 64 patterns of at most 256 characters and 32 wildcards each; matching is linear in pattern × path length",
    },
];

/// The row of a dotted key (`review.concurrency`; a map key as `<aspect>` / `<command>`).
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

/// `n` with thousands separators from 100,000 on (`6`, `60000` stay; `1,000,000`).
fn number(n: u64) -> String {
    let digits = n.to_string();
    if n < 100_000 {
        return digits;
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Setting {
    /// The key inside its table (`concurrency` for `review.concurrency`).
    pub fn leaf(&self) -> &'static str {
        self.key.rsplit('.').next().unwrap_or(self.key)
    }

    /// The allowed values in words (`1 to 64`), if the type alone does not say it.
    pub fn allowed_words(&self) -> Option<String> {
        match self.allowed {
            Allowed::Any => None,
            Allowed::Int { min, max } => Some(format!("{} to {}", number(min), number(max))),
            Allowed::Seconds { max } => Some(format!("above 0, at most {}", number(max as u64))),
            Allowed::OneOf { values, or } => {
                let list = values
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                Some(match or {
                    Some(or) => format!("{list}, {or}"),
                    None => format!("one of {list}"),
                })
            }
        }
    }

    /// What applies when the key is not set (`None`: the program's default value).
    pub fn not_set(&self) -> Option<String> {
        match self.default {
            Default::Value => None,
            Default::NotSet(text) => Some(
                text.replace("{anthropic_model}", DEFAULT_ANTHROPIC_MODEL)
                    .replace("{openai_model}", DEFAULT_OPENAI_MODEL),
            ),
        }
    }

    /// The whole meaning: the description, the allowed values, what applies when not set and
    /// the flag that overrides it — the reference's last column and `config init`'s comment.
    pub fn meaning(&self) -> String {
        let mut out = self.description.to_owned();
        if let Some(allowed) = self.allowed_words() {
            out.push_str(&format!(" ({allowed})"));
        }
        if let Some(not_set) = self.not_set() {
            out.push_str(&format!("; not set: {not_set}"));
        }
        if let Some(flag) = self.flag {
            out.push_str(&format!("; `{flag}` overrides it"));
        }
        out
    }

    /// The error for a value out of this setting's range: names the key (`key`, the dotted key
    /// inside its table, with an aspect filled in) and the flag.
    fn out_of_range(&self, key: &str, what: &str, value: &dyn std::fmt::Display) -> String {
        let flag = self.flag.map(|f| format!(" (or {f})")).unwrap_or_default();
        format!("`{key}`{flag} must be {what}, not {value}")
    }

    /// Checks an integer against [`Allowed::Int`] (any other `allowed` accepts it). `key` names
    /// it in the message: the key inside its table (`concurrency`, `diff_budgets.tests`).
    pub fn check_int(&self, key: &str, value: u128) -> Result<(), String> {
        match self.allowed {
            Allowed::Int { min, max } if value < u128::from(min) || value > u128::from(max) => {
                Err(self.out_of_range(key, &format!("between {min} and {max}"), &value))
            }
            _ => Ok(()),
        }
    }

    /// Checks a number of seconds against [`Allowed::Seconds`]: above 0, finite, at most the
    /// maximum.
    pub fn check_seconds(&self, key: &str, value: f64) -> Result<(), String> {
        match self.allowed {
            Allowed::Seconds { max } if !(value.is_finite() && value > 0.0 && value <= max) => {
                Err(self.out_of_range(
                    key,
                    &format!("a positive number of seconds up to {max}"),
                    &value,
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The rows of one table: `""` the top level, else `keys`, `review`, `automation`, … (a row of
/// a subtable, `review.skip.<aspect>.always`, belongs to its top table).
pub fn table(name: &str) -> impl Iterator<Item = &'static Setting> + '_ {
    SETTINGS
        .iter()
        .filter(move |s| match s.key.split_once('.') {
            Some((top, _)) => top == name,
            None => name.is_empty(),
        })
}

/// A cell of the reference: the value as code, its `|` escaped.
fn code(text: &str) -> String {
    format!("`{}`", text.replace('|', "\\|"))
}

/// The reference table of one table ([`table`]) as Markdown, one row per key — `keys.<command>`
/// one per console command — with `| key | type | default | example | meaning |`. `default` gives
/// a key's default value as inline TOML (`crate::config::default_value`). docs/config.md holds
/// these tables between `<!-- schema:NAME -->` and `<!-- /schema -->`.
pub fn markdown_table(name: &str, default: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out =
        String::from("| key | type | default | example | meaning |\n|---|---|---|---|---|\n");
    let mut row = |key: &str, s: &Setting, default: String, example: String, meaning: String| {
        out.push_str(&format!(
            "| `{key}` | {} | {default} | {example} | {} |\n",
            s.ty.label(),
            meaning.replace('|', "\\|")
        ));
    };
    for s in table(name) {
        if s.key == "keys.<command>" {
            for (_, command, defaults, help) in COMMANDS {
                let keys = defaults
                    .iter()
                    .map(|k| format!("\"{k}\""))
                    .collect::<Vec<_>>();
                let example = format!("[{}]", keys.first().cloned().unwrap_or_default());
                row(
                    &format!("keys.{command}"),
                    s,
                    code(&format!("[{}]", keys.join(", "))),
                    code(&example),
                    (*help).to_owned(),
                );
            }
            continue;
        }
        let default = match s.default {
            Default::NotSet(_) => "not set".to_owned(),
            Default::Value => default(s.key).map_or_else(|| "not set".to_owned(), |v| code(&v)),
        };
        row(s.key, s, default, code(s.example), s.meaning());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_rows_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for s in SETTINGS {
            assert!(seen.insert(s.key), "{} twice", s.key);
            assert!(!s.description.is_empty(), "{}", s.key);
            assert!(!s.description.ends_with('.'), "{}", s.key);
            // A `{…}` left in a meaning is a placeholder the schema forgot to fill; the
            // editor template's own `{line}` and `{file}` are literal.
            let meaning = s.meaning().replace("`{line}`", "").replace("`{file}`", "");
            assert!(!meaning.contains('{'), "{}: {meaning}", s.key);
        }
        assert_eq!(
            setting("review.model")
                .and_then(Setting::not_set)
                .as_deref(),
            Some("`claude-sonnet-4-5` (anthropic), `gpt-4.1` (openai)")
        );
    }

    #[test]
    fn ranges_give_messages_naming_the_key_and_flag() {
        let s = setting("review.concurrency").unwrap();
        assert!(s.check_int("concurrency", 1).is_ok());
        assert!(s.check_int("concurrency", 64).is_ok());
        let e = s.check_int("concurrency", 65).unwrap_err();
        assert_eq!(
            e,
            "`concurrency` (or --concurrency) must be between 1 and 64, not 65"
        );
        let t = setting("review.overall_timeout_secs").unwrap();
        assert!(t.check_seconds("overall_timeout_secs", 1.0).is_ok());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(
                t.check_seconds("overall_timeout_secs", bad).is_err(),
                "{bad}"
            );
        }
        assert_eq!(number(1_000_000), "1,000,000");
        assert_eq!(number(60_000), "60000");
    }
}
