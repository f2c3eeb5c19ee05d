//! Drawing the decision screen: what the PR is now (state, head, method, what a merge goes past
//! and what stops it), the decision's own part (the message, the comment, the label picker, the
//! names typed), and the editor while one is open.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{DecideScreen, Decision, Field, Reading};
use crate::policy::merge::{self, MergeMethod, short};
use crate::sanitize::one_line;
use crate::tui::app::action::Drawn;
use crate::tui::app::dialogs::InputMode;
use crate::tui::app::screen::{View, framed};
use crate::tui::ui::{bordered, fit};

pub(super) fn draw(frame: &mut Frame, area: Rect, s: &DecideScreen, view: &View<'_>) -> Drawn {
    let theme = view.theme;
    let [body, foot] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let inner = framed(frame, body, &s.snapshot, s.what.title(), theme);
    let width = usize::from(inner.width);
    let (text_area, editor_area) = match (&s.editing, view.mode) {
        (Some(_), InputMode::Edit) => {
            let [t, e] =
                Layout::vertical([Constraint::Percentage(45), Constraint::Min(4)]).areas(inner);
            (t, Some(e))
        }
        _ => (inner, None),
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let pr = &s.snapshot.pr;
    match &s.read {
        Reading::Pending => lines.push(Line::styled("reading the PR…", theme.dim)),
        Reading::Failed(e) => lines.push(Line::styled(
            format!("the PR could not be read: {}", one_line(e)),
            theme.severity_important,
        )),
        Reading::Read(r) => {
            let f = &r.facts.facts;
            let mut state = f.state.to_ascii_lowercase();
            if f.draft {
                state.push_str(", draft");
            }
            if let Some(m) = f.auto_merge {
                state.push_str(&format!(", auto-merge armed ({})", m.as_str()));
            }
            if f.queued {
                state.push_str(", in the merge queue");
            }
            lines.push(Line::from(vec![
                Span::styled("State  ", theme.dim),
                Span::raw(format!(
                    "{state}{}",
                    if r.offline {
                        " · offline: decisions are recorded in the outbox, never sent"
                    } else {
                        ""
                    }
                )),
            ]));
            lines.push(Line::from(vec![
                Span::styled("Head   ", theme.dim),
                Span::raw(format!(
                    "{} (shown){}",
                    short(&pr.head_sha),
                    if merge::same_commit(&pr.head_sha, &f.head) {
                        String::new()
                    } else {
                        format!(" · GitHub's head is {} now", short(&f.head))
                    }
                )),
            ]));
            lines.push(Line::raw(""));
            decision_lines(s, r, theme, &mut lines);
        }
    }
    let shown: Vec<Line<'static>> = lines.into_iter().map(|l| fit(l, width)).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }), text_area);
    if let (Some(area), Some((field, editor))) = (editor_area, &s.editing) {
        let title = match field {
            Field::Message => " Commit message (first line: headline) · ctrl-o $EDITOR · Esc done ",
            Field::Comment => " Comment posted first · ctrl-o $EDITOR · Esc done ",
        };
        let block = bordered(title.to_owned(), true, theme);
        let e_inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(editor, e_inner);
    }
    let keys = match s.what {
        Decision::Merge => {
            "Enter merge · m/s/r method · e message · a auto-merge · ? help · Esc back"
        }
        Decision::CloseReopen => "Enter close/reopen · e comment · ? help · Esc back",
        Decision::ReadyDraft => "Enter ready/draft · ? help · Esc back",
        Decision::Labels => "type filter · ↑/↓ · Space mark · Enter apply · Esc back",
        Decision::Reviewers => "type logins · Tab code owners · Enter request · Esc back",
        Decision::Assign => "type logins · Enter assign · Esc back",
        Decision::UpdateBranch => "Enter update · m merge / r rebase · ? help · Esc back",
        Decision::Approve => "P then Ctrl-a approves from the pending review · Esc back",
        Decision::Checkout => "Enter check out (asks first) · Esc back",
    };
    let foot_line = match (view.mode, view.notice) {
        (InputMode::Normal, Some(n)) => Line::styled(one_line(n), theme.notice),
        _ => Line::styled(keys.to_owned(), theme.dim),
    };
    frame.render_widget(
        Paragraph::new(fit(foot_line, usize::from(foot.width))),
        foot,
    );
    Drawn {
        list_area: text_area,
        ..Drawn::default()
    }
}

fn decision_lines(
    s: &DecideScreen,
    r: &super::DecideRead,
    theme: &crate::tui::theme::Theme,
    lines: &mut Vec<Line<'static>>,
) {
    let f = &r.facts.facts;
    match s.what {
        Decision::Merge => {
            let Some(plan) = s.plan() else { return };
            let methods: Vec<Span<'static>> = MergeMethod::ALL
                .iter()
                .filter(|m| f.allowed.contains(m))
                .map(|m| {
                    let label = format!(" {} ", m.as_str());
                    if *m == plan.method {
                        Span::styled(label, theme.selection)
                    } else {
                        Span::raw(label)
                    }
                })
                .collect();
            let mut l = vec![Span::styled("Method ", theme.dim)];
            l.extend(methods);
            lines.push(Line::from(l));
            let message = match &s.message {
                Some(m) => m.lines().next().unwrap_or_default().to_owned(),
                None => format!(
                    "GitHub's default: {}",
                    s.default_message().lines().next().unwrap_or_default()
                ),
            };
            lines.push(Line::from(vec![
                Span::styled("Commit ", theme.dim),
                Span::raw(one_line(&message)),
            ]));
            lines.push(Line::raw(""));
            if plan.blocked.is_empty() {
                lines.push(Line::styled(
                    if plan.queue {
                        "Enter adds it to the merge queue at the head shown."
                    } else {
                        "Enter merges it at the head shown."
                    },
                    theme.state_approved,
                ));
            } else {
                lines.push(Line::styled(
                    "Nothing merges now:",
                    theme.severity_important,
                ));
                for b in &plan.blocked {
                    lines.push(Line::raw(format!("· {}", b.words())));
                }
                if plan.only_protection() && f.auto_merge_allowed {
                    lines.push(Line::raw(
                        "a arms auto-merge at this head: GitHub merges once protection allows",
                    ));
                }
            }
            if !plan.past.is_empty() {
                lines.push(Line::raw(""));
                lines.push(Line::styled("It goes past:", theme.dim));
                for p in &plan.past {
                    lines.push(Line::styled(
                        format!("{} {}", if p.second { "⚠" } else { "·" }, p.what),
                        if p.second {
                            theme.severity_important
                        } else {
                            theme.text
                        },
                    ));
                }
            }
        }
        Decision::CloseReopen => {
            let open = f.state.eq_ignore_ascii_case("OPEN");
            lines.push(Line::raw(if open {
                "Enter closes the PR."
            } else {
                "Enter reopens the PR."
            }));
            lines.push(Line::from(vec![
                Span::styled("Comment ", theme.dim),
                Span::raw(if s.comment.trim().is_empty() {
                    "none (e writes one, posted first)".to_owned()
                } else {
                    one_line(s.comment.lines().next().unwrap_or_default())
                }),
            ]));
        }
        Decision::ReadyDraft => lines.push(Line::raw(if f.draft {
            "Enter marks it ready for review."
        } else {
            "Enter converts it to a draft."
        })),
        Decision::Labels => {
            lines.push(Line::from(vec![
                Span::styled("Filter ", theme.dim),
                Span::raw(format!("{}▏", one_line(&s.typed))),
            ]));
            let labels = s.labels();
            if labels.is_empty() {
                lines.push(Line::styled(
                    if r.offline {
                        "no label matches (offline the fixture knows only the PR's own: type a name)"
                    } else {
                        "no label of the repository matches"
                    },
                    theme.dim,
                ));
            }
            for (i, (name, on)) in labels.iter().enumerate() {
                let flip = s.flipped.contains(name);
                let mark = match (on, flip) {
                    (true, false) => "[x]",
                    (true, true) => "[-] remove",
                    (false, true) => "[+] add",
                    (false, false) => "[ ]",
                };
                let text = format!("{mark} {}", one_line(name));
                lines.push(if i == s.selected {
                    Line::styled(text, theme.selection)
                } else {
                    Line::raw(text)
                });
            }
        }
        Decision::Reviewers | Decision::Assign => {
            lines.push(Line::from(vec![
                Span::styled(
                    if s.what == Decision::Assign {
                        "Assign "
                    } else {
                        "Reviewers "
                    },
                    theme.dim,
                ),
                Span::raw(format!("{}▏", one_line(&s.typed))),
            ]));
            lines.push(Line::styled(
                "logins, space between; ORG/TEAM for a team",
                theme.dim,
            ));
            if s.what == Decision::Reviewers {
                lines.push(Line::raw(if r.owners.is_empty() {
                    "Code owners: none named (no CODEOWNERS, or it names none of the files)"
                        .to_owned()
                } else {
                    format!(
                        "Code owners: {} (Tab adds them)",
                        r.owners
                            .iter()
                            .map(|o| format!("@{}", one_line(o)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }));
            }
        }
        Decision::Approve => lines.push(Line::raw(
            "one PR is approved from its pending review: P, then Ctrl-a",
        )),
        Decision::Checkout => lines.push(Line::raw(
            "Enter checks out the head shown in a worktree beside [code] checkout; the diff's o opens files there.",
        )),
        Decision::UpdateBranch => {
            lines.push(Line::raw(if s.rebase {
                "Enter rebases the PR's commits on the base (r; m merges the base in instead)."
            } else {
                "Enter merges the base into the branch (m; r rebases instead)."
            }));
            lines.push(Line::raw(format!(
                "GitHub's merge state: {}",
                one_line(&f.merge_state.to_ascii_lowercase())
            )));
        }
    }
}
