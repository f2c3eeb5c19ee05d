//! The headless commands run as a user runs them: items, inbox, review, event, watch, github, install, automation, checks, Shepherd's own check run, code (files, diff, file viewed).

mod automation;
mod bundled_names;
mod check_run;
mod checks;
mod code;
mod code_history;
mod event;
mod event_decisions;
mod github;
mod honest;
mod inbox;
mod install;
mod items;
mod pending;
mod pending_follow;
mod review;
mod watch;
