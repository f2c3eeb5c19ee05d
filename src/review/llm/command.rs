//! The `command` backend: runs a configured program (for example a local coding-agent CLI) with
//! the prompt on stdin and reads the answer from stdout.
//!
//! The program gets a minimal environment (`PATH`, `HOME`, `TMPDIR`, the locale, and what
//! `[review] command_env` names: `crate::childenv::minimal`), never the tokens or API keys of
//! this process.
//!
//! The program runs in its own process group. Dropping the call's future — a timeout, a cancel —
//! kills the whole group (the program and anything it started), so nothing outlives the review.

use std::process::Stdio;

use tokio::io::AsyncWriteExt;

use super::{Completion, LlmError};
use crate::review::prompt::Prompt;

#[derive(Debug, Clone)]
pub struct CommandClient {
    program: Vec<String>,
    /// Variables passed besides the minimal environment.
    pass_env: Vec<String>,
}

impl CommandClient {
    /// `program` is the program and its arguments.
    pub fn new(program: Vec<String>) -> Result<CommandClient, LlmError> {
        if program.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(LlmError::Config(
                "the command backend needs a program (--llm-command or `command = [...]`)".into(),
            ));
        }
        Ok(CommandClient {
            program,
            pass_env: Vec::new(),
        })
    }

    /// Also passes these variables (when set) to the program.
    pub fn passing_env(mut self, names: Vec<String>) -> CommandClient {
        self.pass_env = names;
        self
    }

    pub(super) fn program_name(&self) -> String {
        self.program.first().cloned().unwrap_or_default()
    }

    pub async fn complete(&self, prompt: &Prompt) -> Result<Completion, LlmError> {
        let (prog, args) = self
            .program
            .split_first()
            .ok_or_else(|| LlmError::Config("the command backend needs a program".into()))?;
        let mut cmd = tokio::process::Command::new(prog);
        cmd.args(args)
            .env_clear()
            .envs(crate::childenv::minimal(&self.pass_env))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| LlmError::Command(format!("cannot start `{prog}`: {e}")))?;
        let _group = GroupGuard(child.id());
        let stdin = child.stdin.take();
        let input = prompt.combined();
        let write = async move {
            if let Some(mut s) = stdin {
                // A program that does not read its stdin closes the pipe: not an error here.
                let _ = s.write_all(input.as_bytes()).await;
                let _ = s.shutdown().await;
            }
        };
        let ((), out) = tokio::join!(write, child.wait_with_output());
        let out = out.map_err(|e| LlmError::Command(format!("`{prog}` failed: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let err = crate::sanitize::one_line(&err);
            let err: String = err.chars().take(300).collect();
            return Err(LlmError::Command(format!(
                "`{prog}` exited with {}: {err}",
                out.status
            )));
        }
        let text = String::from_utf8(out.stdout).map_err(|_| {
            LlmError::Command(format!("`{prog}` wrote an answer that is not UTF-8"))
        })?;
        Ok(Completion {
            text,
            ..Completion::default()
        })
    }
}

/// Kills the child's process group when dropped (the child was made the leader of a new group).
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self
            .0
            .and_then(|p| i32::try_from(p).ok())
            .filter(|p| *p > 1)
        {
            // SAFETY: kill(2) with a negative pid signals the process group `pid`, which is the
            // group this call created for its child; it has no memory-safety preconditions.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_a_program() {
        assert!(CommandClient::new(vec![]).is_err());
        assert!(CommandClient::new(vec![" ".into()]).is_err());
    }
}
