//! Chunk planning (pure): a diff larger than an aspect's budget is split into chunks that each fit,
//! so a large PR is reviewed in several calls instead of being cut.
//!
//! Whole files are packed first, in PR order. A file larger than the budget is split by hunks
//! (each piece repeats the file's header line); a hunk larger than the budget is split by lines,
//! each piece repeating the file header and the hunk header (`@@ … @@`). A single line longer than
//! a piece can hold is split by characters. Every line of every hunk lands in exactly one chunk;
//! a hunk that fits the budget is never split.
//!
//! Sizes are counted in characters, like the budget. The budget has a floor
//! ([`MIN_CHUNK_CHARS`]) so a tiny setting cannot turn one PR into thousands of calls.

use std::ops::Range;

/// The smallest budget a chunk is planned with.
pub const MIN_CHUNK_CHARS: usize = 1_000;

/// One changed file, already stripped of hidden content, ready to be planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The file's path (as shown in the prompt).
    pub path: String,
    /// `diff --git a/p b/p (status, +a -d)\n`.
    pub header: String,
    /// The patch split at its hunk headers; each element ends with `\n`. Text before the first
    /// `@@` (rare) belongs to the first hunk.
    pub hunks: Vec<String>,
    /// `path (+a -d)`, how the file is named when it is left out.
    pub label: String,
}

impl FileDiff {
    /// The file as one block: header and every hunk.
    pub fn text(&self) -> String {
        let mut s = self.header.clone();
        for h in &self.hunks {
            s.push_str(h);
        }
        s
    }

    pub fn chars(&self) -> usize {
        chars(&self.header) + self.hunks.iter().map(|h| chars(h)).sum::<usize>()
    }

    /// Lines of patch (without the header line).
    pub fn patch_lines(&self) -> usize {
        self.hunks.iter().map(|h| h.lines().count()).sum()
    }
}

/// Splits a patch into hunks at lines starting with `@@`; every hunk ends with a newline.
pub fn split_hunks(patch: &str) -> Vec<String> {
    let mut hunks: Vec<String> = Vec::new();
    for line in patch.lines() {
        if line.starts_with("@@") || hunks.is_empty() {
            hunks.push(String::new());
        }
        if let Some(h) = hunks.last_mut() {
            h.push_str(line);
            h.push('\n');
        }
    }
    hunks
}

/// Which lines of which hunk a chunk carries (`lines` indexes the hunk's lines, header included;
/// a continuation piece repeats line 0, the hunk header, which is not counted again here).
/// `split_line` is set when one long line was cut by characters: the char range of that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub file: usize,
    pub hunk: usize,
    pub lines: Range<usize>,
    pub split_line: Option<Range<usize>>,
}

/// One call's worth of diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    pub text: String,
    pub chars: usize,
    pub parts: Vec<Part>,
}

impl Chunk {
    /// The files (indexes) this chunk shows, in order, without repeats.
    pub fn files(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for p in &self.parts {
            if out.last() != Some(&p.file) {
                out.push(p.file);
            }
        }
        out
    }
}

/// A piece to pack: a body that needs `header` of `file` in front of it, unless the chunk's
/// previous piece is of the same file.
struct Piece {
    file: usize,
    body: String,
    body_chars: usize,
    parts: Vec<Part>,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// What is known when a prompt did not fit the server's context: the sizes the server named and
/// the prompt that overflowed. The input of [`fitting_budget`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overflow {
    /// The server's context in tokens (from the error or the server's `/props`), if known.
    pub n_ctx: Option<u64>,
    /// The prompt's tokens as the server counted them, if it said.
    pub prompt_tokens: Option<u64>,
    /// The prompt's characters (system and user message).
    pub prompt_chars: usize,
    /// The characters of that prompt's diff part.
    pub diff_chars: usize,
    /// The answer's token limit asked for (room is kept for it, at most a quarter of the context).
    pub output_tokens: u64,
}

/// Characters per token assumed when the server did not count the prompt: few, so the budget errs
/// small (code and small vocabularies tokenize densely).
const FALLBACK_CHARS_PER_TOKEN: f64 = 2.0;

/// The diff budget (characters per call) with which a prompt like the one that overflowed fits
/// the server's context: the context less room for the answer (at most a quarter of it) and a
/// tenth for error, less the prompt without its diff, at the prompt's own characters per token
/// (as the server counted them). Always below the overflowing prompt's diff, so re-chunking
/// makes progress; without a known context size, half of it.
///
/// `Err` says why no budget fits: the prompt without its diff already fills the context, or the
/// room left is under [`MIN_CHUNK_CHARS`].
pub fn fitting_budget(o: &Overflow) -> Result<usize, String> {
    let smaller = o.diff_chars.saturating_mul(3) / 4;
    let budget = match o.n_ctx {
        None => o.diff_chars / 2,
        Some(n_ctx) => {
            let per_token = match o.prompt_tokens {
                Some(t) if t > 0 => (o.prompt_chars as f64 / t as f64).clamp(0.5, 8.0),
                _ => FALLBACK_CHARS_PER_TOKEN,
            };
            let ctx = n_ctx as f64;
            let room = ctx * 0.9 - (o.output_tokens as f64).min(ctx / 4.0);
            let fixed = o.prompt_chars.saturating_sub(o.diff_chars) as f64 / per_token;
            if fixed >= room {
                return Err(format!(
                    "the prompt without its diff already takes about {} of the server's {n_ctx} tokens of context; start the server with a larger context",
                    fixed.ceil() as u64
                ));
            }
            (((room - fixed) * per_token).floor() as usize).min(smaller)
        }
    };
    if budget < MIN_CHUNK_CHARS {
        return Err(format!(
            "the server's context{} leaves room for about {budget} characters of diff per call, fewer than the smallest chunk ({MIN_CHUNK_CHARS}); start the server with a larger context",
            o.n_ctx
                .map(|n| format!(" ({n} tokens)"))
                .unwrap_or_default()
        ));
    }
    Ok(budget)
}

/// Plans the chunks of `files` within `budget` characters each (at least [`MIN_CHUNK_CHARS`]).
/// An empty PR gives no chunks.
pub fn plan(files: &[FileDiff], budget: usize) -> Vec<Chunk> {
    let budget = budget.max(MIN_CHUNK_CHARS);
    let pieces = pieces(files, budget);
    pack(files, pieces, budget)
}

/// Whole files, else whole hunks, else runs of lines (else parts of a line).
fn pieces(files: &[FileDiff], budget: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let header = chars(&f.header);
        if f.chars() <= budget {
            out.push(Piece {
                file: fi,
                body: f.hunks.concat(),
                body_chars: f.chars() - header,
                parts: f
                    .hunks
                    .iter()
                    .enumerate()
                    .map(|(hi, h)| Part {
                        file: fi,
                        hunk: hi,
                        lines: 0..h.lines().count(),
                        split_line: None,
                    })
                    .collect(),
            });
            continue;
        }
        for (hi, h) in f.hunks.iter().enumerate() {
            let n = chars(h);
            if header + n <= budget {
                out.push(Piece {
                    file: fi,
                    body: h.clone(),
                    body_chars: n,
                    parts: vec![Part {
                        file: fi,
                        hunk: hi,
                        lines: 0..h.lines().count(),
                        split_line: None,
                    }],
                });
            } else {
                out.extend(hunk_pieces(fi, hi, h, header, budget));
            }
        }
    }
    out
}

/// A hunk larger than the budget, by lines; every piece after the first repeats the hunk header.
fn hunk_pieces(file: usize, hunk: usize, text: &str, header: usize, budget: usize) -> Vec<Piece> {
    let lines: Vec<&str> = text.lines().collect();
    let hunk_header = lines
        .first()
        .filter(|l| l.starts_with("@@"))
        .map(|l| format!("{l}\n"));
    let repeat = hunk_header.as_deref().map_or(0, chars);
    let continuation = |li: usize| Piece {
        file,
        body: hunk_header.clone().unwrap_or_default(),
        body_chars: repeat,
        parts: vec![Part {
            file,
            hunk,
            lines: li..li,
            split_line: None,
        }],
    };
    let mut out: Vec<Piece> = Vec::new();
    // The first piece carries the hunk header as its own line 0.
    let mut cur: Option<Piece> = hunk_header.as_ref().map(|h| Piece {
        file,
        body: h.clone(),
        body_chars: repeat,
        parts: vec![Part {
            file,
            hunk,
            lines: 0..1,
            split_line: None,
        }],
    });
    let first = usize::from(hunk_header.is_some());
    for (li, line) in lines.iter().enumerate().skip(first) {
        let n = chars(line) + 1;
        if let Some(p) = cur.take() {
            if header + p.body_chars + n > budget {
                out.push(p);
            } else {
                cur = Some(p);
            }
        }
        let p = cur.get_or_insert_with(|| continuation(li));
        if header + p.body_chars + n <= budget {
            p.body.push_str(line);
            p.body.push('\n');
            p.body_chars += n;
            if let Some(part) = p.parts.last_mut() {
                part.lines.end = li + 1;
            }
            continue;
        }
        // One line longer than a fresh piece can hold: by characters, one piece per part.
        cur = None;
        let room = budget.saturating_sub(header + repeat + 1).max(1);
        let cs: Vec<char> = line.chars().collect();
        let mut at = 0;
        while at < cs.len() {
            let end = (at + room).min(cs.len());
            let mut p = continuation(li);
            p.body.extend(&cs[at..end]);
            p.body.push('\n');
            p.body_chars += end - at + 1;
            if let Some(part) = p.parts.last_mut() {
                part.lines = li..li + 1;
                part.split_line = Some(at..end);
            }
            out.push(p);
            at = end;
        }
    }
    out.extend(cur);
    out
}

/// Greedy packing in order; consecutive pieces of one file share its header.
fn pack(files: &[FileDiff], pieces: Vec<Piece>, budget: usize) -> Vec<Chunk> {
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut cur = Chunk::default();
    let mut last_file: Option<usize> = None;
    for p in pieces {
        let header = &files[p.file].header;
        let same = last_file == Some(p.file);
        let need = p.body_chars + if same { 0 } else { chars(header) };
        if cur.chars > 0 && cur.chars + need > budget {
            chunks.push(std::mem::take(&mut cur));
            last_file = None;
        }
        if last_file != Some(p.file) {
            cur.text.push_str(header);
            cur.chars += chars(header);
        }
        cur.text.push_str(&p.body);
        cur.chars += p.body_chars;
        cur.parts.extend(p.parts);
        last_file = Some(p.file);
    }
    if cur.chars > 0 {
        chunks.push(cur);
    }
    chunks
}

/// `65536` → `65,536`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn file(i: usize, hunks: Vec<String>) -> FileDiff {
        let path = format!("src/f{i}.rs");
        FileDiff {
            header: format!("diff --git a/{path} b/{path} (modified, +1 -1)\n"),
            label: format!("{path} (+1 -1)"),
            path,
            hunks,
        }
    }

    fn hunk(start: usize, lines: &[String]) -> String {
        let mut s = format!("@@ -{start},3 +{start},4 @@ fn x()\n");
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }

    #[test]
    fn hunks_split_at_headers() {
        let h = split_hunks("@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n c");
        assert_eq!(h, ["@@ -1 +1 @@\n-a\n+b\n", "@@ -9 +9 @@\n c\n"]);
        assert_eq!(
            split_hunks("Binary files differ"),
            ["Binary files differ\n"]
        );
        assert!(split_hunks("").is_empty());
    }

    #[test]
    fn small_files_pack_whole_and_big_ones_split() {
        let line = "+".repeat(99);
        let small = file(0, vec![hunk(1, &vec![line.clone(); 3])]);
        let big = file(
            1,
            (0..5)
                .map(|i| hunk(i * 10, &vec![line.clone(); 4]))
                .collect(),
        );
        let huge_hunk = file(2, vec![hunk(1, &vec![line.clone(); 40])]);
        let files = [small, big, huge_hunk];
        let chunks = plan(&files, 1_000);
        for c in &chunks {
            assert!(c.chars <= 1_000, "{}", c.chars);
            assert_eq!(c.chars, c.text.chars().count());
        }
        // The small file and the first hunks of the big one share a chunk; the big one's header
        // repeats; the huge hunk's header repeats in every piece.
        assert_eq!(chunks[0].files(), [0, 1]);
        let repeats = chunks
            .iter()
            .filter(|c| c.text.contains("@@ -1,3 +1,4 @@ fn x()\n") && c.files() == [2])
            .count();
        assert!(repeats >= 4, "{repeats}");
        assert!(chunks.iter().all(|c| c.text.starts_with("diff --git")));
    }

    #[test]
    fn a_fitting_budget_leaves_room_for_the_fixed_prompt_and_the_answer() {
        // The shared llama-server's tiny model: 1.7 characters per token.
        let o = Overflow {
            n_ctx: Some(8192),
            prompt_tokens: Some(10_000),
            prompt_chars: 17_000,
            diff_chars: 8_000,
            output_tokens: 512,
        };
        // (8192 × 0.9 − 512) tokens of room less 9,000 / 1.7 of fixed prompt, at 1.7 a token.
        let b = fitting_budget(&o).unwrap();
        let want = ((8192.0f64 * 0.9 - 512.0 - 9_000.0 / 1.7) * 1.7).floor() as usize;
        assert_eq!(b, want);
        assert!((1_000..8_000).contains(&b), "{b}");
        let o = Overflow {
            n_ctx: Some(4096),
            prompt_chars: 9_000,
            diff_chars: 6_000,
            ..o
        };
        // 0.9 × 4096 − 512 = 3174 tokens of room; the fixed 3000 chars are 3000 / 0.9 = 3333
        // tokens at this prompt's 0.9 characters per token: no room.
        assert!(fitting_budget(&o).is_err());
        let fits = Overflow {
            n_ctx: Some(8192),
            prompt_tokens: Some(9_000),
            prompt_chars: 27_000,
            diff_chars: 20_000,
            output_tokens: 4096,
        };
        // 3 chars per token; room 8192 × 0.9 − 2048 = 5324.8 tokens; fixed 7000 / 3 = 2333.3.
        let b = fitting_budget(&fits).unwrap();
        assert_eq!(b, ((5324.8f64 - 7000.0 / 3.0) * 3.0).floor() as usize);
        let prompt_after = 7_000 + b;
        assert!((prompt_after as f64 / 3.0) + 2048.0 <= 8192.0 * 0.9 + 1.0);
        // Unknown context: half; and never at or above the diff that overflowed.
        assert_eq!(
            fitting_budget(&Overflow {
                n_ctx: None,
                ..fits
            }),
            Ok(10_000)
        );
        let generous = Overflow {
            n_ctx: Some(1_000_000),
            ..fits
        };
        assert_eq!(fitting_budget(&generous), Ok(15_000));
        let tiny = Overflow {
            n_ctx: Some(3_000),
            ..fits
        };
        let e = fitting_budget(&tiny).unwrap_err();
        assert!(e.contains("larger context"), "{e}");
    }

    #[test]
    fn a_line_longer_than_the_budget_is_cut_by_characters() {
        let files = [file(0, vec![hunk(1, &["+".repeat(2_500)])])];
        let chunks = plan(&files, 1_000);
        assert!(chunks.len() >= 3);
        for c in &chunks {
            assert!(c.chars <= 1_000, "{}", c.chars);
        }
        let plus: usize = chunks
            .iter()
            .map(|c| c.text.chars().filter(|&ch| ch == '+').count())
            .sum();
        // Each piece repeats the file header (`+1`) and the hunk header (`+1,4`); every `+` of
        // the long line lands once.
        assert_eq!(plus, 2_500 + 2 * chunks.len());
    }

    fn arb_files() -> impl Strategy<Value = Vec<FileDiff>> {
        let line = "[-+ ][a-z ]{0,150}";
        let hunk_s = proptest::collection::vec(line, 0..60);
        let file_s = proptest::collection::vec(hunk_s, 1..8);
        proptest::collection::vec(file_s, 0..12).prop_map(|fs| {
            fs.into_iter()
                .enumerate()
                .map(|(i, hs)| {
                    file(
                        i,
                        hs.iter()
                            .enumerate()
                            .map(|(j, ls)| hunk(j * 100 + 1, ls))
                            .collect(),
                    )
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_hunk_lands_in_exactly_one_chunk_within_the_budget(
            files in arb_files(),
            budget in 1_000usize..6_000,
        ) {
            let chunks = plan(&files, budget);
            for c in &chunks {
                prop_assert!(c.chars <= budget, "chunk of {} > {}", c.chars, budget);
                prop_assert_eq!(c.chars, c.text.chars().count());
            }
            for (fi, f) in files.iter().enumerate() {
                for (hi, h) in f.hunks.iter().enumerate() {
                    let n = h.lines().count();
                    let owners: Vec<(usize, &Part)> = chunks
                        .iter()
                        .enumerate()
                        .flat_map(|(ci, c)| c.parts.iter().map(move |p| (ci, p)))
                        .filter(|(_, p)| p.file == fi && p.hunk == hi)
                        .collect();
                    // A hunk that fits is in exactly one chunk, whole.
                    if f.header.chars().count() + h.chars().count() <= budget {
                        prop_assert_eq!(owners.len(), 1);
                        prop_assert_eq!(owners[0].1.lines.clone(), 0..n);
                        prop_assert!(chunks[owners[0].0].text.contains(h.as_str()));
                    }
                    // Every line of every hunk lands exactly once, in order.
                    let mut next = 0;
                    for (_, p) in &owners {
                        prop_assert!(p.split_line.is_none());
                        prop_assert_eq!(p.lines.start, next);
                        next = p.lines.end;
                    }
                    prop_assert_eq!(next, n);
                }
            }
        }
    }
}
