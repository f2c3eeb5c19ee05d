//! The README's screenshots are the console's real screens: each SVG under
//! `assets/screenshots/` is a screen the harness draws on the bundled demo, rendered by
//! `pr_shepherd::tui::screenshot::svg`. A committed picture that differs from its screen fails
//! here, naming the file; `UPDATE_SCREENSHOTS=1 cargo test --test suite project::screenshots`
//! writes them all again.

use crate::support;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::inbox_link::TabSource;
use pr_shepherd::tui::screenshot;
use pr_shepherd::tui::theme::Theme;
use support::console::demo_harness;

/// The command that writes the pictures again.
const UPDATE: &str = "UPDATE_SCREENSHOTS=1 cargo test --test suite project::screenshots";

/// One picture: its file under `assets/screenshots/` and the screen drawn as SVG.
struct Shot {
    file: &'static str,
    svg: String,
}

fn shot(file: &'static str, title: &'static str, h: &Harness) -> Shot {
    let svg = screenshot::svg(h.terminal.backend().buffer(), title);
    Shot { file, svg }
}

/// The inbox of the bundled fixtures, as `cargo run --release` opens it without a token.
fn inbox() -> Shot {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::inbox(
        vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
        Ledger::new(dir.path()),
        Theme::default_theme(),
        120,
        12,
    );
    h.draw();
    shot("inbox.svg", "pr-shepherd — the inbox", &h)
}

/// The demo's PR screen: the items grouped, their badges, the first thread in the detail pane.
fn pr_screen() -> Shot {
    let (mut h, _d) = demo_harness(120, 32);
    h.draw();
    shot("pr.svg", "pr-shepherd acme/rivet#482 — the PR screen", &h)
}

/// The demo after its review (`r`): `src/client/retry.rs` side by side at 200 columns, a
/// finding under its line and a pending comment written with `c`.
fn reviewed_diff() -> (Harness, tempfile::TempDir) {
    let (mut h, d) = demo_harness(200, 50);
    h.draw();
    h.press("r");
    h.press("q");
    h.press("F");
    h.press("Enter");
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    if !h.app.diff_split() {
        h.press("|");
    }
    h.press("] ] ]");
    h.press("c");
    h.type_text("Cap the exponent too: 2u32.pow(n) overflows for n >= 32.");
    // `Esc` adds the comment to the pending review; it shows under its line in the diff.
    h.press("Esc");
    let review = h.app.pending_review().expect("the pending review");
    assert!(
        review
            .comments
            .iter()
            .any(|c| c.body.starts_with("Cap the exponent"))
    );
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    (h, d)
}

fn diff() -> Shot {
    let (h, _d) = reviewed_diff();
    shot(
        "diff.svg",
        "pr-shepherd — src/client/retry.rs, side by side",
        &h,
    )
}

/// The pending review (`P` on the PR screen) at 120 columns: the comment written in the diff
/// and the findings' drafts, one kept and one dropped.
fn pending() -> Shot {
    let (mut h, _d) = reviewed_diff();
    h.press("q q");
    h.resize(120, 50);
    h.press("P");
    h.press("j Enter j j j d g");
    shot("pending.svg", "pr-shepherd — the pending review", &h)
}

#[test]
fn screenshots_are_the_console_screens() {
    let update = std::env::var_os("UPDATE_SCREENSHOTS").is_some();
    let dir = std::path::Path::new("assets/screenshots");
    let mut stale = Vec::new();
    let shots = [inbox(), pr_screen(), diff(), pending()];
    for shot in &shots {
        let path = dir.join(shot.file);
        let committed = std::fs::read_to_string(&path).ok();
        if committed.as_deref() == Some(shot.svg.as_str()) {
            continue;
        }
        if update {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(&path, &shot.svg).unwrap();
        } else {
            stale.push(path.display().to_string());
        }
    }
    // A picture no screen draws any more is not kept.
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".svg") && !shots.iter().any(|s| s.file == name) {
            if update {
                std::fs::remove_file(&path).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "not the console's screens now (changed, missing, or drawn by no screen): {}; `{UPDATE}` writes them again",
        stale.join(", ")
    );
}
