//! `pr-shepherd [PR]` without a subcommand: the interactive console.

use std::io::IsTerminal;

use super::Context;
use crate::config::themes_dir;
use crate::error::{CliError, ErrorKind};
use crate::source::{self, Target};
use crate::tui::review::{LiveTarget, PostDestination};
use crate::tui::theme::{DEFAULT_THEME, Theme, ThemeError, no_color_requested};
use crate::tui::{Keymap, Options, ReviewContext, Session, TuiError};

impl From<ThemeError> for CliError {
    fn from(e: ThemeError) -> Self {
        CliError::from_source(ErrorKind::Usage, e)
    }
}

impl From<TuiError> for CliError {
    fn from(e: TuiError) -> Self {
        CliError::from_source(ErrorKind::Runtime, e)
    }
}

/// Resolves the theme: `--theme`, else the config's `theme`, else dark; NO_COLOR wins over all
/// (after the named theme was checked, so a typo is still reported).
pub(crate) fn resolve_theme(
    flag: Option<&str>,
    loaded: &crate::config::Loaded,
) -> Result<Theme, CliError> {
    let name = flag
        .or(loaded.config.theme.as_deref())
        .unwrap_or(DEFAULT_THEME);
    let theme = Theme::load(name, themes_dir(loaded).as_deref())?;
    Ok(if no_color_requested() {
        Theme::plain()
    } else {
        theme
    })
}

pub(super) async fn run(ctx: &Context, pr: Option<&str>) -> Result<(), CliError> {
    // Settings first, so a bad config is reported even without a terminal (the config file and
    // the theme were loaded and checked with the context).
    let loaded = &ctx.config;
    let theme = ctx.theme.clone();
    let keymap = Keymap::new(&loaded.keys);
    loaded
        .config
        .review
        .validate()
        .map_err(|e| CliError::usage(e.to_string()))?;

    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "the console needs a terminal (standard input and output must be a TTY)",
        )
        .with_hint(
            "for a plain listing use `pr-shepherd items [PR]` (add --format json for scripts)",
        ));
    }

    let target = source::resolve(pr)?;
    // The console keeps the fixture for stepping through its history.
    let fixture = match &target {
        Target::Fixture(f) => Some((**f).clone()),
        Target::Live(_) => None,
    };
    // Offline, `p` posts to the outbox; live, to the PR as the credentials' own account, which is
    // also the identity whose earlier reviews count as Shepherd's.
    // One client serves the fetch, the identity and later posts.
    let (snapshot, live) = match target {
        Target::Live(coords) => {
            let gh = super::live::client(ctx, &coords).await?;
            let snapshot = gh.fetch_snapshot(&coords).await?;
            let own_login = gh.viewer_login().await?;
            let live = LiveTarget {
                gh: std::sync::Arc::new(gh),
                own_login,
            };
            (snapshot, Some(live))
        }
        fixture_target => (super::load_snapshot(ctx, fixture_target, None).await?, None),
    };
    let coords = snapshot.pr.coords();
    let ledger = ctx.ledger()?;
    let mut seen = ledger.load_seen(&coords)?;
    ledger.attach_kept(&coords, &snapshot, &mut seen);
    let marks = if !snapshot.is_complete() {
        Err("the snapshot is incomplete".to_owned())
    } else {
        ledger.check_writable(&coords).map_err(|e| e.to_string())
    };
    crate::tui::run(Session {
        snapshot,
        fixture,
        ledger,
        theme,
        keymap,
        options: Options {
            now: chrono::Utc::now().timestamp(),
            marks,
            gates: ctx.gates().clone(),
        },
        seen,
        review: ReviewContext {
            settings: loaded.config.review.clone(),
            identity: live.as_ref().map_or_else(
                || ReviewContext::default().identity,
                |l| l.own_login.clone(),
            ),
            ..ReviewContext::default()
        },
        post_to: live.map_or(PostDestination::Outbox, PostDestination::GitHub),
    })
    .await?;
    Ok(())
}
