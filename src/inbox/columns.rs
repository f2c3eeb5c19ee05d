//! The inbox's columns as data: their names (`[inbox] columns`), each row's cell text, and the
//! order of rows by any column. Pure: the console's table (`tui/app/inbox/table.rs`) chooses
//! which fit and styles them; the sort is a comparator any sort order can call.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};

use super::{Counts, Row, ShepherdState};
use crate::pr::{CheckState, ReviewDecision, ReviewRequested};
use crate::sanitize::one_line;

/// One column of the inbox's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// `owner/repo#N`.
    Pr,
    /// New and edited items.
    Unseen,
    Title,
    /// The checks at the head, with counts.
    Checks,
    /// GitHub's review decision.
    Review,
    /// Whether your review is requested: you / your team.
    Requested,
    /// `+a −d` and files.
    Size,
    /// Age of the last update.
    Updated,
    Shepherd,
    Gate,
    /// The author, team or community.
    Author,
    Labels,
}

/// Every column, in the table's default order. `[inbox] columns` names a subset, in its order.
pub const ALL: &[Column] = &[
    Column::Pr,
    Column::Unseen,
    Column::Title,
    Column::Checks,
    Column::Review,
    Column::Requested,
    Column::Size,
    Column::Updated,
    Column::Shepherd,
    Column::Gate,
    Column::Author,
    Column::Labels,
];

impl Column {
    /// The name `[inbox] columns` uses (and `crate::schema::INBOX_COLUMNS` lists).
    pub fn name(self) -> &'static str {
        match self {
            Column::Pr => "pr",
            Column::Unseen => "unseen",
            Column::Title => "title",
            Column::Checks => "checks",
            Column::Review => "review",
            Column::Requested => "requested",
            Column::Size => "size",
            Column::Updated => "updated",
            Column::Shepherd => "shepherd",
            Column::Gate => "gate",
            Column::Author => "author",
            Column::Labels => "labels",
        }
    }

    pub fn parse(s: &str) -> Option<Column> {
        ALL.iter()
            .copied()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The columns `[inbox] columns` names (unknown names were refused when the config was
    /// loaded; any left are skipped), else all of them. The title is always there.
    pub fn configured(names: &[String]) -> Vec<Column> {
        if names.is_empty() {
            return ALL.to_vec();
        }
        let mut out: Vec<Column> = Vec::new();
        for c in names.iter().filter_map(|n| Column::parse(n)) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        if !out.contains(&Column::Title) {
            out.insert(out.len().min(2), Column::Title);
        }
        out
    }

    /// The next column to sort by (the columns `s` goes on to in the console): the title is
    /// left out, and so are `unseen` and `updated`, which sort as the inbox's named orders of
    /// the same name already do.
    pub fn next_sort(self) -> Column {
        let i = ALL.iter().position(|c| *c == self).unwrap_or(0);
        let next = ALL[(i + 1) % ALL.len()];
        if next.sorts_as_a_named_order() {
            next.next_sort()
        } else {
            next
        }
    }

    /// Left out of the sort cycle: the title (alphabetical titles help nobody triage) and the
    /// columns the named orders `unseen` and `updated` already sort by.
    fn sorts_as_a_named_order(self) -> bool {
        matches!(self, Column::Title | Column::Unseen | Column::Updated)
    }
}

/// `3d`, `5h`, `12m`, `now`: how long ago `t` was, at `now` (seconds since the epoch).
pub fn age(t: Option<DateTime<Utc>>, now: i64) -> String {
    let Some(t) = t else {
        return String::new();
    };
    let secs = (now - t.timestamp()).max(0);
    match secs {
        s if s < 60 => "now".to_owned(),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s if s < 86_400 * 60 => format!("{}d", s / 86_400),
        s => format!("{}mo", s / (86_400 * 30)),
    }
}

/// A row's cell in a column, as plain (sanitized) text; `now` for the age.
pub fn cell(r: &Row, col: Column, now: i64) -> String {
    let l = &r.listed;
    match col {
        Column::Pr => one_line(&format!(
            "{}/{}#{}",
            l.coords.owner, l.coords.repo, l.coords.number
        )),
        Column::Unseen => match &r.items {
            Counts::Counted { total, new, edited } => match (new, edited) {
                (0, 0) if *total == 0 => "no items".to_owned(),
                (0, 0) => format!("{total} seen"),
                (n, 0) => format!("{n} new"),
                (0, e) => format!("{e} edited"),
                (n, e) => format!("{n} new {e} edited"),
            },
            Counts::Loading => "…".to_owned(),
            // Why is said once, in the header.
            Counts::Failed(_) => "unknown".to_owned(),
        },
        Column::Title => {
            let t = one_line(&l.title);
            if l.draft { format!("[draft] {t}") } else { t }
        }
        Column::Checks => l.dash.summary().map(|s| s.cell()).unwrap_or_default(),
        Column::Review => l
            .dash
            .review_decision
            .map(|d| d.cell().to_owned())
            .unwrap_or_default(),
        Column::Requested => match l.requested {
            ReviewRequested::None => String::new(),
            x => x.as_str().to_owned(),
        },
        Column::Size => l.dash.size_cell().unwrap_or_default(),
        Column::Updated => age(l.updated_at, now),
        Column::Shepherd => match r.shepherd.state {
            ShepherdState::Unknown => "?".to_owned(),
            s => s.as_str().to_owned(),
        },
        Column::Gate => r.gate.review.as_str().to_owned(),
        Column::Author => one_line(&format!(
            "@{} {}",
            l.author.login,
            if r.team { "team" } else { "community" }
        )),
        Column::Labels => one_line(&l.labels.join(",")),
    }
}

/// How two rows compare in a column, the one that needs you first: failing checks, changes
/// requested, your own request, most unseen, biggest, most recent; text columns alphabetically.
/// Ties are left to the caller (a stable sort keeps the order before).
pub fn compare(a: &Row, b: &Row, col: Column) -> Ordering {
    let (la, lb) = (&a.listed, &b.listed);
    match col {
        Column::Pr => (&la.coords.repo, la.coords.number).cmp(&(&lb.coords.repo, lb.coords.number)),
        Column::Unseen => {
            let u = |r: &Row| r.items.unseen().unwrap_or(0);
            u(b).cmp(&u(a))
        }
        Column::Title => la.title.to_lowercase().cmp(&lb.title.to_lowercase()),
        Column::Checks => {
            // Failing, pending, passing, neutral, none.
            let k = |r: &Row| {
                r.listed
                    .dash
                    .summary()
                    .and_then(|s| s.overall())
                    .map_or(4, |s| match s {
                        CheckState::Failing => 0,
                        CheckState::Pending => 1,
                        CheckState::Passing => 2,
                        CheckState::Neutral => 3,
                    })
            };
            k(a).cmp(&k(b))
        }
        Column::Review => {
            let k = |r: &Row| match r.listed.dash.review_decision {
                Some(ReviewDecision::ChangesRequested) => 0,
                Some(ReviewDecision::ReviewRequired) => 1,
                Some(ReviewDecision::Approved) => 2,
                None => 3,
            };
            k(a).cmp(&k(b))
        }
        Column::Requested => la.requested.cmp(&lb.requested),
        Column::Size => {
            let k = |r: &Row| {
                r.listed.dash.additions.unwrap_or(0) + r.listed.dash.deletions.unwrap_or(0)
            };
            k(b).cmp(&k(a))
        }
        Column::Updated => lb.updated_at.cmp(&la.updated_at),
        Column::Shepherd => {
            let k = |r: &Row| match r.shepherd.state {
                ShepherdState::None => 0,
                ShepherdState::Stale => 1,
                ShepherdState::Unknown => 2,
                ShepherdState::Current => 3,
            };
            k(a).cmp(&k(b))
        }
        Column::Gate => a.gate.review.as_str().cmp(b.gate.review.as_str()),
        Column::Author => la
            .author
            .login
            .to_lowercase()
            .cmp(&lb.author.login.to_lowercase()),
        Column::Labels => la.labels.join(",").cmp(&lb.labels.join(",")),
    }
}

/// Sorts rows by a column (stable; ties by repository and number, so the order is reproducible).
/// The inbox's sort orders call this for a column sort.
pub fn sort_by_column(rows: &mut [Row], col: Column) {
    rows.sort_by(|a, b| {
        compare(a, b, col).then_with(|| {
            let k = |r: &Row| {
                (
                    r.listed.coords.owner.clone(),
                    r.listed.coords.repo.clone(),
                    r.listed.coords.number,
                )
            };
            k(a).cmp(&k(b))
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_has_a_name_that_parses_back_and_the_schema_lists_them() {
        for c in ALL {
            assert_eq!(Column::parse(c.name()), Some(*c));
        }
        let names: Vec<&str> = ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, crate::schema::INBOX_COLUMNS);
    }

    #[test]
    fn configured_columns_keep_their_order_and_always_have_a_title() {
        let cols = Column::configured(&["checks".into(), "pr".into(), "checks".into()]);
        assert_eq!(cols, vec![Column::Checks, Column::Pr, Column::Title]);
        assert_eq!(Column::configured(&[]), ALL.to_vec());
    }

    #[test]
    fn ages_read_short() {
        let t = DateTime::<Utc>::from_timestamp(1_000_000, 0);
        assert_eq!(age(t, 1_000_030), "now");
        assert_eq!(age(t, 1_000_000 + 600), "10m");
        assert_eq!(age(t, 1_000_000 + 7200), "2h");
        assert_eq!(age(t, 1_000_000 + 3 * 86_400), "3d");
        assert_eq!(age(None, 0), "");
    }

    #[test]
    fn the_sort_cycle_skips_the_title_and_the_named_orders_and_comes_round() {
        let mut c = Column::Pr;
        let mut seen = vec![c];
        loop {
            c = c.next_sort();
            if c == Column::Pr {
                break;
            }
            assert!(!seen.contains(&c), "{c:?} twice");
            seen.push(c);
        }
        for skipped in [Column::Title, Column::Unseen, Column::Updated] {
            assert!(!seen.contains(&skipped), "{skipped:?} in {seen:?}");
        }
        assert_eq!(seen.len(), ALL.len() - 3);
    }
}
