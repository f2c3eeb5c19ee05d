//! TLS setup shared by the credential source (`auth.rs`, GitHub App token minting) and the
//! request client (`client.rs`); its own file so neither of those imports the other for it.

/// rustls needs a process-wide crypto provider when reqwest is built without one; ring is pure
/// Rust plus assembly, no C toolchain libraries. Installing twice is harmless.
pub(crate) fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
