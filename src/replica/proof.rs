//! Proof that a request came from a peer replica, not from a caller who merely holds the API key.
//!
//! A replica forwarding a call signs it: [`PEER_PROOF`] carries the time and an HMAC-SHA256, keyed
//! by PEER_SECRET (which only the replicas have, from the same Kubernetes Secret), over the
//! forwarding replica's name, that time, the request's method and path and its whole body. The
//! receiving replica honours [`super::FORWARDED_BY`] only when the proof matches and is at most
//! [`WINDOW`] old (or ahead), so a caller cannot skip the rate limit or pose as a peer, and a
//! proof taken from one call fits no other.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header a forwarded request carries its proof in: `<unix ms>.<base64url HMAC>`.
pub const PEER_PROOF: &str = "x-text-browser-peer-proof";
/// How far a proof's time may be from this replica's clock.
const WINDOW: Duration = Duration::from_secs(60);
/// The shortest PEER_SECRET taken (a random 32-byte hex string is 64).
pub const MIN_SECRET_LEN: usize = 16;

/// PEER_SECRET. Its `Debug` never shows it.
#[derive(Clone, PartialEq)]
pub struct PeerSecret(Vec<u8>);

impl fmt::Debug for PeerSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PeerSecret(<redacted>)")
    }
}

/// What a proof covers besides the peer's name and the time.
#[derive(Debug, Clone, Copy)]
pub struct Signed<'a> {
    pub method: &'a str,
    /// The path and query.
    pub path: &'a str,
    pub body: &'a [u8],
}

impl PeerSecret {
    pub fn new(secret: &str) -> Self {
        Self(secret.as_bytes().to_vec())
    }

    /// The proof for a request replica `peer` sends now.
    pub fn sign(&self, peer: &str, request: Signed<'_>) -> String {
        let at = now_ms();
        let tag = self.mac(peer, at, request).finalize().into_bytes();
        format!("{at}.{}", URL_SAFE_NO_PAD.encode(tag))
    }

    /// Whether `proof` shows that replica `peer` sent `request`, recently.
    pub fn verify(&self, peer: &str, proof: &str, request: Signed<'_>) -> bool {
        let Some((at, tag)) = proof.split_once('.') else { return false };
        let (Ok(at), Ok(tag)) = (at.parse::<u64>(), URL_SAFE_NO_PAD.decode(tag)) else { return false };
        if now_ms().abs_diff(at) > WINDOW.as_millis() as u64 {
            return false;
        }
        // Compared in constant time by the MAC itself.
        self.mac(peer, at, request).verify_slice(&tag).is_ok()
    }

    fn mac(&self, peer: &str, at: u64, request: Signed<'_>) -> Hmac<Sha256> {
        // Infallible: HMAC takes a key of any length.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        let head = format!("text-browser peer v1\n{peer}\n{at}\n{} {}\n", request.method, request.path);
        mac.update(head.as_bytes());
        mac.update(request.body);
        mac
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: Signed<'static> = Signed { method: "POST", path: "/rpc", body: br#"{"method":"page.text"}"# };

    #[test]
    fn a_proof_fits_only_its_peer_call_and_secret() {
        let secret = PeerSecret::new("0123456789abcdef-peers");
        let proof = secret.sign("tb-1", CALL);
        assert!(secret.verify("tb-1", &proof, CALL));
        assert!(!secret.verify("tb-2", &proof, CALL), "another peer's name");
        let other = Signed { body: br#"{"method":"session.close"}"#, ..CALL };
        assert!(!secret.verify("tb-1", &proof, other), "another body");
        assert!(!secret.verify("tb-1", &proof, Signed { path: "/mcp", ..CALL }), "another path");
        assert!(!PeerSecret::new("someone-elses-secret").verify("tb-1", &proof, CALL), "another secret");
        for forged in ["", "tb-1", "1.abc", "x.y", &proof.replace('.', "")] {
            assert!(!secret.verify("tb-1", forged, CALL), "{forged:?}");
        }
    }

    #[test]
    fn an_old_proof_is_refused() {
        let secret = PeerSecret::new("0123456789abcdef-peers");
        let at = now_ms() - WINDOW.as_millis() as u64 - 1_000;
        let tag = secret.mac("tb-1", at, CALL).finalize().into_bytes();
        let stale = format!("{at}.{}", URL_SAFE_NO_PAD.encode(tag));
        assert!(!secret.verify("tb-1", &stale, CALL));
        assert!(!format!("{secret:?}").contains("0123"), "never shown");
    }
}
