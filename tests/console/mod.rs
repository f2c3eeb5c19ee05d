//! The console: screens as snapshots, keys, the inbox, edited-comment diffs, the real binary in tmux.

mod changes;
mod checks;
mod code;
mod code_history;
mod conversation_comment;
mod dashboard;
mod decided;
mod defects;
mod diff_context;
mod diff_review;
mod diff_split;
mod e2e;
mod findings;
mod inbox;
mod keys;
mod markdown_cache;
mod own_review;
mod pending;
mod screen;
mod session;
mod submit_body;
mod table_tmux;
mod ui;
mod walk;
