//! The console's vocabulary of change: [`Action`] (everything that changes the state: keys as
//! commands, dialog input, frames drawn, the results of effects) and what some of them carry.

use std::sync::Arc;

use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::ledger::{Draft, ReplyDraft, SeenSet};
use crate::policy::Mode as ReviewMode;
use crate::pr::Snapshot;
use crate::review::ReviewEvent;
use crate::review::inputs::prior::PriorReviews;
use crate::tui::keymap::KeyCommand;

/// What the last frame showed, reported by the event loop after `terminal.draw` returned Ok.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drawn {
    /// The item whose detail was on screen (None: none, or the terminal was too small).
    pub shown: Option<usize>,
    pub list_height: u16,
    pub detail_height: u16,
    /// Wrapped line count of the detail pane's content.
    pub detail_lines: usize,
    /// The detail scroll the frame used (a thread with new replies opens at the first one).
    pub detail_scroll: usize,
    /// How far the help overlay can scroll (0 when it is closed or fits).
    pub help_max_scroll: usize,
    /// The help overlay's visible height.
    pub help_height: u16,
    /// When the frame was drawn, on the console's clock (milliseconds; set by the router from
    /// the last [`Action::Tick`]).
    pub at_ms: i64,
    /// Where the list and detail panes were drawn (inside their borders), for the mouse.
    pub list_area: Rect,
    pub detail_area: Rect,
}

/// A mouse event the console answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    /// Left button pressed: select the row under the pointer / focus the pane.
    Click,
    ScrollUp,
    ScrollDown,
}

/// A loaded fixture step: the snapshot and the ledger's markers read afresh.
#[derive(Debug, Clone)]
pub struct StepData {
    pub snapshot: Snapshot,
    pub seen: SeenSet,
    /// Per item id, the versions (body hashes) it has at later steps of the fixture.
    pub ahead: Ahead,
}

/// Per item id, the versions (body hashes) it has at later steps of a fixture: a marker of one
/// of them is newer than what an earlier step shows, and is never moved back.
pub type Ahead = std::collections::HashMap<String, std::collections::HashSet<String>>;

/// The versions items have after `step` in `fixture` (empty at the last step).
pub fn later_versions(fixture: &crate::source::Fixture, step: usize) -> Ahead {
    let mut ahead = Ahead::new();
    for j in step + 1..=fixture.steps.len() {
        if let Ok(s) = fixture.snapshot_at(j) {
            for item in &s.items {
                ahead
                    .entry(item.id().to_owned())
                    .or_default()
                    .insert(item.body_hash());
            }
        }
    }
    ahead
}

/// Everything that changes the state.
#[derive(Debug, Clone)]
pub enum Action {
    /// The result of an effect, or a review's progress, addressed to the screen that asked for
    /// it (see [`Asked`](super::Asked)): the router hands `action` to that screen, on the stack
    /// or left and kept, and to no other; with that screen gone, it is dropped.
    For {
        screen: super::ScreenId,
        action: Box<Action>,
    },
    Command(KeyCommand),
    /// A key bound to two commands no screen answers both of (`n`: the next search match, or
    /// in the diff the next file): the first, or the second where the first is not answered.
    SharedKey(KeyCommand, KeyCommand),
    /// The console's clock (milliseconds since the Unix epoch; tests inject it): the dwell
    /// before a shown item counts as seen, the inbox's refresh interval.
    Tick {
        now_ms: i64,
    },
    /// Ctrl-C: quit from anywhere.
    ForceQuit,
    SearchInput(char),
    SearchBackspace,
    SearchAccept,
    SearchCancel,
    FilterKey(char),
    Drawn(Drawn),
    Highlighted {
        key: String,
        lines: Arc<Vec<Line<'static>>>,
    },
    Notice(String),
    /// Run `seq` was prepared: its mode, the earlier reviews it is classified against.
    ReviewStarted {
        seq: u64,
        mode: ReviewMode,
        reason: String,
        prior: Box<PriorReviews>,
        reply_marker: String,
    },
    /// Run `seq` could not start (bad settings, no backend, unreadable ledger).
    ReviewNotStarted {
        seq: u64,
        why: String,
    },
    /// Progress of run `seq`.
    Review {
        seq: u64,
        event: ReviewEvent,
    },
    /// Run `seq` ended and was concluded by the review flow (saved, classified, composed, its
    /// decisions recorded): what the desk shows.
    ReviewConcluded {
        seq: u64,
        concluded: Box<crate::review::flow::Concluded>,
    },
    /// A draft found in the ledger when the console opened.
    DraftRestored(Draft),
    /// What the PR kept from an earlier session, read when the console opened on it directly
    /// (a PR opened from the inbox gets its own with [`OpenedPr`]).
    SavedFound(Box<SavedDrafts>),
    /// The versions the PR's items have at the fixture's later steps (the console opened on
    /// an earlier step): its markers never replace newer ones.
    LaterVersions(Box<Ahead>),
    /// What the session's PRs hold unsent in the state dir, read for the quit question.
    UnsentScanned(Vec<super::unsent::UnsentWork>),
    /// A key for the draft editor.
    EditKey(KeyEvent),
    /// The external editor (`$VISUAL`/`$EDITOR`) gave the text back, or why not.
    ExternallyEdited {
        target: EditTarget,
        result: Result<String, String>,
    },
    EditDone,
    /// The answer to a confirmation dialog.
    Confirmed(bool),
    /// A click or a wheel step at a cell of the screen.
    Mouse {
        kind: MouseKind,
        column: u16,
        row: u16,
    },
    /// A key for the thread reply composer (ctrl-s asks to send).
    ReplyKey(KeyEvent),
    /// Esc in the reply composer: it closes, the reply is kept.
    ReplyClose,
    /// A saved reply found in the ledger when the console opened.
    ReplyRestored(ReplyDraft),
    /// A key of the pending review screen's own (keep, submit as …, fold).
    PendingKey(char),
    /// A key of the screen on top's own, whole (the decision screen's filter and names).
    ScreenKey(KeyEvent),
    /// Files marked viewed / not viewed: where, or why it failed.
    ViewedSet {
        paths: Vec<String>,
        viewed: bool,
        result: Result<String, String>,
    },
    /// A result of a screen's own work (see `work.rs`), in the screen's own type.
    Done(super::work::Done),
}

impl Action {
    /// `action` as a result for the screen `screen`; a notice stays for the status line,
    /// whoever asked.
    pub fn to(screen: super::ScreenId, action: Action) -> Action {
        match action {
            a @ (Action::Notice(_) | Action::For { .. }) => a,
            a => Action::For {
                screen,
                action: Box::new(a),
            },
        }
    }
}

/// A PR loaded for the PR screen from the inbox.
#[derive(Debug, Clone)]
pub struct OpenedPr {
    pub snapshot: Snapshot,
    pub seen: SeenSet,
    /// Its review draft and unsent thread reply from an earlier session.
    pub saved: SavedDrafts,
    /// `Err(reason)` when its seen markers cannot be written.
    pub marks: Result<(), String>,
    /// A fixture's later versions of its items (see [`later_versions`]); empty live.
    pub ahead: Ahead,
}

/// What a PR kept from an earlier session (quit, crash, kill): its unposted review draft and its
/// unsent thread reply; `Err` when the file is unreadable (said as a notice, never fatal).
#[derive(Debug, Clone)]
pub struct SavedDrafts {
    pub draft: Result<Option<Draft>, String>,
    pub reply: Result<Option<ReplyDraft>, String>,
    /// What the outbox holds of the PR's conversation comments and reviews (queued offline).
    pub sent: Result<crate::ledger::Sent, String>,
    /// The conversation comment being written (`w`), kept as it was typed.
    pub comment: Result<Option<crate::ledger::CommentDraft>, String>,
    /// The latest stored review run made for the draft's head: the restored draft's findings
    /// picker comes from it (none when no run was stored or none is readable).
    pub run: Option<Box<crate::review::ReviewRun>>,
    /// The thread outbox: replies and resolutions queued offline, not yet on GitHub (shown as
    /// queued on an offline session's threads).
    pub queued: Result<Vec<crate::ledger::ThreadAction>, String>,
}

/// Which text the external editor was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditTarget {
    /// The review draft.
    Draft,
    /// The reply being written.
    Reply,
    /// The pending review's editor: a line comment or suggestion being written or edited, or
    /// the review's body.
    Pending,
    /// The decision screen's editor: a merge commit's message, a closing comment.
    Decide,
}
