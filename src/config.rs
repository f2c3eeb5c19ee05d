//! `config.toml`: the user's settings, from the platform config dir (via `directories`) or
//! `--config PATH`.
//!
//! ```toml
//! theme = "dark"            # or light, high-contrast, a name in <config dir>/themes, or a path
//!
//! [keys]                    # any command's keys; replaces its defaults
//! down = ["j", "Down"]
//! mark_seen = "m"
//! ```
//!
//! Every table is parsed strictly: an unknown key or a wrong type is an error that names the key
//! (exit 2), never a silent default. Each feature owns one table: adding one (e.g. the review
//! engine's `[review]`) is one field on [`Config`] with `#[serde(default)]` and its own struct.

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
    /// The inbox (`[inbox]`): its sections, shown as tabs.
    #[serde(default)]
    pub inbox: InboxConfig,
    // Further tables go here, one field each.
}

/// `[inbox]`: what `pr-shepherd` and `pr-shepherd inbox` list without an argument.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InboxConfig {
    /// `[[inbox.sections]]`, like gh-dash: each a tab with a title and a GitHub search.
    #[serde(default)]
    pub sections: Vec<InboxSection>,
}

/// One `[[inbox.sections]]` entry.
#[derive(Debug, Clone, Deserialize)]
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
        let invalid = |key: String, message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            key,
            message,
        };
        let de = toml::Deserializer::parse(text)
            .map_err(|e| invalid("(syntax)".to_owned(), e.to_string().trim().to_owned()))?;
        let config: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let message = e.inner().message().to_owned();
            invalid(key, message)
        })?;
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
        match std::fs::read_to_string(&path) {
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

    #[test]
    fn empty_is_default() {
        let l = parse("").unwrap();
        assert!(l.config.theme.is_none());
        assert!(l.keys.is_empty());
    }

    #[test]
    fn keys_and_theme() {
        let l =
            parse("theme = \"light\"\n[keys]\ndown = [\"x\", \"Down\"]\nquit = \"Q\"\n").unwrap();
        assert_eq!(l.config.theme.as_deref(), Some("light"));
        assert_eq!(l.keys[&KeyCommand::Down].len(), 2);
        assert_eq!(l.keys[&KeyCommand::Quit][0], Key::parse("Q").unwrap());
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
        let e = parse("[review]\ncolour = 1").unwrap_err();
        assert!(e.contains("review") && e.contains("colour"), "{e}");
        let e = parse("[review]\nconcurrency = \"x\"").unwrap_err();
        assert!(e.contains("review.concurrency"), "{e}");
        let l = parse("[review]\nllm = \"openai\"\nmodel = \"m\"").unwrap();
        assert_eq!(l.config.review.model.as_deref(), Some("m"));
        let e = parse("theme = ").unwrap_err();
        assert!(e.contains("c.toml"), "{e}");
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
