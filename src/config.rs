//! `config.toml`: the user's settings, from the platform config dir (via `directories`) or
//! `--config PATH`.
//!
//! Every table is parsed strictly: an unknown key or a wrong type is an error that names the key
//! (exit 2), never a silent default; `[keys]` is checked whole (`crate::keys::check_bindings`: no
//! key bound to two commands). An error about the file's content names the key and the position,
//! never the content (`crate::infile::content_message`). Each feature owns one table: adding one
//! (e.g. the review engine's `[review]`) is one field on [`Config`] with `#[serde(default)]` and
//! its own struct. Every key — type, default, range, meaning — is a row of the settings schema
//! (`crate::schema`); [`default_value`] and [`reference_markdown`] pair it with the defaults.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::keys::{Key, KeyCommand, command_by_name};

/// The config file name inside the config dir.
pub const CONFIG_FILE: &str = "config.toml";

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read the config file `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid config file `{}`: key `{key}`: {message}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
}

/// One key or several.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum KeySpec {
    One(String),
    Many(Vec<String>),
}

/// The parsed config file. Missing tables and keys take defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Theme name or path (overridden by `--theme`).
    #[serde(default)]
    pub theme: Option<String>,
    /// Key bindings per console command (see `?` in the console for the names).
    #[serde(default)]
    pub keys: BTreeMap<String, KeySpec>,
    /// The review engine's settings (`[review]`, see `crate::review::settings`); the console's
    /// `r` uses them, like `pr-shepherd review`.
    #[serde(default)]
    pub review: crate::review::settings::ReviewSettings,
    /// Triggers and write-action labels (`[automation]`, see
    /// [`crate::policy::AutomationConfig`]): read by `event`, `watch` and `review
    /// --trigger-comment`.
    #[serde(default)]
    pub automation: crate::policy::AutomationConfig,
    /// The gates' labels and who counts as team (`[gates]`, see [`crate::policy::GateConfig`]):
    /// read by `event`, `watch`, `review` and the console alike.
    #[serde(default)]
    pub gates: crate::policy::GateConfig,
    /// The inbox (`[inbox]`): its sections, shown as tabs, and how often it refreshes.
    #[serde(default)]
    pub inbox: InboxConfig,
    /// The console (`[console]`): when a shown item counts as seen, the diff's layout, the
    /// editor's line argument.
    #[serde(default)]
    pub console: ConsoleConfig,
    /// The code under review (`[code]`): a local clone to open files in.
    #[serde(default)]
    pub code: CodeConfig,
    /// Merging (`[merge]`): the method the console and `merge` use when the repository allows it.
    #[serde(default)]
    pub merge: MergeConfig,
    // Further tables go here, one field each.
}

/// `[inbox]`: what `pr-shepherd` and `pr-shepherd inbox` list without an argument.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct InboxConfig {
    /// `[[inbox.sections]]`, like gh-dash: each a tab with a title and a GitHub search.
    pub sections: Vec<InboxSection>,
    /// The console table's columns, by name (`schema::INBOX_COLUMNS`), in order; empty: all.
    pub columns: Vec<String>,
    /// Seconds between the console inbox's reloads of its lists and counts (0: never by itself).
    pub refresh: u64,
}

impl Default for InboxConfig {
    fn default() -> Self {
        InboxConfig {
            sections: Vec::new(),
            columns: Vec::new(),
            refresh: 300,
        }
    }
}

/// `[console]`: how the console behaves.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConsoleConfig {
    /// How long (milliseconds) an item's detail must be on screen before it counts as seen: long
    /// enough to read, so skimming past with `j` marks nothing (0: as soon as it is drawn).
    pub dwell_ms: u64,
    /// The diff screen's layout: unified, split (side by side), or split from
    /// [`SPLIT_FROM_COLUMNS`] columns.
    pub diff_layout: DiffLayout,
    /// How the line is given to an editor the console does not know (`o` on the diff): a
    /// template of arguments with `{line}` and `{file}` (`crate::tui::editor_at`); unset: the
    /// editor's own convention, or the file alone.
    pub editor_line_arg: Option<String>,
}

impl Default for ConsoleConfig {
    fn default() -> Self {
        ConsoleConfig {
            dwell_ms: 600,
            diff_layout: DiffLayout::Auto,
            editor_line_arg: None,
        }
    }
}

/// From this many columns `diff_layout = "auto"` shows the diff side by side.
pub const SPLIT_FROM_COLUMNS: u16 = 160;

/// `[console] diff_layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffLayout {
    /// Split from [`SPLIT_FROM_COLUMNS`] columns, unified below.
    #[default]
    Auto,
    Unified,
    Split,
}

impl DiffLayout {
    /// The names `diff_layout` takes.
    pub const NAMES: &[&str] = crate::schema::DIFF_LAYOUTS;

    /// Whether a terminal `width` columns wide shows the diff side by side.
    pub fn is_split(self, width: u16) -> bool {
        match self {
            DiffLayout::Auto => width >= SPLIT_FROM_COLUMNS,
            DiffLayout::Unified => false,
            DiffLayout::Split => true,
        }
    }
}

/// `[code]`: the code under review on this machine.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodeConfig {
    /// A clone of the repository (absolute path): when its `HEAD` is the PR's head, the diff's
    /// `o` opens the real file there (the language server works); else the head version is
    /// written to a private temporary file.
    pub checkout: Option<PathBuf>,
}

/// `[merge]`: how PRs are merged from the console and `pr-shepherd merge`.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MergeConfig {
    /// merge, squash or rebase; one the repository does not allow falls back to the first it
    /// allows.
    pub method: Option<crate::policy::merge::MergeMethod>,
}

/// One `[[inbox.sections]]` entry.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct InboxSection {
    pub title: String,
    /// GitHub search syntax, e.g. `org:acme is:pr is:open review-requested:@me`.
    pub query: String,
}

/// A loaded config plus where it came from.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub config: Config,
    /// The file read, if any.
    pub path: Option<PathBuf>,
    /// Key overrides, validated.
    pub keys: HashMap<KeyCommand, Vec<Key>>,
}

/// A JSON value (a config struct serialized) as TOML; `null` (an unset option) is `None`.
pub fn json_to_toml(v: &serde_json::Value) -> Option<toml::Value> {
    Some(match v {
        serde_json::Value::Null => return None,
        serde_json::Value::Bool(b) => toml::Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        serde_json::Value::String(s) => toml::Value::String(s.clone()),
        serde_json::Value::Array(a) => {
            toml::Value::Array(a.iter().filter_map(json_to_toml).collect())
        }
        serde_json::Value::Object(o) => toml::Value::Table(
            o.iter()
                .filter_map(|(k, v)| json_to_toml(v).map(|t| (k.clone(), t)))
                .collect(),
        ),
    })
}

/// A TOML key: bare when it can be, else quoted.
pub fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_owned()
    } else {
        toml::Value::String(k.to_owned()).to_string()
    }
}

/// The value as inline TOML (`6`, `300.0`, `"dark"`, `["j", "Down"]`).
pub fn inline(v: &toml::Value) -> String {
    match v {
        toml::Value::Array(a) => {
            format!("[{}]", a.iter().map(inline).collect::<Vec<_>>().join(", "))
        }
        toml::Value::Table(t) => format!(
            "{{ {} }}",
            t.iter()
                .map(|(k, v)| format!("{} = {}", toml_key(k), inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// The built-in defaults of every table, as TOML: `[review]`, `[automation]`, `[gates]` and
/// `[inbox]` serialized from their `Default` impls (the only place a default is written).
pub fn default_tables() -> toml::Table {
    let d = Config::default();
    let mut out = toml::Table::new();
    for (name, value) in [
        ("review", serde_json::to_value(&d.review)),
        ("automation", serde_json::to_value(&d.automation)),
        ("gates", serde_json::to_value(&d.gates)),
        ("inbox", serde_json::to_value(&d.inbox)),
        ("console", serde_json::to_value(&d.console)),
        ("code", serde_json::to_value(&d.code)),
    ] {
        if let Some(v) = value.ok().as_ref().and_then(json_to_toml) {
            out.insert(name.to_owned(), v);
        }
    }
    out
}

/// A key's built-in default as TOML (`None`: not set by default), by its schema key
/// (`review.concurrency`, `review.skip.<aspect>.always`, `keys.<command>` is each command's).
pub fn default_value(key: &str) -> Option<toml::Value> {
    if key == "theme" {
        return Some(toml::Value::String(crate::schema::DEFAULT_THEME.to_owned()));
    }
    if let Some(command) = key.strip_prefix("keys.") {
        let (_, _, defaults, _) = crate::keys::COMMANDS.iter().find(|c| c.1 == command)?;
        return Some(toml::Value::Array(
            defaults
                .iter()
                .map(|k| toml::Value::String((*k).to_owned()))
                .collect(),
        ));
    }
    // A per-aspect entry's defaults are those of an empty entry.
    if let Some(field) = key.strip_prefix("review.skip.<aspect>.") {
        let rule = serde_json::to_value(crate::review::settings::SkipRule::default()).ok()?;
        return json_to_toml(rule.get(field)?);
    }
    let tables = default_tables();
    let (last, parents) = key
        .split('.')
        .collect::<Vec<_>>()
        .split_last()
        .map(|(l, p)| (*l, p.to_vec()))?;
    let mut t = &tables;
    for p in parents {
        t = t.get(p)?.as_table()?;
    }
    t.get(last).cloned()
}

/// The reference table of one config table (`""` the top level, `keys`, `review`, …) as
/// Markdown, from the settings schema with the built-in defaults: what docs/config.md holds
/// between `<!-- schema:NAME -->` and `<!-- /schema -->` (`tests/project/docs.rs` keeps them equal).
pub fn reference_markdown(table: &str) -> String {
    crate::schema::markdown_table(table, &|key| default_value(key).map(|v| inline(&v)))
}

/// The platform config dir for pr-shepherd (`~/.config/pr-shepherd` on Linux).
pub fn config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("dev", "pr-shepherd", "pr-shepherd")
        .map(|d| d.config_dir().to_path_buf())
}

/// Where user themes live: `<config dir>/themes`, next to the config file used.
pub fn themes_dir(loaded: &Loaded) -> Option<PathBuf> {
    loaded
        .path
        .as_ref()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .or_else(config_dir)
        .map(|d| d.join("themes"))
}

impl Config {
    /// Parses config text; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Loaded, ConfigError> {
        // Errors name the key and what is wrong, bounded, never quoting the file's content (a
        // file given by mistake may hold secrets; see `crate::infile::content_message`).
        let invalid = |key: String, message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            key: crate::infile::short_name(&key),
            message: crate::infile::bounded(&message),
        };
        let de = toml::Deserializer::parse(text).map_err(|e| {
            invalid(
                "(syntax)".to_owned(),
                crate::infile::toml_syntax_error(text, &e),
            )
        })?;
        let config: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let message = crate::infile::toml_value_error(text, e.inner());
            invalid(key, message)
        })?;
        // Every number of `[review]` in range (the flags are checked again after overriding).
        config
            .review
            .validate()
            .map_err(|e| invalid(format!("review.{}", e.key), e.message))?;
        for (aspect, rule) in &config.review.skip {
            rule.check()
                .map_err(|m| invalid(format!("review.skip.{aspect}.unless_files_match"), m))?;
        }
        config
            .automation
            .validate()
            .map_err(|(key, message)| invalid(format!("automation.{key}"), message))?;
        for (key, label) in [
            ("opt_in_label", &config.gates.opt_in_label),
            ("pause_label", &config.gates.pause_label),
            ("never_label", &config.gates.never_label),
        ] {
            if label.trim().is_empty() {
                return Err(invalid(
                    format!("gates.{key}"),
                    "must not be empty".to_owned(),
                ));
            }
        }
        for (key, value) in [
            ("inbox.refresh", config.inbox.refresh),
            ("console.dwell_ms", config.console.dwell_ms),
        ] {
            if let Some(row) = crate::schema::setting(key) {
                row.check_int(key, u128::from(value))
                    .map_err(|m| invalid(key.to_owned(), m))?;
            }
        }
        if let Some(t) = &config.console.editor_line_arg {
            let words = crate::shellwords::split(t).map_err(|m| {
                invalid(
                    "console.editor_line_arg".to_owned(),
                    format!("cannot be split into words: {m}"),
                )
            })?;
            if !words.iter().any(|w| w.contains("{line}")) {
                return Err(invalid(
                    "console.editor_line_arg".to_owned(),
                    "must say `{line}` (e.g. `{file}:{line}` or `--line {line} {file}`)".to_owned(),
                ));
            }
        }
        if let Some(path) = &config.code.checkout
            && !path.is_absolute()
        {
            return Err(invalid(
                "code.checkout".to_owned(),
                "must be an absolute path (the folder of a clone of the repository)".to_owned(),
            ));
        }
        for (i, section) in config.inbox.sections.iter().enumerate() {
            for (field, value) in [("title", &section.title), ("query", &section.query)] {
                if value.trim().is_empty() {
                    return Err(invalid(
                        format!("inbox.sections[{i}].{field}"),
                        "must not be empty".to_owned(),
                    ));
                }
            }
        }
        for name in &config.inbox.columns {
            if !crate::schema::INBOX_COLUMNS
                .iter()
                .any(|c| c.eq_ignore_ascii_case(name.trim()))
            {
                return Err(invalid(
                    "inbox.columns".to_owned(),
                    format!(
                        "no column `{}`; the columns are {}",
                        crate::sanitize::one_line(name),
                        crate::schema::INBOX_COLUMNS.join(", ")
                    ),
                ));
            }
        }
        let mut keys = HashMap::new();
        for (name, spec) in &config.keys {
            let cmd = command_by_name(name).ok_or_else(|| {
                invalid(
                    format!("keys.{name}"),
                    "no such console command (press ? in the console for the list)".to_owned(),
                )
            })?;
            let list: Vec<&str> = match spec {
                KeySpec::One(s) => vec![s.as_str()],
                KeySpec::Many(v) => v.iter().map(String::as_str).collect(),
            };
            if list.is_empty() {
                return Err(invalid(
                    format!("keys.{name}"),
                    "needs at least one key".to_owned(),
                ));
            }
            let parsed = list
                .iter()
                .map(|s| Key::parse(s))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|m| invalid(format!("keys.{name}"), m))?;
            keys.insert(cmd, parsed);
        }
        // No key bound to two commands (the console could run only one of them).
        crate::keys::check_bindings(&keys)
            .map_err(|(name, why)| invalid(format!("keys.{name}"), why))?;
        Ok(Loaded {
            config,
            path: Some(path.to_path_buf()),
            keys,
        })
    }

    /// Loads `--config PATH` (which must exist), else the platform config file if it exists,
    /// else defaults.
    pub fn load(flag: Option<&Path>) -> Result<Loaded, ConfigError> {
        let path = match flag {
            Some(p) => p.to_path_buf(),
            None => match config_dir() {
                Some(d) => d.join(CONFIG_FILE),
                None => return Ok(Loaded::default()),
            },
        };
        // A regular file of at most 1 MiB (`/dev/zero` is refused, never read).
        match crate::infile::read_to_string(&path, crate::infile::CONFIG_LIMIT) {
            Ok(text) => Config::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && flag.is_none() => {
                Ok(Loaded::default())
            }
            Err(source) => Err(ConfigError::Io { path, source }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Loaded, String> {
        Config::parse(text, Path::new("c.toml")).map_err(|e| e.to_string())
    }

    // Guards the diff's settings: the layout's names and its 160-column switch, the editor's
    // line template (split as words, must say `{line}`), the clone's absolute path.
    #[test]
    fn the_diff_screens_settings_are_checked() {
        let c = parse("").unwrap().config;
        assert_eq!(c.console.diff_layout, DiffLayout::Auto);
        assert!(!DiffLayout::Auto.is_split(159) && DiffLayout::Auto.is_split(160));
        assert!(DiffLayout::Split.is_split(80) && !DiffLayout::Unified.is_split(300));
        let c = parse(
            "[console]\ndiff_layout = \"split\"\neditor_line_arg = \"--line {line} '{file}'\"\n\
             [code]\ncheckout = \"/home/me/src/widgets\"\n",
        )
        .unwrap()
        .config;
        assert_eq!(c.console.diff_layout, DiffLayout::Split);
        assert_eq!(
            c.code.checkout.as_deref(),
            Some(Path::new("/home/me/src/widgets"))
        );
        for (text, key, says) in [
            (
                "[console]\ndiff_layout = \"side\"\n",
                "console.diff_layout",
                "split",
            ),
            (
                "[console]\neditor_line_arg = \"{file}\"\n",
                "console.editor_line_arg",
                "{line}",
            ),
            (
                "[console]\neditor_line_arg = \"'{line}\"\n",
                "console.editor_line_arg",
                "quote",
            ),
            (
                "[code]\ncheckout = \"src/widgets\"\n",
                "code.checkout",
                "absolute",
            ),
            ("[code]\nclone = \"/x\"\n", "code", "clone"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(
                e.contains(&format!("key `{key}")) && e.contains(says),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn empty_is_default() {
        let l = parse("").unwrap();
        assert!(l.config.theme.is_none());
        assert!(l.keys.is_empty());
    }

    #[test]
    fn keys_and_theme() {
        let l =
            parse("theme = \"light\"\n[keys]\ndown = [\"z\", \"Down\"]\nquit = \"F12\"\n").unwrap();
        assert_eq!(l.config.theme.as_deref(), Some("light"));
        assert_eq!(l.keys[&KeyCommand::Down].len(), 2);
        assert_eq!(l.keys[&KeyCommand::Quit][0], Key::parse("F12").unwrap());
    }

    #[test]
    fn inbox_columns_are_known_names() {
        let l = parse("[inbox]\ncolumns = [\"pr\", \"Checks\"]\n").unwrap();
        assert_eq!(l.config.inbox.columns, vec!["pr", "Checks"]);
        let e = parse("[inbox]\ncolumns = [\"pr\", \"colour\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("inbox.columns") && e.contains("colour"), "{e}");
    }

    #[test]
    fn inbox_sections_are_tabs_and_none_may_be_blank() {
        let l = parse("[[inbox.sections]]\ntitle = \"Mine\"\nquery = \"org:acme\"\n").unwrap();
        assert_eq!(l.config.inbox.sections.len(), 1);
        assert_eq!(l.config.inbox.sections[0].query, "org:acme");
        let e = parse("[[inbox.sections]]\ntitle = \"a\"\nquery = \"x\"\n[[inbox.sections]]\ntitle = \" \"\nquery = \"y\"\n")
            .unwrap_err();
        assert!(e.contains("inbox.sections[1].title"), "{e}");
        let e = parse("[[inbox.sections]]\ntitle = \"a\"\n").unwrap_err();
        assert!(e.contains("query"), "{e}");
        let e = parse("[[inbox.sections]]\ntitle = \"a\"\nquery = \"x\"\nsort = 1\n").unwrap_err();
        assert!(e.contains("sort"), "{e}");
    }

    #[test]
    fn errors_name_the_key() {
        let e = parse("colour = 1").unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = parse("theme = 3").unwrap_err();
        assert!(e.contains("key `theme`"), "{e}");
        let e = parse("[keys]\nfly = \"x\"").unwrap_err();
        assert!(e.contains("keys.fly"), "{e}");
        let e = parse("[keys]\ndown = \"Hyper\"").unwrap_err();
        assert!(e.contains("keys.down") && e.contains("Hyper"), "{e}");
        let e = parse("[keys]\ndown = []").unwrap_err();
        assert!(e.contains("keys.down"), "{e}");
        // Failed before: accepted, leaving `k` bound to `up` as well.
        let e = parse("[keys]\ndown = \"k\"").unwrap_err();
        assert!(e.contains("key `keys.down`") && e.contains("`up`"), "{e}");
        let e = parse("[review]\ncolour = 1").unwrap_err();
        assert!(e.contains("review") && e.contains("colour"), "{e}");
        let e = parse("[review]\nconcurrency = \"x\"").unwrap_err();
        assert!(e.contains("review.concurrency"), "{e}");
        // Failed before it was fixed: an absurd number was accepted (and panicked later).
        let e = parse("[review]\nconcurrency = 9223372036854775807").unwrap_err();
        assert!(
            e.contains("key `review.concurrency`") && e.contains("between 1 and 64"),
            "{e}"
        );
        let e = parse("[review]\n[review.diff_budgets]\ntests = 9223372036854775807").unwrap_err();
        assert!(e.contains("key `review.diff_budgets.tests`"), "{e}");
        let l = parse("[review]\nllm = \"openai\"\nmodel = \"m\"").unwrap();
        assert_eq!(l.config.review.model.as_deref(), Some("m"));
        let e = parse("theme = ").unwrap_err();
        assert!(e.contains("c.toml"), "{e}");
        // A syntax error is one line that quotes none of the file.
        let e = parse(&format!("a = 1\ntheme = [{}\n", "\u{1b}x".repeat(1000))).unwrap_err();
        assert!(
            !e.contains('\n') && !e.contains('\u{1b}') && e.len() < 400,
            "{e}"
        );
        assert!(e.contains("line 2, column"), "{e}");
    }

    #[test]
    fn automation_and_gates_tables() {
        let l = parse("").unwrap();
        assert_eq!(l.config.automation.mentions, ["@pr-shepherd"]);
        assert_eq!(l.config.gates.never_label, "no-shepherd");
        let l = parse(
            "[automation]\nmentions = [\"@pr-shepherd\", \"@horton\"]\nmax_trigger_chars = 100\n\
             fix_ci_label = \"ci-please\"\n[gates]\nopt_in_label = \"review-me\"\n\
             pause_label = \"hold\"\nnever_label = \"never\"\ncollaborators_are_team = true\n",
        )
        .unwrap();
        assert_eq!(l.config.automation.mentions, ["@pr-shepherd", "@horton"]);
        assert_eq!(l.config.automation.max_trigger_chars, 100);
        assert_eq!(
            l.config.automation.write_action("CI-please"),
            Some("fix-ci")
        );
        assert_eq!(l.config.gates.opt_in_label, "review-me");
        assert!(l.config.gates.collaborators_are_team);
        for (text, key) in [
            ("[automation]\nmention = [\"@x\"]", "mention"),
            ("[automation]\nmentions = []", "automation.mentions"),
            (
                "[automation]\nmentions = [\"horton\"]",
                "automation.mentions",
            ),
            (
                "[automation]\nmax_trigger_chars = 0",
                "automation.max_trigger_chars",
            ),
            (
                "[automation]\nmax_trigger_chars = \"x\"",
                "automation.max_trigger_chars",
            ),
            ("[gates]\nopt-in-label = \"x\"", "opt-in-label"),
            ("[gates]\nnever_label = \" \"", "gates.never_label"),
            (
                "[gates]\ncollaborators_are_team = \"yes\"",
                "gates.collaborators_are_team",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn the_check_is_off_by_default_and_its_threshold_is_one_of_the_named_severities() {
        use crate::policy::check::CheckFailsOn;
        let l = parse("").unwrap();
        assert!(!l.config.automation.check);
        assert_eq!(l.config.automation.check_fails_on, CheckFailsOn::Critical);
        let l = parse("[automation]\ncheck = true\ncheck_fails_on = \"never\"\n").unwrap();
        assert!(l.config.automation.check);
        assert_eq!(l.config.automation.check_fails_on, CheckFailsOn::Never);
        let e = parse("[automation]\ncheck_fails_on = \"red\"\n").unwrap_err();
        assert!(
            e.contains("key `automation.check_fails_on`")
                && e.contains("`critical`, `important`, `suggestion`, `never`"),
            "{e}"
        );
        let e = parse("[automation]\ncheck = \"yes\"\n").unwrap_err();
        assert!(e.contains("key `automation.check`"), "{e}");
    }

    #[test]
    fn explicit_missing_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("none.toml");
        assert!(matches!(
            Config::load(Some(&p)),
            Err(ConfigError::Io { .. })
        ));
        std::fs::write(&p, "theme = \"dark\"").unwrap();
        let l = Config::load(Some(&p)).unwrap();
        assert_eq!(themes_dir(&l).unwrap(), dir.path().join("themes"));
    }
}
