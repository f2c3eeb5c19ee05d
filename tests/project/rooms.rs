//! The review engine stays in rooms and its names keep one meaning each: `src/review/` holds at
//! most ten files directly (the rest is in `engine/`, `inputs/`, `results/` and `llm/`), the
//! crate has at most two types named `…Context`, and "screen" means a console screen, not the
//! screening of findings (`review::results::screening`). docs/architecture.md says where each
//! room's files go.

use std::path::{Path, PathBuf};

fn crate_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `.rs` files directly in `dir`, by name, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            p.file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    out.sort();
    out
}

/// Every `.rs` file under `dir`.
fn every_file(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The names of the types declared as `struct`, `enum`, `trait` or `type` `NameContext` (a whole
/// word ending in `Context`).
fn context_types(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for path in every_file(src) {
        let text = std::fs::read_to_string(&path).expect("a source file");
        let declared = ["struct ", "enum ", "trait ", "type "]
            .iter()
            .flat_map(|kw| text.split(kw).skip(1));
        for rest in declared {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.ends_with("Context") {
                let rel = path.strip_prefix(src).expect("under src");
                out.push(format!("{name} ({})", rel.display()));
            }
        }
    }
    out
}

#[test]
fn the_review_engine_keeps_at_most_ten_files_at_its_top() {
    let review = crate_src().join("review");
    let top = files_in(&review);
    assert!(top.contains(&"mod.rs".to_owned()), "{top:?}");
    assert!(
        top.len() <= 10,
        "src/review/ holds {} files directly ({top:?}); put a new one in its room: engine/ (the \
         scheduler and its calls), inputs/ (what a call is given), results/ (what comes out), \
         llm/ (the backends)",
        top.len()
    );
    for room in ["engine", "inputs", "results", "llm"] {
        assert!(
            review.join(room).join("mod.rs").is_file(),
            "src/review/{room}/"
        );
    }
}

#[test]
fn at_most_two_types_are_named_context() {
    let found = context_types(&crate_src());
    assert!(
        found.len() <= 2,
        "{} types are named `…Context`: {found:?}; name a type for what it holds",
        found.len()
    );
}

#[test]
fn the_review_engine_has_no_screen_runner_or_context_file() {
    let review = crate_src().join("review");
    for gone in ["screen.rs", "runner.rs", "context.rs"] {
        let hits: Vec<PathBuf> = every_file(&review)
            .into_iter()
            .filter(|p| {
                p.file_name().is_some_and(|n| n == gone)
                    && p.parent() != Some(review.join("llm").as_path())
            })
            .collect();
        assert!(
            hits.is_empty(),
            "{hits:?}: the review engine's file names keep one meaning (screening.rs, \
             engine/scheduler.rs, inputs/blocks.rs)"
        );
    }
}
