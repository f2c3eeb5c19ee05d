//! `pr-shepherd inbox`: the open PRs of repositories, a search, a fixture directory, the config's
//! sections or the bundled fixtures — counted, never marked.

use std::path::Path;

use super::Context;
use crate::cli::{Format, InboxArgs};
use crate::error::CliError;
use crate::inbox::{self, DEFAULT_IDENTITY, Inbox, render};
use crate::pr::PrCoords;
use crate::source::github::GitHub;
use crate::source::github::batch::ListSpec;

/// What an inbox argument list names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum InboxSpec {
    /// No argument and no sections: the bundled fixtures.
    Bundled,
    Dir(std::path::PathBuf),
    /// Repositories, OWNER/REPO each.
    Repos(Vec<(String, String)>),
    /// GitHub searches, each with a title.
    Queries(Vec<(String, String)>),
    /// No argument, no sections, and credentials: the default sections ("who is waiting on
    /// me", `inbox::sections`), listed and counted together.
    Defaults,
}

/// Reads the arguments: one directory, OWNER/REPO names, a query, or nothing (the config's
/// sections, else the bundled fixtures).
pub(crate) fn spec(
    ctx: &Context,
    targets: &[String],
    query: Option<&str>,
) -> Result<InboxSpec, CliError> {
    if let Some(q) = query {
        if q.trim().is_empty() {
            return Err(CliError::usage("--query is empty"));
        }
        refuse_closed(q, "--query")?;
        return Ok(InboxSpec::Queries(vec![(q.to_owned(), q.to_owned())]));
    }
    if targets.is_empty() {
        let sections = &ctx.config.config.inbox.sections;
        if sections.is_empty() {
            return Ok(InboxSpec::Bundled);
        }
        for s in sections {
            refuse_closed(&s.query, &format!("the inbox section `{}`", s.title))?;
        }
        return Ok(InboxSpec::Queries(
            sections
                .iter()
                .map(|s| (s.title.clone(), s.query.clone()))
                .collect(),
        ));
    }
    if let [one] = targets
        && Path::new(one).is_dir()
    {
        return Ok(InboxSpec::Dir(one.into()));
    }
    let mut repos = Vec::new();
    for t in targets {
        if Path::new(t).is_dir() {
            return Err(CliError::usage(format!(
                "`{t}` is a directory: give one directory alone, or OWNER/REPO names"
            )));
        }
        repos.push(repo_arg(t)?);
    }
    Ok(InboxSpec::Repos(repos))
}

/// The words of a search that ask for PRs that are not open.
const NOT_OPEN: [&str; 5] = [
    "is:closed",
    "is:merged",
    "state:closed",
    "state:merged",
    "-is:open",
];

/// The first word of `query` that asks for closed or merged PRs, which the inbox never lists
/// (`is:open` is implied, so such a search would silently match nothing).
pub(crate) fn closed_qualifier(query: &str) -> Option<&str> {
    query
        .split_whitespace()
        .find(|w| NOT_OPEN.contains(&w.to_ascii_lowercase().as_str()))
}

/// Exit 2 for a search that asks for closed or merged PRs, naming the word and where it is.
fn refuse_closed(query: &str, whose: &str) -> Result<(), CliError> {
    match closed_qualifier(query) {
        None => Ok(()),
        Some(w) => Err(CliError::usage(format!(
            "{whose} asks for `{}`, but the inbox lists open PRs only (`is:open` is implied)",
            crate::sanitize::one_line(w)
        ))
        .with_hint(
            "drop it; a closed or merged PR is listed with `pr-shepherd items OWNER/REPO#N`",
        )),
    }
}

/// `OWNER/REPO`, checked.
pub(crate) fn repo_arg(t: &str) -> Result<(String, String), CliError> {
    let (owner, repo) = t.split_once('/').ok_or_else(|| {
        CliError::usage(format!(
            "`{}` is neither OWNER/REPO nor a directory of fixtures",
            crate::sanitize::one_line(t)
        ))
    })?;
    crate::pr::validate_owner(owner)?;
    crate::pr::validate_repo(repo)?;
    Ok((owner.to_owned(), repo.to_owned()))
}

/// Builds an offline inbox (bundled fixtures or a directory); `None` for a live spec.
pub(crate) fn offline(
    ctx: &Context,
    spec: &InboxSpec,
    identity: Option<&str>,
) -> Result<Option<Inbox>, CliError> {
    let ledger = ctx.ledger()?;
    let own = identity.unwrap_or(DEFAULT_IDENTITY);
    let cfg = ctx.gates().clone();
    match spec {
        InboxSpec::Bundled => Ok(Some(inbox::bundled(&ledger, own, &cfg))),
        InboxSpec::Dir(dir) => inbox::from_dir(dir, &ledger, own, &cfg)
            .map(Some)
            .map_err(|e| CliError::usage(e.to_string())),
        InboxSpec::Repos(_) | InboxSpec::Queries(_) | InboxSpec::Defaults => Ok(None),
    }
}

/// Whether a token is there (`GH_TOKEN`, `GITHUB_TOKEN`, or a GitHub App's variables), without
/// asking GitHub or running anything: whether the inbox without an argument is live. A
/// logged-in `gh` alone does not make it live (it would turn `cargo run` away from the demo for
/// anyone with `gh` installed); `OWNER/REPO` and sections still use it.
pub(crate) fn token_present(ctx: &Context) -> bool {
    let env = &ctx.credentials;
    env.gh_token.is_some()
        || env.github_token.is_some()
        || env.app_id.is_some()
        || env.app_installation_id.is_some()
        || env.app_private_key.is_some()
}

/// The bundled fixtures become the default sections when credentials are there (no argument and
/// no configured sections; configured sections win). Every other spec is kept.
pub(crate) fn with_defaults(ctx: &Context, spec: InboxSpec) -> InboxSpec {
    if spec == InboxSpec::Bundled
        && ctx.config.config.inbox.sections.is_empty()
        && token_present(ctx)
        && !ctx.demo
    {
        InboxSpec::Defaults
    } else {
        spec
    }
}

pub(super) async fn run(ctx: &Context, args: InboxArgs) -> Result<(), CliError> {
    let spec = spec(ctx, &args.targets, args.query.as_deref())?;
    let spec = with_defaults(ctx, spec);
    let inboxes = match offline(ctx, &spec, args.identity.as_deref())? {
        Some(inbox) => vec![inbox],
        None => {
            let progress = crate::progress::Progress::stderr(args.quiet);
            live(ctx, &spec, args.identity.as_deref(), &progress).await?
        }
    };
    let text = match args.format {
        Format::Md if spec == InboxSpec::Defaults => render::markdown_sections(&inboxes),
        Format::Md => inboxes
            .iter()
            .map(render::markdown)
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => {
            let doc = match inboxes.as_slice() {
                [one] if spec != InboxSpec::Defaults => render::json(one),
                many => render::sections_json(many),
            };
            let mut s = serde_json::to_string_pretty(&doc)
                .map_err(|e| CliError::runtime(format!("cannot encode the inbox: {e}")))?;
            s.push('\n');
            s
        }
    };
    super::emit_in(args.format, &text)
}

/// The live inboxes of a spec: one for repositories (all of them together), one per query.
pub(crate) fn live_specs(spec: &InboxSpec) -> Vec<(String, Vec<ListSpec>)> {
    match spec {
        InboxSpec::Repos(repos) => vec![(
            repos
                .iter()
                .map(|(o, r)| format!("{o}/{r}"))
                .collect::<Vec<_>>()
                .join(", "),
            repos
                .iter()
                .map(|(owner, repo)| ListSpec::Repo {
                    owner: owner.clone(),
                    repo: repo.clone(),
                })
                .collect(),
        )],
        InboxSpec::Queries(qs) => qs
            .iter()
            .map(|(title, q)| (title.clone(), vec![ListSpec::Search(q.clone())]))
            .collect(),
        InboxSpec::Defaults => inbox::live::Section::defaults()
            .into_iter()
            .map(|s| (s.title, s.specs))
            .collect(),
        InboxSpec::Bundled | InboxSpec::Dir(_) => Vec::new(),
    }
}

/// A GitHub client for the inbox (github.com or the endpoints given) and the login whose
/// Shepherd reviews count.
pub(crate) async fn live_client(
    ctx: &Context,
    identity: Option<&str>,
) -> Result<(GitHub, String), CliError> {
    let probe = PrCoords {
        host: None,
        owner: "inbox".to_owned(),
        repo: "inbox".to_owned(),
        number: 1,
    };
    let gh = super::live::client(ctx, &probe).await?;
    let own = match identity {
        Some(l) if !l.trim().is_empty() => l.trim().to_owned(),
        _ => gh.viewer_login().await?,
    };
    Ok((gh, own))
}

async fn live(
    ctx: &Context,
    spec: &InboxSpec,
    identity: Option<&str>,
    progress: &crate::progress::Progress,
) -> Result<Vec<Inbox>, CliError> {
    let ledger = ctx.ledger()?;
    let cfg = ctx.gates().clone();
    let (gh, own) = live_client(ctx, identity).await?;
    if *spec == InboxSpec::Defaults {
        let sections = inbox::live::Section::defaults();
        let out = inbox::live::load_sections(&gh, &sections, &ledger, &own, &cfg, progress).await?;
        tracing::debug!(requests = gh.requests(), "inbox fetched");
        return Ok(out);
    }
    let mut out = Vec::new();
    for (source, specs) in live_specs(spec) {
        out.push(inbox::live::load(&gh, source, &specs, &ledger, &own, &cfg, progress).await?);
    }
    tracing::debug!(requests = gh.requests(), "inbox fetched");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::closed_qualifier;

    #[test]
    fn a_search_for_closed_prs_is_named() {
        assert_eq!(closed_qualifier("org:acme is:closed"), Some("is:closed"));
        assert_eq!(closed_qualifier("org:acme Is:Merged"), Some("Is:Merged"));
        assert_eq!(closed_qualifier("repo:a/b -is:open"), Some("-is:open"));
        assert_eq!(closed_qualifier("org:acme is:pr is:open author:@me"), None);
        assert_eq!(closed_qualifier("is:unmerged"), None);
    }
}
