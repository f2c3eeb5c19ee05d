//! Findings readable in full: the review pane's picker wraps each finding (never cut with `…`),
//! `Enter` opens the finding under the cursor whole (its place, message, suggested fix) with its
//! keys — dismiss, lesson, keep, jump to its line — and its own `?`; the pending review's
//! comment pane wraps.

use crate::support;

use pr_shepherd::tui::app::InputMode;
use pr_shepherd::tui::harness::Harness;
use support::console::demo_harness;

/// The demo reviewed offline (its recorded answers), the review pane focused on its findings.
fn reviewed(w: u16, h: u16) -> (Harness, tempfile::TempDir) {
    let (mut h, dir) = demo_harness(w, h);
    h.draw();
    h.press("r");
    if !h.screen().contains("Findings (") {
        h.press("v");
    }
    h.press("Tab");
    (h, dir)
}

/// The screen's text as words: borders and box lines gone, wrapped lines joined.
fn words(screen: &str) -> String {
    screen
        .replace(['│', '┌', '┐', '└', '┘', '─', '▸'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The review pane's rows: the right column beside the list at 120 columns, the whole row below
/// it at 80.
fn pane(screen: &str) -> String {
    screen
        .lines()
        .filter(|l| l.contains('│'))
        .map(|l| l.rsplit("││").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The demo's longest finding: the 429 arm that loops forever, with a long suggested fix.
const LONG: &str = "PS-0b21084caa";

fn select_finding(h: &mut Harness, id: &str) {
    for _ in 0..30 {
        let c = h.app.composed().unwrap();
        let sel = h.app.pr().unwrap().desk.finding_sel;
        if c.finding_rows().get(sel).is_some_and(|(f, _)| f == id) {
            return;
        }
        h.press("j");
    }
    panic!("{id} not among the findings");
}

/// Each finding in the picker wraps under its mark: the whole message is on screen, no `…`.
#[test]
fn the_finding_picker_wraps_findings_instead_of_cutting_them() {
    for (w, hh) in [(80, 24), (120, 35)] {
        let (h, _dir) = reviewed(w, hh);
        let screen = h.screen();
        let picker = pane(&screen);
        assert!(
            !picker.contains('…'),
            "a finding cut at {w}x{hh}:\n{screen}"
        );
        // The first finding, whole, across its lines.
        let first = &h.app.composed().unwrap().finding_rows()[0].1;
        assert!(words(&picker).contains(&words(first)), "{first}\n{screen}");
        insta::assert_snapshot!(format!("finding_picker_{w}x{hh}"), screen);
    }
}

/// `Enter` on a long finding opens it whole: its severity, aspect and place, the message and
/// the suggested fix, every word of them; `Esc` goes back to the findings.
#[test]
fn enter_opens_a_long_finding_whole_with_its_suggested_fix() {
    for (w, hh) in [(80, 24), (120, 35)] {
        let (mut h, _dir) = reviewed(w, hh);
        select_finding(&mut h, LONG);
        h.press("Enter");
        let f = h.app.opened_finding().expect("the finding is open").clone();
        assert_eq!(f.id, LONG);
        let screen = h.screen();
        let shown = words(&screen);
        assert!(shown.contains("critical · correctness · new"), "{screen}");
        assert!(shown.contains("src/client/retry.rs:41"), "{screen}");
        assert!(shown.contains(&words(&f.message)), "message cut:\n{screen}");
        let fix = f.suggested_fix.as_deref().unwrap();
        assert!(shown.contains(&words(fix)), "fix cut:\n{screen}");
        let boxed: Vec<&str> = screen.lines().filter(|l| l.starts_with('│')).collect();
        assert!(boxed.iter().all(|l| !l.contains('…')), "{screen}");
        insta::assert_snapshot!(format!("finding_opened_{w}x{hh}"), screen);
        h.press("Esc");
        assert!(h.app.opened_finding().is_none());
        assert!(
            h.screen().contains("▸ critical [new] The `Ok(resp)"),
            "{}",
            h.screen()
        );
    }
}

/// `D` from the opened finding asks its reason and dismisses it: it leaves the review and the
/// view gives way to the findings.
#[test]
fn d_on_the_opened_finding_dismisses_it() {
    let (mut h, _dir) = reviewed(120, 35);
    select_finding(&mut h, LONG);
    let before = h.app.composed().unwrap().finding_rows().len();
    h.press("Enter");
    assert_eq!(h.app.opened_finding().map(|f| f.id.as_str()), Some(LONG));
    h.press("D");
    assert!(
        matches!(h.app.mode(), InputMode::Search { .. }),
        "{:?}",
        h.app.mode()
    );
    // The reason is asked with the finding still whole on screen.
    assert!(
        h.screen().contains(&format!("Finding {LONG}")),
        "{}",
        h.screen()
    );
    h.type_text("the proxy never answers 429 twice");
    h.press("Enter");
    let rows = h.app.composed().unwrap().finding_rows();
    assert_eq!(rows.len(), before - 1);
    assert!(rows.iter().all(|(id, _)| id != LONG), "{rows:?}");
    assert!(h.app.opened_finding().is_none());
    assert!(!h.app.draft().unwrap().body().contains(LONG));
}

/// `F` from the opened finding opens the file's diff with the cursor on the finding's line,
/// through the files screen; `Enter` keeps it and goes back to the findings.
#[test]
fn the_opened_finding_jumps_to_its_line_and_keeps() {
    let (mut h, _dir) = reviewed(120, 35);
    select_finding(&mut h, LONG);
    h.press("Enter");
    h.press("F");
    assert_eq!(h.app.diff_path(), Some("src/client/retry.rs"));
    let sel = h.app.diff_selection().expect("a line under the cursor");
    assert_eq!(sel.end.line, 41, "{sel:?}");
    assert!(h.screen().contains("▶"), "{}", h.screen());
    // Back through the files screen to the finding, still open.
    h.press("q q");
    assert_eq!(h.app.opened_finding().map(|f| f.id.as_str()), Some(LONG));
    h.press("Enter");
    assert!(h.app.opened_finding().is_none());
    assert!(
        h.app.notice().unwrap_or("").contains("kept"),
        "{:?}",
        h.app.notice()
    );
    assert_eq!(h.app.composed().unwrap().finding_rows().len(), 18);
}

/// The opened finding's `?` lists its own keys, as the keymap names them.
#[test]
fn the_opened_findings_help_lists_its_keys() {
    let (mut h, _dir) = reviewed(120, 35);
    h.press("Enter");
    h.press("?");
    let screen = h.screen();
    for want in [
        "D  dismiss it with a reason",
        "L  dismiss it for the whole repository",
        "Enter  keep it",
        "F  jump to its line",
    ] {
        assert!(screen.contains(want), "{want}:\n{screen}");
    }
}

/// The pending review's comment pane wraps a finding's draft instead of cutting it.
#[test]
fn the_pending_reviews_comment_wraps() {
    let (mut h, _dir) = reviewed(80, 24);
    h.press("Tab");
    h.press("P");
    let screen = h.screen();
    let review = h.app.pending_review().expect("read");
    let c = &review.comments[h.app.pending().unwrap().selected()];
    let first = c.body.lines().next().unwrap();
    assert!(words(&screen).contains(&words(first)), "{first}\n{screen}");
    insta::assert_snapshot!("pending_comment_wraps_80x24", screen);
}

/// A comment longer than its pane scrolls there (`Ctrl-d`): the end of a finding's draft, its
/// suggested fix's last words, comes into view at 80×24.
#[test]
fn the_pending_reviews_comment_scrolls_to_its_end() {
    let (mut h, _dir) = reviewed(80, 24);
    h.press("Tab");
    h.press("P");
    let review = h.app.pending_review().expect("read");
    let c = &review.comments[h.app.pending().unwrap().selected()];
    let last = c
        .body
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap()
        .to_owned();
    assert!(
        !words(&h.screen()).contains(&words(&last)),
        "already whole: {last}"
    );
    h.press("ctrl-d");
    let shown = words(&h.screen());
    assert!(shown.contains(&words(&last)), "{last}: {}", h.screen());
}

/// A verified finding with a rule opens with them: the rule, the verifier's confidence and its
/// evidence — sanitized, as everything a model wrote (no escape sequence reaches the terminal).
#[test]
fn the_opened_finding_shows_rule_confidence_and_evidence_sanitized() {
    let (mut h, _dir) = reviewed(120, 35);
    select_finding(&mut h, LONG);
    {
        let composed = h.app.pr_mut().unwrap().desk.composed.as_mut().unwrap();
        let f = composed
            .run
            .aspects
            .iter_mut()
            .flat_map(|a| a.findings.iter_mut())
            .find(|f| f.id == LONG)
            .unwrap();
        f.rule = Some("AGENTS.md § Retries".into());
        f.verified = Some(pr_shepherd::review::findings::Verdict {
            confidence: 92,
            evidence: "line 41 loops on 429 \u{1b}[31mwithout\u{1b}[0m a bound".into(),
        });
    }
    h.press("Enter");
    let screen = h.screen();
    let shown = words(&screen);
    assert!(shown.contains("Rule AGENTS.md § Retries"), "{screen}");
    assert!(shown.contains("Verified · confidence 92"), "{screen}");
    assert!(shown.contains("line 41 loops on 429"), "{screen}");
    assert!(shown.contains("a bound"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "{screen:?}");
}
