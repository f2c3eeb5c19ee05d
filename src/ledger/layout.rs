//! Where a PR's folder is in the state dir, and how folders of the old layout move there.
//!
//! ```text
//! <state>/prs/<owner>/<repo>/<number>/   this layout: one folder per PR, whatever the names
//! <state>/<owner>-<repo>/<number>/        releases before it
//! ```
//!
//! The old name was not injective: `acme-rivet/core#7` and `acme/rivet-core#7` both wrote to
//! `acme-rivet-core/7`, so one PR read the other's review, draft and outbox as its own. Owner and
//! repo names cannot hold a `/` (`PrCoords::validate`), so `<owner>/<repo>` is one folder per
//! repository. The new folders sit under `prs/`, a name no old folder can have (an old name
//! always holds the hyphen between owner and repo), so an old folder is never mistaken for a new
//! one: an old `acme-rivet/482/` (acme/rivet#482) and the new folder of a repository named `482`
//! of the owner `acme-rivet` would otherwise be the same path.
//!
//! **Migration.** The first time a PR's folder is asked for ([`Ledger::pr_dir`]) and it does not
//! exist yet, the old folder of that PR (if any, and if it is that PR's: see below) is moved to
//! the new place in one rename: the folder whole, with whatever it holds (markers, kept texts,
//! runs, drafts, outbox, watch state, files this version does not know), never file by file, so
//! nothing in it is lost or left half-moved. Concurrent runs race on one rename; the loser finds
//! the new folder in place. Readers that must not write ([`Ledger::pr_dir_to_read`]: the inbox)
//! read an old folder where it is.
//!
//! **Whose is an old folder.** An old name like `a-b-c/7` has as many readings as ways to cut it
//! at a hyphen into a valid owner and repo (`a/b-c#7`, `a-b/c#7`):
//!
//! - one reading: it is that PR's;
//! - several: the run records inside (`runs/*.json`, whose `pr` field names the PR reviewed) say
//!   whose it is. Naming one reading, it is that PR's (the other readings start empty). Naming
//!   none, it goes to the first reading used (a folder only two PRs could have shared, with
//!   nothing in it to tell them apart). Naming two or more, both PRs wrote into it (the very
//!   mix-up this layout ends): it is **left where it is**, untouched, each PR starts with an
//!   empty folder, and `state show` names the old folder so the maintainer can move it by hand.
//!
//! A release before this one that is still running keeps writing to the old path; stop it before
//! upgrading (a folder it recreates there is left alone, never merged).

use std::path::{Path, PathBuf};

use super::{Ledger, LedgerError};
use crate::pr::{PrCoords, validate_owner, validate_repo};

/// The folder of every PR's folder in the state dir (`<state>/prs/<owner>/<repo>/<number>`).
pub const PRS_DIR: &str = "prs";

/// A PR's folder in this layout.
pub(super) fn new_dir(root: &Path, pr: &PrCoords) -> PathBuf {
    root.join(PRS_DIR)
        .join(&pr.owner)
        .join(&pr.repo)
        .join(pr.number.to_string())
}

/// A PR's folder in the layout before this one (`<owner>-<repo>/<number>`).
pub(super) fn old_dir(root: &Path, pr: &PrCoords) -> PathBuf {
    root.join(format!("{}-{}", pr.owner, pr.repo))
        .join(pr.number.to_string())
}

/// The (owner, repo) pairs an old folder name could have been made from: every cut at a hyphen
/// into a valid owner and a valid repo, owner shortest first.
pub fn readings(name: &str) -> Vec<(String, String)> {
    name.match_indices('-')
        .map(|(i, _)| (&name[..i], &name[i + 1..]))
        .filter(|(o, r)| validate_owner(o).is_ok() && validate_repo(r).is_ok())
        .map(|(o, r)| (o.to_owned(), r.to_owned()))
        .collect()
}

/// An old-layout folder that could be the PR's and what was decided about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OldFolder {
    /// The PR's own: moved (or, for a reader, read in place).
    Ours(PathBuf),
    /// Its run records name another reading of its name (`owner/repo#number`): that PR's.
    Theirs { path: PathBuf, pr: String },
    /// Its run records name two or more of its readings: left in place for the maintainer.
    Shared { path: PathBuf, prs: Vec<String> },
}

impl OldFolder {
    pub fn path(&self) -> &Path {
        match self {
            OldFolder::Ours(p)
            | OldFolder::Theirs { path: p, .. }
            | OldFolder::Shared { path: p, .. } => p,
        }
    }
}

/// What the old folder of `pr` is, if there is one.
pub(super) fn old_folder(root: &Path, pr: &PrCoords) -> Option<OldFolder> {
    let path = old_dir(root, pr);
    if !path.is_dir() {
        return None;
    }
    let name = format!("{}-{}", pr.owner, pr.repo);
    let readings = readings(&name);
    if readings.len() <= 1 {
        return Some(OldFolder::Ours(path));
    }
    let same =
        |o: &str, r: &str, a: &str, b: &str| o.eq_ignore_ascii_case(a) && r.eq_ignore_ascii_case(b);
    // The readings its run records name, in reading order.
    let named = run_prs(&path, pr.number);
    let mut prs: Vec<&(String, String)> = readings
        .iter()
        .filter(|(o, r)| named.iter().any(|(a, b)| same(o, r, a, b)))
        .collect();
    prs.dedup();
    let label = |(o, r): &(String, String)| format!("{o}/{r}#{}", pr.number);
    match prs.as_slice() {
        [] => Some(OldFolder::Ours(path)),
        [one] if same(&one.0, &one.1, &pr.owner, &pr.repo) => Some(OldFolder::Ours(path)),
        [one] => Some(OldFolder::Theirs {
            path,
            pr: label(one),
        }),
        many => Some(OldFolder::Shared {
            path,
            prs: many.iter().map(|p| label(p)).collect(),
        }),
    }
}

/// The (owner, repo) of every run record in `<dir>/runs/` that names PR `number` in its `pr`
/// field (`owner/repo#number`). Unreadable files say nothing.
fn run_prs(dir: &Path, number: u64) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir.join("runs")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".json")))
        .filter_map(|e| {
            let file = std::fs::File::open(e.path()).ok()?;
            // A run record is small; a huge file here is not one (read at most 16 MiB).
            let reader = std::io::Read::take(std::io::BufReader::new(file), 16 << 20);
            let v: serde_json::Value = serde_json::from_reader(reader).ok()?;
            let (repo, n) = v.get("pr")?.as_str()?.split_once('#')?;
            let (owner, repo) = repo.split_once('/')?;
            (n.parse::<u64>().ok()? == number).then(|| (owner.to_owned(), repo.to_owned()))
        })
        .collect()
}

impl Ledger {
    /// The PR's folder, `<root>/prs/<owner>/<repo>/<number>`, after checking the names cannot
    /// leave the root. An old-layout folder of the PR is moved there first, whole (see the
    /// module docs); a move that fails is an error rather than an empty folder in its place.
    pub fn pr_dir(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        pr.validate()?;
        let new = new_dir(&self.root, pr);
        if std::fs::symlink_metadata(&new).is_ok() {
            return Ok(new);
        }
        match old_folder(&self.root, pr) {
            Some(OldFolder::Ours(old)) => move_whole(&old, &new)?,
            Some(OldFolder::Shared { path, prs }) => tracing::warn!(
                path = %path.display(),
                prs = %prs.join(", "),
                "an old state folder written by several PRs is left in place"
            ),
            Some(OldFolder::Theirs { .. }) | None => {}
        }
        Ok(new)
    }

    /// The PR's folder for a reader that must not change the state dir (the inbox): the new
    /// folder, or while it does not exist yet the PR's old-layout folder where it is.
    pub fn pr_dir_to_read(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        pr.validate()?;
        let new = new_dir(&self.root, pr);
        if std::fs::symlink_metadata(&new).is_ok() {
            return Ok(new);
        }
        Ok(match old_folder(&self.root, pr) {
            Some(OldFolder::Ours(old)) => old,
            _ => new,
        })
    }

    /// An old-layout folder that could be the PR's but was not moved to it (its records name
    /// another PR, or several), for `state show` to name. `None` once the PR has its folder
    /// from an old one, or when there is none.
    pub fn unmoved_old_folder(&self, pr: &PrCoords) -> Result<Option<OldFolder>, LedgerError> {
        pr.validate()?;
        Ok(old_folder(&self.root, pr).filter(|o| !matches!(o, OldFolder::Ours(_))))
    }
}

/// Moves the folder `old` to `new` in one rename (creating `new`'s parents). Another process
/// that moved it first is success. The old `<owner>-<repo>` folder goes once it is empty.
fn move_whole(old: &Path, new: &Path) -> Result<(), LedgerError> {
    let failed = |source: std::io::Error| LedgerError::Move {
        from: old.to_path_buf(),
        to: new.to_path_buf(),
        source,
    };
    if let Some(parent) = new.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    match std::fs::rename(old, new) {
        Ok(()) => {
            tracing::info!(from = %old.display(), to = %new.display(), "state folder moved to the new layout");
            // Releases before made markers' temporary files in `seen/` itself; this one never
            // lists it to sweep them, so a killed run's leftovers go now.
            super::sweep_stale_temps(&new.join("seen"), std::time::SystemTime::now());
            if let Some(parent) = old.parent() {
                // Only when empty: other PRs of the repository may still be in it.
                let _ = std::fs::remove_dir(parent);
            }
            Ok(())
        }
        // Moved by a concurrent run: the new folder is there.
        Err(_) if std::fs::symlink_metadata(new).is_ok() => Ok(()),
        Err(e) => Err(failed(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr(owner: &str, repo: &str, number: u64) -> PrCoords {
        PrCoords {
            host: None,
            owner: owner.into(),
            repo: repo.into(),
            number,
        }
    }

    #[test]
    fn names_that_shared_a_folder_get_their_own() {
        let root = Path::new("/state");
        let a = pr("acme-rivet", "core", 7);
        let b = pr("acme", "rivet-core", 7);
        assert_eq!(
            old_dir(root, &a),
            old_dir(root, &b),
            "the old layout's collision"
        );
        assert_ne!(new_dir(root, &a), new_dir(root, &b));
        assert_eq!(new_dir(root, &a), Path::new("/state/prs/acme-rivet/core/7"));
    }

    #[test]
    fn readings_are_the_valid_cuts_at_a_hyphen() {
        let r = |s: &str| readings(s);
        assert_eq!(r("acme-rivet"), [("acme".into(), "rivet".into())]);
        assert_eq!(
            r("acme-rivet-core"),
            [
                ("acme".into(), "rivet-core".into()),
                ("acme-rivet".into(), "core".into())
            ]
        );
        // An owner cannot start with a hyphen; a repo can.
        assert_eq!(
            r("a--b"),
            [("a".into(), "-b".into()), ("a-".into(), "b".into())]
        );
        assert!(r("norepo").is_empty());
        assert!(r("-x").is_empty());
    }

    fn write_run(dir: &Path, name: &str, pr_field: &str) {
        let runs = dir.join("runs");
        std::fs::create_dir_all(&runs).unwrap();
        std::fs::write(
            runs.join(name),
            format!(r#"{{"format":"pr-shepherd/run@1","runId":"x","pr":"{pr_field}"}}"#),
        )
        .unwrap();
    }

    #[test]
    fn an_ambiguous_old_folder_goes_where_its_runs_say() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let a = pr("acme-rivet", "core", 7);
        let b = pr("acme", "rivet-core", 7);
        let old = root.join("acme-rivet-core/7");
        std::fs::create_dir_all(&old).unwrap();
        // No record: whichever reading is used first.
        assert_eq!(old_folder(root, &a), Some(OldFolder::Ours(old.clone())));
        assert_eq!(old_folder(root, &b), Some(OldFolder::Ours(old.clone())));
        // One record naming b (another PR number does not count).
        write_run(&old, "1.json", "acme/rivet-core#7");
        write_run(&old, "2.json", "acme-rivet/core#8");
        std::fs::write(old.join("runs/broken.json"), "{").unwrap();
        assert_eq!(old_folder(root, &b), Some(OldFolder::Ours(old.clone())));
        assert_eq!(
            old_folder(root, &a),
            Some(OldFolder::Theirs {
                path: old.clone(),
                pr: "acme/rivet-core#7".into()
            })
        );
        // Records of both: shared, left where it is.
        write_run(&old, "3.json", "acme-rivet/core#7");
        let shared = Some(OldFolder::Shared {
            path: old.clone(),
            prs: vec!["acme/rivet-core#7".into(), "acme-rivet/core#7".into()],
        });
        assert_eq!(old_folder(root, &a), shared);
        let ledger = Ledger::new(root);
        assert_eq!(ledger.pr_dir(&a).unwrap(), new_dir(root, &a));
        assert!(old.is_dir(), "a shared old folder is never moved");
        assert_eq!(ledger.unmoved_old_folder(&b).unwrap(), shared);
    }

    #[test]
    fn the_old_folder_moves_whole_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = pr("acme", "rivet", 482);
        let old = root.join("acme-rivet/482");
        std::fs::create_dir_all(old.join("some/deeper")).unwrap();
        std::fs::write(old.join("some/deeper/file"), "kept").unwrap();
        std::fs::create_dir_all(root.join("acme-rivet/483")).unwrap();
        let ledger = Ledger::new(root);
        // A reader sees it where it is and moves nothing.
        assert_eq!(ledger.pr_dir_to_read(&p).unwrap(), old);
        assert!(old.is_dir());
        let new = ledger.pr_dir(&p).unwrap();
        assert_eq!(new, root.join("prs/acme/rivet/482"));
        assert_eq!(
            std::fs::read_to_string(new.join("some/deeper/file")).unwrap(),
            "kept"
        );
        assert!(!old.exists());
        assert!(
            root.join("acme-rivet/483").is_dir(),
            "another PR's old folder stays"
        );
        assert_eq!(ledger.pr_dir_to_read(&p).unwrap(), new);
        // Once moved, an old folder made again later (an old release still running) stays.
        std::fs::create_dir_all(&old).unwrap();
        assert_eq!(ledger.pr_dir(&p).unwrap(), new);
        assert!(old.is_dir());
        // The last PR of a repository moved takes the empty `<owner>-<repo>` folder with it.
        std::fs::remove_dir(&old).unwrap();
        ledger.pr_dir(&pr("acme", "rivet", 483)).unwrap();
        assert!(!root.join("acme-rivet").exists());
    }

    #[test]
    fn a_move_that_fails_is_an_error_not_an_empty_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("acme-rivet/482")).unwrap();
        // `prs` cannot be created: a file is in its place.
        std::fs::write(root.join(PRS_DIR), "").unwrap();
        let err = Ledger::new(root)
            .pr_dir(&pr("acme", "rivet", 482))
            .unwrap_err();
        assert!(err.to_string().contains("acme-rivet"), "{err}");
        assert!(root.join("acme-rivet/482").is_dir());
    }
}
