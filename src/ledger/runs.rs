//! Runs remembered per PR: `<pr>/runs/<run-id>.json`, one file per run, written atomically.
//!
//! The ledger stores any [`StoredRun`] without knowing its shape; `review::ReviewRun` is the one
//! stored today (per-aspect findings, states, timings, token usage and, for failed aspects, the
//! raw reply), so a later pass can say "flagged in pass 1". Keeping this generic is what lets
//! `ledger` sit below `review` in the module graph.

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Ledger, LedgerError, write_atomic};
use crate::pr::PrCoords;

/// The format tag of a run file.
pub const RUN_FORMAT: &str = "pr-shepherd/run@1";

/// Something stored as one run file: it names its file by its run id.
pub trait StoredRun: Serialize + DeserializeOwned + Clone {
    /// The run's id: letters, digits, `-` and `_` only (checked before saving). Ids that sort
    /// by time make [`Ledger::load_runs`] return runs oldest first.
    fn run_id(&self) -> &str;
}

/// A run file: the format tag, then the run's own fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord<R> {
    pub format: String,
    #[serde(flatten)]
    pub run: R,
}

/// A run file that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunProblem {
    pub path: PathBuf,
    pub reason: String,
}

impl Ledger {
    pub fn runs_dir(&self, pr: &PrCoords) -> Result<PathBuf, LedgerError> {
        Ok(self.pr_dir(pr)?.join("runs"))
    }

    /// Stores a run as `<pr>/runs/<run-id>.json`. Returns the path written.
    pub fn save_run<R: StoredRun>(&self, pr: &PrCoords, run: &R) -> Result<PathBuf, LedgerError> {
        let id = run.run_id();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(LedgerError::Io {
                action: "name",
                path: PathBuf::from(id),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a run id may hold only letters, digits, - and _",
                ),
            });
        }
        let path = self.runs_dir(pr)?.join(format!("{id}.json"));
        let record = RunRecord {
            format: RUN_FORMAT.to_owned(),
            run: run.clone(),
        };
        let mut bytes = serde_json::to_vec_pretty(&record).map_err(|e| LedgerError::Io {
            action: "encode",
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes)?;
        Ok(path)
    }

    /// Every stored run of the PR, oldest first (run ids sort by time), and the files that could
    /// not be read.
    pub fn load_runs<R: StoredRun>(
        &self,
        pr: &PrCoords,
    ) -> Result<(Vec<R>, Vec<RunProblem>), LedgerError> {
        let dir = self.runs_dir(pr)?;
        super::sweep_stale_temps(&dir, std::time::SystemTime::now());
        let mut runs = Vec::new();
        let mut problems = Vec::new();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((runs, problems)),
            Err(e) => return Err(LedgerError::io("read", &dir)(e)),
        };
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<RunRecord<R>>(&t).map_err(|e| e.to_string()));
            match parsed {
                Ok(r) if r.format == RUN_FORMAT => runs.push(r.run),
                Ok(r) => problems.push(RunProblem {
                    path,
                    reason: format!("unknown format `{}`", r.format),
                }),
                Err(reason) => problems.push(RunProblem { path, reason }),
            }
        }
        Ok((runs, problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in run: the ledger must not need to know what a review run holds.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Run {
        run_id: String,
        raw_reply: Option<String>,
    }

    impl StoredRun for Run {
        fn run_id(&self) -> &str {
            &self.run_id
        }
    }

    fn run(id: &str) -> Run {
        Run {
            run_id: id.into(),
            raw_reply: Some("nope".into()),
        }
    }

    fn coords() -> PrCoords {
        PrCoords {
            host: None,
            owner: "acme".into(),
            repo: "rivet".into(),
            number: 482,
        }
    }

    #[test]
    fn runs_round_trip_in_time_order() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        let pr = coords();
        let b = ledger
            .save_run(&pr, &run("20261129T210001Z-bbbbbb"))
            .unwrap();
        ledger
            .save_run(&pr, &run("20261129T210000Z-aaaaaa"))
            .unwrap();
        assert!(b.ends_with("prs/acme/rivet/482/runs/20261129T210001Z-bbbbbb.json"));
        std::fs::write(b.with_file_name("broken.json"), "{").unwrap();
        std::fs::write(
            b.with_file_name("future.json"),
            r#"{"format": "pr-shepherd/run@9", "runId": "x", "rawReply": null}"#,
        )
        .unwrap();
        let (runs, problems) = ledger.load_runs::<Run>(&pr).unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].run_id, "20261129T210000Z-aaaaaa");
        assert_eq!(runs[1], run("20261129T210001Z-bbbbbb"));
        assert_eq!(problems.len(), 2);
        let text = std::fs::read_to_string(&b).unwrap();
        assert!(text.contains("\"format\": \"pr-shepherd/run@1\""));
        assert!(text.contains("\"rawReply\": \"nope\""));
    }

    #[test]
    fn hostile_run_ids_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(dir.path());
        assert!(ledger.save_run(&coords(), &run("../../x")).is_err());
        assert!(ledger.load_runs::<Run>(&coords()).unwrap().0.is_empty());
    }
}
