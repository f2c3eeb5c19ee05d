//! Credentials: a token from the environment or `gh`, or a GitHub App installation.
//!
//! Sources, in order: `GH_TOKEN`, `GITHUB_TOKEN`, a GitHub App (`GH_APP_ID`,
//! `GH_APP_PRIVATE_KEY`, `GH_APP_INSTALLATION_ID`), then `gh auth token` when `gh` is installed.
//! A token is held in [`Secret`], whose `Debug` and `Display` never show it, and no error built
//! here or in the client ever contains it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use octocrab::Octocrab;
use octocrab::models::{AppId, InstallationId};
use octocrab::secrecy::ExposeSecret;

use super::GitHubError;

/// A credential that must never be printed.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }

    /// The raw value, for the `Authorization` header only.
    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How requests authenticate.
#[derive(Clone)]
pub enum Credentials {
    /// A personal, `gh` or Actions token; `source` names where it came from (for messages).
    Token { token: Secret, source: &'static str },
    /// A GitHub App installation. octocrab signs the app JWT (pure-Rust RSA) and mints, caches and
    /// refreshes the installation token; our own client only asks it for the current token.
    App {
        installation: Arc<Octocrab>,
        app: Arc<Octocrab>,
        app_id: u64,
    },
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Token { source, .. } => write!(f, "Token(from {source})"),
            Credentials::App { app_id, .. } => write!(f, "App({app_id})"),
        }
    }
}

impl Credentials {
    /// Where the credentials came from, for messages ("GH_TOKEN", "GitHub App 123", …).
    pub fn describe(&self) -> String {
        match self {
            Credentials::Token { source, .. } => (*source).to_owned(),
            Credentials::App { app_id, .. } => format!("GitHub App {app_id}"),
        }
    }

    /// The bearer token for the next request.
    pub(super) async fn bearer(&self) -> Result<Secret, GitHubError> {
        match self {
            Credentials::Token { token, .. } => Ok(token.clone()),
            Credentials::App { installation, .. } => installation
                .installation_token()
                .await
                .map(|t| Secret::new(t.expose_secret()))
                .map_err(|e| {
                    GitHubError::Auth(format!(
                        "the GitHub App could not get an installation token: {}",
                        app_error_text(&e)
                    ))
                }),
        }
    }
}

/// octocrab's error text for a failed token request; it never contains the JWT or the token.
fn app_error_text(e: &octocrab::Error) -> String {
    match e {
        octocrab::Error::GitHub { source, .. } => {
            format!("GitHub said {} ({})", source.status_code, source.message)
        }
        other => other
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}

/// What the environment offers; read once so tests can pass their own.
#[derive(Debug, Clone, Default)]
pub struct AuthEnv {
    pub gh_token: Option<String>,
    pub github_token: Option<String>,
    pub app_id: Option<String>,
    pub app_private_key: Option<String>,
    pub app_installation_id: Option<String>,
    /// Ask `gh auth token` as the last resort.
    pub try_gh: bool,
}

impl AuthEnv {
    /// The credential variables as `var` reports them (`commands::Context` passes the process
    /// environment's, read there once); blank values count as unset.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> AuthEnv {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        AuthEnv {
            gh_token: var("GH_TOKEN"),
            github_token: var("GITHUB_TOKEN"),
            app_id: var("GH_APP_ID"),
            app_private_key: var("GH_APP_PRIVATE_KEY"),
            app_installation_id: var("GH_APP_INSTALLATION_ID"),
            try_gh: true,
        }
    }
}

/// Finds credentials. `api_base` is where an App's installation token is minted; `host` is the
/// Enterprise host for `gh auth token --hostname`.
pub async fn resolve(
    env: &AuthEnv,
    api_base: &str,
    host: Option<&str>,
) -> Result<Credentials, GitHubError> {
    let mut tried = Vec::new();
    if let Some(t) = &env.gh_token {
        return Ok(Credentials::Token {
            token: Secret::new(t.trim()),
            source: "GH_TOKEN",
        });
    }
    tried.push("GH_TOKEN (not set)".to_owned());
    if let Some(t) = &env.github_token {
        return Ok(Credentials::Token {
            token: Secret::new(t.trim()),
            source: "GITHUB_TOKEN",
        });
    }
    tried.push("GITHUB_TOKEN (not set)".to_owned());
    if env.app_id.is_some() || env.app_installation_id.is_some() || env.app_private_key.is_some() {
        return app(env, api_base).await;
    }
    tried.push("GitHub App (GH_APP_ID not set)".to_owned());
    if env.try_gh {
        match gh_token(host).await {
            Ok(t) => {
                return Ok(Credentials::Token {
                    token: t,
                    source: "gh auth token",
                });
            }
            Err(why) => tried.push(format!("gh auth token ({why})")),
        }
    }
    Err(GitHubError::NoCredentials { tried })
}

async fn app(env: &AuthEnv, api_base: &str) -> Result<Credentials, GitHubError> {
    let missing: Vec<&str> = [
        ("GH_APP_ID", env.app_id.is_none()),
        ("GH_APP_PRIVATE_KEY", env.app_private_key.is_none()),
        ("GH_APP_INSTALLATION_ID", env.app_installation_id.is_none()),
    ]
    .iter()
    .filter(|(_, m)| *m)
    .map(|(k, _)| *k)
    .collect();
    if !missing.is_empty() {
        return Err(GitHubError::Auth(format!(
            "GitHub App credentials are incomplete: {} not set (GH_APP_ID, GH_APP_PRIVATE_KEY and GH_APP_INSTALLATION_ID are all needed)",
            missing.join(", ")
        )));
    }
    let id_of = |name: &str, v: &Option<String>| -> Result<u64, GitHubError> {
        v.as_deref()
            .unwrap_or_default()
            .trim()
            .parse::<u64>()
            .map_err(|_| GitHubError::Auth(format!("{name} must be a number")))
    };
    let app_id = id_of("GH_APP_ID", &env.app_id)?;
    let installation_id = id_of("GH_APP_INSTALLATION_ID", &env.app_installation_id)?;
    let key_text = env.app_private_key.clone().unwrap_or_default();
    // PEM text, or the path of a PEM file.
    let pem = if key_text.contains("-----BEGIN") {
        key_text
    } else {
        crate::infile::read_to_string(
            std::path::Path::new(key_text.trim()),
            crate::infile::KEY_LIMIT,
        )
        .map_err(|e| {
            GitHubError::Auth(format!(
                "GH_APP_PRIVATE_KEY is neither PEM text nor a readable file: {e}"
            ))
        })?
    };
    let key = octocrab::EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|_| {
        GitHubError::Auth("GH_APP_PRIVATE_KEY is not an RSA private key in PEM format".to_owned())
    })?;
    crate::net::install_crypto_provider();
    let app = Octocrab::builder()
        .base_uri(api_base)
        .map_err(|_| GitHubError::Config(format!("`{api_base}` is not a valid API URL")))?
        .app(AppId(app_id), key)
        .build()
        .map_err(|e| GitHubError::Auth(format!("cannot set up GitHub App auth: {e}")))?;
    let installation = app
        .installation(InstallationId(installation_id))
        .map_err(|e| GitHubError::Auth(format!("cannot set up GitHub App auth: {e}")))?;
    Ok(Credentials::App {
        installation: Arc::new(installation),
        app: Arc::new(app),
        app_id,
    })
}

/// The token variables `gh` itself reads.
const GH_OWN_VARS: &[&str] = &[
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
];

/// `gh auth token [--hostname HOST]`, bounded in time. The error says why, never the token.
async fn gh_token(host: Option<&str>) -> Result<Secret, String> {
    let mut cmd = tokio::process::Command::new("gh");
    cmd.arg("auth").arg("token");
    if let Some(h) = host {
        cmd.arg("--hostname").arg(h);
    }
    // gh keeps its own settings and tokens (GH_HOST, GH_CONFIG_DIR, GH_ENTERPRISE_TOKEN, …), but
    // not the other secrets of this process (API keys, a GitHub App's private key).
    for k in crate::childenv::secret_names() {
        if !GH_OWN_VARS.contains(&k.to_str().unwrap_or_default()) {
            cmd.env_remove(k);
        }
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            "gh is not installed".to_owned()
        } else {
            format!("could not run gh: {e}")
        }
    })?;
    let out = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .map_err(|_| "gh did not answer within 10s".to_owned())?
        .map_err(|e| format!("could not run gh: {e}"))?;
    if !out.status.success() {
        return Err("gh is not logged in".to_owned());
    }
    let token = String::from_utf8(out.stdout).unwrap_or_default();
    let token = token.trim();
    if token.is_empty() {
        Err("gh printed no token".to_owned())
    } else {
        Ok(Secret::new(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("ghp_supersecret");
        assert_eq!(format!("{s}"), "***");
        assert!(!format!("{s:?}").contains("supersecret"));
        let c = Credentials::Token {
            token: s,
            source: "GH_TOKEN",
        };
        assert!(!format!("{c:?}").contains("supersecret"));
    }

    #[tokio::test]
    async fn order_is_gh_token_then_github_token() {
        let env = AuthEnv {
            gh_token: Some("a".into()),
            github_token: Some("b".into()),
            ..AuthEnv::default()
        };
        let c = resolve(&env, "https://api.github.com", None).await.unwrap();
        assert_eq!(c.describe(), "GH_TOKEN");
        let env = AuthEnv {
            github_token: Some("b".into()),
            ..AuthEnv::default()
        };
        let c = resolve(&env, "https://api.github.com", None).await.unwrap();
        assert_eq!(c.describe(), "GITHUB_TOKEN");
    }

    #[tokio::test]
    async fn nothing_lists_every_source_tried() {
        let err = resolve(&AuthEnv::default(), "https://api.github.com", None)
            .await
            .unwrap_err()
            .to_string();
        for s in ["GH_TOKEN", "GITHUB_TOKEN", "GH_APP_ID"] {
            assert!(err.contains(s), "{err}");
        }
    }

    #[tokio::test]
    async fn incomplete_app_config_names_the_missing_variables() {
        let env = AuthEnv {
            app_id: Some("12".into()),
            ..AuthEnv::default()
        };
        let err = resolve(&env, "https://api.github.com", None)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("GH_APP_PRIVATE_KEY"), "{err}");
        assert!(err.contains("GH_APP_INSTALLATION_ID"), "{err}");
        let env = AuthEnv {
            app_id: Some("12".into()),
            app_installation_id: Some("34".into()),
            app_private_key: Some(
                "-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----\n".into(),
            ),
            ..AuthEnv::default()
        };
        let err = resolve(&env, "https://api.github.com", None)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an RSA private key"), "{err}");
        assert!(!err.contains("nope"), "{err}");
    }
}
