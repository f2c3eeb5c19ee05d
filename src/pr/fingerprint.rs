//! A finding's content fingerprint (pure): what makes two findings "the same point on the same
//! code" even when the model words them differently, so a dismissed finding stays dismissed.
//!
//! A finding's id (`PS-…`) hashes its exact normalized wording, so a reworded repetition gets a
//! new id. The fingerprint is looser and still specific:
//!
//! - the **aspect** and the **file** must be equal;
//! - the **lines** must be within [`LINE_WINDOW`] of each other (a finding without a line matches
//!   any line of the file — it is about the file);
//! - the **key terms** of the messages must overlap: at least [`MIN_SHARED`] shared terms that
//!   make up at least half of the smaller set (a message with fewer than [`MIN_SHARED`] terms
//!   must have the same terms).
//!
//! Key terms ([`key_terms`]) are the message's words lowercased — identifiers whole
//! (`dangerouslySetInnerHTML`, `retry_after`), numbers kept (`429`) — without stop words and
//! words shorter than three letters, each cut to a rough stem (`retries`/`retrying` → `retry`,
//! `stops` → `stop`, `terminates` → `terminat`), so case, punctuation, word order, filler words
//! and inflection do not change them.
//!
//! The same terms decide "similar point" for a finding that repeats another reviewer's thread
//! ([`similar_terms`]).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// How many lines apart two findings on one file may be and still match.
pub const LINE_WINDOW: u32 = 8;

/// The fewest shared key terms that make two messages the same point.
pub const MIN_SHARED: usize = 2;

/// The content of a finding as it is compared: aspect, file, line and key terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    pub aspect: String,
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Sorted, without repeats.
    pub terms: Vec<String>,
}

impl Fingerprint {
    pub fn of(aspect: &str, file: &str, line: Option<u32>, message: &str) -> Fingerprint {
        Fingerprint {
            aspect: aspect.to_owned(),
            file: file.to_owned(),
            line,
            terms: key_terms(message).into_iter().collect(),
        }
    }

    /// Whether `other` is the same point on the same code (see the module docs).
    pub fn matches(&self, other: &Fingerprint) -> bool {
        self.aspect == other.aspect
            && self.file == other.file
            && lines_near(self.line, other.line)
            && similar_terms(&self.terms, &other.terms)
    }
}

/// Two lines of one file are near: within [`LINE_WINDOW`], or either is unknown.
pub fn lines_near(a: Option<u32>, b: Option<u32>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.abs_diff(b) <= LINE_WINDOW,
        _ => true,
    }
}

/// Whether two sets of key terms make the same point: at least [`MIN_SHARED`] shared terms that
/// are at least half of the smaller set; a set smaller than that must equal the other.
pub fn similar_terms(a: &[String], b: &[String]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let a: BTreeSet<&str> = a.iter().map(String::as_str).collect();
    let b: BTreeSet<&str> = b.iter().map(String::as_str).collect();
    let small = a.len().min(b.len());
    if small < MIN_SHARED {
        return a == b;
    }
    let shared = a.intersection(&b).count();
    shared >= MIN_SHARED && shared * 2 >= small
}

/// How far `finding`'s terms are covered by a longer text's terms (another reviewer's comment):
/// at least [`MIN_SHARED`] shared, and at least half of the finding's terms.
pub fn covered_by(finding: &[String], text: &[String]) -> bool {
    if finding.is_empty() {
        return false;
    }
    let t: BTreeSet<&str> = text.iter().map(String::as_str).collect();
    let shared = finding.iter().filter(|w| t.contains(w.as_str())).count();
    if finding.len() < MIN_SHARED {
        return shared == finding.len();
    }
    shared >= MIN_SHARED && shared * 2 >= finding.len()
}

/// Words that carry no point of their own.
const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "all", "also", "and", "any", "are", "because", "been",
    "before", "being", "but", "can", "cannot", "could", "does", "doing", "each", "either", "else",
    "even", "ever", "every", "for", "from", "had", "has", "have", "here", "how", "into", "its",
    "itself", "just", "may", "might", "more", "most", "much", "must", "need", "needs", "not",
    "now", "off", "once", "one", "only", "other", "our", "out", "over", "own", "per", "please",
    "same", "should", "since", "some", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "through", "too", "under", "until", "upon", "use",
    "used", "uses", "using", "very", "was", "way", "were", "what", "when", "where", "whether",
    "which", "while", "who", "why", "will", "with", "within", "without", "would", "yet", "you",
    "your",
];

/// The key terms of a message (see the module docs).
pub fn key_terms(message: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for word in message.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_empty() {
            continue;
        }
        let lower = word.to_lowercase();
        let numeric = lower.chars().all(|c| c.is_ascii_digit());
        if numeric {
            if lower.len() >= 2 {
                out.insert(lower);
            }
            continue;
        }
        if lower.chars().count() < 3 || STOP_WORDS.contains(&lower.as_str()) {
            continue;
        }
        out.insert(stem(&lower));
    }
    out
}

/// A rough English stem: common inflections cut off, then a final `e`.
fn stem(word: &str) -> String {
    // Identifiers with digits or underscores are names, not words: kept whole.
    if word.chars().any(|c| c.is_ascii_digit() || c == '_') || !word.is_ascii() {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    let cut = |w: &mut String, suffix: &str, keep: usize, add: &str| -> bool {
        if w.len() > suffix.len() + keep && w.ends_with(suffix) {
            w.truncate(w.len() - suffix.len());
            w.push_str(add);
            true
        } else {
            false
        }
    };
    let _ = cut(&mut w, "ies", 2, "y")
        || cut(&mut w, "ied", 2, "y")
        || cut(&mut w, "ing", 3, "")
        || cut(&mut w, "ed", 3, "")
        || cut(&mut w, "es", 3, "")
        || cut(&mut w, "ly", 3, "")
        || (!w.ends_with("ss") && cut(&mut w, "s", 3, ""));
    // `stopped` → `stopp` → `stop`: a doubled final consonant left by the cut.
    let b = w.as_bytes();
    if b.len() > 3 && b[b.len() - 1] == b[b.len() - 2] && !b"aeiouls".contains(&b[b.len() - 1]) {
        w.pop();
    }
    if w.len() > 4 && w.ends_with('e') {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fp(line: Option<u32>, message: &str) -> Fingerprint {
        Fingerprint::of("correctness", "src/client/retry.rs", line, message)
    }

    #[test]
    fn a_reworded_repetition_matches_and_a_different_point_does_not() {
        let first = fp(
            Some(41),
            "The retry loop never stops on HTTP 429 responses.",
        );
        for same in [
            "Retrying on 429 never stops: the loop has no bound.",
            "retry loop: 429 responses retried forever (never stops)",
            "On a 429 the RETRY LOOP never stops",
        ] {
            assert!(first.matches(&fp(Some(44), same)), "{same}");
        }
        for other in [
            "The timeout is read from the wrong header.",
            "Error message names the wrong file.",
        ] {
            assert!(!first.matches(&fp(Some(41), other)), "{other}");
        }
        // Same words, another file or aspect, or far away: not the same point.
        let mut elsewhere = first.clone();
        elsewhere.file = "src/client/other.rs".into();
        assert!(!first.matches(&elsewhere));
        let mut aspect = first.clone();
        aspect.aspect = "perf".into();
        assert!(!first.matches(&aspect));
        assert!(!first.matches(&fp(Some(41 + LINE_WINDOW + 1), &first_message())));
        assert!(first.matches(&fp(None, &first_message())));
    }

    fn first_message() -> String {
        "The retry loop never stops on HTTP 429 responses.".to_owned()
    }

    #[test]
    fn key_terms_keep_names_and_numbers_and_cut_inflections() {
        let t = key_terms("Retries of `retry_after` stopped; dangerouslySetInnerHTML on 429 — a b");
        let want: BTreeSet<String> = [
            "retry",
            "retry_after",
            "stop",
            "dangerouslysetinnerhtml",
            "429",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(t, want);
        assert_eq!(stem("terminates"), stem("terminate"));
        assert_eq!(stem("retrying"), "retry");
        assert_eq!(stem("class"), "class");
        assert!(key_terms("the and of a it").is_empty());
    }

    #[test]
    fn covered_by_a_longer_comment() {
        let finding: Vec<String> = key_terms("The retry loop never stops on 429")
            .into_iter()
            .collect();
        let comment: Vec<String> = key_terms(
            "⚠️ Potential issue: when the server answers 429 this retry loop never stops, \
             because `attempt` is never incremented. Add a bound.",
        )
        .into_iter()
        .collect();
        assert!(covered_by(&finding, &comment));
        let unrelated: Vec<String> = key_terms("Consider renaming this variable for clarity.")
            .into_iter()
            .collect();
        assert!(!covered_by(&finding, &unrelated));
    }

    /// Words of a message, and ways to reword it that keep its point.
    fn words() -> impl Strategy<Value = Vec<String>> {
        proptest::collection::vec("[a-z]{3,9}", 2..8).prop_filter("distinct key terms", |w| {
            let terms: BTreeSet<String> = w.iter().flat_map(|x| key_terms(x)).collect();
            terms.len() >= 2
        })
    }

    proptest! {
        #[test]
        fn a_fingerprint_matches_itself_and_matching_is_symmetric(
            a in words(), b in words(), la in proptest::option::of(1u32..500),
            lb in proptest::option::of(1u32..500),
        ) {
            let x = fp(la, &a.join(" "));
            let y = fp(lb, &b.join(" "));
            prop_assert!(x.matches(&x));
            prop_assert_eq!(x.matches(&y), y.matches(&x));
        }

        /// Case, punctuation, word order, filler words, inflection and a small line shift do
        /// not change the point.
        #[test]
        fn rewording_noise_keeps_the_match(
            w in words(), shift in 0u32..=LINE_WINDOW, seed in any::<u64>(), line in 1u32..500,
        ) {
            let original = fp(Some(line), &w.join(" "));
            let mut noisy: Vec<String> = w.clone();
            let n = noisy.len();
            noisy.rotate_left((seed as usize) % n);
            let noisy: Vec<String> = noisy
                .iter()
                .enumerate()
                .map(|(i, x)| match (seed >> (i % 60)) & 3 {
                    0 => x.to_uppercase(),
                    1 => format!("{x},"),
                    2 => format!("the {x}"),
                    _ => format!("({x}) is"),
                })
                .collect();
            let reworded = fp(Some(line + shift), &format!("  {}.  ", noisy.join("   ")));
            prop_assert!(original.matches(&reworded), "{:?} vs {:?}", original, reworded);
        }

        #[test]
        fn another_file_aspect_or_distant_line_never_matches(
            w in words(), far in (LINE_WINDOW + 1)..1000, line in 1u32..500,
        ) {
            let x = fp(Some(line), &w.join(" "));
            let mut file = x.clone();
            file.file.push('x');
            prop_assert!(!x.matches(&file));
            let mut aspect = x.clone();
            aspect.aspect = "security".into();
            prop_assert!(!x.matches(&aspect));
            prop_assert!(!x.matches(&fp(Some(line + far), &w.join(" "))));
        }

        #[test]
        fn key_terms_never_panic(s in ".*") {
            let _ = key_terms(&s);
        }
    }
}
