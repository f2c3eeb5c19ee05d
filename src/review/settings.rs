//! Review settings: which LLM backend, timeouts, concurrency, prompts and skip rules.
//!
//! `ReviewSettings` deserializes from a `[review]` table of the config file (every key optional,
//! defaults below); command-line flags override it with [`ReviewSettings::apply`].
//!
//! ```toml
//! [review]
//! llm = "openai"                       # anthropic | openai | command | replay
//! llm_url = "http://localhost:11434/v1" # base URL (else ANTHROPIC_BASE_URL / OPENAI_BASE_URL)
//! model = "qwen2.5-coder:14b"
//! command = ["my-agent", "--print"]     # for llm = "command": prompt on stdin, answer on stdout
//! command_env = ["MY_AGENT_HOME"]        # passed to it besides PATH, HOME, TMPDIR and the locale
//! concurrency = 6
//! aspect_timeout_secs = 300
//! overall_timeout_secs = 300
//! retries = 2
//! retry_backoff_ms = 500
//! max_output_tokens = 4096
//! diff_budget_chars = 60000           # per call; a larger diff is reviewed in chunks
//! max_calls_per_aspect = 8             # default: no cap (every chunk is reviewed)
//! stream = true                        # stream answers (server-sent events)
//! structured_output = "auto"           # auto | json_schema | json_object | off
//! prompts_dir = "prompts"
//! agent_logins = ["copilot-swe-agent[bot]"]  # besides the team, whose marker replies count
//!
//! [review.prices]                       # optional, USD per million tokens: an estimated cost
//! input = 3.0
//! output = 15.0
//! cache_read = 0.3
//! cache_write = 3.75
//!
//! [review.diff_budgets]                 # per-aspect override of diff_budget_chars
//! tests = 30000
//!
//! [review.skip.perf]                    # default for every aspect: never skip
//! unless_files_match = ["src/**", "*.rs"]
//! [review.skip.architecture]
//! always = true
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::aspect::Aspect;

/// Which LLM backend answers the aspect prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// Anthropic Messages API (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`).
    Anthropic,
    /// OpenAI Chat Completions API and compatible servers (`OPENAI_API_KEY`, `OPENAI_BASE_URL`).
    Openai,
    /// A configured program: prompt on stdin, answer on stdout.
    Command,
    /// Recorded answers from the fixture, per aspect and step.
    Replay,
}

impl BackendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Anthropic => "anthropic",
            BackendKind::Openai => "openai",
            BackendKind::Command => "command",
            BackendKind::Replay => "replay",
        }
    }

    pub fn parse(s: &str) -> Option<BackendKind> {
        match s.trim() {
            "anthropic" => Some(BackendKind::Anthropic),
            "openai" => Some(BackendKind::Openai),
            "command" => Some(BackendKind::Command),
            "replay" => Some(BackendKind::Replay),
            _ => None,
        }
    }
}

/// How the HTTP backends ask for the findings object (`[review] structured_output`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// The best the server takes: json_schema, then json_object with the schema, json_object,
    /// plain text (Anthropic: the forced tool, then plain text), falling one rung lower when the
    /// server refuses one; what answered is remembered per server in the state dir.
    #[default]
    Auto,
    /// Only `response_format` json_schema (Anthropic: the forced tool); a refusal fails the call.
    JsonSchema,
    /// Only `response_format` json_object: with the schema where the server takes it, else
    /// without (Anthropic: the forced tool).
    JsonObject,
    /// No structured output: the prompt's contract and the tolerant parser.
    Off,
}

impl StructuredOutput {
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredOutput::Auto => "auto",
            StructuredOutput::JsonSchema => "json_schema",
            StructuredOutput::JsonObject => "json_object",
            StructuredOutput::Off => "off",
        }
    }
}

/// When an aspect is skipped instead of run. The default rule never skips.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SkipRule {
    /// Never run this aspect.
    pub always: bool,
    /// Skip unless at least one changed file matches one of these patterns (`*` matches within a
    /// path segment, `**` across segments; a pattern without `/` matches the file name).
    /// Bounded: see [`SkipRule::check`].
    pub unless_files_match: Vec<String>,
}

/// `command_env` from the config: variable names only.
fn checked_var_names<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Vec<String>, D::Error> {
    let names = Vec::<String>::deserialize(de)?;
    for n in &names {
        crate::childenv::check_var_name(n).map_err(serde::de::Error::custom)?;
    }
    Ok(names)
}

impl SkipRule {
    /// Refuses a rule beyond the limits: more than [`MAX_PATTERNS_PER_RULE`] patterns, or a
    /// pattern that [`check_pattern`] refuses. The config loader calls it for every rule, so the
    /// error names the key.
    pub fn check(&self) -> Result<(), String> {
        if self.unless_files_match.len() > MAX_PATTERNS_PER_RULE {
            return Err(format!(
                "{} patterns; at most {MAX_PATTERNS_PER_RULE} are allowed",
                self.unless_files_match.len()
            ));
        }
        for (i, p) in self.unless_files_match.iter().enumerate() {
            check_pattern(p).map_err(|why| format!("pattern {} {why}", i + 1))?;
        }
        Ok(())
    }

    /// Why the aspect is skipped for these changed paths, or `None` when it runs.
    pub fn skip_reason<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Option<String> {
        self.skip_reason_until(paths, &|| false).flatten()
    }

    /// [`SkipRule::skip_reason`], asking `stop` before each match: `None` when it said stop
    /// (a cancel or a deadline), else `Some(reason or None)`.
    pub fn skip_reason_until<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
        stop: &dyn Fn() -> bool,
    ) -> Option<Option<String>> {
        if self.always {
            return Some(Some("disabled in the review settings".to_owned()));
        }
        if self.unless_files_match.is_empty() {
            return Some(None);
        }
        for p in paths {
            for g in &self.unless_files_match {
                if stop() {
                    return None;
                }
                if glob_match(g, p) {
                    return Some(None);
                }
            }
        }
        Some(Some(format!(
            "no changed file matches {}",
            self.unless_files_match
                .iter()
                .map(|g| crate::sanitize::one_line(g))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// The longest skip-rule pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 256;
/// The most wildcards (`*`, `**`, `?`) one skip-rule pattern may hold.
pub const MAX_PATTERN_WILDCARDS: usize = 32;
/// The most patterns one skip rule may list.
pub const MAX_PATTERNS_PER_RULE: usize = 64;

/// Refuses a skip-rule pattern that is too long or has too many wildcards, naming the limit.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    let chars = pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(format!(
            "is {chars} characters long; at most {MAX_PATTERN_CHARS} are allowed"
        ));
    }
    let wildcards = tokens(pattern)
        .iter()
        .filter(|t| !matches!(t, Tok::Lit(_) | Tok::Slash))
        .count();
    if wildcards > MAX_PATTERN_WILDCARDS {
        return Err(format!(
            "has {wildcards} wildcards; at most {MAX_PATTERN_WILDCARDS} are allowed"
        ));
    }
    Ok(())
}

/// One element of a compiled glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Lit(char),
    /// A literal `/`.
    Slash,
    /// `?`: one character other than `/`.
    One,
    /// `*`: any run without `/`.
    Star,
    /// `**`: any run, `/` included.
    DoubleStar,
    /// `**/`: zero or more whole directories.
    DirStar,
}

fn tokens(pattern: &str) -> Vec<Tok> {
    let p: Vec<char> = pattern.chars().collect();
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' if p.get(i + 1) == Some(&'*') => {
                let mut j = i;
                while p.get(j) == Some(&'*') {
                    j += 1;
                }
                if p.get(j) == Some(&'/') {
                    out.push(Tok::DirStar);
                    j += 1;
                } else {
                    out.push(Tok::DoubleStar);
                }
                i = j;
                continue;
            }
            '*' => out.push(Tok::Star),
            '?' => out.push(Tok::One),
            '/' => out.push(Tok::Slash),
            c => out.push(Tok::Lit(c)),
        }
        i += 1;
    }
    out
}

/// Matches `path` against a small glob: `*` (any run within a segment), `**` (any run including
/// `/`; `**/` also matches no directory at all), `?` (one character). A pattern without `/` is
/// matched against the file name only.
///
/// The pattern runs as a set of states over the path, one character at a time: time is at most
/// pattern length × path length whatever the pattern, so no pattern can make it exponential
/// (the old backtracking matcher took seconds on eight `**/`).
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let target = if pattern.contains('/') {
        path
    } else {
        path.rsplit('/').next().unwrap_or(path)
    };
    let toks = tokens(pattern);
    let n = toks.len();
    // live[k]: the first k tokens can match the path read so far. inside[k] (k a `**/`): it is
    // in the middle of a directory name, where it may not end until the next `/`.
    let mut live = vec![false; n + 1];
    let mut inside = vec![false; n + 1];
    let mut next = vec![false; n + 1];
    let mut next_inside = vec![false; n + 1];
    live[0] = true;
    close(&toks, &mut live);
    for c in target.chars() {
        next.iter_mut().for_each(|b| *b = false);
        next_inside.iter_mut().for_each(|b| *b = false);
        for k in 0..n {
            if inside[k] {
                if c == '/' {
                    next[k] = true;
                } else {
                    next_inside[k] = true;
                }
            }
            if !live[k] {
                continue;
            }
            match toks[k] {
                Tok::Lit(l) if l == c => next[k + 1] = true,
                Tok::Slash if c == '/' => next[k + 1] = true,
                Tok::One if c != '/' => next[k + 1] = true,
                Tok::Star if c != '/' => next[k] = true,
                Tok::DoubleStar => next[k] = true,
                // `**/`: a `/` ends one more whole directory; anything else starts one.
                Tok::DirStar if c == '/' => next[k] = true,
                Tok::DirStar => next_inside[k] = true,
                _ => {}
            }
        }
        close(&toks, &mut next);
        std::mem::swap(&mut live, &mut next);
        std::mem::swap(&mut inside, &mut next_inside);
        if !live.iter().chain(inside.iter()).any(|b| *b) {
            return false;
        }
    }
    live[n]
}

/// Adds the states reachable without reading a character: past a `*`, `**` or `**/` that
/// matches nothing.
fn close(toks: &[Tok], live: &mut [bool]) {
    for k in 0..toks.len() {
        if live[k] && matches!(toks[k], Tok::Star | Tok::DoubleStar | Tok::DirStar) {
            live[k + 1] = true;
        }
    }
}

/// Everything the review engine can be configured with. Deserializes from the `[review]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReviewSettings {
    /// The backend; `None` picks replay for fixtures, else anthropic when `ANTHROPIC_API_KEY` is
    /// set, else openai when `OPENAI_API_KEY` is set.
    pub llm: Option<BackendKind>,
    /// Base URL of the HTTP backend (overrides `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`).
    pub llm_url: Option<String>,
    /// Model name; default per backend (see `DEFAULT_*_MODEL`).
    pub model: Option<String>,
    /// Program and arguments for the `command` backend.
    pub command: Vec<String>,
    /// Environment variables passed to the `command` backend's program besides `PATH`, `HOME`,
    /// `TMPDIR` and the locale (see `crate::childenv`); nothing else reaches it, tokens and API
    /// keys included, unless named here.
    #[serde(deserialize_with = "checked_var_names")]
    pub command_env: Vec<String>,
    /// How many aspects run at once.
    pub concurrency: usize,
    /// Wall-clock limit per aspect (one LLM call, retries included).
    pub aspect_timeout_secs: f64,
    /// Wall-clock limit for the whole run.
    pub overall_timeout_secs: f64,
    /// Extra attempts after an HTTP 429 / 5xx or a connection failure.
    pub retries: u32,
    /// Backoff before retry n is `retry_backoff_ms * 2^n` (a `Retry-After` header wins, up to 30 s).
    pub retry_backoff_ms: u64,
    /// Answer length limit sent to the provider.
    pub max_output_tokens: u32,
    /// Characters of diff one call may carry; a larger diff is reviewed in chunks of at most this
    /// size, each its own call.
    pub diff_budget_chars: usize,
    /// The most calls (chunks) one aspect may make; what the rest would have shown is reported as
    /// omitted or truncated. `None` (the default): no cap.
    pub max_calls_per_aspect: Option<usize>,
    /// Stream answers from the HTTP backends (server-sent events): live progress, and the
    /// other aspects start as soon as the first answer begins.
    pub stream: bool,
    /// How the HTTP backends ask for the findings object (see [`StructuredOutput`]).
    pub structured_output: StructuredOutput,
    /// Prices per million tokens, for an estimated cost in the output. No default prices.
    pub prices: Option<Prices>,
    /// Per-aspect override of `diff_budget_chars`.
    pub diff_budgets: BTreeMap<Aspect, usize>,
    /// Where `reviewing-pull-requests.md` and `aspects/<aspect>.md` are read from; the copies
    /// embedded in the binary are used for any file missing there. `None` (the default) uses the
    /// embedded copies only: a `prompts/` folder in the current directory — perhaps a checkout of
    /// the very PR under review — is never picked up implicitly.
    pub prompts_dir: Option<PathBuf>,
    /// Per-aspect skip rules; an aspect without a rule always runs.
    pub skip: BTreeMap<Aspect, SkipRule>,
    /// Accounts besides the team (as the gates decide it) whose replies ending with the reply
    /// marker mark the findings they name addressed: the coding agent's bot, for one. Logins,
    /// compared case-insensitively.
    pub agent_logins: Vec<String>,
}

pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";

impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings {
            llm: None,
            llm_url: None,
            model: None,
            command: Vec::new(),
            command_env: Vec::new(),
            concurrency: 6,
            aspect_timeout_secs: 300.0,
            overall_timeout_secs: 300.0,
            retries: 2,
            retry_backoff_ms: 500,
            max_output_tokens: 4096,
            diff_budget_chars: 60_000,
            max_calls_per_aspect: None,
            stream: true,
            structured_output: StructuredOutput::Auto,
            prices: None,
            diff_budgets: BTreeMap::new(),
            prompts_dir: None,
            skip: BTreeMap::new(),
            agent_logins: Vec::new(),
        }
    }
}

/// What a provider charges per million tokens (`[review.prices]`), for an estimated cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

// `validate` refuses NaN and infinities, so equality is an equivalence on every value in use.
impl Eq for Prices {}

/// A setting that cannot work: which one (its key in the `[review]` table) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("review settings: {message}")]
pub struct SettingsError {
    /// The key in the `[review]` table (`concurrency`, `diff_budgets.tests`, …).
    pub key: String,
    /// What is wrong, naming the setting and its command-line flag when it has one.
    pub message: String,
}

impl SettingsError {
    fn new(key: impl Into<String>, message: impl Into<String>) -> SettingsError {
        SettingsError {
            key: key.into(),
            message: message.into(),
        }
    }
}

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

/// The most accounts `agent_logins` may name.
pub const MAX_AGENT_LOGINS: usize = 100;

/// A GitHub login: letters, digits and `-` (not first), at most 39; a bot's ends in `[bot]`.
fn is_login(login: &str) -> bool {
    let name = login.strip_suffix("[bot]").unwrap_or(login);
    !name.is_empty()
        && name.len() <= 39
        && !name.starts_with('-')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// `value` within `lo..=hi`, else an error that names the setting (and its flag).
fn in_range<T: PartialOrd + std::fmt::Display>(
    key: &str,
    flag: Option<&str>,
    value: T,
    lo: T,
    hi: T,
) -> Result<(), SettingsError> {
    if value >= lo && value <= hi {
        return Ok(());
    }
    let flag = flag.map(|f| format!(" (or {f})")).unwrap_or_default();
    Err(SettingsError::new(
        key,
        format!("`{key}`{flag} must be between {lo} and {hi}, not {value}"),
    ))
}

impl ReviewSettings {
    /// Refuses values the runner cannot honour: every number is range-checked (zero or absurd
    /// concurrency, non-positive or endless timeouts, retries, budgets), and the error names the
    /// setting and its flag.
    pub fn validate(&self) -> Result<(), SettingsError> {
        in_range(
            "concurrency",
            Some("--concurrency"),
            self.concurrency,
            1,
            MAX_CONCURRENCY,
        )?;
        for (key, flag, v) in [
            (
                "aspect_timeout_secs",
                "--aspect-timeout",
                self.aspect_timeout_secs,
            ),
            (
                "overall_timeout_secs",
                "--timeout",
                self.overall_timeout_secs,
            ),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= MAX_TIMEOUT_SECS) {
                return Err(SettingsError::new(
                    key,
                    format!(
                        "`{key}` (or {flag}) must be a positive number of seconds up to {MAX_TIMEOUT_SECS}, not {v}"
                    ),
                ));
            }
        }
        in_range("retries", None, self.retries, 0, MAX_RETRIES)?;
        in_range(
            "retry_backoff_ms",
            None,
            self.retry_backoff_ms,
            0,
            MAX_RETRY_BACKOFF_MS,
        )?;
        in_range(
            "max_output_tokens",
            None,
            self.max_output_tokens,
            1,
            MAX_OUTPUT_TOKENS,
        )?;
        in_range(
            "diff_budget_chars",
            None,
            self.diff_budget_chars,
            0,
            MAX_DIFF_BUDGET_CHARS,
        )?;
        for (aspect, budget) in &self.diff_budgets {
            in_range(
                &format!("diff_budgets.{}", aspect.as_str()),
                None,
                *budget,
                0,
                MAX_DIFF_BUDGET_CHARS,
            )?;
        }
        if let Some(n) = self.max_calls_per_aspect {
            in_range("max_calls_per_aspect", None, n, 1, MAX_CALLS_PER_ASPECT)?;
        }
        if let Some(p) = &self.prices
            && [p.input, p.output, p.cache_read, p.cache_write]
                .iter()
                .any(|v| !(v.is_finite() && *v >= 0.0))
        {
            return Err(SettingsError::new(
                "prices",
                "`prices` must be non-negative numbers (per million tokens)",
            ));
        }
        if self.agent_logins.len() > MAX_AGENT_LOGINS {
            return Err(SettingsError::new(
                "agent_logins",
                format!(
                    "`agent_logins` names {} accounts; at most {MAX_AGENT_LOGINS} are allowed",
                    self.agent_logins.len()
                ),
            ));
        }
        if let Some((i, bad)) = self
            .agent_logins
            .iter()
            .enumerate()
            .find(|(_, l)| !is_login(l))
        {
            return Err(SettingsError::new(
                "agent_logins",
                format!(
                    "`agent_logins` entry {} (`{}`) is not a GitHub login (letters, digits and \
                     `-`, at most 39, optionally ending in `[bot]`)",
                    i + 1,
                    crate::sanitize::one_line(bad)
                ),
            ));
        }
        if self.llm == Some(BackendKind::Command) && self.command.is_empty() {
            return Err(SettingsError::new(
                "command",
                "llm = \"command\" needs a program (`command = [\"prog\", \"arg\"]` or --llm-command)",
            ));
        }
        Ok(())
    }

    pub fn aspect_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.aspect_timeout_secs.clamp(0.001, 1e7))
    }

    pub fn overall_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.overall_timeout_secs.clamp(0.001, 1e7))
    }

    pub fn diff_budget(&self, aspect: Aspect) -> usize {
        self.diff_budgets
            .get(&aspect)
            .copied()
            .unwrap_or(self.diff_budget_chars)
    }

    pub fn skip_rule(&self, aspect: Aspect) -> Option<&SkipRule> {
        self.skip.get(&aspect)
    }

    /// Applies command-line overrides (`None` leaves the setting as it is).
    pub fn apply(&mut self, o: Overrides) {
        if let Some(v) = o.llm {
            self.llm = Some(v);
        }
        if let Some(v) = o.llm_url {
            self.llm_url = Some(v);
        }
        if let Some(v) = o.model {
            self.model = Some(v);
        }
        if let Some(v) = o.command {
            self.command = v;
        }
        if let Some(v) = o.concurrency {
            self.concurrency = v;
        }
        if let Some(v) = o.aspect_timeout_secs {
            self.aspect_timeout_secs = v;
        }
        if let Some(v) = o.overall_timeout_secs {
            self.overall_timeout_secs = v;
        }
        if let Some(v) = o.prompts_dir {
            self.prompts_dir = Some(v);
        }
    }
}

/// Command-line overrides of [`ReviewSettings`].
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub llm: Option<BackendKind>,
    pub llm_url: Option<String>,
    pub model: Option<String>,
    pub command: Option<Vec<String>>,
    pub concurrency: Option<usize>,
    pub aspect_timeout_secs: Option<f64>,
    pub overall_timeout_secs: Option<f64>,
    pub prompts_dir: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_logins_are_github_logins() {
        let s: ReviewSettings =
            toml::from_str("agent_logins = [\"copilot-swe-agent[bot]\", \"octo-cat\"]").unwrap();
        assert_eq!(s.agent_logins, ["copilot-swe-agent[bot]", "octo-cat"]);
        assert!(s.validate().is_ok());
        for bad in ["", "-x", "a b", "evil\u{1b}[2J", "[bot]", &"x".repeat(40)] {
            let s = ReviewSettings {
                agent_logins: vec!["ok".into(), bad.to_owned()],
                ..ReviewSettings::default()
            };
            let e = s.validate().unwrap_err();
            assert_eq!(e.key, "agent_logins", "{bad:?}");
            assert!(e.message.contains("entry 2"), "{e}");
            assert!(!e.message.contains('\u{1b}'), "{e}");
        }
        let many = ReviewSettings {
            agent_logins: vec!["a".into(); MAX_AGENT_LOGINS + 1],
            ..ReviewSettings::default()
        };
        assert_eq!(many.validate().unwrap_err().key, "agent_logins");
    }

    #[test]
    fn empty_table_is_the_defaults() {
        let s: ReviewSettings = toml::from_str("").unwrap();
        assert_eq!(s, ReviewSettings::default());
        assert_eq!(s.concurrency, 6);
        assert_eq!(s.overall_timeout(), Duration::from_secs(300));
        assert!(s.skip.is_empty(), "default: never skip");
        s.validate().unwrap();
    }

    #[test]
    fn full_table_deserializes() {
        let s: ReviewSettings = toml::from_str(
            r#"
            llm = "openai"
            llm_url = "http://localhost:11434/v1"
            model = "qwen"
            concurrency = 2
            aspect_timeout_secs = 12.5
            [diff_budgets]
            tests = 100
            [skip.perf]
            unless_files_match = ["src/**"]
            [skip.architecture]
            always = true
            "#,
        )
        .unwrap();
        assert_eq!(s.llm, Some(BackendKind::Openai));
        assert_eq!(s.diff_budget(Aspect::Tests), 100);
        assert_eq!(s.diff_budget(Aspect::Perf), 60_000);
        assert_eq!(s.aspect_timeout(), Duration::from_millis(12_500));
        assert!(s.skip_rule(Aspect::Architecture).unwrap().always);
        assert!(toml::from_str::<ReviewSettings>("colour = 1").is_err());
        let priced: ReviewSettings = toml::from_str(
            "max_calls_per_aspect = 3\nstream = false\n[prices]\ninput = 3.0\noutput = 15\ncache_read = 0.3\ncache_write = 3.75",
        )
        .unwrap();
        assert_eq!(priced.max_calls_per_aspect, Some(3));
        assert!(!priced.stream);
        assert_eq!(priced.prices.unwrap().cache_write, 3.75);
        priced.validate().unwrap();
        assert!(toml::from_str::<ReviewSettings>("[prices]\ninput = 1.0").is_err());
        assert!(toml::from_str::<ReviewSettings>("llm = \"gemini\"").is_err());
    }

    #[test]
    fn validation_refuses_unusable_values() {
        let mut s = ReviewSettings {
            concurrency: 0,
            ..Default::default()
        };
        assert!(s.validate().is_err());
        s.concurrency = 1;
        s.overall_timeout_secs = f64::NAN;
        assert!(s.validate().is_err());
        s.overall_timeout_secs = 1.0;
        s.llm = Some(BackendKind::Command);
        assert!(s.validate().is_err());
        s.llm = None;
        s.max_calls_per_aspect = Some(0);
        assert!(s.validate().is_err());
        s.max_calls_per_aspect = None;
        s.prices = Some(Prices {
            input: -1.0,
            output: 0.0,
            cache_read: 0.0,
            cache_write: 0.0,
        });
        assert!(s.validate().is_err());
    }

    /// Failed before issue 15: absurd numbers passed validation (a concurrency of i64::MAX
    /// panicked inside the async runtime); every number now has a range, named in the error.
    #[test]
    fn every_number_is_range_checked_and_named() {
        let ok = ReviewSettings::default();
        ok.validate().unwrap();
        let cases: Vec<(&str, ReviewSettings)> = vec![
            (
                "concurrency",
                ReviewSettings {
                    concurrency: 9_223_372_036_854_775_807,
                    ..ok.clone()
                },
            ),
            (
                "concurrency",
                ReviewSettings {
                    concurrency: usize::MAX,
                    ..ok.clone()
                },
            ),
            (
                "overall_timeout_secs",
                ReviewSettings {
                    overall_timeout_secs: 1e300,
                    ..ok.clone()
                },
            ),
            (
                "aspect_timeout_secs",
                ReviewSettings {
                    aspect_timeout_secs: -1.0,
                    ..ok.clone()
                },
            ),
            (
                "retries",
                ReviewSettings {
                    retries: u32::MAX,
                    ..ok.clone()
                },
            ),
            (
                "retry_backoff_ms",
                ReviewSettings {
                    retry_backoff_ms: u64::MAX,
                    ..ok.clone()
                },
            ),
            (
                "max_output_tokens",
                ReviewSettings {
                    max_output_tokens: 0,
                    ..ok.clone()
                },
            ),
            (
                "diff_budget_chars",
                ReviewSettings {
                    diff_budget_chars: usize::MAX,
                    ..ok.clone()
                },
            ),
            (
                "diff_budgets.tests",
                ReviewSettings {
                    diff_budgets: [(Aspect::Tests, usize::MAX)].into_iter().collect(),
                    ..ok.clone()
                },
            ),
        ];
        for (key, s) in cases {
            let e = s.validate().unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.to_string().contains(&format!("`{key}`")), "{e}");
        }
        let e = ReviewSettings {
            concurrency: usize::MAX,
            ..ok
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("--concurrency"), "{e}");
    }

    #[test]
    fn skip_rules() {
        let files = ["src/client/retry.rs", "docs/retry.md"];
        assert_eq!(SkipRule::default().skip_reason(files), None);
        let rule = SkipRule {
            unless_files_match: vec!["*.py".into()],
            ..Default::default()
        };
        assert_eq!(
            rule.skip_reason(files).as_deref(),
            Some("no changed file matches *.py")
        );
        let rule = SkipRule {
            unless_files_match: vec!["src/**".into()],
            ..Default::default()
        };
        assert_eq!(rule.skip_reason(files), None);
        let rule = SkipRule {
            always: true,
            ..Default::default()
        };
        assert!(rule.skip_reason(files).is_some());
    }

    #[test]
    fn globs() {
        assert!(glob_match("*.rs", "src/a/b.rs"));
        assert!(glob_match("src/*.rs", "src/b.rs"));
        assert!(!glob_match("src/*.rs", "src/a/b.rs"));
        assert!(glob_match("src/**/*.rs", "src/a/b.rs"));
        assert!(glob_match("src/**/*.rs", "src/b.rs"));
        assert!(glob_match("web/**", "web/src/x.tsx"));
        assert!(!glob_match("web/**", "docs/x.md"));
        assert!(glob_match("?.md", "a.md"));
        assert!(glob_match("a/**/b", "a/b"));
        assert!(glob_match("a/**/b", "a/x/y/b"));
        assert!(!glob_match("a/**/b", "a/xb"));
        assert!(glob_match("**/*.rs", "a.rs"));
        assert!(glob_match("**", "a/b/c"));
        assert!(!glob_match("?", ""));
        assert!(!glob_match("src/?", "src//"));
        assert!(glob_match("src/***/x", "src/a/x"));
    }

    /// The old backtracking matcher took 3.6 s on eight `**/` and did not finish in a minute on
    /// ten; this one is pattern length × path length.
    #[test]
    fn many_double_stars_match_in_linear_time() {
        let pattern = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS));
        let path = format!("{}y", "a/".repeat(400));
        let start = std::time::Instant::now();
        for _ in 0..10 {
            assert!(!glob_match(&pattern, &path));
            assert!(glob_match(&pattern, &format!("{path}/x")));
        }
        let pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
        assert!(!glob_match(pattern, &"a".repeat(2000)));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "took {:?}",
            start.elapsed()
        );
    }

    #[test]
    fn pattern_complexity_is_capped_with_a_clear_error() {
        let ok = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS));
        assert!(check_pattern(&ok).is_ok());
        let too_many = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS + 1));
        let e = check_pattern(&too_many).unwrap_err();
        assert!(
            e.contains("33 wildcards") && e.contains("at most 32"),
            "{e}"
        );
        let too_long = "a".repeat(MAX_PATTERN_CHARS + 1);
        assert!(
            check_pattern(&too_long)
                .unwrap_err()
                .contains("at most 256")
        );
        let rule = SkipRule {
            unless_files_match: vec!["src/**".into(), too_many],
            ..Default::default()
        };
        let e = rule.check().unwrap_err();
        assert!(e.contains("pattern 2 has 33 wildcards"), "{e}");
        let rule = SkipRule {
            unless_files_match: vec!["x".into(); MAX_PATTERNS_PER_RULE + 1],
            ..Default::default()
        };
        assert!(rule.check().unwrap_err().contains("at most 64"));
    }

    proptest::proptest! {
        /// The state-set matcher agrees with a plain backtracking reference on small inputs.
        #[test]
        fn matcher_agrees_with_backtracking(p in "[ab/*?]{0,8}", t in "[ab/]{0,8}") {
            proptest::prop_assert_eq!(glob_match(&p, &t), reference(&p, &t));
        }
    }

    /// Backtracking over the same tokens: exponential, but obviously right; tests only.
    fn reference(pattern: &str, path: &str) -> bool {
        fn rec(p: &[Tok], t: &[char]) -> bool {
            match p.first() {
                None => t.is_empty(),
                Some(Tok::Lit(c)) => t.first() == Some(c) && rec(&p[1..], &t[1..]),
                Some(Tok::Slash) => t.first() == Some(&'/') && rec(&p[1..], &t[1..]),
                Some(Tok::One) => t.first().is_some_and(|c| *c != '/') && rec(&p[1..], &t[1..]),
                Some(Tok::Star) => (0..=t.len())
                    .take_while(|i| *i == 0 || t[i - 1] != '/')
                    .any(|i| rec(&p[1..], &t[i..])),
                Some(Tok::DoubleStar) => (0..=t.len()).any(|i| rec(&p[1..], &t[i..])),
                Some(Tok::DirStar) => (0..=t.len())
                    .filter(|i| *i == 0 || t[i - 1] == '/')
                    .any(|i| rec(&p[1..], &t[i..])),
            }
        }
        let target = if pattern.contains('/') {
            path
        } else {
            path.rsplit('/').next().unwrap_or(path)
        };
        let t: Vec<char> = target.chars().collect();
        rec(&tokens(pattern), &t)
    }
}
