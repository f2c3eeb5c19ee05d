//! `pr-shepherd record PR --out FILE`: a live PR, fetched completely, written as a fixture —
//! with the base branch's guidance files and the inbox's dashboard fields (checks in full with
//! their annotations, review decision and requests, size), so the fixture replays the same
//! review context and the same inbox columns offline.

use super::Context;
use crate::cli::RecordArgs;
use crate::error::CliError;
use crate::pr::{ChangeType, Dash, NoPatch, PrCoords, PrMeta, Reviewer};
use crate::source::fixture::FileContent;
use crate::source::github::{GitHub, batch, checks, contents};
use crate::source::{Fixture, Target};

pub(super) async fn run(ctx: &Context, args: RecordArgs) -> Result<(), CliError> {
    // `record` reads GitHub: a bundled PR's name is GitHub's here.
    let coords = match crate::source::resolve(Some(&args.pr), crate::source::Bundled::GitHubFirst)?
    {
        Target::Live(c) => c,
        Target::Fixture(_) => {
            return Err(CliError::usage(format!(
                "`{}` is a fixture; record takes a live PR (OWNER/REPO#N or a PR URL)",
                args.pr
            )));
        }
    };
    let started = std::time::Instant::now();
    let gh = super::live::client(ctx, &coords).await?;
    // One progress line per page that came back, when stderr is a terminal (and no --quiet).
    let progress = crate::progress::Progress::stderr(args.quiet);
    let gh = if progress.is_enabled() {
        let pages = progress.counter(None);
        gh.with_page_hook(std::sync::Arc::new(move |what: &str| {
            pages.tick(&format!("fetched {what}"));
        }))
    } else {
        gh
    };
    let snapshot = gh.fetch_snapshot(&coords).await?;
    if !snapshot.is_complete() {
        // A fixture has no notion of "incomplete": replaying it would mark items seen that were
        // never fetched. Refuse instead.
        return Err(CliError::runtime(format!(
            "{coords}: the fetch was incomplete, nothing was written:\n  - {}",
            snapshot.incomplete.join("\n  - ")
        )));
    }
    // Provenance only: no endpoint, no credential source detail beyond its kind.
    let recorded = serde_json::json!({
        "at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "from": "github",
        "pr": coords.to_string(),
        "headSha": snapshot.pr.head_sha,
    });
    let mut fixture = Fixture::from_snapshot(&snapshot, Some(recorded));
    // The repository's guidance as it is at the base commit (never the head), so a replayed
    // review reads the same rules.
    let (files, folders) = crate::review::inputs::guidance::wanted(ctx.review_settings());
    fixture.base_files = crate::source::github::base_files(
        &gh,
        &coords,
        &snapshot.pr.base_sha,
        &files,
        &folders,
    )
    .await
    .unwrap_or_else(|e| {
        // Said, not fatal: the fixture is whole without them, and replays without guidance.
        crate::eprintln_clean!(
            "note: the base branch's guidance files (AGENTS.md, …) could not be read, the fixture has none: {e}"
        );
        Vec::new()
    });
    fixture.dashboard = dashboard(&gh, &coords, &snapshot.pr.head_sha).await;
    // The files the PR shows, at its head and base, for the diff's context on demand offline.
    let (texts, left_out) = file_texts(&gh, &coords, &snapshot.pr).await;
    fixture.file_contents = texts;
    // Refused as `fixture check` would refuse the file (the fetch lists each id once, so this
    // holds; if it ever does not, nothing is written rather than a file that cannot be read).
    fixture.source_path = args.out.clone();
    fixture.check().map_err(|e| {
        CliError::runtime(format!(
            "{coords}: the fetched PR would not make a valid fixture, nothing was written: {e}"
        ))
    })?;
    fixture.write(&args.out)?;
    crate::eprintln_clean!(
        "recorded {coords} to {}: {} items, {} files, {} of their texts ({} binary or over 1 MiB left out), {} guidance files of the base ({} requests, {:.1}s)",
        args.out.display(),
        snapshot.items.len(),
        snapshot.pr.files.len(),
        fixture.file_contents.len(),
        left_out,
        fixture.base_files.len(),
        gh.requests(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The texts of the PR's changed files at its head (the new path; none for a removed file) and
/// at its base (the old path; none for an added file), read in batches
/// ([`contents::read_files_at`]); binary files (no patch, GitHub says so) are not asked. Returns
/// the texts kept and how many were left out (binary, over 1 MiB, cut short); a failed read is
/// said, and the fixture has none.
async fn file_texts(gh: &GitHub, coords: &PrCoords, pr: &PrMeta) -> (Vec<FileContent>, usize) {
    let mut wanted = Vec::new();
    let mut left_out = 0;
    for f in &pr.files {
        if f.no_patch() == Some(NoPatch::Binary) {
            left_out += 1;
            continue;
        }
        let kind = f.change_type();
        if kind != ChangeType::Removed {
            wanted.push((pr.head_sha.clone(), f.path.clone()));
        }
        if kind != ChangeType::Added {
            let old = f.previous_path.clone().unwrap_or_else(|| f.path.clone());
            wanted.push((pr.base_sha.clone(), old));
        }
    }
    match contents::read_files_at(gh, coords, &wanted).await {
        Ok(read) => {
            let mut kept = Vec::with_capacity(read.len());
            for ((sha, path), r) in wanted.into_iter().zip(read) {
                match r {
                    Ok(t) => kept.push(FileContent {
                        sha,
                        path,
                        text: t.text.to_string(),
                    }),
                    Err(contents::Refusal::Missing) => {}
                    Err(_) => left_out += 1,
                }
            }
            (kept, left_out)
        }
        Err(e) => {
            crate::eprintln_clean!(
                "note: the changed files' texts could not be read, the fixture has none (the diff's e/E show nothing offline): {e}"
            );
            (Vec::new(), 0)
        }
    }
}

/// What the inbox's dashboard shows of the PR, as the live inbox reads it: its listed fields
/// (checks counted by state, review decision and requests, size; one request), the viewer's
/// teams when a team's review is requested (as the inbox asks them; two requests: the viewer,
/// its teams), and every check at the head with its annotations (one request). Each part that
/// cannot be read is said and left out; the fixture is whole without it.
async fn dashboard(gh: &GitHub, coords: &PrCoords, head: &str) -> Dash {
    let mut dash = batch::dashboard_of(gh, coords).await.unwrap_or_else(|e| {
        crate::eprintln_clean!(
            "note: the PR's dashboard fields (review decision, requests, size) could not be read, the fixture has none: {e}"
        );
        Dash::default()
    });
    if dash
        .review_requests
        .iter()
        .any(|r| matches!(r, Reviewer::Team { .. }))
    {
        let teams = match gh.viewer_login().await {
            Ok(me) => batch::viewer_teams(gh, &me).await,
            Err(e) => Err(e),
        };
        match teams {
            Ok(t) => dash.viewer_teams = t,
            Err(e) => crate::eprintln_clean!(
                "note: the teams of the current identity could not be read, the fixture names none: {e}"
            ),
        }
    }
    match checks::fetch_in_one_request(gh, coords, head).await {
        Ok(h) => {
            if h.unread > 0 {
                crate::eprintln_clean!(
                    "note: {} checks at the head beyond the first 100 were not recorded",
                    h.unread
                );
            }
            dash.check_runs = h.runs;
        }
        Err(e) => crate::eprintln_clean!(
            "note: the checks at the head commit could not be read, the fixture has none: {e}"
        ),
    }
    dash
}
