//! The session: what every screen of one console run shares, decided once when the console
//! opens — the clock the screens draw with, the `[gates]`, where writes go (the [`Remote`]) and
//! so whose reviews are Shepherd's, and why seen markers cannot be written. `App` owns it and
//! lends it to the screens; the effect runner holds a copy made from the same value (nothing in it
//! changes during a session).

use std::sync::Arc;

use crate::ledger::{Ledger, LedgerError};
use crate::policy::GateConfig;
use crate::pr::{DEFAULT_IDENTITY, OutboxComment, PrCoords};
use crate::source::github::GitHub;

/// The diff layout `|` chose in this console run (split or unified), over `[console]
/// diff_layout`: every diff opened after it keeps the choice. Shared by the session's clones.
#[derive(Debug, Clone, Default)]
pub struct LayoutChoice(std::sync::Arc<std::sync::atomic::AtomicU8>);

impl LayoutChoice {
    /// `Some(true)`: split; `Some(false)`: unified; `None`: not chosen in this run.
    pub fn get(&self) -> Option<bool> {
        match self.0.load(std::sync::atomic::Ordering::Relaxed) {
            1 => Some(false),
            2 => Some(true),
            _ => None,
        }
    }

    pub fn set(&self, split: bool) {
        self.0.store(
            if split { 2 } else { 1 },
            std::sync::atomic::Ordering::Relaxed,
        );
    }
}

/// What the screens of one console run share.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// Unix seconds, for relative times ("3h ago"): the launch time, moved forward by the
    /// console's clock ticks (drawing reads it, never the wall clock).
    pub now: i64,
    /// The config file's `[gates]`: the console applies them like `review` does.
    pub gates: GateConfig,
    /// Where posts, replies and resolutions go, and where earlier reviews are read.
    pub remote: Remote,
    /// Why seen markers cannot be written (an unwritable state dir, an incomplete snapshot).
    pub marks_blocked: Option<String>,
    /// The external editor's command line (`$VISUAL`, else `$EDITOR`), for `ctrl-o` in the
    /// draft editor and the reply composer.
    pub editor: Option<String>,
    /// `[console] dwell_ms`: how long an item's detail must be on screen before it counts as
    /// seen, on the console's clock (0: as soon as the frame is drawn).
    pub dwell_ms: u64,
    /// `[console] diff_layout`: the diff screen's layout when it opens (`|` toggles it).
    pub diff_layout: crate::config::DiffLayout,
    /// The layout `|` chose in this run, over `diff_layout`.
    pub layout_chosen: LayoutChoice,
    /// `[console] editor_line_arg`: how the diff's `o` tells an editor the console does not
    /// know the line (`crate::tui::editor_at`).
    pub editor_line_arg: Option<String>,
    /// `[code] checkout`: a clone of the repository whose file the diff's `o` opens when its
    /// `HEAD` is the PR's head.
    pub checkout: Option<std::path::PathBuf>,
    /// `[merge] method`: the console's merge method when the repository allows it.
    pub merge_method: Option<crate::policy::merge::MergeMethod>,
    /// `[inbox] refresh`: seconds between the inbox's own reloads (0: never by itself).
    pub inbox_refresh: u64,
    /// The inbox table's columns (`[inbox] columns`; empty: every column).
    pub inbox_columns: Vec<crate::inbox::columns::Column>,
    /// The console's theme, for what a screen renders ahead of its frames (the PR screen's
    /// comment Markdown, cached per item after a frame); `None`: rendered while drawing.
    pub theme: Option<crate::tui::theme::Theme>,
}

impl Session {
    /// The account whose `## PR Shepherd Review` comments are Shepherd's own: live the
    /// credentials' account, offline [`DEFAULT_IDENTITY`].
    pub fn identity(&self) -> &str {
        self.remote
            .live()
            .map_or(DEFAULT_IDENTITY, |l| l.own_login.as_str())
    }
}

/// Where the session's writes go: the offline outbox in the ledger (fixtures, the bundled inbox,
/// a directory of fixtures), or GitHub as the credentials' own account. Decided once, when the
/// console opens; `tui::remote` is the one place that acts on the difference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Remote {
    /// Offline: the review goes to `outbox/comment.json`, thread actions to `outbox/threads.json`,
    /// and earlier offline posts count as earlier reviews.
    #[default]
    Outbox,
    /// Live: the one Shepherd comment on the PR, replies and resolutions on GitHub.
    GitHub(Live),
}

impl Remote {
    /// The live side, when the session is live.
    pub fn live(&self) -> Option<&Live> {
        match self {
            Remote::GitHub(live) => Some(live),
            Remote::Outbox => None,
        }
    }

    /// The GitHub client of a live session (live inbox tabs and PRs are fetched with it).
    pub fn github(&self) -> Option<&Arc<GitHub>> {
        self.live().map(|l| &l.gh)
    }

    /// Offline, posts went to the outbox: an earlier review may be read from there too.
    pub fn reads_outbox(&self) -> bool {
        self.live().is_none()
    }

    /// The review posted offline for the PR at `coords` (none live: the PR itself holds them).
    pub fn offline_post(
        &self,
        ledger: &Ledger,
        coords: &PrCoords,
    ) -> Result<Option<OutboxComment>, LedgerError> {
        if self.reads_outbox() {
            ledger.outbox(coords)
        } else {
            Ok(None)
        }
    }

    /// Where thread replies and resolutions go, in words (the confirmation names it).
    pub fn thread_destination(&self) -> &'static str {
        if self.reads_outbox() {
            "the outbox in the state dir (offline)"
        } else {
            "GitHub, as the credentials' own account"
        }
    }
}

/// A live session's client and account.
#[derive(Clone)]
pub struct Live {
    pub gh: Arc<GitHub>,
    /// `viewer_login()` of the credentials: only this account's comment is ever updated.
    pub own_login: String,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Live(@{})", self.own_login)
    }
}

impl PartialEq for Live {
    fn eq(&self, other: &Self) -> bool {
        self.own_login == other.own_login && Arc::ptr_eq(&self.gh, &other.gh)
    }
}

impl Eq for Live {}
