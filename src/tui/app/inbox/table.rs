//! The inbox as a table: which columns fit a width (the PR, unseen, checks and review columns
//! stay while the title keeps [`TITLE_MIN`]; the others show, most needed first, where the
//! title keeps half the row), the header, and one row's cells styled, every line exactly the
//! width. Pure: the column data is `inbox::columns`; drawing is `draw.rs`, which calls
//! [`header_line`] and [`row_line`].

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::inbox::columns::{Column, cell};
use crate::inbox::{Counts, GateReview, Row, ShepherdState};
use crate::pr::{CheckState, PrCoords, ReviewDecision, ReviewRequested};
use crate::tui::theme::Theme;

/// The least the title keeps: below it the PR, unseen, checks and review columns go too.
pub const TITLE_MIN: u16 = 16;
/// The selection marker before each row.
const MARKER: u16 = 2;
/// The most the tags column takes (`[review 3/6 …] · 2 files changed`).
const TAGS_CAP: u16 = 34;
/// The tags column's header word.
pub const TAGS_HEADER: &str = "tags";

/// The columns beyond the PR, unseen, title, checks and review, least needed first (`None`: the
/// tags column; without it the tags go before the title): each shows only where the title
/// keeps half the row.
const DROP_ORDER: &[Option<Column>] = &[
    Some(Column::Labels),
    Some(Column::Size),
    Some(Column::Updated),
    Some(Column::Author),
    None,
    Some(Column::Gate),
    Some(Column::Requested),
    Some(Column::Shepherd),
];

/// What goes only when the title would have less than [`TITLE_MIN`], first dropped first: the
/// unseen counts first (the attention order already puts the PRs with unseen items on top),
/// the checks last. The PR and the title always stay.
const CORE_DROP_ORDER: &[Column] = &[Column::Unseen, Column::Review, Column::Checks];

/// The columns shown and their widths, the tags column's width (0: not shown, the tags go
/// before the title), and how the PR column names a PR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub shown: Vec<(Column, u16)>,
    pub tags: u16,
    /// Every row is of one repository (named once, on the table's frame or by its tab): the PR
    /// column says `#N`, not `owner/repo#N`.
    pub one_repo: bool,
}

/// The repository every row is of (`owner/repo`), when there are rows and they are all of one
/// (the same host, owner and repository).
pub fn one_repo(rows: &[Row]) -> Option<String> {
    let first = &rows.first()?.listed.coords;
    let same =
        |c: &PrCoords| c.host == first.host && c.owner == first.owner && c.repo == first.repo;
    rows.iter()
        .all(|r| same(&r.listed.coords))
        .then(|| crate::sanitize::one_line(&format!("{}/{}", first.owner, first.repo)))
}

/// A row's cell text in `col`, `w` cells wide: the PR by number alone in a one-repository
/// table, the checks shortened to fit (their failing count kept), else the column's cell.
fn cell_text(r: &Row, col: Column, w: u16, now: i64, one_repo: bool) -> String {
    match col {
        Column::Pr if one_repo => format!("#{}", r.listed.coords.number),
        Column::Checks => r
            .listed
            .dash
            .summary()
            .map(|s| s.cell_within(usize::from(w)))
            .unwrap_or_default(),
        _ => cell(r, col, now),
    }
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

/// The most a fixed column takes, whatever its cells (the checks: room for any failing count,
/// `✗` and a `u32`'s ten digits, which a shortened cell always keeps).
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

/// A column's width over `rows`: its widest cell (whole) or header, within its cap.
fn natural(col: Column, rows: &[&Row], now: i64, one_repo: bool) -> u16 {
    let widest = rows
        .iter()
        .map(|r| cell_text(r, col, u16::MAX, now, one_repo).width())
        .max()
        .unwrap_or(0)
        .max(header(col).width());
    u16::try_from(widest).unwrap_or(u16::MAX).min(cap(col))
}

/// The columns shown at `width` and each one's width: the configured columns at their natural
/// widths, the tags column (`tags` wide, 0 for none) after the title, and the title the rest,
/// each column followed by a blank, so a line is exactly `width` (the last blank keeps the last
/// cell off the border). The PR, unseen, checks and review columns stay, the title cut for
/// them, while it keeps [`TITLE_MIN`] (past it they go in [`CORE_DROP_ORDER`]); of the others,
/// most needed first ([`DROP_ORDER`] from its end), each one shows that still leaves the title
/// half the row (or its widest cell, when that is less; never less than [`TITLE_MIN`]).
/// `one_repo`: every row is of one repository, the PR column says `#N`.
pub fn choose(
    cols: &[Column],
    rows: &[&Row],
    width: u16,
    now: i64,
    tags: u16,
    one_repo: bool,
) -> Layout {
    let optional = |c: Column| DROP_ORDER.contains(&Some(c));
    let all: Vec<(Column, u16)> = cols
        .iter()
        .map(|&c| {
            (
                c,
                if c == Column::Title {
                    0
                } else {
                    natural(c, rows, now, one_repo)
                },
            )
        })
        .collect();
    // The cells left for the title's text: all but the marker, the other columns and the tags
    // with their blanks, and the title's own blank.
    let room = |shown: &[(Column, u16)], tags: u16| -> u16 {
        let tags = if tags == 0 { 0 } else { tags.saturating_add(1) };
        let fixed = shown
            .iter()
            .filter(|(c, _)| *c != Column::Title)
            .map(|(_, w)| w.saturating_add(1))
            .fold(MARKER.saturating_add(tags), u16::saturating_add);
        width.saturating_sub(fixed).saturating_sub(1)
    };
    let mut shown: Vec<(Column, u16)> =
        all.iter().copied().filter(|(c, _)| !optional(*c)).collect();
    for drop in CORE_DROP_ORDER {
        if room(&shown, 0) >= TITLE_MIN {
            break;
        }
        shown.retain(|(c, _)| c != drop);
    }
    let half = title_floor(width, natural(Column::Title, rows, now, one_repo));
    let mut with_tags = 0;
    for extra in DROP_ORDER.iter().rev() {
        match extra {
            Some(extra) => {
                let more: Vec<(Column, u16)> = all
                    .iter()
                    .copied()
                    .filter(|(c, _)| c == extra || shown.iter().any(|(s, _)| s == c))
                    .collect();
                if more.len() > shown.len() && room(&more, with_tags) >= half {
                    shown = more;
                }
            }
            None => {
                if tags > 0 && room(&shown, tags) >= half {
                    with_tags = tags;
                }
            }
        }
    }
    let rest = room(&shown, with_tags);
    for (c, w) in &mut shown {
        if *c == Column::Title {
            *w = rest;
        }
    }
    if !shown.iter().any(|(c, _)| *c == Column::Title) {
        with_tags = 0;
    }
    Layout {
        shown,
        tags: with_tags,
        one_repo,
    }
}

/// The least the title keeps at `width` when its widest cell is `widest`: half the row, or less
/// when every title on screen is shorter (no column goes for room the titles would not use),
/// never less than [`TITLE_MIN`].
fn title_floor(width: u16, widest: u16) -> u16 {
    TITLE_MIN.max((width / 2).min(widest))
}

/// `text` cut or padded to exactly `w` display cells. A cut ends in `…` after the last whole
/// character that fits (a wide one that would straddle the edge goes whole, a combining mark
/// stays with its letter), blanks before the `…` trimmed.
fn pad(text: &str, w: u16) -> String {
    let w = usize::from(w);
    let mut out = if text.width() <= w {
        text.to_owned()
    } else if w == 0 {
        String::new()
    } else {
        let mut cut = String::new();
        let mut used = 0;
        for ch in text.chars() {
            let cw = ch.width().unwrap_or(0);
            if used + cw > w - 1 {
                break;
            }
            cut.push(ch);
            used += cw;
        }
        // Measured as the line is: a sequence can be wider than its characters one by one.
        while cut.width() > w - 1 {
            cut.pop();
        }
        let mut cut = cut.trim_end().to_owned();
        cut.push('…');
        cut
    };
    let used = out.width();
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
                pad(&cell(r, c, now), w.saturating_sub(pw)),
                style(r, c, selected, theme),
            ));
            spans.push(Span::raw(" "));
            continue;
        }
        spans.push(Span::styled(
            pad(&cell_text(r, c, w, now, layout.one_repo), w),
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
        // Display cells: a wide character that would straddle the edge goes whole.
        assert_eq!(pad("漢字漢字", 6), "漢字… ");
        assert_eq!(pad("a漢字漢字", 6), "a漢字…");
        assert_eq!(pad("🦀🦀🦀", 4), "🦀… ");
        // A combining mark stays with its letter; blanks before the `…` go.
        assert_eq!(pad("e\u{301}e\u{301}xyz", 3), "e\u{301}e\u{301}…");
        assert_eq!(pad("ab cd", 4), "ab… ");
    }

    #[test]
    fn the_checks_column_holds_any_failing_count_and_one_repository_is_one_host_owner_and_repo() {
        let worst = crate::pr::ChecksSummary {
            failing: u32::MAX,
            pending: u32::MAX,
            passing: u32::MAX,
            neutral: 0,
        };
        let kept = worst.cell_within(usize::from(cap(Column::Checks)));
        assert_eq!(kept, format!("✗{}", u32::MAX));
        assert!(kept.width() <= usize::from(cap(Column::Checks)));

        let pr = |host: Option<&str>, owner: &str, number: u64| {
            let meta: crate::pr::PrMeta = serde_json::from_value(serde_json::json!({
                "owner": owner, "repo": "rivet", "number": number, "title": "t",
                "author": {"login": "a", "association": "MEMBER"},
                "baseRef": "main", "headRef": "b", "baseSha": "1", "headSha": "2", "url": "u",
            }))
            .unwrap();
            let mut coords = meta.coords();
            coords.host = host.map(str::to_owned);
            let listed = crate::inbox::Listed::from_meta(
                &meta,
                None,
                crate::inbox::Opener::Live(coords.clone()),
            );
            let mut row =
                crate::inbox::pending_row(listed, &meta, &crate::policy::GateConfig::default());
            row.listed.coords = coords;
            row
        };
        assert_eq!(one_repo(&[]), None);
        let same = [pr(None, "acme", 1), pr(None, "acme", 2)];
        assert_eq!(one_repo(&same), Some("acme/rivet".to_owned()));
        assert_eq!(
            one_repo(&[pr(None, "acme", 1), pr(None, "umbrella", 2)]),
            None
        );
        let hosts = [pr(None, "acme", 1), pr(Some("ghe.example.com"), "acme", 2)];
        assert_eq!(one_repo(&hosts), None, "the same name on another host");
    }

    #[test]
    fn a_narrow_width_drops_columns_least_needed_first_and_keeps_pr_and_title() {
        let wide = choose(ALL, &[], 400, 0, 0, false).shown;
        assert_eq!(wide.len(), ALL.len());
        let narrow = choose(ALL, &[], 60, 0, 0, false).shown;
        let cols: Vec<Column> = narrow.iter().map(|(c, _)| *c).collect();
        assert!(cols.contains(&Column::Pr) && cols.contains(&Column::Title));
        assert!(!cols.contains(&Column::Labels));
        let total: u16 = narrow.iter().map(|(_, w)| w + 1).sum::<u16>() + MARKER;
        assert_eq!(total, 60, "{narrow:?}");
        let tiny = choose(ALL, &[], 10, 0, 0, false).shown;
        assert_eq!(tiny.len(), 2);
    }

    #[test]
    fn the_title_keeps_at_least_half_the_row_and_the_tags_their_own_column() {
        // Half the row, unless every title is shorter; never less than the minimum.
        assert_eq!(title_floor(120, 98), 60);
        assert_eq!(title_floor(200, 98), 98);
        assert_eq!(title_floor(80, 5), TITLE_MIN);
        for width in [80u16, 120, 160, 200] {
            let layout = choose(ALL, &[], width, 0, 20, false);
            let total: u16 = layout.shown.iter().map(|(_, w)| w + 1).sum::<u16>()
                + MARKER
                + if layout.tags > 0 { layout.tags + 1 } else { 0 };
            assert_eq!(total, width, "{width}: {layout:?}");
        }
        // Wide enough, the tags have their own column; too narrow, they go before the title.
        assert_eq!(choose(ALL, &[], 200, 0, 20, false).tags, 20);
        assert_eq!(choose(ALL, &[], 40, 0, 20, false).tags, 0);
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
