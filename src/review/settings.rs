//! Review settings: which LLM backend, timeouts, concurrency, prompts and skip rules.
//!
//! `ReviewSettings` deserializes from a `[review]` table of the config file (every key optional,
//! defaults in its `Default` impl); command-line flags override it with
//! [`ReviewSettings::apply`]. What each key means, its range and its example are written once, in
//! the settings schema (`crate::schema`), which `validate`, `config show`, `config init` and
//! docs/config.md all read. The skip rules' glob matcher is `super::glob`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::aspect::Aspect;
// The glob engine has its own module; these names stay reachable here, where they always were.
pub use super::glob::{MAX_PATTERN_CHARS, MAX_PATTERN_WILDCARDS, check_pattern, glob_match};

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
    pub(crate) fn skip_reason_until<'a>(
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

/// The most patterns one skip rule may list.
pub(crate) const MAX_PATTERNS_PER_RULE: usize = 64;

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
    /// Environment variables passed to the `command` backend's program besides
    /// `crate::childenv::BASE_VARS` and the locale; nothing else reaches it, tokens and API keys
    /// included, unless named here.
    #[serde(deserialize_with = "checked_var_names")]
    pub command_env: Vec<String>,
    /// How many aspects run at once.
    pub concurrency: usize,
    /// Wall-clock limit per aspect (one LLM call, retries included): the ceiling, also for a
    /// request a server that serves one at a time keeps waiting with no byte sent.
    pub aspect_timeout_secs: f64,
    /// Wall-clock limit for the whole run; also an ask's, from its call's start (see
    /// `llm::TimeLimit::of_call`). A call still running then is dropped, whatever is arriving.
    pub overall_timeout_secs: f64,
    /// The longest silence inside an answer that has begun (no byte of an HTTP stream for this
    /// long fails that attempt, see `llm::http::HttpBackend::post`; no byte of a `command`
    /// program's output ends the call, see `llm::command`).
    pub idle_timeout: f64,
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
    /// Paths on the PR's base branch read as the repository's review guidance, besides
    /// `AGENTS.md`, `CLAUDE.md`, `.github/copilot-instructions.md` and
    /// `.github/instructions/*.instructions.md` (see `super::inputs::guidance`).
    pub guidance: Vec<String>,
    /// Characters of guidance given to the aspects, all files together (0: none is read).
    pub guidance_budget_chars: usize,
    /// After the aspects, one more call per aspect and chunk scores each finding and quotes its
    /// evidence from the diff (see `super::results::verify`).
    pub verify: bool,
    /// Findings the verifier scores below this (0–100) are held back.
    pub verify_threshold: u32,
    /// The most input tokens one run may send; the run stops before a call that would exceed it.
    pub max_input_tokens: Option<u64>,
    /// The most one run may cost (USD, at `prices`).
    pub max_cost: Option<f64>,
    /// The most input tokens the runs of one repository may send in a UTC day.
    pub daily_max_input_tokens: Option<u64>,
    /// The most the runs of one repository may cost in a UTC day (USD, at `prices`).
    pub daily_max_cost: Option<f64>,
    /// Automatic runs (`event`, `watch`) that post also post the findings on diff lines as
    /// inline comments of one review (`review --post --inline` asks for it explicitly).
    pub inline: bool,
}

pub use crate::schema::{DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL};

impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings {
            llm: None,
            llm_url: None,
            model: None,
            command: Vec::new(),
            command_env: Vec::new(),
            concurrency: 6,
            // Ceilings, not the stall detector (idle_timeout is): six aspects that take 78 s
            // alone on two cores wait for each other's answers at a server that serves one
            // request at a time, several times that on a loaded machine.
            aspect_timeout_secs: 900.0,
            overall_timeout_secs: 900.0,
            idle_timeout: 120.0,
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
            guidance: Vec::new(),
            guidance_budget_chars: 20_000,
            verify: false,
            verify_threshold: 70,
            max_input_tokens: None,
            max_cost: None,
            daily_max_input_tokens: None,
            daily_max_cost: None,
            inline: false,
        }
    }
}

/// The most extra guidance paths `[review] guidance` may name.
pub(crate) const MAX_GUIDANCE_PATHS: usize = 20;

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

// The ranges are the settings schema's (`crate::schema`), which also writes their messages;
// these names stay reachable here, where they always were.
pub use crate::schema::{
    MAX_CALLS_PER_ASPECT, MAX_CONCURRENCY, MAX_DIFF_BUDGET_CHARS, MAX_OUTPUT_TOKENS, MAX_RETRIES,
    MAX_RETRY_BACKOFF_MS, MAX_TIMEOUT_SECS,
};

/// The most accounts `agent_logins` may name.
pub(crate) const MAX_AGENT_LOGINS: usize = 100;

/// A GitHub login: letters, digits and `-` (not first), at most 39; a bot's ends in `[bot]`.
fn is_login(login: &str) -> bool {
    let name = login.strip_suffix("[bot]").unwrap_or(login);
    !name.is_empty()
        && name.len() <= 39
        && !name.starts_with('-')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Checks `value` against the range of the schema's row `review.<row>`; `key` names it (with
/// an aspect filled in).
fn in_range(row: &str, key: &str, value: impl TryInto<u128>) -> Result<(), SettingsError> {
    let Some(setting) = crate::schema::setting(&format!("review.{row}")) else {
        return Ok(());
    };
    let value = value.try_into().unwrap_or(u128::MAX);
    setting
        .check_int(key, value)
        .map_err(|m| SettingsError::new(key, m))
}

/// Checks a number of seconds against the schema's row `review.<key>`.
fn positive_seconds(key: &str, value: f64) -> Result<(), SettingsError> {
    let Some(setting) = crate::schema::setting(&format!("review.{key}")) else {
        return Ok(());
    };
    setting
        .check_seconds(key, value)
        .map_err(|m| SettingsError::new(key, m))
}

impl ReviewSettings {
    /// Refuses values the scheduler cannot honour: every number is range-checked (zero or absurd
    /// concurrency, non-positive or endless timeouts, retries, budgets), and the error names the
    /// setting and its flag.
    pub fn validate(&self) -> Result<(), SettingsError> {
        in_range("concurrency", "concurrency", self.concurrency)?;
        positive_seconds("aspect_timeout_secs", self.aspect_timeout_secs)?;
        positive_seconds("overall_timeout_secs", self.overall_timeout_secs)?;
        positive_seconds("idle_timeout", self.idle_timeout)?;
        in_range("retries", "retries", self.retries)?;
        in_range(
            "retry_backoff_ms",
            "retry_backoff_ms",
            self.retry_backoff_ms,
        )?;
        in_range(
            "max_output_tokens",
            "max_output_tokens",
            self.max_output_tokens,
        )?;
        in_range(
            "diff_budget_chars",
            "diff_budget_chars",
            self.diff_budget_chars,
        )?;
        for (aspect, budget) in &self.diff_budgets {
            in_range(
                "diff_budgets.<aspect>",
                &format!("diff_budgets.{}", aspect.as_str()),
                *budget,
            )?;
        }
        if let Some(n) = self.max_calls_per_aspect {
            in_range("max_calls_per_aspect", "max_calls_per_aspect", n)?;
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
        self.validate_findings_settings()?;
        if self.llm == Some(BackendKind::Command) && self.command.is_empty() {
            return Err(SettingsError::new(
                "command",
                "llm = \"command\" needs a program (`command = [\"prog\", \"arg\"]` or --llm-command)",
            ));
        }
        Ok(())
    }

    /// The guidance paths, the verifier and the budget.
    fn validate_findings_settings(&self) -> Result<(), SettingsError> {
        if self.guidance.len() > MAX_GUIDANCE_PATHS {
            return Err(SettingsError::new(
                "guidance",
                format!(
                    "`guidance` names {} paths; at most {MAX_GUIDANCE_PATHS} are allowed",
                    self.guidance.len()
                ),
            ));
        }
        for (i, p) in self.guidance.iter().enumerate() {
            let bad = p.is_empty()
                || p.len() > 256
                || p.starts_with('/')
                || p.contains('\\')
                || p.chars().any(char::is_control)
                || p.split('/')
                    .any(|seg| seg.is_empty() || seg == "." || seg == "..");
            if bad {
                return Err(SettingsError::new(
                    "guidance",
                    format!(
                        "`guidance` entry {} (`{}`) is not a path in the repository (relative, \
                         `/`-separated, no `.` or `..`, at most 256 characters)",
                        i + 1,
                        crate::sanitize::one_line(p)
                    ),
                ));
            }
        }
        in_range(
            "guidance_budget_chars",
            "guidance_budget_chars",
            self.guidance_budget_chars,
        )?;
        in_range(
            "verify_threshold",
            "verify_threshold",
            self.verify_threshold,
        )?;
        if let Some(n) = self.max_input_tokens {
            in_range("max_input_tokens", "max_input_tokens", n)?;
        }
        if let Some(n) = self.daily_max_input_tokens {
            in_range("daily_max_input_tokens", "daily_max_input_tokens", n)?;
        }
        for (key, v) in [
            ("max_cost", self.max_cost),
            ("daily_max_cost", self.daily_max_cost),
        ] {
            let Some(v) = v else { continue };
            if !(v.is_finite() && v > 0.0) {
                return Err(SettingsError::new(
                    key,
                    format!("`{key}` must be a positive amount (USD)"),
                ));
            }
            if self.prices.is_none() {
                return Err(SettingsError::new(
                    key,
                    format!(
                        "`{key}` needs `[review.prices]`: a cost is estimated only at configured prices"
                    ),
                ));
            }
        }
        Ok(())
    }

    pub fn aspect_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.aspect_timeout_secs.clamp(0.001, 1e7))
    }

    pub(crate) fn overall_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.overall_timeout_secs.clamp(0.001, 1e7))
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.idle_timeout.clamp(0.001, 1e7))
    }

    pub(crate) fn diff_budget(&self, aspect: Aspect) -> usize {
        self.diff_budgets
            .get(&aspect)
            .copied()
            .unwrap_or(self.diff_budget_chars)
    }

    pub(crate) fn skip_rule(&self, aspect: Aspect) -> Option<&SkipRule> {
        self.skip.get(&aspect)
    }

    /// Applies command-line overrides (`None` leaves the setting as it is).
    pub(crate) fn apply(&mut self, o: Overrides) {
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
        assert_eq!(s.overall_timeout(), Duration::from_secs(900));
        assert_eq!(s.idle_timeout(), Duration::from_secs(120));
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

    /// Failed before it was fixed: absurd numbers passed validation (a concurrency of i64::MAX
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

    /// The schema's names are the program's: backends, aspects and structured-output shapes.
    #[test]
    fn backends_aspects_and_structured_outputs_are_the_schemas() {
        for name in crate::schema::BACKENDS {
            assert_eq!(
                BackendKind::parse(name).map(BackendKind::as_str),
                Some(*name)
            );
        }
        let aspects: Vec<&str> = Aspect::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(aspects, crate::schema::ASPECTS);
        let all = [
            StructuredOutput::Auto,
            StructuredOutput::JsonSchema,
            StructuredOutput::JsonObject,
            StructuredOutput::Off,
        ];
        let names: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, crate::schema::STRUCTURED_OUTPUTS);
        for s in all {
            let parsed: StructuredOutput =
                serde_json::from_value(serde_json::json!(s.as_str())).unwrap();
            assert_eq!(parsed, s);
        }
    }

    #[test]
    fn rules_refuse_a_pattern_beyond_the_limits_naming_it() {
        let too_many = format!("{}x", "**/".repeat(MAX_PATTERN_WILDCARDS + 1));
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
}
