//! `pr-shepherd completions SHELL` and `pr-shepherd man`: generated from the clap definitions in
//! `crate::cli`, so they can never disagree with the real command line.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::CliError;

/// The completion script for `shell`, as text.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pr-shepherd", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

pub(super) fn completions(args: &CompletionsArgs) -> Result<(), CliError> {
    super::emit(&completion_script(args.shell))
}

/// One man page: the top-level page (synopsis, global options, the list of subcommands, exit
/// codes), then a section per subcommand, nested ones included (`PR-SHEPHERD STATE SHOW`), with
/// its description, synopsis and options.
pub fn man_page() -> Result<String, std::io::Error> {
    let mut cmd = Cli::command();
    // Sets every subcommand's bin name (`pr-shepherd state show`) for the synopses.
    cmd.build();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    let mut subs = Vec::new();
    collect_subcommands(&cmd, &mut subs);
    for sub in subs {
        let name = sub
            .get_bin_name()
            .map_or_else(|| sub.get_name().to_owned(), str::to_owned);
        let man = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        man.render_description_section(&mut part)?;
        man.render_synopsis_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut part)?;
        }
        man.render_extra_section(&mut part)?;
        let part = String::from_utf8_lossy(&part);
        out.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        // The page has one SYNOPSIS and one OPTIONS section: a subcommand's are subsections.
        for line in part.lines() {
            let line = match line.strip_prefix(".SH ") {
                Some(title) => format!(".SS {}", title_case(title)),
                None => line.to_owned(),
            };
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    Ok(ascii_roff(&String::from_utf8_lossy(&out)))
}

/// Non-ASCII characters as roff escapes (`—` → `\[u2014]`): troff reads its input as Latin-1
/// unless a preprocessor converts it, so raw UTF-8 would print as mojibake.
fn ascii_roff(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", c as u32));
        }
    }
    out
}

/// `SYNOPSIS` → `Synopsis` (section titles of a subcommand become subsection titles).
fn title_case(title: &str) -> String {
    let t = title.trim().trim_matches('"');
    let mut chars = t.chars();
    match chars.next() {
        Some(first) => format!(
            "\"{}{}\"",
            first.to_uppercase(),
            chars.as_str().to_lowercase()
        ),
        None => String::new(),
    }
}

/// Every visible subcommand, depth first, without clap's generated `help`.
fn collect_subcommands(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        out.push(sub.clone());
        collect_subcommands(sub, out);
    }
}

pub(super) fn man(args: &ManArgs) -> Result<(), CliError> {
    match &args.dir {
        None => {
            let page = man_page()
                .map_err(|e| CliError::runtime(format!("cannot render the man page: {e}")))?;
            super::emit(&page)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                CliError::runtime(format!("cannot create `{}`: {e}", dir.display()))
            })?;
            write_man_pages(dir).map_err(|e| {
                CliError::runtime(format!(
                    "cannot write the man pages to `{}`: {e}",
                    dir.display()
                ))
            })?;
            crate::eprintln_clean!("wrote the man pages to {}", dir.display());
            Ok(())
        }
    }
}

/// One page per command and subcommand (`pr-shepherd.1`, `pr-shepherd-items.1`, …), as
/// `clap_mangen::generate_to` names them, each written by rename ([`crate::outfile`]): a file or
/// symlink already at a page's path is replaced, never written through.
fn write_man_pages(dir: &std::path::Path) -> std::io::Result<()> {
    fn pages(cmd: &clap::Command, out: &mut Vec<clap_mangen::Man>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            pages(sub, out);
        }
        out.push(clap_mangen::Man::new(cmd.clone()));
    }
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut all = Vec::new();
    pages(&cmd, &mut all);
    for man in all {
        let mut page = Vec::new();
        man.render(&mut page)?;
        crate::outfile::write_replacing(
            &dir.join(man.get_filename()),
            &page,
            crate::source::fixture::TEMP_PREFIX,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand path, `items` … `state show`, from the clap definitions.
    fn all_subcommand_names() -> Vec<String> {
        let mut cmd = Cli::command();
        cmd.build();
        let mut subs = Vec::new();
        collect_subcommands(&cmd, &mut subs);
        subs.iter()
            .map(|s| s.get_bin_name().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn man_page_has_every_subcommand() {
        let page = man_page().unwrap();
        assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{page}");
        assert!(page.contains(".TH pr-shepherd 1"), "{}", &page[..200]);
        let names = all_subcommand_names();
        for must in [
            "pr-shepherd items",
            "pr-shepherd state show",
            "pr-shepherd event",
            "pr-shepherd watch",
            "pr-shepherd config init",
            "pr-shepherd completions",
            "pr-shepherd man",
        ] {
            assert!(names.iter().any(|n| n == must), "{must} in {names:?}");
        }
        for name in &names {
            assert!(
                page.contains(&format!(".SH \"{}\"", name.to_uppercase())),
                "no section for {name}"
            );
        }
        // One SYNOPSIS section; the subcommands' are subsections.
        assert_eq!(page.matches(".SH SYNOPSIS").count(), 1);
        assert!(page.is_ascii());
        assert!(
            page.contains("\\[u2014] AI Coding Agent"),
            "the reply marker's dash"
        );
        assert!(page.contains(".SS \"Synopsis\""));
    }

    #[test]
    fn every_shell_gets_a_script_naming_every_subcommand() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::Elvish,
            clap_complete::Shell::PowerShell,
        ] {
            let script = completion_script(shell);
            for sub in [
                "items", "review", "record", "event", "watch", "config", "man",
            ] {
                assert!(script.contains(sub), "{shell:?} lacks {sub}");
            }
        }
    }
}
