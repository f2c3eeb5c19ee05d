//! Console screens as insta snapshots over ratatui's TestBackend, plus style assertions.

use crate::support;

use pr_shepherd::ledger::Ledger;
use pr_shepherd::pr::Item;
use pr_shepherd::tui::harness::Harness;
use pr_shepherd::tui::theme::Theme;
use ratatui::style::Color;
use support::console::{demo_harness, harness_with, select_id};

/// A conversation comment of the demo.
const COMMENT: &str = "IC_kwDOKq3xZs6Aa0001";

/// The screen with the item `id` selected (after a first frame).
fn shown(h: &mut Harness, id: &str) -> String {
    h.draw();
    select_id(h, id);
    h.draw();
    h.screen()
}

/// The demo's first snapshot titled `title`, each item changed by `edit`, at `w`×40.
fn demo_edited(title: String, w: u16, edit: impl FnMut(&mut Item)) -> (Harness, tempfile::TempDir) {
    let mut s = support::demo_fixture().snapshot_at(0).unwrap();
    s.pr.title = title;
    s.items.iter_mut().for_each(edit);
    harness_with(s, None, w, 40)
}

/// Cells (x, y) where `text` starts on screen.
fn find(h: &Harness, text: &str) -> Vec<(u16, u16)> {
    let screen = h.screen();
    let mut out = Vec::new();
    for (y, line) in screen.lines().enumerate() {
        let mut start = 0;
        while let Some(p) = line[start..].find(text) {
            let col = line[..start + p].chars().count();
            out.push((col as u16, y as u16));
            start += p + text.len();
        }
    }
    out
}

#[test]
fn demo_list_and_detail() {
    let (mut h, _d) = demo_harness(120, 40);
    h.draw();
    insta::assert_snapshot!("demo_120x40", h.screen());
}

#[test]
fn demo_80x24() {
    let (mut h, _d) = demo_harness(80, 24);
    h.draw();
    insta::assert_snapshot!("demo_80x24", h.screen());
}

#[test]
fn tiny_terminal_says_too_small_and_marks_nothing() {
    let (mut h, dir) = demo_harness(30, 8);
    let drawn = h.draw();
    assert_eq!(drawn.shown, None);
    insta::assert_snapshot!("tiny_30x8", h.screen());
    let seen = Ledger::new(dir.path())
        .load_seen(&h.app.pr_meta().unwrap().coords())
        .unwrap();
    assert!(seen.markers.is_empty());
    // Growing the terminal shows the console again.
    h.resize(100, 30);
    assert!(h.draw().shown.is_some());
}

#[test]
fn help_overlay_lists_every_binding() {
    // Tall enough for one column of every binding (the review keys made the list longer).
    let (mut h, _d) = demo_harness(100, 70);
    h.draw();
    h.press("?");
    let screen = h.screen();
    // The files', the diff's, the inbox's and the checks' own keys are in their screens' help.
    let own = |help: &str| {
        help.starts_with("files: ")
            || help.starts_with("diff: ")
            || help.starts_with("inbox: ")
            || help.starts_with("checks: ")
            || help.starts_with("pending review: ")
    };
    for (_, _, _, help) in pr_shepherd::tui::keymap::COMMANDS {
        if !own(help) {
            assert!(screen.contains(help), "help lacks `{help}`:\n{screen}");
        }
    }
    h.press("Esc");
    assert!(!h.screen().contains("this help"));
}

/// How the help overlay looks, pinned on the description screen, whose keys rarely change: a new
/// key of another screen is checked by `help_overlay_lists_every_binding`, without re-pinning a
/// snapshot (a new screen's recipe touches no shared test file).
#[test]
fn help_overlay_looks() {
    let (mut h, _d) = demo_harness(100, 30);
    h.draw();
    h.press("i");
    h.press("?");
    insta::assert_snapshot!("help_overlay_description", h.screen());
}

#[test]
fn search_is_incremental() {
    let (mut h, _d) = demo_harness(100, 30);
    h.draw();
    h.press("/");
    h.type_text("tsx");
    insta::assert_snapshot!("search_typing", h.screen());
    h.press("Enter");
    assert!(
        h.app
            .selected_item()
            .unwrap()
            .location()
            .unwrap()
            .ends_with(".tsx:41")
            || h.app
                .selected_item()
                .unwrap()
                .location()
                .unwrap()
                .contains(".tsx")
    );
    // n wraps to the same single match.
    let before = h.app.selected_row().unwrap();
    h.press("n");
    assert_eq!(h.app.selected_row(), Some(before));
}

#[test]
fn filters_after_stepping_show_only_new_and_edited() {
    let (mut h, _d) = demo_harness(100, 30);
    h.draw();
    h.press("M y > >");
    h.press("f u Esc");
    insta::assert_snapshot!("filter_new_edited", h.screen());
}

#[test]
fn every_badge_has_its_style() {
    let (mut h, _d) = demo_harness(140, 44);
    h.draw();
    // Mark everything, then step: items become unchanged, edited and new.
    h.press("M y > >");
    let screen = h.screen();
    insta::assert_snapshot!("badges_step2", screen);
    let t = Theme::default_theme();
    for (label, style) in [
        (" NEW ", t.badge_new),
        (" EDITED ", t.badge_edited),
        (" UNCHANGED ", t.badge_unchanged),
        (" OUTDATED ", t.badge_outdated),
        (" RESOLVED ", t.badge_resolved),
        (" MINIMIZED(", t.badge_minimized),
        ("APPROVED", t.state_approved),
        ("CHANGES_REQUESTED", t.state_changes_requested),
        ("DISMISSED", t.state_dismissed),
    ] {
        let spots = find(&h, label);
        assert!(!spots.is_empty(), "no {label} on screen:\n{screen}");
        let buf = h.terminal.backend().buffer();
        // Some row shows the badge in its own colours (the selected row is re-styled).
        let ok = spots.iter().any(|&(x, y)| {
            let cell = &buf[(x + 1, y)];
            cell.fg == style.fg.unwrap_or(Color::Reset)
                && cell.bg == style.bg.unwrap_or(Color::Reset)
        });
        assert!(ok, "{label} not styled as the theme says");
    }
}

#[test]
fn empty_pr() {
    let mut s = support::demo_fixture().snapshot_at(0).unwrap();
    s.items.clear();
    let (mut h, _d) = harness_with(s, None, 90, 24);
    assert_eq!(h.draw().shown, None);
    h.press("j G ] m M o");
    insta::assert_snapshot!("empty_pr", h.screen());
}

#[test]
fn thread_hunk_is_syntax_highlighted() {
    let (mut h, _d) = demo_harness(120, 40);
    shown(&mut h, "PRRT_kwDOKq3xZs5hQ1aA");
    let item = h.app.selected_item().unwrap().clone();
    let Item::Thread(t) = &item else { panic!() };
    assert!(t.path.ends_with(".rs"));
    let key = pr_shepherd::tui::App::highlight_key(&item).unwrap();
    assert!(h.app.highlight(&key).is_some(), "highlight was not cached");
    insta::assert_snapshot!("thread_highlighted", h.screen());

    // Cells of an added (+) hunk line keep the diff background and carry several syntax colours.
    let theme = Theme::default_theme();
    let buf = h.terminal.backend().buffer();
    let screen = h.screen();
    let (added_row, added_col) = screen
        .lines()
        .enumerate()
        .find_map(|(y, l)| {
            let p = l.find("│+")?;
            (!l[p..].starts_with("│++")).then(|| (y as u16, l[..p].chars().count() as u16 + 1))
        })
        .expect("an added hunk line on screen");
    let mut fgs = std::collections::HashSet::new();
    let mut diff_bg = 0;
    for x in added_col..buf.area.width {
        let cell = &buf[(x, added_row)];
        if Some(cell.bg) == theme.diff_added.bg {
            diff_bg += 1;
            if cell.symbol() != " " {
                fgs.insert(cell.fg);
            }
        }
    }
    assert!(diff_bg > 5, "added line lacks the diff background");
    assert!(
        fgs.len() >= 2,
        "added line is not syntax-highlighted: {fgs:?}"
    );

    // The TypeScript thread falls back to JavaScript highlighting.
    select_id(&mut h, "PRRT_kwDOKq3xZs5hQ1dD");
    h.draw();
    let key = pr_shepherd::tui::App::highlight_key(h.app.selected_item().unwrap()).unwrap();
    let lines = h.app.highlight(&key).unwrap();
    let colours: std::collections::HashSet<_> = lines
        .iter()
        .flat_map(|l| l.spans.iter().filter_map(|s| s.style.fg))
        .collect();
    assert!(colours.len() > 3, "tsx hunk not highlighted");
}

#[test]
fn hostile_text_never_reaches_the_terminal() {
    let evil = "clear\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7} csi\u{9b}31m bidi\u{202e}txt.exe zw\u{200b}sp bell\u{7} nul\u{0}";
    let (mut h, _d) = demo_edited(format!("title {evil}"), 120, |it| {
        if let Item::Comment(c) = it {
            c.body = format!("{evil}\nsecond line {evil}");
            c.author.login = "mal\u{1b}[31mlory".to_owned();
        }
        if let Item::Thread(t) = it {
            t.diff_hunk = format!("@@ -1 +1 @@\n+let x = \"{evil}\";");
            t.path = "src/a\u{202e}sr.rs".to_owned();
        }
    });
    let screen = shown(&mut h, COMMENT);
    for bad in ['\u{1b}', '\u{9b}', '\u{202e}', '\u{200b}', '\u{7}', '\u{0}'] {
        assert!(!screen.contains(bad), "{:?} reached the screen", bad);
    }
    assert!(screen.contains("␛[2J"));
    assert!(screen.contains("⟨U+202E⟩"));
    insta::assert_snapshot!("hostile_comment", screen);
    let screen = shown(&mut h, "PRRT_kwDOKq3xZs5hQ1aA");
    assert!(!screen.contains('\u{1b}') && !screen.contains('\u{202e}'));
}

/// Invisible characters (failed before: tag characters and the other invisible characters reached
/// the screen as nothing, hiding text): each is shown as a visible placeholder.
#[test]
fn invisible_unicode_is_shown_as_placeholders() {
    let hidden = "\u{e0041}\u{e0042}\u{fe0f}\u{34f}\u{3164}\u{2062}";
    let (mut h, _d) = demo_edited(format!("title{hidden}end"), 160, |it| {
        if let Item::Comment(c) = it {
            c.body = format!("body{hidden}end");
        }
    });
    let screen = shown(&mut h, COMMENT);
    for bad in hidden.chars() {
        assert!(
            !screen.contains(bad),
            "U+{:04X} reached the screen",
            bad as u32
        );
    }
    assert!(screen.contains("title⟨U+E0041⟩⟨U+E0042⟩"), "{screen}");
    assert!(
        screen.contains("body⟨U+E0041⟩⟨U+E0042⟩⟨U+FE0F⟩⟨U+034F⟩⟨U+3164⟩⟨U+2062⟩end"),
        "{screen}"
    );
}

#[test]
fn no_color_theme_has_no_colours() {
    let f = support::demo_fixture();
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::new(
        f.snapshot_at(0).unwrap(),
        None,
        Ledger::new(dir.path()),
        Theme::plain(),
        100,
        30,
    )
    .unwrap();
    h.draw();
    let buf = h.terminal.backend().buffer();
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset);
        assert_eq!(cell.bg, Color::Reset);
    }
    assert!(h.screen().contains(" NEW "));
}

#[test]
fn review_progress_line_shows_in_header() {
    let (mut h, _d) = demo_harness(100, 30);
    h.draw();
    // `r` without performing its effects: the run is in flight.
    let _in_flight = h.app.update(pr_shepherd::tui::Action::Command(
        pr_shepherd::tui::keymap::KeyCommand::Review,
    ));
    h.draw();
    let screen = h.screen();
    let line = screen.lines().nth(3).unwrap();
    assert!(line.contains("review: 0/6 done"), "{screen}");
    assert!(line.contains("gate:"), "{screen}");
}

/// The highlighted hunk as styled text: each span as `⟨fg on bg⟩text`, so a change of colour or
/// of syntax scoping shows up in review.
#[test]
fn highlighted_hunk_styles_snapshot() {
    let theme = Theme::default_theme();
    let hunk = "@@ -10,3 +10,4 @@ impl RetryPolicy {\n     pub fn delay(&self, n: u32) -> Duration {\n-        let exp = self.base_delay * 2u32.pow(n);\n+        // Saturate instead of overflowing.\n+        let exp = self.base_delay.saturating_mul(2u32.saturating_pow(n));\n";
    let lines = pr_shepherd::tui::highlight::highlight_hunk("src/client/retry.rs", hunk, &theme);
    let colour = |c: Option<Color>| match c {
        Some(Color::Rgb(r, g, b)) => format!("#{r:02x}{g:02x}{b:02x}"),
        Some(other) => format!("{other:?}"),
        None => "-".to_owned(),
    };
    let text: String = lines
        .iter()
        .map(|l| {
            let mut s = String::new();
            if l.spans.len() == 1 || l.style != Default::default() {
                s.push_str(&format!(
                    "⟨line {} on {}⟩",
                    colour(l.style.fg),
                    colour(l.style.bg)
                ));
            }
            for sp in &l.spans {
                s.push_str(&format!(
                    "⟨{} on {}⟩{}",
                    colour(sp.style.fg),
                    colour(sp.style.bg),
                    sp.content
                ));
            }
            s.push('\n');
            s
        })
        .collect();
    insta::assert_snapshot!("hunk_styles", text);
}

#[test]
fn aspects_panel_and_header_mid_run() {
    use pr_shepherd::review::{Aspect, ReviewEvent};
    use pr_shepherd::tui::keymap::KeyCommand;
    use pr_shepherd::tui::{Action, Asked, Effect};
    use std::time::Duration;
    let (mut h, _d) = demo_harness(100, 30);
    h.draw();
    // Start a run without performing the effect: the events below stand in for the task.
    let fx = h.app.update(Action::Command(KeyCommand::Review));
    assert!(matches!(
        fx.as_slice(),
        [Asked {
            effect: Effect::StartReview {
                seq: 1,
                full: false,
                ..
            },
            ..
        }]
    ));
    let pr = fx[0].by;
    h.app.update(Action::to(
        pr,
        Action::ReviewStarted {
            seq: 1,
            mode: pr_shepherd::policy::Mode::Full,
            reason: "the first review of this PR".into(),
            prior: Box::default(),
            reply_marker: "— AI Coding Agent".into(),
        },
    ));
    for event in [
        ReviewEvent::Done {
            aspect: Aspect::Correctness,
            findings: 2,
            elapsed: Duration::from_secs(3),
        },
        ReviewEvent::Running {
            aspect: Aspect::Security,
            elapsed: Duration::from_secs(12),
        },
        ReviewEvent::Failed {
            aspect: Aspect::Perf,
            why: "HTTP 500 from the provider after 3 attempts".into(),
        },
        ReviewEvent::TimedOut {
            aspect: Aspect::Tests,
            after: Duration::from_secs(300),
        },
        ReviewEvent::Skipped {
            aspect: Aspect::Architecture,
            reason: "disabled in the review settings".into(),
        },
        // A stale event from an older run is ignored.
        ReviewEvent::Cancelled {
            aspect: Aspect::Conventions,
        },
    ] {
        let seq = if matches!(event, ReviewEvent::Cancelled { .. }) {
            0
        } else {
            1
        };
        h.app.update(Action::to(pr, Action::Review { seq, event }));
    }
    h.press("A");
    let line = h.app.progress().map(str::to_owned).unwrap();
    assert!(line.starts_with(
        "review (full): 1/6 done · security running 12s · perf failed · tests timed out · architecture skipped · 1 queued │ gate: "
    ), "{line}");
    let screen = h.screen();
    insta::assert_snapshot!("aspects_mid_run", screen);
}

#[test]
fn post_refused_dialog_under_no_shepherd() {
    let f = support::demo_fixture();
    let mut snap = f.snapshot_at(0).unwrap();
    snap.pr.labels = vec!["no-shepherd".into()];
    let (mut h, _d) = harness_with(snap, Some(f), 80, 24);
    h.draw();
    h.press("r Esc p");
    insta::assert_snapshot!("post_refused", h.screen());
}

/// The text of the review pane's size line, without the borders around it.
fn size_line(h: &Harness) -> String {
    let screen = h.screen();
    let line = screen.lines().find(|l| l.contains("Size: ")).unwrap_or("");
    let from = line.find("Size: ").unwrap_or(0);
    line[from..].trim_end_matches(['│', ' ']).to_owned()
}

/// The review pane shows the draft's size against GitHub's 65,536-character limit; an edited
/// draft over it is refused before the confirm box, with the count, and the review condensed to
/// fit is offered instead.
#[test]
fn review_pane_size_line_and_an_over_limit_draft() {
    use pr_shepherd::tui::app::{InputMode, PrAsk};
    use pr_shepherd::tui::review::DraftView;
    let (mut h, _d) = demo_harness(200, 30);
    h.draw();
    h.press("r");
    let head = h.app.pr_meta().unwrap().head_sha.clone();
    let composed = h.app.composed().cloned().expect("a composed review");
    assert!(!composed.condensed, "the demo review fits as it is");
    let chars = composed.draft_size().chars;
    assert_eq!(
        size_line(&h),
        format!(
            "Size: {} / 65,536 characters",
            pr_shepherd::review::results::condense::thousands(chars)
        )
    );

    let short = DraftView::new("## PR Shepherd Review\n\nShip it.", &head, None);
    h.app.pr_mut().unwrap().desk.draft = Some(short);
    h.draw();
    let fits = size_line(&h);
    let mut long = DraftView::new(
        &format!("## PR Shepherd Review\n\n{}", "x".repeat(70_000)),
        &head,
        None,
    );
    long.edited = true;
    h.app.pr_mut().unwrap().desk.draft = Some(long);
    h.draw();
    let over = size_line(&h);
    insta::assert_snapshot!("review_size_line", format!("{fits}\n{over}"));

    // `p`: no confirm box — the count, and the condensed review offered instead.
    h.press("p");
    let Some(PrAsk::Condense { draft, condensed }) = h.app.pr_asked().cloned() else {
        panic!("no condense offer: {:?}", h.app.mode())
    };
    assert_eq!((draft.chars, draft.over_by()), (70_023, 4_487));
    assert_eq!(condensed, chars);
    let screen = h.screen();
    assert!(screen.contains("Too long for GitHub"), "{screen}");
    assert!(
        screen.contains("The draft is 70,023 / 65,536 characters:"),
        "{screen}"
    );
    assert!(
        screen.contains("4,487 over GitHub's comment limit"),
        "{screen}"
    );
    // Any other key keeps the draft; `y` replaces it, and then it posts as usual.
    h.press("n");
    assert_eq!(*h.app.mode(), InputMode::Normal);
    assert_eq!(h.app.draft().map(|d| d.size().chars), Some(70_023));
    h.press("p y");
    assert_eq!(
        h.app.draft().map(|d| d.body()),
        Some(composed.body.trim_end().to_owned())
    );
    h.press("p");
    assert!(
        matches!(h.app.pr_asked(), Some(PrAsk::Post(_))),
        "{:?}",
        h.app.mode()
    );
    h.press("n");

    // Without a composed review to fall back on (a restored draft), the post is refused with
    // the count.
    let mut long = DraftView::new(&"y".repeat(65_537), &head, Some(0));
    long.edited = true;
    let pr = h.app.pr_mut().unwrap();
    pr.desk.draft = Some(long);
    pr.desk.composed = None;
    h.press("p");
    let Some(PrAsk::Refused(why)) = h.app.pr_asked().cloned() else {
        panic!("not refused: {:?}", h.app.mode())
    };
    assert_eq!(
        why,
        "not posting: the draft is 65,537 / 65,536 characters, 1 over GitHub's limit; shorten it (e)"
    );
}

/// At 80×24 every screen's footer keeps `? help` (and the way back): the other hints go first.
#[test]
fn footers_keep_help_at_80x24() {
    let (mut h, _d) = demo_harness(80, 24);
    h.draw();
    let last = |h: &Harness| h.screen().lines().last().unwrap_or_default().to_owned();
    assert!(last(&h).contains("? help"), "PR list: {}", h.screen());
    assert!(last(&h).contains("q quit"), "PR list: {}", h.screen());
    h.press("Tab");
    h.draw();
    assert!(last(&h).contains("? help"), "PR detail: {}", h.screen());
    h.press("Tab");
    h.press("P");
    h.draw();
    insta::assert_snapshot!("pending_80x24", h.screen());
    assert!(last(&h).contains("? help"), "pending: {}", h.screen());
    assert!(last(&h).contains("q back"), "pending: {}", h.screen());
    h.press("q F");
    h.draw();
    assert!(last(&h).contains("? help"), "files: {}", h.screen());
    h.press("Enter");
    h.draw();
    assert!(last(&h).contains("? help"), "diff: {}", h.screen());
}

/// Zooming a thread's 56-line hunk keeps the commented line (the hunk's last) in view, near the
/// middle of the pane, rather than jumping to the hunk's top.
#[test]
fn zoom_keeps_the_commented_line_in_view() {
    let (mut h, _d) = demo_harness(80, 24);
    h.draw();
    select_id(&mut h, "PRRT_kwDOKq3xZs5hQ1aA");
    h.press("Tab");
    h.draw();
    h.press("Enter");
    h.draw();
    let screen = h.screen();
    assert!(!screen.contains("earlier lines"), "zoomed: {screen}");
    let rows: Vec<&str> = screen.lines().collect();
    let at = rows
        .iter()
        .position(|l| l.contains("+        attempt += 1;"))
        .unwrap_or_else(|| panic!("the commented line is out of view: {screen}"));
    // Zoomed, the detail pane is the body (rows 3..23): the line sits in its middle half.
    assert!((7..=18).contains(&at), "row {at}: {screen}");
    // Zooming out keeps it in view too.
    h.press("Enter");
    h.draw();
    assert!(
        h.screen().contains("+        attempt += 1;"),
        "{}",
        h.screen()
    );
}

/// A thread whose hunk is one line longer than the shown tail says "1 earlier line".
#[test]
fn one_earlier_line_is_singular() {
    let (mut h, _d) = demo_harness(120, 40);
    let screen = shown(&mut h, "PRRT_kwDOKq3xZs5hQ1eE");
    assert!(screen.contains("⋯ 1 earlier line of the hunk"), "{screen}");
    assert!(!screen.contains("1 earlier lines"), "{screen}");
}
