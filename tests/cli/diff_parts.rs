//! The diff screen's pure parts on real history (`support::gitrepo`: a PR with tabs, CRLF, a
//! rename with changes and a binary file, force-pushed), git the oracle: every cell of the split
//! view has the text its side's file has at that line (the merge base on the left, the head on
//! the right); fully expanded context and the diff are each file once, in order; a fixture's
//! `fileContents` expand a hunk offline.

use crate::support;

use pr_shepherd::code::patch::{LineKind, Side};
use pr_shepherd::code::{expand, parse, split};
use serde_json::Value;
use support::gitrepo::{GitRepo, rebased_pr};

/// `path` at `rev`, as lines without their ending (`\r\n` or `\n`); `None` when it is not there.
fn lines_at(repo: &GitRepo, rev: &str, path: &str) -> Option<Vec<String>> {
    let listed = repo.git(&["ls-tree", "--name-only", rev, "--", path]);
    if listed.trim().is_empty() {
        return None;
    }
    let text = repo.git(&["show", &format!("{rev}:{path}")]);
    let body = text.strip_suffix('\n').unwrap_or(&text);
    Some(
        body.split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
            .collect(),
    )
}

fn str_of<'a>(f: &'a Value, key: &str) -> Option<&'a str> {
    f.get(key).and_then(Value::as_str)
}

#[test]
fn every_split_cell_is_its_sides_line_at_base_and_head() {
    let story = rebased_pr();
    let repo = &story.repo;
    let files = story.files2();
    let mut seen = Vec::new();
    for f in &files {
        let path = str_of(f, "path").unwrap();
        let Some(patch) = str_of(f, "patch") else {
            // The binary file: no patch, no rows.
            assert_eq!(path, "assets/logo.png", "{f}");
            seen.push("binary");
            continue;
        };
        let old_path = str_of(f, "previousPath").unwrap_or(path);
        let base = lines_at(repo, &story.base2, old_path).unwrap_or_default();
        let head = lines_at(repo, &story.head2, path).unwrap_or_default();
        let p = parse(patch);
        let rows = split::split_rows(&p);
        assert!(!rows.is_empty(), "{path}");
        let (mut left, mut right) = (0, 0);
        for row in &rows {
            for side in [Side::Left, Side::Right] {
                let Some(cell) = row.cell(side) else { continue };
                let file = if side == Side::Left { &base } else { &head };
                let want = file.get(cell.line as usize - 1);
                assert_eq!(
                    Some(cell.text(&p)),
                    want.map(String::as_str),
                    "{path} {side:?} line {}",
                    cell.line
                );
                assert_eq!(cell.addr().side, side);
                match (side, cell.kind) {
                    (Side::Left, LineKind::Removed | LineKind::Context) => left += 1,
                    (Side::Right, LineKind::Added | LineKind::Context) => right += 1,
                    other => panic!("{path}: a {other:?} cell"),
                }
            }
            // A row is a context line on both sides (same text) or a change pair.
            if let (Some(l), Some(r)) = (&row.left, &row.right)
                && l.kind == LineKind::Context
            {
                assert_eq!(r.kind, LineKind::Context);
                assert_eq!(l.text(&p), r.text(&p));
            }
        }
        // Every numbered line of the patch is a cell, on its side(s).
        let want_left = p.lines.iter().filter(|l| l.old.is_some()).count();
        let want_right = p.lines.iter().filter(|l| l.new.is_some()).count();
        assert_eq!((left, right), (want_left, want_right), "{path}");
        if old_path != path {
            seen.push("rename");
        }
        if head.iter().any(|l| l.starts_with('\t')) {
            seen.push("tabs");
            assert!(rows.iter().any(|r| {
                r.right
                    .as_ref()
                    .is_some_and(|c| c.text(&p).starts_with('\t'))
            }));
        }
        if patch.contains('\r') {
            seen.push("crlf");
        }
        if rows.iter().any(|r| r.marks.is_some()) {
            seen.push("marks");
        }
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, ["binary", "crlf", "marks", "rename", "tabs"]);
}

/// `path` at `rev` as git stores it (CRLF kept); `None` when it is not there.
fn text_at(repo: &GitRepo, rev: &str, path: &str) -> Option<String> {
    lines_at(repo, rev, path)?;
    Some(repo.git(&["show", &format!("{rev}:{path}")]))
}

#[test]
fn expanded_context_and_the_diff_cover_both_files_once_in_order() {
    let story = rebased_pr();
    let repo = &story.repo;
    let mut expanded_some = false;
    for f in story.files2() {
        let path = str_of(&f, "path").unwrap();
        let Some(patch) = str_of(&f, "patch") else {
            continue;
        };
        let old_path = str_of(&f, "previousPath").unwrap_or(path);
        let (base, head) = (
            text_at(repo, &story.base2, old_path),
            text_at(repo, &story.head2, path),
        );
        let p = parse(patch);
        let mut fc = expand::FileGaps::new(&p.hunks, base.as_deref(), head.as_deref());
        // `e` above the first hunk: each line is the same text at its old and its new number.
        fc.expand_above(0, expand::STEP);
        let (old_lines, new_lines) = (
            lines_at(repo, &story.base2, old_path).unwrap_or_default(),
            lines_at(repo, &story.head2, path).unwrap_or_default(),
        );
        let above = fc.rows(0);
        for l in above.top.into_iter().chain(above.bottom) {
            assert!(!l.is_diff_line());
            assert_eq!(
                Some(l.text),
                new_lines.get(l.new as usize - 1).map(String::as_str)
            );
            assert_eq!(
                Some(l.text),
                old_lines.get(l.old as usize - 1).map(String::as_str)
            );
            expanded_some = true;
        }
        // `E`: the context rows and the diff's lines are each file's lines, once, in order.
        fc.expand_all();
        let (mut old_seen, mut new_seen) = (Vec::new(), Vec::new());
        for (i, h) in p.hunks.iter().enumerate() {
            for l in fc.rows(i).top {
                old_seen.push((l.old, l.text.to_owned()));
                new_seen.push((l.new, l.text.to_owned()));
            }
            for l in &p.lines[h.lines.clone()] {
                if let Some(n) = l.old {
                    old_seen.push((n, l.text.clone()));
                }
                if let Some(n) = l.new {
                    new_seen.push((n, l.text.clone()));
                }
            }
        }
        for l in fc.rows(p.hunks.len()).top {
            old_seen.push((l.old, l.text.to_owned()));
            new_seen.push((l.new, l.text.to_owned()));
        }
        let numbered = |v: Vec<String>| -> Vec<(u32, String)> { (1u32..).zip(v).collect() };
        assert_eq!(new_seen, numbered(new_lines), "{path} at the head");
        assert_eq!(old_seen, numbered(old_lines), "{path} at the base");
    }
    assert!(expanded_some, "some hunk had lines above it");
}

/// Offline, a fixture's `fileContents` are the file at a commit: `fixture check` takes them
/// (and refuses a bad SHA, naming where), and expanding a hunk from them gives git's lines.
#[test]
fn a_fixtures_file_contents_expand_a_hunk_offline() {
    use pr_shepherd::source::Fixture;
    use pr_shepherd::source::github::contents::offline_file;
    let story = rebased_pr();
    let repo = &story.repo;
    let walk = "src/walk.rs";
    let env = support::env::TestEnv::new();
    let head = text_at(repo, &story.head2, walk).unwrap();
    let fx = support::demo_with(&env, |v| {
        v["fileContents"] = serde_json::json!([{"sha": story.head2, "path": walk, "text": head}]);
    });
    let out = env
        .bin()
        .args(["fixture", "check"])
        .arg(&fx)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let fixture = Fixture::load(&fx).unwrap();
    let file = offline_file(
        fixture.file_at(&story.head2[..12], walk),
        &story.head2,
        walk,
    )
    .unwrap();
    let patch = story
        .files2()
        .into_iter()
        .find(|f| f["path"] == walk)
        .and_then(|f| f["patch"].as_str().map(str::to_owned))
        .unwrap();
    let p = parse(&patch);
    let mut fc = expand::FileGaps::new(&p.hunks, None, Some(&file.text));
    assert!(fc.expand_above(0, expand::STEP) > 0);
    let lines = lines_at(repo, &story.head2, walk).unwrap();
    let above = fc.rows(0);
    for l in above.top.iter().chain(&above.bottom) {
        assert_eq!(l.text, lines[l.new as usize - 1]);
    }
    assert!(
        offline_file(
            fixture.file_at(&story.head2, "src/nope.rs"),
            &story.head2,
            "src/nope.rs"
        )
        .is_err()
    );

    let bad = support::demo_with(&env, |v| {
        v["fileContents"] = serde_json::json!([{"sha": "not-a-sha", "path": walk, "text": ""}]);
    });
    let out = env
        .bin()
        .args(["fixture", "check"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr(&out).contains("fileContents[0].sha"),
        "{}",
        support::stderr(&out)
    );
}
