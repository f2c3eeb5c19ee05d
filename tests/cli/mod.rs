//! The headless commands run as a user runs them: ask, items, inbox, review, event, watch, github, install, automation, checks, Shepherd's own check run, code (files, diff, file viewed), the diff screen's pure parts on real git history.

mod ask;
mod automation;
mod bundled_names;
mod check_run;
mod checks;
mod code;
mod code_history;
mod decide;
mod diff_parts;
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
