//! The inbox's default sections: "who is waiting on me", shown live when no `[[inbox.sections]]`
//! are configured and credentials are there (offline, the bundled fixtures instead). Each is a
//! GitHub search run as configured sections run; the listing and counting of all three together
//! is `live::load_sections` (a PR in two sections is fetched once).

use super::SortBy;

/// One default section: its tab title, its search and how its rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultSection {
    pub title: &'static str,
    /// GitHub search syntax (`is:pr is:open` is added as for configured sections).
    pub query: &'static str,
    pub sort: SortBy,
}

/// Review requested from me or from one of my teams (the rows say which: `you` or
/// `team org/slug`). GitHub's `review-requested:` matches both; `user-review-requested:` would
/// match requests by name only.
pub const NEEDS_MY_REVIEW: DefaultSection = DefaultSection {
    title: "Needs my review",
    query: "review-requested:@me",
    sort: SortBy::Attention,
};

/// Authored by me, open; new activity (unseen items) first.
pub const MINE: DefaultSection = DefaultSection {
    title: "Mine",
    query: "author:@me",
    sort: SortBy::Unseen,
};

/// Mentions me or involves me (commented, assigned) in PRs of others; replies to my threads
/// since my last look are in the unseen counts, as for every row.
pub const INVOLVED: DefaultSection = DefaultSection {
    title: "Involved",
    query: "involves:@me -author:@me",
    sort: SortBy::Attention,
};

/// The default sections, in tab order.
pub const DEFAULT_SECTIONS: [DefaultSection; 3] = [NEEDS_MY_REVIEW, MINE, INVOLVED];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_sections_ask_for_open_prs_only_and_have_distinct_titles() {
        for s in DEFAULT_SECTIONS {
            let q = crate::source::github::batch::search_text(s.query);
            assert!(q.contains("is:pr") && q.contains("is:open"), "{q}");
        }
        let mut titles: Vec<&str> = DEFAULT_SECTIONS.iter().map(|s| s.title).collect();
        titles.sort_unstable();
        titles.dedup();
        assert_eq!(titles.len(), DEFAULT_SECTIONS.len());
    }
}
