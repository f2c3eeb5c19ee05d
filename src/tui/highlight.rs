//! Syntax highlighting of a thread's diff hunk with syntect, by file extension.
//!
//! syntect with the pure-Rust regex engine is slow to load and to highlight, so this never runs
//! on the draw path: the event loop asks for a hunk in the background (`Effect::Highlight`), the
//! result comes back as an event and is cached per item; until then the hunk is drawn with diff
//! colours only ([`plain_hunk`]).
//!
//! syntect's bundled syntaxes cover Rust, Python, JavaScript, Markdown, TOML-less YAML, Go, C…
//! but not TypeScript: `.ts`/`.tsx`/`.mts`/`.cts` fall back to JavaScript, which highlights the
//! shared syntax well enough for a hunk.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

use super::theme::Theme;
use crate::sanitize::sanitize;

struct Assets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

fn assets() -> &'static Assets {
    static ASSETS: OnceLock<Assets> = OnceLock::new();
    ASSETS.get_or_init(|| Assets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    })
}

/// Loads syntect's assets now (call from a background thread at start-up).
pub fn warm_up() {
    let _ = assets();
}

fn syntax_for<'a>(set: &'a SyntaxSet, path: &str) -> Option<&'a SyntaxReference> {
    let file = path.rsplit('/').next().unwrap_or(path);
    let ext = file.rsplit_once('.').map(|(_, e)| e).unwrap_or(file);
    set.find_syntax_by_extension(ext)
        .or_else(|| match ext {
            "ts" | "tsx" | "mts" | "cts" | "jsx" | "mjs" | "cjs" => {
                set.find_syntax_by_extension("js")
            }
            "pyi" => set.find_syntax_by_extension("py"),
            _ => None,
        })
        .filter(|s| s.name != "Plain Text")
}

/// The name of the syntax a path would be highlighted with (None: diff colours only).
pub fn syntax_name(path: &str) -> Option<String> {
    syntax_for(&assets().syntaxes, path).map(|s| s.name.clone())
}

fn expand(line: &str) -> String {
    sanitize(line).replace('\t', "    ")
}

fn diff_style(theme: &Theme, marker: char) -> Style {
    match marker {
        '+' => theme.diff_added,
        '-' => theme.diff_removed,
        _ => theme.diff_context,
    }
}

/// The hunk with diff colours only (no syntax): the fallback and the NO_COLOR rendering.
pub fn plain_hunk(hunk: &str, theme: &Theme) -> Vec<Line<'static>> {
    hunk.lines()
        .map(|l| {
            let text = expand(l);
            if l.starts_with("@@") {
                Line::styled(text, theme.diff_hunk_header)
            } else {
                Line::styled(text, diff_style(theme, l.chars().next().unwrap_or(' ')))
            }
        })
        .collect()
}

fn convert(c: syntect::highlighting::Color) -> Color {
    Color::Rgb(c.r, c.g, c.b)
}

/// The hunk highlighted for `path`'s language with the theme's syntect theme. The `+`/`-` column
/// and the line background keep the diff colours; the code takes syntect's foreground colours.
/// Falls back to [`plain_hunk`] when there is no syntax, no syntect theme or highlighting fails.
pub fn highlight_hunk(path: &str, hunk: &str, theme: &Theme) -> Vec<Line<'static>> {
    let Some(theme_name) = theme.syntect.as_deref() else {
        return plain_hunk(hunk, theme);
    };
    let a = assets();
    let (Some(syntax), Some(st)) = (
        syntax_for(&a.syntaxes, path),
        a.themes.themes.get(theme_name),
    ) else {
        return plain_hunk(hunk, theme);
    };
    let mut h = HighlightLines::new(syntax, st);
    let mut out = Vec::new();
    for raw in hunk.lines() {
        if raw.starts_with("@@") {
            out.push(Line::styled(expand(raw), theme.diff_hunk_header));
            continue;
        }
        let mut chars = raw.chars();
        let marker = chars.next().unwrap_or(' ');
        let (marker, code) = if matches!(marker, '+' | '-' | ' ') {
            (marker, chars.as_str())
        } else {
            (' ', raw)
        };
        let base = diff_style(theme, marker);
        let code = expand(code);
        let mut spans = vec![Span::styled(marker.to_string(), base)];
        let line_nl = format!("{code}\n");
        match h.highlight_line(&line_nl, &a.syntaxes) {
            Ok(regions) => {
                for (s, text) in regions {
                    let text = text.trim_end_matches('\n');
                    if text.is_empty() {
                        continue;
                    }
                    let mut style = base.fg(convert(s.foreground));
                    if s.font_style.contains(FontStyle::BOLD) {
                        style = style.add_modifier(Modifier::BOLD);
                    }
                    if s.font_style.contains(FontStyle::ITALIC) {
                        style = style.add_modifier(Modifier::ITALIC);
                    }
                    spans.push(Span::styled(text.to_owned(), style));
                }
            }
            Err(_) => return plain_hunk(hunk, theme),
        }
        out.push(Line::from(spans));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_resolve() {
        assert_eq!(syntax_name("src/a.rs").as_deref(), Some("Rust"));
        assert_eq!(syntax_name("x/client.py").as_deref(), Some("Python"));
        assert_eq!(syntax_name("web/Badge.tsx").as_deref(), Some("JavaScript"));
        assert_eq!(syntax_name("notes.unknownext"), None);
    }

    #[test]
    fn rust_hunk_gets_syntax_colours_and_keeps_diff_background() {
        let theme = Theme::default_theme();
        let hunk = "@@ -1,2 +1,2 @@\n-fn old() {}\n+pub fn new() -> u32 { 42 }\n let x = 1;";
        let lines = highlight_hunk("src/a.rs", hunk, &theme);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].style, theme.diff_hunk_header);
        let added = &lines[2];
        assert_eq!(added.spans[0].content, "+");
        // More than one foreground colour across the code: it was highlighted.
        let fgs: std::collections::HashSet<_> =
            added.spans[1..].iter().filter_map(|s| s.style.fg).collect();
        assert!(fgs.len() > 1, "{added:?}");
        assert!(
            added
                .spans
                .iter()
                .all(|s| s.style.bg == theme.diff_added.bg)
        );
    }

    #[test]
    fn hostile_hunk_is_sanitized() {
        let theme = Theme::default_theme();
        let lines = highlight_hunk("a.rs", "+let s = \"\u{1b}[2J\u{202e}\";", &theme);
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
        assert!(text.contains('␛'));
    }

    #[test]
    fn no_syntect_theme_is_plain() {
        let lines = highlight_hunk("a.rs", "+x", &Theme::plain());
        assert_eq!(lines, plain_hunk("+x", &Theme::plain()));
    }
}
