//! The `command` backend: runs a configured program (for example a local coding-agent CLI) with
//! the prompt on stdin and reads the answer from stdout.
//!
//! The program gets a minimal environment (`PATH`, `HOME`, `TMPDIR`, the locale, and what
//! `[review] command_env` names: `crate::childenv::minimal`), never the tokens or API keys of
//! this process.
//!
//! The program runs in its own process group. Dropping the call's future — the call's overall
//! limit, a cancel — kills the whole group (the program and anything it started), so nothing
//! outlives the review. Once the program has written its first byte (on stdout or stderr), no
//! byte on either for the idle limit (`[review] idle_timeout`) ends the call the same way; before
//! it, only the overall limit counts (a program may think for minutes before it writes).

use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

use super::{CallEvents, Completion, LlmError, MAX_ANSWER_BYTES, NoEvents, TimeLimit, seconds};
use crate::review::inputs::prompt::Prompt;

#[derive(Debug, Clone)]
pub struct CommandClient {
    program: Vec<String>,
    /// Variables passed besides the minimal environment.
    pass_env: Vec<String>,
    /// The longest silence once the program has written (see the module's doc).
    idle: Duration,
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
            idle: super::http::DEFAULT_IDLE,
        })
    }

    /// The longest silence once the program has written (`[review] idle_timeout`).
    pub fn idle_timeout(mut self, idle: Duration) -> CommandClient {
        self.idle = idle;
        self
    }

    /// Also passes these variables (when set) to the program.
    pub(crate) fn passing_env(mut self, names: Vec<String>) -> CommandClient {
        self.pass_env = names;
        self
    }

    pub(super) fn program_name(&self) -> String {
        self.program.first().cloned().unwrap_or_default()
    }

    pub async fn complete(&self, prompt: &Prompt) -> Result<Completion, LlmError> {
        self.complete_observed(prompt, &NoEvents).await
    }

    /// [`CommandClient::complete`], telling `events` of every character of stdout as it comes
    /// (`received`).
    pub(super) async fn complete_observed(
        &self,
        prompt: &Prompt,
        events: &dyn CallEvents,
    ) -> Result<Completion, LlmError> {
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
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let heard = Heard::default();
        let on_out = |bytes: &[u8]| {
            heard.byte();
            // The characters of UTF-8 text: every byte but continuation bytes, however the
            // stream is cut.
            let chars = bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count();
            heard.stdout(bytes.len());
            if chars > 0 {
                events.received(chars);
            }
        };
        let on_err = |_: &[u8]| heard.byte();
        let read = async {
            tokio::join!(
                async {
                    tokio::join!(
                        write,
                        read_pipe(stdout, MAX_ANSWER_BYTES, Overflow::Stop, &on_out)
                    )
                },
                read_pipe(stderr, MAX_STDERR_BYTES, Overflow::Drop, &on_err),
            )
        };
        let (((), out), err) = tokio::select! {
            r = read => r,
            () = heard.silent_for(self.idle) => {
                // `_group` kills the program (and what it started) on the way out.
                return Err(LlmError::TimedOut {
                    limit: TimeLimit::Idle(self.idle),
                    detail: format!(
                        "`{prog}` wrote nothing for {} after {} bytes of answer",
                        seconds(self.idle),
                        heard.stdout_bytes()
                    ),
                });
            }
        };
        let out = match out {
            Ok(out) => out,
            Err(PipeError::TooLarge | PipeError::Partial(_)) => {
                // `_group` kills the program (and what it started) on the way out.
                return Err(LlmError::Command(format!(
                    "`{prog}` wrote an answer larger than {} MiB; it was not read further",
                    MAX_ANSWER_BYTES / (1024 * 1024)
                )));
            }
            Err(PipeError::Io(e)) => {
                return Err(LlmError::Command(format!("`{prog}` failed: {e}")));
            }
        };
        let err = match err {
            Ok(bytes) | Err(PipeError::Partial(bytes)) => bytes,
            Err(_) => Vec::new(),
        };
        let status = child
            .wait()
            .await
            .map_err(|e| LlmError::Command(format!("`{prog}` failed: {e}")))?;
        if !status.success() {
            let err = String::from_utf8_lossy(&err);
            let err = crate::sanitize::one_line(&err);
            let err: String = err.chars().take(300).collect();
            return Err(LlmError::Command(format!(
                "`{prog}` exited with {status}: {err}"
            )));
        }
        let text = String::from_utf8(out).map_err(|_| {
            LlmError::Command(format!("`{prog}` wrote an answer that is not UTF-8"))
        })?;
        Ok(Completion {
            text,
            ..Completion::default()
        })
    }
}

/// The most bytes of the program's stderr kept (for the error when it fails); the rest is read
/// and dropped, so a chatty program never blocks on a full pipe.
const MAX_STDERR_BYTES: usize = 64 * 1024;

enum PipeError {
    /// More than the limit; the program was left unread (and is killed).
    TooLarge,
    /// The first bytes, kept; more came and were dropped.
    Partial(Vec<u8>),
    Io(std::io::Error),
}

/// What [`read_pipe`] does past its limit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Overflow {
    /// Stop reading: [`PipeError::TooLarge`].
    Stop,
    /// Read on and drop the rest: [`PipeError::Partial`] with the start.
    Drop,
}

/// When the program last wrote, and how much of its answer.
#[derive(Default)]
struct Heard(Mutex<HeardState>);

#[derive(Default)]
struct HeardState {
    /// The last byte on stdout or stderr (`None`: nothing yet).
    last: Option<Instant>,
    stdout: usize,
}

impl Heard {
    fn lock(&self) -> std::sync::MutexGuard<'_, HeardState> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn byte(&self) {
        self.lock().last = Some(Instant::now());
    }

    fn stdout(&self, n: usize) {
        self.lock().stdout += n;
    }

    fn stdout_bytes(&self) -> usize {
        self.lock().stdout
    }

    /// Returns once the program, having written, has written nothing for `idle`; never before
    /// its first byte.
    async fn silent_for(&self, idle: Duration) {
        loop {
            let last = self.lock().last;
            let wake = match last {
                Some(t) if t.elapsed() >= idle => return,
                Some(t) => t + idle,
                None => Instant::now() + idle,
            };
            tokio::time::sleep_until(wake).await;
        }
    }
}

/// Reads a pipe to its end, keeping at most `limit` bytes; `seen` is told of every read.
async fn read_pipe<R: tokio::io::AsyncRead + Unpin>(
    pipe: Option<R>,
    limit: usize,
    overflow: Overflow,
    seen: &(dyn Fn(&[u8]) + Sync),
) -> Result<Vec<u8>, PipeError> {
    let Some(mut pipe) = pipe else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut over = false;
    loop {
        let n = pipe.read(&mut buf).await.map_err(PipeError::Io)?;
        if n == 0 {
            break;
        }
        seen(&buf[..n]);
        let room = limit.saturating_sub(out.len());
        if n > room {
            over = true;
            out.extend_from_slice(&buf[..room]);
            if overflow == Overflow::Stop {
                return Err(PipeError::TooLarge);
            }
        } else if !over {
            out.extend_from_slice(&buf[..n]);
        }
    }
    if over {
        Err(PipeError::Partial(out))
    } else {
        Ok(out)
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
