//! The review engine: LLM backends, findings worth reading (dismissals, lessons, guidance, others' remarks, the verifier, the budget (also across processes and kills), stats), and their answers, streaming, condensing, posting, classification against earlier reviews, the surfacing gates.

mod answers;
mod budget;
mod bundled;
mod changes_and_threads;
mod conclusion;
mod condense;
mod engine;
mod failing_checks;
mod findings;
mod gates;
mod llama_server;
mod local_servers;
mod post;
mod send_once;
mod slow_servers;
mod stream;
