//! The PR's code in the console: its description ([`DescriptionScreen`]), its changed files
//! ([`FilesScreen`]: viewed state, threads and findings per file, what changed since your last
//! look) and a file's diff ([`DiffScreen`]: threads and findings on their lines, the interdiff
//! since your last look, a cursor and a selection of lines for a line comment). Each is a screen
//! above the PR screen, opened by one key there ([`open_description`], [`open_files`]).
//!
//! ```text
//! PrScreen ──i──▶ DescriptionScreen ──F──▶ FilesScreen ──Enter──▶ DiffScreen
//!                                                               ──Enter──▶ ThreadScreen
//!          ──F──────────────────────────▶ FilesScreen
//! CommitsScreen ──Enter on a commit's file──▶ DiffScreen (the commit's patch, read-only)
//! ```

mod body;
mod commit_patch;
mod composer;
mod context;
mod description;
mod diff;
mod diff_modes;
mod editor_file;
mod files;
mod finding_pane;
mod note;
mod rows;
mod search;
mod split_view;
pub mod work;

use std::sync::Arc;

use ratatui::text::{Line, Span};

pub use commit_patch::CommitPatch;
pub use description::{DescriptionScreen, RenderBody};
pub use diff::DiffScreen;
pub use files::{FileState, FilesScreen};
pub use work::{CodeLoad, Done, Work};

use ratatui::Frame;
use ratatui::layout::Rect;

use super::dialogs::InputMode;
use super::screen::{Ctx, View};
use crate::pr::Snapshot;
use crate::sanitize::one_line;
use crate::tui::keymap::{KeyCommand, Keymap};
use crate::tui::theme::Theme;
use crate::tui::ui::{fit_hints, key_hint};

/// The commands only the files and diff screens answer (listed in their `?`, not the PR's).
pub const OWN_COMMANDS: &[KeyCommand] = &[
    KeyCommand::ToggleViewed,
    KeyCommand::NextUnviewed,
    KeyCommand::NextChanged,
    KeyCommand::NextHunk,
    KeyCommand::PrevHunk,
    KeyCommand::NextFile,
    KeyCommand::PrevFile,
    KeyCommand::Interdiff,
    KeyCommand::SelectLines,
    KeyCommand::Suggest,
    KeyCommand::ToggleSplit,
    KeyCommand::SideLeft,
    KeyCommand::SideRight,
    KeyCommand::ExpandContext,
    KeyCommand::ExpandFile,
    KeyCommand::OpenInEditor,
    KeyCommand::AskModel,
];

/// Opens the description of `snapshot`'s PR above the screen asking, its body rendered by
/// `render_body`.
pub fn open_description(
    snapshot: &Snapshot,
    render_body: RenderBody,
    open_thread: OpenThread,
    ctx: &mut Ctx<'_>,
) {
    ctx.open(Box::new(
        DescriptionScreen::new(Arc::new(snapshot.clone()), render_body)
            .opening_threads(open_thread),
    ));
}

/// What the diffs opened from a files screen tell it: their own results that the files list
/// shows too (a patch recorded as seen, files marked viewed). Every result goes to the diff that
/// asked for it; the diff passes these on here, and the files screen takes them when it is on
/// top again (and at each frame it draws, for an answer that came after the diff was left).
#[derive(Debug, Clone, Default)]
pub struct Echo(
    Arc<std::sync::Mutex<Vec<super::Action>>>,
    Arc<std::sync::Mutex<Vec<Dismissed>>>,
    /// The file the diff is on (it moves with `n`/`N`): the files list selects it on return.
    Arc<std::sync::Mutex<Option<usize>>>,
);

/// A finding dismissed in a diff: its id, the reason, and whether it is a lesson.
pub type Dismissed = (String, String, bool);

impl Echo {
    /// A finding dismissed in the diff: the PR screen, once back on top, holds it back too.
    fn dismissed(&self, id: &str, reason: &str, lesson: bool) {
        if let Ok(mut d) = self.1.lock() {
            d.push((id.to_owned(), reason.to_owned(), lesson));
        }
    }

    /// The diff is on the PR's file `index`.
    fn at(&self, index: usize) {
        if let Ok(mut at) = self.2.lock() {
            *at = Some(index);
        }
    }

    /// The file the diff was last on, once.
    fn take_at(&self) -> Option<usize> {
        self.2.lock().ok().and_then(|mut at| at.take())
    }

    /// The findings dismissed in the diffs opened from here, and forgotten here.
    fn take_dismissed(&self) -> Vec<Dismissed> {
        self.1
            .lock()
            .map(|mut d| std::mem::take(&mut *d))
            .unwrap_or_default()
    }

    fn push(&self, action: super::Action) {
        if let Ok(mut q) = self.0.lock() {
            q.push(action);
        }
    }

    fn drain(&self) -> Vec<super::Action> {
        self.0
            .lock()
            .map(|mut q| std::mem::take(&mut *q))
            .unwrap_or_default()
    }
}

/// How the diff opens a thread whole (`Enter` on its line): given by the screen that opens the
/// files (the PR screen's thread view), so the code screens need not know the PR screen.
pub type OpenThread = fn(&Snapshot, &str, &str) -> Box<dyn super::screen::Screen>;

/// Opens the changed files of `snapshot`'s PR above the screen asking, and reads what they
/// need from the ledger (the last look, the findings, offline viewed marks); the diff opens a
/// thread with `open_thread`.
pub fn open_files(snapshot: &Snapshot, open_thread: Option<OpenThread>, ctx: &mut Ctx<'_>) {
    ctx.open(Box::new(
        FilesScreen::new(Arc::new(snapshot.clone())).opening_threads(open_thread),
    ));
}

/// Opens the changed files of `snapshot`'s PR as [`open_files`] does, then, once they are
/// read, the diff of `path` with the cursor on `line` (a finding's place).
pub fn open_files_at(
    snapshot: &Snapshot,
    path: &str,
    line: Option<u32>,
    open_thread: OpenThread,
    ctx: &mut Ctx<'_>,
) {
    ctx.open(Box::new(
        FilesScreen::new(Arc::new(snapshot.clone()))
            .aimed_at(path, line)
            .opening_threads(Some(open_thread)),
    ));
}

/// The diff of `path` of `snapshot`'s PR with the cursor on `line` of `side` (a pending comment's
/// place: the pending review opens it with `Enter`), reading what it needs itself; a line no
/// longer in the diff is said, the file shown from its top. `None`: the PR does not change
/// `path` (any more).
pub fn diff_at(
    snapshot: &Snapshot,
    path: &str,
    side: crate::code::patch::Side,
    line: u32,
) -> Option<Box<dyn super::screen::Screen>> {
    let index = snapshot.pr.files.iter().position(|f| f.path == path)?;
    Some(Box::new(DiffScreen::on_its_own(
        Arc::new(snapshot.clone()),
        index,
        side,
        line,
    )))
}

/// The diff's own view of a commit's files (`patch`), on file `index` of them: line numbers,
/// colours, changed words, the split view, `n`/`N` through the commit's files; read-only (see
/// `commit_patch.rs`): no comment, no viewed mark, nothing of `snapshot`'s PR recorded as seen.
pub fn commit_diff(
    snapshot: &Snapshot,
    patch: CommitPatch,
    index: usize,
) -> Box<dyn super::screen::Screen> {
    let (snapshot, load, mark) = commit_patch::parts(snapshot, patch);
    Box::new(
        DiffScreen::new(
            Arc::new(snapshot),
            Arc::new(load),
            index,
            crate::code::SinceLastLook::NeverSeen,
        )
        .read_only(mark),
    )
}

/// Draws the screen's frame, titled with the PR and `what`; the area inside it.
pub(super) fn framed(
    frame: &mut Frame,
    area: Rect,
    snapshot: &Snapshot,
    what: &str,
    theme: &Theme,
) -> Rect {
    super::screen::framed(frame, area, snapshot, what, theme)
}

/// The footer: the notice when there is one (no dialog open), else the key hints of `cmds`
/// within `width` (help and back kept).
pub(super) fn footer(view: &View<'_>, cmds: &[(KeyCommand, &str)], width: u16) -> Line<'static> {
    match (view.mode, view.notice) {
        (InputMode::Normal, Some(n)) => Line::styled(one_line(n), view.theme.notice),
        _ => fit_hints(
            hints(view.keymap, view.theme, cmds),
            view.keymap,
            usize::from(width),
        ),
    }
}

/// A footer of key hints (the keymap's keys for `cmds`), help and back last.
fn hints(keymap: &Keymap, theme: &Theme, cmds: &[(KeyCommand, &str)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (c, what) in cmds
        .iter()
        .chain(&[(KeyCommand::Help, "help"), (KeyCommand::Quit, "back")])
    {
        key_hint(keymap, *c, what, theme, &mut spans);
    }
    Line::from(spans)
}

/// The help entries of `cmds`, labelled by the keymap, then how to leave.
pub(super) fn help_entries(keymap: &Keymap, cmds: &[(KeyCommand, &str)]) -> Vec<(String, String)> {
    super::screen::key_help(keymap, cmds, "back to the screen below")
}

/// A scroll position moved by `cmd` within `max`, `half` rows a half page.
pub(super) fn scrolled(cmd: KeyCommand, at: usize, max: usize, half: usize) -> Option<usize> {
    let to = match cmd {
        KeyCommand::Down => at + 1,
        KeyCommand::Up => at.saturating_sub(1),
        KeyCommand::PageDown => at + half.max(1),
        KeyCommand::PageUp => at.saturating_sub(half.max(1)),
        KeyCommand::Top => 0,
        KeyCommand::Bottom => max,
        _ => return None,
    };
    Some(to.min(max))
}
