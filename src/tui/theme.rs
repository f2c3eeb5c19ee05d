//! Console colours, loaded from TOML (`themes/*.toml`, embedded as fallbacks).
//!
//! A theme is looked up by name: `<config dir>/themes/NAME.toml` first, then the embedded copy.
//! A value containing `/` or ending in `.toml` is a path. `NO_COLOR` (non-empty, read by
//! `commands::Context`) asks for [`Theme::plain`]: every colour off, only bold/reverse kept, so
//! badges stay distinguishable.

use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use thiserror::Error;

/// The embedded themes, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

pub use crate::schema::DEFAULT_THEME;

#[derive(Debug, Error)]
pub enum ThemeError {
    #[error(
        "unknown theme `{name}` (built in: {}; or a name in <config dir>/themes, or a path to a .toml file)",
        crate::schema::BUILTIN_THEMES.join(", ")
    )]
    Unknown { name: String },
    #[error("cannot read theme `{path}`: {source}")]
    Io {
        /// Bounded and sanitized (`crate::infile::short_path`).
        path: String,
        source: std::io::Error,
    },
    #[error("invalid theme `{origin}`: key `{key}`: {message}")]
    Invalid {
        origin: String,
        key: String,
        message: String,
    },
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    /// Spanned, so an error names the line and column of a bad colour instead of quoting it.
    fg: Option<toml::Spanned<String>>,
    bg: Option<toml::Spanned<String>>,
    #[serde(default)]
    bold: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    #[allow(dead_code)]
    name: Option<String>,
    syntect: Option<String>,
    ui: UiSpec,
    badges: BadgeSpec,
    diff: DiffSpec,
    /// Findings by severity; a theme without it colours them from its badges and notice.
    severity: Option<SeveritySpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeveritySpec {
    critical: StyleSpec,
    important: StyleSpec,
    suggestion: StyleSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UiSpec {
    text: StyleSpec,
    dim: StyleSpec,
    header: StyleSpec,
    border: StyleSpec,
    border_focus: StyleSpec,
    selection: StyleSpec,
    group: StyleSpec,
    author: StyleSpec,
    location: StyleSpec,
    search_match: StyleSpec,
    notice: StyleSpec,
    key: StyleSpec,
    suggestion: StyleSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BadgeSpec {
    new: StyleSpec,
    edited: StyleSpec,
    unchanged: StyleSpec,
    outdated: StyleSpec,
    resolved: StyleSpec,
    minimized: StyleSpec,
    approved: StyleSpec,
    changes_requested: StyleSpec,
    commented: StyleSpec,
    dismissed: StyleSpec,
    seen: StyleSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiffSpec {
    added: StyleSpec,
    removed: StyleSpec,
    context: StyleSpec,
    hunk_header: StyleSpec,
    /// The changed words of a removed line beside its added line; a theme without them marks
    /// them reversed.
    word_removed: Option<StyleSpec>,
    word_added: Option<StyleSpec>,
}

/// Resolved styles, ready for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    /// The syntect theme for diff hunks; `None` disables highlighting (NO_COLOR).
    pub syntect: Option<String>,
    pub text: Style,
    pub dim: Style,
    pub header: Style,
    pub border: Style,
    pub border_focus: Style,
    pub selection: Style,
    pub group: Style,
    pub author: Style,
    pub location: Style,
    pub search_match: Style,
    pub notice: Style,
    pub key: Style,
    pub suggestion: Style,
    pub badge_new: Style,
    pub badge_edited: Style,
    pub badge_unchanged: Style,
    pub badge_outdated: Style,
    pub badge_resolved: Style,
    pub badge_minimized: Style,
    pub state_approved: Style,
    pub state_changes_requested: Style,
    pub state_commented: Style,
    pub state_dismissed: Style,
    pub seen: Style,
    pub diff_added: Style,
    pub diff_removed: Style,
    pub diff_context: Style,
    pub diff_hunk_header: Style,
    /// The changed words of a modified line (laid over the line's own style: a stronger
    /// background, the syntax colours kept).
    pub diff_word_removed: Style,
    pub diff_word_added: Style,
    /// Findings by severity (`[severity]` in a theme file).
    pub severity_critical: Style,
    pub severity_important: Style,
    pub severity_suggestion: Style,
}

/// Where a theme's text came from and what it is, for its errors.
struct Source<'a> {
    text: &'a str,
    origin: &'a str,
}

fn style(spec: &StyleSpec, key: &str, src: &Source<'_>) -> Result<Style, ThemeError> {
    let colour = |v: &Option<toml::Spanned<String>>,
                  which: &str|
     -> Result<Option<Color>, ThemeError> {
        v.as_ref()
                .map(|s| {
                    Color::from_str(s.get_ref()).map_err(|_| {
                        // The position, never the value: a file given as a theme by mistake
                        // may hold anything.
                        let (line, column) = crate::infile::position(src.text, s.span().start);
                        ThemeError::Invalid {
                            origin: src.origin.to_owned(),
                            key: format!("{key}.{which}"),
                            message: format!(
                                "at line {line}, column {column}: not a colour (a name, #rrggbb or 0-255)"
                            ),
                        }
                    })
                })
                .transpose()
    };
    let mut st = Style::default();
    if let Some(c) = colour(&spec.fg, "fg")? {
        st = st.fg(c);
    }
    if let Some(c) = colour(&spec.bg, "bg")? {
        st = st.bg(c);
    }
    if spec.bold {
        st = st.add_modifier(Modifier::BOLD);
    }
    Ok(st)
}

impl Theme {
    /// Parses a theme file's text; `origin` names it in errors.
    ///
    /// Errors name the key and the position, never the content (see
    /// `crate::infile::content_message`): `--theme /proc/self/environ` must not print the
    /// environment.
    pub fn parse(text: &str, origin: &str) -> Result<Theme, ThemeError> {
        let origin = crate::infile::short_path(Path::new(origin));
        let origin = origin.as_str();
        let de = toml::Deserializer::parse(text).map_err(|e| ThemeError::Invalid {
            origin: origin.to_owned(),
            key: "(syntax)".to_owned(),
            message: crate::infile::toml_syntax_error(text, &e),
        })?;
        let file: ThemeFile =
            serde_path_to_error::deserialize(de).map_err(|e| ThemeError::Invalid {
                origin: origin.to_owned(),
                key: crate::infile::short_name(&e.path().to_string()),
                message: crate::infile::toml_value_error(text, e.inner()),
            })?;
        let o = &Source { text, origin };
        let (u, b, d) = (&file.ui, &file.badges, &file.diff);
        Ok(Theme {
            name: file.name.clone().unwrap_or_else(|| origin.to_owned()),
            syntect: file.syntect.clone(),
            text: style(&u.text, "ui.text", o)?,
            dim: style(&u.dim, "ui.dim", o)?,
            header: style(&u.header, "ui.header", o)?,
            border: style(&u.border, "ui.border", o)?,
            border_focus: style(&u.border_focus, "ui.border_focus", o)?,
            selection: style(&u.selection, "ui.selection", o)?,
            group: style(&u.group, "ui.group", o)?,
            author: style(&u.author, "ui.author", o)?,
            location: style(&u.location, "ui.location", o)?,
            search_match: style(&u.search_match, "ui.search_match", o)?,
            notice: style(&u.notice, "ui.notice", o)?,
            key: style(&u.key, "ui.key", o)?,
            suggestion: style(&u.suggestion, "ui.suggestion", o)?,
            badge_new: style(&b.new, "badges.new", o)?,
            badge_edited: style(&b.edited, "badges.edited", o)?,
            badge_unchanged: style(&b.unchanged, "badges.unchanged", o)?,
            badge_outdated: style(&b.outdated, "badges.outdated", o)?,
            badge_resolved: style(&b.resolved, "badges.resolved", o)?,
            badge_minimized: style(&b.minimized, "badges.minimized", o)?,
            state_approved: style(&b.approved, "badges.approved", o)?,
            state_changes_requested: style(&b.changes_requested, "badges.changes_requested", o)?,
            state_commented: style(&b.commented, "badges.commented", o)?,
            state_dismissed: style(&b.dismissed, "badges.dismissed", o)?,
            seen: style(&b.seen, "badges.seen", o)?,
            diff_added: style(&d.added, "diff.added", o)?,
            diff_removed: style(&d.removed, "diff.removed", o)?,
            diff_context: style(&d.context, "diff.context", o)?,
            diff_hunk_header: style(&d.hunk_header, "diff.hunk_header", o)?,
            diff_word_removed: match &d.word_removed {
                Some(w) => style(w, "diff.word_removed", o)?,
                None => Style::default().add_modifier(Modifier::REVERSED),
            },
            diff_word_added: match &d.word_added {
                Some(w) => style(w, "diff.word_added", o)?,
                None => Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            },
            severity_critical: match &file.severity {
                Some(s) => style(&s.critical, "severity.critical", o)?,
                None => style(&b.changes_requested, "badges.changes_requested", o)?,
            },
            severity_important: match &file.severity {
                Some(s) => style(&s.important, "severity.important", o)?,
                None => style(&u.notice, "ui.notice", o)?,
            },
            severity_suggestion: match &file.severity {
                Some(s) => style(&s.suggestion, "severity.suggestion", o)?,
                None => style(&u.suggestion, "ui.suggestion", o)?,
            },
        })
    }

    /// An embedded theme by name.
    pub fn builtin(name: &str) -> Option<Theme> {
        BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(n, text)| Theme::parse(text, n).ok())
    }

    /// The default theme; falls back to plain styles if the embedded file were ever broken
    /// (a unit test proves it is not).
    pub fn default_theme() -> Theme {
        Theme::builtin(DEFAULT_THEME).unwrap_or_else(Theme::plain)
    }

    /// Loads a theme by name or path. `user_dir` is `<config dir>/themes`.
    pub fn load(name: &str, user_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        let read = |path: &Path| {
            crate::infile::read_to_string(path, crate::infile::THEME_LIMIT).map_err(|source| {
                ThemeError::Io {
                    path: crate::infile::short_path(path),
                    source,
                }
            })
        };
        if name.contains('/') || name.contains('\\') || name.ends_with(".toml") {
            let path = Path::new(name);
            return Theme::parse(&read(path)?, &path.display().to_string());
        }
        if let Some(dir) = user_dir {
            let path = dir.join(format!("{name}.toml"));
            if path.is_file() {
                return Theme::parse(&read(&path)?, &path.display().to_string());
            }
        }
        match BUILTIN.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => Theme::parse(text, n),
            None => Err(ThemeError::Unknown {
                name: crate::infile::short_name(name),
            }),
        }
    }

    /// No colours at all: what `NO_COLOR` asks for. Badges keep bold/reverse so they stand out.
    pub fn plain() -> Theme {
        let none = Style::default();
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let rev = Style::default().add_modifier(Modifier::REVERSED);
        Theme {
            name: "no-color".to_owned(),
            syntect: None,
            text: none,
            dim: none,
            header: bold,
            border: none,
            border_focus: bold,
            selection: rev,
            group: bold,
            author: bold,
            location: none,
            search_match: rev,
            notice: bold,
            key: bold,
            suggestion: none,
            badge_new: rev.add_modifier(Modifier::BOLD),
            badge_edited: rev.add_modifier(Modifier::BOLD),
            badge_unchanged: none,
            badge_outdated: rev,
            badge_resolved: rev,
            badge_minimized: rev,
            state_approved: bold,
            state_changes_requested: bold,
            state_commented: none,
            state_dismissed: none,
            seen: bold,
            diff_added: bold,
            diff_removed: none,
            diff_context: none,
            diff_hunk_header: bold,
            diff_word_removed: rev,
            diff_word_added: rev.add_modifier(Modifier::BOLD),
            severity_critical: rev.add_modifier(Modifier::BOLD),
            severity_important: bold,
            severity_suggestion: none,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_themes_are_the_schemas() {
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, crate::schema::BUILTIN_THEMES);
        assert!(names.contains(&DEFAULT_THEME));
    }

    #[test]
    fn every_builtin_parses() {
        for (name, text) in BUILTIN {
            let t = Theme::parse(text, name).unwrap();
            assert_eq!(t.name, *name);
            assert!(t.syntect.is_some());
        }
    }

    #[test]
    fn every_builtin_colours_each_severity_apart() {
        for (name, text) in BUILTIN {
            assert!(text.contains("[severity]"), "{name}");
            let t = Theme::parse(text, name).unwrap();
            assert_ne!(t.severity_critical, t.severity_important, "{name}");
            assert_ne!(t.severity_important, t.severity_suggestion, "{name}");
        }
        // A theme of its own without the table still parses, its findings coloured anyway.
        let old = BUILTIN[0].1.split("[severity]").next().unwrap_or_default();
        let t = Theme::parse(old, "mine").unwrap();
        assert_ne!(t.severity_critical, t.severity_suggestion);
    }

    // Guards the changed words' styles: every built-in theme sets them apart from the line's
    // own, and NO_COLOR still marks them (reversed).
    #[test]
    fn every_theme_marks_changed_words_apart_from_their_line() {
        for (name, text) in BUILTIN {
            assert!(
                text.contains("word_added") && text.contains("word_removed"),
                "{name}"
            );
            let t = Theme::parse(text, name).unwrap();
            assert_ne!(t.diff_word_added, t.diff_added, "{name}");
            assert_ne!(t.diff_word_removed, t.diff_removed, "{name}");
            assert!(
                t.diff_word_added.bg.is_some()
                    || t.diff_word_added.add_modifier.contains(Modifier::REVERSED),
                "{name}"
            );
        }
        let p = Theme::plain();
        assert!(p.diff_word_added.add_modifier.contains(Modifier::REVERSED));
        assert!(
            p.diff_word_removed
                .add_modifier
                .contains(Modifier::REVERSED)
        );
    }

    #[test]
    fn builtin_syntect_themes_exist() {
        let set = syntect::highlighting::ThemeSet::load_defaults();
        for (name, _) in BUILTIN {
            let t = Theme::builtin(name).unwrap();
            let s = t.syntect.unwrap();
            assert!(set.themes.contains_key(&s), "{name}: {s}");
        }
    }

    #[test]
    fn bad_colour_names_the_key() {
        let text = BUILTIN[0]
            .1
            .replace("new = { fg = \"#000000\"", "new = { fg = \"mauve\"");
        let e = Theme::parse(&text, "x").unwrap_err().to_string();
        assert!(e.contains("badges.new.fg"), "{e}");
        // Where, not what: the value is never quoted.
        assert!(e.contains("line ") && e.contains("not a colour"), "{e}");
        assert!(!e.contains("mauve"), "{e}");
    }

    #[test]
    fn unknown_key_is_named() {
        let text = BUILTIN[0]
            .1
            .replace("[diff]", "[diff]\nsparkle = { fg = \"red\" }");
        let e = Theme::parse(&text, "x").unwrap_err().to_string();
        assert!(e.contains("diff.sparkle") || e.contains("sparkle"), "{e}");
    }

    #[test]
    fn load_by_name_path_and_unknown() {
        assert_eq!(Theme::load("light", None).unwrap().name, "light");
        assert!(matches!(
            Theme::load("nope", None),
            Err(ThemeError::Unknown { .. })
        ));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mine.toml");
        std::fs::write(
            &p,
            BUILTIN[1].1.replace("name = \"light\"", "name = \"mine\""),
        )
        .unwrap();
        assert_eq!(Theme::load("mine", Some(dir.path())).unwrap().name, "mine");
        assert_eq!(Theme::load(p.to_str().unwrap(), None).unwrap().name, "mine");
    }
}
