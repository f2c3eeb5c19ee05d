//! A console screen as an SVG picture: the cells of a ratatui [`Buffer`] (the harness's
//! `TestBackend`, the very frame the console drew) as a dark terminal window, for the README's
//! screenshots (`UPDATE_SCREENSHOTS=1 cargo test --test suite project::screenshots` writes them).
//!
//! Pure and deterministic: the same buffer and title give the same bytes. Every cell sits on a
//! fixed grid ([`CELL_W`] × [`CELL_H`]); a run of cells in one style is one `<tspan>` whose
//! `textLength` is its cells' width, so a font with another advance still lands on the grid. A
//! symbol two cells wide takes two cells, and the cell it hides is skipped, as a terminal does.
//! Backgrounds are `<rect>`s, one per run of one colour. Text from the screen — a PR's title,
//! a comment — is data: XML-escaped, characters XML cannot carry shown as `�`, and drawn left
//! to right as the terminal does (bidi controls reorder nothing).

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

/// Width of one cell, in SVG pixels.
pub const CELL_W: u32 = 9;
/// Height of one cell (one row), in SVG pixels.
pub const CELL_H: u32 = 18;
/// The font size the text is set in; a monospace glyph at this size is about [`CELL_W`] wide.
const FONT_SIZE: u32 = 15;
/// From a row's top to the text's baseline.
const BASELINE: u32 = 14;
/// Space around the screen inside the window.
const PAD: u32 = 12;
/// The window's title bar.
const BAR_H: u32 = 30;

/// The terminal's own colours: what `Color::Reset` shows.
const DEFAULT_FG: &str = "#d0d0d0";
const DEFAULT_BG: &str = "#1c1f24";
const BAR_BG: &str = "#2b2f36";
const BAR_FG: &str = "#9da5b4";

const FONTS: &str = "ui-monospace, SFMono-Regular, 'DejaVu Sans Mono', Menlo, Consolas, \
                     'Liberation Mono', monospace";

/// The look of a run of text: its colours and the modifiers a picture can show.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Look {
    fg: String,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    strike: bool,
}

impl Look {
    /// The CSS of this look (the class body).
    fn css(&self) -> String {
        let mut css = format!("fill:{}", self.fg);
        if self.bold {
            css.push_str(";font-weight:bold");
        }
        if self.dim {
            css.push_str(";opacity:0.6");
        }
        if self.italic {
            css.push_str(";font-style:italic");
        }
        match (self.underline, self.strike) {
            (true, true) => css.push_str(";text-decoration:underline line-through"),
            (true, false) => css.push_str(";text-decoration:underline"),
            (false, true) => css.push_str(";text-decoration:line-through"),
            (false, false) => {}
        }
        css
    }

    /// Whether a run of blanks in this look draws anything (a line under or through it).
    fn marks_blanks(&self) -> bool {
        self.underline || self.strike
    }
}

/// One cell as drawn: where it starts, how many columns it takes, what it shows.
struct Drawn {
    x: u16,
    width: u16,
    text: String,
    look: Look,
    bg: Option<String>,
}

/// The screen in `buffer` as an SVG document, in a window titled `title`.
pub fn svg(buffer: &Buffer, title: &str) -> String {
    let area = buffer.area;
    let (cols, rows) = (u32::from(area.width), u32::from(area.height));
    let width = cols * CELL_W + 2 * PAD;
    let height = BAR_H + rows * CELL_H + 2 * PAD;
    let mut looks: Vec<Look> = Vec::new();
    let mut backgrounds = String::new();
    let mut texts = String::new();
    for row in 0..area.height {
        let cells = row_cells(buffer, row);
        let top = BAR_H + PAD + u32::from(row) * CELL_H;
        // Backgrounds: one rect per run of one colour (the terminal's own needs none).
        let mut i = 0;
        while i < cells.len() {
            let Some(bg) = cells[i].bg.clone() else {
                i += 1;
                continue;
            };
            let start = cells[i].x;
            let mut end = start + cells[i].width;
            i += 1;
            while i < cells.len() && cells[i].bg.as_ref() == Some(&bg) {
                end = cells[i].x + cells[i].width;
                i += 1;
            }
            let _ = writeln!(
                backgrounds,
                r#"<rect x="{}" y="{top}" width="{}" height="{CELL_H}" fill="{bg}"/>"#,
                PAD + u32::from(start) * CELL_W,
                u32::from(end - start) * CELL_W,
            );
        }
        // Text: one tspan per run of one look; blanks that draw nothing are left out.
        let mut spans = String::new();
        let mut i = 0;
        while i < cells.len() {
            let look = cells[i].look.clone();
            let start = cells[i].x;
            let mut end = start + cells[i].width;
            let mut text = cells[i].text.clone();
            i += 1;
            while i < cells.len() && cells[i].look == look {
                end = cells[i].x + cells[i].width;
                text.push_str(&cells[i].text);
                i += 1;
            }
            if text.trim().is_empty() && !look.marks_blanks() {
                continue;
            }
            let class = match looks.iter().position(|l| *l == look) {
                Some(n) => n,
                None => {
                    looks.push(look);
                    looks.len() - 1
                }
            };
            let _ = write!(
                spans,
                r#"<tspan x="{}" textLength="{}" class="s{class}">{}</tspan>"#,
                PAD + u32::from(start) * CELL_W,
                u32::from(end - start) * CELL_W,
                escape(&text),
            );
        }
        if !spans.is_empty() {
            let _ = writeln!(texts, r#"<text y="{}">{spans}</text>"#, top + BASELINE);
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{}">"#,
        escape(title)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        "<style>text{{font-family:{FONTS};font-size:{FONT_SIZE}px;white-space:pre;\
         direction:ltr;unicode-bidi:bidi-override}}"
    );
    for (n, look) in looks.iter().enumerate() {
        let _ = writeln!(out, ".s{n}{{{}}}", look.css());
    }
    out.push_str("</style>\n");
    let _ = writeln!(
        out,
        r#"<rect width="{width}" height="{height}" rx="8" fill="{DEFAULT_BG}"/>"#
    );
    let _ = writeln!(
        out,
        r#"<path d="M0 8a8 8 0 0 1 8-8h{}a8 8 0 0 1 8 8v{}h-{width}z" fill="{BAR_BG}"/>"#,
        width - 16,
        BAR_H - 8,
    );
    for (n, dot) in ["#ff5f57", "#febc2e", "#28c840"].iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<circle cx="{}" cy="{}" r="6" fill="{dot}"/>"#,
            PAD + 8 + n as u32 * 20,
            BAR_H / 2
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle" fill="{BAR_FG}" style="font-size:13px">{}</text>"#,
        width / 2,
        BAR_H / 2 + 5,
        escape(title)
    );
    out.push_str(&backgrounds);
    out.push_str(&texts);
    out.push_str("</svg>\n");
    out
}

/// The cells of one row as a terminal shows them: a symbol of width two takes two columns and
/// hides the next cell (whatever that cell still holds); an empty symbol is a blank.
fn row_cells(buffer: &Buffer, row: u16) -> Vec<Drawn> {
    let area = buffer.area;
    let mut out = Vec::new();
    let mut x = 0u16;
    while x < area.width {
        let Some(cell) = buffer.cell((area.x + x, area.y + row)) else {
            break;
        };
        let symbol = match cell.symbol() {
            "" => " ",
            s => s,
        };
        let width = (symbol.width().max(1) as u16).min(area.width - x);
        let m = cell.modifier;
        let (mut fg, mut bg) = (hex(cell.fg), hex(cell.bg));
        if m.contains(Modifier::REVERSED) {
            let fg_or = fg.clone().unwrap_or_else(|| DEFAULT_FG.to_owned());
            let bg_or = bg.clone().unwrap_or_else(|| DEFAULT_BG.to_owned());
            (fg, bg) = (Some(bg_or), Some(fg_or));
        }
        let fg = fg.unwrap_or_else(|| DEFAULT_FG.to_owned());
        let text = if m.contains(Modifier::HIDDEN) {
            " ".repeat(usize::from(width))
        } else {
            symbol.to_owned()
        };
        out.push(Drawn {
            x,
            width,
            text,
            look: Look {
                fg,
                bold: m.contains(Modifier::BOLD),
                dim: m.contains(Modifier::DIM),
                italic: m.contains(Modifier::ITALIC),
                underline: m.contains(Modifier::UNDERLINED),
                strike: m.contains(Modifier::CROSSED_OUT),
            },
            bg,
        });
        x += width;
    }
    out
}

/// A colour as `#rrggbb`; `None` for the terminal's own (`Reset`). Named and indexed colours
/// are xterm's palette.
fn hex(c: Color) -> Option<String> {
    const ANSI: [(u8, u8, u8); 16] = [
        (0x00, 0x00, 0x00),
        (0xcd, 0x00, 0x00),
        (0x00, 0xcd, 0x00),
        (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee),
        (0xcd, 0x00, 0xcd),
        (0x00, 0xcd, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f),
        (0xff, 0x00, 0x00),
        (0x00, 0xff, 0x00),
        (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff),
        (0xff, 0x00, 0xff),
        (0x00, 0xff, 0xff),
        (0xff, 0xff, 0xff),
    ];
    let indexed = |n: u8| -> (u8, u8, u8) {
        match n {
            0..=15 => ANSI[usize::from(n)],
            16..=231 => {
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                let n = n - 16;
                (level(n / 36), level(n / 6 % 6), level(n % 6))
            }
            _ => {
                let v = 8 + 10 * (n - 232);
                (v, v, v)
            }
        }
    };
    let (r, g, b) = match c {
        Color::Reset => return None,
        Color::Black => ANSI[0],
        Color::Red => ANSI[1],
        Color::Green => ANSI[2],
        Color::Yellow => ANSI[3],
        Color::Blue => ANSI[4],
        Color::Magenta => ANSI[5],
        Color::Cyan => ANSI[6],
        Color::Gray => ANSI[7],
        Color::DarkGray => ANSI[8],
        Color::LightRed => ANSI[9],
        Color::LightGreen => ANSI[10],
        Color::LightYellow => ANSI[11],
        Color::LightBlue => ANSI[12],
        Color::LightMagenta => ANSI[13],
        Color::LightCyan => ANSI[14],
        Color::White => ANSI[15],
        Color::Indexed(n) => indexed(n),
        Color::Rgb(r, g, b) => (r, g, b),
    };
    Some(format!("#{r:02x}{g:02x}{b:02x}"))
}

/// Text for XML: the five markup characters escaped, a tab a blank, and every other control
/// character (C0, DEL, C1: XML 1.0 cannot hold most of them) and U+FFFE, U+FFFF shown as U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push(' '),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn buffer(w: u16, h: u16) -> Buffer {
        Buffer::empty(Rect::new(0, 0, w, h))
    }

    /// The `<tspan>`s of the document: (x, textLength, class, text).
    fn spans(svg: &str) -> Vec<(u32, u32, String, String)> {
        svg.split("<tspan ")
            .skip(1)
            .map(|s| {
                let attr = |name: &str| {
                    let at = s.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                    s[at..at + s[at..].find('"').unwrap()].to_owned()
                };
                let text = &s[s.find('>').unwrap() + 1..s.find("</tspan>").unwrap()];
                (
                    attr("x").parse().unwrap(),
                    attr("textLength").parse().unwrap(),
                    attr("class"),
                    text.to_owned(),
                )
            })
            .collect()
    }

    /// Well-formed enough to be sure text cannot break out: every `<` opens a known element or
    /// closes one in order, every `&` is one of the five entities.
    fn assert_well_formed(svg: &str) {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(at) = rest.find(['<', '&']) {
            let tail = &rest[at..];
            if let Some(after) = tail.strip_prefix('&') {
                assert!(
                    ["amp;", "lt;", "gt;", "quot;", "apos;"]
                        .iter()
                        .any(|e| after.starts_with(e)),
                    "a bare & at {tail:.40}"
                );
                rest = after;
                continue;
            }
            let end = tail.find('>').expect("a closed tag");
            let tag = &tail[1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name), "{tag}");
            } else {
                let name = tag.split([' ', '/']).next().unwrap();
                assert!(
                    [
                        "svg", "title", "style", "rect", "path", "circle", "text", "tspan"
                    ]
                    .contains(&name),
                    "an unexpected element <{name}"
                );
                if !tag.ends_with('/') {
                    open.push(name);
                }
            }
            rest = &tail[end + 1..];
        }
        assert!(open.is_empty(), "unclosed {open:?}");
    }

    #[test]
    fn markup_in_the_screen_and_the_title_is_text() {
        let mut buf = buffer(40, 2);
        buf.set_string(0, 0, "</text><script>&x;\"'", Style::default());
        // A control character in a cell (no widget writes one: the sanitizer shows them) still
        // cannot make the document invalid.
        buf[(0, 1)].set_symbol("\u{1b}");
        buf[(1, 1)].set_symbol("\u{202e}");
        let svg = svg(&buf, "<PR> & \"title\"");
        assert_well_formed(&svg);
        assert!(!svg.contains("<script"), "{svg}");
        assert!(
            svg.contains("&lt;/text&gt;&lt;script&gt;&amp;x;&quot;&apos;"),
            "{svg}"
        );
        assert!(svg.contains("<title>&lt;PR&gt; &amp; &quot;title&quot;</title>"));
        assert!(svg.contains('\u{FFFD}') && !svg.contains('\u{1b}'));
        assert!(svg.contains("unicode-bidi:bidi-override"));
    }

    #[test]
    fn a_wide_character_takes_two_cells_and_hides_the_next() {
        let mut buf = buffer(6, 1);
        buf.set_string(0, 0, "界ab", Style::default().fg(Color::Red));
        // What a TestBackend may still hold in the hidden cell is not drawn.
        buf[(1, 0)].set_symbol("X");
        let wide = spans(&svg(&buf, "wide"));
        assert_eq!(wide.len(), 1, "{wide:?}");
        let (x, len, _, text) = &wide[0];
        assert_eq!(
            (*x, *len),
            (PAD, 4 * CELL_W),
            "界 is two cells, a and b one each"
        );
        assert_eq!(text, "界ab");
        // A wide character at the last column is cut to the screen.
        let mut buf = buffer(3, 1);
        buf[(2, 0)].set_symbol("界").set_fg(Color::Red);
        let edge = spans(&svg(&buf, "edge"));
        assert_eq!((edge[0].0, edge[0].1), (PAD + 2 * CELL_W, CELL_W));
    }

    #[test]
    fn a_run_of_one_style_is_one_span_and_blanks_draw_nothing() {
        let mut buf = buffer(20, 1);
        let bold_red = Style::default().fg(Color::Red).add_modifier(Modifier::BOLD);
        buf.set_string(0, 0, "ab", bold_red);
        buf.set_string(2, 0, "cd", Style::default());
        buf.set_string(8, 0, "ef", bold_red.bg(Color::Rgb(1, 2, 3)));
        buf.set_string(12, 0, "  ", Style::default().bg(Color::Rgb(1, 2, 3)));
        let svg = svg(&buf, "runs");
        let runs = spans(&svg);
        let texts: Vec<&str> = runs.iter().map(|s| s.3.as_str()).collect();
        // "cd" and the blanks after it up to "ef" are one run; "ef" shares the class of "ab".
        assert_eq!(texts, ["ab", "cd    ", "ef"], "{runs:?}");
        assert_eq!(runs[0].2, runs[2].2);
        assert_ne!(runs[0].2, runs[1].2);
        assert!(svg.contains(".s0{fill:#cd0000;font-weight:bold}"), "{svg}");
        assert!(svg.contains(&format!(".s1{{fill:{DEFAULT_FG}}}")), "{svg}");
        // The background: one rect for "ef", one for the two blanks (a plain cell between them).
        let rects: Vec<&str> = svg.matches("fill=\"#010203\"").collect();
        assert_eq!(rects.len(), 2, "{svg}");
        assert!(svg.contains(&format!(
            r##"<rect x="{}" y="{}" width="{}" height="{CELL_H}" fill="#010203"/>"##,
            PAD + 8 * CELL_W,
            BAR_H + PAD,
            2 * CELL_W
        )));
    }

    #[test]
    fn colours_and_modifiers_map_as_a_terminal_shows_them() {
        assert_eq!(hex(Color::Reset), None);
        assert_eq!(hex(Color::Rgb(0x5f, 0xaf, 0xff)).unwrap(), "#5fafff");
        assert_eq!(hex(Color::Indexed(1)).unwrap(), "#cd0000");
        assert_eq!(hex(Color::Indexed(16)).unwrap(), "#000000");
        assert_eq!(hex(Color::Indexed(75)).unwrap(), "#5fafff");
        assert_eq!(hex(Color::Indexed(231)).unwrap(), "#ffffff");
        assert_eq!(hex(Color::Indexed(232)).unwrap(), "#080808");
        assert_eq!(hex(Color::Indexed(255)).unwrap(), "#eeeeee");
        let mut buf = buffer(10, 1);
        let all = Modifier::ITALIC | Modifier::UNDERLINED | Modifier::DIM;
        buf.set_string(0, 0, "i", Style::default().add_modifier(all));
        buf.set_string(1, 0, "r", Style::default().add_modifier(Modifier::REVERSED));
        buf.set_string(2, 0, "h", Style::default().add_modifier(Modifier::HIDDEN));
        let svg = svg(&buf, "looks");
        assert!(
            svg.contains("opacity:0.6;font-style:italic;text-decoration:underline"),
            "{svg}"
        );
        // Reversed: the terminal's background as the text, its text colour behind it.
        assert!(svg.contains(&format!("fill:{DEFAULT_BG}}}")), "{svg}");
        assert!(svg.contains(&format!("fill=\"{DEFAULT_FG}\"")), "{svg}");
        assert!(!spans(&svg).iter().any(|s| s.3.contains('h')), "hidden");
    }

    #[test]
    fn the_same_screen_gives_the_same_picture() {
        let mut buf = buffer(30, 3);
        buf.set_string(1, 1, "same", Style::default().fg(Color::Green));
        let a = svg(&buf, "one");
        assert_eq!(a, svg(&buf.clone(), "one"));
        assert_ne!(a, svg(&buf, "two"));
        assert!(a.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve""#));
        let (w, h) = (30 * CELL_W + 2 * PAD, BAR_H + 3 * CELL_H + 2 * PAD);
        assert!(a.contains(&format!("viewBox=\"0 0 {w} {h}\"")), "{a}");
    }
}
