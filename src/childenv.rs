//! The environment a child process gets.
//!
//! The process holds secrets in its environment (`GH_TOKEN`, `GITHUB_TOKEN`, a GitHub App's
//! private key, the LLM providers' API keys). A child must not inherit them by accident:
//! - the `command` LLM backend's program starts from an empty environment plus [`BASE_VARS`],
//!   the locale (`LANG`, `LANGUAGE`, `LC_*`) and the variables the config names explicitly
//!   (`[review] command_env`): [`minimal`];
//! - other children (the browser opener, `gh auth token`) keep their environment, which they
//!   need (display, session bus, `gh`'s own config), minus every secret: [`secret_names`].

use std::ffi::OsString;

/// Passed to the `command` backend's program besides the locale and `command_env`.
pub const BASE_VARS: &[&str] = &[
    "PATH",
    "HOME",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TZ",
    // Windows cannot start most programs without these.
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
];

/// Secrets this tool reads, by name.
pub const SECRET_VARS: &[&str] = &[
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "GH_APP_PRIVATE_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
];

/// True for a variable name that holds (or by convention holds) a secret: the ones this tool
/// reads and any `*_TOKEN`, `*_API_KEY`, `*_SECRET`, `*_PASSWORD`, `*_PRIVATE_KEY`.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_VARS.contains(&upper.as_str())
        || [
            "_TOKEN",
            "_API_KEY",
            "_APIKEY",
            "_SECRET",
            "_SECRET_KEY",
            "_PASSWORD",
            "_PRIVATE_KEY",
        ]
        .iter()
        .any(|s| upper.ends_with(s))
}

fn is_locale(name: &str) -> bool {
    name == "LANG" || name == "LANGUAGE" || name.starts_with("LC_")
}

/// The whole environment of the `command` backend's program: [`BASE_VARS`], the locale, and the
/// variables named in `pass` (`[review] command_env`) that are set — nothing else.
///
/// This module reads the environment itself, not through `commands::Context`: what a child
/// inherits is this process's whole environment at the moment it is spawned, filtered here.
pub fn minimal(pass: &[String]) -> Vec<(OsString, OsString)> {
    minimal_from(std::env::vars_os(), pass)
}

fn minimal_from(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    pass: &[String],
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(k, _)| {
            k.to_str().is_some_and(|k| {
                BASE_VARS.contains(&k) || is_locale(k) || pass.iter().any(|p| p == k)
            })
        })
        .collect()
}

/// The names of the secrets set in this process's environment, to remove from a child's.
pub fn secret_names() -> Vec<OsString> {
    std::env::vars_os()
        .map(|(k, _)| k)
        .filter(|k| k.to_str().is_some_and(is_secret_name))
        .collect()
}

/// Refuses a `command_env` entry that cannot be a variable name.
pub fn check_var_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.len() > 256
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(format!(
            "`{}` is not an environment variable name (letters, digits and `_`)",
            crate::sanitize::one_line(name)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        list.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    #[test]
    fn minimal_keeps_only_the_base_the_locale_and_what_is_named() {
        let env = vars(&[
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("TMPDIR", "/tmp"),
            ("LANG", "C.UTF-8"),
            ("LC_CTYPE", "C"),
            ("GH_TOKEN", "ghp_x"),
            ("GITHUB_TOKEN", "ghs_x"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("OPENAI_API_KEY", "sk-x"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("MY_AGENT_KEY", "k"),
            ("EDITOR", "vi"),
        ]);
        let got = minimal_from(env, &["MY_AGENT_KEY".to_owned()]);
        let names: Vec<_> = got.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(
            names,
            ["PATH", "HOME", "TMPDIR", "LANG", "LC_CTYPE", "MY_AGENT_KEY"]
        );
    }

    #[test]
    fn secret_names_are_recognised() {
        for s in [
            "GH_TOKEN",
            "github_token",
            "GH_APP_PRIVATE_KEY",
            "OPENAI_API_KEY",
            "NPM_TOKEN",
            "DB_PASSWORD",
            "STRIPE_SECRET_KEY",
        ] {
            assert!(is_secret_name(s), "{s}");
        }
        for s in [
            "PATH",
            "HOME",
            "DISPLAY",
            "BROWSER",
            "GH_HOST",
            "TOKENIZERS",
        ] {
            assert!(!is_secret_name(s), "{s}");
        }
    }

    #[test]
    fn var_names_are_checked() {
        assert!(check_var_name("MY_KEY_2").is_ok());
        for bad in ["", "A=B", "A B", "\u{1b}]0;x"] {
            assert!(check_var_name(bad).is_err(), "{bad:?}");
        }
        assert!(!check_var_name("\u{1b}x").unwrap_err().contains('\u{1b}'));
    }
}
