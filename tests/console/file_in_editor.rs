//! The diff's `o`: the file in the user's editor at the cursor's line — the head version on the
//! new side (the real file of a checkout at the PR's head, else a private read-only copy), the
//! base version on the old side; headless (the harness) nothing runs and the notice says what
//! would. The real binary in tmux: `e2e_editor.rs`.

use crate::support;

use std::path::{Path, PathBuf};

use pr_shepherd::ledger::Ledger;
use pr_shepherd::source::Fixture;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;
use support::env::TestEnv;

/// The demo's head and base SHAs.
pub(crate) const HEAD: &str = "e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e";
pub(crate) const BASE: &str = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";

/// `src/client/mod.rs` at the demo's head (its patch: `@@ -1,5 +1,7 @@`).
pub(crate) const MOD_HEAD: &str = "mod http;\nmod retry;\n\npub use http::{Client, Error, Response};\npub use retry::{with_retry, RetryPolicy};\n\npub const USER_AGENT: &str = \"rivet/0.9\";\n";
/// The same file at the base.
pub(crate) const MOD_BASE: &str = "mod http;\n\npub use http::{Client, Error, Response};\n\npub const USER_AGENT: &str = \"rivet/0.8\";\n";

/// The demo fixture with `src/client/mod.rs` recorded at its head and base (`fileContents`),
/// and `edit` applied; its path.
pub(crate) fn fixture_with_contents(
    env: &TestEnv,
    edit: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    support::demo_with(env, |v| {
        v["fileContents"] = serde_json::json!([
            {"sha": HEAD, "path": "src/client/mod.rs", "text": MOD_HEAD},
            {"sha": BASE, "path": "src/client/mod.rs", "text": MOD_BASE},
        ]);
        edit(v);
    })
}

/// The console on `fixture` at `w`×`h`, its ledger in `env`'s state dir.
fn harness(env: &TestEnv, fixture: &Path, w: u16, h: u16) -> Harness {
    let f = Fixture::load(fixture).unwrap();
    let snapshot = f.snapshot_at(0).unwrap();
    Harness::new(
        snapshot,
        Some(f),
        Ledger::new(env.state()),
        Theme::default_theme(),
        w,
        h,
    )
    .unwrap()
}

/// The diff of `src/client/mod.rs` (`F j Enter`).
fn mod_diff(h: &mut Harness) {
    h.draw();
    h.press("F j Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/mod.rs"));
}

/// The path a headless notice says the editor would be run on (its last word).
fn would_open(notice: &str) -> PathBuf {
    let cmd = notice
        .split("would run: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{notice}"));
    PathBuf::from(cmd.rsplit(' ').next().unwrap().trim_matches('\''))
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Guards `o` on the new side (an added line), the old side (a removed line) and without an
/// editor: the head version, then the base version, each a private read-only copy named after
/// the file, the `+LINE` the cursor's line on its side; no editor: said, nothing prepared.
#[test]
fn o_opens_the_head_or_the_base_version_at_the_cursors_line() {
    let env = TestEnv::new();
    let fx = fixture_with_contents(&env, |_| {});
    let mut h = harness(&env, &fx, 100, 30);
    mod_diff(&mut h);
    // Without an editor: said, and no file is read.
    h.press("j j j j o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(said.contains("$VISUAL or $EDITOR"), "{said}");
    assert!(h.runner.scratch.root().is_none(), "nothing was written");

    h.set_editor(Some("vi"), None, None);
    // The cursor on `+pub use retry::…`: new line 5.
    h.press("o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("opened the head version of src/client/mod.rs (e5f6a7b) at line 5"),
        "{said}"
    );
    assert!(said.contains("would run: vi +5 "), "{said}");
    let copy = would_open(&said);
    assert_eq!(copy.file_name().unwrap(), "mod.rs");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), MOD_HEAD);
    #[cfg(unix)]
    {
        assert_eq!(mode(&copy), 0o400, "read-only");
        assert_eq!(mode(copy.parent().unwrap()), 0o700, "private");
        assert_eq!(mode(&h.runner.scratch.root().unwrap()), 0o700, "private");
    }

    // Two lines down: the removed `USER_AGENT … 0.8`, old line 5 — the base version.
    h.press("j j o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("opened the base version of src/client/mod.rs (1a2b3c4) at line 5"),
        "{said}"
    );
    let base = would_open(&said);
    assert_ne!(base, copy);
    assert_eq!(std::fs::read_to_string(&base).unwrap(), MOD_BASE);

    // An editor the console does not know gets the template's arguments.
    h.set_editor(Some("gedit --new-window"), Some("+{line} {file}"), None);
    h.press("k o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(said.contains("would run: gedit --new-window +6 "), "{said}");
}

/// Guards the split view: the cursor's side chooses the version (the left: the base at the old
/// line number), as comments do.
#[test]
fn o_in_the_split_view_opens_the_side_the_cursor_is_on() {
    let env = TestEnv::new();
    let fx = fixture_with_contents(&env, |_| {});
    let mut h = harness(&env, &fx, 200, 50);
    h.set_editor(Some("nvim"), None, None);
    mod_diff(&mut h);
    assert!(h.app.diff_split());
    // The row of the modified pair `USER_AGENT`: old line 5 left, new line 7 right.
    h.press("G o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("the head version") && said.contains("would run: nvim +7 "),
        "{said}"
    );
    h.press("h o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("the base version") && said.contains("would run: nvim +5 "),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(would_open(&said)).unwrap(),
        MOD_BASE
    );
}

/// Guards a file the fixture has no contents for: refused in words, nothing run.
#[test]
fn a_file_without_contents_is_refused_in_words() {
    let env = TestEnv::new();
    let fx = fixture_with_contents(&env, |v| v["fileContents"] = serde_json::json!([]));
    let mut h = harness(&env, &fx, 100, 30);
    h.set_editor(Some("vi"), None, None);
    mod_diff(&mut h);
    h.press("o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("cannot open src/client/mod.rs in the editor")
            && said
                .contains("the fixture records no text of `src/client/mod.rs` at commit e5f6a7b"),
        "{said}"
    );
    assert!(
        !h.effects
            .iter()
            .any(|e| matches!(e, pr_shepherd::tui::Effect::EditorAt { .. })),
        "no editor was asked for"
    );
}

/// Guards `[code] checkout`: a clone (made here with git) whose HEAD is the PR's head opens its
/// own file, said; at another HEAD, the read-only copy, and the notice says why; a folder that is
/// no repository, said too.
#[test]
fn a_checkout_at_the_prs_head_opens_the_real_file() {
    let repo = support::gitrepo::GitRepo::new();
    repo.write("src/client/mod.rs", MOD_HEAD);
    let head = repo.commit("the PR's head");
    let env = TestEnv::new();
    let fx = fixture_with_contents(&env, |v| {
        v["pr"]["headSha"] = serde_json::json!(head);
        v["fileContents"][0]["sha"] = serde_json::json!(head);
    });
    let mut h = harness(&env, &fx, 100, 30);
    h.set_editor(Some("vi"), None, Some(repo.path().to_owned()));
    mod_diff(&mut h);
    h.press("j o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    let real = repo.path().join("src/client/mod.rs");
    assert!(
        said.contains("opened src/client/mod.rs in the checkout")
            && said.contains("(its HEAD is the PR's head) at line 2"),
        "{said}"
    );
    assert_eq!(would_open(&said), real, "{said}");

    // Another HEAD: the copy, and why.
    repo.write("src/client/mod.rs", "changed locally\n");
    let other = repo.commit("a local commit");
    h.press("o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("opened the head version of src/client/mod.rs")
            && said.contains(&format!(
                "is at {}, not the PR's head {}",
                &other[..7],
                &head[..7]
            )),
        "{said}"
    );
    let copy = would_open(&said);
    assert_ne!(copy, real);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), MOD_HEAD);

    // Not a repository.
    let plain = tempfile::tempdir().unwrap();
    h.set_editor(Some("vi"), None, Some(plain.path().to_owned()));
    h.press("o");
    let said = h.app.notice().unwrap_or_default().to_owned();
    assert!(
        said.contains("the head version") && said.contains("is not a git repository"),
        "{said}"
    );
}

/// Guards `[code] checkout` against the symlinks a PR chooses, in a real repository: a link to
/// an absolute path outside the checkout, a relative `../../` one, one into the checkout's
/// `.git`, and a file reached through a symlinked folder. None is followed: a link opens as the
/// read-only copy of its blob (the link text), the folder is refused in words, and nothing
/// handed to the editor resolves outside the checkout or into its `.git`.
#[cfg(unix)]
#[test]
fn a_symlink_in_the_checkout_is_never_followed() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "the secret\n").unwrap();
    let repo = support::gitrepo::GitRepo::new();
    repo.write("README.md", "readme\n");
    let base = repo.commit("base");
    let abs = secret.display().to_string();
    // From docs/ of the checkout, `../../` is the folder holding the checkout and `outside`.
    let rel = format!(
        "../../{}/secret.txt",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    assert_eq!(
        repo.path().parent(),
        outside.path().parent(),
        "both in the temporary folder"
    );
    let links = [
        ("docs/link-abs.md", abs.clone()),
        ("docs/link-rel.md", rel.clone()),
        ("docs/git-config.md", "../.git/config".to_owned()),
    ];
    for (path, target) in &links {
        repo.symlink(path, target);
    }
    repo.symlink("vendor", &outside.path().display().to_string());
    let head = repo.commit("links");
    let mut files = repo.pr_files(&base, &head);
    // A file the PR lists beneath the symlinked folder (the checkout reaches it through it).
    files.push(serde_json::json!({
        "path": "vendor/secret.txt", "status": "added", "additions": 1, "deletions": 0,
        "patch": "@@ -0,0 +1 @@\n+the secret",
    }));
    let env = TestEnv::new();
    let fx = support::demo_with(&env, |v| {
        v["pr"]["files"] = serde_json::Value::Array(files.clone());
        v["pr"]["baseSha"] = serde_json::json!(base);
        v["pr"]["headSha"] = serde_json::json!(head);
        v["fileContents"] = serde_json::json!([]);
        v["items"] = serde_json::json!([]);
        v["steps"] = serde_json::json!([]);
    });
    let mut h = harness(&env, &fx, 120, 40);
    h.set_editor(Some("vi"), None, Some(repo.path().to_owned()));
    let checkout = std::fs::canonicalize(repo.path()).unwrap();
    let kept_out = |opened: &Path| {
        let real = std::fs::canonicalize(opened).unwrap();
        assert!(
            !real.starts_with(outside.path()) && real != std::fs::canonicalize(&secret).unwrap(),
            "{} leads outside the checkout",
            real.display()
        );
        assert!(
            !real.starts_with(checkout.join(".git")),
            "{} is in the checkout's .git",
            real.display()
        );
        assert_eq!(mode(&real), 0o400, "{} is read-only", real.display());
    };
    h.draw();
    h.press("F Enter");
    let mut seen = Vec::new();
    for _ in 0..files.len() {
        let path = h.app.diff_path().unwrap().to_owned();
        h.press("o");
        let said = h.app.notice().unwrap_or_default().to_owned();
        if let Some((_, target)) = links.iter().find(|(p, _)| *p == path) {
            assert!(
                said.contains(&format!("opened the head version of {path}"))
                    && said.contains("a read-only copy")
                    && said.contains("is a symlink in the checkout")
                    && said.contains("never followed"),
                "{said}"
            );
            let opened = would_open(&said);
            kept_out(&opened);
            assert_eq!(
                std::fs::read_to_string(&opened).unwrap(),
                *target,
                "the link text"
            );
        } else if path == "vendor/secret.txt" {
            assert!(
                said.contains("cannot open vendor/secret.txt in the editor"),
                "{said}"
            );
            assert!(!said.contains("would run"), "{said}");
        } else {
            assert_eq!(path, "vendor");
            let opened = would_open(&said);
            kept_out(&opened);
        }
        seen.push(path);
        h.press("n");
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "docs/git-config.md",
            "docs/link-abs.md",
            "docs/link-rel.md",
            "vendor",
            "vendor/secret.txt"
        ]
    );
}
