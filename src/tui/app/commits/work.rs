//! The commits screen's own effects ([`Work`]) and their results ([`Done`]): the PR's commits
//! (live: `GET /repos/{o}/{r}/pulls/{n}/commits`, GitHub lists at most 250) and one commit's
//! files with their patches (`GET /repos/{o}/{r}/commits/{sha}`). Offline a fixture records no
//! commits: the pushes it records stand in for them (the head the PR opened with, then each
//! `push` step), each with the files that push changed. The screen's I/O edge: only the effect
//! runner performs it (see `app/work.rs`).

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::pr::{ChangedFile, PrCoords};
use crate::source::Fixture;
use crate::source::fixture::Change;
use crate::source::github::GitHub;
use crate::tui::app::work::{self, Io, Lane, Performing, Reply};

/// GitHub lists at most 250 commits of a PR: three pages of 100.
const MAX_PAGES: usize = 3;

/// What the commits screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// The PR's commits (live), or the pushes its fixture records (offline).
    List { pr: PrCoords },
    /// One commit's files and patches (live only: offline the pushes come with their files).
    Show { pr: PrCoords, sha: String },
}

/// What comes back to the commits screen.
#[derive(Debug, Clone)]
pub enum Done {
    /// The commits (or why not).
    Listed(Result<Listing, String>),
    /// Commit `sha`'s files, or why they could not be read.
    Shown {
        sha: String,
        files: Result<Vec<CommitFile>, String>,
    },
}

/// The list the screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub commits: Vec<Commit>,
    /// The fixture's pushes, not GitHub's commits.
    pub offline: bool,
}

/// One commit (offline: one push the fixture records).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    /// The whole message (offline: the step's description). Untrusted.
    pub message: String,
    /// The author's login, else the name in the commit (offline: empty).
    pub author: String,
    pub date: Option<DateTime<Utc>>,
    /// Offline: the files this push changed, known with the list; live: read on `Enter`.
    pub files: Option<Vec<CommitFile>>,
}

impl Commit {
    /// The message's first line.
    pub fn title(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

/// One file a commit changed, as GitHub's commit answer lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFile {
    pub path: String,
    /// added, modified, removed, renamed…
    pub status: String,
    pub previous: Option<String>,
    pub additions: u32,
    pub deletions: u32,
    pub patch: Option<String>,
    /// Why there is no patch (binary, too large…), when there is none.
    pub why_none: Option<String>,
}

impl CommitFile {
    /// The file as the diff's view takes it (its status, paths, counts and patch).
    pub fn to_changed(&self) -> ChangedFile {
        let mut f = ChangedFile::new(&self.path, self.patch.clone());
        f.status = self.status.clone();
        f.previous_path = self.previous.clone();
        f.additions = self.additions;
        f.deletions = self.deletions;
        f
    }

    fn from_changed(f: &ChangedFile) -> CommitFile {
        CommitFile {
            path: f.path.clone(),
            status: f.status.clone(),
            previous: f.previous_path.clone(),
            additions: f.additions,
            deletions: f.deletions,
            patch: f.patch.clone(),
            why_none: f.no_patch().map(|n| n.sentence().to_owned()),
        }
    }
}

impl work::Work for Work {
    fn lane(&self) -> Lane {
        Lane::Fetch
    }

    fn perform<'a>(self, io: &'a Io<'a>, send: Reply<'a>) -> Performing<'a> {
        Box::pin(async move {
            let gh = io.session.remote.github();
            let done = match self {
                Work::List { pr } => Done::Listed(match gh {
                    Some(gh) => list_live(gh, &pr).await.map(|commits| Listing {
                        commits,
                        offline: false,
                    }),
                    None => Ok(Listing {
                        commits: (io.fixture_of)(&pr)
                            .filter(|f| f.pr.coords() == pr)
                            .map(|f| pushes(&f))
                            .unwrap_or_default(),
                        offline: true,
                    }),
                }),
                Work::Show { pr, sha } => {
                    let files = match gh {
                        Some(gh) => show_live(gh, &pr, &sha).await,
                        None => Err("offline: a fixture records no commit's files".to_owned()),
                    };
                    Done::Shown { sha, files }
                }
            };
            send(work::Done::new(done));
        })
    }
}

/// `GET /repos/{o}/{r}/pulls/{n}/commits`, an item.
#[derive(Debug, Deserialize)]
struct RestCommit {
    sha: String,
    commit: RestCommitBody,
    #[serde(default)]
    author: Option<RestUser>,
    #[serde(default)]
    files: Vec<RestFile>,
}

#[derive(Debug, Deserialize)]
struct RestCommitBody {
    #[serde(default)]
    message: String,
    #[serde(default)]
    author: Option<RestGitAuthor>,
}

#[derive(Debug, Deserialize)]
struct RestGitAuthor {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    date: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize)]
struct RestUser {
    login: String,
}

#[derive(Debug, Deserialize)]
struct RestFile {
    filename: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    previous_filename: Option<String>,
    #[serde(default)]
    additions: u32,
    #[serde(default)]
    deletions: u32,
    #[serde(default)]
    patch: Option<String>,
}

impl RestCommit {
    fn into_commit(self) -> Commit {
        let git = self.commit.author;
        Commit {
            sha: self.sha,
            message: self.commit.message,
            author: self
                .author
                .map(|u| u.login)
                .or_else(|| git.as_ref().and_then(|a| a.name.clone()))
                .unwrap_or_default(),
            date: git.and_then(|a| a.date),
            files: None,
        }
    }
}

impl RestFile {
    fn into_file(self) -> CommitFile {
        let mut f = ChangedFile::new(&self.filename, self.patch);
        f.status = self.status.unwrap_or_else(|| "modified".to_owned());
        f.previous_path = self.previous_filename;
        f.additions = self.additions;
        f.deletions = self.deletions;
        CommitFile::from_changed(&f)
    }
}

fn repo_path(pr: &PrCoords) -> String {
    format!("/repos/{}/{}", pr.owner, pr.repo)
}

/// The commits of the list's answer, in GitHub's order (oldest first).
pub(super) fn parse_list(json: serde_json::Value) -> Result<Vec<Commit>, String> {
    let list: Vec<RestCommit> = serde_json::from_value(json).map_err(|e| e.to_string())?;
    Ok(list.into_iter().map(RestCommit::into_commit).collect())
}

/// The files of one commit's answer.
pub(super) fn parse_commit(json: serde_json::Value) -> Result<Vec<CommitFile>, String> {
    let c: RestCommit = serde_json::from_value(json).map_err(|e| e.to_string())?;
    Ok(c.files.into_iter().map(RestFile::into_file).collect())
}

async fn list_live(gh: &GitHub, pr: &PrCoords) -> Result<Vec<Commit>, String> {
    let path = format!("{}/pulls/{}/commits?per_page=100", repo_path(pr), pr.number);
    let list: Vec<serde_json::Value> = gh
        .get_all(&path, MAX_PAGES, "the PR's commits")
        .await
        .map_err(|e| e.to_string())?;
    parse_list(serde_json::Value::Array(list))
}

/// A SHA as GitHub writes it (hex): anything else never reaches a URL.
fn is_sha(s: &str) -> bool {
    (4..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

async fn show_live(gh: &GitHub, pr: &PrCoords, sha: &str) -> Result<Vec<CommitFile>, String> {
    if !is_sha(sha) {
        return Err("not a commit SHA".to_owned());
    }
    let path = format!("{}/commits/{sha}", repo_path(pr));
    let json: serde_json::Value = gh
        .get_json(&path, "the commit")
        .await
        .map_err(|e| e.to_string())?;
    parse_commit(json)
}

/// Offline: the pushes `f` records, as commits — the head the PR opened with (its files), then
/// each step with a `push` (its last head, its description and time, the files whose patch it
/// changed, and those it took out of the PR).
pub(super) fn pushes(f: &Fixture) -> Vec<Commit> {
    let mut out = vec![Commit {
        sha: f.pr.head_sha.clone(),
        message: "the head the PR opened with".to_owned(),
        author: String::new(),
        date: None,
        files: Some(f.pr.files.iter().map(CommitFile::from_changed).collect()),
    }];
    let mut before = f.pr.files.clone();
    for (k, step) in f.steps.iter().enumerate() {
        let head = step.changes.iter().rev().find_map(|c| match c {
            Change::Push { head_sha, .. } => Some(head_sha.clone()),
            _ => None,
        });
        let after = match f.snapshot_at(k + 1) {
            Ok(s) => s.pr.files,
            Err(_) => break,
        };
        if let Some(sha) = head {
            out.push(Commit {
                sha,
                message: step.description.clone(),
                author: String::new(),
                date: step.at,
                files: Some(changed(&before, &after)),
            });
        }
        before = after;
    }
    out
}

/// The files whose patch or status differs from `before` to `after`, in `after`'s order, then
/// those `after` no longer holds.
fn changed(before: &[ChangedFile], after: &[ChangedFile]) -> Vec<CommitFile> {
    let was = |p: &str| before.iter().find(|f| f.path == p);
    let mut out: Vec<CommitFile> = after
        .iter()
        .filter(|f| was(&f.path).is_none_or(|b| b.patch != f.patch || b.status != f.status))
        .map(CommitFile::from_changed)
        .collect();
    out.extend(
        before
            .iter()
            .filter(|b| !after.iter().any(|f| f.path == b.path))
            .map(|b| CommitFile {
                path: b.path.clone(),
                status: "reverted".to_owned(),
                previous: None,
                additions: 0,
                deletions: 0,
                patch: None,
                why_none: Some("no longer changed by the PR".to_owned()),
            }),
    );
    out
}
