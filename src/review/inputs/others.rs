//! What other reviewers already said (pure): the PR's open review threads and its comments and
//! review summaries by anyone but Shepherd's own account — people and other bots alike
//! (CodeRabbit, Copilot, Sourcery, Gemini, …). They are given to the aspects as data (fenced,
//! stripped, bounded), and a finding that repeats an open thread on the same file and a nearby
//! line ([`crate::pr::Fingerprint`]'s window and key terms) is held back as "already raised by
//! @login" (`results::screening`).
//!
//! Left out: resolved threads, minimized items (hidden as spam, abuse, off-topic, …), empty
//! ones, Shepherd's own reviews and account, and anything that looks like a `/review` trigger
//! (a trigger's text never reaches a prompt).

use crate::pr::{Item, Snapshot, is_review_body, key_terms};
use crate::review::inputs::prompt::strip_untrusted;
use crate::sanitize::one_line;

/// The most remarks given to the aspects.
pub const MAX_REMARKS: usize = 60;
/// The longest excerpt of one remark, in characters.
pub const MAX_EXCERPT_CHARS: usize = 600;
/// The most characters all excerpts together take in the prompt.
pub const OTHERS_BUDGET_CHARS: usize = 16_000;

/// One open thread or comment of another reviewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remark {
    pub login: String,
    pub url: String,
    /// The item's node id (a thread's `PRRT_…`).
    pub id: String,
    /// For a review thread: its file and line (the original line once outdated).
    pub path: Option<String>,
    pub line: Option<u32>,
    /// The key terms of its first comment (what a repeating finding is compared with).
    pub terms: Vec<String>,
    /// Its text, stripped, on one line, cut to [`MAX_EXCERPT_CHARS`].
    pub excerpt: String,
}

impl Remark {
    /// The remark as one prompt line.
    pub fn prompt_line(&self) -> String {
        let login = one_line(&self.login);
        match (&self.path, self.line) {
            (Some(p), Some(l)) => format!("@{login} on `{}:{l}`: {}", one_line(p), self.excerpt),
            (Some(p), None) => format!("@{login} on `{}`: {}", one_line(p), self.excerpt),
            _ => format!("@{login} (comment): {}", self.excerpt),
        }
    }
}

/// The remarks of other reviewers on `snapshot`, `identity` being Shepherd's own account.
pub fn remarks(snapshot: &Snapshot, identity: &str) -> Vec<Remark> {
    let mut out = Vec::new();
    let mut used = 0usize;
    for item in &snapshot.items {
        if out.len() >= MAX_REMARKS || used >= OTHERS_BUDGET_CHARS {
            break;
        }
        let login = item.login();
        if login.eq_ignore_ascii_case(identity) || item.status().minimized {
            continue;
        }
        let body = item.body();
        if body.trim().is_empty() || is_review_body(body) || looks_like_trigger(body) {
            continue;
        }
        let (path, line) = match item {
            Item::Thread(t) if t.resolved => continue,
            Item::Thread(t) => (
                Some(strip_untrusted(&t.path).text),
                t.line.or(t.original_line),
            ),
            _ => (None, None),
        };
        let text = one_line(&strip_untrusted(body).text);
        let room = MAX_EXCERPT_CHARS.min(OTHERS_BUDGET_CHARS - used);
        let excerpt = match text.char_indices().nth(room) {
            Some((i, _)) => format!("{}…", &text[..i]),
            None => text.clone(),
        };
        used += excerpt.chars().count();
        out.push(Remark {
            login: login.to_owned(),
            url: item.url().to_owned(),
            id: item.id().to_owned(),
            path,
            line,
            terms: key_terms(&text).into_iter().collect(),
            excerpt,
        });
    }
    out
}

/// A mention followed by `/review` (a trigger for Shepherd or another bot): left out.
fn looks_like_trigger(body: &str) -> bool {
    body.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words
            .windows(2)
            .any(|w| w[0].starts_with('@') && w[1].to_ascii_lowercase().starts_with("/review"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pr::{Association, Author, Comment, Origin, Thread};

    fn comment(id: &str, login: &str, body: &str) -> Comment {
        Comment {
            id: id.into(),
            author: Author {
                login: login.into(),
                association: Association::None,
                bot: login.ends_with("[bot]"),
            },
            created_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default(),
            last_edited_at: None,
            url: format!("https://github.com/o/r/pull/1#{id}"),
            body: body.into(),
            minimized: false,
            minimized_reason: None,
        }
    }

    fn thread(id: &str, login: &str, body: &str, resolved: bool) -> Item {
        Item::Thread(Thread {
            id: id.into(),
            path: "src/a.rs".into(),
            line: Some(41),
            original_line: Some(40),
            side: None,
            diff_hunk: String::new(),
            outdated: false,
            resolved,
            comments: vec![comment(&format!("{id}c"), login, body)],
        })
    }

    fn snapshot(items: Vec<Item>) -> Snapshot {
        let f = crate::source::Fixture::parse(
            crate::source::DEMO_FIXTURE,
            std::path::Path::new("demo"),
        )
        .unwrap();
        Snapshot {
            pr: f.pr,
            items,
            incomplete: Vec::new(),
            notes: Vec::new(),
            origin: Origin::Live,
        }
    }

    #[test]
    fn open_remarks_by_others_only() {
        let mut hidden = comment("IC_3", "spammer", "buy now");
        hidden.minimized = true;
        let s = snapshot(vec![
            thread(
                "PRRT_1",
                "coderabbitai[bot]",
                "The retry loop never stops on 429.",
                false,
            ),
            thread("PRRT_2", "ann", "Resolved already.", true),
            Item::Comment(comment("IC_1", "pr-shepherd", "## PR Shepherd Review\n…")),
            Item::Comment(comment("IC_2", "bob", "@pr-shepherd /review all")),
            Item::Comment(hidden),
            Item::Comment(comment(
                "IC_4",
                "carol",
                "Please add a changelog entry\u{200b}.",
            )),
            Item::Comment(comment("IC_5", "dave", "   ")),
        ]);
        let r = remarks(&s, "pr-shepherd");
        let ids: Vec<&str> = r.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, ["PRRT_1", "IC_4"]);
        assert_eq!(r[0].path.as_deref(), Some("src/a.rs"));
        assert_eq!(r[0].line, Some(41));
        assert!(r[0].terms.contains(&"429".to_owned()));
        assert_eq!(
            r[0].prompt_line(),
            "@coderabbitai[bot] on `src/a.rs:41`: The retry loop never stops on 429."
        );
        assert_eq!(r[1].excerpt, "Please add a changelog entry.");
        assert!(r[1].prompt_line().starts_with("@carol (comment): "));
    }

    #[test]
    fn remarks_are_bounded() {
        let long = "word ".repeat(1000);
        let items: Vec<Item> = (0..200)
            .map(|i| Item::Comment(comment(&format!("IC_{i}"), "x", &long)))
            .collect();
        let r = remarks(&snapshot(items), "pr-shepherd");
        assert!(r.len() <= MAX_REMARKS);
        let total: usize = r.iter().map(|x| x.excerpt.chars().count()).sum();
        assert!(total <= OTHERS_BUDGET_CHARS + r.len(), "{total}");
        assert!(
            r.iter()
                .all(|x| x.excerpt.chars().count() <= MAX_EXCERPT_CHARS + 1)
        );
    }
}
