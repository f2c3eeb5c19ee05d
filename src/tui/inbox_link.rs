//! The inbox behind a console session, as the effect runner holds it and lends it to the
//! inbox's work (`app/inbox/work.rs`, through `Io`): where each tab's rows come from, the rows
//! listed before the console opened, and the fixtures of the PRs opened from it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::inbox;
use crate::pr::PrCoords;
use crate::source::Fixture;
use crate::source::github::batch::ListSpec;

/// Where one inbox tab's rows come from.
#[derive(Debug, Clone)]
pub enum TabSource {
    Bundled,
    Dir(PathBuf),
    /// Repositories or searches on GitHub (the session's client).
    Live(Vec<ListSpec>),
    /// A configured section that cannot be listed at all (no usable credentials): the tab says
    /// why, the console opens all the same.
    Unavailable(String),
}

/// The inbox behind a console session (empty when it opened on one PR).
#[derive(Default)]
pub struct InboxLink {
    pub tabs: Vec<TabSource>,
    /// The fixtures of the PRs opened from the inbox, by PR (history steps, replayed reviews):
    /// a session opens any number of them, and each keeps its own.
    pub opened: Mutex<HashMap<PrCoords, Fixture>>,
    /// Per tab, the rows already listed before the console opened (a repository or search named
    /// on the command line is listed first, so a bad one ends with exit 2 before any screen);
    /// the first load counts them instead of listing again.
    pub prelisted: Mutex<Vec<Option<Vec<inbox::Row>>>>,
}

impl InboxLink {
    /// The fixture of `pr`, if it was opened from the inbox.
    pub fn opened_fixture(&self, pr: &PrCoords) -> Option<Fixture> {
        self.opened.lock().ok().and_then(|g| g.get(pr).cloned())
    }
}
