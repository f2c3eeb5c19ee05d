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
