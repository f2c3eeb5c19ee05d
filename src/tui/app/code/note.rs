//! A note under a diff line (a thread, a finding, a pending comment) and the small pieces of a
//! diff line's text that the unified and the split view share.

use ratatui::text::{Line, Span};

use crate::code::patch::{LineKind, Side};
use crate::sanitize::sanitize;
use crate::tui::theme::Theme;

/// What a note under a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    Thread,
    Finding,
    /// A comment of the pending review (the maintainer's, or a finding's draft): not sent yet.
    Pending,
}

/// What a note is of, by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum About {
    Thread(String),
    /// A comment of the pending review (a finding's draft included).
    Pending(String),
    /// A finding of the latest Shepherd review with no draft in the pending review.
    Finding(String),
}

/// A thread, a finding or a pending comment, under its line (or above the diff when it is on
/// none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub kind: NoteKind,
    /// In the gutter before it: `pending c2` (a pending comment), `to decide c3` (a finding's
    /// draft not decided yet).
    pub label: String,
    pub text: String,
    /// What it is a note of: `Enter` on its line opens it whole (a thread in its view, a
    /// finding or a pending comment in the diff's pane).
    pub about: Option<About>,
    /// The side of the diff it is on (the split view shows it under that side's line).
    pub side: Side,
}

/// A note's row: its label right-aligned in `label` columns, then its text.
pub(super) fn note_line(n: &Note, theme: &Theme, label: usize) -> Line<'static> {
    let style = match n.kind {
        NoteKind::Finding => theme.badge_edited,
        NoteKind::Thread => theme.author,
        NoteKind::Pending if n.text.starts_with("finding") => theme.badge_edited,
        NoteKind::Pending => theme.text,
    };
    Line::from(vec![
        Span::styled(format!("{:>label$} ", n.label), theme.badge_new),
        Span::styled(format!("┆ {}", n.text), style),
    ])
}

/// A diff header's first spans: the file's path, its change (and old path), its counts.
pub(super) fn file_title(f: &crate::pr::ChangedFile, theme: &Theme) -> Vec<Span<'static>> {
    let mut first = vec![
        Span::styled(crate::sanitize::one_line(&f.path), theme.header),
        Span::styled(format!(" · {}", f.change_type().as_str()), theme.dim),
    ];
    if let Some(prev) = &f.previous_path {
        first.push(Span::styled(
            format!(" from {}", crate::sanitize::one_line(prev)),
            theme.dim,
        ));
    }
    first.push(Span::styled(
        format!(" · +{} −{}", f.additions, f.deletions),
        theme.dim,
    ));
    first
}

pub(super) fn clean(t: &str) -> String {
    sanitize(t).replace('\t', "    ")
}

pub(super) fn prefix(kind: LineKind) -> char {
    match kind {
        LineKind::Added => '+',
        LineKind::Removed => '-',
        LineKind::Context => ' ',
        // Its text keeps its `\`.
        LineKind::NoNewline => ' ',
    }
}
