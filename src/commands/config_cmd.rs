//! `pr-shepherd config path | show | init`: where the config file is, the effective settings with
//! every default, and a commented default file to start from.
//!
//! The values are the real ones (`crate::config::Config` and the keymap's defaults, serialized);
//! what each key means, its example and what applies when it is unset come from the settings
//! schema (`crate::schema`), the same table validation and `docs/config.md` are produced from.
//! Tests below fail when a setting has no schema row or a row no setting.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::ConfigCommand;
use crate::config::{CONFIG_FILE, Loaded, config_dir, inline, json_to_toml, toml_key};
use crate::error::CliError;
use crate::keys::COMMANDS;

pub(super) fn run(
    cmd: &ConfigCommand,
    flag: Option<&Path>,
    theme_flag: Option<&str>,
    no_color: bool,
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
            // The same loading and checks as every other command (theme and keys included).
            let (loaded, _theme) = super::load_settings(flag, theme_flag, no_color)?;
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
    toml::from_str(&text).map_err(|e| {
        CliError::usage(format!(
            "invalid config file `{}`: {}",
            path.display(),
            crate::infile::toml_syntax_error(&text, &e)
        ))
    })
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

/// The schema's row of a setting (by its generic key).
pub(crate) fn schema_row(path: &[String]) -> Option<&'static crate::schema::Setting> {
    crate::schema::setting(&generic_key(path))
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
            value: Some(toml::Value::String(crate::schema::DEFAULT_THEME.to_owned())),
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
    // [automation], [gates], [inbox], [console], [code] and [merge] come before the aspect maps (subtables of [review] must
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
        (
            "console",
            serde_json::to_value(&loaded.config.console).unwrap_or_default(),
        ),
        (
            "code",
            serde_json::to_value(&loaded.config.code).unwrap_or_default(),
        ),
        (
            "merge",
            serde_json::to_value(&loaded.config.merge).unwrap_or_default(),
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

/// What applies when an optional key is not set (the schema's "not set" words).
fn unset_meaning(path: &[String]) -> String {
    schema_row(path)
        .and_then(crate::schema::Setting::not_set)
        .unwrap_or_else(|| "the program decides".to_owned())
}

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
        // The schema's meaning once per kind of key (`keys.<command>` has one for all commands).
        let generic = generic_key(&s.path);
        let row = schema_row(&s.path);
        if last_generic.as_deref() != Some(generic.as_str())
            && let Some(row) = row
        {
            out.push_str(&comment(&row.meaning()));
        }
        last_generic = Some(generic);
        let value = match &s.value {
            Some(v) => inline(v),
            None => row.map_or_else(|| "\"\"".to_owned(), |r| r.example.to_owned()),
        };
        // A console command's own help text after its line.
        let help = COMMANDS
            .iter()
            .find(|c| parents.first().map(String::as_str) == Some("keys") && c.1 == last)
            .map(|c| format!("  # {}", c.3))
            .unwrap_or_default();
        out.push_str(&format!("# {} = {value}{help}\n", toml_key(last)));
    }
    // The per-aspect tables, from the schema's `<aspect>` rows, with an aspect filled in.
    out.push_str(&format!(
        "\n# Per-aspect settings (aspects: {}):\n",
        crate::schema::ASPECTS.join(", ")
    ));
    let mut header = String::new();
    for row in crate::schema::SETTINGS
        .iter()
        .filter(|r| r.key.contains("<aspect>"))
    {
        let aspect = if row.key.starts_with("review.diff_budgets") {
            "tests"
        } else {
            "perf"
        };
        let key = row.key.replace("<aspect>", aspect);
        let (table, leaf) = key.rsplit_once('.').unwrap_or(("", key.as_str()));
        if header != table {
            out.push_str(&format!("# [{table}]\n"));
            header = table.to_owned();
        }
        out.push_str(&comment(&format!("# {}", row.meaning())));
        out.push_str(&format!("# {leaf} = {}\n", row.example));
    }
    out
}

/// `text` as `# ` comment lines of at most about 98 characters.
fn comment(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 2 && line.len() + 1 + word.len() > 98 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
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
    use crate::config::Config;
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
            text.contains("overall_timeout_secs = 900.0  # default"),
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
            text.contains("# model is not set: `claude-sonnet-4-5` (anthropic)"),
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

    /// The settings of a config with every kind of key set: the aspect maps filled in.
    fn every_kind_of_setting() -> Vec<Setting> {
        let file = "[review.diff_budgets]\ntests = 1\n[review.skip.perf]\nalways = true\n\
                    unless_files_match = [\"x\"]\n";
        settings(&parse(file), &toml::from_str(file).unwrap(), None)
    }

    /// The schema is complete both ways: every setting the program reads (its config structs,
    /// serialized) has a row, and every row is a setting the program reads. A new field without
    /// a row (or a row without a field) fails here.
    #[test]
    fn the_schema_and_the_settings_are_the_same_keys() {
        let real: std::collections::BTreeSet<String> = every_kind_of_setting()
            .iter()
            .map(|s| generic_key(&s.path))
            .collect();
        let schema: std::collections::BTreeSet<String> = crate::schema::SETTINGS
            .iter()
            .map(|s| s.key.to_owned())
            .collect();
        let missing: Vec<_> = real.difference(&schema).collect();
        assert!(
            missing.is_empty(),
            "settings without a schema row: {missing:?}"
        );
        let extra: Vec<_> = schema.difference(&real).collect();
        assert!(
            extra.is_empty(),
            "schema rows the program does not read: {extra:?}"
        );
    }

    /// A config text that sets the dotted `key` (with `<aspect>` / `<command>` filled in).
    fn setting_text(key: &str, value: &str) -> String {
        let key = key.replace("<aspect>", "perf").replace("<command>", "down");
        let (table, last) = key.rsplit_once('.').unwrap_or(("", &key));
        if table.is_empty() {
            format!("{last} = {value}\n")
        } else if table == "review" && last.ends_with("max_cost") {
            // A cost cap is estimated at configured prices: it is refused without them.
            format!(
                "[{table}]\n{last} = {value}\n[review.prices]\ninput = 3.0\noutput = 15.0\ncache_read = 0.3\ncache_write = 3.75\n"
            )
        } else {
            format!("[{table}]\n{last} = {value}\n")
        }
    }

    fn value_of(inline: &str) -> toml::Value {
        let t: toml::Table = toml::from_str(&format!("x = {inline}")).unwrap();
        t["x"].clone()
    }

    /// Each row's example is a valid value of its key, of the row's type; each default is what
    /// the program uses (`Default::Value` rows have one, `NotSet` rows none).
    #[test]
    fn every_row_has_a_valid_example_and_a_true_default() {
        use crate::schema::{Default, SETTINGS};
        for row in SETTINGS {
            let text = setting_text(row.key, row.example);
            Config::parse(&text, Path::new("example.toml"))
                .unwrap_or_else(|e| panic!("{}: example {}: {e}", row.key, row.example));
            let ty = row.ty.label();
            let example = value_of(row.example);
            assert!(
                ty.starts_with(type_name(&example)),
                "{}: {ty} vs {example}",
                row.key
            );
            let default_key = row.key.replace("<command>", "down");
            match (row.default, crate::config::default_value(&default_key)) {
                (Default::Value, Some(v)) => {
                    assert!(ty.starts_with(type_name(&v)), "{}: {ty} vs {v}", row.key)
                }
                (Default::NotSet(_), None) => {}
                (d, v) => panic!("{}: schema says {d:?}, the program {v:?}", row.key),
            }
        }
    }

    /// Every range in the schema is enforced: its bounds are accepted, one past them refused
    /// naming the key (validation reads the schema, so a range is never only documented).
    #[test]
    fn every_range_in_the_schema_is_enforced() {
        use crate::schema::{Allowed, SETTINGS};
        let mut checked = 0;
        for row in SETTINGS {
            let (ok, bad): (Vec<String>, Vec<String>) = match row.allowed {
                Allowed::Int { min, max } => (
                    vec![min.to_string(), max.to_string()],
                    [
                        min.checked_sub(1).map(|v| v.to_string()),
                        Some((max + 1).to_string()),
                    ]
                    .into_iter()
                    .flatten()
                    .collect(),
                ),
                Allowed::Seconds { max } => (
                    vec!["0.5".into(), format!("{max:.1}")],
                    vec![
                        "0.0".into(),
                        "-1.0".into(),
                        format!("{:.1}", max * 2.0),
                        "nan".into(),
                    ],
                ),
                Allowed::OneOf { values, or: None } => (
                    values.iter().map(|v| format!("\"{v}\"")).collect(),
                    vec!["\"no-such-value\"".into()],
                ),
                _ => continue,
            };
            let key = row.key.replace("<aspect>", "perf");
            for v in ok {
                let mut text = setting_text(row.key, &v);
                if row.key == "review.llm" && v == "\"command\"" {
                    text.push_str("command = [\"prog\"]\n");
                }
                Config::parse(&text, Path::new("c.toml"))
                    .unwrap_or_else(|e| panic!("{key} = {v} refused: {e}"));
            }
            for v in bad {
                let e = Config::parse(&setting_text(row.key, &v), Path::new("c.toml"))
                    .map(|_| ())
                    .unwrap_err()
                    .to_string();
                assert!(e.contains(&format!("key `{key}`")), "{key} = {v}: {e}");
            }
            checked += 1;
        }
        assert!(checked >= 9, "{checked}");
    }
}
