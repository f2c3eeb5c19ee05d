//! The inbox as a table: which columns fit a width (the title shrinks first, then columns go,
//! least needed first), the header, and one row's cells styled. Pure: the column data is
//! `inbox::columns`; drawing is `draw.rs`, which calls [`header_line`] and [`row_line`].

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::inbox::columns::{Column, cell};
use crate::inbox::{Counts, GateReview, Row, ShepherdState};
use crate::pr::{CheckState, ReviewDecision, ReviewRequested};
use crate::tui::theme::Theme;

/// The title never shrinks below this; past it, columns are dropped.
pub const TITLE_MIN: u16 = 16;
/// The selection marker before each row.
const MARKER: u16 = 2;

/// Columns dropped when the width is short, first dropped first; the PR and the title stay.
const DROP_ORDER: &[Column] = &[
    Column::Labels,
    Column::Size,
    Column::Shepherd,
    Column::Updated,
    Column::Author,
    Column::Gate,
    Column::Requested,
    Column::Review,
    Column::Unseen,
    Column::Checks,
];

/// The header's word.
pub fn header(col: Column) -> &'static str {
    match col {
        Column::Pr => "PR",
        Column::Unseen => "unseen",
        Column::Title => "title",
        Column::Checks => "checks",
        Column::Review => "review",
        Column::Requested => "asks",
        Column::Size => "size",
        Column::Updated => "age",
        Column::Shepherd => "shepherd",
        Column::Gate => "gate",
        Column::Author => "author",
        Column::Labels => "labels",
    }
}

/// The most a fixed column takes, whatever its cells.
fn cap(col: Column) -> u16 {
    match col {
        Column::Pr => 26,
        Column::Unseen => 10,
        Column::Checks => 12,
        Column::Review => 8,
        Column::Requested => 4,
        Column::Size => 14,
        Column::Updated => 4,
        Column::Shepherd => 8,
        Column::Gate => 11,
        Column::Author => 18,
        Column::Labels => 16,
        Column::Title => u16::MAX,
    }
}

/// A column's width over `rows`: its widest cell or header, within its cap.
fn natural(col: Column, rows: &[&Row], now: i64) -> u16 {
    let widest = rows
        .iter()
        .map(|r| cell(r, col, now).width())
        .max()
        .unwrap_or(0)
        .max(header(col).width());
    u16::try_from(widest).unwrap_or(u16::MAX).min(cap(col))
}

/// The columns shown at `width` and each one's width: every configured column at its natural
/// width and the title the rest; when that leaves the title less than [`TITLE_MIN`], columns
/// go in [`DROP_ORDER`] until it has it (or only the PR and the title are left).
pub fn choose(cols: &[Column], rows: &[&Row], width: u16, now: i64) -> Vec<(Column, u16)> {
    let mut shown: Vec<(Column, u16)> = cols
        .iter()
        .map(|&c| {
            (
                c,
                if c == Column::Title {
                    0
                } else {
                    natural(c, rows, now)
                },
            )
        })
        .collect();
    let fixed = |shown: &[(Column, u16)]| -> u16 {
        shown
            .iter()
            .filter(|(c, _)| *c != Column::Title)
            .map(|(_, w)| w.saturating_add(1))
            .fold(MARKER, u16::saturating_add)
    };
    for drop in DROP_ORDER {
        if width.saturating_sub(fixed(&shown)) >= TITLE_MIN {
            break;
        }
        shown.retain(|(c, _)| c != drop);
    }
    let rest = width.saturating_sub(fixed(&shown));
    for (c, w) in &mut shown {
        if *c == Column::Title {
            *w = rest;
        }
    }
    shown
}

/// `text` cut or padded to exactly `w` cells (a cut ends in `…`).
fn pad(text: &str, w: u16) -> String {
    let w = usize::from(w);
    let mut out = String::new();
    let mut used = 0;
    if text.width() <= w {
        out.push_str(text);
        used = text.width();
    } else if w > 0 {
        for ch in text.chars() {
            let cw = ch.width().unwrap_or(0);
            if used + cw > w - 1 {
                break;
            }
            out.push(ch);
            used += cw;
        }
        out.push('…');
        used += 1;
    }
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(used)));
    out
}

/// The header line over the rows.
pub fn header_line(shown: &[(Column, u16)], theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::raw(pad("", MARKER))];
    for (c, w) in shown {
        spans.push(Span::styled(pad(header(*c), *w), theme.header));
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

/// The style of a row's cell.
fn style(r: &Row, col: Column, selected: bool, theme: &Theme) -> Style {
    let l = &r.listed;
    match col {
        Column::Pr => theme.location,
        Column::Title if selected => theme.selection,
        Column::Title => theme.text,
        Column::Unseen => match &r.items {
            Counts::Counted { new, .. } if *new > 0 => theme.badge_new,
            Counts::Counted { edited, .. } if *edited > 0 => theme.badge_edited,
            Counts::Counted { .. } => theme.seen,
            Counts::Loading => theme.dim,
            Counts::Failed(_) => theme.badge_edited,
        },
        Column::Checks => match l.dash.summary().and_then(|s| s.overall()) {
            Some(CheckState::Failing) => theme.state_changes_requested,
            Some(CheckState::Pending) => theme.badge_edited,
            Some(CheckState::Passing) => theme.state_approved,
            _ => theme.dim,
        },
        Column::Review => match l.dash.review_decision {
            Some(ReviewDecision::Approved) => theme.state_approved,
            Some(ReviewDecision::ChangesRequested) => theme.state_changes_requested,
            _ => theme.dim,
        },
        Column::Requested => match l.requested {
            ReviewRequested::You => theme.badge_new,
            ReviewRequested::Team => theme.badge_edited,
            ReviewRequested::None => theme.dim,
        },
        Column::Shepherd => match r.shepherd.state {
            ShepherdState::Current => theme.state_approved,
            ShepherdState::Stale => theme.state_changes_requested,
            _ => theme.dim,
        },
        Column::Gate => match r.gate.review {
            GateReview::Allowed => theme.state_commented,
            GateReview::NeedsLabel => theme.badge_edited,
            GateReview::Paused => theme.badge_outdated,
            GateReview::Refused => theme.badge_minimized,
        },
        Column::Author => theme.author,
        Column::Size | Column::Updated | Column::Labels => theme.dim,
    }
}

/// One row: the marker (`▶` selected, `↩` the PR left open behind), then its cells. `progress`
/// (a review running behind) and the files changed since your last look go before the title,
/// in brackets.
pub fn row_line(
    r: &Row,
    shown: &[(Column, u16)],
    selected: bool,
    open: bool,
    progress: Option<&str>,
    now: i64,
    theme: &Theme,
) -> Line<'static> {
    let marker = if selected {
        "▶ "
    } else if open {
        "↩ "
    } else {
        "  "
    };
    let mut spans = vec![Span::styled(marker, theme.key)];
    // Known only where the PR's patches were read (offline; live once the PR was opened).
    let files = r
        .files_changed
        .filter(|n| *n > 0)
        .map(|n| format!("{n} file{} changed", if n == 1 { "" } else { "s" }));
    let before_title: Vec<String> = progress
        .map(crate::sanitize::one_line)
        .into_iter()
        .chain(files)
        .collect();
    for &(c, w) in shown {
        if c == Column::Title && !before_title.is_empty() {
            // What runs behind goes before the title, which is cut to make room.
            let p = format!("[{}] ", before_title.join(" · "));
            let pw = u16::try_from(p.width()).unwrap_or(u16::MAX).min(w);
            spans.push(Span::styled(pad(&p, pw), theme.notice));
            spans.push(Span::styled(
                pad(&cell(r, c, now), w - pw),
                style(r, c, selected, theme),
            ));
            spans.push(Span::raw(" "));
            continue;
        }
        spans.push(Span::styled(
            pad(&cell(r, c, now), w),
            style(r, c, selected, theme),
        ));
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::columns::ALL;

    #[test]
    fn padding_cuts_with_an_ellipsis_and_fills_to_the_width() {
        assert_eq!(pad("abc", 5), "abc  ");
        assert_eq!(pad("abcdef", 4), "abc…");
        assert_eq!(pad("✗1 ✓2", 6), "✗1 ✓2 ");
        assert_eq!(pad("x", 0), "");
    }

    #[test]
    fn a_narrow_width_drops_columns_least_needed_first_and_keeps_pr_and_title() {
        let wide = choose(ALL, &[], 400, 0);
        assert_eq!(wide.len(), ALL.len());
        let narrow = choose(ALL, &[], 60, 0);
        let cols: Vec<Column> = narrow.iter().map(|(c, _)| *c).collect();
        assert!(cols.contains(&Column::Pr) && cols.contains(&Column::Title));
        assert!(!cols.contains(&Column::Labels));
        let total: u16 = narrow.iter().map(|(_, w)| w + 1).sum::<u16>() + MARKER;
        assert!(total <= 61, "{narrow:?}");
        let tiny = choose(ALL, &[], 10, 0);
        assert_eq!(tiny.len(), 2);
    }
}
