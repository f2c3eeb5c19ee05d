//! `pr-shepherd ask PR --path P --lines A-B [--side left|right] "question"`: the console's `a`
//! (a question to the model about selected lines), headless. The lines must be lines of the
//! file's diff in one hunk (exit 2 otherwise, naming the diff's lines); the file around them is
//! read at the head (right) or the base (left) — live from GitHub, offline from the fixture's
//! `fileContents` — and everything goes through [`crate::review::engine::ask`]: the fenced
//! prompt, the budget in the spend log, the call. The answer is streamed to standard output
//! through [`super::write_safe`] (terminal-safe), its usage and cost go to stderr. Ctrl-C
//! cancels the call, and `--timeout` ends it (exit 1, saying which limit struck); either way its
//! reservation is settled.

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Context;
use crate::cli::AskArgs;
use crate::code::Side;
use crate::error::CliError;
use crate::review::engine::ask::{self, AroundSelection, AskDelta, AskError, AskRequest};
use crate::review::flow::effective_settings;
use crate::review::llm::ReplaySource;
use crate::review::results::inline::parsed_patches;
use crate::sanitize::one_line;
use crate::source::Target;
use crate::source::github::contents::{
    BlobCache, DEFAULT_CACHE_BYTES, cached_file_at, offline_file,
};

/// `A-B` or `A` → `(A, B)`.
fn line_range(text: &str) -> Result<(u32, u32), CliError> {
    let bad = || {
        CliError::usage(format!(
            "--lines `{}`: give a line number or a range, like 12 or 12-18",
            one_line(text)
        ))
    };
    let num = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n > 0);
    match text.split_once('-') {
        Some((a, b)) => Ok((num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?)),
        None => num(text).map(|n| (n, n)).ok_or_else(bad),
    }
}

fn to_cli(e: AskError) -> CliError {
    if e.is_usage() {
        CliError::usage(e.to_string())
    } else {
        CliError::runtime(e.to_string())
    }
}

pub(super) async fn run(ctx: &Context, args: AskArgs) -> Result<(), CliError> {
    let (start, end) = line_range(&args.lines)?;
    let side = if args.side.eq_ignore_ascii_case("left") {
        Side::Left
    } else {
        Side::Right
    };
    if args.question.trim().is_empty() {
        return Err(CliError::usage("the question is empty"));
    }
    let settings = effective_settings(ctx.review_settings(), args.llm.overrides())
        .map_err(|e| CliError::usage(e.to_string()))?;
    let target = ctx.resolve(Some(&args.pr))?;
    let (snapshot, fixture) = match target {
        Target::Fixture(f) => (f.snapshot_at(0)?, Some(f)),
        live @ Target::Live(_) => (super::load_snapshot(ctx, live, None).await?, None),
    };
    let pr = &snapshot.pr;
    let patches = parsed_patches(&snapshot);
    let Some(patch) = patches.get(&args.path) else {
        return Err(CliError::usage(format!(
            "`{}` is not among the PR's changed files with a patch (`files` lists them)",
            one_line(&args.path)
        )));
    };
    // Checked before the file is read: a mistake costs no request.
    let no_file = AroundSelection::Unavailable(String::new());
    AskRequest::select(
        pr,
        &args.path,
        patch,
        side,
        (start, end),
        no_file,
        &args.question,
    )
    .map_err(to_cli)?;
    // The file on the selection's side: the head's, or the base's under its old name.
    let (commit, path) = match side {
        Side::Right => (pr.head_sha.as_str(), args.path.as_str()),
        Side::Left => {
            let old = pr
                .files
                .iter()
                .find(|f| f.path == args.path)
                .and_then(|f| f.previous_path.as_deref())
                .unwrap_or(&args.path);
            (pr.base_sha.as_str(), old)
        }
    };
    let read = match &fixture {
        Some(f) => offline_file(f.file_at(commit, path), commit, path),
        None => {
            let gh = super::live::client(ctx, &pr.coords()).await?;
            let cache = Mutex::new(BlobCache::new(DEFAULT_CACHE_BYTES));
            cached_file_at(&gh, &cache, &pr.coords(), commit, path).await
        }
    };
    let file = match read {
        Ok(t) => AroundSelection::Text(t.text.to_string()),
        Err(e) => AroundSelection::Unavailable(e.to_string()),
    };
    let req = AskRequest::select(
        pr,
        &args.path,
        patch,
        side,
        (start, end),
        file,
        &args.question,
    )
    .map_err(to_cli)?;
    let replay = fixture.as_ref().map(|f| ReplaySource {
        answers: f.llm.answers.clone(),
        step: 0,
    });
    let client = ask::client(&settings, &ctx.llm_env, replay).map_err(to_cli)?;
    let ledger = ctx.ledger().ok();
    let budget = Arc::new(ask::budget(&settings, ledger.as_ref(), pr));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let call = ask::ask(&req, &settings, &client, budget.clone(), tx, cancel.clone());
    tokio::pin!(call);
    let mut shown = false;
    let show = |d: AskDelta, shown: &mut bool| -> Result<(), CliError> {
        match d {
            AskDelta::Began if *shown => {
                crate::progress::note("the answer broke off; it was asked again (shown below)");
                super::write_safe("\n", crate::output::safe::Kind::Text).ok();
                *shown = false;
                Ok(())
            }
            AskDelta::Began => Ok(()),
            AskDelta::Text(t) => {
                *shown = *shown || !t.is_empty();
                super::write_safe(&t, crate::output::safe::Kind::Text)
                    .map_err(|e| CliError::runtime(format!("could not write the answer: {e}")))
            }
        }
    };
    let done = loop {
        tokio::select! {
            r = &mut call => break r,
            Some(d) = rx.recv() => {
                if let Err(e) = show(d, &mut shown) {
                    cancel.cancel();
                    return Err(e);
                }
            }
            _ = tokio::signal::ctrl_c() => cancel.cancel(),
        }
    };
    while let Ok(d) = rx.try_recv() {
        show(d, &mut shown)?;
    }
    if done.is_err() && shown {
        // What came before the call ended stays, on a line of its own.
        super::write_safe("\n", crate::output::safe::Kind::Text).ok();
    }
    let answer = done.map_err(to_cli)?;
    if !answer.text.ends_with('\n') {
        super::write_safe("\n", crate::output::safe::Kind::Text)
            .map_err(|e| CliError::runtime(format!("could not write the answer: {e}")))?;
    }
    let count = |n: Option<u64>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
    let cost = answer
        .cost
        .map_or_else(String::new, |c| format!(", about ${c:.4}"));
    eprintln!(
        "asked {}: {} input tokens, {} output tokens{cost}",
        one_line(&answer.model),
        count(answer.usage.input),
        count(answer.usage.output)
    );
    if let Some(why) = budget.unrecorded() {
        eprintln!("note: not recorded in the spend log: {}", one_line(&why));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_number_or_a_range() {
        assert_eq!(line_range("12").unwrap(), (12, 12));
        assert_eq!(line_range("12-18").unwrap(), (12, 18));
        for bad in ["", "0", "a-3", "3-", "-3", "1-2-3"] {
            assert!(line_range(bad).is_err(), "{bad}");
        }
    }
}
