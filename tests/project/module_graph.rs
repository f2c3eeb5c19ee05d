//! The module graph stays one-way: `pr` (pure data) at the bottom; `source`, `ledger`,
//! `review`, `publish`, `policy`, `triage` above it without circles; `commands` and `tui` on top.
//! This reads `src/` the way `../shared/tools/modgraph.py` does — the paths each file names
//! through `crate::…` (and `super::…` that climbs to the crate root), in non-test code only — and
//! fails, printing the circle, when modules import each other directly or around one.
//!
//! The same check runs over every folder of `src/`: the modules of one folder (its files and its
//! sub-folders, each with everything below it) import one way too. A circle there is broken by
//! giving the shared piece its own file (as `ledger/marker.rs` did for `seen` and `seen_index`)
//! or by moving it below both (as `net.rs` did for the TLS setup of GitHub's `auth` and
//! `client`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// module -> the modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// One `.rs` file of the crate, with its module path (`["ledger", "seen"]` for
/// `src/ledger/seen.rs`, `["ledger"]` for `src/ledger/mod.rs`).
struct SourceFile {
    module: Vec<String>,
    /// The production text: test modules cut off, `//` comments removed.
    text: String,
}

/// Every non-test `.rs` file under `src`, except the crate roots and binaries.
fn source_files(src: &Path) -> Vec<SourceFile> {
    let mut out = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let rel = path.strip_prefix(src).expect("under src");
            let parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if path.is_dir() {
                if parts[0] != "bin" && parts.last().map(String::as_str) != Some("tests") {
                    dirs.push(path);
                }
                continue;
            }
            let Some(stem) = parts.last().and_then(|f| f.strip_suffix(".rs")) else {
                continue;
            };
            if parts.len() == 1 && (stem == "main" || stem == "lib") || stem == "tests" {
                continue;
            }
            let mut module = parts[..parts.len() - 1].to_vec();
            if stem != "mod" {
                module.push(stem.to_owned());
            }
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            out.push(SourceFile {
                module,
                text: production_text(&text),
            });
        }
    }
    out
}

/// The text before the first `#[cfg(test)] mod …`, without `//` comments.
fn production_text(text: &str) -> String {
    let mut end = text.len();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        let rest = text[start + "#[cfg(test)]".len()..].trim_start();
        let rest = rest.strip_prefix("pub ").map_or(rest, str::trim_start);
        if rest.starts_with("mod ") {
            end = start;
            break;
        }
        from = start + 1;
    }
    text[..end]
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_ws(s: &[u8], i: &mut usize) {
    while *i < s.len() && s[*i].is_ascii_whitespace() {
        *i += 1;
    }
}

/// Reads a path (or a `use` tree) starting at `i`, after `prefix`, into absolute paths.
/// `a::b::{c, d::e}` after `[x]` gives `[x, a, b, c]` and `[x, a, b, d, e]`.
fn read_tree(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    skip_ws(s, i);
    if *i < s.len() && s[*i] == b'{' {
        *i += 1;
        loop {
            skip_ws(s, i);
            if *i >= s.len() {
                return;
            }
            if s[*i] == b'}' {
                *i += 1;
                return;
            }
            read_tree(s, i, prefix.clone(), out);
            // Skip `as name` and anything else up to the next entry.
            while *i < s.len() && s[*i] != b',' && s[*i] != b'}' {
                *i += 1;
            }
            if *i < s.len() && s[*i] == b',' {
                *i += 1;
            }
        }
    }
    let start = *i;
    while *i < s.len() && is_ident(s[*i]) {
        *i += 1;
    }
    let ident = String::from_utf8_lossy(&s[start..*i]).into_owned();
    let mut path = prefix;
    if !ident.is_empty() && ident != "self" {
        path.push(ident.clone());
    }
    if !ident.is_empty() && s[*i..].starts_with(b"::") {
        *i += 2;
        read_tree(s, i, path, out);
    } else {
        out.push(path);
    }
}

/// The absolute module paths a file names through `crate::…` or `super::…`.
fn named_paths(file: &SourceFile) -> Vec<Vec<String>> {
    let s = file.text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let boundary = i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == b':');
        if boundary && s[i..].starts_with(b"crate::") {
            i += "crate::".len();
            read_tree(s, &mut i, Vec::new(), &mut out);
        } else if boundary && s[i..].starts_with(b"super::") {
            let mut up = 0;
            while s[i..].starts_with(b"super::") {
                up += 1;
                i += "super::".len();
            }
            let Some(keep) = file.module.len().checked_sub(up) else {
                continue;
            };
            read_tree(s, &mut i, file.module[..keep].to_vec(), &mut out);
        } else {
            i += 1;
        }
    }
    out
}

/// Which top-level modules each top-level module names.
fn top_level_graph(files: &[SourceFile]) -> Graph {
    folder_graph(files, &[])
}

/// Which modules of the folder at `parent` (e.g. `["review"]` for `src/review/`) name each
/// other. A module of the folder is a file in it or a sub-folder, and speaks for every file below
/// it: `review/llm/structured.rs` naming `crate::review::findings` is `llm -> findings`. The
/// folder's own `mod.rs` is not among them (a parent uses its children by construction).
fn folder_graph(files: &[SourceFile], parent: &[&str]) -> Graph {
    let below =
        |f: &&SourceFile| f.module.len() > parent.len() && f.module.starts_with_strs(parent);
    let children: BTreeSet<&String> = files
        .iter()
        .filter(below)
        .map(|f| &f.module[parent.len()])
        .collect();
    let mut g = Graph::new();
    for f in files.iter().filter(below) {
        let from = &f.module[parent.len()];
        let edges = g.entry(from.clone()).or_default();
        for path in named_paths(f) {
            if path.len() > parent.len() && path.starts_with_strs(parent) {
                let to = &path[parent.len()];
                if to != from && children.contains(to) {
                    edges.insert(to.clone());
                }
            }
        }
    }
    g
}

/// Every folder of the crate with two modules or more, as its module path (`["source",
/// "github"]`).
fn folders(files: &[SourceFile]) -> Vec<Vec<String>> {
    let mut children: BTreeMap<Vec<String>, BTreeSet<&String>> = BTreeMap::new();
    for f in files {
        for depth in 1..f.module.len() {
            children
                .entry(f.module[..depth].to_vec())
                .or_default()
                .insert(&f.module[depth]);
        }
    }
    children
        .into_iter()
        .filter(|(_, c)| c.len() >= 2)
        .map(|(folder, _)| folder)
        .collect()
}

trait StartsWithStrs {
    fn starts_with_strs(&self, prefix: &[&str]) -> bool;
}

impl StartsWithStrs for Vec<String> {
    fn starts_with_strs(&self, prefix: &[&str]) -> bool {
        self.len() >= prefix.len() && self.iter().zip(prefix).all(|(a, b)| a == b)
    }
}

/// The strongly connected groups of more than one module (Tarjan), each with its members sorted.
fn knots(g: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        g: &'g Graph,
        next: usize,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.out.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        g,
        next: 0,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

/// One shortest circle through the first member of `knot`: `a -> b -> c -> a`.
fn circle(g: &Graph, knot: &[String]) -> String {
    let start = &knot[0];
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g.get(v).into_iter().flatten() {
            if !knot.contains(w) {
                continue;
            }
            if w == start {
                let mut path = vec![start.as_str(), v.as_str()];
                let mut at = v;
                while let Some(prev) = came_from.get(at) {
                    path.push(prev);
                    at = prev;
                }
                path.reverse();
                return path.join(" -> ");
            }
            if !came_from.contains_key(w) && w != start {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    knot.join(", ")
}

/// Every circle of `g`, described for a failure message; empty when the graph is one-way.
fn circles(g: &Graph) -> Vec<String> {
    knots(g)
        .iter()
        .map(|knot| {
            let edges: Vec<String> = knot
                .iter()
                .flat_map(|a| {
                    g[a].iter()
                        .filter(|b| knot.contains(b))
                        .map(move |b| format!("{a} -> {b}"))
                })
                .collect();
            format!(
                "circle {} (every edge inside it: {})",
                circle(g, knot),
                edges.join(", ")
            )
        })
        .collect()
}

fn crate_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn top_level_modules_import_one_way() {
    let files = source_files(&crate_src());
    let g = top_level_graph(&files);
    assert!(g.len() > 10, "the scan found the modules: {g:?}");
    let found = circles(&g);
    assert!(
        found.is_empty(),
        "top-level modules of src/ import each other:\n  {}\nMove the shared piece down (pure data \
         into `pr`, or a module both can use) instead of importing upwards.",
        found.join("\n  ")
    );
}

#[test]
fn pr_is_the_bottom_and_commands_the_top() {
    let g = top_level_graph(&source_files(&crate_src()));
    assert_eq!(
        g.get("pr"),
        Some(&BTreeSet::new()),
        "`pr` is pure data and imports no other module of the crate"
    );
    for (from, to) in &g {
        assert!(
            !to.contains("commands"),
            "`{from}` imports `commands`, which is the top"
        );
        if from != "commands" {
            assert!(
                !to.contains("tui"),
                "`{from}` imports `tui`; only `commands` may"
            );
        }
    }
}

#[test]
fn no_folder_has_a_circle() {
    let files = source_files(&crate_src());
    let all = folders(&files);
    let names: Vec<String> = all.iter().map(|f| f.join("/")).collect();
    for must in ["ledger", "source/github", "review", "review/llm", "tui"] {
        assert!(
            names.iter().any(|n| n == must),
            "the scan found src/{must}: {names:?}"
        );
    }
    let mut failures = Vec::new();
    for folder in &all {
        let parent: Vec<&str> = folder.iter().map(String::as_str).collect();
        let name = folder.join("/");
        let found = circles(&folder_graph(&files, &parent));
        if !found.is_empty() {
            failures.push(format!(
                "files of src/{name} import each other:\n    {}",
                found.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\nBreak a circle by giving the shared piece its own file (or moving it to a module \
         both can import).",
        failures.join("\n")
    );
}

/// Writes a small crate tree; returns its `src`.
fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let src = dir.path().join("src");
    for (path, text) in files {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    (dir, src)
}

#[test]
fn the_check_finds_a_circle_around_three_modules_and_ignores_tests_and_comments() {
    let (_dir, src) = tree(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod d;"),
        ("a.rs", "use crate::b::X;\n// use crate::d::Nope;\n"),
        ("b/mod.rs", "mod inner;\npub fn f() { crate::c::g() }\n"),
        // `super::super` from b/inner climbs to the crate root: b -> d.
        ("b/inner.rs", "use super::super::d::Y;\n"),
        ("c.rs", "use crate::{\n    a::{self, Z},\n    d,\n};\n"),
        (
            "d.rs",
            "pub struct Y;\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
        ),
        ("d/tests.rs", "use crate::a::X;"),
    ]);
    let g = top_level_graph(&source_files(&src));
    assert_eq!(g["b"], BTreeSet::from(["c".to_owned(), "d".to_owned()]));
    assert_eq!(g["d"], BTreeSet::new(), "test code does not count");
    let found = circles(&g);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("circle a -> b -> c -> a"), "{found:?}");
}

#[test]
fn the_check_finds_two_files_that_import_each_other() {
    let (_dir, src) = tree(&[
        ("ledger/mod.rs", "mod seen;\nmod seen_index;\nmod draft;\n"),
        ("ledger/seen.rs", "use super::seen_index::{self, Stamp};\n"),
        (
            "ledger/seen_index.rs",
            "use crate::ledger::{draft, seen::Marker};\n",
        ),
        ("ledger/draft.rs", "use super::{Ledger, LedgerError};\n"),
    ]);
    let g = folder_graph(&source_files(&src), &["ledger"]);
    assert_eq!(
        circles(&g),
        vec![
            "circle seen -> seen_index -> seen (every edge inside it: seen -> seen_index, \
             seen_index -> seen)"
                .to_owned()
        ]
    );
}

#[test]
fn a_folders_module_speaks_for_the_files_below_it() {
    let (_dir, src) = tree(&[
        ("lib.rs", "pub mod review;"),
        ("review/mod.rs", "pub mod findings;\npub mod llm;\n"),
        ("review/findings.rs", "use super::llm::Wire;\n"),
        ("review/llm/mod.rs", "mod http;\nmod structured;\n"),
        // Two levels down, and still `llm -> findings` in src/review.
        (
            "review/llm/structured.rs",
            "use crate::review::findings::contract;\n",
        ),
        ("review/llm/http.rs", "use super::structured::Shape;\n"),
    ]);
    let files = source_files(&src);
    assert_eq!(
        folders(&files),
        [
            vec!["review".to_owned()],
            vec!["review".to_owned(), "llm".to_owned()]
        ]
    );
    assert_eq!(
        circles(&folder_graph(&files, &["review"])),
        vec![
            "circle findings -> llm -> findings (every edge inside it: findings -> llm, llm -> \
             findings)"
                .to_owned()
        ]
    );
    assert!(circles(&folder_graph(&files, &["review", "llm"])).is_empty());
}
