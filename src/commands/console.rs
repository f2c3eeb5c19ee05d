//! `pr-shepherd [PR]` without a subcommand: the interactive console.

use std::io::IsTerminal;

use super::Context;
use super::inbox::InboxSpec;
use crate::error::{CliError, ErrorKind};
use crate::inbox::DEFAULT_IDENTITY;
use crate::source::Target;
use crate::tui::app::InboxScreen;
use crate::tui::inbox_link::{InboxLink, TabSource};
use crate::tui::theme::ThemeError;
use crate::tui::{ConsoleReview, Keymap, Launch, Live, Remote, Session, Start, TuiError};

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

/// What the console's argument opens: the inbox (nothing, OWNER/REPO, a directory, `--query`)
/// or one PR.
fn inbox_spec(
    ctx: &Context,
    pr: Option<&str>,
    query: Option<&str>,
) -> Result<Option<InboxSpec>, CliError> {
    if query.is_some() {
        return super::inbox::spec(ctx, &[], query).map(Some);
    }
    match pr {
        None => super::inbox::spec(ctx, &[], None).map(Some),
        Some(p) if std::path::Path::new(p).is_dir() => {
            super::inbox::spec(ctx, &[p.to_owned()], None).map(Some)
        }
        Some(p)
            if !p.contains('#')
                && !p.contains("://")
                && !p.ends_with(".json")
                && !std::path::Path::new(p).exists()
                && super::inbox::repo_arg(p).is_ok() =>
        {
            super::inbox::spec(ctx, &[p.to_owned()], None).map(Some)
        }
        Some(_) => Ok(None),
    }
}

/// What the console's argument may be, for the message when it is none of them.
const CONSOLE_FORMS: &str = "accepted forms:
  OWNER/REPO#N                          a PR, e.g. rust-lang/rust#123
  https://HOST/OWNER/REPO/pull/N        a PR by URL (any host, for GitHub Enterprise Server)
  PATH                                  a fixture file (pr-shepherd/fixture@1 JSON)
  OWNER/REPO                            the inbox of a repository's open PRs
  DIR                                   the inbox of a directory of fixture files";

/// Exit 2 for a console argument that is neither a PR, OWNER/REPO nor a directory; a bare word
/// close to a subcommand's name says which one was meant.
fn check_console_arg(p: &str) -> Result<(), CliError> {
    let why = match crate::pr::PrRef::parse(p) {
        Ok(_) => return Ok(()),
        Err(_) if std::path::Path::new(p).exists() => return Ok(()),
        Err(e) => e.to_string(),
    };
    if !p.contains('#') && !p.contains("://") && super::inbox::repo_arg(p).is_ok() {
        return Ok(());
    }
    let shown = crate::sanitize::one_line(p);
    let bare = !p.contains(['/', '#', '.', std::path::MAIN_SEPARATOR]);
    let mut message = if bare {
        format!("`{shown}` is not a subcommand, a PR, OWNER/REPO or a directory")
    } else {
        // The reference's own reason (its first line: the forms follow below).
        why.lines().next().unwrap_or_default().to_owned()
    };
    if bare && let Some(name) = crate::cli::closest_subcommand(p) {
        message.push_str(&format!("; did you mean `pr-shepherd {name}`?"));
    }
    Err(CliError::usage(format!("{message}\n{CONSOLE_FORMS}")))
}

/// The inbox screen (tabs listed, counts to come), how to load it, and where the session's
/// writes go (live tabs: GitHub as the credentials' account). A repository or search named on
/// the command line (`explicit`) is listed before the screen opens, as `inbox` lists it: an
/// unknown repository or a query GitHub rejects is exit 2 with GitHub's reason, not a screen with
/// an error. The config's sections load in the background, each tab on its own.
async fn inbox_start(
    ctx: &Context,
    spec: &InboxSpec,
    explicit: bool,
) -> Result<(Start, Remote), CliError> {
    let mut prelisted = Vec::new();
    let (tabs, remote): (Vec<(String, TabSource)>, _) = match spec {
        InboxSpec::Bundled => (
            vec![("bundled fixtures".to_owned(), TabSource::Bundled)],
            Remote::Outbox,
        ),
        InboxSpec::Dir(d) => (
            vec![(d.display().to_string(), TabSource::Dir(d.clone()))],
            Remote::Outbox,
        ),
        live => {
            let (gh, own) = match super::inbox::live_client(ctx, None).await {
                Ok(client) => client,
                // Configured sections and no usable credentials (a bad token, GitHub down): the
                // console still opens, and each tab says why it has no list.
                Err(e) if !explicit => {
                    let why = crate::sanitize::one_line(&e.to_string());
                    let tabs = super::inbox::live_specs(live)
                        .into_iter()
                        .map(|(title, _)| (title, TabSource::Unavailable(why.clone())))
                        .collect();
                    return Ok((inbox_screen(tabs, prelisted), Remote::Outbox));
                }
                Err(e) => return Err(e),
            };
            let tabs: Vec<(String, TabSource)> = super::inbox::live_specs(live)
                .into_iter()
                .map(|(title, specs)| (title, TabSource::Live(specs)))
                .collect();
            if explicit {
                for (_, source) in &tabs {
                    if let TabSource::Live(specs) = source {
                        let rows = crate::inbox::live::list(&gh, specs, &own, ctx.gates()).await?;
                        prelisted.push(Some(rows));
                    }
                }
            }
            let live = Live {
                gh: std::sync::Arc::new(gh),
                own_login: own,
            };
            (tabs, Remote::GitHub(live))
        }
    };
    Ok((inbox_screen(tabs, prelisted), remote))
}

/// The inbox start of these tabs: their titles listed, their rows to come.
fn inbox_screen(
    tabs: Vec<(String, TabSource)>,
    prelisted: Vec<Option<Vec<crate::inbox::Row>>>,
) -> Start {
    let screen = InboxScreen::loading(tabs.iter().map(|(title, _)| title.clone()));
    let link = InboxLink {
        tabs: tabs.into_iter().map(|(_, s)| s).collect(),
        opened: std::sync::Mutex::new(Default::default()),
        prelisted: std::sync::Mutex::new(prelisted),
    };
    Start::Inbox {
        screen: Box::new(screen),
        link: Box::new(link),
    }
}

/// What a console review needs from the context: the config's `[review]` and the LLM
/// environment (whose reviews are Shepherd's is the session's identity).
fn console_review(ctx: &Context) -> ConsoleReview {
    ConsoleReview {
        settings: ctx.review_settings().clone(),
        llm_env: ctx.llm_env.clone(),
        ..ConsoleReview::default()
    }
}

/// The session of a console run: now, the config's `[gates]`, where writes go, the dwell before
/// a shown item counts as seen and how often the inbox refreshes.
fn session(ctx: &Context, remote: Remote, marks_blocked: Option<String>) -> Session {
    Session {
        now: chrono::Utc::now().timestamp(),
        gates: ctx.gates().clone(),
        remote,
        marks_blocked,
        editor: ctx.editor.clone(),
        dwell_ms: ctx.config.config.console.dwell_ms,
        diff_layout: ctx.config.config.console.diff_layout,
        layout_chosen: Default::default(),
        editor_line_arg: ctx.config.config.console.editor_line_arg.clone(),
        checkout: ctx.config.config.code.checkout.clone(),
        merge_method: ctx.config.config.merge.method,
        inbox_refresh: ctx.config.config.inbox.refresh,
        inbox_columns: crate::inbox::columns::Column::configured(&ctx.config.config.inbox.columns),
        theme: Some(ctx.theme.clone()),
    }
}

pub(super) async fn run(
    ctx: &Context,
    pr: Option<&str>,
    query: Option<&str>,
) -> Result<(), CliError> {
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

    // An argument that is none of the console's forms (a mistyped subcommand, most often) is
    // bad input, said before the terminal is asked for.
    if let Some(p) = pr {
        check_console_arg(p)?;
    }
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "the console needs a terminal (standard input and output must be a TTY)",
        )
        .with_hint(
            "for a plain listing use `pr-shepherd items [PR]` (add --format json for scripts)",
        ));
    }

    if let Some(spec) = inbox_spec(ctx, pr, query)? {
        // No argument and no sections: live, the default sections; offline, the bundled ones.
        let spec = super::inbox::with_defaults(ctx, spec);
        // A directory without fixtures is bad input before any screen is drawn.
        if let InboxSpec::Dir(d) = &spec
            && let Err(e) = crate::inbox::from_dir(d, &ctx.ledger()?, DEFAULT_IDENTITY, ctx.gates())
        {
            return Err(CliError::usage(e.to_string()));
        }
        let explicit = pr.is_some() || query.is_some();
        let (start, remote) = inbox_start(ctx, &spec, explicit).await?;
        crate::tui::run(Launch {
            ledger: ctx.ledger()?,
            theme,
            keymap,
            session: session(ctx, remote, None),
            review: console_review(ctx),
            start,
        })
        .await?;
        return Ok(());
    }

    let target = ctx.resolve(pr)?;
    // The console keeps the fixture for stepping through its history.
    let fixture = match &target {
        Target::Fixture(f) => Some((**f).clone()),
        Target::Live(_) => None,
    };
    // Offline, `p` posts to the outbox; live, to the PR as the credentials' own account, which is
    // also the identity whose earlier reviews count as Shepherd's.
    // One client serves the fetch, the identity and later posts.
    let (snapshot, remote) = match target {
        Target::Live(coords) => {
            let gh = super::live::client(ctx, &coords).await?;
            let snapshot = gh.fetch_snapshot(&coords).await?;
            let own_login = gh.viewer_login().await?;
            let live = Live {
                gh: std::sync::Arc::new(gh),
                own_login,
            };
            (snapshot, Remote::GitHub(live))
        }
        fixture_target => (
            super::load_snapshot(ctx, fixture_target, None).await?,
            Remote::Outbox,
        ),
    };
    let coords = snapshot.pr.coords();
    let ledger = ctx.ledger()?;
    let mut seen = ledger.load_seen(&coords)?;
    ledger.attach_kept(&coords, &snapshot, &mut seen);
    let marks = if !snapshot.is_complete() {
        Err(format!(
            "the snapshot is incomplete ({})",
            snapshot.incomplete.join("; ")
        ))
    } else {
        ledger.check_writable(&coords).map_err(|e| e.to_string())
    };
    crate::tui::run(Launch {
        ledger,
        theme,
        keymap,
        session: session(ctx, remote, marks.err()),
        review: console_review(ctx),
        start: Start::Pr {
            snapshot: Box::new(snapshot),
            fixture: fixture.map(Box::new),
            seen,
        },
    })
    .await?;
    Ok(())
}
