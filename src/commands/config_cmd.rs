//! `pr-shepherd config path | show | init`: where the config file is, the effective settings with
//! every default, and a commented default file to start from.
//!
//! The list of settings is derived from the real types (`crate::config::Config`, the keymap's
//! defaults, `ReviewSettings::default()` serialized), so `show`, `init` and the reference in
//! `docs/config.md` (checked by a test below) cannot drift from what the program reads.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::ConfigCommand;
use crate::config::{CONFIG_FILE, Config, Loaded, config_dir};
use crate::error::CliError;
use crate::keys::COMMANDS;

pub(super) fn run(
    cmd: &ConfigCommand,
    flag: Option<&Path>,
    theme_flag: Option<&str>,
) -> Result<(), CliError> {
    match cmd {
        ConfigCommand::Path => {
            let path = config_path(flag)?;
            if !path.exists() {
                crate::eprintln_clean!(
                    "note: {} does not exist; {} (`pr-shepherd config init` writes one)",
                    path.display(),
                    if flag.is_some() {
                        "--config needs an existing file"
                    } else {
                        "the defaults are used"
                    }
                );
            }
            super::emit(&format!("{}\n", path.display()))
        }
        ConfigCommand::Show => {
            let loaded = Config::load(flag)?;
            let file_table = match &loaded.path {
                Some(p) => read_table(p)?,
                None => toml::Table::new(),
            };
            super::emit(&show(&loaded, &file_table, theme_flag))
        }
        ConfigCommand::Init => {
            let path = config_path(flag)?;
            init(&path)?;
            crate::eprintln_clean!(
                "wrote {} (every key commented out: the defaults apply until you change one)",
                path.display()
            );
            super::emit(&format!("{}\n", path.display()))
        }
    }
}

/// The config file in use: `--config PATH`, else `config.toml` in the platform config dir (on
/// Linux `$XDG_CONFIG_HOME/pr-shepherd`, default `~/.config/pr-shepherd`).
pub(crate) fn config_path(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    match flag {
        Some(p) => Ok(p.to_path_buf()),
        None => config_dir().map(|d| d.join(CONFIG_FILE)).ok_or_else(|| {
            CliError::runtime("no config dir could be determined (is HOME set?); use --config PATH")
        }),
    }
}

fn read_table(path: &Path) -> Result<toml::Table, CliError> {
    let text = crate::infile::read_to_string(path, crate::infile::CONFIG_LIMIT)
        .map_err(|e| CliError::runtime(format!("cannot read `{}`: {e}", path.display())))?;
    // Config::load has already accepted this text; a failure here is a race with an editor.
    toml::from_str(&text)
        .map_err(|e| CliError::usage(format!("invalid config file `{}`: {e}", path.display())))
}

/// Where an effective value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Default,
    File,
    Flag,
}

/// One setting: its dotted key, its value (`None`: not set, the program decides) and source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Setting {
    pub path: Vec<String>,
    pub value: Option<toml::Value>,
    pub source: Source,
}

impl Setting {
    pub fn key(&self) -> String {
        self.path.join(".")
    }
}

/// What an unset key means, and a one-line description of every key (by dotted key; map keys use
/// `<aspect>`). Used by `config init`; a test makes sure every setting has one.
pub(crate) const DESCRIPTIONS: &[(&str, &str)] = &[
    (
        "theme",
        "console theme: dark, light, high-contrast, a name in <config dir>/themes, or a .toml path",
    ),
    (
        "keys.<command>",
        "keys of a console command (replaces its defaults); names as in the ? overlay",
    ),
    (
        "review.llm",
        "LLM backend: anthropic | openai | command | replay. Not set: replay for fixtures, else anthropic when ANTHROPIC_API_KEY is set, else openai",
    ),
    (
        "review.llm_url",
        "base URL of the LLM API. Not set: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider's",
    ),
    (
        "review.model",
        "model name. Not set: claude-sonnet-4-5 (anthropic), gpt-4.1 (openai)",
    ),
    (
        "review.command",
        "for llm = \"command\": the program and its arguments, as an array; prompt on stdin, answer on stdout",
    ),
    (
        "review.command_env",
        "environment variables the command backend's program gets besides PATH, HOME, TMPDIR, TZ and the locale",
    ),
    (
        "review.concurrency",
        "how many aspects run at once (1 to 64)",
    ),
    (
        "review.aspect_timeout_secs",
        "wall-clock limit per aspect, retries included (seconds)",
    ),
    (
        "review.overall_timeout_secs",
        "wall-clock limit for the whole review (seconds)",
    ),
    (
        "review.retries",
        "extra attempts after an HTTP 429 / 5xx or a connection failure",
    ),
    (
        "review.retry_backoff_ms",
        "backoff before retry n is retry_backoff_ms * 2^n (a Retry-After header wins, up to 30 s)",
    ),
    (
        "review.max_output_tokens",
        "answer length limit sent to the provider",
    ),
    (
        "review.diff_budget_chars",
        "characters of diff one call may carry; a larger diff is reviewed in chunks of at most this size, each its own call",
    ),
    (
        "review.max_calls_per_aspect",
        "the most calls (chunks) one aspect may make; what the rest would show is named as omitted or truncated. Not set: no cap",
    ),
    (
        "review.stream",
        "stream answers from the HTTP backends: live progress, and the other aspects start as soon as the first answer begins (prompt cache)",
    ),
    (
        "review.structured_output",
        "how the HTTP backends ask for the findings object: auto (json_schema, else json_object with the schema, json_object, plain text; what a server takes is remembered per server URL in the state dir), json_schema, json_object or off",
    ),
    (
        "review.prices",
        "USD per million tokens (input, output, cache_read, cache_write), for an estimated cost in the output. Not set: no estimate (there are no built-in prices)",
    ),
    (
        "automation.mentions",
        "mentions that start a trigger (`@name /review`), matched exactly outside code blocks and quotes",
    ),
    (
        "automation.max_trigger_chars",
        "a comment, review or review comment longer than this (characters) is never a trigger",
    ),
    (
        "automation.fix_ci_label",
        "the label that asks for the fix-ci write action (recognized; not available in this version)",
    ),
    (
        "automation.address_review_label",
        "the label that asks for the address-review write action (recognized; not available in this version)",
    ),
    (
        "gates.opt_in_label",
        "community PRs are reviewed automatically only with this label",
    ),
    (
        "gates.pause_label",
        "no automatic action while this label is on the PR",
    ),
    (
        "gates.never_label",
        "never reviewed automatically and never posted while this label is on the PR",
    ),
    (
        "gates.collaborators_are_team",
        "count COLLABORATOR authors as team (OWNER and MEMBER always are)",
    ),
    (
        "inbox.sections",
        "the inbox's tabs without an argument: each { title, query } with a GitHub search; empty: the bundled fixtures",
    ),
    (
        "review.agent_logins",
        "accounts besides the team (as the gates count it) whose replies ending with the reply marker mark findings addressed, e.g. the coding agent's bot",
    ),
    (
        "review.diff_budgets.<aspect>",
        "per-aspect override of diff_budget_chars",
    ),
    (
        "review.prompts_dir",
        "read the playbook and aspect prompts from this folder (missing files: the built-in ones). Not set: the built-in prompts only",
    ),
    ("review.skip.<aspect>.always", "never run this aspect"),
    (
        "review.skip.<aspect>.unless_files_match",
        "skip the aspect unless a changed file matches one of these globs (* within a segment, ** across)",
    ),
];

/// Map-valued tables whose keys are aspects: `review.diff_budgets.<aspect>`,
/// `review.skip.<aspect>.*`.
const ASPECT_MAPS: &[&str] = &["review.diff_budgets", "review.skip"];

/// The dotted key with an aspect in an aspect map replaced by `<aspect>`; keys of `[keys]` by
/// `<command>`.
pub(crate) fn generic_key(path: &[String]) -> String {
    let mut parts: Vec<String> = path.to_vec();
    if parts.first().map(String::as_str) == Some("keys") && parts.len() == 2 {
        parts[1] = "<command>".to_owned();
    }
    for map in ASPECT_MAPS {
        let depth = map.split('.').count();
        if parts.len() > depth && parts[..depth].join(".") == *map {
            parts[depth] = "<aspect>".to_owned();
        }
    }
    parts.join(".")
}

pub(crate) fn description(path: &[String]) -> Option<&'static str> {
    let key = generic_key(path);
    DESCRIPTIONS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, d)| *d)
}

fn json_to_toml(v: &serde_json::Value) -> Option<toml::Value> {
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

/// Whether `path` is set in the file's table.
fn in_file(file: &toml::Table, path: &[String]) -> Option<toml::Value> {
    let (last, parents) = path.split_last()?;
    let mut t = file;
    for p in parents {
        t = t.get(p)?.as_table()?;
    }
    t.get(last).cloned()
}

/// Every setting of the effective configuration, in file order: `theme`, `keys.*`, `review.*`
/// (an aspect map's entries only when set). Floats stay floats (`300.0`).
pub(crate) fn settings(
    loaded: &Loaded,
    file: &toml::Table,
    theme_flag: Option<&str>,
) -> Vec<Setting> {
    let mut out = Vec::new();
    let src = |path: &[String]| {
        if in_file(file, path).is_some() {
            Source::File
        } else {
            Source::Default
        }
    };
    let theme = vec!["theme".to_owned()];
    out.push(match (theme_flag, &loaded.config.theme) {
        (Some(t), _) => Setting {
            path: theme,
            value: Some(toml::Value::String(t.to_owned())),
            source: Source::Flag,
        },
        (None, Some(t)) => Setting {
            source: src(&theme),
            path: theme,
            value: Some(toml::Value::String(t.clone())),
        },
        (None, None) => Setting {
            path: theme,
            value: Some(toml::Value::String("dark".to_owned())),
            source: Source::Default,
        },
    });
    for (_, name, defaults, _) in COMMANDS {
        let path = vec!["keys".to_owned(), (*name).to_owned()];
        let value = match in_file(file, &path) {
            Some(v) => v,
            None => toml::Value::Array(
                defaults
                    .iter()
                    .map(|k| toml::Value::String((*k).to_owned()))
                    .collect(),
            ),
        };
        out.push(Setting {
            source: src(&path),
            path,
            value: Some(value),
        });
    }
    let review = serde_json::to_value(&loaded.config.review).unwrap_or_default();
    // The aspect maps' entries come last: they are subtables of [review].
    let mut maps = Vec::new();
    if let Some(obj) = review.as_object() {
        for (k, v) in obj {
            let path = vec!["review".to_owned(), k.clone()];
            if ASPECT_MAPS.contains(&path.join(".").as_str()) {
                // Only the entries that are set; each one's leaves.
                if let Some(map) = v.as_object() {
                    for (aspect, entry) in map {
                        let mut p = path.clone();
                        p.push(aspect.clone());
                        push_leaves(&mut maps, p, entry, &src);
                    }
                }
                continue;
            }
            out.push(Setting {
                source: src(&path),
                value: json_to_toml(v),
                path,
            });
        }
    }
    // [automation], [gates] and [inbox] come before the aspect maps (subtables of [review] must
    // stay last in a file).
    for (table, value) in [
        (
            "automation",
            serde_json::to_value(&loaded.config.automation).unwrap_or_default(),
        ),
        (
            "gates",
            serde_json::to_value(&loaded.config.gates).unwrap_or_default(),
        ),
        (
            "inbox",
            serde_json::to_value(&loaded.config.inbox).unwrap_or_default(),
        ),
    ] {
        for (k, v) in value.as_object().into_iter().flatten() {
            let path = vec![table.to_owned(), k.clone()];
            out.push(Setting {
                source: src(&path),
                value: json_to_toml(v),
                path,
            });
        }
    }
    out.extend(maps);
    out
}

fn push_leaves(
    out: &mut Vec<Setting>,
    path: Vec<String>,
    v: &serde_json::Value,
    src: &dyn Fn(&[String]) -> Source,
) {
    match v.as_object() {
        Some(o) => {
            for (k, child) in o {
                let mut p = path.clone();
                p.push(k.clone());
                push_leaves(out, p, child, src);
            }
        }
        None => out.push(Setting {
            source: src(&path),
            value: json_to_toml(v),
            path,
        }),
    }
}

/// A TOML key: bare when it can be, else quoted.
fn toml_key(k: &str) -> String {
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
pub(crate) fn inline(v: &toml::Value) -> String {
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

/// The effective configuration as TOML, every value marked `# file`, `# default` or
/// `# --theme`; unset keys as comments saying what applies.
pub(crate) fn show(loaded: &Loaded, file: &toml::Table, theme_flag: Option<&str>) -> String {
    let mut out = String::new();
    out.push_str("# pr-shepherd: the effective configuration, every setting with its default.\n");
    match &loaded.path {
        Some(p) => out.push_str(&format!("# Read from {}.\n", p.display())),
        None => out.push_str("# No config file: every value is a default.\n"),
    }
    out.push_str(
        "# `# file` marks a value set in the file, `# default` a built-in default. Reference: docs/config.md.\n\n",
    );
    let mut table: Option<Vec<String>> = None;
    for s in settings(loaded, file, theme_flag) {
        let (parents, last) = match s.path.split_last() {
            Some((last, parents)) => (parents.to_vec(), last),
            None => continue,
        };
        if table.as_ref() != Some(&parents) && !parents.is_empty() {
            out.push_str(&format!(
                "\n[{}]\n",
                parents
                    .iter()
                    .map(|p| toml_key(p))
                    .collect::<Vec<_>>()
                    .join(".")
            ));
        }
        table = Some(parents);
        let mark = match s.source {
            Source::Default => "default",
            Source::File => "file",
            Source::Flag => "--theme",
        };
        match &s.value {
            Some(v) => out.push_str(&format!("{} = {}  # {mark}\n", toml_key(last), inline(v))),
            None => out.push_str(&format!(
                "# {} is not set: {}\n",
                toml_key(last),
                unset_meaning(&s.path)
            )),
        }
    }
    out.push_str(
        "\n# [review.diff_budgets] and [review.skip.<aspect>] entries appear above only when set.\n",
    );
    out
}

/// What applies when an optional key is not set (from its description's "Not set:" part).
fn unset_meaning(path: &[String]) -> String {
    description(path)
        .and_then(|d| d.split_once("Not set: ").map(|(_, m)| m.to_owned()))
        .unwrap_or_else(|| "the program decides".to_owned())
}

/// An example value for each optional key (used by `config init` for the commented-out line).
const UNSET_EXAMPLES: &[(&str, &str)] = &[
    ("review.llm", "\"openai\""),
    ("review.llm_url", "\"http://localhost:11434/v1\""),
    ("review.model", "\"qwen2.5-coder:14b\""),
    ("review.prompts_dir", "\"/path/to/prompts\""),
    ("review.max_calls_per_aspect", "8"),
    (
        "review.structured_output",
        "how the HTTP backends ask for the findings object: auto (json_schema, else json_object with the schema, json_object, plain text; what a server takes is remembered per server URL in the state dir), json_schema, json_object or off",
    ),
    (
        "review.prices",
        "{ input = 3.0, output = 15.0, cache_read = 0.3, cache_write = 3.75 }",
    ),
];

/// The commented default file `config init` writes: every key commented out, with its
/// description and default, so the file changes nothing until a line is uncommented.
pub(crate) fn init_text() -> String {
    let defaults = settings(&Loaded::default(), &toml::Table::new(), None);
    let mut out = String::new();
    out.push_str(
        "# pr-shepherd config file. Every key is commented out: the built-in defaults apply until\n\
         # you uncomment one. An unknown key or a wrong type is an error naming the key.\n\
         # `pr-shepherd config show` prints the effective settings. Reference: docs/config.md.\n",
    );
    let mut table: Option<Vec<String>> = None;
    let mut last_generic: Option<String> = None;
    for s in &defaults {
        let Some((last, parents)) = s.path.split_last() else {
            continue;
        };
        if table.as_deref() != Some(parents) && !parents.is_empty() {
            let header = parents.join(".");
            // A table header stays uncommented: it is harmless and keeps uncommenting simple.
            out.push_str(&format!("\n[{header}]\n"));
        }
        table = Some(parents.to_vec());
        // A description once per kind of key (`keys.<command>` has one for all commands).
        let generic = generic_key(&s.path);
        if last_generic.as_deref() != Some(generic.as_str())
            && let Some(d) = description(&s.path)
        {
            out.push_str(&format!("# {d}\n"));
        }
        last_generic = Some(generic);
        let value = match &s.value {
            Some(v) => inline(v),
            None => UNSET_EXAMPLES
                .iter()
                .find(|(k, _)| *k == s.key())
                .map_or_else(|| "\"\"".to_owned(), |(_, v)| (*v).to_owned()),
        };
        // A console command's own help text after its line.
        let help = COMMANDS
            .iter()
            .find(|c| parents.first().map(String::as_str) == Some("keys") && c.1 == last)
            .map(|c| format!("  # {}", c.3))
            .unwrap_or_default();
        out.push_str(&format!("# {} = {value}{help}\n", toml_key(last)));
    }
    out.push_str(
        "\n# Per-aspect settings (aspects: correctness, conventions, security, perf, tests,\n\
         # architecture):\n\
         # [review.diff_budgets]\n\
         # tests = 30000\n\
         # [review.skip.perf]\n\
         # unless_files_match = [\"src/**\", \"*.rs\"]\n\
         # [review.skip.architecture]\n\
         # always = true\n",
    );
    out
}

/// Writes [`init_text`] to `path`, creating its folder; an existing file is never overwritten
/// (exit 2).
pub(crate) fn init(path: &Path) -> Result<(), CliError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::runtime(format!("cannot create `{}`: {e}", dir.display())))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                CliError::usage(format!(
                    "{} already exists; nothing was written (edit it, or move it away first)",
                    path.display()
                ))
            } else {
                CliError::runtime(format!("cannot create `{}`: {e}", path.display()))
            }
        })?;
    f.write_all(init_text().as_bytes())
        .and_then(|()| f.flush())
        .map_err(|e| CliError::runtime(format!("cannot write `{}`: {e}", path.display())))
}

/// The reference's type name for a TOML value.
#[cfg(test)]
fn type_name(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "string",
        toml::Value::Integer(_) => "integer",
        toml::Value::Float(_) => "float",
        toml::Value::Boolean(_) => "boolean",
        toml::Value::Datetime(_) => "datetime",
        toml::Value::Array(_) => "array",
        toml::Value::Table(_) => "table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::settings::ReviewSettings;

    fn parse(text: &str) -> Loaded {
        Config::parse(text, Path::new("c.toml")).unwrap()
    }

    fn shown(text: &str, theme: Option<&str>) -> String {
        let loaded = parse(text);
        let file: toml::Table = toml::from_str(text).unwrap();
        show(&loaded, &file, theme)
    }

    /// The values of a `config show` output, comments dropped.
    fn values(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn show_round_trips_as_a_valid_config() {
        let file = "theme = \"light\"\n[keys]\nmark_seen = \"space\"\n[review]\nconcurrency = 2\n\
                    command = [\"agent\", \"--print\"]\nllm = \"command\"\n\
                    [review.diff_budgets]\ntests = 100\n[review.skip.perf]\nalways = true\n";
        let text = shown(file, None);
        // Valid TOML, and a valid config that means the same.
        let again = Config::parse(&text, Path::new("shown.toml")).unwrap();
        let first = parse(file);
        assert_eq!(again.config.review, first.config.review);
        assert_eq!(again.config.theme.as_deref(), Some("light"));
        assert_eq!(again.keys.len(), COMMANDS.len(), "every binding shown");
        // Showing the shown file gives the same values.
        let again_text = shown(&text, None);
        assert_eq!(values(&again_text), values(&text));
        // Marks: from the file or a default.
        assert!(text.contains("theme = \"light\"  # file"), "{text}");
        assert!(text.contains("mark_seen = \"space\"  # file"), "{text}");
        assert!(
            text.contains("down = [\"j\", \"Down\"]  # default"),
            "{text}"
        );
        assert!(text.contains("concurrency = 2  # file"), "{text}");
        assert!(text.contains("retries = 2  # default"), "{text}");
        assert!(
            text.contains("overall_timeout_secs = 300.0  # default"),
            "{text}"
        );
        assert!(
            text.contains("[review.diff_budgets]\ntests = 100  # file"),
            "{text}"
        );
        assert!(
            text.contains("[review.skip.perf]\nalways = true  # file"),
            "{text}"
        );
        assert!(
            text.contains("# model is not set: claude-sonnet-4-5"),
            "{text}"
        );
    }

    #[test]
    fn show_without_a_file_is_every_default() {
        let text = show(&Loaded::default(), &toml::Table::new(), Some("light"));
        assert!(text.contains("theme = \"light\"  # --theme"), "{text}");
        assert!(!text.contains("  # file"), "{text}");
        let v = values(&text);
        assert_eq!(v["review"]["concurrency"].as_integer(), Some(6));
        let back: ReviewSettings = v["review"].clone().try_into().unwrap();
        assert_eq!(back, ReviewSettings::default());
    }

    #[test]
    fn init_text_is_a_valid_config_commented_or_not() {
        let text = init_text();
        // As written: nothing set.
        let l = parse(&text);
        assert!(l.config.theme.is_none() && l.keys.is_empty());
        assert_eq!(l.config.review, ReviewSettings::default());
        // Every `# key = value` line uncommented: still a valid config (the examples are right).
        let uncommented: String = text
            .lines()
            .map(|line| match line.strip_prefix("# ") {
                Some(rest)
                    if rest.contains(" = ")
                        && rest.split(" = ").next().is_some_and(|k| {
                            k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        }) =>
                {
                    rest.to_owned()
                }
                Some(rest) if rest.starts_with('[') => rest.to_owned(),
                _ => line.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let l = parse(&uncommented);
        assert_eq!(
            l.config.review.llm_url.as_deref(),
            Some("http://localhost:11434/v1")
        );
        assert_eq!(
            l.config
                .review
                .diff_budget(crate::review::aspect::Aspect::Tests),
            30000
        );
        assert_eq!(l.keys.len(), COMMANDS.len());
    }

    #[test]
    fn init_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/config.toml");
        init(&p).unwrap();
        let before = std::fs::read_to_string(&p).unwrap();
        let e = init(&p).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e}");
        assert!(e.to_string().contains("already exists"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), before);
    }

    #[test]
    fn every_setting_is_described() {
        let mut file =
            String::from("[review.diff_budgets]\ntests = 1\n[review.skip.perf]\nalways = true\n");
        file.push_str("unless_files_match = [\"x\"]\n");
        for s in settings(&parse(&file), &toml::from_str(&file).unwrap(), None) {
            assert!(
                description(&s.path).is_some(),
                "{} has no description",
                s.key()
            );
        }
    }

    /// The rows of every `| `key` | type | default | example | meaning |` table in
    /// docs/config.md (the meaning is left out).
    fn doc_rows() -> Vec<[String; 4]> {
        let md =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.md"))
                .unwrap();
        md.lines()
            .filter_map(|l| {
                let cells: Vec<String> = l
                    .trim()
                    .strip_prefix('|')?
                    .strip_suffix('|')?
                    .split(" | ")
                    .map(|c| c.trim().to_owned())
                    .collect();
                let key = cells
                    .first()?
                    .strip_prefix('`')?
                    .strip_suffix('`')?
                    .to_owned();
                (cells.len() == 5)
                    .then(|| [key, cells[1].clone(), cells[2].clone(), cells[3].clone()])
            })
            .collect()
    }

    fn cell_value(cell: &str) -> Option<toml::Value> {
        let inner = cell.strip_prefix('`')?.strip_suffix('`')?;
        let t: toml::Table = toml::from_str(&format!("x = {inner}")).ok()?;
        t.get("x").cloned()
    }

    /// A config text that sets the dotted `key` (with `<aspect>` / `<command>` filled in).
    fn setting_text(key: &str, value: &str) -> String {
        let key = key.replace("<aspect>", "perf").replace("<command>", "down");
        let (table, last) = key.rsplit_once('.').unwrap_or(("", &key));
        if table.is_empty() {
            format!("{last} = {value}\n")
        } else {
            format!("[{table}]\n{last} = {value}\n")
        }
    }

    #[test]
    fn docs_config_md_matches_the_real_settings() {
        let rows = doc_rows();
        assert!(rows.len() > 20, "the reference tables were not found");
        let mut file =
            String::from("[review.diff_budgets]\ntests = 1\n[review.skip.perf]\nalways = true\n");
        file.push_str("unless_files_match = [\"x\"]\n");
        let defaults = settings(&Loaded::default(), &toml::Table::new(), None);
        // Keys with aspect maps filled in, so the per-aspect keys are covered too.
        let with_maps = settings(&parse(&file), &toml::from_str(&file).unwrap(), None);
        let mut documented = std::collections::BTreeSet::new();
        for [key, ty, _default, example] in &rows {
            documented.insert(key.clone());
            // The example is valid for the key.
            let ex = example
                .strip_prefix('`')
                .and_then(|e| e.strip_suffix('`'))
                .unwrap_or_else(|| panic!("{key}: example `{example}` is not code"));
            parse(&setting_text(key, ex));
            // The type is the example's (and the default's) TOML type.
            let ex_value = cell_value(example).unwrap();
            assert!(
                ty.starts_with(type_name(&ex_value)),
                "{key}: type {ty} vs {ex_value}"
            );
        }
        let mut real = std::collections::BTreeSet::new();
        for s in defaults.iter().chain(&with_maps) {
            let key = if s.path[0] == "keys" {
                s.key()
            } else {
                generic_key(&s.path)
            };
            real.insert(key.clone());
            let row = rows
                .iter()
                .find(|r| r[0] == key)
                .unwrap_or_else(|| panic!("docs/config.md does not list `{key}`"));
            if s.source != Source::Default && key.contains("<aspect>") {
                continue; // the value is the test file's; the default is checked below
            }
            match &s.value {
                Some(v) => {
                    assert_eq!(
                        cell_value(&row[2]).as_ref(),
                        Some(v),
                        "{key}: default {}",
                        row[2]
                    );
                    assert!(row[1].starts_with(type_name(v)), "{key}: type {}", row[1]);
                }
                None => assert!(row[2].starts_with("not set"), "{key}: default {}", row[2]),
            }
        }
        // The per-aspect keys' defaults are those of an empty entry.
        let skip = serde_json::to_value(crate::review::settings::SkipRule::default()).unwrap();
        for (k, v) in skip.as_object().unwrap() {
            let key = format!("review.skip.<aspect>.{k}");
            let row = rows.iter().find(|r| r[0] == key).unwrap();
            assert_eq!(cell_value(&row[2]), json_to_toml(v), "{key}");
        }
        // The complete examples are valid configs.
        let md =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.md"))
                .unwrap();
        let blocks: Vec<&str> = md
            .split("```toml\n")
            .skip(1)
            .filter_map(|b| b.split("```").next())
            .collect();
        assert!(blocks.len() >= 2);
        for b in blocks {
            parse(b);
        }
        // Nothing documented that does not exist.
        let extra: Vec<_> = documented.difference(&real).collect();
        assert!(extra.is_empty(), "documented but not real: {extra:?}");
    }
}
