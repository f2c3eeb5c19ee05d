//! What a call is given: the prompt (`prompt`: playbook, fenced PR data, the aspect's task),
//! the diff in chunks (`chunk`), the extra blocks of the shared prefix (`blocks`) and what goes
//! into them — the repository's guidance (`guidance`), other reviewers' remarks (`others`), the
//! failing checks (`failing`) — and the earlier Shepherd reviews on the PR (`prior`).

pub(crate) mod blocks;
pub(crate) mod chunk;
pub(crate) mod failing;
pub(crate) mod guidance;
pub(crate) mod others;
pub mod prior;
pub mod prompt;
