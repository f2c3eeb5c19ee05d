//! `pr-shepherd checkout PR [--repo DIR] [--dir DIR]`: the PR's head in a git worktree beside
//! the repository (`source::checkout`).

use std::path::Path;

use super::Context;
use crate::cli::{CheckoutArgs, Format};
use crate::error::CliError;
use crate::sanitize::one_line;
use crate::source::checkout::check_out;

pub(super) async fn run(ctx: &Context, args: CheckoutArgs) -> Result<(), CliError> {
    let repo = args
        .repo
        .clone()
        .or_else(|| ctx.config.config.code.checkout.clone())
        .ok_or_else(|| {
            CliError::usage(
                "give --repo DIR (a clone of the repository), or set `checkout` under [code] in the config",
            )
        })?;
    let shown = |p: &Path| one_line(&p.display().to_string());
    let snapshot = super::load_snapshot(ctx, ctx.resolve(Some(&args.pr))?, None).await?;
    let pr = &snapshot.pr;
    let done = check_out(&repo, args.dir.as_deref(), pr).map_err(|e| {
        if e.is_usage() {
            CliError::usage(e.to_string())
        } else {
            CliError::runtime(e.to_string())
        }
    })?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&serde_json::json!({
            "pr": format!("{}/{}#{}", pr.owner, pr.repo, pr.number),
            "head": pr.head_sha,
            "dir": done.dir.display().to_string(),
            "repo": repo.display().to_string(),
            "said": done.said,
        }))
        .unwrap_or_default(),
        Format::Md => format!(
            "{}/{}#{}: {} in {} (a worktree of {}); the diff's `o` opens files there\n",
            one_line(&pr.owner),
            one_line(&pr.repo),
            pr.number,
            done.said,
            shown(&done.dir),
            shown(&repo)
        ),
    };
    super::emit_in(args.format, &text)
}
