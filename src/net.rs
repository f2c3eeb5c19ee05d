//! What the HTTP clients of GitHub (`source::github`) and of the LLM providers (`review::llm`)
//! share, below both: one TLS setup and one `Retry-After` parser. What each does with a wait
//! (GitHub's bounds and notices, the providers' cap) stays with each client.

use std::sync::Once;
use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

static CRYPTO: Once = Once::new();

/// rustls needs a process-wide crypto provider when reqwest and octocrab are built without one
/// (no C toolchain libraries: ring is pure Rust plus assembly). Installed once; a provider that
/// is already installed serves as well.
pub fn install_crypto_provider() {
    CRYPTO.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client builder on that TLS setup: every reqwest client of the crate starts here.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

/// The wait a `Retry-After` header asks for, in seconds: an integer (RFC 9110's delay-seconds,
/// what GitHub sends) or a decimal number (as some LLM servers send it). `None` when the header
/// is absent or is no such number, or asks for more than a [`Duration`] holds; the HTTP-date form
/// is not used by GitHub's API or the providers, and is not read.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let secs: f64 = text.parse().ok()?;
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(value: &str) -> Option<Duration> {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, value.parse().unwrap());
        retry_after(&h)
    }

    #[test]
    fn retry_after_reads_seconds_whole_or_decimal() {
        assert_eq!(retry_after(&HeaderMap::new()), None);
        assert_eq!(asked("2"), Some(Duration::from_secs(2)));
        assert_eq!(asked(" 3600 "), Some(Duration::from_secs(3600)));
        assert_eq!(asked("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(
            asked("18446744073709551615"),
            Some(Duration::from_secs(u64::MAX))
        );
        for refused in [
            "soon",
            "-1",
            "NaN",
            "inf",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "",
        ] {
            assert_eq!(asked(refused), None, "{refused:?}");
        }
    }

    #[test]
    fn a_retry_after_too_large_for_a_duration_is_no_hint() {
        assert_eq!(asked("1e20"), None);
        assert_eq!(asked("99999999999999999999"), None);
    }

    #[test]
    fn the_tls_setup_gives_every_client_a_crypto_provider() {
        install_crypto_provider();
        install_crypto_provider();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        assert!(client_builder().build().is_ok());
    }
}
