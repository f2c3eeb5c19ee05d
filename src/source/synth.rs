//! Deterministic synthetic fixtures of any size, for benchmarks and stress tests.

use chrono::{DateTime, Duration, Utc};

use super::fixture::{FIXTURE_FORMAT, Fixture};
use crate::pr::LlmRecordings;
use crate::pr::{
    Association, Author, ChangedFile, Comment, Item, PrMeta, Review, ReviewState, Thread,
};

/// Sizes of a synthetic PR.
#[derive(Debug, Clone, Copy)]
pub struct SynthSpec {
    pub threads: usize,
    pub comments: usize,
    pub reviews: usize,
    /// Comments per thread (≥ 1).
    pub replies: u32,
    pub seed: u64,
}

/// xorshift64*: small, deterministic, good enough to vary statuses.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const WORDS: &[&str] = &[
    "the",
    "retry",
    "loop",
    "should",
    "cap",
    "total",
    "wait",
    "and",
    "handle",
    "errors",
    "without",
    "panicking",
    "consider",
    "a",
    "test",
    "for",
    "this",
    "edge",
    "case",
    "buffer",
    "length",
    "overflow",
    "lock",
    "ordering",
    "naming",
    "docs",
    "missing",
];
const LOGINS: &[(&str, Association)] = &[
    ("maya-chen", Association::Member),
    ("rajesh-k", Association::Owner),
    ("lena-fischer", Association::Collaborator),
    ("tomasz-w", Association::Contributor),
    ("drive-by-dev", Association::None),
];
const REASONS: &[&str] = &[
    "spam",
    "off-topic",
    "outdated",
    "resolved",
    "duplicate",
    "abuse",
];
const EXTS: &[&str] = &["rs", "py", "ts", "go", "md"];

fn sentence(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

fn author(rng: &mut Rng) -> Author {
    let (login, association) = LOGINS[rng.below(LOGINS.len() as u64) as usize];
    Author {
        login: login.to_owned(),
        association,
        bot: false,
    }
}

/// Builds the fixture. Ids are unique; roughly a fifth of items are outdated, resolved or
/// minimized in every combination.
pub fn synth(spec: SynthSpec) -> Fixture {
    let mut rng = Rng(spec.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let base = DateTime::<Utc>::from_timestamp(1_763_000_000, 0).unwrap_or_default();
    let url = "https://github.com/synth/big/pull/1";
    let mut clock = 0i64;
    let mut tick = |rng: &mut Rng| {
        clock += 1 + rng.below(120) as i64;
        base + Duration::seconds(clock)
    };
    let files: Vec<ChangedFile> = (0..40)
        .map(|f| ChangedFile {
            path: format!("src/mod{f}/file{f}.{}", EXTS[f % EXTS.len()]),
            status: "modified".to_owned(),
            additions: 20,
            deletions: 5,
            previous_path: None,
            patch: Some(format!(
                "@@ -1,3 +1,4 @@\n context line {f}\n-old line\n+new line\n+another line\n context"
            )),
            viewed: Default::default(),
            no_patch: None,
        })
        .collect();
    let mut items = Vec::with_capacity(spec.threads + spec.comments + spec.reviews);
    let mut comment_no = 0u64;
    let mut mk_comment = |rng: &mut Rng, at: DateTime<Utc>| {
        comment_no += 1;
        let minimized = rng.below(12) == 0;
        let words = 8 + rng.below(40) as usize;
        Comment {
            id: format!("PRRC_synth{comment_no:08}"),
            author: author(rng),
            created_at: at,
            last_edited_at: (rng.below(8) == 0).then(|| at + Duration::minutes(5)),
            url: format!("{url}#discussion_r{comment_no}"),
            body: sentence(rng, words),
            minimized,
            minimized_reason: minimized
                .then(|| REASONS[rng.below(REASONS.len() as u64) as usize].to_owned()),
        }
    };
    for t in 0..spec.threads {
        let file = &files[t % files.len()];
        let outdated = rng.below(5) == 0;
        let line = 1 + rng.below(200) as u32;
        let comments = (0..spec.replies)
            .map(|_| {
                let at = tick(&mut rng);
                mk_comment(&mut rng, at)
            })
            .collect();
        items.push(Item::Thread(Thread {
            id: format!("PRRT_synth{t:08}"),
            path: file.path.clone(),
            line: (!outdated).then_some(line),
            original_line: Some(line),
            side: None,
            diff_hunk: file.patch.clone().unwrap_or_default(),
            outdated,
            resolved: rng.below(4) == 0,
            comments,
        }));
    }
    for c in 0..spec.comments {
        let at = tick(&mut rng);
        let mut comment = mk_comment(&mut rng, at);
        comment.id = format!("IC_synth{c:08}");
        comment.url = format!("{url}#issuecomment-{c}");
        items.push(Item::Comment(comment));
    }
    for r in 0..spec.reviews {
        let at = tick(&mut rng);
        let state = match rng.below(4) {
            0 => ReviewState::Approved,
            1 => ReviewState::ChangesRequested,
            2 => ReviewState::Dismissed,
            _ => ReviewState::Commented,
        };
        let minimized = rng.below(10) == 0;
        items.push(Item::Review(Review {
            id: format!("PRR_synth{r:08}"),
            author: author(&mut rng),
            state,
            created_at: at,
            last_edited_at: None,
            url: format!("{url}#pullrequestreview-{r}"),
            body: if rng.below(3) == 0 {
                String::new()
            } else {
                sentence(&mut rng, 20)
            },
            minimized,
            minimized_reason: minimized.then(|| "outdated".to_owned()),
        }));
    }
    Fixture {
        format: FIXTURE_FORMAT.to_owned(),
        recorded: Some(serde_json::json!({"note": "synthetic", "seed": spec.seed})),
        pr: PrMeta {
            host: None,
            owner: "synth".to_owned(),
            repo: "big".to_owned(),
            number: 1,
            title: format!(
                "Synthetic PR: {} threads, {} comments, {} reviews",
                spec.threads, spec.comments, spec.reviews
            ),
            body: "Generated by `pr-shepherd fixture synth`.".to_owned(),
            author: Author {
                login: "tomasz-w".to_owned(),
                association: Association::Contributor,
                bot: false,
            },
            labels: vec!["synthetic".to_owned()],
            base_ref: "main".to_owned(),
            head_ref: "synth".to_owned(),
            base_sha: "0".repeat(40),
            head_sha: "f".repeat(40),
            url: url.to_owned(),
            draft: false,
            state: "OPEN".to_owned(),
            files,
            changed_files: None,
        },
        items,
        steps: Vec::new(),
        llm: LlmRecordings::default(),
        base_files: Vec::new(),
        file_contents: Vec::new(),
        dashboard: crate::pr::Dash::default(),
        source_path: Default::default(),
    }
}
