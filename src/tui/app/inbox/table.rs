//! The inbox as a table: which columns fit a width (the title keeps at least half the row;
//! columns go, least needed first, until it has it), the header, and one row's cells styled. Pure: the column data is
//! `inbox::columns`; drawing is `draw.rs`, which calls [`header_line`] and [`row_line`].

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::inbox::columns::{Column, cell};
use crate::inbox::{Counts, GateReview, Row, ShepherdState};
use crate::pr::{CheckState, ReviewDecision, ReviewRequested};
use crate::tui::theme::Theme;

/// The title never shrinks below this, nor below half the row; past it, columns are dropped.
pub const TITLE_MIN: u16 = 16;
/// The selection marker before each row.
const MARKER: u16 = 2;
/// The most the tags column takes (`[review 3/6 …] · 2 files changed`).
const TAGS_CAP: u16 = 34;
/// The tags column's header word.
pub const TAGS_HEADER: &str = "tags";

/// What goes when the width is short, first dropped first (`None`: the tags column, whose tags
/// then go before the title); the PR and the title stay.
const DROP_ORDER: &[Option<Column>] = &[
    Some(Column::Labels),
    Some(Column::Size),
    Some(Column::Updated),
    Some(Column::Author),
    None,
    Some(Column::Gate),
    Some(Column::Requested),
    Some(Column::Shepherd),
    Some(Column::Review),
    Some(Column::Unseen),
    Some(Column::Checks),
];

/// The columns shown and their widths, and the tags column's width (0: not shown, the tags go
/// before the title).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub shown: Vec<(Column, u16)>,
    pub tags: u16,
}

/// A row's tags: a review running behind (`progress`) and the files changed since your last
/// look, each once.
pub fn tags(r: &Row, progress: Option<&str>) -> Vec<String> {
    // Known only where the PR's patches were read (offline; live once the PR was opened).
    let files = r
        .files_changed
        .filter(|n| *n > 0)
        .map(|n| format!("{n} file{} changed", if n == 1 { "" } else { "s" }));
    let armed = r
        .listed
        .dash
        .auto_merge
        .as_ref()
        .map(|m| format!("auto-merge armed ({})", crate::sanitize::one_line(m)));
    let queued = r
        .listed
        .dash
        .queued
        .then(|| "in the merge queue".to_owned());
    progress
        .map(crate::sanitize::one_line)
        .into_iter()
        .chain(armed)
        .chain(queued)
        .chain(files)
        .collect()
}

/// The tags as one cell: `[review 2/6] · 1 file changed`.
fn tags_cell(tags: &[String]) -> String {
    if tags.is_empty() {
        String::new()
    } else {
        format!("[{}]", tags.join(" · "))
    }
}

/// The width the tags column wants for these tag lists (0 when no row has a tag).
pub fn tags_width<'a>(rows: impl IntoIterator<Item = &'a [String]>) -> u16 {
    let widest = rows
        .into_iter()
        .map(|t| tags_cell(t).width())
        .max()
        .unwrap_or(0);
    if widest == 0 {
        0
    } else {
        u16::try_from(widest.max(TAGS_HEADER.width()))
            .unwrap_or(u16::MAX)
            .min(TAGS_CAP)
    }
}

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
        Column::Unseen => 16,
        Column::Checks => 12,
        Column::Review => 8,
        Column::Requested => 4,
        Column::Size => 14,
        Column::Updated => 4,
        Column::Shepherd => 8,
        Column::Gate => 11,
        Column::Author => 24,
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
/// width, the tags column (`tags` wide, 0 for none) after the title, and the title the rest;
/// when that leaves the title less than half the row (or than its widest cell, when that is
/// less; never less than [`TITLE_MIN`]), columns go in [`DROP_ORDER`] until it has it (or only
/// the PR and the title are left).
pub fn choose(cols: &[Column], rows: &[&Row], width: u16, now: i64, tags: u16) -> Layout {
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
    let mut tags = tags;
    let fixed = |shown: &[(Column, u16)], tags: u16| -> u16 {
        let tags = if tags == 0 { 0 } else { tags.saturating_add(1) };
        shown
            .iter()
            .filter(|(c, _)| *c != Column::Title)
            .map(|(_, w)| w.saturating_add(1))
            .fold(MARKER.saturating_add(tags), u16::saturating_add)
    };
    let title_min = title_floor(width, natural(Column::Title, rows, now));
    for drop in DROP_ORDER {
        if width.saturating_sub(fixed(&shown, tags)) >= title_min {
            break;
        }
        match drop {
            Some(drop) => shown.retain(|(c, _)| c != drop),
            None => tags = 0,
        }
    }
    let rest = width.saturating_sub(fixed(&shown, tags));
    for (c, w) in &mut shown {
        if *c == Column::Title {
            *w = rest;
        }
    }
    if !shown.iter().any(|(c, _)| *c == Column::Title) {
        tags = 0;
    }
    Layout { shown, tags }
}

/// The least the title keeps at `width` when its widest cell is `widest`: half the row, or less
/// when every title on screen is shorter (no column goes for room the titles would not use),
/// never less than [`TITLE_MIN`].
fn title_floor(width: u16, widest: u16) -> u16 {
    TITLE_MIN.max((width / 2).min(widest))
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
pub fn header_line(layout: &Layout, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::raw(pad("", MARKER))];
    for (c, w) in &layout.shown {
        spans.push(Span::styled(pad(header(*c), *w), theme.header));
        spans.push(Span::raw(" "));
        if *c == Column::Title && layout.tags > 0 {
            spans.push(Span::styled(pad(TAGS_HEADER, layout.tags), theme.header));
            spans.push(Span::raw(" "));
        }
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

/// One row: the marker (`▶` selected, `●` marked, `↩` the PR left open behind), then its cells. Its `tags`
/// (a review running behind, the files changed since your last look) have their own column
/// after the title; where the width left none, they go before the title, which is cut for them.
/// How a row stands in the inbox: selected, the PR left open behind, marked for a decision.
#[derive(Debug, Clone, Copy, Default)]
pub struct RowMark {
    pub selected: bool,
    pub open: bool,
    pub marked: bool,
}

pub fn row_line(
    r: &Row,
    layout: &Layout,
    mark: RowMark,
    tags: &[String],
    now: i64,
    theme: &Theme,
) -> Line<'static> {
    let RowMark {
        selected,
        open,
        marked,
    } = mark;
    let marker = match (selected, marked) {
        (true, true) => "▶●",
        (true, false) => "▶ ",
        (false, true) => " ●",
        (false, false) if open => "↩ ",
        (false, false) => "  ",
    };
    let mut spans = vec![Span::styled(marker, theme.key)];
    let tag_text = tags_cell(tags);
    for &(c, w) in &layout.shown {
        if c == Column::Title && layout.tags == 0 && !tag_text.is_empty() {
            let p = format!("{tag_text} ");
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
        if c == Column::Title && layout.tags > 0 {
            spans.push(Span::styled(pad(&tag_text, layout.tags), theme.notice));
            spans.push(Span::raw(" "));
        }
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
        let wide = choose(ALL, &[], 400, 0, 0).shown;
        assert_eq!(wide.len(), ALL.len());
        let narrow = choose(ALL, &[], 60, 0, 0).shown;
        let cols: Vec<Column> = narrow.iter().map(|(c, _)| *c).collect();
        assert!(cols.contains(&Column::Pr) && cols.contains(&Column::Title));
        assert!(!cols.contains(&Column::Labels));
        let total: u16 = narrow.iter().map(|(_, w)| w + 1).sum::<u16>() + MARKER;
        assert!(total <= 61, "{narrow:?}");
        let tiny = choose(ALL, &[], 10, 0, 0).shown;
        assert_eq!(tiny.len(), 2);
    }

    #[test]
    fn the_title_keeps_at_least_half_the_row_and_the_tags_their_own_column() {
        // Half the row, unless every title is shorter; never less than the minimum.
        assert_eq!(title_floor(120, 98), 60);
        assert_eq!(title_floor(200, 98), 98);
        assert_eq!(title_floor(80, 5), TITLE_MIN);
        for width in [80u16, 120, 160, 200] {
            let layout = choose(ALL, &[], width, 0, 20);
            let total: u16 = layout.shown.iter().map(|(_, w)| w + 1).sum::<u16>()
                + MARKER
                + if layout.tags > 0 { layout.tags + 1 } else { 0 };
            assert!(total <= width + 1, "{width}: {layout:?}");
        }
        // Wide enough, the tags have their own column; too narrow, they go before the title.
        assert_eq!(choose(ALL, &[], 200, 0, 20).tags, 20);
        assert_eq!(choose(ALL, &[], 40, 0, 20).tags, 0);
    }

    #[test]
    fn a_row_armed_for_auto_merge_or_in_the_merge_queue_says_so() {
        let pr: crate::pr::PrMeta = serde_json::from_value(serde_json::json!({
            "owner": "acme", "repo": "rivet", "number": 7, "title": "t",
            "author": {"login": "a", "association": "MEMBER"},
            "baseRef": "main", "headRef": "b", "baseSha": "1", "headSha": "2", "url": "u",
        }))
        .unwrap();
        let mut listed =
            crate::inbox::Listed::from_meta(&pr, None, crate::inbox::Opener::Live(pr.coords()));
        let row = |l: &crate::inbox::Listed| {
            crate::inbox::pending_row(l.clone(), &pr, &crate::policy::GateConfig::default())
        };
        assert!(tags(&row(&listed), None).is_empty());
        listed.dash.auto_merge = Some("squash".into());
        listed.dash.queued = true;
        assert_eq!(
            tags(&row(&listed), None),
            vec![
                "auto-merge armed (squash)".to_owned(),
                "in the merge queue".to_owned()
            ]
        );
    }
}
